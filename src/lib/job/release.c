/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * release.c - removing everything of a job, with kill-and-retry: its
 * namespace and its filter (the node's backend), the denials its filter
 * counted logged first; and undoing a setup a later step failed.  See
 * release.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

#include "job/backend.h"
#include "job/denied.h"
#include "job/elapsed.h"
#include "job/jobct.h"
#include "job/node.h"
#include "job/release.h"

/* How long release waits for the caller's effective uid 0 to come back. */
#define RELEASE_RETRY_MS 5000

/* What one attempt at removing a job could not remove: errno, or 0. */
struct release_errors {
	int ns;		/* the namespace and its directory */
	int dev;	/* the device cgroup and marker */
};

static int delete_namespace(const struct jobct_node *node, uint32_t job_id)
{
	const char *base = node->conf->base_path;

	/* With a pool, slurmd's keeper also drops the namespaces behind. */
	if (node->conf->namespace_pool)
		return node->ops->ns_delete_behind(base, job_id);
	return node->ops->ns_delete(base, job_id);
}

/* Where a release's time goes, over its attempts (the retry waits aside). */
struct release_times {
	double ns;	/* removing the namespace and its directory */
	double dev;	/* removing the device cgroup and marker */
};

/* One attempt; adds the time of each part to *t. */
static bool release_once(const struct jobct_node *node, uint32_t job_id,
			 struct release_errors *e, struct release_times *t)
{
	const char *base = node->conf->base_path;
	struct timespec start;

	e->ns = e->dev = 0;
	clock_gettime(CLOCK_MONOTONIC, &start);
	if (base && delete_namespace(node, job_id) < 0)
		e->ns = errno ? errno : EIO;
	t->ns += elapsed_ms(&start);
	clock_gettime(CLOCK_MONOTONIC, &start);
	if (node->backend->release(node, job_id) < 0)
		e->dev = errno ? errno : EIO;
	t->dev += elapsed_ms(&start);
	return !e->ns && !e->dev;
}

/* What an attempt could not remove, into rep.  Returns -1 with errno. */
static int release_failed(const struct release_errors *e, struct report *rep)
{
	if (e->ns)
		report_errno(rep, e->ns, "removing its namespace");
	if (e->dev)
		report_errno(rep, e->dev, "cannot remove its device cgroup");
	errno = e->ns ? e->ns : e->dev;
	return -1;
}

static bool refused_for_privilege(int err)
{
	return err == EPERM || err == EACCES;
}

int release_job(const struct jobct_node *node, uint32_t job_id,
		       bool name_job, struct report *rep)
{
	struct release_errors e;
	struct release_times t = { 0, 0 };
	struct timespec start;
	/* Nobody to tell (a failed setup's cleanup): nothing to read. */
	bool denials_read = !rep || !rep->log;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (int waited = 0; ; waited += 10) {
		bool last = waited >= RELEASE_RETRY_MS;

		if (geteuid() != 0 && !last) {
			usleep(10000);
			continue;
		}
		/* Once, with the privilege back, while the filter is on:
		 * its counts go with it. */
		if (!denials_read) {
			(void)denied_report(node, job_id, name_job, rep);
			denials_read = true;
		}
		if (release_once(node, job_id, &e, &t)) {
			report_info(rep, "released in %.2f ms (namespace %.2f ms, device cgroup %.2f ms)",
				    elapsed_ms(&start), t.ns, t.dev);
			return 0;
		}
		if (last || !(refused_for_privilege(e.ns) ||
			      refused_for_privilege(e.dev)))
			break;
		report_info(rep, "cleanup refused, retrying");
		usleep(10000);
	}
	return release_failed(&e, rep);
}

int jobct_release(const struct jobct_node *node, uint32_t job_id,
		  struct report *rep)
{
	return release_job(node, job_id, false, rep);
}

int jobct_setup_undo(const struct jobct_plan *plan, struct report *rep)
{
	const struct jobct_node *node = plan->node;
	struct release_errors e;
	struct release_times t = { 0, 0 };

	if (release_once(node, plan->job_id, &e, &t))
		return 0;
	return release_failed(&e, rep);
}
