/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_nsimex.c - the switch's IMEX channel made in a job's pinned mount
 * namespace (ns/nsimex.h), with real namespaces and mounts (root).  The
 * test runs in a mount namespace of its own with a tmpfs on /dev, so the
 * machine's /dev is never touched.  Makers as Slurm's are: 24.11's mounts
 * where it is called, 25.11's unshares first; the channel must be in the
 * job's namespace either way and never in the caller's.  A maker that
 * makes nothing gives no channel; one that fails, or leaves two channels
 * or a device of another major, fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dev/imexdev.h"
#include "ns/mntns.h"
#include "ns/nsimex.h"
#include "util/saferm.h"
#include "tap.h"

#define MAJOR 239

static char base[] = "/var/tmp/test_nsimex.XXXXXX";
static struct report rep;

static struct report *fresh(void)
{
	report_init(&rep, NULL, NULL);
	return &rep;
}

/* What Slurm's setup_imex_channel does, in the namespace it is in. */
static int make_channels(unsigned first, unsigned count, unsigned major)
{
	char path[PATH_MAX];

	if (mount("tmpfs", IMEXDEV_DIR, "tmpfs", MS_NOSUID | MS_NOEXEC,
		  "size=0,mode=0755") < 0)
		return -1;
	for (unsigned i = first; i < first + count; i++) {
		snprintf(path, sizeof(path), IMEXDEV_DIR "/channel%u", i);
		if (mknod(path, S_IFCHR | 0666, makedev(major, i)) < 0)
			return -1;
	}
	return 0;
}

static int maker_2411(void *arg)
{
	(void)arg;
	return make_channels(3, 1, MAJOR);
}

static int maker_2511(void *arg)
{
	(void)arg;
	if (unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_SLAVE | MS_REC, NULL) < 0)
		return -1;
	return make_channels(3, 1, MAJOR);
}

static int maker_none(void *arg)
{
	(void)arg;
	return 0;
}

static int maker_fail(void *arg)
{
	(void)arg;
	return -1;
}

static int maker_two(void *arg)
{
	(void)arg;
	return make_channels(3, 2, MAJOR);
}

static int maker_other_major(void *arg)
{
	(void)arg;
	return make_channels(3, 1, MAJOR + 1);
}

/*
 * A job's namespace pinned at base/<job>/.ns: a copy of ours, held by a
 * child until it is pinned.
 */
static int pin_job(uint32_t job)
{
	char dir[PATH_MAX], pin[PATH_MAX + 8], proc[64];
	int ready[2], go[2], rc = -1;
	pid_t pid;
	char c;

	snprintf(dir, sizeof(dir), "%s/%u", base, job);
	snprintf(pin, sizeof(pin), "%s/.ns", dir);
	if (mkdir(dir, 0700) < 0 || close(open(pin, O_CREAT | O_WRONLY, 0600)) < 0 ||
	    pipe(ready) < 0 || pipe(go) < 0)
		return -1;
	if ((pid = fork()) == 0) {
		if (unshare(CLONE_NEWNS) < 0 ||
		    mount(NULL, "/", NULL, MS_PRIVATE | MS_REC, NULL) < 0)
			_exit(1);
		(void)!write(ready[1], "x", 1);
		(void)!read(go[0], &c, 1);
		_exit(0);
	}
	if (pid > 0 && read(ready[0], &c, 1) == 1) {
		snprintf(proc, sizeof(proc), "/proc/%d/ns/mnt", (int)pid);
		rc = mount(proc, pin, NULL, MS_BIND, NULL);
	}
	(void)!write(go[1], "x", 1);
	waitpid(pid, NULL, 0);
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
	return rc;
}

/* Does the job's namespace hold channel n (c MAJOR:n)?  1, 0, -1. */
static int job_has_channel(uint32_t job, unsigned n)
{
	char pin[PATH_MAX], path[PATH_MAX];
	int status = -1;
	pid_t pid;

	snprintf(pin, sizeof(pin), "%s/%u/.ns", base, job);
	snprintf(path, sizeof(path), IMEXDEV_DIR "/channel%u", n);
	if ((pid = fork()) == 0) {
		struct stat st;
		int fd = open(pin, O_RDONLY | O_CLOEXEC);

		if (fd < 0 || setns(fd, CLONE_NEWNS) < 0)
			_exit(2);
		_exit(stat(path, &st) == 0 && S_ISCHR(st.st_mode) &&
		      st.st_rdev == makedev(MAJOR, n) ? 1 : 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status) == 2 ? -1 : WEXITSTATUS(status);
}

static bool caller_has_none(void)
{
	struct stat st;

	return stat(IMEXDEV_DIR "/channel3", &st) < 0 && errno == ENOENT;
}

static void tests(void)
{
	static const struct {
		const char *name;
		nsimex_make_fn make;
		int rc;
		const char *why;
	} cases[] = {
		{ "24.11's maker (in the namespace it is called in)", maker_2411, 1, NULL },
		{ "25.11's maker (unshares first)", maker_2511, 1, NULL },
		{ "a maker that makes nothing (the job has no channel)", maker_none, 0, NULL },
		{ "a maker that fails", maker_fail, -1, "could not make it" },
		{ "a maker that leaves two channels", maker_two, -1, "more than one entry" },
		{ "a maker that makes a device of another major", maker_other_major, -1, "not the character device" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		uint32_t job = 200 + (uint32_t)i, ch = 999;
		int rc;

		if (!ok(pin_job(job) == 0, "precondition: job %u's namespace pinned", job))
			continue;
		rc = nsimex_make(base, job, MAJOR, cases[i].make, NULL, &ch, fresh());
		is_int(rc, cases[i].rc, "%s: %d", cases[i].name, cases[i].rc);
		if (cases[i].rc == 1) {
			is_int(ch, 3, "  channel 3");
			is_int(job_has_channel(job, 3), 1,
			       "  the job's namespace holds channel3, c %u:3", MAJOR);
		} else if (cases[i].rc == 0) {
			is_int(job_has_channel(job, 3), 0, "  the job's namespace holds none");
		} else {
			like(rep.msg, cases[i].why, "  saying why: %s", rep.msg);
		}
		ok(caller_has_none(), "  the caller's namespace holds none");
	}
	{
		uint32_t ch;

		ok(nsimex_make(base, 299, MAJOR, maker_2411, NULL, &ch, fresh()) == -1,
		   "a job without a pinned namespace: refused");
		like(rep.msg, "cannot open the job's namespace", "  saying why: %s", rep.msg);
	}
}

/*
 * 25.11's switch unshares every step's slurmstepd: the kernel copies no
 * mount-namespace pin into the new namespace, so the step's tasks find an
 * empty file at the pin's path (EINVAL from setns); through BasePath's fd
 * opened before the unshare they reach the pin (mntns_join_at).
 */
static void test_join_after_unshare(void)
{
	int base_fd, status = -1;
	pid_t pid;

	if (!ok(pin_job(300) == 0, "precondition: job 300's namespace pinned"))
		return;
	base_fd = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		int by_path, by_fd;

		if (unshare(CLONE_NEWNS) < 0)
			_exit(9);
		by_path = mntns_join(base, 300) < 0 ? errno : 0;
		by_fd = mntns_join_at(base_fd, base, 300) < 0 ? errno : 0;
		_exit((by_path == EINVAL ? 0 : 1) | (by_fd == 0 ? 0 : 2));
	}
	ok(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	   !(WEXITSTATUS(status) & 1),
	   "after an unshare the pin's path holds no namespace (setns: EINVAL): the step's failure");
	ok(WIFEXITED(status) && !(WEXITSTATUS(status) & 2) &&
	   WEXITSTATUS(status) != 9,
	   "  through BasePath's fd opened before, the job's namespace is joined");
	close(base_fd);
}

int main(void)
{
	pid_t pid;
	int status = -1;

	if (geteuid() != 0) {
		tap_skip("needs root (mount namespaces, mknod)");
		return tap_done();
	}
	/* The copy of the switch's mount is open_tree(2)'s (fdmount). */
	if (syscall(SYS_open_tree, -1, "", 0) < 0 && errno == ENOSYS) {
		tap_skip("no open_tree(2) here (valgrind or an old kernel)");
		return tap_done();
	}
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return 1;
	}
	fflush(stdout);
	/* everything in a namespace of our own, /dev a tmpfs there */
	if ((pid = fork()) == 0) {
		/*
		 * On one CPU: Linux 6.18 numbers mount namespaces from
		 * per-CPU batches, so one made just after ours on the other
		 * CPU may get a lower number, and binding its nsfs file here
		 * is then refused as a loop (EINVAL), one pin in three.
		 */
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(sched_getcpu() < 0 ? 0 : sched_getcpu(), &one);
		(void)sched_setaffinity(0, sizeof(one), &one);
		if (unshare(CLONE_NEWNS) < 0 ||
		    mount(NULL, "/", NULL, MS_PRIVATE | MS_REC, NULL) < 0 ||
		    mount("tmpfs", "/dev", "tmpfs", MS_NOSUID, "mode=0755") < 0 ||
		    mkdir(IMEXDEV_DIR, 0755) < 0) {
			perror("the test's namespace");
			_exit(1);
		}
		int rc;

		tests();
		test_join_after_unshare();
		rc = tap_done();
		fflush(stdout);
		_exit(rc);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 1;
	{
		/* the pins lived in the child's namespace: gone with it */
		int fd = open("/var/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);

		if (fd < 0 || saferm_at(fd, strrchr(base, '/') + 1) < 0)
			return 1;
		close(fd);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
