/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devns_nodecheck.h - the node's settings, loaded and held against what
 * this Slurm release and, in slurmd, this node can do.
 */
#ifndef DEVNS_NODECHECK_H
#define DEVNS_NODECHECK_H

#include "job/jobct.h"

/*
 * Load the node's settings (devns_node_load; in slurmd AutoBasePath may
 * make BasePath) and refuse what this release cannot give (the table of
 * conf/nsrelease.h, which devns check reads too); in
 * slurmd also log the cgroup layout and check the kernel, slurm.conf and
 * the node's GRES against the settings (jobct_node_check).  Returns the
 * node, to free with jobct_node_free(), or NULL with every reason in rep
 * (file and line for the file's).
 */
struct jobct_node *devns_nodecheck_load(struct report *rep);

#endif /* DEVNS_NODECHECK_H */
