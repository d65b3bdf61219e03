#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_slurm_source.sh - scripts/slurm-source.sh on fake systems: a fake root
# (SLURM_SOURCE_ROOT: /etc/os-release, /etc/apt, /usr/sbin/slurmd) and a PATH
# of fake dpkg-query, apt-get, rpm, curl and a fake Slurm configure that log
# their arguments, next to links to the few real tools the script uses (so
# that the machine's own dpkg, rpm or apt are never reached).  Root-free.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
script=$here/../../scripts/slurm-source.sh
# shellcheck source=../tap.sh
. "$here/../tap.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_slurm_source.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT

# Real tools the script may use, and nothing else.
tools=$tmp/tools
mkdir -p "$tools"
for t in bash sh awk sed grep tr mkdir mktemp mv rm cp cat ls dirname cut \
	 tar bzip2 xz sha256sum env touch; do
	p=$(command -v "$t") || { echo "Bail out! no $t"; exit 1; }
	ln -s "$p" "$tools/$t"
done

# The fakes read FAKE_* and log to $FAKE_LOG.
fake=$tmp/fakebin
mkdir -p "$fake"
cat >"$fake/dpkg-query" <<'EOF'
#!/bin/bash
echo "dpkg-query $*" >>"$FAKE_LOG"
[ -n "${FAKE_DPKG:-}" ] && [ "${!#}" = "${FAKE_DPKG_PKG:-slurmd}" ] || exit 1
echo -n "installed $FAKE_DPKG"
EOF
cat >"$fake/apt-get" <<'EOF'
#!/bin/bash
echo "apt-get $*" >>"$FAKE_LOG"
case $1 in
update) exit 0 ;;
source)
	if [ "$2" = --print-uris ]; then
		# apt finds the source once the fake root has deb-src entries
		grep -qs '^\(Types: .*\)\?deb-src' \
			"$FAKE_ROOT"/etc/apt/sources.list "$FAKE_ROOT"/etc/apt/sources.list.d/*
		exit
	fi
	ver=${3#*=}; up=${ver%-*}; d=slurm-wlm-$up
	mkdir -p "$d/debian"
	echo "slurm-wlm ($ver) unstable; urgency=medium" >"$d/debian/changelog"
	printf 'override_dh_auto_configure:\n\tdh_auto_configure -- %s\n\tdh_auto_configure --builddirectory build-emulator -- --enable-front-end --enable-multiple-slurmd\n' \
		"$FAKE_RULES" >"$d/debian/rules"
	cp "$FAKE_CONFIGURE" "$d/configure"
	;;
*) exit 1 ;;
esac
EOF
cat >"$fake/dpkg-parsechangelog" <<'EOF'
#!/bin/bash
sed -n '1s/.*(\(.*\)).*/\1/p' "$2"
EOF
cat >"$fake/dpkg-architecture" <<'EOF'
#!/bin/bash
echo x86_64-linux-gnu
EOF
printf '#!/bin/bash\nexit 0\n' >"$fake/dpkg-source"
cat >"$fake/rpm" <<'EOF'
#!/bin/bash
echo "rpm $*" >>"$FAKE_LOG"
[ "$1" = --eval ] && { echo /usr/lib64; exit 0; }
[ -n "${FAKE_RPM:-}" ] && [ "${!#}" = slurm-slurmd ] && { echo "$FAKE_RPM"; exit 0; }
echo "package ${!#} is not installed"
exit 1
EOF
cat >"$fake/curl" <<'EOF'
#!/bin/bash
echo "curl $*" >>"$FAKE_LOG"
cp "$FAKE_TARBALL" "$3"
EOF
# Slurm's configure: logs its arguments, writes what the script checks.
cat >"$tmp/configure" <<'EOF'
#!/bin/bash
echo "configure $*" >>"$FAKE_LOG"
mkdir -p slurm && touch config.h slurm/slurm_version.h
EOF
chmod +x "$fake"/* "$tmp/configure"
nodpkg=$tmp/nodpkg
mkdir -p "$nodpkg"
ln -s "$fake/rpm" "$fake/curl" "$nodpkg/"

# run NAME [VAR=VALUE...]: slurm-source.sh on the fake root $tmp/NAME,
# stdout in $out, stderr in $err, the fakes' log in $log, status in $rc.
run() {
	local name=$1; shift
	r=$tmp/$name
	log=$r.log out=$r.out err=$r.err
	env -i PATH="${FAKE_PATH:-$fake:$tools}" FAKE_LOG="$log" FAKE_ROOT="$r" \
		FAKE_CONFIGURE="$tmp/configure" SLURM_SOURCE_ROOT="$r" \
		SLURM_SRC_CACHE="$r/cache" "$@" \
		bash "$script" >"$out" 2>"$err"
	rc=$?
}

rules_debian='--sysconfdir=/etc/slurm --with-munge --enable-pam --without-rpath --disable-debug --enable-multiple-slurmd --with-pmix=/usr/lib/$(DEB_HOST_MULTIARCH)/pmix2 $(ENABLEDEPRECATED) SUCMD=/bin/su SLEEP_CMD=/bin/sleep'
deb_opts='--prefix=/usr --sysconfdir=/etc/slurm --libdir=/usr/lib/x86_64-linux-gnu --with-munge --enable-pam --without-rpath --disable-debug'

# --- Ubuntu 24.04, deb822 ubuntu.sources -----------------------------------
r=$tmp/noble
mkdir -p "$r/etc/apt/sources.list.d"
printf 'ID=ubuntu\nVERSION_CODENAME=noble\n' >"$r/etc/os-release"
cat >"$r/etc/apt/sources.list.d/ubuntu.sources" <<'EOF'
# Ubuntu sources have moved to /etc/apt/sources.list.d/ubuntu.sources
Types: deb
URIs: http://archive.ubuntu.com/ubuntu/
Suites: noble noble-updates noble-backports
Components: main restricted universe multiverse
Signed-By: /usr/share/keyrings/ubuntu-archive-keyring.gpg

Types: deb
URIs: http://security.ubuntu.com/ubuntu/
Suites: noble-security
Components: main restricted universe multiverse
Signed-By: /usr/share/keyrings/ubuntu-archive-keyring.gpg
EOF
cp "$r/etc/apt/sources.list.d/ubuntu.sources" "$tmp/ubuntu.sources.orig"
! grep -rqs deb-src "$r/etc/apt"
ok $? "noble: precondition: the fake Ubuntu has no deb-src entry"
run noble FAKE_DPKG='slurm-wlm 23.11.4-1.2ubuntu5' FAKE_RULES="$rules_debian"
ok $rc "noble: slurm-source.sh succeeds" || diag <"$err"
[ "$(cat "$out")" = "$r/cache/slurm-23.11.4" ] && [ -f "$r/cache/slurm-23.11.4/config.h" ]
ok $? "noble: the tree of 23.11.4 is made and its path printed"
src=$r/etc/apt/sources.list.d/slurm-devns-src.sources
expect='Types: deb-src
URIs: http://archive.ubuntu.com/ubuntu/
Suites: noble noble-updates noble-backports
Components: main restricted universe multiverse
Signed-By: /usr/share/keyrings/ubuntu-archive-keyring.gpg

Types: deb-src
URIs: http://security.ubuntu.com/ubuntu/
Suites: noble-security
Components: main restricted universe multiverse
Signed-By: /usr/share/keyrings/ubuntu-archive-keyring.gpg'
[ "$(cat "$src" 2>/dev/null)" = "$expect" ]
ok $? "noble: deb-src entries for exactly Ubuntu's own URIs and suites" ||
	diag <"$src"
! grep -rqs 'debian\.org' "$r/etc/apt"
ok $? "noble: no Debian archive written on Ubuntu"
cmp -s "$r/etc/apt/sources.list.d/ubuntu.sources" "$tmp/ubuntu.sources.orig"
ok $? "noble: ubuntu.sources itself is untouched"
grep -qx 'apt-get update -q' "$log" &&
	grep -qx 'apt-get source -q slurm-wlm=23.11.4-1.2ubuntu5' "$log"
ok $? "noble: apt-get update, then the source of the installed version" ||
	diag <"$log"
grep -qx "configure -q $deb_opts --enable-multiple-slurmd" "$log"
ok $? "noble: configured with the options of its debian/rules" || diag <"$log"

# --- Ubuntu, one-line sources.list; rules without multiple-slurmd ----------
r=$tmp/oneline
mkdir -p "$r/etc/apt/sources.list.d"
cat >"$r/etc/apt/sources.list" <<'EOF'
# deb http://archive.ubuntu.com/ubuntu/ jammy-proposed main
deb http://archive.ubuntu.com/ubuntu/ noble main universe
deb [signed-by=/usr/share/keyrings/ubuntu-archive-keyring.gpg] http://security.ubuntu.com/ubuntu/ noble-security main universe
EOF
run oneline FAKE_DPKG='slurm-wlm 23.11.4-1.2ubuntu5' \
	FAKE_RULES='--sysconfdir=/etc/slurm --with-munge --enable-pam'
ok $rc "oneline: slurm-source.sh succeeds" || diag <"$err"
expect='deb-src http://archive.ubuntu.com/ubuntu/ noble main universe
deb-src [signed-by=/usr/share/keyrings/ubuntu-archive-keyring.gpg] http://security.ubuntu.com/ubuntu/ noble-security main universe'
[ "$(cat "$r/etc/apt/sources.list.d/slurm-devns-src.list" 2>/dev/null)" = "$expect" ] &&
	[ ! -e "$r/etc/apt/sources.list.d/slurm-devns-src.sources" ]
ok $? "oneline: a deb-src line per deb line, nothing else"
grep -qx "configure -q $deb_opts" "$log"
ok $? "oneline: no --enable-multiple-slurmd where debian/rules has none" ||
	diag <"$log"

# --- Debian 12 --------------------------------------------------------------
r=$tmp/bookworm
mkdir -p "$r/etc/apt/sources.list.d"
printf 'ID=debian\nVERSION_CODENAME=bookworm\n' >"$r/etc/os-release"
cat >"$r/etc/apt/sources.list.d/debian.sources" <<'EOF'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
run bookworm FAKE_DPKG='slurm-wlm 22.05.8-4+deb12u3' FAKE_RULES="$rules_debian"
ok $rc "bookworm: slurm-source.sh succeeds" || diag <"$err"
[ "$(cat "$out")" = "$r/cache/slurm-22.05.8" ] &&
	grep -qx 'URIs: http://deb.debian.org/debian-security' \
		"$r/etc/apt/sources.list.d/slurm-devns-src.sources" &&
	grep -qx 'apt-get source -q slurm-wlm=22.05.8-4+deb12u3' "$log" &&
	grep -qx "configure -q $deb_opts --enable-multiple-slurmd" "$log"
ok $? "bookworm: Debian's source of the installed version, configured as before" ||
	diag <"$log"
: >"$log"
run bookworm FAKE_DPKG='slurm-wlm 22.05.8-4+deb12u3' FAKE_RULES="$rules_debian"
[ "$rc" -eq 0 ] && [ "$(cat "$out")" = "$r/cache/slurm-22.05.8" ] &&
	! grep -q '^apt-get\|^configure' "$log"
ok $? "bookworm: the tree of the installed version is kept" || diag <"$log"
run bookworm FAKE_DPKG='slurm-wlm 22.05.8-4+deb12u4' FAKE_RULES="$rules_debian"
[ "$rc" -eq 0 ] && grep -qx 'apt-get source -q slurm-wlm=22.05.8-4+deb12u4' "$log"
ok $? "bookworm: a security update of the release fetches its tree again"

# Debian with deb-src already configured: nothing is added
r=$tmp/hassrc
mkdir -p "$r/etc/apt/sources.list.d"
sed 's/^Types: deb$/Types: deb deb-src/' "$tmp/bookworm/etc/apt/sources.list.d/debian.sources" \
	>"$r/etc/apt/sources.list.d/debian.sources"
grep -q '^Types: deb deb-src$' "$r/etc/apt/sources.list.d/debian.sources"
ok $? "hassrc: precondition: the fake Debian has deb-src entries"
run hassrc FAKE_DPKG='slurm-wlm 22.05.8-4+deb12u3' FAKE_RULES="$rules_debian"
[ "$rc" -eq 0 ] && ! ls "$r"/etc/apt/sources.list.d/slurm-devns-src.* >/dev/null 2>&1 &&
	! grep -q '^apt-get update' "$log" &&
	grep -qx 'apt-get source -q slurm-wlm=22.05.8-4+deb12u3' "$log"
ok $? "hassrc: where apt finds the source, no entry is added and no update run" ||
	diag <"$log"

# --- RPM: SchedMD's slurm-slurmd 23.11.10 ----------------------------------
mkdir -p "$tmp/pkg/slurm-23.11.10"
cp "$tmp/configure" "$tmp/pkg/slurm-23.11.10/configure"
tar -cjf "$tmp/slurm-23.11.10.tar.bz2" -C "$tmp/pkg" slurm-23.11.10
sum=$(sha256sum "$tmp/slurm-23.11.10.tar.bz2" | cut -d' ' -f1)
spec_opts='--prefix=/usr --exec-prefix=/usr --bindir=/usr/bin --sbindir=/usr/sbin --sysconfdir=/etc/slurm --datadir=/usr/share --includedir=/usr/include --libdir=/usr/lib64 --libexecdir=/usr/libexec --localstatedir=/var --sharedstatedir=/var/lib --mandir=/usr/share/man --infodir=/usr/share/info --with-systemdsystemunitdir=/usr/lib/systemd/system --enable-pkgconfig --disable-slurmrestd'
# an installed slurmd built with --enable-multiple-slurmd
r=$tmp/rocky
mkdir -p "$r/usr/sbin"
printf 'ID="rocky"\n' >"$r/etc-os" && mkdir -p "$r/etc" && mv "$r/etc-os" "$r/etc/os-release"
printf 'x\0slurmd-%%s\0y' >"$r/usr/sbin/slurmd"
FAKE_PATH=$nodpkg:$tools run rocky FAKE_RPM=23.11.10 \
	SLURM_SOURCE_TARBALL="$tmp/slurm-23.11.10.tar.bz2"
ok $rc "rocky: slurm-source.sh succeeds" || diag <"$err"
[ "$(cat "$out")" = "$r/cache/slurm-23.11.10" ] &&
	grep -qx "configure -q $spec_opts --enable-multiple-slurmd" "$log"
ok $? "rocky: SchedMD's tarball configured with slurm.spec's options, multiple-slurmd as slurmd" ||
	diag <"$log"
grep -q 'UNVERIFIED' "$err" && ! grep -q '^curl' "$log"
ok $? "rocky: the tarball given is used, and said to be unverified without SHA-256"
# a slurmd without multiple-slurmd, and a verified download
r=$tmp/rhel
mkdir -p "$r/usr/sbin"
printf 'x\0slurmd\0y' >"$r/usr/sbin/slurmd"
FAKE_PATH=$nodpkg:$tools run rhel FAKE_RPM=23.11.10 FAKE_TARBALL="$tmp/slurm-23.11.10.tar.bz2" \
	SLURM_SOURCE_SHA256="$sum"
[ "$rc" -eq 0 ] && grep -qx "configure -q $spec_opts" "$log" &&
	grep -q '^curl .*https://download.schedmd.com/slurm/slurm-23.11.10.tar.bz2' "$log" &&
	grep -q 'SHA-256 verified' "$err" && ! grep -q UNVERIFIED "$err"
ok $? "rhel: downloaded from SchedMD, verified, no multiple-slurmd where slurmd has none" ||
	{ diag <"$log"; diag <"$err"; }
# a SHA-256 mismatch stops before any tree is made
FAKE_PATH=$nodpkg:$tools run badsum FAKE_RPM=23.11.10 \
	SLURM_SOURCE_TARBALL="$tmp/slurm-23.11.10.tar.bz2" \
	SLURM_SOURCE_SHA256=0000000000000000000000000000000000000000000000000000000000000000
[ "$rc" -ne 0 ] && grep -q 'SHA-256 .* is not SLURM_SOURCE_SHA256' "$err" &&
	[ ! -e "$tmp/badsum/cache/slurm-23.11.10" ] && ! grep -q '^configure' "$log"
ok $? "badsum: a SHA-256 mismatch stops, no tree" || diag <"$err"

# a package build (the spec's %prep): no Slurm installed, the release and
# multiple-slurmd given; the tarball given is configured into DEST
r=$tmp/mock
mkdir -p "$r/etc"
printf 'ID="rocky"\n' >"$r/etc/os-release"
[ ! -e "$r/usr/sbin/slurmd" ]
ok $? "mock: precondition: no slurmd in the build root"
FAKE_PATH=$nodpkg:$tools run mock SLURM_RPM_RELEASE=23.11.10 SLURM_MULTIPLE_SLURMD=yes \
	SLURM_SOURCE_TARBALL="$tmp/slurm-23.11.10.tar.bz2"
[ "$rc" -eq 0 ] && [ "$(cat "$out")" = "$r/cache/slurm-23.11.10" ] &&
	grep -qx "configure -q $spec_opts --enable-multiple-slurmd" "$log" &&
	! grep -q 'rpm -q' "$log"
ok $? "mock: SLURM_RPM_RELEASE: the tarball configured as slurm.spec does, nothing installed asked" ||
	{ diag <"$log"; diag <"$err"; }
FAKE_PATH=$nodpkg:$tools run mock2 SLURM_RPM_RELEASE=23.11.10 SLURM_MULTIPLE_SLURMD=no \
	SLURM_SOURCE_TARBALL="$tmp/slurm-23.11.10.tar.bz2"
[ "$rc" -eq 0 ] && grep -qx "configure -q $spec_opts" "$log"
ok $? "mock: SLURM_MULTIPLE_SLURMD=no configures without it" || diag <"$log"
FAKE_PATH=$nodpkg:$tools run mock3 SLURM_RPM_RELEASE=23.11.10 SLURM_MULTIPLE_SLURMD=maybe \
	SLURM_SOURCE_TARBALL="$tmp/slurm-23.11.10.tar.bz2"
[ "$rc" -ne 0 ] && grep -q 'SLURM_MULTIPLE_SLURMD=maybe: yes or no' "$err"
ok $? "mock: another SLURM_MULTIPLE_SLURMD is refused" || diag <"$err"

# --- Debian 12 with SchedMD's packages (slurm-smd-slurmd 26.05.3-1) --------
# SchedMD's tarball carries the debian/ its packages are built from.
mkdir -p "$tmp/smdpkg/slurm-26.05.3/debian"
cp "$tmp/configure" "$tmp/smdpkg/slurm-26.05.3/configure"
echo 'slurm-smd (26.05.3-1) UNRELEASED; urgency=medium' >"$tmp/smdpkg/slurm-26.05.3/debian/changelog"
printf 'override_dh_auto_configure:\n\tdh_auto_configure -- --sysconfdir=/etc/slurm --disable-debug --with-mysql_config --with-slurmrestd --with-pmix --enable-pam\n' \
	>"$tmp/smdpkg/slurm-26.05.3/debian/rules"
tar -cjf "$tmp/slurm-26.05.3.tar.bz2" -C "$tmp/smdpkg" slurm-26.05.3
tar -cJf "$tmp/slurm-26.05.3.tar.xz" -C "$tmp/smdpkg" slurm-26.05.3
smdsum=$(sha256sum "$tmp/slurm-26.05.3.tar.bz2" | cut -d' ' -f1)
r=$tmp/smd
mkdir -p "$r/etc/apt"
printf 'ID=debian\nVERSION_CODENAME=bookworm\n' >"$r/etc/os-release"
echo 'deb http://deb.debian.org/debian bookworm main' >"$r/etc/apt/sources.list"
run smd FAKE_DPKG='slurm-smd 26.05.3-1' FAKE_DPKG_PKG=slurm-smd-slurmd \
	FAKE_TARBALL="$tmp/slurm-26.05.3.tar.bz2" SLURM_SOURCE_SHA256="$smdsum"
ok $rc "smd: slurm-source.sh succeeds with slurm-smd-slurmd installed" || diag <"$err"
[ "$(cat "$out")" = "$r/cache/slurm-26.05.3" ] &&
	grep -q '^curl .*https://download.schedmd.com/slurm/slurm-26.05.3.tar.bz2' "$log" &&
	grep -q 'SHA-256 verified' "$err" &&
	grep -qx "configure -q $deb_opts" "$log"
ok $? "smd: SchedMD's tarball of the installed release, configured with its own debian/rules' options" ||
	{ diag <"$log"; diag <"$err"; }
! grep -q '^apt-get' "$log" && [ ! -e "$r/etc/apt/sources.list.d" ]
ok $? "smd: no apt-get source, no deb-src entry: SchedMD has no source package in an archive" ||
	diag <"$log"
: >"$log"
run smd FAKE_DPKG='slurm-smd 26.05.3-1' FAKE_DPKG_PKG=slurm-smd-slurmd \
	FAKE_TARBALL="$tmp/slurm-26.05.3.tar.bz2"
[ "$rc" -eq 0 ] && [ "$(cat "$out")" = "$r/cache/slurm-26.05.3" ] &&
	! grep -q '^curl\|^configure' "$log"
ok $? "smd: the tree of the installed release is kept" || diag <"$log"
# a controller (slurmctld only), the tarball given as xz, unverified
run smdctl FAKE_DPKG='slurm-smd 26.05.3-1' FAKE_DPKG_PKG=slurm-smd-slurmctld \
	SLURM_SOURCE_TARBALL="$tmp/slurm-26.05.3.tar.xz"
[ "$rc" -eq 0 ] && [ "$(cat "$out")" = "$tmp/smdctl/cache/slurm-26.05.3" ] &&
	grep -qx "configure -q $deb_opts" "$log" && ! grep -q '^curl' "$log" &&
	grep -q UNVERIFIED "$err" &&
	grep -q '^smd slurm-26.05.3.tar.bz2 unverified$' "$tmp/smdctl/cache/slurm-26.05.3/.devns-source"
ok $? "smdctl: slurm-smd-slurmctld alone; an xz tarball given is unpacked, said unverified" ||
	{ diag <"$log"; diag <"$err"; }
# a tree of Debian's slurm-wlm of the same release is not taken for SchedMD's
r=$tmp/smdswitch
mkdir -p "$r/cache/slurm-26.05.3/slurm" "$r/cache/slurm-26.05.3/debian"
touch "$r/cache/slurm-26.05.3/config.h" "$r/cache/slurm-26.05.3/slurm/slurm_version.h"
echo 'slurm-wlm (26.05.3-1) unstable; urgency=medium' >"$r/cache/slurm-26.05.3/debian/changelog"
run smdswitch FAKE_DPKG='slurm-smd 26.05.3-1' FAKE_DPKG_PKG=slurm-smd-slurmd \
	SLURM_SOURCE_TARBALL="$tmp/slurm-26.05.3.tar.bz2"
[ "$rc" -eq 0 ] && grep -q '^smd ' "$r/cache/slurm-26.05.3/.devns-source" &&
	grep -qx "configure -q $deb_opts" "$log"
ok $? "smdswitch: a Debian slurm-wlm tree of the release is replaced by SchedMD's" || diag <"$log"

# --- neither ----------------------------------------------------------------
mkdir -p "$tmp/arch/etc"
printf 'PRETTY_NAME="Arch Linux"\nID=arch\n' >"$tmp/arch/etc/os-release"
FAKE_PATH=$tools run arch
[ "$rc" -ne 0 ] && grep -q 'Arch Linux' "$err" && grep -q 'Supported: Debian and Ubuntu' "$err" &&
	grep -q -- '--with-slurm-source=DIR' "$err" && [ ! -s "$out" ]
ok $? "arch: an unknown system fails, saying what is supported and how to pass a tree" ||
	diag <"$err"

done_testing
