/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nspool_keeper.c - slurmd's thread that keeps the pool filled and
 * reaps what ended jobs leave it.  See nspool_keeper.h.
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
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "conf/jobdir.h"
#include "ns/nspool.h"
#include "ns/nspool_keeper.h"
#include "ns/nsreap.h"

/* How long the keeper waits between fills: after a claim it wakes at once. */
#define KEEPER_IDLE_MS (60 * 1000)
/* The shortest time between two rebuilds for the node's mount changes. */
#define KEEPER_REBUILD_MS NSPOOL_REBUILD_MS
/* FNV-1a, 64 bits: a fingerprint of the node's mount table. */
#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

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
			wd = nspool_watch(ino, k->base_path);
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
