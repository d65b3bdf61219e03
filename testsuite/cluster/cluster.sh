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
#
# This file holds the settings and the verbs; the work is in lib/, one concern per file:
#   lib/common.sh    messages, the root check, the host-wide lock
#   lib/process.sh   pids: alive, gone, terminate
#   lib/packages.sh  Debian packages to install; the Slurm under DEVNS_SLURM_PREFIX
#   lib/users.sh     the test users and groups; `run -u`'s working directory
#   lib/root.sh      the cluster root: layout, fake device nodes, removal
#   lib/config.sh    slurm.conf, cgroup.conf, gres.conf, job_container.conf, ...
#   lib/netns.sh     network namespaces, bridge, addresses
#   lib/daemons.sh   munged, slurmctld, slurmd: start, restart, stop
#   lib/client.sh    what slurmctld reports: node readiness, slurmd registration, jobs
#   lib/guest.sh     DEVNS_CLUSTER_VM=1: the cluster in the QEMU guest (testsuite/vm)

set -euo pipefail

# ---------------------------------------------------------------------------------------------
# Settings: the cluster's shape and paths, and the DEVNS_* environment
# ---------------------------------------------------------------------------------------------

readonly PROG=${0##*/}
# This script, the cluster root and the Slurm prefix, resolved by one realpath: the tests run
# `cluster.sh run` hundreds of times, and in the emulated guest each fork and exec costs
# about 50 ms, so its start-up forks nothing else (no stat, no grep, no id below either).
# realpath -m: findmnt reports resolved paths, so compare mounts against the resolved root.
mapfile -t _paths < <(realpath -m -- "${BASH_SOURCE[0]}" \
	"${DEVNS_CLUSTER_ROOT:-/var/lib/devns-cluster}" "${DEVNS_SLURM_PREFIX:-/usr}")
((${#_paths[@]} == 3)) || { echo "$PROG: error: cannot resolve its paths" >&2; exit 1; }
LIB=${_paths[0]%/*}/lib
TOP=${_paths[0]%/*/*/*}
readonly LIB TOP

ROOT=${_paths[1]}
readonly ROOT
readonly ETC=$ROOT/etc LOG=$ROOT/log SPOOL=$ROOT/spool STATE=$ROOT/state RUN=$ROOT/run
readonly BASE=$ROOT/base DEV=$ROOT/dev MUNGE_DIR=$ROOT/munge WORK=$ROOT/work
readonly CONF=$ETC/slurm.conf
readonly IMEX_DEVICES=$ETC/proc-devices-imex
readonly MUNGE_SOCKET=$MUNGE_DIR/munge.socket
# A file in the root that proves it is ours before `stop` deletes it recursively.
readonly MARKER=$ROOT/.devns-cluster-root
# Daemons' stdout/stderr: fatal errors printed before a daemon opens its log file land here.
readonly STDIO_LOG=$LOG/daemons.stdio.log

readonly NODES=(node1 node2 node3)
readonly CTL_HOST=ctl
readonly GPUS_PER_NODE=4 GPU_MAJOR=195
# A second GRES name, "nic": two devices, each of two files (gres.conf MultipleFiles=, one
# GRES index for several files, as MIG uses), on char major 60, reserved for local and
# experimental use and never handed out dynamically, so no driver of the host answers it.
readonly NICS_PER_NODE=2 NIC_MAJOR=60
# NVIDIA IMEX channels (Slurm's switch/nvidia_imex): the nodes of DEVNS_IMEX_NODES see a
# /proc/devices naming "nvidia-caps-imex-channels" on char major 61 (local and experimental,
# as 60), bound over /proc/devices in their slurmd's own mount namespace (lib/imex-slurmd.sh).
readonly IMEX_MAJOR=61
# A count GRES "tmpdisk" of this size on every node (e.g. 800M: gres.conf Count=800M, slurm.conf
# Gres=tmpdisk:800M), for devns's TmpDiskGres; empty (the default): none.
readonly TMPDISK_GRES=${DEVNS_TMPDISK_GRES:-}

readonly JOB_CONTAINER=${DEVNS_JOB_CONTAINER:-job_container/devns}
# yes: every job gets a PID namespace of its own, from the container that can give one (devns's
# PidNamespace=yes, namespace/linux's CLONE_NEWPID; lib/config.sh), so that benchmarks compare
# the two alike. Other containers, and a DEVNS_NAMESPACE_CONF, are left as they are.
readonly PID_NAMESPACE=${DEVNS_PID_NAMESPACE:-no}

# CPUs per node in slurm.conf (checked below, once `die` is there). The default, 2, is this
# machine's; more (benchmarks: 64 one-CPU jobs at once on node1) makes slurm.conf say so and
# adds SlurmdParameters=config_overrides, without which slurmd refuses a node that claims more
# CPUs than it has (lib/config.sh).
readonly NODE_CPUS=${DEVNS_NODE_CPUS:-2}

# Which Slurm runs the cluster: Debian's under /usr, or a release built under its own prefix
# (scripts/slurm-release.sh installs 24.11.5 in /opt/slurm-24.11.5).
SLURM_PREFIX=${_paths[2]}
readonly SLURM_PREFIX
readonly SLURM_PATH=$SLURM_PREFIX/sbin:$SLURM_PREFIX/bin:/usr/sbin:/usr/bin:/sbin:/bin

# The machine's cgroup layout decides Slurm's cgroup plugin (lib/config.sh): unified (cgroup2
# at /sys/fs/cgroup: the QEMU guest, real nodes) gives cgroup/v2, anything else cgroup/v1.
# On the unified layout with systemd as init (the guest) the daemons run as transient
# systemd services (lib/daemons.sh), as packaged units would: slurmd then asks systemd over
# dbus for its stepd scope, the realistic path.
# (cgroup.controllers is the cgroup2 root's own file: on the hybrid and v1 layouts
# /sys/fs/cgroup is a tmpfs of mount points without it.)
CGROUP_V2=0 USE_SYSTEMD=0
if [[ -e /sys/fs/cgroup/cgroup.controllers ]]; then
	CGROUP_V2=1
	if [[ -d /run/systemd/system ]] && command -v systemd-run >/dev/null 2>&1; then
		USE_SYSTEMD=1
	fi
fi
readonly CGROUP_V2 USE_SYSTEMD

# Are we the QEMU guest of testsuite/vm? Its kernel command line names the repository share.
IN_GUEST=0 _cmdline=
read -r _cmdline </proc/cmdline 2>/dev/null || true
[[ $_cmdline == *devns.repo=* ]] && IN_GUEST=1
readonly IN_GUEST
# The emulated (TCG) guest runs daemons several times slower: more time to come up there.
if ((IN_GUEST)); then
	readonly START_TIMEOUT=${DEVNS_START_TIMEOUT:-120}
else
	readonly START_TIMEOUT=${DEVNS_START_TIMEOUT:-30}
fi
readonly STOP_TIMEOUT=${DEVNS_STOP_TIMEOUT:-15}

# One lock for the whole host: the namespace and bridge names are fixed, so there can only be
# one cluster per host anyway. It lives outside the root so that `stop` can remove the root.
readonly LOCK_FILE=/run/lock/devns-cluster.lock

# Daemons get a clean environment: a SLURM_* variable inherited from the caller (for instance
# when this script itself runs inside a Slurm job) must not change how they behave.
# shellcheck disable=SC2206 # DEVNS_DAEMON_ENV is NAME=value words, split on purpose
readonly DAEMON_ENV=(env -i "PATH=$SLURM_PATH" LANG=C.UTF-8 "SLURM_CONF=$CONF" ${DEVNS_DAEMON_ENV:-})

export SLURM_CONF=$CONF PATH=$SLURM_PATH

# The libraries only define functions, and the constants of their own concern (network names
# and addresses in lib/netns.sh, the test users' groups in lib/users.sh); they read the
# settings above.
# shellcheck source=lib/common.sh
source "$LIB/common.sh"
# shellcheck source=lib/process.sh
source "$LIB/process.sh"
# shellcheck source=lib/packages.sh
source "$LIB/packages.sh"
# shellcheck source=lib/users.sh
source "$LIB/users.sh"
# shellcheck source=lib/root.sh
source "$LIB/root.sh"
# shellcheck source=lib/config.sh
source "$LIB/config.sh"
# shellcheck source=lib/netns.sh
source "$LIB/netns.sh"
# shellcheck source=lib/daemons.sh
source "$LIB/daemons.sh"
# shellcheck source=lib/client.sh
source "$LIB/client.sh"
# shellcheck source=lib/guest.sh
source "$LIB/guest.sh"

[[ $NODE_CPUS =~ ^[1-9][0-9]{0,3}$ ]] ||
	die "DEVNS_NODE_CPUS='$NODE_CPUS': not a whole number of CPUs from 1 to 9999"
[[ $PID_NAMESPACE =~ ^(yes|no)$ ]] || die "DEVNS_PID_NAMESPACE='$PID_NAMESPACE': not yes or no"

# ---------------------------------------------------------------------------------------------
# What start and stop do, in order
# ---------------------------------------------------------------------------------------------

# is_node NAME - is NAME one of the cluster's nodes (for `run -n` and `restart-slurmd`)?
is_node() {
	local n
	for n in "${NODES[@]}"; do [[ $n == "$1" ]] && return 0; done
	return 1
}

# True when anything of the cluster is there at all: a root, a namespace or our munged.
anything_present() {
	[[ -e $ROOT ]] && return 0
	local ns
	for ns in $(cluster_netns); do
		netns_exists "$ns" && return 0
	done
	[[ -n $(stray_munged_pids) ]]
}

# do_start - everything from packages to idle nodes. Each step fails `start` with a reason.
do_start() {
	ensure_packages
	if ((IN_GUEST)); then install_built_plugins; fi
	ensure_users
	make_layout
	write_configs
	make_fake_gpus
	setup_network
	start_munged
	start_slurmctld
	local n
	# shellcheck disable=SC2086 # blank-separated node names
	printf '%s\n' ${DEVNS_IMEX_NODES:-} >"$RUN/imex-nodes"
	for n in "${NODES[@]}"; do start_slurmd "$n"; done
	wait_nodes idle "${NODES[@]}"
}

# do_stop - the orderly way first (Slurm cancels the jobs), then ever less polite: daemons,
# whatever is left in the namespaces, munged, mounts, the namespaces, cgroups, the root.
# The host directories a configless slurmd needed and found missing (lib/configless-slurmd.sh).
# Likewise the IMEX channels' directory in /dev (lib/imex-slurmd.sh), once empty.
remove_configless_dirs() {
	local d f
	for f in "$RUN/configless-made" "$RUN/imex-made"; do
		[[ -f $f ]] || continue
		while IFS= read -r d; do rmdir -- "$d" 2>/dev/null || true; done <"$f"
		rm -f -- "$f"
	done
}

do_stop() {
	cancel_jobs
	stop_daemons
	kill_namespace_leftovers
	stop_munged
	umount_leftovers
	teardown_network
	remove_cgroups
	remove_configless_dirs
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
		if config_changed; then
			say "warning: the running cluster's config differs from the current DEVNS_* settings; '$PROG restart' applies them"
		fi
		return 0
	fi
	if anything_present; then
		say "cleaning up a partial cluster first"
		do_stop
	fi
	do_start
	say "running: ${NODES[*]} idle (root $ROOT, job container $JOB_CONTAINER, $(cgroup_plugin))"
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
	restart_slurmd "$n"
	say "slurmd on $n restarted"
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
		enter_user_workdir "$user"
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

# exec -- CMD: run CMD where the cluster runs; only DEVNS_CLUSTER_VM=1 makes that elsewhere.
cmd_exec() {
	[[ ${1:-} == -- ]] && shift
	(($#)) || die "usage: $PROG exec -- CMD..."
	if [[ -n ${DEVNS_CLUSTER_VM:-} ]]; then
		exec env DEVNS_CLUSTER_VM=guest "$@"
	fi
	exec "$@"
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
  exec -- CMD...             run CMD where the cluster runs (in the guest with DEVNS_CLUSTER_VM=1)

cluster root: $ROOT (DEVNS_CLUSTER_ROOT)
DEVNS_CLUSTER_VM=1: every verb runs in the QEMU guest of testsuite/vm (pure cgroup v2);
start boots it, stop powers it off too (DEVNS_VM_KEEP=1: leaves it running);
DEVNS_VM_INSTANCE=N: the Nth guest, with a cluster of its own (guests run side by side)
EOF
}

main() {
	local cmd=${1:-} rc=0
	if forwarding; then
		forward "$@" || rc=$?
		((rc == 99)) || exit "$rc"
	fi
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
	exec) cmd_exec "$@" ;;
	-h | --help | help) usage ;;
	*) usage >&2; exit 2 ;;
	esac
}

main "$@"
