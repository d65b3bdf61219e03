/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsbus.c - cover the doors to systemd's managers in a job's namespace.
 * Why: see nsbus.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ns/nsbus.h"
#include "util/fdmount.h"
#include "util/fdutil.h"
#include "util/safepath.h"

#define NSBUS_DIR_FLAGS (O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/*
 * The job's runtime directory holds sockets and small state (logind's
 * default is 10% of RAM; the job's memory cgroup pays for it either way).
 * Teardown does not empty it as it does the private tmpfs mounts
 * (nstmpfs.h): a job that sends an fd of it to a later job leaves at most
 * this much behind.
 */
#define NSBUS_RUNTIME_SIZE "67108864"

/*
 * Open run_fd's entry name, a directory root alone can change; made
 * (root's 0755) when missing.  A link, another owner or a mode that lets
 * others write is refused: whoever controls it could swap what is covered
 * (a job user owns /run/user/UID, never /run/user itself).  Returns an
 * O_PATH fd, or -1 with errno.
 */
static int open_root_dir(int run_fd, const char *name)
{
	struct stat st;
	int fd;

	if (mkdirat(run_fd, name, 0755) < 0 && errno != EEXIST)
		return -1;
	/* Not O_DIRECTORY: a link is opened itself, and named as such. */
	if ((fd = openat(run_fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		goto error;
	if (!S_ISDIR(st.st_mode)) {
		errno = S_ISLNK(st.st_mode) ? ELOOP : ENOTDIR;
		goto error;
	}
	if (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		errno = EPERM;
		goto error;
	}
	return fd;
error:
	fdutil_close(fd);
	return -1;
}

/*
 * /run/user: a tmpfs with the job user's empty runtime directory alone.
 * The directory is made below the new mount, found again from run_fd
 * (root's, the name in it root's): no job process has run in the
 * namespace yet, so nothing in the fresh tmpfs can have been planted.
 */
static int hide_user_dirs(int run_fd, uid_t uid, gid_t gid)
{
	char name[24];
	int fd, rc = -1;

	if ((fd = open_root_dir(run_fd, "user")) < 0)
		return -1;
	if (fdmount_tmpfs(fd, "0755", NSBUS_RUNTIME_SIZE,
			  FDMOUNT_NOSUID | FDMOUNT_NODEV) < 0)
		goto out;
	fdutil_close(fd);
	/* The old fd names the covered directory: the mount's root now. */
	if ((fd = openat(run_fd, "user", NSBUS_DIR_FLAGS)) < 0)
		return -1;
	snprintf(name, sizeof(name), "%lu", (unsigned long)uid);
	if (mkdirat(fd, name, 0700) < 0 ||
	    fchownat(fd, name, uid, gid, AT_SYMLINK_NOFOLLOW) < 0 ||
	    fchmodat(fd, name, 0700, 0) < 0)
		goto out;
	rc = 0;
out:
	fdutil_close(fd);
	return rc;
}

/* /run/dbus: empty and read-only, as BasePath is hidden (mntns_child.c). */
static int hide_system_bus(int run_fd)
{
	int fd = open_root_dir(run_fd, "dbus"), rc;

	if (fd < 0)
		return -1;
	rc = fdmount_hide(fd);
	fdutil_close(fd);
	return rc;
}

int nsbus_hide(const char *run_dir, uid_t uid, gid_t gid)
{
	int run_fd = safepath_open(run_dir), rc;

	if (run_fd < 0)
		return -1;
	rc = hide_user_dirs(run_fd, uid, gid) < 0 || hide_system_bus(run_fd) < 0
		? -1 : 0;
	fdutil_close(run_fd);
	return rc;
}
