# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# lib/netns.sh - the cluster's network: one network namespace per Slurm daemon (devns-ctl,
# devns-node1..3), each with an eth0 on a bridge that lives in a namespace of its own
# (devns-hub), so that every daemon has its own address and the host's network is never
# touched. The names are fixed, which is why there is one cluster per host. Everything still
# running inside these namespaces belongs to the cluster, which `stop` relies on.
# Sourced by cluster.sh.

readonly NET=10.199.0 NETMASK=24
readonly CTL_ADDR=$NET.1
readonly HUB_NS=devns-hub CTL_NS=devns-ctl NODE_NS_PREFIX=devns-
readonly BRIDGE=devnsbr0

# node_ns node2 -> devns-node2
node_ns() { printf '%s%s' "$NODE_NS_PREFIX" "$1"; }

# node_addr node2 -> 10.199.0.12
node_addr() { printf '%s.%d' "$NET" $((10 + ${1#node})); }

# netns_exists NS - does the named network namespace exist (ip netns add made it)?
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

# ns_has_comm NS COMM - is a process named COMM running in network namespace NS?
ns_has_comm() {
	local pid
	for pid in $(ip netns pids "$1" 2>/dev/null); do
		has_comm "$pid" "$2" && return 0
	done
	return 1
}

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

# setup_network - the hub with its bridge, then one attached namespace per daemon.
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
