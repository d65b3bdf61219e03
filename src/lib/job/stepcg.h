/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stepcg.h - the device filter's backend where Slurm's cgroup/v2 owns the
 * cgroups: the unified layout (private to libdevns_job, backend.h).
 *
 * There every job process lives in Slurm's cgroups, which carry the job's
 * limits and are how proctrack/cgroup finds it:
 *
 *   <scope>/job_<id>/step_<s>/user/task_<k>   the tasks, adopted logins
 *   <scope>/job_<id>/step_<s>/slurm           slurmstepd and what it forks
 *                                             (TaskEpilog, X11 setup)
 *
 * where 26.05 names the job's cgroup after its SLUID instead of job_<id>
 * (<scope>/sEKNKTV3WPV500/step_0/..., slurmconv/sluid.h) unless cgroup.conf has
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

#include "job/backend.h"

/* The unified layout's backend. */
extern const struct jobct_backend stepcg_backend;

#endif /* DEVNS_STEPCG_H */
