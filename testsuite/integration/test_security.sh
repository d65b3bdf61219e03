#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_security.sh - the attacks of the security report, on the real
# cluster: a symlink planted where a Dirs entry should be, BasePath that a
# user could influence, slurmd restart after one step of a live job was
# killed, and a device-filter marker that cannot be read.  Each check first
# proves its precondition (the link was planted, the job ran).
source "$(dirname "$0")/lib.sh"
plan 41

USER1=dnalice
DEV=$DEVNS_CLUSTER_ROOT/dev
SPOOL=$DEVNS_CLUSTER_ROOT/spool
CG=/sys/fs/cgroup/unified/devns
GPUS="$DEV/nvidia0 $DEV/nvidia1 $DEV/nvidia2 $DEV/nvidia3"

setup() {
	out_setup sec
}

slurmd_running() { "$CLUSTER" status 2>/dev/null | grep -Eq "slurmd $1 +running"; }
# Not "! slurmd_running": a status that cannot be read must not pass for
# "does not run".

# run_job NODE SCRIPT: srun as USER1 on NODE; prints the output.
run_job() { cl_as $USER1 srun -w "$1" -n1 sh -c "$2" 2>&1; }

# The report's root exploit: a user plants /var/tmp/<entry> -> a root
# directory; no job may get its private directory mounted there.  A Dirs
# mount point in a directory others can write to (sticky /var/tmp) stops
# slurmd: missing, a user's link, and root's too (issue 42 item 7: once
# empty it can be aged out by systemd-tmpfiles, which detaches the jobs'
# mounts, and any user could take the name).
test_dirs_link_attack() {
	local entry=/var/tmp/devns-sec-job victim=/etc/devns-sec-victim
	local log=$DEVNS_CLUSTER_ROOT/log/slurmd-node2.log
	rm -rf "$victim"; rm -f "$entry"; rmdir "$entry" 2>/dev/null
	mkdir -p "$victim" && chmod 0755 "$victim"
	: > "$log"
	conf_with node2 "NodeName=node2 BasePath=$BASE/node2 Dirs=/tmp,/dev/shm,$entry"
	slurmd_stopped node2
	ok $? "a Dirs entry missing in sticky /var/tmp: slurmd does not start"
	like "$(grep -h "$entry" "$log" | head -1)" "/var/tmp is writable by others \\(mode 1777\\): sticky or not" \
		"the slurmd log names the entry, its parent and why"

	runuser -u $USER1 -- ln -s "$victim" "$entry"
	[ "$(readlink "$entry")" = "$victim" ] && [ "$(stat -c %U "$entry")" = $USER1 ] &&
		[ -d "$victim" ]
	ok $? "precondition: $USER1 planted $entry -> $victim"
	: > "$log"
	"$CLUSTER" restart-slurmd node2 >/dev/null 2>&1
	slurmd_stopped node2
	ok $? "with the planted link slurmd does not start"
	like "$(grep -h "$entry" "$log" | head -1)" "symbolic link|not owned by root" \
		"and the log says it is a link"
	[ ! -e "$victim/planted" ] && ! grep -q "$victim" /proc/self/mountinfo
	ok $? "nothing was mounted on or written into $victim"
	dir_empty "$BASE/node2"
	ok $? "no job directory was left"

	# Root's directory there is refused too: aged out once empty, its
	# name could be taken while jobs have their mounts on it.
	rm -f "$entry"; mkdir -m 1777 "$entry"
	: > "$log"
	"$CLUSTER" restart-slurmd node2 >/dev/null 2>&1
	slurmd_stopped node2
	ok $? "with root's $entry slurmd does not start either"
	like "$(grep -h "$entry" "$log" | head -1)" "use a mount point whose parent directories are root's" \
		"and the log says what to use instead"
	rmdir "$entry"; rm -rf "$victim"
	conf_restore node2
	cl scontrol update nodename=node2 state=resume >/dev/null 2>&1
	wait_for 30 node_idle node2
	ok $? "with /tmp and /dev/shm alone node2 runs jobs again"
}

# BasePath must be root's all the way down (StrictModes); shared sticky
# directories and user-owned components stop slurmd with a reason.
test_base_path_checks() {
	local log=$DEVNS_CLUSTER_ROOT/log/slurmd-node3.log
	local userdir=/var/lib/devns-sec-userbase link=/var/tmp/devns-sec-userbase

	: > "$log"
	conf_with node3 "NodeName=node3 BasePath=/tmp"
	slurmd_stopped node3
	ok $? "BasePath=/tmp: slurmd does not start"
	like "$(grep -hE 'BasePath:? "?/tmp' "$log" | head -1)" \
		"every user can write to|writable by others" \
		"the slurmd log says why (BasePath=/tmp)"

	rm -rf "$userdir"; mkdir -p "$userdir"; chown $USER1 "$userdir"
	: > "$log"
	conf_with node3 "NodeName=node3 BasePath=$userdir/base AutoBasePath=yes"
	slurmd_stopped node3
	ok $? "BasePath below a user's directory: slurmd does not start"
	like "$(grep -h "BasePath $userdir" "$log" | head -1)" "not owned by root" \
		"the slurmd log names the user-owned component"
	[ -d "$userdir" ] && [ ! -e "$userdir/base" ]
	ok $? "AutoBasePath created nothing below it"

	rm -rf "$userdir" "$link"
	runuser -u $USER1 -- ln -s "$BASE" "$link"
	[ "$(readlink "$link")" = "$BASE" ]
	ok $? "precondition: a link planted where BasePath would be created"
	: > "$log"
	conf_with node3 "NodeName=node3 BasePath=$link/node3 AutoBasePath=yes"
	slurmd_stopped node3
	ok $? "AutoBasePath through a planted link: slurmd does not start"
	[ ! -e "$BASE/node3x" ] && [ ! -e "$BASE/node3/node3" ]
	ok $? "nothing was created at the link's target"
	rm -f "$link"
	conf_restore node3
	slurmd_running node3
	ok $? "with a root-owned BasePath slurmd runs again"
}

# slurmd restart must keep a job while any of its steps answers.
test_restart_keeps_live_job() {
	local j steps victim out title
	j=$(cl_as $USER1 sbatch --parsable -w node1 -n1 --gres=gpu:1 -o "$OUT/sec-%j.out" \
		--wrap "echo kept > /tmp/keep; srun --overlap --gres=none sleep 300 & srun --overlap --gres=none sleep 300 & touch $OUT/sec-steps; wait")
	wait_for 30 test -e "$OUT/sec-steps" &&
		wait_for 30 sh -c "ls $SPOOL/node1 | grep -c '_$j\.[01]\$' | grep -qx 2"
	ok $? "precondition: job $j runs with two srun steps"
	# Its socket stays behind, stale, beside the live steps' sockets.
	# The stepd's title is cut to its original argv's length: for a long
	# job id "slurmstepd: [212.1" ends without the bracket.
	title="slurmstepd: \[$j\.1(\]| |\$)"
	wait_for 20 pgrep -f "$title" >/dev/null
	victim=$(pgrep -f "$title")
	[ -n "$victim" ] && kill -9 $victim
	ok $? "slurmstepd of step $j.1 killed with -9"
	# More steps of the job killed the same way: stale sockets (nobody
	# listens) for steps 2..40, so that whichever order slurmd lists the
	# sockets in, a stale one comes before the live ones.
	python3 - "$SPOOL/node1" "$j" <<'PY'
import socket, sys
spool, job = sys.argv[1], sys.argv[2]
for step in range(2, 41):
    s = socket.socket(socket.AF_UNIX)
    s.bind(f"{spool}/node1_{job}.{step}")
    s.close()
PY
	is "$(ls "$SPOOL/node1" | grep -c "^node1_$j\.")" 43 \
		"precondition: 39 more stale step sockets of the job"
	"$CLUSTER" restart-slurmd node1 >/dev/null 2>&1
	wait_for 60 node_idle node1
	[ -d "$BASE/node1/$j" ] && [ -f "$BASE/node1/$j/tmp/keep" ]
	ok $? "after the restart the job's /tmp contents are intact"
	[ -d "$CG/node1/job_$j" ] && [ -f "$SPOOL/node1/devns_filter_$j" ]
	ok $? "and its device cgroup and filter marker are intact"
	out=$(cl_as $USER1 srun --jobid "$j" --overlap -n1 sh -c \
		"cat /tmp/keep; $OUT/probe-sec.sh $GPUS" 2>&1)
	like "$out" "^kept" "a new step of the job still sees its /tmp"
	like "$out" "EPERM" "and is still filtered (other GPUs denied)"
	cl scancel "$j"
	wait_job_gone "$j"
	rm -f "$SPOOL/node1/node1_$j".*
}

# A marker that cannot be read must fail the process, not skip the filter.
test_marker_error() {
	local j out marker
	j=$(cl_as $USER1 sbatch --parsable -w node1 -n1 --gres=gpu:1 -o "$OUT/sec-%j.out" \
		--wrap "touch $OUT/sec-m-ready; sleep 300")
	wait_for 30 test -e "$OUT/sec-m-ready"
	ok $? "precondition: a filtered job runs"
	marker=$SPOOL/node1/devns_filter_$j
	[ -f "$marker" ]
	ok $? "precondition: its filter marker exists"
	rm -f "$marker"; ln -s "$(basename "$marker")" "$marker"
	[ -L "$marker" ] && [ "$(job_state "$j")" = RUNNING ]
	ok $? "precondition: the marker is a link to itself (ELOOP), the job still runs"
	out=$(cl_as $USER1 srun --jobid "$j" --overlap -n1 sh -c \
		"echo step-ran; $OUT/probe-sec.sh $GPUS" 2>&1)
	! echo "$out" | grep -q step-ran
	ok $? "a step does not run when the marker cannot be read (ELOOP)"
	rm -f "$marker"; touch "$marker"
	cl scancel "$j"
	wait_job_gone "$j"
}

# DevicePolicy=auto on a node whose GRES have no device files (AutoDetect
# without File=) contains nothing: slurmd must say so at start.
test_auto_without_files() {
	local gres=$DEVNS_CLUSTER_ROOT/etc/gres.conf
	local log=$DEVNS_CLUSTER_ROOT/log/slurmd-node3.log
	cp "$gres" "$OUT/gres.conf.sec-orig"
	sed -i 's/^NodeName=node\[1-3\]/NodeName=node[1-2]/' "$gres"
	grep -o ' Name=[a-z]*' "$OUT/gres.conf.sec-orig" | sort -u |
	while read -r name; do
		echo "NodeName=node3 $name Count=2"
	done >> "$gres"
	grep -q '^NodeName=node3 Name=gpu Count=' "$gres"
	ok $? "precondition: node3's GPUs have no device files in gres.conf"
	: > "$log"
	"$CLUSTER" restart-slurmd node3 >/dev/null 2>&1
	wait_for 20 grep -q "DevicePolicy=auto on node node3" "$log"
	ok $? "DevicePolicy=auto without GRES device files: slurmd warns at start"
	like "$(grep -h 'DevicePolicy=auto on node node3' "$log" | head -1)" \
		"no device of a job is contained" "the warning says what it means"
	cp "$OUT/gres.conf.sec-orig" "$gres"
	"$CLUSTER" restart-slurmd node3 >/dev/null 2>&1
	cl scontrol update nodename=node3 state=resume >/dev/null 2>&1
	wait_for 60 node_idle node3
}

write_probe() { write_device_probe "$OUT/probe-sec.sh"; }

# The attack: a job that no setup ran for (no PrologFlags=Contain, 22.05's
# requeue path launching a batch step without the extern step, restore
# taking a live job for ended) had no filter marker, and a missing marker
# meant "no filter": its steps opened every GPU.  Now a job without its
# setup record does not run.
test_no_record() {
	local j out marker=
	j=$(cl_as $USER1 sbatch --parsable -w node1 -n1 --gres=gpu:1 -o "$OUT/sec-%j.out" \
		--wrap "touch $OUT/sec-r-ready; sleep 300")
	wait_for 30 test -e "$OUT/sec-r-ready"
	ok $? "precondition: a filtered job runs"
	marker=$SPOOL/node1/devns_filter_$j
	out=$(cl_as $USER1 srun --jobid "$j" --overlap -n1 sh -c \
		"echo step-ran; $OUT/probe-sec.sh $GPUS" 2>&1)
	like "$out" "step-ran" "precondition: with its record a step runs: $out"
	rm -f "$marker"
	[ ! -e "$marker" ] && [ "$(job_state "$j")" = RUNNING ]
	ok $? "precondition: its setup record is gone, the job still runs"
	out=$(cl_as $USER1 srun --jobid "$j" --overlap -n1 sh -c \
		"echo step-ran; $OUT/probe-sec.sh $GPUS" 2>&1)
	! echo "$out" | grep -q step-ran
	ok $? "a step of a job without its setup record does not run"
	cl scancel "$j"
	wait_job_gone "$j"
}

# Without PrologFlags=Contain no extern step sets jobs up: slurmd refuses
# to start rather than fail (or, before, run unfiltered) every job.
test_no_contain() {
	local conf=$DEVNS_CLUSTER_ROOT/etc/slurm.conf
	local log=$DEVNS_CLUSTER_ROOT/log/slurmd-node3.log
	cp "$conf" "$OUT/slurm.conf.sec-orig"
	sed -i 's/^PrologFlags=Contain$/PrologFlags=Alloc/' "$conf"
	grep -qx 'PrologFlags=Alloc' "$conf" && ! grep -qi '^PrologFlags=.*contain' "$conf"
	ok $? "precondition: node3's slurm.conf has PrologFlags=Alloc, not Contain"
	: > "$log"
	"$CLUSTER" restart-slurmd node3 >/dev/null 2>&1
	slurmd_stopped node3
	ok $? "without PrologFlags=Contain slurmd does not start"
	if slurm_at_least 25.11; then
		# Slurm's own rule from 25.11 (read_config.c: any NamespaceType
		# needs Contain): slurmd is fatal before it loads a plugin.
		skip "the slurmd log says why: Slurm $DEVNS_SLURM_VERSION refuses on its own, before devns loads"
	else
		like "$(grep -h 'PrologFlags=Contain' "$log" | head -1)" "PrologFlags=Contain is not set" \
			"the slurmd log says why"
	fi
	cp "$OUT/slurm.conf.sec-orig" "$conf"
	"$CLUSTER" restart-slurmd node3 >/dev/null 2>&1
	cl scontrol update nodename=node3 state=resume >/dev/null 2>&1
	wait_for 60 node_idle node3
	slurmd_running node3
	ok $? "with it slurmd runs again"
}

setup
write_probe
test_dirs_link_attack
test_base_path_checks
test_restart_keeps_live_job
test_marker_error
test_auto_without_files
test_no_record
test_no_contain
tap_done
