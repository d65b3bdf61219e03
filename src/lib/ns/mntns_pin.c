/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mntns_pin.c - a job's pinned namespace: open, join, whether it exists,
 * and the processes inside it.  See mntns.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "conf/jobdir.h"
#include "ns/mntns.h"
#include "ns/nsmembers.h"
#include "util/fdutil.h"
#include "util/safepath.h"

#ifndef NSFS_MAGIC
#define NSFS_MAGIC 0x6e736673
#endif

int mntns_open(const char *base_path, uint32_t job_id)
{
	char pin[PATH_MAX];

	if (jobdir_path(pin, sizeof(pin), base_path, job_id, JOBDIR_NS_PIN) < 0)
		return -1;
	return open(pin, O_RDONLY | O_CLOEXEC);
}

int mntns_pin_make(const char *base_path, uint32_t job_id, const char *leaf,
		   mntns_pin_fill_fn fill, void *arg, struct report *rep)
{
	char jobdir[PATH_MAX];
	int jobfd, pinfd, rc, saved;

	if (jobdir_path(jobdir, sizeof(jobdir), base_path, job_id, NULL) < 0)
		return report_errno(rep, errno, "BasePath");
	if ((jobfd = safepath_open(jobdir)) < 0)
		return report_errno(rep, errno, "opening %s", jobdir);
	pinfd = openat(jobfd, leaf, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW |
		       O_CLOEXEC, 0400);
	if (pinfd < 0) {
		saved = errno;
		close(jobfd);
		return report_errno(rep, saved, "creating %s/%s", jobdir, leaf);
	}
	rc = fill(pinfd, arg, rep);
	saved = errno;
	close(pinfd);
	if (rc < 0)
		unlinkat(jobfd, leaf, 0);
	close(jobfd);
	errno = saved;
	return rc;
}

int mntns_join(const char *base_path, uint32_t job_id)
{
	return mntns_join_at(-1, base_path, job_id);
}

int mntns_open_at(int base_fd, const char *base_path, uint32_t job_id)
{
	char rel[32];

	if (base_fd < 0)
		return mntns_open(base_path, job_id);
	snprintf(rel, sizeof(rel), "%u/%s", (unsigned)job_id, JOBDIR_NS_PIN);
	return openat(base_fd, rel, O_RDONLY | O_CLOEXEC);
}

int mntns_join_at(int base_fd, const char *base_path, uint32_t job_id)
{
	int fd, rc;

	if ((fd = mntns_open_at(base_fd, base_path, job_id)) < 0)
		return -1;
	rc = setns(fd, CLONE_NEWNS);
	fdutil_close(fd);
	return rc;
}

bool mntns_exists(const char *base_path, uint32_t job_id)
{
	char pin[PATH_MAX];
	struct statfs sfs;

	if (jobdir_path(pin, sizeof(pin), base_path, job_id, JOBDIR_NS_PIN) < 0)
		return false;
	return statfs(pin, &sfs) == 0 && sfs.f_type == NSFS_MAGIC;
}

/*
 * While the fd mntns_pin_open() returns is open the namespace cannot be
 * freed, so its number (the inode the members' /proc/<pid>/ns/mnt show)
 * names it alone: a freed namespace's number goes to the next namespace
 * made, and killing by a number noted earlier would hit that one.
 */
int mntns_pin_open(const char *base_path, uint32_t job_id, const char *leaf,
		   struct stat *ns)
{
	char pin[PATH_MAX];

	if (jobdir_path(pin, sizeof(pin), base_path, job_id, leaf) < 0)
		return -1;
	return mntns_pin_openat(AT_FDCWD, pin, ns);
}

int mntns_pin_openat(int dir_fd, const char *path, struct stat *ns)
{
	struct statfs sfs;
	int fd = openat(dir_fd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstatfs(fd, &sfs) < 0 || sfs.f_type != NSFS_MAGIC ||
	    (ns && fstat(fd, ns) < 0)) {
		close(fd);
		errno = ENOENT;
		return -1;
	}
	return fd;
}

int mntns_members(const char *base_path, uint32_t job_id, pid_t *pids,
		  size_t max, uint64_t *ns_id)
{
	struct nsmembers_ns ns;
	struct stat st;
	int fd, n = -1;

	if (ns_id)
		*ns_id = 0;
	if ((fd = mntns_pin_open(base_path, job_id, JOBDIR_NS_PIN, &st)) < 0)
		return errno == ENOENT ? 0 : -1;
	if (ns_id)
		*ns_id = (uint64_t)st.st_ino;
	if (nsmembers_ident(fd, &ns) == 0)
		n = nsmembers_scan(&ns, pids, max, false);
	fdutil_close(fd);
	return n;
}
