/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_nsfdmap.c - unit tests of nsfdmap_hand(): what Slurm 26.11's
 * slurmstepd does with join_external's list (close each entry's fd, free
 * each entry) leaves the extern stepd's cached namespace fds valid and its
 * open fd count unchanged, over twenty successive adoptions.
 *
 * The receiver here is a list of malloc'd entries whose destructor closes
 * the fd and frees the entry: stepd_destroy_ns_fd_map's contract.  The
 * cache is this process's own mount and user namespace (/proc/self/ns),
 * which any user may open.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ns/nsfdmap.h"
#include "tap.h"

#define JOINS 20

/* The receiver: slurmstepd's ns_map with stepd_destroy_ns_fd_map. */
struct entry {
	int type;
	int fd;
	struct entry *next;
};

struct receiver {
	struct entry *head;
	int fail_at;	/* take() fails on this call (1-based), 0: never */
	int calls;
};

static int take(int nstype, int fd, void *arg)
{
	struct receiver *r = arg;
	struct entry *e, **tail;

	if (++r->calls == r->fail_at) {
		errno = ENOMEM;
		return -1;
	}
	if (!(e = calloc(1, sizeof(*e))))
		return -1;
	e->type = nstype;
	e->fd = fd;
	for (tail = &r->head; *tail; tail = &(*tail)->next)
		;
	*tail = e;
	return 0;
}

static int receiver_count(const struct receiver *r)
{
	int n = 0;

	for (const struct entry *e = r->head; e; e = e->next)
		n++;
	return n;
}

/* list_destroy with stepd_destroy_ns_fd_map: close, free. */
static void receiver_destroy(struct receiver *r)
{
	struct entry *e = r->head, *next;

	for (; e; e = next) {
		next = e->next;
		if (e->fd >= 0)
			close(e->fd);
		free(e);
	}
	r->head = NULL;
	r->calls = 0;
}

/* The process's open fds, as ls /proc/PID/fd counts them. */
static int open_fds(void)
{
	DIR *dp = opendir("/proc/self/fd");
	struct dirent *ep;
	int n = 0;

	if (!dp)
		return -1;
	while ((ep = readdir(dp)))
		if (ep->d_name[0] != '.')
			n++;
	closedir(dp);
	return n - 1;	/* the directory's own fd */
}

/* fd is open and names the same file as st. */
static bool same_file(int fd, const struct stat *st)
{
	struct stat now;

	return fcntl(fd, F_GETFD) >= 0 && fstat(fd, &now) == 0 &&
	       now.st_dev == st->st_dev && now.st_ino == st->st_ino;
}

static struct nsfd cache[2];
static struct stat cache_st[2];

static void open_cache(void)
{
	cache[0].nstype = CLONE_NEWNS;
	cache[0].fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	cache[1].nstype = CLONE_NEWUSER;
	cache[1].fd = open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC);
	ok(cache[0].fd >= 0 && cache[1].fd >= 0 &&
	   fstat(cache[0].fd, &cache_st[0]) == 0 &&
	   fstat(cache[1].fd, &cache_st[1]) == 0,
	   "precondition: fds on this process's mount and user namespaces");
}

/*
 * The old contract, for contrast: the cache itself handed to a receiver
 * that closes what it gets is gone after the first join.  (A copy of the
 * cache stands in, so that the real one stays for the tests below.)
 */
static void test_old_contract_breaks(void)
{
	struct receiver r = { 0 };
	int copy = fcntl(cache[0].fd, F_DUPFD_CLOEXEC, 3);

	ok(copy >= 0 && same_file(copy, &cache_st[0]),
	   "precondition: a second cached fd on the mount namespace");
	(void)take(CLONE_NEWNS, copy, &r);	/* the fd itself, no dup */
	receiver_destroy(&r);
	errno = 0;
	ok(fcntl(copy, F_GETFD) == -1 && errno == EBADF,
	   "handing the cached fd itself: the receiver closes the cache");
}

static void test_twenty_joins(void)
{
	int before, after, handed_ok = 0, fresh_ok = 0, valid_ok = 0;

	before = open_fds();
	ok(before > 0, "precondition: /proc/self/fd counts %d open fds", before);
	for (int i = 0; i < JOINS; i++) {
		struct receiver r = { 0 };
		int n = nsfdmap_hand(cache, 2, take, &r);
		const struct entry *e = r.head;

		if (n == 2 && receiver_count(&r) == 2)
			handed_ok++;
		/* Each entry: the cache's type, its own fd on the same ns. */
		if (e && e->next && e->type == CLONE_NEWNS &&
		    e->next->type == CLONE_NEWUSER &&
		    e->fd > 2 && e->next->fd > 2 &&
		    e->fd != cache[0].fd && e->fd != cache[1].fd &&
		    e->next->fd != cache[0].fd && e->next->fd != cache[1].fd &&
		    same_file(e->fd, &cache_st[0]) &&
		    same_file(e->next->fd, &cache_st[1]) &&
		    (fcntl(e->fd, F_GETFD) & FD_CLOEXEC) &&
		    (fcntl(e->next->fd, F_GETFD) & FD_CLOEXEC))
			fresh_ok++;
		receiver_destroy(&r);
		if (same_file(cache[0].fd, &cache_st[0]) &&
		    same_file(cache[1].fd, &cache_st[1]))
			valid_ok++;
	}
	after = open_fds();
	ok(handed_ok == JOINS, "%d of %d joins handed both namespaces",
	   handed_ok, JOINS);
	ok(fresh_ok == JOINS,
	   "%d of %d joins handed fds of their own (close-on-exec, above 2) on the cached namespaces",
	   fresh_ok, JOINS);
	ok(valid_ok == JOINS,
	   "the cached fds stay open on their namespaces after each of %d receivers closed what it got (%d)",
	   JOINS, valid_ok);
	ok(after == before, "open fds after %d joins: %d, before: %d", JOINS,
	   after, before);
}

static void test_skips_closed_entry(void)
{
	struct nsfd some[2] = {
		{ .nstype = CLONE_NEWNS, .fd = cache[0].fd },
		{ .nstype = CLONE_NEWUSER, .fd = -1 },	/* no user namespace */
	};
	struct receiver r = { 0 };
	int n = nsfdmap_hand(some, 2, take, &r);

	ok(n == 1 && receiver_count(&r) == 1 && r.head->type == CLONE_NEWNS,
	   "an entry without an fd is skipped (handed %d)", n);
	receiver_destroy(&r);
	ok(nsfdmap_hand(some, 0, take, &r) == 0 && !r.head,
	   "nothing to hand: 0, the receiver untouched");
}

/* The receiver refuses the second: the first stays its, the dup goes. */
static void test_take_fails(void)
{
	struct receiver r = { .fail_at = 2 };
	int before = open_fds(), n;

	errno = 0;
	n = nsfdmap_hand(cache, 2, take, &r);
	ok(n == -1 && errno == ENOMEM, "a refused entry fails the hand (-1, %d)",
	   errno);
	ok(receiver_count(&r) == 1 && same_file(r.head->fd, &cache_st[0]),
	   "the entry taken before stays the receiver's");
	ok(open_fds() == before + 1, "only that entry's fd is open (%d, before %d)",
	   open_fds(), before);
	receiver_destroy(&r);
	ok(open_fds() == before, "nothing left open once the receiver freed it");
}

/* A cache that is not open (closed number): -1 EBADF, nothing handed. */
static void test_bad_cache(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	struct nsfd bad = { .nstype = CLONE_NEWNS, .fd = fd };
	struct receiver r = { 0 };
	int before, n;

	ok(fd >= 0 && close(fd) == 0, "precondition: a closed fd number");
	before = open_fds();
	errno = 0;
	n = nsfdmap_hand(&bad, 1, take, &r);
	ok(n == -1 && errno == EBADF && !r.head && open_fds() == before,
	   "a closed cache: -1 EBADF (%d), nothing handed or left open", errno);
}

int main(void)
{
	open_cache();
	test_old_contract_breaks();
	test_twenty_joins();
	test_skips_closed_entry();
	test_take_fails();
	test_bad_cache();
	close(cache[0].fd);
	close(cache[1].fd);
	return tap_done();
}
