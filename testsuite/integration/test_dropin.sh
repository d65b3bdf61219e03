#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_dropin.sh - devns as a drop-in for job_container/tmpfs (issue 30):
# a tmpfs site's job_container.conf, unchanged (BasePath with %n,
# AutoBasePath=true, Dirs=/tmp,/dev/shm, InitScript, CloneNSScript,
# CloneNSEpilog and their _Wait), runs node1's jobs: a private /tmp under
# the expanded BasePath, the InitScript run as root before the namespace is
# made, the CloneNSScript once it exists, each with Slurm's variables
# (SLURM_JOB_ID, SLURM_JOB_MOUNTPOINT_SRC, SLURM_NS, ...), the
# CloneNSEpilog at the job's end while the namespace still exists; a
# failing InitScript or CloneNSScript refuses the job, saying why;
# Shared=true lets a mount made on the node later reach a running job;
# EntireStepInNS=yes starts the step's slurmstepd in the job's namespace
# (24.11.1 on; before, slurmd refuses it).  The harness's file comes back
# at the end, whatever stopped the test.
source "$(dirname "$0")/lib.sh"
plan 46

USER1=dnalice
JOB_OUT_PREFIX=dropin
# Root's scripts: in a directory no user can write to.
SCRIPTS=$DEVNS_CLUSTER_ROOT/dropin-scripts
LOG=$DEVNS_CLUSTER_ROOT/log/slurmd-node1.log

setup() {
	out_setup dropin
	rm -rf --one-file-system "$SCRIPTS" "$BASE/dropin"
	mkdir -p -m 0755 "$SCRIPTS"
	# Each writes what SLURM_NS is (nsfs: the namespace exists), then its
	# environment, renamed into place last: the test waits for that file,
	# so what it reads next is complete (the epilog runs beside the test).
	cat > "$SCRIPTS/clone.sh" <<EOF
#!/bin/sh
stat -f -c %T "\$SLURM_NS" > $OUT/dropin-clone-ns.\$SLURM_JOB_ID
id -u > $OUT/dropin-clone-uid.\$SLURM_JOB_ID
env | sort > $OUT/.dropin-clone-env.\$SLURM_JOB_ID
mv $OUT/.dropin-clone-env.\$SLURM_JOB_ID $OUT/dropin-clone-env.\$SLURM_JOB_ID
EOF
	cat > "$SCRIPTS/init.sh" <<EOF
#!/bin/sh
id -u > $OUT/dropin-init-uid.\$SLURM_JOB_ID
env | sort > $OUT/.dropin-init-env.\$SLURM_JOB_ID
mv $OUT/.dropin-init-env.\$SLURM_JOB_ID $OUT/dropin-init-env.\$SLURM_JOB_ID
EOF
	cat > "$SCRIPTS/epilog.sh" <<EOF
#!/bin/sh
stat -f -c %T "\$SLURM_NS" > $OUT/dropin-epilog-ns.\$SLURM_JOB_ID
sleep 1
stat -f -c %T "\$SLURM_NS" >> $OUT/dropin-epilog-runs.\$SLURM_JOB_ID
env | sort > $OUT/.dropin-epilog-env.\$SLURM_JOB_ID
mv $OUT/.dropin-epilog-env.\$SLURM_JOB_ID $OUT/dropin-epilog-env.\$SLURM_JOB_ID
EOF
	printf '#!/bin/sh\necho no namespace for you\nexit 3\n' > "$SCRIPTS/fail.sh"
	chmod 0755 "$SCRIPTS"/*.sh
}

# tmpfs_conf CLONE_SCRIPT INIT_SCRIPT [LINE]: a tmpfs site's file, as
# job_container.conf(5) of 24.11 to 26.05 describes one, with LINE;
# node1's slurmd restarted on it.
tmpfs_conf() {
	cat > "$CONF" <<EOF
# job_container.conf of a job_container/tmpfs site
AutoBasePath=true
BasePath=$BASE/dropin/%n
Dirs=/tmp,/dev/shm
InitScript=$2
CloneNSScript=$1
CloneNSScript_Wait=20
CloneNSEpilog=$SCRIPTS/epilog.sh
CloneNSEpilog_Wait=20
${3:-}
EOF
	"$CLUSTER" restart-slurmd node1 >/dev/null 2>&1 && wait_node_idle node1
}

# env_of FILE NAME: the value of NAME in an env listing.
env_of() { sed -n "s/^$2=//p" "$1" 2>/dev/null; }

test_tmpfs_site() {
	local j env ns=nsfs
	tmpfs_conf "$SCRIPTS/clone.sh" "$SCRIPTS/init.sh"
	ok $? "precondition: node1 runs with a tmpfs site's job_container.conf" || return
	[ -d "$BASE/dropin/node1" ]
	ok $? "BasePath's %n is node1's name: AutoBasePath made $BASE/dropin/node1"
	rm -f /tmp/dropin-probe
	j=$(submit -w node1 -n1 -- "echo private > /tmp/dropin-probe && echo wrote > $OUT/dropin-wrote; \
findmnt -no TARGET,SOURCE /tmp | tail -1 > $OUT/dropin-tmp")
	[[ $j =~ ^[0-9]+$ ]] && wait_job_gone "$j"
	ok $? "precondition: the job ran and ended (job '$j')" || return
	is "$(cat "$OUT/dropin-wrote" 2>/dev/null)" wrote "precondition: the job wrote /tmp/dropin-probe"
	[ ! -e /tmp/dropin-probe ]
	ok $? "its /tmp is private: the node's /tmp has no dropin-probe"
	like "$(cat "$OUT/dropin-tmp" 2>/dev/null)" "^/tmp " "  /tmp is a mount of its own in the job"

	env=$OUT/dropin-init-env.$j
	[ -s "$env" ]
	ok $? "InitScript ran for job $j"
	is "$(env_of "$env" SLURM_JOB_ID)" "$j" "  with SLURM_JOB_ID"
	is "$(env_of "$env" SLURM_JOB_MOUNTPOINT_SRC)" "$BASE/dropin/node1/$j" \
		"  with SLURM_JOB_MOUNTPOINT_SRC, the job's directory"
	is "$(cat "$OUT/dropin-init-uid.$j" 2>/dev/null)" 0 "  as root"

	env=$OUT/dropin-clone-env.$j
	[ -s "$env" ]
	ok $? "CloneNSScript ran for job $j" || return
	is "$(env_of "$env" SLURM_JOB_ID)" "$j" "  with SLURM_JOB_ID"
	is "$(env_of "$env" SLURM_NS)" "$BASE/dropin/node1/$j/.ns" "  with SLURM_NS, the namespace's pin"
	is "$(env_of "$env" SLURMD_NODENAME)" node1 "  with SLURMD_NODENAME"
	is "$(cat "$OUT/dropin-clone-ns.$j" 2>/dev/null)" "$ns" "  once the namespace exists (SLURM_NS is an nsfs)"
	is "$(cat "$OUT/dropin-clone-uid.$j" 2>/dev/null)" 0 "  as root"
	# 22.05's tmpfs gives no step record, and no user (slurm_compat.h).
	if slurm_at_least 23.02; then
		is "$(env_of "$env" SLURM_JOB_USER)" "$USER1" "  with SLURM_JOB_USER"
		is "$(env_of "$env" SLURM_JOB_UID)" "$(id -u "$USER1")" "  with SLURM_JOB_UID"
	else
		skip_checks 2 "SLURM_JOB_USER, SLURM_JOB_UID: Slurm 22.05 gives its scripts none"
	fi
	! grep -q '^HOME=' "$env"
	ok $? "  and nothing of slurmd's environment (no HOME)"

	env=$OUT/dropin-epilog-env.$j
	wait_for 20 test -s "$env"
	ok $? "CloneNSEpilog ran at the job's end"
	is "$(env_of "$env" SLURM_JOB_ID)" "$j" "  with SLURM_JOB_ID"
	is "$(env_of "$env" SLURM_NS)" "$BASE/dropin/node1/$j/.ns" "  with SLURM_NS"
	is "$(cat "$OUT/dropin-epilog-ns.$j" 2>/dev/null)" "$ns" "  before the namespace went"
	# Before 24.05 slurmd and the extern stepd both end the job, maybe at
	# once: the epilog's second makes room for the other's run, which
	# would add a line (or see the namespace go).  Both ends run the epilog
	# under the job's end lock, and only while its namespace exists, before
	# they remove the job's directory: once that is gone, no run of the
	# epilog can still come.
	wait_for 20 test ! -e "$BASE/dropin/node1/$j"
	ok $? "  and then the job's directory went"
	is "$(echo $(cat "$OUT/dropin-epilog-runs.$j" 2>/dev/null))" "$ns" \
		"  once, and the namespace outlives it, though two daemons end the job"
}

# test_failing_script KEY: InitScript or CloneNSScript fails.
test_failing_script() {
	local key=$1 j before
	if [ "$key" = InitScript ]; then
		tmpfs_conf "$SCRIPTS/clone.sh" "$SCRIPTS/fail.sh"
	else
		tmpfs_conf "$SCRIPTS/fail.sh" "$SCRIPTS/init.sh"
	fi
	ok $? "precondition: node1 runs with a $key that fails" || return
	before=$(wc -l < "$LOG")
	rm -f "$OUT/dropin-refused"
	j=$(submit -w node1 -n1 -- "echo ran > $OUT/dropin-refused")
	[[ $j =~ ^[0-9]+$ ]] && wait_for 60 logged_since "$before" \
		"job $j: $key $SCRIPTS/fail.sh failed (exit status 3): no namespace for you"
	ok $? "slurmd logs job $j's $key failure with its status and output"
	[ ! -e "$OUT/dropin-refused" ]
	ok $? "  the job did not run"
	wait_for 20 test ! -e "$BASE/dropin/node1/$j"
	ok $? "  and nothing of its namespace is left"
	[ ! -e "$OUT/dropin-epilog-env.$j" ]
	ok $? "  no CloneNSEpilog ran for a namespace that never served"
	cl scancel "$j" 2>/dev/null
	wait_job_gone "$j"
	cl scontrol update nodename=node1 state=resume >/dev/null 2>&1
}

# test_shared LINE WANT: with LINE (Shared=true, or none), a tmpfs that
# root mounts on the node while the job runs (autofs's case) is seen in
# the job's namespace (WANT mounted) or not (WANT empty: the job looked and
# read nothing, which it says, unlike a job that never looked).  The mount
# point is a shared mount, as systemd makes every mount of a node: only
# such a mount passes later mounts on (this host's / may be private).
test_shared() {
	local line=$1 want=$2 j mnt=$SCRIPTS/shared
	mkdir -p "$mnt"
	tmpfs_conf "$SCRIPTS/clone.sh" "$SCRIPTS/init.sh" "$line" &&
		mount --bind "$mnt" "$mnt" && mount --make-shared "$mnt"
	ok $? "precondition: node1 runs with ${line:-no Shared line}, $mnt is a shared mount" ||
		{ unmount_all "$mnt"; return; }
	rm -f "$OUT"/dropin-shared-*
	j=$(submit -w node1 -n1 -- "touch $OUT/dropin-shared-ready; \
while [ ! -e $OUT/dropin-shared-go ]; do sleep 0.2; done; \
echo \"seen:\$(cat $mnt/marker 2>/dev/null)\" > $OUT/dropin-shared-seen.tmp; \
mv $OUT/dropin-shared-seen.tmp $OUT/dropin-shared-seen")
	wait_for 30 test -e "$OUT/dropin-shared-ready" &&
		mount -t tmpfs -o size=1m devns-dropin "$mnt" &&
		echo mounted > "$mnt/marker"
	ok $? "precondition: job $j runs, then root mounts a tmpfs at $mnt on the node" || {
		cl scancel "$j"; unmount_all "$mnt"; return; }
	touch "$OUT/dropin-shared-go"
	wait_for 30 test -e "$OUT/dropin-shared-seen"
	is "$(cat "$OUT/dropin-shared-seen" 2>/dev/null)" "seen:$want" \
		"  ${line:-without Shared}: $([ -n "$want" ] && echo "the mount reaches the job" || echo "the job does not see the mount")"
	unmount_all "$mnt"
	wait_job_gone "$j"
}

# unmount_all DIR: every mount stacked on DIR.
unmount_all() { while mountpoint -q "$1"; do umount "$1" || return; done; }

# EntireStepInNS=yes, from 24.11.1: the batch step's slurmstepd itself
# starts in the job's namespace, so what it opens for the step (its
# --output) is in the job's directories.  Before 24.11.1 Slurm gives no
# call for it and slurmd refuses the key, saying why.
test_entire_step() {
	local j before pid job_ns
	before=$(wc -l < "$LOG")
	if ! slurm_at_least 24.11.1; then
		NODE_IDLE_WAIT=5 tmpfs_conf "$SCRIPTS/clone.sh" "$SCRIPTS/init.sh" EntireStepInNS=yes
		wait_for 10 logged_since "$before" "EntireStepInNS=yes needs Slurm 24.11.1 or later"
		ok $? "EntireStepInNS=yes: slurmd logs that it needs Slurm 24.11.1 or later"
		slurmd_stopped node1
		ok $? "  and does not run (cluster.sh status: stopped)"
		skip_checks 2 "EntireStepInNS's effect: Slurm $DEVNS_SLURM_VERSION has no call for it"
		return
	fi
	tmpfs_conf "$SCRIPTS/clone.sh" "$SCRIPTS/init.sh" EntireStepInNS=yes
	ok $? "precondition: node1 runs with EntireStepInNS=yes" || return
	rm -f /tmp/dropin-entire.out "$OUT/dropin-entire-ns"
	j=$(cl_as $USER1 sbatch --parsable -w node1 -n1 -o /tmp/dropin-entire.out --wrap \
		"readlink /proc/self/ns/mnt > $OUT/dropin-entire-ns.tmp; mv $OUT/dropin-entire-ns.tmp $OUT/dropin-entire-ns; echo out; sleep 120")
	wait_for 30 test -s "$OUT/dropin-entire-ns" &&
		pid=$(pgrep -o -f "slurmstepd: \[$j\.batch\]")
	ok $? "precondition: job $j runs, its batch step's slurmstepd is pid ${pid:-none}" ||
		{ cl scancel "$j"; return; }
	job_ns=$(cat "$OUT/dropin-entire-ns")
	is "$(readlink "/proc/$pid/ns/mnt")" "$job_ns" \
		"  that slurmstepd is in the job's mount namespace ($job_ns)"
	wait_for 10 eval 'nsenter -t "$pid" -m cat /tmp/dropin-entire.out 2>/dev/null | grep -qx out' &&
		[ ! -e /tmp/dropin-entire.out ]
	ok $? "  so the job's --output /tmp/dropin-entire.out is in the job's /tmp, not the node's"
	cl scancel "$j"
	wait_job_gone "$j"
}

# Whatever stopped a test early, node1 gets the harness's file back.
cleanup() {
	cmp -s "$CONF_SAVED" "$CONF" || conf_restore node1
	cl scontrol update nodename=node1 state=resume >/dev/null 2>&1
	unmount_all "$SCRIPTS/shared"
	rm -rf --one-file-system "$SCRIPTS" "$BASE/dropin"
	rm -f "$OUT"/dropin-* "$OUT"/.dropin-* /tmp/dropin-probe /tmp/dropin-entire.out
}
at_exit cleanup

setup
test_tmpfs_site
test_failing_script InitScript
test_failing_script CloneNSScript
test_shared Shared=true mounted
test_shared "" ""
test_entire_step
conf_restore node1
ok $? "node1 is back with the harness's settings"
tap_done
