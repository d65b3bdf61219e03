#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_slurm_release.sh - scripts/slurm-release.sh --configure-only on fake
# release tarballs: a pre-release's version (26.11.0-0rc1, as slurmd -V
# prints it) names the tarball, the tree and the prefix; the tarball is
# checked against SHA256SUMS before it is unpacked; a tree whose configure
# names another release is refused.  The shared folder, the cache and the
# prefix are temporary; Slurm's configure is a fake that writes what the
# real one would (config.h's SLURM_VERSION_STRING from the tarball's
# META), and dpkg-query a fake that says libdbus-1-dev is installed.
# Root-free, nothing is built.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
script=$here/../../scripts/slurm-release.sh
# shellcheck source=../tap.sh
. "$here/../tap.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_slurm_release.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT

fake=$tmp/fakebin
mkdir -p "$fake"
cat >"$fake/dpkg-query" <<'EOF'
#!/bin/sh
echo "install ok installed"
EOF
chmod +x "$fake/dpkg-query"
export PATH=$fake:$PATH
export SLURM_SHARED_DIR=$tmp/shared SLURM_SRC_CACHE=$tmp/cache
mkdir -p "$SLURM_SHARED_DIR" "$SLURM_SRC_CACHE"

# make_tarball VERSION STRING: slurm-VERSION.tar.xz whose configure says
# SLURM_VERSION_STRING is STRING, listed in SHA256SUMS.
make_tarball() {
	local v=$1 d=$tmp/src/slurm-$1
	mkdir -p "$d/src/common" "$d/slurm"
	touch "$d/src/common/xmalloc.h"
	cat >"$d/configure" <<-EOF
	#!/bin/sh
	echo "\$@" >config.log
	echo '#define SLURM_VERSION_STRING "$2"' >config.h
	echo '#define SLURM_VERSION_NUMBER 0x1a0b00' >slurm/slurm_version.h
	EOF
	chmod +x "$d/configure"
	tar -C "$tmp/src" -cJf "$SLURM_SHARED_DIR/slurm-$v.tar.xz" "slurm-$v"
	(cd "$SLURM_SHARED_DIR" && sha256sum "slurm-$v.tar.xz") >>"$SLURM_SHARED_DIR/SHA256SUMS"
}

make_tarball 26.11.0-0rc1 26.11.0-0rc1
make_tarball 26.11.0-0rc2 26.11.0-0rc1	# its META says rc1
grep -q 'slurm-26.11.0-0rc1.tar.xz$' "$SLURM_SHARED_DIR/SHA256SUMS"
ok $? "precondition: fake tarballs listed in SHA256SUMS"

out=$("$script" --configure-only 26.11.0-rc1 2>&1)
rc=$?
[ $rc -ne 0 ] && [[ $out == *"is not a Slurm release"* ]]
ok $? "a version that is not Slurm's pre-release form is refused ($rc)"

export SLURM_RELEASE_PREFIX=$tmp/opt/slurm-26.11.0-0rc1
tree=$("$script" --configure-only 26.11.0-0rc1 2>"$tmp/err")
rc=$?
is "$rc:$tree" "0:$SLURM_SRC_CACHE/slurm-26.11.0-0rc1" \
	"26.11.0-0rc1: the tree is configured under its full name"
grep -q -- "--prefix=$SLURM_RELEASE_PREFIX " "$tree/config.log"
ok $? "  configured for the prefix /opt/slurm-26.11.0-0rc1 names"
is "$(sed -n 's/^#define SLURM_VERSION_STRING "\(.*\)"$/\1/p' "$tree/config.h")" 26.11.0-0rc1 \
	"  its SLURM_VERSION_STRING is the version, as slurmd -V prints it"
tree2=$("$script" --configure-only 26.11.0-0rc1 2>"$tmp/err")
is "$tree2:$(cat "$tmp/err")" "$tree:" "  a second run finds it configured and says nothing"

export SLURM_RELEASE_PREFIX=$tmp/opt/slurm-26.11.0-0rc2
out=$("$script" --configure-only 26.11.0-0rc2 2>&1)
rc=$?
[ $rc -ne 0 ] && [[ $out == *"is Slurm 26.11.0-0rc1, not 26.11.0-0rc2"* ]] &&
	[ ! -f "$SLURM_SRC_CACHE/slurm-26.11.0-0rc2/.devns-recipe" ]
ok $? "a tree whose META names another release is refused, and not taken as configured ($rc)"

# A tarball that differs from its listed digest is not unpacked.
rm -rf "$SLURM_SRC_CACHE/slurm-26.11.0-0rc2"
echo tampered >>"$SLURM_SHARED_DIR/slurm-26.11.0-0rc2.tar.xz"
out=$("$script" --configure-only 26.11.0-0rc2 2>&1)
rc=$?
[ $rc -ne 0 ] && [[ $out == *"has SHA-256"* ]] && [ ! -e "$SLURM_SRC_CACHE/slurm-26.11.0-0rc2" ]
ok $? "a tarball whose digest differs from SHA256SUMS is not unpacked ($rc)"

out=$("$script" --configure-only 26.11.0-0rc3 2>&1)
rc=$?
[ $rc -ne 0 ] && [[ $out == *"not in $SLURM_SHARED_DIR/SHA256SUMS"* ]]
ok $? "a pre-release SHA256SUMS does not list is refused ($rc)"

tap_done
