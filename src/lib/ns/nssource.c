/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nssource.c - the per-directory Source= directories of a job's namespace:
 * made component by component for the job's user, recorded in the job
 * directory, removed when the job ends.
 *
 * Root works below directories users may write to here, so every step
 * acts on an fd opened with O_NOFOLLOW from "/", checks who owns what it
 * opened, and removal goes through saferm (fd-based, no link followed)
 * and only onto the very directory (device, inode) that was recorded.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf/jobdir.h"
#include "conf/nsconf.h"
#include "ns/jobrec.h"
#include "ns/nssource.h"
#include "util/fdmount.h"
#include "util/fdutil.h"
#include "util/safepath.h"
#include "util/saferm.h"

#define RECORD_NAME JOBDIR_SOURCES
/* A record holds at most NSCONF_MAX_DIRS lines of a path and two numbers. */
#define RECORD_MAX (NSCONF_MAX_DIRS * (PATH_MAX + 64))

/* Append "DEV INO PATH" for the job's own Source directory to the record. */
static int record_source(int jobfd, const struct stat *st, const char *path,
			 size_t len)
{
	char line[PATH_MAX + 64];
	int fd, n, rc = 0;

	n = snprintf(line, sizeof(line), "%ju %ju %.*s\n", (uintmax_t)st->st_dev,
		     (uintmax_t)st->st_ino, (int)len, path);
	if (n < 0 || (size_t)n >= sizeof(line)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = openat(jobfd, RECORD_NAME,
		    O_CREAT | O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (write(fd, line, (size_t)n) != n) {
		if (errno == 0)
			errno = EIO;
		rc = -1;
	}
	if (close(fd) < 0)
		rc = -1;
	return rc;
}

/*
 * Check a Source component below the fixed part: a directory that only
 * root can change, or, for the last one, the job user's.  Made by someone
 * else, it could hand the job another user's files or let a user steer
 * root's removal.
 */
static int source_owner_check(int fd, bool last, uid_t uid, const char *path,
			      size_t len, struct report *rep)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return report_errno(rep, errno, "Source %.*s", (int)len, path);
	if (!last && (st.st_uid != 0 || (st.st_mode & 022))) {
		errno = EPERM;
		return report_error(rep, "Source %.*s: a directory only root "
				    "may write to is needed here, it belongs "
				    "to uid %u with mode %04o", (int)len, path,
				    (unsigned)st.st_uid,
				    (unsigned)(st.st_mode & 07777));
	}
	if (last && st.st_uid != uid) {
		errno = EPERM;
		return report_error(rep, "Source %.*s belongs to uid %u, not "
				    "to the job's user (uid %u)", (int)len,
				    path, (unsigned)st.st_uid, (unsigned)uid);
	}
	return 0;
}

/*
 * Check a mount point's component below the fixed part: root's and
 * writable by no one else, or the job user's own (a home directory): a
 * component another user owns, or others may write to, could be swapped
 * for a directory that steers the job's mount, or be another user's.
 */
static int point_owner_check(int fd, uid_t uid, const char *path, size_t len,
			     struct report *rep)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return report_errno(rep, errno, "mount point %.*s", (int)len,
				    path);
	if ((st.st_uid == 0 && !(st.st_mode & 022)) || st.st_uid == uid)
		return 0;
	errno = EPERM;
	return report_error(rep, "mount point %.*s belongs to uid %u with mode "
			    "%04o: a directory of root's that only root may "
			    "write to, or the job user's (uid %u), is needed "
			    "here", (int)len, path, (unsigned)st.st_uid,
			    (unsigned)(st.st_mode & 07777), (unsigned)uid);
}

/*
 * The fixed part's last directory, below which root creates: root's, and
 * not open to others' writes, sticky or not.  Not sticky, a user could
 * swap what root just made; sticky, a user could make another user's
 * directory first and keep that user's jobs from starting.
 * nsconf_load_host() refuses such a Source already; this holds for a directory changed since.
 */
static int fixed_top_check(int fd, const char *path, size_t len,
			   struct report *rep)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return report_errno(rep, errno, "Source %.*s", (int)len, path);
	if (st.st_uid != 0 || (st.st_mode & 022)) {
		errno = EPERM;
		return report_error(rep, "Source %.*s: the fixed part must be "
				    "root's and not writable by others, "
				    "sticky or not; it belongs to uid %u with "
				    "mode %04o", (int)len, path,
				    (unsigned)st.st_uid,
				    (unsigned)(st.st_mode & 07777));
	}
	return 0;
}

/*
 * The walk of nssource_prepare() and nssource_prepare_point(): returns an
 * fd (O_RDONLY) of the directory at src->path, or -1 with errno and rep.
 */
static int source_walk(const struct nssource *src, int jobfd,
		       struct nssource_made *made, struct report *rep)
{
	const char *what = src->mount_point ? "mount point" : "Source";
	const char *path = src->path, *s = path;
	char name[NAME_MAX + 1];
	int fd = -1, nfd, depth = 0;
	size_t total = 0;

	for (const char *c = path; *c; c++)
		total += *c == '/';
	if (path[0] != '/' || (src->base_path &&
	    !strncmp(path, src->base_path, strlen(src->base_path)) &&
	    (path[strlen(src->base_path)] == '/' ||
	     !path[strlen(src->base_path)]))) {
		errno = EINVAL;
		return report_error(rep, "%s %s: not absolute, or in "
				    "BasePath", what, path);
	}
	if ((fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return report_errno(rep, errno, "opening /");
	while (*s) {
		size_t len;
		bool created = false, last;
		mode_t mode;

		while (*s == '/')
			s++;
		len = strcspn(s, "/");
		if (!len || len > NAME_MAX) {
			errno = len ? ENAMETOOLONG : EINVAL;
			report_errno(rep, errno, "%s %s", what, path);
			goto error;
		}
		memcpy(name, s, len);
		name[len] = '\0';
		s += len;
		depth++;
		last = depth == (int)total;
		mode = last ? 0700 : 0711;
		if (depth > src->fixed_depth) {
			if (mkdirat(fd, name, mode) == 0) {
				created = true;
				/*
				 * Only the job's own directory goes on
				 * failure: the persistent ones above may
				 * serve another job already.
				 */
				if (depth == src->job_depth) {
					/* Close-on-exec: never inherited by a fork's exec. */
					if ((made->parent_fd = fcntl(fd,
					     F_DUPFD_CLOEXEC, 0)) < 0) {
						report_errno(rep, errno, "dup");
						goto error;
					}
					snprintf(made->name, sizeof(made->name),
						 "%s", name);
				}
			} else if (errno != EEXIST) {
				report_errno(rep, errno, "creating %s %.*s",
					     what, (int)(s - path), path);
				goto error;
			}
		}
		nfd = openat(fd, name,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0) {
			struct stat lst;

			/* O_DIRECTORY answers a link with ENOTDIR. */
			if (errno == ENOTDIR &&
			    fstatat(fd, name, &lst, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(lst.st_mode))
				errno = ELOOP;
			if (errno == ELOOP)
				report_error(rep, "%s %.*s is a symbolic "
					     "link; refusing to follow it",
					     what, (int)(s - path), path);
			else
				report_errno(rep, errno, "opening %s %.*s",
					     what, (int)(s - path), path);
			goto error;
		}
		close(fd);
		fd = nfd;
		if (created && ((last && fchown(fd, src->uid, src->gid) < 0)
				|| fchmod(fd, mode) < 0)) {
			report_errno(rep, errno, "setting up %s %.*s",
				     what, (int)(s - path), path);
			goto error;
		}
		if (depth == src->fixed_depth && depth < (int)total &&
		    fixed_top_check(fd, path, (size_t)(s - path), rep) < 0)
			goto error;
		if (depth > src->fixed_depth && !src->mount_point &&
		    source_owner_check(fd, last, src->uid, path,
				       (size_t)(s - path), rep) < 0)
			goto error;
		if (depth > src->fixed_depth && src->mount_point &&
		    point_owner_check(fd, src->uid, path, (size_t)(s - path),
				      rep) < 0)
			goto error;
		if (depth == src->job_depth) {
			struct stat st;

			if (fstat(fd, &st) < 0 ||
			    record_source(jobfd, &st, path,
					  (size_t)(s - path)) < 0) {
				report_errno(rep, errno, "recording %s "
					     "%.*s", what, (int)(s - path), path);
				goto error;
			}
		}
	}
	return fd;
error:
	fdutil_close(fd);
	return -1;
}

int nssource_prepare(const struct nssource *src, int jobfd,
		     struct nssource_made *made, struct report *rep)
{
	int fd = source_walk(src, jobfd, made, rep), mnt_fd;

	if (fd < 0)
		return -1;
	if ((mnt_fd = fdmount_clone(fd, src->attrs)) < 0)
		report_errno(rep, errno, "cloning the mount of Source %s",
			     src->path);
	fdutil_close(fd);
	return mnt_fd;
}

int nssource_prepare_point(const struct nssource *src, int jobfd,
			   struct nssource_made *made, struct report *rep)
{
	int fd;

	if (!src->mount_point) {
		errno = EINVAL;
		return report_error(rep, "%s: not a mount point", src->path);
	}
	if ((fd = source_walk(src, jobfd, made, rep)) < 0)
		return -1;
	fdutil_close(fd);
	return 0;
}

void nssource_made_close(struct nssource_made *made, bool remove)
{
	int saved = errno;

	if (made->parent_fd < 0)
		return;
	if (remove)
		(void)saferm_at(made->parent_fd, made->name);
	close(made->parent_fd);
	made->parent_fd = -1;
	errno = saved;
}

/*
 * Remove one recorded per-job Source directory ("DEV INO PATH") by
 * remove: only the very directory that nssource_prepare made or checked,
 * found again from "/" without following links; anything else at that
 * path is not the job's.
 */
static int remove_source(char *line, nssource_remove_fn *remove,
			 const void *arg)
{
	uintmax_t dev, ino;
	char *path, *slash, *end;
	struct stat st;
	int parent_fd, rc;

	errno = 0;
	dev = strtoumax(line, &end, 10);
	if (errno || *end != ' ')
		goto bad;
	ino = strtoumax(end + 1, &end, 10);
	if (errno || *end != ' ')
		goto bad;
	path = end + 1;
	if (path[0] != '/' || !(slash = strrchr(path, '/')) || slash == path)
		goto bad;
	*slash = '\0';
	parent_fd = safepath_open(path);
	*slash = '/';
	if (parent_fd < 0)
		return errno == ENOENT ? 0 : -1;
	if (fstatat(parent_fd, slash + 1, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISDIR(st.st_mode) || (uintmax_t)st.st_dev != dev ||
	    (uintmax_t)st.st_ino != ino) {
		close(parent_fd);
		return 0;
	}
	rc = remove(parent_fd, slash + 1, arg);
	fdutil_close(parent_fd);
	return rc;
bad:
	errno = EINVAL;
	return -1;
}

int nssource_remove_all(const char *base_path, const char *name,
			nssource_remove_fn *remove, const void *arg)
{
	char *text, *line, *next;
	int saved = 0;

	if (jobrec_read(base_path, name, RECORD_NAME, RECORD_MAX, &text) < 0)
		return -1;
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		*next++ = '\0';
		if (remove_source(line, remove, arg) < 0 && !saved)
			saved = errno;
	}
	free(text);
	errno = saved;
	return saved ? -1 : 0;
}
