#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# slurm-source.sh - fetch and configure the Slurm source tree that matches the
# installed Slurm, so that ./configure can build the plugins against it.
#
# Slurm's plugin interface is internal: a plugin loads only into daemons of
# exactly the micro release it was compiled for, so it is compiled against
# the configured tree of that release, configured as the daemons were so that
# config.h (MULTIPLE_SLURMD, HAVE_*) matches the binaries:
#
#   Debian, Ubuntu (dpkg): the source package of the installed slurmd (or
#     slurmctld) at its exact version (the distribution's patches, security
#     fixes included), from the archive the system itself is configured for:
#     deb-src entries are derived from its own deb entries when apt cannot
#     find the source yet; configured with the options of its debian/rules.
#   Debian, Ubuntu with SchedMD's own packages (slurm-smd-slurmd or
#     slurm-smd-slurmctld, built from the debian/ of SchedMD's release
#     tarball, the one packaged way to 25.11 and later there): that tarball
#     of the installed version, configured with the options of its own
#     debian/rules.
#   RPM systems built from SchedMD's slurm.spec (slurm-slurmd, slurm-slurmctld
#     or slurm installed): SchedMD's release tarball of the installed version,
#     configured with the spec's defaults; multiple-slurmd as the installed
#     slurmd was built.
#
# A package build (slurm-devns.spec's %prep) has no Slurm installed: with
# SLURM_RPM_RELEASE=VERSION the RPM tree of that release is made from
# SchedMD's tarball (SLURM_SOURCE_TARBALL, else downloaded), multiple-slurmd
# as SLURM_MULTIPLE_SLURMD says, whatever the machine has installed.
#
# Usage: scripts/slurm-source.sh [DEST]
#   DEST defaults to $SLURM_SRC_CACHE/slurm-VERSION
#   (SLURM_SRC_CACHE defaults to /var/cache/slurm-devns), where ./configure
#   looks when --with-slurm-source is not given.  Prints the tree's path.
#
# Environment:
#   SLURM_SOURCE_TARBALL=FILE  RPM, slurm-smd: the release tarball (any
#                              compression tar reads), instead of
#                              downloading it from SchedMD
#   SLURM_SOURCE_SHA256=HEX    RPM, slurm-smd: the tarball's SHA-256 (from
#                              SchedMD's download page); the tree is
#                              unverified without
#   SLURM_SOURCE_URL=URL       RPM, slurm-smd: where tarballs are fetched
#                              from [https://download.schedmd.com/slurm]
#   SLURM_RPM_RELEASE=VERSION  RPM: the tree of this release, not the
#                              installed one's (none need be installed)
#   SLURM_MULTIPLE_SLURMD=yes|no  RPM: configure with or without
#                              --enable-multiple-slurmd (slurm.spec's
#                              --with multiple_slurmd) [the installed slurmd's]
#   SLURM_SOURCE_ROOT=DIR      the root under which /etc/os-release, /etc/apt
#                              and /usr/sbin/slurmd are read and written
#                              (tests point it at a fake root) [empty: /]
set -euo pipefail

: "${SLURM_SRC_CACHE:=/var/cache/slurm-devns}"
: "${SLURM_SOURCE_URL:=https://download.schedmd.com/slurm}"
root=${SLURM_SOURCE_ROOT:-}
apt_dir=$root/etc/apt

die() { echo "slurm-source.sh: $*" >&2; exit 1; }
note() { echo "slurm-source.sh: $*" >&2; }

# The dpkg source package and version of the installed slurmd or slurmctld:
# Debian's ("slurm-wlm 22.05.8-4+deb12u3") or SchedMD's ("slurm-smd
# 26.05.3-1"; the two conflict, so a system has one of them); fails where
# dpkg has none.
dpkg_installed() {
	command -v dpkg-query >/dev/null || return 1
	local pkg out
	for pkg in slurmd slurmctld slurm-smd-slurmd slurm-smd-slurmctld; do
		out=$(dpkg-query -W -f='${db:Status-Status} ${source:Package} ${source:Version}' \
			"$pkg" 2>/dev/null) || continue
		case $out in
		"installed "*) echo "${out#installed }"; return 0 ;;
		esac
	done
	return 1
}

# The version of the installed slurm-slurmd, slurm-slurmctld or slurm RPM
# (SchedMD's slurm.spec names); fails where rpm has none.
rpm_installed() {
	command -v rpm >/dev/null || return 1
	local pkg out
	for pkg in slurm-slurmd slurm-slurmctld slurm; do
		# rpm -q says "package P is not installed" on stdout.
		out=$(rpm -q --qf '%{VERSION}\n' "$pkg" 2>/dev/null) &&
			{ echo "$out"; return 0; }
	done
	return 1
}

# ---------------------------------------------------------------------------
# Debian, Ubuntu
# ---------------------------------------------------------------------------

# deb822 stanzas (*.sources) of type deb, as deb-src stanzas: every other
# field (URIs, Suites, Components, Signed-By, also an inline key) is kept,
# so the source comes from the same archive, suites and keys as the
# binaries.  Disabled stanzas and those already with deb-src are skipped.
deb822_src_stanzas() {
	awk 'BEGIN { RS = ""; ORS = "\n\n" }
	{
		n = split($0, line, "\n"); types = ""; off = 0
		for (i = 1; i <= n; i++) {
			if (line[i] ~ /^Types:/) types = " " substr(line[i], 7) " "
			if (tolower(line[i]) ~ /^enabled:[ \t]*no[ \t]*$/) off = 1
		}
		if (off || types !~ /[ \t]deb[ \t]/ || types ~ /[ \t]deb-src[ \t]/)
			next
		out = ""
		for (i = 1; i <= n; i++) {
			if (line[i] ~ /^Types:/) line[i] = "Types: deb-src"
			if (line[i] ~ /^#/) continue
			out = out line[i] "\n"
		}
		printf "%s\n", out
	}' "$@"
}

# One-line sources (sources.list, *.list): a deb-src line per deb line.
oneline_src_lines() {
	sed -n 's/^[[:space:]]*deb\([[:space:]]\)/deb-src\1/p' "$@"
}

# apt-get source needs deb-src entries for the suite the package came from:
# where apt cannot find the source yet, they are derived from the system's
# own deb entries (never a mirror of another distribution: Ubuntu's source
# comes from Ubuntu's archive) into slurm-devns-src.{sources,list}.
ensure_deb_src() {
	local srcpkg=$1 srcver=$2
	if apt-get source --print-uris "$srcpkg=$srcver" >/dev/null 2>&1; then
		return
	fi
	local d=$apt_dir/sources.list.d f
	local deb822=() oneline=()
	for f in "$d"/*.sources; do
		[ -f "$f" ] && [ "$f" != "$d/slurm-devns-src.sources" ] && deb822+=("$f")
	done
	for f in "$apt_dir/sources.list" "$d"/*.list; do
		[ -f "$f" ] && [ "$f" != "$d/slurm-devns-src.list" ] && oneline+=("$f")
	done
	rm -f "$d/slurm-devns-src.sources" "$d/slurm-devns-src.list"
	if [ ${#deb822[@]} -gt 0 ]; then
		deb822_src_stanzas "${deb822[@]}" >"$d/slurm-devns-src.sources"
		[ -s "$d/slurm-devns-src.sources" ] || rm -f "$d/slurm-devns-src.sources"
	fi
	if [ ${#oneline[@]} -gt 0 ]; then
		oneline_src_lines "${oneline[@]}" >"$d/slurm-devns-src.list"
		[ -s "$d/slurm-devns-src.list" ] || rm -f "$d/slurm-devns-src.list"
	fi
	if [ -f "$d/slurm-devns-src.sources" ] || [ -f "$d/slurm-devns-src.list" ]; then
		note "added deb-src entries from the system's own deb entries:" \
			"$d"/slurm-devns-src.*
	elif ! grep -qs 'deb-src' "${deb822[@]}" "${oneline[@]}" </dev/null; then
		die "no deb entries in $apt_dir/sources.list or $d/*.{sources,list} to derive deb-src entries from; add a deb-src entry for $srcpkg $srcver"
	fi
	# New entries, or deb-src entries whose lists were never fetched.
	apt-get update -q >/dev/null
}

# The options the package's debian/rules gives configure (its main build,
# not the front-end emulator), minus what only matters for packaging (pmix,
# restd, systemd units, SUCMD): installation paths and multiple-slurmd are
# what config.h and the plugins depend on.
configure_deb_tree() {
	local tree=$1 multiarch rules opts
	multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
	rules=$(grep -m1 -e 'dh_auto_configure --\( \|$\)' "$tree/debian/rules" 2>/dev/null || true)
	opts=(--prefix=/usr --sysconfdir=/etc/slurm --libdir="/usr/lib/$multiarch"
		--with-munge --enable-pam --without-rpath --disable-debug)
	case " $rules " in
	*" --enable-multiple-slurmd "*) opts+=(--enable-multiple-slurmd) ;;
	esac
	configure_tree "$tree" "${opts[@]}"
}

# A cached tree is kept while it is the installed version (a security update
# of the same release brings a new tree).
deb_tree_current() {
	local dest=$1 srcver=$2
	[ -f "$dest/config.h" ] && [ -f "$dest/slurm/slurm_version.h" ] &&
		[ -f "$dest/debian/changelog" ] &&
		[ "$(dpkg-parsechangelog -l "$dest/debian/changelog" -SVersion)" = "$srcver" ]
}

fetch_deb() {
	local srcpkg=$1 srcver=$2 dest=$3 upstream work
	upstream=${srcver#*:}
	upstream=${upstream%-*}
	command -v dpkg-source >/dev/null || apt-get install -y -q dpkg-dev >/dev/null
	ensure_deb_src "$srcpkg" "$srcver"
	mkdir -p "$(dirname "$dest")"
	work=$(mktemp -d "$(dirname "$dest")/.fetch.XXXXXX")
	(cd "$work" && apt-get source -q "$srcpkg=$srcver" >/dev/null 2>&1) ||
		{ rm -rf "$work"; die "apt-get source $srcpkg=$srcver failed"; }
	install_tree "$work" "$srcpkg-$upstream" "$dest" "apt-get source $srcpkg=$srcver"
	configure_deb_tree "$dest"
}

# ---------------------------------------------------------------------------
# RPM systems (SchedMD's slurm.spec)
# ---------------------------------------------------------------------------

# Whether the installed slurmd was built with --enable-multiple-slurmd:
# only then does it carry the syslog tag format "slurmd-%s" (slurmd.c, under
# MULTIPLE_SLURMD in every release since 22.05).  configure.ac checks the
# same.  Fails (status 2) where no slurmd is installed.
slurmd_multiple() {
	local slurmd=$root/usr/sbin/slurmd
	[ -f "$slurmd" ] || return 2
	# grep -c reads to the end: no SIGPIPE for tr under pipefail.
	[ "$(tr '\0' '\n' <"$slurmd" | grep -cx 'slurmd-%s')" -gt 0 ]
}

# SchedMD's release tarball of VERSION: SLURM_SOURCE_TARBALL or a download,
# checked against SLURM_SOURCE_SHA256 where given.
get_tarball() {
	local version=$1 out=$2 url sum
	if [ -n "${SLURM_SOURCE_TARBALL:-}" ]; then
		[ -f "$SLURM_SOURCE_TARBALL" ] ||
			die "SLURM_SOURCE_TARBALL=$SLURM_SOURCE_TARBALL: no such file"
		cp "$SLURM_SOURCE_TARBALL" "$out"
	else
		url=$SLURM_SOURCE_URL/slurm-$version.tar.bz2
		note "downloading $url"
		if command -v curl >/dev/null; then
			curl -fsSL -o "$out" "$url" || die "download of $url failed"
		elif command -v wget >/dev/null; then
			wget -q -O "$out" "$url" || die "download of $url failed"
		else
			die "neither curl nor wget to download $url; pass SLURM_SOURCE_TARBALL=FILE"
		fi
	fi
	if [ -n "${SLURM_SOURCE_SHA256:-}" ]; then
		sum=$(sha256sum "$out" | cut -d' ' -f1)
		[ "$sum" = "${SLURM_SOURCE_SHA256,,}" ] ||
			die "slurm-$version.tar.bz2: SHA-256 $sum is not SLURM_SOURCE_SHA256=$SLURM_SOURCE_SHA256; tree not made"
		note "slurm-$version.tar.bz2: SHA-256 verified"
		echo "sha256 $sum"
	else
		note "WARNING: slurm-$version.tar.bz2 is UNVERIFIED: pass SLURM_SOURCE_SHA256 (from SchedMD's download page) to check it"
		echo "unverified"
	fi
}

# slurm.spec's %configure with its %bcond defaults: %configure's paths,
# /etc/slurm (_slurm_sysconfdir), debug on (bcond_without debug), no
# slurmrestd, and multiple-slurmd only where the site built with
# "--with multiple_slurmd" (bcond_with), which the installed slurmd tells.
configure_rpm_tree() {
	local tree=$1 libdir multi=0 opts
	libdir=$(rpm --eval '%{_libdir}')
	case ${SLURM_MULTIPLE_SLURMD:-} in
	yes) ;;
	no) multi=1 ;;
	"") slurmd_multiple || multi=$? ;;
	*) die "SLURM_MULTIPLE_SLURMD=$SLURM_MULTIPLE_SLURMD: yes or no" ;;
	esac
	opts=(--prefix=/usr --exec-prefix=/usr --bindir=/usr/bin --sbindir=/usr/sbin
		--sysconfdir=/etc/slurm --datadir=/usr/share --includedir=/usr/include
		--libdir="$libdir" --libexecdir=/usr/libexec --localstatedir=/var
		--sharedstatedir=/var/lib --mandir=/usr/share/man --infodir=/usr/share/info
		--with-systemdsystemunitdir=/usr/lib/systemd/system --enable-pkgconfig
		--disable-slurmrestd)
	case $multi in
	0) opts+=(--enable-multiple-slurmd) ;;
	2) note "no $root/usr/sbin/slurmd to tell multiple-slurmd: slurm.spec's default (off)" ;;
	esac
	configure_tree "$tree" "${opts[@]}"
}

# fetch_tarball KIND VERSION DEST: SchedMD's tarball of VERSION unpacked into
# DEST, which .devns-source marks as "KIND slurm-VERSION.tar.bz2 ORIGIN" (the
# tree's cache key; ORIGIN: its SHA-256 or "unverified").
fetch_tarball() {
	local kind=$1 version=$2 dest=$3 work origin
	mkdir -p "$(dirname "$dest")"
	work=$(mktemp -d "$(dirname "$dest")/.fetch.XXXXXX")
	origin=$(get_tarball "$version" "$work/slurm-$version.tar.bz2") ||
		{ rm -rf "$work"; exit 1; }
	# tar finds the compression itself: SchedMD serves bzip2, a site's
	# mirror or git archive may be xz or gzip.
	tar -xf "$work/slurm-$version.tar.bz2" -C "$work" ||
		{ rm -rf "$work"; die "slurm-$version.tar.bz2: cannot unpack"; }
	install_tree "$work" "slurm-$version" "$dest" "slurm-$version.tar.bz2"
	echo "$kind slurm-$version.tar.bz2 $origin" >"$dest/.devns-source"
}

# tarball_tree_current KIND VERSION DEST: DEST is a configured tree that
# fetch_tarball KIND made of VERSION.
tarball_tree_current() {
	local kind=$1 version=$2 dest=$3
	[ -f "$dest/config.h" ] && [ -f "$dest/slurm/slurm_version.h" ] &&
		grep -qs "^$kind slurm-$version.tar.bz2 " "$dest/.devns-source"
}

fetch_rpm() {
	fetch_tarball rpm "$1" "$2"
	configure_rpm_tree "$2"
}

# SchedMD's Debian packages (slurm-smd*) are built from the debian/ of the
# release tarball itself: the tree is that tarball, configured with the
# options of that debian/rules, as Debian's are with theirs.  Its
# debian/changelog names the release (26.05.3-1); a site's own revision of
# the packages is the same source, so only the release must match, which
# configure checks against slurmd -V.
fetch_smd() {
	local version=$1 dest=$2
	fetch_tarball smd "$version" "$dest"
	[ -f "$dest/debian/rules" ] ||
		note "slurm-$version.tar.bz2 has no debian/rules: configured with the defaults of Debian's packages"
	configure_deb_tree "$dest"
}

# ---------------------------------------------------------------------------

# install_tree WORK DIR DEST WHAT: WORK/DIR becomes DEST (an older tree
# there is replaced) and WORK goes; stops, naming WHAT, where WORK has no DIR.
install_tree() {
	local work=$1 dir=$2 dest=$3 what=$4
	[ -d "$work/$dir" ] || { rm -rf "$work"; die "$what made no $dir/"; }
	rm -rf "$dest"
	mv "$work/$dir" "$dest"
	rm -rf "$work"
}

configure_tree() {
	local tree=$1; shift
	(cd "$tree" && ./configure -q "$@" >"$tree/.devns-configure.log" 2>&1) ||
		die "Slurm's configure failed; see $tree/.devns-configure.log"
}

unsupported() {
	local os=unknown
	[ -f "$root/etc/os-release" ] && os=$(. "$root/etc/os-release" && echo "${PRETTY_NAME:-${ID:-unknown}}")
	die "no installed Slurm found that this script knows how to fetch the source of ($os).
  Supported: Debian and Ubuntu (slurmd or slurmctld from the distribution: apt-get source;
  SchedMD's slurm-smd-slurmd or slurm-smd-slurmctld: SchedMD's tarball),
  RPM systems with SchedMD's packages (slurm-slurmd, slurm-slurmctld or slurm: SchedMD's tarball).
  Elsewhere, configure Slurm's source of exactly the installed release as the daemons were
  configured, and pass it: ./configure --with-slurm-source=DIR"
}

main() {
	local found srcpkg srcver version dest
	if [ -n "${SLURM_RPM_RELEASE:-}" ]; then
		version=$SLURM_RPM_RELEASE
		dest=${1:-$SLURM_SRC_CACHE/slurm-$version}
		fetch_rpm "$version" "$dest"
	elif found=$(dpkg_installed); then
		srcpkg=${found%% *}
		srcver=${found#* }
		version=${srcver#*:}
		version=${version%-*}
		dest=${1:-$SLURM_SRC_CACHE/slurm-$version}
		case $srcpkg in
		slurm-smd)
			tarball_tree_current smd "$version" "$dest" ||
				fetch_smd "$version" "$dest" ;;
		*)
			deb_tree_current "$dest" "$srcver" ||
				fetch_deb "$srcpkg" "$srcver" "$dest" ;;
		esac
	elif version=$(rpm_installed); then
		dest=${1:-$SLURM_SRC_CACHE/slurm-$version}
		tarball_tree_current rpm "$version" "$dest" || fetch_rpm "$version" "$dest"
	else
		unsupported
	fi
	echo "$dest"
}

main "$@"
