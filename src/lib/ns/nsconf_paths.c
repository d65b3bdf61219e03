/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsconf_paths.c - what nsconf_load_host() checks on the node's filesystem
 * after parsing: the private directories' mount points and the fixed
 * part of Source= templates.  See nsconf.h.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "ns/nsconf.h"
#include "util/safepath.h"

/* "FILE:LINE: " or "FILE: " for what line set, into buf[len]. */
static const char *where(const struct nsconf *c, int line, char *buf,
			 size_t len)
{
	if (line)
		snprintf(buf, len, "%s:%d: ", c->file, line);
	else
		snprintf(buf, len, "%s: ", c->file);
	return buf;
}

/* The fixed part of d's Source= into buf[len]; 0, or 1 when it has no
 * variable part (nothing is made below it per job). */
static int source_fixed(const struct nsconf_dir *d, char *buf, size_t len)
{
	const char *s = d->source;
	int fixed, job, depth = 0;

	nsconf_source_depths(d->source, &fixed, &job);
	while (*s && depth < fixed) {
		s += strspn(s, "/");
		s += strcspn(s, "/");
		depth++;
	}
	if (!*s)
		return 1;
	snprintf(buf, len, "%.*s", (int)(s - d->source), d->source);
	return 0;
}

int nsconf_paths_check(const struct nsconf *conf, struct report *rep)
{
	char at[PATH_MAX + 32], fixed[PATH_MAX];
	struct report why;

	for (size_t i = 0; conf->dirs && conf->dirs[i]; i++) {
		const struct nsconf_dir *d = &conf->dir_conf[i];
		int line = d->line ? d->line : conf->lines.dirs;

		report_init(&why, NULL, NULL);
		if (safepath_check_mount_point(d->path, &why) < 0)
			return report_error(rep, "%sprivate directory %s: its "
					    "mount point cannot be trusted: %s "
					    "(use a mount point whose parent "
					    "directories are root's and only "
					    "root may write to)",
					    where(conf, line, at, sizeof(at)),
					    d->path, why.msg);
		if (!d->source || source_fixed(d, fixed, sizeof(fixed)))
			continue;
		report_init(&why, NULL, NULL);
		if (safepath_check_create_below(fixed, &why) < 0)
			return report_error(rep, "%sDir=%s: Source \"%s\": %s",
					    where(conf, d->line, at, sizeof(at)),
					    d->path, d->source, why.msg);
	}
	return 0;
}
