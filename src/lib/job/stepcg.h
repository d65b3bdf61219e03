/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stepcg.h - the job's device filter where Slurm's cgroup/v2 owns the
 * cgroups: the unified layout (private to libdevns_job).
 *
 * There every job process lives in Slurm's cgroups, which carry the job's
 * limits and are how proctrack/cgroup finds it:
 *
 *   <scope>/job_<id>/step_<s>/user/task_<k>   the tasks, adopted logins
 *   <scope>/job_<id>/step_<s>/slurm           slurmstepd and what it forks
 *                                             (TaskEpilog, X11 setup)
 *
 * where 26.05 names the job's cgroup after its SLUID instead of job_<id>
 * (<scope>/sEKNKTV3WPV500/step_0/..., util/sluid.h) unless cgroup.conf has
 * CgroupJobIdPaths=yes.  Setup finds the job's cgroup in the extern
 * stepd's own path by either name, from the id and SLUID Slurm gives it,
 * and the marker keeps what it found: later processes need neither.
 *
 * devns never moves a process out of them.  It attaches the job's program
 * with BPF_F_ALLOW_MULTI to each step's cgroup step_<s>, where Slurm
 * attaches nothing: Slurm's ConstrainDevices (22.05 to 24.11) attaches with
 * BPF_F_ALLOW_OVERRIDE to job_<id> and step_<s>/user and with no flag to
 * task_<k>, and the kernel allows one attach mode per cgroup but runs a
 * MULTI program for every descendant whatever the descendants attach, so
 * in task_<k> an access passes only when both Slurm's program and ours
 * allow it.  Without ConstrainDevices ours alone decides.
 *
 * The extern step holds the program for the job: jobct_setup attaches it
 * there (proctrack/cgroup made the step's cgroups before the extern
 * slurmstepd calls the plugin), and the first process of every later step
 * to join (a task, still slurmstepd's code, before the task runs) attaches
 * the same program to its own step.  The marker holds the job's cgroup
 * path, so that release and restore find the job after its stepds are
 * gone.
 */
#ifndef DEVNS_STEPCG_H
#define DEVNS_STEPCG_H

#include <stddef.h>
#include <stdint.h>

#include "dev/devpolicy.h"
#include "job/jobct.h"
#include "util/report.h"

/*
 * Pure: finds the components "<job>/step_<s>" in the cgroup path (relative
 * to the root, as cgroup2_proc_path gives it), where <job> is job_<job_id>
 * or, when sluid is not 0, the SLUID's text, and writes the path up to and
 * with <job> into job_rel and "step_<s>" into step.  Returns 0, or -1 with
 * EINVAL (not such a path) or ENAMETOOLONG.
 */
int stepcg_parse(const char *path, uint32_t job_id, uint64_t sluid,
		 char *job_rel, size_t job_rel_size, char *step,
		 size_t step_size);

/*
 * In the extern slurmstepd: load the filter of list and attach it to the
 * extern step's cgroups, then leave the marker.  On failure nothing is
 * left attached.  0 or -1.
 */
int stepcg_apply(const struct jobct_node *node, uint32_t job_id,
		 uint64_t sluid, const struct devrule_list *list,
		 struct report *rep);

/*
 * In a process of the job, before it runs anything of the user's: make
 * sure the job's filter is attached to the cgroups of the step the process
 * is in, attaching the extern step's program where it is missing.  job_rel
 * is the job's cgroup its marker names (the caller read it).  Takes no
 * lock: the step's tasks may attach at once, and the kernel refuses the
 * same program twice on a cgroup (EEXIST), which is success here.  A
 * failure means the process must not run.
 */
int stepcg_join(const struct jobct_node *node, const char *job_rel,
		struct report *rep);

/*
 * For a process slurmd forks as the job's user outside every step
 * (sbcast's): move it into the extern step's "slurm" cgroup (a leaf, below
 * the job's filter).  0 or -1.
 */
int stepcg_enter_extern(const struct jobct_node *node, uint32_t job_id,
			struct report *rep);

/*
 * For pam_slurm_adopt, in the extern slurmstepd: the adopted processes
 * are in the extern step's "user" cgroup, so its filter must be on the
 * extern step.
 */
int stepcg_adopt(const struct jobct_node *node, uint32_t job_id,
		 struct report *rep);

/*
 * Job end or restore: kill what is left in the steps' "user" cgroups,
 * detach the filter from every step whose tasks are gone, remove the
 * marker.  Idempotent; 0, or -1 with errno (EBUSY: a job
 * process would not die, so its filter stays and so does the marker).
 */
int stepcg_release(const struct jobct_node *node, uint32_t job_id);

/*
 * Calls fn(path, fd, arg) for each step's cgroup (where the filter is) and
 * its "user" and "slurm" cgroups (where the processes are), for each step
 * of the job, found from its marker (devns show).  Returns 0 (also when
 * the job has no filter), or -1 with errno when the marker cannot be read
 * or a cgroup cannot be opened, or fn returned -1 (the walk goes on).
 */
int stepcg_each_cgroup(const struct jobct_node *node, uint32_t job_id,
		       int (*fn)(const char *path, int cg_fd, void *arg),
		       void *arg);

/*
 * At slurmd start: can the filter be attached below slurmd's own cgroup?
 * The kernel must load it, and no cgroup on the way down may hold a device
 * program attached without BPF_F_ALLOW_MULTI or BPF_F_ALLOW_OVERRIDE
 * (nothing below such a one can attach).  0 or -1 (rep says why).
 */
int stepcg_check(const struct jobct_node *node, struct report *rep);

#endif /* DEVNS_STEPCG_H */
