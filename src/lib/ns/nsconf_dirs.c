/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsconf_dirs.c - Dir lines (Dir, Type, Size, Options, Source), and each
 * private directory of the node resolved from Dirs, its Dir line and the
 * TmpSize/ShmSize shorthands.  See nsconf_int.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ns/nsconf_int.h"

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
static struct dir_decl *decl_find(struct decl_list *l, const char *path)
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
	if (nsconf_size_set(p, &p->decl.size, key, value) < 0)
		return -1;
	if (!p->decl.size)
		return nsconf_error(p, "%s: a size of 0 is not allowed (leave "
				   "Size out for tmpfs's default)", key);
	return 0;
}

int nsconf_key_options(struct parser *p, struct nsconf *c, const char *key,
		       const char *value)
{
	const char *s = value;

	(void)c;
	for (;;) {
		size_t len = strcspn(s, ","), i;

		for (i = 0; i < N_OPTIONS; i++) {
			if (strlen(option_names[i].name) == len &&
			    !strncasecmp(s, option_names[i].name, len))
				break;
		}
		if (!len)
			return nsconf_error(p, "%s: empty entry in \"%s\"", key,
					   value);
		if (i == N_OPTIONS)
			return nsconf_error(p, "%s: unknown option \"%.*s\" "
					   "(use noexec, nosuid, nodev or ro)",
					   key, (int)len, s);
		p->decl.options |= option_names[i].bit;
		s += len;
		if (!*s)
			return 0;
		s++;
	}
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
	if (d->type_set && d->type == NSCONF_DIR_BIND && d->size)
		return nsconf_error(p, "Dir=%s: Size is only for Type=tmpfs",
				   d->path);
	if (d->type_set && d->type == NSCONF_DIR_TMPFS && d->source)
		return nsconf_error(p, "Dir=%s: Source is only for Type=bind",
				   d->path);
	if (d->size && d->source)
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
		if ((old = decl_find(l, d->path))) {
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

/*
 * Add the directories that Dir lines name and Dirs does not to the end of
 * conf->dirs: the global lines' first, then this node's.
 */
static int dirs_merge(struct parser *p)
{
	struct decl_list *lists[] = { &p->global, &p->node };
	size_t n = nsconf_dirs_count(p->conf->dirs);
	char **dirs;

	for (size_t l = 0; l < 2; l++) {
		for (size_t i = 0; i < lists[l]->n; i++) {
			struct dir_decl *d = &lists[l]->v[i];

			if (nsconf_dirs_have(p->conf->dirs, n, d->path))
				continue;
			p->line = d->line;
			if (n == NSCONF_MAX_DIRS)
				return nsconf_error(p, "Dir=%s: more than %d "
						   "private directories",
						   d->path, NSCONF_MAX_DIRS);
			dirs = realloc(p->conf->dirs, (n + 2) * sizeof(*dirs));
			if (!dirs)
				return -1;
			p->conf->dirs = dirs;
			dirs[n + 1] = NULL;
			if (!(dirs[n] = strdup(d->path)))
				return -1;
			if (nsconf_dir_backing_check(p, "Dir", dirs, n) < 0)
				return -1; /* dirs[n] is freed with dirs */
			n++;
		}
	}
	return 0;
}

/*
 * The settings of private directory path: its Dir line (this node's, else
 * the global one), then the TmpSize/ShmSize shorthands, then the defaults.
 */
static int dir_resolve(struct parser *p, const char *path,
		       struct nsconf_dir *nd)
{
	struct dir_decl *d = decl_find(&p->node, path);
	const char *shorthand = NULL;
	uint64_t sh_size = 0;
	int sh_line = 0;

	if (!d)
		d = decl_find(&p->global, path);
	if (!strcmp(path, "/tmp")) {
		shorthand = "TmpSize";
		sh_size = p->conf->tmp_size;
		sh_line = p->tmp_size_line;
	} else if (!strcmp(path, "/dev/shm")) {
		shorthand = "ShmSize";
		sh_size = p->conf->shm_size;
		sh_line = p->shm_size_line;
	}
	if (!(nd->path = strdup(path)))
		return -1;
	nd->options = NSCONF_OPT_ALWAYS | (d ? d->options : 0);
	nd->line = d ? d->line : 0;
	if (d && d->type_set)
		nd->type = d->type;
	else if (d && (d->size || d->source))
		nd->type = d->size ? NSCONF_DIR_TMPFS : NSCONF_DIR_BIND;
	else if (sh_size || !strcmp(path, "/dev/shm"))
		nd->type = NSCONF_DIR_TMPFS;
	else
		nd->type = NSCONF_DIR_BIND;
	p->line = nd->line;
	if (nd->type == NSCONF_DIR_BIND && sh_size)
		return nsconf_error(p, "Dir=%s: a bind mount, but %s= (line "
				   "%d) asks for a tmpfs", path, shorthand,
				   sh_line);
	if (nd->type == NSCONF_DIR_TMPFS)
		nd->size = d && d->size ? d->size : sh_size;
	if (d && d->source && !(nd->source = strdup(d->source)))
		return -1;
	return 0;
}

/*
 * A Source must lie outside every private directory (it is bound from the
 * node's tree, where another job's private directory is its own) and
 * outside BasePath (root's alone).
 */
static int source_place_check(struct parser *p, const struct nsconf_dir *nd)
{
	const char *base = p->conf->base_path;

	if (!nd->source)
		return 0;
	p->line = nd->line;
	for (size_t i = 0; p->conf->dirs[i]; i++) {
		if (nsconf_path_within(nd->source, p->conf->dirs[i]))
			return nsconf_error(p, "Dir=%s: Source \"%s\" is in %s, "
					   "a private directory", nd->path,
					   nd->source, p->conf->dirs[i]);
	}
	if (base && (nsconf_path_within(nd->source, base) ||
		     nsconf_path_within(base, nd->source)))
		return nsconf_error(p, "Dir=%s: Source \"%s\" and BasePath "
				   "\"%s\" overlap", nd->path, nd->source,
				   base);
	return 0;
}

/* Fill conf->dir_conf, one entry per conf->dirs entry. */
int nsconf_dirs_resolve(struct parser *p)
{
	size_t n;

	if (dirs_merge(p) < 0)
		return -1;
	n = nsconf_dirs_count(p->conf->dirs);
	if (!(p->conf->dir_conf = calloc(n + 1, sizeof(*p->conf->dir_conf))))
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (dir_resolve(p, p->conf->dirs[i], &p->conf->dir_conf[i]) < 0)
			return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (source_place_check(p, &p->conf->dir_conf[i]) < 0)
			return -1;
	}
	return 0;
}

const struct nsconf_dir *nsconf_dir_find(const struct nsconf *conf,
					 const char *dir)
{
	for (size_t i = 0; conf && conf->dirs && conf->dirs[i]; i++) {
		if (!strcmp(conf->dirs[i], dir))
			return &conf->dir_conf[i];
	}
	return NULL;
}
