/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * marker.h - the record that a job has a device filter (private to
 * libdevns_job).
 *
 * <SlurmdSpoolDir>/devns_filter_<id>, root's plain file, made when the
 * filter is in place and removed when the job is released.  A job process
 * that finds the marker but not the filter is refused rather than run
 * unfiltered.  Where Slurm owns the cgroups (the unified layout) the file
 * holds the job's cgroup path, so that release and restore find what to
 * detach once the job's slurmstepd is gone; on the hybrid layout it is
 * empty (the job's cgroup is devns's own and found by name).
 */
#ifndef DEVNS_MARKER_H
#define DEVNS_MARKER_H

#include <stddef.h>
#include <stdint.h>

#include "job/jobct.h"
#include "util/report.h"

/* Writes the path of the job's marker into buf[len]. */
void marker_path(const struct jobct_node *node, uint32_t job_id, char *buf,
		 size_t len);

/* Leaves the job's marker holding text ("" for none).  0 or -1. */
int marker_write(const struct jobct_node *node, uint32_t job_id,
		 const char *text, struct report *rep);

/*
 * 1 when the job has a marker (its text, if buf is not NULL, in buf), 0
 * when it has none, -1 when that cannot be told (any error but ENOENT, or
 * something other than root's plain file): the caller must then refuse the
 * process, never run it unfiltered.
 */
int marker_read(const struct jobct_node *node, uint32_t job_id, char *buf,
		size_t size);

/* Removes the job's marker; 0 (also when there was none) or -1. */
int marker_remove(const struct jobct_node *node, uint32_t job_id);

/*
 * Calls fn for every job that has a marker.  Returns 0, or -1 when the
 * spool directory cannot be read or some fn failed.
 */
int marker_each(const struct jobct_node *node,
		int (*fn)(uint32_t job_id, void *arg), void *arg);

#endif /* DEVNS_MARKER_H */
