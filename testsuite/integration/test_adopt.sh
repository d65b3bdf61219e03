#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_adopt.sh - processes adopted into a job by pam_slurm_adopt (an ssh
# login to a node where the user has a job) are contained like the job's
# own: they join its mount namespace (its /tmp) and its device cgroup (its
# GPU only).  When containment cannot be applied, the login is refused.
#
# The PAM client is helpers/pam_adopt: it runs the account stack of a
# private PAM directory (service "sshd", the one pam_slurm_adopt accepts)
# inside the node's namespaces, then runs a command as the user, as sshd
# would.  Nothing under /etc/pam.d is touched.
#
# Twenty logins into one job check join_external's fds (Slurm 26.11's
# slurmstepd closes each fd it hands a login and frees each entry): each
# login lands in the job, and the extern stepd neither dies nor gains or
# loses an fd.
#
# Another user asking the extern stepd for the job's namespace fd by hand
# is refused (before 25.11); the owner and root get it.
source "$(dirname "$0")/lib.sh"
plan 23

USER1=dnalice
DEV=$DEVNS_CLUSTER_ROOT/dev
CG=/sys/fs/cgroup/unified/devns
PAMDIR=$DEVNS_CLUSTER_ROOT/pam
GPUS="$DEV/nvidia0 $DEV/nvidia1 $DEV/nvidia2 $DEV/nvidia3"

# gpu_probe: one word per fake GPU: ENXIO (allowed), EPERM (denied), other.
GPU_PROBE='for g in '$GPUS'; do e=$( (exec 3<"$g") 2>&1); case "$e" in
*"No such device"*) printf "ENXIO ";; *"not permitted"*) printf "EPERM ";; *) printf "other ";; esac; done; echo'

# login NODE CMD: log in as USER1 through pam_slurm_adopt on NODE, run CMD.
login() {
	local node=$1; shift
	on_node "$node" "$HELPERS/pam_adopt" "$PAMDIR" sshd "$USER1" sh -c "$*"
}

setup() {
	local module
	module=$(pam_slurm_adopt_module)
	[ -n "$module" ] || { echo "1..0 # SKIP pam_slurm_adopt.so not found"; exit 0; }
	[ -x "$HELPERS/pam_adopt" ] || { echo "1..0 # SKIP helpers/pam_adopt not built"; exit 0; }
	mkdir -p "$OUT" "$PAMDIR" && chmod 1777 "$OUT"
	# action_adopt_failure=deny: a process that cannot be contained is
	# refused instead of logged in outside the job (the default is allow).
	echo "account required $module nodename=node1 action_adopt_failure=deny action_no_jobs=deny" \
		> "$PAMDIR/sshd"
	diag "pam_slurm_adopt: $module"
}

# job_on_node1: a held-open GPU job of USER1 that wrote /tmp/adopt-marker.
start_job() {
	local j
	rm -f "$OUT/adopt-ready"
	j=$(cl_as $USER1 sbatch --parsable -w node1 -n1 --gres=gpu:1 -o /dev/null --wrap \
		"echo from-the-job > /tmp/adopt-marker; echo \$SLURM_JOB_GPUS > $OUT/adopt-ready; sleep 300")
	wait_for 60 test -s "$OUT/adopt-ready"
	echo "$j"
}

test_adopted_login() {
	local j gpu out want name
	j=$(start_job)
	gpu=$(cat "$OUT/adopt-ready" 2>/dev/null)
	out=$(login node1 'cat /tmp/adopt-marker; id -un; cat /proc/self/cgroup | grep "^0::"; '"$GPU_PROBE" 2>&1)
	is "$(echo "$out" | sed -n 1p)" "from-the-job" \
		"an adopted login sees the job's private /tmp"
	is "$(echo "$out" | sed -n 2p)" "$USER1" "and runs as the user"
	if cgroup_unified; then
		like "$(echo "$out" | sed -n 3p)" "^0::/system.slice/node1_slurmstepd.scope/$(job_cg "$j")/step_extern/" \
			"it is in Slurm's extern step cgroup of the job"
	else
		is "$(echo "$out" | sed -n 3p)" "0::/devns/node1/job_$j" \
			"it is in the job's device cgroup"
	fi
	want=""
	for i in 0 1 2 3; do
		if [ "$i" = "$gpu" ]; then want="${want}ENXIO "; else want="${want}EPERM "; fi
	done
	is "$(echo "$out" | sed -n 4p)" "$want" \
		"it opens the job's GPU $gpu (ENXIO) and no other (EPERM)"
	[ ! -e /tmp/adopt-marker ]
	ok $? "the job's /tmp file is not in the host's /tmp"
	# Slurm 24.11's extern stepd polls an adopted pid once a second from a
	# detached thread that calls into plugins; ending the job within that
	# second crashes the stepd once its plugins are unloaded (a Slurm race,
	# seen on 24.11.5), before it can clean up.  A login ends long before
	# its job in real life: let the poll see it go first.
	sleep 2
	name=$(job_cg "$j")
	cl scancel "$j"
	wait_job_gone "$j"
	wait_for 20 test ! -e "$(job_cgroups node1)/$name"
	ok $? "after the job, its device cgroup is gone, adopted processes included"
}

# A filtered job whose device cgroup has vanished: the login is refused (from
# 25.11, whose pam_slurm_adopt mishandles a refusal, its process is killed).
test_adopt_fail_closed() {
	local j out p
	if cgroup_unified; then
		skip_checks 5 "an adopted login into a vanished device cgroup: the hybrid layout only (devns's own cgroup per job)"
		return
	fi
	j=$(start_job)
	[ -s "$OUT/adopt-ready" ] && [ "$(job_state "$j")" = RUNNING ] && [ -d "$CG/node1/job_$j" ]
	ok $? "precondition: job $j runs on node1 in its device cgroup"
	for p in $(cat "$CG/node1/job_$j/cgroup.procs" 2>/dev/null); do
		echo "$p" > /sys/fs/cgroup/unified/cgroup.procs
	done
	rmdir "$CG/node1/job_$j" && [ ! -e "$CG/node1/job_$j" ]
	ok $? "precondition: the job's device cgroup is removed under it"
	out=$(login node1 'echo logged-in' 2>&1)
	! echo "$out" | grep -qx logged-in
	ok $? "no device cgroup to adopt into: the login does not get in"
	if slurm_at_least 25.11; then
		# 25.11's pam_slurm_adopt may let a refused login go on: devns
		# kills the process it cannot contain instead of refusing it.
		like "$(grep -m1 "job $j: adopted pid [0-9]* cannot be put under its device filter: killed" \
			"$DEVNS_CLUSTER_ROOT/log/slurmd-node1.log")" "No such file or directory" \
			"Slurm $DEVNS_SLURM_VERSION: the login's process is killed, and the slurmd log says so"
	else
		like "$out" "Access denied by pam_slurm_adopt" "the user is told access is denied"
	fi
	like "$(grep -m1 "job $j: cannot open its device cgroup for an adopted process" \
		"$DEVNS_CLUSTER_ROOT/log/slurmd-node1.log")" "No such file or directory" \
		"the reason is in the slurmd log"
	cl scancel "$j"
	wait_job_gone "$j"
}

# extern_stepd JOB: the pid of JOB's extern slurmstepd on node1: the one
# listening on its socket, SlurmdSpoolDir/node1_JOB.4294967292 (its title
# will not do: 22.05 cuts "slurmstepd: [JOB.extern]" to its argv's length).
extern_stepd() {
	on_node node1 ss -xlpn 2>/dev/null |
		awk -v s="/node1_$1.4294967292" 'index($0, s " ") && match($0, /pid=[0-9]+/) {
			print substr($0, RSTART + 4, RLENGTH - 4); exit }'
}

# extern_fds PID: the open fds of the extern slurmstepd PID.
# shellcheck disable=SC2012 # the count ls /proc/PID/fd gives
extern_fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }

# Twenty logins one after the other into one running job: each is in the
# job's mount namespace and under its device filter, the job and its
# extern stepd run on, and the stepd's open fds are as many after as
# before (from the first login on: it opens the namespace fds devns keeps
# for the job's life).  On 26.11 an entry Slurm may not free kills the
# stepd at the first login, and a cached fd handed as is is closed by it:
# the next logins then fail or get a stale fd.
test_twenty_logins() {
	local j gpu pid ns want line before after in_ns=0 filtered=0 i
	rm -f "$OUT/adopt20-ready"
	j=$(cl_as $USER1 sbatch --parsable -w node1 -n1 --gres=gpu:1 -o /dev/null --wrap \
		"readlink /proc/self/ns/mnt > $OUT/adopt20-ns; echo \$SLURM_JOB_GPUS > $OUT/adopt20-ready; sleep 300")
	wait_for 60 test -s "$OUT/adopt20-ready" &&
		pid=$(extern_stepd "$j")
	ok $? "precondition: job $j runs on node1, its extern slurmstepd is pid ${pid:-none}" ||
		{ cl scancel "$j"; skip_checks 5 "no running job"; return; }
	ns=$(cat "$OUT/adopt20-ns") gpu=$(cat "$OUT/adopt20-ready")
	want=""
	for i in 0 1 2 3; do
		if [ "$i" = "$gpu" ]; then want="${want}ENXIO "; else want="${want}EPERM "; fi
	done
	line=$(login node1 'readlink /proc/self/ns/mnt' 2>&1)
	is "$line" "$ns" "the first login is in the job's mount namespace ($ns)"
	# Its request's thread closes what it was handed after the login ends.
	sleep 1
	before=$(extern_fds "$pid")
	for i in $(seq 20); do
		line=$(login node1 'readlink /proc/self/ns/mnt; '"$GPU_PROBE" 2>&1)
		[ "$(echo "$line" | sed -n 1p)" = "$ns" ] && in_ns=$((in_ns + 1))
		[ "$(echo "$line" | sed -n 2p)" = "$want" ] && filtered=$((filtered + 1))
	done
	is "$in_ns" 20 "20 more logins, one after the other: $in_ns in the job's mount namespace"
	is "$filtered" 20 "  $filtered under its device filter (GPU $gpu only)"
	[ "$(job_state "$j")" = RUNNING ] && kill -0 "$pid" 2>/dev/null &&
		[ "$(extern_stepd "$j")" = "$pid" ]
	ok $? "the job runs on, with the same extern slurmstepd ($pid)"
	wait_for 10 eval '[ "$(extern_fds "$pid")" = "$before" ]'
	after=$(extern_fds "$pid")
	# A stepd that died has none to count: 0 and 0 prove nothing.
	[ "$before" -gt 0 ] && [ "$after" = "$before" ]
	ok $? "the extern slurmstepd's open fds: $before before the 20 logins, $after after"
	cl scancel "$j"
	wait_job_gone "$j"
}

# extern_sock JOB: the path of JOB's extern slurmstepd's socket on node1.
extern_sock() {
	on_node node1 ss -xlpn 2>/dev/null |
		awk -v s="/node1_$1.4294967292" '{ for (i = 1; i <= NF; i++)
			if (substr($i, length($i) - length(s) + 1) == s) { print $i; exit } }'
}

# The namespace fd asked of the extern stepd by hand (helpers/nsfd_ask,
# Slurm's own protocol), as pam_slurm_adopt asks it after its
# REQUEST_ADD_EXTERN_PID.  Slurm's handler checks no uid and the socket is
# 0777: before, any local user got any job's namespace and could hold it
# past the job (issue 42).  Now another user is refused and slurmd's log
# says who; the job's owner and root get it, and a login through
# pam_slurm_adopt lands in the job as before.  Until 25.11 only: from
# 25.11 devns does not refuse (README).  5 checks.
test_nsfd_users() {
	local j sock ver ns out out2 other=dnbob log=$DEVNS_CLUSTER_ROOT/log/slurmd-node1.log
	if slurm_at_least 25.11; then
		skip_checks 5 "Slurm $DEVNS_SLURM_VERSION: from 25.11 devns does not refuse the namespace fd to other users (README)"
		return
	fi
	if [ ! -x "$HELPERS/nsfd_ask" ] || ! command -v setpriv >/dev/null; then
		skip_checks 5 "no helpers/nsfd_ask built or no setpriv"
		return
	fi
	case $DEVNS_SLURM_VERSION in	# the client's protocol version
	22.05*) ver=$((38 << 8)) ;; 23.02*) ver=$((39 << 8)) ;; 23.11*) ver=$((40 << 8)) ;;
	24.05*) ver=$((41 << 8)) ;; 24.11*) ver=$((42 << 8)) ;; *) ver=$((43 << 8)) ;;
	esac
	rm -f "$OUT/nsfd-ns"
	j=$(cl_as $USER1 sbatch --parsable -w node1 -n1 -o /dev/null --wrap \
		"readlink /proc/self/ns/mnt > $OUT/nsfd-ns.tmp; mv $OUT/nsfd-ns.tmp $OUT/nsfd-ns; sleep 300")
	wait_for 60 test -s "$OUT/nsfd-ns" && sock=$(extern_sock "$j") && [ -n "$sock" ]
	ok $? "precondition: job $j of $USER1 runs on node1, its extern stepd listens on ${sock:-nothing}" ||
		{ cl scancel "$j"; skip_checks 4 "no running job"; return; }
	ns=$(cat "$OUT/nsfd-ns")
	out=$(on_node node1 setpriv --reuid="$other" --regid="$(id -g "$other")" --init-groups \
		"$HELPERS/nsfd_ask" "$sock" "$ver" 2>&1)
	is "$out" refused "$other, not the job's owner, asking job $j's extern stepd for its namespace fd is refused (before: fd $ns)"
	grep -q "job $j: refusing its namespace fd: uid $(id -u "$other") (pid [0-9]*) may be asking; only root and the job's owner (uid $(id -u $USER1)) may have it" "$log"
	ok $? "  slurmd's log names the user refused and who may have it"
	out=$(on_node node1 setpriv --reuid=$USER1 --regid="$(id -g $USER1)" --init-groups \
		"$HELPERS/nsfd_ask" "$sock" "$ver" 2>&1)
	out2=$(on_node node1 "$HELPERS/nsfd_ask" "$sock" "$ver" 2>&1)
	[ "$out" = "fd $ns" ] && [ "$out2" = "fd $ns" ]
	ok $? "the job's owner ($out) and root ($out2) get it"
	out=$(login node1 'readlink /proc/self/ns/mnt' 2>&1)
	is "$out" "$ns" "a login through pam_slurm_adopt (root's request) lands in the job's namespace"
	cl scancel "$j"
	wait_job_gone "$j"
}

test_no_job() {
	local out
	out=$(login node1 'echo logged-in' 2>&1)
	like "$out" "you have no active jobs on this node" \
		"a user without a job on the node is refused (pam_slurm_adopt itself)"
}

setup
test_adopted_login
test_adopt_fail_closed
test_twenty_logins
test_nsfd_users
test_no_job
tap_done
