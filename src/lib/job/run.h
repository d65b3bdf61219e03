/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * run.h - which run of a job (at the bottom of libdevns_job, beside
 * node.h: jobct, its setup record and its backends all name a run).
 */
#ifndef DEVNS_JOB_RUN_H
#define DEVNS_JOB_RUN_H

#include <stdint.h>

/*
 * Which run of a job: Slurm reuses a job id when it requeues the job, and
 * what an earlier run left behind (a release that could not finish: a
 * process that would not die) must never be taken as the new run's.  Its
 * setup record carries it (job/marker.h).  A field 0 is not known.
 */
struct jobct_run {
	uint64_t sluid;		/* the job's SLUID (25.11 on), 0: none */
	int64_t start_time;	/* the job's start time (s since the epoch) */
};

#endif /* DEVNS_JOB_RUN_H */
