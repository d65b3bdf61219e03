/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsmembers.c - find, kill and outlive the processes of a mount namespace.
 *
 * The kernel's interfaces used here are newer than Debian 12's headers:
 * NS_GET_MNTNS_ID and listmount(2) with mnt_ns_id came with Linux 6.11.
 * Where they are missing every call fails cleanly (ENOTTY, ENOSYS,
 * EINVAL) and the namespace simply has no id.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/pidfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ns/nsmembers.h"

#ifndef NS_GET_MNTNS_ID
#define NS_GET_MNTNS_ID _IOR(0xb7, 0x5, uint64_t)
#endif
/* The same number on every architecture but alpha (unified table). */
#ifndef __NR_listmount
#define __NR_listmount 458
#endif
#define LSMT_ROOT 0xffffffffffffffffULL

/* struct mnt_id_req, version 1 (with mnt_ns_id). */
struct mnt_id_req_v1 {
	uint32_t size;
	uint32_t spare;
	uint64_t mnt_id;
	uint64_t param;
	uint64_t mnt_ns_id;
};

/* 1: the namespace exists, 0: it is gone, -1: the kernel cannot say. */
static int lookup_by_id(uint64_t id)
{
	struct mnt_id_req_v1 req = {
		.size = sizeof(req),
		.mnt_id = LSMT_ROOT,
		.mnt_ns_id = id,
	};
	uint64_t first;

	if (syscall(__NR_listmount, &req, &first, 1, 0) >= 0)
		return 1;
	return errno == ENOENT ? 0 : -1;
}

uint64_t nsmembers_id(int ns_fd)
{
	uint64_t id = 0;

	return ioctl(ns_fd, NS_GET_MNTNS_ID, &id) == 0 ? id : 0;
}

#ifndef FD_NSFS_ROOT
#define FD_NSFS_ROOT -10003	/* uapi fcntl.h, Linux 6.18 */
#endif

int nsmembers_handle(int ns_fd, struct nsmembers_handle *h)
{
	struct file_handle *fh = (struct file_handle *)&h->u.fh;
	int mount_id, fd;

	memset(h, 0, sizeof(*h));
	fh->handle_bytes = sizeof(h->u.fh.data);
	if (name_to_handle_at(ns_fd, "", fh, &mount_id, AT_EMPTY_PATH) < 0)
		return -1;
	if ((fd = nsmembers_reopen(h)) < 0)
		return -1;
	close(fd);
	return 0;
}

int nsmembers_reopen(const struct nsmembers_handle *h)
{
	return open_by_handle_at(FD_NSFS_ROOT, (struct file_handle *)&h->u.fh,
				 O_RDONLY | O_CLOEXEC);
}

int nsmembers_ident(int ns_fd, struct nsmembers_ns *ns)
{
	struct stat st;
	uint64_t id;

	if (fstat(ns_fd, &st) < 0)
		return -1;
	ns->dev = st.st_dev;
	ns->ino = st.st_ino;
	ns->id = 0;
	ns->held = false;
	/* Held open, it exists: anything but 1 means no usable lookup. */
	if ((id = nsmembers_id(ns_fd)) && lookup_by_id(id) == 1)
		ns->id = id;
	return 0;
}

/*
 * True when the namespace ns (with an id) no longer exists: no process,
 * pin or open fd holds it.  False while it exists, and always without an
 * id.  Costs one system call, whatever the node runs.
 */
static bool gone(const struct nsmembers_ns *ns)
{
	return ns->id && lookup_by_id(ns->id) == 0;
}

bool nsmembers_gone(const struct nsmembers_ns *ns)
{
	return gone(ns);
}

/*
 * Whether process pid is in ns.  The inode is a cheap first test; with an
 * id it is confirmed by the id, since once the caller holds no reference
 * the inode may belong to a namespace made since.
 */
static bool member(pid_t pid, const struct nsmembers_ns *ns)
{
	char path[64];
	struct stat st;
	int fd;
	bool same;

	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	if (stat(path, &st) < 0 || st.st_ino != ns->ino ||
	    st.st_dev != ns->dev)
		return false;
	if (!ns->id)
		return true;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	same = nsmembers_id(fd) == ns->id;
	close(fd);
	return same;
}

/* SIGKILL through the pidfd, or by PID where there are no pidfds. */
static void send_kill(int pidfd, pid_t pid)
{
	if (pidfd >= 0 && pidfd_send_signal(pidfd, SIGKILL, NULL, 0) == 0)
		return;
	if (pidfd < 0 || errno == ENOSYS)
		kill(pid, SIGKILL);
}

/*
 * The pidfd is taken before the test: a signal through it reaches the
 * process tested or none (ESRCH), never one that took its PID later.
 * Without pidfds (Linux before 5.3, valgrind) kill(2) has to do.
 */
static bool kill_if_member(pid_t pid, const struct nsmembers_ns *ns)
{
	int pidfd = pidfd_open(pid, 0);
	bool found;

	if (pidfd < 0 && errno != ENOSYS)
		return false;	/* gone already */
	found = member(pid, ns);
	if (found)
		send_kill(pidfd, pid);
	if (pidfd >= 0)
		close(pidfd);
	return found;
}

int nsmembers_scan(const struct nsmembers_ns *ns, pid_t *pids, size_t max,
		   bool kill_them)
{
	DIR *proc = opendir("/proc");
	struct dirent *ep;
	int found = 0;

	if (!proc)
		return -1;
	while ((ep = readdir(proc))) {
		pid_t pid = (pid_t)strtol(ep->d_name, NULL, 10);
		bool in;

		if (pid <= 0 || pid == getpid())
			continue;
		in = kill_them ? kill_if_member(pid, ns) : member(pid, ns);
		if (!in)
			continue;
		if (pids && (size_t)found < max)
			pids[found] = pid;
		found++;
	}
	closedir(proc);
	return found;
}

int nsmembers_kill(const struct nsmembers_ns *ns, long wait_ms)
{
	/*
	 * A killed process is gone within microseconds (a PID namespace's
	 * init, always there at teardown, included): look again soon, then
	 * less often.
	 */
	long pause_us = 100, waited_us = 0;

	/*
	 * A namespace whose last holder has just let go may still be found
	 * by its id for a moment (its teardown, or another teardown's look at
	 * a process that was inside it for a moment, still holds it): ask
	 * again a few times, within about 3 ms, before the search of /proc,
	 * which looks at every process of the node.  Without it about one
	 * teardown in three searched /proc here, and restore took 25 s for
	 * 5,000 ended jobs instead of 12 s (2 cores, load 10 to 14); with
	 * 1,000 jobs 530 searched, 12 with it.  Not where a process is known
	 * to be inside (held).
	 */
	for (long us = 50; ns->id && !ns->held && us <= 1600; us *= 2) {
		if (gone(ns))
			return 0;
		usleep((useconds_t)us);
		waited_us += us;
	}
	for (;;) {
		int found;

		if (gone(ns))
			return 0;
		if ((found = nsmembers_scan(ns, NULL, 0, true)) <= 0)
			return found;
		if (waited_us >= wait_ms * 1000L) {
			errno = EBUSY;
			return -1;
		}
		usleep((useconds_t)pause_us);
		waited_us += pause_us;
		if (pause_us < 10000)
			pause_us *= 2;
	}
}
