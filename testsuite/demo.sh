#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# demo.sh - build everything, start the local cluster with the plugin and run
# a job that shows its private /tmp.  The cluster keeps running afterwards:
#   testsuite/cluster/cluster.sh run -- srun -w node1 ls -la /tmp
#   testsuite/cluster/cluster.sh stop
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cluster=$top/testsuite/cluster/cluster.sh

# The cluster's Slurm and munge too: the plugins are built for them.
"$top/scripts/deps.sh" --test
"$top/scripts/build.sh" "$top/build"
"$cluster" start

# Two jobs on the same node at the same time, each writing /tmp/hello.
script='echo "written by job $SLURM_JOB_ID" > /tmp/hello
sleep 2
echo "job $SLURM_JOB_ID on $(hostname): /tmp/hello says: $(cat /tmp/hello)"
echo "job $SLURM_JOB_ID /tmp is: $(findmnt -n -o SOURCE /tmp)"
echo "job $SLURM_JOB_ID /dev/shm is: $(findmnt -n -o FSTYPE,OPTIONS /dev/shm | tail -1)"'

echo "== two concurrent jobs on node1, each with its own /tmp"
"$cluster" run -u dnalice -- srun -w node1 -n1 sh -c "$script" &
"$cluster" run -u dnalice -- srun -w node1 -n1 sh -c "$script"
wait
echo "== the host's /tmp has no hello: $(ls /tmp/hello 2>&1 || true)"
echo
echo "The cluster is still running. Try:"
echo "  $cluster run -u dnalice -- srun -w node1 ls -la /tmp"
echo "  $cluster stop"
