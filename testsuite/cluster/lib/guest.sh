# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# lib/guest.sh - DEVNS_CLUSTER_VM=1: the cluster runs inside the QEMU guest of testsuite/vm
# (Debian 12, systemd, the pure cgroup-v2 layout of real nodes), and cluster.sh on the host
# only forwards its verbs there. The guest sees the repository at the same path (9p), so the
# guest's own cluster.sh does the work, with the caller's DEVNS_* settings and working
# directory; it finds the plugins of the host's build (DEVNS_BUILD_DIR) there too and installs
# them into the guest's PluginDir. Sourced by cluster.sh.
#
# DEVNS_VM_INSTANCE picks the guest (vm.sh reads it from the environment): every verb goes to
# that instance, whose cluster is its own. Nothing of the guest's cluster is kept on the host
# (no lock, root or namespace: those are the guest's), so clusters in two instances never
# meet; the host's PluginDir is not written either (install_built_plugins, below).

readonly VM_SH=$TOP/testsuite/vm/vm.sh

# forwarding - does this cluster.sh hand its verbs to the guest's (IN_GUEST: cluster.sh)?
forwarding() { [[ ${DEVNS_CLUSTER_VM:-} == 1 ]] && ((!IN_GUEST)); }

# vm.sh status asks the guest over ssh: stdin from /dev/null, or ssh would eat the caller's
# (`... | cluster.sh run -- CMD` must reach CMD).
guest_running() { "$VM_SH" status </dev/null >/dev/null 2>&1; }

# in_guest_run CMD... - CMD as root in the guest, in the caller's directory (/ where the guest
# has no such directory), with every DEVNS_* setting of the caller except the guest's own
# (DEVNS_VM_*). DEVNS_CLUSTER_VM arrives as "guest": what runs there knows it is inside, and
# a test's lib.sh does not forward itself again. stdin, stdout, stderr and the exit status are
# CMD's (255: ssh failed).
in_guest_run() {
	local vars=(DEVNS_CLUSTER_VM=guest) name
	for name in $(compgen -e); do
		case $name in
		DEVNS_CLUSTER_VM | DEVNS_VM_*) ;;
		DEVNS_*) vars+=("$name=${!name}") ;;
		esac
	done
	# shellcheck disable=SC2016 # $1 and $@ are for the guest's sh
	"$VM_SH" run env "${vars[@]}" sh -c 'cd "$1" 2>/dev/null || cd /; shift; exec "$@"' \
		sh "$PWD" "$@"
}

# require_guest - the guest must run for every verb but start, restart and stop.
require_guest() {
	guest_running ||
		die "the guest${DEVNS_VM_INSTANCE:+ (instance $DEVNS_VM_INSTANCE)} is not running ('DEVNS_CLUSTER_VM=1 $PROG start' boots it)"
}

# boot_guest - vm.sh start (a no-op when it runs); its exit status 77 (no guest can be had
# here: no QEMU, no image, not root) is ours too, with its reason as the last line.
boot_guest() {
	local rc=0
	"$VM_SH" start </dev/null || rc=$?
	((rc == 0)) && return 0
	((rc == 77)) && exit 77
	die "the guest did not start (vm.sh start: exit $rc)"
}

# forward VERB ARGS... - the host side of every verb with DEVNS_CLUSTER_VM=1.
forward() {
	local cmd=$1 rc=0
	shift
	case $cmd in
	start | restart)
		require_root
		boot_guest
		in_guest_run "$TOP/testsuite/cluster/cluster.sh" "$cmd" "$@"
		;;
	stop)
		require_root
		if guest_running; then
			in_guest_run "$TOP/testsuite/cluster/cluster.sh" stop "$@" || rc=$?
		fi
		# The guest goes with the cluster unless asked to stay (a next start is then quick).
		if [[ ${DEVNS_VM_KEEP:-} != 1 ]]; then
			"$VM_SH" stop </dev/null || rc=$?
		fi
		return "$rc"
		;;
	exec)
		[[ ${1:-} == -- ]] && shift
		(($#)) || die "usage: $PROG exec -- CMD..."
		require_guest
		in_guest_run "$@"
		;;
	status)
		if ! guest_running; then
			echo "guest: not running"
			return 3
		fi
		in_guest_run "$TOP/testsuite/cluster/cluster.sh" status "$@"
		;;
	env | -h | --help | help | '')
		return 99	# answered here: the paths are the same in the guest
		;;
	*)
		require_guest
		in_guest_run "$TOP/testsuite/cluster/cluster.sh" "$cmd" "$@"
		;;
	esac
}

# Slurm's PluginDir in the guest is Debian's, or that of the host's release under
# DEVNS_SLURM_PREFIX (which vm.sh copies into a tmpfs in the guest at boot). The plugins built
# on the host (same release, checked when the image is built) are installed into it at every
# start where they differ. The guest's root is an overlay on tmpfs and the copy a tmpfs, so
# nothing of this outlives the guest, and the host's own PluginDir is never written. DEVNS_PACKAGED_PLUGINS=1:
# the guest has slurm-devns's package installed (testsuite/package-smd.sh), whose plugins are
# the ones under test: nothing is installed over them.
install_built_plugins() {
	local build=${DEVNS_BUILD_DIR:-$TOP/build} dir so n=0
	[[ ${DEVNS_PACKAGED_PLUGINS:-} == 1 ]] && return 0
	dir=$(slurm_plugindir)
	[[ -n $dir ]] || die "no Slurm PluginDir found in the guest"
	for so in job_container_devns.so namespace_devns.so devns_pidns.so mcs_devgroup.so; do
		[[ -f $build/.libs/$so ]] || continue
		n=$((n + 1))
		cmp -s -- "$build/.libs/$so" "$dir/$so" && continue
		install -m 0644 -- "$build/.libs/$so" "$dir/$so" ||
			die "cannot install $so into $dir"
	done
	if ((n == 0)) && [[ $JOB_CONTAINER == job_container/devns ]]; then
		die "no plugins built in $build (scripts/build.sh on the host, or DEVNS_BUILD_DIR)"
	fi
}
