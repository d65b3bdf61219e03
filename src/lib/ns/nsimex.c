/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsimex.c - the switch's IMEX channel made inside a job's pinned
 * namespace.  See nsimex.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf/jobdir.h"
#include "dev/imexdev.h"
#include "ns/mntns.h"
#include "ns/nsimex.h"
#include "util/fdmount.h"
#include "util/fdutil.h"
#include "util/safepath.h"

/* The child's answer: one write, below PIPE_BUF, so never torn. */
struct nsimex_result {
	int rc;			/* nsimex_make's */
	int err;		/* errno when rc is -1 */
	uint32_t channel;
	char msg[REPORT_MSG_MAX];
};

/*
 * The device of what path's directory is, 0 when there is none: the
 * identity of the mount on it, to tell whether the maker mounted there.
 */
static int dir_device(dev_t *dev)
{
	struct stat st;

	if (lstat(IMEXDEV_DIR, &st) < 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			return -1;
		*dev = 0;
		return 0;
	}
	*dev = st.st_dev;
	return 0;
}

/*
 * Where the maker left the child (the job's namespace, or one it
 * unshared from it), the mount it made on the channel directory, as a
 * detached copy (-1 with *made false: it made none).
 */
static int made_mount(dev_t before, bool *made, struct report *rep)
{
	struct stat st;
	int dir, mnt;

	*made = false;
	if ((dir = safepath_open(IMEXDEV_DIR)) < 0) {
		if (errno == ENOENT)
			return -1;
		return report_errno(rep, errno, "cannot open %s", IMEXDEV_DIR);
	}
	if (fstat(dir, &st) < 0) {
		report_errno(rep, errno, "cannot stat %s", IMEXDEV_DIR);
		goto error;
	}
	if (st.st_dev == before) {
		fdutil_close(dir);
		return -1;
	}
	if ((mnt = fdmount_clone(dir, 0)) < 0) {
		report_errno(rep, errno, "cannot copy the switch's mount on %s",
			     IMEXDEV_DIR);
		goto error;
	}
	fdutil_close(dir);
	*made = true;
	return mnt;
error:
	fdutil_close(dir);
	return -1;
}

/*
 * In the job's namespace again: the mount the maker made, attached on
 * the channel directory unless it is there already (24.11's maker stays
 * in the namespace it is called in).  Returns an fd of the directory.
 */
static int carry_over(int ns_fd, int mnt, struct report *rep)
{
	struct stat have, want;
	int dir;

	if (setns(ns_fd, CLONE_NEWNS) < 0)
		return report_errno(rep, errno, "cannot enter the job's namespace again");
	if (fstat(mnt, &want) < 0)
		return report_errno(rep, errno, "cannot stat the switch's mount");
	if ((dir = safepath_open(IMEXDEV_DIR)) < 0)
		return report_errno(rep, errno, "cannot open %s in the job's namespace",
				    IMEXDEV_DIR);
	if (fstat(dir, &have) < 0) {
		report_errno(rep, errno, "cannot stat %s", IMEXDEV_DIR);
		goto error;
	}
	if (have.st_dev == want.st_dev)
		return dir;
	if (fdmount_attach(mnt, dir) < 0) {
		report_errno(rep, errno, "cannot mount the switch's %s in the job's namespace",
			     IMEXDEV_DIR);
		goto error;
	}
	fdutil_close(dir);
	/* the directory of the new mount, not the one it covers */
	if ((dir = safepath_open(IMEXDEV_DIR)) < 0)
		return report_errno(rep, errno, "cannot open %s in the job's namespace",
				    IMEXDEV_DIR);
	return dir;
error:
	fdutil_close(dir);
	return -1;
}

/* The forked child: its answer in res. */
static void child_make(int ns_fd, uint32_t major, nsimex_make_fn make,
		       void *arg, struct nsimex_result *res)
{
	struct report rep;
	dev_t before;
	bool made;
	int mnt, dir;

	report_init(&rep, NULL, NULL);
	res->rc = -1;
	if (setns(ns_fd, CLONE_NEWNS) < 0) {
		report_errno(&rep, errno, "cannot enter the job's namespace");
		goto out;
	}
	if (dir_device(&before) < 0) {
		report_errno(&rep, errno, "cannot stat %s", IMEXDEV_DIR);
		goto out;
	}
	if (make(arg) < 0) {
		errno = EIO;
		report_error(&rep, "the switch plugin could not make it (its error is logged above)");
		goto out;
	}
	mnt = made_mount(before, &made, &rep);
	if (!made) {
		res->rc = rep.errors ? -1 : 0;
		goto out;
	}
	dir = carry_over(ns_fd, mnt, &rep);
	fdutil_close(mnt);
	if (dir < 0)
		goto out;
	res->rc = imexdev_channel(dir, major, &res->channel, &rep);
	fdutil_close(dir);
	if (res->rc == 0) {
		/* a mount without a channel: not what the switch makes */
		errno = EINVAL;
		res->rc = report_error(&rep, "the switch mounted %s but made no channel in it",
				       IMEXDEV_DIR);
	}
out:
	res->err = errno;
	memcpy(res->msg, rep.msg, sizeof(res->msg));
}

/* Reads the child's answer; -1 (EPIPE) when it ended without one. */
static int read_result(int fd, struct nsimex_result *res)
{
	char *p = (char *)res;
	size_t got = 0;

	while (got < sizeof(*res)) {
		ssize_t n = read(fd, p + got, sizeof(*res) - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			errno = n < 0 ? errno : EPIPE;
			return -1;
		}
		got += (size_t)n;
	}
	return 0;
}

int nsimex_make(const char *base_path, uint32_t job_id, uint32_t major,
		nsimex_make_fn make, void *arg, uint32_t *channel,
		struct report *rep)
{
	struct nsimex_result res;
	int pipefd[2] = { -1, -1 };
	int ns_fd, status, rc = -1, saved = 0;
	pid_t pid;

	if ((ns_fd = mntns_pin_open(base_path, job_id, JOBDIR_NS_PIN,
				    NULL)) < 0)
		return report_errno(rep, errno, "cannot open the job's namespace");
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		saved = errno;
		report_errno(rep, saved, "pipe");
		goto out;
	}
	if ((pid = fork()) < 0) {
		saved = errno;
		report_errno(rep, saved, "fork");
		goto out;
	}
	if (pid == 0) {
		memset(&res, 0, sizeof(res));
		fdutil_close(pipefd[0]);
		child_make(ns_fd, major, make, arg, &res);
		if (write(pipefd[1], &res, sizeof(res)) != (ssize_t)sizeof(res))
			_exit(1);
		_exit(0);
	}
	fdutil_close(pipefd[1]);
	pipefd[1] = -1;
	rc = read_result(pipefd[0], &res);
	saved = errno;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (rc < 0) {
		report_errno(rep, saved, "its maker (PID %d) ended without an answer",
			     (int)pid);
		goto out;
	}
	rc = res.rc;
	if (rc < 0) {
		saved = res.err ? res.err : EIO;
		report_error(rep, "%s", res.msg);
	} else if (rc == 1) {
		*channel = res.channel;
	}
out:
	fdutil_close(pipefd[0]);
	fdutil_close(pipefd[1]);
	fdutil_close(ns_fd);
	if (rc < 0)
		errno = saved;
	return rc;
}
