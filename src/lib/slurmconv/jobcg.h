/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jobcg.h - the names Slurm gives a job's and its steps' cgroups.
 *
 * A job's cgroup is "job_<id>" (cgroup/v1's hierarchies, cgroup/v2, and
 * devns's own hybrid-layout cgroups, which follow Slurm), or on cgroup/v2
 * from 26.05 the job's SLUID (slurmconv/sluid.h) unless cgroup.conf has
 * CgroupJobIdPaths=yes.  Below it each step is "step_<id>" (or
 * step_extern, step_batch, step_interactive), and on cgroup/v2 the stepd
 * itself sits in the step's "slurm" leaf, its tasks in its "user" leaf.  The extern step holds the job's
 * device filter.
 *
 * Slurm 22.05 to 26.11: src/plugins/cgroup/v1/cgroup_v1.c and
 * src/plugins/cgroup/v2/cgroup_v2.c (_init_new_scope_dbus(),
 * cgroup_p_step_create(): "/job_%u", "/step_%s", "slurm", "user"), the SLUID name
 * from 26.05's cgroup_v2.c.  A release that changes a name changes this
 * file and src/plugins/slurm_compat.h, nowhere else.
 */
#ifndef DEVNS_JOBCG_H
#define DEVNS_JOBCG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What every step's cgroup name begins with. */
#define JOBCG_STEP_PREFIX "step_"
/* The extern step's cgroup, which holds the job's program. */
#define JOBCG_EXTERN_STEP "step_extern"
/* The leaf of a step's cgroup that slurmstepd itself is in (cgroup/v2). */
#define JOBCG_STEPD_LEAF "slurm"
/* The leaf of a step's cgroup that its tasks (and adopted logins) are in. */
#define JOBCG_TASKS_LEAF "user"

/*
 * The name Slurm and devns give a job's cgroup, "job_<job_id>", into
 * buf[size] (the one place it is written).  Returns 0, or -1 with errno
 * ENAMETOOLONG.
 */
int jobcg_name(uint32_t job_id, char *buf, size_t size);

/*
 * Pure: whether the len bytes at name are a job's cgroup name exactly as
 * jobcg_name writes it; its id in *job_id (may be NULL).
 */
bool jobcg_parse(const char *name, size_t len, uint32_t *job_id);

/*
 * Pure: whether the len bytes at name name job job_id's cgroup: job_<id>,
 * or, when sluid is not 0, the SLUID's text.
 */
bool jobcg_is_job(const char *name, size_t len, uint32_t job_id,
		  uint64_t sluid);

/* Pure: whether name (a cgroup's last component) is a step's cgroup. */
bool jobcg_is_step(const char *name);

#endif /* DEVNS_JOBCG_H */
