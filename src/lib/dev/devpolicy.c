/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devpolicy.c - DevicePolicy/DeviceAllow + GRES devices -> device rule
 * list: a node's policy loaded once, a job's list built from it, and the
 * GRES devices kept out of DeviceAllow.  The DeviceAllow text itself is
 * devallow.c's, the rule lists devrule.c's.
 */
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dev/devcdi.h"
#include "dev/devcomp.h"
#include "dev/devallow_int.h"
#include "dev/devpolicy.h"

/* The standard pseudo-devices "closed" adds; all get rwm. */
static const char *const pseudo_devices[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
	"/dev/tty", "/dev/ptmx", NULL,
};

static const char *const mode_names[] = {
	[DEVPOLICY_AUTO] = "auto",
	[DEVPOLICY_CLOSED] = "closed",
	[DEVPOLICY_STRICT] = "strict",
	[DEVPOLICY_NONE] = "none",
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
		devallow_report(ctx, REPORT_ERROR,
		       "GRES device file '%s' is not an absolute path", path);
		return 0;
	}
	rc = devrule_resolve_path(path, &type, &major, &minor, why, sizeof(why));
	if (rc < 0)
		devallow_report(ctx, REPORT_ERROR, "GRES device file: %s", why);
	else if (rc == 0)
		devallow_report(ctx, REPORT_ERROR,
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
		rc = devrule_resolve_path(pseudo_devices[i], &type, &major, &minor, why,
				 sizeof(why));
		if (rc < 0)
			devallow_report(ctx, REPORT_ERROR, "standard device: %s", why);
		else if (rc == 0)
			devallow_report(ctx, REPORT_WARNING,
			       "standard device %s does not exist, skipped",
			       pseudo_devices[i]);
		else if (devrule_list_add(out, type, major, minor, false,
					  DEVRULE_RWM) < 0)
			return -1;
	}
	rc = devallow_add_class(ctx, 'c', "pts", DEVRULE_R | DEVRULE_W, out);
	if (rc < 0)
		return errno == EIO ? 0 : -1;
	if (rc == 0)
		devallow_report(ctx, REPORT_WARNING,
		       "no character device class 'pts' (pseudo-terminals), skipped");
	return 0;
}

/* Appends every rule of from to to. */
static int list_append(struct devrule_list *to, const struct devrule_list *from)
{
	for (size_t i = 0; i < from->count; i++) {
		const struct devrule *r = &from->rules[i];

		int rc = r->pinned
			 ? devrule_list_pin(to, r->type, r->major, r->minor,
					    r->access)
			 : devrule_list_add(to, r->type, r->major, r->minor,
					    r->any_minor, r->access);

		if (rc < 0)
			return -1;
	}
	return 0;
}

static bool mode_valid(enum devpolicy_mode mode)
{
	return mode == DEVPOLICY_AUTO || mode == DEVPOLICY_CLOSED ||
	       mode == DEVPOLICY_STRICT || mode == DEVPOLICY_NONE;
}

/*
 * "none": every device is allowed, by devns at least.  A DeviceAllow
 * beside it would be a list the admin believes in and nothing applies.
 */
static int load_none(struct devpolicy *policy, struct report *rep)
{
	const char *where = policy->where;

	policy->base.default_allow = true;
	if (!policy->allow || !policy->allow[0] ||
	    !strcasecmp(policy->allow, "none"))
		return 0;
	errno = EINVAL;
	return report_error(rep, "%s%sDeviceAllow=%s has no effect with DevicePolicy=none (devices are left to Slurm's ConstrainDevices): remove one of them",
			    where ? where : "", where ? ": " : "",
			    policy->allow);
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
		if (lines[i].read) {
			if (devallow_list_copy(&l->entries, lines[i].read) < 0)
				return -1;
			l->read = true;
		}
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

/*
 * Every line's entries into policy->base, each line read first unless the
 * settings read it at load.  Returns their count, or -1.
 */
static int lines_parse(struct parse_ctx *ctx, struct devpolicy *policy)
{
	int entries = 0;

	for (size_t i = 0; i < policy->line_count; i++) {
		struct devpolicy_line *l = &policy->lines[i];

		ctx->where = l->where;
		if (!l->read) {
			if (devallow_list_read(ctx, l->value, &l->entries) < 0)
				return -1;
			l->read = true;
		}
		if (devallow_resolve(ctx, &l->entries, &policy->base) < 0)
			return -1;
		entries += l->entries.written;
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
	if (proc_devices && !(policy->proc_devices = strdup(proc_devices)))
		goto error;
	if (lines_keep(policy, lines, count) < 0)
		goto error;
	if (mode == DEVPOLICY_NONE) {
		if (load_none(policy, rep) < 0)
			goto error;
		return 0;
	}
	if ((entries = lines_parse(&ctx, policy)) < 0)
		goto error;
	policy->allow_entries = entries;

	/*
	 * "auto" without DeviceAllow is the only open mode here.  Entries count even
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
	devallow_classes_free(&ctx);
	return 0;
error:
	saved = errno;
	devallow_classes_free(&ctx);
	devpolicy_free(policy);
	errno = saved;
	return -1;
}

void devpolicy_free(struct devpolicy *policy)
{
	devrule_list_free(&policy->base);
	for (size_t i = 0; i < policy->line_count; i++) {
		free(policy->lines[i].value);
		free(policy->lines[i].where);
		devallow_list_free(&policy->lines[i].entries);
	}
	free(policy->lines);
	free(policy->allow);
	free(policy->where);
	free(policy->proc_devices);
	policy->proc_devices = NULL;
	if (policy->cdi)
		devcdi_free(policy->cdi);
	free(policy->cdi);
	policy->cdi = NULL;
	policy->lines = NULL;
	policy->line_count = 0;
	policy->allow = NULL;
	policy->where = NULL;
}

int devpolicy_load_cdi(struct devpolicy *policy, const char *dirs,
		       struct report *rep)
{
	struct devcdi *cdi;
	int saved;

	if (devpolicy_never_filters(policy)) {
		report_warning(rep, "CDISpecDirs=%s has no effect with DevicePolicy=none (devices are left to Slurm's ConstrainDevices)",
			       dirs);
		return 0;
	}
	if (!(cdi = calloc(1, sizeof(*cdi))))
		return -1;
	if (devcdi_load(cdi, dirs, rep) < 0) {
		saved = errno;
		devcdi_free(cdi);
		free(cdi);
		errno = saved;
		return -1;
	}
	if (policy->cdi)
		devcdi_free(policy->cdi);
	free(policy->cdi);
	policy->cdi = cdi;
	return 0;
}

bool devpolicy_is_open(const struct devpolicy *policy)
{
	return policy->mode == DEVPOLICY_AUTO && policy->allow_entries == 0;
}

bool devpolicy_never_filters(const struct devpolicy *policy)
{
	return policy->mode == DEVPOLICY_NONE;
}

int devpolicy_build(const struct devpolicy *policy,
		    const char *const *node_gres, const char *const *job_gres,
		    struct devrule_list *out, struct report *rep)
{
	struct parse_ctx ctx = {
		.proc_devices = policy->proc_devices,
		.rep = rep,
	};
	size_t i;
	int saved;

	devrule_list_init(out, policy->base.default_allow);
	if (devpolicy_never_filters(policy))
		return 0;
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
	if (policy->cdi && devcdi_build(policy->cdi, node_gres, job_gres,
					out) < 0)
		goto error;
	/*
	 * A vendor's shared companion (AMD's /dev/kfd) whatever the mode: a
	 * GPU job needs it under closed and strict too, and the GRES pins
	 * above stay the GPUs' containment (dev/devcomp.h).  EIO was
	 * reported: fail closed, the job's list is not known.
	 */
	if (!ctx.errors && devcomp_build(&ctx, job_gres, out) < 0 &&
	    errno != EIO)
		goto error;
	if (ctx.errors) {
		errno = EINVAL;
		goto error;
	}
	devallow_classes_free(&ctx);
	devrule_list_normalise(out);
	return 0;
error:
	saved = errno;
	devallow_classes_free(&ctx);
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

	resolved = devrule_resolve_path(spec, &type, &major, &minor, why,
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

/* The GRES device an exact "TYPE MAJOR:MINOR" rule names, NULL: none. */
static const struct gres_dev *numbers_gres(const struct devrule *r,
					   const struct gres_dev *devs,
					   size_t ndevs)
{
	if (r->any_minor)
		return NULL;
	for (size_t i = 0; i < ndevs; i++) {
		if (r->type == devs[i].type && r->major == devs[i].major &&
		    r->minor == devs[i].minor)
			return &devs[i];
	}
	return NULL;
}

/* The first GRES device of the node a path pattern matches, NULL: none. */
static const struct gres_dev *glob_gres(const char *spec,
					const struct gres_dev *devs,
					size_t ndevs)
{
	const struct gres_dev *d = NULL;
	glob_t g;

	memset(&g, 0, sizeof(g));
	if (glob(spec, 0, NULL, &g) == 0) {
		for (size_t i = 0; !d && i < g.gl_pathc; i++)
			d = names_gres(g.gl_pathv[i], devs, ndevs);
	}
	globfree(&g);
	return d;
}

/*
 * One entry: an error when it names a GRES device by a path or by its
 * numbers; an info line when a pattern covers one (pinning leaves the
 * device out of it, as for a class).
 */
static void check_entry(struct parse_ctx *ctx, const struct devallow_entry *e,
			const struct gres_dev *devs, size_t ndevs)
{
	const struct gres_dev *d = NULL;

	switch (e->kind) {
	case DEVALLOW_NUMBERS:
		d = numbers_gres(&e->rule, devs, ndevs);
		break;
	case DEVALLOW_GLOB:
		if ((d = glob_gres(e->spec, devs, ndevs)))
			report_info(ctx->rep, "%s%sDeviceAllow's '%s' matches GRES device %s: left out of it, only the jobs allocated it get it",
				    ctx->where ? ctx->where : "",
				    ctx->where ? ": " : "", e->name, d->path);
		return;
	case DEVALLOW_PATH:
		d = names_gres(e->spec, devs, ndevs);
		break;
	case DEVALLOW_CLASS:
		return;		/* note_classes */
	}
	if (!d)
		return;
	devallow_report(ctx, REPORT_ERROR,
	       "DeviceAllow entry '%s' names GRES device %s (%c %u:%u): GRES devices are given only to the jobs allocated them (remove the entry)",
	       e->name, d->path, d->type, d->major, d->minor);
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

	if (!node_gres || !node_gres[0])
		return 0;
	if (policy->cdi && devcdi_check_gres(policy->cdi, node_gres, rep) < 0)
		return -1;
	if (!policy->allow)
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
		if (devrule_resolve_path(d->path, &d->type, &d->major, &d->minor, why,
				sizeof(why)) != 1)
			d->type = 0;
	}
	for (i = 0; i < policy->line_count; i++) {
		const struct devallow_list *l = &policy->lines[i].entries;

		ctx.where = policy->lines[i].where;
		for (size_t j = 0; j < l->n; j++)
			check_entry(&ctx, &l->v[j], devs, n);
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
