/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devns_pidns.c - SPANK plugin: the step's tasks are born in the job's PID
 * namespace (namespace.conf PidNamespace=yes).
 *
 * A process cannot move into a PID namespace, only be forked into one, and
 * the job_container interface runs only in the children.  SPANK's user
 * init runs in slurmstepd's main thread just before it forks the tasks:
 * there it enters the namespace for its children, and the first task
 * post-fork hook, in the same thread right after the forks, leaves it
 * again (until then the thread cannot create threads: clone(2) refuses a
 * thread whose creator's children would be born elsewhere).  So every
 * task is born inside, with the cgroups, process group and affinity
 * slurmstepd gives it, while slurmstepd stays outside and sees the tasks
 * by their host PIDs for tracking, signals, limits and sstat.  What
 * slurmstepd forks at other times (TaskEpilog, the extern step) is put
 * inside by job_container/devns (pidns_fork_inside).
 *
 * plugstack.conf:  required devns_pidns.so
 * slurmd refuses PidNamespace=yes without that line.  A no-op for jobs
 * without a PID namespace (which is what their setup made, so a
 * reconfigure does not change running jobs) and outside slurmstepd.
 * BasePath comes from job_container/devns in the same slurmstepd
 * (devns_stepd_base_path): the settings slurmd handed over, which the
 * job's setup used, not the file, which may have been edited since.
 */
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/spank.h>

#include "devns_node.h"

SPANK_PLUGIN(devns_pidns, 1);

static char *base_path;		/* BasePath, in slurmstepd; NULL: none */
static uint32_t job_id;
static bool entered;		/* the main thread's children go inside */

/* dl_iterate_phdr: the path of the loaded job_container/devns plugin. */
static int find_container(struct dl_phdr_info *info, size_t size, void *arg)
{
	static const char *const names[] = {
		"/job_container_devns.so", "/namespace_devns.so",
	};
	const char *path = info->dlpi_name;
	size_t len = path ? strlen(path) : 0;

	(void)size;
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		size_t n = strlen(names[i]);

		if (len > n && !strcmp(path + len - n, names[i])) {
			*(const char **)arg = path;
			return 1;
		}
	}
	return 0;
}

/*
 * BasePath from job_container/devns in this slurmstepd: from 23.02 the
 * settings slurmd parsed and handed over, which the job's setup used; the
 * file may have been edited since (namespace.conf(5), "When an edit takes
 * effect").  Returns 1 with base_path set (NULL: BasePath=none), 0 when
 * that plugin is not loaded here, -1 when it holds no settings.
 */
static int container_base_path(void)
{
	int (*get)(char *, size_t);
	const char *path = NULL;
	char buf[PATH_MAX];
	void *h;
	int rc;

	if (!dl_iterate_phdr(find_container, &path) || !path)
		return 0;
	/* RTLD_NOLOAD: only the copy Slurm loaded, never a second one. */
	if (!(h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD)))
		return 0;
	get = (int (*)(char *, size_t))dlsym(h, DEVNS_STEPD_BASE_PATH_SYM);
	rc = get ? get(buf, sizeof(buf)) : -1;
	dlclose(h);
	if (rc < 0) {
		slurm_error("devns_pidns: job %u: no BasePath from %s", job_id,
			    path);
		return -1;
	}
	if (rc == 1 && !(base_path = strdup(buf))) {
		slurm_error("devns_pidns: job %u: out of memory", job_id);
		return -1;
	}
	return 1;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	struct report rep;
	struct nsconf *c;
	int rc;

	(void)ac;
	(void)av;
	if (!spank_remote(sp))
		return ESPANK_SUCCESS;
	if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS ||
	    !job_id) {
		slurm_error("devns_pidns: the step has no job id");
		return ESPANK_ERROR;
	}
	/* Only BasePath: whether the job has a PID namespace is its own. */
	rc = container_base_path();
	if (rc != 0)
		return rc < 0 ? ESPANK_ERROR : ESPANK_SUCCESS;
	/* No job_container/devns in this stepd: the file, as before. */
	report_init(&rep, NULL, NULL);
	if (!(c = devns_conf_load(&rep))) {
		slurm_error("devns_pidns: job %u: %s", job_id, rep.msg);
		return ESPANK_ERROR;
	}
	if (c->base_path && !(base_path = strdup(c->base_path)))
		slurm_error("devns_pidns: job %u: out of memory", job_id);
	rc = c->base_path && !base_path ? ESPANK_ERROR : ESPANK_SUCCESS;
	nsconf_free(c);
	return rc;
}

/*
 * Runs with the user's effective uid, which has no capabilities: setns(2)
 * needs CAP_SYS_ADMIN, so root's effective uid (still the saved one) comes
 * back for the call only.
 */
int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	uid_t euid = geteuid();
	struct report rep;
	int rc;

	(void)sp;
	(void)ac;
	(void)av;
	if (!base_path)
		return ESPANK_SUCCESS;
	report_init(&rep, NULL, NULL);
	if (euid != 0 && seteuid(0) < 0) {
		slurm_error("devns_pidns: job %u: cannot regain root to enter the PID namespace",
			    job_id);
		return ESPANK_ERROR;
	}
	rc = jobct_pidns_enter(base_path, job_id, &rep);
	if (euid != 0 && seteuid(euid) < 0) {
		slurm_error("devns_pidns: job %u: cannot drop back to uid %u",
			    job_id, (unsigned)euid);
		return ESPANK_ERROR;
	}
	if (rc < 0) {
		slurm_error("devns_pidns: job %u: %s", job_id, rep.msg);
		return ESPANK_ERROR;
	}
	entered = rc == 1;
	return ESPANK_SUCCESS;
}

static int leave(void)
{
	struct report rep;

	if (!entered)
		return ESPANK_SUCCESS;
	report_init(&rep, NULL, NULL);
	if (jobct_pidns_leave(&rep) < 0) {
		slurm_error("devns_pidns: job %u: %s", job_id, rep.msg);
		return ESPANK_ERROR;
	}
	entered = false;
	return ESPANK_SUCCESS;
}

int slurm_spank_task_post_fork(spank_t sp, int ac, char **av)
{
	(void)sp;
	(void)ac;
	(void)av;
	return leave();
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	int rc = leave();

	(void)sp;
	(void)ac;
	(void)av;
	free(base_path);
	base_path = NULL;
	return rc;
}
