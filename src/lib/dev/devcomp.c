/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devcomp.c - a vendor's GPU companion devices from the job's GRES
 * devices and /proc/devices (see devcomp.h).
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>

#include "dev/devcomp.h"

const struct devcomp_vendor devcomp_vendors[] = {
	{ "AMD", "drm", "kfd", "/dev/kfd" },
	{ NULL, NULL, NULL, NULL },
};

int devcomp_applies(struct parse_ctx *ctx, const struct devcomp_vendor *v,
		    const char *const *job_gres)
{
	char type, why[PATH_MAX + 64];
	uint32_t major, minor;
	int rc;

	for (size_t i = 0; job_gres && job_gres[i]; i++) {
		if (job_gres[i][0] != '/' ||
		    devrule_resolve_path(job_gres[i], &type, &major, &minor,
					 why, sizeof(why)) != 1 ||
		    type != 'c')
			continue;
		rc = devallow_class_is(ctx, 'c', major, v->gres_class);
		if (rc != 0)
			return rc;
	}
	return 0;
}

int devcomp_build(struct parse_ctx *ctx, const char *const *job_gres,
		  struct devrule_list *out)
{
	int applied = 0, rc;

	for (const struct devcomp_vendor *v = devcomp_vendors; v->vendor;
	     v++) {
		if ((rc = devcomp_applies(ctx, v, job_gres)) < 0)
			return -1;
		if (!rc)
			continue;
		/* No such class: nothing to give (an Intel GPU on "drm"). */
		if (devallow_add_class(ctx, 'c', v->companion_class,
				       DEVRULE_RWM, out) < 0)
			return -1;
		applied++;
	}
	return applied;
}
