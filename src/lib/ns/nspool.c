/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nspool.c - mount namespaces copied ahead of the jobs.
 *
 * Every path below BasePath/.pool is reached from an fd of that directory,
 * which only root can write: entry names are numbers this file made.
 * Unmounts go through /proc/self/fd/<pool fd>/..., so BasePath is not
 * resolved again by name.
 *
 * Why the keeper also watches the node's mount table: a copy receives the
 * node's later mounts only through mounts that are shared, as systemd
 * leaves every mount of a node.  Where they are private, a ready copy
 * would keep the node's mounts of the moment it was made.  So when the
 * node's mounts change outside BasePath (where the jobs' own pins and
 * binds come and go), the keeper replaces every ready copy.  A user can
 * make the node's mounts change at will (autofs mounts on a lookup), so
 * the copies are withdrawn at once (no job gets a stale one: it makes its
 * namespace itself, as with an empty pool) but made again at most once
 * per KEEPER_REBUILD_MS.
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

#include "ns/jobdir.h"
#include "ns/mntns.h"
#include "ns/nsconf.h"
#include "ns/nspool.h"
#include "ns/nsreap.h"
#include "util/fdmount.h"
#include "util/fdutil.h"
#include "util/safepath.h"
#include "util/saferm.h"

#define READY_SUFFIX ".ready"
/* How long the keeper waits between fills: after a claim it wakes at once. */
#define KEEPER_IDLE_MS (60 * 1000)
/* The shortest time between two rebuilds for the node's mount changes. */
#define KEEPER_REBUILD_MS NSPOOL_REBUILD_MS
/* FNV-1a, 64 bits: a fingerprint of the node's mount table. */
#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

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

/* A DIR of the pool's entries, poolfd itself kept open; NULL with errno. */
static DIR *pool_dir(int poolfd)
{
	int dupfd = dup(poolfd);
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

/* ---- the keeper ---------------------------------------------------------- */

struct nspool_keeper {
	pthread_t thread;
	int stop[2];		/* a byte on stop[1] ends the thread */
	char *base_path;
	unsigned want;
	report_log_f log;
	void *log_arg;
};

/* Whether the mount point of a mountinfo line lies at or below base. */
static bool line_below(const char *line, size_t len, const char *base)
{
	size_t blen = strlen(base), i = 0;

	/* the fifth field, the mount point, octal-escaped like base is not */
	for (int field = 0; field < 4; field++) {
		while (i < len && line[i] != ' ')
			i++;
		i++;
	}
	return i + blen <= len && !memcmp(line + i, base, blen) &&
	       (i + blen == len || line[i + blen] == ' ' ||
		line[i + blen] == '/');
}

/*
 * A fingerprint of the caller's mount table without what lies at or below
 * base, from the open /proc/self/mountinfo fd (read from its start).
 * Returns 0 when it cannot be read.
 */
static uint64_t mounts_fingerprint(int fd, const char *base)
{
	char buf[8192], line[4096];
	uint64_t h = FNV_OFFSET;
	size_t used = 0;
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n') {
				if (used < sizeof(line))
					line[used++] = buf[i];
				continue;
			}
			if (!line_below(line, used, base))
				for (size_t j = 0; j < used; j++)
					h = (h ^ (unsigned char)line[j]) *
					    FNV_PRIME;
			used = 0;
		}
	}
	return n < 0 ? 0 : h;
}

/* Watch BasePath/.pool for claims (a marker unlinked); -1 if it cannot. */
static int watch_claims(const struct nspool_keeper *k, int ino)
{
	char path[PATH_MAX];
	int poolfd = pool_open(k->base_path, false), wd;

	if (poolfd < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", poolfd);
	wd = inotify_add_watch(ino, path, IN_DELETE | IN_ONLYDIR);
	close(poolfd);
	return wd;
}

/*
 * Read what inotify has; true when the watch went (IN_IGNORED: the pool
 * was cleared by someone else, devns cleanup).  A claim also unmounts a
 * pin, which the mount table's poll sees too: either wakes the keeper.
 */
static bool drain_events(int ino, char *buf, size_t size)
{
	bool gone = false;
	ssize_t n;

	while ((n = read(ino, buf, size)) > 0) {
		for (ssize_t i = 0; i + (ssize_t)sizeof(struct inotify_event) <= n;) {
			const struct inotify_event *ev = (const void *)(buf + i);

			gone |= (ev->mask & IN_IGNORED) != 0;
			i += sizeof(*ev) + ev->len;
		}
	}
	return gone;
}

/*
 * Whether the node's mounts outside BasePath changed since *seen (then
 * updated).  poll() reported a change of the table; most are the jobs'.
 */
static bool node_mounts_changed(const struct nspool_keeper *k, int mi,
				uint64_t *seen)
{
	uint64_t now = mounts_fingerprint(mi, k->base_path);

	if (!now || now == *seen)
		return false;
	*seen = now;
	return true;
}

/* CLOCK_MONOTONIC in milliseconds. */
static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void *keeper_main(void *arg)
{
	struct nspool_keeper *k = arg;
	int ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC), wd = -1;
	int mi = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	uint64_t seen = mi >= 0 ? mounts_fingerprint(mi, k->base_path) : 0;
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	struct report rep;
	int64_t hold = 0;	/* no fill before (a rebuild put off) */
	int64_t rebuilt = INT64_MIN / 2; /* the last rebuild for a change */
	int reap;

	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
	report_init(&rep, k->log, k->log_arg);
	/* Without it the jobs drop their namespaces themselves. */
	if ((reap = nsreap_listen(k->base_path)) < 0)
		report_errno(&rep, errno, "NamespacePool: cannot listen on "
			     "%s/" JOBDIR_REAPER_SOCKET, k->base_path);
	for (;;) {
		struct pollfd pfd[4] = {
			{ .fd = k->stop[0], .events = POLLIN },
			{ .fd = ino, .events = POLLIN },
			{ .fd = mi, .events = POLLPRI },
			{ .fd = reap, .events = POLLIN },
		};
		int64_t wait = hold - now_ms();
		int ready;

		report_init(&rep, k->log, k->log_arg);
		if (wait <= 0) {
			wait = KEEPER_IDLE_MS;
			ready = nspool_fill(k->base_path, k->want, &rep);
			if (ready >= 0 && (unsigned)ready < k->want)
				report_warning(&rep, "NamespacePool: %d of %u "
					       "namespaces ready; trying again "
					       "in a minute", ready, k->want);
		}
		if (wd < 0 && ino >= 0)
			wd = watch_claims(k, ino);
		if (poll(pfd, 4, (int)wait) > 0 && pfd[0].revents)
			break;
		if (pfd[3].revents & POLLIN)
			nsreap_drain(reap, k->base_path, &rep);
		if (ino >= 0 && drain_events(ino, buf, sizeof(buf)))
			wd = -1;	/* the pool was removed under us */
		if ((pfd[2].revents & (POLLPRI | POLLERR)) &&
		    node_mounts_changed(k, mi, &seen)) {
			int64_t now = now_ms();

			report_info(&rep, "NamespacePool: the node's mounts "
				    "changed; copying them again%s",
				    now - rebuilt < KEEPER_REBUILD_MS ?
				    " once the last rebuild is old enough" :
				    "");
			nspool_clear(k->base_path, &rep);
			wd = -1;	/* the directory is made anew */
			if (now >= hold && now - rebuilt >= KEEPER_REBUILD_MS) {
				rebuilt = now;	/* the first in a while: now */
				hold = 0;
			} else if (now >= hold) {
				rebuilt += KEEPER_REBUILD_MS;
				hold = rebuilt;	/* put off */
			}	/* else one is due at hold already */
		}
	}
	report_init(&rep, k->log, k->log_arg);
	nsreap_close(reap, k->base_path, &rep);
	if (mi >= 0)
		close(mi);
	if (ino >= 0)
		close(ino);
	return NULL;
}

struct nspool_keeper *nspool_keeper_start(const char *base_path,
					  unsigned want, report_log_f log,
					  void *log_arg)
{
	struct nspool_keeper *k = calloc(1, sizeof(*k));
	int err;

	if (!k)
		return NULL;
	k->stop[0] = k->stop[1] = -1;
	k->want = want;
	k->log = log;
	k->log_arg = log_arg;
	if (!(k->base_path = strdup(base_path)) ||
	    pipe2(k->stop, O_CLOEXEC) < 0)
		goto error;
	if ((err = pthread_create(&k->thread, NULL, keeper_main, k))) {
		errno = err;
		goto error;
	}
	return k;
error:
	err = errno;
	if (k->stop[0] >= 0) {
		close(k->stop[0]);
		close(k->stop[1]);
	}
	free(k->base_path);
	free(k);
	errno = err;
	return NULL;
}

void nspool_keeper_stop(struct nspool_keeper *k)
{
	struct report rep;

	if (!k)
		return;
	(void)!write(k->stop[1], "", 1);
	pthread_join(k->thread, NULL);
	close(k->stop[0]);
	close(k->stop[1]);
	report_init(&rep, k->log, k->log_arg);
	nspool_clear(k->base_path, &rep);
	free(k->base_path);
	free(k);
}
