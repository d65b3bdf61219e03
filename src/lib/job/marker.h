/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * marker.h - the record that a job has a device filter (private to
 * libdevns_job).
 *
 * <SlurmdSpoolDir>/devns_filter_<id>, root's plain file, made as the last
 * act of every successful setup and removed when the job is released: it
 * is the record that the job was set up.  A job process or adopted login
 * of a job without one is refused (the job was never set up, or not yet,
 * or is being released): a missing record never means "no filter".  It
 * says which filter the job has:
 *   "none"        the job's policy needs no filter;
 *   ""            a filter on devns's own job cgroup (the hybrid layout);
 *   "<job cgroup>" a filter on Slurm's step cgroups (the unified layout):
 *                 the job's cgroup path, so that release and restore find
 *                 what to detach once the job's slurmstepd is gone.
 * That text follows a first line "run SLUID START\n" naming the run that
 * made the record (struct jobct_run, decimal, 0: not known): a job id is
 * reused by a requeue, and an earlier run's record is never the new
 * run's.  A record without that line (written before it existed) names
 * no run.
 */
#ifndef DEVNS_MARKER_H
#define DEVNS_MARKER_H

#include <stddef.h>
#include <stdint.h>

#include "job/node.h"
#include "job/run.h"
#include "util/report.h"

/* Writes the path of the job's marker into buf[len]. */
void marker_path(const struct jobct_node *node, uint32_t job_id, char *buf,
		 size_t len);

/* What a marker holding MARKER_NO_FILTER says: the job needs no filter. */
#define MARKER_NO_FILTER "none"

/* Leaves the job's marker holding text, made by run (NULL: not known).
 * 0 or -1. */
int marker_write(const struct jobct_node *node, uint32_t job_id,
		 const struct jobct_run *run, const char *text,
		 struct report *rep);

/*
 * 1 when the job has a marker (its text, without the run's line, if buf
 * is not NULL, in buf), 0
 * when it has none, -1 when that cannot be told (any error but ENOENT, or
 * something other than root's plain file): the caller must then refuse the
 * process, never run it unfiltered.
 */
int marker_read(const struct jobct_node *node, uint32_t job_id, char *buf,
		size_t size);

/* What marker_state() finds. */
enum marker_state {
	MARKER_ABSENT = 0,	/* no record: the job is not (yet) set up */
	MARKER_UNFILTERED,	/* set up, with no filter needed */
	MARKER_FILTERED,	/* set up, with a filter */
};

/*
 * Reads the job's record once: returns an enum marker_state, its text in
 * buf (size > 0; "" when absent) and, when run is not NULL, the run it
 * names in *run (zeros: none named), or -1 as marker_read() does.
 */
int marker_state(const struct jobct_node *node, uint32_t job_id, char *buf,
		 size_t size, struct jobct_run *run);

/* Removes the job's marker; 0 (also when there was none) or -1. */
int marker_remove(const struct jobct_node *node, uint32_t job_id);

/*
 * Calls fn for every job that has a marker.  Returns 0, or -1 when the
 * spool directory cannot be read or some fn failed.
 */
int marker_each(const struct jobct_node *node,
		int (*fn)(uint32_t job_id, void *arg), void *arg);

#endif /* DEVNS_MARKER_H */
