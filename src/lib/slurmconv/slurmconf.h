/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slurmconf.h - the settings of slurm.conf the devns tool needs, as
 * slurmd reads them: SlurmdSpoolDir (the jobs' filter markers, the
 * slurmstepd sockets), SlurmdPidFile (is slurmd running?) and
 * ProctrackType (has every step cgroups of its own, which the filter
 * needs on the unified layout?), and its node names (devns check compares
 * namespace.conf's with them).
 *
 * Only the file itself is read (an Include is not followed): a setting
 * made in an included file is missed, and --spool sets it by hand. *
 * Slurm 22.05 to 26.11: the keys of src/common/read_config.c (their
 * defaults configure's DEVNS_SLURMD_SPOOLDIR and DEVNS_SLURMD_PIDFILE,
 * %n and %h expanded as slurmd's _massage_pathname() does).  A release
 * that changes them changes this file and src/plugins/slurm_compat.h,
 * nowhere else.
 */
#ifndef DEVNS_SLURMCONF_H
#define DEVNS_SLURMCONF_H

#include <limits.h>
#include <stdbool.h>

#include "util/report.h"

struct slurmconf {
	char spool_dir[PATH_MAX];
	char pid_file[PATH_MAX];
	bool proctrack_cgroup;	/* ProctrackType=proctrack/cgroup */
	char plugstack[PATH_MAX]; /* PlugStackConfig, "" for Slurm's default
				   * (plugstack.conf beside slurm.conf) */
	bool contain_spank;	/* SlurmdParameters has contain_spank */
	bool prolog_contain;	/* PrologFlags has Contain (or X11 or
				 * RunInJob, which imply it); true when
				 * there is no slurm.conf to tell */
	/*
	 * The values of its NodeName lines (hostlists, DEFAULT left out),
	 * NULL-terminated; NULL when there is no slurm.conf
	 */
	char **node_names;
	/*
	 * A NodeName line that names the node gives it a NodeHostname that
	 * names host: the node is this machine under another name
	 * (multiple-slurmd, a node name that is not the host's)
	 */
	bool node_here;
	/*
	 * The Gres= of the node's NodeName line (or of a NodeName=DEFAULT
	 * line before it), "" for none; gres_known false when no line of
	 * slurm.conf names the node (no file, configless, Include)
	 */
	char gres[1024];
	bool gres_known;
};

/*
 * Reads the settings from the slurm.conf at path, Slurm's defaults where
 * it sets none or does not exist, with %n replaced by node and %h by host
 * as slurmd does.  Lines the reader does not understand are skipped (they
 * are Slurm's to judge).  Returns 0, or -1 with errno and rep when the
 * file exists but cannot be read, or a value does not fit.
 */
int slurmconf_read(const char *path, const char *node, const char *host,
		   struct slurmconf *sc, struct report *rep);

/*
 * Writes value into out[len] with %n -> node and %h -> host (Slurm's
 * slurm_conf_expand_slurmd_path).  Returns 0, or -1 with ENAMETOOLONG.
 */
int slurmconf_expand(const char *value, const char *node, const char *host,
		     char *out, size_t len);

/* Free what slurmconf_read() allocated (node_names); sc stays usable. */
void slurmconf_free(struct slurmconf *sc);

#endif /* DEVNS_SLURMCONF_H */
