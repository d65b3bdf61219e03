#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_loopfs.sh - TmpBackend=loop: each job's /tmp a filesystem of its
# own, on a sparse image in its directory, on the cluster's BasePath (which
# has no project quotas).
#
# 1. node1 with TmpDiskLimit=20M TmpBackend=loop: slurmd starts (no quota
#    needed) and makes the template; devns check says loop.
# 2. Job A's dd of 30 MiB into /tmp fails with ENOSPC after about 20 MiB;
#    job B, at the same time, sees its own empty /tmp and writes 15 MiB;
#    sbcast into B (slurmd writes as root) stops at the limit; each job
#    has a loop device while it runs, and no mount of either is in the
#    node's mount namespace.
# 3. After the jobs: no job directory (image), no loop device, no mount.
# 4. Fail closed: with the template made unusable (not root's), a job does
#    not run, and slurmd's log says why.
. "$(dirname "$0")/lib.sh"
plan 20

USER1=dnalice
JOB_OUT_PREFIX=lf
MiB=1048576
DEVNS=${DEVNS_TOOL:-$TOP/build/devns}
LOG=$DEVNS_CLUSTER_ROOT/log/slurmd-node1.log
TEMPLATE=$BASE/node1/.loop-$((20 * MiB))-1280.img

# loops: how many loop devices are backed by a job's image (.disk.img;
# once the job's directory mount is gone the kernel names the file from
# that detached mount's root, "/.disk.img (deleted)", not by BasePath).
loops() {
	local f n=0
	for f in /sys/block/loop*/loop/backing_file; do
		[ -r "$f" ] && grep -q "/\.disk\.img" "$f" && n=$((n + 1))
	done
	echo $n
}
no_loops() { [ "$(loops)" = 0 ]; }

# fill_job TAG MIB: a job on node1 that records how many entries its /tmp
# has, writes MIB MiB into /tmp, records dd's status, message and the
# file's size, then waits for $OUT/lf-go.
fill_job() {
	submit -w node1 -n1 -- "ls -A /tmp | wc -l > $OUT/lf-$1.n; dd if=/dev/zero of=/tmp/fill bs=1M count=$2 2> $OUT/lf-$1.dd; echo \$? > $OUT/lf-$1.rc; stat -c %s /tmp/fill > $OUT/lf-$1.size; touch $OUT/lf-$1.done; while [ ! -e $OUT/lf-go ]; do sleep 0.2; done"
}

test_limit() {
	local a b sa sb used
	no_loops
	ok $? "precondition: no loop device holds a job's image" || return
	conf_with node1 "NodeName=node1 TmpDiskLimit=20M TmpBackend=loop"
	ok $? "slurmd starts with TmpDiskLimit=20M TmpBackend=loop on a BasePath without project quotas ($(stat -fc %T "$BASE"))" ||
		{ diag "$(tail -n 5 "$LOG")"; return; }
	[ -f "$TEMPLATE" ] && [ "$(stat -c %s "$TEMPLATE")" = $((20 * MiB)) ]
	ok $? "  it made the 20M template at its start ($(du -k "$TEMPLATE" 2>&1 | cut -f1) KiB of data)"
	if [ -x "$DEVNS" ]; then
		like "$(SLURM_CONF=$DEVNS_CLUSTER_ETC/slurm.conf "$DEVNS" check -f "$CONF" -n node1 2>&1 |
			grep -E '^(tmpbackend|tmpdiskquota) ' | tr '\n' ' ')" \
			"^tmpbackend loop .*tmpdiskquota loop" "devns check: tmpbackend loop, tmpdiskquota loop"
	else
		skip "devns check: no $DEVNS built"
	fi
	rm -f "$OUT/lf-go"
	a=$(fill_job a 30)
	wait_file "$OUT/lf-a.done"
	b=$(fill_job b 15)
	wait_file "$OUT/lf-b.done"
	ok $? "two jobs on node1 wrote into their /tmp and are both running" ||
		diag "$(cat "$OUT"/lf-*.out 2>/dev/null; tail -n 5 "$LOG")"
	is "$(cat "$OUT/lf-a.rc" 2>/dev/null)" 1 "job A's dd of 30 MiB fails"
	like "$(cat "$OUT/lf-a.dd" 2>/dev/null)" "No space left on device" "  with ENOSPC"
	sa=$(cat "$OUT/lf-a.size" 2>/dev/null)
	[ "${sa:-0}" -ge $((16 * MiB)) ] && [ "${sa:-0}" -le $((20 * MiB)) ]
	ok $? "  after about 20 MiB: $sa bytes"
	sb=$(cat "$OUT/lf-b.size" 2>/dev/null)
	[ "$(cat "$OUT/lf-b.n" 2>/dev/null)" = 0 ] && [ "$(cat "$OUT/lf-b.rc" 2>/dev/null)" = 0 ] &&
		[ "${sb:-0}" = $((15 * MiB)) ]
	ok $? "job B, at the same time, has its own empty /tmp and writes 15 MiB ($(cat "$OUT/lf-b.n" 2>/dev/null) entries, $sb bytes)"
	# sbcast: slurmd writes the blocks as root; the job's own filesystem
	# (no reserved blocks) stops root as it stops the user.
	head -c $((40 * MiB)) /dev/urandom >"$OUT/lf-sb.src" && chmod 0644 "$OUT/lf-sb.src"
	! cl_as "$USER1" sbcast -j "$b" -f "$OUT/lf-sb.src" /tmp/sb >"$OUT/lf-sb.err" 2>&1
	ok $? "sbcast of 40 MiB into job B fails: $(head -n1 "$OUT/lf-sb.err")"
	used=$(nsenter --mount="$BASE/node1/$b/.ns" df -B1 --output=used /tmp 2>&1 | tail -n1)
	[ "${used:-X}" -le $((20 * MiB)) ] 2>/dev/null
	ok $? "  job B's /tmp holds at most its 20 MiB: $used bytes"
	rm -f "$OUT/lf-sb.src"
	is "$(loops)" 2 "a loop device per job while they run"
	! grep -q "$BASE/node1/[0-9]*/.disk" /proc/self/mountinfo
	ok $? "  and no mount of their filesystems in the node's mount namespace"

	touch "$OUT/lf-go"
	wait_job_gone "$a" && wait_job_gone "$b"
	ok $? "both jobs end"
	wait_for 30 sh -c "[ ! -e $BASE/node1/$a ] && [ ! -e $BASE/node1/$b ]"
	ok $? "their directories (and images) are removed"
	wait_for 30 no_loops
	ok $? "no loop device of theirs is left ($(loops))"
	! grep -Eq "$BASE/node1/($a|$b)" /proc/self/mountinfo
	ok $? "no mount of theirs is left"
}

# A job whose filesystem cannot be made does not run.
test_fail_closed() {
	local j
	chown 65534 "$TEMPLATE"
	ok $? "precondition: node1's template made not root's" || return
	j=$(submit -w node1 -n1 -- "touch $OUT/lf-ran")
	wait_for 60 sh -c "grep -q 'job $j: .*is not root.s template' $LOG"
	ok $? "job $j's setup fails, slurmd's log says why: $(grep "job $j:" "$LOG" | grep -m1 template)"
	# Slurm may hold or requeue a job whose extern step failed.
	cl scancel "$j" >/dev/null 2>&1
	wait_job_gone "$j" 90
	[ ! -e "$OUT/lf-ran" ] && no_loops && [ ! -e "$BASE/node1/$j" ]
	ok $? "  it did not run, and left no directory or loop device"
	rm -f "$TEMPLATE"
	# A failed setup may drain the node.
	cl scontrol update NodeName=node1 State=RESUME >/dev/null 2>&1
	true
}

out_setup lf
test_limit
test_fail_closed
rm -f "$BASE"/node1/.loop-*
conf_restore node1
cl scontrol update NodeName=node1 State=RESUME >/dev/null 2>&1
cp "$CONF_SAVED" "$CONF"
tap_done
