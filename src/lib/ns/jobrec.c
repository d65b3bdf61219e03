/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jobrec.c - the records in a job's directory.  See jobrec.h.
 *
 * Why an extended attribute first: a record file is one more inode to
 * allocate and evict per job, and one more block to free, on BasePath's
 * file system.  On an ext4 without a journal every allocation also skips
 * the inodes freed in the last minutes (recently_deleted()), a scan that
 * grows with the jobs run, and with the discard option every freed block
 * is a synchronous discard.  An attribute of the job directory small
 * enough lives in its inode.  trusted.* is root's alone (CAP_SYS_ADMIN),
 * as the directory is.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "ns/jobrec.h"
#include "util/fdutil.h"
#include "util/safepath.h"

/* trusted.devns<record>: ".ns-tmpfs" is kept in trusted.devns.ns-tmpfs. */
static void attr_name(char *buf, size_t len, const char *record)
{
	snprintf(buf, len, "trusted.devns%s", record);
}

/* Whether err says the file system keeps no such attribute (or so big). */
static bool attr_unusable(int err)
{
	return err == ENOTSUP || err == EOPNOTSUPP || err == E2BIG ||
	       err == ENOSPC || err == ERANGE || err == EPERM;
}

/* The record as a file below jobfd, made new (O_EXCL). */
static int write_file(int jobfd, const char *record, const char *text,
		      size_t len)
{
	int fd = openat(jobfd, record, O_CREAT | O_EXCL | O_WRONLY |
			O_NOFOLLOW | O_CLOEXEC, 0600), rc;

	if (fd < 0)
		return -1;
	rc = fdutil_write_all(fd, text, len);
	if (close(fd) < 0)
		rc = -1;
	return rc;
}

int jobrec_write(int jobfd, const char *record, const char *text, size_t len)
{
	char attr[64];
	int dirfd, rc, saved;

	attr_name(attr, sizeof(attr), record);
	/* f*xattr refuses an O_PATH fd, which jobfd may be. */
	dirfd = openat(jobfd, ".", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		       O_CLOEXEC);
	if (dirfd < 0)
		return -1;
	rc = fsetxattr(dirfd, attr, text, len, XATTR_CREATE);
	saved = errno;
	close(dirfd);
	if (rc == 0)
		return 0;
	if (!attr_unusable(saved)) {
		errno = saved;
		return -1;
	}
	return write_file(jobfd, record, text, len);
}

/*
 * BasePath/job_name, opened to read its attributes and records: -1 with
 * errno ENOENT when it or BasePath is missing.
 */
static int open_job(const char *base_path, const char *job_name)
{
	int basefd, jobfd, saved;

	if ((basefd = safepath_open(base_path)) < 0)
		return -1;
	jobfd = openat(basefd, job_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		       O_CLOEXEC);
	saved = errno;
	close(basefd);
	errno = saved;
	return jobfd;
}

/* Up to max bytes of the attribute into text: its length, or -1. */
static ssize_t read_attr(int jobfd, const char *record, char *text, size_t max)
{
	char attr[64];

	attr_name(attr, sizeof(attr), record);
	return fgetxattr(jobfd, attr, text, max);
}

/* Up to max bytes of the record file into text: its length, or -1. */
static ssize_t read_file(int jobfd, const char *record, char *text, size_t max)
{
	int fd = openat(jobfd, record, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	size_t len = 0;
	ssize_t got = 0;
	int saved;

	if (fd < 0)
		return -1;
	while (len < max && (got = read(fd, text + len, max - len)) > 0)
		len += (size_t)got;
	saved = errno;
	close(fd);
	errno = saved;
	return got < 0 ? -1 : (ssize_t)len;
}

int jobrec_read(const char *base_path, const char *job_name,
		const char *record, size_t max, char **text)
{
	ssize_t len;
	char *end;
	int jobfd, saved;

	*text = NULL;
	if ((jobfd = open_job(base_path, job_name)) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!(*text = malloc(max + 1))) {
		close(jobfd);
		return -1;
	}
	len = read_attr(jobfd, record, *text, max);
	/* No attribute: a file, as jobrec_write falls back to, or none. */
	if (len < 0 && (errno == ENODATA || attr_unusable(errno)))
		len = read_file(jobfd, record, *text, max);
	saved = errno;
	close(jobfd);
	if (len < 0) {
		free(*text);
		*text = NULL;
		errno = saved;
		return saved == ENOENT ? 0 : -1;
	}
	(*text)[len] = '\0';
	end = strrchr(*text, '\n');
	*(end ? end + 1 : *text) = '\0';
	return 0;
}
