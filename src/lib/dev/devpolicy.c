/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devpolicy.c - DevicePolicy/DeviceAllow + GRES devices -> device rule list.
 *
 * Device paths are resolved to numbers here, once, with stat(2): the kernel
 * checks device numbers, never names, so a rule must not depend on which
 * name the job later opens a device by.  Classes (char-NAME, block-NAME)
 * come from /proc/devices and cover every major registered under the name
 * with any minor, as in systemd's DeviceAllow and flux's IMP.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "dev/devpolicy.h"
#include "util/report.h"

#define PROC_DEVICES "/proc/devices"

/* The standard pseudo-devices "closed" adds; all get rwm. */
static const char *const pseudo_devices[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
	"/dev/tty", "/dev/ptmx", NULL,
};

/* One "MAJOR NAME" line of /proc/devices. */
struct devclass {
	char type;
	uint32_t major;
	char *name;
};

/* State shared by the entries of one parse or build call. */
struct parse_ctx {
	const char *proc_devices;
	struct devclass *classes; /* read on first use */
	size_t nclasses;
	bool classes_read;
	bool classes_failed; /* reported once; later classes fail quietly */
	bool syntax_only;    /* check the spelling, resolve nothing */
	int errors;
	const char *where;   /* put before each message: "FILE:LINE" */
	struct report *rep;
};

__attribute__((format(printf, 3, 4)))
static void report(struct parse_ctx *ctx, enum report_level level,
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

void devrule_list_init(struct devrule_list *list, bool default_allow)
{
	list->rules = NULL;
	list->count = 0;
	list->alloc = 0;
	list->default_allow = default_allow;
}

void devrule_list_free(struct devrule_list *list)
{
	free(list->rules);
	devrule_list_init(list, list->default_allow);
}

/* Appends one rule; pinned only for exact rules (devrule_list_pin). */
static int list_add(struct devrule_list *list, char type, uint32_t major,
		    uint32_t minor, bool any_minor, unsigned access,
		    bool pinned)
{
	struct devrule *r;

	if ((type != 'c' && type != 'b') || (access & ~DEVRULE_RWM)) {
		errno = EINVAL;
		return -1;
	}
	if (list->count == list->alloc) {
		size_t n = list->alloc ? list->alloc * 2 : 16;
		struct devrule *p = reallocarray(list->rules, n, sizeof(*p));

		if (!p)
			return -1;
		list->rules = p;
		list->alloc = n;
	}
	r = &list->rules[list->count++];
	r->type = type;
	r->major = major;
	r->minor = any_minor ? 0 : minor;
	r->any_minor = any_minor;
	r->access = access;
	r->pinned = pinned && !any_minor;
	return 0;
}

int devrule_list_add(struct devrule_list *list, char type, uint32_t major,
		     uint32_t minor, bool any_minor, unsigned access)
{
	return list_add(list, type, major, minor, any_minor, access, false);
}

int devrule_list_pin(struct devrule_list *list, char type, uint32_t major,
		     uint32_t minor, unsigned access)
{
	return list_add(list, type, major, minor, false, access, true);
}

/* Order of keys: type, major, the wildcard before exact minors, minor. */
static int key_cmp(const struct devrule *x, const struct devrule *y)
{
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	if (x->major != y->major)
		return x->major < y->major ? -1 : 1;
	if (x->any_minor != y->any_minor)
		return x->any_minor ? -1 : 1;
	if (x->minor != y->minor)
		return x->minor < y->minor ? -1 : 1;
	return 0;
}

/* key_cmp, then pinned before unpinned, so that merging meets it first. */
static int rule_cmp(const void *a, const void *b)
{
	const struct devrule *x = a, *y = b;
	int c = key_cmp(x, y);

	if (c || x->pinned == y->pinned)
		return c;
	return x->pinned ? -1 : 1;
}

void devrule_list_normalise(struct devrule_list *list)
{
	unsigned dflt = list->default_allow ? DEVRULE_RWM : 0;
	size_t i, n = 0;

	if (list->count == 0)
		return;
	qsort(list->rules, list->count, sizeof(*list->rules), rule_cmp);

	/*
	 * Merge duplicates: a device named twice gets the union, except that
	 * its pinned rules (sorted first) leave out its unpinned ones.
	 */
	for (i = 0; i < list->count; i++) {
		struct devrule *prev = n > 0 ? &list->rules[n - 1] : NULL;
		const struct devrule *r = &list->rules[i];

		if (!prev || key_cmp(prev, r) != 0)
			list->rules[n++] = *r;
		else if (prev->pinned == r->pinned)
			prev->access |= r->access;
	}
	list->count = n;

	/*
	 * Per type/major: widen unpinned exact rules by the wildcard so that
	 * "exact rule wins" equals the union, then drop what equals its
	 * fallback.  A pinned rule stays pinned only while the wildcard has a
	 * bit it lacks: otherwise pinning changes nothing, and the canonical
	 * form is unpinned.  The wildcard (sorted first) is judged last,
	 * against the default, because the exact rules have absorbed its
	 * access by then; when it goes, no exact rule of its major needs
	 * pinning any more.
	 */
	n = 0;
	for (i = 0; i < list->count;) {
		struct devrule w = list->rules[i];
		bool has_wild = w.any_minor;
		unsigned fallback = has_wild ? w.access : dflt;
		size_t j = has_wild ? i + 1 : i;
		size_t keep_wild = n;

		if (has_wild)
			list->rules[n++] = w;
		for (; j < list->count && list->rules[j].type == w.type &&
		       list->rules[j].major == w.major; j++) {
			struct devrule r = list->rules[j];

			if (r.pinned && (!has_wild || !(w.access & ~r.access)))
				r.pinned = false;
			if (!r.pinned && has_wild)
				r.access |= w.access;
			if (r.access != fallback)
				list->rules[n++] = r;
		}
		if (has_wild && w.access == dflt) {
			memmove(&list->rules[keep_wild], &list->rules[keep_wild + 1],
				(n - keep_wild - 1) * sizeof(*list->rules));
			n--;
			for (size_t k = keep_wild; k < n; k++)
				list->rules[k].pinned = false;
		}
		i = j;
	}
	list->count = n;
}

unsigned devrule_list_access(const struct devrule_list *list, char type,
			     uint32_t major, uint32_t minor)
{
	unsigned access = 0, pinned_access = 0;
	bool matched = false, pinned = false;
	size_t i;

	for (i = 0; i < list->count; i++) {
		const struct devrule *r = &list->rules[i];

		if (r->type != type || r->major != major ||
		    !(r->any_minor || r->minor == minor))
			continue;
		if (r->pinned) {
			pinned_access |= r->access;
			pinned = true;
		} else {
			access |= r->access;
			matched = true;
		}
	}
	if (pinned)
		return pinned_access;
	if (!matched)
		return list->default_allow ? DEVRULE_RWM : 0;
	return access;
}

bool devrule_list_needs_filter(const struct devrule_list *list)
{
	return !(list->default_allow && list->count == 0);
}

int devrule_format(const struct devrule *rule, char *buf, size_t size)
{
	char acc[4] = "";
	size_t n = 0;

	if ((rule->type != 'c' && rule->type != 'b') ||
	    (rule->access & ~DEVRULE_RWM)) {
		errno = EINVAL;
		return -1;
	}
	if (rule->access & DEVRULE_R)
		acc[n++] = 'r';
	if (rule->access & DEVRULE_W)
		acc[n++] = 'w';
	if (rule->access & DEVRULE_M)
		acc[n++] = 'm';
	acc[n] = '\0';
	if (rule->any_minor)
		return snprintf(buf, size, "%c %u:* %s", rule->type,
				rule->major, n ? acc : "-");
	return snprintf(buf, size, "%c %u:%u %s", rule->type, rule->major,
			rule->minor, n ? acc : "-");
}

static const char *const mode_names[] = {
	[DEVPOLICY_AUTO] = "auto",
	[DEVPOLICY_CLOSED] = "closed",
	[DEVPOLICY_STRICT] = "strict",
};

int devpolicy_mode_parse(const char *name, enum devpolicy_mode *mode)
{
	size_t i;

	for (i = 0; name && i < sizeof(mode_names) / sizeof(*mode_names); i++) {
		if (!strcasecmp(name, mode_names[i])) {
			*mode = (enum devpolicy_mode)i;
			return 0;
		}
	}
	errno = EINVAL;
	return -1;
}

const char *devpolicy_mode_name(enum devpolicy_mode mode)
{
	if ((unsigned)mode >= sizeof(mode_names) / sizeof(*mode_names))
		return "?";
	return mode_names[mode];
}

static void classes_free(struct parse_ctx *ctx)
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
		report(ctx, REPORT_ERROR,
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
static int add_class(struct parse_ctx *ctx, char type, const char *name,
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
static int resolve_path(const char *path, char *type, uint32_t *major,
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
static char *trim(char *s)
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
		report(ctx, REPORT_ERROR,
		       "DeviceAllow entry '%s' has no ':ACCESS' (want SPEC:ACCESS, ACCESS from rwm)",
		       item);
		return 0;
	}
	*colon = '\0';
	spec = trim(item);
	acc = trim(colon + 1);
	if (!*spec) {
		report(ctx, REPORT_ERROR,
		       "DeviceAllow entry ':%s' has an empty device", acc);
		return 0;
	}
	if (parse_access(acc, &access) < 0) {
		report(ctx, REPORT_ERROR,
		       "DeviceAllow entry '%s:%s': bad access '%s' (want a non-empty subset of rwm, each letter once)",
		       spec, acc, acc);
		return 0;
	}
	if (spec[0] == '/' && ctx->syntax_only)
		return 0;
	if (spec[0] == '/') {
		char type;
		uint32_t major, minor;
		int rc = resolve_path(spec, &type, &major, &minor, why,
				      sizeof(why));

		if (rc < 0)
			report(ctx, REPORT_ERROR, "DeviceAllow entry '%s:%s': %s",
			       spec, acc, why);
		else if (rc == 0)
			report(ctx, REPORT_WARNING,
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
			report(ctx, REPORT_ERROR,
			       "DeviceAllow entry '%s:%s': empty device class name",
			       spec, acc);
			return 0;
		}
		if (ctx->syntax_only)
			return 0;
		if ((rc = add_class(ctx, type, name, access, out)) < 0)
			return errno == EIO ? 0 : -1; /* EIO: reported */
		if (rc == 0)
			report(ctx, REPORT_WARNING,
			       "DeviceAllow entry '%s:%s': no %s device class '%s' in %s, entry skipped",
			       spec, acc, type == 'c' ? "character" : "block",
			       name, ctx->proc_devices ? ctx->proc_devices
						       : PROC_DEVICES);
		return 0;
	}
	report(ctx, REPORT_ERROR,
	       "DeviceAllow entry '%s:%s': '%s' is neither an absolute device path nor char-NAME/block-NAME",
	       spec, acc, spec);
	return 0;
}

/* parse_allow with the caller's context, so that build shares classes. */
static int parse_allow(struct parse_ctx *ctx, const char *text,
		       struct devrule_list *out)
{
	char *copy, *item, *next;
	int entries = 0;

	if (!text)
		return 0;
	if (!(copy = strdup(text)))
		return -1;
	if (!*trim(copy)) {
		free(copy);
		return 0;
	}
	for (item = copy; item; item = next) {
		char *t;

		if ((next = strchr(item, ',')))
			*next++ = '\0';
		t = trim(item);
		entries++;
		if (!*t) {
			report(ctx, REPORT_ERROR,
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
	int rc = parse_allow(&ctx, text, out);

	classes_free(&ctx);
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
	rc = parse_allow(&ctx, text, &unused);
	devrule_list_free(&unused);
	if (rc >= 0 && ctx.errors) {
		errno = EINVAL;
		return -1;
	}
	return rc;
}

/*
 * Pins the device behind a GRES file to the given access.  A GRES file
 * that is missing or no device is an error: Slurm refuses such a node, and
 * skipping it could leave a GPU the job was not given unfiltered.
 */
static int add_gres(struct parse_ctx *ctx, const char *path, unsigned access,
		    struct devrule_list *out)
{
	char type, why[PATH_MAX + 64];
	uint32_t major, minor;
	int rc;

	if (path[0] != '/') {
		report(ctx, REPORT_ERROR,
		       "GRES device file '%s' is not an absolute path", path);
		return 0;
	}
	rc = resolve_path(path, &type, &major, &minor, why, sizeof(why));
	if (rc < 0)
		report(ctx, REPORT_ERROR, "GRES device file: %s", why);
	else if (rc == 0)
		report(ctx, REPORT_ERROR,
		       "GRES device file %s does not exist", path);
	else
		return devrule_list_pin(out, type, major, minor, access);
	return 0;
}

/* The pseudo-devices of "closed"; a missing one is only a warning. */
static int add_pseudo(struct parse_ctx *ctx, struct devrule_list *out)
{
	char type, why[PATH_MAX + 64];
	uint32_t major, minor;
	size_t i;
	int rc;

	for (i = 0; pseudo_devices[i]; i++) {
		rc = resolve_path(pseudo_devices[i], &type, &major, &minor, why,
				  sizeof(why));
		if (rc < 0)
			report(ctx, REPORT_ERROR, "standard device: %s", why);
		else if (rc == 0)
			report(ctx, REPORT_WARNING,
			       "standard device %s does not exist, skipped",
			       pseudo_devices[i]);
		else if (devrule_list_add(out, type, major, minor, false,
					  DEVRULE_RWM) < 0)
			return -1;
	}
	rc = add_class(ctx, 'c', "pts", DEVRULE_R | DEVRULE_W, out);
	if (rc < 0)
		return errno == EIO ? 0 : -1;
	if (rc == 0)
		report(ctx, REPORT_WARNING,
		       "no character device class 'pts' (pseudo-terminals), skipped");
	return 0;
}

/* Appends every rule of from to to. */
static int list_append(struct devrule_list *to, const struct devrule_list *from)
{
	for (size_t i = 0; i < from->count; i++) {
		const struct devrule *r = &from->rules[i];

		if (list_add(to, r->type, r->major, r->minor, r->any_minor,
			     r->access, r->pinned) < 0)
			return -1;
	}
	return 0;
}

static bool mode_valid(enum devpolicy_mode mode)
{
	return mode == DEVPOLICY_AUTO || mode == DEVPOLICY_CLOSED ||
	       mode == DEVPOLICY_STRICT;
}

/* Keep a copy of the lines (and of their text, joined).  0 or -1. */
static int lines_keep(struct devpolicy *policy,
		      const struct devpolicy_allow *lines, size_t count)
{
	size_t len = 1, used = 0;

	if (!count)
		return 0;
	if (!(policy->lines = calloc(count, sizeof(*policy->lines))))
		return -1;
	policy->line_count = count;
	for (size_t i = 0; i < count; i++) {
		struct devpolicy_line *l = &policy->lines[i];

		len += strlen(lines[i].value) + 1;
		if (!(l->value = strdup(lines[i].value)) ||
		    (lines[i].where && !(l->where = strdup(lines[i].where))))
			return -1;
	}
	if (!(policy->allow = malloc(len)))
		return -1;
	for (size_t i = 0; i < count; i++)
		used += (size_t)sprintf(policy->allow + used, "%s%s",
					i ? "," : "", lines[i].value);
	if (lines[0].where && !(policy->where = strdup(lines[0].where)))
		return -1;
	return 0;
}

/* Every line's entries into policy->base.  Returns their count, or -1. */
static int lines_parse(struct parse_ctx *ctx, struct devpolicy *policy)
{
	int entries = 0, n;

	for (size_t i = 0; i < policy->line_count; i++) {
		ctx->where = policy->lines[i].where;
		n = parse_allow(ctx, policy->lines[i].value, &policy->base);
		if (n < 0)
			return -1;
		entries += n;
	}
	ctx->where = NULL;	/* the rest is not DeviceAllow's doing */
	return entries;
}

int devpolicy_load_lines(struct devpolicy *policy, enum devpolicy_mode mode,
			 const struct devpolicy_allow *lines, size_t count,
			 const char *proc_devices, struct report *rep)
{
	struct parse_ctx ctx = {
		.proc_devices = proc_devices,
		.rep = rep,
	};
	bool with_pseudo;
	int entries, saved;

	memset(policy, 0, sizeof(*policy));
	policy->mode = mode;
	devrule_list_init(&policy->base, false);
	if (!mode_valid(mode)) {
		errno = EINVAL;
		return report_error(rep, "DevicePolicy: unknown mode %d",
				    (int)mode);
	}
	if (lines_keep(policy, lines, count) < 0)
		goto error;
	if ((entries = lines_parse(&ctx, policy)) < 0)
		goto error;
	policy->allow_entries = entries;

	/*
	 * "auto" without DeviceAllow is the only open mode.  Entries count even
	 * when all of them were skipped: the admin asked for a closed list.
	 */
	if (mode == DEVPOLICY_AUTO && entries == 0)
		policy->base.default_allow = true;
	with_pseudo = mode == DEVPOLICY_CLOSED ||
		      (mode == DEVPOLICY_AUTO && entries > 0);
	if (with_pseudo && add_pseudo(&ctx, &policy->base) < 0)
		goto error;
	if (ctx.errors) {
		errno = EINVAL;
		goto error;
	}
	classes_free(&ctx);
	return 0;
error:
	saved = errno;
	classes_free(&ctx);
	devpolicy_free(policy);
	errno = saved;
	return -1;
}

int devpolicy_load(struct devpolicy *policy, enum devpolicy_mode mode,
		   const char *device_allow, const char *where,
		   const char *proc_devices, struct report *rep)
{
	struct devpolicy_allow line = { device_allow, where };

	return devpolicy_load_lines(policy, mode, &line, device_allow ? 1 : 0,
				    proc_devices, rep);
}

void devpolicy_free(struct devpolicy *policy)
{
	devrule_list_free(&policy->base);
	for (size_t i = 0; i < policy->line_count; i++) {
		free(policy->lines[i].value);
		free(policy->lines[i].where);
	}
	free(policy->lines);
	free(policy->allow);
	free(policy->where);
	policy->lines = NULL;
	policy->line_count = 0;
	policy->allow = NULL;
	policy->where = NULL;
}

bool devpolicy_is_open(const struct devpolicy *policy)
{
	return policy->mode == DEVPOLICY_AUTO && policy->allow_entries == 0;
}

int devpolicy_build(const struct devpolicy *policy,
		    const char *const *node_gres, const char *const *job_gres,
		    struct devrule_list *out, struct report *rep)
{
	struct parse_ctx ctx = { .rep = rep };
	size_t i;
	int saved;

	devrule_list_init(out, policy->base.default_allow);
	if (list_append(out, &policy->base) < 0)
		goto error;
	/*
	 * Node GRES files are pinned to "no access", those the job holds to
	 * rwm (the union of pinned rules lets the job's win): pinned, because
	 * DeviceAllow's classes (char-nvidia-frontend covers every
	 * /dev/nvidiaN) must not hand another job's GPU to this one, as Slurm's
	 * ConstrainDevices never does.  Normalising drops a denial that no
	 * class widens, but resolving it still catches a broken list.
	 */
	for (i = 0; node_gres && node_gres[i]; i++)
		if (add_gres(&ctx, node_gres[i], 0, out) < 0)
			goto error;
	for (i = 0; job_gres && job_gres[i]; i++)
		if (add_gres(&ctx, job_gres[i], DEVRULE_RWM, out) < 0)
			goto error;
	if (ctx.errors) {
		errno = EINVAL;
		goto error;
	}
	devrule_list_normalise(out);
	return 0;
error:
	saved = errno;
	devrule_list_free(out);
	errno = saved;
	return -1;
}

/* A GRES device file of the node, resolved for devpolicy_check_gres. */
struct gres_dev {
	const char *path;
	char type;
	uint32_t major, minor;
};

/*
 * The GRES device of the node that the DeviceAllow path spec names (the
 * same path, or a path to the same device node), NULL when none.
 */
static const struct gres_dev *names_gres(const char *spec,
					 const struct gres_dev *devs,
					 size_t ndevs)
{
	char type, why[PATH_MAX + 64];
	uint32_t major, minor;
	bool resolved;
	size_t i;

	resolved = resolve_path(spec, &type, &major, &minor, why,
				sizeof(why)) == 1;
	for (i = 0; i < ndevs; i++) {
		if (!strcmp(spec, devs[i].path))
			return &devs[i];
		if (resolved && type == devs[i].type &&
		    major == devs[i].major && minor == devs[i].minor)
			return &devs[i];
	}
	return NULL;
}

/* Reports every DeviceAllow path entry that names a GRES device. */
static int check_paths(struct parse_ctx *ctx, const char *text,
		       const struct gres_dev *devs, size_t ndevs)
{
	char *copy, *item, *next;

	if (!(copy = strdup(text)))
		return -1;
	for (item = copy; item; item = next) {
		const struct gres_dev *d;
		char *colon, *spec;

		if ((next = strchr(item, ',')))
			*next++ = '\0';
		if (!(colon = strrchr(item, ':')))
			continue;	/* load reported it */
		*colon = '\0';
		spec = trim(item);
		if (spec[0] != '/' || !(d = names_gres(spec, devs, ndevs)))
			continue;
		report(ctx, REPORT_ERROR,
		       "DeviceAllow entry '%s:%s' names GRES device %s (%c %u:%u): GRES devices are given only to the jobs allocated them (remove the entry)",
		       spec, trim(colon + 1), d->path, d->type, d->major,
		       d->minor);
	}
	free(copy);
	return 0;
}

/* One info line per class of DeviceAllow that covers GRES devices. */
static void note_classes(struct parse_ctx *ctx, const struct devpolicy *policy,
			 const struct gres_dev *devs, size_t ndevs)
{
	const char *where = ctx->where ? ctx->where : "";
	size_t i, j;

	for (i = 0; i < policy->base.count; i++) {
		const struct devrule *w = &policy->base.rules[i];
		const struct gres_dev *first = NULL;
		size_t covered = 0;
		char rule[64];

		if (!w->any_minor || !w->access)
			continue;
		for (j = 0; j < ndevs; j++) {
			if (devs[j].type != w->type || devs[j].major != w->major)
				continue;
			if (!first)
				first = &devs[j];
			covered++;
		}
		if (!covered)
			continue;
		devrule_format(w, rule, sizeof(rule));
		report_info(ctx->rep, "%s%sDeviceAllow's '%s' covers %zu GRES device(s) (%s%s): left out of it, only the jobs allocated one get it",
			    where, *where ? ": " : "", rule, covered,
			    first->path, covered > 1 ? ", ..." : "");
	}
}

int devpolicy_check_gres(const struct devpolicy *policy,
			 const char *const *node_gres, struct report *rep)
{
	struct parse_ctx ctx = { .rep = rep };
	struct gres_dev *devs;
	size_t i, n = 0;

	if (!policy->allow || !node_gres || !node_gres[0])
		return 0;
	while (node_gres[n])
		n++;
	if (!(devs = calloc(n, sizeof(*devs))))
		return -1;
	for (i = 0; i < n; i++) {
		struct gres_dev *d = &devs[i];
		char why[PATH_MAX + 64];

		/*
		 * One that does not resolve (devpolicy_build fails on it) is
		 * still matched by its name; type 0 matches no device.
		 */
		d->path = node_gres[i];
		if (resolve_path(d->path, &d->type, &d->major, &d->minor, why,
				 sizeof(why)) != 1)
			d->type = 0;
	}
	for (i = 0; i < policy->line_count; i++) {
		ctx.where = policy->lines[i].where;
		if (check_paths(&ctx, policy->lines[i].value, devs, n) < 0) {
			free(devs);
			errno = ENOMEM;
			return -1;
		}
	}
	/* A class's rule no longer says which line it came from. */
	ctx.where = policy->line_count == 1 ? policy->where : NULL;
	note_classes(&ctx, policy, devs, n);
	free(devs);
	if (ctx.errors) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}
