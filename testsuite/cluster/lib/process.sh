# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# lib/process.sh - finding, waiting for and ending the cluster's processes by pid. Nothing
# here knows which daemon is which: lib/daemons.sh says that. Sourced by cluster.sh.

# pid_of PIDFILE COMM - print the pid in PIDFILE if that process is alive and is COMM.
# Checking the command name guards against a stale file whose pid was reused.
pid_of() {
	local file=$1 comm=$2 pid
	[[ -r $file ]] || return 1
	read -r pid <"$file" 2>/dev/null || return 1
	[[ $pid =~ ^[0-9]+$ ]] || return 1
	has_comm "$pid" "$comm" || return 1
	printf '%s\n' "$pid"
}

# PID 1 need not be an init that reaps orphans at once (on the development machine it does so
# only every second or so): a zombie counts as gone.
# Read with builtins: these run for every process in loops, and a fork costs a tenth of a
# second in the emulated guest.  The state follows the last ") " of /proc/PID/stat (a comm may
# hold both).
is_zombie() {
	local stat
	{ read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
	stat=${stat##*) }
	[[ ${stat%% *} == Z ]]
}

# has_comm PID COMM - PID is a live (not zombie) process named COMM.
has_comm() {
	local c
	{ read -r c <"/proc/$1/comm"; } 2>/dev/null || return 1
	[[ $c == "$2" ]] && ! is_zombie "$1"
}

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
