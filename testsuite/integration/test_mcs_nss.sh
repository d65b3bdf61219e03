#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_mcs_nss.sh - mcs/devgroup never fails open when NSS is down.
#
# helpers/nss_fail.so, preloaded into the daemons (DEVNS_DAEMON_ENV), makes
# getgrnam_r/getgrgid_r of one group (DEVNS_NSS_FAIL_GROUP) fail with EIO,
# as an unreachable LDAP server does.  Checks:
#   - precondition: the configuration starts without the shim and enforces
#     (labels required, privatedata hides other groups' jobs);
#   - the same configuration with the configured group failing: slurmctld
#     does not run, and its log names the group and the error (before the
#     fix slurmctld ran with enforcement and privatedata off);
#   - one failing group among good ones, and an unknown group: the same;
#   - scontrol reconfigure to a configuration whose group fails: on 22.05
#     slurmctld exits (Slurm makes a failed mcs reconfigure fatal); on 24.11
#     the new process fails and the running one goes on with its previous
#     configuration, still enforcing.
#
# Runs in a private sandbox like test_mcs.sh (own mount and PID namespaces,
# cluster root /var/lib/devns-mcs-nss).

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

if [ -z "${_DEVNS_MCS_SANDBOX:-}" ]; then
	[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root"; exit 0; }
	exec unshare --mount --pid --fork --mount-proc --propagation private \
		env _DEVNS_MCS_SANDBOX=1 bash "$0" "$@"
fi
mkdir -p /run/netns /run/lock
mount -t tmpfs -o mode=0755 devns-mcs /run/netns
mount -t tmpfs -o mode=1777 devns-mcs /run/lock
mount -t tmpfs -o mode=0755 devns-mcs /sys/fs/cgroup
export DEVNS_CLUSTER_ROOT=${DEVNS_MCS_CLUSTER_ROOT:-/var/lib/devns-mcs-nss}
export DEVNS_JOB_CONTAINER=job_container/none

source "$TOP/testsuite/integration/lib.sh"
plan 29

CTLD_LOG=$DEVNS_CLUSTER_ROOT/log/slurmctld.log
SAVED_EXTRA=${DEVNS_SLURM_CONF_EXTRA-}
SHIM=${HELPERS:+$HELPERS/.libs/nss_fail.so}
PRIVATE="enforced,select,privatedata"

if ! plugindir=$(mcs_devgroup_plugindir); then
	echo "1..0 # SKIP mcs_devgroup.so is neither installed nor built"
	exit 0
fi
if [ ! -f "$SHIM" ]; then
	echo "1..0 # SKIP helpers/nss_fail.so is not built"
	exit 0
fi
diag "Slurm $DEVNS_SLURM_VERSION; mcs_devgroup.so from $plugindir; shim $SHIM"

finish() {
	"$CLUSTER" stop >/dev/null 2>&1
	rm -f "$DEVNS_CLUSTER_ROOT.restart.log"
}
at_exit finish

# ---- cluster control ---------------------------------------------------------

# start_with FAILING_GROUP MCSPARAMETERS: restart the cluster with
# mcs/devgroup, PrivateData=jobs and the shim failing FAILING_GROUP ("" for
# no shim).  Returns the status of the restart; its output is in
# $DEVNS_CLUSTER_ROOT.restart.log.
start_with() {
	local fail=$1
	DEVNS_SLURM_CONF_EXTRA="PluginDir=$DEVNS_SLURM_PLUGINDIR:$plugindir
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
MCSPlugin=mcs/devgroup
MCSParameters=$2
PrivateData=jobs
$SAVED_EXTRA"
	export DEVNS_SLURM_CONF_EXTRA
	if [ -n "$fail" ]; then
		export DEVNS_DAEMON_ENV="LD_PRELOAD=$SHIM DEVNS_NSS_FAIL_GROUP=$fail"
	else
		unset DEVNS_DAEMON_ENV
	fi
	MODE="$2${fail:+ (NSS fails for $fail)}"
	"$CLUSTER" restart >"$DEVNS_CLUSTER_ROOT.restart.log" 2>&1
}

# pgrep: 0 when a slurmctld runs, 1 when none does (anything else: pgrep
# failed, which proves neither).
ctld_runs() { pgrep -x slurmctld >/dev/null; }
ctld_gone() { pgrep -x slurmctld >/dev/null; [ $? -eq 1 ]; }
log_has() { grep -qF -- "$1" "$CTLD_LOG" 2>/dev/null; }

# ok_or_log STATUS NAME: ok, and on failure the lines of the log that tell why;
# returns STATUS.
ok_or_log() {
	ok "$@"
	[ "$1" -eq 0 ] || show_log
	return "$1"
}

show_log() {
	diag "restart: $(tail -3 "$DEVNS_CLUSTER_ROOT.restart.log" | tr '\n' ' ')"
	grep -E 'mcs[/ ]|mcs_|[Rr]econfig|fatal' "$CTLD_LOG" 2>/dev/null | tail -8 | sed 's/^/#   /'
}

# ---- helpers -----------------------------------------------------------------

# submit_held USER ARGS...: a held job's id, or sbatch's message.
submit_held() {
	local user=$1
	shift
	cl_as "$user" sbatch --parsable --hold -o /dev/null -J nss "$@" --wrap=true 2>&1 |
		tr '\n' ' ' | sed 's/ *$//'
}

# jobs_seen_by USER: the job ids USER's squeue lists; "sees none" only from a
# squeue that worked (reply).
jobs_seen_by() { reply cl_as "$1" squeue -h -o %i | sort | tr '\n' ' ' | sed 's/ $//'; }

# enforcing GROUP_JOB_USER: what a working mcs/devgroup with privatedata
# and enforced does.  Submits a job of USER (in the configured group) and
# checks that dndave (in no configured group) neither sees it nor may submit.
enforcing() {
	local user=$1 job out
	job=$(submit_held "$user")
	[[ $job =~ ^[0-9]+$ ]]
	ok $? "$MODE: $user's job is accepted ($job)"
	is "$(jobs_seen_by dndave)" "" "$MODE: privatedata: dndave sees no job"
	is "$(jobs_seen_by "$user")" "$job" "$MODE: privatedata: $user sees the own job"
	out=$(submit_held dndave)
	like "$out" "Invalid mcs_label specified" \
		"$MODE: enforced: dndave (no configured group) is refused"
	cl scancel "$job" 2>/dev/null
	[[ $out =~ ^[0-9]+$ ]] && cl scancel "$out" 2>/dev/null
	return 0
}

# refused MESSAGE: slurmctld does not run; its log says MESSAGE.
refused() {
	local job
	wait_for 30 ctld_gone
	if ! ok_or_log $? "$MODE: slurmctld does not run"; then
		# Say how open it is: what enforcing() would have refused.
		job=$(submit_held dndave)
		[[ $job =~ ^[0-9]+$ ]] && diag "dndave's job $job accepted"
		diag "dndave sees: '$(jobs_seen_by dndave)'"
	fi
	log_has "$1"
	ok_or_log $? "$MODE: slurmctld log: $1"
}

# ---- the checks ----------------------------------------------------------------

check_precondition() {
	start_with "" "$PRIVATE:devgrpb"
	ok_or_log $? "$MODE: the cluster starts without the shim" || return
	enforcing dnbob
	start_with devgrpa "$PRIVATE:devgrpb"
	ok_or_log $? "$MODE: the shim for another group changes nothing" || return
	enforcing dnbob
}

check_refused_at_start() {
	start_with devgrpb "$PRIVATE:devgrpb"
	refused "mcs/devgroup: MCSParameters: cannot resolve group 'devgrpb': Input/output error"
	log_has "failed to initialize mcs plugin"
	ok $? "$MODE: slurmctld says the mcs plugin failed"

	start_with devgrpb "$PRIVATE:devgrpa|devgrpb"
	refused "mcs/devgroup: MCSParameters: cannot resolve group 'devgrpb': Input/output error"

	start_with "" "$PRIVATE:devgrpa|nosuchgrp"
	refused "mcs/devgroup: MCSParameters: cannot resolve group 'nosuchgrp': no such group"
}

check_reconfigure() {
	local conf=$DEVNS_CLUSTER_ETC/slurm.conf
	start_with devgrpc "$PRIVATE:devgrpa|devgrpb"
	ok_or_log $? "$MODE: starts while the unconfigured devgrpc fails" || return
	enforcing dnalice
	sed -i 's/^MCSParameters=.*/MCSParameters='"$PRIVATE"':devgrpa|devgrpb|devgrpc/' "$conf"
	MODE="reconfigure to devgrpa|devgrpb|devgrpc (NSS fails for devgrpc)"
	cl scontrol reconfigure >/dev/null 2>&1
	wait_for 30 log_has "mcs/devgroup: MCSParameters: cannot resolve group 'devgrpc': Input/output error"
	ok_or_log $? "$MODE: slurmctld log: mcs/devgroup: MCSParameters: cannot resolve group 'devgrpc': Input/output error"
	case $DEVNS_SLURM_VERSION in
	22.05.*)
		# read_config.c: fatal("Failed to reconfigure mcs plugin").
		wait_for 30 ctld_gone
		ok_or_log $? "$MODE: 22.05: slurmctld exits (a failed mcs reconfigure is fatal)"
		log_has "Failed to reconfigure mcs plugin"
		ok $? "$MODE: 22.05: slurmctld says the mcs reconfigure failed"
		skip_checks 4 "$MODE: 22.05: slurmctld has exited, nothing runs to check"
		;;
	*)
		# The re-executed slurmctld fails; the running one resumes with
		# its previous configuration.
		wait_for 30 log_has "reconfigure failed"
		ok_or_log $? "$MODE: $DEVNS_SLURM_VERSION: the running slurmctld resumes"
		# That line ends the failed reconfigure: had slurmctld died of
		# it, it would be gone by now.
		ctld_runs
		ok $? "$MODE: $DEVNS_SLURM_VERSION: slurmctld still runs"
		enforcing dnalice
		;;
	esac
}

check_precondition
check_refused_at_start
check_reconfigure
tap_done
