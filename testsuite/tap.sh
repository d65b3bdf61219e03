# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tap.sh - the TAP helpers of the package checks (package.sh, rpm.sh):
# ok STATUS TEXT, skip TEXT, diag (stdin as comments), done_testing (the
# plan, and the status: non-zero when a check failed).
_n=0 _failed=0
ok() {
	local status=$1; shift
	_n=$((_n + 1))
	if [ "$status" -eq 0 ]; then
		echo "ok $_n - $*"
		return 0
	fi
	echo "not ok $_n - $*"
	_failed=$((_failed + 1))
	return 1
}
skip() { _n=$((_n + 1)); echo "ok $_n - # SKIP $*"; }
diag() { sed 's/^/# /'; }
done_testing() { echo "1..$_n"; [ "$_failed" -eq 0 ]; }
