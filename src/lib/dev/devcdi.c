/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devcdi.c - CDI specs -> the device rules of a job's GRES devices'
 * companions (see devcdi.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev/devcdi.h"

/* Resolves one spec's list of paths.  0, or -1 (ENOMEM, or reported). */
static int nodes_resolve(char *const *paths, size_t n, const char *what,
			 const char *file, int line, struct devcdi_nodes *out,
			 struct report *rep)
{
	char why[PATH_MAX + 64];
	int rc;

	if (n && !(out->v = calloc(n, sizeof(*out->v))))
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct devcdi_node *d = &out->v[out->count];

		rc = devrule_resolve_path(paths[i], &d->type, &d->major,
					  &d->minor, why, sizeof(why));
		if (rc < 0) {
			errno = EINVAL;
			return report_error(rep, "%s:%d: %s: %s", file, line,
					    what, why);
		}
		if (rc == 0) {
			report_warning(rep, "%s:%d: %s: device node %s does "
				       "not exist, left out", file, line,
				       what, paths[i]);
			continue;
		}
		d->path = paths[i];
		out->count++;
	}
	return 0;
}

static int spec_resolve(const struct cdispec *spec, struct devcdi_spec *out,
			struct report *rep)
{
	char what[128];

	out->spec = spec;
	if (!(out->devs = calloc(spec->ndevs, sizeof(*out->devs))))
		return -1;
	for (size_t j = 0; j < spec->ndevs; j++) {
		const struct cdidev *d = &spec->devs[j];

		snprintf(what, sizeof(what), "%s device \"%s\"", spec->kind,
			 d->name);
		if (nodes_resolve(d->nodes, d->count, what, spec->file,
				  d->line, &out->devs[j], rep) < 0)
			return -1;
	}
	snprintf(what, sizeof(what), "%s containerEdits", spec->kind);
	return nodes_resolve(spec->shared, spec->nshared, what, spec->file,
			     spec->shared_line, &out->shared, rep);
}

int devcdi_load(struct devcdi *cdi, const char *dirs, struct report *rep)
{
	memset(cdi, 0, sizeof(*cdi));
	if (!(cdi->dirs = strdup(dirs)))
		return -1;
	if (cdiset_load(&cdi->set, dirs, rep) < 0)
		return -1;
	if (cdi->set.count &&
	    !(cdi->specs = calloc(cdi->set.count, sizeof(*cdi->specs))))
		return -1;
	for (size_t s = 0; s < cdi->set.count; s++)
		if (spec_resolve(&cdi->set.specs[s], &cdi->specs[s], rep) < 0)
			return -1;
	return 0;
}

void devcdi_free(struct devcdi *cdi)
{
	for (size_t s = 0; cdi->specs && s < cdi->set.count; s++) {
		for (size_t j = 0; j < cdi->set.specs[s].ndevs; j++)
			free(cdi->specs[s].devs ? cdi->specs[s].devs[j].v
						: NULL);
		free(cdi->specs[s].devs);
		free(cdi->specs[s].shared.v);
	}
	free(cdi->specs);
	cdiset_free(&cdi->set);
	free(cdi->dirs);
	memset(cdi, 0, sizeof(*cdi));
}

/* GRES device files, resolved once per call. */
struct gresnums {
	struct devcdi_node *v;
	size_t count;
};

static int gres_resolve(const char *const *files, struct gresnums *out)
{
	char why[PATH_MAX + 64];
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	while (files && files[n])
		n++;
	if (n && !(out->v = calloc(n, sizeof(*out->v))))
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct devcdi_node *d = &out->v[out->count];

		if (devrule_resolve_path(files[i], &d->type, &d->major,
					 &d->minor, why, sizeof(why)) == 1) {
			d->path = files[i];
			out->count++;
		}
	}
	return 0;
}

static bool same(const struct devcdi_node *a, const struct devcdi_node *b)
{
	return a->type == b->type && a->major == b->major &&
	       a->minor == b->minor;
}

static bool has(const struct devcdi_node *v, size_t n,
		const struct devcdi_node *d)
{
	for (size_t i = 0; i < n; i++)
		if (same(&v[i], d))
			return true;
	return false;
}

static bool selected(const struct devcdi_nodes *dev,
		     const struct gresnums *node, const struct gresnums *job)
{
	bool held = false;

	for (size_t i = 0; i < dev->count; i++) {
		bool mine = has(job->v, job->count, &dev->v[i]);

		if (!mine && has(node->v, node->count, &dev->v[i]))
			return false;	/* another job's GPU */
		held |= mine;
	}
	return held;
}

bool devcdi_selected(const struct devcdi *cdi, size_t s, size_t j,
		     const char *const *node_gres,
		     const char *const *job_gres)
{
	struct gresnums node, job;
	bool yes = false;

	if (gres_resolve(node_gres, &node) == 0 &&
	    gres_resolve(job_gres, &job) == 0)
		yes = selected(&cdi->specs[s].devs[j], &node, &job);
	free(node.v);
	free(job.v);
	return yes;
}

/* Tell whether the job holds none of a device's nodes. */
static bool untouched(const struct devcdi_nodes *dev,
		      const struct gresnums *job)
{
	for (size_t i = 0; i < dev->count; i++)
		if (has(job->v, job->count, &dev->v[i]))
			return false;
	return true;
}

/* Tell whether a device lists a GRES device of the node (a job's GPU). */
static bool holds_gres(const struct devcdi_nodes *dev,
		       const struct gresnums *node)
{
	for (size_t i = 0; i < dev->count; i++)
		if (has(node->v, node->count, &dev->v[i]))
			return true;
	return false;
}

/*
 * Tell whether a node of one of the job's devices is also a node of a
 * device that no job can be given (none of its nodes is a GRES device)
 * and that the job holds nothing of: then it is that device's, not the
 * job's ("all" must not hand over GPU 1 when gres.conf does not list
 * it).  A node that another job's device lists too is shared between
 * them, as amd-ctk's specs list /dev/kfd in every GPU's device: each
 * job holding one of them needs it.
 */
static bool vetoed(const struct devcdi_spec *cs, const struct devcdi_node *d,
		   const struct gresnums *node, const struct gresnums *job)
{
	for (size_t j = 0; j < cs->spec->ndevs; j++)
		if (has(cs->devs[j].v, cs->devs[j].count, d) &&
		    untouched(&cs->devs[j], job) &&
		    !holds_gres(&cs->devs[j], node))
			return true;
	return false;
}

/* One spec's rules for the job. */
static int spec_build(const struct devcdi_spec *cs,
		      const struct gresnums *node, const struct gresnums *job,
		      struct devrule_list *out)
{
	bool any = false;

	for (size_t j = 0; j < cs->spec->ndevs; j++) {
		const struct devcdi_nodes *dev = &cs->devs[j];
		bool mine = selected(dev, node, job);

		any |= mine;
		for (size_t i = 0; i < dev->count; i++) {
			const struct devcdi_node *d = &dev->v[i];
			bool grant = mine && !vetoed(cs, d, node, job);

			/* GRES devices are devpolicy_build's, shared ones
			 * below. */
			if (has(node->v, node->count, d) ||
			    has(cs->shared.v, cs->shared.count, d))
				continue;
			if (devrule_list_pin(out, d->type, d->major, d->minor,
					     grant ? DEVRULE_RWM : 0) < 0)
				return -1;
		}
	}
	for (size_t i = 0; any && i < cs->shared.count; i++) {
		const struct devcdi_node *d = &cs->shared.v[i];

		/*
		 * A GRES device is never shared: a spec-wide node that is
		 * one (devcdi_check_gres warns) stays devpolicy_build's pin,
		 * open only to the job allocated it.
		 */
		if (has(node->v, node->count, d))
			continue;
		if (devrule_list_pin(out, d->type, d->major, d->minor,
				     DEVRULE_RWM) < 0)
			return -1;
	}
	return 0;
}

int devcdi_build(const struct devcdi *cdi, const char *const *node_gres,
		 const char *const *job_gres, struct devrule_list *out)
{
	struct gresnums node, job = { 0 };
	int rc = -1;

	if (gres_resolve(node_gres, &node) < 0 ||
	    gres_resolve(job_gres, &job) < 0)
		goto out;
	for (size_t s = 0; s < cdi->set.count; s++)
		if (spec_build(&cdi->specs[s], &node, &job, out) < 0)
			goto out;
	rc = 0;
out:
	free(node.v);
	free(job.v);
	return rc;
}

int devcdi_check_gres(const struct devcdi *cdi, const char *const *node_gres,
		      struct report *rep)
{
	struct gresnums node;

	if (gres_resolve(node_gres, &node) < 0)
		return -1;
	for (size_t s = 0; s < cdi->set.count; s++) {
		const struct devcdi_spec *cs = &cdi->specs[s];

		for (size_t i = 0; i < cs->shared.count; i++) {
			const struct devcdi_node *d = &cs->shared.v[i];

			for (size_t g = 0; g < node.count; g++) {
				if (!same(d, &node.v[g]))
					continue;
				report_warning(rep, "%s:%d: %s containerEdits: device node %s is GRES device %s (%c %u:%u): left out of the spec's shared nodes, only the jobs allocated it get it",
					       cs->spec->file,
					       cs->spec->shared_line,
					       cs->spec->kind, d->path,
					       node.v[g].path, d->type,
					       d->major, d->minor);
				break;
			}
		}
	}
	free(node.v);
	return 0;
}
