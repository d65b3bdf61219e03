/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_cgroup2.c - unit tests of cgroup2: mountinfo parsing on fake files,
 * then, as root on the machine's real cgroup2 mount, making a job cgroup,
 * moving a forked child into it, listing it, refusing to remove it while
 * populated, removing it once empty, and the errors for missing parents.
 * The kernel part is skipped (tap_skip) without root or without cgroup2.
 * Everything it makes lives under <mount>/devns-test-<pid> and is removed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/magic.h>

#include "dev/cgroup2.h"
#include "tap.h"

static char tmpdir[] = "/tmp/test_cgroup2.XXXXXX";

/* The names fake_file() made, for remove_fake_files(). */
#define MAX_FAKE_FILES 16
static const char *fake_names[MAX_FAKE_FILES];
static int fake_count;

/* Writes text to a file in tmpdir and returns its path (static buffer). */
static const char *fake_file(const char *name, const char *text)
{
	static char path[PATH_MAX];
	FILE *f;

	if (fake_count == MAX_FAKE_FILES) {
		fprintf(stderr, "fake_file: raise MAX_FAKE_FILES\n");
		exit(1);
	}
	fake_names[fake_count++] = name;
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
	return path;
}

/* Every file fake_file() made, and the directory: nothing is left. */
static void remove_fake_files(void)
{
	char path[PATH_MAX];
	int rc;

	for (int i = 0; i < fake_count; i++) {
		snprintf(path, sizeof(path), "%s/%s", tmpdir, fake_names[i]);
		unlink(path);
	}
	rc = rmdir(tmpdir);
	ok(rc == 0, "the test's files are removed%s%s", rc ? ": " : "",
	   rc ? strerror(errno) : "");
}

static void test_mountinfo(void)
{
	enum cgroup2_layout layout;
	char buf[PATH_MAX];
	const char *p;

	p = fake_file("hybrid",
		"22 27 0:21 / /proc rw,relatime - proc proc rw\n"
		"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
		"36 31 0:33 / /sys/fs/cgroup/devices rw,relatime - cgroup cgroup rw,devices\n"
		"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n");
	ok(cgroup2_probe(p, &layout, buf, sizeof(buf)) == 0 &&
	   !strcmp(buf, "/sys/fs/cgroup/unified"), "hybrid layout: %s", buf);

	p = fake_file("pure",
		"25 1 0:22 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n");
	ok(cgroup2_probe(p, &layout, buf, sizeof(buf)) == 0 &&
	   !strcmp(buf, "/sys/fs/cgroup"),
	   "pure v2 with optional fields: %s", buf);

	p = fake_file("bind",
		"50 1 0:22 /system.slice /mnt/sub rw - cgroup2 cgroup2 rw\n"
		"51 1 0:22 / /mnt/cg\\0402 rw - cgroup2 cgroup2 rw\n"
		"52 1 0:22 / /mnt/later rw - cgroup2 cgroup2 rw\n");
	ok(cgroup2_probe(p, &layout, buf, sizeof(buf)) == 0 &&
	   !strcmp(buf, "/mnt/cg 2"),
	   "first root mount wins over a subtree bind, \\040 unescaped: '%s'",
	   buf);

	p = fake_file("subonly",
		"50 1 0:22 /system.slice /mnt/sub rw - cgroup2 cgroup2 rw\n");
	ok(cgroup2_probe(p, &layout, buf, sizeof(buf)) == 0 &&
	   !strcmp(buf, "/mnt/sub"), "a subtree mount when nothing else");

	p = fake_file("none",
		"36 31 0:33 / /sys/fs/cgroup/devices rw - cgroup cgroup rw,devices\n"
		"garbage\n");
	errno = 0;
	ok(cgroup2_probe(p, &layout, buf, sizeof(buf)) == 0 && !buf[0] &&
	   layout == CGROUP2_NONE, "no cgroup2 mount: none, and no path");

	p = fake_file("hybrid2",
		"41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n");
	errno = 0;
	ok(cgroup2_probe(p, &layout, buf, 8) == -1 && errno == ENAMETOOLONG,
	   "small buffer: ENAMETOOLONG");
	errno = 0;
	ok(cgroup2_probe("/nonexistent/mountinfo", &layout, buf, sizeof(buf)) ==
	   -1 && errno == ENOENT, "unreadable mountinfo: ENOENT");
}

static void test_layout(void)
{
	enum cgroup2_layout layout = CGROUP2_NONE;
	char buf[PATH_MAX];

	ok(cgroup2_probe(fake_file("l-hybrid",
		"36 31 0:33 / /sys/fs/cgroup/devices rw - cgroup cgroup rw,devices\n"
		"41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"),
		&layout, buf, sizeof(buf)) == 0 && layout == CGROUP2_HYBRID,
	   "v1 hierarchies beside cgroup2: hybrid");
	ok(cgroup2_probe(fake_file("l-unified",
		"25 1 0:22 / /sys/fs/cgroup rw shared:4 - cgroup2 cgroup2 rw,nsdelegate\n"),
		&layout, buf, sizeof(buf)) == 0 && layout == CGROUP2_UNIFIED,
	   "cgroup2 alone: unified");
	ok(cgroup2_probe(fake_file("l-v1",
		"36 31 0:33 / /sys/fs/cgroup/devices rw - cgroup cgroup rw,devices\n"),
		&layout, buf, sizeof(buf)) == 0 && layout == CGROUP2_NONE,
	   "v1 only: no cgroup2");
	errno = 0;
	ok(cgroup2_probe("/nonexistent/mountinfo", &layout, buf,
			 sizeof(buf)) == -1 &&
	   errno == ENOENT, "unreadable mountinfo: -1 with errno");
	ok(!strcmp(cgroup2_layout_name(CGROUP2_UNIFIED), "unified") &&
	   !strcmp(cgroup2_layout_name(CGROUP2_HYBRID), "hybrid") &&
	   !strcmp(cgroup2_layout_name(CGROUP2_NONE), "none"),
	   "each layout has its name (devns check's cgrouplayout)");
	like(cgroup2_layout_describe(CGROUP2_UNIFIED), "unified (",
	     "and words for the log, after its name");
}

static void test_probe(void)
{
	enum cgroup2_layout layout = CGROUP2_NONE, read_layout;
	char mount[PATH_MAX], read_mount[PATH_MAX];

	ok(cgroup2_probe(fake_file("p-hybrid",
		"31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw,mode=755\n"
		"36 31 0:33 / /sys/fs/cgroup/devices rw - cgroup cgroup rw,devices\n"
		"41 31 0:38 / /srv/cg2 rw - cgroup2 cgroup2 rw\n"),
		&layout, mount, sizeof(mount)) == 0 &&
	   layout == CGROUP2_HYBRID && !strcmp(mount, "/srv/cg2"),
	   "a mountinfo given: layout and mount from it (%s)", mount);
	ok(cgroup2_probe(fake_file("p-v1",
		"36 31 0:33 / /sys/fs/cgroup/devices rw - cgroup cgroup rw,devices\n"),
		&layout, mount, sizeof(mount)) == 0 &&
	   layout == CGROUP2_NONE && mount[0] == '\0',
	   "v1 only: no cgroup2 and no mount, not an error");
	ok(cgroup2_probe(fake_file("p-bind",
		"50 1 0:22 /system.slice /mnt/sub rw - cgroup2 cgroup2 rw\n"
		"51 1 0:22 / /mnt/root rw - cgroup2 cgroup2 rw\n"),
		&layout, mount, sizeof(mount)) == 0 &&
	   layout == CGROUP2_UNIFIED && !strcmp(mount, "/mnt/root"),
	   "a subtree bind first: unified, the root mount chosen (%s)",
	   mount);
	errno = 0;
	ok(cgroup2_probe("/nonexistent/mountinfo", &layout, mount,
			 sizeof(mount)) == -1 && errno == ENOENT,
	   "unreadable mountinfo: ENOENT");
	errno = 0;
	ok(cgroup2_probe(fake_file("p-long",
		"25 1 0:22 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"),
		&layout, mount, 8) == -1 && errno == ENAMETOOLONG,
	   "small buffer: ENAMETOOLONG");

	/* This machine, by statfs where it can: as mountinfo tells it. */
	if (cgroup2_probe("/proc/self/mountinfo", &read_layout, read_mount,
			  sizeof(read_mount)) < 0)
		return (void)ok(0, "reading this machine's mountinfo: %s",
				strerror(errno));
	if (cgroup2_probe(NULL, &layout, mount, sizeof(mount)) < 0)
		return (void)ok(0, "probing this machine: %s", strerror(errno));
	ok(layout == read_layout && !strcmp(mount, read_mount),
	   "this machine: %s at '%s', as its mountinfo says",
	   cgroup2_layout_name(layout), mount);
}

/* Reads this process's cgroup-v2 path from /proc/<pid>/cgroup. */
static int v2_path_of(pid_t pid, char *buf, size_t size)
{
	char path[64], line[PATH_MAX];
	FILE *f;
	int rc = -1;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	if (!(f = fopen(path, "r")))
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(buf, size, "%s", line + 3);
			rc = 0;
		}
	}
	fclose(f);
	return rc;
}

#define KERNEL_TESTS 24

static void test_kernel(void)
{
	char mount[PATH_MAX], top[64], cgpath[PATH_MAX + 64], seen[PATH_MAX + 64];
	enum cgroup2_layout layout;
	int mount_fd = -1, top_fd = -1, job_fd = -1, fd, i, n;
	int ready[2], go[2];
	pid_t child, pids[4];
	struct statfs sfs;
	struct stat st;
	char c;

	if (!tap_root()) {
		for (i = 0; i < KERNEL_TESTS; i++)
			tap_skip("cgroup2 tests need root");
		return;
	}
	if (cgroup2_probe(NULL, &layout, mount, sizeof(mount)) < 0 ||
	    (mount_fd = cgroup2_open(mount)) < 0) {
		for (i = 0; i < KERNEL_TESTS; i++)
			tap_skip("no usable cgroup2 mount (%s)", strerror(errno));
		return;
	}
	diag("cgroup2 mount: %s", mount);
	/* What cgroup2_open promises, on the kernel's word. */
	ok(fstatfs(mount_fd, &sfs) == 0 && sfs.f_type == CGROUP2_SUPER_MAGIC,
	   "the opened mount is a cgroup2 file system (fstatfs)");

	errno = 0;
	ok(cgroup2_open(tmpdir) == -1 && errno == EMEDIUMTYPE,
	   "a directory that is not cgroup2: EMEDIUMTYPE");
	snprintf(cgpath, sizeof(cgpath), "%s/devns-no-such-parent", mount);
	errno = 0;
	ok(cgroup2_open(cgpath) == -1 && errno == ENOENT,
	   "missing parent path: ENOENT");

	snprintf(top, sizeof(top), "devns-test-%d", (int)getpid());
	errno = 0;
	ok(cgroup2_open_at(mount_fd, top, false) == -1 && errno == ENOENT,
	   "open without create of a missing cgroup: ENOENT");
	errno = 0;
	ok(cgroup2_open_at(mount_fd, "../x", true) == -1 && errno == EINVAL &&
	   cgroup2_open_at(mount_fd, "/abs", true) == -1 &&
	   cgroup2_open_at(mount_fd, "", true) == -1 &&
	   cgroup2_open_at(mount_fd, "a/./b", true) == -1,
	   "'..', absolute, empty and '.' paths: EINVAL");

	/* <mount>/devns-test-PID/devns: a two-level prefix. */
	snprintf(cgpath, sizeof(cgpath), "%s/devns", top);
	top_fd = cgroup2_open_at(mount_fd, cgpath, true);
	ok(top_fd >= 0, "prefix %s made", cgpath);
	fd = cgroup2_open_at(mount_fd, cgpath, true);
	ok(fd >= 0, "making it again reuses it");
	if (fd >= 0)
		close(fd);

	job_fd = cgroup2_open_at(top_fd, "job_4242", true);
	ok(job_fd >= 0, "job_4242 made");
	ok(fstatat(top_fd, "job_4242", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	   S_ISDIR(st.st_mode), "job_4242 is a directory");
	is_int(cgroup2_list_pids(job_fd, pids, 4), 0, "new job cgroup is empty");

	/* A child that moves itself in, then waits to be told to exit. */
	if (pipe(ready) < 0 || pipe(go) < 0)
		exit(1);
	child = fork();
	if (child == 0) {
		char ok_byte = cgroup2_move_pid(job_fd, 0) == 0 ? 'y' : 'n';

		if (write(ready[1], &ok_byte, 1) != 1 ||
		    read(go[0], &c, 1) < 0)
			_exit(2);
		_exit(0);
	}
	ok(read(ready[0], &c, 1) == 1 && c == 'y',
	   "child moved itself into the job cgroup");
	snprintf(cgpath, sizeof(cgpath), "/%s/devns/job_4242", top);
	ok(v2_path_of(child, seen, sizeof(seen)) == 0 &&
	   !strcmp(seen, cgpath), "/proc/<child>/cgroup says %s", seen);
	n = cgroup2_list_pids(job_fd, pids, 4);
	ok(n == 1 && pids[0] == child, "list_pids shows the child");
	n = cgroup2_list_pids(job_fd, NULL, 0);
	is_int(n, 1, "list_pids counts without a buffer");

	errno = 0;
	ok(cgroup2_remove(top_fd, "job_4242") == -1 && errno == EBUSY,
	   "removing a populated cgroup: EBUSY");
	snprintf(cgpath, sizeof(cgpath), "devns-test-%d", (int)getpid());
	errno = 0;
	ok(cgroup2_remove(mount_fd, cgpath) == -1 && errno == EBUSY,
	   "removing a cgroup with child cgroups: EBUSY");

	/* Moving it out by the parent, then back: both directions work. */
	ok(cgroup2_move_pid(mount_fd, child) == 0 &&
	   cgroup2_list_pids(job_fd, NULL, 0) == 0 &&
	   cgroup2_move_pid(job_fd, child) == 0 &&
	   cgroup2_list_pids(job_fd, NULL, 0) == 1,
	   "the parent moves the child out and in again");
	errno = 0;
	ok(cgroup2_move_pid(job_fd, 999999999) == -1 && errno == ESRCH,
	   "moving a pid that does not exist: ESRCH");

	if (write(go[1], "x", 1) != 1)
		exit(1);
	waitpid(child, NULL, 0);
	is_int(cgroup2_list_pids(job_fd, NULL, 0), 0,
	       "empty once the child has exited");
	ok(cgroup2_remove(top_fd, "job_4242") == 0, "then it is removed");
	errno = 0;
	ok(cgroup2_remove(top_fd, "job_4242") == -1 && errno == ENOENT,
	   "removing again: ENOENT");

	/* The parent goes away under an open fd: no job cgroup there. */
	fd = cgroup2_open_at(top_fd, "gone", true);
	ok(fd >= 0 && cgroup2_remove(top_fd, "gone") == 0,
	   "a parent made and removed");
	errno = 0;
	ok(cgroup2_open_at(fd, "job_1", true) == -1 && errno == ENOENT,
	   "making a job cgroup in a removed parent: ENOENT");
	if (fd >= 0)
		close(fd);
	errno = 0;
	ok(cgroup2_remove(top_fd, "a/b") == -1 && errno == EINVAL,
	   "remove takes a single name");

	close(job_fd);
	close(top_fd);
	fd = cgroup2_open_at(mount_fd, top, false);
	cgroup2_remove(fd, "devns");
	close(fd);
	cgroup2_remove(mount_fd, top);
	close(mount_fd);
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_mountinfo();
	test_layout();
	test_probe();
	test_kernel();
	remove_fake_files();
	return tap_done();
}
