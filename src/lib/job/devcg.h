/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devcg.h - the device filter's backend for the hybrid layout: a job's
 * own device cgroup (private to libdevns_job, backend.h).
 *
 * The job's cgroup is <cgroup2 mount>/devns/<node>/job_<id>.  On the
 * hybrid and v1 layouts Slurm does not use the cgroup2 hierarchy, so devns
 * keeps its own job cgroups there and moves every process of the job into
 * it when it joins; the BPF program attached to it decides each device
 * open and mknod.  The node name keeps several slurmd on one host
 * (multiple-slurmd test clusters) from removing each other's cgroups.
 *
 * The marker (marker.h) records that the job has a filter, so that a job
 * process whose cgroup has vanished is refused rather than run unfiltered.
 */
#ifndef DEVNS_DEVCG_H
#define DEVNS_DEVCG_H

#include "job/backend.h"

/* The hybrid layout's backend. */
extern const struct jobct_backend devcg_backend;

#endif /* DEVNS_DEVCG_H */
