#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_imex.sh - NVIDIA IMEX channels (Slurm's switch/nvidia_imex, 24.11 on) in devns's
# job namespaces.  The cluster restarts with SwitchType=switch/nvidia_imex, slurmctld
# handing each job a channel, and node1's slurmd in a mount namespace of its own whose
# /proc/devices names "nvidia-caps-imex-channels" on char major 61 (DEVNS_IMEX_NODES,
# testsuite/cluster).  Slurm makes a job's channel N, c 61:N, through switch_g_fs_init,
# which devns runs in the job's namespace.  Under DevicePolicy auto, closed and strict, a
# job on node1, each of its steps and a login adopted into it find
# /dev/nvidia-caps-imex-channels/channelN and nothing else there, open it (ENXIO: no
# driver behind the fake major) and no other channel (EPERM, through nodes of all eight
# channels made under the cluster root).  A job on node2, whose /proc/devices has no
# such major, sees none.  A channel that cannot be made (its directory gone) refuses the
# job: held, its AdminComment and slurmd's log saying why, nothing left.
source "$(dirname "$0")/lib.sh"

USER1=dnalice
DEV=$DEVNS_CLUSTER_ROOT/dev
LOG=$DEVNS_CLUSTER_ROOT/log/slurmd-node1.log
CTL_LOG=$DEVNS_CLUSTER_ROOT/log/slurmctld.log
PAMDIR=$DEVNS_CLUSTER_ROOT/pam
PROBE=$OUT/imex-probe
IMEX_MAJOR=61 CHANNELS=8
IMEX_DIR=/dev/nvidia-caps-imex-channels
ALL=$(for ((c = 1; c <= CHANNELS; c++)); do printf '%s ' "$DEV/imex-channel$c"; done)

if ! slurm_at_least 24.11; then
	echo "1..0 # SKIP switch/nvidia_imex and switch_g_fs_init come with Slurm 24.11 (this is $DEVNS_SLURM_VERSION)"
	exit 0
fi
plan 28
diag "Slurm $DEVNS_SLURM_VERSION ($DEVNS_SLURM_PREFIX)"

# What a job's process sees: the entries of the channels' directory (blank
# separated, "missing" for no directory, then "-"; no /dev/null: strict
# denies it), then the probe of every channel there, then the
# probe of channels 1..8 through the cluster's own nodes of them.
SEE="echo \$(if [ -d $IMEX_DIR ]; then ls -A $IMEX_DIR; else echo missing; fi) -; echo \$(for c in $IMEX_DIR/*; do [ -e \"\$c\" ] && $PROBE w \"\$c\"; done); $PROBE w $ALL"

# expected N: the probe of channels 1..8 by a job holding channel N.
expected() {
	local c w=
	for ((c = 1; c <= CHANNELS; c++)); do
		if [ "$c" = "$1" ]; then w="$w ENXIO"; else w="$w EPERM"; fi
	done
	echo "${w# }"
}

# channel_of JOBID: the channel slurmctld's switch gave the job (DebugFlags=Switch:
# 25.11 on "allocating channel N to JobId=J", 24.11 "using channel N for JobId=J").
channel_of() {
	grep -Eo "(allocating|using) channel (id )?[0-9]+ (to|for) JobId=$1( |\$)" "$CTL_LOG" |
		head -n1 | grep -Eo 'channel (id )?[0-9]+' | grep -Eo '[0-9]+$'
}

login() { on_node node1 "$HELPERS/pam_adopt" "$PAMDIR" sshd "$USER1" sh -c "$*"; }

setup() {
	local c module
	out_setup imex
	for ((c = 1; c <= CHANNELS; c++)); do
		[ -e "$DEV/imex-channel$c" ] || mknod -m 0666 "$DEV/imex-channel$c" c "$IMEX_MAJOR" "$c"
	done
	write_device_probe "$PROBE"
	module=$(pam_slurm_adopt_module)
	mkdir -p "$PAMDIR"
	[ -n "$module" ] && echo "account required $module nodename=node1 action_adopt_failure=deny action_no_jobs=deny" \
		>"$PAMDIR/sshd"
}

cleanup() {
	local c
	for ((c = 1; c <= CHANNELS; c++)); do rm -f "$DEV/imex-channel$c"; done
	rm -rf "$PAMDIR"
	# the channels' directory, which the fail-closed check removes
	[ -d "$IMEX_DIR" ] || mkdir -m 0755 "$IMEX_DIR"
}
at_exit cleanup

restart_with DEVNS_IMEX_NODES=node1 DEVNS_SLURM_CONF_EXTRA="${DEVNS_SLURM_CONF_EXTRA:+$DEVNS_SLURM_CONF_EXTRA
}SwitchType=switch/nvidia_imex
SwitchParameters=imex_channel_count=$CHANNELS
DebugFlags=Switch"
ok $? "precondition: the cluster runs with switch/nvidia_imex, node1 with an IMEX major" || { tap_done; exit; }
setup
grep -q "nvidia-caps-imex-channels major: $IMEX_MAJOR" "$LOG"
ok $? "precondition: node1's slurmd finds the channels' major $IMEX_MAJOR in its /proc/devices"

# check_policy NAME LINE: node1 with job_container.conf's LINE (none: the harness's
# auto); a job there, a step of it, a login into it.
check_policy() {
	local name=$1 line=$2 j ch out want
	if [ -n "$line" ]; then conf_with node1 "$line"; else conf_restore node1; fi
	rm -f "$OUT/imex-$name"
	j=$(cl_as $USER1 sbatch --parsable -w node1 -n1 -o /dev/null --wrap \
		"{ $SEE; } > $OUT/imex-$name.tmp; mv $OUT/imex-$name.tmp $OUT/imex-$name; sleep 300")
	wait_for 60 test -s "$OUT/imex-$name"
	ch=$(channel_of "$j")
	[ -s "$OUT/imex-$name" ] && [ -n "$ch" ]
	ok $? "$name: precondition: job $j ran on node1, slurmctld's switch gave it channel ${ch:-none}" ||
		{ skip_checks 6 "$name: no job or no channel"; cl scancel "$j" 2>/dev/null; return; }
	want=$(expected "$ch")
	out=$(cat "$OUT/imex-$name")
	is "$(sed -n 1p <<<"$out")" "channel$ch -" "$name: the job finds $IMEX_DIR/channel$ch, nothing else" ||
		grep -E "\[$j\.extern\].*(SWITCH|IMEX|switch)|job $j: .*IMEX" "$LOG" | diag
	is "$(sed -n 2p <<<"$out")" "ENXIO" "$name: it opens it (ENXIO: allowed, no driver)"
	is "$(sed -n 3p <<<"$out")" "$want" "$name: of channels 1..$CHANNELS it opens only its own"
	out=$(cl_as $USER1 srun --jobid="$j" --overlap -w node1 -n1 sh -c "$SEE" 2>&1)
	is "$out" "channel$ch -
ENXIO
$want" "$name: a step of the job: the same"
	if [ -s "$PAMDIR/sshd" ] && [ -x "$HELPERS/pam_adopt" ]; then
		out=$(login "$SEE" 2>&1)
		is "$out" "channel$ch -
ENXIO
$want" "$name: a login adopted into the job: the same"
	else
		skip_checks 1 "$name: an adopted login: no pam_slurm_adopt.so or helpers/pam_adopt"
	fi
	# 24.11's extern stepd polls an adopted pid once a second (test_adopt.sh)
	sleep 2
	cl scancel "$j"
	wait_job_gone "$j"
}

check_policy auto ""
check_policy closed "NodeName=node1 DevicePolicy=closed"
check_policy strict "NodeName=node1 DevicePolicy=strict"
conf_restore node1

# node2 has no IMEX major: the switch makes nothing there, the job sees no channel.
j=$(cl_as $USER1 sbatch --parsable -w node2 -n1 -o "$OUT/imex-node2" --wrap "$SEE")
wait_job_gone "$j"
ch=$(channel_of "$j")
[ -n "$ch" ] && grep -q "nvidia-caps-imex-channels major device not found" "$DEVNS_CLUSTER_ROOT/log/slurmd-node2.log"
ok $? "node2: precondition: job $j was given channel ${ch:-none}, node2's switch finds no major"
like "$(sed -n 1p "$OUT/imex-node2" 2>/dev/null)" "^(missing)? ?-$" "node2: the job sees no channel"

# Fail closed: no directory for the channel, so Slurm cannot make it.
rmdir "$IMEX_DIR"
ok $? "precondition: $IMEX_DIR is removed under node1's slurmd"
from=$(($(wc -l <"$LOG") + 1))
j=$(cl_as $USER1 sbatch --parsable -w node1 -n1 -o /dev/null --wrap "echo ran > $OUT/imex-refused")
wait_for 60 admin_comment_set "$j"
like "$(admin_comment "$j")" "devns on node1: cannot make its IMEX channel" \
	"no channel made: the job $j is held, its AdminComment saying why"
like "$(tail -n +"$from" "$LOG" | grep -m1 "job $j: cannot make its IMEX channel")" \
	"job $j: cannot make its IMEX channel: the switch plugin could not make it" \
	"  slurmd's log says why"
[ ! -e "$OUT/imex-refused" ]
ok $? "  the job did not run"
dir_empty "$BASE/node1"
ok $? "  no namespace directory is left"
cl scancel "$j" 2>/dev/null
wait_job_gone "$j"
mkdir -m 0755 "$IMEX_DIR"
cl scontrol update nodename=node1 state=resume >/dev/null 2>&1
wait_for 30 node_idle node1
j=$(cl_as $USER1 sbatch --parsable -w node1 -n1 -o "$OUT/imex-again" --wrap "$SEE")
wait_job_gone "$j"
like "$(sed -n 1p "$OUT/imex-again" 2>/dev/null)" "^channel[0-9]+ -$" \
	"with the directory back, a job gets its channel again"

tap_done
