/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * restore.c - what a job left on the node, and restore: at slurmd start,
 * release every job that ended while slurmd was away.  See jobct.h.
 */
#include <dirent.h>
#include <pthread.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "conf/jobdir.h"
#include "job/backend.h"
#include "job/elapsed.h"
#include "job/jobct.h"
#include "job/marker.h"
#include "job/node.h"
#include "job/release.h"
#include "ns/dquota.h"
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

	if (!nsconf_disk_limited(node->conf) ||
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

/*
 * The ids of the jobs restore found: added as found, then sorted and made
 * unique once (job_set_done), so that 10,000 leftovers cost no more than
 * a sort.
 */
struct job_set {
	uint32_t *ids;
	size_t count;
	size_t alloc;
};

static int job_set_add(uint32_t job_id, void *arg)
{
	struct job_set *set = arg;

	if (set->count == set->alloc) {
		size_t alloc = set->alloc ? set->alloc * 2 : 64;
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

/* Sorted, each id once. */
static void job_set_done(struct job_set *set)
{
	size_t n = 0;

	if (!set->count)
		return;
	qsort(set->ids, set->count, sizeof(*set->ids), job_id_cmp);
	for (size_t i = 1; i < set->count; i++)
		if (set->ids[i] != set->ids[n])
			set->ids[++n] = set->ids[i];
	set->count = n + 1;
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

/*
 * Keep or release one job, as restore decided.  Under the job's end lock
 * (mntns_lock_job), which jobct_setup holds while it makes the job's
 * namespace: a new run of the same job id that starts while restore works
 * behind slurmd either finds the leftover gone, or is alive by the time
 * restore asks, so restore never removes what the new run made.
 */
static int restore_job(const struct jobct_node *node, uint32_t job_id,
		       const struct jobct_restore_args *args,
		       struct report *rep)
{
	const char *base = node->conf->base_path;
	struct jobct_remains r;
	int lock = -1, rc = 0;

	if (base && !args->dry_run &&
	    (lock = mntns_lock_job(base, job_id)) < 0)
		return report_errno(rep, errno, "job %u: cannot hold its end",
				    job_id);
	/* What it has, for whoever looks (devns cleanup and list). */
	if (args->found) {
		if (jobct_remains(node, job_id, &r) < 0) {
			rc = report_errno(rep, errno, "job %u", job_id);
			goto out;
		}
	} else {
		memset(&r, 0, sizeof(r));
		r.job_id = job_id;
	}
	r.alive = args->alive(job_id, args->arg);
	if (args->found)
		args->found(&r, args->arg);
	if (r.alive) {
		report_info(rep, "job %u alive, keeping it", job_id);
		goto out;
	}
	if (args->dry_run) {
		report_info(rep, "job %u ended, would remove what it left",
			    job_id);
		goto out;
	}
	report_info(rep, "job %u ended, removing what it left", job_id);
	if (release_job(node, job_id, true, rep) < 0)
		rc = report_error(rep, "job %u: not removed", job_id);
out:
	if (lock >= 0)
		mntns_unlock_job(base, job_id, lock);
	return rc;
}

/*
 * The quick half of restore: which jobs left something (each once, in
 * set), and the pool an earlier slurmd left, cleared (its keeper starts
 * after restore and refills it).
 */
static int restore_find(const struct jobct_node *node,
			const struct jobct_restore_args *args,
			struct job_set *set, struct report *rep)
{
	int rc = 0;

	if (node->conf->base_path && find_namespaces(node, set, rep) < 0)
		rc = -1;
	if (node->conf->base_path && !args->dry_run &&
	    nspool_clear(node->conf->base_path, rep) < 0)
		rc = -1;
	if (node->backend->each_job(node, job_set_add, set) < 0)
		rc = report_errno(rep, errno,
				  "cannot list the jobs' device cgroups");
	/* the jobs whose filter outlived their namespace and cgroup */
	if (marker_each(node, job_set_add, set) < 0)
		rc = report_errno(rep, errno,
				  "cannot list the jobs' filter markers in %s",
				  node->spool_dir);
	job_set_done(set);
	return rc;
}

/*
 * The long half, for one worker: the jobs of set it takes in turn (the
 * next index from *next, shared by all workers), each kept or released;
 * stops early when *stop becomes true (stop may be NULL).
 */
static int restore_jobs(const struct jobct_node *node,
			const struct jobct_restore_args *args,
			const struct job_set *set, size_t *next,
			const bool *stop, struct report *rep)
{
	int rc = 0;

	while (!(stop && __atomic_load_n(stop, __ATOMIC_RELAXED))) {
		size_t i = __atomic_fetch_add(next, 1, __ATOMIC_RELAXED);

		if (i >= set->count)
			break;
		if (restore_job(node, set->ids[i], args, rep) < 0)
			rc = -1;
	}
	return rc;
}

/* What a killed reaper lost: jobs whose namespace it had not dropped. */
static int restore_sweep(const struct jobct_node *node,
			 const struct jobct_restore_args *args,
			 struct report *rep)
{
	if (node->conf->base_path && !args->dry_run &&
	    nsreap_sweep(node->conf->base_path, rep) < 0)
		return -1;
	return 0;
}

static int restore_each(const struct jobct_node *node,
			const struct jobct_restore_args *args,
			const struct job_set *set, struct report *rep)
{
	size_t next = 0;
	int rc = restore_sweep(node, args, rep);

	if (restore_jobs(node, args, set, &next, NULL, rep) < 0)
		rc = -1;
	return rc;
}

int jobct_restore_run(const struct jobct_node *node,
		      const struct jobct_restore_args *args,
		      struct report *rep)
{
	struct job_set set = { NULL, 0, 0 };
	int rc = restore_find(node, args, &set, rep);

	if (restore_each(node, args, &set, rep) < 0)
		rc = -1;
	free(set.ids);
	return rc;
}

/*
 * How many jobs restore works on at once behind slurmd.  A job's removal
 * mostly waits (each unmount and the namespace's drop wait for an RCU
 * grace period, killed processes for their exit): about 1 ms of CPU in
 * 6 ms here, so a few at once clear 10,000 within a minute, where one at
 * a time would not.  Each job is under its own end lock.
 */
#define RESTORE_WORKERS 4

/* slurmd's restore behind it: the threads and what they work through. */
struct jobct_restorer {
	pthread_t thread;
	const struct jobct_node *node;
	struct jobct_restore_args args;
	struct job_set set;
	size_t next;		/* the next job of set to take */
	bool stop;		/* read by the workers between jobs */
	bool done;		/* set by the thread at its end */
	bool failed;		/* some job could not be released */
	report_log_f log;
	void *log_arg;
	int rc;			/* restore_find's */
	struct timespec start;
};

static void *worker_main(void *arg)
{
	struct jobct_restorer *r = arg;
	struct report rep;

	report_init(&rep, r->log, r->log_arg);
	if (restore_jobs(r->node, &r->args, &r->set, &r->next, &r->stop,
			 &rep) < 0)
		__atomic_store_n(&r->failed, true, __ATOMIC_RELAXED);
	return NULL;
}

static void *restorer_main(void *arg)
{
	struct jobct_restorer *r = arg;
	pthread_t workers[RESTORE_WORKERS - 1];
	int started = 0;
	struct report rep;

	/* Behind the jobs starting meanwhile, as the pool's keeper; the
	 * workers inherit it. */
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
	report_init(&rep, r->log, r->log_arg);
	if (restore_sweep(r->node, &r->args, &rep) < 0)
		r->failed = true;
	while (started < RESTORE_WORKERS - 1 &&
	       (size_t)started + 1 < r->set.count &&
	       !pthread_create(&workers[started], NULL, worker_main, r))
		started++;
	worker_main(r);
	while (started > 0)
		pthread_join(workers[--started], NULL);
	if (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED))
		report_notice(&rep, "restore: what %zu ended or unknown jobs left was looked at in %.0f ms, behind slurmd",
			      r->set.count, elapsed_ms(&r->start));
	__atomic_store_n(&r->done, true, __ATOMIC_RELEASE);
	return NULL;
}

struct jobct_restorer *jobct_restore_start(const struct jobct_node *node,
					   const struct jobct_restore_args *args,
					   struct report *rep)
{
	struct jobct_restorer *r = calloc(1, sizeof(*r));
	double find_ms;
	int err;

	if (!r) {
		report_errno(rep, errno, "restore");
		return NULL;
	}
	clock_gettime(CLOCK_MONOTONIC, &r->start);
	r->node = node;
	r->args = *args;
	r->args.found = NULL;	/* nobody looks: the thread only decides */
	r->args.dry_run = false;
	r->log = rep->log;
	r->log_arg = rep->log_arg;
	r->rc = restore_find(node, &r->args, &r->set, rep);
	find_ms = elapsed_ms(&r->start);
	/* What slurmd's start waited for, where an admin sees it (before
	 * the thread, whose lines come after it). */
	if (r->set.count)
		report_notice(rep, "restore: %zu jobs left something (found in %.1f ms); looking at them behind slurmd",
			      r->set.count, find_ms);
	if ((err = pthread_create(&r->thread, NULL, restorer_main, r))) {
		report_errno(rep, err, "restore: no thread to work behind slurmd, so now");
		if (restore_each(node, &r->args, &r->set, rep) < 0)
			r->rc = -1;
		free(r->set.ids);
		free(r);
		errno = err;
		return NULL;
	}
	return r;
}

bool jobct_restore_busy(const struct jobct_restorer *r)
{
	return r && !__atomic_load_n(&r->done, __ATOMIC_ACQUIRE);
}

int jobct_restore_finish(struct jobct_restorer *r, bool early)
{
	int rc;

	if (!r)
		return 0;
	__atomic_store_n(&r->stop, early, __ATOMIC_RELAXED);
	pthread_join(r->thread, NULL);
	rc = r->failed ? -1 : r->rc;
	free(r->set.ids);
	free(r);
	return rc;
}

int jobct_restore(const struct jobct_node *node,
		  bool (*alive)(uint32_t job_id, void *arg), void *arg,
		  struct report *rep)
{
	struct jobct_restore_args args = { .alive = alive, .arg = arg };

	return jobct_restore_run(node, &args, rep);
}
