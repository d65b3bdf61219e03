#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_faults.sh - crashes and full disks on the real cluster: nothing of a
# job is ever left behind (mounts, directories, device cgroups, filter
# markers, BPF programs, processes), and a live job keeps its /tmp and its
# filter across a slurmd crash.
#
# On the unified layout (pure cgroup v2) the job cgroups are Slurm's
# (cgroup/v2): a SIGKILLed slurmstepd never runs its step_destroy, which
# is what removes them, and nothing of Slurm's removes them later (26.05.3:
# no slurmd start-up sweep), so a killed stepd's job keeps its cgroup
# directories.  What devns answers for there is its part of them: no filter
# of devns's left attached in them and no process left in them; the
# directories are Slurm's and are only noted (diag).
#
#   kill -9 slurmd while jobs run, restart it
#   kill -9 a job's extern slurmstepd
#   kill -9 the extern slurmstepd between unshare and pin
#     (helpers/kill_fault.so, preloaded into node2's slurmd)
#   a node "reboot": stale job directories and pins under BasePath
#   BasePath's file system full
source "$(dirname "$0")/lib.sh"
plan 33

USER1=dnalice
JOB_OUT_PREFIX=fault
DEV=$DEVNS_CLUSTER_ROOT/dev
PROBE=$OUT/probe.sh
GPUS="$DEV/nvidia0 $DEV/nvidia1 $DEV/nvidia2 $DEV/nvidia3"
GPU_IDX='${SLURM_STEP_GPUS:-$SLURM_JOB_GPUS}'

setup() {
	out_setup fault
	write_device_probe "$PROBE"
}

restart_node() {
	"$CLUSTER" restart-slurmd "$1" >/dev/null 2>&1
	wait_for 60 node_idle "$1"
	cl scontrol update nodename="$1" state=resume >/dev/null 2>&1
	true
}


# note_cg JOBID: the name of the job's cgroup (job_cg), noted while
# slurmctld knows the job, for leftovers once it has ended.
declare -A CGNAME
note_cg() { CGNAME[$1]=$(job_cg "$1"); }

# cg_devns_filters CGROUP: how many of devns's filters are attached in the
# cgroup CGROUP (a path) and below it; fails when bpftool cannot look.
cg_devns_filters() {
	local out
	out=$(bpftool cgroup tree "$1" 2>/dev/null) || return 1
	echo "$out" | awk '$1 ~ /^[0-9]+$/ && $NF == "devns"' | wc -l
}

# cg_busy CGROUP: the cgroup CGROUP holds a process, itself or below it.
cg_busy() { grep -qx 'populated 1' "$1/cgroup.events" 2>/dev/null; }

# job_cg_left NODE CGNAME: what devns answers for in the job cgroup CGNAME
# of NODE, one word each, or nothing: hybrid, devns's own cgroup ("cgroup");
# unified, Slurm's cgroup (see the head of this file) with a filter of
# devns's still attached ("filter") or a process still in it ("procs").
# Fails when it cannot look.
job_cg_left() {
	local cg left= n
	cg=$(job_cgroups "$1")/$2
	if ! cgroup_unified; then
		[ -e "$cg" ] && left=" cgroup"
		echo "${left# }"
		return
	fi
	[ -e "$cg" ] || return 0
	n=$(cg_devns_filters "$cg") || return 1
	[ "$n" -gt 0 ] && left+=" filter"
	cg_busy "$cg" && left+=" procs"
	echo "${left# }"
}

# slurm_cg_note NODE JOBID: say (diag) when Slurm left the job's cgroup.
slurm_cg_note() {
	cgroup_unified && [ -e "$(job_cgroups "$1")/${CGNAME[$2]}" ] &&
		diag "Slurm's cgroup/v2 left job $2's cgroup $(job_cgroups "$1")/${CGNAME[$2]} (its stepd was SIGKILLed: step_destroy never ran); devns's part of it is checked"
	true
}

# leftovers NODE JOBID: what of the job is still on the node, one word
# each (dir mounts marker cgroup filter procs stepd), or nothing.  Fails
# when it cannot look (no such job id, no BasePath or spool directory to
# look in, no name noted for the job's cgroup, bpftool not answering).
leftovers() {
	local node=$1 j=$2 spool=$DEVNS_CLUSTER_ROOT/spool/$1 left= cg
	[[ $j =~ ^[0-9]+$ ]] && [ -d "$BASE/$node" ] && [ -d "$spool" ] &&
		[ -n "${CGNAME[$j]:-}" ] && [ -d "$(job_cgroups "$node")" ] || return 1
	cg=$(job_cg_left "$node" "${CGNAME[$j]}") || return 1
	[ -e "$BASE/$node/$j" ] && left+=" dir"
	grep -Eq " $BASE/$node/$j(/| )" /proc/self/mountinfo && left+=" mounts"
	[ -e "$spool/devns_filter_$j" ] && left+=" marker"
	[ -n "$cg" ] && left+=" $cg"
	pgrep -f "slurmstepd: \[$j\." >/dev/null && left+=" stepd"
	echo "${left# }"
}
nothing_left() { [ "$(leftovers "$1" "$2")" = "" ] && leftovers "$1" "$2" >/dev/null; }

# A live GPU job across kill -9 of slurmd: /tmp and filter kept; a job that
# ended meanwhile is cleaned at the restart.
test_slurmd_kill9() {
	local live done_ idx before after left
	live=$(submit -w node3 -n1 --gres=gpu:1 -- "echo $GPU_IDX > $OUT/fault-live-idx; echo kept > /tmp/keep; srun $PROBE $GPUS > $OUT/fault-live-before; touch $OUT/fault-live-ready; while [ ! -e $OUT/fault-live-go ]; do sleep 0.2; done; cat /tmp/keep > $OUT/fault-live-tmp; srun $PROBE $GPUS > $OUT/fault-live-after")
	done_=$(submit -w node3 -n1 -- "touch $OUT/fault-done-ready; while [ ! -e $OUT/fault-done-go ]; do sleep 0.2; done")
	wait_for 60 test -e "$OUT/fault-live-ready" && wait_for 30 test -e "$OUT/fault-done-ready" &&
		note_cg "$live" && note_cg "$done_" &&
		[ -n "${CGNAME[$live]}" ] && [ -n "${CGNAME[$done_]}" ]
	ok $? "precondition: a GPU job and a second job run on node3 (cgroups ${CGNAME[$live]}, ${CGNAME[$done_]})" || return
	idx=$(cat "$OUT/fault-live-idx"); before=$(cat "$OUT/fault-live-before")
	is "$(echo "$before" | tr ' ' '\n' | grep -c EPERM)" 3 \
		"precondition: the GPU job's filter denies the three other GPUs"
	kill -9 "$(cat "$DEVNS_CLUSTER_ROOT/run/slurmd-node3.pid")"
	wait_for 10 sh -c "! pgrep -F $DEVNS_CLUSTER_ROOT/run/slurmd-node3.pid >/dev/null 2>&1"
	ok $? "precondition: slurmd on node3 killed with SIGKILL"
	# The second job ends while slurmd is away: its stepds die unseen.
	pkill -KILL -f "slurmstepd: \[$done_\." &&
		wait_for 10 sh -c "! pgrep -f 'slurmstepd: \[$done_\.' >/dev/null"
	ok $? "precondition: the second job's stepds killed with SIGKILL while slurmd is away"
	left=$(leftovers node3 "$done_")
	[[ " $left " == *" dir "* && " $left " == *" marker "* ]]
	ok $? "precondition: it left what restore must remove (left: '$left')"
	restart_node node3
	[ -d "$BASE/node3/$live" ]
	ok $? "after the restart the live job keeps its namespace directory"
	wait_for 30 nothing_left node3 "$done_"	# restore works behind slurmd
	ok $? "the job that died meanwhile is cleaned at the restart (left: '$(leftovers node3 "$done_")')"
	slurm_cg_note node3 "$done_"
	touch "$OUT/fault-live-go" "$OUT/fault-done-go"
	wait_job_gone "$live"
	is "$(cat "$OUT/fault-live-tmp" 2>/dev/null)" kept "the live job's /tmp file survived the crash"
	after=$(cat "$OUT/fault-live-after" 2>/dev/null)
	is "$after" "$before" "a step after the crash gets the same filter ($after)"
	cl scancel "$done_" >/dev/null 2>&1
	wait_job_gone "$done_"
	wait_for 20 nothing_left node3 "$live"
	ok $? "the live job leaves nothing once it ends (left: '$(leftovers node3 "$live")')"
}

# kill -9 the extern slurmstepd of a running job.
test_extern_kill9() {
	local j pid
	j=$(submit -w node1 -n1 --gres=gpu:1 -- "echo x > /tmp/x; $PROBE $GPUS > $OUT/fault-ext-before; touch $OUT/fault-ext-ready; while [ ! -e $OUT/fault-ext-go ]; do sleep 0.2; done; $PROBE $GPUS > $OUT/fault-ext-after; sleep 300")
	wait_for 60 test -e "$OUT/fault-ext-ready" && [ -d "$BASE/node1/$j" ] &&
		note_cg "$j" && [ -n "${CGNAME[$j]}" ] &&
		[ "$(tr ' ' '\n' < "$OUT/fault-ext-before" | grep -c EPERM)" = 3 ]
	ok $? "precondition: a GPU job runs on node1 with its namespace (cgroup ${CGNAME[$j]}), denied the three other GPUs ($(cat "$OUT/fault-ext-before" 2>/dev/null))" || return
	# The title is cut to the argv space ("[12.ext d", "[1234.e"): the
	# extern stepd is the job's first.
	pid=$(pgrep -o -f "slurmstepd: \[$j\.")
	[ -n "$pid" ] && kill -9 $pid && wait_for 10 sh -c "! kill -0 $pid 2>/dev/null"
	ok $? "precondition: its extern slurmstepd ($pid) killed with SIGKILL"
	# The stepd that set the filter up is gone: the job's steps keep it.
	touch "$OUT/fault-ext-go"
	wait_for 60 test -s "$OUT/fault-ext-after"
	is "$(cat "$OUT/fault-ext-after" 2>/dev/null)" "$(cat "$OUT/fault-ext-before")" \
		"the job's devices are still denied after its extern stepd died"
	cl scancel "$j" >/dev/null 2>&1
	wait_job_gone "$j"
	ok $? "the job ends"
	# Where slurmd ends the job's container itself (job_container's
	# delete), it is gone seconds after the job; where the dead extern
	# stepd was to end it (26.05 in the guest, CI-22), only restore can: a short
	# look, then the restart, whose restore works behind it.
	wait_for 5 nothing_left node1 "$j" ||
		{ diag "left before restore: $(leftovers node1 "$j")"; restart_node node1;
		  wait_for 30 nothing_left node1 "$j"; }
	nothing_left node1 "$j"
	ok $? "nothing of it is left, at the latest after the next restore (left: '$(leftovers node1 "$j")')"
	slurm_cg_note node1 "$j"
	! pgrep -u "$USER1" -f "sleep 300" >/dev/null
	ok $? "no process of the job survives"
}

# node2_cgs_left: what devns answers for in node2's job cgroups
# (job_cg_left), "NAME: WORDS" a line; fails when it cannot look.
node2_cgs_left() {
	local cg w rc=0
	[ -d "$(job_cgroups node2)" ] || return 1
	for cg in $(job_cgroups_in node2); do
		w=$(job_cg_left node2 "${cg##*/}") || { rc=1; continue; }
		[ -n "$w" ] && echo "${cg##*/}: $w"
	done
	return $rc
}

# Nothing of any job is left on node2: directories, mounts, markers, and
# what devns answers for in the job cgroups.
node2_clean() {
	local cgs
	dir_empty "$BASE/node2" && ! grep -q " $BASE/node2/" /proc/self/mountinfo &&
		! ls "$DEVNS_CLUSTER_ROOT/spool/node2" | grep -q '^devns_filter_' &&
		cgs=$(node2_cgs_left) && [ -z "$cgs" ]
}

# kill -9 the extern slurmstepd after unshare, before the pin.
test_setup_kill9() {
	local j out cgs
	[ -f "$HELPERS/.libs/kill_fault.so" ]
	ok $? "precondition: helpers/kill_fault.so is built" || return
	rm -f "$OUT/fault-kill-fired"
	DEVNS_DAEMON_ENV="LD_PRELOAD=$HELPERS/.libs/kill_fault.so DEVNS_FAULT=kill_after_unshare DEVNS_FAULT_LOG=$OUT/fault-kill-fired" \
		restart_node node2
	out=$(cl_as "$USER1" srun -w node2 -n1 --gres=gpu:1 echo ran 2>&1)
	! echo "$out" | grep -qx ran
	ok $? "a job whose stepd dies in namespace setup does not run"
	j=$(cl squeue -h -w node2 -o %i 2>/dev/null | head -1)
	# What follows says something only about a stepd that the fault
	# killed in the middle of a job's setup: the helper's own line proves
	# it fired, and at a slurmstepd.
	grep -q "^kill_after_unshare: SIGKILL to [0-9]* (slurmstepd)" "$OUT/fault-kill-fired" 2>/dev/null
	ok $? "precondition: the fault fired: $(head -1 "$OUT/fault-kill-fired" 2>/dev/null || echo "no line from kill_fault.so")" ||
		{ [ -n "$j" ] && cl scancel "$j" >/dev/null 2>&1; restart_node node2; return; }
	restart_node node2	# without the fault; restore runs, behind slurmd
	wait_for 30 node2_clean
	dir_empty "$BASE/node2"
	ok $? "no namespace directory or pin is left on node2 ($(ls "$BASE/node2" 2>/dev/null | xargs))"
	! grep -q " $BASE/node2/" /proc/self/mountinfo
	ok $? "no mount is left below node2's BasePath"
	! ls "$DEVNS_CLUSTER_ROOT/spool/node2" | grep -q '^devns_filter_'
	ok $? "no filter marker is left"
	cgs=$(node2_cgs_left) && [ -z "$cgs" ]
	ok $? "no job cgroup is left with a filter of devns's or a process (left: '$cgs')"
	cgroup_unified && [ -n "$(job_cgroups_in node2)" ] &&
		diag "Slurm's cgroup/v2 left $(job_cgroups_in node2 | xargs) (the stepd was SIGKILLed: step_destroy never ran)"
	[ -n "$j" ] && cl scancel "$j" >/dev/null 2>&1
	true
}

# Stale job directories and a pin from before a "reboot": slurmd start
# removes them.
test_reboot_leftovers() {
	local stale=4000001 stale2=4000002
	mkdir -p "$BASE/node1/$stale/tmp/deep" "$BASE/node1/$stale2/dev_shm"
	echo old > "$BASE/node1/$stale/tmp/deep/file"
	: > "$BASE/node1/$stale/.ns"	# a pin whose namespace died with the boot
	: > "$DEVNS_CLUSTER_ROOT/spool/node1/devns_filter_$stale"
	[ -f "$BASE/node1/$stale/tmp/deep/file" ] && [ -d "$BASE/node1/$stale2" ]
	ok $? "precondition: stale job directories planted under node1's BasePath"
	restart_node node1
	# Restore removes them behind the restarted slurmd.
	wait_for 30 sh -c "[ ! -e '$BASE/node1/$stale' ] && [ ! -e '$BASE/node1/$stale2' ] && [ ! -e '$DEVNS_CLUSTER_ROOT/spool/node1/devns_filter_$stale' ]"
	[ ! -e "$BASE/node1/$stale" ] && [ ! -e "$BASE/node1/$stale2" ]
	ok $? "slurmd start removes job directories left by a previous boot"
	[ ! -e "$DEVNS_CLUSTER_ROOT/spool/node1/devns_filter_$stale" ]
	ok $? "and the stale filter marker"
}

# BasePath's file system is full: the job is refused, with the reason.
test_base_path_full() {
	local log=$DEVNS_CLUSTER_ROOT/log/slurmd-node2.log mnt=$BASE/node2 out i
	dir_empty "$mnt"
	ok $? "precondition: no job on node2" || return
	mount -t tmpfs -o size=64k,nr_inodes=16,mode=0755 devns-full "$mnt"
	ok $? "precondition: a tiny file system mounted on node2's BasePath" || return
	for i in $(seq 1 40); do : > "$mnt/fill$i" 2>/dev/null || break; done
	dd if=/dev/zero of="$mnt/fillbig" bs=4k 2>/dev/null
	! mkdir "$mnt/probe" 2>/dev/null
	ok $? "precondition: nothing more fits on it"
	rmdir "$mnt/probe" 2>/dev/null
	: > "$log"
	out=$(cl_as "$USER1" srun -w node2 -n1 echo ran 2>&1)
	! echo "$out" | grep -qx ran
	ok $? "a job on a full BasePath does not run"
	like "$(grep -m1 'No space left' "$log")" "job [0-9]+: .*No space left on device" \
		"the slurmd log says why"
	[ -z "$(ls "$mnt" | grep -v '^fill')" ]
	ok $? "the refused job left nothing on BasePath"
	! ls "$DEVNS_CLUSTER_ROOT/spool/node2" | grep -q '^devns_filter_'
	ok $? "and no filter marker"
	umount "$mnt"
	restart_node node2
}

setup
test_slurmd_kill9
test_extern_kill9
test_setup_kill9
test_reboot_leftovers
test_base_path_full
cp "$CONF_SAVED" "$CONF"
tap_done
