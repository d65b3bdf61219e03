/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devallow.c - DeviceAllow text -> device rules.  Device paths are
 * resolved to numbers here, once, with stat(2): the kernel checks device
 * numbers, never names, so a rule must not depend on which name the job
 * later opens a device by.  Classes (char-NAME, block-NAME) come from
 * /proc/devices and cover every major registered under the name with any
 * minor, as in systemd's DeviceAllow and flux's IMP.  See devpolicy.h
 * for the calls, devallow_int.h for what devpolicy.c shares.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "dev/devallow.h"
#include "dev/devallow_int.h"

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

int devallow_add_class(struct parse_ctx *ctx, char type, const char *name,
		     unsigned access, struct devrule_list *out)
{
	bool pattern = devallow_is_pattern(name);
	int found = 0;
	size_t i;

	if (classes_read(ctx) < 0)
		return -1;
	for (i = 0; i < ctx->nclasses; i++) {
		if (ctx->classes[i].type != type ||
		    (pattern ? fnmatch(name, ctx->classes[i].name, 0)
			     : strcmp(ctx->classes[i].name, name)) != 0)
			continue;
		if (devrule_list_add(out, type, ctx->classes[i].major, 0, true,
				     access) < 0)
			return -1;
		found++;
	}
	return found;
}

int devallow_class_is(struct parse_ctx *ctx, char type, uint32_t major,
		      const char *name)
{
	if (classes_read(ctx) < 0)
		return -1;
	for (size_t i = 0; i < ctx->nclasses; i++)
		if (ctx->classes[i].type == type &&
		    ctx->classes[i].major == major &&
		    !strcmp(ctx->classes[i].name, name))
			return 1;
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

bool devallow_is_pattern(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

bool devallow_is_numbers(const char *spec)
{
	return (spec[0] == 'c' || spec[0] == 'b') &&
	       isspace((unsigned char)spec[1]);
}

/* The last run of blanks in s, NULL when it has none. */
static char *last_blank(char *s)
{
	char *blank = NULL;

	for (char *p = s; *p; p++) {
		if (isspace((unsigned char)*p) &&
		    (p == s || !isspace((unsigned char)p[-1])))
			blank = p;
	}
	return blank;
}

int devallow_split(char *item, char **spec, char **acc)
{
	char *colon = strrchr(item, ':'), *blank;

	/* "SPEC:ACCESS" unless what follows the colon holds a blank. */
	if (!devallow_is_numbers(item) && colon &&
	    !last_blank(devallow_trim(colon + 1))) {
		*colon = '\0';
		*spec = devallow_trim(item);
		*acc = devallow_trim(colon + 1);
		return ':';
	}
	if (!(blank = last_blank(item)))
		return -1;
	/* "c 195:0" has a blank, but no access after its numbers */
	if (devallow_is_numbers(item) && strchr(blank, ':'))
		return -1;
	*blank = '\0';
	*spec = devallow_trim(item);
	*acc = devallow_trim(blank + 1);
	return ' ';
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

/* A decimal number up to max, the whole of [s, end).  -1 otherwise. */
static int number_parse(const char *s, const char *end, unsigned long max,
			uint32_t *n)
{
	unsigned long v = 0;

	if (s == end)
		return -1;
	for (; s < end; s++) {
		if (!isdigit((unsigned char)*s))
			return -1;
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > max)
			return -1;
	}
	*n = (uint32_t)v;
	return 0;
}

/* The Linux limits of a device number's two parts (20 and 12 bits). */
#define MAJOR_MAX 4095ul
#define MINOR_MAX 1048575ul

int devallow_numbers_parse(const char *spec, struct devrule *r)
{
	const char *s = spec + 1, *colon;

	r->type = spec[0];
	while (isspace((unsigned char)*s))
		s++;
	if (!(colon = strchr(s, ':')) ||
	    number_parse(s, colon, MAJOR_MAX, &r->major) < 0)
		return -1;
	r->any_minor = !strcmp(colon + 1, "*");
	r->minor = 0;
	if (r->any_minor)
		return 0;
	return number_parse(colon + 1, colon + strlen(colon), MINOR_MAX,
			    &r->minor);
}

/* "TYPE MAJOR:MINOR ACCESS": a rule as it is, no device looked at. */
static int entry_numbers(struct parse_ctx *ctx, const char *written,
			 const char *spec, unsigned access,
			 struct devrule_list *out)
{
	struct devrule r;

	if (devallow_numbers_parse(spec, &r) < 0) {
		devallow_report(ctx, REPORT_ERROR,
		       "DeviceAllow entry '%s': '%s' is not TYPE MAJOR:MINOR (c or b, then numbers up to %lu:%lu, '*' for any minor)",
		       written, spec, MAJOR_MAX, MINOR_MAX);
		return 0;
	}
	if (ctx->syntax_only || ctx->patterns_only)
		return 0;
	return devrule_list_add(out, r.type, r.major, r.minor, r.any_minor,
				access);
}

/* An absolute path: the device node it names now. */
static int entry_path(struct parse_ctx *ctx, const char *written,
		      const char *spec, unsigned access,
		      struct devrule_list *out)
{
	char type, why[PATH_MAX + 64];
	uint32_t major, minor;
	int rc;

	if (ctx->syntax_only || ctx->patterns_only)
		return 0;
	rc = devrule_resolve_path(spec, &type, &major, &minor, why,
				  sizeof(why));
	if (rc < 0)
		devallow_report(ctx, REPORT_ERROR, "DeviceAllow entry '%s': %s",
				written, why);
	else if (rc == 0)
		devallow_report(ctx, REPORT_WARNING,
		       "DeviceAllow entry '%s': %s does not exist, entry skipped",
		       written, spec);
	else if (devrule_list_add(out, type, major, minor, false, access) < 0)
		return -1;
	return 0;
}

/*
 * A pattern or class that matches nothing: on a node that lacks the
 * devices a warning, the entry skipped; in devns check's look at the
 * patterns (patterns_only) an error, since a typo matches nothing too.
 */
static void no_match(struct parse_ctx *ctx, const char *written,
		     const char *what)
{
	devallow_report(ctx, ctx->patterns_only ? REPORT_ERROR
						: REPORT_WARNING,
			"DeviceAllow entry '%s': %s%s", written, what,
			ctx->patterns_only ? "" : ", entry skipped");
}

/*
 * An absolute path with * ? [: every device node it matches now; what is
 * no device node (a directory beside them) is passed over.
 */
static int entry_glob(struct parse_ctx *ctx, const char *written,
		      const char *spec, unsigned access,
		      struct devrule_list *out)
{
	char type, why[PATH_MAX + 64], what[PATH_MAX + 64];
	uint32_t major, minor;
	int rc, found = 0;
	glob_t g;

	if (ctx->syntax_only)
		return 0;
	memset(&g, 0, sizeof(g));
	rc = glob(spec, 0, NULL, &g);
	if (rc == GLOB_NOSPACE) {
		errno = ENOMEM;
		return -1;
	}
	if (rc == GLOB_ABORTED)
		devallow_report(ctx, REPORT_ERROR, "DeviceAllow entry '%s': "
				"cannot read the directories of %s", written,
				spec);
	for (size_t i = 0; rc == 0 && i < g.gl_pathc; i++) {
		if (devrule_resolve_path(g.gl_pathv[i], &type, &major,
					 &minor, why, sizeof(why)) != 1)
			continue;
		found++;
		if (!ctx->patterns_only &&
		    devrule_list_add(out, type, major, minor, false,
				     access) < 0) {
			globfree(&g);
			return -1;
		}
	}
	if (rc != GLOB_ABORTED && !found) {
		snprintf(what, sizeof(what), "no device node matches %s", spec);
		no_match(ctx, written, what);
	}
	globfree(&g);
	return 0;
}

/* char-NAME or block-NAME: every major of the name, or of the pattern. */
static int entry_class(struct parse_ctx *ctx, const char *written,
		       const char *spec, unsigned access,
		       struct devrule_list *out)
{
	char type = spec[0] == 'c' ? 'c' : 'b';
	const char *name = spec + (type == 'c' ? 5 : 6);
	char what[512];
	int rc;

	if (!*name) {
		devallow_report(ctx, REPORT_ERROR,
		       "DeviceAllow entry '%s': empty device class name",
		       written);
		return 0;
	}
	if (ctx->syntax_only)
		return 0;
	if ((rc = devallow_add_class(ctx, type, name, access, out)) < 0)
		return errno == EIO ? 0 : -1; /* EIO: reported */
	if (rc == 0) {
		snprintf(what, sizeof(what), "no %s device class %s'%s' in %s",
			 type == 'c' ? "character" : "block",
			 devallow_is_pattern(name) ? "matches " : "",
			 name, ctx->proc_devices ? ctx->proc_devices
						 : PROC_DEVICES);
		no_match(ctx, written, what);
	}
	return 0;
}

/* The device part of an entry, of whichever kind. */
static int entry_device(struct parse_ctx *ctx, const char *written,
			const char *spec, unsigned access,
			struct devrule_list *out)
{
	if (devallow_is_numbers(spec))
		return entry_numbers(ctx, written, spec, access, out);
	if (spec[0] == '/' && devallow_is_pattern(spec))
		return entry_glob(ctx, written, spec, access, out);
	if (spec[0] == '/')
		return entry_path(ctx, written, spec, access, out);
	if (!strncmp(spec, "char-", 5) || !strncmp(spec, "block-", 6))
		return entry_class(ctx, written, spec, access, out);
	devallow_report(ctx, REPORT_ERROR,
	       "DeviceAllow entry '%s': '%s' is neither an absolute device path, char-NAME/block-NAME nor TYPE MAJOR:MINOR",
	       written, spec);
	return 0;
}

void devallow_name(int sep, const char *spec, const char *acc, char *buf,
		   size_t len)
{
	snprintf(buf, len, "%s%c%s", spec, sep, acc);
}

/*
 * One entry, written "SPEC:ACCESS", "SPEC ACCESS" or "TYPE MAJOR:MINOR
 * ACCESS".  Problems are reported (and counted in ctx); the return is -1
 * only for failures that are not the entry's fault (ENOMEM).
 */
static int parse_entry(struct parse_ctx *ctx, char *item,
		       struct devrule_list *out)
{
	char name[PATH_MAX + 64], *spec, *acc;
	unsigned access;
	int sep;

	snprintf(name, sizeof(name), "%s", item);
	if ((sep = devallow_split(item, &spec, &acc)) < 0) {
		devallow_report(ctx, REPORT_ERROR,
		       devallow_is_numbers(name)
		       ? "DeviceAllow entry '%s' has no access (want TYPE MAJOR:MINOR ACCESS, ACCESS from rwm)"
		       : "DeviceAllow entry '%s' has no ':ACCESS' (want SPEC:ACCESS or SPEC ACCESS, ACCESS from rwm)",
		       name);
		return 0;
	}
	devallow_name(sep, spec, acc, name, sizeof(name));
	if (!*spec)
		devallow_report(ctx, REPORT_ERROR,
		       "DeviceAllow entry '%s' has an empty device", name);
	else if (parse_access(acc, &access) < 0)
		devallow_report(ctx, REPORT_ERROR,
		       "DeviceAllow entry '%s': bad access '%s' (want a non-empty subset of rwm, each letter once)",
		       name, acc);
	else
		return entry_device(ctx, name, spec, access, out);
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

/*
 * Parse text with ctx for its reports only (the rules are dropped): the
 * entry count, or -1 (EINVAL when an error was reported).
 */
static int check_only(struct parse_ctx *ctx, const char *text)
{
	struct devrule_list unused;
	int rc;

	devrule_list_init(&unused, false);
	rc = devallow_parse(ctx, text, &unused);
	devrule_list_free(&unused);
	devallow_classes_free(ctx);
	if (rc >= 0 && ctx->errors) {
		errno = EINVAL;
		return -1;
	}
	return rc;
}

int devallow_check(const char *text, struct report *rep)
{
	struct parse_ctx ctx = {
		.syntax_only = true,
		.rep = rep,
	};

	return check_only(&ctx, text);
}

int devallow_check_patterns(const char *text, const char *where,
			    const char *proc_devices, struct report *rep)
{
	struct parse_ctx ctx = {
		.proc_devices = proc_devices,
		.patterns_only = true,
		.where = where,
		.rep = rep,
	};

	return check_only(&ctx, text) < 0 ? -1 : 0;
}
