#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench_mcs_nss.sh - NSS calls slurmctld makes for one `squeue` over many
# labelled pending jobs with privatedata on: mcs/devgroup next to Slurm's
# mcs/group (and mcs/none as the floor Slurm itself costs), in one run.
#
#   testsuite/bench/bench_mcs_nss.sh [-j JOBS] [-u USERS] [-g GROUPS] [-p PLUGINDIR]
#
# One slurmctld (no slurmd: the jobs are held, nothing runs) in private
# mount, UTS and network namespaces, with private /etc/passwd and /etc/group
# that add USERS users spread over GROUPS groups: nothing on the host is
# changed and no shared cluster is touched.  An LD_PRELOAD library
# (bench_mcs_nsscount.c) counts every getpw*/getgr*/getgrouplist/initgroups
# call slurmctld makes; the same counter serves every plugin.
#
# JOBS held jobs (default 10000) are submitted once, under mcs/devgroup with
# MCSParameters=enforced,...,privatedata so each carries its owner's group as
# label.  Then for each plugin slurmctld restarts on the saved state and one
# user runs squeue twice (first right after the start: an empty cache; then
# again).  Printed: NSS calls per squeue, jobs the user saw, wall time.
#
# PLUGINDIR holds mcs_devgroup.so (default: the newest build*/.libs of this
# tree, else Slurm's PluginDir).  Needs root, unshare, munged, slurmctld.
set -euo pipefail

JOBS=10000 USERS=100 GROUPS_N=10 PLUGINDIR= INNER=
if [ "${1:-}" = "--inner" ]; then INNER=$2; shift 2; fi
while getopts j:u:g:p:h opt; do
	case $opt in
	j) JOBS=$OPTARG ;;
	u) USERS=$OPTARG ;;
	g) GROUPS_N=$OPTARG ;;
	p) PLUGINDIR=$OPTARG ;;
	*) sed -n '3,24p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
PROG=bench_mcs_nss
# shellcheck source=../tap.sh
source "$top/testsuite/tap.sh"	# say, die

SLURM_PLUGINDIR=$(dirname "$(find /usr/lib* -name mcs_group.so -path '*slurm*' 2>/dev/null | head -1)")
[ -d "$SLURM_PLUGINDIR" ] || die "cannot find Slurm's mcs_group.so"

# ---- outside: prepare, then run the rest in private namespaces -------------
if [ -z "$INNER" ]; then
	[ "$(id -u)" = 0 ] || die "must run as root"
	if [ -z "$PLUGINDIR" ]; then
		so=$(ls -t "$top"/build*/.libs/mcs_devgroup.so 2>/dev/null | head -1 || true)
		if [ -n "$so" ]; then
			PLUGINDIR=$(dirname "$so")
		elif [ -f "$SLURM_PLUGINDIR/mcs_devgroup.so" ]; then
			PLUGINDIR=$SLURM_PLUGINDIR
		else
			die "no mcs_devgroup.so built (make) or installed; or pass -p DIR"
		fi
	fi
	[ -f "$PLUGINDIR/mcs_devgroup.so" ] || die "no mcs_devgroup.so in $PLUGINDIR"
	ROOT=$(mktemp -d /var/lib/devns-mcsbench.XXXXXX)
	chmod 0755 "$ROOT"
	[ -n "${DEVNS_BENCH_KEEP:-}" ] || trap 'rm -rf --one-file-system "$ROOT"' EXIT
	cc -O2 -shared -fPIC -Wall -Werror -o "$ROOT/nsscount.so" \
		"$here/bench_mcs_nsscount.c" -ldl || die "cannot build the counter"
	say "root $ROOT; mcs_devgroup.so from $PLUGINDIR"
	# A PID namespace too: whatever the inner script leaves running dies
	# with it.
	unshare --mount --uts --net --pid --fork --mount-proc --propagation private \
		"$0" --inner "$ROOT" -j "$JOBS" -u "$USERS" -g "$GROUPS_N" -p "$PLUGINDIR"
	exit $?
fi

# ---- inside the namespaces ---------------------------------------------------
ROOT=$INNER
ETC=$ROOT/etc STATE=$ROOT/state LOG=$ROOT/log RUN=$ROOT/run
mkdir -p "$ETC" "$STATE" "$LOG" "$RUN" "$ROOT/munge" "$ROOT/work"
chmod 0700 "$STATE"
chmod 1777 "$ROOT/work"
hostname mcsbench
ip link set lo up
# getaddrinfo(AI_ADDRCONFIG), which Slurm uses, finds no IPv4 address on a
# host with only a loopback: give the namespace one.
BENCH_ADDR=10.254.254.1
ip link add mcsb0 type dummy 2>/dev/null ||
	ip link add mcsb0 type veth peer name mcsb1
ip addr add "$BENCH_ADDR/24" dev mcsb0
ip link set mcsb0 up

# Private user database: the host's plus the bench population.
BASE_UID=62000 BASE_GID=62000
cp /etc/passwd "$ETC/passwd"
cp /etc/group "$ETC/group"
for ((g = 0; g < GROUPS_N; g++)); do
	members=()
	for ((u = g; u < USERS; u += GROUPS_N)); do members+=("$(printf 'dnb%03d' "$u")"); done
	printf 'bgrp%d:x:%d:%s\n' "$g" $((BASE_GID + g)) "$(IFS=,; echo "${members[*]}")" >>"$ETC/group"
done
for ((u = 0; u < USERS; u++)); do
	name=$(printf 'dnb%03d' "$u")
	printf '%s:x:%d:%d::/nonexistent:/bin/sh\n' "$name" $((BASE_UID + u)) $((BASE_GID + 1000 + u)) >>"$ETC/passwd"
	printf '%s:x:%d:\n' "$name" $((BASE_GID + 1000 + u)) >>"$ETC/group"
done
mount --bind "$ETC/passwd" /etc/passwd
mount --bind "$ETC/group" /etc/group
labels=$(for ((g = 0; g < GROUPS_N; g++)); do printf 'bgrp%d|' "$g"; done)
labels=${labels%|}

# munged of our own, on a socket of our own.
chown munge:munge "$ROOT/munge"
mungekey --create --keyfile="$ROOT/munge/munge.key" 2>/dev/null ||
	dd if=/dev/urandom of="$ROOT/munge/munge.key" bs=1024 count=1 status=none
chown munge:munge "$ROOT/munge/munge.key"
chmod 0600 "$ROOT/munge/munge.key"
SOCK=$ROOT/munge/munge.socket
runuser -u munge -- munged --socket="$SOCK" --key-file="$ROOT/munge/munge.key" \
	--pid-file="$ROOT/munge/munged.pid" --log-file="$ROOT/munge/munged.log" \
	--seed-file="$ROOT/munge/munged.seed" --num-threads=8
export SLURM_CONF=$ETC/slurm.conf

write_conf() {
	cat >"$ETC/slurm.conf" <<EOF
ClusterName=mcsbench
SlurmctldHost=mcsbench($BENCH_ADDR)
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SOCK
StateSaveLocation=$STATE
SlurmdSpoolDir=$ROOT/spool
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmctldLogFile=$LOG/slurmctld.log
SlurmctldDebug=info
PluginDir=$SLURM_PLUGINDIR:$PLUGINDIR
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
MaxJobCount=$((JOBS + 5000))
MinJobAge=300
SlurmdTimeout=3600
ReturnToService=2
MailProg=/bin/true
PrivateData=jobs
MCSPlugin=$1
MCSParameters=enforced,noselect,privatedata:$labels
NodeName=bn[1-4] NodeAddr=$BENCH_ADDR CPUs=2 State=UNKNOWN
PartitionName=bench Nodes=bn[1-4] Default=YES State=UP
EOF
}

COUNTERS=$ROOT/nsscount
NAMES=(getpwuid_r getpwnam_r getpwuid getpwnam getgrgid_r getgrnam_r getgrgid getgrnam getgrouplist initgroups)
head -c $((8 * ${#NAMES[@]})) /dev/zero >"$COUNTERS"
counters() { od -An -v -t u8 -w8 "$COUNTERS" | tr -d ' '; }

CTLD_PID=
start_ctld() {
	write_conf "$1"
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin SLURM_CONF="$SLURM_CONF" \
		LD_PRELOAD="$ROOT/nsscount.so" NSSCOUNT_FILE="$COUNTERS" \
		slurmctld -f "$SLURM_CONF" </dev/null >>"$LOG/stdio.log" 2>&1
	local i
	for ((i = 0; i < 300; i++)); do
		CTLD_PID=$(cat "$RUN/slurmctld.pid" 2>/dev/null || true)
		[ -n "$CTLD_PID" ] && scontrol ping >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	tail -20 "$LOG/slurmctld.log" >&2
	die "slurmctld with $1 did not start"
}
stop_ctld() {
	[ -n "$CTLD_PID" ] || return 0
	kill "$CTLD_PID" 2>/dev/null || true
	while kill -0 "$CTLD_PID" 2>/dev/null; do sleep 0.1; done
	CTLD_PID=
}
cleanup() {
	stop_ctld
	[ -f "$ROOT/munge/munged.pid" ] && kill "$(cat "$ROOT/munge/munged.pid")" 2>/dev/null
	return 0
}
trap cleanup EXIT

# ---- submit the jobs ----------------------------------------------------------
start_ctld mcs/devgroup
per_user=$(((JOBS + USERS - 1) / USERS))
say "submitting $JOBS held jobs ($USERS users x $per_user, $GROUPS_N groups) ..."
t0=$(date +%s.%N)
submit_user() {
	local name=$1 n=$2 i
	cd "$ROOT/work"
	for ((i = 0; i < n; i++)); do
		runuser -u "$name" -- sbatch --hold -Q -o /dev/null -J b --wrap=true || return 1
	done
}
export -f submit_user
export ROOT
for ((u = 0; u < USERS; u++)); do
	n=$per_user
	left=$((JOBS - u * per_user))
	((left < n)) && n=$left
	((n > 0)) || break
	printf '%s %d\n' "$(printf 'dnb%03d' "$u")" "$n"
done | xargs -P 8 -L 1 bash -c 'submit_user "$0" "$1"' ||
	die "submission failed (see $LOG/slurmctld.log)"
t1=$(date +%s.%N)
total=$(squeue -h -o %i | wc -l)
unlabelled=$(squeue -h -O mcslabel | grep -c '(null)\|^ *$' || true)
say "$total jobs pending ($unlabelled unlabelled) in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }')s"
[ "$total" -ge "$JOBS" ] || die "only $total of $JOBS jobs were accepted"

# ---- measure ------------------------------------------------------------------
VIEWER=dnb000
# delta_line LABEL BEFORE... -- AFTER...: "N NSS calls; name=n ..."
nss_delta() {
	local -n b=$1 a=$2
	local i d sum=0 detail=""
	for i in "${!NAMES[@]}"; do
		d=$((a[i] - b[i]))
		sum=$((sum + d))
		((d)) && detail+=" ${NAMES[i]}=$d"
	done
	printf '%7d NSS calls;%s' "$sum" "$detail"
}

measure_squeue() {
	local plugin=$1 pass before after seen t0 t1
	stop_ctld
	start_ctld "$plugin"
	for pass in first second; do
		mapfile -t before < <(counters)
		t0=$(date +%s%N)
		seen=$(runuser -u "$VIEWER" -- squeue -h -o %i 2>/dev/null | wc -l)
		t1=$(date +%s%N)
		mapfile -t after < <(counters)
		printf '%-13s squeue (%s): %s  %5d jobs seen, %6.1f ms\n' \
			"$plugin" "$pass" "$(nss_delta before after)" "$seen" \
			"$(awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a) / 1e6 }')"
	done
}

# Submission: two more held jobs per user, right after a start (empty cache).
# Slurm's own lookups are included; mcs/none shows them alone.
measure_sbatch() {
	local plugin=$1 before after u k
	stop_ctld
	start_ctld "$plugin"
	mapfile -t before < <(counters)
	for ((u = 0; u < USERS; u++)); do
		for k in 1 2; do
			(cd "$ROOT/work" && runuser -u "$(printf 'dnb%03d' "$u")" -- \
				sbatch --hold -Q -o /dev/null -J s --wrap=true 2>/dev/null) || true
		done
	done
	mapfile -t after < <(counters)
	printf '%-13s sbatch x%d:     %s\n' "$plugin" $((2 * USERS)) "$(nss_delta before after)"
}

echo
echo "NSS calls made by slurmctld for one 'squeue' by $VIEWER (group bgrp0) over"
echo "$total held jobs of $USERS users in $GROUPS_N groups, PrivateData=jobs,"
echo "MCSParameters=enforced,noselect,privatedata:bgrp0|...|bgrp$((GROUPS_N - 1))"
echo
for plugin in mcs/devgroup mcs/group mcs/none; do
	measure_squeue "$plugin"
done
echo
echo "NSS calls made by slurmctld for 2 sbatch --hold per user ($((2 * USERS)) jobs):"
for plugin in mcs/devgroup mcs/group mcs/none; do
	measure_sbatch "$plugin"
done
stop_ctld
echo
# fini logs a counters line for each mcs/devgroup run.
grep -h "mcs/devgroup: cache:" "$LOG/slurmctld.log" | sed 's/^.*mcs\/devgroup: /mcs\/devgroup log: /'
