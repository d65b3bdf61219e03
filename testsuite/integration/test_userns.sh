#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_userns.sh - UserNamespace=yes on the real cluster: the batch
# script, its steps, TaskProlog and TaskEpilog run in one user namespace of
# the job's own, with the identity map, as the job's user; the device
# filter still holds in it; Slurm's signals, scancel, time limits, sstat
# and process tracking keep working; logins adopted through
# pam_slurm_adopt (and pam_devns with PidNamespace) join it; a site's
# UserNsScript writes the maps, and a script that fails or leaves the
# job's uid unmapped fails the job; before 25.11 slurmd refuses it without
# PidNamespace=yes; nothing is left.
#
# node2 gets UserNamespace=yes (with PidNamespace=yes before 25.11, where
# logins reach the user namespace only through the PID namespace's init,
# and in the pure cgroup-v2 guest on every release, where the two must
# compose with Slurm's cgroup/v2); node1 keeps the default and shows the
# host's user namespace.
source "$(dirname "$0")/lib.sh"
plan 45

USER1=dnalice
USER2=dnbob
JOB_OUT_PREFIX=uns
ETC=$DEVNS_CLUSTER_ROOT/etc
LOG=$DEVNS_CLUSTER_ROOT/log/slurmd-node2.log
DEV=$DEVNS_CLUSTER_ROOT/dev
PROBE=$OUT/uns-probe.sh
GPUS="$DEV/nvidia0 $DEV/nvidia1 $DEV/nvidia2 $DEV/nvidia3"
GPU_IDX='${SLURM_STEP_GPUS:-$SLURM_JOB_GPUS}'
HOST_NS=$(readlink /proc/self/ns/user)
USER1_UID=$(id -u $USER1)
if slurm_at_least 25.11 && [ "${DEVNS_CLUSTER_VM:-}" != guest ]; then
	WITH_PIDNS=
else
	WITH_PIDNS=" PidNamespace=yes"
fi

setup() {
	out_setup uns
	write_device_probe "$PROBE"
}

# enable_userns [KEYS]: node2 with UserNamespace=yes (and what it needs
# on this release) plus KEYS.
enable_userns() {
	conf_with node2 "NodeName=node2 UserNamespace=yes$WITH_PIDNS${1:+ $1}"
}

# The task hook records the user namespace TaskProlog and TaskEpilog run in.
write_hook() {
	mkdir -p "$ETC/task_hook.d"
	cat > "$ETC/task_hook.d/run" <<EOF
#!/bin/sh
[ "\$SLURM_JOB_NAME" = devns-uns ] || exit 0
readlink /proc/self/ns/user > $OUT/uns-hook-\$1-\$SLURM_JOB_ID
EOF
	chmod 0755 "$ETC/task_hook.d/run"
}

# squeeze FILE: its first line, blanks squeezed (a map as "0 0 4294967295").
squeeze() { head -n1 "$1" 2>/dev/null | tr -s ' ' | sed 's/^ //'; }

test_in_job() {
	local j ns idx
	j=$(submit -J devns-uns -w node2 -n1 --gres=gpu:1 -- "
		readlink /proc/self/ns/user > $OUT/uns-batch-ns
		cat /proc/self/uid_map > $OUT/uns-batch-map
		id -u > $OUT/uns-batch-uid
		srun -n1 sh -c 'readlink /proc/self/ns/user > $OUT/uns-step-ns; echo $GPU_IDX > $OUT/uns-step-idx; $PROBE $GPUS > $OUT/uns-step-gpus'")
	wait_job_gone "$j"
	[ -s "$OUT/uns-batch-ns" ] && [ -s "$OUT/uns-step-ns" ] && [ -s "$OUT/uns-step-gpus" ]
	ok $? "precondition: the job on node2 ran its batch script and its step" || return
	ns=$(cat "$OUT/uns-batch-ns")
	[ "$ns" != "$HOST_NS" ] && [[ $ns == user:* ]]
	ok $? "the batch script runs in a user namespace other than the host's ($ns, host $HOST_NS)"
	is "$(cat "$OUT/uns-step-ns")" "$ns" "an srun step runs in the same one"
	is "$(cat "$OUT/uns-hook-prolog-$j" 2>/dev/null)" "$ns" "TaskProlog runs in it"
	is "$(cat "$OUT/uns-hook-epilog-$j" 2>/dev/null)" "$ns" "TaskEpilog runs in it"
	is "$(squeeze "$OUT/uns-batch-map")" "0 0 4294967295" "its uid_map is the identity"
	is "$(cat "$OUT/uns-batch-uid")" "$USER1_UID" "the job runs as its user ($USER1, uid $USER1_UID)"
	idx=$(cat "$OUT/uns-step-idx")
	like "$idx" '^[0-3]$' "precondition: Slurm gave the step one GPU ($idx)"
	is "$(word "$(cat "$OUT/uns-step-gpus")" "$idx")" ENXIO "in the user namespace the step opens its own GPU"
	is "$(cat "$OUT/uns-step-gpus" | tr ' ' '\n' | grep -c EPERM)" 3 "  and the filter denies the other three"

	j=$(submit -w node1 -n1 -- "readlink /proc/self/ns/user > $OUT/uns-node1-ns")
	wait_job_gone "$j"
	is "$(cat "$OUT/uns-node1-ns" 2>/dev/null)" "$HOST_NS" "without UserNamespace (node1) a job is in the host's user namespace"
}

# A login adopted into the job: pam_slurm_adopt, and pam_devns when the
# job has a PID namespace.  It runs in the job's user namespace.
test_login() {
	local j out pamdir=$DEVNS_CLUSTER_ROOT/pam
	pam_login_check || return
	mkdir -p "$pamdir"
	j=$(submit -w node2 -n1 -- "readlink /proc/self/ns/user > $OUT/uns-login-jobns; sleep 300")
	wait_file "$OUT/uns-login-jobns"
	ok $? "precondition: a job runs on node2" || { cl scancel "$j"; return; }
	{ echo "account required $PAM_ADOPT nodename=node2 action_adopt_failure=deny action_no_jobs=deny"
	  echo "account required $PAM_DEVNS"; } > "$pamdir/sshd"
	out=$(on_node node2 "$HELPERS/pam_adopt" "$pamdir" sshd "$USER1" \
		sh -c 'readlink /proc/$$/ns/user; id -u' 2>&1 | tr '\n' ' ')
	is "$out" "$(cat "$OUT/uns-login-jobns") $USER1_UID " "an adopted login runs in the job's user namespace, as its user"
	cl scancel "$j"
	wait_job_gone "$j"
}

# UserNsScript: the site's maps.  This one maps only root and the job's
# user and groups, each to itself (Slurm moves between root and the user
# inside): every other user's files belong to nobody in the job.
write_map_script() {
	local groups
	groups="0 $(id -G $USER1)"
	cat > "$ETC/uns-map.sh" <<EOF
#!/bin/sh
echo "\$SLURM_NS_PID" > $OUT/uns-script-pid
case "\$1\$(cat $ETC/uns-map.mode 2>/dev/null)" in
fail) echo "no maps today"; exit 3 ;;
none) exit 0 ;;
esac
printf '0 0 1\n%s %s 1\n' $USER1_UID $USER1_UID > /proc/\$SLURM_NS_PID/uid_map || exit 1
printf '%s %s 1\n' $(for g in $groups; do printf '%s %s ' "$g" "$g"; done) > /proc/\$SLURM_NS_PID/gid_map || exit 1
EOF
	chmod 0755 "$ETC/uns-map.sh"
}

# refused_with MODE WHAT TEXT: with the script in MODE a job on node2
# does not run, slurmd's log says TEXT, and nothing of it is left.
refused_with() {
	local j
	echo "$1" > "$ETC/uns-map.mode"
	: > "$LOG"
	j=$(submit -w node2 -n1 -- "touch $OUT/uns-refused-$1")
	wait_for 60 grep -q "$3" "$LOG"
	ok $? "$2: slurmd logs \"$3\""
	cl scancel "$j" 2>/dev/null
	wait_job_gone "$j"
	[ ! -e "$OUT/uns-refused-$1" ]
	ok $? "  the job did not run"
	wait_for 10 job_dir_gone node2 "$j"
	ok $? "  and left no directory or pin"
	cl scontrol update nodename=node2 state=resume >/dev/null 2>&1
	wait_node_idle node2
}

test_site_script() {
	local j
	write_map_script
	rm -f "$ETC/uns-map.mode"
	enable_userns "UserNsScript=$ETC/uns-map.sh"
	ok $? "precondition: node2 runs with UserNsScript" || return
	touch "$OUT/uns-other" && chown "$USER2" "$OUT/uns-other"
	j=$(submit -w node2 -n1 -- "tr -s ' ' < /proc/self/uid_map | sed 's/^ //' | paste -sd, > $OUT/uns-site-map; stat -c %u $OUT/uns-other > $OUT/uns-site-other; id -u > $OUT/uns-site-uid")
	wait_job_gone "$j"
	like "$(cat "$OUT/uns-script-pid" 2>/dev/null)" '^[0-9]+$' "UserNsScript ran with SLURM_NS_PID"
	is "$(cat "$OUT/uns-site-map" 2>/dev/null)" "0 0 1,$USER1_UID $USER1_UID 1" "the job's uid_map is the script's"
	is "$(cat "$OUT/uns-site-other" 2>/dev/null)" 65534 "  in which another user's ($USER2) files belong to nobody"
	is "$(cat "$OUT/uns-site-uid" 2>/dev/null)" "$USER1_UID" "  and the job runs as its user"
	refused_with fail "a failing UserNsScript fails the job" "UserNsScript $ETC/uns-map.sh failed (exit status 3): no maps today"
	refused_with none "a UserNsScript that writes no map fails the job" "uid_map does not map the job's uid $USER1_UID"
	rm -f "$ETC/uns-map.mode"
}

# Before 25.11 a login adopted into a job reaches its user namespace only
# through pam_devns and the PID namespace's init: there slurmd refuses
# UserNamespace=yes without PidNamespace=yes and says why.  From 25.11
# pam_slurm_adopt is handed the user namespace's fd: slurmd runs so.
test_without_pidns() {
	local before
	before=$(wc -l < "$LOG")
	if slurm_at_least 25.11; then
		conf_with node2 "NodeName=node2 UserNamespace=yes"
		ok $? "UserNamespace=yes without PidNamespace: node2 runs (from 25.11)"
		! logged_since "$before" "needs PidNamespace=yes"
		ok $? "  and its slurmd logs no refusal"
	else
		NODE_IDLE_WAIT=5 conf_with node2 "NodeName=node2 UserNamespace=yes"
		wait_for 10 logged_since "$before" "UserNamespace=yes needs PidNamespace=yes before Slurm 25.11"
		ok $? "UserNamespace=yes without PidNamespace: slurmd logs that it needs PidNamespace=yes before 25.11"
		slurmd_stopped node2
		ok $? "  and does not run (cluster.sh status: stopped)"
	fi
}

# A kernel that makes no user namespaces (user.max_user_namespaces=0):
# slurmd refuses UserNamespace=yes at its start rather than fail every job.
# The sysctl is the whole machine's: set in the guest only, and put back.
test_no_user_namespaces() {
	local before
	if [ "${DEVNS_CLUSTER_VM:-}" != guest ]; then
		skip_checks 2 "user.max_user_namespaces=0: the whole machine's setting, changed in the guest only"
		return
	fi
	MAX_USERNS=$(sysctl -n user.max_user_namespaces)
	before=$(wc -l < "$LOG")
	sysctl -qw user.max_user_namespaces=0 &&
		NODE_IDLE_WAIT=5 enable_userns
	wait_for 10 logged_since "$before" "this kernel makes no user namespaces (sysctl user.max_user_namespaces is 0"
	ok $? "user.max_user_namespaces=0: slurmd logs that it refuses UserNamespace=yes"
	slurmd_stopped node2
	ok $? "  and does not run (cluster.sh status: stopped)"
	restore_max_userns
}
restore_max_userns() {
	[ -z "${MAX_USERNS:-}" ] || sysctl -qw user.max_user_namespaces="$MAX_USERNS"
	MAX_USERNS=
}
at_exit restore_max_userns

userns_pins() { grep -c " $BASE/node[0-9]*/[0-9]*/.userns " /proc/self/mountinfo || true; }

setup
write_hook
restart_with DEVNS_SLURM_CONF_EXTRA="TaskProlog=$ETC/task_hook
TaskEpilog=$ETC/task_hook
JobAcctGatherType=jobacct_gather/linux"
ok $? "precondition: the cluster runs with TaskProlog, TaskEpilog and jobacct_gather/linux"
setup
write_hook
test_without_pidns
test_no_user_namespaces
enable_userns
ok $? "precondition: node2 runs with UserNamespace=yes$WITH_PIDNS"
limit_job=$(slurm_time_limit_submit node2 4722)
test_in_job
slurm_signal_checks node2 uns 4721
slurm_sstat_check node2 uns 4723
slurm_tracking_check node2 uns 4724
test_login
slurm_time_limit_check "$limit_job" 4722
test_site_script
conf_restore node2
is "$(userns_pins)" 0 "no user namespace pin is left mounted"
restart_with
tap_done
