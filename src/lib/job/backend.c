/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * backend.c - what the device filter's backends share, and the backend of
 * a node without cgroup2.  See backend.h.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dev/cgroup2.h"
#include "job/backend.h"
#include "job/marker.h"

#define VERIFIER_LOG_SIZE 4096
#define ADOPT_MAX_PIDS 4096

int backend_root_path(const struct jobct_node *node, char *buf, size_t len)
{
	if (!node->cgroup_root) {
		errno = ENOENT;	/* no cgroup2 was mounted at load */
		return -1;
	}
	if (snprintf(buf, len, "%s", node->cgroup_root) >= (int)len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int backend_open_root(const struct jobct_node *node)
{
	char mount[PATH_MAX];

	if (backend_root_path(node, mount, sizeof(mount)) < 0)
		return -1;
	return cgroup2_open(mount);
}

/* The verifier log on one line: "insn; insn; reason". */
static void one_line(char *log)
{
	size_t n = strlen(log);

	while (n && log[n - 1] == '\n')
		log[--n] = '\0';
	for (char *p = log; (p = strchr(p, '\n')); p++)
		*p = ';';
}

int backend_prog_create(const struct jobct_node *node,
			const struct devrule_list *list, struct report *rep)
{
	char *vlog = calloc(1, VERIFIER_LOG_SIZE);
	int prog_fd;

	if (!vlog)
		return report_errno(rep, ENOMEM, "device filter");
	if ((prog_fd = node->ops->prog_create(list, vlog,
					      VERIFIER_LOG_SIZE)) < 0) {
		int saved = errno;

		one_line(vlog);
		errno = saved;
		report_error(rep, "the kernel refused the device filter: %s%s%s",
			     strerror(saved), vlog[0] ? "; verifier: " : "",
			     vlog);
		free(vlog);
		return -1;
	}
	/* Loaded, the log can only say why denials go uncounted. */
	if (vlog[0])
		report_warning(rep, "its denied device opens are not counted: %s",
			       vlog);
	free(vlog);
	return prog_fd;
}

int backend_extern_pids(const struct jobct_node *node, uint32_t job_id,
			pid_t **pids, struct report *rep)
{
	int n;

	if (!(*pids = calloc(ADOPT_MAX_PIDS, sizeof(**pids))))
		return report_errno(rep, ENOMEM, "adopting");
	n = node->ops->extern_pids(job_id, *pids, ADOPT_MAX_PIDS);
	if (n < 0) {
		report_errno(rep, errno,
			     "cannot find the extern step's processes (adoption needs proctrack/cgroup)");
		goto error;
	}
	if (n > ADOPT_MAX_PIDS) {
		report_errno(rep, E2BIG, "%d processes in the extern step", n);
		goto error;
	}
	return n;
error:
	free(*pids);
	*pids = NULL;
	return -1;
}

int backend_uncontained(pid_t pid, bool kill_it, int err, struct report *rep)
{
	if (!kill_it)
		return report_errno(rep, err,
				    "adopted pid %d cannot be put under its device filter",
				    (int)pid);
	if (pid != getpid())
		(void)kill(pid, SIGKILL);
	return report_errno(rep, err,
			    "adopted pid %d cannot be put under its device filter: killed",
			    (int)pid);
}

/* ---- none: no cgroup2, so no filter ------------------------------------- */

static int nocg_check(const struct jobct_node *node, bool step_cgroups,
		      const char *asks, struct report *rep)
{
	(void)node;
	(void)step_cgroups;
	errno = ENOENT;
	return report_error(rep, "%s ask for device containment, which needs a cgroup2 hierarchy: none is mounted",
			    asks);
}

static int nocg_apply(const struct jobct_node *node, uint32_t job_id,
		      const struct jobct_run *run,
		      const struct devrule_list *list, struct report *rep)
{
	(void)node;
	(void)job_id;
	(void)run;
	(void)list;
	return report_errno(rep, ENOENT,
			    "no usable cgroup2 hierarchy for the device filter");
}

/* A job whose record says it has a filter: it cannot be had here. */
static int nocg_join(const struct jobct_node *node, uint32_t job_id,
		     const char *marked, struct report *rep)
{
	(void)node;
	(void)job_id;
	(void)marked;
	return report_errno(rep, ENOENT, "cannot open its device cgroup");
}

static int nocg_adopt(const struct jobct_node *node, uint32_t job_id,
		      const char *marked, bool kill_uncontained,
		      struct report *rep)
{
	pid_t *pids;
	int n;

	(void)marked;
	if ((n = backend_extern_pids(node, job_id, &pids, rep)) < 0)
		return -1;
	report_errno(rep, ENOENT,
		     "cannot open its device cgroup for an adopted process");
	for (int i = 0; i < n; i++)
		backend_uncontained(pids[i], kill_uncontained, ENOENT, rep);
	free(pids);
	errno = ENOENT;
	return -1;
}

static int nocg_release(const struct jobct_node *node, uint32_t job_id)
{
	return marker_remove(node, job_id);
}

static int nocg_each_cgroup(const struct jobct_node *node, uint32_t job_id,
			    int (*fn)(const char *path, int cg_fd, void *arg),
			    void *arg)
{
	(void)node;
	(void)job_id;
	(void)fn;
	(void)arg;
	return 0;
}

int backend_each_job_none(const struct jobct_node *node,
			  int (*fn)(uint32_t job_id, void *arg), void *arg)
{
	(void)node;
	(void)fn;
	(void)arg;
	return 0;
}

int backend_job_cgroup_none(const struct jobct_node *node, uint32_t job_id,
			    char *cgroup, size_t len, int *procs)
{
	(void)node;
	(void)job_id;
	(void)len;
	cgroup[0] = '\0';
	*procs = 0;
	return 0;
}

const struct jobct_backend nocg_backend = {
	.place = "no cgroup2, no device filter",
	.check = nocg_check,
	.apply = nocg_apply,
	.join = nocg_join,
	.join_from_slurmd = nocg_join,
	.adopt = nocg_adopt,
	.release = nocg_release,
	.each_cgroup = nocg_each_cgroup,
	.each_job = backend_each_job_none,
	.job_cgroup = backend_job_cgroup_none,
};
