/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devallow.c - DeviceAllow text -> device rules.  Device paths are
 * resolved to numbers here, once, with stat(2): the kernel checks device
 * numbers, never names, so a rule must not depend on which name the job
 * later opens a device by.  Classes (char-NAME, block-NAME) come from
 * /proc/devices and cover every major registered under the name with any
 * minor, as in systemd's DeviceAllow and flux's IMP.  A value is read
 * once into entries (devallow_read, at load: the syntax), and the
 * entries resolved (devallow_resolve) without reading the text again.
 * See devallow.h and devpolicy.h for the calls, devallow_int.h for what
 * devpolicy.c shares.
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

/* Tell whether a path or class name holds glob characters (* ? [). */
static bool devallow_is_pattern(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
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
static char *devallow_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* Tell whether a spec (as cut) is the numbers form, "c 195:*". */
static bool devallow_is_numbers(const char *spec)
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

/*
 * Cuts one entry (trimmed, not empty) into its device and its access, in
 * place, whichever way it is written: "SPEC:ACCESS" (the last ':', since
 * by-path names hold some), "SPEC ACCESS" (systemd's), or the numbers
 * that devrule_format() prints, "c 195:* rwm".  Returns the separator
 * to name it by (':' or ' ', see devallow_name), or -1 when there is no
 * access part.
 */
static int devallow_split(char *item, char **spec, char **acc)
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

/*
 * "c MAJOR:MINOR" or "b MAJOR:MINOR" into r's type and numbers, MINOR a
 * number or '*' (any_minor), as devrule_format() prints them.  Returns 0,
 * or -1 when malformed or beyond Linux's 12-bit major, 20-bit minor.
 */
static int devallow_numbers_parse(const char *spec, struct devrule *r)
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

/* An absolute path: the device node it names now. */
static int entry_path(struct parse_ctx *ctx, const struct devallow_entry *e,
		      struct devrule_list *out)
{
	char type, why[PATH_MAX + 64];
	uint32_t major, minor;
	int rc;

	if (ctx->patterns_only)
		return 0;
	rc = devrule_resolve_path(e->spec, &type, &major, &minor, why,
				  sizeof(why));
	if (rc < 0)
		devallow_report(ctx, REPORT_ERROR, "DeviceAllow entry '%s': %s",
				e->name, why);
	else if (rc == 0)
		devallow_report(ctx, REPORT_WARNING,
		       "DeviceAllow entry '%s': %s does not exist, entry skipped",
		       e->name, e->spec);
	else if (devrule_list_add(out, type, major, minor, false,
				  e->access) < 0)
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
static int entry_glob(struct parse_ctx *ctx, const struct devallow_entry *e,
		      struct devrule_list *out)
{
	char type, why[PATH_MAX + 64], what[PATH_MAX + 64];
	uint32_t major, minor;
	int rc, found = 0;
	glob_t g;

	memset(&g, 0, sizeof(g));
	rc = glob(e->spec, 0, NULL, &g);
	if (rc == GLOB_NOSPACE) {
		errno = ENOMEM;
		return -1;
	}
	if (rc == GLOB_ABORTED)
		devallow_report(ctx, REPORT_ERROR, "DeviceAllow entry '%s': "
				"cannot read the directories of %s", e->name,
				e->spec);
	for (size_t i = 0; rc == 0 && i < g.gl_pathc; i++) {
		if (devrule_resolve_path(g.gl_pathv[i], &type, &major,
					 &minor, why, sizeof(why)) != 1)
			continue;
		found++;
		if (!ctx->patterns_only &&
		    devrule_list_add(out, type, major, minor, false,
				     e->access) < 0) {
			globfree(&g);
			return -1;
		}
	}
	if (rc != GLOB_ABORTED && !found) {
		snprintf(what, sizeof(what), "no device node matches %s",
			 e->spec);
		no_match(ctx, e->name, what);
	}
	globfree(&g);
	return 0;
}

/* char-NAME or block-NAME: every major of the name, or of the pattern. */
static int entry_class(struct parse_ctx *ctx, const struct devallow_entry *e,
		       struct devrule_list *out)
{
	char type = e->spec[0] == 'c' ? 'c' : 'b';
	const char *name = e->spec + (type == 'c' ? 5 : 6);
	char what[512];
	int rc;

	if ((rc = devallow_add_class(ctx, type, name, e->access, out)) < 0)
		return errno == EIO ? 0 : -1; /* EIO: reported */
	if (rc == 0) {
		snprintf(what, sizeof(what), "no %s device class %s'%s' in %s",
			 type == 'c' ? "character" : "block",
			 devallow_is_pattern(name) ? "matches " : "",
			 name, ctx->proc_devices ? ctx->proc_devices
						 : PROC_DEVICES);
		no_match(ctx, e->name, what);
	}
	return 0;
}

/* An entry's name in messages: "SPEC:ACCESS" or "SPEC ACCESS" again. */
static void devallow_name(int sep, const char *spec, const char *acc, char *buf,
		   size_t len)
{
	snprintf(buf, len, "%s%c%s", spec, sep, acc);
}

/*
 * The device part of an entry: its kind, and for the numbers form the
 * numbers.  -1 after reporting a malformed one.
 */
static int spec_read(struct parse_ctx *ctx, const char *name,
		     struct devallow_entry *e)
{
	const char *spec = e->spec;

	if (devallow_is_numbers(spec)) {
		e->kind = DEVALLOW_NUMBERS;
		if (devallow_numbers_parse(spec, &e->rule) == 0)
			return 0;
		devallow_report(ctx, REPORT_ERROR,
		       "DeviceAllow entry '%s': '%s' is not TYPE MAJOR:MINOR (c or b, then numbers up to %lu:%lu, '*' for any minor)",
		       name, spec, MAJOR_MAX, MINOR_MAX);
		return -1;
	}
	if (spec[0] == '/') {
		e->kind = devallow_is_pattern(spec) ? DEVALLOW_GLOB
						    : DEVALLOW_PATH;
		return 0;
	}
	if (!strncmp(spec, "char-", 5) || !strncmp(spec, "block-", 6)) {
		e->kind = DEVALLOW_CLASS;
		if (spec[spec[0] == 'c' ? 5 : 6])
			return 0;
		devallow_report(ctx, REPORT_ERROR,
		       "DeviceAllow entry '%s': empty device class name",
		       name);
		return -1;
	}
	devallow_report(ctx, REPORT_ERROR,
	       "DeviceAllow entry '%s': '%s' is neither an absolute device path, char-NAME/block-NAME nor TYPE MAJOR:MINOR",
	       name, spec);
	return -1;
}

/*
 * One entry, written "SPEC:ACCESS", "SPEC ACCESS" or "TYPE MAJOR:MINOR
 * ACCESS", into e (its strings owned by e).  Returns 1, 0 after reporting
 * a malformed entry, or -1 (ENOMEM).
 */
static int entry_read(struct parse_ctx *ctx, char *item,
		      struct devallow_entry *e)
{
	char name[PATH_MAX + 64], *spec, *acc;
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
	memset(e, 0, sizeof(*e));
	e->spec = spec;
	if (!*spec) {
		devallow_report(ctx, REPORT_ERROR,
		       "DeviceAllow entry '%s' has an empty device", name);
		return 0;
	}
	if (parse_access(acc, &e->access) < 0) {
		devallow_report(ctx, REPORT_ERROR,
		       "DeviceAllow entry '%s': bad access '%s' (want a non-empty subset of rwm, each letter once)",
		       name, acc);
		return 0;
	}
	if (spec_read(ctx, name, e) < 0)
		return 0;
	e->rule.access = e->access;
	if (!(e->name = strdup(name)) || !(e->spec = strdup(spec))) {
		free(e->name);
		e->spec = NULL;
		return -1;
	}
	return 1;
}

void devallow_list_free(struct devallow_list *list)
{
	for (size_t i = 0; i < list->n; i++) {
		free(list->v[i].name);
		free(list->v[i].spec);
	}
	free(list->v);
	memset(list, 0, sizeof(*list));
}

int devallow_list_copy(struct devallow_list *dst,
		       const struct devallow_list *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->written = src->written;
	if (!src->n)
		return 0;
	if (!(dst->v = calloc(src->n, sizeof(*dst->v))))
		return -1;
	for (size_t i = 0; i < src->n; i++) {
		struct devallow_entry *e = &dst->v[dst->n];

		*e = src->v[i];
		e->name = strdup(src->v[i].name);
		e->spec = strdup(src->v[i].spec);
		dst->n++;
		if (!e->name || !e->spec) {
			devallow_list_free(dst);
			errno = ENOMEM;
			return -1;
		}
	}
	return 0;
}

int devallow_list_read(struct parse_ctx *ctx, const char *text,
		       struct devallow_list *out)
{
	char *copy, *item, *next;

	memset(out, 0, sizeof(*out));
	if (!text)
		return 0;
	if (!(copy = strdup(text)))
		return -1;
	if (!*devallow_trim(copy)) {
		free(copy);
		return 0;
	}
	for (item = copy; item; item = next) {
		struct devallow_entry *v;
		char *t;
		int rc;

		if ((next = strchr(item, ',')))
			*next++ = '\0';
		t = devallow_trim(item);
		out->written++;
		if (!*t) {
			devallow_report(ctx, REPORT_ERROR,
			       "DeviceAllow '%s': empty entry (item %d)", text,
			       out->written);
			continue;
		}
		v = reallocarray(out->v, out->n + 1, sizeof(*v));
		if (!v)
			goto error;
		out->v = v;
		if ((rc = entry_read(ctx, t, &v[out->n])) < 0)
			goto error;
		out->n += (size_t)rc;
	}
	free(copy);
	return 0;
error:
	free(copy);
	devallow_list_free(out);
	errno = ENOMEM;
	return -1;
}

int devallow_resolve(struct parse_ctx *ctx, const struct devallow_list *list,
		     struct devrule_list *out)
{
	for (size_t i = 0; i < list->n; i++) {
		const struct devallow_entry *e = &list->v[i];
		int rc = 0;

		switch (e->kind) {
		case DEVALLOW_NUMBERS:
			if (!ctx->patterns_only)
				rc = devrule_list_add(out, e->rule.type,
						      e->rule.major,
						      e->rule.minor,
						      e->rule.any_minor,
						      e->access);
			break;
		case DEVALLOW_PATH:
			rc = entry_path(ctx, e, out);
			break;
		case DEVALLOW_GLOB:
			rc = entry_glob(ctx, e, out);
			break;
		case DEVALLOW_CLASS:
			rc = entry_class(ctx, e, out);
			break;
		}
		if (rc < 0)
			return -1;
	}
	return 0;
}

int devallow_read(const char *text, struct devallow_list *out,
		  struct report *rep)
{
	struct parse_ctx ctx = { .rep = rep };
	struct devallow_list unused;
	struct devallow_list *list = out ? out : &unused;
	int written;

	if (devallow_list_read(&ctx, text, list) < 0)
		return -1;
	written = list->written;
	if (ctx.errors || !out)
		devallow_list_free(list);
	if (ctx.errors) {
		errno = EINVAL;
		return -1;
	}
	return written;
}

int devallow_check_patterns(const struct devallow_list *list,
			    const char *where, const char *proc_devices,
			    struct report *rep)
{
	struct parse_ctx ctx = {
		.proc_devices = proc_devices,
		.patterns_only = true,
		.where = where,
		.rep = rep,
	};
	struct devrule_list unused;
	int rc;

	devrule_list_init(&unused, false);
	rc = devallow_resolve(&ctx, list, &unused);
	devrule_list_free(&unused);
	devallow_classes_free(&ctx);
	if (rc == 0 && ctx.errors) {
		errno = EINVAL;
		return -1;
	}
	return rc;
}
