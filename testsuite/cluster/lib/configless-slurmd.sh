#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# configless-slurmd.sh MUNGE_SOCKET RUN_DIR SLURMD ARGS... - start a configless slurmd
# (--conf-server) of the test cluster.  Before it has a configuration, slurmd reaches
# munge at the default socket and keeps its cache link in /run/slurm: both are given to it
# in a mount namespace of its own (a tmpfs on each, the default socket a link to the
# cluster's munged), so that the host's stay untouched.  The two directories are made on
# the host where missing and listed in RUN_DIR/configless-made for `stop` to remove.
set -e
socket=$1 run=$2
shift 2
for d in /run/munge /run/slurm; do
	if [ ! -d "$d" ]; then
		mkdir -p "$d"
		echo "$d" >>"$run/configless-made"
	fi
done
exec unshare --mount --propagation private -- sh -c '
	mount -t tmpfs -o mode=0755 devns-munge /run/munge &&
	ln -s "$0" /run/munge/munge.socket.2 &&
	mount -t tmpfs -o mode=0755 devns-slurm /run/slurm &&
	exec "$@"' "$socket" "$@"
