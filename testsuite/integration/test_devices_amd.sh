#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_devices_amd.sh - AMD GPUs on the real cluster (issue 43 item 5).  An
# AMD GPU is its DRM render node (/dev/dri/renderD128.., major 226, "drm"
# in /proc/devices), a card node (226, minor N) where gres.conf names it,
# and the one /dev/kfd all GPUs share (a dynamic major, "kfd").  node1 gets
# four fake AMD GPUs: type a with card and render node (MultipleFiles),
# type b with the render node alone (File), plus card2, which gres.conf
# does not name, and kfd; the other nodes keep the harness' NVIDIA ones.
# This machine registers neither "drm" nor "kfd": node1's slurmd runs with
# a /proc/devices of the test's making bound over the kernel's in a mount
# namespace of its own (helpers/fake_proc_devices.so, DEVNS_DAEMON_ENV),
# which its slurmstepd and jobs inherit.  Under DevicePolicy auto, closed
# and strict a --gres=gpu:1 job reaches its render node (and card node
# where named) and /dev/kfd, never another GPU's; a job without GPU gets
# /dev/kfd only as the policy says.  With no driver behind a fake node an
# allowed open fails with ENXIO, a denied one with EPERM (helpers/devprobe).
source "$(dirname "$0")/lib.sh"
plan 42

USER1=dnalice
DEV=$DEVNS_CLUSTER_ROOT/dev
GRES=$DEVNS_CLUSTER_ETC/gres.conf
GRES_SAVED=$OUT/amd-gres.conf.orig
FAKE=$OUT/amd-proc-devices
SHIM=${HELPERS:+$HELPERS/.libs/fake_proc_devices.so}
PROBE=$OUT/amd-probe
# shellcheck disable=SC2016 # expanded by the job's shell
GPU_IDX='${SLURM_STEP_GPUS:-$SLURM_JOB_GPUS}'
RENDERS="$DEV/dri/renderD128 $DEV/dri/renderD129 $DEV/dri/renderD130 $DEV/dri/renderD131"
CARDS="$DEV/dri/card0 $DEV/dri/card1 $DEV/dri/card2"
KFD=$DEV/kfd

# A major for kfd: the kernel's own when it has one, else the first one
# from 511 down that it does not register (dynamic majors come from there).
kfd_major() {
	local m
	m=$(awk '/^Block/ { exit } $2 == "kfd" { print $1; exit }' /proc/devices)
	if [ -n "$m" ]; then echo "$m"; return; fi
	for ((m = 511; m > 384; m--)); do
		awk -v m="$m" '/^Block/ { exit } $1 == m { f = 1 } END { exit !f }' /proc/devices ||
			{ echo "$m"; return; }
	done
	return 1
}

# The kernel's /proc/devices with "226 drm" and "KFD kfd" among its
# character devices, unless it has them.
write_fake_proc_devices() {
	awk -v kfd="$1" '
		{ print }
		/^Character devices:/ {
			if (!have_drm) printf "%3d drm\n", 226
			if (!have_kfd) printf "%3d kfd\n", kfd
		}' have_drm="$(grep -qE '^ *226 drm$' /proc/devices && echo 1)" \
		have_kfd="$(grep -qE ' kfd$' /proc/devices && echo 1)" /proc/devices > "$FAKE"
}

# gres.conf: node1's GPUs are AMD ones, the other nodes' lines as the
# harness wrote them (every node keeps 2 GPUs of type a and 2 of type b).
write_gres_conf() {
	local others
	others=$(echo "$DEVNS_CLUSTER_NODES" | tr ' ' '\n' | grep -vx node1 | paste -sd,)
	{
		sed -E "/ Name=gpu /s/^NodeName=[^ ]+/NodeName=$others/" "$GRES_SAVED"
		echo "NodeName=node1 Name=gpu Type=a MultipleFiles=$DEV/dri/card0,$DEV/dri/renderD128"
		echo "NodeName=node1 Name=gpu Type=a MultipleFiles=$DEV/dri/card1,$DEV/dri/renderD129"
		echo "NodeName=node1 Name=gpu Type=b File=$DEV/dri/renderD[130-131]"
	} > "$GRES"
}

# node1 as the harness had it: its gres.conf lines, the kernel's
# /proc/devices (lib.sh's cleanup then restores job_container.conf).
cleanup() {
	unset DEVNS_DAEMON_ENV
	[ -f "$GRES_SAVED" ] && cp "$GRES_SAVED" "$GRES"
	"$CLUSTER" restart-slurmd node1 >/dev/null 2>&1 && wait_node_idle node1
}

setup() {
	local i major
	out_setup amd
	cp "$GRES" "$GRES_SAVED"
	at_exit cleanup
	install -m 0755 "$HELPERS/devprobe" "$PROBE" || return 1
	if [ -z "$SHIM" ] || [ ! -f "$SHIM" ]; then diag "no $SHIM (build the plugins)"; return 1; fi
	major=$(kfd_major) || { diag "no free major for kfd"; return 1; }
	mkdir -p "$DEV/dri"
	for i in 0 1 2 3; do
		[ -c "$DEV/dri/renderD$((128 + i))" ] || mknod -m 0666 "$DEV/dri/renderD$((128 + i))" c 226 $((128 + i))
	done
	for i in 0 1 2; do
		[ -c "$DEV/dri/card$i" ] || mknod -m 0666 "$DEV/dri/card$i" c 226 "$i"
	done
	rm -f "$KFD" && mknod -m 0666 "$KFD" c "$major" 0 || return 1
	write_fake_proc_devices "$major"
	write_gres_conf
	export DEVNS_DAEMON_ENV="LD_PRELOAD=$SHIM DEVNS_FAKE_PROC_DEVICES=$FAKE"
	diag "Slurm $DEVNS_SLURM_VERSION; kfd on major $major; node1: $(grep -c node1 "$GRES") AMD gres.conf lines"
	conf_with node1
}

# verdicts PROBE-LINE: A for each open that reached the driver, D for each
# the filter denied, the word itself for anything else.  The driver is
# missing (ENXIO), or, where the kernel has a DRM driver of its own (the
# guest's display), DRM, which answers ENODEV for a minor it has no device
# of (devprobe's "other:No such device").
verdicts() {
	local w out=
	for w in ${1//other:No such device/ENODEV}; do
		case $w in
		ENXIO | ENODEV | ok) out+=A ;;
		EPERM) out+=D ;;
		*) out+=" $w " ;;
		esac
	done
	echo "$out"
}

# own N I: the string of N verdicts with A at I (from 0), D elsewhere.
own() {
	local i out=
	for ((i = 0; i < $1; i++)); do [ "$i" = "$2" ] && out+=A || out+=D; done
	echo "$out"
}

# run_probe NAME SRUN-ARGS...: a job on node1 writes its GPU index and the
# probes of the render nodes, the card nodes and kfd to $OUT/amd-NAME
# (-i/-o none: a strict job has no /dev/null to spare).
run_probe() {
	local name=$1
	shift
	rm -f "$OUT/amd-$name"
	cl_as $USER1 srun -w node1 -i none -o none "$@" sh -c \
		"{ echo $GPU_IDX; $PROBE $RENDERS; $PROBE $CARDS; $PROBE $KFD; } > $OUT/amd-$name" >/dev/null 2>&1
}

line() { sed -n "$2p" "$OUT/amd-$1" 2>/dev/null; }

# check_mode MODE: the three jobs under DevicePolicy=MODE (auto: none set).
check_mode() {
	local mode=$1 policy=D idx
	[ "$mode" = auto ] && policy=A
	if [ "$mode" = auto ]; then conf_with node1; else conf_with node1 "NodeName=node1 DevicePolicy=$mode"; fi
	ok $? "$mode: node1 runs (slurmd with the fake /proc/devices)" || { skip_checks 12 "node1 is not up"; return; }

	run_probe "$mode-a" --gres=gpu:a:1
	idx=$(line "$mode-a" 1)
	like "$idx" '^[01]$' "$mode: the --gres=gpu:a:1 job holds GPU 0 or 1 (card and render node)"
	is "$(verdicts "$(line "$mode-a" 2)")" "$(own 4 "$idx")" "$mode: it opens its render node, no other"
	is "$(verdicts "$(line "$mode-a" 3)")" "$(own 2 "$idx")$policy" \
		"$mode: its card node, not the other GPU's; card2 (not in gres.conf) as the policy says"
	is "$(verdicts "$(line "$mode-a" 4)")" A "$mode: and /dev/kfd"

	run_probe "$mode-b" --gres=gpu:b:1
	idx=$(line "$mode-b" 1)
	like "$idx" '^[23]$' "$mode: the --gres=gpu:b:1 job holds GPU 2 or 3 (render node only)"
	is "$(verdicts "$(line "$mode-b" 2)")" "$(own 4 "$idx")" "$mode: it opens its render node, no other"
	is "$(verdicts "$(line "$mode-b" 3)")" "DD$policy" "$mode: no GPU's card node"
	is "$(verdicts "$(line "$mode-b" 4)")" A "$mode: and /dev/kfd"

	run_probe "$mode-none"
	is "$(line "$mode-none" 1)" "" "$mode: the job without --gres holds no GPU"
	is "$(verdicts "$(line "$mode-none" 2)")" DDDD "$mode: it opens no render node"
	is "$(verdicts "$(line "$mode-none" 3)")" "DD$policy" "$mode: no GPU's card node"
	is "$(verdicts "$(line "$mode-none" 4)")" "$policy" "$mode: /dev/kfd as the policy says ($policy)"
}

if ! setup; then
	skip_checks 42 "setup failed"
	tap_done
	exit
fi

# Preconditions: the fake is node1's alone, and its jobs see it.
pid=$(cat "$DEVNS_CLUSTER_ROOT/run/slurmd-node1.pid" 2>/dev/null)
grep -q ' kfd$' <(nsenter -t "$pid" -m cat /proc/devices 2>/dev/null)
ok $? "precondition: node1's slurmd reads a /proc/devices that registers kfd"
cmp -s <(nsenter -t "$pid" -m cat /proc/devices 2>/dev/null) "$FAKE" && ! cmp -s /proc/devices "$FAKE"
ok $? "precondition: the test's file there, the host's own file untouched"
is "$(cl_as $USER1 srun -w node1 sh -c 'grep -cE " (drm|kfd)$" /proc/devices' 2>/dev/null)" 2 \
	"precondition: a job on node1 sees drm and kfd in /proc/devices"

check_mode auto
check_mode closed
check_mode strict
tap_done
