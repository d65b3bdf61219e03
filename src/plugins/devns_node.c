/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devns_node.c - namespace.conf for this node, from Slurm's configuration.
 * See devns_node.h.
 */
#include <errno.h>

#include "slurm_compat.h"

#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/slurmd/slurmd/slurmd.h"

#include "devns_node.h"

/*
 * slurmd and slurmstepd both define 'conf'; this definition only satisfies
 * the loader (and is NULL where a plugin is loaded by another program),
 * the daemon's own symbol takes precedence at run time.
 */
slurmd_conf_t *conf = NULL;

/* namespace.conf's path (to xfree()), or NULL outside slurmd/slurmstepd. */
static char *conf_path(struct report *rep)
{
	if (!conf || !conf->node_name) {
		errno = EINVAL;
		report_error(rep, "loaded outside slurmd/slurmstepd");
		return NULL;
	}
	return get_extra_conf_path(DEVNS_CONF_NAME);
}

struct jobct_node *devns_node_load(bool make_base_path, struct report *rep)
{
	char *path = conf_path(rep);
	struct jobct_node *n;
	struct jobct_node_args args = {
		.conf_path = path,
		.make_base_path = make_base_path,
	};

	if (!path)
		return NULL;
	args.node_name = conf->node_name;
	args.spool_dir = conf->spooldir;
	n = jobct_node_load(&args, rep);
	xfree(path);
	return n;
}

struct nsconf *devns_conf_load(struct report *rep)
{
	char *path = conf_path(rep);
	struct nsconf *c;

	if (!path)
		return NULL;
	c = nsconf_load(path, conf->node_name, rep);
	xfree(path);
	return c;
}
