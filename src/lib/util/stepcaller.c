/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stepcaller.c - the connections a slurmstepd's request thread may be
 * serving, and whether all of them are root's or the job owner's.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "util/fdutil.h"
#include "util/stepcaller.h"

/* Threads whose blocked read this sees; more are taken as not reading. */
#define MAX_READERS 512
/* Connections judged at once; more refuse (the caller may be beyond). */
#define MAX_PEERS 256

/* Whether nr is a system call that reads one fd, its first argument. */
static bool reads_fd(long nr)
{
	switch (nr) {
#ifdef __NR_read
	case __NR_read:
#endif
#ifdef __NR_readv
	case __NR_readv:
#endif
#ifdef __NR_recvfrom
	case __NR_recvfrom:
#endif
#ifdef __NR_recvmsg
	case __NR_recvmsg:
#endif
		return true;
	default:
		return false;
	}
}

/*
 * The fd thread tid is blocked reading, or -1: its syscall file says
 * "NR ARG0 ...", "running", or "-1 SP PC" (blocked outside a call).
 */
static int blocked_read_fd(int task_dir, const char *tid)
{
	char path[64], buf[256];
	unsigned long long arg0;
	ssize_t len;
	long nr;
	int fd;

	if (snprintf(path, sizeof(path), "%s/syscall", tid) >=
	    (int)sizeof(path))
		return -1;
	if ((fd = openat(task_dir, path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	fdutil_close(fd);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	if (sscanf(buf, "%ld 0x%llx", &nr, &arg0) != 2 || !reads_fd(nr) ||
	    arg0 > INT_MAX)
		return -1;
	return (int)arg0;
}

/* The fds other threads of the process are blocked reading, into fds. */
static size_t list_readers(int *fds, size_t max)
{
	char self[32];
	struct dirent *ep;
	size_t n = 0;
	DIR *dp;

	snprintf(self, sizeof(self), "%ld", (long)syscall(SYS_gettid));
	if (!(dp = opendir("/proc/self/task")))
		return 0;	/* none seen: every connection stays a candidate */
	while (n < max && (ep = readdir(dp))) {
		int fd;

		if (ep->d_name[0] < '0' || ep->d_name[0] > '9' ||
		    strcmp(ep->d_name, self) == 0)
			continue;
		if ((fd = blocked_read_fd(dirfd(dp), ep->d_name)) >= 0)
			fds[n++] = fd;
	}
	closedir(dp);
	return n;
}

static bool in(const int *fds, size_t n, int fd)
{
	for (size_t i = 0; i < n; i++)
		if (fds[i] == fd)
			return true;
	return false;
}

/*
 * Whether fd is an accepted unix stream connection (bound to a name, not
 * listening), with its peer's credentials in *p.
 */
static bool accepted_conn(int fd, struct stepcaller_peer *p)
{
	struct sockaddr_un addr;
	socklen_t len = sizeof(addr);
	int val = 0;
	socklen_t vlen = sizeof(val);
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	struct stat st;

	if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode))
		return false;
	memset(&addr, 0, sizeof(addr));
	if (getsockname(fd, (struct sockaddr *)&addr, &len) < 0 ||
	    addr.sun_family != AF_UNIX ||
	    len <= offsetof(struct sockaddr_un, sun_path))
		return false;	/* unnamed: a client's socket or a pair */
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &val, &vlen) < 0 ||
	    val != SOCK_STREAM)
		return false;
	vlen = sizeof(val);
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &val, &vlen) < 0 || val)
		return false;	/* the listening socket itself */
	/* A connection whose peer cannot be told counts as another user's. */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0) {
		cred.uid = STEPCALLER_NO_OWNER;
		cred.pid = 0;
	}
	p->fd = fd;
	p->uid = cred.uid;
	p->pid = cred.pid;
	return true;
}

int stepcaller_scan(struct stepcaller_peer *peers, size_t max, size_t *n)
{
	int readers[MAX_READERS];	/* on the stack: 2 KiB */
	struct stepcaller_peer p;
	struct dirent *ep;
	size_t nread;
	DIR *dp;

	*n = 0;
	/*
	 * Threads first: a connection whose thread is seen blocked reading
	 * it is not the caller's, whatever it does by the time its socket is
	 * looked at (only the caller's own thread serves the caller's).
	 */
	nread = list_readers(readers, MAX_READERS);
	if (!(dp = opendir("/proc/self/fd")))
		return -1;
	while ((ep = readdir(dp))) {
		char *end;
		long fd = strtol(ep->d_name, &end, 10);

		if (*end || end == ep->d_name || fd < 0 || fd > INT_MAX ||
		    fd == dirfd(dp))
			continue;
		if (!accepted_conn((int)fd, &p) || in(readers, nread, (int)fd))
			continue;
		if (*n < max)
			peers[*n] = p;
		(*n)++;
	}
	closedir(dp);
	return 0;
}

int stepcaller_judge(const struct stepcaller_peer *peers, size_t n,
		     uid_t owner, size_t *bad, bool *all_bad)
{
	size_t others = 0;

	*bad = n;
	for (size_t i = 0; i < n; i++) {
		if (peers[i].uid == 0 ||
		    (owner != STEPCALLER_NO_OWNER && peers[i].uid == owner))
			continue;
		if (!others++)
			*bad = i;
	}
	*all_bad = n > 0 && others == n;
	return n > 0 && others == 0;
}

int stepcaller_check(uid_t owner, struct stepcaller_peer *bad)
{
	struct stepcaller_peer peers[MAX_PEERS];	/* on the stack: 3 KiB */
	const struct timespec pause = {
		.tv_nsec = STEPCALLER_PAUSE_MS * 1000000L
	};

	bad->fd = -1;
	bad->uid = STEPCALLER_NO_OWNER;
	bad->pid = 0;
	for (int try = 0; try < STEPCALLER_TRIES; try++) {
		size_t n, i;
		bool all_bad;

		if (try)
			nanosleep(&pause, NULL);
		if (stepcaller_scan(peers, MAX_PEERS, &n) < 0)
			return -1;
		if (n > MAX_PEERS)
			continue;	/* too many to judge: maybe next time */
		if (stepcaller_judge(peers, n, owner, &i, &all_bad))
			return 1;
		if (i < n)
			*bad = peers[i];
		/* Only other users' (the caller's among them), or none. */
		if (all_bad || n == 0)
			return 0;
	}
	return 0;
}
