#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run.sh - build the libFuzzer targets of testsuite/fuzz (every parser of
# what a site or a user writes) with clang under ASan and UBSan, run each
# for a bounded time on a copy of its seed corpus, and print TAP: one line
# per target with the inputs it ran.  Exit status non-zero when a target
# did not build, crashed, leaked, ran past -timeout or past its memory.
#
#   testsuite/fuzz/run.sh [TARGET...]      (default: every fuzz_*.c)
#
# Needs a tree configured by scripts/build.sh (the sources include
# devns_config.h).  Environment:
#   DEVNS_BUILD          the configured build directory (default build/)
#   DEVNS_FUZZ_SECONDS   fuzzing time in all, split evenly (default 60)
#   DEVNS_FUZZ_EACH      seconds per target instead (overrides the above)
#   DEVNS_FUZZ_OUT       binaries, objects and crash inputs
#                        (default $DEVNS_BUILD/fuzz; never the repository)
#   DEVNS_FUZZ_ARGS      more libFuzzer options, e.g. -jobs=2 -workers=2
#   CC                   a clang with libFuzzer (default clang)
# Long runs and AFL++: doc/fuzzing.md.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${DEVNS_BUILD:-$top/build}
out=${DEVNS_FUZZ_OUT:-$build/fuzz}
cc=${CC:-clang}
case $cc in *clang*) ;; *) cc=clang ;; esac

bail() { echo "1..0"; echo "Bail out! $*"; exit 1; }

cd "$top/testsuite/fuzz" || exit 1
if [ $# -gt 0 ]; then
	targets=("$@")
else
	targets=()
	for f in fuzz_*.c; do targets+=("${f%.c}"); done
fi
[ -f "$build/devns_config.h" ] ||
	bail "$build/devns_config.h missing: run scripts/build.sh --no-install first"
command -v "$cc" >/dev/null ||
	bail "$cc not found: scripts/deps.sh --test installs clang"
echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' |
	"$cc" -fsanitize=fuzzer -x c - -o /dev/null 2>/dev/null ||
	bail "$cc cannot link libFuzzer: scripts/deps.sh --test installs libclang-rt-dev"

if [ -n "${DEVNS_FUZZ_EACH:-}" ]; then
	each=$DEVNS_FUZZ_EACH
else
	each=$(( ${DEVNS_FUZZ_SECONDS:-60} / ${#targets[@]} ))
	[ "$each" -ge 1 ] || each=1
fi

# ---- build: every library object once, then one program per target ----
mkdir -p "$out/obj" "$out/bin" "$out/artifacts" || exit 1
# shellcheck disable=SC2054 # the commas are -fsanitize's
flags=(-g -O1 -fno-omit-frame-pointer -Wall -Wextra
       -fsanitize=address,undefined -fno-sanitize-recover=all
       -D_GNU_SOURCE= -I"$top/src/lib" -I"$build" -I"$top/src/sbin/devns"
       -I"$top/testsuite/lib" -I"$top/testsuite/fuzz")
# the tool's files but devns.c (its main; fuzz_devns_args takes it whole),
# and the strict JSON reader of the tests
sources=("$top"/src/lib/*/*.c "$top"/testsuite/lib/jsonread.c)
for f in "$top"/src/sbin/devns/*.c; do
	[ "${f##*/}" = devns.c ] || sources+=("$f")
done
# Rebuilt when a source or any header is newer than the library.
lib=$out/libdevns_fuzz.a
newest=$(find "$top/src" "$top/testsuite/lib" "$build/devns_config.h" \
	-newer "$lib" -name '*.[ch]' -print -quit 2>/dev/null)
if [ ! -f "$lib" ] || [ -n "$newest" ]; then
	rm -f "$out"/obj/*.o "$lib" "$out/build.log" "$out/build.failed"
	running=0
	for src in "${sources[@]}"; do
		o=${src#"$top"/}
		o=$out/obj/${o//\//_}
		{ "$cc" -c "$src" -o "${o%.c}.o" "${flags[@]}" \
			-fsanitize=fuzzer-no-link >>"$out/build.log" 2>&1 ||
			echo "$src" >>"$out/build.failed"; } &
		running=$((running + 1))
		if [ "$running" -ge "$(nproc)" ]; then
			wait -n
			running=$((running - 1))
		fi
	done
	wait
	if [ -f "$out/build.failed" ] ||
	   ! ar rcs "$lib" "$out"/obj/*.o 2>>"$out/build.log"; then
		rm -f "$lib"
	fi
fi

# ---- run ---------------------------------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/devns-fuzz-run.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
echo "1..${#targets[@]}"
n=0 failed=0
for t in "${targets[@]}"; do
	n=$((n + 1))
	bin=$out/bin/$t log=$out/$t.log
	if [ ! -f "$lib" ] ||
	   ! "$cc" "${flags[@]}" -Werror -fsanitize=fuzzer "$t.c" "$lib" -lpthread \
		-o "$bin" >"$out/build-$t.log" 2>&1; then
		echo "not ok $n - $t: did not build"
		grep -hE 'error|Error' "$out/build.log" "$out/build-$t.log" \
			2>/dev/null | head -20 | sed 's/^/# /'
		failed=$((failed + 1))
		continue
	fi
	mkdir -p "$work/$t" "$out/artifacts/$t"
	[ -d "corpus/${t#fuzz_}" ] && cp -r "corpus/${t#fuzz_}/." "$work/$t/"
	# stdout and stderr of the target closed (it reports on every input);
	# libFuzzer's and the sanitizers' messages still go to the log.
	# shellcheck disable=SC2086 # DEVNS_FUZZ_ARGS: options, split
	(cd "$work" && TMPDIR=$work "$bin" -max_total_time="$each" -timeout=5 \
		-rss_limit_mb=2048 -print_final_stats=1 -close_fd_mask=3 \
		-artifact_prefix="$out/artifacts/$t/" ${DEVNS_FUZZ_ARGS:-} \
		"$work/$t") >"$log" 2>&1
	status=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	if [ "$status" -eq 0 ] && [ -n "$runs" ]; then
		echo "ok $n - $t: ${runs} inputs in ${each} s"
		continue
	fi
	failed=$((failed + 1))
	why="exit $status"
	grep -q 'ERROR: LeakSanitizer' "$log" && why="leaked"
	grep -q 'ERROR: libFuzzer: timeout' "$log" && why="hung (-timeout=5)"
	grep -q 'out-of-memory' "$log" && why="ran out of memory"
	grep -qE 'ERROR: (AddressSanitizer|libFuzzer: deadly signal)|runtime error' \
		"$log" && why="crashed"
	echo "not ok $n - $t: $why after ${runs:-?} inputs; input in $out/artifacts/$t/, log $log"
	# what went wrong, and the frames in this tree's sources
	grep -E "ERROR|runtime error|SUMMARY|^ +#[0-9]+ .* in .* $top/" "$log" |
		head -25 | sed 's/^/# /'
done
exit $((failed > 0))
