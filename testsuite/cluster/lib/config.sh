# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# lib/config.sh - the files under etc/ of the cluster root: slurm.conf, cgroup.conf, gres.conf,
# job_container.conf (devns's or tmpfs's) or namespace.yaml (namespace/linux's), plugstack.conf
# and the task hook. Each is generated from the constants of cluster.sh and the DEVNS_*
# settings; writing them is all `start` needs, and comparing them with what a running cluster
# uses tells `start` that a `restart` is due.
# Sourced by cluster.sh.

# Half the GPUs are of type a, half of type b: typed GRES share one index space per name.
node_gres() {
	local half=$((GPUS_PER_NODE / 2))
	printf 'gpu:a:%d,gpu:b:%d,nic:%d' "$half" $((GPUS_PER_NODE - half)) "$NICS_PER_NODE"
	[[ -z $TMPDISK_GRES ]] || printf ',tmpdisk:%s' "$TMPDISK_GRES"
}

node_list() { printf 'node[1-%d]' "${#NODES[@]}"; }

# A node's memory in slurm.conf: 1000 MB, or 500 MB per CPU where DEVNS_NODE_CPUS gives more
# than 2, so that one-CPU jobs with DefMemPerCPU (the unified layout) can fill every CPU.
node_memory() { echo $((NODE_CPUS > 2 ? NODE_CPUS * 500 : 1000)); }

# slurmd compares slurm.conf's node line with the hardware it finds and drains a node that
# claims more CPUs than it has; config_overrides makes it take slurm.conf's word. Only where
# DEVNS_NODE_CPUS asks for more than the default 2 (this machine's), so that the default
# cluster checks its nodes as a real one does.
slurmd_parameters() { ((NODE_CPUS == 2)) || echo "SlurmdParameters=config_overrides"; }

# Memory is a consumable resource where cgroup.conf constrains it (the unified layout): only
# then does a job's --mem reach its cgroup (memory.max). Each job gets 300 MB per CPU unless
# it asks: two one-CPU jobs fit a node's RealMemory (1000 MB) as two CPUs do.
select_parameters() {
	if ((CGROUP_V2)); then
		printf 'SelectTypeParameters=CR_Core_Memory\nDefMemPerCPU=300\n'
	else
		echo "SelectTypeParameters=CR_Core"
	fi
}

# The job container's line: JobContainerType up to 25.11 (25.11 still maps it onto the
# namespace interface, which the 25.11 runs check), NamespaceType=namespace/NAME from 26.05.
# namespace/linux, which has no job_container/ name, is NamespaceType on every release that
# has it (25.11 on).
job_container_line() {
	[[ $JOB_CONTAINER == job_container/none ]] && return
	if [[ $JOB_CONTAINER == namespace/* ]]; then
		echo "NamespaceType=$JOB_CONTAINER"
		return
	fi
	local version
	version=$(slurm_version)
	if [[ $(printf '%s\n26.05\n' "$version" | sort -V | head -n1) == 26.05 ]]; then
		echo "NamespaceType=namespace/${JOB_CONTAINER#*/}"
	else
		echo "JobContainerType=$JOB_CONTAINER"
	fi
}

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
$(job_container_line)
SelectType=select/cons_tres
$(select_parameters)
GresTypes=gpu,nic${TMPDISK_GRES:+,tmpdisk}
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
JobCompType=jobcomp/filetxt
JobCompLoc=$LOG/jobcomp.log
MailProg=/bin/true
$(slurmd_parameters)
EOF
}

# without_extra_keys DEFAULTS EXTRA APPEND_KEYS - the lines of DEFAULTS less those whose key a
# line of EXTRA sets (keys compare case-insensitively): a key given in EXTRA replaces the
# default. Keys in APPEND_KEYS (lower case, blank separated) may appear on several lines and
# are never replaced. A repeated key would work too (the last wins) but Slurm logs an error
# for each repeat.
without_extra_keys() {
	local defaults=$1 extra=$2 append=" $3 " line key
	local -A replaced=()
	while IFS= read -r line; do
		[[ $line =~ ^[[:space:]]*([A-Za-z]+)[[:space:]]*= ]] || continue
		key=${BASH_REMATCH[1],,}
		[[ $append == *" $key "* ]] || replaced[$key]=1
	done <<<"$extra"
	while IFS= read -r line; do
		[[ -n $line ]] || continue
		key=${line%%=*}
		[[ -n ${replaced[${key,,}]:-} ]] || printf '%s\n' "$line"
	done <<<"$defaults"
}

# render_slurm_conf - slurm.conf on stdout: the defaults less the keys DEVNS_SLURM_CONF_EXTRA
# sets, the nodes and the partition, then DEVNS_SLURM_CONF_EXTRA itself.
render_slurm_conf() {
	local extra=${DEVNS_SLURM_CONF_EXTRA:-}
	{
		echo "# generated by testsuite/cluster"
		without_extra_keys "$(default_slurm_conf)" "$extra" \
			"nodename partitionname nodeset downnodes slurmctldhost include"

		local n
		for n in "${NODES[@]}"; do
			printf 'NodeName=%s NodeHostname=%s NodeAddr=%s CPUs=%d Sockets=1 CoresPerSocket=%d ThreadsPerCore=1 RealMemory=%d Gres=%s State=UNKNOWN\n' \
				"$n" "$n" "$(node_addr "$n")" "$NODE_CPUS" "$NODE_CPUS" "$(node_memory)" "$(node_gres)"
		done
		printf 'PartitionName=debug Nodes=%s Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO\n' \
			"$(node_list)"

		if [[ -n $extra ]]; then
			echo "# from DEVNS_SLURM_CONF_EXTRA"
			printf '%s\n' "$extra"
		fi
	}
}

# The Slurm cgroup plugin follows the machine's layout (CGROUP_V2, cluster.sh).
#
# Hybrid (this development host: v1 controllers): cgroup/v2 refuses to run, v1 works, and
# nothing is constrained. Debian's slurmd is built with multiple-slurmd support, whose default
# CgroupPrepend is /slurm_%n: the three slurmd get disjoint trees
# (/sys/fs/cgroup/<controller>/slurm_nodeN) and do not fight over paths.
#
# Unified (the QEMU guest of testsuite/vm, as on real nodes): cgroup/v2 with memory and cores
# constrained, as a production node has it. Each slurmd puts its steps under
# /sys/fs/cgroup/system.slice/<node>_slurmstepd.scope (a scope systemd makes for it over dbus).
# Devices are not constrained by Slurm on either layout unless DEVNS_CONSTRAIN_DEVICES=yes:
# a denial the tests see can then only be devns's (test_cgroupv2 shows the two compose).
default_cgroup_conf() {
	local v2=no devices
	((CGROUP_V2)) && v2=yes
	devices=${DEVNS_CONSTRAIN_DEVICES:-no}
	if ((CGROUP_V2)); then
		echo "CgroupPlugin=cgroup/v2"
		# Without systemd nobody answers slurmd's dbus call for its stepd scope.
		((USE_SYSTEMD)) || echo "IgnoreSystemd=yes"
	else
		echo "CgroupPlugin=cgroup/v1"
	fi
	echo "ConstrainCores=$v2"
	echo "ConstrainRAMSpace=$v2"
	echo "ConstrainDevices=$devices"
}

# render_cgroup_conf - cgroup.conf on stdout: the defaults less the keys DEVNS_CGROUP_CONF_EXTRA
# sets, then DEVNS_CGROUP_CONF_EXTRA itself.
render_cgroup_conf() {
	local extra=${DEVNS_CGROUP_CONF_EXTRA:-}
	{
		echo "# generated by testsuite/cluster"
		without_extra_keys "$(default_cgroup_conf)" "$extra" ""
		if [[ -n $extra ]]; then
			echo "# from DEVNS_CGROUP_CONF_EXTRA"
			printf '%s\n' "$extra"
		fi
	}
}

# cgroup_plugin - the CgroupPlugin of the cluster's cgroup.conf.
cgroup_plugin() { sed -n 's/^CgroupPlugin=//p' "$ETC/cgroup.conf" | tail -n 1; }

# write_gres_conf - the fake GPUs and nics of make_fake_gpus (lib/root.sh), for every node.
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
		[[ -z $TMPDISK_GRES ]] || echo "NodeName=$(node_list) Name=tmpdisk Count=$TMPDISK_GRES"
	} >"$ETC/gres.conf"
}

# devns's settings: job_container.conf in the slurm.conf directory (the file slurmctld ships to
# configless nodes; namespace.conf, devns 0.1's name, is removed: both at once stop slurmd).
# Tests rewrite it and restart a slurmd, so it stays a plain file.  DEVNS_NAMESPACE_CONF, if
# set, is copied instead of the generated one.
write_devns_conf() {
	rm -f -- "$ETC/namespace.conf"
	if [[ -n ${DEVNS_NAMESPACE_CONF:-} ]]; then
		[[ -r $DEVNS_NAMESPACE_CONF ]] || die "DEVNS_NAMESPACE_CONF=$DEVNS_NAMESPACE_CONF is not readable"
		cat -- "$DEVNS_NAMESPACE_CONF" >"$ETC/job_container.conf"
		return
	fi
	{
		echo "# generated by testsuite/cluster"
		echo "BasePath=$BASE/default"
		echo "AutoBasePath=yes"
		if [[ $PID_NAMESPACE == yes ]]; then echo "PidNamespace=yes"; fi
		local n
		for n in "${NODES[@]}"; do echo "NodeName=$n BasePath=$BASE/$n"; done
	} >"$ETC/job_container.conf"
}

# For job_container/tmpfs, the reference plugin used while devns is not installed. In a
# multiple-slurmd build tmpfs appends "/<nodename>" to every BasePath it reads, so a single
# global line gives the same per-node directories as devns's NodeName lines (those would
# end up as base/nodeN/nodeN).
write_tmpfs_conf() {
	rm -f -- "$ETC/namespace.conf"
	cat >"$ETC/job_container.conf" <<EOF
# generated by testsuite/cluster (job_container/tmpfs appends /<nodename>)
AutoBasePath=true
BasePath=$BASE
EOF
}

# For namespace/linux (Slurm's own, 25.11 on): namespace.yaml beside slurm.conf, its
# defaults only. Like tmpfs in a multiple-slurmd build it appends "/<nodename>" to base_path;
# its private directories are its default, /tmp and /dev/shm. DEVNS_PID_NAMESPACE=yes adds
# CLONE_NEWPID to clone_ns_flags (CLONE_NEWNS is always on): a PID namespace per job, with a
# /proc of its own. namespace/linux reads namespace.yaml through Slurm's data_parser, which
# loads serializer/json first: a Slurm built without json-c (scripts/slurm-release.sh's builds)
# has no serializer_json.so, and its slurmd dies at start (fatal: serializer_required: could
# not find plugin for application/json). Say so before.
write_linux_conf() {
	local plugindir
	plugindir=$(slurm_plugindir)
	[[ -f $plugindir/serializer_json.so ]] ||
		die "namespace/linux needs Slurm's serializer/json to read namespace.yaml: $plugindir has no serializer_json.so (this Slurm was built without json-c)"
	rm -f -- "$ETC/namespace.conf"
	{
		echo "# generated by testsuite/cluster (namespace/linux appends /<nodename>)"
		echo "defaults:"
		echo "  auto_base_path: true"
		echo "  base_path: \"$BASE\""
		if [[ $PID_NAMESPACE == yes ]]; then
			echo "  clone_ns_flags:"
			echo "    - \"CLONE_NEWPID\""
		fi
	} >"$ETC/namespace.yaml"
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

# plugstack.conf (next to slurm.conf, Slurm's default): devns's SPANK plugin, which
# PidNamespace=yes needs and which does nothing without it.  Empty for other job containers,
# whose runs may not have it installed.
write_plugstack_conf() {
	if [[ $JOB_CONTAINER == job_container/devns ]]; then
		echo "required devns_pidns.so"
	fi >"$ETC/plugstack.conf"
}

# write_configs - every file under etc/, as `start` needs them.
write_configs() {
	write_task_hook
	render_slurm_conf >"$CONF"
	render_cgroup_conf >"$ETC/cgroup.conf"
	write_gres_conf
	case $JOB_CONTAINER in
	job_container/tmpfs) write_tmpfs_conf ;;
	namespace/linux) write_linux_conf ;;
	*) write_devns_conf ;;
	esac
	write_plugstack_conf
}

# config_changed - true when the DEVNS_* settings now give a slurm.conf or cgroup.conf other
# than the running cluster's: `start` leaves a running cluster alone and only says so.
config_changed() {
	[[ $(render_slurm_conf) != "$(cat -- "$CONF")" ||
		$(render_cgroup_conf) != "$(cat -- "$ETC/cgroup.conf")" ]]
}
