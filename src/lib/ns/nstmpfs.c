/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nstmpfs.c - a job's private tmpfs mounts, emptied at its teardown.
 *
 * Why this way (see nstmpfs.h for the why at all): the mounts are reached
 * only in the job's namespace, so a child enters it (a vchild,
 * util/vchild.h: it costs the same whatever the caller's size, and makes
 * system calls only), opens the root of each and hands the fds back
 * (SCM_RIGHTS).  The caller empties them with saferm, which needs memory
 * and never follows a link the job left, once the job's processes are
 * gone (none refills them behind the walk), then makes each file system
 * read-only: a superblock flag, so that it holds for every fd of it, the
 * one another job holds included.  Neither needs the namespace any more:
 * an fd acts on its mount, attached or not.
 *
 * Not detached one by one (umount2): dropping the namespace right after
 * detaches all its mounts in one go, and each umount2 waits for an RCU
 * grace period of its own (measured: 0.1 to 0.2 ms each on a busy node,
 * against 0.01 ms for the read-only flag).  Emptied and read-only, a
 * mount that an fd keeps reaches nothing of the job.
 *
 * A recorded path is opened again without following links (safepath), and
 * only the root of a tmpfs mount there is taken: the job cannot mount in
 * its namespace, so a tmpfs mount root at a recorded path is devns's.
 * A mount below one of them (another Dirs entry) is not entered by the
 * walk (saferm stays on one mount): a tmpfs there is emptied through its
 * own record line, and a Source bind is the site's, never emptied.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf/jobdir.h"
#include "ns/jobrec.h"
#include "ns/nstmpfs.h"
#include "util/fdmount.h"
#include "util/fdpass.h"
#include "util/fdutil.h"
#include "util/safepath.h"
#include "util/saferm.h"
#include "util/vchild.h"

#ifndef EXT4_SUPER_MAGIC
#define EXT4_SUPER_MAGIC 0xEF53
#endif
#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif
#ifndef STATX_ATTR_MOUNT_ROOT
#define STATX_ATTR_MOUNT_ROOT 0x00002000
#endif

#define RECORD_NAME JOBDIR_TMPFS
#define MAX_POINTS NSCONF_MAX_DIRS
#define RECORD_MAX (MAX_POINTS * (PATH_MAX + 1))

/* What the child gets. */
struct child_args {
	const char *points[MAX_POINTS];
	int count;
	int ns_fd;
	int sock[2];
};

/* The child's one message; the fds ride along. */
struct child_result {
	int err;
	int which[MAX_POINTS];	/* the record line of each fd sent */
};

int nstmpfs_record(int jobfd, const char *const *points, size_t n)
{
	size_t len = 0, size = 0;
	char *text;
	int rc;

	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (points[i][0] != '/' || strchr(points[i], '\n')) {
			errno = EINVAL;
			return -1;
		}
		size += strlen(points[i]) + 1;
	}
	if (!(text = malloc(size)))
		return -1;
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(points[i]);

		memcpy(text + len, points[i], l);
		text[len + l] = '\n';
		len += l + 1;
	}
	rc = jobrec_write(jobfd, RECORD_NAME, text, len);
	free(text);
	return rc;
}

/*
 * Read the record of BasePath/name into *text (the caller frees it) and
 * point a->points at its complete lines.  No record: 0 points.
 */
static int read_record(const char *base_path, const char *name, char **text,
		       struct child_args *a)
{
	char *line, *next;

	if (jobrec_read(base_path, name, RECORD_NAME, RECORD_MAX, text) < 0)
		return -1;
	for (line = *text; line && *line && a->count < MAX_POINTS;
	     line = next) {
		next = strchr(line, '\n');
		*next++ = '\0';
		if (line[0] == '/')
			a->points[a->count++] = line;
	}
	return 0;
}

/*
 * Whether fd is the root of a tmpfs mount, or of a bind mount on ext4:
 * a Dirs entry on the job's own filesystem (TmpBackend=loop, ns/nsloop.h),
 * which dies with the job as a tmpfs does.
 */
static int is_tmpfs_root(int fd)
{
	struct statfs sfs;
	struct statx stx;

	if (fstatfs(fd, &sfs) < 0 ||
	    statx(fd, "", AT_EMPTY_PATH, STATX_TYPE, &stx) < 0)
		return -1;
	return (sfs.f_type == TMPFS_MAGIC || sfs.f_type == EXT4_SUPER_MAGIC) &&
	       (stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
	       (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT);
}

/*
 * In the child: an fd of the root of the tmpfs mounted at point into *fd
 * (-1 when there is none there).
 */
static int open_tmpfs(const char *point, int *fd)
{
	int root;

	if ((*fd = safepath_open(point)) < 0)
		/* Not there, or a link: not a mount of ours. */
		return errno == ENOENT || errno == ELOOP ||
		       errno == ENOTDIR ? 0 : -1;
	if ((root = is_tmpfs_root(*fd)) <= 0) {
		fdutil_close(*fd);
		*fd = -1;
	}
	return root < 0 ? -1 : 0;
}

/* Send the verdict and the fds in one message. */
static void send_fds(int sock, int err, const int *fds, const int *which,
		     int count)
{
	struct child_result res = { .err = err };

	for (int i = 0; i < count; i++)
		res.which[i] = which[i];
	(void)fdpass_send(sock, &res, sizeof(res), fds, (size_t)count);
}

static int child_main(void *arg)
{
	const struct child_args *a = arg;
	int fds[MAX_POINTS], which[MAX_POINTS], count = 0, err = 0;

	close(a->sock[0]);
	if (setns(a->ns_fd, CLONE_NEWNS) < 0) {
		send_fds(a->sock[1], errno, fds, which, 0);
		return 1;
	}
	for (int i = 0; i < a->count; i++) {
		int fd;

		if (open_tmpfs(a->points[i], &fd) < 0 && !err)
			err = errno;
		if (fd >= 0) {
			which[count] = i;
			fds[count++] = fd;
		}
	}
	send_fds(a->sock[1], err, fds, which, count);
	return err ? 1 : 0;
}

/* The parent's side of send_fds: the verdict, the fds into held. */
static int recv_fds(int sock, struct nstmpfs_held *held)
{
	struct child_result res = { .err = EIO };
	size_t nfds;
	ssize_t n = fdpass_recv(sock, &res, sizeof(res),
				held->fds + held->count,
				MAX_POINTS - (size_t)held->count, &nfds);

	for (size_t i = 0; i < nfds; i++)
		held->which[held->count + (int)i] = res.which[i];
	held->count += (int)nfds;
	if (n != (ssize_t)sizeof(res))
		res.err = EIO;	/* the child died before it could say */
	errno = res.err;
	return res.err ? -1 : 0;
}

int nstmpfs_open(const char *base_path, const char *name, int ns_fd,
		   struct nstmpfs_held *held)
{
	struct child_args a = { .ns_fd = ns_fd, .sock = { -1, -1 } };
	char *text;
	int rc, saved;
	pid_t pid;

	held->count = 0;
	if (read_record(base_path, name, &text, &a) < 0)
		return -1;
	/* The common case without tmpfs: no child at all. */
	if (!a.count) {
		free(text);
		return 0;
	}
	rc = socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, a.sock);
	if (rc == 0 && (pid = vchild_run_blocked(child_main, &a)) < 0) {
		fdutil_close(a.sock[1]);
		fdutil_close(a.sock[0]);
		rc = -1;
	} else if (rc == 0) {
		close(a.sock[1]);
		rc = recv_fds(a.sock[0], held);
		saved = errno;
		close(a.sock[0]);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		errno = saved;
	}
	saved = errno;
	free(text);
	errno = saved;
	return rc;
}

int nstmpfs_empty(struct nstmpfs_held *held)
{
	int saved = 0;

	/*
	 * All emptied before any is made read-only: two Dirs on one job
	 * filesystem (TmpBackend=loop) share one superblock.
	 */
	for (int i = 0; i < held->count; i++)
		/* EXDEV: a mount below, left alone (see above). */
		if (saferm_contents(held->fds[i]) < 0 && errno != EXDEV &&
		    !saved)
			saved = errno;
	for (int i = 0; i < held->count; i++) {
		/* EBUSY while a file is open for writing: it stays writable. */
		if (fdmount_remount_ro(held->fds[i]) < 0 && errno != EBUSY &&
		    !saved)
			saved = errno;
		close(held->fds[i]);
	}
	held->count = 0;
	errno = saved;
	return saved ? -1 : 0;
}
