/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsconf_file.h - which file holds a node's devns settings.
 *
 * devns reads job_container.conf, the file job_container/tmpfs and
 * namespace/tmpfs read: slurmctld ships it to configless nodes (its list
 * of files is fixed; namespace.conf is not on it), so a site's settings
 * can live on the controller alone.  namespace.conf, the name of devns
 * 0.1, is still read where it is the only one, and is deprecated.  Both
 * at once would leave the admin guessing which one counts: an error.
 */
#ifndef DEVNS_NSCONF_FILE_H
#define DEVNS_NSCONF_FILE_H

#include <stdbool.h>

#include "util/report.h"

/* The file's name, beside slurm.conf (or in slurmd's configless cache). */
#define NSCONF_FILE_NAME "job_container.conf"

/* devns 0.1's name for it: read when it is the only one, deprecated. */
#define NSCONF_FILE_OLD_NAME "namespace.conf"

/*
 * Of jc_path (job_container.conf) and old_path (namespace.conf), both
 * found the way Slurm finds its files: the one that exists.  Sets
 * *deprecated when that is old_path.  Returns the chosen path (one of the
 * two given), or NULL with errno and rep naming both files: EEXIST when
 * both exist, ENOENT when neither does.  A file that cannot be looked at
 * (EACCES, ...) counts as existing: loading it says what is wrong.
 */
const char *nsconf_file_pick(const char *jc_path, const char *old_path,
			     bool *deprecated, struct report *rep);

/* The settings of Slurm's namespace/linux (25.11 and later). */
#define NSCONF_FILE_YAML_NAME "namespace.yaml"

/*
 * Warns in rep, naming both files, when a namespace.yaml lies in the
 * directory of conf_path (the settings file that nsconf_file_pick()
 * chose, or the one given): devns never reads it, so its settings, left
 * from namespace/linux, would silently no longer apply ("devns import"
 * converts it).  For slurmd's start and devns's commands alike.  Returns
 * true when it warned.
 */
bool nsconf_file_leftover(const char *conf_path, struct report *rep);

#endif /* DEVNS_NSCONF_FILE_H */
