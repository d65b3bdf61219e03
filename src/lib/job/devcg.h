/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devcg.h - a job's device cgroup (private to libdevns_job).
 *
 * The job's cgroup is <cgroup2 mount>/devns/<node>/job_<id>.  On the
 * hybrid and v1 layouts Slurm does not use the cgroup2 hierarchy, so devns
 * keeps its own job cgroups there and moves every process of the job into
 * it when it joins; the BPF program attached to it decides each device
 * open and mknod.  The node name keeps several slurmd on one host
 * (multiple-slurmd test clusters) from removing each other's cgroups.
 *
 * A marker in slurmd's spool directory (root only) records that the job
 * has a filter, so that a job process whose cgroup has vanished is refused
 * rather than run unfiltered.
 */
#ifndef DEVNS_DEVCG_H
#define DEVNS_DEVCG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "dev/devpolicy.h"
#include "job/jobct.h"
#include "util/report.h"

/*
 * Make the job's cgroup, attach a filter of list to it and leave the
 * marker.  On failure the cgroup is removed again.  0 or -1.
 */
int devcg_apply(const struct jobct_node *node, uint32_t job_id,
		const struct devrule_list *list, struct report *rep);

/*
 * 1 when the job has a filter, 0 when it has none, -1 when that cannot be
 * told (any error but ENOENT, or something other than root's plain file):
 * the caller must then refuse the process, never run it unfiltered.
 */
int devcg_filtered(const struct jobct_node *node, uint32_t job_id);

/* Move pid (0: the caller) into the job's cgroup.  0 or -1. */
int devcg_move(const struct jobct_node *node, uint32_t job_id, pid_t pid,
	       struct report *rep);

/* Move the extern step's processes into the job's cgroup.  0 or -1. */
int devcg_adopt(const struct jobct_node *node, uint32_t job_id,
		struct report *rep);

/*
 * Remove the marker and the job's cgroup, killing what is left in it.
 * Idempotent; 0, or -1 with errno (nothing reported: the caller retries).
 */
int devcg_release(const struct jobct_node *node, uint32_t job_id);

/*
 * Calls fn for every job that has a cgroup of the node or a marker in its
 * spool directory (a job with both may be passed twice).  Returns 0, or
 * -1 when the node's cgroup or spool directory cannot be read or some fn
 * failed.
 */
int devcg_each_job(const struct jobct_node *node,
		   int (*fn)(uint32_t job_id, void *arg), void *arg);

/*
 * Writes the path of the job's device cgroup (<cgroup2>/devns/<node>/
 * job_<id>; "" when no cgroup2 is mounted) into cgroup and that of its
 * marker into marker, whether they exist or not.  0, or -1 with errno.
 */
int devcg_paths(const struct jobct_node *node, uint32_t job_id,
		char *cgroup, size_t cgroup_len, char *marker,
		size_t marker_len);

/*
 * The processes in the job's device cgroup, as cgroup2_list_pids(); -1
 * with errno (ENOENT: the job has none).
 */
int devcg_procs(const struct jobct_node *node, uint32_t job_id, pid_t *pids,
		size_t max);

/*
 * Calls fn(path, fd, arg) for each existing cgroup that holds the job's
 * device filter on the node's layout: hybrid, <cgroup2>/devns/<node>/
 * job_<id>; unified, the user and slurm cgroups of each step of the job
 * in Slurm's slurmstepd scope.  Returns 0 (also when there is none), or
 * -1 with errno when one could not be looked at or fn returned -1 (the
 * walk goes on to the others).
 */
int devcg_each_cgroup(const struct jobct_node *node, uint32_t job_id,
		      int (*fn)(const char *path, int cg_fd, void *arg),
		      void *arg);

/* The default extern_pids of jobct_real_ops (v1 freezer of the stepd). */
int devcg_extern_pids_v1(uint32_t job_id, pid_t *pids, size_t max);

#endif /* DEVNS_DEVCG_H */
