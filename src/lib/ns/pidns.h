/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pidns.h - a job's PID namespace (PidNamespace=yes): ps in the job shows
 * the job's processes only.
 *
 *   BasePath/<jobid>/.pidns   pin: bind mount of /proc/<init>/ns/pid
 *
 * The namespace's first process, its init ("devns-init", PID 1 inside),
 * joins the job's mount namespace, mounts the PID namespace's own /proc
 * over /proc there, and reaps the job's orphans.  It lives until the job's
 * teardown: mntns_delete kills every process of the mount namespace, and
 * when the init dies the kernel kills the rest of the PID namespace.
 *
 * A process cannot move into a PID namespace; only the children it forks
 * after setns(2) are born inside.  So the tasks are entered in their
 * parent: slurmstepd's main thread calls pidns_enter_for_children() just
 * before it forks them and leaves again right after (devns's SPANK plugin:
 * a thread whose children would be born elsewhere cannot create threads),
 * and stays outside itself, where Slurm's tracking, signals and accounting
 * keep seeing the tasks by their host PIDs.  Job processes slurmstepd
 * forks at other times go in through pidns_fork_inside() (pidns_fork.h).
 */
#ifndef DEVNS_PIDNS_H
#define DEVNS_PIDNS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/report.h"

/* The name the init gives itself, as ps in the job shows it. */
#define PIDNS_INIT_NAME "devns-init"

/* The init's fd on the job's user namespace, when it has one. */
#define PIDNS_INIT_USERNS_FD 3

/*
 * Make the PID namespace of job_id, start its init and pin it; the init's
 * PID, as the caller's PID namespace numbers it, goes to *init (init may
 * be NULL).  The init is not the caller's child but starts in its cgroup.
 * The job's mount namespace must exist (mntns_create).  The caller may be
 * multi-threaded: the work happens in a forked child.  On failure nothing
 * is left (no init, no pin), errno is set and rep (may be NULL) says
 * which step failed.
 */
int pidns_create(const char *base_path, uint32_t job_id, pid_t *init,
		 struct report *rep);

/*
 * Make the calling thread's future children be born in the job's PID
 * namespace (setns(2) with CLONE_NEWPID); the caller itself stays where
 * it is.  Returns 0 or -1 with errno (ENOENT: the job has none).
 */
int pidns_enter_for_children(const char *base_path, uint32_t job_id);

/*
 * Undo pidns_enter_for_children: the calling thread's future children are
 * born in its own PID namespace again.  Returns 0 or -1 with errno.
 */
int pidns_leave_for_children(void);

/*
 * Whether the calling process lives in the job's PID namespace.  Must be
 * called while /proc is still the host's (before joining the job's mount
 * namespace).  Returns 1, 0, or -1 with errno (ENOENT: the job has none).
 */
int pidns_contains_self(const char *base_path, uint32_t job_id);

/*
 * For a process that has just joined a job's mount namespace without
 * knowing the job (pam_slurm_adopt's login): when that namespace's /proc
 * is a job's PID namespace (its PID 1 is the init above), make the calling
 * thread's future children be born in it.  Returns 1 when entered, 0 when
 * /proc shows no devns PID namespace (no job, or a job without one), -1
 * with errno.
 */
int pidns_enter_from_proc(void);

/*
 * After pidns_enter_from_proc() entered a job's PID namespace: that job's
 * user namespace (UserNamespace), which its init holds.  Returns 1 with
 * an fd on it in *fd (for userns_enter), 0 when the job has none or /proc
 * shows no devns PID namespace, -1 with errno (*fd is -1 but for 1).
 */
int pidns_userns_from_proc(int *fd);

/* True when BasePath/<jobid> holds a pinned PID namespace. */
bool pidns_exists(const char *base_path, uint32_t job_id);

#endif /* DEVNS_PIDNS_H */
