#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_reconfig.sh - one parse per daemon (issue 30): slurmd reads
# job_container.conf at start and at `scontrol reconfigure`, and from
# Slurm 23.02 hands each new slurmstepd the text it parsed.  So an edit
# without reconfigure leaves new jobs on the old settings (22.05, which
# has no send_stepd/recv_stepd, lets its stepds read the file: the
# documented difference), reconfigure brings the edit to new jobs, and a
# broken file on reconfigure leaves slurmd (and from 23.02 new jobs)
# on the settings it had, its log naming file and line: 22.05 and 23.02
# keep them in the running slurmd (container_p_reconfig); from 23.11
# slurmd starts a new slurmd, which stops on the broken file, and the old
# one resumes ("Resuming operation, reconfigure failed.").  The setting
# observed is node1's ShmSize, as a job sees its /dev/shm.
source "$(dirname "$0")/lib.sh"
plan 14

USER1=dnalice
JOB_OUT_PREFIX=reconf
LOG=$DEVNS_CLUSTER_ROOT/log/slurmd-node1.log
SMALL_KB=32768	# NodeName=node1 ShmSize=32M

setup() {
	out_setup reconf
}

# shm_kb TAG: a new job on node1 writes its /dev/shm size (KiB); prints it.
shm_kb() {
	local j
	j=$(submit -w node1 -n1 -- "df -k --output=size /dev/shm | tail -1 | tr -d ' ' > $OUT/reconf-$1")
	[[ $j =~ ^[0-9]+$ ]] && wait_job_gone "$j" >/dev/null
	cat "$OUT/reconf-$1" 2>/dev/null || echo "no answer (job '$j')"
}

# loads: how often node1's slurmd has loaded the settings (its log).
loads() { grep -c "devns: settings from" "$LOG" 2>/dev/null; }
more_loads() { [ "$(loads)" -gt "$1" ]; }

# reconfigure: scontrol reconfigure, then node1 idle again.
reconfigure() {
	cl scontrol reconfigure >/dev/null && sleep 1 && wait_node_idle node1
}

# slurmd_runs: cluster.sh lists node1's slurmd as running.  Not "not listed
# as stopped": a status that cannot be read must not pass for "runs".
slurmd_runs() { "$CLUSTER" status 2>/dev/null | grep -Eq "slurmd node1 +running"; }

# Whatever stopped the test, every node gets the harness's file back.
finish() {
	cmp -s "$CONF_SAVED" "$CONF" && slurmd_runs && return
	cp "$CONF_SAVED" "$CONF"
	cl scontrol reconfigure >/dev/null 2>&1
	slurmd_runs || "$CLUSTER" restart-slurmd node1 >/dev/null 2>&1
	wait_node_idle node1
}

test_edit_without_reconfigure() {
	local before
	conf_restore node1
	ok $? "precondition: node1 runs with the harness's settings" || return
	before=$(shm_kb before)
	[[ $before =~ ^[0-9]+$ ]] && [ "$before" != "$SMALL_KB" ]
	ok $? "precondition: a job's /dev/shm is tmpfs's default size ($before KiB)" || return
	echo "NodeName=node1 ShmSize=32M" >> "$CONF"
	if slurm_at_least 23.02; then
		is "$(shm_kb edited)" "$before" "an edit without reconfigure: a new job keeps slurmd's settings ($before KiB)"
	else
		is "$(shm_kb edited)" "$SMALL_KB" "22.05 (no send_stepd/recv_stepd): the stepd reads the file, a new job gets the edit at once (documented)"
	fi
	before=$(loads)
	reconfigure
	ok $? "precondition: scontrol reconfigure, node1 idle again"
	wait_for 30 more_loads "$before"
	ok $? "slurmd loaded the settings again on reconfigure"
	is "$(shm_kb reconfigured)" "$SMALL_KB" "after reconfigure a new job gets the edit: ShmSize=32M"
}

# A broken file on reconfigure: slurmd keeps running on the settings it had.
test_broken_reconfigure() {
	local line
	echo "NodeName=node1 ShmSize=12Q" >> "$CONF"
	line=$(wc -l < "$CONF")
	: > "$LOG"
	cl scontrol reconfigure >/dev/null
	wait_for 30 grep -q "job_container.conf:$line: ShmSize: invalid size \"12Q\"" "$LOG"
	ok $? "reconfigure with a broken file: the log names job_container.conf:$line"
	if slurm_at_least 23.11; then
		wait_for 30 grep -q "Resuming operation, reconfigure failed" "$LOG"
		ok $? "23.11+: the new slurmd stops, the running one resumes (its log says so)"
	else
		wait_for 30 grep -q "devns: keeping the previous settings" "$LOG"
		ok $? "22.05/23.02: slurmd keeps the previous settings (its log says so)"
	fi
	# The line above ends the reconfigure (the new slurmd gave up, or the
	# running one kept its settings): had slurmd died of the broken file,
	# it would be gone by now.
	slurmd_runs
	ok $? "slurmd still runs"
	wait_node_idle node1
	ok $? "node1 stays idle for jobs"
	if slurm_at_least 23.02; then
		is "$(shm_kb broken)" "$SMALL_KB" "a new job gets the settings slurmd had: ShmSize=32M"
	else
		skip "22.05: each slurmstepd reads the broken file itself, so new jobs fail (documented); no job is run"
	fi
}

test_restore() {
	local before
	# 22.05 and 23.02 handle a reconfigure in the running slurmd, which
	# goes on with it after devns has logged that it keeps its settings:
	# a second reconfigure sent at once met the first still at work, and
	# the next job failed (CI, 22.05).  Let the first one end.
	slurm_at_least 23.11 || sleep 2
	cp "$CONF_SAVED" "$CONF"
	before=$(loads)
	reconfigure
	ok $? "the harness's file back, reconfigure: node1 idle"
	wait_for 30 more_loads "$before"
	ok $? "  and slurmd loaded it"
	is "$(shm_kb restored)" "$(cat "$OUT/reconf-before")" "  a new job's /dev/shm is the default again"
}

at_exit finish
setup
test_edit_without_reconfigure
test_broken_reconfigure
test_restore
rm -f "$OUT"/reconf-*
tap_done
