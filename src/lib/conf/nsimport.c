/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsimport.c - namespace.yaml into job_container.conf.  See nsimport.h.
 *
 * The mapping follows namespace.yaml(5) of Slurm 26.05: "defaults" becomes
 * global lines, each "node_confs" element a NodeName line (its "nodes"
 * joined into one hostlist), each "dir_confs" element a Dir line.  A key
 * with no devns equivalent becomes a comment "# not carried over: ..."
 * that names it, its line and why, so that an admin reads every loss.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dev/cdidoc.h"
#include "conf/nsimport.h"

struct conv {
	FILE *out;
	const char *name;
	struct report *rep;
	bool failed;
};

/* One set of options (defaults, or one node_confs element) being built. */
struct optset {
	const char *nodes;	/* NodeName value, NULL: the global lines */
	const char *base;	/* base_path that applies, NULL: none */
	char *keys;		/* the Key=Value pairs */
	size_t keys_len;
	FILE *kf;
	char *dirs;		/* the Dir lines */
	size_t dirs_len;
	FILE *df;
};

__attribute__((format(printf, 3, 4)))
static int fail(struct conv *cv, int line, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = cdidoc_vfail(cv->rep, cv->name, line, &cv->failed, fmt, ap);
	va_end(ap);
	return rc;
}

/*
 * Writes "# not carried over: ..." with control characters made '?':
 * job_container.conf refuses them even in comments, and a value could
 * hold one through a double-quoted escape.
 */
__attribute__((format(printf, 3, 4)))
static void skipped(struct conv *cv, int line, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (char *s = msg; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
	fprintf(cv->out, "# not carried over: %s (%s:%d)\n", msg, cv->name,
		line);
}

/*
 * Whether job_container.conf can hold value: no control character, no
 * double quote (there is no escape inside quotes), no trailing backslash
 * (a continuation), not empty.
 */
static bool value_ok(const char *value)
{
	size_t len = strlen(value);

	if (!len || value[len - 1] == '\\')
		return false;
	for (const char *s = value; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f || *s == '"')
			return false;
	return true;
}

/* Key=Value to set, double-quoted where it holds white space or '#'. */
static void put(struct optset *o, const char *key, const char *value)
{
	bool quote = strpbrk(value, " \t#") != NULL;

	fprintf(o->kf, o->nodes ? " %s=%s%s%s" : "%s=%s%s%s\n", key,
		quote ? "\"" : "", value, quote ? "\"" : "");
}

/*
 * The scalar of node as a devns value, or NULL after a comment or an
 * error (a mapping or sequence where namespace/linux wants a scalar).
 */
static const char *scalar(struct conv *cv, const struct cdinode *node,
			  const char *where)
{
	if (node->type == CDINODE_NULL) {
		skipped(cv, node->line, "%s%s: no value", where, node->key);
		return NULL;
	}
	if (node->type != CDINODE_SCALAR) {
		fail(cv, node->line, "%s%s: a single value is expected", where,
		     node->key);
		return NULL;
	}
	if (!value_ok(node->str)) {
		skipped(cv, node->line, "%s%s: its value holds a double quote, a control character or a trailing backslash, which job_container.conf cannot hold",
			where, node->key);
		return NULL;
	}
	return node->str;
}

static void put_bool(struct conv *cv, struct optset *o, const char *key,
		     const struct cdinode *node, const char *where)
{
	const char *v = scalar(cv, node, where);

	if (!v)
		return;
	if (!strcasecmp(v, "true") || !strcasecmp(v, "yes"))
		put(o, key, "yes");
	else if (!strcasecmp(v, "false") || !strcasecmp(v, "no"))
		put(o, key, "no");
	else
		skipped(cv, node->line, "%s%s: \"%s\" is not true or false",
			where, node->key, v);
}

static void put_seconds(struct conv *cv, struct optset *o, const char *key,
			const struct cdinode *node, const char *where)
{
	const char *v = scalar(cv, node, where);

	if (!v)
		return;
	if (strspn(v, "0123456789") != strlen(v) || strlen(v) > 9)
		skipped(cv, node->line, "%s%s: \"%s\" is not a number of seconds",
			where, node->key, v);
	else
		put(o, key, v);
}

/* clone_ns_flags: CLONE_NEWPID and CLONE_NEWUSER, each on or off. */
static int clone_flags(struct conv *cv, struct optset *o,
		       const struct cdinode *node, const char *where)
{
	bool pid = false, user = false;

	if (node->type != CDINODE_SEQ && node->type != CDINODE_NULL)
		return fail(cv, node->line, "%sclone_ns_flags: a list is expected",
			    where);
	for (size_t i = 0; i < node->count; i++) {
		const struct cdinode *f = &node->kids[i];

		if (f->type != CDINODE_SCALAR)
			return fail(cv, f->line, "%sclone_ns_flags: a flag name is expected",
				    where);
		if (!strcmp(f->str, "CLONE_NEWPID"))
			pid = true;
		else if (!strcmp(f->str, "CLONE_NEWUSER"))
			user = true;
		else if (strcmp(f->str, "CLONE_NEWNS"))
			skipped(cv, f->line, "%sclone_ns_flags: unknown flag (only CLONE_NEWPID, CLONE_NEWUSER and CLONE_NEWNS exist)",
				where);
	}
	/* both, always: a node's list replaces the defaults' as a whole */
	put(o, "PidNamespace", pid ? "yes" : "no");
	put(o, "UserNamespace", user ? "yes" : "no");
	return 0;
}

/* dirs: "/tmp,/dev/shm" or a YAML list of paths. */
static int dirs_list(struct conv *cv, struct optset *o,
		     const struct cdinode *node, const char *where)
{
	char *list = NULL;
	size_t len = 0;
	FILE *f;
	const char *v;

	if (node->type != CDINODE_SEQ) {
		if ((v = scalar(cv, node, where)))
			put(o, "Dirs", v);
		return cv->failed ? -1 : 0;
	}
	if (!(f = open_memstream(&list, &len)))
		return -1;
	for (size_t i = 0; i < node->count; i++) {
		const struct cdinode *d = &node->kids[i];

		if (d->type != CDINODE_SCALAR || !value_ok(d->str) ||
		    strchr(d->str, ',')) {
			fclose(f);
			free(list);
			return fail(cv, d->line, "%sdirs: a path is expected",
				    where);
		}
		fprintf(f, "%s%s", i ? "," : "", d->str);
	}
	if (fclose(f) != 0) {
		free(list);
		return -1;
	}
	if (len)
		put(o, "Dirs", list);
	free(list);
	return 0;
}

/*
 * The mount options of one dir_confs element, devns's and Size=, to f.
 * Returns how many were written.
 */
static int dir_options(struct conv *cv, FILE *f, const char *path,
		       const struct cdinode *node, bool tmpfs, bool source)
{
	char *copy, *item, *save = NULL;
	const char *v = scalar(cv, node, "dir_confs ");
	bool first = true;
	int n = 0;

	if (!v || !(copy = strdup(v)))
		return 0;
	for (item = strtok_r(copy, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		if (!strcmp(item, "noexec") || !strcmp(item, "nosuid") ||
		    !strcmp(item, "nodev") || (!strcmp(item, "ro") && source)) {
			fprintf(f, "%s%s", first ? " Options=" : ",", item);
			first = false;
			n++;
		}
	}
	free(copy);
	if (!(copy = strdup(v)))
		return n;
	for (item = strtok_r(copy, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		if (!strcmp(item, "noexec") || !strcmp(item, "nosuid") ||
		    !strcmp(item, "nodev") || (!strcmp(item, "ro") && source))
			continue;
		if (!strncmp(item, "size=", 5) && tmpfs && item[5]) {
			fprintf(f, " Size=%s", item + 5);
			n++;
		} else if (!strncmp(item, "size=", 5))
			skipped(cv, node->line, "dir_confs %s options: %s: a bind mount has no size (namespace/linux ignores it too)",
				path, item);
		else if (!strcmp(item, "ro"))
			skipped(cv, node->line, "dir_confs %s options: ro: devns mounts ro only over a Source= directory (a dir_confs base_path), since a per-job directory nobody can write to is of no use",
				path);
		else if (!strncmp(item, "mode=", 5))
			skipped(cv, node->line, "dir_confs %s options: %s: devns's private directories are always mode 1777",
				path, item);
		else
			skipped(cv, node->line, "dir_confs %s options: %s: devns supports only noexec, nosuid, nodev, ro and size",
				path, item);
	}
	free(copy);
	return n;
}

/*
 * A dir_confs element's own base_path, under which namespace/linux makes
 * the job's directory: Source=BASE/%j does the same in devns (made at
 * the job's start, removed at its end).  devns expands only %n of
 * base_path's %h and %n there.  Returns 1 when written, else 0.
 */
static int dir_source(struct conv *cv, const struct optset *o, FILE *f,
		      const char *path, const struct cdinode *node)
{
	const char *v = scalar(cv, node, "dir_confs ");
	const char *pct;

	/* BasePath itself: devns's own job directory, no Source needed */
	if (!v || (o->base && !strcmp(v, o->base)))
		return 0;
	for (pct = strchr(v, '%'); pct && pct[1] == 'n';
	     pct = strchr(pct + 2, '%'))
		;
	if (v[0] != '/' || strpbrk(v, " \t#,") || pct) {
		skipped(cv, node->line, "dir_confs %s base_path: \"%s\" is not an absolute path devns can use in Source= (no white space, comma, '#' or %% but %%n)",
			path, v);
		return 0;
	}
	fprintf(f, " Source=%s%s%%j", v, v[strlen(v) - 1] == '/' ? "" : "/");
	return 1;
}

/*
 * One dir_confs element into a Dir line (when it says more than the
 * path) and its path into *dirs.  Returns 0, or -1 after an error.
 */
static int dir_conf(struct conv *cv, struct optset *o,
		    const struct cdinode *e, FILE *dirs, bool *any)
{
	const struct cdinode *p = cdidoc_get(e, "path");
	const struct cdinode *t = cdidoc_get(e, "tmpfs");
	const struct cdinode *opt = cdidoc_get(e, "options");
	const struct cdinode *b = cdidoc_get(e, "base_path");
	bool tmpfs = false, shm;
	int source = 0;
	const char *path;
	char *line = NULL;
	size_t len = 0;
	int extra = 0;
	FILE *lf;

	if (e->type != CDINODE_MAP)
		return fail(cv, e->line, "dir_confs: each element is a mapping with a path");
	if (!p)
		return fail(cv, e->line, "dir_confs: an element has no path");
	if (!(path = scalar(cv, p, "dir_confs ")))
		return cv->failed ? -1 : 0;
	for (const char *pct = strchr(path, '%'); pct;
	     pct = strchr(pct + 2, '%')) {
		if (pct[1] && strchr("jSun%", pct[1]))
			continue;
		skipped(cv, p->line, "dir_confs path \"%s\": devns expands only %%j, %%S, %%u, %%n and %%%% in a mount point, so this directory is not private",
			path);
		return 0;
	}
	if (strpbrk(path, ", \t#")) {
		skipped(cv, p->line, "dir_confs path \"%s\": devns mount points hold no comma, white space or '#'",
			path);
		return 0;
	}
	if (t) {
		const char *v = scalar(cv, t, "dir_confs ");

		if (!v)
			return cv->failed ? -1 : 0;
		tmpfs = !strcasecmp(v, "true") || !strcasecmp(v, "yes");
		if (!tmpfs && strcasecmp(v, "false") && strcasecmp(v, "no"))
			skipped(cv, t->line, "dir_confs %s tmpfs: \"%s\" is not true or false",
				path, v);
	}
	fprintf(dirs, "%s%s", *any ? "," : "", path);
	*any = true;
	/* /dev/shm is a fresh tmpfs in both plugins, whatever "tmpfs" says */
	shm = !strcmp(path, "/dev/shm");
	if (!(lf = open_memstream(&line, &len)))
		return -1;
	if (tmpfs && !shm) {
		fputs(" Type=tmpfs", lf);
		extra++;
	}
	tmpfs = tmpfs || shm;
	if (b && tmpfs)
		skipped(cv, b->line, "dir_confs %s base_path: ignored with tmpfs, by namespace/linux too",
			path);
	else if (b)
		source = dir_source(cv, o, lf, path, b);
	extra += source;
	if (opt)
		extra += dir_options(cv, lf, path, opt, tmpfs, source);
	for (size_t i = 0; i < e->count; i++) {
		const struct cdinode *k = &e->kids[i];

		if (strcmp(k->key, "path") && strcmp(k->key, "tmpfs") &&
		    strcmp(k->key, "options") && strcmp(k->key, "base_path"))
			skipped(cv, k->line, "dir_confs %s: unknown key \"%s\"",
				path, k->key);
	}
	if (fclose(lf) != 0) {
		free(line);
		return -1;
	}
	/* a Dir line that names only the path adds nothing to Dirs */
	if (extra && o->nodes)
		fprintf(o->df, "NodeName=%s Dir=%s%s\n", o->nodes, path, line);
	else if (extra)
		fprintf(o->df, "Dir=%s%s\n", path, line);
	free(line);
	return 0;
}

static int dir_confs(struct conv *cv, struct optset *o,
		     const struct cdinode *node)
{
	char *list = NULL;
	size_t len = 0;
	bool any = false;
	FILE *f;
	int rc = 0;

	if (node->type != CDINODE_SEQ)
		return fail(cv, node->line, "dir_confs: a list is expected");
	if (!(f = open_memstream(&list, &len)))
		return -1;
	for (size_t i = 0; rc == 0 && i < node->count; i++)
		rc = dir_conf(cv, o, &node->kids[i], f, &any);
	if (fclose(f) != 0)
		rc = -1;
	if (rc == 0 && any)
		put(o, "Dirs", list);
	else if (rc == 0)
		skipped(cv, node->line, "dir_confs: no directory carries over; devns's default, /tmp,/dev/shm, applies");
	free(list);
	return rc;
}

/* One options mapping (defaults:, or a node_confs element's options:). */
static int options(struct conv *cv, const struct cdinode *map,
		   const char *nodes, const char *base)
{
	static const struct { const char *yaml, *conf; } paths[] = {
		{ "base_path", "BasePath" },
		{ "init_script", "InitScript" },
		{ "clone_ns_script", "CloneNSScript" },
		{ "clone_ns_epilog", "CloneNSEpilog" },
		{ "user_ns_script", "UserNsScript" },
	};
	bool have_dir_confs = cdidoc_get(map, "dir_confs") != NULL;
	struct optset o = { .nodes = nodes, .base = base };
	const struct cdinode *b;
	int rc = -1;

	if (map->type == CDINODE_NULL)
		return 0;
	if (map->type != CDINODE_MAP)
		return fail(cv, map->line, "%s: a mapping is expected",
			    map->key);
	if ((b = cdidoc_get(map, "base_path")) && b->type == CDINODE_SCALAR)
		o.base = b->str;
	if (!(o.kf = open_memstream(&o.keys, &o.keys_len)) ||
	    !(o.df = open_memstream(&o.dirs, &o.dirs_len)))
		goto error;
	for (size_t i = 0; i < map->count; i++) {
		const struct cdinode *k = &map->kids[i];
		const char *v;
		size_t j;

		for (j = 0; j < sizeof(paths) / sizeof(*paths); j++)
			if (!strcmp(k->key, paths[j].yaml))
				break;
		if (j < sizeof(paths) / sizeof(*paths)) {
			if ((v = scalar(cv, k, "")))
				put(&o, paths[j].conf, v);
		} else if (!strcmp(k->key, "auto_base_path")) {
			put_bool(cv, &o, "AutoBasePath", k, "");
		} else if (!strcmp(k->key, "shared")) {
			put_bool(cv, &o, "Shared", k, "");
		} else if (!strcmp(k->key, "clone_ns_script_wait")) {
			put_seconds(cv, &o, "CloneNSScript_Wait", k, "");
		} else if (!strcmp(k->key, "clone_ns_epilog_wait")) {
			put_seconds(cv, &o, "CloneNSEpilog_Wait", k, "");
		} else if (!strcmp(k->key, "clone_ns_flags")) {
			if (clone_flags(cv, &o, k, "") < 0)
				goto error;
		} else if (!strcmp(k->key, "dirs") && have_dir_confs) {
			skipped(cv, k->line, "dirs: dir_confs takes precedence, as in namespace/linux");
		} else if (!strcmp(k->key, "dirs")) {
			if (dirs_list(cv, &o, k, "") < 0)
				goto error;
		} else if (!strcmp(k->key, "dir_confs")) {
			if (dir_confs(cv, &o, k) < 0)
				goto error;
		} else {
			skipped(cv, k->line, "unknown key \"%s\"", k->key);
		}
		if (cv->failed)
			goto error;
	}
	if (fclose(o.kf) != 0 || fclose(o.df) != 0) {
		o.kf = o.df = NULL;
		goto error;
	}
	o.kf = o.df = NULL;
	if (nodes && o.keys_len)
		fprintf(cv->out, "NodeName=%s%s\n", nodes, o.keys);
	else if (o.keys_len)
		fputs(o.keys, cv->out);
	if (o.dirs_len)
		fputs(o.dirs, cv->out);
	rc = 0;
error:
	if (o.kf)
		fclose(o.kf);
	if (o.df)
		fclose(o.df);
	free(o.keys);
	free(o.dirs);
	return rc;
}

/* nodes: a list of hostlists (or one), joined into one NodeName value. */
static char *node_names(struct conv *cv, const struct cdinode *e)
{
	const struct cdinode *n = cdidoc_get(e, "nodes");
	char *list = NULL;
	size_t len = 0;
	FILE *f;

	if (!n) {
		fail(cv, e->line, "node_confs: an element has no nodes");
		return NULL;
	}
	if (n->type == CDINODE_SCALAR)
		return strdup(n->str);
	if (n->type != CDINODE_SEQ || !n->count) {
		fail(cv, n->line, "nodes: a list of node names is expected");
		return NULL;
	}
	if (!(f = open_memstream(&list, &len)))
		return NULL;
	for (size_t i = 0; i < n->count; i++) {
		const struct cdinode *h = &n->kids[i];

		if (h->type != CDINODE_SCALAR || !value_ok(h->str) ||
		    strpbrk(h->str, " \t#=")) {
			fail(cv, h->line, "nodes: a node name or hostlist is expected");
			fclose(f);
			free(list);
			return NULL;
		}
		fprintf(f, "%s%s", i ? "," : "", h->str);
	}
	if (fclose(f) != 0) {
		free(list);
		return NULL;
	}
	return list;
}

static int node_confs(struct conv *cv, const struct cdinode *seq,
		      const char *base)
{
	if (seq->type == CDINODE_NULL)
		return 0;
	if (seq->type != CDINODE_SEQ)
		return fail(cv, seq->line, "node_confs: a list is expected");
	for (size_t i = 0; i < seq->count; i++) {
		const struct cdinode *e = &seq->kids[i], *opts;
		char *nodes;
		int rc;

		if (e->type != CDINODE_MAP)
			return fail(cv, e->line, "node_confs: each element is a mapping with nodes and options");
		if (!(nodes = node_names(cv, e)))
			return -1;
		if (!value_ok(nodes) || strpbrk(nodes, " \t#=")) {
			free(nodes);
			return fail(cv, e->line, "nodes: a node name or hostlist is expected");
		}
		fprintf(cv->out, "\n# node_confs: %s\n", nodes);
		for (size_t j = 0; j < e->count; j++)
			if (strcmp(e->kids[j].key, "nodes") &&
			    strcmp(e->kids[j].key, "options"))
				skipped(cv, e->kids[j].line, "node_confs: unknown key \"%s\"",
					e->kids[j].key);
		rc = (opts = cdidoc_get(e, "options")) ?
		     options(cv, opts, nodes, base) : 0;
		free(nodes);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int convert(struct conv *cv, const struct cdinode *root)
{
	const struct cdinode *k;
	const char *base = NULL;

	fprintf(cv->out,
		"# job_container.conf for job_container/devns (namespace/devns),\n"
		"# made by \"devns import\" from %s.\n"
		"# In slurm.conf, replace NamespaceType=namespace/linux with devns's\n"
		"# plugin (see namespace.conf(5)); check this file with\n"
		"# \"devns check -f FILE\", then remove %s.\n",
		cv->name, NSIMPORT_YAML_NAME);
	if (root->type == CDINODE_NULL)
		return 0;
	if (root->type != CDINODE_MAP)
		return fail(cv, root->line, "a mapping (defaults, node_confs) is expected");
	for (size_t i = 0; i < root->count; i++) {
		k = &root->kids[i];
		if (!strcmp(k->key, "disable_bpf_token"))
			skipped(cv, k->line, "disable_bpf_token: devns attaches each job's device filter from root, outside the job's user namespace, so it never needs a BPF token");
		else if (strcmp(k->key, "defaults") &&
			 strcmp(k->key, "node_confs"))
			skipped(cv, k->line, "unknown key \"%s\"", k->key);
	}
	if ((k = cdidoc_get(root, "defaults"))) {
		fputs("\n# defaults\n", cv->out);
		if (options(cv, k, NULL, NULL) < 0)
			return -1;
		if ((k = cdidoc_get(k, "base_path")) &&
		    k->type == CDINODE_SCALAR)
			base = k->str;
	}
	if ((k = cdidoc_get(root, "node_confs")) &&
	    node_confs(cv, k, base) < 0)
		return -1;
	return 0;
}

char *nsimport_yaml(const char *text, const char *name, struct report *rep)
{
	struct conv cv = { .name = name, .rep = rep };
	struct cdinode *root;
	char *out = NULL;
	size_t len = 0;
	int rc, err;

	if (!value_ok(name)) {
		errno = EINVAL;
		report_error(rep, "%s", "the file's name holds a control character or double quote");
		return NULL;
	}
	if (!(root = cdidoc_parse_yaml(text, name, rep)))
		return NULL;
	if (!(cv.out = open_memstream(&out, &len))) {
		cdidoc_free(root);
		return NULL;
	}
	rc = convert(&cv, root);
	err = errno;
	cdidoc_free(root);
	if (fclose(cv.out) != 0 || rc < 0) {
		free(out);
		errno = rc < 0 ? err : ENOMEM;
		return NULL;
	}
	return out;
}
