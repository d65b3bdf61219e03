/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devns_node.h - the node's settings (job_container.conf, or namespace.conf
 * by its deprecated name: conf/nsconf_file.h) as the devns plugins that run
 * in slurmd and slurmstepd load them: job_container/devns and the SPANK
 * plugin devns_pidns read the same file the same way.
 */
#ifndef DEVNS_PLUGINS_NODE_H
#define DEVNS_PLUGINS_NODE_H

#include <stdbool.h>
#include <stddef.h>

#include "job/jobct.h"

/* The settings' file, for messages. */
#define DEVNS_CONF_NAME "job_container.conf"

/*
 * Load the settings for the node this daemon runs for (Slurm's node name
 * and spool directory).  make_base_path: AutoBasePath may create BasePath
 * (slurmd only; it also warns about the deprecated namespace.conf).
 * Returns a node to free with jobct_node_free(), or NULL with errno and
 * the reason in rep (file and line for a bad file).
 */
struct jobct_node *devns_node_load(bool make_base_path, struct report *rep);

/*
 * slurmstepd: the settings slurmd parsed, from their text and path
 * (conf/nsconf_msg.h), loaded as devns_node_load(false) loads the file.
 * Returns as devns_node_load().
 */
struct jobct_node *devns_node_from_text(const char *path, const char *text,
					struct report *rep);

/*
 * Only parse the settings for this node: for a caller that needs its
 * settings and none of what jobct_node_load() derives from them (the
 * device policy, BasePath's checks, the cgroup layout).  Returns a conf to
 * free with nsconf_free(), or NULL with errno and rep.
 */
struct nsconf *devns_conf_load(struct report *rep);

/*
 * Defined by job_container/devns (namespace/devns), for devns_pidns in the
 * same slurmstepd, which finds it with dlsym(): the BasePath of the
 * settings that plugin holds.  Returns 1 with it in buf[len], 0 for
 * BasePath=none, -1 with errno (ENOENT: no settings held).
 */
#define DEVNS_STEPD_BASE_PATH_SYM "devns_stepd_base_path"
int devns_stepd_base_path(char *buf, size_t len);

#endif /* DEVNS_PLUGINS_NODE_H */
