/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_nsmembers.c - finding and killing the processes of a mount
 * namespace, and knowing when it is gone, on the real kernel.
 *
 * Needs root and mount namespaces; skips cleanly without them.  The checks
 * by id need NS_GET_MNTNS_ID and listmount(2) (Linux 6.11); without them
 * they are skipped and only the inode checks run.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ns/nsmembers.h"
#include "nsgone.h"
#include "tap.h"

/*
 * A paused child in the mount namespace ns_fd names, or with ns_fd -1 in
 * a new one of its own; its pid, or -1.
 */
static pid_t spawn(int ns_fd)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p) < 0 || (pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		close(p[0]);
		if (ns_fd >= 0 ? setns(ns_fd, CLONE_NEWNS) < 0
			       : unshare(CLONE_NEWNS) < 0)
			_exit(1);
		(void)!write(p[1], "x", 1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1) {
		close(p[0]);
		waitpid(pid, NULL, 0);
		return -1;
	}
	close(p[0]);
	return pid;
}

static pid_t spawn_in_new_ns(void)
{
	return spawn(-1);
}

static int open_ns_of(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	return open(path, O_RDONLY | O_CLOEXEC);
}

static bool killed_by_sigkill(pid_t pid)
{
	int status;

	return waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) &&
	       WTERMSIG(status) == SIGKILL;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void test_scan_and_kill(void)
{
	struct nsmembers_ns ns;
	pid_t a, b, pids[4];
	int fd, n;

	a = spawn_in_new_ns();
	if (!ok(a > 0, "a process in a mount namespace of its own"))
		return;
	fd = open_ns_of(a);
	b = fd >= 0 ? spawn(fd) : -1;
	if (!ok(b > 0, "a second process joined it")) {
		reap(a);
		return;
	}
	ok(nsmembers_ident(fd, &ns) == 0, "the namespace is identified");
	n = nsmembers_scan(&ns, pids, 4, false);
	is_int(n, 2, "the scan finds both members");
	ok(n == 2 && ((pids[0] == a && pids[1] == b) ||
		      (pids[0] == b && pids[1] == a)),
	   "by their PIDs");
	ok(kill(a, 0) == 0 && kill(b, 0) == 0, "a scan alone kills nobody");
	is_int(nsmembers_kill(&ns, 5000), 0, "kill returns once they are gone");
	ok(killed_by_sigkill(a) && killed_by_sigkill(b),
	   "both died of SIGKILL");
	is_int(nsmembers_scan(&ns, NULL, 0, false), 0,
	       "the scan finds nobody any more");
	close(fd);
}

/*
 * A namespace whose inode matches but whose id does not is another one
 * (the inode was reused after the job's was freed): not a member.
 */
static void test_id_confirms(void)
{
	struct nsmembers_ns ns, other;
	pid_t a = spawn_in_new_ns();
	int fd;

	if (!ok(a > 0, "a process in a mount namespace of its own"))
		return;
	fd = open_ns_of(a);
	if (!ok(fd >= 0 && nsmembers_ident(fd, &ns) == 0,
		"its namespace is identified")) {
		reap(a);
		return;
	}
	if (!ns.id) {
		tap_skip("no NS_GET_MNTNS_ID/listmount by id (Linux < 6.11)");
		tap_skip("no NS_GET_MNTNS_ID/listmount by id (Linux < 6.11)");
		tap_skip("no NS_GET_MNTNS_ID/listmount by id (Linux < 6.11)");
		reap(a);
		close(fd);
		return;
	}
	other = ns;
	other.id = ns.id + 1;
	is_int(nsmembers_scan(&ns, NULL, 0, false), 1,
	       "found by the right id");
	is_int(nsmembers_scan(&other, NULL, 0, true), 0,
	       "the same inode with another id is not a member");
	ok(kill(a, 0) == 0, "and the process was not killed");
	reap(a);
	close(fd);
}

static void test_gone(void)
{
	struct nsmembers_ns ns, self;
	pid_t a = spawn_in_new_ns();
	int fd, selffd;

	if (!ok(a > 0, "a process in a mount namespace of its own"))
		return;
	fd = open_ns_of(a);
	selffd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	if (!ok(fd >= 0 && nsmembers_ident(fd, &ns) == 0 && selffd >= 0 &&
		nsmembers_ident(selffd, &self) == 0, "namespaces identified")) {
		reap(a);
		return;
	}
	if (!ns.id) {
		for (int i = 0; i < 5; i++)
			tap_skip("no NS_GET_MNTNS_ID/listmount by id (Linux < 6.11)");
		reap(a);
		close(fd);
		close(selffd);
		return;
	}
	ok(ns_gone(&self) == 0, "our own namespace is not gone");
	ok(ns_gone(&ns) == 0, "the child's is not gone while it runs");
	reap(a);
	ok(ns_gone(&ns) == 0, "nor while an fd holds it");
	close(fd);
	ok(ns_gone(&ns) == 1, "gone once its last process and fd are");
	is_int(nsmembers_kill(&ns, 5000), 0, "kill of a gone namespace is 0");
	close(selffd);
}

/*
 * The point of the id: a namespace nothing holds needs no search of /proc.
 * In a child chrooted into an empty tmpfs, with no /proc at all, killing a
 * gone namespace still succeeds and killing a held one fails (the search
 * cannot run): the first never looked at /proc (ns_gone(), nsgone.h).
 */
static void test_gone_needs_no_proc(void)
{
	struct nsmembers_ns ns, held;
	pid_t a = spawn_in_new_ns(), b = spawn_in_new_ns();
	int fda, fdb;

	if (!ok(a > 0 && b > 0, "two processes in namespaces of their own"))
		return;
	fda = open_ns_of(a);
	fdb = open_ns_of(b);
	if (!ok(fda >= 0 && fdb >= 0 && nsmembers_ident(fda, &ns) == 0 &&
		nsmembers_ident(fdb, &held) == 0, "namespaces identified") ||
	    !ns.id) {
		if (!ns.id)
			tap_skip("no NS_GET_MNTNS_ID/listmount by id (Linux < 6.11)");
		reap(a);
		reap(b);
		return;
	}
	reap(a);
	close(fda);
	ok(ns_gone(&ns) == 1 && ns_gone(&held) == 0, "without /proc: a gone "
	   "namespace needs no search, a held one does");
	reap(b);
	close(fdb);
}

int main(void)
{
	if (!tap_root()) {
		tap_skip("needs root (mount namespaces)");
		return tap_done();
	}
	if (unshare(0) < 0) {
		tap_skip("unshare: %s", strerror(errno));
		return tap_done();
	}
	test_scan_and_kill();
	test_id_confirms();
	test_gone();
	test_gone_needs_no_proc();
	return tap_done();
}
