/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * confcheck.h - what a namespace.conf can say that parses, yet fails every
 * job or applies to no node: checks that depend on the node as it is now
 * or on slurm.conf, which the parser (conf/nsconf.h) cannot see.
 *
 *   InitScript,      missing, no regular file, or executable by nobody:
 *   CloneNSScript,   every job of the node would fail (or its end, for
 *   CloneNSEpilog    the epilog)
 *   Source=          a fixed part (the components before the first %, or
 *                    the whole path without one) that does not exist as
 *                    a directory: every job with the Dir would fail
 *   Dirs             a mount point that does not exist (mntns makes
 *                    none: every job would fail); one that holds data on
 *                    the node, which every job then finds hidden under
 *                    its private directory (a warning; not for /tmp,
 *                    /var/tmp, /dev/shm, whose hiding is the point)
 *   DeviceAllow      a glob or class that matches nothing on the node
 *                    (devallow_check_patterns): a typo matches nothing
 *   NodeName         a name that differs from one of slurm.conf's only by
 *                    case: the line applies to no node (names are
 *                    case-sensitive, in Slurm as here); a value none of
 *                    whose names is a node of slurm.conf (gpu[1-4] for
 *                    slurm.conf's gpu[01-04]): the line applies to no
 *                    node; one some of whose names are none (a warning)
 *
 * devns check makes them all, as errors (exit 1) but for the warnings
 * named.  slurmd makes those that cannot be wrong at start and right a
 * moment later: the scripts an error (the node could run no job), Source=
 * and a missing mount point warnings (a disk or automount may come
 * later); not the data under a mount point (every slurmstepd runs these
 * checks: no readdir of /home, no automount, per job); the DeviceAllow
 * patterns are devpolicy_load_lines()'s warnings there, and slurmd does
 * not read slurm.conf's node list.
 *
 * Every message starts "FILE:LINE: " with the line of the setting.
 */
#ifndef DEVNS_CONFCHECK_H
#define DEVNS_CONFCHECK_H

#include <stdbool.h>

#include "conf/nsconf.h"
#include "util/report.h"

struct confcheck_args {
	/*
	 * devns check: every check, and a Source= whose fixed part is
	 * missing is an error; false (slurmd): the scripts and Source= only,
	 * the latter a warning
	 */
	bool strict;
	const char *proc_devices;	  /* NULL: /proc/devices */
	/*
	 * slurm.conf's NodeName values (hostlists); NULL or empty (a
	 * slurm.conf that names no node): not compared
	 */
	const char *const *slurm_nodes;
	/*
	 * The node is not this machine (devns check -n NODE elsewhere):
	 * nothing of the node's filesystem is checked (scripts, Source=,
	 * mount points, DeviceAllow patterns), only slurm.conf's names
	 */
	bool elsewhere;
};

/*
 * Run the checks args asks for on the node's settings conf.  Every
 * problem is reported, not only the first.  Returns 0, or -1 with errno
 * EINVAL after reporting an error (warnings do not fail it), or ENOMEM.
 */
int confcheck_run(const struct nsconf *conf, const struct confcheck_args *args,
		struct report *rep);

#endif /* DEVNS_CONFCHECK_H */
