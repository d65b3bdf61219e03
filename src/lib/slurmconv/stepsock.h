/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stepsock.h - whether a job's slurmstepd still runs on the node, told
 * from the sockets Slurm's stepd_available() lists, without Slurm.
 *
 * Restore (slurmd start, devns cleanup) removes a job's namespace and
 * filter when no stepd of it runs: wrongly deciding that a live job has
 * ended would take its /tmp away and let its next step run unfiltered.
 * So only a refused connection (a stepd killed with -9 leaves its socket)
 * or a socket that is not there counts as "ended"; anything else (a stepd
 * too busy or hung to accept, a full backlog, a permission or resource
 * error) counts as alive.  A connect(2) that succeeds sends nothing: the
 * stepd sees a connection closed before any request.
 *
 * Slurm 22.05 to 26.11: the socket name is stepd_api.c's
 * (src/common/stepd_api.c, _guess_nodename/stepd_available():
 * "%s/%s_%u.%u" in SlurmdSpoolDir, ".%u" more for a heterogeneous
 * component).  A release that renames it changes this file and
 * src/plugins/slurm_compat.h, nowhere else.
 */
#ifndef DEVNS_STEPSOCK_H
#define DEVNS_STEPSOCK_H

#include <stddef.h>
#include <stdint.h>

/*
 * Whether a slurmstepd of job_id may run on the node: 1 when a socket in
 * spool of the job's steps ("<node>_<jobid>.<stepid>", with or without
 * ".<component>") may have a stepd behind it (connecting is not refused
 * and the socket is not gone), with its path in answered (may be NULL),
 * 0 when none does, or -1 with errno when spool cannot be read (ENOENT: it does
 * not exist).  Callers deciding to remove a job take -1 as alive.
 */
int stepsock_job_alive(const char *spool, const char *node, uint32_t job_id,
		       char *answered, size_t len);

/*
 * stepsock_job_alive for every job of node in one pass over spool: the
 * jobs with a socket that may have a stepd behind it, sorted, in *ids
 * (free() it; duplicates possible), their number in *count.  For
 * slurmd's restore, which would otherwise read spool once per job.
 * Returns 0, or -1 with errno (callers take every job as alive then).
 */
int stepsock_alive_jobs(const char *spool, const char *node, uint32_t **ids,
			size_t *count);

/*
 * Whether the socket of one step, "<spool>/<node>_<jobid>.<stepid>",
 * may have a stepd behind it: 0 only when connecting is refused or the
 * socket is not there, else 1.  With stepsock_alive_jobs: a job none of
 * whose steps answered then may since have started again, and its
 * first step is known (Slurm's extern step, PrologFlags=Contain).
 */
int stepsock_step_alive(const char *spool, const char *node, uint32_t job_id,
			uint32_t step_id);

/*
 * Which of job_id's steps the calling process is the slurmstepd of: the
 * step of a unix socket among its open fds bound at
 * "<spool>/<node>_<jobid>.<stepid>[.<component>]" (the socket a stepd
 * listens on; Slurm makes it before it answers any request).  Returns 1
 * with *step_id, 0 when no fd is such a socket, or -1 with errno when
 * /proc/self/fd cannot be read.  For a release whose plugin calls do not
 * say which step they are made in (join_external before 25.11).
 */
int stepsock_self_step(const char *spool, const char *node, uint32_t job_id,
		       uint32_t *step_id);

#endif /* DEVNS_STEPSOCK_H */
