#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# slurm-release.sh - build and install a Slurm release that Debian 12 does not
# ship under its own prefix, so that the plugins can be built and tested
# against it beside the installed 22.05.
#
#   scripts/slurm-release.sh [VERSION]      (default 24.11.5)
#   scripts/slurm-release.sh --configure-only VERSION [DIR]
#
# VERSION is MAJOR.MINOR.MICRO, or with a pre-release's tag as Slurm's
# `slurmd -V` prints it (META's Release when it is not 1: 26.11.0-0rc1);
# it names the tarball, the tree, the prefix and the stamp alike, and the
# configured tree must say the same (SLURM_VERSION_STRING), or the plugins
# built by scripts/build.sh --slurm PREFIX would look for another tree.
#
# --configure-only fetches, verifies and unpacks the source as below and runs
# Slurm's configure with the full build's options (the same prefix and
# recipe), then stops: a configured tree (config.h, slurm/slurm_version.h) is
# all the plugins need to compile (scripts/build-matrix.sh).  The tree is
# DIR, by default $SLURM_SRC_CACHE/slurm-VERSION, the one a full build uses:
# a full build later reuses it as configured.  Prints the tree; a warm run
# (configured by this recipe) returns at once.  Nothing is built or
# installed, and no prefix is needed.
#
# Where the source comes from:
#
#   24.11.x   Debian 13 (trixie)'s slurm-wlm source package: its orig
#             tarball, verified by apt against the signed source index.
#   others    the release tarball slurm-VERSION.tar.xz in the shared folder
#             ($top/../shared/slurm, or $SLURM_SHARED_DIR), checked against
#             that folder's SHA256SUMS before it is unpacked.  A release the
#             list does not name, a file it names that is missing, or a
#             digest that differs stops the script; nothing is downloaded.
#
# Prints the install prefix (/opt/slurm-VERSION unless SLURM_RELEASE_PREFIX
# says otherwise).  The configured source tree stays in
# $SLURM_SRC_CACHE/slurm-VERSION, where ./configure looks for it.  Both are
# cached: a stamp in the prefix records what was built (the recipe below),
# and a warm run with the stamp in place returns at once; a stamp of another
# recipe reconfigures and rebuilds the tree.
#
# SLURM_RELEASE_TARBALL=FILE takes the source from FILE instead.  For 24.11.x
# it replaces the download (for when the archive lists a release but does not
# serve its files) and must have the SHA-256 Debian's index gives for the
# orig tarball; for the other releases it replaces the shared folder's file
# and must have the SHA-256 SHA256SUMS gives, and a release the list does not
# name is built from FILE unverified, with a warning.
#
# Only the parts the tests run are built: the daemons, the commands, the
# plugins with cgroup/v2 (which needs dbus-1's headers: libdbus-1-dev is
# installed from Debian 12's archive when missing) and pam_slurm_adopt (in
# PREFIX/lib/security, beside nothing of the system's).  No slurmrestd, no
# sview.  The build fails if cgroup_v2.so or pam_slurm_adopt.so is missing.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
: "${SLURM_SRC_CACHE:=/var/cache/slurm-devns}"
shared=${SLURM_SHARED_DIR:-$(dirname "$top")/shared/slurm}
configure_only=no
if [ "${1:-}" = --configure-only ]; then
	configure_only=yes
	shift
	if [ $# -lt 1 ] || [ $# -gt 2 ]; then
		echo "usage: slurm-release.sh --configure-only VERSION [DIR]" >&2
		exit 2
	fi
fi
version=${1:-24.11.5}
prefix=${SLURM_RELEASE_PREFIX:-/opt/slurm-$version}
tree=${2:-$SLURM_SRC_CACHE/slurm-$version}
stamp=$prefix/.slurm-devns-build
# Bump when the options below change so that cached builds are redone (v3:
# cgroup/v2, which v2's builds lack for want of libdbus-1-dev).  24.11.x
# keeps v2 for now: CI's cached build would be redone (20-30 minutes of
# CI time) for a cgroup/v2 that no CI stage runs on 24.11 yet.
case $version in
24.11.*) recipe="v2 $version --enable-multiple-slurmd --enable-pam --with-munge" ;;
*) recipe="v3 $version --enable-multiple-slurmd --enable-pam --with-munge --enable-cgroupv2" ;;
esac
work=

die() { echo "slurm-release.sh: $*" >&2; exit 1; }
say() { echo "slurm-release.sh: $*" >&2; }

# A half-fetched tree must not be taken for a cached one.
trap '[ -z "$work" ] || rm -rf "$work"' EXIT

# The Debian suite whose slurm-wlm source package carries VERSION.
suite_for() {
	case $1 in
	24.11.*) echo trixie ;;
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

fetch_debian() {
	local suite pkgver out tarball f sum
	suite=$(suite_for "$version") ||
		die "no Debian suite known for Slurm $version (24.11.x: trixie)"
	ensure_sources "$suite"
	pkgver=$(apt-cache showsrc slurm-wlm 2>/dev/null |
		sed -n "s/^Version: \($version-.*\)/\1/p" | head -n1)
	mkdir -p "$SLURM_SRC_CACHE"
	if [ -n "${SLURM_RELEASE_TARBALL:-}" ]; then
		tarball=$SLURM_RELEASE_TARBALL
		[ -f "$tarball" ] || die "SLURM_RELEASE_TARBALL: no file $tarball"
		if [ -n "$pkgver" ]; then
			sum=$(orig_sha256 "$pkgver")
			# shellcheck disable=SC2015 # die unless both hold
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
	mkdir -p "$(dirname "$tree")"
	mv "$work"/src/* "$tree"
	rm -rf "$work"
	work=
}

# SHA-256 that the shared folder's SHA256SUMS gives for FILE (a bare name),
# empty when it does not list FILE.
listed_sha256() {
	awk -v f="$1" '($2 == f || $2 == "*" f) && !found++ { print $1 }' "$shared/SHA256SUMS"
}

# The release tarball from the shared folder (or SLURM_RELEASE_TARBALL),
# checked against SHA256SUMS before anything is written; the copy that is
# unpacked is checked again, so a file replaced in between is not built.
fetch_shared() {
	local name=slurm-$version.tar.xz tarball sum got
	[ -f "$shared/SHA256SUMS" ] ||
		die "no $shared/SHA256SUMS: Slurm $version's source is looked for in $shared (SLURM_SHARED_DIR=DIR names another folder)"
	sum=$(listed_sha256 "$name")
	if [ -n "${SLURM_RELEASE_TARBALL:-}" ]; then
		tarball=$SLURM_RELEASE_TARBALL
		[ -f "$tarball" ] || die "SLURM_RELEASE_TARBALL: no file $tarball"
		[ -n "$sum" ] ||
			say "warning: $shared/SHA256SUMS does not list $name; building $tarball unverified"
	else
		[ -n "$sum" ] ||
			die "Slurm $version is not in $shared/SHA256SUMS (releases there: $(sed -n 's/.*slurm-\(.*\)\.tar\.xz$/\1/p' "$shared/SHA256SUMS" | tr '\n' ' ' | sed 's/ $//'); 24.11.x comes from Debian 13); nothing is downloaded"
		tarball=$shared/$name
		[ -f "$tarball" ] || die "$tarball is missing, though SHA256SUMS lists it"
	fi
	if [ -n "$sum" ]; then
		got=$(sha256sum <"$tarball" | cut -d' ' -f1)
		[ "$got" = "$sum" ] ||
			die "$tarball has SHA-256 $got, but $shared/SHA256SUMS gives $sum: damaged or not Slurm $version; not building it"
	fi
	mkdir -p "$SLURM_SRC_CACHE"
	work=$(mktemp -d "$SLURM_SRC_CACHE/.fetch.XXXXXX")
	cp "$tarball" "$work/$name"
	if [ -n "$sum" ]; then
		got=$(sha256sum <"$work/$name" | cut -d' ' -f1)
		[ "$got" = "$sum" ] || die "$tarball changed while it was copied; not building it"
	fi
	mkdir "$work/src"
	tar -C "$work/src" -xf "$work/$name"
	[ -f "$work/src/slurm-$version/configure" ] ||
		die "$tarball does not hold slurm-$version/configure"
	rm -rf "$tree"
	mkdir -p "$(dirname "$tree")"
	mv "$work/src/slurm-$version" "$tree"
	rm -rf "$work"
	work=
}

fetch_tree() {
	case $version in
	24.11.*) fetch_debian ;;
	*) fetch_shared ;;
	esac
}

# cgroup/v2 talks to systemd over D-Bus: Slurm's configure builds it only with
# dbus-1's headers.  Installed from this machine's Debian 12 archive (this
# script adds deb-src entries only, never a binary one of another release).
ensure_dbus() {
	dpkg-query -W -f='${Status}' libdbus-1-dev 2>/dev/null | grep -q 'ok installed' &&
		return
	say "installing libdbus-1-dev for cgroup/v2"
	apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=600 \
		libdbus-1-dev >/dev/null 2>&1 || {
		apt-get update -q >/dev/null &&
		apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=600 \
			libdbus-1-dev >/dev/null
	} || die "could not install libdbus-1-dev, which cgroup/v2 needs"
}

configure_tree() {
	say "configuring $tree (log: $tree/.devns-configure.log)"
	rm -f "$tree/.devns-recipe"
	(cd "$tree" && ./configure -q --prefix="$prefix" --sysconfdir="$prefix/etc" \
		--with-munge --enable-pam --enable-multiple-slurmd --disable-static \
		--disable-debug --disable-slurmrestd --disable-sview --disable-x11 \
		--without-hdf5 --without-ucx --without-pmix \
		--without-hwloc --without-nvml --without-rsmi --without-lua \
		--enable-cgroupv2 \
		>"$tree/.devns-configure.log" 2>&1) ||
		die "Slurm's configure failed; see $tree/.devns-configure.log"
	version_matches ||
		die "$tree is Slurm $(tree_version), not $version (its META's Version and Release): slurmd -V would name another release"
	echo "$recipe" >"$tree/.devns-recipe"
}

# SLURM_VERSION_STRING of the configured tree: what slurmd -V prints.
tree_version() {
	sed -n 's/^#define SLURM_VERSION_STRING "\(.*\)"$/\1/p' "$tree/config.h" 2>/dev/null
}

version_matches() { [ "$(tree_version)" = "$version" ]; }

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
	[ -f "$prefix/lib/slurm/cgroup_v2.so" ] ||
		die "Slurm $version was built without cgroup/v2 ($prefix/lib/slurm/cgroup_v2.so is missing): it needs dbus-1 (libdbus-1-dev) and linux/bpf.h; see 'dbus' and 'bpf' in $tree/config.log"
	[ -f "$prefix/lib/security/pam_slurm_adopt.so" ] ||
		die "Slurm $version was built without pam_slurm_adopt ($prefix/lib/security/pam_slurm_adopt.so is missing); see $log"
}

# The tree is configured by this recipe for this prefix.
tree_configured() {
	[ -f "$tree/config.h" ] && [ -f "$tree/slurm/slurm_version.h" ] &&
	grep -q "$prefix" "$tree/config.log" 2>/dev/null &&
	[ "$(cat "$tree/.devns-recipe" 2>/dev/null)" = "$recipe" ]
}

# One run per tree at a time: a second waits rather than unpacking or
# configuring the tree under the first.
lock_tree() {
	mkdir -p "$SLURM_SRC_CACHE"
	exec 9>"$SLURM_SRC_CACHE/.lock-slurm-$version"
	flock 9
}

main() {
	[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(-0(pre|rc)[0-9]+)?$ ]] ||
		die "'$version' is not a Slurm release (MAJOR.MINOR.MICRO, or MAJOR.MINOR.MICRO-0rcN for a pre-release)"
	if [ "$configure_only" = yes ]; then
		if ! tree_configured; then
			lock_tree
			[ -f "$tree/src/common/xmalloc.h" ] || fetch_tree
			ensure_dbus
			tree_configured || configure_tree
		fi
		echo "$tree"
		return
	fi
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$recipe" ] &&
	   [ -x "$prefix/sbin/slurmd" ] && [ -f "$tree/config.h" ]; then
		echo "$prefix"
		return
	fi
	lock_tree
	[ -f "$tree/src/common/xmalloc.h" ] || fetch_tree
	ensure_dbus
	# A tree configured by another recipe (24.11.5's of v2, without dbus)
	# is configured again, or cgroup/v2 would stay out of the build.
	tree_configured || configure_tree
	rm -f "$stamp"
	build_and_install
	echo "$recipe" >"$stamp"
	echo "$prefix"
}

main "$@"
