/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pidns_fork.h - a process of the job born outside the job's PID
 * namespace goes on in a child forked inside, and the original stays
 * behind as the child's stand-in.
 *
 * slurmstepd forks some of a job's processes outside the SPANK window
 * that puts its tasks in the namespace (ns/pidns.h): the TaskEpilog, the
 * extern step's, helpers of its other threads.  Such a process cannot
 * move into a PID namespace; only the children it forks after setns(2)
 * are born inside.  slurmstepd keeps the original's PID, so that process
 * must look like the job's process to it: it passes every signal on and
 * ends as the child ends.
 *
 * One signal cannot be passed on: SIGKILL, which slurmstepd sends with
 * killpg(2) when a task epilog outlives its timeout (the stand-in leads a
 * process group of its own for that killpg to reach it).  The child's own
 * PR_SET_PDEATHSIG does not cover it either: slurmstepd drops the child's
 * privileges after the join, and a change of credentials clears that
 * setting.  So a third process, the guard, born before the child and
 * outside the namespace, stays root and watches the stand-in: when the
 * stand-in is gone without saying the child ended, the guard kills the
 * child and, when the child leads one, its process group: what killpg
 * would have reached had the child been born where the stand-in was.
 */
#ifndef DEVNS_PIDNS_FORK_H
#define DEVNS_PIDNS_FORK_H

#include <stdint.h>

/* The name the guard gives itself, as ps on the node shows it. */
#define PIDNS_GUARD_NAME "devns-guard"

/*
 * For a process of job_id born outside the job's PID namespace: fork a
 * child inside.  Returns 0 in the child, which goes on as the job's
 * process; the caller stays behind as its stand-in (see above) and never
 * returns.  -1 with errno when no child could be made (ENOENT: the job
 * has no PID namespace); then nothing is left (no guard, no child).  The
 * caller must be single-threaded.
 */
int pidns_fork_inside(const char *base_path, uint32_t job_id);

#endif /* DEVNS_PIDNS_FORK_H */
