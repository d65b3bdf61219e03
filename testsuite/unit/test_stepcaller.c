/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_stepcaller.c - who may be asking a slurmstepd's request thread.
 *
 * The attack this guards against (issue 42, item 3): Slurm's stepd socket
 * is 0777 and its REQUEST_GET_NS_FD handler checks no uid, so any user
 * could hold any job's mount namespace.  This process plays the stepd: a
 * listening unix socket, connections from root and from nobody accepted
 * here, a thread blocked reading one of them as Slurm's request threads
 * wait for their next request.  The calling thread is the one answering.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/stepcaller.h"
#include "tap.h"

#define NOBODY 65534

static char dir[] = "/tmp/test_stepcaller.XXXXXX";
static struct sockaddr_un addr = { .sun_family = AF_UNIX };
static int listen_fd = -1;

/* A connection accepted here, and the child at its other end. */
struct conn {
	int fd;		/* accepted here */
	pid_t child;	/* the peer, waiting for EOF */
};

/*
 * A connection from a child running as uid (the peer stays until the
 * accepted end is closed): the accepted fd, or -1.
 */
static struct conn connect_as(uid_t uid)
{
	struct conn c = { -1, -1 };
	int s;

	c.child = fork();
	if (c.child == 0) {
		char b;

		/* Not the other connections' fds: their EOF is theirs. */
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
		if ((uid != getuid() && (setgid(uid) < 0 || setuid(uid) < 0)) ||
		    (s = socket(AF_UNIX, SOCK_STREAM, 0)) < 0 ||
		    connect(s, (struct sockaddr *)&addr, sizeof(addr)) < 0)
			_exit(1);
		while (read(s, &b, 1) > 0)
			;
		_exit(0);
	}
	if (c.child > 0)
		c.fd = accept(listen_fd, NULL, NULL);
	return c;
}

static void conn_close(struct conn *c)
{
	int status;

	if (c->fd >= 0)
		close(c->fd);
	if (c->child > 0)
		waitpid(c->child, &status, 0);
	c->fd = c->child = -1;
}

/* Slurm's request thread: blocked reading its connection for a request. */
struct reader {
	int fd;
	volatile long tid;
	pthread_t t;
};

static void *read_request(void *arg)
{
	struct reader *r = arg;
	int req;

	r->tid = (long)syscall(SYS_gettid);
	(void)!read(r->fd, &req, sizeof(req));
	return NULL;
}

/* Whether thread tid is blocked in read(2) on fd, as its syscall file says. */
static int blocked_in_read(long tid, int fd)
{
	char path[64], buf[256], want[64];
	FILE *f;
	int ok = 0;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/syscall", tid);
	snprintf(want, sizeof(want), "%d 0x%x ", SYS_read, fd);
	if (!(f = fopen(path, "r")))
		return 0;
	if (fgets(buf, sizeof(buf), f))
		ok = strncmp(buf, want, strlen(want)) == 0;
	fclose(f);
	return ok;
}

static int reader_start(struct reader *r, int fd)
{
	r->fd = fd;
	r->tid = 0;
	if (pthread_create(&r->t, NULL, read_request, r))
		return -1;
	for (int i = 0; i < 500; i++) {	/* at most 5 s */
		if (r->tid && blocked_in_read(r->tid, fd))
			return 0;
		usleep(10000);
	}
	return -1;
}

static void reader_stop(struct reader *r)
{
	shutdown(r->fd, SHUT_RD);
	pthread_join(r->t, NULL);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The decision alone, on made-up scans. */
static void test_judge(void)
{
	const struct stepcaller_peer root = { 3, 0, 10 },
				     owner = { 4, 1000, 11 },
				     other = { 5, 1001, 12 };
	struct stepcaller_peer p[3] = { { -1, 0, 0 } };
	size_t bad;
	bool all_bad;

	ok(stepcaller_judge(p, 0, 1000, &bad, &all_bad) == 0 && bad == 0 &&
	   !all_bad, "no connection at all: refused (the caller is not seen)");
	p[0] = root;
	ok(stepcaller_judge(p, 1, STEPCALLER_NO_OWNER, &bad, &all_bad) == 1,
	   "root alone: allowed, owner known or not");
	p[1] = owner;
	ok(stepcaller_judge(p, 2, 1000, &bad, &all_bad) == 1,
	   "root and the owner: allowed");
	ok(stepcaller_judge(p, 2, STEPCALLER_NO_OWNER, &bad, &all_bad) == 0 &&
	   bad == 1 && !all_bad,
	   "owner not known: only root is allowed (the owner's is bad)");
	p[2] = other;
	ok(stepcaller_judge(p, 3, 1000, &bad, &all_bad) == 0 && bad == 2 &&
	   !all_bad, "another user's connection beside them: refused, "
	   "naming it, not all bad");
	p[0] = other;
	ok(stepcaller_judge(p, 1, 1000, &bad, &all_bad) == 0 && bad == 0 &&
	   all_bad, "another user's alone: refused, all bad");
}

/* This process as the stepd. */
static void test_scan(void)
{
	struct stepcaller_peer bad, peers[8];
	struct conn r = { -1, -1 }, nb = { -1, -1 };
	struct reader rd;
	int pair[2] = { -1, -1 }, client = -1;
	double t;
	size_t n = 0;
	int rc;

	ok(stepcaller_scan(peers, 8, &n) == 0 && n == 0,
	   "a listening socket alone: no connection (%zu)", n);
	ok(stepcaller_check(STEPCALLER_NO_OWNER, &bad) == 0 && bad.fd == -1,
	   "  a request that cannot be seen is refused");
	r = connect_as(0);
	ok(r.fd >= 0, "root connects (fd %d)", r.fd);
	/* Unnamed sockets and a connection not yet accepted are none. */
	client = socket(AF_UNIX, SOCK_STREAM, 0);
	ok(socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0 && client >= 0 &&
	   connect(client, (struct sockaddr *)&addr, sizeof(addr)) == 0,
	   "precondition: a socket pair and a client connection of ours");
	rc = stepcaller_scan(peers, 8, &n);
	ok(rc == 0 && n == 1 && peers[0].fd == r.fd && peers[0].uid == 0 &&
	   peers[0].pid == r.child,
	   "scan: root's accepted connection only (%zu), with its peer", n);
	ok(stepcaller_check(STEPCALLER_NO_OWNER, &bad) == 1,
	   "  root's request: allowed");
	close(client);
	close(pair[0]);
	close(pair[1]);
	{
		int a = accept(listen_fd, NULL, NULL);	/* our client's end */

		if (a >= 0)
			close(a);
	}

	nb = connect_as(NOBODY);
	ok(nb.fd >= 0, "nobody connects too (fd %d)", nb.fd);
	t = now_ms();
	rc = stepcaller_check(STEPCALLER_NO_OWNER, &bad);
	ok(rc == 0 && bad.fd == nb.fd && bad.uid == NOBODY && bad.pid == nb.child,
	   "root's request beside nobody's live connection is refused, "
	   "naming nobody's (uid %d, pid %d)", (int)bad.uid, (int)bad.pid);
	t = now_ms() - t;
	ok(t >= (STEPCALLER_TRIES - 1) * STEPCALLER_PAUSE_MS && t < 1000,
	   "  after %d scans, in %.1f ms: bounded", STEPCALLER_TRIES, t);
	ok(stepcaller_check(NOBODY, &bad) == 1,
	   "  allowed when nobody owns the job");
	if (ok(reader_start(&rd, nb.fd) == 0,
	       "precondition: a thread is blocked reading nobody's "
	       "connection (waiting for its next request)")) {
		ok(stepcaller_check(STEPCALLER_NO_OWNER, &bad) == 1,
		   "  then the request is root's: allowed");
		reader_stop(&rd);
	}
	conn_close(&r);
	rc = stepcaller_check(STEPCALLER_NO_OWNER, &bad);
	ok(rc == 0 && bad.uid == NOBODY,
	   "nobody's connection alone: refused (uid %d)", (int)bad.uid);
	conn_close(&nb);
}

int main(void)
{
	test_judge();
	if (!mkdtemp(dir)) {
		tap_skip("cannot make a scratch directory: %s", strerror(errno));
		return tap_done();
	}
	chmod(dir, 0755);
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/node1_7.4294967292",
		 dir);
	listen_fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (listen_fd < 0 ||
	    bind(listen_fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    chmod(addr.sun_path, 0777) < 0 || listen(listen_fd, 16) < 0) {
		ok(0, "a listening socket: %s", strerror(errno));
	} else if (!tap_root()) {
		tap_skip("connections of another user need root");
	} else {
		test_scan();
	}
	if (listen_fd >= 0)
		close(listen_fd);
	unlink(addr.sun_path);
	rmdir(dir);
	return tap_done();
}
