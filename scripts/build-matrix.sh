#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# build-matrix.sh - compile the plugins against every supported Slurm release.
#
#   scripts/build-matrix.sh [VERSION...]
#       (default: 23.02.8 23.11.11 24.05.8 24.11.5 25.05.8 25.11.7 26.05.3
#        26.11.0-0rc1)
#
# 26.11.0-0rc1 is SchedMD's development tree for 26.11 (shared/slurm): its
# interface may still change before 26.11.0.
#
# For each release: a configured Slurm tree (scripts/slurm-release.sh
# --configure-only: the shared folder's tarball checked against SHA256SUMS,
# or Debian's source for 24.11.x; the installed Debian release's own tree
# from scripts/slurm-source.sh), then slurm-devns configured out of tree
# against it with --disable-installed-check (no daemons of that release are
# installed), and make of the Slurm plugins only: job_container_devns.so
# (namespace_devns.so from 25.11), mcs_devgroup.so, devns_pidns.so.  No unit
# tests, no install.  Each .so's plugin_version must be the tree's
# SLURM_VERSION_NUMBER: the daemons refuse a plugin of another release.
#
# One line per release: release, interface, the plugins built, the
# plugin_version check and the seconds it took.  Exits 1 when any release
# failed (its log's end is printed), 2 on a usage error.
#
# Everything is cached and incremental: the Slurm trees in $SLURM_SRC_CACHE
# (/var/cache/slurm-devns), the builds in $DEVNS_MATRIX_DIR (default
# build-matrix/ in the source tree), configured again only when configure,
# its arguments or the Slurm tree changed.  $MAKE_JOBS (default: nproc)
# jobs per make.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
: "${SLURM_SRC_CACHE:=/var/cache/slurm-devns}"
: "${DEVNS_MATRIX_DIR:=$top/build-matrix}"
: "${MAKE_JOBS:=$(nproc)}"
export SLURM_SRC_CACHE

default_versions="23.02.8 23.11.11 24.05.8 24.11.5 25.05.8 25.11.7 26.05.3 26.11.0-0rc1"

die() { echo "build-matrix.sh: $*" >&2; exit 2; }

case ${1:-} in
-h|--help)
	sed -n '4,/^[^#]/p' "$0" | sed '$d; s/^# \{0,1\}//'
	exit 0 ;;
-*) die "unknown option $1 (usage: build-matrix.sh [VERSION...])" ;;
esac
# shellcheck disable=SC2086 # the default list is words
[ $# -gt 0 ] || set -- $default_versions
for v in "$@"; do
	[[ $v =~ ^[0-9]+\.[0-9]+\.[0-9]+(-0(pre|rc)[0-9]+)?$ ]] ||
		die "'$v' is not a Slurm release (MAJOR.MINOR.MICRO, or MAJOR.MINOR.MICRO-0rcN)"
done

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1fs", b - a }'; }

# The release Debian installed, whose tree slurm-source.sh keeps (with
# Debian's patches and options); every other release is slurm-release.sh's.
debian_version=$(dpkg-query -W -f='${Version}' slurmd 2>/dev/null ||
	dpkg-query -W -f='${Version}' slurmctld 2>/dev/null || true)
debian_version=${debian_version%%-*}

slurm_tree() {
	if [ "$1" = "$debian_version" ]; then
		"$top/scripts/slurm-source.sh"
	else
		"$top/scripts/slurm-release.sh" --configure-only "$1"
	fi
}

# The generated configure, as scripts/build.sh makes it.
ensure_configure() {
	if [ ! -x "$top/configure" ] || [ "$top/configure.ac" -nt "$top/configure" ]; then
		echo "build-matrix.sh: autoreconf -fi in $top" >&2
		(cd "$top" && autoreconf -fi >/dev/null 2>&1) ||
			{ (cd "$top" && autoreconf -fi); exit 1; }
	fi
	[ ! -f "$top/config.status" ] ||
		die "$top is configured in place; out-of-tree builds need it clean (make distclean there)"
}

# LEN bytes of a symbol's value in a shared object, as hex, read from the
# file: nothing is loaded or run (a plugin refers to the daemon's symbols).
symbol_hex() {
	local so=$1 sym=$2 len=$3 addr sec
	read -r addr sec < <(objdump -T "$so" 2>/dev/null | awk -v s="$sym" '
		$NF == s { for (i = 2; i < NF; i++) if ($i ~ /^\./) { print $1, $i; exit } }') || true
	[ -n "${sec:-}" ] || return 1
	objdump -s -j "$sec" --start-address=$((16#$addr)) \
		--stop-address=$((16#$addr + len)) "$so" |
		awk '/^ [0-9a-f]+ [0-9a-f]+/ { for (i = 2; i <= 5 && $i ~ /^[0-9a-f]+$/; i++) printf "%s", $i }'
}

# plugin_version (a little-endian uint32_t) as 0x...
symbol_u32() {
	local b
	b=$(symbol_hex "$1" "$2" 4) && [ ${#b} -eq 8 ] || return 1
	echo "0x${b:6:2}${b:4:2}${b:2:2}${b:0:2}"
}

# plugin_type, a string of at most 64 bytes.
symbol_str() {
	local b
	b=$(symbol_hex "$1" "$2" 64) || return 1
	printf '%s' "$b" | sed 's/\(..\)/\\x\1/g' | xargs -0 printf '%b' | tr '\0' '\n' | head -n 1
}

# The entry points the daemons require of a plugin: the syms[] list of the
# tree's interface loader (FILE).
interface_syms() {
	sed -n '/^static const char \*syms\[\] = {/,/};/p' "$1" | grep -o '"[a-z_]*"' | tr -d '"'
}

# Where the tree's loader of a plugin's interface is (by the .so's name).
interface_file() {
	local tree=$1 f
	case $2 in
	namespace_*) set -- src/interfaces/namespace.c ;;
	job_container_*) set -- src/interfaces/job_container.c src/slurmd/common/job_container_plugin.c ;;
	mcs_*) set -- src/interfaces/mcs.c src/common/slurm_mcs.c ;;
	*) return 0 ;;	# SPANK: hooks are optional
	esac
	for f in "$@"; do
		[ -f "$tree/$f" ] && { echo "$tree/$f"; return; }
	done
	return 1
}

# One plugin against its tree: plugin_version is the tree's release,
# plugin_type names the interface the file name says (spank for SPANK), and
# every entry point the tree's loader requires is exported.  Problems go
# to stdout, one line each.
check_so() {
	local tree=$1 so=$2 want=$3 name got type iface file sym
	name=$(basename "$so" .so)
	[ -f "$so" ] || { echo "$name.so: not built"; return; }
	got=$(symbol_u32 "$so" plugin_version || true)
	[ -n "$got" ] && [ $((got)) -eq $((want)) ] ||
		echo "$name.so: plugin_version ${got:-missing}, the tree's SLURM_VERSION_NUMBER is $want"
	type=$(symbol_str "$so" plugin_type || true)
	case $name in
	namespace_*) iface=namespace/ ;;
	job_container_*) iface=job_container/ ;;
	mcs_*) iface=mcs/ ;;
	*) iface=spank ;;
	esac
	case $type in
	"$iface"*) ;;
	*) echo "$name.so: plugin_type '${type:-missing}', expected $iface..." ;;
	esac
	file=$(interface_file "$tree" "$name") ||
		{ echo "$name.so: no interface loader for it in $tree"; return; }
	[ -n "$file" ] || return 0
	nm -D --defined-only "$so" | awk '{ print $3 }' >"$so.syms"
	for sym in $(interface_syms "$file"); do
		grep -qx "$sym" "$so.syms" ||
			echo "$name.so: does not export $sym (${file#"$tree"/})"
	done
	rm -f "$so.syms"
}

# plugin_LTLIBRARIES of a configured build directory: what configure chose.
plugin_targets() {
	# shellcheck disable=SC2016 # $(...) is make's
	printf 'print-plugins:\n\t@echo $(plugin_LTLIBRARIES)\n' |
		make -s -C "$1" -f Makefile -f - print-plugins
}

failed=0
line() { printf '%-12s %-13s %-62s %s\n' "$@"; }

build_one() {
	local version=$1 start tree bdir log args interface targets want sos problems status=OK t
	start=$(now)
	bdir=$DEVNS_MATRIX_DIR/slurm-$version
	log=$bdir/build-matrix.log
	mkdir -p "$bdir"
	: >"$log"
	if ! tree=$(slurm_tree "$version" 2>>"$log"); then
		line "$version" "-" "no configured Slurm tree" "FAIL $(elapsed "$start")"
		tail -n 5 "$log" | sed 's/^/  /'
		return 1
	fi
	args="--enable-werror --disable-installed-check --with-slurm-source=$tree"
	if [ ! -f "$bdir/Makefile" ] || [ ! -f "$bdir/config.status" ] ||
	   [ "$top/configure" -nt "$bdir/config.status" ] ||
	   [ "$tree/config.h" -nt "$bdir/config.status" ] ||
	   [ "$(cat "$bdir/.matrix-args" 2>/dev/null)" != "$args" ]; then
		rm -f "$bdir/.matrix-args"
		# shellcheck disable=SC2086 # args are words (no spaces in paths)
		if ! (cd "$bdir" && "$top/configure" -q $args) >>"$log" 2>&1; then
			line "$version" "-" "slurm-devns configure failed ($log)" "FAIL $(elapsed "$start")"
			grep -h 'error:' "$log" "$bdir/config.log" 2>/dev/null | tail -n 5 | sed 's/^/  /'
			return 1
		fi
		echo "$args" >"$bdir/.matrix-args"
	fi
	# A Makemodule.am edited since: make regenerates the Makefile first,
	# here, and not in the middle of plugin_targets's output.
	make -C "$bdir" Makefile >>"$log" 2>&1
	interface=$(sed -n 's/^SLURM_INTERFACE = //p' "$bdir/Makefile")
	targets=$(plugin_targets "$bdir" 2>>"$log") || targets=
	if [ -z "$targets" ]; then
		line "$version" "$interface" "no plugin_LTLIBRARIES in $bdir/Makefile" "FAIL $(elapsed "$start")"
		return 1
	fi
	# shellcheck disable=SC2086 # targets are words
	if ! make -C "$bdir" -j"$MAKE_JOBS" $targets >>"$log" 2>&1; then
		line "$version" "$interface" "make failed ($log)" "FAIL $(elapsed "$start")"
		grep -E 'error|Error' "$log" | head -n 10 | sed 's/^/  /'
		return 1
	fi
	want=$(sed -n 's/^#define SLURM_VERSION_NUMBER \(0x[0-9a-fA-F]*\)$/\1/p' "$tree/slurm/slurm_version.h")
	sos='' problems=''
	for t in $targets; do
		sos+=" ${t%.la}.so"
		problems+=$(check_so "$tree" "$bdir/.libs/${t%.la}.so" "$want")$'\n'
	done
	problems=$(printf '%s' "$problems" | sed '/^$/d')
	[ -z "$problems" ] || status=FAIL
	line "$version" "$interface" "${sos# }" "plugin_version $status ($want) $(elapsed "$start")"
	if [ -n "$problems" ]; then
		printf '%s\n' "$problems" | sed 's/^/  /' | tee -a "$log"
		return 1
	fi
}

ensure_configure
line release interface plugins result
for v in "$@"; do
	build_one "$v" || failed=1
done
exit "$failed"
