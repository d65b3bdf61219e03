# SPDX-License-Identifier: GPL-2.0-or-later
#
# lib.sh - shared helpers for the integration tests.
#
# Each test file sources this, runs its checks against the real cluster of
# testsuite/cluster and prints TAP through testsuite/tap.sh: "ok N - name",
# "not ok N - name", "ok N - # SKIP why".  tap_done prints the plan and sets
# the exit status.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CLUSTER="$TOP/testsuite/cluster/cluster.sh"
# DEVNS_CLUSTER_VM=1: the cluster runs in the QEMU guest (testsuite/vm), and so does the
# whole test, which reads the cluster's files and the kernel's state directly.  The guest
# sees the repository at the same path; cluster.sh passes the DEVNS_* settings along.
if [ "${DEVNS_CLUSTER_VM:-}" = 1 ]; then
	exec "$CLUSTER" exec -- bash "$(realpath "$0")" "$@"
fi
: "${DEVNS_CLUSTER_ROOT:=/var/lib/devns-cluster}"
export DEVNS_CLUSTER_ROOT
# The cluster's paths, and which Slurm runs it (DEVNS_SLURM_PREFIX, _VERSION,
# _PLUGINDIR); PATH finds that Slurm's commands first.
eval "$("$CLUSTER" env)"
PATH=$DEVNS_SLURM_PREFIX/sbin:$DEVNS_SLURM_PREFIX/bin:$PATH
# The jobs' output folder (1777), BasePath's parent (a folder per node) and
# devns's settings every node reads (job_container.conf).
OUT=$DEVNS_CLUSTER_ROOT/out
BASE=$DEVNS_CLUSTER_ROOT/base
CONF=$DEVNS_CLUSTER_ROOT/etc/job_container.conf

# Test helpers (testsuite/integration/helpers), built with the plugins: the
# build of DEVNS_BUILD_DIR first, else one in the repository.
for _d in ${DEVNS_BUILD_DIR:+"$DEVNS_BUILD_DIR"} "$TOP/build" "$TOP"/build-[0-9]*; do
	[ -x "$_d/testsuite/integration/helpers/pam_adopt" ] || continue
	: "${HELPERS:=$_d/testsuite/integration/helpers}"
done

# The devns tool of the same build as the helpers.
DEVNS_TOOL=${HELPERS:+${HELPERS%/testsuite/integration/helpers}/devns}

# pam_slurm_adopt_module: the path of the running Slurm's pam_slurm_adopt.so,
# nothing when it has none; pam_devns_module: devns's PAM module, installed
# (make install or the package, beside pam_unix.so) or else as built beside
# the helpers.
pam_slurm_adopt_module() {
	local f
	for f in "$DEVNS_SLURM_PREFIX/lib/security/pam_slurm_adopt.so" \
		/lib/security/pam_slurm_adopt.so; do
		[ -f "$f" ] && { echo "$f"; return; }
	done
}
pam_devns_module() {
	local f
	for f in /lib/*-linux-gnu/security/pam_devns.so /usr/lib/*-linux-gnu/security/pam_devns.so \
		"${HELPERS%/testsuite/integration/helpers}/.libs/pam_devns.so"; do
		[ -f "$f" ] && { echo "$f"; return; }
	done
}

# quota_fs_make [SIZE [TYPE]]: a file system with project quotas in the
# image $QIMG, mounted on $QFS: TYPE ext4 (the default; SIZE 128M, mkfs
# -O quota,project) or xfs (SIZE at least 300M, mkfs.xfs's least; quotas
# come with the mount's prjquota); prints why it could not (no mkfs.xfs,
# a kernel without quotas).  quota_fs_remove: unmounted, both gone
# (status: nothing left).
quota_fs_make() {
	local type=${2:-ext4}
	rm -f "$QIMG" && mkdir -p "$QFS" &&
		truncate -s "${1:-128M}" "$QIMG" || return
	case $type in
	ext4) mkfs.ext4 -q -F -O quota,project "$QIMG" 2>&1 ;;
	xfs) command -v mkfs.xfs >/dev/null || { echo "no mkfs.xfs (xfsprogs)"; return 1; }
		mkfs.xfs -q -f "$QIMG" 2>&1 ;;
	*) echo "quota_fs_make: no such type $type"; return 1 ;;
	esac &&
		mount -t "$type" -o loop,prjquota "$QIMG" "$QFS" 2>&1
}
quota_fs_remove() {
	mountpoint -q "$QFS" && umount "$QFS"
	rmdir "$QFS" 2>/dev/null
	rm -f "$QIMG"
	[ ! -e "$QFS" ] && [ ! -e "$QIMG" ] && [ -z "$(losetup -j "$QIMG" 2>/dev/null)" ]
}

# pam_login_check: a login test's precondition, one check: both modules
# (in PAM_ADOPT and PAM_DEVNS) and helpers/pam_adopt are there.
pam_login_check() {
	PAM_ADOPT=$(pam_slurm_adopt_module) PAM_DEVNS=$(pam_devns_module)
	[ -n "$PAM_ADOPT" ] && [ -n "$PAM_DEVNS" ] && [ -x "$HELPERS/pam_adopt" ]
	ok $? "precondition: pam_slurm_adopt.so ($PAM_ADOPT), pam_devns.so ($PAM_DEVNS) and helpers/pam_adopt"
}

# slurm_at_least X.Y[.Z]: the running Slurm (DEVNS_SLURM_VERSION) is that
# release or a later one.
slurm_at_least() {
	[ "$(printf '%s\n%s\n' "$1" "$DEVNS_SLURM_VERSION" | sort -V | head -n1)" = "$1" ]
}

# restart_with NAME=VALUE...: restart the cluster with these settings (the
# DEVNS_* variables of cluster.sh) on top of the caller's; when it does not
# come up, the end of cluster.sh's output as diagnostics, and status 1.
restart_with() {
	local log=$DEVNS_CLUSTER_ROOT.restart.log kv
	_cluster_changed=0
	for kv; do [ -z "${kv#*=}" ] || _cluster_changed=1; done
	if ! env "$@" "$CLUSTER" restart >"$log" 2>&1; then
		diag "restart with $* failed:"
		tail -n 20 "$log" | diag
		rm -f "$log"
		return 1
	fi
	rm -f "$log"
}

# logged_since LINE PATTERN: the test's slurmd log, $LOG, has PATTERN
# after its line LINE (read anew at each call, for wait_for).
logged_since() { tail -n +"$1" "$LOG" | grep -q -- "$2"; }

# slurmd_stopped NODE: cluster.sh lists NODE's slurmd as stopped.
slurmd_stopped() { "$CLUSTER" status 2>/dev/null | grep -Eq "slurmd $1 +stopped"; }

# has_mounts NODE JOBID: something is mounted on or below the job's
# directory (its pinned namespace, BasePath/JOBID/.ns, while it runs).
# job_dir_gone NODE JOBID: JOBID is a job id and its directory is gone.
has_mounts() { grep -Eq " $BASE/$1/$2(/| )" /proc/self/mountinfo; }
job_dir_gone() { [[ $2 =~ ^[0-9]+$ ]] && [ ! -e "$BASE/$1/$2" ]; }

# word LINE N: the Nth word of LINE, counted from 0.
word() { echo "$1" | awk -v n="$2" '{print $(n + 1)}'; }

# The checks (ok, check, is, like, skip, diag, plan, tap_done): the suite's
# one TAP library.
# shellcheck source=../tap.sh
source "$TOP/testsuite/tap.sh"

# at_exit FUNCTION: run FUNCTION (the test's own cleanup) when the test
# exits, however it exits, before the library's cleanup.
_at_exit=() _conf_nodes='' _cluster_changed=0
at_exit() { _at_exit+=("$1"); }

# Every test cleans up through this trap: whatever stopped it, the cluster
# is left as the harness had it.  A job_container.conf that conf_with
# changed is put back on every node it was given to, a cluster that
# restart_with started with other settings restarts with the caller's.
_lib_cleanup() {
	local f n
	for f in "${_at_exit[@]}"; do "$f"; done
	if [ -n "${CONF_SAVED:-}" ] && [ -f "$CONF_SAVED" ] && ! cmp -s "$CONF_SAVED" "$CONF"; then
		cp "$CONF_SAVED" "$CONF"
		for n in $_conf_nodes; do "$CLUSTER" restart-slurmd "$n" >/dev/null 2>&1; done
	fi
	[ "$_cluster_changed" = 0 ] || "$CLUSTER" restart >/dev/null 2>&1
	return 0
}
trap _lib_cleanup EXIT

# Client commands run inside the cluster's client network namespace, never
# longer than DEVNS_CMD_TIMEOUT seconds (an srun waiting for a dead node
# would otherwise hang the suite).
: "${DEVNS_CMD_TIMEOUT:=120}"
cl() { timeout "$DEVNS_CMD_TIMEOUT" "$CLUSTER" run -- "$@"; }
cl_as() { local user=$1; shift; timeout "$DEVNS_CMD_TIMEOUT" "$CLUSTER" run -u "$user" -- "$@"; }
on_node() { local node=$1; shift; timeout "$DEVNS_CMD_TIMEOUT" "$CLUSTER" run -n "$node" -- "$@"; }

# wait_for SECONDS CMD...: poll CMD until it succeeds, for SECONDS times
# DEVNS_WAIT_SCALE (3) at most.  A wait is for something that must happen:
# one that does returns at once, and only a failing check waits the whole
# limit, so the limits are generous: the emulated guest runs beside the
# host's clusters on two cores, and a slow moment is not a failure.
: "${DEVNS_WAIT_SCALE:=3}"
wait_for() {
	local deadline=$((SECONDS + $1 * DEVNS_WAIT_SCALE)); shift
	until "$@"; do
		[ $SECONDS -ge $deadline ] && return 1
		sleep 0.2
	done
}

# prints_nothing CMD...: CMD prints nothing, on stdout or stderr.
# prints VALUE CMD...: CMD prints VALUE.
# For wait_for, which must run CMD anew at each poll: in
# `wait_for 30 test -z "$(CMD)"` the shell runs CMD once, before wait_for.
prints_nothing() { [ -z "$("$@" 2>&1)" ]; }
prints() { local want=$1; shift; [ "$("$@")" = "$want" ]; }

# node_idle NODE: slurmctld reports NODE ready for jobs (idle, mix, alloc).
node_idle() { cl sinfo -h -n "$1" -o %t | grep -Eq '^(idle|mix|alloc)$'; }

# wait_node_idle NODE [SECONDS]: up to SECONDS (default $NODE_IDLE_WAIT,
# else 60) for node_idle NODE.
wait_node_idle() { wait_for "${2:-${NODE_IDLE_WAIT:-60}}" node_idle "$1"; }

# wait_file PATH [SECONDS]: up to SECONDS (default $FILE_WAIT, else 30)
# for PATH to exist.
wait_file() { wait_for "${2:-${FILE_WAIT:-30}}" test -e "$1"; }

# out_setup PREFIX: $OUT without the files PREFIX-* of an earlier run, and
# devns's settings saved as $CONF_SAVED for conf_with and conf_restore.
out_setup() {
	mkdir -p "$OUT" && chmod 1777 "$OUT"
	rm -f "$OUT/$1"-*
	CONF_SAVED=$OUT/job_container.conf.$1-orig
	cp "$CONF" "$CONF_SAVED"
}

# conf_with NODE LINES...: the saved settings plus LINES; NODE's
# slurmd restarted on it and idle again.  conf_restore NODE: as saved.
conf_with() {
	local node=$1; shift
	_conf_nodes="$_conf_nodes $node"
	cp "$CONF_SAVED" "$CONF"
	printf '%s\n' "$@" >> "$CONF"
	"$CLUSTER" restart-slurmd "$node" >/dev/null 2>&1 && wait_node_idle "$node"
}
conf_restore() { conf_with "$1"; }

# submit SBATCH-ARGS... -- SCRIPT...: sbatch SCRIPT as $USER1, its output
# in $OUT/$JOB_OUT_PREFIX-<jobid>.out; prints the job id.
submit() {
	local args=()
	while [ "$1" != "--" ]; do args+=("$1"); shift; done
	shift
	cl_as "$USER1" sbatch --parsable -o "$OUT/$JOB_OUT_PREFIX-%j.out" "${args[@]}" --wrap "$*"
}

# reply CMD...: CMD's standard output, its stderr dropped, when CMD
# succeeds.  When it fails: one line "FAILED (status N): <its stderr>",
# which no expected answer matches, and status N.  For answers that may be
# empty: `is "$(reply cl squeue ...)" ""` passes only when squeue worked and
# listed nothing, never because it could not answer.
reply() {
	local err out status
	err=$(mktemp) || return 1
	out=$("$@" 2>"$err")
	status=$?
	if [ "$status" -eq 0 ]; then
		[ -z "$out" ] || printf '%s\n' "$out"
	else
		echo "FAILED (status $status): $(tr '\n' ' ' < "$err")"
	fi
	rm -f "$err"
	return "$status"
}

# job_state JOBID: the job's state as squeue shows it (PENDING, RUNNING,
# COMPLETED, ...), or "gone" once slurmctld no longer knows it: squeue
# succeeds without a line, or fails saying the job id is invalid, as
# squeue -j does for a purged job (MinJobAge).  Any other failure of squeue
# (slurmctld down, a timeout) tells nothing about the job: job_state then
# prints nothing and fails, as it does for a JOBID that is no job id (the
# message of a failed sbatch), which no squeue could call gone.
job_state() {
	local out
	[[ $1 =~ ^[0-9]+$ ]] || return 1
	if out=$(cl squeue -h -j "$1" -o %T 2>&1); then
		echo "${out:-gone}"
	elif [[ $out == *"Invalid job id specified"* ]]; then
		echo gone
	else
		return 1
	fi
}
job_gone() { [ "$(job_state "$1")" = gone ]; }
# admin_comment JOBID: the job's AdminComment (scontrol show job), empty
# when unset; admin_comment_set JOBID: it has one (devns's reason).
admin_comment() { cl scontrol show job "$1" 2>/dev/null | grep -o 'AdminComment=.*' | cut -d= -f2-; }
admin_comment_set() { [ -n "$(admin_comment "$1")" ]; }

# wait_job_gone JOBID [SECONDS]: wait until slurmctld has forgotten the
# job; says why in a diag line when it has not.
wait_job_gone() {
	wait_for "${2:-60}" job_gone "$1" && return 0
	diag "job '$1' not gone after ${2:-60}s: $(job_state "$1" || echo "no job id, or squeue gave no answer")"
	return 1
}

# The node's cgroup layout.  Hybrid (the development host): devns keeps a
# cgroup of its own per job, <cgroup2>/devns/<node>/job_<id>.  Unified
# (pure cgroup v2: the QEMU guest, real nodes): Slurm's cgroup/v2 owns the
# job cgroups, <scope>/job_<id>, one stepd scope per slurmd, and devns
# attaches its filter there.
cgroup_unified() { [ "$(stat -fc %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ]; }

# cgroup_slice: the slice Slurm's cgroup/v2 puts its stepd scopes into:
# cgroup.conf's CgroupSlice (25.11+), else system.slice.
cgroup_slice() {
	local s
	s=$(sed -n 's/^CgroupSlice=//p' "$DEVNS_CLUSTER_ETC/cgroup.conf" 2>/dev/null | tail -n 1)
	echo "${s:-system.slice}"
}

# job_cgroups NODE: the directory that holds NODE's job cgroups.
job_cgroups() {
	if cgroup_unified; then
		echo "/sys/fs/cgroup/$(cgroup_slice)/$1_slurmstepd.scope"
	else
		echo "/sys/fs/cgroup/unified/devns/$1"
	fi
}

# job_cgroups_in NODE: the job cgroups now under job_cgroups NODE, a path a
# line: devns's job_<id> (hybrid); on the unified layout every cgroup of
# Slurm's stepd scope but its "system" (the stepds) and "slurmd" (a slurmd
# started outside systemd, 25.11.3+), so that a job named after its SLUID
# (26.05) counts as well as job_<id>.
job_cgroups_in() {
	local dir
	dir=$(job_cgroups "$1")
	if cgroup_unified; then
		find "$dir" -mindepth 1 -maxdepth 1 -type d ! -name system ! -name slurmd
	else
		find "$dir" -mindepth 1 -maxdepth 1 -type d -name 'job_*'
	fi
}

# Slurm's cgroup/v2 names a job's cgroup after the job's SLUID from 26.05
# (".../sEKNKTV3WPV500/step_0") unless cgroup.conf has CgroupJobIdPaths=yes;
# devns's own cgroups (hybrid) and earlier releases use job_<id>.
slurm_cg_by_sluid() {
	cgroup_unified && slurm_at_least 26.05 &&
		! grep -qix 'CgroupJobIdPaths=yes' "$DEVNS_CLUSTER_ETC/cgroup.conf"
}

# job_cg JOBID: the name of the job's cgroup under job_cgroups NODE.  With
# SLUID names it asks squeue (-O SLUID): call it while slurmctld knows the
# job.  Prints nothing and fails when the SLUID cannot be had, so that a
# check for a cgroup's absence cannot pass on a name that never existed.
job_cg() {
	local s
	slurm_cg_by_sluid || { echo "job_$1"; return 0; }
	s=$(cl squeue -h -j "$1" -O SLUID 2>/dev/null | tr -d ' ')
	[[ $s =~ ^s[0-9A-Z]{13}$ ]] || return 1
	echo "$s"
}

# job_cg_re JOBID: an extended regex for the job's cgroup name, for a job
# that may have ended (its SLUID only by its form).
job_cg_re() {
	if slurm_cg_by_sluid; then echo 's[0-9A-Z]{13}'; else echo "job_$1"; fi
}

# host_procs PATTERN: how many processes on the host match (pgrep -f);
# no_host_procs PATTERN: none does.
host_procs() { pgrep -c -f -- "$1" || true; }
no_host_procs() { [ "$(host_procs "$1")" = 0 ]; }

# ---- Slurm keeps working with a namespace of devns's ---------------------
# The checks that Slurm's signals, scancel, time limits, sstat and process
# tracking reach jobs on NODE as without it (PidNamespace, UserNamespace).
# Jobs go through submit (USER1, JOB_OUT_PREFIX); each function's files are
# $OUT/TAG-*, and its job's background process is "sleep N", a number no
# other test uses, by which the host's process list finds it.

# slurm_signal_checks NODE TAG N: scancel -s USR1 reaches the batch script
# and a step, scancel ends the job, nothing is left (7 checks).
slurm_signal_checks() {
	local node=$1 f=$OUT/$2 n=$3 j
	j=$(submit -w "$node" -n1 -- "
		trap 'echo batch-usr1 >> $f-sig' USR1
		srun -n1 sh -c \"trap 'echo step-usr1 >> $f-sig' USR1; touch $f-step-ready; while :; do sleep 1; done\" &
		sleep $n &
		touch $f-batch-ready
		while :; do sleep 1; done")
	wait_file "$f-batch-ready" && wait_file "$f-step-ready"
	ok $? "precondition: the batch script and its step run" || { cl scancel "$j"; return; }
	cl scancel -b -s USR1 "$j"
	wait_for 10 grep -qs batch-usr1 "$f-sig"
	ok $? "scancel -b -s USR1 reaches the batch script"
	cl scancel -s USR1 "$j.0"
	wait_for 10 grep -qs step-usr1 "$f-sig"
	ok $? "scancel -s USR1 JOB.0 reaches the step's task"
	[ "$(host_procs "sleep $n")" -ge 1 ]
	ok $? "precondition: the job's background process runs"
	cl scancel "$j"
	wait_job_gone "$j"
	ok $? "scancel ends the job"
	wait_for 10 no_host_procs "sleep $n"
	ok $? "  and none of its processes is left"
	wait_for 10 job_dir_gone "$node" "$j"
	ok $? "  nor its directory and pins"
}

# sstat_has_sample JOBID: sstat reports step JOBID.0 with its memory.
sstat_has_sample() {
	cl_as "$USER1" sstat -n -P -j "$1.0" -o JobID,NTasks,MaxRSS 2>/dev/null |
		grep -Eq "^$1\\.0\\|1\\|[0-9]+[KMG]?"
}

# slurm_sstat_check NODE TAG N: sstat reports a running step (2 checks).
slurm_sstat_check() {
	local f=$OUT/$2 j out
	j=$(submit -w "$1" -n1 -- "srun -n1 sh -c 'touch $f-sstat-ready; exec sleep $3'")
	wait_file "$f-sstat-ready"
	ok $? "precondition: the step runs" || { cl scancel "$j"; return; }
	# The step's first accounting sample comes some time after it
	# started: ask until sstat has one (or 30 s have passed).
	wait_for 30 sstat_has_sample "$j"
	out=$(reply cl_as "$USER1" sstat -n -P -j "$j.0" -o JobID,NTasks,MaxRSS)
	like "$out" "^$j\\.0\\|1\\|[0-9]+[KMG]?" "sstat reports the step's task and its memory ($out)"
	cl scancel "$j"
	wait_job_gone "$j"
}

# slurm_tracking_check NODE TAG N: a process left in a session of its own
# is removed with the job (2 checks).
slurm_tracking_check() {
	local f=$OUT/$2 j
	j=$(submit -w "$1" -n1 -- "setsid sleep $3 < /dev/null > /dev/null 2>&1 & sleep 1; touch $f-left")
	wait_job_gone "$j"
	[ -e "$f-left" ]
	ok $? "precondition: the job left a background process in a session of its own and ended"
	wait_for 10 no_host_procs "sleep $3"
	ok $? "Slurm's process tracking (and the namespace's end) removes it"
}

# slurm_time_limit_submit NODE N: a job of one minute that would sleep
# longer; prints its id.  slurm_time_limit_check JOBID N: Slurm ended it
# at its limit, with nothing left (2 checks).  Submitted first and checked
# last: the limit takes a minute.
slurm_time_limit_submit() { submit -w "$1" -n1 -t 1 -- "sleep $2"; }
slurm_time_limit_check() {
	wait_job_gone "$1" 150
	like "$(cat "$OUT/$JOB_OUT_PREFIX-$1.out" 2>/dev/null)" "DUE TO TIME LIMIT" "a job over its time limit is ended by Slurm"
	wait_for 10 no_host_procs "sleep $2"
	ok $? "  and none of its processes is left"
}

# dir_empty DIR: DIR exists and lists nothing.  A missing DIR is not
# "empty": it proves nothing about what a job left behind.
dir_empty() { [ -d "$1" ] && [ -z "$(ls "$1")" ]; }

# write_device_probe FILE: the probe "FILE [r|w] PATH..." that opens each
# device and prints one word per path: ok, ENXIO (allowed, no driver behind
# the fake device), EPERM (denied by the filter) or other:MESSAGE
# (helpers/devprobe, compiled: a shell's subshell per path cost most of a
# probe's time in the emulated guest), copied where every job user can run it.
write_device_probe() {
	[ -x "$HELPERS/devprobe" ] || { echo "# no helpers/devprobe (build the plugins)" >&2; return 1; }
	install -m 0755 "$HELPERS/devprobe" "$1"
}

# mcs_devgroup_plugindir: where mcs_devgroup.so is, DEVNS_MCS_PLUGINDIR if
# set, else Slurm's PluginDir if installed there, else the newest build;
# prints nothing and fails when there is none.
mcs_devgroup_plugindir() {
	local dir=${DEVNS_MCS_PLUGINDIR:-} so
	if [ -z "$dir" ]; then
		if [ -f "$DEVNS_SLURM_PLUGINDIR/mcs_devgroup.so" ]; then
			dir=$DEVNS_SLURM_PLUGINDIR
		else
			so=$(ls -t "$TOP"/build*/.libs/mcs_devgroup.so 2>/dev/null | head -1)
			[ -n "$so" ] && dir=$(dirname "$so")
		fi
	fi
	[ -f "$dir/mcs_devgroup.so" ] && echo "$dir"
}
