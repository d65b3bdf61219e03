#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# slurm-release.sh - build and install a Slurm release that Debian 12 does not
# ship under its own prefix, so that the plugins can be built and tested
# against it beside the installed 22.05.  The source is Debian's slurm-wlm
# source package of the suite that carries the release:
#
#   24.11.x   Debian 13 (trixie)
#   26.05.x   Debian unstable (sid)
#
#   scripts/slurm-release.sh [VERSION]      (default 24.11.5)
#
# Prints the install prefix (/opt/slurm-VERSION unless SLURM_RELEASE_PREFIX
# says otherwise).  The configured source tree stays in
# $SLURM_SRC_CACHE/slurm-VERSION, where ./configure looks for it.  Both are
# cached: a stamp in the prefix records what was built, and a warm run with
# the stamp in place returns at once.
#
# SLURM_RELEASE_TARBALL=FILE takes the source from FILE (Slurm's release
# tarball, or Debian's orig tarball) instead of downloading it, for when the
# archive lists a release but does not serve its files.  Where Debian's
# source index lists the release, FILE must have the SHA-256 the index gives
# for the orig tarball; a release the index does not list is built from FILE
# unverified, with a warning.
#
# Only the parts the tests run are built: the daemons, the commands, the
# plugins and pam_slurm_adopt (in PREFIX/lib/security, beside nothing of
# the system's).  No slurmrestd, no sview.
set -euo pipefail

: "${SLURM_SRC_CACHE:=/var/cache/slurm-devns}"
version=${1:-24.11.5}
prefix=${SLURM_RELEASE_PREFIX:-/opt/slurm-$version}
tree=$SLURM_SRC_CACHE/slurm-$version
stamp=$prefix/.slurm-devns-build
# Bump when the options below change so that cached builds are redone.
recipe="v2 $version --enable-multiple-slurmd --enable-pam --with-munge"

die() { echo "slurm-release.sh: $*" >&2; exit 1; }
say() { echo "slurm-release.sh: $*" >&2; }

# The Debian suite whose slurm-wlm source package carries VERSION.
suite_for() {
	case $1 in
	24.11.*) echo trixie ;;
	26.05.*) echo unstable ;;
	*) return 1 ;;
	esac
}

# Only the suite's source index is added (Types: deb-src, never deb), so no
# binary package of this machine can be upgraded from it.
ensure_sources() {
	local suite=$1 list=/etc/apt/sources.list.d/slurm-devns-$1-src.sources
	if [ ! -f "$list" ]; then
		cat >"$list" <<-EOF
		Types: deb-src
		URIs: http://deb.debian.org/debian
		Suites: $suite
		Components: main
		Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
		EOF
		apt-get update -q >/dev/null
	elif ! apt-cache showsrc slurm-wlm 2>/dev/null | grep -q "^Version: $version-"; then
		apt-get update -q >/dev/null
	fi
}

# apt verifies the tarball against the signed source index.  Only the upstream
# tarball is used: the Debian diff is not needed to build Slurm, and the
# archive may no longer serve it once the package has moved on.
# SHA-256 of slurm-wlm_VERSION.orig.tar.* in the source index's PKGVER entry.
orig_sha256() {
	apt-cache showsrc slurm-wlm 2>/dev/null |
	awk -v v="Version: $1" -v n="slurm-wlm_$version.orig.tar." '
		/^Package:/ { here = 0 }
		$0 == v { here = 1 }
		/^[A-Za-z]/ { sums = ($0 == "Checksums-Sha256:") }
		here && sums && NF == 3 && index($3, n) == 1 && !found++ { print $1 }'
}

fetch_tree() {
	local suite pkgver work out tarball f sum
	suite=$(suite_for "$version") ||
		die "no Debian suite known for Slurm $version (24.11.x: trixie, 26.05.x: unstable)"
	ensure_sources "$suite"
	pkgver=$(apt-cache showsrc slurm-wlm 2>/dev/null |
		sed -n "s/^Version: \($version-.*\)/\1/p" | head -n1)
	mkdir -p "$SLURM_SRC_CACHE"
	if [ -n "${SLURM_RELEASE_TARBALL:-}" ]; then
		tarball=$SLURM_RELEASE_TARBALL
		[ -f "$tarball" ] || die "SLURM_RELEASE_TARBALL: no file $tarball"
		if [ -n "$pkgver" ]; then
			sum=$(orig_sha256 "$pkgver")
			[ -n "$sum" ] && [ "$(sha256sum <"$tarball" | cut -d' ' -f1)" = "$sum" ] ||
				die "$tarball is not slurm-wlm $pkgver's orig tarball (SHA-256 differs from Debian's $suite index)"
		else
			say "warning: Slurm $version is not in Debian's $suite index; building $tarball unverified"
		fi
		work=$(mktemp -d "$SLURM_SRC_CACHE/.fetch.XXXXXX")
	else
		[ -n "$pkgver" ] || die "no slurm-wlm $version source in Debian's $suite index"
		work=$(mktemp -d "$SLURM_SRC_CACHE/.fetch.XXXXXX")
		out=$(cd "$work" && apt-get source -q --download-only "slurm-wlm=$pkgver" 2>&1) || true
		tarball=
		for f in "$work/slurm-wlm_$version".orig.tar.*; do
			[ -f "$f" ] && tarball=$f
		done
		if [ -z "$tarball" ]; then
			rm -rf "$work"
			printf '%s\n' "$out" | grep '^E:' >&2 || true
			die "could not download slurm-wlm_$version.orig.tar.* ($pkgver, $suite); SLURM_RELEASE_TARBALL=FILE takes it from FILE"
		fi
	fi
	mkdir "$work/src"
	tar -C "$work/src" -xf "$tarball"
	rm -rf "$tree"
	mv "$work"/src/* "$tree"
	rm -rf "$work"
}

configure_tree() {
	say "configuring $tree (log: $tree/.devns-configure.log)"
	(cd "$tree" && ./configure -q --prefix="$prefix" --sysconfdir="$prefix/etc" \
		--with-munge --enable-pam --enable-multiple-slurmd --disable-static \
		--disable-debug --disable-slurmrestd --disable-sview --disable-x11 \
		--without-hdf5 --without-ucx --without-pmix \
		--without-hwloc --without-nvml --without-rsmi --without-lua \
		>"$tree/.devns-configure.log" 2>&1) ||
		die "Slurm's configure failed; see $tree/.devns-configure.log"
}

build_and_install() {
	local log=$tree/.devns-build.log jobs
	jobs=$(nproc)
	say "building Slurm $version with make -j$jobs (log: $log)"
	{
		make -C "$tree" -j"$jobs" &&
		make -C "$tree" -j"$jobs" install &&
		make -C "$tree/contribs/pam_slurm_adopt" -j"$jobs" &&
		make -C "$tree/contribs/pam_slurm_adopt" install \
			pkglibdir="$prefix/lib/security"
	} >"$log" 2>&1 || { tail -n 30 "$log" >&2; die "building Slurm $version failed; see $log"; }
}

main() {
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$recipe" ] &&
	   [ -x "$prefix/sbin/slurmd" ] && [ -f "$tree/config.h" ]; then
		echo "$prefix"
		return
	fi
	[ -f "$tree/src/common/xmalloc.h" ] || fetch_tree
	[ -f "$tree/config.h" ] && grep -q "$prefix" "$tree/config.log" 2>/dev/null ||
		configure_tree
	rm -f "$stamp"
	build_and_install
	echo "$recipe" >"$stamp"
	echo "$prefix"
}

main "$@"
