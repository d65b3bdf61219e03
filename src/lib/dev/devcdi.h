/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devcdi.h - GPU companion devices from CDI specs (CDISpecDirs in
 * namespace.conf): which device nodes go with each GRES device a job is
 * given.  A GPU is more than its /dev/nvidiaN: a MIG instance is reached
 * through /dev/nvidia-caps/nvidia-capN files, and every GPU needs the
 * shared control nodes (/dev/nvidiactl, /dev/nvidia-uvm, ...).  A spec
 * such as "nvidia-ctk cdi generate" writes lists them per device, so
 * that no DeviceAllow has to be written by hand.
 *
 * The rule, per spec device D (by device numbers, so any path to a node
 * counts): D is the job's when the job holds one of D's nodes and no
 * node of D is a GRES device of the node that the job does not hold
 * (so device "0:1" is the job's with /dev/nvidia0 and its MIG caps, and
 * "all" only with every GPU).  The nodes of the job's devices that are
 * not GRES devices are pinned to rwm, unless a device the job holds no
 * node of and that lists no GRES device (no job's device: a GPU that
 * gres.conf leaves out) lists them too (then they are that device's; a
 * node another job's device lists too is shared, as amd-ctk's specs list
 * /dev/kfd in every GPU's device); those of the
 * other devices are pinned to no access; and, when the job has a device
 * of a spec, the spec's shared nodes are pinned to rwm, except those
 * that are GRES devices of the node: a GRES device is only ever the
 * job's that is allocated it (devcdi_check_gres warns about such a
 * spec).  A job without any device of a spec keeps
 * what DevicePolicy/DeviceAllow give it for the shared nodes.
 */
#ifndef DEVNS_DEVCDI_H
#define DEVNS_DEVCDI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dev/cdispec.h"
#include "dev/devrule.h"
#include "util/report.h"

/* One device node of a spec, resolved. */
struct devcdi_node {
	const char *path;	/* the spec's string */
	char type;
	uint32_t major, minor;
};

struct devcdi_nodes {
	struct devcdi_node *v;
	size_t count;
};

/* A spec's devices' nodes and its shared ones, resolved. */
struct devcdi_spec {
	const struct cdispec *spec;
	struct devcdi_nodes *devs;	/* one per spec->devs */
	struct devcdi_nodes shared;
};

struct devcdi {
	struct cdiset set;
	struct devcdi_spec *specs;	/* one per set.specs */
	char *dirs;			/* CDISpecDirs as given */
};

/*
 * Reads the specs of dirs (cdiset_load) and resolves every node they
 * list: one that does not exist is a warning and left out (a spec may
 * name nodes a driver makes later), one that is no device node an error.
 * Messages name the spec ("FILE:LINE: ...") or the directory.  Returns
 * 0, or -1 with errno (EINVAL after reporting); free with devcdi_free()
 * either way.
 */
int devcdi_load(struct devcdi *cdi, const char *dirs, struct report *rep);

void devcdi_free(struct devcdi *cdi);

/*
 * Tells whether device j of spec s is the job's (the rule at the top),
 * given the node's and the job's GRES device files (NULL-terminated,
 * NULL: none; files that do not resolve count for nothing).
 */
bool devcdi_selected(const struct devcdi *cdi, size_t s, size_t j,
		     const char *const *node_gres,
		     const char *const *job_gres);

/*
 * Adds a job's CDI rules (the top) to out, pinned; the caller
 * normalises.  Returns 0, or -1 (ENOMEM).
 */
int devcdi_build(const struct devcdi *cdi, const char *const *node_gres,
		 const char *const *job_gres, struct devrule_list *out);

/*
 * Warns, for each spec-wide (shared) device node of a spec that is one of
 * the node's GRES device files (node_gres, NULL-terminated, NULL: none;
 * by device numbers, so any path to it counts), "FILE:LINE: KIND
 * containerEdits: device node PATH is GRES device ... left out of the
 * spec's shared nodes": devcdi_build never opens it through them, and
 * the admin should fix the spec.  Returns 0, or -1 (ENOMEM).
 */
int devcdi_check_gres(const struct devcdi *cdi, const char *const *node_gres,
		      struct report *rep);

#endif /* DEVNS_DEVCDI_H */
