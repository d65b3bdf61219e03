/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsconf_paths.c - what nsconf_load_host() checks on the node's filesystem
 * after parsing: the private directories' mount points and the fixed
 * part of Source= templates.  See nsconf.h.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "conf/nsconf.h"
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

/* The fixed part of the template tmpl into buf[len]; 0, or 1 when it has
 * no variable part (nothing is made below it per job). */
static int template_fixed(const char *tmpl, char *buf, size_t len)
{
	const char *s = tmpl;
	int fixed, job, depth = 0;

	nsconf_source_depths(tmpl, &fixed, &job);
	while (*s && depth < fixed) {
		s += strspn(s, "/");
		s += strcspn(s, "/");
		depth++;
	}
	if (!*s)
		return 1;
	snprintf(buf, len, "%.*s", (int)(s - tmpl), tmpl);
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
		/* Per user or job: made below its fixed part, as a Source. */
		if (!template_fixed(d->path, fixed, sizeof(fixed))) {
			if (safepath_check_create_below(fixed, &why) < 0)
				return report_error(rep, "%sprivate directory "
						    "%s: its fixed part: %s",
						    where(conf, line, at,
							  sizeof(at)),
						    d->path, why.msg);
		} else if (safepath_check_mount_point(d->path, &why) < 0)
			return report_error(rep, "%sprivate directory %s: its "
					    "mount point cannot be trusted: %s "
					    "(use a mount point whose parent "
					    "directories are root's and only "
					    "root may write to)",
					    where(conf, line, at, sizeof(at)),
					    d->path, why.msg);
		if (!d->source || template_fixed(d->source, fixed,
						 sizeof(fixed)))
			continue;
		report_init(&why, NULL, NULL);
		if (safepath_check_create_below(fixed, &why) < 0)
			return report_error(rep, "%sDir=%s: Source \"%s\": %s",
					    where(conf, d->line, at, sizeof(at)),
					    d->path, d->source, why.msg);
	}
	return 0;
}
