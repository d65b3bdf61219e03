/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devns_scripts.c - the site's scripts: what Slurm's tmpfs tells them of
 * the job (from Slurm's records), and how a failure reads in the log.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "slurm_compat.h"

#include "src/common/slurm_xlator.h"
#include "src/common/read_config.h"
#include "src/slurmd/slurmd/slurmd.h"
#include "src/slurmd/slurmstepd/slurmstepd_job.h"

#include "conf/jobdir.h"
#include "util/runscript.h"
#include "devns_scripts.h"

/* InitScript's limit in seconds: tmpfs's, fixed on every release. */
#define INIT_SCRIPT_WAIT 10

/* Which of the job's directories a script is told of (SLURM_...). */
enum script_dirs {
	SCRIPT_SRC = 1,		/* SLURM_JOB_MOUNTPOINT_SRC: BasePath/<jobid> */
	SCRIPT_NS = 2,		/* SLURM_NS: the namespace's pin */
};

/*
 * What Slurm's tmpfs tells its scripts about the job (util/runscript.h):
 * the job, node and slurm.conf; with the step record (23.02 on; none for
 * CloneNSEpilog) its user, group, het job, aliases and working directory;
 * the directories dirs names, when there is a BasePath.  mount_src and
 * ns_path are the caller's buffers of len bytes.
 */
static void script_job(struct runscript_job *j, const struct jobct_node *node,
		       uint32_t job_id, void *step, unsigned dirs,
		       char *mount_src, char *ns_path, size_t len)
{
	memset(j, 0, sizeof(*j));
	j->job_id = job_id;
	j->slurm_conf = slurm_conf.slurm_conf;
	j->node_name = conf->node_name;
	if ((dirs & SCRIPT_SRC) &&
	    jobct_job_path(node, job_id, NULL, mount_src, len) > 0)
		j->mount_src = mount_src;
	if ((dirs & SCRIPT_NS) &&
	    jobct_job_path(node, job_id, JOBDIR_NS_PIN, ns_path, len) > 0)
		j->ns_path = ns_path;
#if DEVNS_JC_STEP_RECORD || DEVNS_JC_NAMESPACE
	if (step) {
		stepd_step_rec_t *s = step;

		j->has_step = true;
		if (s->het_job_id != NO_VAL)
			j->het_job_id = s->het_job_id;
		j->uid = s->uid;
		j->gid = s->gid;
		j->user_name = s->user_name;
		j->node_aliases = s->alias_list;
		j->work_dir = s->cwd;
	}
#else
	(void)step;	/* 22.05 passes none */
#endif
}

/*
 * Run one of the site's scripts for the job as root, as tmpfs does:
 * Slurm's variables only, killed with its process group after timeout_s
 * (0: no limit).  Returns 0, or -1 with the reason in rep.
 */
static int run_script(const char *key, const char *path, unsigned timeout_s,
		      const struct runscript_job *job, struct report *rep)
{
	struct runscript_result res;
	char **env = runscript_env(job);
	char how[64];
	int rc;

	if (!env)
		return report_errno(rep, errno, "%s %s", key, path);
	rc = runscript_run(path, env, timeout_s, &res);
	runscript_env_free(env);
	if (rc < 0)
		return report_errno(rep, errno, "%s %s cannot be run", key,
				    path);
	if (res.status == 0 && !res.timed_out) {
		if (res.output[0])
			report_info(rep, "%s %s: %s", key, path, res.output);
		return 0;
	}
	runscript_describe(&res, timeout_s, how, sizeof(how));
	report_error(rep, "%s %s failed (%s)%s%s", key, path, how,
		     res.output[0] ? ": " : "", res.output);
	errno = EIO;
	return -1;
}

int devns_script_init(const struct jobev_job *job, struct report *rep)
{
	char mount_src[PATH_MAX], ns_path[PATH_MAX];
	struct runscript_job rj;

	script_job(&rj, job->node, job->job_id, job->step, SCRIPT_SRC,
		   mount_src, ns_path, PATH_MAX);
	return run_script("InitScript", jobct_node_conf(job->node)->init_script,
			  INIT_SCRIPT_WAIT, &rj, rep);
}

int devns_script_clone_ns(const struct jobev_job *job, struct report *rep)
{
	const struct nsconf *c = jobct_node_conf(job->node);
	char mount_src[PATH_MAX], ns_path[PATH_MAX];
	struct runscript_job rj;

	script_job(&rj, job->node, job->job_id, job->step,
		   SCRIPT_SRC | SCRIPT_NS, mount_src, ns_path, PATH_MAX);
	return run_script("CloneNSScript", c->clone_ns_script,
			  c->clone_ns_script_wait, &rj, rep);
}

/* CloneNSEpilog is told no step's data: slurmd's backstop has none. */
void devns_script_clone_ns_epilog(const struct jobev_job *job,
				  struct report *rep)
{
	const struct nsconf *c = jobct_node_conf(job->node);
	char mount_src[PATH_MAX], ns_path[PATH_MAX];
	struct runscript_job rj;

	script_job(&rj, job->node, job->job_id, NULL, SCRIPT_NS, mount_src,
		   ns_path, PATH_MAX);
	(void)run_script("CloneNSEpilog", c->clone_ns_epilog,
			 c->clone_ns_epilog_wait, &rj, rep);
}

/*
 * As namespace/linux's user_ns_script; the core then checks that the maps
 * map the job's ids.  tmpfs's script limit of CloneNSScript_Wait's default
 * applies.
 */
int devns_script_user_ns(const struct jobev_job *job, pid_t pid,
			 struct report *rep)
{
	char mount_src[PATH_MAX], ns_path[PATH_MAX];
	struct runscript_job rj;

	script_job(&rj, job->node, job->job_id, job->step, SCRIPT_SRC,
		   mount_src, ns_path, PATH_MAX);
	rj.ns_pid = pid;
	return run_script("UserNsScript",
			  jobct_node_conf(job->node)->user_ns_script,
			  NSCONF_SCRIPT_WAIT_DEFAULT, &rj, rep);
}
