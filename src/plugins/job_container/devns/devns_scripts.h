/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devns_scripts.h - the site's scripts, run as Slurm's namespace/tmpfs and
 * namespace/linux run theirs: InitScript, CloneNSScript, CloneNSEpilog
 * and UserNsScript, as root, with what Slurm tells them of the job
 * (util/runscript runs them).  Each returns 0, or -1 with the reason in
 * rep, which fails the job.
 */
#ifndef DEVNS_SCRIPTS_H
#define DEVNS_SCRIPTS_H

#include <stdint.h>
#include <sys/types.h>

#include "job/jobct.h"

/* The job a script is run for: step is its step record (NULL on 22.05). */
struct devns_script_job {
	const struct jobct_node *node;
	uint32_t job_id;
	void *step;
};

/*
 * InitScript, before the namespace is made: tmpfs's fixed limit of 10
 * seconds, with SLURM_JOB_MOUNTPOINT_SRC.  The caller checks it is set.
 */
int devns_script_init(const struct devns_script_job *job, struct report *rep);

/*
 * CloneNSScript, once the namespace exists, with SLURM_NS; nothing (0)
 * where none is set or there is no BasePath.
 */
int devns_script_clone_ns(const struct devns_script_job *job,
			  struct report *rep);

/*
 * CloneNSEpilog, before the namespace goes, while it still exists (the
 * extern stepd's teardown, or slurmd's backstop).  A failure is only
 * logged: the teardown goes on, as in tmpfs.
 */
void devns_script_clone_ns_epilog(const struct jobct_node *node,
				  uint32_t job_id, struct report *rep);

/*
 * UserNsScript, the core's userns_map_fn (arg: a struct devns_script_job):
 * run with SLURM_NS_PID, a process in the job's new user namespace, whose
 * uid_map and gid_map it writes.
 */
int devns_script_user_ns(pid_t pid, void *arg, struct report *rep);

#endif /* DEVNS_SCRIPTS_H */
