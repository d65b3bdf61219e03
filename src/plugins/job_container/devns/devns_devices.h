/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devns_devices.h - device containment of a job, seen from the plugin.
 *
 * Connects the pure pieces of src/common (devpolicy: what is allowed,
 * devfilter: the BPF program, cgroup2: where it is attached) to what only
 * Slurm knows: the node's GRES device files and the job's allocation.
 * Every function logs its own errors through Slurm's log.
 */
#ifndef DEVNS_DEVICES_H
#define DEVNS_DEVICES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "nsconf.h"

/*
 * Check DevicePolicy/DeviceAllow of a freshly read namespace.conf: the
 * syntax of every DeviceAllow line of the file (any node's), then this
 * node's effective value in full (a missing device is a warning).  Returns
 * -1 with "FILE:LINE: ..." in err when a value is malformed.
 */
int devns_devices_check_conf(const struct nsconf *conf, char *err,
			     size_t errlen);

/*
 * In the extern slurmstepd: compute the job's allow list and, when
 * containment applies, make the job's cgroup and attach its filter.  step
 * is the step record where the release passes one (NULL on 22.05).
 * Returns 0, or -1 when containment was asked for and cannot be applied.
 */
int devns_devices_setup(const struct nsconf *conf, uint32_t job_id,
			void *step);

/* Move pid into the job's device cgroup, if the job has one.  0 or -1. */
int devns_devices_join(uint32_t job_id, pid_t pid);

/*
 * Move the processes pam_slurm_adopt put into the job's extern step into
 * the job's device cgroup, if the job has one.  0, or -1 when a process of
 * a filtered job could not be moved.
 */
int devns_devices_adopt(uint32_t job_id);

/*
 * Remove the job's cgroup and with it its filter.  Idempotent; 0, or -1
 * with errno (nothing logged: the caller may retry).
 */
int devns_devices_release(uint32_t job_id);

/* At slurmd start: remove cgroups of jobs for which alive() is false. */
int devns_devices_restore(bool (*alive)(uint32_t job_id, void *arg),
			  void *arg);

#endif /* DEVNS_DEVICES_H */
