/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * confpath.c - which slurm.conf slurmd reads.  See confpath.h.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "conf/confpath.h"

/* path (+ "/slurm.conf" when name) into out[len].  0, or -1. */
static int put(char *out, size_t len, const char *path, const char *name)
{
	int n = name ? snprintf(out, len, "%s/%s", path, name)
		     : snprintf(out, len, "%s", path);

	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* Whether a file is at path (a link followed: Slurm's own stat()). */
static int exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

int confpath_slurm(const struct confpath_places *at, char *out, size_t len)
{
	const char *caches[] = { at->run_cache, at->spool_cache };

	if (at->env && *at->env)
		return put(out, len, at->env, NULL) < 0 ? -1 : CONFPATH_ENV;
	if (at->file && exists(at->file))
		return put(out, len, at->file, NULL) < 0 ? -1 : CONFPATH_FILE;
	for (size_t i = 0; i < sizeof(caches) / sizeof(*caches); i++) {
		if (!caches[i])
			continue;
		if (put(out, len, caches[i], "slurm.conf") < 0)
			return -1;
		if (exists(out))
			return CONFPATH_CACHE;
	}
	if (put(out, len, at->file ? at->file : "", NULL) < 0)
		return -1;
	return CONFPATH_NONE;
}
