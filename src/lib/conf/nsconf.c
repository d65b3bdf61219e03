/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsconf.c - parse namespace.conf into a struct nsconf for one node: the
 * public calls, and the checks made on the node's result, whose keys may
 * come from different lines.  The parser's parts are listed in
 * nsconf_int.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/nsconf_int.h"

static const char *const default_dirs[] = { "/tmp", "/dev/shm", NULL };

/* ---- the struct ------------------------------------------------------ */

static void dir_conf_free(struct nsconf_dir *d, size_t n)
{
	for (size_t i = 0; d && i < n; i++) {
		free(d[i].path);
		free(d[i].source);
	}
	free(d);
}

/* Free what c holds and reset it to the defaults of an empty file. */
void nsconf_clear(struct nsconf *c)
{
	dir_conf_free(c->dir_conf, nsconf_dirs_count(c->dirs));
	free(c->base_path);
	nsconf_dirs_free(c->dirs);
	free(c->init_script);
	free(c->clone_ns_script);
	free(c->user_ns_script);
	free(c->tmp_disk_gres);
	free(c->clone_ns_epilog);
	free(c->cdi_spec_dirs);
	nsconf_dirs_free(c->keep_paths);
	nsconf_allow_free(c);
	for (size_t i = 0; i < c->scope_count; i++)
		free(c->scopes[i].hostlist);
	free(c->scopes);
	free(c->file);
	free(c->text);
	memset(c, 0, sizeof(*c));
}

void nsconf_free(struct nsconf *conf)
{
	if (!conf)
		return;
	nsconf_clear(conf);
	free(conf);
}

/*
 * BasePath must not be in a private directory of the job: it would be a
 * backing directory's neighbour in a directory users write to, and hidden
 * under the job's own mount.  Checked on the result, since BasePath and
 * Dirs may come from different lines.
 */
static int base_path_dirs_check(struct parser *p)
{
	const char *base = p->conf->base_path;
	size_t i;

	for (i = 0; base && p->conf->dirs[i]; i++) {
		if (!nsconf_path_within(base, p->conf->dirs[i]))
			continue;
		p->line = p->conf->lines.base_path;
		if (i >= p->listed)
			return nsconf_error(p, "BasePath: \"%s\" is in \"%s\", "
					   "a private directory of Dir (line "
					   "%d)", base, p->conf->dirs[i],
					   p->conf->dir_conf[i].line);
		if (p->conf->lines.dirs)
			return nsconf_error(p, "BasePath: \"%s\" is in \"%s\", "
					   "a private directory of Dirs (line "
					   "%d)", base, p->conf->dirs[i],
					   p->conf->lines.dirs);
		return nsconf_error(p, "BasePath: \"%s\" is in \"%s\", a "
				   "private directory of the default Dirs",
				   base, p->conf->dirs[i]);
	}
	return 0;
}

/*
 * TmpDiskLimit limits a /tmp on BasePath's disk: it needs a BasePath, a
 * private /tmp, and that /tmp bound from BasePath/<jobid>: not a tmpfs
 * (TmpSize, a Dir line) nor a Source elsewhere.  Checked on the result,
 * since these keys may come from different lines.
 */
static int tmp_disk_limit_check(struct parser *p)
{
	const struct nsconf *c = p->conf;
	const struct nsconf_dir *tmp;
	const char *key = "TmpDiskLimit";
	size_t n = 0;

	if (!nsconf_disk_limited(c) && c->tmp_inode_limit) {
		p->line = p->conf->lines.tmp_inode_limit;
		return nsconf_error(p, "TmpInodeLimit: no TmpDiskLimit is set, "
				   "and the inode limit comes with it");
	}
	if (c->tmp_backend == NSCONF_TMP_LOOP &&
	    (c->tmp_disk_gres || c->tmp_disk_request)) {
		p->line = p->conf->lines.tmp_backend;
		return nsconf_error(p, "TmpBackend: loop sizes each job's "
				   "filesystem by a fixed TmpDiskLimit, not by "
				   "TmpDiskGres or TmpDiskLimit=request (use "
				   "TmpBackend=dir with those)");
	}
	if (!c->tmp_disk_limit && c->tmp_backend == NSCONF_TMP_LOOP) {
		p->line = p->conf->lines.tmp_backend;
		return nsconf_error(p, "TmpBackend: loop sizes each job's "
				   "filesystem by TmpDiskLimit, which is not "
				   "set");
	}
	if (!nsconf_disk_limited(c))
		return 0;
	if (c->tmp_backend == NSCONF_TMP_LOOP &&
	    c->tmp_disk_limit < NSCONF_LOOP_MIN_BYTES) {
		p->line = p->conf->lines.tmp_disk_limit;
		return nsconf_error(p, "TmpDiskLimit: below 1M, the smallest "
				   "filesystem TmpBackend=loop makes");
	}
	/* Per-job limits get their own default (mntns: of each job's size). */
	if (!c->tmp_inode_limit && !c->tmp_disk_request && !c->tmp_disk_gres)
		p->conf->tmp_inode_limit =
			nsconf_default_inodes(c->tmp_disk_limit);
	while (c->dirs[n])
		n++;
	p->line = p->conf->lines.tmp_disk_limit;
	if (!c->tmp_disk_limit && !c->tmp_disk_request) {
		key = "TmpDiskGres";
		p->line = p->conf->lines.tmp_disk_gres;
	}
	if (!c->base_path)
		return nsconf_error(p, "%s: BasePath is none (line "
				   "%d): there is no job directory on disk "
				   "to limit", key, p->conf->lines.base_path);
	if (!nsconf_dirs_have(c->dirs, n, "/tmp"))
		return nsconf_error(p, "%s: /tmp is not in Dirs, so "
				   "the job has no private /tmp to limit", key);
	tmp = nsconf_dir_find(c, "/tmp");
	/* The /tmp the node gets: a more specific line may have won. */
	if (tmp->type == NSCONF_DIR_TMPFS && tmp->shorthand_line)
		return nsconf_error(p, "%s: TmpSize (line %d) makes "
				   "/tmp a tmpfs, whose size TmpSize already "
				   "limits; set one of them", key,
				   tmp->shorthand_line);
	if (tmp->type == NSCONF_DIR_TMPFS)
		return nsconf_error(p, "%s: Dir=/tmp (line %d) makes "
				   "/tmp a tmpfs, whose Size limits it; set one "
				   "of them", key, tmp->line);
	if (tmp->source)
		return nsconf_error(p, "%s: Dir=/tmp (line %d) binds "
				   "/tmp from Source=%s, outside BasePath, "
				   "where the limit does not reach", key,
				   tmp->line, tmp->source);
	return 0;
}

/*
 * PidNamespace: the job's /proc is mounted in its mount namespace and the
 * PID namespace is pinned beside it, so it needs a BasePath.  (No private
 * directory covers /proc: nsconf_dir_system_check refuses them all.)
 */
static int pid_namespace_check(struct parser *p)
{
	const struct nsconf *c = p->conf;

	if (!c->pid_namespace)
		return 0;
	p->line = p->conf->lines.pid_namespace;
	if (!c->base_path)
		return nsconf_error(p, "PidNamespace: BasePath is none (line "
				   "%d): the job's /proc lives in its mount "
				   "namespace, which BasePath=none turns off",
				   p->conf->lines.base_path);
	return 0;
}

/*
 * UserNamespace: the namespace is pinned under BasePath like the others,
 * and joined after the mount namespace, whose owner it must not be.
 */
static int user_namespace_check(struct parser *p)
{
	const struct nsconf *c = p->conf;

	if (!c->user_namespace)
		return 0;
	p->line = c->lines.user_namespace;
	if (!c->base_path)
		return nsconf_error(p, "UserNamespace: BasePath is none (line "
				   "%d): the job's user namespace is pinned "
				   "under BasePath",
				   p->conf->lines.base_path);
	return 0;
}

/*
 * EntireStepInNS: slurmstepd lives in the job's namespace, where BasePath
 * is hidden; the pins of the PID and user namespaces and the disk limit's
 * filesystem are there, and slurmstepd needs them.
 */
static int entire_step_check(struct parser *p)
{
	const struct nsconf *c = p->conf;
	const char *key, *what;
	int line;

	if (!c->entire_step_in_ns || !c->base_path)
		return 0;
	if (c->pid_namespace) {
		key = "PidNamespace";
		line = c->lines.pid_namespace;
		what = "the PID namespace under BasePath";
	} else if (c->user_namespace) {
		key = "UserNamespace";
		line = c->lines.user_namespace;
		what = "the user namespace under BasePath";
	} else if (nsconf_disk_limited(c)) {
		key = c->tmp_disk_limit || c->tmp_disk_request
		      ? "TmpDiskLimit" : "TmpDiskGres";
		line = c->tmp_disk_limit || c->tmp_disk_request
		       ? c->lines.tmp_disk_limit : c->lines.tmp_disk_gres;
		what = "BasePath's filesystem";
	} else {
		return 0;
	}
	p->line = c->lines.entire_step_in_ns;
	return nsconf_error(p, "EntireStepInNS: %s (line %d) needs slurmstepd "
			    "outside the job's mount namespace, where it "
			    "reaches %s; set one of them", key, line, what);
}

/* NamespacePool: the pool lives under BasePath, like the namespaces. */
static int namespace_pool_check(struct parser *p)
{
	if (!p->conf->namespace_pool || p->conf->base_path)
		return 0;
	p->line = p->conf->lines.namespace_pool;
	return nsconf_error(p, "NamespacePool: BasePath is none (line %d): "
			   "there are no namespaces to copy ahead",
			   p->conf->lines.base_path);
}

/*
 * KeepPaths: each is bound into the job's private directory that holds
 * it, made there at the job's start: a private directory of the job's own
 * (a backing directory or a tmpfs), not a Source (a node directory, where
 * the mount point would be made for every job) nor one per user or job.
 */
static int keep_paths_check(struct parser *p)
{
	const struct nsconf *c = p->conf;

	for (size_t i = 0; c->keep_paths && c->keep_paths[i]; i++) {
		const char *kp = c->keep_paths[i];
		const struct nsconf_dir *in = NULL;

		for (size_t k = 0; c->dirs[k]; k++) {
			if (strcmp(kp, c->dirs[k]) &&
			    nsconf_path_within(kp, c->dirs[k]) &&
			    (!in || strlen(c->dirs[k]) > strlen(in->path)))
				in = &c->dir_conf[k];
		}
		p->line = c->lines.keep_paths;
		if (!in)
			return nsconf_error(p, "KeepPaths: \"%s\" is in no "
					    "private directory (a node path "
					    "the job sees anyway)", kp);
		if (in->source || strchr(in->path, '%'))
			return nsconf_error(p, "KeepPaths: \"%s\" is in %s, "
					    "%s", kp, in->path, in->source ?
					    "bound from its Source" :
					    "a per-user or per-job mount point");
		if (!c->base_path)
			return nsconf_error(p, "KeepPaths: BasePath is none "
					    "(line %d): the job has no private "
					    "directories", c->lines.base_path);
	}
	return 0;
}

/* The checks on the node's result, each on keys from different lines. */
static int (*const result_checks[])(struct parser *p) = {
	base_path_dirs_check,
	pid_namespace_check,
	user_namespace_check,
	namespace_pool_check,
	entire_step_check,
	tmp_disk_limit_check,
	keep_paths_check,
};

/* Fill in what no line set; BasePath must have been. */
static int conf_finish(struct parser *p)
{
	size_t i;
	int errors = 0;

	if (!(p->set & (1u << KEY_BASE_PATH))) {
		nsconf_file_error(p->name, p->rep, "BasePath is not set%s%s "
			   "(use BasePath=none for no per-job directory)",
			   p->nodename ? " for node " : "",
			   p->nodename ? p->nodename : "");
		errno = EINVAL;
		return -1;
	}
	if (!p->conf->dirs) {
		if (!(p->conf->dirs = calloc(sizeof(default_dirs)
					     / sizeof(*default_dirs),
					     sizeof(char *))))
			return -1;
		for (i = 0; default_dirs[i]; i++) {
			if (!(p->conf->dirs[i] = strdup(default_dirs[i])))
				return -1;
		}
	}
	if (!(p->set & (1u << KEY_CLONE_NS_SCRIPT_WAIT)))
		p->conf->clone_ns_script_wait = NSCONF_SCRIPT_WAIT_DEFAULT;
	if (!(p->set & (1u << KEY_CLONE_NS_EPILOG_WAIT)))
		p->conf->clone_ns_epilog_wait = NSCONF_SCRIPT_WAIT_DEFAULT;
	p->listed = nsconf_dirs_count(p->conf->dirs);
	if (nsconf_dirs_resolve(p) < 0 || nsconf_allow_join(p->conf) < 0)
		return -1;
	/* Each check of keys from different lines, every error reported. */
	for (i = 0; i < sizeof(result_checks) / sizeof(*result_checks); i++) {
		if (result_checks[i](p) == 0)
			continue;
		if (errno != EINVAL)
			return -1;
		errors++;
	}
	if (!errors)
		return 0;
	errno = EINVAL;
	return -1;
}

static void parser_free(struct parser *p)
{
	int saved = errno;

	nsconf_decl_clear(&p->decl);
	nsconf_decl_list_free(&p->global);
	nsconf_decl_list_free(&p->scoped);
	nsconf_decl_list_free(&p->node);
	nsconf_allow_read_free(p);
	errno = saved;
}

/*
 * The settings of text (named name in messages and conf->file) for the
 * node nodename whose NodeHostname is hostname, without the filesystem
 * checks.  Returns as nsconf_load_host().
 */
static struct nsconf *parse_text(const char *text, const char *name,
				 const char *nodename, const char *hostname,
				 struct report *rep)
{
	struct parser p = {
		.name = name,
		.nodename = nodename,
		.hostname = hostname,
		.rep = rep,
	};

	if (!(p.conf = calloc(1, sizeof(*p.conf))))
		goto error;
	if (nsconf_text_parse(&p, text, false) < 0 ||
	    nsconf_text_parse(&p, text, true) < 0 || conf_finish(&p) < 0)
		goto error;
	if (!(p.conf->file = strdup(p.name)))
		goto error;
	parser_free(&p);
	return p.conf;
error:
	parser_free(&p);
	if (errno == ENOMEM)
		nsconf_file_error(p.name, rep, "out of memory");
	{
		int saved = errno;

		nsconf_free(p.conf);
		errno = saved;
	}
	return NULL;
}

/*
 * Parse text (a string to free(), which the result keeps as conf->text)
 * and check the node's filesystem; frees text on failure.
 */
static struct nsconf *load_owned(char *text, const char *path,
				 const char *nodename, const char *hostname,
				 struct report *rep)
{
	struct nsconf *conf = parse_text(text, path, nodename, hostname, rep);
	int saved;

	if (conf && nsconf_paths_check(conf, rep) < 0) {
		saved = errno;
		nsconf_free(conf);
		errno = saved;
		conf = NULL;
	}
	if (!conf) {
		saved = errno;
		free(text);
		errno = saved;
		return NULL;
	}
	conf->text = text;
	return conf;
}

struct nsconf *nsconf_load_host(const char *path, const char *nodename,
				const char *hostname, struct report *rep)
{
	char *text;

	if (!path) {
		errno = EINVAL;
		nsconf_file_error("namespace.conf", rep, "no path");
		return NULL;
	}
	if (!(text = confread_file(path, NSCONF_MAX_SIZE, rep)))
		return NULL;
	return load_owned(text, path, nodename, hostname, rep);
}

struct nsconf *nsconf_load_text(const char *text, const char *path,
				const char *nodename, const char *hostname,
				struct report *rep)
{
	char *copy;

	if (!text || !path) {
		errno = EINVAL;
		nsconf_file_error(path ? path : "namespace.conf", rep,
				  "no text");
		return NULL;
	}
	if (strlen(text) > NSCONF_MAX_SIZE) {
		errno = EFBIG;
		nsconf_file_error(path, rep, "larger than %d bytes",
				  NSCONF_MAX_SIZE);
		return NULL;
	}
	if (!(copy = strdup(text))) {
		nsconf_file_error(path, rep, "out of memory");
		return NULL;
	}
	return load_owned(copy, path, nodename, hostname, rep);
}

uint64_t nsconf_default_inodes(uint64_t bytes)
{
	uint64_t n = bytes / NSCONF_INODE_RATIO;

	return n > NSCONF_INODES_MIN ? n : NSCONF_INODES_MIN;
}
