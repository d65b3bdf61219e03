#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench_restore.sh - slurmd's restart on a node that 10,000 ended jobs left
# their namespaces, records and device cgroups on: how soon the node is
# registered and runs a new job, and how soon every leftover is gone.
# Prints figures only; it never judges them.
#
#   flock -o /tmp/devns-cluster.lock testsuite/bench/bench_restore.sh [COUNT]
#
# As root, with the plugins installed in the Slurm that runs the cluster
# (DEVNS_SLURM_PREFIX, as for the integration tests).  It (re)starts the test
# cluster (testsuite/cluster), runs one job on node1, kills node1's slurmd
# with SIGKILL (a crash: its jobs' steps and the pool are not told), plants
# COUNT (default 10000) ended jobs' leftovers in node1's BasePath, spool and
# cgroup tree (bench_restore_plant: each a directory bound onto itself, a
# pinned mount namespace of its own, its setup record and, on this hybrid
# host, a device cgroup with a program attached), starts slurmd again
# (cluster.sh restart-slurmd) and runs `srun -w node1 true`.  Printed, in
# seconds from slurmd's start (its log's "slurmd version ... started"):
#
#   registered   cluster.sh restart-slurmd returned: slurmctld saw node1
#                register and the node is up
#   job ran      a one-task srun on node1 has finished
#   all gone     none of the planted job directories, pins and binds,
#                records and device cgroups is left (polled every 0.2 s,
#                up to DEVNS_BENCH_TIMEOUT seconds, default 300)
#
# then the one-task sruns run one after another from "job ran" until all
# was gone (how many, how many failed, median and longest wall time, the
# cluster.sh run overhead included) against five after it (the floor),
#
# and the load average at the start, the counts of leftovers before and at
# the end, and beside what the plant made, what a real job (a `sleep` on
# node1, cancelled before the crash) had while it ran: its directory's
# entries, the mounts under it, its record, its device cgroup and programs.
# The cluster is stopped at the end, and the planted cgroups removed,
# however the script ends; DEVNS_BENCH_LOG=DIR keeps the cluster's logs
# there first (with DEVNS_SLURM_CONF_EXTRA=DebugFlags=JobContainer, on
# 22.05, they say where each job's setup and each removal spent its time).
# Exit status: 0, or 1 when the cluster failed, the job failed or the
# leftovers outlived the timeout.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
CLUSTER=$top/testsuite/cluster/cluster.sh
count=${1:-10000}
timeout=${DEVNS_BENCH_TIMEOUT:-300}
first=3000000	# far above the cluster's own job ids
plant=${DEVNS_BUILD_DIR:-$top/build}/testsuite/bench/bench_restore_plant

die() { echo "bench_restore: $*" >&2; exit 1; }

# However it ends (an interrupt too), nothing planted stays: the cluster's
# stop unmounts what is under its root and removes the root (directories,
# records); the planted device cgroups, outside it, go here (their
# programs with them).
cg=
cleanup() {
	if [[ -n ${DEVNS_BENCH_LOG:-} && -n ${DEVNS_CLUSTER_LOGDIR:-} ]]; then
		mkdir -p "$DEVNS_BENCH_LOG" && cp "$DEVNS_CLUSTER_LOGDIR"/*.log "$DEVNS_BENCH_LOG"/
	fi
	"$CLUSTER" stop >/dev/null 2>&1
	if [[ -n $cg && -d $cg ]]; then
		find "$cg" -mindepth 1 -maxdepth 1 -type d -name 'job_3[0-9][0-9][0-9][0-9][0-9][0-9]' \
			-exec rmdir {} + 2>/dev/null
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

[[ $(id -u) == 0 ]] || { echo "bench_restore: needs root" >&2; exit 1; }
[[ -x $plant ]] || { echo "bench_restore: build $plant first (make)" >&2; exit 1; }

"$CLUSTER" restart >/dev/null || die "the cluster did not start"
eval "$("$CLUSTER" env)"
base=$DEVNS_CLUSTER_BASE/node1
spool=$DEVNS_CLUSTER_ROOT/spool/node1
log=$DEVNS_CLUSTER_LOGDIR/slurmd-node1.log
cg=$(awk '{ for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup2") { print $5; exit } break } }' /proc/self/mountinfo)/devns/node1
"$CLUSTER" run -- srun -w node1 true || die "the first job failed"
# Its end must be through slurmctld first: a job still completing when
# slurmd dies keeps node1 busy for slurmctld after the restart, and the
# new job would wait for that instead of for the node.
for _ in $(seq 100); do
	[[ $("$CLUSTER" run -- sinfo -h -n node1 -o %T 2>/dev/null) == idle ]] && break
	sleep 0.2
done

# What a real job leaves while it runs, beside what the plant makes, so
# that the two can be compared: the entries of its directory, the mounts
# under it in the host's namespace, its record, its device cgroup and the
# programs attached there.  One line.
layout() {
	local id=$1 entries mounts rec=no cgroup=no progs=-
	entries=$(ls -A "$base/$id" 2>/dev/null | sort | tr '\n' ' ')
	mounts=$(grep -c " $base/$id[/ ]" /proc/self/mountinfo)
	[[ -e $spool/devns_filter_$id ]] && rec=yes
	if [[ -d $cg/job_$id ]]; then
		cgroup=yes
		command -v bpftool >/dev/null &&
			progs=$(bpftool cgroup list "$cg/job_$id" 2>/dev/null | grep -c device)
	fi
	echo "directory: ${entries:-none}; mounts under it: $mounts; record: $rec; device cgroup: $cgroup, device programs there: $progs"
}
real=$("$CLUSTER" run -- sbatch -w node1 --parsable -o /dev/null --wrap 'sleep 300') ||
	die "the sample job was not taken"
real=${real%%;*}
for _ in $(seq 100); do
	[[ -e $base/$real/.ns && -e $spool/devns_filter_$real ]] && break
	sleep 0.1
done
sleep 1	# its batch step in, after the extern step
real_layout=$(layout "$real")
"$CLUSTER" run -- scancel "$real"
for _ in $(seq 100); do
	[[ $("$CLUSTER" run -- sinfo -h -n node1 -o %T 2>/dev/null) == idle && ! -e $base/$real &&
		-z $(compgen -G "$base/.reap-*") ]] && break
	sleep 0.2
done

# What is left of the planted jobs (their ids only: the sruns below run
# meanwhile): directories, mounts under BasePath, records, cgroups.  One
# line of four counts.
left() {
	local dirs mounts recs cgs
	dirs=$(find "$base" -mindepth 1 -maxdepth 1 \( -name '3[0-9][0-9][0-9][0-9][0-9][0-9]' -o -name '.reap-3[0-9][0-9][0-9][0-9][0-9][0-9]-*' \) 2>/dev/null | wc -l)
	mounts=$(grep -cE " $base/(\.reap-)?3[0-9]{6}[-/ ]" /proc/self/mountinfo)
	recs=$(find "$spool" -maxdepth 1 -name 'devns_filter_3[0-9][0-9][0-9][0-9][0-9][0-9]' 2>/dev/null | wc -l)
	cgs=$(find "$cg" -mindepth 1 -maxdepth 1 -name 'job_3[0-9][0-9][0-9][0-9][0-9][0-9]' 2>/dev/null | wc -l)
	echo "$dirs $mounts $recs $cgs"
}

# A crash: SIGKILL, so nothing of slurmd's own stop runs.
pid=$(cat "$DEVNS_CLUSTER_ROOT/run/slurmd-node1.pid" 2>/dev/null) || die "no slurmd pid"
kill -KILL "$pid" 2>/dev/null
for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
"$plant" "$base" "$spool" node1 "$first" "$count" || die "planting failed"
echo "a running job's ($real):  $real_layout"
echo "a planted ended job's:    $(layout "$first")"
echo "left before the restart (directories, mounts, records, cgroups): $(left)"
load=$(cut -d' ' -f1-3 /proc/loadavg)
lines=$(wc -l <"$log")
"$CLUSTER" restart-slurmd node1 >/dev/null || die "slurmd did not come back"
t_reg=$(date +%s.%N)
"$CLUSTER" run -- srun -w node1 true || die "the job after the restart failed"
t_job=$(date +%s.%N)
# Jobs one after another on node1 while restore works behind slurmd, each
# timed (start, end, exit status): whether the cleanup holds job starts.
during=$(mktemp /tmp/bench_restore.XXXXXX)
stopf=$during.stop
(
	while [[ ! -e $stopf ]]; do
		s=$(date +%s.%N)
		"$CLUSTER" run -- srun -w node1 true >/dev/null 2>&1
		rc=$?
		echo "$s $(date +%s.%N) $rc"
	done >"$during"
) &
sruns=$!
gone=
while :; do
	now=$(date +%s.%N)
	l=$(left)
	if [[ $l == "0 0 0 0" ]]; then gone=$now; break; fi
	started=$(tail -n +"$((lines + 1))" "$log" | grep -m1 'slurmd version .* started' | sed 's/^\[\([^]]*\)\].*/\1/')
	if [[ -n $started ]] && (($(echo "$now - $(date -d "$started" +%s.%N) > $timeout" | bc))); then
		break
	fi
	sleep 0.2
done
touch "$stopf"
wait "$sruns"
# The same job with nothing left behind, five times: the floor.
: >"$during.after"
for _ in 1 2 3 4 5; do
	s=$(date +%s.%N)
	"$CLUSTER" run -- srun -w node1 true >/dev/null 2>&1
	echo "$s $(date +%s.%N) $?" >>"$during.after"
done
# "N jobs, F failed, median M s, longest L s" of the lines of a file
# whose jobs started before $2 (empty: all).
job_times() {
	local n f
	n=$(awk -v u="${2:-}" 'u == "" || $1 < u' "$1" | wc -l)
	((n)) || { echo none; return; }
	f=$(awk -v u="${2:-}" '(u == "" || $1 < u) && $3 != 0' "$1" | wc -l)
	awk -v u="${2:-}" 'u == "" || $1 < u { printf "%.3f\n", $2 - $1 }' "$1" | sort -n |
		awk -v n="$n" -v f="$f" '{ d[NR] = $1 }
			END { printf "%d jobs, %d failed, median %.2f s, longest %.2f s\n", n, f,
				(n % 2 ? d[(n + 1) / 2] : (d[n / 2] + d[n / 2 + 1]) / 2), d[n] }'
}
started=$(tail -n +"$((lines + 1))" "$log" | grep -m1 'slurmd version .* started' | sed 's/^\[\([^]]*\)\].*/\1/')
[[ -n $started ]] || die "no start line in $log"
t0=$(date -d "$started" +%s.%N)
printf 'bench_restore: %d ended jobs on node1, load average at the restart %s\n' "$count" "$load"
printf '  registered   %6.2f s after slurmd started\n' "$(echo "$t_reg - $t0" | bc)"
printf '  job ran      %6.2f s\n' "$(echo "$t_job - $t0" | bc)"
if [[ -n $gone ]]; then
	printf '  all gone     %6.2f s\n' "$(echo "$gone - $t0" | bc)"
else
	printf '  all gone     not within %d s: left %s\n' "$timeout" "$(left)"
fi
echo "left at the end (directories, mounts, records, cgroups): $(left)"
echo "  srun -w node1 true while restore worked: $(job_times "$during" "${gone:-}")"
echo "  the same after, nothing left:            $(job_times "$during.after")"
rm -f "$during" "$during.after" "$stopf"
tail -n +"$((lines + 1))" "$log" | grep -E 'restore:' | sed 's/^/  log: /'
[[ -n $gone ]]
