/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jobcg.c - the names of a job's and its steps' cgroups.  See jobcg.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "slurmconv/jobcg.h"
#include "slurmconv/sluid.h"

#define JOB_PREFIX "job_"

int jobcg_name(uint32_t job_id, char *buf, size_t size)
{
	if ((size_t)snprintf(buf, size, JOB_PREFIX "%u", job_id) >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

bool jobcg_parse(const char *name, size_t len, uint32_t *job_id)
{
	const size_t plen = sizeof(JOB_PREFIX) - 1;
	char again[32];
	uint64_t id = 0;

	if (len <= plen || len > plen + 10 || strncmp(name, JOB_PREFIX, plen))
		return false;
	for (size_t i = plen; i < len; i++) {
		if (name[i] < '0' || name[i] > '9')
			return false;
		id = id * 10 + (uint64_t)(name[i] - '0');
	}
	/* no leading zero, no overflow: it reads back as written */
	if (id > UINT32_MAX ||
	    jobcg_name((uint32_t)id, again, sizeof(again)) < 0 ||
	    strlen(again) != len || strncmp(again, name, len))
		return false;
	if (job_id)
		*job_id = (uint32_t)id;
	return true;
}

bool jobcg_is_job(const char *name, size_t len, uint32_t job_id,
		  uint64_t sluid)
{
	char text[32];
	uint32_t id;

	if (jobcg_parse(name, len, &id))
		return id == job_id;
	return sluid_format(sluid, text, sizeof(text)) == 0 &&
	       len == SLUID_LEN && !strncmp(name, text, len);
}

bool jobcg_is_step(const char *name)
{
	return !strncmp(name, JOBCG_STEP_PREFIX, sizeof(JOBCG_STEP_PREFIX) - 1);
}
