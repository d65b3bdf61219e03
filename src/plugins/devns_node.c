/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devns_node.c - job_container.conf (or namespace.conf) for this node,
 * from Slurm's configuration.
 * See devns_node.h.
 */
#include <errno.h>

#include "slurm_compat.h"

#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmd/slurmd/slurmd.h"

#include "devns_node.h"
#include "conf/nsconf_file.h"

/*
 * slurmd and slurmstepd both define 'conf'; this definition only satisfies
 * the loader (and is NULL where a plugin is loaded by another program),
 * the daemon's own symbol takes precedence at run time.
 */
slurmd_conf_t *conf = NULL;

/*
 * The settings' path (to xfree()): job_container.conf or, deprecated,
 * namespace.conf, each where Slurm finds its files (the configless cache
 * included); NULL outside slurmd/slurmstepd, or when both or neither
 * exist.  say_deprecated: warn about namespace.conf and a leftover
 * namespace.yaml (slurmd's start).
 */
static char *conf_path(bool say_deprecated, struct report *rep)
{
	char *jc, *old, *path = NULL;
	const char *pick;
	bool deprecated;

	if (!conf || !conf->node_name) {
		errno = EINVAL;
		report_error(rep, "loaded outside slurmd/slurmstepd");
		return NULL;
	}
	jc = get_extra_conf_path(NSCONF_FILE_NAME);
	old = get_extra_conf_path(NSCONF_FILE_OLD_NAME);
	if ((pick = nsconf_file_pick(jc, old, &deprecated, rep)))
		path = xstrdup(pick);
	if (pick && deprecated && say_deprecated)
		report_warning(rep, "reading %s: the name is deprecated, rename it to %s (which slurmctld also ships to configless nodes)",
			       old, NSCONF_FILE_NAME);
	if (pick && say_deprecated)
		nsconf_file_leftover(pick, rep);
	xfree(jc);
	xfree(old);
	return path;
}

/*
 * The node's settings from path, or from text when not NULL; BasePath's %h
 * as tmpfs expands it: slurm.conf's NodeHostname.
 */
static struct jobct_node *node_load(const char *path, const char *text,
				    bool make_base_path, struct report *rep)
{
	char *host = slurm_conf_get_hostname(conf->node_name);
	struct jobct_node_args args = {
		.conf_path = path,
		.conf_text = text,
		.make_base_path = make_base_path,
		.node_name = conf->node_name,
		.host_name = host,
		.spool_dir = conf->spooldir,
	};
	struct jobct_node *n = jobct_node_load(&args, rep);

	xfree(host);
	return n;
}

struct jobct_node *devns_node_load(bool make_base_path, struct report *rep)
{
	char *path = conf_path(make_base_path, rep);
	struct jobct_node *n;

	if (!path)
		return NULL;
	n = node_load(path, NULL, make_base_path, rep);
	xfree(path);
	return n;
}

struct jobct_node *devns_node_from_text(const char *path, const char *text,
					struct report *rep)
{
	if (!conf || !conf->node_name) {
		errno = EINVAL;
		report_error(rep, "loaded outside slurmd/slurmstepd");
		return NULL;
	}
	return node_load(path, text, false, rep);
}

struct nsconf *devns_conf_load(struct report *rep)
{
	char *path = conf_path(false, rep);
	char *host;
	struct nsconf *c;

	if (!path)
		return NULL;
	host = slurm_conf_get_hostname(conf->node_name);
	c = nsconf_load_host(path, conf->node_name, host, rep);
	xfree(host);
	xfree(path);
	return c;
}
