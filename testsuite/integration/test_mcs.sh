#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_mcs.sh - mcs/devgroup on a real cluster, side by side with Slurm's own
# mcs/group: the same assertions run under both plugins (DEVNS_MCS_PLUGINS),
# so that "same user-visible semantics" is checked, not assumed.  The only
# expected differences are the users in more than 128 groups, whom mcs/group
# cannot read.
#
# For every mode ondemand/enforced x noselect/select/ondemandselect the
# cluster restarts with that MCSParameters and checks:
#   - labels chosen or refused at submission (held jobs), with and without
#     --mcs-label and --exclusive=mcs, and the exact messages of sbatch/srun;
#     from 25.05 scontrol update MCSLabel= of a held job;
#   - whether jobs of devgrpa and devgrpb share a node, and the node's
#     MCS_label while held and after (scontrol show node);
# then privatedata (PrivateData=jobs,nodes) for users in one group, both,
# none: squeue, scontrol show job/node, sinfo; unknown groups in
# MCSParameters (ignored by mcs/group, refused by mcs/devgroup, which never
# fails open: test_mcs_nss.sh checks NSS failures); and scontrol reconfigure
# (mcs/devgroup's cache counters).
#
# Where it runs: by default in a private sandbox (its own mount and PID
# namespaces with private /run/netns, /run/lock and an empty /sys/fs/cgroup),
# so that testsuite/cluster/cluster.sh starts a cluster of its own under
# DEVNS_CLUSTER_ROOT=/var/lib/devns-mcs that shares nothing with the host's
# shared test cluster (whose namespace names and lock are fixed).  The
# sandboxed cluster uses proctrack/linuxproc and job_container/none: MCS
# does not care.  DEVNS_MCS_SHARED=1 uses the shared cluster instead: it
# restarts it once per mode and restores the caller's configuration at the
# end.
#
# DEVNS_MCS_MODES="enforced,select ...": only these modes (default: all six).
# DEVNS_MCS_PLUGINDIR: where mcs_devgroup.so is (default: Slurm's PluginDir
# if installed there, else the newest build*/.libs of this tree).

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# DEVNS_CLUSTER_VM=1 (the QEMU guest): the sandbox is made in the guest,
# where lib.sh sends the test first (DEVNS_CLUSTER_VM=guest there); made
# here, its PID namespace would hide QEMU from vm.sh, and the guest would
# look stopped.
if [ -z "${DEVNS_MCS_SHARED:-}" ] && [ -z "${_DEVNS_MCS_SANDBOX:-}" ] &&
	[ "${DEVNS_CLUSTER_VM:-}" != 1 ]; then
	[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root"; exit 0; }
	exec unshare --mount --pid --fork --mount-proc --propagation private \
		env _DEVNS_MCS_SANDBOX=1 bash "$0" "$@"
fi
if [ -n "${_DEVNS_MCS_SANDBOX:-}" ]; then
	mkdir -p /run/netns /run/lock
	mount -t tmpfs -o mode=0755 devns-mcs /run/netns
	mount -t tmpfs -o mode=1777 devns-mcs /run/lock
	mount -t tmpfs -o mode=0755 devns-mcs /sys/fs/cgroup
	export DEVNS_CLUSTER_ROOT=${DEVNS_MCS_CLUSTER_ROOT:-/var/lib/devns-mcs}
	export DEVNS_JOB_CONTAINER=job_container/none
fi

source "$TOP/testsuite/integration/lib.sh"

PLUGINS=${DEVNS_MCS_PLUGINS:-mcs/devgroup mcs/group}
GROUPS_CONF="devgrpa|devgrpb|devgrpc"
CTLD_LOG=$DEVNS_CLUSTER_ROOT/log/slurmctld.log
SAVED_EXTRA=${DEVNS_SLURM_CONF_EXTRA-}
REJECT_SBATCH="sbatch: error: Batch job submission failed: Invalid mcs_label specified"
REJECT_SRUN="srun: error: Unable to allocate resources: Invalid mcs_label specified"

# mode_selected ENF,SEL: DEVNS_MCS_MODES lists the mode (or is unset).
mode_selected() {
	case " ${DEVNS_MCS_MODES:-$1} " in *" $1 "*) return 0 ;; esac
	return 1
}

# The plan, from the loops of the run below, each check function's count
# beside it; a function that stops early (a failed precondition) runs
# fewer, and the run fails on the count too.
planned() {
	local plugin enf sel e n=0
	for plugin in $PLUGINS; do
		for enf in ondemand enforced; do
			for sel in noselect select ondemandselect; do
				mode_selected "$enf,$sel" || continue
				e=$([ $enf = enforced ] && echo 1 || echo 0)
				n=$((n + 1))	# start_mode
				# check_labels: 15 expects (20 checks, 2 more
				# refusals when enforced), the 3 of dnmany, srun
				if [ "$plugin" = mcs/devgroup ]; then
					n=$((n + 20 + 2 * e + 3 + e + 1))
				else
					n=$((n + 20 + 2 * e + 4 + 2 * e + e + 1))
				fi
				! slurm_at_least 25.05 || n=$((n + 6))	# check_update
				# check_sharing: separate 8, share 4; plain, then
				# --exclusive=mcs
				if [ $enf,$sel = enforced,select ]; then
					n=$((n + 8))
				else
					n=$((n + 4))
				fi
				if [ $sel = noselect ]; then
					n=$((n + 4))
				else
					n=$((n + 8))
				fi
				# check_separation_spread 6, check_squeue_format 1
				[ $enf,$sel != enforced,select ] || n=$((n + 7))
			done
		done
		# start_mode and check_privatedata: nodes 16, jobs 15
		n=$((n + 1 + 16 + 1 + 15))
		# check_bad_groups: refused_mode 2 x 3; mcs/group: 2 start_mode,
		# 5 expects (2 refusals)
		if [ "$plugin" = mcs/devgroup ]; then
			n=$((n + 6))
		else
			n=$((n + 9))
		fi
	done
	[ "$PLUGINS" != "mcs/devgroup mcs/group" ] || n=$((n + 3))	# sinfo alike
	case " $PLUGINS " in *" mcs/devgroup "*) n=$((n + 7)) ;; esac	# check_reconfigure
	echo "$n"
}
plan "$(planned)"

# ---- plugin location and cluster control -------------------------------------

slurm_plugindir=$DEVNS_SLURM_PLUGINDIR
if ! plugindir=$(mcs_devgroup_plugindir); then
	echo "1..0 # SKIP mcs_devgroup.so is neither installed nor built"
	exit 0
fi
diag "mcs_devgroup.so from $plugindir; cluster root $DEVNS_CLUSTER_ROOT"

base_extra() {
	echo "PluginDir=$slurm_plugindir:$plugindir"
	if [ -n "${_DEVNS_MCS_SANDBOX:-}" ]; then
		# No cgroup file system in the sandbox.
		echo "ProctrackType=proctrack/linuxproc"
		echo "TaskPlugin=task/affinity"
	fi
	[ -n "$SAVED_EXTRA" ] && printf '%s\n' "$SAVED_EXTRA"
	return 0
}

# mode_name PLUGIN TEXT: the name of a mode in every check of it.  Checks
# under Slurm's own mcs/group assert what devns is compared with, not devns:
# they carry "[reference]", and run-tests.sh counts them on a line of their
# own, outside the total.
mode_name() {
	if [ "$1" = mcs/group ]; then echo "[reference] $1 $2"; else echo "$1 $2"; fi
}

# start_mode PLUGIN MCSPARAMETERS [MORE slurm.conf LINES]
start_mode() {
	DEVNS_SLURM_CONF_EXTRA="$(base_extra)
MCSPlugin=$1
MCSParameters=$2
${3:-}"
	export DEVNS_SLURM_CONF_EXTRA
	MODE=$(mode_name "$1" "$2${3:+ ($3)}")
	"$CLUSTER" restart >"$DEVNS_CLUSTER_ROOT.restart.log" 2>&1
	ok $? "cluster restarts with $MODE" && return 0
	sed 's/^/#   /' "$DEVNS_CLUSTER_ROOT.restart.log" | tail -30
	return 1
}

finish() {
	if [ -n "${_DEVNS_MCS_SANDBOX:-}" ]; then
		"$CLUSTER" stop >/dev/null 2>&1
	elif [ -n "${DEVNS_MCS_SHARED:-}" ]; then
		# Leave the shared cluster as the caller had it.
		DEVNS_SLURM_CONF_EXTRA=$SAVED_EXTRA "$CLUSTER" restart >/dev/null 2>&1
	fi
	rm -f "$DEVNS_CLUSTER_ROOT.restart.log"
}
at_exit finish

# ---- helpers ---------------------------------------------------------------------

gid_of() { getent group "$1" | cut -d: -f3; }

# submit_held USER ARGS...: sbatch a held job; prints the job id or sbatch's
# message (one line).
submit_held() {
	local user=$1
	shift
	cl_as "$user" sbatch --parsable --hold -o /dev/null -J mcs "$@" --wrap=true 2>&1 | tr '\n' ' ' |
		sed 's/ *$//'
}

# label_of JOBID: the job's MCS label as squeue shows it; "none" when unset.
# When squeue fails, its failure (reply), never "none".
label_of() {
	local l
	l=$(reply cl squeue -h -j "$1" -O mcslabel) || { echo "$l"; return 1; }
	l=$(printf '%s' "$l" | tr -d ' ')
	case $l in "" | "(null)" | N/A) echo none ;; *) echo "$l" ;; esac
}

# expect USER WANT ARGS...: submit a held job; WANT is the label it must
# get, "none", or "reject" (refused with Slurm's message): one check, two
# for "reject".
expect() {
	local user=$1 want=$2 out got
	shift 2
	out=$(submit_held "$user" "$@")
	if [[ $out =~ ^[0-9]+$ ]]; then
		got=$(label_of "$out")
		cl scancel "$out" 2>/dev/null
	else
		got=reject
	fi
	is "$got" "$want" "$MODE: $user ${*:-(no options)} -> $want"
	# Two checks for every refusal, whatever happened: the plan counts them.
	if [ "$want" = reject ]; then
		is "$out" "$REJECT_SBATCH" "$MODE: $user ${*:-(no options)}: sbatch says so"
	fi
}

# The one pending job waits for Resources: the scheduler has considered it.
pending_for_resources() {
	[ "$(cl squeue -h -t PD -o %r 2>/dev/null | tr -d '\n')" = Resources ]
}

node_label() {
	local l
	l=$(cl scontrol show node "$1" 2>/dev/null | grep -o 'MCS_label=[^ ]*' | cut -d= -f2)
	echo "${l:-missing}"
}

is_running() { [ "$(job_state "$1")" = RUNNING ]; }

# scheduled JOB: the scheduler has looked at JOB: it runs, or it waits with
# a reason (a job not yet looked at waits for "None").
scheduled() {
	local s
	s=$(cl squeue -h -j "$1" -o '%T %r' 2>/dev/null) || return 1
	[[ $s == RUNNING* ]] || [[ $s == PENDING* && $s != "PENDING None" ]]
}

# waits_scheduled JOB: JOB waits, and the scheduler has looked at it (a
# reason other than None).
waits_scheduled() {
	local s
	s=$(cl squeue -h -j "$1" -o '%T %r' 2>/dev/null) || return 1
	[[ $s == PENDING* && $s != "PENDING None" ]]
}

# all_scheduled JOB...: the scheduler has looked at every JOB.
all_scheduled() {
	local j
	for j; do scheduled "$j" || return 1; done
}

# run_job USER ARGS...: a job that sleeps; prints its id.
run_job() {
	local user=$1
	shift
	cl_as "$user" sbatch --parsable -o /dev/null -J mcs "$@" --wrap="sleep 300" 2>&1
}

# no_jobs: squeue answers, and lists no job.
no_jobs() {
	local ids
	ids=$(cl squeue -h -o %i 2>/dev/null) && [ -z "$ids" ]
}

cancel_all() {
	local ids
	ids=$(cl squeue -h -o %i 2>/dev/null)
	# shellcheck disable=SC2086
	[ -z "$ids" ] || cl scancel $ids
	wait_for 60 no_jobs
}

nodes_unlabelled() {
	local n
	for n in node1 node2 node3; do
		[ "$(node_label "$n")" = N/A ] || return 1
	done
}

# ---- the checks ----------------------------------------------------------------

# Labels at submission, every row of the table, for one mode.
check_labels() {
	local plugin=$1 enforced=$2 gid_b
	gid_b=$(gid_of devgrpb)
	local when_enf_a=none when_enf_rej=none
	[ "$enforced" = 1 ] && when_enf_a=devgrpa when_enf_rej=reject

	expect dnalice "$when_enf_a"
	expect dnalice devgrpa --exclusive=mcs
	expect dncarol "$([ "$enforced" = 1 ] && echo devgrpa || echo none)"
	expect dncarol devgrpa --exclusive=mcs
	expect dncarol devgrpb --mcs-label=devgrpb
	expect dndave "$when_enf_rej"
	expect dndave reject --exclusive=mcs
	expect dnalice devgrpa --mcs-label=devgrpa
	expect dnalice devgrpa --mcs-label=devgrpa --exclusive=mcs
	expect dnalice reject --mcs-label=devgrpb
	expect dnalice reject --mcs-label=nosuchgroup
	expect dnbob "$gid_b" --mcs-label="$gid_b"
	expect dndave reject --mcs-label=devgrpa
	expect root "$when_enf_rej"
	expect root reject --exclusive=mcs

	# The user in 140 groups: mcs/group's 128-entry getgrouplist fails
	# (ondemand: unlabelled, enforced: refused); mcs/devgroup reads them all.
	if [ "$plugin" = mcs/devgroup ]; then
		expect dnmany "$([ "$enforced" = 1 ] && echo devgrpc || echo none)"
		expect dnmany devgrpc --exclusive=mcs
		expect dnmany devgrpc --mcs-label=devgrpc
	else
		expect dnmany "$when_enf_rej"
		expect dnmany "$when_enf_rej" --exclusive=mcs
		expect dnmany reject --mcs-label=devgrpc
	fi

	if [ "$enforced" = 1 ]; then
		local out
		out=$(cl_as dndave srun -n1 true 2>&1 | tail -1)
		is "$out" "$REJECT_SRUN" "$MODE: dndave srun: refused with Slurm's message"
	fi
	out=$(cl_as dnalice srun -n1 --mcs-label=devgrpb true 2>&1 | tail -1)
	is "$out" "$REJECT_SRUN" "$MODE: dnalice srun --mcs-label=devgrpb: refused"
}

# From 25.05 scontrol update MCSLabel= of a pending job calls the plugin's
# set_mcs_label: an explicit label is checked as at submission (a group the
# user is not in is refused) but, with both plugins alike, not stored (the
# job keeps its label: Slurm copies the label only at submission); an empty
# one chooses again, as at submission without --mcs-label.
check_update() {
	local enforced=$1 j out
	slurm_at_least 25.05 || return 0
	j=$(submit_held dncarol --mcs-label=devgrpb)
	[[ $j =~ ^[0-9]+$ ]] && [ "$(label_of "$j")" = devgrpb ]
	ok $? "$MODE: precondition: a held job of dncarol labelled devgrpb ($j)" || return
	cl_as dncarol scontrol update jobid="$j" MCSLabel=devgrpa
	ok $? "$MODE: update of a pending job to another group of the user: accepted"
	is "$(label_of "$j")" devgrpb "$MODE:   the job keeps its label"
	out=$(cl_as dncarol scontrol update jobid="$j" MCSLabel=devgrpc 2>&1)
	[ $? -ne 0 ]
	ok $? "$MODE: update to a group the user is not in: refused ($out)"
	cl_as dncarol scontrol update jobid="$j" MCSLabel=
	ok $? "$MODE: update with an empty label: accepted"
	# enforced: the user's first group; ondemand without --exclusive=mcs:
	# no label is chosen, the job keeps its own.
	is "$(label_of "$j")" "$([ "$enforced" = 1 ] && echo devgrpa || echo devgrpb)" \
		"$MODE:   the label is chosen again"
	cl scancel "$j" 2>/dev/null
}

# Do a devgrpa job and a devgrpb job share node1?  WANT: share | separate.
check_sharing() {
	local want=$1 a a2 b got label_held
	shift
	local opts=("$@")
	a=$(run_job dnalice -w node1 -n1 "${opts[@]}")
	wait_for 30 is_running "$a"
	if ! ok $? "$MODE: precondition: dnalice job $a runs on node1 (${opts[*]:-plain})"; then
		cancel_all
		return
	fi
	b=$(run_job dnbob -w node1 -n1 "${opts[@]}")
	# "separate" only for a job that exists and that the scheduler looked
	# at and made wait (a reason other than None): a failed sbatch, a job
	# that died or one not yet looked at does not run either.  A job it
	# made wait gets a second more.
	wait_for 30 scheduled "$b"
	if is_running "$b" || { sleep 1 && is_running "$b"; }; then
		got=share
	elif waits_scheduled "$b"; then
		got=separate
	else
		got="neither: job '$b' is $(cl squeue -h -j "$b" -o '%T %r' 2>&1 || echo unknown)"
	fi
	is "$got" "$want" "$MODE: devgrpa and devgrpb jobs on node1 (${opts[*]:-plain}): $want"
	label_held=$(node_label node1)
	if [ "$want" = separate ]; then
		is "$label_held" devgrpa "$MODE: node1 MCS_label=devgrpa while dnalice's job runs"
		# Same group: may join.
		a2=$(run_job dncarol -w node1 -n1 --mcs-label=devgrpa "${opts[@]}")
		wait_for 15 is_running "$a2"
		ok $? "$MODE: a second devgrpa job (dncarol) joins node1"
		is "$(job_state "$b")" PENDING "$MODE: the devgrpb job waits while devgrpa holds node1"
		cl scancel "$a" "$a2"
		wait_for 30 is_running "$b"
		ok $? "$MODE: the devgrpb job starts once node1 is free"
		is "$(node_label node1)" devgrpb "$MODE: node1 now MCS_label=devgrpb"
	else
		is "$label_held" N/A "$MODE: node1 gets no MCS_label"
	fi
	cancel_all
	wait_for 30 nodes_unlabelled
	ok $? "$MODE: every node MCS_label=N/A once idle"
}

# Six jobs of two groups without -w: no node ever holds both groups.
check_separation_spread() {
	local ids=() i running bad
	for i in 1 2 3; do
		ids+=("$(run_job dnalice -n1 --exclusive=mcs)")
		ids+=("$(run_job dnbob -n1 --exclusive=mcs)")
	done
	# "No node runs both" only once the scheduler has placed or held back
	# every one of them.
	wait_for 60 all_scheduled "${ids[@]}" ||
		diag "not every job was looked at: $(cl squeue -h -o '%i %T %r' 2>&1 | tr '\n' ';')"
	running=$(cl squeue -h -t R -o '%N %u' 2>/dev/null)
	ok $? "$MODE: precondition: squeue lists the running jobs"
	diag "running: $(echo "$running" | tr '\n' ';')"
	bad=$(echo "$running" | awk '{ g = ($2 == "dnalice") ? "a" : "b"; s[$1] = s[$1] g }
		END { for (n in s) if (s[n] ~ /a/ && s[n] ~ /b/) print n }')
	# "no node runs both" only means something when jobs run at all.
	[ -n "$running" ] || bad="(no job runs)"
	is "$bad" "" "$MODE: 6 jobs of devgrpa/devgrpb spread: no node runs both"
	local n lbl want okay=0 busy=0
	for n in $(echo "$running" | awk '{print $1}' | sort -u); do
		busy=$((busy + 1))
		want=$(echo "$running" | awk -v n="$n" '$1 == n { print ($2 == "dnalice") ? "devgrpa" : "devgrpb"; exit }')
		lbl=$(node_label "$n")
		[ "$lbl" = "$want" ] || { okay=1; diag "$n MCS_label=$lbl, runs $want"; }
	done
	[ "$busy" -gt 0 ] || okay=1
	ok $okay "$MODE: each busy node is labelled with its jobs' group"
	# 3 nodes of 2 CPUs: one group gets two nodes (3 jobs), the other one
	# (2 jobs); its third job waits although a CPU of the other group's
	# half-used node is free.
	is "$(echo "$running" | grep -c .)" 5 "$MODE: 5 of 6 jobs run"
	# Resources once the scheduler has looked at it (Priority before,
	# now and then on 25.11): wait for that, it proves the job was
	# considered and kept off the other group's node.
	wait_for 60 pending_for_resources
	is "$(cl squeue -h -t PD -o %r 2>/dev/null | tr -d '\n')" Resources \
		"$MODE: the sixth waits for Resources"
	cancel_all
	wait_for 30 nodes_unlabelled
	ok $? "$MODE: labels cleared when the nodes are idle"
}

check_squeue_format() {
	local a b out
	a=$(submit_held dnalice --exclusive=mcs)
	b=$(submit_held dnbob --exclusive=mcs)
	out=$(cl squeue -h -O jobid,username,mcslabel -j "$a,$b" | sed 's/  */ /g; s/ *$//' | sort)
	is "$out" "$(printf '%s dnalice devgrpa\n%s dnbob devgrpb' "$a" "$b" | sort)" \
		"$MODE: squeue -O jobid,username,mcslabel"
	cl scancel "$a" "$b"
}

# privatedata: who sees what.  Jobs: dnalice on node1 (devgrpa), dnbob on
# node2 (devgrpb); node3 idle.
check_privatedata() {
	local a b u out
	a=$(run_job dnalice -w node1 -n1)
	b=$(run_job dnbob -w node2 -n1)
	wait_for 30 is_running "$a" && wait_for 30 is_running "$b"
	ok $? "$MODE: dnalice's and dnbob's jobs run"

	# reply: "sees none" only from a squeue that worked.
	sq() { reply cl_as "$1" squeue -h -o %i | sort | tr '\n' ' ' | sed 's/ $//'; }
	is "$(sq dnalice)" "$a" "$MODE: dnalice (devgrpa) sees only the devgrpa job"
	is "$(sq dnbob)" "$b" "$MODE: dnbob (devgrpb) sees only the devgrpb job"
	is "$(sq dncarol)" "$(printf '%s\n%s\n' "$a" "$b" | sort | tr '\n' ' ' | sed 's/ $//')" \
		"$MODE: dncarol (both groups) sees both"
	is "$(sq dndave)" "" "$MODE: dndave (no group) sees none"
	is "$(sq root | wc -w)" 2 "$MODE: root sees both"

	out=$(cl_as dnalice scontrol show job "$b" 2>&1)
	like "$out" "Invalid job id specified|[Aa]ccess.*denied" \
		"$MODE: dnalice: scontrol show job of dnbob's job refused"
	out=$(cl_as dncarol scontrol show job "$b" 2>&1)
	like "$out" "MCS_label=devgrpb" "$MODE: dncarol: scontrol show job of dnbob's job works"

	shown() { cl_as "$1" scontrol -o show node 2>&1 | sed 's/^NodeName=\([^ ]*\) .*/\1/' | tr '\n' ' ' | sed 's/ $//'; }
	sinfo_as() { cl_as "$1" sinfo -h -N -o '%N' 2>&1 | tr '\n' ' ' | sed 's/ $//'; }
	if [ "$2" = nodes ]; then
		# 22.05 refuses node information to every non-operator when
		# PrivateData=nodes (proc_req.c), before any MCS check: the MCS
		# node filter can only matter for users who never reach it.
		for u in dnalice dncarol dndave; do
			is "$(shown "$u")" "slurm_load_node error: Access/permission denied" \
				"$MODE: $u: scontrol show node refused"
			is "$(sinfo_as "$u")" "slurm_load_node: Access/permission denied" \
				"$MODE: $u: sinfo refused"
			SINFO[$1,$u]=$(sinfo_as "$u")
		done
	else
		# Without PrivateData=nodes every user sees every node and its
		# label, whatever the groups.
		for u in dnalice dnbob dndave; do
			is "$(shown "$u")" "node1 node2 node3" "$MODE: $u: scontrol show node shows all"
		done
		like "$(cl_as dndave scontrol show node node2 2>&1)" "MCS_label=devgrpb" \
			"$MODE: dndave sees node2's MCS_label=devgrpb"
		is "$(sinfo_as dnalice)" "node1 node2 node3" "$MODE: dnalice: sinfo lists every node"
	fi
	is "$(shown root)" "node1 node2 node3" "$MODE: root: scontrol show node shows all"
	out=$(cl sinfo -h -N -o '%N' 2>&1 | tr '\n' ' ' | sed 's/ $//')
	is "$out" "node1 node2 node3" "$MODE: sinfo as root lists every node"
	cancel_all
}

# refused_mode PLUGIN MCSPARAMETERS GROUP: slurmctld must not start with this
# configuration, and must say that GROUP does not exist.
refused_mode() {
	DEVNS_SLURM_CONF_EXTRA="$(base_extra)
MCSPlugin=$1
MCSParameters=$2"
	export DEVNS_SLURM_CONF_EXTRA
	MODE=$(mode_name "$1" "$2")
	! "$CLUSTER" restart >"$DEVNS_CLUSTER_ROOT.restart.log" 2>&1
	ok $? "$MODE: the cluster does not start"
	grep -qF "mcs/devgroup: MCSParameters: cannot resolve group '$3': no such group" "$CTLD_LOG"
	ok $? "$MODE: slurmctld log names the unknown group"
	grep -qF "fatal: failed to initialize mcs plugin" "$CTLD_LOG"
	ok $? "$MODE: slurmctld stops: failed to initialize mcs plugin"
}

check_bad_groups() {
	local plugin=$1
	# mcs/group ignores unknown groups and, with none left, turns
	# enforced, select and privatedata off; mcs/devgroup refuses both.
	if [ "$plugin" = mcs/devgroup ]; then
		refused_mode "$plugin" "enforced,select,privatedata:nosuchgrp1|devgrpa" nosuchgrp1
		refused_mode "$plugin" "enforced,select,privatedata:nosuchgrp1|nosuchgrp2" nosuchgrp1
		return
	fi
	# An unknown group among valid ones: ignored; the others still work.
	start_mode "$plugin" "enforced,select:nosuchgrp1|devgrpa" || return
	expect dnalice devgrpa
	expect dnbob reject
	# Only unknown groups: mcs/group falls back to ondemand, ondemandselect
	# (and no privatedata).
	start_mode "$plugin" "enforced,select:nosuchgrp1|nosuchgrp2" || return
	expect dndave none
	expect dnalice none
	expect dnalice reject --exclusive=mcs
}

reloaded() { [ "$(grep -c 'mcs/devgroup: groups ' "$CTLD_LOG")" -ge 2 ]; }

check_reconfigure() {
	start_mode mcs/devgroup "enforced,noselect,privatedata:$GROUPS_CONF|cachettl=120" \
		"PrivateData=jobs" || return
	local a
	a=$(submit_held dnalice)
	cl_as dnalice squeue >/dev/null 2>&1
	cl_as dncarol squeue >/dev/null 2>&1
	grep -q "mcs/devgroup: groups devgrpa([0-9]*),devgrpb([0-9]*),devgrpc([0-9]*), cache ttl 120s" "$CTLD_LOG"
	ok $? "$MODE: init logs the groups and cachettl=120"
	local before after
	before=$(grep -c "mcs/devgroup: cache:" "$CTLD_LOG")
	cl scontrol reconfigure
	wait_for 20 reloaded
	ok $? "$MODE: scontrol reconfigure loads the plugin afresh"
	after=$(grep -c "mcs/devgroup: cache:" "$CTLD_LOG")
	is "$after" $((before + 1)) "$MODE: reconfigure logs the old cache's counters once"
	diag "$(grep "mcs/devgroup: cache:" "$CTLD_LOG" | tail -1)"
	like "$(grep "mcs/devgroup: cache:" "$CTLD_LOG" | tail -1)" \
		"[0-9]+ hits, [0-9]+ misses \(0 expired\), [0-9]+ NSS lookups \(0 failed\), [0-9]+ users" \
		"$MODE: counters line has hits, misses, NSS lookups"
	is "$(label_of "$a")" devgrpa "$MODE: jobs keep their labels across reconfigure"
	is "$(reply cl_as dnbob squeue -h -o %i)" "" "$MODE: privatedata still on after reconfigure"
	cl scancel "$a"
}

# ---- run -------------------------------------------------------------------------

declare -A SINFO
for plugin in $PLUGINS; do
	for enf in ondemand enforced; do
		for sel in noselect select ondemandselect; do
			mode_selected "$enf,$sel" || continue
			start_mode "$plugin" "$enf,$sel:$GROUPS_CONF" || continue
			check_labels "$plugin" "$([ $enf = enforced ] && echo 1 || echo 0)"
			check_update "$([ $enf = enforced ] && echo 1 || echo 0)"
			# Plain jobs are labelled only when enforced; only select
			# mode keeps labelled plain jobs apart.
			if [ $enf,$sel = enforced,select ]; then
				check_sharing separate
			else
				check_sharing share
			fi
			if [ $sel = noselect ]; then
				check_sharing share --exclusive=mcs
			else
				check_sharing separate --exclusive=mcs
			fi
			if [ $enf,$sel = enforced,select ]; then
				check_separation_spread
				check_squeue_format
			fi
		done
	done
	start_mode "$plugin" "enforced,select,privatedata:$GROUPS_CONF" "PrivateData=jobs,nodes" &&
		check_privatedata "$plugin" nodes
	start_mode "$plugin" "enforced,select,privatedata:$GROUPS_CONF" "PrivateData=jobs" &&
		check_privatedata "$plugin" jobs
	check_bad_groups "$plugin"
done
# sinfo under PrivateData=nodes: whatever it does, both plugins alike.
if [ "$PLUGINS" = "mcs/devgroup mcs/group" ]; then
	# A mode that did not run under a plugin leaves nothing to compare: the
	# defaults differ, so that two missing results are not "the same".
	for u in dnalice dncarol dndave; do
		is "${SINFO[mcs/devgroup,$u]-not run under mcs/devgroup}" \
			"${SINFO[mcs/group,$u]-not run under mcs/group}" \
			"sinfo with PrivateData=nodes as $u: same under both plugins"
	done
fi
case " $PLUGINS " in *" mcs/devgroup "*) check_reconfigure ;; esac

tap_done
