/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsconf_values.c - the values of namespace.conf: paths, booleans, sizes,
 * Dirs entries and their backing names, Source templates; and the
 * messages that name the file and line.  See nsconf_int.h.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf/jobdir.h"
#include "conf/nsconf_int.h"
#include "slurmconv/sluid.h"

/* ---- messages -------------------------------------------------------- */

/* Report an error on the current line.  Returns -1 with errno = EINVAL. */
__attribute__((format(printf, 2, 3)))
int nsconf_error(struct parser *p, const char *fmt, ...)
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
void nsconf_file_error(const char *name, struct report *rep,
		       const char *fmt, ...)
{
	char msg[REPORT_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	report_error(rep, "%s: %s", name, msg);
}

void nsconf_dirs_free(char **dirs)
{
	size_t i;

	for (i = 0; dirs && dirs[i]; i++)
		free(dirs[i]);
	free(dirs);
}

size_t nsconf_dirs_count(char **dirs)
{
	size_t n = 0;

	while (dirs && dirs[n])
		n++;
	return n;
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
	if (!n || !strcmp(buf, ".") || !strcmp(buf, "..") ||
	    jobdir_reserved(buf))
		goto invalid;
	return 0;
invalid:
	errno = EINVAL;
	return -1;
}

/* ---- values ---------------------------------------------------------- */

int nsconf_list_each(struct parser *p, const char *key, const char *value,
		     int (*fn)(struct parser *p, const char *key,
			       const char *item, void *arg),
		     void *arg)
{
	for (const char *s = value; ; s++) {
		size_t len = strcspn(s, ",");
		char *item;
		int rc;

		if (!len)
			return nsconf_error(p, "%s: empty entry in \"%s\"", key,
					    value);
		if (!(item = strndup(s, len)))
			return -1;
		rc = fn(p, key, item, arg);
		free(item);
		if (rc < 0)
			return -1;
		s += len;
		if (!*s)
			return 0;
	}
}

/* Tell whether path is dir or below it (both normalised). */
bool nsconf_path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

/*
 * Check that path is absolute, has no "." or ".." component and is not
 * "/", and return a copy without repeated or trailing slashes.
 * Returns NULL with errno set (and a message for EINVAL).
 */
char *nsconf_path_normalize(struct parser *p, const char *key,
			    const char *path)
{
	const char *s = path;
	char *out, *o;
	size_t n;

	if (path[0] != '/') {
		nsconf_error(p, "%s: \"%s\" is not an absolute path", key, path);
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
			nsconf_error(p, "%s: \"%s\" has a \".\" or \"..\" component",
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
		nsconf_error(p, "%s: \"/\" is not allowed", key);
		goto error;
	}
	return out;
error:
	free(out);
	return NULL;
}

/*
 * Put sub for the first pat of *s (strings to free).  Returns 0 or -1
 * (ENOMEM).
 */
static int substitute_first(char **s, const char *pat, const char *sub)
{
	char *at = strstr(*s, pat), *out;
	size_t head, plen = strlen(pat), slen = strlen(sub);

	if (!at)
		return 0;
	head = (size_t)(at - *s);
	if (!(out = malloc(strlen(*s) - plen + slen + 1)))
		return -1;
	memcpy(out, *s, head);
	memcpy(out + head, sub, slen);
	strcpy(out + head + slen, at + plen);
	free(*s);
	*s = out;
	return 0;
}

char *nsconf_base_path_expand(struct parser *p, const char *key,
			      const char *value)
{
	const char *host = p->hostname ? p->hostname : p->nodename;
	char *out;

	if (!p->nodename && (strstr(value, "%h") || strstr(value, "%n"))) {
		nsconf_error(p, "%s: \"%s\" has %%h or %%n, and no node name "
			     "is known to put in (devns check: -n NODE)", key,
			     value);
		return NULL;
	}
	if (!(out = strdup(value)))
		return NULL;
	/* In Slurm's order: a hostname holding "%n" gets it replaced too. */
	if ((host && substitute_first(&out, "%h", host) < 0) ||
	    (p->nodename && substitute_first(&out, "%n", p->nodename) < 0)) {
		free(out);
		return NULL;
	}
	return out;
}

/* Replace *field with the normalised path value. */
int nsconf_path_set(struct parser *p, char **field, const char *key,
		    const char *value)
{
	char *path = nsconf_path_normalize(p, key, value);

	if (!path)
		return -1;
	free(*field);
	*field = path;
	return 0;
}

int nsconf_bool_parse(struct parser *p, bool *field, const char *key,
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
	return nsconf_error(p, "%s: invalid boolean \"%s\" (use yes or no)",
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

/* Tell whether dirs[0..n) already holds path. */
bool nsconf_dirs_have(char **dirs, size_t n, const char *path)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!strcmp(dirs[i], path))
			return true;
	}
	return false;
}

/*
 * Check the spelling of one Dirs entry beyond what nsconf_path_normalize() does:
 * it is written as mntns will use it, so no doubled or trailing slash.
 */
int nsconf_dir_spelling_check(struct parser *p, const char *key,
			      const char *item)
{
	size_t len = strlen(item);

	if (item[0] != '/')
		return nsconf_error(p, "%s: \"%s\" is not an absolute path", key,
				   item);
	if (strstr(item, "//"))
		return nsconf_error(p, "%s: \"%s\" has a doubled slash", key,
				   item);
	if (len > 1 && item[len - 1] == '/')
		return nsconf_error(p, "%s: \"%s\" ends with a slash", key, item);
	return 0;
}

/*
 * Directories the node's system lives in: a job's empty private copy would
 * hide the node's programs, libraries or configuration from the job.
 * "/lib*" stands for /lib, /lib32, /lib64, /libx32, /libexec.
 */
static const char *const system_dirs[] = {
	"/bin", "/boot", "/dev", "/etc", "/lib*", "/run", "/sbin", "/usr",
	"/var", NULL,
};

/* The kernel's trees: nothing below them is a directory of files. */
static const char *const kernel_dirs[] = { "/proc", "/sys", NULL };

int nsconf_dir_system_check(struct parser *p, const char *key,
			    const char *path)
{
	static const char *const shared[] = NSCONF_SHARED_DIRS;
	int fixed, job;

	/*
	 * A per-user or per-job mount point (%u, %j, %S, %n) is made at the
	 * job's start below its fixed part, as a Source is: a fixed
	 * directory comes first, and none of it may be in a directory every
	 * user can write to (a user could make another's first).
	 */
	if (strchr(path, '%')) {
		if (nsconf_source_escapes_check(p, key, path) < 0)
			return -1;
		nsconf_source_depths(path, &fixed, &job);
		if (!fixed)
			return nsconf_error(p, "%s: \"%s\" needs a fixed "
					    "directory before the first %%",
					    key, path);
		for (size_t i = 0; shared[i]; i++) {
			if (nsconf_path_within(path, shared[i]))
				return nsconf_error(p, "%s: \"%s\" is in %s, "
						    "which every user can "
						    "write to", key, path,
						    shared[i]);
		}
	}
	for (size_t i = 0; kernel_dirs[i]; i++) {
		if (nsconf_path_within(path, kernel_dirs[i]))
			return nsconf_error(p, "%s: \"%s\" is in %s, the "
					    "kernel's: a private directory "
					    "would hide what the kernel shows "
					    "there", key, path, kernel_dirs[i]);
	}
	for (size_t i = 0; system_dirs[i]; i++) {
		if (fnmatch(system_dirs[i], path, FNM_PATHNAME) == 0)
			return nsconf_error(p, "%s: \"%s\" is a system "
					    "directory: the job's empty private "
					    "%s would hide the node's", key,
					    path, path);
	}
	return 0;
}

/*
 * Check that dirs[n], added after dirs[0..n), gets a backing directory of
 * its own in BasePath/<jobid>: a valid name, not the pin's, not another
 * entry's ("/var/tmp" and "/var_tmp" would share one directory).
 */
int nsconf_dir_backing_check(struct parser *p, const char *key, char **dirs,
			     size_t n)
{
	char name[NAME_MAX + 1], other[NAME_MAX + 1];
	const char *why;
	size_t i;

	if (nsconf_backing_name(dirs[n], name, sizeof(name)) < 0) {
		if (errno == ENAMETOOLONG)
			return nsconf_error(p, "%s: \"%s\" is too long: its "
					   "backing directory name would "
					   "exceed %d bytes", key, dirs[n],
					   NAME_MAX);
		why = jobdir_reserved(dirs[n] + 1);
		return nsconf_error(p, "%s: \"%s\" cannot be a private "
				   "directory: its backing directory name "
				   "\"%s\" is reserved (%s)", key, dirs[n],
				   dirs[n] + 1, why ? why : "not a name");
	}
	for (i = 0; i < n; i++) {
		if (nsconf_backing_name(dirs[i], other, sizeof(other)) == 0
		    && !strcmp(name, other))
			return nsconf_error(p, "%s: \"%s\" and \"%s\" would "
					   "share the backing directory \"%s\"",
					   key, dirs[i], dirs[n], name);
	}
	return 0;
}

int nsconf_size_set(struct parser *p, uint64_t *field, const char *key,
		    const char *value)
{
	if (size_parse(value, field) == 0)
		return 0;
	if (strchr(value, '%'))
		return nsconf_error(p, "%s: invalid size \"%s\" (percentages "
				   "are not supported)", key, value);
	return nsconf_error(p, "%s: invalid size \"%s\"", key, value);
}

int nsconf_tmpfs_size_set(struct parser *p, uint64_t *bytes,
			  unsigned *percent, const char *key,
			  const char *value)
{
	unsigned long n;
	char *end;

	if (!strchr(value, '%')) {
		if (nsconf_size_set(p, bytes, key, value) < 0)
			return -1;
		*percent = 0;
		return 0;
	}
	errno = 0;
	n = strtoul(value, &end, 10);
	if (!isdigit((unsigned char)value[0]) || errno || strcmp(end, "%") ||
	    n < 1 || n > 100)
		return nsconf_error(p, "%s: invalid share \"%s\" (1%% to 100%% "
				   "of the job's memory on the node)", key,
				   value);
	*percent = (unsigned)n;
	*bytes = 0;
	return 0;
}

uint64_t nsconf_dir_tmpfs_size(const struct nsconf_dir *d, uint64_t job_mem,
			       uint64_t node_mem)
{
	uint64_t mem = job_mem ? job_mem : node_mem;
	const uint64_t page = 4096;

	if (!d->size_percent)
		return d->size;
	if (!mem)
		return 0;
	/* mem / 100 * pct overflows never; the remainder's share kept. */
	mem = mem / 100 * d->size_percent + mem % 100 * d->size_percent / 100;
	return mem < page ? page : mem;
}

bool nsconf_uses_job_memory(const struct nsconf *conf)
{
	for (size_t i = 0; conf && conf->dirs && conf->dirs[i]; i++)
		if (conf->dir_conf[i].type == NSCONF_DIR_TMPFS &&
		    conf->dir_conf[i].size_percent)
			return true;
	return false;
}

bool nsconf_disk_limited(const struct nsconf *conf)
{
	return conf && (conf->tmp_disk_limit || conf->tmp_disk_request ||
			conf->tmp_disk_gres);
}

int nsconf_job_disk_limit(const struct nsconf *conf,
			  const struct nsconf_disk_ask *ask, uint64_t fs_bytes,
			  uint64_t *limit, char *why, size_t len)
{
	const char *from;

	*limit = 0;
	if (conf->tmp_disk_gres && ask->gres_bytes) {
		*limit = ask->gres_bytes;
		from = "its GRES";
	} else if (conf->tmp_disk_request) {
		if (!ask->tmp_bytes) {
			snprintf(why, len, "TmpDiskLimit=request: the job asked "
				 "for no --tmp%s%s", conf->tmp_disk_gres
				 ? " nor GRES " : "", conf->tmp_disk_gres
				 ? conf->tmp_disk_gres : "");
			errno = EINVAL;
			return -1;
		}
		*limit = ask->tmp_bytes;
		from = "its --tmp";
	} else {
		*limit = conf->tmp_disk_limit;
		return 0;
	}
	/* Project quotas count 1 KiB blocks: below one would be none. */
	if (*limit < 1024) {
		snprintf(why, len, "%s of %" PRIu64 " bytes is below 1K, the "
			 "smallest limit a project quota takes", from, *limit);
		errno = EINVAL;
		return -1;
	}
	if (fs_bytes && *limit > fs_bytes) {
		snprintf(why, len, "%s of %" PRIu64 " bytes is more than "
			 "BasePath's filesystem holds (%" PRIu64 " bytes)",
			 from, *limit, fs_bytes);
		errno = EFBIG;
		return -1;
	}
	return 0;
}

/* Check the % sequences of a Source template: only %j %S %u %n %%. */
int nsconf_source_escapes_check(struct parser *p, const char *key,
				const char *value)
{
	for (const char *s = value; *s; s++) {
		if (*s != '%')
			continue;
		s++;
		if (!*s || !strchr("jSun%", *s)) {
			if (!*s)
				return nsconf_error(p, "%s: \"%s\" ends with a "
						   "lone %%", key, value);
			return nsconf_error(p, "%s: unknown \"%%%c\" in \"%s\" "
					   "(use %%j, %%S, %%u, %%n or %%%%)", key,
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
			if (s[i] == '%' && (s[i + 1] == 'j' || s[i + 1] == 'S'))
				*job = depth;
			if (s[i] == '%')
				i++;	/* "%%j" is a '%' and a 'j' */
		}
		s += len;
	}
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

int nsconf_source_expand(const char *tmpl, uint32_t job_id, uint64_t sluid,
			 const char *user, const char *node, char *buf,
			 size_t len)
{
	size_t used = 0;
	char job[16], sluid_text[SLUID_LEN + 1];

	if (!tmpl || !buf || !len || tmpl[0] != '/') {
		errno = EINVAL;
		return -1;
	}
	snprintf(job, sizeof(job), "%" PRIu32, job_id);
	(void)sluid_format(sluid, sluid_text, sizeof(sluid_text));
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
			case 'S': add = sluid_text[0] ? sluid_text : NULL; break;
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
