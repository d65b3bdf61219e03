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
 * The marker (marker.h) records that the job has a filter, so that a job
 * process whose cgroup has vanished is refused rather than run unfiltered.
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
 * Writes the path of the cgroup2 mount (the node's, or the system's) into
 * buf.  0, or -1 with errno (ENOENT: none is mounted).
 */
int devcg_root_path(const struct jobct_node *node, char *buf, size_t len);

/* The cgroup2 mount (the node's, or the system's): an fd, or -1. */
int devcg_open_root(const struct jobct_node *node);

/*
 * Builds and loads the program for list; on failure rep says why, with
 * the verifier's log.  A program that cannot count its denials (devprog.h)
 * is a warning.  Returns the program fd, or -1 with errno.
 */
int devcg_prog_create(const struct jobct_node *node,
		      const struct devrule_list *list, struct report *rep);

/*
 * Make the job's cgroup, attach a filter of list to it and leave the
 * marker.  On failure the cgroup is removed again.  0 or -1.
 */
int devcg_apply(const struct jobct_node *node, uint32_t job_id,
		const struct devrule_list *list, struct report *rep);

/* Move pid (0: the caller) into the job's cgroup.  0 or -1. */
int devcg_move(const struct jobct_node *node, uint32_t job_id, pid_t pid,
	       struct report *rep);

/*
 * Move the extern step's processes (pam_slurm_adopt's logins) into the
 * job's cgroup.  With kill_uncontained, one that cannot be moved, or all
 * when the job's cgroup is gone, is killed (SIGKILL; never the caller).
 * 0, or -1 when a process could not be moved or the processes cannot be
 * found.
 */
int devcg_adopt(const struct jobct_node *node, uint32_t job_id,
		bool kill_uncontained, struct report *rep);

/*
 * Remove the marker and the job's cgroup, killing what is left in it.
 * Idempotent; 0, or -1 with errno (nothing reported: the caller retries).
 */
int devcg_release(const struct jobct_node *node, uint32_t job_id);

/*
 * Calls fn for every job that has a cgroup of the node.  Returns 0, or -1
 * when the node's cgroup cannot be read or some fn failed.
 */
int devcg_each_job(const struct jobct_node *node,
		   int (*fn)(uint32_t job_id, void *arg), void *arg);

/*
 * Writes the path of the job's device cgroup (<cgroup2>/devns/<node>/
 * job_<id>; "" when no cgroup2 is mounted) into cgroup, whether it exists
 * or not.  0, or -1 with errno.
 */
int devcg_path(const struct jobct_node *node, uint32_t job_id,
	       char *cgroup, size_t cgroup_len);

/*
 * The processes in the job's device cgroup, as cgroup2_list_pids(); -1
 * with errno (ENOENT: the job has none).
 */
int devcg_procs(const struct jobct_node *node, uint32_t job_id, pid_t *pids,
		size_t max);

/*
 * Calls fn(path, fd, arg) for the job's device cgroup when it exists.
 * Returns 0 (also when it does not), fn's value, or -1 with errno.
 */
int devcg_each_cgroup(const struct jobct_node *node, uint32_t job_id,
		      int (*fn)(const char *path, int cg_fd, void *arg),
		      void *arg);

/* The default extern_pids of jobct_real_ops (v1 freezer of the stepd). */
int devcg_extern_pids_v1(uint32_t job_id, pid_t *pids, size_t max);

#endif /* DEVNS_DEVCG_H */
