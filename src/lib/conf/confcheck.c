/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * confcheck.c - the checks of namespace.conf against the node as it is now
 * and against slurm.conf's node names.  See confcheck.h.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf/confcheck.h"
#include "dev/devallow.h"
#include "dev/devpolicy.h"
#include "slurmconv/hostexpand.h"
#include "slurmconv/hostmatch.h"
#include "util/safepath.h"

/*
 * The most names of one NodeName value compared with slurm.conf: a value
 * with more (n[0-999999999]) is not a list of real nodes, and is skipped.
 */
#define CONFCHECK_MAX_NAMES 100000

/* The state of one run: errors are counted, every one is reported. */
struct check {
	const struct nsconf *conf;
	const struct confcheck_args *args;
	struct report *rep;
	int errors;
};

/* "FILE:LINE" of conf's line into buf[len]. */
static const char *where(const struct check *k, int line, char *buf,
			 size_t len)
{
	snprintf(buf, len, "%s:%d", k->conf->file ? k->conf->file
						  : "namespace.conf", line);
	return buf;
}

/*
 * The scripts run as root for every job (InitScript, CloneNSScript) or
 * at its end (CloneNSEpilog): missing, or not a program, every job of the
 * node would fail, or its end would not do what the site wants.
 */
static void script_check(struct check *k, const char *key, const char *path,
			 int line, const char *why)
{
	char at[PATH_MAX + 16];
	struct stat st;

	if (!path)
		return;
	where(k, line, at, sizeof(at));
	if (stat(path, &st) < 0) {
		k->errors++;
		report_error(k->rep, "%s: %s %s: %s (%s)", at, key, path,
			     strerror(errno), why);
	} else if (!S_ISREG(st.st_mode)) {
		k->errors++;
		report_error(k->rep, "%s: %s %s is not a regular file",
			     at, key, path);
	} else if (!(st.st_mode & 0111)) {
		k->errors++;
		report_error(k->rep, "%s: %s %s is not executable "
			     "(mode %04o): %s", at, key, path,
			     (unsigned)(st.st_mode & 07777), why);
	}
}

static void scripts_check(struct check *k)
{
	const struct nsconf *c = k->conf;

	const char *fail = "every job of the node would fail";

	script_check(k, "InitScript", c->init_script, c->lines.init_script,
		     fail);
	script_check(k, "CloneNSScript", c->clone_ns_script,
		     c->lines.clone_ns_script, fail);
	script_check(k, "CloneNSEpilog", c->clone_ns_epilog,
		     c->lines.clone_ns_epilog,
		     "it would fail at the end of every job");
	if (c->user_namespace)
		script_check(k, "UserNsScript", c->user_ns_script,
			     c->lines.user_ns_script, fail);
}

/*
 * The part of a Source template that must exist (the components before
 * the first one with a %, or all of them) into buf[len].
 */
static void source_fixed(const char *tmpl, char *buf, size_t len)
{
	const char *s = tmpl;
	int fixed, job;

	nsconf_source_depths(tmpl, &fixed, &job);
	for (int depth = 0; *s && depth < fixed; depth++) {
		s += strspn(s, "/");
		s += strcspn(s, "/");
	}
	snprintf(buf, len, "%.*s", (int)(s - tmpl), tmpl);
}

/* Each Source= fixed part must be a directory of the node. */
static void sources_check(struct check *k)
{
	char at[PATH_MAX + 16], fixed[PATH_MAX];
	struct stat st;

	for (size_t i = 0; k->conf->dirs && k->conf->dirs[i]; i++) {
		const struct nsconf_dir *d = &k->conf->dir_conf[i];
		const char *why;
		int rc;

		if (!d->source)
			continue;
		source_fixed(d->source, fixed, sizeof(fixed));
		if ((rc = stat(fixed, &st)) == 0 && S_ISDIR(st.st_mode))
			continue;
		why = rc == 0 ? "not a directory" : strerror(errno);
		where(k, d->line, at, sizeof(at));
		if (!k->args->strict) {
			report_warning(k->rep, "%s: Dir=%s: Source \"%s\": %s: "
				       "%s (jobs fail until it is there)", at,
				       d->path, d->source, fixed, why);
			continue;
		}
		k->errors++;
		report_error(k->rep, "%s: Dir=%s: Source \"%s\": %s: %s (every "
			     "job would fail)", at, d->path, d->source, fixed,
			     why);
	}
}

/* The line that made private directory i: its Dir line, else Dirs'. */
static int dir_line(const struct nsconf *c, size_t i)
{
	return c->dir_conf[i].line ? c->dir_conf[i].line : c->lines.dirs;
}

/*
 * The entries of the directory fd (an O_PATH fd) into *count, at most 2
 * (a mount point may be a large /home), the first's name into first[len].
 * Returns 0, or -1 with errno.
 */
static int dir_entries(int fd, size_t *count, char *first, size_t len)
{
	int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *e;
	DIR *d;

	if (dfd < 0)
		return -1;
	if (!(d = fdopendir(dfd))) {
		int saved = errno;

		close(dfd);
		errno = saved;
		return -1;
	}
	*count = 0;
	while (*count < 2 && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!(*count)++)
			snprintf(first, len, "%s", e->d_name);
	}
	closedir(d);
	return 0;
}

/* Whether path is one every user writes to (/tmp, /var/tmp, /dev/shm). */
static bool shared_dir(const char *path)
{
	static const char *const shared[] = NSCONF_SHARED_DIRS;

	for (size_t i = 0; shared[i]; i++)
		if (!strcmp(path, shared[i]))
			return true;
	return false;
}

/*
 * Each private directory is mounted over its path on the node, which
 * must be there (mntns makes no mount point: every job would fail), and
 * hides what the node keeps there from every job: a warning of devns
 * check where it holds data, but for the scratch directories every user
 * writes to, whose hiding is the point.  Opened component by component,
 * no link followed.
 */
static void mount_points_check(struct check *k)
{
	const struct nsconf *c = k->conf;
	char at[PATH_MAX + 16], first[256];

	for (size_t i = 0; c->dirs && c->dirs[i]; i++) {
		char fixed[PATH_MAX];
		const char *path = c->dirs[i];
		bool per_job = strchr(path, '%') != NULL;
		size_t count;
		int fd;

		/* Per user or job: made below its fixed part, which must be. */
		if (per_job) {
			source_fixed(path, fixed, sizeof(fixed));
			path = fixed;
		}
		where(k, dir_line(c, i), at, sizeof(at));
		if ((fd = safepath_open(path)) < 0) {
			const char *why = strerror(errno);

			if (!k->args->strict) {
				report_warning(k->rep, "%s: Dirs: the mount "
					       "point %s: %s (jobs fail until "
					       "it is there)", at, path, why);
				continue;
			}
			k->errors++;
			report_error(k->rep, "%s: Dirs: the mount point %s: %s "
				     "(every job would fail)", at, path, why);
			continue;
		}
		/* Not in each slurmstepd: a readdir per job, an automount. */
		if (k->args->strict && !shared_dir(path) && !per_job &&
		    dir_entries(fd, &count, first, sizeof(first)) == 0 &&
		    count)
			report_warning(k->rep, "%s: Dirs: %s holds data on this "
				       "node (\"%s\"%s): every job gets an "
				       "empty private %s that hides it", at,
				       path, first, count > 1 ? ", ..." : "",
				       path);
		close(fd);
	}
}

/*
 * Each KeepPaths directory that exists must be root's all the way, any
 * writable ancestor sticky (safepath_open_kept): one a user made is left
 * out of every job.  An error of devns check, a warning of slurmd (a
 * user who made /tmp/nvidia-mps first must not keep slurmd from
 * starting); one missing is fine (its daemon may start later).
 */
static void keep_paths_check(struct check *k)
{
	const struct nsconf *c = k->conf;
	char at[PATH_MAX + 16];
	struct report why;
	int fd;

	for (size_t i = 0; c->keep_paths && c->keep_paths[i]; i++) {
		report_init(&why, NULL, NULL);
		if ((fd = safepath_open_kept(c->keep_paths[i], &why)) >= 0) {
			close(fd);
			continue;
		}
		if (errno == ENOENT)
			continue;
		where(k, c->lines.keep_paths, at, sizeof(at));
		if (!k->args->strict) {
			report_warning(k->rep, "%s: KeepPaths: %s is left out "
				       "of every job: %s", at,
				       c->keep_paths[i], why.msg);
			continue;
		}
		k->errors++;
		report_error(k->rep, "%s: KeepPaths: %s cannot be trusted: %s "
			     "(jobs do not get it)", at, c->keep_paths[i],
			     why.msg);
	}
}

/* Each DeviceAllow glob or class of the node must match something. */
static int devices_check(struct check *k)
{
	char at[PATH_MAX + 16];

	for (size_t i = 0; i < k->conf->allow_count; i++) {
		where(k, k->conf->allow[i].line, at, sizeof(at));
		if (devallow_check_patterns(&k->conf->allow[i].entries, at,
					     k->args->proc_devices,
					     k->rep) == 0)
			continue;
		if (errno == ENOMEM)
			return -1;
		k->errors++;
	}
	return 0;
}

/* One NodeName value's names against slurm.conf's. */
struct names {
	const char *const *slurm;
	size_t count;		/* names of the value */
	size_t cased;		/* those slurm.conf has in another case only */
	char first[1024];	/* the first of them */
	const char *hit;	/* and the slurm.conf value that has it */
	size_t unknown;		/* those slurm.conf has in no case */
	char first_unknown[1024];
};

/* A copy of s in lower case into buf[len]. */
static const char *lower(const char *s, char *buf, size_t len)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < len; i++)
		buf[i] = (char)tolower((unsigned char)s[i]);
	buf[i] = '\0';
	return buf;
}

static int name_count(const char *name, void *arg)
{
	(void)name;
	((struct names *)arg)->count++;
	return 0;
}

/*
 * Note a name of the value that no slurm.conf node has, but one has in
 * another case: Slurm never calls the node so.
 */
static int name_check(const char *name, void *arg)
{
	struct names *n = arg;
	char lname[1024], lexpr[4096];
	const char *hit = NULL;

	for (size_t i = 0; n->slurm[i]; i++) {
		int rc = hostmatch_match(n->slurm[i], name);

		if (rc < 0 && errno == ENOMEM)
			return -1;
		if (rc == 1)
			return 0;
		if (!hit && hostmatch_match(lower(n->slurm[i], lexpr,
						  sizeof(lexpr)),
					    lower(name, lname,
						  sizeof(lname))) == 1)
			hit = n->slurm[i];
	}
	if (hit && !n->cased++) {
		snprintf(n->first, sizeof(n->first), "%s", name);
		n->hit = hit;
	}
	if (!hit && !n->unknown++)
		snprintf(n->first_unknown, sizeof(n->first_unknown), "%s",
			 name);
	return 0;
}

/*
 * slurm.conf's NodeName values for a message, joined by ",", cut short
 * (static storage: one message at a time).
 */
static const char *slurm_names(const struct check *k)
{
	static char buf[256];
	const char *const *v = k->args->slurm_nodes;
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; v[i] && n < sizeof(buf); i++) {
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s",
				      i ? "," : "", v[i]);
		if (n >= sizeof(buf) - 1 && sizeof(buf) > 4)
			memcpy(buf + sizeof(buf) - 4, "...", 4);
	}
	return buf;
}

/* One NodeName value: an error when names of it differ only by case. */
static int scope_check(struct check *k, const struct nsconf_scope *s)
{
	struct names n = { .slurm = k->args->slurm_nodes };
	char at[PATH_MAX + 16], more[64] = "";

	/* E2BIG: too many to be real nodes; EINVAL: cannot be. */
	if (hostexpand(s->hostlist, CONFCHECK_MAX_NAMES, name_count, &n) < 0 ||
	    hostexpand(s->hostlist, CONFCHECK_MAX_NAMES, name_check, &n) < 0)
		return errno == ENOMEM ? -1 : 0;
	where(k, s->line, at, sizeof(at));
	if (n.cased) {
		if (n.cased > 1)
			snprintf(more, sizeof(more), " (and %zu more)",
				 n.cased - 1);
		k->errors++;
		report_error(k->rep, "%s: NodeName=%s: %s%s is no node of "
			     "slurm.conf, whose NodeName=%s has it in another "
			     "case (node names are case-sensitive: the line "
			     "applies to no such node)", at, s->hostlist,
			     n.first, more, n.hit);
	}
	if (!n.unknown)
		return 0;
	more[0] = '\0';
	if (n.unknown > 1)
		snprintf(more, sizeof(more), " (and %zu more)", n.unknown - 1);
	/* None of its names is a node: the line is dead, surely a typo. */
	if (n.unknown + n.cased == n.count) {
		k->errors++;
		report_error(k->rep, "%s: NodeName=%s matches no node of "
			     "slurm.conf (%s%s is none; slurm.conf names %s): "
			     "the line applies to no node", at, s->hostlist,
			     n.first_unknown, more, slurm_names(k));
		return 0;
	}
	report_warning(k->rep, "%s: NodeName=%s: %s%s is no node of "
		       "slurm.conf (the line applies to its other nodes)", at,
		       s->hostlist, n.first_unknown, more);
	return 0;
}

/* Every NodeName value of the file against slurm.conf's node names. */
static int node_names_check(struct check *k)
{
	for (size_t i = 0; i < k->conf->scope_count; i++) {
		if (scope_check(k, &k->conf->scopes[i]) < 0)
			return -1;
	}
	return 0;
}

int confcheck_run(const struct nsconf *conf, const struct confcheck_args *args,
		struct report *rep)
{
	struct check k = { .conf = conf, .args = args, .rep = rep };

	if (!args->elsewhere) {
		scripts_check(&k);
		sources_check(&k);
		mount_points_check(&k);
		keep_paths_check(&k);
		if (args->strict && devices_check(&k) < 0)
			goto nomem;
	}
	if (args->slurm_nodes && args->slurm_nodes[0] &&
	    node_names_check(&k) < 0)
		goto nomem;
	if (!k.errors)
		return 0;
	errno = EINVAL;
	return -1;
nomem:
	return report_errno(rep, ENOMEM, "checking %s", conf->file);
}
