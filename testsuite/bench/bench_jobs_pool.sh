#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench_jobs_pool.sh LOGDIR... - the rounds of several bench_jobs.sh runs
# taken together.  Prints figures only; it never judges them.
#
#   testsuite/bench/bench_jobs_pool.sh /tmp/bench_jobs.A /tmp/bench_jobs.B ...
#
# Each LOGDIR is a run's DEVNS_BENCH_LOG (its results.burst and
# results.array).  For every round of every run: the round's own ratio
# SUBJECT/BASE (devns/tmpfs by default), its bursts' median wall over
# BASE's and its array time over BASE's.  Then, over all those rounds, the median ratio and a 90 %
# bootstrap interval of that median (2,000 resamples of the rounds, a fixed
# seed: the same logs print the same figures).  A round's ratio lands
# anywhere from 0.77 to 1.53 on the 2-core VM, so a goal within 2 % needs
# the rounds of several runs, and the interval says how far their median
# can be trusted.
#
# Environment: DEVNS_BENCH_BASE (tmpfs), the container devns is compared
# with, by its name in the results (job_container/tmpfs: tmpfs;
# namespace/linux+pid: linux+pid); DEVNS_BENCH_SUBJECT (devns), the one
# compared (devns+pid against linux+pid).
set -euo pipefail

BASE=${DEVNS_BENCH_BASE:-tmpfs}
SUBJECT=${DEVNS_BENCH_SUBJECT:-devns}
PROG=bench_jobs_pool
# shellcheck source=../tap.sh
source "$(dirname "$0")/../tap.sh"	# say, die

(($# > 0)) || die "usage: $0 LOGDIR..."
for d in "$@"; do
	if [ ! -s "$d/results.burst" ] || [ ! -s "$d/results.array" ]; then
		die "$d: no results.burst and results.array (not a bench_jobs.sh log directory?)"
	fi
done

# awk: sort v[1..n] in place, as numbers; the median of v[1..n], sorting it.
MEDIAN_AWK='
	function sort_n(v, n,    i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
				t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
			}
	}
	function median(v, n) {
		sort_n(v, n)
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}'

# rounds KIND: "run round ratio" per round that has both containers, from
# results.KIND of every LOGDIR (burst: the median of the round's walls).
rounds() {
	local kind=$1 d
	for d in "${@:2}"; do
		awk -v run="$d" -v base="$BASE" -v subj="$SUBJECT" "$MEDIAN_AWK"'
			function list_median(list,    v) { return median(v, split(list, v, " ")) }
			$1 == subj || $1 == base { t[$1, $2] = t[$1, $2] " " $3; r[$2] = 1 }
			END {
				for (k in r)
					if (((subj, k) in t) && ((base, k) in t))
						printf "%s %s %.4f\n", run, k,
							list_median(t[subj, k]) / list_median(t[base, k])
			}' "$d/results.$kind"
	done
}

# summary LABEL: the median of the ratios on stdin (third field), their
# spread, and a 90 % bootstrap interval of the median.
summary() {
	awk -v label="$1" "$MEDIAN_AWK"'
		{ x[++n] = $3 + 0 }
		END {
			if (!n) { printf "%s: no round has both containers\n", label; exit 1 }
			srand(1)
			for (b = 1; b <= 2000; b++) {
				for (i = 1; i <= n; i++) s[i] = x[int(rand() * n) + 1]
				m[b] = median(s, n)
			}
			sort_n(m, 2000)
			mid = median(x, n)	# sorts x: x[1] and x[n] are the extremes
			printf "%s: %d rounds, median %.4f, 90%% interval %.4f-%.4f (rounds from %.3f to %.3f)\n",
				label, n, mid, m[100], m[1900], x[1], x[n]
		}'
}

echo "# bench_jobs_pool: $SUBJECT/$BASE per round, over $# runs: $*"
rounds burst "$@" | summary "burst wall"
rounds array "$@" | summary "array time"
