/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devcomp.h - the companion devices a vendor's GPU needs beside its GRES
 * device file, known here where no CDI spec (dev/devcdi.h) has to say it.
 *
 * AMD: a GPU is its DRM render node (/dev/dri/renderD128, major 226, which
 * /proc/devices names "drm") plus /dev/kfd, one node that every GPU's
 * compute work goes through (a dynamic major /proc/devices names "kfd").
 * /dev/kfd is safe to share: amdkfd shows a process only the GPUs whose
 * render node the process's device cgroup, BPF device programs included,
 * lets it open for reading and writing (kfd_devcgroup_check_permission),
 * so the render nodes, pinned per job as GRES devices, stay the GPUs'
 * containment.  A job holding a DRM device therefore gets every "kfd"
 * device rwm, whatever DevicePolicy says; a job holding none gets what
 * DevicePolicy and DeviceAllow give it.  A node without a "kfd" class
 * (Intel GPUs, amdgpu without HSA) gets nothing added.
 *
 * NVIDIA's companions (nvidiactl, nvidia-uvm, the MIG caps) share majors
 * with the GPUs or differ per driver: they come from CDI specs or
 * DeviceAllow, not from here.
 */
#ifndef DEVNS_DEVCOMP_H
#define DEVNS_DEVCOMP_H

#include "dev/devallow_int.h"

/* One vendor's rule: a job holding a GRES device of gres_class gets
 * every device of companion_class. */
struct devcomp_vendor {
	const char *vendor;		/* for messages and devns check */
	const char *gres_class;		/* /proc/devices character class */
	const char *companion_class;	/* likewise, given rwm */
	const char *companion_path;	/* its usual node, for messages */
};

/* The built-in rules, ended by an entry whose vendor is NULL. */
extern const struct devcomp_vendor devcomp_vendors[];

/*
 * Adds to out, unpinned, one rwm wildcard rule per major of the companion
 * class of every vendor rule that one of job_gres (NULL-terminated, NULL:
 * none) matches: a character device whose major ctx's /proc/devices
 * registers under the rule's gres_class.  GRES files that do not resolve
 * are passed over (devpolicy_build reports them).  Classes are read
 * through ctx, once.  Returns the number of vendor rules that applied, or
 * -1 with errno: EIO when /proc/devices cannot be read (reported in ctx:
 * the job's list is then unknown, and it must not run), ENOMEM.
 */
int devcomp_build(struct parse_ctx *ctx, const char *const *job_gres,
		  struct devrule_list *out);

/*
 * Tells whether vendor rule v applies to the job holding job_gres, as
 * devcomp_build decides it: 1 yes, 0 no, -1 with errno (EIO, ENOMEM).
 */
int devcomp_applies(struct parse_ctx *ctx, const struct devcomp_vendor *v,
		    const char *const *job_gres);

#endif /* DEVNS_DEVCOMP_H */
