#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench_growth.sh - does anything of devns grow with the jobs a node has
# run?  slurmd's memory and open fds, an extern slurmstepd's, and the BPF
# programs and maps, device cgroups, job directories and records left, at
# the start and after each batch of jobs.  Prints figures only.
#
#   flock -o /tmp/devns-cluster.lock testsuite/bench/bench_growth.sh [BATCH [BATCHES]]
#
# As root, with the plugins installed in the Slurm that runs the cluster
# (DEVNS_SLURM_PREFIX); DEVNS_JOB_CONTAINER=job_container/tmpfs measures
# Slurm's own container the same way, for comparison.  (Re)starts the
# test cluster (node1 with DEVNS_NODE_CPUS, default here 16, CPUs), then
# BATCHES (default 1) times
# runs a held job array of BATCH (default 1000) one-CPU tasks of `true` on
# node1, released at once, and waits until it has left the queue.  Before
# the first batch and after each one it prints one line:
#
#   jobs      jobs run on node1 before this line's (the warm-up job and
#             the earlier lines' `sleep` jobs included)
#   slurmd    VmRSS (kB) and open fds of node1's slurmd
#   extern    VmRSS (kB) and open fds of the extern slurmstepd of a job
#             started then (a `sleep` job, cancelled after the look)
#   progs     cgroup-device BPF programs loaded on the machine, and maps
#   cgroups   job cgroups in devns's tree of node1 (hybrid layout)
#   dirs      job directories (and .reap-*) in node1's BasePath
#   records   setup records (devns_filter_*) in node1's spool
#
# The machine-wide program and map counts include other clusters' (none
# runs while the cluster lock is held).  The cluster is stopped at the end.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
CLUSTER=$top/testsuite/cluster/cluster.sh
batch=${1:-1000}
batches=${2:-1}
export DEVNS_NODE_CPUS=${DEVNS_NODE_CPUS:-16}

die() { echo "bench_growth: $*" >&2; "$CLUSTER" stop >/dev/null 2>&1; exit 1; }
run() { "$CLUSTER" run -- "$@"; }

[[ $(id -u) == 0 ]] || { echo "bench_growth: needs root" >&2; exit 1; }
"$CLUSTER" restart >/dev/null || die "the cluster did not start"
eval "$("$CLUSTER" env)"
base=$DEVNS_CLUSTER_BASE/node1
spool=$DEVNS_CLUSTER_ROOT/spool/node1
cg=$(awk '{ for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup2") { print $5; exit } break } }' /proc/self/mountinfo)/devns/node1

# rss_fds PID: "VmRSS fds" of a process.
rss_fds() {
	local rss
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null)
	echo "${rss:-?} $(ls "/proc/$1/fd" 2>/dev/null | wc -l)"
}

# extern_pid JOB: the pid of JOB's extern slurmstepd, the job's first
# (its title "slurmstepd: [JOB.extern]" is cut to the argv space, as
# test_faults.sh says), or nothing.
extern_pid() { pgrep -o -f "slurmstepd: \[$1\."; }

# The extern stepd of a job started now: its "VmRSS fds"; the job is
# cancelled after the look.
extern_sample() {
	local job pid out
	job=$(run sbatch --parsable -w node1 -o /dev/null --wrap 'sleep 60') || { echo "? ?"; return; }
	for _ in $(seq 100); do
		pid=$(extern_pid "$job")
		[[ -n $pid ]] && break
		sleep 0.1
	done
	sleep 0.5
	out=$( [[ -n $pid ]] && rss_fds "$pid" || echo "? ?")
	run scancel "$job"
	for _ in $(seq 100); do
		[[ -z $(run squeue -h -j "$job" 2>/dev/null) ]] && break
		sleep 0.1
	done
	echo "$out"
}

ran=0
line() {
	local pid progs maps cgs dirs recs
	pid=$(cat "$DEVNS_CLUSTER_ROOT/run/slurmd-node1.pid")
	progs=$(bpftool prog list 2>/dev/null | grep -c cgroup_device)
	maps=$(bpftool map list 2>/dev/null | grep -c '^[0-9]*:')
	cgs=$(find "$cg" -mindepth 1 -maxdepth 1 -name 'job_*' 2>/dev/null | wc -l)
	dirs=$(find "$base" -mindepth 1 -maxdepth 1 \( -name '[0-9]*' -o -name '.reap-*' \) 2>/dev/null | wc -l)
	recs=$(find "$spool" -maxdepth 1 -name 'devns_filter_*' 2>/dev/null | wc -l)
	printf '%6d  %8s %4s  %8s %4s  %5s %5s  %7s  %5s  %7s  %s\n' "$ran" \
		$(rss_fds "$pid") $(extern_sample) "$progs" "$maps" "$cgs" "$dirs" \
		"$recs" "$(cut -d' ' -f1 /proc/loadavg)"
	ran=$((ran + 1))	# extern_sample's job
}

run srun -w node1 true || die "the warm-up job failed"
ran=1
printf 'bench_growth: %s, node1 (%s CPUs), batches of %d one-task jobs; %s\n' \
	"${DEVNS_JOB_CONTAINER:-job_container/devns}" "$DEVNS_NODE_CPUS" "$batch" \
	"$(date -u '+%F %T UTC')"
printf '%6s  %8s %4s  %8s %4s  %5s %5s  %7s  %5s  %7s  %s\n' jobs \
	"slurmd" kB "extern" kB "" "" "" "" "" ""
printf '%6s  %8s %4s  %8s %4s  %5s %5s  %7s  %5s  %7s  %s\n' "" \
	VmRSS fds VmRSS fds progs maps cgroups dirs records load
line
for _ in $(seq "$batches"); do
	job=$(run sbatch --parsable -H -w node1 -a "0-$((batch - 1))" -o /dev/null --wrap true) ||
		die "sbatch failed"
	run scontrol release "$job" >/dev/null || die "release failed"
	while [[ -n $(run squeue -h -j "$job" 2>/dev/null) ]]; do sleep 1; done
	ran=$((ran + batch))
	sleep 2	# the last teardowns
	line
done
"$CLUSTER" stop >/dev/null 2>&1
