#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# soak.sh [JOBS] - a mixed load on the running test cluster, then a count
# of everything the jobs could have left behind.  TAP like the integration
# tests (one check per kind of leftover, each must be 0), plus a summary
# line "# soak: ..." with the figures.
#
# JOBS (default $DEVNS_SOAK_JOBS, else 200) jobs over node1..node3, round
# robin through this mix (a job array counts as its tasks):
#   steps     batch job with three srun steps sharing /tmp
#   array     job array of 4 tasks
#   cancel    cancelled while it runs
#   timeout   hits its one-minute time limit (one in 25)
#   requeue   requeued once while it runs (to the next node), then completes
#   orphan    leaves a background child behind
#   fill      writes 8 MiB to /tmp and 4 MiB to /dev/shm
#   gpu       --gres=gpu:1 probes the GPUs: its own ENXIO, the others EPERM
#   adopt     a pam_slurm_adopt login into a GPU job on node1 (filtered;
#             as dncarol, whose only job it is)
#   srun      a plain srun job
# Every job that should complete writes a "done" file; a job that should
# complete and did not, or a GPU probe with the wrong verdicts, is a failed
# launch.  node2 runs with NamespacePool=$DEVNS_SOAK_POOL (default 2; 0:
# none), so that its jobs take namespaces copied ahead while others are
# claimed and made; the pool is turned off again before the counts, which
# so also find whatever it would leave.
#
# DEVNS_SOAK_CONTAINED=1: every node also runs with PidNamespace=yes and
# TmpDiskLimit=64M, its BasePath on an ext4 with project quotas made for
# the soak (a kernel with quotas: the guest's), and the counts include
# PID namespace inits; the nodes' settings come back and the filesystem
# goes at the end.
source "$(dirname "$0")/../integration/lib.sh"

JOBS=${1:-${DEVNS_SOAK_JOBS:-200}}
POOL=${DEVNS_SOAK_POOL:-2}
CONTAINED=${DEVNS_SOAK_CONTAINED:-0}
# One check per kind of leftover, the launches, the adopt jobs' PAM
# pieces and the cgroup count's own; two more for the pool,
# three for the contained nodes (on, no init left, off).
plan $((11 + (POOL > 0 ? 2 : 0) + (CONTAINED == 1 ? 3 : 0)))
USERS=(dnalice dnbob)
OUT=$DEVNS_CLUSTER_ROOT/out/soak
DEV=$DEVNS_CLUSTER_ROOT/dev
PAMDIR=$DEVNS_CLUSTER_ROOT/pam
GPUS="$DEV/nvidia0 $DEV/nvidia1 $DEV/nvidia2 $DEV/nvidia3"
KINDS=(steps array cancel timeout requeue orphan fill gpu adopt srun)

declare -A expect_done=()	# tag -> 1 when the job must write its done file
declare -a cancel_ids=() requeue_ids=() held_ids=()
submitted=0 t0=$SECONDS
KEPT=()	# more kinds of leftover to count (contained: PID namespace inits)

setup() {
	rm -rf "$OUT"; mkdir -p "$OUT" && chmod 1777 "$OUT"
	write_device_probe "$OUT/probe.sh"
	local module
	for module in "$DEVNS_SLURM_PREFIX/lib/security/pam_slurm_adopt.so" \
		/lib/security/pam_slurm_adopt.so ""; do
		[ -f "$module" ] && break
	done
	ADOPT=
	if [ -n "$module" ] && [ -x "$HELPERS/pam_adopt" ]; then
		mkdir -p "$PAMDIR"
		echo "account required $module nodename=node1 action_adopt_failure=deny action_no_jobs=deny" > "$PAMDIR/sshd"
		ADOPT=1
	fi
	# Without them the adopt jobs would run as plain batch jobs: a soak
	# that tried no login must not pass for one that did.
	[ -n "$ADOPT" ]
	ok $? "precondition: pam_slurm_adopt.so (${module:-none found}) and helpers/pam_adopt (${HELPERS:-no helpers built}) for the adopt jobs"
}

sb() {	# sb USER TAG SBATCH-ARGS... -- SCRIPT
	local user=$1 tag=$2; shift 2
	local args=()
	while [ "$1" != "--" ]; do args+=("$1"); shift; done
	shift
	cl_as "$user" sbatch --parsable -o "$OUT/$tag.out" "${args[@]}" --wrap "$*" 2>>"$OUT/submit.err"
}

submit_one() {
	local i=$1 kind=${KINDS[$(( $1 % ${#KINDS[@]} ))]}
	local user=${USERS[$(( $1 % 2 ))]} node=node$(( $1 % 3 + 1 )) tag=j$1 id
	local done_="touch $OUT/$tag.done"
	case $kind in
	steps) id=$(sb "$user" "$tag" -w "$node" -n1 -- "echo s > /tmp/s; srun cat /tmp/s >/dev/null && srun true && srun ls /tmp >/dev/null && $done_")
		expect_done[$tag]=1 ;;
	array) id=$(sb "$user" "$tag" -w "$node" -n1 --array=0-3 -- "echo a > /tmp/a && touch $OUT/$tag.done.\$SLURM_ARRAY_TASK_ID")
		for t in 0 1 2 3; do expect_done[$tag.done.$t]=1; done
		submitted=$((submitted + 3)) ;;
	cancel) id=$(sb "$user" "$tag" -w "$node" -n1 -- "touch $OUT/$tag.started; sleep 120")
		cancel_ids+=("$id:$tag") ;;
	timeout) if (( i % 25 == 3 )); then
			id=$(sb "$user" "$tag" -w "$node" -n1 --time=1 -- "sleep 600")
		else
			id=$(sb "$user" "$tag" -w "$node" -n1 -- "$done_"); expect_done[$tag]=1
		fi ;;
	requeue) id=$(sb "$user" "$tag" -w "$node" -n1 --requeue -- "if [ -e $OUT/$tag.requeued ]; then $done_; else touch $OUT/$tag.started; sleep 120; fi")
		requeue_ids+=("$id:$tag:$node"); expect_done[$tag]=1 ;;
	orphan) id=$(sb "$user" "$tag" -w "$node" -n1 -- "(setsid sleep 600 >/dev/null 2>&1 &); $done_")
		expect_done[$tag]=1 ;;
	fill) id=$(sb "$user" "$tag" -w "$node" -n1 -- "dd if=/dev/zero of=/tmp/fill bs=1M count=8 2>/dev/null && dd if=/dev/zero of=/dev/shm/fill bs=1M count=4 2>/dev/null && $done_")
		expect_done[$tag]=1 ;;
	gpu) id=$(sb "$user" "$tag" -w "$node" -n1 --gres=gpu:1 -- "i=\${SLURM_JOB_GPUS}; p=\$($OUT/probe.sh $GPUS); set -- \$p; n=0; for w in \"\$@\"; do [ \$n = \$i ] && { [ \$w = ENXIO ] || exit 1; } || { [ \$w = EPERM ] || exit 1; }; n=\$((n+1)); done; $done_")
		expect_done[$tag]=1 ;;
	adopt) if [ -n "$ADOPT" ]; then
			adopt_queue+=("$tag"); expect_done[$tag]=1
			submitted=$((submitted + 1))
			adopt_step; return
		fi
		id=$(sb "$user" "$tag" -w "$node" -n1 -- "$done_"); expect_done[$tag]=1 ;;
	srun) cl_as "$user" srun -w "$node" -n1 sh -c "echo x > /tmp/x && $done_" >/dev/null 2>&1 &
		expect_done[$tag]=1 ;;
	esac
	submitted=$((submitted + 1))
	echo "$id" >> "$OUT/ids"
}

# A GPU job on node1 and a login adopted into it: the login sees the job's
# /tmp and only the job's GPU.  As dncarol, one job at a time, so that
# pam_slurm_adopt has that one job to choose: the adopt jobs wait in
# adopt_queue, and adopt_step moves the one in flight on (its login once
# it runs, then its end) while the other jobs come and go.
declare -a adopt_queue=()
adopt_id='' adopt_tag=''
adopt_step() {
	if [ -n "$adopt_id" ]; then
		if [ ! -e "$OUT/$adopt_tag.go" ] && [ -s "$OUT/$adopt_tag.gpu" ]; then
			adopt_login "$adopt_tag"
			touch "$OUT/$adopt_tag.go"
		fi
		[ -z "$(cl squeue -h -j "$adopt_id" -o %i 2>/dev/null)" ] || return 0
		adopt_id=''	# ended; without its done file if it never ran
	fi
	[ ${#adopt_queue[@]} -gt 0 ] || return 0
	adopt_tag=${adopt_queue[0]} adopt_queue=("${adopt_queue[@]:1}")
	adopt_id=$(sb dncarol "$adopt_tag" -w node1 -n1 --gres=gpu:1 -- "echo \$SLURM_JOB_GPUS > $OUT/$adopt_tag.gpu; echo in-job > /tmp/adopt; while [ ! -e $OUT/$adopt_tag.go ]; do sleep 0.2; done")
	echo "$adopt_id" >> "$OUT/ids"
}

# adopt_login TAG: the login into adopt job TAG, running; its done file
# when it saw the job's /tmp, its own GPU and none of the others.
adopt_login() {
	local tag=$1 out idx words
	out=$(timeout 30 "$CLUSTER" run -n node1 -- "$HELPERS/pam_adopt" "$PAMDIR" sshd dncarol \
		sh -c "cat /tmp/adopt; $OUT/probe.sh $GPUS" 2>/dev/null)
	idx=$(cat "$OUT/$tag.gpu"); words=($(echo "$out" | tail -1))
	if [ "$(echo "$out" | head -1)" = in-job ] && [ "${words[$idx]}" = ENXIO ] &&
		[ "$(echo "${words[@]}" | tr ' ' '\n' | grep -c EPERM)" = 3 ]; then
		touch "$OUT/$tag.done"
	fi
}

# Cancel and requeue the jobs waiting for it, once they run.
act_on_running() {
	local e id tag rest=()
	adopt_step
	for e in "${cancel_ids[@]}"; do
		id=${e%%:*} tag=${e#*:}
		if [ -e "$OUT/$tag.started" ]; then cl scancel "$id" >/dev/null 2>&1; else rest+=("$e"); fi
	done
	cancel_ids=("${rest[@]}"); rest=()
	# Requeued held, moved to the next node, released: a requeued job that
	# comes back to the node it ran on meets a Slurm 22.05 bug (slurmd keeps
	# the revoked credential's record, src/common/slurm_cred.c, and then
	# runs neither the prolog nor the extern step, so no job container can
	# join; see doc/testing.md), which is Slurm's and not what this soak
	# measures.  The requeue itself, and the new namespace on the other
	# node, are.
	for e in "${requeue_ids[@]}"; do
		IFS=: read -r id tag node <<<"$e"
		if [ -e "$OUT/$tag.started" ]; then
			touch "$OUT/$tag.requeued"
			cl scontrol requeuehold "$id" >/dev/null 2>&1
			held_ids+=("$id:node$(( ${node#node} % 3 + 1 ))")
		else
			rest+=("$e")
		fi
	done
	requeue_ids=("${rest[@]}"); rest=()
	for e in "${held_ids[@]}"; do
		id=${e%%:*}
		# held once it has left its node (requeuehold ends with COMPLETING)
		case $(cl squeue -h -j "$id" -o %T 2>/dev/null) in
		PENDING)
			cl scontrol update jobid="$id" ReqNodeList="${e#*:}" >/dev/null 2>&1
			cl scontrol release "$id" >/dev/null 2>&1 ;;
		'') ;;	# gone: counted by its missing .done
		*) rest+=("$e") ;;
		esac
	done
	held_ids=("${rest[@]}")
}

# pool_on, pool_off: node2's NamespacePool for the load, and back.
pool_on() {
	(( POOL > 0 )) || return 0
	cp "$CONF" "$OUT/namespace.conf.orig"
	echo "NodeName=node2 NamespacePool=$POOL" >>"$CONF"
	"$CLUSTER" restart-slurmd node2 >/dev/null 2>&1
	wait_node_idle node2 && wait_for 30 test -e "$BASE/node2/.pool/$POOL.ready"
	ok $? "precondition: node2 keeps $POOL namespaces copied ahead"
}
pool_off() {
	(( POOL > 0 )) || return 0
	cp "$OUT/namespace.conf.orig" "$CONF"
	"$CLUSTER" restart-slurmd node2 >/dev/null 2>&1
	wait_node_idle node2
	ok $? "node2 is back without its pool"
}

# contained_on, contained_off: every node with PidNamespace and
# TmpDiskLimit on a project-quota BasePath of its own, and back.
QFS=$DEVNS_CLUSTER_ROOT/soak-quota
QIMG=$DEVNS_CLUSTER_ROOT/soak-quota.img
restart_nodes() {
	local n rc=0
	for n in $DEVNS_CLUSTER_NODES; do
		"$CLUSTER" restart-slurmd "$n" >/dev/null 2>&1 && wait_node_idle "$n" || rc=1
	done
	return $rc
}
contained_on() {
	local n why
	(( CONTAINED == 1 )) || return 0
	cp "$CONF" "$OUT/conf.before-contained"
	why=$(quota_fs_make 1G) || { diag "no ext4 with project quotas: $why"; return 1; }
	for n in $DEVNS_CLUSTER_NODES; do
		mkdir -p "$QFS/$n" &&
			echo "NodeName=$n BasePath=$QFS/$n TmpDiskLimit=64M PidNamespace=yes" >>"$CONF"
	done
	BASE=$QFS
	restart_nodes
}
contained_off() {
	(( CONTAINED == 1 )) || return 0
	cp "$OUT/conf.before-contained" "$CONF"
	restart_nodes && quota_fs_remove
	ok $? "every node back on the harness's settings, the quota filesystem removed"
}

jobs_left() { cl squeue -h -u dnalice,dnbob,dncarol -o %i 2>/dev/null | wc -l; }

run_load() {
	local i=0
	while (( submitted < JOBS )); do
		submit_one $i
		i=$((i + 1))
		(( i % 10 == 0 )) && act_on_running
		# keep the queue short: the cluster has 6 CPUs
		while (( $(jobs_left) > 24 )); do act_on_running; sleep 0.5; done
	done
	# The srun jobs (in the background) may wait for CPUs that cancel and
	# requeue jobs hold until act_on_running sees them: no plain `wait`
	# before the queue is empty.
	for _ in $(seq 1 600); do
		act_on_running
		(( ${#cancel_ids[@]} + ${#requeue_ids[@]} + ${#held_ids[@]} + ${#adopt_queue[@]} == 0 )) &&
			[ -z "$adopt_id" ] && [ -z "$(jobs -rp)" ] &&
			(( $(jobs_left) == 0 )) && break
		sleep 1
	done
	wait
}

# ---- the counts --------------------------------------------------------

count_mounts() { grep -c " $BASE/" /proc/self/mountinfo; }
# job directories, and those waiting for NamespacePool's reaper
count_dirs() { find "$BASE" -mindepth 2 -maxdepth 2 \( -regex '.*/[0-9]+' -o -name '.reap-*' \) | wc -l; }
# The cluster's nodes' job cgroups only (a unit test killed on this
# machine may leave its own node's, not the soak's): devns's own
# devns/<node>/job_<id> (hybrid); on the unified layout, where devns makes
# none, Slurm's job cgroups under each node's stepd scope
# (<slice>/<node>_slurmstepd.scope/job_<id> or the SLUID), which a job that
# devns failed to end would keep.  A node's directory that is not there
# prints its name, which no count matches: a count where nothing was
# looked at is not 0.
count_cgroups() {
	local n d total=0
	for n in node1 node2 node3; do
		d=$(job_cgroups "$n")
		if [ ! -d "$d" ]; then
			cgroup_unified || continue	# devns's: made at a node's first job
			echo "no $d"; return
		fi
		total=$((total + $(job_cgroups_in "$n" | wc -l)))
	done
	echo $total
}
count_progs() { bpftool prog show 2>/dev/null | grep -c ' name devns '; }
count_markers() { ls "$DEVNS_CLUSTER_ROOT"/spool/node*/ 2>/dev/null | grep -c '^devns_filter_'; }
count_procs() { pgrep -u dnalice,dnbob,dncarol | wc -l; }
count_inits() { pgrep -cx devns-init || true; }
count_failed() {
	local tag n=0
	for tag in "${!expect_done[@]}"; do
		[[ $tag == *.done.* ]] && { [ -e "$OUT/$tag" ] || n=$((n + 1)); continue; }
		[ -e "$OUT/$tag.done" ] || { n=$((n + 1)); echo "$tag" >> "$OUT/failed"; }
	done
	echo $n
}

setup
bpftool prog show >/dev/null 2>&1
ok $? "precondition: bpftool answers (BPF programs can be counted)"
# The last test's job may still be on its way out: its program is freed a
# moment after its cgroup (test_devices' progs_settled).
wait_for 30 prints 0 count_cgroups && wait_for 20 prints 0 count_progs
p0=$(count_progs)
# The cgroup count looks where a job's cgroup would be left (on the
# unified layout Slurm's stepd scope, where devns makes none): a cgroup
# planted there under a name no job has is counted.
c0=$(count_cgroups) plant=$(job_cgroups node1)/job_4000099
cgroup_unified || mkdir -p "${plant%/*}"	# devns's: made at a node's first job
mkdir "$plant" && c1=$(count_cgroups) && rmdir "$plant"
is "$c0 ${c1:-none}" "0 1" "precondition: the cgroup count is 0, and 1 with a job cgroup planted in $(job_cgroups node1)"
if (( CONTAINED == 1 )); then
	contained_on
	ok $? "precondition: every node runs with PidNamespace=yes and TmpDiskLimit=64M on $QFS" ||
		{ contained_off; tap_done; exit 1; }
	KEPT=(inits)
fi
pool_on
run_load
elapsed=$((SECONDS - t0))
is "$(jobs_left)" 0 "all $submitted jobs are gone from the queue"
sleep 2	# release runs after slurmctld forgets the job
pool_off
for what in mounts dirs cgroups markers procs "${KEPT[@]}"; do
	wait_for 30 prints 0 count_$what
	is "$(count_$what)" 0 "soak: no $what left"
done
wait_for 30 prints "$p0" count_progs
is "$(count_progs)" "$p0" "soak: no BPF program left"
failed=$(count_failed)
is "$failed" 0 "soak: no failed launch ($(cat "$OUT/failed" 2>/dev/null | xargs))"
echo "# soak: $submitted jobs in ${elapsed}s; leftovers: mounts $(count_mounts) dirs $(count_dirs) cgroups $(count_cgroups) programs $(( $(count_progs) - p0 )) markers $(count_markers) processes $(count_procs)${KEPT:+ inits $(count_inits)}; failed launches $failed"
pkill -u dnalice,dnbob,dncarol 2>/dev/null
contained_off
tap_done
