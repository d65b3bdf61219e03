/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * elapsed.h - milliseconds since a moment, for the debug log of where a
 * setup's or a release's time went (private to libdevns_job).
 */
#ifndef DEVNS_JOB_ELAPSED_H
#define DEVNS_JOB_ELAPSED_H

#include <time.h>

/* Milliseconds since *start (CLOCK_MONOTONIC). */
static inline double elapsed_ms(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) * 1e3 +
	       (now.tv_nsec - start->tv_nsec) / 1e6;
}

#endif /* DEVNS_JOB_ELAPSED_H */
