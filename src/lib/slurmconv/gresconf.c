/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gresconf.c - a node's GRES device files from gres.conf, and a job's
 * share of them from a GRES SPEC.  See gresconf.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "slurmconv/gresidx.h"
#include "slurmconv/confread.h"
#include "slurmconv/hostexpand.h"
#include "slurmconv/hostmatch.h"
#include "slurmconv/gresconf.h"

#define GRESCONF_MAX_SIZE (4 * 1024 * 1024)
/* More files than any node has: a range gone wrong. */
#define GRESCONF_MAX_FILES 4096

void gresconf_free(struct gresconf *g)
{
	for (size_t i = 0; i < g->count; i++) {
		free(g->devs[i].name);
		free(g->devs[i].type);
		free(g->devs[i].path);
	}
	free(g->devs);
	memset(g, 0, sizeof(*g));
}

void gresconf_files_free(char **files)
{
	for (size_t i = 0; files && files[i]; i++)
		free(files[i]);
	free(files);
}

/* ---- lists -------------------------------------------------------------- */

/*
 * Calls fn on each item of text, cut in place at the commas outside
 * open/close pairs ("a[1,2],b" with [ ]: "a[1,2]" and "b").  Returns 0,
 * fn's -1, or -1 with EINVAL for an empty item.
 */
static int items_each(char *text, char open, char close,
		      int (*fn)(char *item, void *arg), void *arg)
{
	char *s = text, *start = text;
	int depth = 0;

	for (;; s++) {
		if (*s == open) {
			depth++;
		} else if (*s == close) {
			depth--;
		} else if ((*s == ',' && !depth) || !*s) {
			char end = *s;

			*s = '\0';
			if (!*start) {
				errno = EINVAL;
				return -1;
			}
			if (fn(start, arg) < 0)
				return -1;
			if (!end)
				return 0;
			start = s + 1;
		}
	}
}

/* ---- gres.conf ---------------------------------------------------------- */

/* What one gres.conf line says. */
struct gres_line {
	const char *nodename, *name, *type, *file;
	bool multiple;		/* file came from MultipleFiles= */
	bool autodetect;	/* AutoDetect= other than off */
	struct gresconf *g;
	unsigned index;		/* the next index of name */
};

/* The next free index of name: one past the highest given so far. */
static unsigned next_index(const struct gresconf *g, const char *name)
{
	unsigned next = 0;

	for (size_t i = 0; i < g->count; i++)
		if (!strcmp(g->devs[i].name, name) && g->devs[i].index >= next)
			next = g->devs[i].index + 1;
	return next;
}

static int dev_add(const char *path, void *arg)
{
	struct gres_line *l = arg;
	struct gresconf *g = l->g;
	struct gresconf_dev *d;

	if (g->count == g->alloc) {
		size_t alloc = g->alloc ? g->alloc * 2 : 16;
		struct gresconf_dev *devs = realloc(g->devs,
						    alloc * sizeof(*devs));

		if (!devs)
			return -1;
		g->devs = devs;
		g->alloc = alloc;
	}
	d = &g->devs[g->count];
	d->name = strdup(l->name);
	d->type = strdup(l->type ? l->type : "");
	d->path = strdup(path);
	d->index = l->multiple ? l->index : l->index++;
	g->count++;
	if (!d->name || !d->type || !d->path)
		return -1;
	return 0;
}

/* Applies one logical line; -1 with errno and rep. */
static int line_apply(struct confread *r, const char *path, const char *node,
		      struct gresconf *g, struct report *rep)
{
	struct gres_line l = { .g = g };
	struct confpair p;
	char err[256];
	int rc, line = r->line;

	while ((rc = confread_pair(r, &p, err, sizeof(err))) == 1) {
		line = p.line;
		if (!strcasecmp(p.key, "NodeName"))
			l.nodename = p.value;
		else if (!strcasecmp(p.key, "Name"))
			l.name = p.value;
		else if (!strcasecmp(p.key, "Type"))
			l.type = p.value;
		else if (!strcasecmp(p.key, "File"))
			l.file = p.value;
		else if (!strcasecmp(p.key, "MultipleFiles"))
			l.file = p.value, l.multiple = true;
		else if (!strcasecmp(p.key, "AutoDetect"))
			l.autodetect = strcasecmp(p.value, "off") != 0;
	}
	if (rc < 0)
		return report_error(rep, "%s:%d: %s", path, p.line, err);
	if (l.nodename && (rc = hostmatch_match(l.nodename, node)) <= 0) {
		if (rc < 0)
			return report_errno(rep, errno,
					    "%s:%d: NodeName \"%s\"", path,
					    line, l.nodename);
		return 0;	/* another node's line */
	}
	g->autodetect = g->autodetect || l.autodetect;
	if (!l.file)
		return 0;	/* no device files: count-only, AutoDetect */
	if (!l.name || !*l.name || strlen(l.name) >= GRESIDX_MAX_NAME) {
		errno = EINVAL;
		return report_error(rep, "%s:%d: File= without a Name=", path,
				    line);
	}
	l.index = next_index(g, l.name);
	/* File= is in Slurm's hostlist form: "/dev/nvidia[0-3]". */
	if (hostexpand(l.file, GRESCONF_MAX_FILES, dev_add, &l) < 0)
		return report_errno(rep, errno, "%s:%d: %s \"%s\"", path, line,
				    l.multiple ? "MultipleFiles" : "File",
				    l.file);
	if (l.multiple)
		l.index++;
	return 0;
}

int gresconf_load(const char *path, const char *node, struct gresconf *g,
		  struct report *rep)
{
	struct confread r;
	char *text;
	int rc;

	memset(g, 0, sizeof(*g));
	if (!(text = confread_file(path, GRESCONF_MAX_SIZE, rep)))
		return -1;
	confread_init(&r, text);
	while ((rc = confread_line(&r)) > 0)
		if (line_apply(&r, path, node, g, rep) < 0)
			break;
	if (rc > 0)
		rc = -1;	/* a line failed, and said why */
	else if (rc < 0 && r.bad_column)
		report_error(rep, "%s:%d: control character 0x%02x in column %d",
			     path, r.line, r.bad_byte, r.bad_column);
	else if (rc < 0)
		report_errno(rep, errno, "%s", path);
	confread_free(&r);
	free(text);
	return rc < 0 ? -1 : 0;
}

int gresconf_node_files(const struct gresconf *g, const char ***files)
{
	*files = NULL;
	if (!g->count)
		return 0;
	if (!(*files = calloc(g->count + 1, sizeof(**files))))
		return -1;
	for (size_t i = 0; i < g->count; i++)
		(*files)[i] = g->devs[i].path;
	return 0;
}

/* ---- a job's SPEC -------------------------------------------------------- */

/* The job's files as they are added, and what lookups failed on. */
struct job_files {
	const struct gresconf *g;
	char **files;
	size_t count;
	struct report *rep;
};

static int file_add(struct job_files *j, const char *path)
{
	char **files = realloc(j->files, (j->count + 2) * sizeof(*files));

	if (!files)
		return -1;
	j->files = files;
	if (!(files[j->count] = strdup(path)))
		return -1;
	files[++j->count] = NULL;
	return 0;
}

/* gresidx_parse's callback: the file(s) of index of name. */
static int index_add(const char *name, unsigned index, void *arg)
{
	struct job_files *j = arg;
	bool found = false;

	for (size_t i = 0; i < j->g->count; i++) {
		const struct gresconf_dev *d = &j->g->devs[i];

		if (strcmp(d->name, name) || d->index != index)
			continue;
		found = true;
		if (file_add(j, d->path) < 0)
			return report_errno(j->rep, ENOMEM, "--gres");
	}
	if (found)
		return 0;
	errno = ENOENT;
	return report_error(j->rep, "--gres: the node has no %s with index %u in its gres.conf",
			    name, index);
}

/* "NAME[:TYPE][:COUNT]": the first COUNT devices of NAME (of TYPE). */
static int count_add(struct job_files *j, char *item)
{
	char *name = item, *type = NULL, *count = NULL, *c, *end;
	unsigned long want = 1, got = 0;

	if ((c = strchr(name, ':'))) {
		*c++ = '\0';
		if ((end = strchr(c, ':')))
			*end++ = '\0', type = c, count = end;
		else if (*c >= '0' && *c <= '9')
			count = c;
		else
			type = c;
	}
	if (count) {
		want = strtoul(count, &end, 10);
		if (*end || !*count || !want) {
			errno = EINVAL;
			return report_error(j->rep, "--gres: bad count \"%s\"",
					    count);
		}
	}
	for (unsigned idx = 0; got < want; idx++) {
		bool any = false, held = false;

		for (size_t i = 0; i < j->g->count; i++) {
			const struct gresconf_dev *d = &j->g->devs[i];

			if (strcmp(d->name, name) || d->index != idx)
				continue;
			any = true;
			if (!type || !strcmp(d->type, type))
				held = true;
		}
		if (!any && idx >= next_index(j->g, name)) {
			errno = ENOENT;
			return report_error(j->rep, "--gres: the node has %lu %s%s%s device(s) in its gres.conf, not %lu",
					    got, name, type ? ":" : "",
					    type ? type : "", want);
		}
		if (held && index_add(name, idx, j) < 0)
			return -1;
		got += held;
	}
	return 0;
}

/* One item of the SPEC. */
static int item_add(char *item, void *arg)
{
	struct job_files *j = arg;

	if (!strcmp(item, "none"))
		return 0;
	if (item[0] == '/')
		return file_add(j, item) < 0 ?
		       report_errno(j->rep, ENOMEM, "--gres") : 0;
	if (strchr(item, '(')) {
		if (gresidx_parse(item, index_add, j) == 0)
			return 0;
		if (errno == EINVAL && !j->rep->errors)
			report_error(j->rep, "--gres: malformed \"%s\" (Slurm's form is gpu:2(IDX:0,2))",
				     item);
		return -1;
	}
	return count_add(j, item);
}

int gresconf_job_files(const struct gresconf *g, const char *spec,
		       char ***files, struct report *rep)
{
	struct report own;
	struct job_files j = { .g = g, .rep = rep };
	char *copy;
	int rc;

	if (!rep) {
		report_init(&own, NULL, NULL);
		j.rep = &own;
	}
	*files = NULL;
	if (!(copy = strdup(spec)))
		return report_errno(rep, ENOMEM, "--gres");
	rc = items_each(copy, '(', ')', item_add, &j);
	free(copy);
	if (rc < 0) {
		int saved = errno;

		if (!j.rep->errors)
			report_error(j.rep, "--gres: empty item in \"%s\"",
				     spec);
		gresconf_files_free(j.files);
		errno = saved;
		return -1;
	}
	*files = j.files;
	return 0;
}
