/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsconf_file.c - which file holds a node's devns settings.  See
 * nsconf_file.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "conf/nsconf_file.h"

/* Only "no such file" means absent: anything else is for the loader. */
static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 || (errno != ENOENT && errno != ENOTDIR);
}

const char *nsconf_file_pick(const char *jc_path, const char *old_path,
			     bool *deprecated, struct report *rep)
{
	bool jc = exists(jc_path), old = exists(old_path);

	*deprecated = false;
	if (jc && old) {
		errno = EEXIST;
		report_error(rep, "both %s and %s exist: devns reads one file, %s (namespace.conf is its old name); merge them into %s and remove %s",
			     jc_path, old_path, NSCONF_FILE_NAME,
			     NSCONF_FILE_NAME, old_path);
		return NULL;
	}
	if (jc)
		return jc_path;
	if (old) {
		*deprecated = true;
		return old_path;
	}
	errno = ENOENT;
	report_error(rep, "cannot open %s (nor %s, its old name): No such file or directory",
		     jc_path, old_path);
	return NULL;
}

bool nsconf_file_leftover(const char *conf_path, struct report *rep)
{
	const char *slash = strrchr(conf_path, '/');
	char yaml[PATH_MAX];
	int saved = errno, n;
	struct stat st;

	n = slash ? snprintf(yaml, sizeof(yaml), "%.*s/%s",
			     (int)(slash - conf_path), conf_path,
			     NSCONF_FILE_YAML_NAME)
		  : snprintf(yaml, sizeof(yaml), "%s", NSCONF_FILE_YAML_NAME);
	/* only an existing file warns: a lookup's failure changes nothing */
	if (n < 0 || (size_t)n >= sizeof(yaml) || lstat(yaml, &st) < 0) {
		errno = saved;
		return false;
	}
	report_warning(rep, "%s lies beside %s: devns does not read it, so its namespace/linux settings do not apply; convert them with \"devns import %s\" into %s, then remove %s",
		       yaml, conf_path, yaml, conf_path, yaml);
	return true;
}
