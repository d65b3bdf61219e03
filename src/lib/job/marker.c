/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * marker.c - the record that a job has a device filter.  See marker.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "job/marker.h"
#include "util/fdutil.h"

#define MARKER_PREFIX "devns_filter_"

void marker_path(const struct jobct_node *node, uint32_t job_id, char *buf,
		 size_t len)
{
	snprintf(buf, len, "%s/" MARKER_PREFIX "%u", node->spool_dir, job_id);
}

/* The first line of a record: the run that made it. */
#define RUN_PREFIX "run "

int marker_write(const struct jobct_node *node, uint32_t job_id,
		 const struct jobct_run *run, const char *text,
		 struct report *rep)
{
	char path[PATH_MAX], line[64];
	int fd, saved;

	snprintf(line, sizeof(line), RUN_PREFIX "%" PRIu64 " %" PRId64 "\n",
		 run ? run->sluid : 0, run ? run->start_time : 0);
	marker_path(node, job_id, path, sizeof(path));
	if ((fd = node->ops->marker_create(path)) < 0)
		return report_errno(rep, errno,
				    "cannot record its device filter in %s",
				    path);
	if (ftruncate(fd, 0) < 0 || fdutil_write_all(fd, line, strlen(line)) < 0 ||
	    fdutil_write_all(fd, text, strlen(text)) < 0) {
		saved = errno;
		close(fd);
		unlink(path);
		return report_errno(rep, saved,
				    "cannot record its device filter in %s",
				    path);
	}
	close(fd);
	return 0;
}

/*
 * Takes the run's line off the text in buf into *run (zeros when there is
 * none, or it does not parse: a record names a run or it names none).
 */
static void take_run(char *buf, struct jobct_run *run)
{
	char *nl, *end;
	unsigned long long sluid;
	long long start = 0;

	memset(run, 0, sizeof(*run));
	if (strncmp(buf, RUN_PREFIX, strlen(RUN_PREFIX)) ||
	    !(nl = strchr(buf, '\n')))
		return;
	errno = 0;
	sluid = strtoull(buf + strlen(RUN_PREFIX), &end, 10);
	if (*end == ' ')
		start = strtoll(end + 1, &end, 10);
	else
		end = nl + 1;	/* malformed: names no run */
	if (errno == 0 && end == nl) {
		run->sluid = sluid;
		run->start_time = start;
	}
	memmove(buf, nl + 1, strlen(nl + 1) + 1);
}

/* marker_read(), and the run its record names into *run. */
static int marker_load(const struct jobct_node *node, uint32_t job_id,
		       char *buf, size_t size, struct jobct_run *run)
{
	char path[PATH_MAX];
	struct stat st;
	ssize_t n;
	int fd;

	marker_path(node, job_id, path, sizeof(path));
	if (node->ops->marker_stat(path, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISREG(st.st_mode) || st.st_uid != 0) {
		errno = EINVAL;
		return -1;
	}
	if (!buf)
		return 1;
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	take_run(buf, run);
	return 1;
}

int marker_read(const struct jobct_node *node, uint32_t job_id, char *buf,
		size_t size)
{
	struct jobct_run run;

	return marker_load(node, job_id, buf, size, &run);
}

int marker_state(const struct jobct_node *node, uint32_t job_id, char *buf,
		 size_t size, struct jobct_run *run)
{
	struct jobct_run none;
	int found;

	buf[0] = '\0';
	if (!run)
		run = &none;
	memset(run, 0, sizeof(*run));
	if ((found = marker_load(node, job_id, buf, size, run)) <= 0)
		return found < 0 ? -1 : MARKER_ABSENT;
	return strcmp(buf, MARKER_NO_FILTER) ? MARKER_FILTERED
					     : MARKER_UNFILTERED;
}

int marker_remove(const struct jobct_node *node, uint32_t job_id)
{
	char path[PATH_MAX];

	marker_path(node, job_id, path, sizeof(path));
	return unlink(path) < 0 && errno != ENOENT ? -1 : 0;
}

int marker_each(const struct jobct_node *node,
		int (*fn)(uint32_t job_id, void *arg), void *arg)
{
	DIR *dp = opendir(node->spool_dir);
	struct dirent *ep;
	uint32_t job_id;
	int rc = 0;
	char end;

	if (!dp)
		return errno == ENOENT ? 0 : -1;
	while ((ep = readdir(dp)))
		if (sscanf(ep->d_name, MARKER_PREFIX "%u%c", &job_id, &end) == 1 &&
		    fn(job_id, arg) < 0)
			rc = -1;
	closedir(dp);
	return rc;
}
