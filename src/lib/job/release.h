/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * release.h - removing everything of a job (private to libdevns_job):
 * jobct_release, and restore's release of a job that ended.
 */
#ifndef DEVNS_JOB_RELEASE_H
#define DEVNS_JOB_RELEASE_H

#include <stdbool.h>
#include <stdint.h>

#include "job/node.h"
#include "util/report.h"

/*
 * jobct_release; name_job: rep does not name the job (restore's), so the
 * lines of its denials do.
 */
int release_job(const struct jobct_node *node, uint32_t job_id,
		bool name_job, struct report *rep);

#endif /* DEVNS_JOB_RELEASE_H */
