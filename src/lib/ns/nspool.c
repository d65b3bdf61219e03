/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nspool.c - mount namespaces copied ahead of the jobs.
 *
 * Every path below BasePath/.pool is reached from an fd of that directory,
 * which only root can write: entry names are numbers this file made.
 * Unmounts go through /proc/self/fd/<pool fd>/..., so BasePath is not
 * resolved again by name.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "conf/jobdir.h"
#include "ns/mntns.h"
#include "ns/nspool.h"
#include "util/fdmount.h"
#include "util/fdutil.h"
#include "util/safepath.h"
#include "util/saferm.h"

#define READY_SUFFIX ".ready"

/* BasePath/.pool as an fd, made (0700) first when create. */
static int pool_open(const char *base_path, bool create)
{
	int basefd = safepath_open(base_path), fd;

	if (basefd < 0)
		return -1;
	if (create && mkdirat(basefd, JOBDIR_POOL, 0700) < 0 &&
	    errno != EEXIST) {
		fdutil_close(basefd);
		return -1;
	}
	fd = openat(basefd, JOBDIR_POOL,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	fdutil_close(basefd);
	return fd;
}

/*
 * BasePath/.pool, made when create, locked for fill or clear.  A clear
 * removes the directory: whoever waited for its lock holds a directory no
 * longer linked (st_nlink 0), where nothing can be made, and opens the
 * new one instead.
 */
static int pool_lock(const char *base_path, bool create)
{
	struct stat st;

	for (int attempt = 0; attempt < 8; attempt++) {
		int fd = pool_open(base_path, create);

		if (fd < 0)
			return -1;
		if (flock(fd, LOCK_EX) < 0) {
			fdutil_close(fd);
			return -1;
		}
		if (fstat(fd, &st) == 0 && st.st_nlink > 0)
			return fd;
		close(fd);
	}
	errno = ESTALE;
	return -1;
}

/*
 * A DIR of the pool's entries, poolfd itself kept open; NULL with errno.
 * The copy is close-on-exec like poolfd: it shares the flock of the fill
 * or clear that holds poolfd, and other threads of slurmd fork at any
 * moment (26.11: launches and Prologs on threads without bound).  Slurm's
 * own forks close every fd above 2 before they exec, but a fork of a
 * library or another plugin may not: a copy without close-on-exec would
 * then hold the pool's lock for as long as that program runs.
 */
static DIR *pool_dir(int poolfd)
{
	int dupfd = fcntl(poolfd, F_DUPFD_CLOEXEC, 0);
	DIR *dp;

	if (dupfd < 0)
		return NULL;
	if (!(dp = fdopendir(dupfd)))
		fdutil_close(dupfd);
	return dp;
}

/*
 * The number of an entry name ("12", or "12.ready" with *ready set), or 0
 * for any other name.
 */
static unsigned long entry_number(const char *name, bool *ready)
{
	unsigned long n;
	char *end;

	if (name[0] < '1' || name[0] > '9')
		return 0;
	errno = 0;
	n = strtoul(name, &end, 10);
	if (errno || n == 0 || n > UINT_MAX)
		return 0;
	*ready = !strcmp(end, READY_SUFFIX);
	return *ready || !*end ? n : 0;
}

/* umount2 of BasePath/.pool/<rel>, reached through the pool's fd. */
static void unmount_below(int poolfd, const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", poolfd, rel);
	umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW);
}

/* Entry n's namespace as an fd, if its pin holds one. */
static int open_pin(int poolfd, unsigned long n)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "%lu/" JOBDIR_NS_PIN, n);
	return mntns_pin_openat(poolfd, rel, NULL);
}

/* Whether entry n's pin holds a namespace. */
static bool entry_pinned(int poolfd, unsigned long n)
{
	int fd = open_pin(poolfd, n);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static bool has_marker(int poolfd, unsigned long n)
{
	char name[64];
	struct stat st;

	snprintf(name, sizeof(name), "%lu" READY_SUFFIX, n);
	return fstatat(poolfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Remove entry n: its marker, pin, private bind and directory. */
static int remove_entry(int poolfd, unsigned long n)
{
	char name[64], rel[64];

	snprintf(name, sizeof(name), "%lu" READY_SUFFIX, n);
	unlinkat(poolfd, name, 0);
	snprintf(rel, sizeof(rel), "%lu/" JOBDIR_NS_PIN, n);
	unmount_below(poolfd, rel);
	snprintf(name, sizeof(name), "%lu", n);
	unmount_below(poolfd, name);
	if (saferm_at(poolfd, name) < 0 && errno != ENOENT)
		return -1;
	return 0;
}

/*
 * Make entry n: its directory as a private bind of itself (so that the pin
 * cannot propagate), a bare namespace pinned in it, and last the marker.
 */
static int make_entry(const char *base_path, int poolfd, unsigned long n,
		      struct report *rep)
{
	char name[64];
	int dirfd = -1, selffd = -1, pinfd = -1, fd;

	snprintf(name, sizeof(name), "%lu", n);
	if (mkdirat(poolfd, name, 0700) < 0) {
		report_errno(rep, errno, "creating %s/" JOBDIR_POOL "/%s",
			     base_path, name);
		return -1;
	}
	if ((dirfd = openat(poolfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW |
			    O_CLOEXEC)) < 0 ||
	    (selffd = fdmount_private_self(dirfd)) < 0 ||
	    (pinfd = openat(selffd, JOBDIR_NS_PIN, O_CREAT | O_EXCL |
			    O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0400)) < 0) {
		report_errno(rep, errno, "preparing %s/" JOBDIR_POOL "/%s",
			     base_path, name);
		goto error;
	}
	if (mntns_make_bare(base_path, pinfd, rep) < 0)
		goto error;
	snprintf(name, sizeof(name), "%lu" READY_SUFFIX, n);
	if ((fd = openat(poolfd, name, O_CREAT | O_EXCL | O_WRONLY |
			 O_NOFOLLOW | O_CLOEXEC, 0400)) < 0) {
		report_errno(rep, errno, "creating %s/" JOBDIR_POOL "/%s",
			     base_path, name);
		goto error;
	}
	close(fd);
	close(pinfd);
	close(selffd);
	close(dirfd);
	return 0;
error:
	if (pinfd >= 0)
		close(pinfd);
	if (selffd >= 0)
		close(selffd);
	if (dirfd >= 0)
		close(dirfd);
	remove_entry(poolfd, n);
	return -1;
}

/*
 * Remove every entry that is not ready (claimed, half made, or whose pin
 * went with a reboot), or every entry with all.  Returns how many are
 * ready, with *next the first free number, or -1 with errno.
 */
static int sweep(int poolfd, bool all, unsigned long *next)
{
	DIR *dp = pool_dir(poolfd);
	struct dirent *ep;
	int ready = 0;

	*next = 1;
	if (!dp)
		return -1;
	while ((ep = readdir(dp))) {
		bool marker;
		unsigned long n = entry_number(ep->d_name, &marker);

		if (!n)
			continue;
		if (n >= *next)
			*next = n + 1;
		if (marker) {
			/* A marker without its entry is removed with it. */
			if (all || !entry_pinned(poolfd, n))
				remove_entry(poolfd, n);
			continue;
		}
		if (!all && has_marker(poolfd, n) && entry_pinned(poolfd, n))
			ready++;
		else
			remove_entry(poolfd, n);
	}
	closedir(dp);
	return ready;
}

int nspool_fill(const char *base_path, unsigned want, struct report *rep)
{
	unsigned long next;
	int poolfd, ready;

	if ((poolfd = pool_lock(base_path, want > 0)) < 0) {
		if (errno == ENOENT && !want)
			return 0;
		return report_errno(rep, errno, "opening %s/" JOBDIR_POOL,
				    base_path);
	}
	if ((ready = sweep(poolfd, false, &next)) < 0) {
		report_errno(rep, errno, "reading %s/" JOBDIR_POOL, base_path);
		fdutil_close(poolfd);
		return -1;
	}
	while ((unsigned)ready < want &&
	       make_entry(base_path, poolfd, next++, rep) == 0)
		ready++;
	close(poolfd);
	return ready;
}

int nspool_claim(const char *base_path)
{
	int poolfd = pool_open(base_path, false), fd = -1;
	struct dirent *ep;
	DIR *dp;

	if (poolfd < 0)
		return -1;
	if (!(dp = pool_dir(poolfd))) {
		close(poolfd);
		errno = ENOENT;
		return -1;
	}
	while (fd < 0 && (ep = readdir(dp))) {
		bool marker;
		unsigned long n = entry_number(ep->d_name, &marker);
		char rel[64];

		/* The unlink is the claim: one claimer alone succeeds. */
		if (!n || !marker || unlinkat(poolfd, ep->d_name, 0) < 0)
			continue;
		if ((fd = open_pin(poolfd, n)) < 0)
			continue;
		snprintf(rel, sizeof(rel), "%lu/" JOBDIR_NS_PIN, n);
		unmount_below(poolfd, rel);
	}
	closedir(dp);
	close(poolfd);
	if (fd < 0)
		errno = ENOENT;
	return fd;
}

/*
 * The directory is removed before its lock is let go: a keeper that waits
 * for the lock to refill (the clear's unlinks woke it) would otherwise
 * make its first entry between the two, and the removal would fail.  The
 * keeper then finds the directory unlinked and makes a new one.
 */
int nspool_clear(const char *base_path, struct report *rep)
{
	unsigned long next;
	int poolfd, basefd, rc = 0;

	if ((basefd = safepath_open(base_path)) < 0)
		return errno == ENOENT ? 0 :
		       report_errno(rep, errno, "opening %s", base_path);
	if ((poolfd = pool_lock(base_path, false)) < 0) {
		rc = errno == ENOENT ? 0 :
		     report_errno(rep, errno, "opening %s/" JOBDIR_POOL,
				  base_path);
		close(basefd);
		return rc;
	}
	if (sweep(poolfd, true, &next) < 0)
		rc = report_errno(rep, errno, "clearing %s/" JOBDIR_POOL,
				  base_path);
	else if (unlinkat(basefd, JOBDIR_POOL, AT_REMOVEDIR) < 0 &&
		 errno != ENOENT)
		rc = report_errno(rep, errno, "removing %s/" JOBDIR_POOL,
				  base_path);
	close(poolfd);
	close(basefd);
	return rc;
}

int nspool_ready(const char *base_path)
{
	int poolfd = pool_open(base_path, false), ready = 0;
	struct dirent *ep;
	DIR *dp;

	if (poolfd < 0)
		return 0;
	if ((dp = pool_dir(poolfd))) {
		while ((ep = readdir(dp))) {
			bool marker;
			unsigned long n = entry_number(ep->d_name, &marker);

			ready += n && marker && entry_pinned(poolfd, n);
		}
		closedir(dp);
	}
	close(poolfd);
	return ready;
}

int nspool_watch(int ino, const char *base_path)
{
	char path[PATH_MAX];
	int poolfd = pool_open(base_path, false), wd;

	if (poolfd < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", poolfd);
	wd = inotify_add_watch(ino, path, IN_DELETE | IN_ONLYDIR);
	close(poolfd);
	return wd;
}
