/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * list.c - devns list: every job on the node, one line each, with its
 * namespace, PID namespace, device filter, disk limit and the live
 * figures of its private directories (ns/nsusage.h).  The jobs are
 * those slurmd's restore would find (jobct_restore_run, dry run: nothing
 * is removed); alive means a slurmstepd of the job answers.
 */
#include <inttypes.h>
#include <stdio.h>

#include "devns.h"
#include "print.h"
#include "slurmconv/stepsock.h"

struct list {
	const struct devns_opts *o;
	const struct nsconf *conf;
	int jobs;
};

/* jobct_restore_run's alive(): unknown counts as alive, as for cleanup. */
static bool job_alive(uint32_t job_id, void *arg)
{
	const struct list *l = arg;

	return stepsock_job_alive(l->o->spool, l->o->node, job_id, NULL, 0) != 0;
}

/* One job of "jobs" (devns(8)). */
static void found_json(struct json *j, const struct nsconf *conf,
		       const struct jobct_remains *r)
{
	json_object_begin(j, NULL);
	json_uint(j, "job", r->job_id);
	json_bool(j, "alive", r->alive);
	json_bool(j, "namespace", r->ns_id != 0);
	json_int(j, "processes", r->ns_procs);
	json_bool(j, "pidns", r->has_pidns);
	json_string(j, "filter", print_filter_state(r));
	print_disk_json(j, r);
	print_usage_json(j, conf, r);
	json_object_end(j);
}

/*
 * "job N alive|ended namespace yes|no processes K pidns yes|no
 * filter yes|no|unset|unknown" and the disk: key value pairs in a fixed
 * order.
 */
static void found(const struct jobct_remains *r, void *arg)
{
	struct list *l = arg;

	l->jobs++;
	if (l->o->out)
		return found_json(l->o->out, l->conf, r);
	printf("job %" PRIu32 " %s namespace %s processes %d pidns %s filter %s disk",
	       r->job_id, r->alive ? "alive" : "ended",
	       r->ns_id ? "yes" : "no", r->ns_procs,
	       r->has_pidns ? "yes" : "no", print_filter_state(r));
	print_disk(r);
	fputs(" usage", stdout);
	print_usage(l->conf, r, false);
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
	l.conf = jobct_node_conf(node);
	devns_report_init(&rep);
	if (o->out) {
		json_string(o->out, "node", o->node);
		json_array_begin(o->out, "jobs");
	}
	rc = jobct_restore_run(node, &args, &rep);
	if (o->out)
		json_array_end(o->out);
	else
		printf("%d job%s\n", l.jobs, l.jobs == 1 ? "" : "s");
	fflush(stdout);
	jobct_node_free(node);
	return rc < 0 ? DEVNS_EXIT_FAIL : DEVNS_EXIT_OK;
}
