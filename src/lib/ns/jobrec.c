/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jobrec.c - the records in a job's directory.  See jobrec.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ns/jobrec.h"
#include "util/safepath.h"

/* The record's fd, -1 with errno ENOENT when any part of it is missing. */
static int open_record(const char *base_path, const char *job_name,
		       const char *record)
{
	int basefd, jobfd, fd = -1, saved;

	if ((basefd = safepath_open(base_path)) < 0)
		return -1;
	jobfd = openat(basefd, job_name, O_PATH | O_DIRECTORY | O_NOFOLLOW |
		       O_CLOEXEC);
	if (jobfd >= 0)
		fd = openat(jobfd, record, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	saved = errno;
	if (jobfd >= 0)
		close(jobfd);
	close(basefd);
	errno = saved;
	return fd;
}

int jobrec_read(const char *base_path, const char *job_name,
		const char *record, size_t max, char **text)
{
	size_t len = 0;
	ssize_t got = 0;
	char *end;
	int fd, saved;

	*text = NULL;
	if ((fd = open_record(base_path, job_name, record)) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!(*text = malloc(max + 1))) {
		close(fd);
		return -1;
	}
	while (len < max && (got = read(fd, *text + len, max - len)) > 0)
		len += (size_t)got;
	saved = errno;
	close(fd);
	if (got < 0) {
		free(*text);
		*text = NULL;
		errno = saved;
		return -1;
	}
	(*text)[len] = '\0';
	end = strrchr(*text, '\n');
	*(end ? end + 1 : *text) = '\0';
	return 0;
}
