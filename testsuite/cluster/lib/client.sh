# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# lib/client.sh - the cluster as slurmctld sees it, through Slurm's client commands run from
# the controller's namespace: whether the nodes are up, whether a restarted slurmd has
# registered, and cancelling the jobs before `stop`. A daemon's pid file only says it runs;
# readiness is what slurmctld reports. Sourced by cluster.sh.

# client CMD... - a Slurm client command as root, from the controller's namespace.
client() { in_ns "$CTL_NS" "$@"; }

# node_states - "NAME STATE" per node, as slurmctld sees them; STATE gets a "*" suffix when
# the node does not respond.
node_states() { client sinfo -h -N -o '%N %T' 2>/dev/null; }

# wait_nodes MODE NODE... - wait until the nodes are idle (MODE idle) or merely up and
# responding, whatever their jobs (MODE up).
wait_nodes() {
	local mode=$1 deadline=$((SECONDS + START_TIMEOUT)) states
	shift
	while :; do
		check_daemons_alive "$@"
		states=$(node_states || true)
		nodes_ready "$mode" "$states" "$@" && return 0
		# A drained or invalid node stays so until someone resumes it: no use waiting.
		if ((SECONDS >= deadline)) || nodes_stuck "$states" "$@"; then
			local logs=("$LOG/slurmctld.log") n shown=${states//$'\n'/, }
			for n in "$@"; do logs+=("$(slurmd_log "$n")"); done
			die_with_logs "nodes not $mode after $((START_TIMEOUT - deadline + SECONDS))s; sinfo says: ${shown:-nothing}" \
				"$STDIO_LOG" "${logs[@]}"
		fi
		sleep 0.2
	done
}

# state_of NODE STATES - NODE's state in STATES (node_states' lines); empty if not there.
state_of() { awk -v n="$1" '$1 == n {print $2; exit}' <<<"$2"; }

# nodes_ready MODE STATES NODE... - does every NODE have a state in STATES (node_states' lines)
# that MODE accepts? A node missing from STATES, or not responding, is not ready.
nodes_ready() {
	local mode=$1 states=$2 n state
	shift 2
	for n in "$@"; do
		state=$(state_of "$n" "$states")
		case $mode:$state in
		idle:idle) ;;
		up:idle | up:mixed | up:allocated | up:completing) ;;
		*) return 1 ;;
		esac
	done
}

# nodes_stuck STATES NODE... - is one NODE drained, draining or invalid in STATES?
nodes_stuck() {
	local states=$1 n
	shift
	for n in "$@"; do
		case $(state_of "$n" "$states") in
		drain* | inval*) return 0 ;;
		esac
	done
	return 1
}

# slurmd_start_time NODE - when slurmctld last saw NODE's slurmd register; empty if unknown.
slurmd_start_time() {
	client scontrol -o show node "$1" 2>/dev/null | grep -o 'SlurmdStartTime=[^ ]*' | cut -d= -f2 || true
}

# wait_registered NODE BEFORE - wait until slurmctld reports a SlurmdStartTime for NODE other
# than BEFORE, that is until the slurmd just started has registered.
wait_registered() {
	local n=$1 before=$2 deadline=$((SECONDS + START_TIMEOUT))
	while [[ $(slurmd_start_time "$n") == "$before" ]]; do
		check_daemons_alive "$n"
		((SECONDS < deadline)) ||
			die_with_logs "slurmd on $n did not register within ${START_TIMEOUT}s" "$(slurmd_log "$n")"
		sleep 0.1
	done
}

# Let Slurm end the jobs itself first, so that job_container plugins run their normal
# teardown; whatever does not end in time, do_stop (cluster.sh) kills anyway.
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
