#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# cluster.sh - start, stop and use a real local Slurm cluster for the integration tests.
#
# One host runs munged, slurmctld and three slurmd (node1..node3). Each Slurm daemon lives in
# its own network and UTS namespace so that it has its own hostname and address, as on a real
# cluster; the namespaces are joined by a bridge that lives in a namespace of its own, so the
# host's network is never touched. Everything else (config, logs, spool, state, pid files,
# per-node BasePath, fake GPU device nodes) sits under one cluster root directory that
# `stop` removes again. See README.md beside this file for the interface.

set -euo pipefail

# ---------------------------------------------------------------------------------------------
# Constants and settings
# ---------------------------------------------------------------------------------------------

readonly PROG=${0##*/}

# realpath -m: findmnt reports resolved paths, so compare mounts against the resolved root.
ROOT=$(realpath -m -- "${DEVNS_CLUSTER_ROOT:-/var/tmp/devns-cluster}")
readonly ROOT
readonly ETC=$ROOT/etc LOG=$ROOT/log SPOOL=$ROOT/spool STATE=$ROOT/state RUN=$ROOT/run
readonly BASE=$ROOT/base DEV=$ROOT/dev MUNGE_DIR=$ROOT/munge WORK=$ROOT/work
readonly CONF=$ETC/slurm.conf
readonly MUNGE_SOCKET=$MUNGE_DIR/munge.socket
# A file in the root that proves it is ours before `stop` deletes it recursively.
readonly MARKER=$ROOT/.devns-cluster-root
# Daemons' stdout/stderr: fatal errors printed before a daemon opens its log file land here.
readonly STDIO_LOG=$LOG/daemons.stdio.log

readonly NODES=(node1 node2 node3)
readonly NET=10.199.0 NETMASK=24
readonly CTL_HOST=ctl CTL_ADDR=10.199.0.1
readonly HUB_NS=devns-hub CTL_NS=devns-ctl NODE_NS_PREFIX=devns-
readonly BRIDGE=devnsbr0
readonly GPUS_PER_NODE=4 GPU_MAJOR=195
# A second GRES name, "nic": two devices, each of two files (gres.conf MultipleFiles=, one
# GRES index for several files, as MIG uses), on char major 60, reserved for local and
# experimental use and never handed out dynamically, so no driver of the host answers it.
readonly NICS_PER_NODE=2 NIC_MAJOR=60

readonly JOB_CONTAINER=${DEVNS_JOB_CONTAINER:-job_container/devns}

# Which Slurm runs the cluster: Debian's under /usr, or a release built under its own prefix
# (scripts/slurm-release.sh installs 24.11.5 in /opt/slurm-24.11.5).
SLURM_PREFIX=$(realpath -m -- "${DEVNS_SLURM_PREFIX:-/usr}")
readonly SLURM_PREFIX
readonly SLURM_PATH=$SLURM_PREFIX/sbin:$SLURM_PREFIX/bin:/usr/sbin:/usr/bin:/sbin:/bin
readonly START_TIMEOUT=${DEVNS_START_TIMEOUT:-30}
readonly STOP_TIMEOUT=${DEVNS_STOP_TIMEOUT:-15}

# One lock for the whole host: the namespace and bridge names are fixed, so there can only be
# one cluster per host anyway. It lives outside the root so that `stop` can remove the root.
readonly LOCK_FILE=/run/lock/devns-cluster.lock

# Users and groups the MCS tests rely on.
readonly MCS_GROUPS=(devgrpa devgrpb devgrpc)
readonly MANY_GROUP_COUNT=140

# Daemons get a clean environment: a SLURM_* variable inherited from the caller (for instance
# when this script itself runs inside a Slurm job) must not change how they behave.
readonly DAEMON_ENV=(env -i "PATH=$SLURM_PATH" LANG=C.UTF-8 "SLURM_CONF=$CONF" ${DEVNS_DAEMON_ENV:-})

export SLURM_CONF=$CONF PATH=$SLURM_PATH

# ---------------------------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------------------------

say() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() { say "error: $*"; exit 1; }

# die_with_logs MESSAGE FILE... - fail and show the end of the logs that explain the failure.
die_with_logs() {
	local msg=$1 f
	shift
	say "error: $msg"
	for f in "$@"; do
		[[ -s $f ]] || continue
		printf '%s: ---- last lines of %s ----\n' "$PROG" "$f" >&2
		tail -n 25 -- "$f" >&2
	done
	say "the cluster is left as it is for inspection; '$PROG stop' removes it"
	exit 1
}

node_ns() { printf '%s%s' "$NODE_NS_PREFIX" "$1"; }

# node_addr node2 -> 10.199.0.12
node_addr() { printf '%s.%d' "$NET" $((10 + ${1#node})); }

is_node() {
	local n
	for n in "${NODES[@]}"; do [[ $n == "$1" ]] && return 0; done
	return 1
}

netns_exists() { [[ -e /run/netns/$1 ]]; }

# All network namespaces of the cluster, one per line.
cluster_netns() {
	local n
	printf '%s\n' "$HUB_NS" "$CTL_NS"
	for n in "${NODES[@]}"; do node_ns "$n"; echo; done
}

# in_ns NS CMD... - run CMD in network namespace NS, keeping the mount namespace (and so the
# real /sys/fs/cgroup; `ip netns exec` would remount /sys).
in_ns() {
	local ns=$1
	shift
	nsenter --net="/run/netns/$ns" -- "$@"
}

# client CMD... - a Slurm client command as root, from the controller's namespace.
client() { in_ns "$CTL_NS" "$@"; }

# pid_of PIDFILE COMM - print the pid in PIDFILE if that process is alive and is COMM.
# Checking the command name guards against a stale file whose pid was reused.
pid_of() {
	local file=$1 comm=$2 pid
	[[ -r $file ]] || return 1
	read -r pid <"$file" 2>/dev/null || return 1
	[[ $pid =~ ^[0-9]+$ ]] || return 1
	[[ $(cat "/proc/$pid/comm" 2>/dev/null) == "$comm" ]] || return 1
	! is_zombie "$pid" || return 1
	printf '%s\n' "$pid"
}

# Where the running Slurm keeps its plugins, and its release ("22.05.8").
slurm_plugindir() {
	local d
	for d in "$SLURM_PREFIX"/lib/*-linux-gnu/slurm-wlm "$SLURM_PREFIX/lib/slurm" \
		"$SLURM_PREFIX/lib64/slurm"; do
		[[ -f $d/job_container_tmpfs.so ]] && { printf '%s\n' "$d"; return; }
	done
}
slurm_version() { "$SLURM_PREFIX/sbin/slurmd" -V 2>/dev/null | sed -n 's/^slurm[^ ]* //p'; }

slurmd_pidfile() { printf '%s/slurmd-%s.pid' "$RUN" "$1"; }
slurmd_log() { printf '%s/slurmd-%s.log' "$LOG" "$1"; }

# wait_gone TIMEOUT PID... - send nothing, just wait until the processes are gone.
wait_gone() {
	local timeout=$1 pid deadline
	shift
	deadline=$((SECONDS + timeout))
	for pid in "$@"; do
		while [[ -d /proc/$pid ]] && ! is_zombie "$pid"; do
			((SECONDS < deadline)) || return 1
			sleep 0.1
		done
	done
}

# PID 1 need not be an init that reaps orphans at once (on the development machine it does so
# only every second or so): a zombie counts as gone.
is_zombie() { [[ $(awk '/^State:/ {print $2}' "/proc/$1/status" 2>/dev/null) == Z ]]; }

# Every pid terminate() was given, for reap_wait().
TERMINATED=()

# terminate GRACE PID... - SIGTERM, wait up to GRACE seconds, then SIGKILL what is left.
terminate() {
	local grace=$1
	shift
	(($#)) || return 0
	TERMINATED+=("$@")
	kill -TERM "$@" 2>/dev/null || true
	wait_gone "$grace" "$@" && return 0
	kill -KILL "$@" 2>/dev/null || true
	wait_gone 5 "$@" || say "warning: processes $* survived SIGKILL"
}

# PID 1 of some hosts reaps orphans only now and then; give it a moment so that a `ps` or
# `pgrep` right after `stop` shows nothing of ours. Cosmetic: zombies hold no resources.
reap_wait() {
	local pid deadline=$((SECONDS + 3))
	for pid in "${TERMINATED[@]}"; do
		while [[ -d /proc/$pid ]] && ((SECONDS < deadline)); do sleep 0.1; done
	done
	return 0
}

require_root() { [[ $(id -u) == 0 ]] || die "must run as root"; }

# Serialise start/stop/restart: two tests starting the cluster at once must not interleave.
# Daemons are started with fd 9 closed: one that inherited it would hold the lock forever.
take_lock() {
	mkdir -p -- "${LOCK_FILE%/*}"
	exec 9>"$LOCK_FILE"
	flock -w 120 9 || die "could not take $LOCK_FILE within 120s"
}

# Refuse roots that would be dangerous to remove recursively.
check_root_path() {
	case $ROOT in
	/ | /bin | /boot | /dev | /etc | /home | /lib* | /opt | /proc | /root | /run | /sbin | /srv | \
		/sys | /tmp | /usr | /usr/* | /var | /var/tmp | /var/lib | /var/log)
		die "refusing cluster root '$ROOT'"
		;;
	esac
}

# ---------------------------------------------------------------------------------------------
# Packages, users and groups
# ---------------------------------------------------------------------------------------------

# Install what is missing (CI may run on a fresh Debian machine). No init system runs the
# packaged services here, but keep maintainer scripts from trying to start them anyway.
ensure_packages() {
	local -A need=(
		[slurmctld]=slurmctld [slurmd]=slurmd [srun]=slurm-client [munged]=munge
		[ip]=iproute2 [nsenter]=util-linux [unshare]=util-linux [findmnt]=util-linux
		[runuser]=util-linux [flock]=util-linux [useradd]=passwd [mknod]=coreutils
	)
	local cmd
	local -A pkgs=()
	for cmd in "${!need[@]}"; do
		command -v "$cmd" >/dev/null 2>&1 || pkgs[${need[$cmd]}]=1
	done
	((${#pkgs[@]})) || return 0

	say "installing missing packages: ${!pkgs[*]}"
	local policy=/usr/sbin/policy-rc.d made_policy=0
	if [[ ! -e $policy ]]; then
		printf '#!/bin/sh\nexit 101\n' >"$policy"
		chmod 0755 "$policy"
		made_policy=1
	fi
	local rc=0
	{
		DEBIAN_FRONTEND=noninteractive apt-get update -q &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${!pkgs[@]}"
	} >&2 || rc=$?
	((made_policy)) && rm -f "$policy"
	((rc == 0)) || die "apt-get install ${!pkgs[*]} failed"
}

# ensure_groups NAME... - create the groups that do not exist yet (one getent for all).
ensure_groups() {
	local -A have=()
	local g
	while IFS=: read -r g _; do have[$g]=1; done < <(getent group "$@" || true)
	for g in "$@"; do
		[[ -n ${have[$g]:-} ]] || groupadd "$g"
	done
}

# ensure_user NAME [GROUP...] - create the user, or add the supplementary groups it lacks.
ensure_user() {
	local user=$1
	shift
	local list
	list=$(IFS=,; printf '%s' "$*")
	if ! getent passwd "$user" >/dev/null; then
		useradd --no-create-home --shell /bin/bash ${list:+--groups "$list"} "$user"
		return
	fi
	local -A have=()
	local g missing=()
	for g in $(id -nG "$user"); do have[$g]=1; done
	for g in "$@"; do [[ -n ${have[$g]:-} ]] || missing+=("$g"); done
	if ((${#missing[@]})); then
		usermod --append --groups "$(IFS=,; printf '%s' "${missing[*]}")" "$user"
	fi
}

# The MCS tests' population. Must exist before slurmctld starts (it resolves groups at init).
ensure_users() {
	local many=() i
	for ((i = 1; i <= MANY_GROUP_COUNT; i++)); do many+=("$(printf 'dnmany%03d' "$i")"); done
	ensure_groups "${MCS_GROUPS[@]}" "${many[@]}"
	ensure_user dnalice devgrpa
	ensure_user dnbob devgrpb
	ensure_user dncarol devgrpa devgrpb
	ensure_user dndave
	ensure_user dnmany "${many[@]}" devgrpc
}

# ---------------------------------------------------------------------------------------------
# Cluster root and configuration
# ---------------------------------------------------------------------------------------------

make_layout() {
	if [[ -e $ROOT && ! -e $MARKER ]] && [[ -n $(ls -A -- "$ROOT" 2>/dev/null) ]]; then
		die "$ROOT exists, is not empty and is not a devns cluster root; refusing to use it"
	fi
	mkdir -p -- "$ROOT"
	chmod 0755 "$ROOT"
	: >"$MARKER"
	mkdir -p -- "$ETC" "$LOG" "$SPOOL" "$RUN" "$BASE/default" "$DEV" "$WORK"
	mkdir -p -- "$STATE"
	chmod 0700 "$STATE"
	local n
	for n in "${NODES[@]}"; do mkdir -p -- "$BASE/$n" "$SPOOL/$n"; done

	# munged runs as user munge and checks that its directories are owned by it (or root) and
	# not writable by others; clients of every user must be able to reach the socket.
	mkdir -p -- "$MUNGE_DIR"
	chown munge:munge "$MUNGE_DIR"
	chmod 0755 "$MUNGE_DIR"
}

# Fake GPUs: character devices with the NVIDIA major. Nothing backs them (open gives ENXIO),
# which is enough for device-filter tests: a denied open fails with EPERM instead. Fake nics
# likewise: nicN and nicN-ctl (minors 2N and 2N+1) are nic index N.
make_fake_gpus() {
	local i
	for ((i = 0; i < GPUS_PER_NODE; i++)); do
		[[ -c $DEV/nvidia$i ]] || mknod -m 0666 "$DEV/nvidia$i" c "$GPU_MAJOR" "$i"
	done
	for ((i = 0; i < NICS_PER_NODE; i++)); do
		[[ -c $DEV/nic$i ]] || mknod -m 0666 "$DEV/nic$i" c "$NIC_MAJOR" $((2 * i))
		[[ -c $DEV/nic$i-ctl ]] || mknod -m 0666 "$DEV/nic$i-ctl" c "$NIC_MAJOR" $((2 * i + 1))
	done
}

# Half the GPUs are of type a, half of type b: typed GRES share one index space per name.
node_gres() {
	local half=$((GPUS_PER_NODE / 2))
	printf 'gpu:a:%d,gpu:b:%d,nic:%d' "$half" $((GPUS_PER_NODE - half)) "$NICS_PER_NODE"
}

node_list() { printf 'node[1-%d]' "${#NODES[@]}"; }

# The default slurm.conf, one setting per line. Keys named in DEVNS_SLURM_CONF_EXTRA replace
# the default line (Slurm would take the later value too, but logs an error for each repeat).
default_slurm_conf() {
	cat <<EOF
ClusterName=devns
SlurmctldHost=$CTL_HOST($CTL_ADDR)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCKET
SlurmctldPort=6817
SlurmdPort=6818
StateSaveLocation=$STATE
SlurmdSpoolDir=$SPOOL/%n
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd-%n.pid
SlurmctldLogFile=$LOG/slurmctld.log
SlurmdLogFile=$LOG/slurmd-%n.log
SlurmctldDebug=debug
SlurmdDebug=debug
ProctrackType=proctrack/cgroup
TaskPlugin=task/cgroup,task/affinity
PrologFlags=Contain
$([[ $JOB_CONTAINER == job_container/none ]] || echo "JobContainerType=$JOB_CONTAINER")
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu,nic
MpiDefault=none
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_interval=1,sched_min_interval=0,bf_interval=1
ReturnToService=2
SlurmdTimeout=30
SlurmctldTimeout=30
MessageTimeout=10
InactiveLimit=0
KillWait=2
MinJobAge=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MailProg=/bin/true
EOF
}

render_slurm_conf() {
	local extra=${DEVNS_SLURM_CONF_EXTRA:-} line key
	# Keys that may legitimately appear on several lines are appended, never replaced.
	local -A replaced=()
	while IFS= read -r line; do
		[[ $line =~ ^[[:space:]]*([A-Za-z]+)[[:space:]]*= ]] || continue
		key=${BASH_REMATCH[1],,}
		case $key in nodename | partitionname | nodeset | downnodes | slurmctldhost | include) ;;
		*) replaced[$key]=1 ;;
		esac
	done <<<"$extra"

	{
		echo "# generated by testsuite/cluster"
		while IFS= read -r line; do
			[[ -n $line ]] || continue
			key=${line%%=*}
			[[ -n ${replaced[${key,,}]:-} ]] || printf '%s\n' "$line"
		done < <(default_slurm_conf)

		local n
		for n in "${NODES[@]}"; do
			printf 'NodeName=%s NodeHostname=%s NodeAddr=%s CPUs=2 Sockets=1 CoresPerSocket=2 ThreadsPerCore=1 RealMemory=1000 Gres=%s State=UNKNOWN\n' \
				"$n" "$n" "$(node_addr "$n")" "$(node_gres)"
		done
		printf 'PartitionName=debug Nodes=%s Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO\n' \
			"$(node_list)"

		if [[ -n $extra ]]; then
			echo "# from DEVNS_SLURM_CONF_EXTRA"
			printf '%s\n' "$extra"
		fi
	}
}

# Hybrid cgroup layout: cgroup/v2 refuses to run, v1 works. Debian's slurmd is built with
# multiple-slurmd support, whose default CgroupPrepend is /slurm_%n: the three slurmd get
# disjoint trees (/sys/fs/cgroup/<controller>/slurm_nodeN) and do not fight over paths.
render_cgroup_conf() {
	{
		echo "# generated by testsuite/cluster"
		echo "CgroupPlugin=cgroup/v1"
		echo "ConstrainCores=no"
		echo "ConstrainRAMSpace=no"
		echo "ConstrainDevices=no"
		if [[ -n ${DEVNS_CGROUP_CONF_EXTRA:-} ]]; then
			echo "# from DEVNS_CGROUP_CONF_EXTRA"
			printf '%s\n' "$DEVNS_CGROUP_CONF_EXTRA"
		fi
	}
}

write_gres_conf() {
	local half=$((GPUS_PER_NODE / 2)) i
	{
		cat <<EOF
# generated by testsuite/cluster: fake GPUs (character devices $GPU_MAJOR:0..$((GPUS_PER_NODE - 1))),
# fake nics (character devices $NIC_MAJOR:0..$((2 * NICS_PER_NODE - 1)), two files per nic)
AutoDetect=off
NodeName=$(node_list) Name=gpu Type=a File=$DEV/nvidia[0-$((half - 1))]
NodeName=$(node_list) Name=gpu Type=b File=$DEV/nvidia[$half-$((GPUS_PER_NODE - 1))]
EOF
		for ((i = 0; i < NICS_PER_NODE; i++)); do
			echo "NodeName=$(node_list) Name=nic MultipleFiles=$DEV/nic$i,$DEV/nic$i-ctl"
		done
	} >"$ETC/gres.conf"
}

# namespace.conf is read by job_container/devns from the slurm.conf directory. Tests rewrite
# it and restart a slurmd, so it stays a plain file.
write_namespace_conf() {
	if [[ -n ${DEVNS_NAMESPACE_CONF:-} ]]; then
		[[ -r $DEVNS_NAMESPACE_CONF ]] || die "DEVNS_NAMESPACE_CONF=$DEVNS_NAMESPACE_CONF is not readable"
		cat -- "$DEVNS_NAMESPACE_CONF" >"$ETC/namespace.conf"
		return
	fi
	{
		echo "# generated by testsuite/cluster"
		echo "BasePath=$BASE/default"
		echo "AutoBasePath=yes"
		local n
		for n in "${NODES[@]}"; do echo "NodeName=$n BasePath=$BASE/$n"; done
	} >"$ETC/namespace.conf"
}

# For job_container/tmpfs, the reference plugin used while devns is not installed. In a
# multiple-slurmd build tmpfs appends "/<nodename>" to every BasePath it reads, so a single
# global line gives the same per-node directories as namespace.conf (NodeName lines would
# end up as base/nodeN/nodeN).
write_job_container_conf() {
	cat >"$ETC/job_container.conf" <<EOF
# generated by testsuite/cluster (job_container/tmpfs appends /<nodename>)
AutoBasePath=true
BasePath=$BASE
EOF
}

# A TaskProlog/TaskEpilog for tests that set them (DEVNS_SLURM_CONF_EXTRA):
# runs $ETC/task_hook.d/run with "prolog" or "epilog" when one is
# installed, else does nothing.  Not on by default: Slurm runs task scripts
# with stdin from /dev/null, which a strict device policy may deny.
write_task_hook() {
	cat >"$ETC/task_hook" <<'EOF'
#!/bin/sh
hook=${0%/*}/task_hook.d/run
[ -x "$hook" ] || exit 0
case "$SLURM_SCRIPT_CONTEXT" in *epilog*) exec "$hook" epilog ;; *) exec "$hook" prolog ;; esac
EOF
	chmod 0755 "$ETC/task_hook"
}

write_configs() {
	write_task_hook
	render_slurm_conf >"$CONF"
	render_cgroup_conf >"$ETC/cgroup.conf"
	write_gres_conf
	write_namespace_conf
	write_job_container_conf
}

# ---------------------------------------------------------------------------------------------
# Network: a bridge in its own namespace, one veth per daemon namespace
# ---------------------------------------------------------------------------------------------

# attach_ns NS ADDR - create NS and wire it to the bridge with ADDR on its eth0.
attach_ns() {
	local ns=$1 addr=$2 port=v-${1#"$NODE_NS_PREFIX"}
	ip netns add "$ns"
	ip -n "$ns" link set lo up
	ip -n "$HUB_NS" link add "$port" type veth peer name eth0 netns "$ns"
	ip -n "$HUB_NS" link set "$port" master "$BRIDGE" up
	ip -n "$ns" addr add "$addr/$NETMASK" dev eth0
	ip -n "$ns" link set eth0 up
}

setup_network() {
	ip netns add "$HUB_NS"
	ip -n "$HUB_NS" link set lo up
	# forward_delay 0: without STP there is nothing to learn, ports forward at once.
	ip -n "$HUB_NS" link add "$BRIDGE" type bridge forward_delay 0
	ip -n "$HUB_NS" link set "$BRIDGE" up
	attach_ns "$CTL_NS" "$CTL_ADDR"
	local n
	for n in "${NODES[@]}"; do attach_ns "$(node_ns "$n")" "$(node_addr "$n")"; done
}

# Deleting a namespace's name is enough once no process is left in it: the kernel then
# destroys it with its veth ends, and the bridge goes with the hub namespace.
teardown_network() {
	local ns
	for ns in $(cluster_netns); do
		netns_exists "$ns" && ip netns del "$ns"
	done
	# A bridge of the same name in the host namespace can only be a leftover of an older
	# layout of this harness.
	if ip link show "$BRIDGE" >/dev/null 2>&1; then ip link del "$BRIDGE"; fi
	return 0
}

# ---------------------------------------------------------------------------------------------
# Daemons
# ---------------------------------------------------------------------------------------------

# start_in_ns NS HOSTNAME CMD... - start a self-daemonising CMD in network namespace NS and a
# new UTS namespace named HOSTNAME. nsenter + unshare instead of `ip netns exec`, which would
# remount /sys and hide /sys/fs/cgroup from the daemon.
start_in_ns() {
	local ns=$1 host=$2
	shift 2
	# shellcheck disable=SC2016 # $0 and $@ are for the inner sh
	"${DAEMON_ENV[@]}" nsenter --net="/run/netns/$ns" -- \
		unshare --uts -- sh -c 'hostname "$0" && exec "$@"' "$host" "$@" \
		</dev/null >>"$STDIO_LOG" 2>&1 9>&-
}

# ns_has_comm NS COMM - is a process named COMM running in network namespace NS?
ns_has_comm() {
	local pid
	for pid in $(ip netns pids "$1" 2>/dev/null); do
		[[ $(cat "/proc/$pid/comm" 2>/dev/null) == "$2" ]] && ! is_zombie "$pid" && return 0
	done
	return 1
}

# wait_pid NS PIDFILE COMM LOG... - wait until the daemon COMM, started in NS, has written
# its pid file. Fail at once if it died instead (a fatal error in its config or a plugin
# comes before the pid file). While it daemonises, one look at the namespace can fall
# between the exit of a parent and the birth of its child: only several misses in a row
# mean it is gone.
wait_pid() {
	local ns=$1 file=$2 comm=$3 deadline=$((SECONDS + START_TIMEOUT)) misses=0
	shift 3
	until pid_of "$file" "$comm" >/dev/null; do
		if ns_has_comm "$ns" "$comm"; then
			misses=0
		elif ((++misses >= 3)); then
			die_with_logs "$comm exited during start-up" "$@"
		fi
		((SECONDS < deadline)) || die_with_logs "$comm did not write $file within ${START_TIMEOUT}s" "$@"
		sleep 0.05
	done
}

start_munged() {
	local key=$MUNGE_DIR/munge.key
	if [[ ! -s $key ]]; then
		# The cluster's own key: independent of (and never touching) /etc/munge.
		if command -v mungekey >/dev/null 2>&1; then
			mungekey --create --keyfile="$key"
		else
			dd if=/dev/urandom of="$key" bs=1024 count=1 status=none
		fi
		chown munge:munge "$key"
		chmod 0600 "$key"
	fi
	# munged's parent returns only once the daemon is ready (or has failed).
	"${DAEMON_ENV[@]}" runuser -u munge -- munged \
		--socket="$MUNGE_SOCKET" --key-file="$key" --pid-file="$MUNGE_DIR/munged.pid" \
		--log-file="$MUNGE_DIR/munged.log" --seed-file="$MUNGE_DIR/munged.seed" \
		--num-threads=4 </dev/null >>"$STDIO_LOG" 2>&1 9>&- ||
		die_with_logs "munged failed to start" "$STDIO_LOG" "$MUNGE_DIR/munged.log"
	munge -n -S "$MUNGE_SOCKET" | unmunge -S "$MUNGE_SOCKET" >/dev/null ||
		die_with_logs "munged does not answer on $MUNGE_SOCKET" "$MUNGE_DIR/munged.log"
}

start_slurmctld() {
	start_in_ns "$CTL_NS" "$CTL_HOST" slurmctld -f "$CONF" ||
		die_with_logs "slurmctld failed to start" "$STDIO_LOG" "$LOG/slurmctld.log"
	wait_pid "$CTL_NS" "$RUN/slurmctld.pid" slurmctld "$STDIO_LOG" "$LOG/slurmctld.log"
}

start_slurmd() {
	local n=$1
	# -N: multiple-slurmd builds name the node explicitly (it also matches the hostname).
	start_in_ns "$(node_ns "$n")" "$n" slurmd -f "$CONF" -N "$n" ||
		die_with_logs "slurmd on $n failed to start" "$STDIO_LOG" "$(slurmd_log "$n")"
	wait_pid "$(node_ns "$n")" "$(slurmd_pidfile "$n")" slurmd "$STDIO_LOG" "$(slurmd_log "$n")"
}

# node_states - "NAME STATE" per node, as slurmctld sees them; STATE gets a "*" suffix when
# the node does not respond.
node_states() { client sinfo -h -N -o '%N %T' 2>/dev/null; }

# A daemon that died while we wait: fail at once, with its log, instead of timing out.
check_daemons_alive() {
	pid_of "$RUN/slurmctld.pid" slurmctld >/dev/null ||
		die_with_logs "slurmctld is not running" "$STDIO_LOG" "$LOG/slurmctld.log"
	local n
	for n in "$@"; do
		pid_of "$(slurmd_pidfile "$n")" slurmd >/dev/null ||
			die_with_logs "slurmd on $n is not running" "$STDIO_LOG" "$(slurmd_log "$n")"
	done
}

# wait_nodes MODE NODE... - wait until the nodes are idle (MODE idle) or merely up and
# responding, whatever their jobs (MODE up).
wait_nodes() {
	local mode=$1 deadline=$((SECONDS + START_TIMEOUT)) states
	shift
	while :; do
		check_daemons_alive "$@"
		states=$(node_states || true)
		nodes_ready "$mode" "$states" "$@" && return 0
		if ((SECONDS >= deadline)); then
			local logs=("$LOG/slurmctld.log") n shown=${states//$'\n'/, }
			for n in "$@"; do logs+=("$(slurmd_log "$n")"); done
			die_with_logs "nodes not $mode after ${START_TIMEOUT}s; sinfo says: ${shown:-nothing}" \
				"$STDIO_LOG" "${logs[@]}"
		fi
		sleep 0.2
	done
}

nodes_ready() {
	local mode=$1 states=$2 n state
	shift 2
	for n in "$@"; do
		state=$(awk -v n="$n" '$1 == n {print $2; exit}' <<<"$states")
		case $mode:$state in
		idle:idle) ;;
		up:idle | up:mixed | up:allocated | up:completing) ;;
		*) return 1 ;;
		esac
	done
}

# True when every daemon of the cluster runs.
all_running() {
	pid_of "$MUNGE_DIR/munged.pid" munged >/dev/null || return 1
	pid_of "$RUN/slurmctld.pid" slurmctld >/dev/null || return 1
	local n
	for n in "${NODES[@]}"; do
		pid_of "$(slurmd_pidfile "$n")" slurmd >/dev/null || return 1
		netns_exists "$(node_ns "$n")" || return 1
	done
	netns_exists "$CTL_NS"
}

# True when anything of the cluster is there at all.
anything_present() {
	[[ -e $ROOT ]] && return 0
	local ns
	for ns in $(cluster_netns); do
		netns_exists "$ns" && return 0
	done
	[[ -n $(stray_munged_pids) ]]
}

# munged runs in the host namespaces; find ours by its socket if the pid file is gone.
stray_munged_pids() {
	local d cmd
	for d in /proc/[0-9]*; do
		[[ $(cat "$d/comm" 2>/dev/null) == munged ]] || continue
		cmd=$(tr '\0' ' ' <"$d/cmdline" 2>/dev/null) || continue
		[[ $cmd == *"--socket=$MUNGE_SOCKET "* ]] && printf '%s\n' "${d#/proc/}"
	done
	return 0
}

# ---------------------------------------------------------------------------------------------
# Stopping and cleaning up
# ---------------------------------------------------------------------------------------------

# Let Slurm end the jobs itself first, so that job_container plugins run their normal
# teardown; whatever does not end in time is killed below anyway.
cancel_jobs() {
	pid_of "$RUN/slurmctld.pid" slurmctld >/dev/null || return 0
	local jobs deadline=$((SECONDS + 10))
	jobs=$(client squeue -h -o %A 2>/dev/null) || return 0
	[[ -n $jobs ]] || return 0
	# shellcheck disable=SC2086 # one job id per word
	client scancel $jobs 2>/dev/null || true
	while [[ -n $(client squeue -h -o %A 2>/dev/null) ]] && ((SECONDS < deadline)); do
		sleep 0.2
	done
}

stop_daemons() {
	local pids=() pid n
	for n in "${NODES[@]}"; do
		pid=$(pid_of "$(slurmd_pidfile "$n")" slurmd) && pids+=("$pid")
	done
	pid=$(pid_of "$RUN/slurmctld.pid" slurmctld) && pids+=("$pid")
	terminate "$STOP_TIMEOUT" "${pids[@]}"
}

# Everything still inside one of our namespaces (slurmstepd, job processes, clients started
# with `run`) belongs to this cluster. slurmstepd ignores SIGTERM (slurmd talks to it over
# its socket), so the grace is short: the orderly way out was cancel_jobs.
kill_namespace_leftovers() {
	local ns pids=()
	for ns in $(cluster_netns); do
		netns_exists "$ns" || continue
		mapfile -t -O "${#pids[@]}" pids < <(ip netns pids "$ns" 2>/dev/null)
	done
	((${#pids[@]} == 0)) || say "killing leftover processes: ${pids[*]}"
	terminate 2 "${pids[@]}"
}

stop_munged() {
	local pids=() pid
	pid=$(pid_of "$MUNGE_DIR/munged.pid" munged) && pids+=("$pid")
	mapfile -t -O "${#pids[@]}" pids < <(stray_munged_pids)
	# shellcheck disable=SC2207 # pids are single words
	pids=($(printf '%s\n' "${pids[@]}" | sort -u))
	terminate "$STOP_TIMEOUT" "${pids[@]}"
}

# Mounts under the root (BasePath bind mounts, pinned job namespaces) that a killed daemon
# could not remove. Deepest first; lazily if a mount is still busy.
umount_leftovers() {
	local target
	findmnt -rn -o TARGET | awk -v r="$ROOT" 'index($0, r "/") == 1 || $0 == r' |
		awk '{print length, $0}' | sort -rn | cut -d' ' -f2- |
		while IFS= read -r target; do
			# findmnt -r escapes blanks etc. as \xNN
			target=$(printf '%b' "$target")
			umount -- "$target" 2>/dev/null || umount -l -- "$target" ||
				say "warning: could not unmount $target"
		done
}

# cgroup v1 trees of our slurmd (CgroupPrepend /slurm_%n) that killed steps left behind.
# rmdir of a cgroup directory succeeds once no task is left in it; depth first.
remove_cgroups() {
	local n d
	for n in "${NODES[@]}"; do
		for d in /sys/fs/cgroup/*/slurm_"$n"; do
			[[ -d $d ]] || continue
			find "$d" -depth -type d -exec rmdir {} + 2>/dev/null ||
				say "warning: could not remove all of $d"
		done
	done
}

remove_root() {
	[[ -e $ROOT ]] || return 0
	if [[ ! -e $MARKER ]] && [[ -n $(ls -A -- "$ROOT" 2>/dev/null) ]]; then
		say "warning: $ROOT is not a devns cluster root (no $(basename "$MARKER")); not removing it"
		return 0
	fi
	# --one-file-system: never descend into anything still mounted below the root.
	rm -rf --one-file-system -- "$ROOT"
}

do_stop() {
	cancel_jobs
	stop_daemons
	kill_namespace_leftovers
	stop_munged
	umount_leftovers
	teardown_network
	remove_cgroups
	remove_root
	reap_wait
}

# ---------------------------------------------------------------------------------------------
# Subcommands
# ---------------------------------------------------------------------------------------------

cmd_start() {
	require_root
	check_root_path
	take_lock
	if all_running; then
		wait_nodes up "${NODES[@]}"
		say "already running ($ROOT)"
		if [[ $(render_slurm_conf) != "$(cat -- "$CONF")" ||
			$(render_cgroup_conf) != "$(cat -- "$ETC/cgroup.conf")" ]]; then
			say "warning: the running cluster's config differs from the current DEVNS_* settings; '$PROG restart' applies them"
		fi
		return 0
	fi
	if anything_present; then
		say "cleaning up a partial cluster first"
		do_stop
	fi

	ensure_packages
	ensure_users
	make_layout
	write_configs
	make_fake_gpus
	setup_network
	start_munged
	start_slurmctld
	local n
	for n in "${NODES[@]}"; do start_slurmd "$n"; done
	wait_nodes idle "${NODES[@]}"
	say "running: ${NODES[*]} idle (root $ROOT, job container $JOB_CONTAINER)"
}

cmd_stop() {
	require_root
	check_root_path
	take_lock
	do_stop
}

cmd_restart() {
	cmd_stop
	exec 9>&-
	cmd_start
}

cmd_restart_slurmd() {
	local n=${1:-}
	[[ -n $n ]] || die "usage: $PROG restart-slurmd NODE"
	is_node "$n" || die "unknown node '$n' (nodes: ${NODES[*]})"
	require_root
	take_lock
	# The node's own slurmd may be down (a test that made it fail on a broken config and now
	# starts it again); the rest of the cluster must be up.
	if ! pid_of "$MUNGE_DIR/munged.pid" munged >/dev/null ||
		! pid_of "$RUN/slurmctld.pid" slurmctld >/dev/null ||
		! netns_exists "$(node_ns "$n")"; then
		die "the cluster is not running"
	fi

	# Readiness is a new SlurmdStartTime on slurmctld's side (1 s resolution), so never start
	# within the second of the previous start.
	local before pid
	before=$(slurmd_start_time "$n")
	# Only slurmd itself: the slurmstepd of running jobs must survive, as on a real restart.
	if pid=$(pid_of "$(slurmd_pidfile "$n")" slurmd); then
		terminate "$STOP_TIMEOUT" "$pid"
	fi
	while [[ $(date '+%Y-%m-%dT%H:%M:%S') == "$before" ]]; do sleep 0.1; done
	start_slurmd "$n"

	local deadline=$((SECONDS + START_TIMEOUT))
	while [[ $(slurmd_start_time "$n") == "$before" ]]; do
		check_daemons_alive "$n"
		((SECONDS < deadline)) ||
			die_with_logs "slurmd on $n did not register within ${START_TIMEOUT}s" "$(slurmd_log "$n")"
		sleep 0.1
	done
	wait_nodes up "$n"
	say "slurmd on $n restarted"
}

slurmd_start_time() {
	client scontrol -o show node "$1" 2>/dev/null | grep -o 'SlurmdStartTime=[^ ]*' | cut -d= -f2 || true
}

# show_daemon LABEL PIDFILE COMM - one status line; counts into cmd_status's running/state.
show_daemon() {
	local pid
	if pid=$(pid_of "$2" "$3"); then
		printf '%-14s running (pid %s)\n' "$1" "$pid"
		running=$((running + 1))
	else
		printf '%-14s stopped\n' "$1"
		state=1
	fi
}

cmd_status() {
	local state=0 running=0 n ns
	require_root
	echo "root: $ROOT"
	show_daemon munged "$MUNGE_DIR/munged.pid" munged
	show_daemon slurmctld "$RUN/slurmctld.pid" slurmctld
	for n in "${NODES[@]}"; do show_daemon "slurmd $n" "$(slurmd_pidfile "$n")" slurmd; done
	local present=()
	for ns in $(cluster_netns); do
		netns_exists "$ns" && present+=("$ns")
	done
	echo "netns:         ${present[*]:-none}"
	if pid_of "$RUN/slurmctld.pid" slurmctld >/dev/null && netns_exists "$CTL_NS"; then
		echo
		client sinfo -N -o '%N %T %G' || true
		echo
		client squeue || true
	fi
	# 0: all running, 3: nothing running (as LSB's status), 1: partly running.
	if ((state == 0)); then return 0; fi
	if ((running == 0)); then return 3; fi
	return 1
}

cmd_run() {
	local user="" node=""
	while (($#)); do
		case $1 in
		-u) (($# >= 2)) || die "-u needs a user"; user=$2; shift 2 ;;
		-n) (($# >= 2)) || die "-n needs a node"; node=$2; shift 2 ;;
		--) shift; break ;;
		-*) die "run: unknown option '$1'" ;;
		*) break ;;
		esac
	done
	(($#)) || die "usage: $PROG run [-u USER] [-n NODE] -- CMD..."
	require_root

	local ns=$CTL_NS
	if [[ -n $node ]]; then
		is_node "$node" || die "unknown node '$node' (nodes: ${NODES[*]})"
		ns=$(node_ns "$node")
	fi
	netns_exists "$ns" || die "the cluster is not running (no network namespace $ns)"

	local as_user=()
	if [[ -n $user ]]; then
		getent passwd "$user" >/dev/null || die "no such user '$user'"
		as_user=(runuser -u "$user" --)
		# Slurm runs the job in the submission directory and sbatch writes its output there:
		# a user who cannot use the current directory gets its own under the cluster root.
		if ! runuser -u "$user" -- test -w . -a -x . 2>/dev/null; then
			local dir=$WORK/$user
			if [[ ! -d $dir ]]; then
				mkdir -p -- "$dir"
				chmod 0700 "$dir"
				chown "$user:$(id -gn "$user")" "$dir"
			fi
			cd -- "$dir"
		fi
	fi
	if [[ -n $node ]]; then
		# As the node's daemons see it: its own hostname too (a private UTS namespace).
		# shellcheck disable=SC2016 # $0 and $@ are for the inner sh
		exec nsenter --net="/run/netns/$ns" -- unshare --uts -- \
			sh -c 'hostname "$0" && exec "$@"' "$node" "${as_user[@]}" env "PATH=$SLURM_PATH" "SLURM_CONF=$CONF" "$@"
	fi
	exec nsenter --net="/run/netns/$ns" -- "${as_user[@]}" env "PATH=$SLURM_PATH" "SLURM_CONF=$CONF" "$@"
}

cmd_env() {
	printf 'export DEVNS_CLUSTER_ROOT=%q\n' "$ROOT"
	printf 'export SLURM_CONF=%q\n' "$CONF"
	printf 'export DEVNS_CLUSTER_NODES=%q\n' "${NODES[*]}"
	printf 'export DEVNS_CLUSTER_LOGDIR=%q\n' "$LOG"
	printf 'export DEVNS_CLUSTER_ETC=%q\n' "$ETC"
	printf 'export DEVNS_CLUSTER_BASE=%q\n' "$BASE"
	printf 'export DEVNS_CLUSTER_DEV=%q\n' "$DEV"
	printf 'export DEVNS_CLUSTER_CTL_NETNS=%q\n' "$CTL_NS"
	printf 'export DEVNS_MUNGE_SOCKET=%q\n' "$MUNGE_SOCKET"
	printf 'export DEVNS_SLURM_PREFIX=%q\n' "$SLURM_PREFIX"
	printf 'export DEVNS_SLURM_PLUGINDIR=%q\n' "$(slurm_plugindir)"
	printf 'export DEVNS_SLURM_VERSION=%q\n' "$(slurm_version)"
}

cmd_users() {
	require_root
	ensure_users
}

usage() {
	cat <<EOF
usage: $PROG COMMAND [ARGS]

  start                      start munged, slurmctld and slurmd on ${NODES[*]} (idempotent)
  stop                       stop everything and remove the cluster root, namespaces, bridge
  restart                    stop, then start (picks up changed DEVNS_* settings)
  restart-slurmd NODE        restart one slurmd; running jobs keep running
  status                     show what runs (exit 0 all, 1 partly, 3 nothing)
  run [-u USER] [-n NODE] -- CMD...
                             run CMD with SLURM_CONF set in the client namespace (or NODE's),
                             as USER if given; exits with CMD's status
  env                        print export lines for eval
  users                      create the test users and groups only

cluster root: $ROOT (DEVNS_CLUSTER_ROOT)
EOF
}

main() {
	local cmd=${1:-}
	(($#)) && shift
	case $cmd in
	start) cmd_start "$@" ;;
	stop) cmd_stop "$@" ;;
	restart) cmd_restart "$@" ;;
	restart-slurmd) cmd_restart_slurmd "$@" ;;
	status) cmd_status "$@" ;;
	run) cmd_run "$@" ;;
	env) cmd_env "$@" ;;
	users) cmd_users "$@" ;;
	-h | --help | help) usage ;;
	*) usage >&2; exit 2 ;;
	esac
}

main "$@"
