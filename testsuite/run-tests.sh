#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run-tests.sh - the whole test suite: the command README.md and .ci/run use.
#
#   1. build and install the plugins (scripts/build.sh)
#   2. unit tests (make check) plain, under ASan/UBSan, under valgrind
#   3. a real local cluster (testsuite/cluster) and every integration test
#      in testsuite/integration/test_*.sh against it
#
# Every check of every stage is counted; the last line is
#   "N passed, N failed, N skipped"
# and the exit status is non-zero when anything failed.
#
# Environment: DEVNS_TESTS=pattern runs only integration tests whose file
# name matches (e.g. DEVNS_TESTS=namespace); DEVNS_SKIP_UNIT=1 skips stage 2.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
results=$top/test-results
mkdir -p "$results"
passed=0 failed=0 skipped=0

say() { printf '\n=== %s\n' "$*"; }

# Count automake's per-check lines (PASS:, FAIL:, SKIP:, ERROR:, XPASS:).
count_automake() {
	local log=$1 p f s
	p=$(grep -c '^PASS: ' "$log")
	s=$(grep -c '^SKIP: ' "$log")
	f=$(grep -Ec '^(FAIL|ERROR|XPASS): ' "$log")
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	grep -E '^(FAIL|ERROR|XPASS): ' "$log" || true
}

# Count TAP lines of one integration script; a script that dies counts once.
count_tap() {
	local log=$1 status=$2 p f s
	s=$(grep -Ec '^ok [0-9]+ .*# SKIP' "$log")
	p=$(($(grep -Ec '^ok [0-9]+' "$log") - s))
	f=$(grep -Ec '^not ok [0-9]+' "$log")
	if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $(basename "$log" .log) exited with status $status"
		f=1
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}

unit_stage() {
	local name=$1 builddir=$2; shift 2
	say "unit tests: $name"
	"$top/scripts/build.sh" --no-install "$builddir" -- "$@" >"$results/build-$name.log" 2>&1 || {
		echo "build failed ($name):"; tail -30 "$results/build-$name.log"
		failed=$((failed + 1)); return
	}
	make -C "$builddir" check $MAKE_CHECK_ARGS >"$results/unit-$name.log" 2>&1
	count_automake "$results/unit-$name.log"
	grep -E '^# (TOTAL|PASS|FAIL|SKIP|ERROR):' "$results/unit-$name.log" | tr '\n' ' '
	echo
}

integration_stage() {
	local t log status
	say "cluster"
	if ! "$top/testsuite/cluster/cluster.sh" start >"$results/cluster-start.log" 2>&1; then
		echo "cluster failed to start:"; tail -40 "$results/cluster-start.log"
		failed=$((failed + 1))
		"$top/testsuite/cluster/cluster.sh" stop >/dev/null 2>&1
		return
	fi
	for t in "$top"/testsuite/integration/test_*.sh; do
		[ -n "${DEVNS_TESTS:-}" ] && [[ "$(basename "$t")" != *$DEVNS_TESTS* ]] && continue
		log=$results/$(basename "$t" .sh).log
		say "integration: $(basename "$t")"
		timeout 1200 bash "$t" >"$log" 2>&1
		status=$?
		grep -E '^(not ok|ok [0-9]+ .*# SKIP)' "$log"
		count_tap "$log" "$status"
	done
	say "cluster stop"
	"$top/testsuite/cluster/cluster.sh" stop >"$results/cluster-stop.log" 2>&1 ||
		{ echo "cluster stop failed"; failed=$((failed + 1)); }
}

main() {
	local asan="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"

	if [ -z "${DEVNS_SKIP_UNIT:-}" ]; then
		MAKE_CHECK_ARGS="" unit_stage plain "$top/build"
		MAKE_CHECK_ARGS="" unit_stage asan "$top/build-asan" CFLAGS="$asan" LDFLAGS="-fsanitize=address,undefined"
		MAKE_CHECK_ARGS="LOG_COMPILER=$top/testsuite/unit/valgrind.sh" \
			unit_stage valgrind "$top/build-valgrind"
	fi
	# The plain build is the one installed for the cluster.
	"$top/scripts/build.sh" "$top/build" >>"$results/build-plain.log" 2>&1 || {
		echo "build of the installed plugins failed"; failed=$((failed + 1))
	}
	integration_stage
	echo
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
}

main "$@"
