#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_configless.sh - a configless node (slurmd --conf-server, slurmctld
# with SlurmctldParameters=enable_configless) gets devns's settings from
# slurmctld: job_container.conf lives with the controller's slurm.conf,
# the node finds it in its configless cache, and its jobs are contained.
# node3 runs configless (DEVNS_CONFIGLESS_NODES); the cluster is restarted
# back to the defaults at the end.
source "$(dirname "$0")/lib.sh"
plan 11

USER1=dnalice
JOB_OUT_PREFIX=cl
LOG=$DEVNS_CLUSTER_ROOT/log/slurmd-node3.log
CACHE=$DEVNS_CLUSTER_ROOT/spool/node3/conf-cache
PIDFILE=$DEVNS_CLUSTER_ROOT/run/slurmd-node3.pid

# restart_cluster NODES EXTRA: the cluster with NODES configless.
restart_cluster() { restart_with DEVNS_CONFIGLESS_NODES="$1" DEVNS_SLURM_CONF_EXTRA="$2"; }

# The host directories a configless slurmd touches, as they were before.
run_dirs_before=$(ls -d /run/munge /run/slurm 2>/dev/null)

restart_cluster node3 "SlurmctldParameters=enable_configless"
ok $? "precondition: the cluster runs, node3's slurmd configless" || {
	restart_cluster "" ""; tap_done; exit; }
out_setup cl
cmdline=$(tr '\0' ' ' < "/proc/$(cat "$PIDFILE")/cmdline" 2>/dev/null)
like "$cmdline" "--conf-server" "precondition: node3's slurmd was started with --conf-server ($cmdline)"
! [[ " $cmdline " == *" -f "* ]]
ok $? "  and without a slurm.conf of its own (-f)"
[ -f "$CACHE/slurm.conf" ]
ok $? "precondition: slurmd fetched slurm.conf into its cache $CACHE"
cmp -s "$CACHE/job_container.conf" "$CONF"
ok $? "slurmctld sent devns's job_container.conf into the cache"
grep -Eq "(job_container|namespace)/devns: settings from $CACHE/job_container.conf" "$LOG"
ok $? "node3's slurmd read devns's settings from its cache" ||
	diag "$(grep 'settings from' "$LOG" | tail -n 2)"

# A job on node3: contained as on any node.
touch /tmp/devns-cl-host-file
j=$(submit -w node3 -n1 -- "ls -a /tmp > $OUT/cl-ls; echo x > /tmp/cl-job-file; touch $OUT/cl-done")
wait_file "$OUT/cl-done" && wait_job_gone "$j"
ok $? "precondition: job $j ran on node3"
! grep -q devns-cl-host-file "$OUT/cl-ls" && [ ! -e /tmp/cl-job-file ]
ok $? "  with a private /tmp: it saw none of the host's files, the host none of its"
rm -f /tmp/devns-cl-host-file
wait_for 30 test ! -e "$BASE/node3/$j"
ok $? "  and its directory is removed at its end"

restart_cluster "" ""
ok $? "the cluster is back to its defaults"
[ "$(ls -d /run/munge /run/slurm 2>/dev/null)" = "$run_dirs_before" ]
ok $? "the host's /run is as before (/run/munge, /run/slurm)"
tap_done
