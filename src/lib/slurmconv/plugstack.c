/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plugstack.c - does a SPANK plugin stack require a plugin?  See
 * plugstack.h.
 */
#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurmconv/plugstack.h"

/* include lines may nest; Slurm's own limit is about this deep. */
#define PLUGSTACK_MAX_DEPTH 8

static int file_requires(const char *path, const char *name, int depth,
			 struct report *rep);

/* The last path component of s. */
static const char *last_component(const char *s)
{
	const char *slash = strrchr(s, '/');

	return slash ? slash + 1 : s;
}

/* Every file an include pattern names; 1 when one of them requires. */
static int include_requires(const char *from, const char *pattern,
			    const char *name, int depth, struct report *rep)
{
	char dir[PATH_MAX], full[PATH_MAX];
	glob_t g;
	int rc = 0;

	if (pattern[0] != '/') {
		snprintf(dir, sizeof(dir), "%s", from);
		snprintf(full, sizeof(full), "%s/%s", dirname(dir), pattern);
		pattern = full;
	}
	if (glob(pattern, 0, NULL, &g) != 0)
		return 0;	/* nothing matches: nothing is loaded */
	for (size_t i = 0; i < g.gl_pathc && rc == 0; i++)
		rc = file_requires(g.gl_pathv[i], name, depth + 1, rep);
	globfree(&g);
	return rc;
}

/* One line: 1 when it requires name, 0 when not, -1 on error. */
static int line_requires(const char *path, char *line, const char *name,
			 int depth, struct report *rep)
{
	char *save = NULL, *kind, *arg;

	line[strcspn(line, "#\n")] = '\0';
	if (!(kind = strtok_r(line, " \t", &save)) ||
	    !(arg = strtok_r(NULL, " \t", &save)))
		return 0;
	if (!strcmp(kind, "include"))
		return include_requires(path, arg, name, depth, rep);
	return !strcmp(kind, "required") &&
	       !strcmp(last_component(arg), name);
}

static int file_requires(const char *path, const char *name, int depth,
			 struct report *rep)
{
	char line[4096];
	FILE *f;
	int rc = 0;

	if (depth > PLUGSTACK_MAX_DEPTH) {
		errno = ELOOP;
		return report_errno(rep, errno, "%s: includes nest too deep",
				    path);
	}
	if (!(f = fopen(path, "re"))) {
		if (errno == ENOENT)
			return 0;
		return report_errno(rep, errno, "%s", path);
	}
	while (rc == 0 && fgets(line, sizeof(line), f))
		rc = line_requires(path, line, name, depth, rep);
	fclose(f);
	return rc;
}

int plugstack_requires(const char *path, const char *name,
		       struct report *rep)
{
	return file_requires(path, name, 0, rep);
}
