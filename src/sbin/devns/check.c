/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check.c - devns check: namespace.conf validated by the code slurmd runs
 * (jobct_node_load, jobct_node_check), then the node's effective settings
 * and the device rules a job with the given GRES would get
 * (jobct_device_rules), one "key value" line each, like sshd -T.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "devns.h"
#include "gresconf.h"
#include "print.h"
#include "ns/dquota.h"
#include "ns/nspool.h"
#include "util/safepath.h"

/* The two GRES lists of the plan, and where they came from. */
struct gres_lists {
	struct gresconf conf;
	bool loaded;		/* a gres.conf was read */
	const char **node;	/* the node's device files, NULL: none */
	char **job;		/* the job's, NULL: none */
};

static void gres_lists_free(struct gres_lists *g)
{
	free(g->node);
	gresconf_files_free(g->job);
	gresconf_free(&g->conf);
}

/*
 * gres.conf (when --gres-conf names it, or the default one exists) and
 * --gres.  Returns 0, or -1 after printing why.
 */
static int gres_load(const struct devns_opts *o, struct gres_lists *g,
		     struct report *rep)
{
	if (o->gres_conf_given || access(o->gres_conf, F_OK) == 0) {
		if (gresconf_load(o->gres_conf, o->node, &g->conf, rep) < 0)
			return -1;
		g->loaded = true;
	}
	if (gresconf_node_files(&g->conf, &g->node) < 0)
		return report_errno(rep, ENOMEM, "gres.conf");
	if (o->gres && gresconf_job_files(&g->conf, o->gres, &g->job, rep) < 0)
		return -1;
	return 0;
}

/*
 * One line per private directory, as jobs get it: "dir PATH type=bind
 * options=nosuid,nodev[ source=TEMPLATE]" or "dir PATH type=tmpfs
 * size=BYTES|default options=...".
 */
static void print_dirs(const struct nsconf *c)
{
	for (size_t i = 0; c->dirs[i]; i++) {
		const struct nsconf_dir *d = &c->dir_conf[i];
		char opts[64], size[32] = "";

		nsconf_options_format(d->options, opts, sizeof(opts));
		if (d->type == NSCONF_DIR_TMPFS) {
			if (d->size)
				snprintf(size, sizeof(size), " size=%" PRIu64,
					 d->size);
			else
				snprintf(size, sizeof(size), " size=default");
		}
		printf("dir %s type=%s%s options=%s%s%s\n", d->path,
		       d->type == NSCONF_DIR_TMPFS ? "tmpfs" : "bind", size,
		       opts, d->source ? " source=" : "",
		       d->source ? d->source : "");
	}
}

/*
 * Whether BasePath's filesystem enforces TmpDiskLimit: "enforced", or
 * "unknown" while BasePath does not exist yet (AutoBasePath), or "none"
 * without TmpDiskLimit.  jobct_node_load() refused a node where it cannot.
 */
static const char *disk_quota_state(const struct nsconf *c)
{
	int fd, rc;

	if (!c->tmp_disk_limit || !c->base_path)
		return "none";
	if ((fd = safepath_open(c->base_path)) < 0)
		return "unknown";
	rc = dquota_probe(fd, c->base_path, NULL);
	close(fd);
	return rc == 0 ? "enforced" : "not enforced";
}

static void print_settings(const struct devns_opts *o,
			   const struct jobct_node *node)
{
	const struct nsconf *c = node->conf;

	print_kv("file", o->conf_path);
	print_kv("node", o->node);
	print_kv("basepath", c->base_path ? c->base_path : "none");
	print_kv("autobasepath", c->auto_base_path ? "yes" : "no");
	print_list("dirs", (const char *const *)c->dirs);
	print_kv("initscript", c->init_script ? c->init_script : "none");
	print_kv("shared", c->shared ? "yes" : "no");
	print_kv("pidnamespace", c->pid_namespace ? "yes" : "no");
	printf("namespacepool %u\n", c->namespace_pool);
	printf("namespacepoolready %d\n",
	       c->base_path ? nspool_ready(c->base_path) : 0);
	print_size("shmsize", c->shm_size);
	print_size("tmpsize", c->tmp_size);
	print_size("tmpdisklimit", c->tmp_disk_limit);
	printf("tmpinodelimit %ju\n", (uintmax_t)c->tmp_inode_limit);
	print_kv("tmpdiskquota", disk_quota_state(c));
	print_dirs(c);
	print_kv("devicepolicy", devpolicy_mode_name(c->device_policy));
	print_kv("deviceallow", c->device_allow ? c->device_allow : "none");
	print_kv("cgrouplayout", print_layout(node->layout));
}

static void print_gres(const struct devns_opts *o, const struct gres_lists *g)
{
	print_kv("grescfg", g->loaded ? o->gres_conf : "none");
	for (size_t i = 0; g->node && g->node[i]; i++)
		print_kv("nodedevice", g->node[i]);
	for (size_t i = 0; g->job && g->job[i]; i++)
		print_kv("jobdevice", g->job[i]);
}

int devns_check(const struct devns_opts *o)
{
	struct gres_lists g = { .loaded = false };
	struct jobct_slurm slurm = {
		.prolog_contain = o->prolog_contain,
		.step_cgroups = o->step_cgroups,
		.plugstack = o->plugstack,
		.contain_spank = o->contain_spank,
	};
	struct devrule_list list;
	struct jobct_node *node;
	struct jobct_plan plan;
	struct report rep;
	int filtered, rc = DEVNS_EXIT_FAIL;

	devns_report_init(&rep);
	if (!(node = devns_node_load(o)))
		return DEVNS_EXIT_FAIL;
	if (gres_load(o, &g, &rep) < 0)
		goto out;
	slurm.node_has_devices = g.node != NULL;
	slurm.node_devices = g.node;
	if (jobct_node_check(node, &slurm, &rep) < 0)
		goto out;
	plan = (struct jobct_plan){
		.node = node,
		.node_devices = g.node,
		.job_devices = (const char *const *)g.job,
	};
	if ((filtered = jobct_device_rules(&plan, &list, &rep)) < 0)
		goto out;
	print_settings(o, node);
	print_gres(o, &g);
	print_kv("filter", filtered ? "yes" : "no");
	print_rules(&list);
	devrule_list_free(&list);
	rc = fflush(stdout) == 0 ? DEVNS_EXIT_OK : DEVNS_EXIT_FAIL;
out:
	gres_lists_free(&g);
	jobct_node_free(node);
	return rc;
}
