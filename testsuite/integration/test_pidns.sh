#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_pidns.sh - PidNamespace=yes on the real cluster: ps in a job shows
# only the job's processes; its steps, TaskProlog and TaskEpilog share the
# namespace; Slurm's signals, scancel, time limits, sstat and process
# tracking keep working, a hanging --task-epilog is killed at Slurm's
# timeout; logins adopted through pam_slurm_adopt and
# pam_devns join it; nothing is left; slurmd refuses to start without the
# SPANK half (plugstack.conf).
#
# node2 gets PidNamespace=yes, node1 keeps the default and shows what ps
# sees without it.  The cluster runs with TaskProlog/TaskEpilog and
# jobacct_gather/linux (for sstat) during the test, and is restarted back
# to the defaults at the end.
source "$(dirname "$0")/lib.sh"
plan 44

USER1=dnalice
JOB_OUT_PREFIX=pid
ETC=$DEVNS_CLUSTER_ROOT/etc
LOG=$DEVNS_CLUSTER_ROOT/log/slurmd-node2.log

setup() {
	out_setup pid
}

# restart_cluster EXTRA: the whole cluster with these slurm.conf lines
# (a restart rewrites every file under etc/), then PidNamespace on node2.
restart_cluster() {
	restart_with DEVNS_SLURM_CONF_EXTRA="$1"
	setup
}

no_init() { ! pgrep -x devns-init >/dev/null; }

enable_pidns() {
	echo "NodeName=node2 PidNamespace=yes" >> "$CONF"
	"$CLUSTER" restart-slurmd node2 >/dev/null 2>&1
	wait_node_idle node2
}

# The task hook records what TaskProlog and TaskEpilog see.
write_hook() {
	mkdir -p "$ETC/task_hook.d"
	cat > "$ETC/task_hook.d/run" <<EOF
#!/bin/sh
[ "\$SLURM_JOB_NAME" = devns-pid ] || exit 0
ps -e -o pid=,comm= > $OUT/pid-hook-\$1-\$SLURM_JOB_ID
EOF
	chmod 0755 "$ETC/task_hook.d/run"
}

# pid_one FILE: the comm of PID 1 in a ps listing.
pid_one() { awk '$1 == 1 { print $2 }' "$1" 2>/dev/null; }

test_ps_in_job() {
	local j host_sleep
	sleep 4242 & host_sleep=$!
	j=$(cl_as $USER1 sbatch --parsable -J devns-pid -w node2 -n1 -o "$OUT/pid-%j.out" --wrap "
		ps -e -o pid=,comm= > $OUT/pid-batch-ps
		echo \$\$ > $OUT/pid-batch-self
		readlink /proc/self > $OUT/pid-batch-procself
		srun -n1 sh -c 'ps -e -o pid=,comm= > $OUT/pid-step-ps'")
	wait_job_gone "$j"
	[ -s "$OUT/pid-batch-ps" ] && [ -s "$OUT/pid-step-ps" ]
	ok $? "precondition: the job on node2 ran its batch script and its step" || { kill $host_sleep; return; }
	is "$(pid_one "$OUT/pid-batch-ps")" devns-init "ps in the job: PID 1 is the namespace's init"
	! grep -Eq 'slurmstepd|slurmd|munged' "$OUT/pid-batch-ps"
	ok $? "ps in the job shows no slurmd, slurmstepd or munged"
	! awk '{ print $1 }' "$OUT/pid-batch-ps" | grep -qx "$host_sleep"
	ok $? "nor a host process (pid $host_sleep)"
	grep -Eq "^ *$(cat "$OUT/pid-batch-self") " "$OUT/pid-batch-ps"
	ok $? "the batch script sees itself (its \$\$ is in its own ps)"
	like "$(cat "$OUT/pid-batch-procself")" '^[0-9]+$' "/proc/self works in the job"
	grep -Eq "^ *$(cat "$OUT/pid-batch-self") " "$OUT/pid-step-ps"
	ok $? "an srun step shares the namespace: it sees the batch script"
	is "$(pid_one "$OUT/pid-hook-prolog-$j")" devns-init "TaskProlog runs in the job's PID namespace"
	is "$(pid_one "$OUT/pid-hook-epilog-$j")" devns-init "TaskEpilog runs in the job's PID namespace"
	kill $host_sleep

	# node1 has no PidNamespace: there ps shows the host (the check above could fail).
	j=$(submit -w node1 -n1 -- "ps -e -o pid=,comm= > $OUT/pid-node1-ps")
	wait_job_gone "$j"
	grep -q slurmstepd "$OUT/pid-node1-ps"
	ok $? "without PidNamespace (node1) ps in a job shows slurmstepd"
}

# The job's end takes the namespace's init with it, inside Slurm's own
# kill: on pure cgroup v2 an init Slurm did not track stayed in the extern
# step's slurm cgroup, out of reach of its cgroup.kill, until slurmd gave
# up after about a minute and drained the node ("Kill task failed").
test_job_end() {
	local j ns cg dir
	j=$(submit -w node2 -n1 -- "readlink /proc/self/ns/pid > $OUT/pid-end-ns; sleep 8")
	wait_for 30 test -s "$OUT/pid-end-ns"
	ns=$(cat "$OUT/pid-end-ns" 2>/dev/null)
	cg=$(job_cg "$j")
	dir=$(job_cgroups node2)
	ns_init() { for p in $(pgrep -x devns-init); do [ "$(readlink /proc/$p/ns/pid)" = "$ns" ] && echo $p; done; }
	[ -n "$(ns_init)" ] && [ -n "$cg" ] && [ -d "$dir/$cg" ]
	ok $? "precondition: job $j runs on node2 in $ns, with its init and its cgroup $cg" || return
	wait_job_gone "$j"
	ok $? "precondition: job $j ended"
	no_ns_init() { [ -z "$(ns_init)" ]; }
	wait_for 20 no_ns_init
	ok $? "its init is gone within 20 s of the job's end" || diag "$(pgrep -a -x devns-init)"
	wait_for 20 test ! -e "$dir/$cg"
	ok $? "and so is its cgroup" || diag "left: $(find "$dir/$cg" -name cgroup.procs -exec grep -H . {} + 2>&1 | head)"
	# The drain would come from one of the job's stepds giving up on its
	# processes (UnkillableStepTimeout, 60 s), before it exits: "not
	# drained" means something once none of them is left.
	wait_for 90 no_host_procs "slurmstepd: \[$j\."
	ok $? "precondition: no slurmstepd of job $j is left, the drain could have come" ||
		diag "$(pgrep -a -f "slurmstepd: \[$j\.")"
	like "$(cl sinfo -h -n node2 -o '%t %E')" '^(idle|mix|alloc) ' "node2 is not drained"
}

# srun --task-epilog runs as the stand-in's child (born outside, forked
# inside); past its 5 s Slurm kills it with killpg on the stand-in.  The
# hanging script and its group die then, as they do without PidNamespace.
test_task_epilog_timeout() {
	local j
	cat > "$OUT/pid-hang-epilog" <<EOF
#!/bin/sh
sleep 4716 &
touch $OUT/pid-hang-started
exec sleep 4715
EOF
	chmod 0755 "$OUT/pid-hang-epilog"
	j=$(submit -w node2 -n1 -- "srun -n1 --task-epilog=$OUT/pid-hang-epilog true; touch $OUT/pid-hang-after")
	wait_file "$OUT/pid-hang-started"
	ok $? "precondition: the step's --task-epilog started and hangs" || { cl scancel "$j"; return; }
	wait_for 60 test -e "$OUT/pid-hang-after"
	ok $? "Slurm's timeout ends the hanging --task-epilog: srun returns"
	wait_for 10 no_host_procs 'sleep 4715'
	ok $? "  the script is killed"
	wait_for 10 no_host_procs 'sleep 4716'
	ok $? "  and so is its background process (its process group)"
	cl scancel "$j" 2>/dev/null
	wait_job_gone "$j"
}

# An ssh login adopted into the job (pam_slurm_adopt, then pam_devns): the
# session is born in the job's PID namespace.  Without pam_devns it is not,
# and that is what the first login shows.
test_login() {
	local j out pamdir=$DEVNS_CLUSTER_ROOT/pam
	pam_login_check || return
	mkdir -p "$pamdir"
	j=$(submit -w node2 -n1 -- "touch $OUT/pid-login-job; sleep 300")
	wait_file "$OUT/pid-login-job"
	ok $? "precondition: a job runs on node2" || { cl scancel "$j"; return; }
	mkdir -p "$pamdir-nopid"
	echo "account required $PAM_ADOPT nodename=node2 action_adopt_failure=deny action_no_jobs=deny" \
		> "$pamdir-nopid/sshd"
	out=$(on_node node2 "$HELPERS/pam_adopt" "$pamdir-nopid" sshd "$USER1" \
		sh -c 'readlink /proc/self || echo no-self' 2>&1)
	is "$out" "no-self" "without pam_devns an adopted login is outside the job's PID namespace (its /proc lacks it)"
	{ echo "account required $PAM_ADOPT nodename=node2 action_adopt_failure=deny action_no_jobs=deny"
	  echo "account required $PAM_DEVNS"; } > "$pamdir/sshd"
	out=$(on_node node2 "$HELPERS/pam_adopt" "$pamdir" sshd "$USER1" \
		sh -c 'ps -e -o pid=,comm= > '"$OUT"'/pid-login-ps; readlink /proc/self' 2>&1)
	like "$out" '^[0-9]+$' "with pam_devns the login's /proc/self works ($out)"
	is "$(pid_one "$OUT/pid-login-ps")" devns-init "  and ps in it shows the job's init as PID 1"
	grep -q sleep "$OUT/pid-login-ps" && ! grep -q slurmstepd "$OUT/pid-login-ps"
	ok $? "  and the job's processes, not the host's"
	cl scancel "$j"
	wait_job_gone "$j"
}

# Without devns_pidns.so in plugstack.conf slurmstepd would fork the tasks
# outside the namespace: slurmd refuses to start, and says what is missing.
test_fail_closed() {
	: > "$LOG"
	mv "$ETC/plugstack.conf" "$OUT/pid-plugstack.conf"
	: > "$ETC/plugstack.conf"
	"$CLUSTER" restart-slurmd node2 >/dev/null 2>&1
	wait_for 10 grep -q 'PidNamespace=yes needs "required devns_pidns.so" in' "$LOG"
	ok $? "a plugstack.conf without devns_pidns.so: slurmd logs the line it needs"
	"$CLUSTER" status 2>/dev/null | grep -Eq "slurmd node2 +stopped"
	ok $? "  and does not run (cluster.sh status: stopped)"
	mv "$OUT/pid-plugstack.conf" "$ETC/plugstack.conf"
	"$CLUSTER" restart-slurmd node2 >/dev/null 2>&1
	wait_node_idle node2
	ok $? "with the line back, node2 runs again"
}

setup
write_hook
restart_cluster "TaskProlog=$ETC/task_hook
TaskEpilog=$ETC/task_hook
JobAcctGatherType=jobacct_gather/linux"
write_hook
enable_pidns
ok $? "precondition: node2 runs with PidNamespace=yes"
# The time limit is checked before test_fail_closed, which stops node2's
# slurmd: a limit reached while slurmd is down reaches the job as a plain
# kill when slurmd is back ("CANCELLED AT", not "DUE TO TIME LIMIT").
limit_job=$(slurm_time_limit_submit node2 4712)
test_ps_in_job
test_job_end
slurm_signal_checks node2 pid 4711
slurm_sstat_check node2 pid 4713
slurm_tracking_check node2 pid 4714
test_task_epilog_timeout
test_login
slurm_time_limit_check "$limit_job" 4712
test_fail_closed
wait_for 20 no_init
ok $? "no namespace init is left on the host" || diag "$(pgrep -a -x devns-init)"
restart_cluster ""
tap_done
