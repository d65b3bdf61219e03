/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cdispec.c - CDI spec files -> the device nodes of each device and of
 * the spec (see cdispec.h); the text itself is cdidoc's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dev/cdidoc.h"
#include "dev/cdispec.h"
#include "slurmconv/confread.h"
#include "util/safepath.h"

/* Reports "FILE:LINE: what" and fails with EINVAL. */
__attribute__((format(printf, 4, 5)))
static int bad(struct report *rep, const char *file, int line,
	       const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	report_error(rep, "%s:%d: %s", file, line, msg);
	errno = EINVAL;
	return -1;
}

/* The string member key of map; NULL (after reporting) when not one. */
static const char *string_of(const struct cdinode *map, const char *key,
			     const char *what, const char *file,
			     struct report *rep)
{
	const struct cdinode *v = cdidoc_get(map, key);

	if (v && v->type == CDINODE_SCALAR && v->str[0])
		return v->str;
	bad(rep, file, v ? v->line : map->line, "%s: \"%s\" %s", what, key,
	    v ? "must be a non-empty string" : "is missing");
	return NULL;
}

/* Appends a copy of s to the array *v of *n strings.  0 or -1. */
static int strv_push(char ***v, size_t *n, const char *s)
{
	char **grown = realloc(*v, (*n + 1) * sizeof(**v));

	if (!grown)
		return -1;
	*v = grown;
	if (!(grown[*n] = strdup(s)))
		return -1;
	(*n)++;
	return 0;
}

static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/*
 * The deviceNodes of a containerEdits mapping (absent: none) onto *v.
 * what names the edits in messages.
 */
static int nodes_of(const struct cdinode *edits, const char *what,
		    const char *file, char ***v, size_t *n,
		    struct report *rep)
{
	const struct cdinode *list = cdidoc_get(edits, "deviceNodes");
	char where[128];

	if (!list || list->type == CDINODE_NULL)
		return 0;
	if (list->type != CDINODE_SEQ)
		return bad(rep, file, list->line, "%s: deviceNodes must be a "
			   "list", what);
	for (size_t i = 0; i < list->count; i++) {
		const struct cdinode *dn = &list->kids[i];
		const char *path;

		snprintf(where, sizeof(where), "%s: deviceNodes[%zu]", what, i);
		if (dn->type != CDINODE_MAP)
			return bad(rep, file, dn->line, "%s must be a mapping",
				   where);
		/* The host's node is what a job opens. */
		path = cdidoc_get(dn, "hostPath")
		       ? string_of(dn, "hostPath", where, file, rep)
		       : string_of(dn, "path", where, file, rep);
		if (!path)
			return -1;
		if (path[0] != '/')
			return bad(rep, file, dn->line, "%s: \"%s\" is not an "
				   "absolute path", where, path);
		if (strv_push(v, n, path) < 0)
			return -1;
	}
	return 0;
}

/* The containerEdits of map, which must be a mapping when given. */
static const struct cdinode *edits_of(const struct cdinode *map,
				      const char *what, const char *file,
				      bool required, struct report *rep)
{
	static const struct cdinode none = { .type = CDINODE_MAP };
	const struct cdinode *e = cdidoc_get(map, "containerEdits");

	if (e && e->type == CDINODE_MAP)
		return e;
	if (!e && !required)
		return &none;
	bad(rep, file, e ? e->line : map->line, "%s: \"containerEdits\" %s",
	    what, e ? "must be a mapping" : "is missing");
	return NULL;
}

static int device_of(const struct cdinode *d, size_t i, const char *file,
		     struct cdispec *spec, struct report *rep)
{
	struct cdidev *dev = &spec->devs[spec->ndevs];
	const struct cdinode *edits;
	const char *name;
	char what[64];

	snprintf(what, sizeof(what), "devices[%zu]", i);
	if (d->type != CDINODE_MAP)
		return bad(rep, file, d->line, "%s must be a mapping", what);
	if (!(name = string_of(d, "name", what, file, rep)))
		return -1;
	for (size_t j = 0; j < spec->ndevs; j++)
		if (!strcmp(spec->devs[j].name, name))
			return bad(rep, file, d->line, "%s: device \"%s\" is "
				   "named twice (first on line %d)", what,
				   name, spec->devs[j].line);
	if (!(dev->name = strdup(name)))
		return -1;
	dev->line = d->line;
	spec->ndevs++;
	snprintf(what, sizeof(what), "device \"%s\"", name);
	if (!(edits = edits_of(d, what, file, true, rep)))
		return -1;
	return nodes_of(edits, what, file, &dev->nodes, &dev->count, rep);
}

/* The tree of a spec into spec. */
static int spec_of(const struct cdinode *root, const char *file,
		   struct cdispec *spec, struct report *rep)
{
	const struct cdinode *devs, *edits;
	const char *kind;

	if (root->type != CDINODE_MAP)
		return bad(rep, file, root->line, "a CDI spec is a mapping "
			   "(cdiVersion, kind, devices, ...)");
	if (!string_of(root, "cdiVersion", "spec", file, rep) ||
	    !(kind = string_of(root, "kind", "spec", file, rep)))
		return -1;
	if (!strchr(kind, '/'))
		return bad(rep, file, cdidoc_get(root, "kind")->line,
			   "kind \"%s\" is not VENDOR/CLASS", kind);
	if (!(spec->kind = strdup(kind)))
		return -1;
	devs = cdidoc_get(root, "devices");
	if (!devs || devs->type != CDINODE_SEQ || !devs->count)
		return bad(rep, file, devs ? devs->line : root->line,
			   "\"devices\" %s", devs ? "must be a non-empty list"
						   : "is missing");
	if (!(spec->devs = calloc(devs->count, sizeof(*spec->devs))))
		return -1;
	for (size_t i = 0; i < devs->count; i++)
		if (device_of(&devs->kids[i], i, file, spec, rep) < 0)
			return -1;
	if (!(edits = edits_of(root, "spec", file, false, rep)))
		return -1;
	spec->shared_line = edits->line;
	return nodes_of(edits, "spec", file, &spec->shared, &spec->nshared,
			rep);
}

/* Frees what spec holds and leaves it empty. */
static void spec_free(struct cdispec *spec)
{
	for (size_t i = 0; i < spec->ndevs; i++) {
		free(spec->devs[i].name);
		strv_free(spec->devs[i].nodes, spec->devs[i].count);
	}
	free(spec->devs);
	strv_free(spec->shared, spec->nshared);
	free(spec->kind);
	free(spec->file);
	memset(spec, 0, sizeof(*spec));
}

/*
 * Reads one spec from text; file names it ("FILE:LINE: ..." in
 * messages; JSON when it ends in ".json", else YAML).  cdiVersion and
 * kind must be strings, devices a non-empty list whose entries each have
 * a name and a containerEdits mapping; deviceNodes entries need an
 * absolute path.  Returns 0 with spec filled (free it with spec_free),
 * or -1 with errno (EINVAL after reporting the first problem as
 * "FILE:LINE: ...", ENOMEM) and spec empty.
 */
static int spec_parse(const char *text, const char *file,
		      struct cdispec *spec, struct report *rep)
{
	struct cdinode *root;
	int rc = -1, saved;

	memset(spec, 0, sizeof(*spec));
	if (!(spec->file = strdup(file)))
		return -1;
	if ((root = cdidoc_parse(text, file, rep)))
		rc = spec_of(root, file, spec, rep);
	saved = errno;
	cdidoc_free(root);
	if (rc < 0)
		spec_free(spec);
	errno = saved;
	return rc;
}

void cdiset_free(struct cdiset *set)
{
	for (size_t i = 0; i < set->count; i++)
		spec_free(&set->specs[i]);
	free(set->specs);
	set->specs = NULL;
	set->count = 0;
}

/* Tell whether a directory entry is a spec by its name. */
static bool spec_name(const char *name)
{
	size_t n = strlen(name);

	if (name[0] == '.')
		return false;
	return (n > 5 && !strcmp(name + n - 5, ".json")) ||
	       (n > 5 && !strcmp(name + n - 5, ".yaml")) ||
	       (n > 4 && !strcmp(name + n - 4, ".yml"));
}

/*
 * Opens spec name of the directory dfd without following a link, and
 * refuses one that a user other than root could have written.
 */
static int spec_open(int dfd, const char *path, const char *name,
		     struct report *rep)
{
	struct stat st;
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
			O_NONBLOCK);

	if (fd < 0)
		return report_error(rep, "%s: cannot open: %s%s", path,
				    strerror(errno), errno == ELOOP
				    ? " (a link: name the file it points to)"
				    : "");
	if (fstat(fd, &st) == 0 && (st.st_uid != 0 || (st.st_mode & 022))) {
		close(fd);
		errno = EPERM;
		return report_error(rep, "%s: owned by uid %u, mode %04o: a "
				    "CDI spec decides which devices jobs get, "
				    "so only root may write it", path,
				    (unsigned)st.st_uid,
				    (unsigned)(st.st_mode & 07777));
	}
	return fd;
}

/* Reads one spec of a directory into the next slot of set. */
static int spec_load(struct cdiset *set, int dfd, const char *dir,
		     const char *name, struct report *rep)
{
	char path[4096];
	struct cdispec *grown;
	char *text;
	int fd, rc;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fd = spec_open(dfd, path, name, rep)) < 0)
		return -1;
	text = confread_fd(fd, path, CDISPEC_MAX_SIZE, rep);
	close(fd);
	if (!text)
		return -1;
	if (!(grown = realloc(set->specs, (set->count + 1) * sizeof(*grown)))) {
		free(text);
		return -1;
	}
	set->specs = grown;
	rc = spec_parse(text, path, &grown[set->count], rep);
	free(text);
	if (rc == 0)
		set->count++;
	return rc;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The spec names of an open directory, sorted, into *names. */
static int list_dir(int dfd, char ***names, size_t *n)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *e;
	DIR *d;

	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	errno = 0;
	while ((e = readdir(d))) {
		if (spec_name(e->d_name) && strv_push(names, n, e->d_name) < 0)
			break;
		errno = 0;
	}
	closedir(d);
	if (errno)
		return -1;
	qsort(*names, *n, sizeof(**names), by_name);
	return 0;
}

/*
 * A directory others may write to could have specs swapped in or out
 * under root's feet: only root's, writable by no one else.
 */
static int dir_private(int dfd, const char *dir, struct report *rep)
{
	struct stat st;

	if (fstat(dfd, &st) < 0)
		return report_error(rep, "CDI spec directory %s: %s", dir,
				    strerror(errno));
	if (st.st_uid == 0 && !(st.st_mode & 022))
		return 0;
	errno = EPERM;
	return report_error(rep, "CDI spec directory %s: owned by uid %u, "
			    "mode %04o: only root may write it", dir,
			    (unsigned)st.st_uid,
			    (unsigned)(st.st_mode & 07777));
}

/* Every spec of one directory into set. */
static int dir_load(struct cdiset *set, const char *dir, struct report *rep)
{
	char **names = NULL;
	size_t n = 0, i;
	int dfd = safepath_open(dir), rc = -1;

	if (dfd < 0) {
		if (errno == ENOENT) {
			report_warning(rep, "CDI spec directory %s does not "
				       "exist, skipped", dir);
			return 0;
		}
		return report_error(rep, "CDI spec directory %s: %s%s", dir,
				    strerror(errno), errno == ELOOP
				    ? " (a link is in the path: write the "
				      "path it points to, e.g. /run/cdi for "
				      "/var/run/cdi)" : "");
	}
	if (dir_private(dfd, dir, rep) < 0)
		goto out;
	if (list_dir(dfd, &names, &n) < 0) {
		report_error(rep, "CDI spec directory %s: cannot read: %s",
			     dir, strerror(errno));
		goto out;
	}
	for (i = 0; i < n; i++)
		if (spec_load(set, dfd, dir, names[i], rep) < 0)
			goto out;
	rc = 0;
out:
	strv_free(names, n);
	close(dfd);
	return rc;
}

int cdiset_load(struct cdiset *set, const char *dirs, struct report *rep)
{
	char *copy, *dir, *next;
	int saved;

	memset(set, 0, sizeof(*set));
	if (!(copy = strdup(dirs)))
		return -1;
	for (dir = copy; dir; dir = next) {
		if ((next = strchr(dir, ',')))
			*next++ = '\0';
		if (dir_load(set, dir, rep) < 0)
			goto error;
	}
	free(copy);
	return (int)set->count;
error:
	saved = errno;
	free(copy);
	cdiset_free(set);
	errno = saved;
	return -1;
}
