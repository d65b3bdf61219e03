/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsconf_dirs.c - Dir lines: their keys (Dir, Type, Size, Options,
 * Source), each line checked as a whole and filed by its scope.  What
 * they make of each private directory is nsconf_resolve.c's.  See
 * nsconf_int.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf/nsconf_int.h"

static const char *const shared_dirs[] = NSCONF_SHARED_DIRS;

/* ---- Dir lines ------------------------------------------------------- */

/* The option names of Options=, indexed by bit. */
static const struct {
	const char *name;
	unsigned bit;
} option_names[] = {
	{ "nosuid", NSCONF_OPT_NOSUID },
	{ "nodev", NSCONF_OPT_NODEV },
	{ "noexec", NSCONF_OPT_NOEXEC },
	{ "ro", NSCONF_OPT_RO },
};

#define N_OPTIONS (sizeof(option_names) / sizeof(option_names[0]))

void nsconf_options_format(unsigned options, char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < N_OPTIONS; i++) {
		int n;

		if (!(options & option_names[i].bit))
			continue;
		n = snprintf(buf + used, len - used, "%s%s", used ? "," : "",
			     option_names[i].name);
		if (n < 0 || (size_t)n >= len - used)
			return;
		used += (size_t)n;
	}
}

void nsconf_decl_clear(struct dir_decl *d)
{
	free(d->path);
	free(d->source);
	free(d->scope);
	memset(d, 0, sizeof(*d));
}

void nsconf_decl_list_free(struct decl_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		nsconf_decl_clear(&l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/* The Dir line of l for path, or NULL. */
struct dir_decl *nsconf_decl_find(struct decl_list *l, const char *path)
{
	for (size_t i = 0; i < l->n; i++) {
		if (!strcmp(l->v[i].path, path))
			return &l->v[i];
	}
	return NULL;
}

/* Move *d to the end of l (d is left empty).  Returns 0 or -1 (ENOMEM). */
static int decl_push(struct decl_list *l, struct dir_decl *d)
{
	struct dir_decl *v = realloc(l->v, (l->n + 1) * sizeof(*v));

	if (!v)
		return -1;
	l->v = v;
	l->v[l->n++] = *d;
	memset(d, 0, sizeof(*d));
	return 0;
}

int nsconf_key_dir(struct parser *p, struct nsconf *c, const char *key,
		   const char *value)
{
	char *dirs[2] = { NULL, NULL };
	int rc;

	(void)c;
	if (nsconf_dir_spelling_check(p, key, value) < 0)
		return -1;
	if (!(dirs[0] = nsconf_path_normalize(p, key, value)))
		return -1;
	rc = nsconf_dir_system_check(p, key, dirs[0]);
	if (rc == 0)
		rc = nsconf_dir_backing_check(p, key, dirs, 0);
	if (rc < 0) {
		free(dirs[0]);
		return -1;
	}
	p->decl.path = dirs[0];
	p->decl.line = p->line;
	return 0;
}

int nsconf_key_type(struct parser *p, struct nsconf *c, const char *key,
		    const char *value)
{
	(void)c;
	if (!strcasecmp(value, "bind"))
		p->decl.type = NSCONF_DIR_BIND;
	else if (!strcasecmp(value, "tmpfs"))
		p->decl.type = NSCONF_DIR_TMPFS;
	else
		return nsconf_error(p, "%s: invalid type \"%s\" (use bind or "
				   "tmpfs)", key, value);
	p->decl.type_set = true;
	return 0;
}

int nsconf_key_size(struct parser *p, struct nsconf *c, const char *key,
		    const char *value)
{
	(void)c;
	if (nsconf_tmpfs_size_set(p, &p->decl.size, &p->decl.size_percent,
				  key, value) < 0)
		return -1;
	if (!p->decl.size && !p->decl.size_percent)
		return nsconf_error(p, "%s: a size of 0 is not allowed (leave "
				   "Size out for tmpfs's default)", key);
	return 0;
}

/* One entry of Options, its bit added to the declaration's. */
static int option_add(struct parser *p, const char *key, const char *item,
		      void *arg)
{
	(void)arg;
	for (size_t i = 0; i < N_OPTIONS; i++) {
		if (!strcasecmp(item, option_names[i].name)) {
			p->decl.options |= option_names[i].bit;
			return 0;
		}
	}
	return nsconf_error(p, "%s: unknown option \"%s\" (use noexec, "
			   "nosuid, nodev or ro)", key, item);
}

int nsconf_key_options(struct parser *p, struct nsconf *c, const char *key,
		       const char *value)
{
	(void)c;
	return nsconf_list_each(p, key, value, option_add, NULL);
}

/*
 * Source=: an absolute, normal path template, out of the directories
 * every user may write to (a user could make its variable part first),
 * with a fixed directory before the first '%' (root creates what follows,
 * never the top of the tree).
 */
int nsconf_key_source(struct parser *p, struct nsconf *c, const char *key,
		      const char *value)
{
	int fixed, job;

	(void)c;
	if (nsconf_dir_spelling_check(p, key, value) < 0 ||
	    nsconf_source_escapes_check(p, key, value) < 0)
		return -1;
	if (!(p->decl.source = nsconf_path_normalize(p, key, value)))
		return -1;
	for (int i = 0; shared_dirs[i]; i++) {
		if (nsconf_path_within(p->decl.source, shared_dirs[i]))
			return nsconf_error(p, "%s: \"%s\" is in %s, which "
					   "every user can write to", key,
					   value, shared_dirs[i]);
	}
	nsconf_source_depths(p->decl.source, &fixed, &job);
	if (strchr(value, '%') && !fixed)
		return nsconf_error(p, "%s: \"%s\" needs a fixed directory "
				   "before the first %%", key, value);
	return 0;
}

/* Check the Dir line in p->decl as a whole; p->line is set to its line. */
static int decl_check(struct parser *p)
{
	struct dir_decl *d = &p->decl;

	p->line = d->line;
	if (d->type_set && d->type == NSCONF_DIR_BIND &&
	    (d->size || d->size_percent))
		return nsconf_error(p, "Dir=%s: Size is only for Type=tmpfs",
				   d->path);
	if (d->type_set && d->type == NSCONF_DIR_TMPFS && d->source)
		return nsconf_error(p, "Dir=%s: Source is only for Type=bind",
				   d->path);
	if ((d->size || d->size_percent) && d->source)
		return nsconf_error(p, "Dir=%s: Size (a tmpfs) and Source (a "
				   "bind) exclude each other", d->path);
	if ((d->options & NSCONF_OPT_RO) && !d->source)
		return nsconf_error(p, "Dir=%s: Options=ro needs Source= (an "
				   "empty directory that nobody can write to "
				   "is of no use)", d->path);
	if (d->source && nsconf_path_within(d->source, d->path))
		return nsconf_error(p, "Dir=%s: Source \"%s\" is in the "
				   "private directory itself", d->path,
				   d->source);
	return 0;
}

/*
 * File the Dir line in p->decl: a global line, or (pass 1) a NodeName
 * line, each at most once per path and scope; on pass 2 a NodeName line
 * of this node, which replaces an earlier one for the same path.
 */
int nsconf_decl_file(struct parser *p, bool scoped)
{
	struct dir_decl *d = &p->decl, *old;
	struct decl_list *l;

	if (decl_check(p) < 0)
		return -1;
	if (p->pass2) {
		l = &p->node;
		if ((old = nsconf_decl_find(l, d->path))) {
			nsconf_decl_clear(old);
			*old = *d;
			memset(d, 0, sizeof(*d));
			return 0;
		}
		return decl_push(l, d);
	}
	l = scoped ? &p->scoped : &p->global;
	if (scoped && !(d->scope = strdup(p->scope)))
		return -1;
	for (size_t i = 0; i < l->n; i++) {
		if (strcmp(l->v[i].path, d->path) ||
		    (scoped && strcasecmp(l->v[i].scope, d->scope)))
			continue;
		return nsconf_error(p, "Dir=%s is declared twice%s%s (first "
				   "on line %d)", d->path,
				   scoped ? " for NodeName=" : "",
				   scoped ? d->scope : "", l->v[i].line);
	}
	return decl_push(l, d);
}
