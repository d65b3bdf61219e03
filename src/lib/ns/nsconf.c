/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsconf.c - parse namespace.conf into a struct nsconf for one node.
 *
 * The text is read twice.  Pass 1 checks every line (so an error anywhere
 * fails every node alike, whichever lines apply to it) and applies the
 * global lines in order; pass 2 applies the NodeName lines that name this
 * node, in order.  So a later line wins over an earlier one of its kind,
 * and a matching NodeName line wins over global lines wherever it stands.
 * Lines and Key=Value pairs are cut by util/confread.
 */
#include <ctype.h>
#include <inttypes.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/confread.h"
#include "util/safepath.h"
#include "util/hostmatch.h"
#include "dev/devpolicy.h"
#include "ns/dquota.h"
#include "ns/nsconf.h"
#include "ns/nspool.h"
#include "util/report.h"

/* A namespace.conf is a few lines; anything this big is a mistake. */
#define NSCONF_MAX_SIZE (1024 * 1024)

enum key {
	KEY_BASE_PATH,
	KEY_AUTO_BASE_PATH,
	KEY_DIRS,
	KEY_INIT_SCRIPT,
	KEY_SHARED,
	KEY_SHM_SIZE,
	KEY_TMP_SIZE,
	KEY_TMP_DISK_LIMIT,
	KEY_TMP_INODE_LIMIT,
	KEY_PID_NAMESPACE,
	KEY_NAMESPACE_POOL,
	KEY_DEVICE_POLICY,
	KEY_DEVICE_ALLOW,
	/* the keys of a Dir line; they go into a struct dir_decl */
	KEY_DIR,
	KEY_TYPE,
	KEY_SIZE,
	KEY_OPTIONS,
	KEY_SOURCE,
	KEY_COUNT
};

#define DIR_KEYS ((1u << KEY_DIR) | (1u << KEY_TYPE) | (1u << KEY_SIZE) | \
		  (1u << KEY_OPTIONS) | (1u << KEY_SOURCE))

/* One Dir line: what it says, before defaults and shorthands. */
struct dir_decl {
	char *path;
	bool type_set;
	enum nsconf_dir_type type;
	uint64_t size;		/* 0: no Size= */
	unsigned options;	/* NSCONF_OPT_* named by Options= */
	char *source;		/* NULL: no Source= */
	int line;
	char *scope;		/* NodeName value of its line, NULL: global */
};

/* A growing list of Dir lines. */
struct decl_list {
	struct dir_decl *v;
	size_t n;
};

struct parser {
	const char *name;     /* the file, for messages */
	const char *nodename; /* NULL: no NodeName line applies */
	struct report *rep;
	int line;             /* line of the key being handled */
	bool pass2;           /* reading the NodeName lines for this node */
	struct nsconf *conf;  /* the result */
	unsigned set;         /* keys set in conf, one bit per enum key */
	int base_path_line;   /* where conf's BasePath and Dirs were set */
	int dirs_line;
	int tmp_size_line;    /* and TmpSize, ShmSize */
	int shm_size_line;
	struct decl_list global;   /* global Dir lines */
	struct decl_list scoped;   /* pass 1: every NodeName Dir line */
	struct decl_list node;     /* pass 2: those that name this node */
	const char *scope;    /* NodeName value of the current line */
	struct dir_decl decl; /* the Dir line being read */
	size_t listed;        /* how many private dirs Dirs (or its
			       * default) gave, before the Dir lines' */
	int tmp_disk_limit_line;
	int tmp_inode_limit_line;
	int pid_namespace_line;
	int namespace_pool_line;
};

typedef int (*key_parse_fn)(struct parser *p, struct nsconf *c,
			    const char *key, const char *value);

struct key_def {
	const char *name;
	key_parse_fn parse;
};

static const char *const default_dirs[] = { "/tmp", "/dev/shm", NULL };
static const char *const shared_dirs[] = NSCONF_SHARED_DIRS;

/* ---- messages -------------------------------------------------------- */

/* Report an error on the current line.  Returns -1 with errno = EINVAL. */
__attribute__((format(printf, 2, 3)))
static int parse_error(struct parser *p, const char *fmt, ...)
{
	char msg[REPORT_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	errno = EINVAL;
	return report_error(p->rep, "%s:%d: %s", p->name, p->line, msg);
}

/* Report an error about the file as a whole; errno is left alone. */
__attribute__((format(printf, 3, 4)))
static void file_error(const char *name, struct report *rep,
		       const char *fmt, ...)
{
	char msg[REPORT_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	report_error(rep, "%s: %s", name, msg);
}

/* ---- the struct ------------------------------------------------------ */

static void dirs_free(char **dirs)
{
	size_t i;

	for (i = 0; dirs && dirs[i]; i++)
		free(dirs[i]);
	free(dirs);
}

/* Free what c holds and reset it to the defaults of an empty file. */
static void dir_conf_free(struct nsconf_dir *d, size_t n)
{
	for (size_t i = 0; d && i < n; i++) {
		free(d[i].path);
		free(d[i].source);
	}
	free(d);
}

static size_t dirs_count(char **dirs)
{
	size_t n = 0;

	while (dirs && dirs[n])
		n++;
	return n;
}

static void conf_clear(struct nsconf *c)
{
	dir_conf_free(c->dir_conf, dirs_count(c->dirs));
	free(c->base_path);
	dirs_free(c->dirs);
	free(c->init_script);
	free(c->device_allow);
	free(c->device_allow_file);
	free(c->file);
	memset(c, 0, sizeof(*c));
}

void nsconf_free(struct nsconf *conf)
{
	if (!conf)
		return;
	conf_clear(conf);
	free(conf);
}

/* Why a backing directory name is reserved, for the error message. */
static const char *reserved_why(const char *name)
{
	if (!strcmp(name, NSCONF_PIN_NAME))
		return NSCONF_PIN_NAME " is the namespace pin";
	if (!strcmp(name, NSCONF_PIDNS_PIN_NAME))
		return NSCONF_PIDNS_PIN_NAME " is the PID namespace pin";
	if (!strcmp(name, NSCONF_TMPFS_RECORD_NAME))
		return NSCONF_TMPFS_RECORD_NAME " is the list of tmpfs mounts";
	return NSCONF_RECORD_NAME " is the list of Source directories";
}

int nsconf_backing_name(const char *dir, char *buf, size_t len)
{
	size_t n, i;

	if (!dir || !buf || dir[0] != '/')
		goto invalid;
	n = strlen(dir + 1);
	if (n > NAME_MAX || n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (i = 0; i < n; i++)
		buf[i] = dir[i + 1] == '/' ? '_' : dir[i + 1];
	buf[n] = '\0';
	if (!n || !strcmp(buf, ".") || !strcmp(buf, "..")
	    || !strcmp(buf, NSCONF_PIN_NAME) || !strcmp(buf, NSCONF_RECORD_NAME)
	    || !strcmp(buf, NSCONF_PIDNS_PIN_NAME)
	    || !strcmp(buf, NSCONF_TMPFS_RECORD_NAME))
		goto invalid;
	return 0;
invalid:
	errno = EINVAL;
	return -1;
}

/* ---- values ---------------------------------------------------------- */

/* Tell whether path is dir or below it (both normalised). */
static bool path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

/*
 * Check that path is absolute, has no "." or ".." component and is not
 * "/", and return a copy without repeated or trailing slashes.
 * Returns NULL with errno set (and a message for EINVAL).
 */
static char *path_normalize(struct parser *p, const char *key,
			    const char *path)
{
	const char *s = path;
	char *out, *o;
	size_t n;

	if (path[0] != '/') {
		parse_error(p, "%s: \"%s\" is not an absolute path", key, path);
		return NULL;
	}
	if (!(out = o = malloc(strlen(path) + 1)))
		return NULL;
	while (*s) {
		while (*s == '/')
			s++;
		if (!*s)
			break;
		n = strcspn(s, "/");
		if ((n == 1 && s[0] == '.') || (n == 2 && !strncmp(s, "..", 2))) {
			parse_error(p, "%s: \"%s\" has a \".\" or \"..\" component",
				    key, path);
			goto error;
		}
		*o++ = '/';
		memcpy(o, s, n);
		o += n;
		s += n;
	}
	*o = '\0';
	if (o == out) {
		parse_error(p, "%s: \"/\" is not allowed", key);
		goto error;
	}
	return out;
error:
	free(out);
	return NULL;
}

/* Replace *field with the normalised path value. */
static int path_set(struct parser *p, char **field, const char *key,
		    const char *value)
{
	char *path = path_normalize(p, key, value);

	if (!path)
		return -1;
	free(*field);
	*field = path;
	return 0;
}

static int bool_parse(struct parser *p, bool *field, const char *key,
		      const char *value)
{
	static const char *const yes[] = { "yes", "true", "1", NULL };
	static const char *const no[] = { "no", "false", "0", NULL };
	int i;

	for (i = 0; yes[i]; i++) {
		if (!strcasecmp(value, yes[i])) {
			*field = true;
			return 0;
		}
	}
	for (i = 0; no[i]; i++) {
		if (!strcasecmp(value, no[i])) {
			*field = false;
			return 0;
		}
	}
	return parse_error(p, "%s: invalid boolean \"%s\" (use yes or no)",
			   key, value);
}

/*
 * Read a size: digits, then optionally K, M, G or T (powers of 1024),
 * then optionally B (or iB after a unit).  Returns 0, or -1 when the text
 * is not such a size or does not fit 64 bits.
 */
static int size_parse(const char *s, uint64_t *bytes)
{
	static const char units[] = "KMGT";
	unsigned long long n;
	const char *u;
	uint64_t mult = 1;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (*end && (u = strchr(units, toupper((unsigned char)*end)))) {
		mult = (uint64_t)1 << (10 * (u - units + 1));
		end++;
		/* "KiB": the i only before a B. */
		if (*end == 'i') {
			if (toupper((unsigned char)end[1]) != 'B')
				return -1;
			end++;
		}
	}
	if (toupper((unsigned char)*end) == 'B')
		end++;
	if (*end || n > UINT64_MAX / mult)
		return -1;
	*bytes = n * mult;
	return 0;
}

/* ---- keys ------------------------------------------------------------ */

/*
 * Jobs' directories under BasePath must be out of every user's reach: in a
 * world-writable sticky directory a user could make the path first, or
 * replace a component, and steer root's mounts and removals.
 */
static int key_base_path(struct parser *p, struct nsconf *c, const char *key,
			 const char *value)
{
	char *path;
	int i;

	if (!strcasecmp(value, "none")) {
		free(c->base_path);
		c->base_path = NULL;
		return 0;
	}
	if (!(path = path_normalize(p, key, value)))
		return -1;
	for (i = 0; shared_dirs[i]; i++) {
		if (!strcmp(path, shared_dirs[i])) {
			free(path);
			return parse_error(p, "%s: \"%s\" is %s, which every "
					   "user can write to (use a directory "
					   "only root can write to, such as "
					   "/var/tmp/devns or "
					   "/var/spool/slurm/devns)", key,
					   value, shared_dirs[i]);
		}
	}
	free(c->base_path);
	c->base_path = path;
	return 0;
}

static int key_auto_base_path(struct parser *p, struct nsconf *c,
			      const char *key, const char *value)
{
	return bool_parse(p, &c->auto_base_path, key, value);
}

/* Tell whether dirs[0..n) already holds path. */
static bool dirs_have(char **dirs, size_t n, const char *path)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!strcmp(dirs[i], path))
			return true;
	}
	return false;
}

/*
 * Check the spelling of one Dirs entry beyond what path_normalize() does:
 * it is written as mntns will use it, so no doubled or trailing slash.
 */
static int dir_spelling_check(struct parser *p, const char *key,
			      const char *item)
{
	size_t len = strlen(item);

	if (item[0] != '/')
		return parse_error(p, "%s: \"%s\" is not an absolute path", key,
				   item);
	if (strstr(item, "//"))
		return parse_error(p, "%s: \"%s\" has a doubled slash", key,
				   item);
	if (len > 1 && item[len - 1] == '/')
		return parse_error(p, "%s: \"%s\" ends with a slash", key, item);
	return 0;
}

/*
 * Check that dirs[n], added after dirs[0..n), gets a backing directory of
 * its own in BasePath/<jobid>: a valid name, not the pin's, not another
 * entry's ("/var/tmp" and "/var_tmp" would share one directory).
 */
static int dir_backing_check(struct parser *p, const char *key, char **dirs,
			     size_t n)
{
	char name[NAME_MAX + 1], other[NAME_MAX + 1];
	size_t i;

	if (nsconf_backing_name(dirs[n], name, sizeof(name)) < 0) {
		if (errno == ENAMETOOLONG)
			return parse_error(p, "%s: \"%s\" is too long: its "
					   "backing directory name would "
					   "exceed %d bytes", key, dirs[n],
					   NAME_MAX);
		return parse_error(p, "%s: \"%s\" cannot be a private "
				   "directory: its backing directory name "
				   "\"%s\" is reserved (%s)", key, dirs[n],
				   dirs[n] + 1, reserved_why(dirs[n] + 1));
	}
	for (i = 0; i < n; i++) {
		if (nsconf_backing_name(dirs[i], other, sizeof(other)) == 0
		    && !strcmp(name, other))
			return parse_error(p, "%s: \"%s\" and \"%s\" would "
					   "share the backing directory \"%s\"",
					   key, dirs[i], dirs[n], name);
	}
	return 0;
}

/* Check one Dirs entry and add it as dirs[*n].  Returns 0 or -1. */
static int dir_add(struct parser *p, const char *key, const char *item,
		   char **dirs, size_t *n)
{
	char *path;

	if (dir_spelling_check(p, key, item) < 0)
		return -1;
	if (!(path = path_normalize(p, key, item)))
		return -1;
	if (dirs_have(dirs, *n, path)) {
		free(path);
		return parse_error(p, "%s: \"%s\" is listed twice", key, item);
	}
	dirs[*n] = path;
	if (dir_backing_check(p, key, dirs, *n) < 0)
		return -1; /* dirs[*n] is freed with dirs */
	(*n)++;
	return 0;
}

static int key_dirs(struct parser *p, struct nsconf *c, const char *key,
		    const char *value)
{
	size_t n = 0, max = 1;
	const char *s;
	char **dirs;
	char *item = NULL;

	for (s = value; *s; s++)
		max += *s == ',';
	/* mntns plans every mount before fork(), in a fixed array. */
	if (max > NSCONF_MAX_DIRS)
		return parse_error(p, "%s: %zu entries in \"%s\", at most %d "
				   "are supported", key, max, value,
				   NSCONF_MAX_DIRS);
	if (!(dirs = calloc(max + 1, sizeof(*dirs))))
		return -1;
	for (s = value; ; s++) {
		size_t len = strcspn(s, ",");

		if (len == 0) {
			parse_error(p, "%s: empty entry in \"%s\"", key, value);
			goto error;
		}
		if (!(item = strndup(s, len)))
			goto error;
		if (dir_add(p, key, item, dirs, &n) < 0)
			goto error;
		free(item);
		item = NULL;
		s += len;
		if (!*s)
			break;
	}
	dirs_free(c->dirs);
	c->dirs = dirs;
	return 0;
error:
	free(item);
	dirs_free(dirs);
	return -1;
}

static int key_init_script(struct parser *p, struct nsconf *c,
			   const char *key, const char *value)
{
	return path_set(p, &c->init_script, key, value);
}

static int key_shared(struct parser *p, struct nsconf *c, const char *key,
		      const char *value)
{
	return bool_parse(p, &c->shared, key, value);
}

static int size_set(struct parser *p, uint64_t *field, const char *key,
		    const char *value)
{
	if (size_parse(value, field) == 0)
		return 0;
	if (strchr(value, '%'))
		return parse_error(p, "%s: invalid size \"%s\" (percentages "
				   "are not supported)", key, value);
	return parse_error(p, "%s: invalid size \"%s\"", key, value);
}

static int key_shm_size(struct parser *p, struct nsconf *c, const char *key,
			const char *value)
{
	return size_set(p, &c->shm_size, key, value);
}

static int key_tmp_size(struct parser *p, struct nsconf *c, const char *key,
			const char *value)
{
	return size_set(p, &c->tmp_size, key, value);
}

static int key_tmp_disk_limit(struct parser *p, struct nsconf *c,
			      const char *key, const char *value)
{
	if (size_set(p, &c->tmp_disk_limit, key, value) < 0)
		return -1;
	/* Project quotas count 1 KiB blocks: 0 would mean no limit. */
	if (c->tmp_disk_limit < 1024)
		return parse_error(p, "%s: \"%s\" is below 1K, the smallest "
				   "limit a project quota takes", key, value);
	return 0;
}

static int key_tmp_inode_limit(struct parser *p, struct nsconf *c,
			       const char *key, const char *value)
{
	unsigned long long n;
	char *end;

	errno = 0;
	n = strtoull(value, &end, 10);
	if (value[0] < '0' || value[0] > '9' || *end || errno ||
	    n < NSCONF_INODE_FLOOR)
		return parse_error(p, "%s: invalid count \"%s\" (a number of "
				   "files and directories, at least %d)", key,
				   value, NSCONF_INODE_FLOOR);
	c->tmp_inode_limit = n;
	return 0;
}

static int key_pid_namespace(struct parser *p, struct nsconf *c,
			     const char *key, const char *value)
{
	return bool_parse(p, &c->pid_namespace, key, value);
}

static int key_namespace_pool(struct parser *p, struct nsconf *c,
			      const char *key, const char *value)
{
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(value, &end, 10);
	if (value[0] < '0' || value[0] > '9' || *end || errno ||
	    n > NSPOOL_MAX)
		return parse_error(p, "%s: invalid count \"%s\" (0 to %d "
				   "namespaces kept ready)", key, value,
				   NSPOOL_MAX);
	c->namespace_pool = (unsigned)n;
	return 0;
}

static int key_device_policy(struct parser *p, struct nsconf *c,
			     const char *key, const char *value)
{
	if (devpolicy_mode_parse(value, &c->device_policy) == 0)
		return 0;
	return parse_error(p, "%s: invalid policy \"%s\" (use auto, closed, "
			   "strict or none)", key, value);
}

/*
 * Kept raw: it is resolved with this node's devices when the policy is
 * loaded (devpolicy_load).  Its syntax is checked here, on pass 1, which
 * sees every line once: a typo on another node's line must stop this
 * slurmd too, as every other error in the file does, not wait for that
 * node to start.  Devices are not looked at: this node need not have them.
 */
static int key_device_allow(struct parser *p, struct nsconf *c,
			    const char *key, const char *value)
{
	char *allow, *file;

	struct report check;

	(void)key;
	report_init(&check, NULL, NULL);
	if (!p->pass2 && devpolicy_check_allow(value, &check) < 0)
		return errno == ENOMEM ? -1 : parse_error(p, "%s", check.msg);
	allow = strdup(value);
	file = strdup(p->name);
	if (!allow || !file) {
		free(allow);
		free(file);
		return -1;
	}
	free(c->device_allow);
	free(c->device_allow_file);
	c->device_allow = allow;
	c->device_allow_file = file;
	c->device_allow_line = p->line;
	return 0;
}

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

static void decl_clear(struct dir_decl *d)
{
	free(d->path);
	free(d->source);
	free(d->scope);
	memset(d, 0, sizeof(*d));
}

static void decl_list_free(struct decl_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		decl_clear(&l->v[i]);
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

static int key_dir(struct parser *p, struct nsconf *c, const char *key,
		   const char *value)
{
	char *dirs[2] = { NULL, NULL };
	int rc;

	(void)c;
	if (dir_spelling_check(p, key, value) < 0)
		return -1;
	if (!(dirs[0] = path_normalize(p, key, value)))
		return -1;
	rc = dir_backing_check(p, key, dirs, 0);
	if (rc < 0) {
		free(dirs[0]);
		return -1;
	}
	p->decl.path = dirs[0];
	p->decl.line = p->line;
	return 0;
}

static int key_type(struct parser *p, struct nsconf *c, const char *key,
		    const char *value)
{
	(void)c;
	if (!strcasecmp(value, "bind"))
		p->decl.type = NSCONF_DIR_BIND;
	else if (!strcasecmp(value, "tmpfs"))
		p->decl.type = NSCONF_DIR_TMPFS;
	else
		return parse_error(p, "%s: invalid type \"%s\" (use bind or "
				   "tmpfs)", key, value);
	p->decl.type_set = true;
	return 0;
}

static int key_size(struct parser *p, struct nsconf *c, const char *key,
		    const char *value)
{
	(void)c;
	if (size_set(p, &p->decl.size, key, value) < 0)
		return -1;
	if (!p->decl.size)
		return parse_error(p, "%s: a size of 0 is not allowed (leave "
				   "Size out for tmpfs's default)", key);
	return 0;
}

static int key_options(struct parser *p, struct nsconf *c, const char *key,
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
			return parse_error(p, "%s: empty entry in \"%s\"", key,
					   value);
		if (i == N_OPTIONS)
			return parse_error(p, "%s: unknown option \"%.*s\" "
					   "(use noexec, nosuid, nodev or ro)",
					   key, (int)len, s);
		p->decl.options |= option_names[i].bit;
		s += len;
		if (!*s)
			return 0;
		s++;
	}
}

/* Check the % sequences of a Source template: only %j %u %n %%. */
static int source_escapes_check(struct parser *p, const char *key,
				const char *value)
{
	for (const char *s = value; *s; s++) {
		if (*s != '%')
			continue;
		s++;
		if (*s != 'j' && *s != 'u' && *s != 'n' && *s != '%') {
			if (!*s)
				return parse_error(p, "%s: \"%s\" ends with a "
						   "lone %%", key, value);
			return parse_error(p, "%s: unknown \"%%%c\" in \"%s\" "
					   "(use %%j, %%u, %%n or %%%%)", key,
					   *s, value);
		}
	}
	return 0;
}

void nsconf_source_depths(const char *tmpl, int *fixed, int *job)
{
	const char *s = tmpl;
	int depth = 0;
	bool variable = false;

	*fixed = 0;
	*job = 0;
	while (*s) {
		size_t len;

		while (*s == '/')
			s++;
		if (!*s)
			break;
		len = strcspn(s, "/");
		depth++;
		if (memchr(s, '%', len))
			variable = true;
		if (!variable)
			*fixed = depth;
		for (size_t i = 0; !*job && i + 1 < len; i++) {
			if (s[i] == '%' && s[i + 1] == 'j')
				*job = depth;
			if (s[i] == '%')
				i++;	/* "%%j" is a '%' and a 'j' */
		}
		s += len;
	}
}

/*
 * Source=: an absolute, normal path template, out of the directories
 * every user may write to (a user could make its variable part first),
 * with a fixed directory before the first '%' (root creates what follows,
 * never the top of the tree).
 */
static int key_source(struct parser *p, struct nsconf *c, const char *key,
		      const char *value)
{
	int fixed, job;

	(void)c;
	if (dir_spelling_check(p, key, value) < 0 ||
	    source_escapes_check(p, key, value) < 0)
		return -1;
	if (!(p->decl.source = path_normalize(p, key, value)))
		return -1;
	for (int i = 0; shared_dirs[i]; i++) {
		if (path_within(p->decl.source, shared_dirs[i]))
			return parse_error(p, "%s: \"%s\" is in %s, which "
					   "every user can write to", key,
					   value, shared_dirs[i]);
	}
	nsconf_source_depths(p->decl.source, &fixed, &job);
	if (strchr(value, '%') && !fixed)
		return parse_error(p, "%s: \"%s\" needs a fixed directory "
				   "before the first %%", key, value);
	return 0;
}

/* Check the Dir line in p->decl as a whole; p->line is set to its line. */
static int decl_check(struct parser *p)
{
	struct dir_decl *d = &p->decl;

	p->line = d->line;
	if (d->type_set && d->type == NSCONF_DIR_BIND && d->size)
		return parse_error(p, "Dir=%s: Size is only for Type=tmpfs",
				   d->path);
	if (d->type_set && d->type == NSCONF_DIR_TMPFS && d->source)
		return parse_error(p, "Dir=%s: Source is only for Type=bind",
				   d->path);
	if (d->size && d->source)
		return parse_error(p, "Dir=%s: Size (a tmpfs) and Source (a "
				   "bind) exclude each other", d->path);
	if ((d->options & NSCONF_OPT_RO) && !d->source)
		return parse_error(p, "Dir=%s: Options=ro needs Source= (an "
				   "empty directory that nobody can write to "
				   "is of no use)", d->path);
	if (d->source && path_within(d->source, d->path))
		return parse_error(p, "Dir=%s: Source \"%s\" is in the "
				   "private directory itself", d->path,
				   d->source);
	return 0;
}

/*
 * File the Dir line in p->decl: a global line, or (pass 1) a NodeName
 * line, each at most once per path and scope; on pass 2 a NodeName line
 * of this node, which replaces an earlier one for the same path.
 */
static int decl_file(struct parser *p, bool scoped)
{
	struct dir_decl *d = &p->decl, *old;
	struct decl_list *l;

	if (decl_check(p) < 0)
		return -1;
	if (p->pass2) {
		l = &p->node;
		if ((old = decl_find(l, d->path))) {
			decl_clear(old);
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
		return parse_error(p, "Dir=%s is declared twice%s%s (first "
				   "on line %d)", d->path,
				   scoped ? " for NodeName=" : "",
				   scoped ? d->scope : "", l->v[i].line);
	}
	return decl_push(l, d);
}

/* Indexed by enum key. */
static const struct key_def keys[KEY_COUNT] = {
	[KEY_BASE_PATH] = { "BasePath", key_base_path },
	[KEY_AUTO_BASE_PATH] = { "AutoBasePath", key_auto_base_path },
	[KEY_DIRS] = { "Dirs", key_dirs },
	[KEY_INIT_SCRIPT] = { "InitScript", key_init_script },
	[KEY_SHARED] = { "Shared", key_shared },
	[KEY_SHM_SIZE] = { "ShmSize", key_shm_size },
	[KEY_TMP_SIZE] = { "TmpSize", key_tmp_size },
	[KEY_TMP_DISK_LIMIT] = { "TmpDiskLimit", key_tmp_disk_limit },
	[KEY_TMP_INODE_LIMIT] = { "TmpInodeLimit", key_tmp_inode_limit },
	[KEY_PID_NAMESPACE] = { "PidNamespace", key_pid_namespace },
	[KEY_NAMESPACE_POOL] = { "NamespacePool", key_namespace_pool },
	[KEY_DEVICE_POLICY] = { "DevicePolicy", key_device_policy },
	[KEY_DEVICE_ALLOW] = { "DeviceAllow", key_device_allow },
	[KEY_DIR] = { "Dir", key_dir },
	[KEY_TYPE] = { "Type", key_type },
	[KEY_SIZE] = { "Size", key_size },
	[KEY_OPTIONS] = { "Options", key_options },
	[KEY_SOURCE] = { "Source", key_source },
};

/* Returns the key called name (any case), or KEY_COUNT if none is. */
static enum key key_find(const char *name)
{
	int k;

	for (k = 0; k < KEY_COUNT; k++) {
		if (!strcasecmp(name, keys[k].name))
			break;
	}
	return (enum key)k;
}

/* ---- lines ----------------------------------------------------------- */

/*
 * Handle the NodeName=value that starts a line.  Sets *applies when the
 * node is named.  Returns 0, or -1 after reporting a bad hostlist, or with
 * errno = ENOMEM.
 */
static int nodename_check(struct parser *p, const char *value, bool *applies)
{
	int rc = 0;

	if (hostmatch_validate(value) < 0)
		return parse_error(p, "NodeName: invalid hostlist \"%s\"", value);
	/* Out of memory must fail the file, not skip the node's line. */
	if (p->nodename && (rc = hostmatch_match(value, p->nodename)) < 0)
		return -1;
	*applies = rc == 1;
	return 0;
}

/* Note that key k of the current line now holds in the result. */
static void key_applied(struct parser *p, enum key k)
{
	p->set |= 1u << k;
	if (k == KEY_BASE_PATH)
		p->base_path_line = p->line;
	else if (k == KEY_DIRS)
		p->dirs_line = p->line;
	else if (k == KEY_TMP_SIZE)
		p->tmp_size_line = p->line;
	else if (k == KEY_SHM_SIZE)
		p->shm_size_line = p->line;
	else if (k == KEY_TMP_DISK_LIMIT)
		p->tmp_disk_limit_line = p->line;
	else if (k == KEY_TMP_INODE_LIMIT)
		p->tmp_inode_limit_line = p->line;
	else if (k == KEY_PID_NAMESPACE)
		p->pid_namespace_line = p->line;
	else if (k == KEY_NAMESPACE_POOL)
		p->namespace_pool_line = p->line;
}

/* The end of a line: file its Dir settings, if it has any. */
static int line_end(struct parser *p, unsigned seen, bool scoped)
{
	if (!(seen & DIR_KEYS))
		return 0;
	if (!(seen & (1u << KEY_DIR))) {
		for (int k = 0; k < KEY_COUNT; k++) {
			if (seen & (1u << k))
				return parse_error(p, "%s needs Dir= on its "
						   "line", keys[k].name);
		}
	}
	return decl_file(p, scoped);
}

/*
 * Parse one logical line.  target receives its settings, or is NULL when
 * only NodeName lines that name this node are wanted (pass 2); node_scratch
 * takes the settings of NodeName lines in pass 1, which are only checked.
 * Returns 0, or -1 with errno set (and a message for EINVAL).
 */
static int line_parse(struct parser *p, struct confread *r, bool pass2,
		      struct nsconf *scratch)
{
	struct nsconf *target = pass2 ? NULL : p->conf;
	unsigned seen = 0;
	struct confpair t;
	char err[REPORT_MSG_MAX];
	bool first = true, applies = false, scoped = false;
	enum key k;
	int rc;

	decl_clear(&p->decl);
	for (;; first = false) {
		rc = confread_pair(r, &t, err, sizeof(err));
		p->line = t.line;
		if (rc < 0)
			return parse_error(p, "%s", err);
		if (!t.key)
			return line_end(p, seen, scoped);
		if (!strcasecmp(t.key, "NodeName")) {
			if (!first)
				return parse_error(p, "NodeName must be the "
						   "first key of its line");
			if (nodename_check(p, t.value, &applies) < 0)
				return -1;
			scoped = true;
			p->scope = t.value;
			target = pass2 ? (applies ? p->conf : NULL) : scratch;
			continue;
		}
		if (!target)
			return 0; /* pass 2: a line for others, or global */
		if ((k = key_find(t.key)) == KEY_COUNT)
			return parse_error(p, "unknown key \"%s\"", t.key);
		if (seen & (1u << k))
			return parse_error(p, "duplicate key \"%s\"",
					   keys[k].name);
		if ((seen & DIR_KEYS) && !((1u << k) & DIR_KEYS))
			return parse_error(p, "%s cannot be on a Dir line",
					   keys[k].name);
		if ((seen & ~DIR_KEYS) && ((1u << k) & DIR_KEYS))
			return parse_error(p, "%s: Dir settings take a line of "
					   "their own (NodeName= may start "
					   "it)", keys[k].name);
		seen |= 1u << k;
		if (!*t.value)
			return parse_error(p, "%s: empty value", keys[k].name);
		if (keys[k].parse(p, target, keys[k].name, t.value) < 0)
			return -1;
		if (target == p->conf)
			key_applied(p, k);
	}
}

/* Run one pass over text.  Returns 0, or -1 with errno set. */
static int text_parse(struct parser *p, const char *text, bool pass2)
{
	struct nsconf scratch = { .base_path = NULL };
	struct confread r;
	int rc;

	confread_init(&r, text);
	p->pass2 = pass2;
	while ((rc = confread_line(&r)) > 0) {
		rc = line_parse(p, &r, pass2, &scratch);
		conf_clear(&scratch);
		if (rc < 0)
			break;
	}
	if (rc < 0 && errno == EINVAL && r.bad_column) {
		p->line = r.line;
		parse_error(p, "control character 0x%02x in column %d",
			    r.bad_byte, r.bad_column);
	}
	confread_free(&r);
	return rc;
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
		if (!path_within(base, p->conf->dirs[i]))
			continue;
		p->line = p->base_path_line;
		if (i >= p->listed)
			return parse_error(p, "BasePath: \"%s\" is in \"%s\", "
					   "a private directory of Dir (line "
					   "%d)", base, p->conf->dirs[i],
					   p->conf->dir_conf[i].line);
		if (p->dirs_line)
			return parse_error(p, "BasePath: \"%s\" is in \"%s\", "
					   "a private directory of Dirs (line "
					   "%d)", base, p->conf->dirs[i],
					   p->dirs_line);
		return parse_error(p, "BasePath: \"%s\" is in \"%s\", a "
				   "private directory of the default Dirs",
				   base, p->conf->dirs[i]);
	}
	return 0;
}

/*
 * Add the directories that Dir lines name and Dirs does not to the end of
 * conf->dirs: the global lines' first, then this node's.
 */
static int dirs_merge(struct parser *p)
{
	struct decl_list *lists[] = { &p->global, &p->node };
	size_t n = dirs_count(p->conf->dirs);
	char **dirs;

	for (size_t l = 0; l < 2; l++) {
		for (size_t i = 0; i < lists[l]->n; i++) {
			struct dir_decl *d = &lists[l]->v[i];

			if (dirs_have(p->conf->dirs, n, d->path))
				continue;
			p->line = d->line;
			if (n == NSCONF_MAX_DIRS)
				return parse_error(p, "Dir=%s: more than %d "
						   "private directories",
						   d->path, NSCONF_MAX_DIRS);
			dirs = realloc(p->conf->dirs, (n + 2) * sizeof(*dirs));
			if (!dirs)
				return -1;
			p->conf->dirs = dirs;
			dirs[n + 1] = NULL;
			if (!(dirs[n] = strdup(d->path)))
				return -1;
			if (dir_backing_check(p, "Dir", dirs, n) < 0)
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
		return parse_error(p, "Dir=%s: a bind mount, but %s= (line "
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
		if (path_within(nd->source, p->conf->dirs[i]))
			return parse_error(p, "Dir=%s: Source \"%s\" is in %s, "
					   "a private directory", nd->path,
					   nd->source, p->conf->dirs[i]);
	}
	if (base && (path_within(nd->source, base) ||
		     path_within(base, nd->source)))
		return parse_error(p, "Dir=%s: Source \"%s\" and BasePath "
				   "\"%s\" overlap", nd->path, nd->source,
				   base);
	return 0;
}

/* Fill conf->dir_conf, one entry per conf->dirs entry. */
static int dirs_resolve(struct parser *p)
{
	size_t n;

	if (dirs_merge(p) < 0)
		return -1;
	n = dirs_count(p->conf->dirs);
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

/* Tell whether s is a single, harmless path component. */
static bool component_ok(const char *s)
{
	if (!s || !*s || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++) {
		if (*s == '/' || (unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	}
	return true;
}

int nsconf_source_expand(const char *tmpl, uint32_t job_id, const char *user,
			 const char *node, char *buf, size_t len)
{
	size_t used = 0;
	char job[16];

	if (!tmpl || !buf || !len || tmpl[0] != '/') {
		errno = EINVAL;
		return -1;
	}
	snprintf(job, sizeof(job), "%" PRIu32, job_id);
	for (const char *s = tmpl; *s; s++) {
		const char *add = NULL;
		char one[2] = { *s, '\0' };
		size_t n;

		if (*s != '%') {
			add = one;
		} else {
			s++;
			switch (*s) {
			case 'j': add = job; break;
			case 'u': add = component_ok(user) ? user : NULL; break;
			case 'n': add = component_ok(node) ? node : NULL; break;
			case '%': add = "%"; break;
			default: break;
			}
			if (!add) {
				errno = EINVAL;
				return -1;
			}
		}
		n = strlen(add);
		if (used + n >= len) {
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(buf + used, add, n);
		used += n;
	}
	buf[used] = '\0';
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
	size_t n = 0;

	if (!c->tmp_disk_limit && c->tmp_inode_limit) {
		p->line = p->tmp_inode_limit_line;
		return parse_error(p, "TmpInodeLimit: no TmpDiskLimit is set, "
				   "and the inode limit comes with it");
	}
	if (!c->tmp_disk_limit)
		return 0;
	if (!c->tmp_inode_limit)
		p->conf->tmp_inode_limit =
			dquota_default_inodes(c->tmp_disk_limit);
	while (c->dirs[n])
		n++;
	p->line = p->tmp_disk_limit_line;
	if (!c->base_path)
		return parse_error(p, "TmpDiskLimit: BasePath is none (line "
				   "%d): there is no job directory on disk "
				   "to limit", p->base_path_line);
	if (c->tmp_size)
		return parse_error(p, "TmpDiskLimit: TmpSize (line %d) makes "
				   "/tmp a tmpfs, whose size TmpSize already "
				   "limits; set one of them", p->tmp_size_line);
	if (!dirs_have(c->dirs, n, "/tmp"))
		return parse_error(p, "TmpDiskLimit: /tmp is not in Dirs, so "
				   "the job has no private /tmp to limit");
	tmp = nsconf_dir_find(c, "/tmp");
	if (tmp && tmp->type == NSCONF_DIR_TMPFS)
		return parse_error(p, "TmpDiskLimit: Dir=/tmp (line %d) makes "
				   "/tmp a tmpfs, whose Size limits it; set one "
				   "of them", tmp->line);
	if (tmp && tmp->source)
		return parse_error(p, "TmpDiskLimit: Dir=/tmp (line %d) binds "
				   "/tmp from Source=%s, outside BasePath, "
				   "where the limit does not reach", tmp->line,
				   tmp->source);
	return 0;
}

/*
 * PidNamespace: the job's /proc is mounted in its mount namespace and the
 * PID namespace is pinned beside it, so it needs a BasePath; and no
 * private directory may cover /proc.
 */
static int pid_namespace_check(struct parser *p)
{
	const struct nsconf *c = p->conf;

	if (!c->pid_namespace)
		return 0;
	p->line = p->pid_namespace_line;
	if (!c->base_path)
		return parse_error(p, "PidNamespace: BasePath is none (line "
				   "%d): the job's /proc lives in its mount "
				   "namespace, which BasePath=none turns off",
				   p->base_path_line);
	for (size_t i = 0; c->dirs[i]; i++) {
		if (path_within(c->dirs[i], "/proc"))
			return parse_error(p, "PidNamespace: %s is a private "
					   "directory; the job's /proc must "
					   "stay its own proc mount",
					   c->dirs[i]);
	}
	return 0;
}

/* NamespacePool: the pool lives under BasePath, like the namespaces. */
static int namespace_pool_check(struct parser *p)
{
	if (!p->conf->namespace_pool || p->conf->base_path)
		return 0;
	p->line = p->namespace_pool_line;
	return parse_error(p, "NamespacePool: BasePath is none (line %d): "
			   "there are no namespaces to copy ahead",
			   p->base_path_line);
}

/* Fill in what no line set; BasePath must have been. */
static int conf_finish(struct parser *p)
{
	size_t i;

	if (!(p->set & (1u << KEY_BASE_PATH))) {
		file_error(p->name, p->rep, "BasePath is not set%s%s "
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
	p->listed = dirs_count(p->conf->dirs);
	if (dirs_resolve(p) < 0)
		return -1;
	if (base_path_dirs_check(p) < 0)
		return -1;
	if (pid_namespace_check(p) < 0 || namespace_pool_check(p) < 0)
		return -1;
	return tmp_disk_limit_check(p);
}

static void parser_free(struct parser *p)
{
	int saved = errno;

	decl_clear(&p->decl);
	decl_list_free(&p->global);
	decl_list_free(&p->scoped);
	decl_list_free(&p->node);
	errno = saved;
}

struct nsconf *nsconf_parse(const char *text, const char *name,
			    const char *nodename, struct report *rep)
{
	struct parser p = {
		.name = name ? name : "namespace.conf",
		.nodename = nodename,
		.rep = rep,
	};

	if (!text) {
		file_error(p.name, rep, "no text");
		errno = EINVAL;
		return NULL;
	}
	if (!(p.conf = calloc(1, sizeof(*p.conf))))
		goto error;
	if (text_parse(&p, text, false) < 0 || text_parse(&p, text, true) < 0
	    || conf_finish(&p) < 0)
		goto error;
	if (!(p.conf->file = strdup(p.name)))
		goto error;
	p.conf->base_path_line = p.base_path_line;
	p.conf->dirs_line = p.dirs_line;
	parser_free(&p);
	return p.conf;
error:
	parser_free(&p);
	if (errno == ENOMEM)
		file_error(p.name, rep, "out of memory");
	{
		int saved = errno;

		nsconf_free(p.conf);
		errno = saved;
	}
	return NULL;
}

struct nsconf *nsconf_load(const char *path, const char *nodename,
			   struct report *rep)
{
	struct nsconf *conf;
	char *text;
	int saved;

	if (!path) {
		errno = EINVAL;
		file_error("namespace.conf", rep, "no path");
		return NULL;
	}
	if (!(text = confread_file(path, NSCONF_MAX_SIZE, rep)))
		return NULL;
	conf = nsconf_parse(text, path, nodename, rep);
	saved = errno;
	free(text);
	if (conf && nsconf_paths_check(conf, rep) < 0) {
		saved = errno;
		nsconf_free(conf);
		conf = NULL;
	}
	errno = saved;
	return conf;
}

/* "FILE:LINE: " or "FILE: " for what line set, into buf[len]. */
static const char *where(const struct nsconf *c, int line, char *buf,
			 size_t len)
{
	if (line)
		snprintf(buf, len, "%s:%d: ", c->file, line);
	else
		snprintf(buf, len, "%s: ", c->file);
	return buf;
}

/* The fixed part of d's Source= into buf[len]; 0, or 1 when it has no
 * variable part (nothing is made below it per job). */
static int source_fixed(const struct nsconf_dir *d, char *buf, size_t len)
{
	const char *s = d->source;
	int fixed, job, depth = 0;

	nsconf_source_depths(d->source, &fixed, &job);
	while (*s && depth < fixed) {
		s += strspn(s, "/");
		s += strcspn(s, "/");
		depth++;
	}
	if (!*s)
		return 1;
	snprintf(buf, len, "%.*s", (int)(s - d->source), d->source);
	return 0;
}

int nsconf_paths_check(const struct nsconf *conf, struct report *rep)
{
	char at[PATH_MAX + 32], fixed[PATH_MAX];
	struct report why;

	for (size_t i = 0; conf->dirs && conf->dirs[i]; i++) {
		const struct nsconf_dir *d = &conf->dir_conf[i];
		int line = d->line ? d->line : conf->dirs_line;

		report_init(&why, NULL, NULL);
		if (safepath_check_mount_point(d->path, &why) < 0)
			return report_error(rep, "%sprivate directory %s: its "
					    "mount point cannot be trusted: %s",
					    where(conf, line, at, sizeof(at)),
					    d->path, why.msg);
		if (!d->source || source_fixed(d, fixed, sizeof(fixed)))
			continue;
		report_init(&why, NULL, NULL);
		if (safepath_check_create_below(fixed, &why) < 0)
			return report_error(rep, "%sDir=%s: Source \"%s\": %s",
					    where(conf, d->line, at, sizeof(at)),
					    d->path, d->source, why.msg);
	}
	return 0;
}
