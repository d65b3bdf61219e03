/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stepcg_int.h - what stepcg_find.c (where the job and its steps are in
 * Slurm's cgroup/v2 tree) gives stepcg.c (the backend's verbs).  Nothing
 * else uses it.
 */
#ifndef DEVNS_STEPCG_INT_H
#define DEVNS_STEPCG_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job/node.h"
#include "util/report.h"

/*
 * Where the calling process is: its job's cgroup (job_rel, relative to the
 * cgroup2 root) and its step, found by the job's id or SLUID: the first
 * components "<job>/step_<s>" of its cgroup, where <job> is job_<job_id>
 * or, when sluid is not 0, the SLUID's text.  Returns 0, or -1 with errno
 * (EINVAL: not in such a cgroup; ENAMETOOLONG) and rep.
 */
int stepcg_self_step(const struct jobct_node *node, uint32_t job_id,
		     uint64_t sluid, char *job_rel, size_t job_rel_size,
		     char *step, size_t step_size, struct report *rep);

/*
 * The step of the calling process, which must be in the job's cgroup
 * job_rel (the marker's: setup found it from the extern step's SLUID or
 * id, so a later process needs neither).  Returns 0, or -1 with errno and
 * rep.
 */
int stepcg_self_step_in(const struct jobct_node *node, const char *job_rel,
			char *step, size_t step_size, struct report *rep);

/* Opens <cgroup2>/<job_rel>/<step>; the fd, or -1 with errno. */
int stepcg_open_step(const struct jobct_node *node, const char *job_rel,
		     const char *step);

/*
 * The program of the job, from its extern step's cgroup: its fd, or -1
 * with errno and rep.
 */
int stepcg_job_prog(const struct jobct_node *node, const char *job_rel,
		    struct report *rep);

/* Whether job_rel, from the marker, is what setup wrote. */
bool stepcg_job_rel_valid(const char *job_rel, uint32_t job_id);

/*
 * The job's cgroup from the marker into job_rel[size], checked to be what
 * setup wrote.  Returns 1, 0 (no marker, or a job without a filter), or -1
 * with errno (EINVAL: not what setup wrote).
 */
int stepcg_marker_job_rel(const struct jobct_node *node, uint32_t job_id,
			  char *job_rel, size_t size);

#endif /* DEVNS_STEPCG_INT_H */
