/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gresidx.h - read the device indices out of Slurm's GRES detail string.
 *
 * slurmctld reports a job's GRES allocation on one node as a string such as
 * "gpu:tesla:2(IDX:0,2-3),mps:100(0/100,0/100)": for each GRES name the
 * indices of the node's devices the job holds.  Slurm 22.05 hands the
 * job_container plugin no allocation, so the plugin asks the controller for
 * this string and maps the indices onto the node's GRES device files.
 */
#ifndef DEVNS_GRESIDX_H
#define DEVNS_GRESIDX_H

/*
 * Call fn(name, index, arg) for every device index in detail; a GRES without
 * an IDX list (count-only, shared) names no device.  Stops and returns fn's
 * value when it is non-zero.  Returns 0, or -1 with errno EINVAL when the
 * string is malformed (the caller must then refuse the job: fail closed).
 */
int gresidx_parse(const char *detail,
		  int (*fn)(const char *name, unsigned index, void *arg),
		  void *arg);

#endif /* DEVNS_GRESIDX_H */
