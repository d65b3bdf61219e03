# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# lib/common.sh - messages, the root check and the host-wide lock: what every verb of
# cluster.sh needs before it touches anything. Sourced by cluster.sh; uses PROG and LOCK_FILE.

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

require_root() { ((EUID == 0)) || die "must run as root"; }

# Serialise start/stop/restart: two tests starting the cluster at once must not interleave.
# Daemons are started with fd 9 closed: one that inherited it would hold the lock forever.
take_lock() {
	mkdir -p -- "${LOCK_FILE%/*}"
	exec 9>"$LOCK_FILE"
	flock -w 120 9 || die "could not take $LOCK_FILE within 120s"
}
