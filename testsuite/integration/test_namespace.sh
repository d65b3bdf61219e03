#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_namespace.sh - job_container/devns private /tmp and /dev/shm on the
# real cluster: isolation between jobs, sharing between steps, cleanup,
# slurmd restart, the symlink attack on cleanup, ShmSize, broken config.
source "$(dirname "$0")/lib.sh"
plan 32

USER1=dnalice
JOB_OUT_PREFIX=ns

setup() {
	out_setup ns
}


# submit OPTIONS... -- SCRIPT: sbatch as USER1, print the job id.


# job_dir_gone NODE JOBID, no_mounts_of NODE JOBID: nothing of the job is
# left.  Only for a JOBID that is a job id: "$BASE/node1/" of an empty one
# (a failed sbatch) would never be gone.
no_mounts_of() { [[ $2 =~ ^[0-9]+$ ]] && ! has_mounts "$1" "$2"; }

test_two_jobs_isolated() {
	local a b
	a=$(submit -w node1 -n1 -- "echo A > /tmp/marker_A; echo A > /dev/shm/shm_A; touch $OUT/ns-a-ready; sleep 60")
	wait_file "$OUT/ns-a-ready"
	ok $? "job A wrote its /tmp and /dev/shm markers"
	b=$(submit -w node1 -n1 -- "ls -a /tmp /dev/shm > $OUT/ns-b-ls; echo B > /tmp/marker_B; test -e /tmp/marker_A; echo \$? > $OUT/ns-b-seesA")
	wait_job_gone "$b"
	is "$(cat "$OUT/ns-b-seesA" 2>/dev/null)" "1" "job B on the same node does not see job A's /tmp file"
	like "$(cat "$OUT/ns-b-ls")" "^/dev/shm:" "job B listed its /dev/shm"
	! grep -q shm_A "$OUT/ns-b-ls"
	ok $? "job B does not see job A's /dev/shm file"
	[ ! -e /tmp/marker_A ] && [ ! -e /dev/shm/shm_A ]
	ok $? "job A's files are not in the host's /tmp or /dev/shm"
	[ -f "$BASE/node1/$a/tmp/marker_A" ]
	ok $? "job A's /tmp is backed by BasePath/<jobid> on node-local disk"
	has_mounts node1 "$a"
	ok $? "precondition: job A's namespace is mounted under its directory"
	cl scancel "$a"
	wait_job_gone "$a"
	wait_for 20 job_dir_gone node1 "$a"
	ok $? "job A's directory is removed after the job"
	no_mounts_of node1 "$a"
	ok $? "no mount of job A is left behind"
	job_dir_gone node1 "$b"
	ok $? "job B's directory is removed after the job"
}

test_steps_share_tmp() {
	local out
	out=$(cl_as "$USER1" salloc -w node2 -n1 sh -c \
		'srun sh -c "echo shared-by-steps > /tmp/f"; srun cat /tmp/f' 2>&1)
	like "$out" "shared-by-steps" "salloc: a second srun step sees the first step's /tmp file"
	out=$(cl_as "$USER1" srun -w node2 -n1 sh -c 'cat /tmp/f 2>&1 || echo absent')
	like "$out" "absent" "srun: a new job does not see the earlier job's file"
	local j
	j=$(submit -w node2 -n1 -- "echo batch > /tmp/g; srun cat /tmp/g > $OUT/ns-batch-step; findmnt -n -o TARGET /tmp > $OUT/ns-batch-mnt")
	wait_job_gone "$j"
	is "$(cat "$OUT/ns-batch-step" 2>/dev/null)" "batch" "sbatch: a step sees the batch script's /tmp file"
	is "$(cat "$OUT/ns-batch-mnt" 2>/dev/null)" "/tmp" "sbatch: /tmp is a mount of its own inside the job"
}

# dead_job_removed NODE JOB: JOB's directory and mounts are gone.
dead_job_removed() { job_dir_gone "$1" "$2" && no_mounts_of "$1" "$2"; }

test_slurmd_restart() {
	local live dead
	live=$(submit -w node3 -n1 -- "srun sh -c 'echo before-restart > /tmp/r'; touch $OUT/ns-r1; while [ ! -e $OUT/ns-r-go ]; do sleep 0.2; done; srun cat /tmp/r > $OUT/ns-r-result")
	dead=$(submit -w node3 -n1 -- "touch $OUT/ns-dead-ready; sleep 300")
	wait_file "$OUT/ns-r1" && wait_file "$OUT/ns-dead-ready" &&
		[ -d "$BASE/node3/$live" ] && [ -d "$BASE/node3/$dead" ]
	ok $? "both jobs on node3 are running, each with its namespace"
	# slurmd goes away; meanwhile one job's processes die with it unseen.
	kill "$(cat "$DEVNS_CLUSTER_ROOT/run/slurmd-node3.pid")"
	wait_for 10 sh -c "! pgrep -F $DEVNS_CLUSTER_ROOT/run/slurmd-node3.pid >/dev/null 2>&1"
	pkill -KILL -f "slurmstepd: \[$dead\."
	ok $? "precondition: the second job's slurmstepd killed while slurmd is down"
	sleep 0.5
	"$CLUSTER" restart-slurmd node3 >/dev/null 2>&1
	wait_node_idle node3
	[ -d "$BASE/node3/$live" ]
	ok $? "after slurmd restart the live job keeps its namespace"
	# Restore removes it behind slurmd, which registers first.
	wait_for 30 dead_job_removed node3 "$dead"
	ok $? "after slurmd restart the namespace of the dead job is removed"
	touch "$OUT/ns-r-go"
	wait_job_gone "$live"
	is "$(cat "$OUT/ns-r-result" 2>/dev/null)" "before-restart" \
		"a step started after the restart sees the file of an earlier step"
	cl scancel "$dead" >/dev/null 2>&1
	wait_job_gone "$dead"
}

test_symlink_attack() {
	local victim=/var/tmp/devns-victim j before after
	rm -rf "$victim"; mkdir -p "$victim/sub"
	echo secret > "$victim/file"; echo deep > "$victim/sub/deep"
	chmod 0755 "$victim"; chmod 0600 "$victim/file"
	before=$(find "$victim" -printf '%p %m %u %g %s\n' | sort)
	j=$(submit -w node1 -n1 -- "ln -s $victim /tmp/evil-dir; ln -s $victim/file /tmp/evil-file; mkdir -p /tmp/d; ln -s $victim /tmp/d/link; ln -s / /tmp/root; mkfifo /tmp/fifo; mkdir -p /tmp/ro/x; chmod 0500 /tmp/ro; readlink /tmp/evil-dir /tmp/evil-file /tmp/d/link > $OUT/ns-links")
	wait_job_gone "$j"
	is "$(cat "$OUT/ns-links" 2>/dev/null | tr '\n' ' ')" "$victim $victim/file $victim " \
		"precondition: the job planted its links"
	wait_for 20 job_dir_gone node1 "$j"
	ok $? "a job that planted links is cleaned up"
	after=$(find "$victim" -printf '%p %m %u %g %s\n' | sort)
	is "$after" "$before" "the root-owned directory the links pointed to is untouched"
	rm -rf "$victim"
}

test_shm_size() {
	local j
	sed -i '/^ShmSize=/d' "$CONF"
	echo "ShmSize=1M" >> "$CONF"
	"$CLUSTER" restart-slurmd node2 >/dev/null 2>&1
	wait_node_idle node2
	j=$(submit -w node2 -n1 -- "dd if=/dev/zero of=/dev/shm/small bs=1k count=512 2>/dev/null; echo \$? > $OUT/ns-shm-small; dd if=/dev/zero of=/dev/shm/big bs=1k count=2048 2>/dev/null; echo \$? > $OUT/ns-shm-big")
	wait_job_gone "$j"
	is "$(cat "$OUT/ns-shm-small" 2>/dev/null)" "0" "ShmSize=1M: writing 512 KiB to /dev/shm works"
	is "$(cat "$OUT/ns-shm-big" 2>/dev/null)" "1" "ShmSize=1M: writing beyond 1 MiB fails"
	conf_restore node2
}

test_broken_conf() {
	local log=$DEVNS_CLUSTER_ROOT/log/slurmd-node3.log old=$DEVNS_CLUSTER_ROOT/etc/namespace.conf
	{ echo "# broken on purpose"; echo "BasePath=$BASE/node3"; echo "BasPath=/oops"; } > "$CONF"
	: > "$log"
	"$CLUSTER" restart-slurmd node3 >/dev/null 2>&1
	wait_for 10 grep -q "job_container.conf:3" "$log"
	ok $? "a broken job_container.conf is reported with file:line in the slurmd log"
	like "$(grep job_container.conf:3 "$log" | head -1)" 'BasPath' "the message names the bad key"
	"$CLUSTER" status 2>/dev/null | grep -Eq "slurmd node3 +stopped"
	ok $? "slurmd does not run with a broken job_container.conf"
	rm -f "$CONF"
	: > "$log"
	"$CLUSTER" restart-slurmd node3 >/dev/null 2>&1
	wait_for 10 grep -Eq "job_container.conf.*namespace.conf.*No such file" "$log"
	ok $? "a missing job_container.conf is a clear error, naming the old name too"

	# namespace.conf, devns 0.1's name: read alone, with a warning.
	cp "$CONF_SAVED" "$old"
	: > "$log"
	"$CLUSTER" restart-slurmd node3 >/dev/null 2>&1
	wait_node_idle node3
	ok $? "namespace.conf alone (0.1's name): node3 runs"
	grep -q "namespace.conf: the name is deprecated" "$log"
	ok $? "  and slurmd logs that the name is deprecated"
	# Both: which one counts would be a guess.
	cp "$CONF_SAVED" "$CONF"
	: > "$log"
	"$CLUSTER" restart-slurmd node3 >/dev/null 2>&1
	wait_for 10 grep -q "both .*job_container.conf and .*namespace.conf exist" "$log"
	ok $? "job_container.conf and namespace.conf both: slurmd logs both names"
	"$CLUSTER" status 2>/dev/null | grep -Eq "slurmd node3 +stopped"
	ok $? "  and does not run"
	rm -f "$old"
	conf_restore node3
}

setup
test_two_jobs_isolated
test_steps_share_tmp
test_slurmd_restart
test_symlink_attack
test_shm_size
test_broken_conf
tap_done
