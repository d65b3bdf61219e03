#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# slurm-source.sh - fetch and configure the Slurm source tree that matches the
# installed Slurm, so that ./configure can build the plugins against it.
#
# Slurm's plugin interface is internal: a plugin must be compiled against the
# configured tree of exactly the installed release.  On Debian that is the
# slurm-wlm source package of the installed version (with Debian's patches,
# security fixes included), configured with Debian's own options so that
# config.h (MULTIPLE_SLURMD, HAVE_*) matches the binaries.
#
# Usage: scripts/slurm-source.sh [DEST]
#   DEST defaults to $SLURM_SRC_CACHE/slurm-VERSION
#   (SLURM_SRC_CACHE defaults to /var/cache/slurm-devns), where ./configure
#   looks when --with-slurm-source is not given.  Prints the tree's path.
set -euo pipefail

: "${SLURM_SRC_CACHE:=/var/cache/slurm-devns}"

die() { echo "slurm-source.sh: $*" >&2; exit 1; }

installed_package_version() {
	dpkg-query -W -f='${Version}' slurmd 2>/dev/null ||
		dpkg-query -W -f='${Version}' slurmctld 2>/dev/null ||
		die "no Debian slurmd or slurmctld package installed"
}

# apt-get source needs a deb-src line for the suite the package came from.
ensure_deb_src() {
	if apt-get source --print-uris "slurm-wlm=$1" >/dev/null 2>&1; then
		return
	fi
	local sources=/etc/apt/sources.list.d/debian.sources
	if [ -f "$sources" ] && grep -q '^Types: deb$' "$sources"; then
		sed -i 's/^Types: deb$/Types: deb deb-src/' "$sources"
	else
		local suite
		suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
		echo "deb-src http://deb.debian.org/debian $suite main" \
			>/etc/apt/sources.list.d/slurm-devns-src.list
		echo "deb-src http://deb.debian.org/debian-security $suite-security main" \
			>>/etc/apt/sources.list.d/slurm-devns-src.list
	fi
	apt-get update -q >/dev/null
}

# The same options as debian/rules, minus what only matters for packaging.
configure_tree() {
	(cd "$1" && ./configure -q --prefix=/usr --sysconfdir=/etc/slurm \
		--libdir="/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)" \
		--with-munge --enable-pam --without-rpath --disable-debug \
		--enable-multiple-slurmd >"$1/.devns-configure.log" 2>&1) ||
		die "Slurm's configure failed; see $1/.devns-configure.log"
}

main() {
	local pkgver upstream dest work
	pkgver=$(installed_package_version)
	upstream=${pkgver%%-*}
	dest=${1:-$SLURM_SRC_CACHE/slurm-$upstream}

	# A cached tree is kept while it is the installed Debian version (a
	# security update of the same release brings a new tree).
	if [ -f "$dest/config.h" ] && [ -f "$dest/slurm/slurm_version.h" ] &&
	   { [ ! -f "$dest/debian/changelog" ] ||
	     [ "$(dpkg-parsechangelog -l "$dest/debian/changelog" -SVersion)" = "$pkgver" ]; }; then
		echo "$dest"
		return
	fi

	command -v dpkg-source >/dev/null || apt-get install -y -q dpkg-dev >/dev/null
	ensure_deb_src "$pkgver"
	mkdir -p "$(dirname "$dest")"
	work=$(mktemp -d "$(dirname "$dest")/.fetch.XXXXXX")
	(cd "$work" && apt-get source -q "slurm-wlm=$pkgver" >/dev/null 2>&1) ||
		{ rm -rf "$work"; die "apt-get source slurm-wlm=$pkgver failed"; }
	rm -rf "$dest"
	mv "$work/slurm-wlm-$upstream" "$dest"
	rm -rf "$work"
	configure_tree "$dest"
	echo "$dest"
}

main "$@"
