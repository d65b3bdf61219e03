#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# imex-slurmd.sh DEVICES RUN_DIR SLURMD ARGS... - start the slurmd of a node with NVIDIA IMEX
# channels (DEVNS_IMEX_NODES): in a mount namespace of its own, DEVICES (the host's
# /proc/devices plus a "nvidia-caps-imex-channels" major, lib/root.sh) is bound over
# /proc/devices, so that Slurm's switch/nvidia_imex and devns, in slurmd and in every
# slurmstepd it forks, find the channels' major there; nothing else sees it.  The
# channels' directory, /dev/nvidia-caps-imex-channels, which Slurm's switch makes (and
# empties) on slurmd's start, is made here where missing and listed in RUN_DIR/imex-made
# for `stop` to remove.
set -e
devices=$1 run=$2
shift 2
d=/dev/nvidia-caps-imex-channels
if [ ! -d "$d" ]; then
	mkdir -m 0755 "$d"
	echo "$d" >>"$run/imex-made"
fi
# shellcheck disable=SC2016 # $0 and $@ are for the inner sh
exec unshare --mount --propagation private -- sh -c '
	mount --bind "$0" /proc/devices &&
	exec "$@"' "$devices" "$@"
