/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gresconf.h - the GRES device files of a node as gres.conf lists them,
 * and the share of them a GRES SPEC gives a job: the two lists that the
 * plugin gets from Slurm and hands to devpolicy_build(), for devns check.
 *
 * gres.conf is read for Name=, Type=, File=, MultipleFiles= and
 * NodeName= (other keys are Slurm's, and skipped); File= takes Slurm's
 * hostlist form (/dev/nvidia[0-3],/dev/nvidia[6,8]).  Indices count the
 * files of each GRES name in the order gres.conf lists them, as Slurm's
 * GRES plugins do (every file of a MultipleFiles= line shares one index).
 * AutoDetect without File= names no file (as for the 22.05 plugin); that a
 * line of the node has AutoDetect (other than off) is noted: Slurm finds
 * devices there that devns cannot know.
 *
 * SPEC is a comma-separated list of:
 *   /dev/PATH                      a device file given to the job
 *   NAME[:TYPE]:COUNT(IDX:LIST)    Slurm's detail form (gpu:2(IDX:0,2)),
 *                                  the indices of NAME the job holds
 *   NAME[:TYPE][:COUNT]            the first COUNT (default 1) devices of
 *                                  NAME (of that TYPE)
 *   none                           no GRES *
 * Slurm 22.05 to 26.11: gres.conf's keys as src/common/gres.c reads them
 * (_parse_gres_config(), gres_plugin_node_config_load()), File= expanded
 * as src/common/hostlist.c does.  A release that changes them changes
 * this file and src/plugins/slurm_compat.h, nowhere else.
 */
#ifndef DEVNS_GRESCONF_H
#define DEVNS_GRESCONF_H

#include <stdbool.h>
#include <stddef.h>

#include "util/report.h"

struct gresconf_dev {
	char *name;
	char *type;	/* "" when untyped */
	unsigned index;	/* among the devices of its name */
	char *path;
};

struct gresconf {
	struct gresconf_dev *devs;	/* in gres.conf order */
	size_t count;
	size_t alloc;
	bool autodetect;		/* a line of the node has AutoDetect=
					 * other than off */
};

/*
 * Reads the devices of node from the gres.conf at path into g (made
 * here; free it with gresconf_free() whatever the result).  Returns 0, or
 * -1 with errno and "FILE:LINE: what is wrong" in rep.
 */
int gresconf_load(const char *path, const char *node, struct gresconf *g,
		  struct report *rep);

void gresconf_free(struct gresconf *g);

/*
 * Sets *files to a NULL-terminated array (free() it; the strings are g's)
 * of every device file of the node, NULL when it has none.  Returns 0, or
 * -1 with ENOMEM.
 */
int gresconf_node_files(const struct gresconf *g, const char ***files);

/*
 * Sets *files to the device files spec gives a job on the node (a
 * NULL-terminated array to release with gresconf_files_free(), NULL for
 * none).  A name or an index the node does not have is an error, as in
 * the plugin, which refuses such a job.  Returns 0, or -1 with errno and
 * rep.
 */
int gresconf_job_files(const struct gresconf *g, const char *spec,
		       char ***files, struct report *rep);

void gresconf_files_free(char **files);

#endif /* DEVNS_GRESCONF_H */
