#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# rpm.sh - build the RPM (slurm-devns.spec) the way doc/slurm-releases.md
# tells a site's build farm to, with Debian's rpmbuild: from the release
# tarball and the Slurm release's source as Source1, no Slurm tree or
# installed Slurm read, the build dependencies checked against a build
# root's package database; then check what the package holds and requires.
#
#   testsuite/rpm.sh [DIR]
#
# 1. make dist in a build directory of its own (DIR/build); the tarball
#    must carry slurm-devns.spec at its top
# 2. Source1: the upstream source of the installed Slurm release V (22.05
#    here): the orig tarball of Debian's slurm-wlm source package (apt-get
#    source --download-only, checked by apt against the signed index),
#    repacked as SchedMD names its tarballs, slurm-V.tar.bz2, beside ours
# 3. the build root: an rpm database (rpm --dbpath) holding one package
#    that provides what the spec's BuildRequires name, at the versions of
#    the Debian packages that supply them here (gcc, make, libpam0g-dev);
#    rpmbuild is first shown to refuse the build without it
# 4. rpmbuild -ta --dbpath DB --define 'slurm_version V' (no --nodeps):
#    %prep configures Source1 as slurm.spec does, %check runs make check
#    without the tests that need root
# 5. rpm -qp: the version is configure's, the release names V; the plugins
#    are in %{_libdir}/slurm, pam_devns.so in %{_libdir}/security, devns
#    in sbin, the man pages (namespace.conf in section 5slurm), the
#    examples, the documentation and the licence are there, no libtool
#    archive, no RPATH; the distribution's flags were used
# 6. Requires: V of SchedMD's slurm and slurm-slurmd or slurm-slurmctld,
#    tried with rpm -i --test against databases of fake SchedMD packages
#    (V installs, the next release does not); --with ohpc names OpenHPC's;
#    the plugins it holds load with the installed Slurm's libslurmfull and
#    are of its release.
#
# 7. with DEVNS_RPM_CHROOT=ROOT, the same rpmbuild again in a minimal root:
#    Debian's minbase with only gcc, make, libpam0g-dev, rpm and bzip2
#    (debootstrap makes ROOT when it has no rpmbuild yet, from the
#    system's own Debian mirror), in a mount namespace of its own, against
#    the same database: what the BuildRequires leave out is missing there.
#    About 3 minutes more, 4 more to make ROOT.
#
# Prints TAP and exits non-zero when a check failed.  DIR (default
# TOP/test-results/rpm) holds the logs, the tarballs and the packages.
# Installs Debian's rpm package when rpmbuild is missing (root); step 2
# needs the Debian archive (deb-src, as scripts/slurm-source.sh sets up).
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
PKG=slurm-devns

# shellcheck source=testsuite/tap.sh
source "$TOP/testsuite/tap.sh"
bail() { done_testing; exit 1; }

# Slurm's PluginDir: where Debian's own plugins are.
slurm_plugindir() {
	dirname "$(dpkg -L slurm-wlm-basic-plugins | grep -m1 '/job_container_tmpfs\.so$')"
}

# makevar NAME: a variable of the build's Makefile (configure's value).
makevar() { sed -n "s/^$1 = //p" "$build/Makefile"; }

dir=$(realpath -m -- "${1:-$TOP/test-results/rpm}")
build=$dir/build
rm -rf "$dir"
mkdir -p "$dir"

# --- rpmbuild ------------------------------------------------------------
if ! command -v rpmbuild >/dev/null; then
	apt-get install -y -q --no-install-recommends rpm >"$dir/apt.log" 2>&1
fi
command -v rpmbuild >/dev/null
ok $? "rpmbuild is installed ($(rpmbuild --version 2>/dev/null))" ||
	{ tail -5 "$dir/apt.log" 2>/dev/null | diag; bail; }

# --- the tarball ---------------------------------------------------------
sv=$(/usr/sbin/slurmd -V 2>/dev/null || /usr/sbin/slurmctld -V 2>/dev/null)
sv=${sv#* }
tree=$("$TOP/scripts/slurm-source.sh" 2>"$dir/slurm-source.log")
ok $? "the installed Slurm ${sv:-(none)} and its configured tree ${tree:-(none)} (for make dist)" ||
	{ tail -5 "$dir/slurm-source.log" | diag; bail; }

(
	cd "$TOP" &&
	{ { [ -x configure ] && [ configure -nt configure.ac ]; } || autoreconf -fi; } &&
	mkdir -p "$build" && cd "$build" &&
	"$TOP/configure" --with-slurm-source="$tree" &&
	make dist
) >"$dir/dist.log" 2>&1
ok $? "configure against it and make dist" || { tail -20 "$dir/dist.log" | diag; bail; }
version=$(makevar PACKAGE_VERSION)
tarball=$build/$PKG-$version.tar.gz
mkdir -p "$dir/sources"
cp "$tarball" "$dir/sources/"
tarball=$dir/sources/$(basename "$tarball")
tar -xzOf "$tarball" "$PKG-$version/$PKG.spec" >"$dir/$PKG.spec" 2>/dev/null &&
	grep -qx "Version:[[:space:]]*$version" "$dir/$PKG.spec"
ok $? "$(basename "$tarball") has $PKG.spec at its top, of Version $version" ||
	tar -tzf "$tarball" | grep -m5 spec | diag

# --- Source1: the release's upstream source, as SchedMD names it -----------
src_pkg=$(dpkg-query -W -f='${source:Package} ${source:Version}' slurmd 2>/dev/null ||
	dpkg-query -W -f='${source:Package} ${source:Version}' slurmctld)
slurm_tarball=$dir/sources/slurm-$sv.tar.bz2
(
	set -e
	mkdir -p "$dir/orig" && cd "$dir/orig"
	apt-get source -q --download-only "${src_pkg% *}=${src_pkg#* }"
	orig=$(ls ./*.orig.tar.*)
	mkdir unpacked && tar -xf "$orig" -C unpacked
	top=$(ls unpacked)
	[ "$(echo "$top" | wc -l)" -eq 1 ]
	mv "unpacked/$top" "unpacked/slurm-$sv"
	tar -cjf "$slurm_tarball" -C unpacked "slurm-$sv"
	rm -rf unpacked
) >"$dir/orig.log" 2>&1
ok $? "Source1: $(basename "$slurm_tarball"), from ${src_pkg% *}'s orig tarball (apt-get source)" ||
	{ tail -10 "$dir/orig.log" | diag; bail; }

# --- the build root's package database --------------------------------------
# fake_rpm NAME VERSION [ARCH] PROVIDES...: an empty package, in $dir/fake.
fake_rpm() {
	local name=$1 ver=$2 arch=$3 p
	shift 3
	{
		printf 'Name: %s\nVersion: %s\nRelease: 1.fake\nSummary: fake %s\n' \
			"$name" "$ver" "$name"
		printf 'License: GPL-2.0-or-later\n'
		[ "$arch" = noarch ] && printf 'BuildArch: noarch\n'
		for p in "$@"; do printf 'Provides: %s\n' "$p"; done
		printf '%%description\nfake\n%%files\n'
	} >"$dir/fake/$name-$ver.spec"
	rpmbuild -bb --define "_topdir $dir/fake/top" --define '_build_id_links none' \
		"$dir/fake/$name-$ver.spec" >>"$dir/fake.log" 2>&1 &&
		cp "$dir/fake/top/RPMS/"*/"$name-$ver-1.fake."*.rpm "$dir/fake/"
}
# newdb DB RPM...: an rpm database holding the packages given.
newdb() {
	local db=$1
	shift
	rm -rf "$db" && mkdir -p "$db" && rpm --dbpath "$db" --initdb &&
		{ [ $# -eq 0 ] || rpm --dbpath "$db" -i --justdb --nodeps --noscripts "$@" 2>>"$dir/fake.log"; }
}
dpkg_version() { dpkg-query -W -f='${Version}' "$1" | sed 's/^[0-9]*://; s/-[^-]*$//'; }

rm -rf "$dir/fake" && mkdir -p "$dir/fake"
brs=$(rpmspec -q --buildrequires --define "slurm_version $sv" "$dir/$PKG.spec" 2>/dev/null | sort -u)
echo "BuildRequires: $(echo $brs)" | diag
provides=() missing=
for br in $brs; do
	case $br in
	gcc) deb=gcc ;;
	make) deb=make ;;
	pam-devel) deb=libpam0g-dev ;;
	*) missing+=" $br"; continue ;;
	esac
	provides+=("$br = $(dpkg_version "$deb")")
done
[ -z "$missing" ]
ok $? "every BuildRequires has a Debian package here that supplies it" || echo "none for:$missing" | diag
fake_rpm devns-buildroot 1 noarch "${provides[@]}" && newdb "$dir/db-buildroot" "$dir"/fake/devns-buildroot-1-*.rpm
ok $? "the build root's database: devns-buildroot provides ${provides[*]}" || tail -10 "$dir/fake.log" | diag
newdb "$dir/db-empty"
rpmbuild -ta --dbpath "$dir/db-empty" --define "_topdir $dir/rpmbuild-refused" \
	--define "slurm_version $sv" "$tarball" >"$dir/rpmbuild-refused.log" 2>&1
[ $? -ne 0 ] && grep -q 'Failed build dependencies' "$dir/rpmbuild-refused.log" &&
	grep -q 'pam-devel is needed' "$dir/rpmbuild-refused.log"
ok $? "precondition: rpmbuild refuses the build with an empty database (no --nodeps)" ||
	tail -10 "$dir/rpmbuild-refused.log" | diag
rm -rf "$dir/rpmbuild-refused"

# --- rpmbuild -ta ----------------------------------------------------------
start=$SECONDS
rpmbuild -ta --dbpath "$dir/db-buildroot" --define "_topdir $dir/rpmbuild" \
	--define "slurm_version $sv" "$tarball" >"$dir/rpmbuild.log" 2>&1
ok $? "rpmbuild -ta --define 'slurm_version $sv' against the build root, Source1 beside the tarball ($((SECONDS - start))s; its check-files: nothing make install installs is left out)" ||
	{ grep -E -B2 -A8 'error|Error|RPM build errors' "$dir/rpmbuild.log" | tail -40
	  tail -10 "$dir/rpmbuild.log"; } | diag
rpms=("$dir/rpmbuild/RPMS/"*/"$PKG-$version-"*.rpm)
srpms=("$dir/rpmbuild/SRPMS/$PKG-$version-"*.src.rpm)
[ ${#rpms[@]} -eq 1 ] && [ -f "${rpms[0]}" ] && [ ${#srpms[@]} -eq 1 ] && [ -f "${srpms[0]}" ]
ok $? "one binary and one source package" ||
	{ find "$dir/rpmbuild/RPMS" "$dir/rpmbuild/SRPMS" -name '*.rpm' 2>/dev/null | diag; bail; }
rpm=${rpms[0]}
cp "$rpm" "${srpms[0]}" "$dir/"
basename "$rpm" | diag

! grep -q -e '/usr/sbin/slurmd -V' -e "--with-slurm-source=$tree" "$dir/rpmbuild.log" &&
	grep -q -- "--disable-installed-check" "$dir/rpmbuild.log" &&
	grep -q "SLURM_RPM_RELEASE=$sv SLURM_SOURCE_TARBALL=.*/slurm-$sv.tar.bz2" "$dir/rpmbuild.log"
ok $? "the build configured Source1 in %prep and read no installed Slurm or tree of this machine"
grep -q "DEVNS_TEST_ROOT=0 make" "$dir/rpmbuild.log" && grep -q '^# SKIP: *[1-9]' "$dir/rpmbuild.log" &&
	grep -q '^# FAIL: *0$' "$dir/rpmbuild.log"
ok $? "%check ran make check, the tests that need root skipped: $(grep -E '^# (PASS|SKIP|FAIL):' "$dir/rpmbuild.log" | tr -s ' ' | paste -sd' ')"
optflags=$(rpm --eval '%{optflags}')
grep -q -- "-Wall -Wextra $optflags " "$dir/rpmbuild.log" &&
	! grep -q -- ' -Wall -Wextra -Werror ' "$dir/rpmbuild.log"
ok $? "compiled with the distribution's %{optflags} ($optflags), no -Werror unless --with werror"

rpm -qpl "${srpms[0]}" >"$dir/srpm.list" 2>/dev/null
grep -qx "$PKG.spec" "$dir/srpm.list" && grep -qx "$(basename "$tarball")" "$dir/srpm.list" &&
	grep -qx "slurm-$sv.tar.bz2" "$dir/srpm.list"
ok $? "the source package holds $PKG.spec, $(basename "$tarball") and slurm-$sv.tar.bz2" ||
	diag <"$dir/srpm.list"

# --- what it is ------------------------------------------------------------
got=$(rpm -qp --qf '%{NAME} %{VERSION} %{RELEASE}' "$rpm" 2>/dev/null)
[ "${got% *}" = "$PKG $version" ]
ok $? "rpm -qp --qf '%{NAME} %{VERSION}': $PKG $version, configure's" || echo "got: $got" | diag
[[ ${got##* } == 1.slurm${sv//-/_}* ]]
ok $? "its release (${got##* }) names Slurm $sv"

rpm -qpl "$rpm" >"$dir/files.list" 2>/dev/null
diag <"$dir/files.list"

# --- what it holds ---------------------------------------------------------
libdir=$(rpm --eval '%{_libdir}')
pdir=$libdir/slurm
interface=$(makevar SLURM_INTERFACE)
for so in "${interface}_devns.so" mcs_devgroup.so devns_pidns.so; do
	grep -qx "$pdir/$so" "$dir/files.list"
	ok $? "$so is in %{_libdir}/slurm ($pdir), SchedMD's PluginDir"
done
grep '\.so$' "$dir/files.list" | grep -v '/security/pam_[^/]*\.so$' >"$dir/plugins.list"
! grep -qv "^$pdir/[^/]*\.so$" "$dir/plugins.list"
ok $? "no plugin elsewhere" || diag <"$dir/plugins.list"

grep -qx "$libdir/security/pam_devns.so" "$dir/files.list"
ok $? "pam_devns.so is in %{_libdir}/security ($libdir/security)" ||
	grep 'pam_' "$dir/files.list" | diag

grep -qx /usr/sbin/devns "$dir/files.list"
ok $? "devns is in /usr/sbin"

missing=
for f in "$TOP"/doc/man/*.[1-8]; do
	n=$(basename "$f")
	sec=${n##*.}
	[ "$n" = namespace.conf.5 ] && n=namespace.conf.5slurm
	grep -Eqx "/usr/share/man/man$sec/$n(\\.gz)?" "$dir/files.list" || missing+=" $n"
done
[ -z "$missing" ]
ok $? "the man pages of doc/man are in /usr/share/man" || echo "missing:$missing" | diag
! grep -Eq '/man5/namespace\.conf\.5(\.gz)?$' "$dir/files.list"
ok $? "namespace.conf(5) is namespace.conf(5slurm): pam's page keeps its name"

docdir=/usr/share/doc/$PKG
missing=
for f in README.md NEWS "$TOP"/doc/*.md; do
	n=$(basename "$f")
	case $n in benchmarks.md | release-notes-*) continue ;; esac
	grep -qx "$docdir/$n" "$dir/files.list" || missing+=" $n"
done
grep -qx "/usr/share/licenses/$PKG/COPYING" "$dir/files.list" || missing+=" COPYING"
[ -z "$missing" ]
ok $? "README.md, NEWS and doc/*.md are in $docdir, COPYING in /usr/share/licenses/$PKG" ||
	echo "missing:$missing" | diag
! grep -Eq "^$docdir/(benchmarks\\.md|release-notes-)" "$dir/files.list"
ok $? "benchmarks.md and the release notes are not"

# Unpacked, to compare contents and load the plugins.
rm -rf "$dir/root"
mkdir -p "$dir/root"
(cd "$dir/root" && rpm2cpio "$rpm" | cpio -idm --quiet) 2>"$dir/unpack.log"
ok $? "rpm2cpio | cpio unpacks it" || diag <"$dir/unpack.log"
missing=
for f in "$TOP"/etc/*.example; do
	cmp -s "$f" "$dir/root$docdir/examples/$(basename "$f")" || missing+=" $(basename "$f")"
done
[ -z "$missing" ]
ok $? "$docdir/examples holds etc/*.example" || echo "missing:$missing" | diag
man5=$(ls "$dir/root/usr/share/man/man5/namespace.conf.5slurm"* 2>/dev/null)
{ case $man5 in *.gz) zcat "$man5" ;; *) cat "$man5" ;; esac; } 2>/dev/null |
	grep -m1 '^\.TH' | grep -q '^\.TH [^ ]* 5slurm '
ok $? "namespace.conf.5slurm's .TH says section 5slurm"

! grep -q '\.la$' "$dir/files.list"
ok $? "no libtool archive"
rpath=
while IFS= read -r f; do
	readelf -d "$dir/root$f" 2>/dev/null | grep -Eq '\((RPATH|RUNPATH)\)' && rpath+=" $f"
done < <(grep -E '\.so$|/sbin/' "$dir/files.list")
[ -z "$rpath" ]
ok $? "no RPATH or RUNPATH in the plugins, pam_devns.so and devns" || echo "with one:$rpath" | diag

# --- what it requires --------------------------------------------------------
rpm -qpR "$rpm" >"$dir/requires.list" 2>/dev/null
diag <"$dir/requires.list"
isa=$(rpm --eval '%{_isa}')
grep -qxF "slurm$isa = $sv" "$dir/requires.list"
ok $? "Requires: slurm$isa = $sv, the release built for"
grep -qxF "(slurm-slurmd$isa = $sv or slurm-slurmctld$isa = $sv)" "$dir/requires.list"
ok $? "Requires: (slurm-slurmd$isa = $sv or slurm-slurmctld$isa = $sv)"
grep -q '^libpam\.so\.0' "$dir/requires.list"
ok $? "Requires libpam.so.0 (pam_devns.so), found by rpm from the ELF files"
rpm -qp --provides "$rpm" 2>/dev/null >"$dir/provides.list"
! grep -qv "^$PKG\\($isa\\)\\? = " "$dir/provides.list"
ok $? "Provides names the package alone, no plugin's soname" || diag <"$dir/provides.list"

# rpm -i --test against hosts of fake packages: SchedMD's slurm and one
# daemon package at a release, and what the rest of the Requires name
# (libc, libpam: any RHEL has them).
mapfile -t sysprov < <(grep -v '^(\?slurm' "$dir/requires.list" | grep -v '^rpmlib(')
next=${sv%.*}.$((${sv##*.} + 1))
fake_rpm devns-system 1 noarch "${sysprov[@]}" || tail -5 "$dir/fake.log" | diag
for v in "$sv" "$next"; do
	fake_rpm slurm "$v" "" && fake_rpm slurm-slurmd "$v" "" && fake_rpm slurm-slurmctld "$v" "" ||
		tail -5 "$dir/fake.log" | diag
done
fake() { ls "$dir"/fake/"$1"-"$2"-1.fake.*.rpm; }
newdb "$dir/db-host" "$(fake devns-system 1)" "$(fake slurm "$sv")" "$(fake slurm-slurmd "$sv")" &&
	rpm --dbpath "$dir/db-host" -i --test --justdb "$rpm" >"$dir/host.log" 2>&1
ok $? "it installs beside slurm and slurm-slurmd $sv (rpm -i --test)" || diag <"$dir/host.log"
newdb "$dir/db-ctld" "$(fake devns-system 1)" "$(fake slurm "$sv")" "$(fake slurm-slurmctld "$sv")" &&
	rpm --dbpath "$dir/db-ctld" -i --test --justdb "$rpm" >"$dir/ctld.log" 2>&1
ok $? "and beside slurm and slurm-slurmctld $sv alone (a controller)" || diag <"$dir/ctld.log"
newdb "$dir/db-next" "$(fake devns-system 1)" "$(fake slurm "$next")" "$(fake slurm-slurmd "$next")" &&
	! rpm --dbpath "$dir/db-next" -i --test --justdb "$rpm" >"$dir/next.log" 2>&1 &&
	grep -q "slurm$isa = $sv is needed" "$dir/next.log"
ok $? "not beside Slurm $next: the package holds Slurm to $sv" || diag <"$dir/next.log"
newdb "$dir/db-nodaemon" "$(fake devns-system 1)" "$(fake slurm "$sv")" &&
	! rpm --dbpath "$dir/db-nodaemon" -i --test --justdb "$rpm" >"$dir/nodaemon.log" 2>&1
ok $? "not without slurmd or slurmctld" || diag <"$dir/nodaemon.log"
rpmspec -q --requires --with ohpc --define "slurm_version $sv" "$dir/$PKG.spec" \
	>"$dir/requires-ohpc.list" 2>/dev/null
grep -qxF "slurm-ohpc$isa = $sv" "$dir/requires-ohpc.list" &&
	grep -qxF "(slurm-slurmd-ohpc$isa = $sv or slurm-slurmctld-ohpc$isa = $sv)" "$dir/requires-ohpc.list"
ok $? "--with ohpc requires OpenHPC's slurm-ohpc and slurm-slurmd-ohpc or slurm-slurmctld-ohpc" ||
	diag <"$dir/requires-ohpc.list"

# --- the same build in a minimal root (DEVNS_RPM_CHROOT) --------------------
# The first deb URI of the system's own apt sources (no mirror of ours).
debian_mirror() {
	{ grep -h '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{ print $2 }'
	  sed -n 's/^deb \(\[[^]]*\] \)\?\([^ ]*\) .*/\2/p' /etc/apt/sources.list 2>/dev/null
	} | grep -v security | head -n1
}
if [ -n "${DEVNS_RPM_CHROOT:-}" ]; then
	croot=$(realpath -m -- "$DEVNS_RPM_CHROOT")
	if [ ! -x "$croot/usr/bin/rpmbuild" ]; then
		debootstrap --variant=minbase --include=gcc,make,libpam0g-dev,rpm,bzip2 \
			"$(. /etc/os-release && echo "$VERSION_CODENAME")" "$croot" \
			"$(debian_mirror)" >"$dir/debootstrap.log" 2>&1
	fi
	chroot "$croot" dpkg-query -W -f='${Package}\n' >"$dir/chroot-packages.list" 2>/dev/null
	[ -x "$croot/usr/bin/rpmbuild" ] && ! grep -qxE 'autoconf|automake|libtool|pkgconf|pkg-config|python3|libmunge-dev' \
		"$dir/chroot-packages.list"
	ok $? "a minimal root $croot: minbase, gcc, make, libpam0g-dev, rpm, bzip2 ($(wc -l <"$dir/chroot-packages.list") packages; no autotools, pkg-config, python3, munge)" ||
		tail -5 "$dir/debootstrap.log" 2>/dev/null | diag
	rm -rf "$croot/build" && mkdir -p "$croot/build" &&
		cp "$tarball" "$slurm_tarball" "$croot/build/" && cp -a "$dir/db-buildroot" "$croot/build/db"
	start=$SECONDS
	unshare --mount --fork bash -c '
		set -e
		r=$1; shift
		mount -t proc proc "$r/proc"; mount --rbind /dev "$r/dev"
		mount -t sysfs sysfs "$r/sys"; mount -t tmpfs tmpfs "$r/tmp"
		exec chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"' \
		- "$croot" bash -c 'cd /build && rpmbuild -ta --dbpath /build/db --define "_topdir /build/top" --define "slurm_version $1" "$2"' \
		- "$sv" "$(basename "$tarball")" >"$dir/rpmbuild-chroot.log" 2>&1
	ok $? "in it, rpmbuild -ta against the same database ($((SECONDS - start))s)" ||
		{ grep -E -B2 -A8 'error|Error|RPM build errors' "$dir/rpmbuild-chroot.log" | tail -30; } | diag
	grep -E '^# (PASS|SKIP|FAIL|ERROR):' "$dir/rpmbuild-chroot.log" | tr -s ' ' | paste -sd' ' |
		sed 's/^/make check there: /' | diag
	crpm=$(ls "$croot/build/top/RPMS/"*/"$PKG-$version-"*.rpm 2>/dev/null)
	# (Less the build-id links: the build's path is part of the ids.)
	[ -n "$crpm" ] && diff <(rpm -qpl "$rpm" | grep -v /.build-id) \
		<(rpm -qpl "$crpm" 2>/dev/null | grep -v /.build-id) >"$dir/chroot-files.diff" &&
		diff <(rpm -qpR "$rpm") <(rpm -qpR "$crpm" 2>/dev/null) >>"$dir/chroot-files.diff"
	ok $? "the package made there holds the same files and requires the same" ||
		head -20 "$dir/chroot-files.diff" | diag
else
	skip "DEVNS_RPM_CHROOT unset: no build in a minimal root"
fi

# --- the plugins it holds load, of the installed release ------------------
spdir=$(slurm_plugindir)
helper=$build/testsuite/integration/helpers/plugin_load
make -s -C "$build" testsuite/integration/helpers/plugin_load >"$dir/helper.log" 2>&1
ok $? "the plugin_load helper builds" || tail -5 "$dir/helper.log" | diag
while IFS= read -r so; do
	if [ ! -x "$helper" ]; then
		skip "$(basename "$so"): no plugin_load helper"
		continue
	fi
	out=$("$helper" "$spdir/libslurmfull.so" "$dir/root$so" 2>&1)
	[ "${out##* }" = "$sv" ]
	ok $? "$(basename "$so") loads with the installed Slurm's libslurmfull: ${out% *}, release ${out##* }" ||
		echo "$out" | diag
done <"$dir/plugins.list"

done_testing
