/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devns_scripts.h - the site's scripts, run as Slurm's namespace/tmpfs and
 * namespace/linux run theirs: InitScript, CloneNSScript, CloneNSEpilog
 * and UserNsScript, as root, with what Slurm tells them of the job
 * (util/runscript runs them): the hooks of job/jobev.h, which decides
 * when each runs and whether it is set.  Each returns 0, or -1 with the
 * reason in rep, which fails the job.
 */
#ifndef DEVNS_SCRIPTS_H
#define DEVNS_SCRIPTS_H

#include <stdint.h>
#include <sys/types.h>

#include "job/jobev.h"

/*
 * InitScript, before the namespace is made: tmpfs's fixed limit of 10
 * seconds, with SLURM_JOB_MOUNTPOINT_SRC.  job->step is the step record
 * (NULL on 22.05).
 */
int devns_script_init(const struct jobev_job *job, struct report *rep);

/* CloneNSScript, once the namespace exists, with SLURM_NS. */
int devns_script_clone_ns(const struct jobev_job *job, struct report *rep);

/*
 * CloneNSEpilog, before the namespace goes, while it still exists (the
 * extern stepd's teardown, or slurmd's backstop).  A failure is only
 * logged: the teardown goes on, as in tmpfs.
 */
void devns_script_clone_ns_epilog(const struct jobev_job *job,
				  struct report *rep);

/*
 * UserNsScript: run with SLURM_NS_PID, a process in the job's new user
 * namespace, whose uid_map and gid_map it writes.
 */
int devns_script_user_ns(const struct jobev_job *job, pid_t pid,
			 struct report *rep);

#endif /* DEVNS_SCRIPTS_H */
