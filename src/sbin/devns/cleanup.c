/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cleanup.c - devns cleanup [--dry-run]: what slurmd's restore removes at
 * start, now.  jobct_restore_run() decides (the one place that does, for
 * slurmd too); this file only says whether a job is alive (a slurmstepd
 * of it may answer, slurmconv/stepsock.h) and prints what restore found and did.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "alive.h"
#include "devns.h"
#include "print.h"
#include "slurmconv/stepsock.h"

struct cleanup {
	const struct devns_opts *o;
	struct report rep;
	char answered[PATH_MAX];	/* the socket that answered */
	int kept, ended;
};

/*
 * jobct_restore_run's alive(): a job whose slurmstepd answers is alive;
 * when the spool directory cannot be read, every job counts as alive:
 * nothing is removed on a guess.
 */
static bool job_alive(uint32_t job_id, void *arg)
{
	struct cleanup *c = arg;
	int rc;

	c->answered[0] = '\0';
	rc = stepsock_job_alive(c->o->spool, c->o->node, job_id, c->answered,
				sizeof(c->answered));
	if (rc < 0) {
		report_errno(&c->rep, errno, "job %u: cannot read SlurmdSpoolDir %s, so it is kept",
			     job_id, c->o->spool);
		snprintf(c->answered, sizeof(c->answered), "(unknown)");
	}
	return rc != 0;
}

/* "job N [would] remove WHAT PATH (N processes to kill)" */
static void print_removal(const struct cleanup *c, uint32_t job_id,
			  const char *what, const char *path, int procs)
{
	if (c->o->out) {
		json_object_begin(c->o->out, NULL);
		json_string(c->o->out, "what", what);
		json_string(c->o->out, "path", path);
		json_int(c->o->out, "processes", procs);
		json_object_end(c->o->out);
		return;
	}
	printf("job %u %s %s ", job_id,
	       c->o->dry_run ? "would remove" : "remove", what);
	print_escaped(stdout, path);
	if (procs)
		printf(" (%d process%s inside, %s)", procs,
		       procs == 1 ? "" : "es",
		       c->o->dry_run ? "would be killed" : "killed");
	printf("\n");
}

/* found() with --json: one job of "jobs" (devns(8)). */
static void found_json(struct cleanup *c, const struct jobct_remains *r)
{
	struct json *j = c->o->out;

	json_object_begin(j, NULL);
	json_uint(j, "job", r->job_id);
	json_bool(j, "alive", r->alive);
	json_string(j, "answered", r->alive ? c->answered : NULL);
	json_array_begin(j, "removals");
	if (!r->alive && r->has_job_dir)
		print_removal(c, r->job_id, r->ns_id ? "namespace" : "directory",
			      r->job_dir, r->ns_procs);
	if (!r->alive && r->has_cgroup)
		print_removal(c, r->job_id, "cgroup", r->cgroup,
			      r->cgroup_procs);
	if (!r->alive && r->has_marker)
		print_removal(c, r->job_id, "marker", r->marker, 0);
	json_array_end(j);
	json_object_end(j);
}

/* jobct_restore_run's found(): what the job left and what happens to it. */
static void found(const struct jobct_remains *r, void *arg)
{
	struct cleanup *c = arg;

	if (c->o->out) {
		c->kept += r->alive;
		c->ended += !r->alive;
		return found_json(c, r);
	}
	if (r->alive) {
		c->kept++;
		printf("job %u alive: ", r->job_id);
		print_escaped(stdout, c->answered);
		printf(" answers; kept\n");
		return;
	}
	c->ended++;
	printf("job %u ended: no slurmstepd of it answers in ", r->job_id);
	print_escaped(stdout, c->o->spool);
	putchar('\n');
	if (r->has_job_dir)
		print_removal(c, r->job_id, r->ns_id ? "namespace" : "directory",
			      r->job_dir, r->ns_procs);
	if (r->has_cgroup)
		print_removal(c, r->job_id, "cgroup", r->cgroup,
			      r->cgroup_procs);
	if (r->has_marker)
		print_removal(c, r->job_id, "marker", r->marker, 0);
}

/* Without --dry-run, slurmd must not be running (unless --force). */
static int slurmd_stopped(const struct devns_opts *o)
{
	pid_t pid = alive_slurmd(o->pid_file);

	if (pid == 0 || o->force)
		return 0;
	if (pid < 0)
		devns_error("cannot read SlurmdPidFile %s: %s; use --force if slurmd is stopped",
			    o->pid_file, strerror(errno));
	else
		devns_error("slurmd (pid %d, %s) is running: it removes what ended jobs left when it starts; use --dry-run, or stop slurmd, or --force",
			    (int)pid, o->pid_file);
	return -1;
}

int devns_cleanup(const struct devns_opts *o)
{
	struct cleanup c = { .o = o };
	struct jobct_restore_args args = {
		.alive = job_alive,
		.arg = &c,
		.dry_run = o->dry_run,
		.found = found,
	};
	struct jobct_node *node;
	int rc;

	devns_report_init(&c.rep);
	if (!o->dry_run && slurmd_stopped(o) < 0)
		return DEVNS_EXIT_FAIL;
	if (!(node = devns_node_load(o)))
		return DEVNS_EXIT_FAIL;
	if (o->out) {
		json_string(o->out, "node", o->node);
		json_string(o->out, "spool", o->spool);
		json_bool(o->out, "dry_run", o->dry_run);
		json_array_begin(o->out, "jobs");
	}
	rc = jobct_restore_run(node, &args, &c.rep);
	if (o->out) {
		json_array_end(o->out);
		json_int(o->out, "kept", c.kept);
		json_int(o->out, "ended", c.ended);
	} else {
		printf("%d job%s kept, %d ended%s\n", c.kept,
		       c.kept == 1 ? "" : "s", c.ended,
		       o->dry_run ? " (dry run: nothing removed)" : "");
	}
	fflush(stdout);
	jobct_node_free(node);
	return rc < 0 || c.rep.errors ? DEVNS_EXIT_FAIL : DEVNS_EXIT_OK;
}
