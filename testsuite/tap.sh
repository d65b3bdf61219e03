# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tap.sh - the one shell library of the test suite: every shell test
# (integration/lib.sh, package.sh, rpm.sh, unit/test_slurm_source.sh)
# speaks TAP through it, and the scripts around them (vm.sh, the benches)
# take their messages from it.
#
#   plan N              the plan, declared up front (printed before the
#                       first check, so that a file can still skip as a
#                       whole with "1..0 # SKIP why" before it):
#                       done_testing fails when fewer or more than N
#                       checks ran
#   ok STATUS TEXT      a check: STATUS 0 passes; returns 0 or 1 likewise,
#                       so that a precondition guards what depends on it:
#                         ok $? "precondition: ..." || return
#   check TEXT -- CMD   a check that CMD exits 0
#   is GOT WANT TEXT    a check that GOT equals WANT (both shown otherwise)
#   like GOT ERE TEXT   a check that GOT matches ERE (grep -E)
#   skip TEXT           a skipped check, with its reason
#   skip_checks N TEXT  N skipped checks: a branch that cannot run here
#                       counts every check it stands for
#   diag [TEXT]         TEXT, or stdin, as TAP comments
#   done_testing        the plan (unless given up front) and the status:
#                       non-zero when a check failed (tap_done: the same)
#   say TEXT, die TEXT  a script's message on stderr, prefixed with its
#                       name ($PROG, else the script's file name); die
#                       exits 1
_tap_n=0 _tap_failed=0 _tap_planned='' _tap_plan_shown=''

plan() { _tap_planned=$1; }

# The declared plan, once, before the first check.
_tap_show_plan() {
	[ -n "$_tap_planned" ] && [ -z "$_tap_plan_shown" ] || return 0
	_tap_plan_shown=1
	echo "1..$_tap_planned"
}

ok() {
	local status=$1; shift
	_tap_show_plan
	_tap_n=$((_tap_n + 1))
	if [ "$status" -eq 0 ]; then
		echo "ok $_tap_n - $*"
		return 0
	fi
	echo "not ok $_tap_n - $*"
	_tap_failed=$((_tap_failed + 1))
	return 1
}

check() {
	local name=$1; shift
	[ "$1" = "--" ] && shift
	"$@"
	ok $? "$name"
}

is() {
	[ "$1" = "$2" ]
	ok $? "$3" && return 0
	echo "#   got: '$1'"
	echo "#  want: '$2'"
	return 1
}

like() {
	printf '%s' "$1" | grep -Eq -- "$2"
	ok $? "$3" && return 0
	echo "#   got: '$1'"
	echo "#  want match: '$2'"
	return 1
}

skip() {
	_tap_show_plan
	_tap_n=$((_tap_n + 1))
	echo "ok $_tap_n - # SKIP $*"
}

skip_checks() {
	local n=$1; shift
	while [ "$n" -gt 0 ]; do skip "$*"; n=$((n - 1)); done
}

# Every line commented, so that a multi-line text cannot end the TAP
# stream or pass for a check.
diag() {
	if [ $# -gt 0 ]; then
		printf '%s\n' "$*" | sed 's/^/# /'
	else
		sed 's/^/# /'
	fi
}

done_testing() {
	if [ -z "$_tap_planned" ]; then
		echo "1..$_tap_n"
	elif _tap_show_plan; [ "$_tap_n" -ne "$_tap_planned" ]; then
		echo "# planned $_tap_planned checks, ran $_tap_n"
		return 1
	fi
	[ "$_tap_failed" -eq 0 ]
}
tap_done() { done_testing; }

say() { printf '%s: %s\n' "${PROG:-${0##*/}}" "$*" >&2; }
die() { say "error: $*"; exit 1; }
