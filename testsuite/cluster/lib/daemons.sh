# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# lib/daemons.sh - starting, watching and stopping munged, slurmctld and the slurmd of each
# node. munged runs in the host's namespaces with its own key and socket; slurmctld and every
# slurmd run in their own network namespace (lib/netns.sh) and UTS namespace, so each has the
# hostname Slurm expects. A daemon is "running" when its pid file names a live process of the
# right name (pid_of, lib/process.sh). Sourced by cluster.sh.

# Where NODE's slurmd writes its pid and its log (SlurmdPidFile, SlurmdLogFile with %n).
slurmd_pidfile() { printf '%s/slurmd-%s.pid' "$RUN" "$1"; }
slurmd_log() { printf '%s/slurmd-%s.log' "$LOG" "$1"; }

# launch_daemon UNIT CMD... - start the self-daemonising CMD in the daemons' clean environment
# (DAEMON_ENV); returns once CMD's first process has exited, and the caller waits for the
# daemon's pid file (wait_pid). Under systemd (the QEMU guest) CMD runs as the transient
# service UNIT, as a packaged unit would run it: Delegate=yes (Slurm's cgroup/v2 wants a
# cgroup subtree of its own; slurmd sees INVOCATION_ID and stays in it), KillMode=process
# (stopping slurmd leaves the slurmstepd of running jobs alone) and the limits of Debian's
# slurmd.service. Type=forking without PIDFile and with GuessMainPID=no: the start is done
# when CMD's first process exits, as without systemd, and the unit stays active while the
# daemon runs (a PIDFile would keep systemd-run waiting 90 s for one that a daemon dying at
# start never writes). Elsewhere CMD is our child.
launch_daemon() {
	local unit=$1
	shift
	if ((!USE_SYSTEMD)); then
		"${DAEMON_ENV[@]}" "$@" </dev/null >>"$STDIO_LOG" 2>&1 9>&-
		return
	fi
	local setenv=() word
	# DAEMON_ENV is "env -i NAME=value...": systemd starts services with a clean environment.
	for word in "${DAEMON_ENV[@]:2}"; do setenv+=(-E "$word"); done
	# A unit of the same name left by a daemon that was killed, not stopped. systemd keeps a
	# loaded transient unit's file in /run/systemd/transient until it collects the unit:
	# looked for first, as each systemctl costs a second in the emulated guest.
	if [[ -e /run/systemd/transient/$unit ]]; then
		systemctl stop "$unit" >/dev/null 2>&1 || true
		systemctl reset-failed "$unit" >/dev/null 2>&1 || true
	fi
	systemd-run --quiet --collect --unit="$unit" --service-type=forking -p GuessMainPID=no \
		-p Delegate=yes -p KillMode=process -p TasksMax=infinity -p LimitNOFILE=131072 \
		-p LimitMEMLOCK=infinity -p LimitSTACK=infinity \
		-p StandardOutput="append:$STDIO_LOG" -p StandardError="append:$STDIO_LOG" \
		"${setenv[@]}" -- "$(command -v "$1")" "${@:2}" </dev/null >>"$STDIO_LOG" 2>&1 9>&-
}

# The transient units of launch_daemon: munged, slurmctld, slurmd of NODE.
readonly UNIT_PREFIX=devns-cluster-
slurmd_unit() { printf '%sslurmd-%s.service' "$UNIT_PREFIX" "$1"; }

# start_in_ns UNIT NS HOSTNAME CMD... - start a self-daemonising CMD in network
# namespace NS and a new UTS namespace named HOSTNAME. nsenter + unshare instead of
# `ip netns exec`, which would remount /sys and hide /sys/fs/cgroup from the daemon.
start_in_ns() {
	local unit=$1 ns=$2 host=$3
	shift 3
	# shellcheck disable=SC2016 # $0 and $@ are for the inner sh
	launch_daemon "$unit" nsenter --net="/run/netns/$ns" -- \
		unshare --uts -- sh -c 'hostname "$0" && exec "$@"' "$host" "$@"
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

# start_munged - the cluster's own munged, with a key of its own created on first start.
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
	launch_daemon "${UNIT_PREFIX}munged.service" runuser -u munge -- munged \
		--socket="$MUNGE_SOCKET" --key-file="$key" --pid-file="$MUNGE_DIR/munged.pid" \
		--log-file="$MUNGE_DIR/munged.log" --seed-file="$MUNGE_DIR/munged.seed" \
		--num-threads=4 ||
		die_with_logs "munged failed to start" "$STDIO_LOG" "$MUNGE_DIR/munged.log"
	local deadline=$((SECONDS + START_TIMEOUT))
	until munge -n -S "$MUNGE_SOCKET" 2>/dev/null | unmunge -S "$MUNGE_SOCKET" >/dev/null 2>&1; do
		((SECONDS < deadline)) ||
			die_with_logs "munged does not answer on $MUNGE_SOCKET" "$STDIO_LOG" "$MUNGE_DIR/munged.log"
		sleep 0.1
	done
}

# start_slurmctld, start_slurmd NODE - start the daemon in its namespace and wait for its pid
# file; a daemon that exits on the way fails `start` with its log.
start_slurmctld() {
	start_in_ns "${UNIT_PREFIX}slurmctld.service" "$CTL_NS" "$CTL_HOST" slurmctld -f "$CONF" ||
		die_with_logs "slurmctld failed to start" "$STDIO_LOG" "$LOG/slurmctld.log"
	wait_pid "$CTL_NS" "$RUN/slurmctld.pid" slurmctld "$STDIO_LOG" "$LOG/slurmctld.log"
}

# configless NODE: NODE's slurmd takes its configuration from slurmctld (DEVNS_CONFIGLESS_NODES).
configless() { [[ " ${DEVNS_CONFIGLESS_NODES:-} " == *" $1 "* ]]; }

# imex_node NODE: NODE's slurmd sees IMEX channels (DEVNS_IMEX_NODES at `start`, kept in
# RUN/imex-nodes so that restart-slurmd keeps it; not with configless).
imex_node() { [[ -f $RUN/imex-nodes ]] && grep -qx -- "$1" "$RUN/imex-nodes"; }

start_slurmd() {
	local n=$1
	# -N: multiple-slurmd builds name the node explicitly (it also matches the hostname).
	if configless "$n"; then
		start_in_ns "$(slurmd_unit "$n")" "$(node_ns "$n")" "$n" \
			"$LIB/configless-slurmd.sh" "$MUNGE_SOCKET" "$RUN" slurmd --conf-server "$CTL_ADDR:6817" -N "$n" ||
			die_with_logs "slurmd on $n (configless) failed to start" "$STDIO_LOG" "$(slurmd_log "$n")"
	elif imex_node "$n"; then
		write_imex_devices
		start_in_ns "$(slurmd_unit "$n")" "$(node_ns "$n")" "$n" \
			"$LIB/imex-slurmd.sh" "$IMEX_DEVICES" "$RUN" slurmd -f "$CONF" -N "$n" ||
			die_with_logs "slurmd on $n (IMEX) failed to start" "$STDIO_LOG" "$(slurmd_log "$n")"
	else
		start_in_ns "$(slurmd_unit "$n")" "$(node_ns "$n")" "$n" slurmd -f "$CONF" -N "$n" ||
			die_with_logs "slurmd on $n failed to start" "$STDIO_LOG" "$(slurmd_log "$n")"
	fi
	wait_pid "$(node_ns "$n")" "$(slurmd_pidfile "$n")" slurmd "$STDIO_LOG" "$(slurmd_log "$n")"
}

# restart_slurmd NODE - restart NODE's slurmd alone and wait until slurmctld has seen it
# register again. Only slurmd itself: the slurmstepd of running jobs must survive, as on a
# real restart.
restart_slurmd() {
	local n=$1 before pid
	# Readiness is a new SlurmdStartTime on slurmctld's side (1 s resolution), so never start
	# within the second of the previous start.
	before=$(slurmd_start_time "$n")
	if pid=$(pid_of "$(slurmd_pidfile "$n")" slurmd); then
		terminate "$STOP_TIMEOUT" "$pid"
	fi
	while [[ $(date '+%Y-%m-%dT%H:%M:%S') == "$before" ]]; do sleep 0.1; done
	start_slurmd "$n"
	wait_registered "$n" "$before"
	wait_nodes up "$n"
}

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

# munged runs in the host namespaces; find ours by its socket if the pid file is gone.
# Builtins for every process (process.sh): a fork for each costs seconds in the guest.
stray_munged_pids() {
	local d cmd
	for d in /proc/[0-9]*; do
		has_comm "${d#/proc/}" munged || continue
		cmd=$(tr '\0' ' ' <"$d/cmdline" 2>/dev/null) || continue
		[[ $cmd == *"--socket=$MUNGE_SOCKET "* ]] && printf '%s\n' "${d#/proc/}"
	done
	return 0
}

# stop_daemons - SIGTERM every slurmd and slurmctld at once, SIGKILL what outlives the grace.
stop_daemons() {
	local pids=() pid n
	for n in "${NODES[@]}"; do
		pid=$(pid_of "$(slurmd_pidfile "$n")" slurmd) && pids+=("$pid")
	done
	pid=$(pid_of "$RUN/slurmctld.pid" slurmctld) && pids+=("$pid")
	terminate "$STOP_TIMEOUT" "${pids[@]}"
}

# stop_munged - last of the daemons: the others need it to the end. By its pid file, and by
# its socket in case the pid file is gone.
stop_munged() {
	local pids=() pid
	pid=$(pid_of "$MUNGE_DIR/munged.pid" munged) && pids+=("$pid")
	mapfile -t -O "${#pids[@]}" pids < <(stray_munged_pids)
	# shellcheck disable=SC2207 # pids are single words
	pids=($(printf '%s\n' "${pids[@]}" | sort -u))
	terminate "$STOP_TIMEOUT" "${pids[@]}"
}

# remove_cgroups - what the killed daemons and steps left in the cgroup tree, once no process
# of the cluster is left. rmdir of a cgroup directory succeeds once no task is left in it;
# depth first.
remove_cgroups() {
	if ((CGROUP_V2)); then
		remove_cgroups_v2
		return
	fi
	# cgroup v1: the trees of our slurmd (CgroupPrepend /slurm_%n).
	local n d
	for n in "${NODES[@]}"; do
		for d in /sys/fs/cgroup/*/slurm_"$n"; do
			[[ -d $d ]] || continue
			find "$d" -depth -type d -exec rmdir {} + 2>/dev/null ||
				say "warning: could not remove all of $d"
		done
	done
}

# cgroup v2: each slurmd's stepd scope (system.slice/<node>_slurmstepd.scope, made by systemd
# for slurmd, or by slurmd itself without systemd) and our transient units' states.
remove_cgroups_v2() {
	local n d
	for n in "${NODES[@]}"; do
		d=$(stepd_scope "$n")
		if ((USE_SYSTEMD)); then
			systemctl stop "${d##*/}" >/dev/null 2>&1 || true
		fi
		[[ -d $d ]] || continue
		find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
		[[ ! -d $d ]] || say "warning: could not remove all of $d"
	done
	if ((USE_SYSTEMD)); then
		systemctl reset-failed "${UNIT_PREFIX}*" >/dev/null 2>&1 || true
	fi
}

# stepd_scope NODE - the cgroup of NODE's slurmstepd on the unified layout (Debian's
# multiple-slurmd build names it after the node).
stepd_scope() { printf '/sys/fs/cgroup/system.slice/%s_slurmstepd.scope' "$1"; }
