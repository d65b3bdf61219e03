/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devns_job.h - the job's record from slurmctld, and the reason a job's
 * containment failed, put where an admin looks first (its AdminComment).
 */
#ifndef DEVNS_JOB_H
#define DEVNS_JOB_H

#include <stdint.h>

struct job_info;
struct job_info_msg;

/*
 * Asks slurmctld (as root, munge-authenticated: what Slurm says, never
 * what the job's environment says) for job_id's record with details.  An
 * array task's id also names its array: *job is the task itself, inside
 * *msg, which the caller frees with slurm_free_job_info_msg() whatever
 * this returns.  Returns 0, or -1 with errno: ENOENT when slurmctld sent
 * no record of that id, else its error.
 */
int devns_job_load(uint32_t job_id, struct job_info_msg **msg,
		   struct job_info **job);

/*
 * devns's entry in the job's AdminComment, which is shared with the site
 * and other plugins: appended (replace NULL), or in place of the entry
 * beginning with replace (util/admincomment.h: bounded, never cutting
 * what is there; nothing when the comment cannot be read).  Best effort:
 * a failure is only logged.
 */
void devns_job_admin_comment(uint32_t job_id, const char *entry,
			     const char *replace);

/*
 * Where an admin looks first: the job's AdminComment ("scontrol show job")
 * gets the reason its containment failed (why, "": see slurmd's log),
 * beside slurmd's log, before Slurm requeues it held: "devns on NODE: why"
 * appended (util/admincomment.h: bounded, never cutting what is there;
 * nothing when it cannot be read).  Best effort: a failure is only logged.
 */
void devns_job_note_failure(uint32_t job_id, const char *why);

#endif /* DEVNS_JOB_H */
