/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsconf_resolve.c - each private directory of the node, as a job gets
 * it, from Dirs, the Dir lines and the TmpSize/ShmSize shorthands.
 *
 * The more specific setting wins, for every part of a directory: a
 * NodeName line that names the node over a global line, whatever their
 * order.  So a node's Dirs lists the node's directories (a global Dir
 * line refines one it lists, but adds none), a node's ShmSize beats a
 * global "Dir=/dev/shm Size=", a node's "Dir=/tmp Type=bind" a global
 * TmpSize.  Where a Dir line and a shorthand of one kind disagree (both
 * global, or both the node's), neither is more specific: an error naming
 * both lines, never a silent choice.  See nsconf_int.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "conf/nsconf_int.h"

/* How specific a setting is: unset, on a global line, on a NodeName line. */
enum rank { RANK_NONE, RANK_GLOBAL, RANK_NODE };

/* A TmpSize or ShmSize that applies to one directory. */
struct shorthand {
	const char *name;	/* the key, NULL: no shorthand for the dir */
	uint64_t size;		/* 0: unset */
	unsigned percent;	/* N%, 0: unset */
	int line;
	enum rank rank;
};

/* The Dir line of the node for path, else the global one; and its rank. */
static const struct dir_decl *decl_of(struct parser *p, const char *path,
				      enum rank *rank)
{
	const struct dir_decl *d = nsconf_decl_find(&p->node, path);

	*rank = d ? RANK_NODE : RANK_NONE;
	if (!d && (d = nsconf_decl_find(&p->global, path)))
		*rank = RANK_GLOBAL;
	return d;
}

static void shorthand_of(const struct parser *p, const char *path,
			 struct shorthand *sh)
{
	enum key k;

	memset(sh, 0, sizeof(*sh));
	if (!strcmp(path, "/tmp")) {
		k = KEY_TMP_SIZE;
		sh->size = p->conf->tmp_size;
		sh->percent = p->conf->tmp_percent;
		sh->line = p->conf->lines.tmp_size;
	} else if (!strcmp(path, "/dev/shm")) {
		k = KEY_SHM_SIZE;
		sh->size = p->conf->shm_size;
		sh->percent = p->conf->shm_percent;
		sh->line = p->conf->lines.shm_size;
	} else {
		return;
	}
	sh->name = nsconf_keys[k].name;
	if (sh->size || sh->percent)
		sh->rank = p->node_set & (1u << k) ? RANK_NODE : RANK_GLOBAL;
}

/*
 * The type: the Dir line's (Type=, or what Size= or Source= imply)
 * against the shorthand's tmpfs; else tmpfs for /dev/shm, bind otherwise.
 */
static int type_resolve(struct parser *p, const struct dir_decl *d,
			enum rank d_rank, const struct shorthand *sh,
			struct nsconf_dir *nd)
{
	bool d_sized = d && (d->size || d->size_percent);
	bool d_says = d && (d->type_set || d_sized || d->source);
	enum nsconf_dir_type d_type = NSCONF_DIR_BIND;

	if (d_says)
		d_type = d->type_set ? d->type
			 : d_sized ? NSCONF_DIR_TMPFS : NSCONF_DIR_BIND;
	if (d_says && sh->rank && d_rank == sh->rank &&
	    d_type == NSCONF_DIR_BIND)
		return nsconf_error(p, "Dir=%s: a bind mount, but %s= (line "
				    "%d) asks for a tmpfs", nd->path, sh->name,
				    sh->line);
	if (d_says && d_rank > sh->rank)
		nd->type = d_type;
	else if (sh->rank)
		nd->type = NSCONF_DIR_TMPFS;
	else if (d_says)
		nd->type = d_type;
	else
		nd->type = strcmp(nd->path, "/dev/shm") ? NSCONF_DIR_BIND
							: NSCONF_DIR_TMPFS;
	return 0;
}

/* A tmpfs's size: the Dir line's Size= against the shorthand's. */
static int size_resolve(struct parser *p, const struct dir_decl *d,
			enum rank d_rank, const struct shorthand *sh,
			struct nsconf_dir *nd)
{
	bool d_sized = d && (d->size || d->size_percent);

	if (nd->type != NSCONF_DIR_TMPFS)
		return 0;
	if (d_sized && sh->rank && d_rank == sh->rank)
		return nsconf_error(p, "Dir=%s: Size= and %s= (line %d) both "
				    "set its size; set one of them", nd->path,
				    sh->name, sh->line);
	if (d_sized && d_rank > sh->rank) {
		nd->size = d->size;
		nd->size_percent = d->size_percent;
		return 0;
	}
	nd->size = sh->size;
	nd->size_percent = sh->percent;
	nd->shorthand_line = sh->rank ? sh->line : 0;
	return 0;
}

/*
 * Source= binds, so it goes when a more specific shorthand made the
 * directory a tmpfs; with it goes what it alone allows (Options=ro).
 */
static int source_resolve(struct parser *p, const struct dir_decl *d,
			  const struct shorthand *sh, struct nsconf_dir *nd)
{
	if (!d || !d->source)
		return 0;
	if (nd->type == NSCONF_DIR_TMPFS && (d->options & NSCONF_OPT_RO))
		return nsconf_error(p, "Dir=%s: Options=ro needs Source=, but "
				    "%s= (line %d), more specific, makes it a "
				    "tmpfs", nd->path, sh->name, sh->line);
	if (nd->type == NSCONF_DIR_TMPFS)
		return 0;
	return (nd->source = strdup(d->source)) ? 0 : -1;
}

static int dir_resolve(struct parser *p, const char *path,
		       struct nsconf_dir *nd)
{
	struct shorthand sh;
	enum rank d_rank;
	const struct dir_decl *d = decl_of(p, path, &d_rank);

	shorthand_of(p, path, &sh);
	if (!(nd->path = strdup(path)))
		return -1;
	nd->options = NSCONF_OPT_ALWAYS | (d ? d->options : 0);
	nd->line = d ? d->line : 0;
	p->line = nd->line ? nd->line : sh.line;
	if (type_resolve(p, d, d_rank, &sh, nd) < 0 ||
	    size_resolve(p, d, d_rank, &sh, nd) < 0 ||
	    source_resolve(p, d, &sh, nd) < 0)
		return -1;
	return 0;
}

/* Append path to conf->dirs as its n-th entry.  Returns 0 or -1. */
static int dirs_append(struct parser *p, const char *path, size_t n)
{
	char **dirs;

	if (n == NSCONF_MAX_DIRS)
		return nsconf_error(p, "Dir=%s: more than %d private "
				    "directories", path, NSCONF_MAX_DIRS);
	dirs = realloc(p->conf->dirs, (n + 2) * sizeof(*dirs));
	if (!dirs)
		return -1;
	p->conf->dirs = dirs;
	dirs[n + 1] = NULL;
	if (!(dirs[n] = strdup(path)))
		return -1;
	return nsconf_dir_backing_check(p, "Dir", dirs, n);
	/* on error dirs[n] is freed with dirs */
}

/*
 * Add the directories that Dir lines name and Dirs does not to the end of
 * conf->dirs: the global lines' first, then this node's.  A node's Dirs
 * is more specific than the global Dir lines: they add nothing to it.
 */
static int dirs_merge(struct parser *p)
{
	bool node_dirs = p->node_set & (1u << KEY_DIRS);
	struct decl_list *lists[] = { node_dirs ? NULL : &p->global, &p->node };
	size_t n = nsconf_dirs_count(p->conf->dirs);

	for (size_t l = 0; l < 2; l++) {
		for (size_t i = 0; lists[l] && i < lists[l]->n; i++) {
			struct dir_decl *d = &lists[l]->v[i];

			if (nsconf_dirs_have(p->conf->dirs, n, d->path))
				continue;
			p->line = d->line;
			if (dirs_append(p, d->path, n) < 0)
				return -1;
			n++;
		}
	}
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

/*
 * A per-user or per-job mount point is made on the node's tree at the
 * job's start, before the private directories cover it: neither it nor
 * another private directory may lie in the other (it would be made
 * where the job's namespace never sees it, or be hidden).
 */
static int point_place_check(struct parser *p, size_t i)
{
	char **dirs = p->conf->dirs;

	if (!strchr(dirs[i], '%'))
		return 0;
	for (size_t k = 0; dirs[k]; k++) {
		if (k == i || (!nsconf_path_within(dirs[i], dirs[k]) &&
			       !nsconf_path_within(dirs[k], dirs[i])))
			continue;
		p->line = p->conf->dir_conf[i].line ? p->conf->dir_conf[i].line
						    : p->conf->lines.dirs;
		return nsconf_error(p, "Dir=%s: a per-user or per-job mount "
				    "point, and %s, another private "
				    "directory, lie in one another", dirs[i],
				    dirs[k]);
	}
	return 0;
}

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
		if (source_place_check(p, &p->conf->dir_conf[i]) < 0 ||
		    point_place_check(p, i) < 0)
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
