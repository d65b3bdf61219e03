#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# rpm.sh - build the RPM (slurm-devns.spec) the way doc/slurm-releases.md
# tells an admin to, with Debian's rpmbuild, against the installed Slurm
# (22.05 here) and its configured tree, and check what the package holds
# and requires.
#
#   testsuite/rpm.sh [DIR]
#
# 1. make dist in a build directory of its own (DIR/build), configured
#    against the installed Slurm and the tree scripts/slurm-source.sh
#    prints; the tarball must carry slurm-devns.spec at its top
# 2. rpmbuild -ta --nodeps --define "_topdir DIR/rpmbuild"
#    --define "_slurm_source TREE" slurm-devns-VERSION.tar.gz
#    (--nodeps: Debian's rpm has no database of the build host's packages
#    to hold gcc, make and pam-devel against; Debian's own are used)
# 3. rpm -qp: the version is configure's; the plugins are in Slurm's
#    PluginDir, pam_devns.so in PAM's module directory, devns in sbin, the
#    man pages (namespace.conf in section 5slurm), the examples, the
#    documentation and the licence are there, no libtool archive; Requires
#    names exactly the installed Slurm; the plugins it holds load with
#    Slurm's libslurmfull and are of its release.
#
# Prints TAP and exits non-zero when a check failed.  DIR (default
# TOP/test-results/rpm) holds the logs, the tarball and the packages.
# Installs Debian's rpm package when rpmbuild is missing (root).
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
ok $? "the installed Slurm ${sv:-(none)} and its configured tree ${tree:-(none)}" ||
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
cp "$tarball" "$dir/"
tarball=$dir/$(basename "$tarball")
tar -xzOf "$tarball" "$PKG-$version/$PKG.spec" >"$dir/$PKG.spec" 2>/dev/null &&
	grep -qx "Version:[[:space:]]*$version" "$dir/$PKG.spec"
ok $? "$(basename "$tarball") has $PKG.spec at its top, of Version $version" ||
	tar -tzf "$tarball" | grep -m5 spec | diag

# --- rpmbuild -ta ----------------------------------------------------------
start=$SECONDS
rpmbuild -ta --nodeps --define "_topdir $dir/rpmbuild" \
	--define "_slurm_source $tree" "$tarball" >"$dir/rpmbuild.log" 2>&1
ok $? "rpmbuild -ta --nodeps --define '_slurm_source $tree' ($((SECONDS - start))s; its check-files: nothing make install installs is left out)" ||
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

rpm -qpl "${srpms[0]}" >"$dir/srpm.list" 2>/dev/null
grep -qx "$PKG.spec" "$dir/srpm.list" && grep -qx "$(basename "$tarball")" "$dir/srpm.list"
ok $? "the source package holds $PKG.spec and $(basename "$tarball")" || diag <"$dir/srpm.list"

# --- what it is ------------------------------------------------------------
got=$(rpm -qp --qf '%{NAME} %{VERSION} %{RELEASE}' "$rpm" 2>/dev/null)
[ "${got% *}" = "$PKG $version" ]
ok $? "rpm -qp --qf '%{NAME} %{VERSION}': $PKG $version, configure's" || echo "got: $got" | diag
[[ ${got##* } == 1.slurm${sv//-/_}* ]]
ok $? "its release (${got##* }) names Slurm $sv"

rpm -qpl "$rpm" >"$dir/files.list" 2>/dev/null
diag <"$dir/files.list"

# --- what it holds ---------------------------------------------------------
pdir=$(slurm_plugindir)
interface=$(makevar SLURM_INTERFACE)
for so in "${interface}_devns.so" mcs_devgroup.so devns_pidns.so; do
	grep -qx "$pdir/$so" "$dir/files.list"
	ok $? "$so is in Slurm's PluginDir $pdir"
done
grep '\.so$' "$dir/files.list" | grep -v '/security/pam_[^/]*\.so$' >"$dir/plugins.list"
! grep -qv "^$pdir/[^/]*\.so$" "$dir/plugins.list"
ok $? "no plugin elsewhere" || diag <"$dir/plugins.list"

pamdir=$(makevar pamdir)
grep -qx "$pamdir/pam_devns.so" "$dir/files.list" && [ -f "$pamdir/pam_unix.so" ]
ok $? "pam_devns.so is in PAM's module directory $pamdir, beside pam_unix.so" ||
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

# --- what it requires --------------------------------------------------------
rpm -qpR "$rpm" >"$dir/requires.list" 2>/dev/null
diag <"$dir/requires.list"
isa=$(rpm --eval '%{_isa}')
grep -qxF "slurm$isa = $sv" "$dir/requires.list"
ok $? "Requires: slurm$isa = $sv, the installed Slurm"
grep -qxF "(slurm-slurmd$isa = $sv or slurm-slurmctld$isa = $sv)" "$dir/requires.list"
ok $? "Requires: (slurm-slurmd$isa = $sv or slurm-slurmctld$isa = $sv)"
grep -q '^libpam\.so\.0' "$dir/requires.list"
ok $? "Requires libpam.so.0 (pam_devns.so), found by rpm from the ELF files"
rpm -qp --provides "$rpm" 2>/dev/null >"$dir/provides.list"
! grep -qv "^$PKG\\($isa\\)\\? = " "$dir/provides.list"
ok $? "Provides names the package alone, no plugin's soname" || diag <"$dir/provides.list"

# --- the plugins it holds load, of the installed release ------------------
helper=$build/testsuite/integration/helpers/plugin_load
make -s -C "$build" testsuite/integration/helpers/plugin_load >"$dir/helper.log" 2>&1
ok $? "the plugin_load helper builds" || tail -5 "$dir/helper.log" | diag
while IFS= read -r so; do
	if [ ! -x "$helper" ]; then
		skip "$(basename "$so"): no plugin_load helper"
		continue
	fi
	out=$("$helper" "$pdir/libslurmfull.so" "$dir/root$so" 2>&1)
	[ "${out##* }" = "$sv" ]
	ok $? "$(basename "$so") loads with Slurm's libslurmfull: ${out% *}, release ${out##* }" ||
		echo "$out" | diag
done <"$dir/plugins.list"

done_testing
