#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_cgroupv2.sh - job_container/devns under Slurm's own cgroup/v2, as on
# a real node: the pure cgroup-v2 QEMU guest (DEVNS_CLUSTER_VM=1,
# testsuite/vm) with CgroupPlugin=cgroup/v2, proctrack/cgroup, task/cgroup
# and ConstrainRAMSpace, ConstrainCores, and ConstrainDevices=no (devns's
# filter alone) and then =yes (the two composed).  Elsewhere
# (the hybrid development host, cgroup/v1) it skips as a whole.
#
#   - a step's /proc/self/cgroup is Slurm's job_N/step_M/user/task_K, never
#     a cgroup of devns, and devns's filter is in effect for the task
#   - a job over its --mem is OOM-killed exactly as with job_container/none
#     (srun's status and messages, the job's state, exit code and output)
#   - scancel leaves no process of the job's user on the node
#   - a --gres=gpu:1 job opens its GPU (ENXIO: no driver behind the fake
#     device) and gets EPERM on the others, with ConstrainDevices=yes and
#     with ConstrainDevices=no (then devns alone decides)
#   - a login adopted by pam_slurm_adopt is filtered the same way
#   - after the jobs: no devns cgroup, no job cgroup, no BPF program named
#     devns, no filter marker, no namespace directory
#   - from 25.11.3 slurmd moves itself into a "slurmd" sub-cgroup of its
#     service, and the filter holds with it there
#   - with cgroup.conf's CgroupSlice (25.11+) Slurm puts the stepd scopes
#     into that slice instead of system.slice: the filter, the adopted
#     login and the cleanup hold there too
#
# The cluster is restarted for ConstrainDevices=no, CgroupSlice and
# job_container/none, and once more at the end with the settings it was
# started with.
source "$(dirname "$0")/lib.sh"
plan 49

USER1=dnalice
DEV=$DEVNS_CLUSTER_ROOT/dev
SPOOL=$DEVNS_CLUSTER_ROOT/spool
PAMDIR=$DEVNS_CLUSTER_ROOT/pam
PROBE=$OUT/probe.sh
GPUS="$DEV/nvidia0 $DEV/nvidia1 $DEV/nvidia2 $DEV/nvidia3"
GPU_IDX='${SLURM_STEP_GPUS:-$SLURM_JOB_GPUS}'
# Writes 300 MiB, far over the --mem of the OOM jobs.
HOG="python3 -c \"x = b'a' * (300 << 20); print('survived')\""

conf_value() { sed -n "s/^$2=//p" "$DEVNS_CLUSTER_ETC/$1" | tail -n 1; }

setup() {
	local plugin
	plugin=$(conf_value cgroup.conf CgroupPlugin)
	if [ "$plugin" != cgroup/v2 ]; then
		echo "1..0 # SKIP the cluster runs ${plugin:-no cgroup plugin}, not Slurm's cgroup/v2: this test is for the pure cgroup-v2 guest (DEVNS_CLUSTER_VM=1)"
		exit 0
	fi
	if [ "$(conf_value slurm.conf JobContainerType)" != job_container/devns ] &&
		[ "$(conf_value slurm.conf NamespaceType)" != namespace/devns ]; then
		echo "1..0 # SKIP the cluster does not run job_container/devns"
		exit 0
	fi
	prepare
}

# The cluster root is made anew by every restart.
prepare() {
	mkdir -p "$OUT" && chmod 1777 "$OUT"
	write_device_probe "$PROBE"
}

# restart_cluster NAME=VALUE...: restart with these settings on top of the
# caller's; fails (and says why) when the cluster does not come up.
restart_cluster() { restart_with "$@" && prepare; }

# with_settings NAME=VALUE...: a restart this file needs, counted as a check.
with_settings() {
	restart_cluster "$@"
	ok $? "precondition: the cluster restarts with $*"
}

# scope NODE: NODE's stepd scope, in cgroup.conf's CgroupSlice (lib.sh).
scope() { job_cgroups "$1"; }

# ---- where a job's processes are -------------------------------------

test_step_cgroup() {
	local out j cg name
	out=$(cl_as $USER1 srun -w node1 -n1 sh -c 'echo $SLURM_JOB_ID; cat /proc/self/cgroup')
	j=$(echo "$out" | sed -n 1p)
	like "$(echo "$out" | sed -n 2p)" "^0::/$(cgroup_slice)/node1_slurmstepd.scope/$(job_cg_re "$j")/step_0/user/task_0\$" \
		"an srun step's /proc/self/cgroup is Slurm's $(job_cg_re "$j")/step_0/user/task_0"

	rm -f "$OUT/cg-batch"
	j=$(cl_as $USER1 sbatch --parsable -w node1 -n1 --gres=gpu:1 -o /dev/null --wrap \
		"cat /proc/self/cgroup > $OUT/cg-batch.tmp; mv $OUT/cg-batch.tmp $OUT/cg-batch; sleep 120")
	wait_for 60 test -s "$OUT/cg-batch"
	cg=$(cat "$OUT/cg-batch" 2>/dev/null)
	name=$(job_cg "$j")
	is "$cg" "0::/$(cgroup_slice)/node1_slurmstepd.scope/$name/step_batch/user/task_0" \
		"a batch script's /proc/self/cgroup is Slurm's $name/step_batch/user/task_0 (named after job $j's SLUID from 26.05)"
	# devns's own cgroups (hybrid) are named devns; a slice may merely
	# contain the word
	! echo "$cg" | grep -Eq '(^|/)devns(/|$)'
	ok $? "and no cgroup of devns"
	# bpftool names the programs that run for the task's cgroup: Slurm's
	# and, attached above it with BPF_F_ALLOW_MULTI, devns's.
	like "$(bpftool cgroup show "/sys/fs/cgroup${cg#0::}" effective 2>&1 | awk 'NR > 1 {print $NF}' | sort -u | tr '\n' ' ')" \
		'(^| )devns( |$)' "devns's filter is in effect for the batch script's cgroup"
	cl scancel "$j"
	wait_job_gone "$j"
}

# ---- memory -----------------------------------------------------------

JOBCOMP=$DEVNS_CLUSTER_ROOT/log/jobcomp.log

# jobcomp_lines: how many lines the job completion log has now.
jobcomp_lines() { cat "$JOBCOMP" 2>/dev/null | wc -l; }

# final_state JOBID SKIP: "STATE EXIT" of the job once it has ended, from the
# line slurmctld's jobcomp/filetxt writes at its end, after the log's first
# SKIP lines (taken before the job was submitted: a restarted cluster may
# reuse the id).  The job record itself is gone MinJobAge=2 s after the
# end, which a slow guest could miss.
final_state() {
	local line deadline=$((SECONDS + 120))
	while [ $SECONDS -lt $deadline ]; do
		line=$(tail -n +"$(($2 + 1))" "$JOBCOMP" 2>/dev/null | grep -m1 "^JobId=$1 ")
		if [ -n "$line" ]; then
			echo "$(echo "$line" | grep -o ' JobState=[^ ]*' | cut -d= -f2) $(echo "$line" | grep -o ' ExitCode=[^ ]*' | cut -d= -f2)"
			return 0
		fi
		sleep 0.5
	done
	echo "no-final-state"
	return 1
}

# Job numbers differ between runs: "StepId=17.0" and "job 17" lose theirs.
# (26.05 puts a timestamp before the stepd's messages in the job's output.)
normalise() {
	sed -E 's/StepId=[0-9]+/StepId=J/g; s/job [0-9]+/job J/g; s/slurm-[0-9]+/slurm-J/g
		s/^\[[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+\] //'
}

# oom_run TAG: one srun and one sbatch job over their --mem on node3;
# leaves $OUT/oom-TAG.{srun,batch} with what the user sees of each.
oom_run() {
	local tag=$1 rc j n0
	cl_as $USER1 srun -w node3 -n1 --mem=64M sh -c "$HOG" > "$OUT/oom-$tag.srun.out" 2> "$OUT/oom-$tag.srun.err"
	rc=$?
	{
		echo "srun status $rc"
		echo "stdout: $(cat "$OUT/oom-$tag.srun.out")"
		# srun's and slurmstepd's messages come in either order
		normalise < "$OUT/oom-$tag.srun.err" | sort
	} > "$OUT/oom-$tag.srun"
	n0=$(jobcomp_lines)
	j=$(cl_as $USER1 sbatch --parsable -w node3 -n1 --mem=64M -o "$OUT/oom-$tag-%j.batch.out" --wrap "$HOG")
	{
		echo "final $(final_state "$j" "$n0")"
		wait_job_gone "$j" >/dev/null
		normalise < "$OUT/oom-$tag-$j.batch.out" | sort
	} > "$OUT/oom-$tag.batch"
	diag "$tag: $(tr '\n' '|' < "$OUT/oom-$tag.srun") $(tr '\n' '|' < "$OUT/oom-$tag.batch")"
	cp "$OUT/oom-$tag.srun" "$OUT/oom-$tag.batch" "$DEVNS_CLUSTER_ROOT.oom/" 2>/dev/null
}

test_oom_devns() {
	rm -rf "$DEVNS_CLUSTER_ROOT.oom" && mkdir -p "$DEVNS_CLUSTER_ROOT.oom"
	is "$(cl_as $USER1 srun -w node3 -n1 --mem=200M python3 -c "x = b'a' * (50 << 20); print('survived')" 2>&1)" \
		"survived" "a job within its --mem runs (devns)"
	oom_run devns
	like "$(cat "$DEVNS_CLUSTER_ROOT.oom/oom-devns.srun")" "Out Of Memory" \
		"an srun step over its --mem is OOM-killed (devns)"
	like "$(head -1 "$DEVNS_CLUSTER_ROOT.oom/oom-devns.batch")" "^final OUT_OF_MEMORY " \
		"a batch job over its --mem ends OUT_OF_MEMORY (devns)"
}

test_oom_none() {
	oom_run none
	is "$(cat "$DEVNS_CLUSTER_ROOT.oom/oom-devns.srun")" "$(cat "$DEVNS_CLUSTER_ROOT.oom/oom-none.srun")" \
		"srun over its --mem: the same status and messages with devns as with job_container/none"
	is "$(cat "$DEVNS_CLUSTER_ROOT.oom/oom-devns.batch")" "$(cat "$DEVNS_CLUSTER_ROOT.oom/oom-none.batch")" \
		"sbatch over its --mem: the same state, exit code and output with devns as with job_container/none"
}

# ---- processes ---------------------------------------------------------

user_procs() { pgrep -u "$USER1" -a; }

test_scancel() {
	local j name
	rm -f "$OUT/cancel-ready"
	# children, a grandchild in its own session, a double-forked orphan
	j=$(cl_as $USER1 sbatch --parsable -w node2 -n1 -o /dev/null --wrap \
		"sleep 300 & setsid sleep 301 & (sleep 302 &); srun sleep 303 & sleep 1; touch $OUT/cancel-ready; wait")
	wait_for 60 test -e "$OUT/cancel-ready"
	name=$(job_cg "$j")
	[ -n "$(user_procs)" ] && [ "$(job_state "$j")" = RUNNING ] && [ -d "$(scope node2)/$name" ]
	ok $? "precondition: job $j runs its process tree on node2 in Slurm's cgroup $name"
	cl scancel "$j"
	wait_job_gone "$j"
	wait_for 30 prints_nothing user_procs
	ok $? "after scancel no process of $USER1 is left" || diag "left: $(user_procs | tr '\n' ';')"
	wait_for 30 test ! -e "$(scope node2)/$name"
	ok $? "and Slurm's $name cgroup is gone"
	[ -d "$BASE/node2" ] && [ ! -e "$BASE/node2/$j" ]
	ok $? "and so is the job's namespace directory"
}

# ---- devices -----------------------------------------------------------


# gpu_checks WHAT: a --gres=gpu:1 job opens its GPU only, a job without
# GPUs none, an adopted login its job's GPU only.
gpu_checks() {
	local what=$1 out idx gpus
	out=$(cl_as $USER1 srun -w node1 -n1 --gres=gpu:1 sh -c "echo $GPU_IDX; $PROBE $GPUS" 2>&1)
	idx=$(echo "$out" | sed -n 1p); gpus=$(echo "$out" | sed -n 2p)
	diag "$what: gpu:1 step holds GPU '$idx': $gpus"
	like "$idx" '^[0-3]$' "$what: Slurm gave the --gres=gpu:1 step a GPU" ||
		diag "srun said: $(echo "$out" | tr '\n' ' ')"
	is "$(word "$gpus" "$idx") $(echo "$gpus" | tr ' ' '\n' | grep -c EPERM)" "ENXIO 3" \
		"$what: a --gres=gpu:1 step opens its own GPU (ENXIO), gets EPERM on the 3 others"
	is "$(cl_as $USER1 srun -w node1 -n1 $PROBE $GPUS 2>&1)" "EPERM EPERM EPERM EPERM" \
		"$what: a step without GPUs gets EPERM on all four"
	test_adopted "$what"
}

pam_module() {
	local f
	for f in "$DEVNS_SLURM_PREFIX/lib/security/pam_slurm_adopt.so" \
		/lib/security/pam_slurm_adopt.so /lib/x86_64-linux-gnu/security/pam_slurm_adopt.so; do
		[ -f "$f" ] && { echo "$f"; return; }
	done
}

# An ssh login adopted into a GPU job by pam_slurm_adopt (helpers/pam_adopt
# runs the account stack of a private PAM directory, as sshd would, inside
# node1's namespaces; see test_adopt.sh).
test_adopted() {
	local what=$1 module j gpu out want i
	module=$(pam_module)
	if [ -z "$module" ] || [ ! -x "${HELPERS:-}/pam_adopt" ]; then
		skip "$what: adopted login: no pam_slurm_adopt.so or helpers/pam_adopt"
		return
	fi
	mkdir -p "$PAMDIR"
	echo "account required $module nodename=node1 action_adopt_failure=deny action_no_jobs=deny" \
		> "$PAMDIR/sshd"
	rm -f "$OUT/adopt-ready"
	j=$(cl_as $USER1 sbatch --parsable -w node1 -n1 --gres=gpu:1 -o /dev/null --wrap \
		"echo from-the-job > /tmp/adopt-marker; echo \$SLURM_JOB_GPUS > $OUT/adopt-ready; sleep 300")
	wait_for 60 test -s "$OUT/adopt-ready"
	gpu=$(cat "$OUT/adopt-ready" 2>/dev/null)
	out=$(on_node node1 "$HELPERS/pam_adopt" "$PAMDIR" sshd "$USER1" sh -c \
		"cat /tmp/adopt-marker; grep '^0::' /proc/self/cgroup; $PROBE $GPUS" 2>&1)
	is "$(echo "$out" | sed -n 1p)" "from-the-job" "$what: an adopted login is in the job's namespace"
	like "$(echo "$out" | sed -n 2p)" "^0::/$(cgroup_slice)/node1_slurmstepd.scope/$(job_cg "$j")/step_extern/" \
		"$what: and in Slurm's extern step cgroup of the job"
	want=""
	for i in 0 1 2 3; do
		if [ "$i" = "$gpu" ]; then want="$want${want:+ }ENXIO"; else want="$want${want:+ }EPERM"; fi
	done
	is "$(echo "$out" | sed -n 3p)" "$want" \
		"$what: it opens the job's GPU '$gpu' (ENXIO) and no other (EPERM)"
	sleep 2	# let the extern stepd see the login go first (see test_adopt.sh)
	cl scancel "$j"
	wait_job_gone "$j"
}

# ---- where slurmd and the slice are ----------------------------------

# 25.11.3 and later move slurmd into a "slurmd" sub-cgroup of the cgroup it
# started in (its systemd service here): devns must not take that for the
# node's root.  The filter checks that follow run with slurmd there.
test_slurmd_cgroup() {
	local pid cg
	if ! slurm_at_least 25.11.3; then
		skip "slurmd's own sub-cgroup: Slurm $DEVNS_SLURM_VERSION is older than 25.11.3"
		return
	fi
	pid=$(cat "$DEVNS_CLUSTER_ROOT/run/slurmd-node1.pid" 2>/dev/null)
	cg=$(sed -n 's/^0:://p' "/proc/${pid:-0}/cgroup" 2>/dev/null)
	like "$cg" '/slurmd$' "slurmd (25.11.3+) runs in its own \"slurmd\" sub-cgroup ($cg)"
}

# with_slice SLICE: the checks of this file with cgroup.conf's CgroupSlice
# (25.11+): the steps' cgroups under SLICE, the filter and the adopted login
# as before, nothing left behind.
with_slice() {
	if ! slurm_at_least 25.11; then
		skip_checks 14 "CgroupSlice: Slurm $DEVNS_SLURM_VERSION has no such key (25.11+)"
		return
	fi
	with_settings DEVNS_CONSTRAIN_DEVICES=yes "DEVNS_CGROUP_CONF_EXTRA=CgroupSlice=$1" || return
	test_step_cgroup
	gpu_checks "CgroupSlice=$1"
	test_no_leftovers "CgroupSlice=$1"
}

# ---- what is left ------------------------------------------------------

# leftovers: one line per thing of devns or of a job still there.
leftovers() {
	local n
	find /sys/fs/cgroup -type d -name devns 2>/dev/null | sed 's/^/devns cgroup: /'
	for n in $DEVNS_CLUSTER_NODES; do
		[ ! -d "$(scope "$n")" ] || job_cgroups_in "$n" | sed 's/^/job cgroup: /'
		ls "$SPOOL/$n" 2>/dev/null | grep '^devns_filter_' | sed "s|^|marker: $SPOOL/$n/|"
		ls "$BASE/$n" 2>/dev/null | sed "s|^|namespace directory: $BASE/$n/|"
	done
	bpftool prog show 2>/dev/null | grep -w 'name devns' | sed 's/^/BPF program: /'
}

test_no_leftovers() {
	local what=$1
	# Every job of this file has ended; the kernel frees a removed
	# cgroup's programs a moment after the rmdir.
	wait_for 30 prints_nothing cl squeue -h
	ok $? "$what: no job left in the queue"
	bpftool prog show > /dev/null 2>&1
	ok $? "$what: precondition: bpftool lists the kernel's programs" || return
	wait_for 20 prints_nothing leftovers
	ok $? "$what: no devns cgroup, job cgroup, BPF program named devns, filter marker or namespace directory left" ||
		diag "$(leftovers | tr '\n' ';')"
}

setup
diag "cgroup.conf: $(grep -v '^#' "$DEVNS_CLUSTER_ETC/cgroup.conf" | tr '\n' ' ')"
# devns alone first (the harness's default), then composed with Slurm's
# own device constraint.
if [ "$(conf_value cgroup.conf ConstrainDevices)" != no ]; then
	with_settings DEVNS_CONSTRAIN_DEVICES=no
fi
gpu_checks "ConstrainDevices=no"
test_oom_devns
test_no_leftovers "ConstrainDevices=no"

with_settings DEVNS_CONSTRAIN_DEVICES=yes
test_slurmd_cgroup
test_step_cgroup
test_scancel
gpu_checks "ConstrainDevices=yes"
test_no_leftovers "ConstrainDevices=yes"

with_slice hpcjobs.slice

with_settings DEVNS_CONSTRAIN_DEVICES=no DEVNS_JOB_CONTAINER=job_container/none
test_oom_none

restart_cluster
ok $? "the cluster restarts with the settings it was started with"
rm -rf "$DEVNS_CLUSTER_ROOT.oom"
tap_done
