/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * confpath.h - which slurm.conf a node's slurmd reads, found as Slurm
 * finds it (read_config.c's _establish_config_source and slurmd.c's
 * _establish_configuration, the same from 22.05 to 26.05):
 *
 *   1. $SLURM_CONF, whether it exists or not
 *   2. Slurm's default file (sysconfdir/slurm.conf), when it exists
 *   3. configless: the cache slurmd wrote from slurmctld's files,
 *      /run/slurm/conf/slurm.conf (slurmd's link to its cache, the last
 *      slurmd started on the host), when it exists
 *   4. configless: SlurmdSpoolDir/conf-cache/slurm.conf with Slurm's
 *      default SlurmdSpoolDir for the node (the cache itself, where no
 *      link was made), when it exists
 *
 * The files slurmd reads beside slurm.conf (job_container.conf,
 * gres.conf, plugstack.conf) are in the same directory, the cache's
 * too.  Only the paths are compared: nothing is opened.
 */
#ifndef DEVNS_CONFPATH_H
#define DEVNS_CONFPATH_H

#include <stddef.h>

/* Where to look; NULL skips a step. */
struct confpath_places {
	const char *env;	/* $SLURM_CONF */
	const char *file;	/* Slurm's default slurm.conf */
	const char *run_cache;	/* "/run/slurm/conf" */
	const char *spool_cache; /* "SPOOLDIR/conf-cache", %n expanded */
};

/* How the path was found. */
enum confpath_from {
	CONFPATH_ENV,
	CONFPATH_FILE,
	CONFPATH_CACHE,
	CONFPATH_NONE,		/* none exists: the default file */
};

/*
 * The slurm.conf of the places, in Slurm's order, into out[len]; a place
 * that has none is skipped, and when none has one out is the default
 * file (slurmd would find no configuration).  Returns how it was found,
 * or -1 with ENAMETOOLONG.
 */
int confpath_slurm(const struct confpath_places *at, char *out, size_t len);

#endif /* DEVNS_CONFPATH_H */
