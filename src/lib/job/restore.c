/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * restore.c - what a job left on the node, and restore: at slurmd start,
 * release every job that ended while slurmd was away.  See jobct.h.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "job/backend.h"
#include "job/jobct.h"
#include "job/marker.h"
#include "job/node.h"
#include "job/release.h"
#include "ns/dquota.h"
#include "ns/jobdir.h"
#include "ns/mntns.h"
#include "ns/nspool.h"
#include "ns/nsreap.h"
#include "ns/pidns.h"
#include "util/safepath.h"

/* TmpDiskLimit: the job's project record on BasePath, when it has one. */
static void disk_usage(const struct jobct_node *node, uint32_t job_id,
		       struct jobct_remains *r)
{
	struct dquota_usage u;
	int fd;

	if (!node->conf->tmp_disk_limit ||
	    (fd = safepath_open(node->conf->base_path)) < 0)
		return;
	if (dquota_get(fd, job_id, &u) == 0 && u.bytes_limit) {
		r->has_disk_limit = true;
		r->disk_limit = u.bytes_limit;
		r->disk_used = u.bytes_used;
		r->inode_limit = u.inodes_limit;
		r->inodes_used = u.inodes_used;
	}
	close(fd);
}

int jobct_remains(const struct jobct_node *node, uint32_t job_id,
		  struct jobct_remains *r)
{
	const char *base = node->conf->base_path;
	struct stat st;
	int n;

	memset(r, 0, sizeof(*r));
	r->job_id = job_id;
	if (base) {
		if (jobct_job_path(node, job_id, NULL, r->job_dir,
				   sizeof(r->job_dir)) < 0)
			return -1;
		r->has_job_dir = lstat(r->job_dir, &st) == 0 &&
				 S_ISDIR(st.st_mode);
		n = mntns_members(base, job_id, NULL, 0, &r->ns_id);
		r->ns_procs = n > 0 ? n : 0;
	}
	marker_path(node, job_id, r->marker, sizeof(r->marker));
	r->has_marker = node->ops->marker_stat(r->marker, &st) == 0;
	if (r->has_marker) {
		char text[PATH_MAX];

		int state = marker_state(node, job_id, text, sizeof(text),
					 NULL);

		r->filtered = state == MARKER_FILTERED;
		r->marker_unknown = state < 0;
	}
	if (base) {
		r->has_pidns = pidns_exists(base, job_id);
		disk_usage(node, job_id, r);
	}
	n = node->backend->job_cgroup(node, job_id, r->cgroup,
				      sizeof(r->cgroup), &r->cgroup_procs);
	if (n < 0)
		return -1;
	r->has_cgroup = n > 0;
	return 0;
}

int jobct_each_cgroup(const struct jobct_node *node, uint32_t job_id,
		      int (*fn)(const char *path, int cg_fd, void *arg),
		      void *arg)
{
	return node->backend->each_cgroup(node, job_id, fn, arg);
}

/* The ids of the jobs restore found, each once. */
struct job_set {
	uint32_t *ids;
	size_t count;
	size_t alloc;
};

static int job_set_add(uint32_t job_id, void *arg)
{
	struct job_set *set = arg;

	for (size_t i = 0; i < set->count; i++)
		if (set->ids[i] == job_id)
			return 0;
	if (set->count == set->alloc) {
		size_t alloc = set->alloc ? set->alloc * 2 : 16;
		uint32_t *ids = realloc(set->ids, alloc * sizeof(*ids));

		if (!ids)
			return -1;
		set->ids = ids;
		set->alloc = alloc;
	}
	set->ids[set->count++] = job_id;
	return 0;
}

static int job_id_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The jobs with a directory under BasePath. */
static int find_namespaces(const struct jobct_node *node, struct job_set *set,
			   struct report *rep)
{
	const char *base = node->conf->base_path;
	struct dirent *ep;
	uint32_t job_id;
	int rc = 0;
	DIR *dp;

	if (!(dp = opendir(base)))
		return report_errno(rep, errno, "cannot open BasePath %s",
				    base);
	while ((ep = readdir(dp)))
		if (jobdir_parse(ep->d_name, &job_id) == 0 &&
		    job_set_add(job_id, set) < 0)
			rc = report_errno(rep, ENOMEM, "restore");
	closedir(dp);
	return rc;
}

/* Keep or release one job, as restore decided. */
static int restore_job(const struct jobct_node *node, uint32_t job_id,
		       const struct jobct_restore_args *args,
		       struct report *rep)
{
	struct jobct_remains r;

	if (jobct_remains(node, job_id, &r) < 0)
		return report_errno(rep, errno, "job %u", job_id);
	r.alive = args->alive(job_id, args->arg);
	if (args->found)
		args->found(&r, args->arg);
	if (r.alive) {
		report_info(rep, "job %u alive, keeping it", job_id);
		return 0;
	}
	if (args->dry_run) {
		report_info(rep, "job %u ended, would remove what it left",
			    job_id);
		return 0;
	}
	report_info(rep, "job %u ended, removing what it left", job_id);
	if (release_job(node, job_id, true, rep) < 0)
		return report_error(rep, "job %u: not removed", job_id);
	return 0;
}

int jobct_restore_run(const struct jobct_node *node,
		      const struct jobct_restore_args *args,
		      struct report *rep)
{
	struct job_set set = { NULL, 0, 0 };
	int rc = 0;

	if (node->conf->base_path && find_namespaces(node, &set, rep) < 0)
		rc = -1;
	/* A pool left by an earlier boot or slurmd: its keeper refills it. */
	if (node->conf->base_path && !args->dry_run &&
	    nspool_clear(node->conf->base_path, rep) < 0)
		rc = -1;
	/* Jobs whose reaper went before it had dropped their namespace. */
	if (node->conf->base_path && !args->dry_run &&
	    nsreap_sweep(node->conf->base_path, rep) < 0)
		rc = -1;
	if (node->backend->each_job(node, job_set_add, &set) < 0)
		rc = report_errno(rep, errno,
				  "cannot list the jobs' device cgroups");
	/* the jobs whose filter outlived their namespace and cgroup */
	if (marker_each(node, job_set_add, &set) < 0)
		rc = report_errno(rep, errno,
				  "cannot list the jobs' filter markers in %s",
				  node->spool_dir);
	if (set.count)
		qsort(set.ids, set.count, sizeof(*set.ids), job_id_cmp);
	for (size_t i = 0; i < set.count; i++)
		if (restore_job(node, set.ids[i], args, rep) < 0)
			rc = -1;
	free(set.ids);
	return rc;
}

int jobct_restore(const struct jobct_node *node,
		  bool (*alive)(uint32_t job_id, void *arg), void *arg,
		  struct report *rep)
{
	struct jobct_restore_args args = { .alive = alive, .arg = arg };

	return jobct_restore_run(node, &args, rep);
}
