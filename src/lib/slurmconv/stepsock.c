/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stepsock.c - whether a job's slurmstepd still runs.  See stepsock.h.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <stddef.h>
#include <unistd.h>

#include "slurmconv/stepsock.h"

/*
 * Whether name is a socket name of job_id's steps on node:
 * "<node>_<jobid>.<stepid>" or "<node>_<jobid>.<stepid>.<component>".
 */
static int step_job(const char *name, const char *node, uint32_t *job_id)
{
	size_t len = strlen(node);
	unsigned job, step, comp;
	char end;
	int n;

	if (strncmp(name, node, len) || name[len] != '_')
		return 0;
	n = sscanf(name + len + 1, "%u.%u.%u%c", &job, &step, &comp, &end);
	if (n != 2 && n != 3)
		return 0;
	*job_id = job;
	return 1;
}

static int is_step_of(const char *name, const char *node, uint32_t job_id)
{
	uint32_t job;

	return step_job(name, node, &job) && job == job_id;
}

/*
 * Whether the socket at path may have a stepd behind it: 0 only when
 * connecting is refused (ECONNREFUSED) or the path is gone (ENOENT), 1
 * otherwise.
 */
static int answers(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd, rc;

	/* Slurm binds no such path; whatever it is, it is not "ended". */
	if (strlen(path) >= sizeof(addr.sun_path))
		return 1;
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return 1;
	rc = connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0 ||
	     (errno != ECONNREFUSED && errno != ENOENT);
	close(fd);
	return rc;
}

static int id_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int stepsock_alive_jobs(const char *spool, const char *node, uint32_t **ids,
			size_t *count)
{
	char path[PATH_MAX];
	struct dirent *ep;
	uint32_t *v = NULL, job;
	size_t n = 0, alloc = 0;
	int saved;
	DIR *dp;

	*ids = NULL;
	*count = 0;
	if (!(dp = opendir(spool)))
		return -1;
	while ((ep = readdir(dp))) {
		if ((ep->d_type != DT_SOCK && ep->d_type != DT_UNKNOWN) ||
		    !step_job(ep->d_name, node, &job))
			continue;
		/* A name too long for PATH_MAX: alive, as in job_alive. */
		if (snprintf(path, sizeof(path), "%s/%s", spool, ep->d_name) <
		    (int)sizeof(path) && !answers(path))
			continue;
		if (n == alloc) {
			uint32_t *w = realloc(v, (alloc = alloc ? alloc * 2 : 16) *
					      sizeof(*v));

			if (!w)
				goto error;
			v = w;
		}
		v[n++] = job;
	}
	closedir(dp);
	if (n)
		qsort(v, n, sizeof(*v), id_cmp);
	*ids = v;
	*count = n;
	return 0;
error:
	saved = errno;
	closedir(dp);
	free(v);
	errno = saved;
	return -1;
}

int stepsock_step_alive(const char *spool, const char *node, uint32_t job_id,
			uint32_t step_id)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s_%" PRIu32 ".%" PRIu32, spool,
		     node, job_id, step_id) >= (int)sizeof(path))
		return 1;
	return answers(path);
}

int stepsock_job_alive(const char *spool, const char *node, uint32_t job_id,
		       char *answered, size_t len)
{
	char path[PATH_MAX];
	struct dirent *ep;
	int alive = 0;
	DIR *dp;

	if (!(dp = opendir(spool)))
		return -1;
	while (!alive && (ep = readdir(dp))) {
		if (ep->d_type != DT_SOCK && ep->d_type != DT_UNKNOWN)
			continue;
		if (!is_step_of(ep->d_name, node, job_id))
			continue;
		/* A name too long for PATH_MAX: take it as alive too. */
		if (snprintf(path, sizeof(path), "%s/%s", spool, ep->d_name) >=
		    (int)sizeof(path)) {
			alive = 1;
			continue;
		}
		if ((alive = answers(path)) && answered)
			snprintf(answered, len, "%s", path);
	}
	closedir(dp);
	return alive;
}

/*
 * The step whose socket fd is bound at, when it is one of job_id's on
 * node in spool: 1 with *step_id, else 0.
 */
static int bound_step(int fd, const char *spool, const char *node,
		      uint32_t job_id, uint32_t *step_id)
{
	struct sockaddr_un addr;
	socklen_t len = sizeof(addr);
	size_t spool_len = strlen(spool);
	const char *name;
	unsigned job, step;
	struct stat st;

	if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode))
		return 0;
	memset(&addr, 0, sizeof(addr));
	if (getsockname(fd, (struct sockaddr *)&addr, &len) < 0 ||
	    addr.sun_family != AF_UNIX || len <= offsetof(struct sockaddr_un,
							   sun_path))
		return 0;
	addr.sun_path[sizeof(addr.sun_path) - 1] = '\0';
	if (strncmp(addr.sun_path, spool, spool_len) ||
	    addr.sun_path[spool_len] != '/')
		return 0;
	name = addr.sun_path + spool_len + 1;
	if (!is_step_of(name, node, job_id) ||
	    sscanf(name + strlen(node) + 1, "%u.%u", &job, &step) != 2)
		return 0;
	*step_id = step;
	return 1;
}

int stepsock_self_step(const char *spool, const char *node, uint32_t job_id,
		       uint32_t *step_id)
{
	struct dirent *ep;
	int found = 0;
	DIR *dp;

	if (!(dp = opendir("/proc/self/fd")))
		return -1;
	while (!found && (ep = readdir(dp))) {
		char *end;
		long fd = strtol(ep->d_name, &end, 10);

		if (*end || end == ep->d_name || fd == dirfd(dp) || fd < 0 ||
		    fd > INT_MAX)
			continue;
		found = bound_step((int)fd, spool, node, job_id, step_id);
	}
	closedir(dp);
	return found;
}
