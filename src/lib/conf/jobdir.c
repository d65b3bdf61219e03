/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jobdir.c - the names under BasePath.  See jobdir.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "conf/jobdir.h"

const char *jobdir_reserved(const char *name)
{
	if (!strcmp(name, JOBDIR_NS_PIN))
		return JOBDIR_NS_PIN " is the namespace pin";
	if (!strcmp(name, JOBDIR_PIDNS_PIN))
		return JOBDIR_PIDNS_PIN " is the PID namespace pin";
	if (!strcmp(name, JOBDIR_USERNS_PIN))
		return JOBDIR_USERNS_PIN " is the user namespace pin";
	if (!strcmp(name, JOBDIR_TMPFS))
		return JOBDIR_TMPFS " is the list of tmpfs mounts";
	if (!strcmp(name, JOBDIR_LOOP_IMAGE))
		return JOBDIR_LOOP_IMAGE " is the image of the job's filesystem";
	if (!strcmp(name, JOBDIR_LOOP_MOUNT))
		return JOBDIR_LOOP_MOUNT " is where the job's filesystem is mounted";
	if (!strcmp(name, JOBDIR_SOURCES))
		return JOBDIR_SOURCES " is the list of Source directories";
	return NULL;
}

int jobdir_parse(const char *name, uint32_t *job_id)
{
	unsigned long long v = 0;
	const char *p;

	if (!name[0] || name[0] == '0' || strlen(name) > 10)
		return -1;
	for (p = name; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (unsigned)(*p - '0');
	}
	if (v > UINT32_MAX)
		return -1;
	*job_id = (uint32_t)v;
	return 0;
}

int jobdir_path(char *buf, size_t len, const char *base, uint32_t job_id,
		const char *leaf)
{
	int n;

	if (leaf)
		n = snprintf(buf, len, "%s/%" PRIu32 "/%s", base, job_id, leaf);
	else
		n = snprintf(buf, len, "%s/%" PRIu32, base, job_id);
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

bool jobdir_is_reap_name(const char *name)
{
	uint32_t job_id;
	char rest[32];
	int len = 0;

	if (strncmp(name, JOBDIR_REAP_PREFIX, strlen(JOBDIR_REAP_PREFIX)))
		return false;
	name += strlen(JOBDIR_REAP_PREFIX);
	if (sscanf(name, "%31[0-9]%n", rest, &len) != 1 || name[len] != '-' ||
	    jobdir_parse(rest, &job_id) < 0)
		return false;
	name += len + 1;
	return sscanf(name, "%31[0-9]%n", rest, &len) == 1 && !name[len] &&
	       rest[0] != '0';
}
