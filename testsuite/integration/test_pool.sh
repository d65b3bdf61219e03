#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_pool.sh - NamespacePool: namespaces copied ahead by slurmd.
#
# node1 runs with NamespacePool=2:
# 1. slurmd keeps 2 namespaces ready under BasePath/.pool (devns check
#    says so; each is a private bind and a pin).
# 2. A mount the node makes afterwards reaches the ready copies (through
#    propagation where the node's mounts are shared, by the keeper copying
#    again where they are private, as on this host): the copies are
#    replaced, and a job then starts in one of them (its namespace is one
#    that was ready), sees that mount, and has its own /tmp.
# 3. After the job the pool is full again and nothing of the job is left:
#    slurmd's keeper, listening on BasePath/.reaper, drops it behind.
# 4. kill -9 slurmd leaves the pool; the restarted slurmd replaces it
#    (what a kill in the middle of a fill leaves is cleared the same way).
# 5. Back on the harness' namespace.conf (no pool), nothing of the pool is
#    left: no directory, no mount, no socket.
. "$(dirname "$0")/lib.sh"
plan 25

USER1=dnalice
NODE_IDLE_WAIT=120 FILE_WAIT=120
JOB_OUT_PREFIX=pool
POOL=$BASE/node1/.pool
LATE=$DEVNS_CLUSTER_ROOT/pool-late
DEVNS=${DEVNS_TOOL:-$TOP/build/devns}

setup() {
	out_setup pool
}

# pool_ready: how many namespaces node1's pool has ready, as devns check says.
pool_ready() {
	SLURM_CONF=$DEVNS_CLUSTER_ETC/slurm.conf "$DEVNS" check -f "$CONF" -n node1 2>/dev/null |
		awk '$1 == "namespacepoolready" { print $2 }'
}
pool_full() { [ "$(pool_ready)" = 2 ]; }
pool_mounts() { grep -c " $POOL/" /proc/self/mountinfo; }
# ready_inodes: the namespace inodes of the ready entries, sorted.
ready_inodes() {
	local m
	for m in "$POOL"/*.ready; do
		[ -e "$m" ] && stat -L -c %i "${m%.ready}/.ns" 2>/dev/null
	done | sort
}

test_pool_kept() {
	echo "NodeName=node1 NamespacePool=2" >>"$CONF"
	"$CLUSTER" restart-slurmd node1 >/dev/null 2>&1
	wait_node_idle node1
	ok $? "slurmd starts on node1 with NamespacePool=2" || return 1
	if [ ! -x "$DEVNS" ]; then
		ok 1 "precondition: devns is built ($DEVNS)"
		return 1
	fi
	wait_for 30 pool_full
	ok $? "devns check: 2 namespaces ready" || return 1
	is "$(pool_mounts)" 4 "each is a private bind and a pin under BasePath/.pool"
	test -S "$BASE/node1/.reaper"
	ok $? "slurmd listens for ended jobs at BasePath/.reaper"
}

test_job_from_pool() {
	local before job ns m fd fds=()
	before=$(ready_inodes | tr '\n' ' ')
	# Held open, the old copies cannot be freed: their numbers stay theirs.
	for m in "$POOL"/*.ready; do
		exec {fd}<"${m%.ready}/.ns" && fds+=("$fd")
	done
	mkdir -p "$LATE" && mount -t tmpfs pool-late "$LATE" && touch "$LATE/file"
	ok $? "precondition: the node mounts a tmpfs after the copies were made"
	replaced() {
		local now n
		now=$(ready_inodes)
		[ "$(echo "$now" | wc -w)" = 2 ] || return 1
		for n in $now; do [[ " $before " == *" $n "* ]] && return 1; done
		return 0
	}
	wait_for 30 replaced
	ok $? "both ready copies are replaced ($before-> $(ready_inodes | tr '\n' ' '))"
	for fd in "${fds[@]}"; do exec {fd}<&-; done
	before=$(ready_inodes | tr '\n' ' ')
	job=$(submit -w node1 -n1 -- "readlink /proc/self/ns/mnt | tr -dc 0-9 > $OUT/pool-ns; test -e $LATE/file; echo \$? > $OUT/pool-late; echo x > /tmp/pool-marker; test -e $BASE/node1/.pool; echo \$? > $OUT/pool-base")
	wait_job_gone "$job"
	ok $? "a job on node1 ran" || return
	ns=$(cat "$OUT/pool-ns" 2>/dev/null)
	[ -n "$ns" ] && [[ " $before " == *" $ns "* ]]
	ok $? "its namespace ($ns) is one the pool had ready ($before)"
	is "$(cat "$OUT/pool-late" 2>/dev/null)" 0 "it sees the mount made after the copy"
	is "$(cat "$OUT/pool-base" 2>/dev/null)" 1 "BasePath is hidden from it"
	[ ! -e /tmp/pool-marker ]
	ok $? "its /tmp is its own"
	wait_for 30 pool_full
	ok $? "the pool is full again"
	wait_for 30 test ! -e "$BASE/node1/$job"
	ok $? "the job's directory is removed"
	no_reap() { ! compgen -G "$BASE/node1/.reap-*" >/dev/null; }
	wait_for 30 no_reap
	ok $? "nothing of it waits for the reaper" || diag "$(ls -la "$BASE/node1")"
	umount "$LATE" && rmdir "$LATE"
}

test_slurmd_killed() {
	local t0 newest
	# The unmount above changed the node's mounts: the keeper copies
	# again.  Let it settle first, so that the kill finds a full pool.
	sleep 2
	wait_for 30 pool_full
	is "$(pool_mounts)" 4 "precondition: the pool is full and settled" || return
	kill -9 "$(cat "$DEVNS_CLUSTER_ROOT/run/slurmd-node1.pid")" &&
		wait_for 10 sh -c "! pgrep -F $DEVNS_CLUSTER_ROOT/run/slurmd-node1.pid >/dev/null 2>&1"
	ok $? "precondition: slurmd on node1 killed with SIGKILL, and gone" || return
	# Gone: whatever its end did to the pool is done.
	is "$(pool_mounts)" 4 "its pool stays (no fini ran)" || diag "$(grep " $POOL" /proc/self/mountinfo; ls -la $POOL)"
	t0=$(date +%s)
	sleep 1
	"$CLUSTER" restart-slurmd node1 >/dev/null 2>&1
	wait_node_idle node1
	ok $? "slurmd on node1 starts again"
	wait_for 30 pool_full
	ok $? "2 namespaces ready"
	newest=$(stat -c %Z "$POOL/1" "$POOL/2" 2>/dev/null | sort -n | head -1)
	[ -n "$newest" ] && [ "$newest" -ge "$t0" ]
	ok $? "both made by the new slurmd (the old pool was cleared at restore)"
	is "$(pool_mounts)" 4 "and only they are mounted"
}

test_pool_gone() {
	conf_restore node1
	ok $? "node1 is back on the harness' namespace.conf"
	[ ! -e "$POOL" ]
	ok $? "BasePath/.pool is removed"
	is "$(pool_mounts)" 0 "no mount of the pool is left"
	[ ! -e "$BASE/node1/.reaper" ]
	ok $? "BasePath/.reaper is removed"
}

setup
test_pool_kept && test_job_from_pool
test_slurmd_killed
test_pool_gone
mountpoint -q "$LATE" 2>/dev/null && umount "$LATE"
rmdir "$LATE" 2>/dev/null
cp "$CONF_SAVED" "$CONF"
tap_done
