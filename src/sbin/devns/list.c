/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * list.c - devns list: every job on the node, one line each, with its
 * namespace, PID namespace, device filter and disk limit.  The jobs are
 * those slurmd's restore would find (jobct_restore_run, dry run: nothing
 * is removed); alive means a slurmstepd of the job answers.
 */
#include <inttypes.h>
#include <stdio.h>

#include "devns.h"
#include "util/stepsock.h"

struct list {
	const struct devns_opts *o;
	int jobs;
};

/* jobct_restore_run's alive(): unknown counts as alive, as for cleanup. */
static bool job_alive(uint32_t job_id, void *arg)
{
	const struct list *l = arg;

	return stepsock_job_alive(l->o->spool, l->o->node, job_id, NULL, 0) != 0;
}

/* "disk USED/LIMIT inodes USED/LIMIT", or "disk none". */
static void print_disk(const struct jobct_remains *r)
{
	if (!r->has_disk_limit) {
		printf(" disk none");
		return;
	}
	printf(" disk %" PRIu64 "/%" PRIu64 " inodes %" PRIu64 "/%" PRIu64,
	       r->disk_used, r->disk_limit, r->inodes_used, r->inode_limit);
}

/*
 * "job N alive|ended namespace yes|no processes K pidns yes|no
 * filter yes|no|unset" and the disk: key value pairs in a fixed order.
 */
static void found(const struct jobct_remains *r, void *arg)
{
	struct list *l = arg;

	l->jobs++;
	printf("job %" PRIu32 " %s namespace %s processes %d pidns %s filter %s",
	       r->job_id, r->alive ? "alive" : "ended",
	       r->ns_id ? "yes" : "no", r->ns_procs,
	       r->has_pidns ? "yes" : "no",
	       !r->has_marker ? "unset" : r->filtered ? "yes" : "no");
	print_disk(r);
	putchar('\n');
}

int devns_list(const struct devns_opts *o)
{
	struct list l = { .o = o };
	struct jobct_restore_args args = {
		.alive = job_alive,
		.arg = &l,
		.dry_run = true,
		.found = found,
	};
	struct jobct_node *node;
	struct report rep;
	int rc;

	if (!(node = devns_node_load(o)))
		return DEVNS_EXIT_FAIL;
	devns_report_init(&rep);
	rc = jobct_restore_run(node, &args, &rep);
	printf("%d job%s\n", l.jobs, l.jobs == 1 ? "" : "s");
	fflush(stdout);
	jobct_node_free(node);
	return rc < 0 ? DEVNS_EXIT_FAIL : DEVNS_EXIT_OK;
}
