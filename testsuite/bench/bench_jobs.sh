#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench_jobs.sh - what a job container costs whole jobs on the test cluster
# (testsuite/cluster): job_container/devns next to Slurm's own
# job_container/tmpfs and next to no job container, in one run; on Slurm
# 26.05 and later namespace/devns next to namespace/tmpfs and, each job with
# a PID namespace of its own on both sides, namespace/linux.  Prints
# figures only; it never judges them.
#
#   flock -o /tmp/devns-cluster.lock testsuite/bench/bench_jobs.sh [ROUNDS]
#
# As root, with the plugins installed in the Slurm that runs the cluster
# (DEVNS_SLURM_PREFIX, as for the integration tests: scripts/build.sh, or
# `make -C build-24.11 install` for /opt/slurm-24.11.5).  The cluster is
# (re)started for each container with node1..node3 configured with
# DEVNS_NODE_CPUS (64 here) CPUs each, and stopped at the end.
#
# ROUNDS (default $DEVNS_BENCH_ROUNDS, else 3) rounds; each round runs every
# container in turn (none, tmpfs, devns, then devns, tmpfs, none, ...)
# so that a slow spell of the machine falls on all of them alike, after
# an untimed round 0 (DEVNS_BENCH_WARMUP=1, the default: every container
# once, one burst and the array), since the first cluster of a run met a
# quieter machine than the later ones.  Per container and round, after
# one warm-up srun that also proves the container is there (below):
#
#   burst  BURSTS (3) times, one after the other (one burst's wall spreads by
#          up to 1.9x on the 2-core VM: one per round is too few to compare),
#          BURST (64) one-CPU batch jobs as dnalice on node1, submitted held
#          and then released by one `scontrol release`, so that all arrive
#          at the scheduler at once (64 sbatch calls take seconds).  Each
#          job only writes `date +%s.%N` when its script starts: the job
#          does nothing else, so the figures are the launch and teardown
#          path itself (where a job container works), not diluted by work.
#          Printed: wall time from the release until slurmctld lists none
#          of them as pending, running or completing (the container's
#          teardown included), and the p50 and p99 (nearest rank) of the
#          start latency, job script start - release.
#   array  a held job array of ARRAY (500) tasks of `sleep 1` on node1,
#          released; printed: the time from the release until every task is
#          gone from the queue, and throughput, tasks per second.
#
# Then the median of every burst and of the rounds' arrays per container, and
# the ratios devns/tmpfs, devns/none, devns/linux and devns+pid/linux+pid of
# those medians (each where the run has both); and, since rounds
# differ more than containers of one round, the ratio of each round alone
# (its bursts' median and its array) and the median of those round ratios.
# Exit status: 0, or 1 when the cluster failed to start,
# a job failed (did not write its start file, or stayed in the queue past
# DEVNS_BENCH_TIMEOUT seconds, default 600), node1 lacks its CPUs or a
# container is not what it claims (the warm-up srun: a job's /tmp that is
# the host's, or with +pid a job without a PID namespace and /proc of its
# own).
#
# Containers (DEVNS_BENCH_CONTAINERS) are DEVNS_JOB_CONTAINER values of
# cluster.sh, named in the figures by what follows the slash:
# job_container/none, job_container/tmpfs, job_container/devns and, from
# Slurm 25.11, namespace/linux (Slurm's own, namespace.yaml).  A "+pid"
# suffix runs that container with DEVNS_PID_NAMESPACE=yes, a PID namespace
# per job: devns's PidNamespace=yes (its SPANK plugin devns_pidns.so), or
# namespace/linux's clone_ns_flags CLONE_NEWPID; "devns+pid" and "linux+pid"
# in the figures.  devns runs with the cluster's generated settings, so its
# device filter is DevicePolicy's default, auto: the nodes' fake GPUs and
# nics make it attach a filter to every job.
#
# DEVNS_BENCH_SLURM_DEVICES=yes runs the containers other than devns with
# Slurm's own device containment (cgroup.conf ConstrainDevices=yes), as a
# site without devns keeps its GPUs apart; devns's runs keep
# ConstrainDevices=no, since devns's filter does that work.  Unset: every
# container runs with the cluster's default (no on the hybrid layout).
#
# Environment: DEVNS_BENCH_ROUNDS, DEVNS_BENCH_BURSTS (3), DEVNS_BENCH_WARMUP (1),
# DEVNS_BENCH_BURST (64),
# DEVNS_BENCH_ARRAY (500), DEVNS_NODE_CPUS (64), DEVNS_BENCH_CONTAINERS
# (default "job_container/none job_container/tmpfs job_container/devns";
# 24.11 has no job_container/none plugin: the cluster then writes no
# JobContainerType line; from 26.05 "job_container/tmpfs job_container/devns
# namespace/linux+pid job_container/devns+pid", the cluster writing
# NamespaceType=namespace/NAME), DEVNS_SLURM_PREFIX (/usr: Debian's 22.05;
# /opt/slurm-24.11.5, /opt/slurm-26.05.3), DEVNS_SLURM_CONF_EXTRA (passed to cluster.sh; on the
# loaded 2-core VM 22.05's slurmd drained node1 under the array, with no
# job container too, until MessageTimeout=30: doc/benchmarks.md), DEVNS_BENCH_LOG (a directory for the cluster logs of
# each start and slurmctld's and node1's logs of each run, default a fresh
# one under /tmp).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
CLUSTER=$top/testsuite/cluster/cluster.sh
ROUNDS=${1:-${DEVNS_BENCH_ROUNDS:-3}}
BURSTS=${DEVNS_BENCH_BURSTS:-3}
WARMUP=${DEVNS_BENCH_WARMUP:-1}
BURST=${DEVNS_BENCH_BURST:-64}
ARRAY=${DEVNS_BENCH_ARRAY:-500}
TIMEOUT=${DEVNS_BENCH_TIMEOUT:-600}
SLURM_DEVICES=${DEVNS_BENCH_SLURM_DEVICES:-}
USER_=dnalice
export DEVNS_NODE_CPUS=${DEVNS_NODE_CPUS:-64}

PROG=bench_jobs
# shellcheck source=../tap.sh
source "$top/testsuite/tap.sh"	# say, die

for v in ROUNDS BURSTS BURST ARRAY TIMEOUT DEVNS_NODE_CPUS; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v='${!v}': not a positive whole number"
done
[[ $WARMUP =~ ^[01]$ ]] || die "DEVNS_BENCH_WARMUP='$WARMUP': not 0 or 1"
[[ $SLURM_DEVICES =~ ^(yes|no|)$ ]] ||
	die "DEVNS_BENCH_SLURM_DEVICES='$SLURM_DEVICES': not yes or no"
((BURST <= DEVNS_NODE_CPUS)) ||
	say "note: BURST $BURST > $DEVNS_NODE_CPUS CPUs: jobs will queue for CPUs"
[ "$(id -u)" = 0 ] || die "must run as root (the cluster needs it)"
# The jobs' timestamps are read from the cluster root directly: on this host.
[ -z "${DEVNS_CLUSTER_VM:-}" ] || die "runs on the host's cluster only, not with DEVNS_CLUSTER_VM"

LOGDIR=${DEVNS_BENCH_LOG:-$(mktemp -d /tmp/bench_jobs.XXXXXX)}
mkdir -p "$LOGDIR"

eval "$("$CLUSTER" env)"
OUT=$DEVNS_CLUSTER_ROOT/out/bench

# at_least VERSION: is the cluster's Slurm VERSION or later?
at_least() { [ "$(printf '%s\n%s\n' "$DEVNS_SLURM_VERSION" "$1" | sort -V | head -n1)" = "$1" ]; }
if at_least 26.05; then
	CONTAINERS=${DEVNS_BENCH_CONTAINERS:-job_container/tmpfs job_container/devns namespace/linux+pid job_container/devns+pid}
else
	CONTAINERS=${DEVNS_BENCH_CONTAINERS:-job_container/none job_container/tmpfs job_container/devns}
fi
for c in $CONTAINERS; do
	[[ $c =~ ^(job_container/(none|tmpfs|devns)|namespace/linux)(\+pid)?$ ]] ||
		die "DEVNS_BENCH_CONTAINERS: '$c' is none of job_container/none, job_container/tmpfs, job_container/devns, namespace/linux (each may end in +pid)"
	case $c in job_container/none+pid | job_container/tmpfs+pid)
		die "DEVNS_BENCH_CONTAINERS: '$c': ${c%+pid} has no PID namespace to give" ;;
	esac
	# Before any round, rather than when its turn comes (lib/config.sh).
	[[ $c != namespace/linux* || -f $DEVNS_SLURM_PLUGINDIR/serializer_json.so ]] ||
		die "$c: namespace/linux needs Slurm's serializer/json to read namespace.yaml; $DEVNS_SLURM_PLUGINDIR has no serializer_json.so (Slurm built without json-c); leave it out with DEVNS_BENCH_CONTAINERS"
done

# cl CMD...: a client command in the cluster (root); cl_as USER CMD...
cl() { timeout 120 "$CLUSTER" run -- "$@"; }
cl_as() { local u=$1; shift; timeout 120 "$CLUSTER" run -u "$u" -- "$@"; }

# At the end the cluster stops (removing its root); after a failure its logs
# are kept first, with what slurmctld says of the nodes and the queue.
stop_cluster() {
	local status=$?
	if ((status != 0)) && [ -d "$DEVNS_CLUSTER_LOGDIR" ]; then
		{ cl sinfo -N -o '%N %T %E'; cl squeue -t all; cl scontrol show node node1; } \
			>"$LOGDIR/failure-state.log" 2>&1 || true
		cp -r "$DEVNS_CLUSTER_LOGDIR" "$LOGDIR/cluster-log" || true
		say "the cluster's logs are in $LOGDIR/cluster-log, its state in $LOGDIR/failure-state.log"
	fi
	"$CLUSTER" stop >>"$LOGDIR/cluster-stop.log" 2>&1 || say "cluster stop failed: see $LOGDIR/cluster-stop.log"
	return "$status"
}
trap stop_cluster EXIT

# start CONTAINER: a fresh cluster with that job container (and, for
# NAME+pid, DEVNS_PID_NAMESPACE=yes), node1 with its CPUs, and one job
# through it, probe (the first job after a start pays for loading what
# later ones find ready; all containers pay it here, untimed).
start() {
	local c=${1%+pid} pid=no log=$LOGDIR/start-${1##*/}-$2.log cpus devices=()
	[ "$c" = "$1" ] || pid=yes
	[ -z "$SLURM_DEVICES" ] || [ "${c#*/}" = devns ] ||
		devices=("DEVNS_CONSTRAIN_DEVICES=$SLURM_DEVICES")
	env "${devices[@]}" DEVNS_JOB_CONTAINER="$c" DEVNS_PID_NAMESPACE="$pid" \
		"$CLUSTER" restart >"$log" 2>&1 ||
		{ tail -20 "$log" >&2; die "the cluster did not start with $1 (log $log)"; }
	grep -qx -e "JobContainerType=$c" -e "NamespaceType=namespace/${c#*/}" \
		"$DEVNS_CLUSTER_ETC/slurm.conf" || [ "$c" = job_container/none ] ||
		die "slurm.conf has neither JobContainerType=$c nor NamespaceType=namespace/${c#*/}"
	((${#devices[@]} == 0)) ||
		grep -qx "ConstrainDevices=$SLURM_DEVICES" "$DEVNS_CLUSTER_ETC/cgroup.conf" ||
		die "cgroup.conf has no ConstrainDevices=$SLURM_DEVICES"
	cpus=$(cl scontrol -o show node node1 | grep -o 'CPUTot=[0-9]*' | cut -d= -f2)
	[ "$cpus" = "$DEVNS_NODE_CPUS" ] || die "node1 has ${cpus:-no} CPUs, not $DEVNS_NODE_CPUS"
	probe "$1" "$c" "$pid" "$2"
	rm -rf "$OUT"; mkdir -p "$OUT"; chmod 1777 "$OUT"
}

# probe SPEC CONTAINER PID ROUND: the warm-up srun on node1, which shows
# that the figures are of what they are named after.  With a container the
# job's /tmp is its own: the file it makes there is not in the host's
# /tmp (node1's slurmd runs in the host's mount namespace).  With PID yes
# the job has a PID namespace other than the host's (this script's own, in
# which cluster.sh starts the daemons; /proc/1's may be unreadable even to
# root, as in a sandbox), and a /proc of that
# namespace: its shell's PID there ($$) is the one /proc/self names (the
# host's /proc would name its host PID).  Without PID, the host's PID
# namespace, so that the pair compared differs in the container alone.
# The job's view (its PID namespace, $$, /proc/self, the processes ps
# lists) goes to the start's log.
probe() {
	local spec=$1 c=$2 pid=$3 log=$LOGDIR/start-${1##*/}-$4.log out f ns self pids nps host
	host=$(readlink "/proc/$$/ns/pid") || die "cannot read this script's PID namespace"
	# shellcheck disable=SC2016 # for the job's shell
	out=$(cl_as "$USER_" srun -w node1 -n1 bash -c '
		f=/tmp/devns-bench-probe.$SLURM_JOB_ID
		touch "$f" || exit 1
		read -r self _ </proc/self/stat
		echo "$f $(readlink /proc/self/ns/pid) $$ $self $(ps -e --no-headers | wc -l)"') ||
		die "the warm-up srun failed with $spec"
	read -r f ns pids self nps <<<"$out"
	printf 'probe: %s\n' "$out" >>"$log"
	[[ $f == /tmp/devns-bench-probe.* && -n $nps ]] ||
		die "$spec: the warm-up srun printed '$out'"
	if [ -e "$f" ]; then
		rm -f -- "$f"
		[ "$c" = job_container/none ] ||
			die "$spec: the job's $f is in the host's /tmp: no private /tmp"
	fi
	if [ "$pid" = yes ]; then
		[ "$ns" != "$host" ] ||
			die "$spec: the job runs in the host's PID namespace ($ns)"
		[ "$self" = "$pids" ] ||
			die "$spec: the job's /proc is not its PID namespace's (\$\$ $pids, /proc/self $self)"
	else
		[ "$ns" = "$host" ] ||
			die "$spec: the job has a PID namespace ($ns) that the spec does not ask for"
	fi
	say "$spec: the warm-up job's PID namespace $ns, its shell PID $pids there, $nps processes in its ps"
}

# release_and_wait IDS POLL: release the held jobs IDS (comma separated),
# wait until none of the bench user's jobs is pending, configuring,
# running or completing; prints the release time and the end time
# (date +%s.%N, inside the cluster's client namespace, one process for the
# whole wait).  A squeue that fails tells nothing: it is asked again.
# Fails after TIMEOUT seconds.
release_and_wait() {
	# shellcheck disable=SC2016 # for the inner bash
	timeout $((TIMEOUT + 60)) "$CLUSTER" run -- bash -c '
		ids=$1 poll=$2 timeout=$3 user=$4 left=
		date +%s.%N
		scontrol release "$ids" || exit 2
		end=$((SECONDS + timeout))
		while :; do
			if left=$(squeue -h -u "$user" -t PD,CF,R,CG,S -o %i 2>/dev/null) &&
				[ -z "$left" ]; then
				break
			fi
			[ $SECONDS -lt $end ] || exit 3
			sleep "$poll"
		done
		date +%s.%N' bash "$1" "$2" "$TIMEOUT" "$USER_"
}

# quantile Q: the nearest-rank Q-quantile (0 < Q <= 1) of the numbers on stdin.
quantile() {
	sort -g | awk -v q="$1" '{ v[NR] = $1 }
		END { r = int(q * NR); if (r < q * NR) r++; if (r < 1) r = 1; printf "%.3f", v[r] }'
}

# median: of the numbers on stdin; of an even count, the mean of the middle two.
median() {
	sort -g | awk '{ v[NR] = $1 }
		END { if (NR % 2) m = v[(NR + 1) / 2]; else m = (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.4f", m }'
}

# col FILE FIELD NAME [ROUND]: field FIELD of NAME's lines (of ROUND only).
col() { awk -v f="$2" -v n="$3" -v r="${4:-}" '$1 == n && (r == "" || $2 == r) { print $f }' "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.4f", a / b; else printf "n/a" }'; }

# burst NAME ROUND: the burst; appends "NAME ROUND wall p50 p99" to
# $RESULTS.burst (a line per burst: a round has BURSTS of them).
burst() {
	local name=$1 round=$2 ids times t0 t1 n lat
	# shellcheck disable=SC2016 # $SLURM_JOB_ID is the job's
	ids=$(cl_as "$USER_" bash -c '
		for i in $(seq "$1"); do
			sbatch --parsable --hold -w node1 -n1 -o "$2/burst-%j.out" \
				--wrap "date +%s.%N > $2/burst-\$SLURM_JOB_ID.start" || exit 1
		done' bash "$BURST" "$OUT" | paste -sd,) ||
		die "$name: submitting the burst failed"
	[ "$(tr ',' '\n' <<<"$ids" | grep -c '^[0-9]*$')" = "$BURST" ] ||
		die "$name: submitting the burst gave '$ids'"
	times=$(release_and_wait "$ids" 0.1) || {
		cl squeue -j "$ids" -o '%i %T %r' >&2 || true
		die "$name: the burst did not end (waited up to ${TIMEOUT}s)"
	}
	t0=$(sed -n 1p <<<"$times") t1=$(sed -n 2p <<<"$times")
	n=$(find "$OUT" -name 'burst-*.start' | wc -l)
	[ "$n" = "$BURST" ] || die "$name: only $n of $BURST burst jobs started (see $OUT)"
	lat=$(cat "$OUT"/burst-*.start | awk -v t0="$t0" '{ printf "%.6f\n", $1 - t0 }')
	printf '%s %s %.3f %s %s\n' "$name" "$round" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
		"$(quantile 0.5 <<<"$lat")" "$(quantile 0.99 <<<"$lat")" >>"$RESULTS.burst"
	rm -f "$OUT"/burst-*
}

# array NAME ROUND: the job array; appends "NAME ROUND seconds tasks/s".
array() {
	local name=$1 round=$2 id times t0 t1 n secs
	# shellcheck disable=SC2016 # for the job
	id=$(cl_as "$USER_" sbatch --parsable --hold -w node1 -n1 --array=0-$((ARRAY - 1)) \
		-o /dev/null --wrap "sleep 1; touch $OUT/array.\$SLURM_ARRAY_TASK_ID") ||
		die "$name: submitting the array failed"
	[[ $id =~ ^[0-9]+$ ]] || die "$name: submitting the array gave '$id'"
	times=$(release_and_wait "$id" 0.25) || {
		cl squeue -j "$id" -o '%i %T %r' >&2 || true
		die "$name: the array did not end (waited up to ${TIMEOUT}s)"
	}
	t0=$(sed -n 1p <<<"$times") t1=$(sed -n 2p <<<"$times")
	n=$(find "$OUT" -name 'array.*' | wc -l)
	[ "$n" = "$ARRAY" ] || die "$name: only $n of $ARRAY array tasks ran"
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
	printf '%s %s %s %.3f\n' "$name" "$round" "$secs" \
		"$(awk -v s="$secs" -v n="$ARRAY" 'BEGIN { print n / s }')" >>"$RESULTS.array"
	rm -f "$OUT"/array.*
}

# keep_logs NAME ROUND: slurmctld's and node1's logs of this run (debug
# level, millisecond stamps: where a job's time went), compressed, before
# the next start removes them.  Untimed.
keep_logs() {
	local f
	for f in slurmctld slurmd-node1; do
		gzip -c "$DEVNS_CLUSTER_LOGDIR/$f.log" >"$LOGDIR/$f-$1-$2.log.gz" || true
	done
}

RESULTS=$LOGDIR/results
: >"$RESULTS.burst"; : >"$RESULTS.array"
# Which devns plugin ran: the one in PluginDir (the figures are of whatever
# build was installed last); namespace_devns.so where the cluster writes
# NamespaceType.
so=$DEVNS_SLURM_PLUGINDIR/job_container_devns.so
! at_least 26.05 || so=$DEVNS_SLURM_PLUGINDIR/namespace_devns.so
plugin="$so, sha256 $(sha256sum "$so" 2>/dev/null | cut -c1-12), $(date -ur "$so" '+%F %T UTC' 2>/dev/null)"
say "Slurm $DEVNS_SLURM_VERSION ($DEVNS_SLURM_PREFIX), devns plugin $plugin"
say "Slurm $DEVNS_SLURM_VERSION ($DEVNS_SLURM_PREFIX), node1 with $DEVNS_NODE_CPUS CPUs on $(nproc) cores, $ROUNDS rounds of: $CONTAINERS; ConstrainDevices of those other than devns: ${SLURM_DEVICES:-the default}; logs in $LOGDIR"
# Even rounds run the containers in reverse order (none tmpfs devns, devns
# tmpfs none, ...): a machine that grows slower or faster over the run
# then does not favour the one that always comes first.
reversed=$(tr ' ' '\n' <<<"$CONTAINERS" | grep . | tac | paste -sd' ')

# Round 0, untimed: every container once, one burst and the array.  The
# first cluster of a run met a quieter machine than the later ones: in 4 of
# the 5 runs of 2026-11-24 that began with tmpfs, its bursts of round 1 took
# 15 to 30 % less time than those of its later rounds, and the ratio of
# round 1 was devns's worst in 5 of 6 runs.  Here the journal-less ext4
# under the cluster skips every inode freed in the last minutes when it
# allocates one, so a run's churn of job directories slows the later jobs.
warm_up() {
	local RESULTS=$LOGDIR/warmup c
	: >"$RESULTS.burst"; : >"$RESULTS.array"
	for c in $CONTAINERS; do
		start "$c" 0
		burst "${c##*/}" 0
		array "${c##*/}" 0
	done
	say "round 0 (warm-up, not counted): done"
}
((WARMUP == 0)) || warm_up

for round in $(seq "$ROUNDS"); do
	order=$CONTAINERS
	((round % 2)) || order=$reversed
	for c in $order; do
		name=${c##*/}
		start "$c" "$round"
		for _ in $(seq "$BURSTS"); do
			burst "$name" "$round"
		done
		array "$name" "$round"
		keep_logs "$name" "$round"
		say "round $round $name: burst wall $(col "$RESULTS.burst" 3 "$name" "$round" | paste -sd' ') s; array $(tail -n1 "$RESULTS.array" | cut -d' ' -f3) s"
	done
done

# ---- the figures -----------------------------------------------------------
names=$(for c in $CONTAINERS; do echo "${c##*/}"; done)

echo "# bench_jobs: Slurm $DEVNS_SLURM_VERSION, node1 configured with $DEVNS_NODE_CPUS CPUs on a $(nproc)-core machine, $ROUNDS rounds of $BURSTS bursts and an array"
echo "# ConstrainDevices of the containers other than devns: ${SLURM_DEVICES:-the cluster default}"
echo "# devns plugin: $plugin"
echo "# burst: $BURST one-CPU jobs released at once; wall = release until the last has left the queue; start latency = job script start - release (nearest-rank p50, p99)"
echo "# array: $ARRAY tasks of sleep 1; time = release until the last has left the queue"
printf '%-9s %5s %9s %9s %9s\n' container round wall_s p50_s p99_s
while read -r n r w p50 p99; do
	printf '%-9s %5s %9s %9s %9s\n' "$n" "$r" "$w" "$p50" "$p99"
done <"$RESULTS.burst"
printf '%-9s %5s %9s %9s\n' container round array_s tasks/s
while read -r n r as tp; do
	printf '%-9s %5s %9s %9s\n' "$n" "$r" "$as" "$tp"
done <"$RESULTS.array"

echo "# medians: of all the bursts of a container, of its rounds' arrays"
printf '%-9s %9s %9s %9s %9s %9s\n' container wall_s p50_s p99_s array_s tasks/s
declare -A med=()
for n in $names; do
	med[$n.wall]=$(col "$RESULTS.burst" 3 "$n" | median)
	med[$n.p50]=$(col "$RESULTS.burst" 4 "$n" | median)
	med[$n.p99]=$(col "$RESULTS.burst" 5 "$n" | median)
	med[$n.array]=$(col "$RESULTS.array" 3 "$n" | median)
	med[$n.tput]=$(col "$RESULTS.array" 4 "$n" | median)
	printf '%-9s %9s %9s %9s %9s %9s\n' "$n" "${med[$n.wall]}" "${med[$n.p50]}" \
		"${med[$n.p99]}" "${med[$n.array]}" "${med[$n.tput]}"
done
# The pairs compared, each where the run has both: devns against Slurm's
# tmpfs, no container and namespace/linux, and with a PID namespace per job
# on both sides against namespace/linux's.
for pair in devns/tmpfs devns/none devns/linux devns+pid/linux+pid; do
	a=${pair%/*} b=${pair#*/}
	if [ -z "${med[$a.wall]:-}" ] || [ -z "${med[$b.wall]:-}" ]; then continue; fi
	echo "$a/$b (medians): burst wall $(ratio "${med[$a.wall]}" "${med[$b.wall]}")," \
		"start p50 $(ratio "${med[$a.p50]}" "${med[$b.p50]}")," \
		"start p99 $(ratio "${med[$a.p99]}" "${med[$b.p99]}");" \
		"array time $(ratio "${med[$a.array]}" "${med[$b.array]}")," \
		"array throughput $(ratio "${med[$a.tput]}" "${med[$b.tput]}")"
	# Each round's own ratio (its bursts' median wall, its array), and
	# their median: a slow spell falls on one round's containers alike.
	walls='' arrays=''
	for r in $(seq "$ROUNDS"); do
		walls+="$(ratio "$(col "$RESULTS.burst" 3 "$a" "$r" | median)" \
			"$(col "$RESULTS.burst" 3 "$b" "$r" | median)") "
		arrays+="$(ratio "$(col "$RESULTS.array" 3 "$a" "$r")" "$(col "$RESULTS.array" 3 "$b" "$r")") "
	done
	echo "$a/$b (each round): burst wall ${walls% };" \
		"median $(tr ' ' '\n' <<<"$walls" | grep . | median);" \
		"array time ${arrays% }; median $(tr ' ' '\n' <<<"$arrays" | grep . | median)"
done
