/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devcg.c - a job's device cgroup: made with its filter, joined, adopted
 * into, released, found again after a restart.  See devcg.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dev/cgroup2.h"
#include "job/backend.h"
#include "job/devcg.h"
#include "job/marker.h"
#include "slurmconv/jobcg.h"

/* <cgroup2>/devns/<node>, made on demand; -1 with errno. */
static int open_node_cgroup(const struct jobct_node *node, bool create)
{
	char rel[PATH_MAX];
	int root_fd, fd, saved;

	if ((root_fd = backend_open_root(node)) < 0)
		return -1;
	snprintf(rel, sizeof(rel), "devns/%s", node->node_name);
	fd = node->ops->cg_open_at(root_fd, rel, create);
	saved = errno;
	close(root_fd);
	errno = saved;
	return fd;
}

/* After a failed open: 0 when it failed for ENOENT (nothing there). */
static int absent(void)
{
	return errno != ENOENT ? -1 : 0;
}

/* The job's cgroup below the node's; -1 with errno. */
static int open_job_cgroup(const struct jobct_node *node, uint32_t job_id,
			   bool create)
{
	char name[32];
	int node_fd, fd, saved;

	if ((node_fd = open_node_cgroup(node, create)) < 0)
		return -1;
	jobcg_name(job_id, name, sizeof(name));
	fd = node->ops->cg_open_at(node_fd, name, create);
	saved = errno;
	close(node_fd);
	errno = saved;
	return fd;
}

/* Load the program and attach it to cg_fd. */
static int attach_filter(const struct jobct_node *node, int cg_fd,
			 const struct devrule_list *list, struct report *rep)
{
	int prog_fd, rc;

	if ((prog_fd = backend_prog_create(node, list, rep)) < 0)
		return -1;
	rc = node->ops->prog_attach(prog_fd, cg_fd);
	if (rc < 0)
		report_errno(rep, errno, "cannot attach the device filter");
	/* Attached, the program lives as long as the cgroup: no fd is kept. */
	close(prog_fd);
	return rc;
}

/* Make the job's cgroup, attach a filter of list, leave the record. */
static int apply(const struct jobct_node *node, uint32_t job_id,
		 const struct jobct_run *run, const struct devrule_list *list,
		 struct report *rep)
{
	char path[PATH_MAX];
	int node_fd, job_fd = -1;

	/* The cgroup is devns's, named by the job id. */
	if ((node_fd = open_node_cgroup(node, true)) < 0)
		return report_errno(rep, errno,
				    "no usable cgroup2 hierarchy for the device filter");
	jobcg_name(job_id, path, sizeof(path));
	if ((job_fd = node->ops->cg_open_at(node_fd, path, true)) < 0) {
		report_errno(rep, errno, "cannot create its device cgroup");
		goto error;
	}
	if (attach_filter(node, job_fd, list, rep) < 0)
		goto error;
	if (marker_write(node, job_id, run, "", rep) < 0)
		goto error;
	close(job_fd);
	close(node_fd);
	return 0;
error:
	{
		int saved = errno;

		if (job_fd >= 0)
			close(job_fd);
		jobcg_name(job_id, path, sizeof(path));
		node->ops->cg_remove(node_fd, path);
		close(node_fd);
		errno = saved;
	}
	return -1;
}

/* The caller into the job's cgroup (join and join_from_slurmd). */
static int join(const struct jobct_node *node, uint32_t job_id,
		const char *marked, struct report *rep)
{
	int job_fd, rc;

	(void)marked;	/* "": the cgroup is devns's own */
	if ((job_fd = open_job_cgroup(node, job_id, false)) < 0)
		return report_errno(rep, errno, "cannot open its device cgroup");
	rc = node->ops->cg_move_pid(job_fd, 0);
	if (rc < 0)
		report_errno(rep, errno, "cannot enter its device cgroup");
	close(job_fd);
	return rc;
}

/*
 * Move the extern step's processes (pam_slurm_adopt's logins) into the
 * job's cgroup.  With kill_uncontained, one that cannot be moved, or all
 * when the job's cgroup is gone, is killed.
 */
static int adopt(const struct jobct_node *node, uint32_t job_id,
		 const char *marked, bool kill_uncontained, struct report *rep)
{
	pid_t *pids;
	int job_fd, n, rc, err;

	(void)marked;
	if ((n = backend_extern_pids(node, job_id, &pids, rep)) < 0)
		return -1;
	if ((job_fd = open_job_cgroup(node, job_id, false)) < 0) {
		err = errno;
		report_errno(rep, err,
			     "cannot open its device cgroup for an adopted process");
		for (int i = 0; i < n; i++)
			backend_uncontained(pids[i], kill_uncontained, err,
					    rep);
		free(pids);
		errno = err;
		return -1;
	}
	rc = 0;
	for (int i = 0; i < n; i++)
		if (node->ops->cg_move_pid(job_fd, pids[i]) < 0 &&
		    errno != ESRCH)
			rc = backend_uncontained(pids[i], kill_uncontained,
						 errno, rep);
	close(job_fd);
	free(pids);
	return rc;
}

/* Processes that outlived the job would keep the cgroup busy: kill them. */
static void kill_leftovers(const struct jobct_node *node, int node_fd,
			   const char *name)
{
	int job_fd = node->ops->cg_open_at(node_fd, name, false);

	if (job_fd < 0)
		return;
	(void)cgroup2_kill(job_fd);
	close(job_fd);
}

/* Remove the marker and the job's cgroup, killing what is left in it. */
static int release(const struct jobct_node *node, uint32_t job_id)
{
	char name[PATH_MAX];
	int node_fd, rc, saved;

	if (marker_remove(node, job_id) < 0)
		return -1;
	if ((node_fd = open_node_cgroup(node, false)) < 0)
		return 0;	/* no node cgroup: no job cgroup either */
	jobcg_name(job_id, name, sizeof(name));
	rc = node->ops->cg_remove(node_fd, name);
	if (rc < 0 && errno == EBUSY) {
		kill_leftovers(node, node_fd, name);
		/* cgroup.kill is asynchronous; the last exits take a moment. */
		for (int i = 0; i < 100; i++) {
			usleep(10000);
			rc = node->ops->cg_remove(node_fd, name);
			if (rc == 0 || errno != EBUSY)
				break;
		}
	}
	if (rc < 0 && errno == ENOENT)
		rc = 0;
	saved = errno;
	close(node_fd);
	errno = saved;
	return rc;
}

/* fn for every job that has a cgroup of the node. */
static int each_job(const struct jobct_node *node,
		    int (*fn)(uint32_t job_id, void *arg), void *arg)
{
	int node_fd = open_node_cgroup(node, false), rc = 0;
	struct dirent *ep;
	uint32_t job_id;
	DIR *dp;

	if (node_fd < 0)
		return errno == ENOENT ? 0 : -1;
	if (!(dp = fdopendir(node_fd))) {
		close(node_fd);
		return -1;
	}
	while ((ep = readdir(dp)))
		if (jobcg_parse(ep->d_name, strlen(ep->d_name),
				      &job_id) &&
		    fn(job_id, arg) < 0)
			rc = -1;
	closedir(dp);
	return rc;
}

/* <cgroup2>/devns/<node>/job_<id> ("" without cgroup2), existing or not. */
static int job_path(const struct jobct_node *node, uint32_t job_id,
		    char *cgroup, size_t cgroup_len)
{
	char mount[PATH_MAX], name[32];
	int n;

	cgroup[0] = '\0';
	if (backend_root_path(node, mount, sizeof(mount)) < 0)
		return absent();
	jobcg_name(job_id, name, sizeof(name));
	n = snprintf(cgroup, cgroup_len, "%s/devns/%s/%s", mount,
		     node->node_name, name);
	if (n < 0 || (size_t)n >= cgroup_len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* The processes in the job's cgroup; -1 (ENOENT: it has none). */
static int job_procs(const struct jobct_node *node, uint32_t job_id)
{
	int fd = open_job_cgroup(node, job_id, false), n, saved;

	if (fd < 0)
		return -1;
	n = cgroup2_list_pids(fd, NULL, 0);
	saved = errno;
	close(fd);
	errno = saved;
	return n;
}

/* fn for the job's cgroup, when it exists. */
static int each_cgroup(const struct jobct_node *node, uint32_t job_id,
		       int (*fn)(const char *path, int cg_fd, void *arg),
		       void *arg)
{
	char path[PATH_MAX];
	int fd, rc;

	if (job_path(node, job_id, path, sizeof(path)) < 0)
		return -1;
	if (!path[0])
		return 0;	/* no cgroup2 */
	if ((fd = open_job_cgroup(node, job_id, false)) < 0)
		return absent();
	rc = fn(path, fd, arg);
	close(fd);
	return rc;
}

static int job_cgroup(const struct jobct_node *node, uint32_t job_id,
		      char *cgroup, size_t len, int *procs)
{
	int n;

	if (job_path(node, job_id, cgroup, len) < 0)
		return -1;
	n = job_procs(node, job_id);
	*procs = n > 0 ? n : 0;
	return n >= 0;
}

/* The hybrid layout: Slurm uses no cgroup2, so nothing is in the way. */
static int check(const struct jobct_node *node, bool step_cgroups,
		 const char *asks, struct report *rep)
{
	(void)node;
	(void)step_cgroups;
	(void)asks;
	(void)rep;
	return 0;
}

const struct jobct_backend devcg_backend = {
	.place = "device filters on devns's own cgroup2 tree",
	.check = check,
	.apply = apply,
	.join = join,
	.join_from_slurmd = join,
	.adopt = adopt,
	.release = release,
	.each_cgroup = each_cgroup,
	.each_job = each_job,
	.job_cgroup = job_cgroup,
};
