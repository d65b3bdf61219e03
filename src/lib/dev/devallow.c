/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devallow.c - DeviceAllow text -> device rules.  Device paths are
 * resolved to numbers here, once, with stat(2): the kernel checks device
 * numbers, never names, so a rule must not depend on which name the job
 * later opens a device by.  Classes (char-NAME, block-NAME) come from
 * /proc/devices and cover every major registered under the name with any
 * minor, as in systemd's DeviceAllow and flux's IMP.  See devpolicy.h
 * for the calls, devpolicy_int.h for what devpolicy.c shares.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "dev/devpolicy_int.h"

#define PROC_DEVICES "/proc/devices"

__attribute__((format(printf, 3, 4)))
void devallow_report(struct parse_ctx *ctx, enum report_level level,
		   const char *fmt, ...)
{
	char msg[REPORT_MSG_MAX];
	const char *where = ctx->where ? ctx->where : "";
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (level == REPORT_ERROR) {
		ctx->errors++;
		report_error(ctx->rep, "%s%s%s", where, *where ? ": " : "",
			     msg);
	} else {
		report_warning(ctx->rep, "%s%s%s", where, *where ? ": " : "",
			       msg);
	}
}

void devallow_classes_free(struct parse_ctx *ctx)
{
	size_t i;

	for (i = 0; i < ctx->nclasses; i++)
		free(ctx->classes[i].name);
	free(ctx->classes);
	ctx->classes = NULL;
	ctx->nclasses = 0;
}

/* Reads /proc/devices (or the injected file) into ctx->classes once. */
static int classes_read(struct parse_ctx *ctx)
{
	const char *path = ctx->proc_devices ? ctx->proc_devices : PROC_DEVICES;
	char *line = NULL;
	size_t len = 0;
	char type = 0;
	FILE *f;

	if (ctx->classes_read)
		return 0;
	if (ctx->classes_failed) {
		errno = EIO;
		return -1;
	}
	if (!(f = fopen(path, "re"))) {
		devallow_report(ctx, REPORT_ERROR,
		       "cannot read %s to resolve device classes: %s", path,
		       strerror(errno));
		ctx->classes_failed = true;
		errno = EIO;
		return -1;
	}
	while (getline(&line, &len, f) >= 0) {
		struct devclass *p;
		unsigned major;
		char name[256];

		if (!strncmp(line, "Character devices:", 18)) {
			type = 'c';
			continue;
		}
		if (!strncmp(line, "Block devices:", 14)) {
			type = 'b';
			continue;
		}
		if (!type || sscanf(line, "%u %255s", &major, name) != 2)
			continue;
		p = reallocarray(ctx->classes, ctx->nclasses + 1, sizeof(*p));
		if (!p)
			goto error;
		ctx->classes = p;
		p = &ctx->classes[ctx->nclasses];
		if (!(p->name = strdup(name)))
			goto error;
		p->type = type;
		p->major = major;
		ctx->nclasses++;
	}
	free(line);
	fclose(f);
	ctx->classes_read = true;
	return 0;
error:
	free(line);
	fclose(f);
	errno = ENOMEM;
	return -1;
}

/*
 * Adds one wildcard rule per major registered under name.  Returns the number
 * of rules added (0: unknown class), or -1.
 */
int devallow_add_class(struct parse_ctx *ctx, char type, const char *name,
		     unsigned access, struct devrule_list *out)
{
	int found = 0;
	size_t i;

	if (classes_read(ctx) < 0)
		return -1;
	for (i = 0; i < ctx->nclasses; i++) {
		if (ctx->classes[i].type != type ||
		    strcmp(ctx->classes[i].name, name) != 0)
			continue;
		if (devrule_list_add(out, type, ctx->classes[i].major, 0, true,
				     access) < 0)
			return -1;
		found++;
	}
	return found;
}

/*
 * stat()s an absolute path.  Returns 1 with type and numbers, 0 when it does
 * not exist, -1 with a message in why (not a device, other stat errors).
 */
int devallow_resolve_path(const char *path, char *type, uint32_t *major,
			uint32_t *minor, char *why, size_t whysize)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		snprintf(why, whysize, "cannot stat %s: %s", path,
			 strerror(errno));
		return -1;
	}
	if (S_ISCHR(st.st_mode))
		*type = 'c';
	else if (S_ISBLK(st.st_mode))
		*type = 'b';
	else {
		snprintf(why, whysize, "%s is not a device node", path);
		return -1;
	}
	*major = major(st.st_rdev);
	*minor = minor(st.st_rdev);
	return 1;
}

/* Parses ACCESS (non-empty subset of "rwm", no repeats); -1 when malformed. */
static int parse_access(const char *s, unsigned *access)
{
	*access = 0;
	if (!*s)
		return -1;
	for (; *s; s++) {
		unsigned bit;

		switch (*s) {
		case 'r': bit = DEVRULE_R; break;
		case 'w': bit = DEVRULE_W; break;
		case 'm': bit = DEVRULE_M; break;
		default: return -1;
		}
		if (*access & bit)
			return -1;
		*access |= bit;
	}
	return 0;
}

/* Strips blanks at both ends in place. */
char *devallow_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/*
 * One "SPEC:ACCESS" item.  Problems are reported (and counted in ctx); the
 * return is -1 only for failures that are not the entry's fault (ENOMEM).
 */
static int parse_entry(struct parse_ctx *ctx, char *item,
		       struct devrule_list *out)
{
	char *colon = strrchr(item, ':'); /* paths may hold ':' (by-path) */
	const char *spec, *acc;
	unsigned access;
	char why[PATH_MAX + 64];

	if (!colon) {
		devallow_report(ctx, REPORT_ERROR,
		       "DeviceAllow entry '%s' has no ':ACCESS' (want SPEC:ACCESS, ACCESS from rwm)",
		       item);
		return 0;
	}
	*colon = '\0';
	spec = devallow_trim(item);
	acc = devallow_trim(colon + 1);
	if (!*spec) {
		devallow_report(ctx, REPORT_ERROR,
		       "DeviceAllow entry ':%s' has an empty device", acc);
		return 0;
	}
	if (parse_access(acc, &access) < 0) {
		devallow_report(ctx, REPORT_ERROR,
		       "DeviceAllow entry '%s:%s': bad access '%s' (want a non-empty subset of rwm, each letter once)",
		       spec, acc, acc);
		return 0;
	}
	if (spec[0] == '/' && ctx->syntax_only)
		return 0;
	if (spec[0] == '/') {
		char type;
		uint32_t major, minor;
		int rc = devallow_resolve_path(spec, &type, &major, &minor, why,
				      sizeof(why));

		if (rc < 0)
			devallow_report(ctx, REPORT_ERROR, "DeviceAllow entry '%s:%s': %s",
			       spec, acc, why);
		else if (rc == 0)
			devallow_report(ctx, REPORT_WARNING,
			       "DeviceAllow entry '%s:%s': %s does not exist, entry skipped",
			       spec, acc, spec);
		else if (devrule_list_add(out, type, major, minor, false,
					  access) < 0)
			return -1;
		return 0;
	}
	if (!strncmp(spec, "char-", 5) || !strncmp(spec, "block-", 6)) {
		char type = spec[0] == 'c' ? 'c' : 'b';
		const char *name = spec + (type == 'c' ? 5 : 6);
		int rc;

		if (!*name) {
			devallow_report(ctx, REPORT_ERROR,
			       "DeviceAllow entry '%s:%s': empty device class name",
			       spec, acc);
			return 0;
		}
		if (ctx->syntax_only)
			return 0;
		if ((rc = devallow_add_class(ctx, type, name, access, out)) < 0)
			return errno == EIO ? 0 : -1; /* EIO: reported */
		if (rc == 0)
			devallow_report(ctx, REPORT_WARNING,
			       "DeviceAllow entry '%s:%s': no %s device class '%s' in %s, entry skipped",
			       spec, acc, type == 'c' ? "character" : "block",
			       name, ctx->proc_devices ? ctx->proc_devices
						       : PROC_DEVICES);
		return 0;
	}
	devallow_report(ctx, REPORT_ERROR,
	       "DeviceAllow entry '%s:%s': '%s' is neither an absolute device path nor char-NAME/block-NAME",
	       spec, acc, spec);
	return 0;
}

/* parse_allow with the caller's context, so that build shares classes. */
int devallow_parse(struct parse_ctx *ctx, const char *text,
		       struct devrule_list *out)
{
	char *copy, *item, *next;
	int entries = 0;

	if (!text)
		return 0;
	if (!(copy = strdup(text)))
		return -1;
	if (!*devallow_trim(copy)) {
		free(copy);
		return 0;
	}
	for (item = copy; item; item = next) {
		char *t;

		if ((next = strchr(item, ',')))
			*next++ = '\0';
		t = devallow_trim(item);
		entries++;
		if (!*t) {
			devallow_report(ctx, REPORT_ERROR,
			       "DeviceAllow '%s': empty entry (item %d)", text,
			       entries);
			continue;
		}
		if (parse_entry(ctx, t, out) < 0)
			goto error;
	}
	free(copy);
	return entries;
error:
	free(copy);
	return -1;
}

int devpolicy_parse_allow(const char *text, const char *proc_devices,
			  struct devrule_list *out, struct report *rep)
{
	struct parse_ctx ctx = {
		.proc_devices = proc_devices,
		.rep = rep,
	};
	int rc = devallow_parse(&ctx, text, out);

	devallow_classes_free(&ctx);
	if (rc >= 0 && ctx.errors) {
		errno = EINVAL;
		return -1;
	}
	return rc;
}

int devpolicy_check_allow(const char *text, struct report *rep)
{
	struct parse_ctx ctx = {
		.syntax_only = true,
		.rep = rep,
	};
	struct devrule_list unused;
	int rc;

	devrule_list_init(&unused, false);
	rc = devallow_parse(&ctx, text, &unused);
	devrule_list_free(&unused);
	if (rc >= 0 && ctx.errors) {
		errno = EINVAL;
		return -1;
	}
	return rc;
}
