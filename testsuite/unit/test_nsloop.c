/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_nsloop.c - TmpBackend=loop for real: the template, the job's image
 * and loop device, through mntns_create/mntns_delete on a scratch
 * BasePath under /var/tmp (any filesystem: no quotas needed).
 *
 * Needs root, /dev/loop-control and mke2fs (else one skip with the reason).
 * Checks: the template is made once and sparse; a job's /tmp and /var/tmp
 * share one filesystem of the limit's size, nosuid and nodev, where the
 * job user and root alike get ENOSPC near the limit; another job's /tmp
 * is its own and empty; the loop device exists only while the job does,
 * and after mntns_delete no image, loop device or mount is left; a
 * filesystem that cannot be made fails the job and leaves nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <grp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "conf/jobdir.h"
#include "ns/mntns.h"
#include "ns/nsloop.h"
#include "ns/nsusage.h"
#include "util/fdmount.h"
#include "util/safepath.h"
#include "util/saferm.h"
#include "tap.h"
#include "testrep.h"
#include "testspec.h"

#define MiB (1024ULL * 1024)
#define NOBODY 65534
#define LIMIT (20 * MiB)
#define INODES 1280

static char scratch[] = "/var/tmp/test-nsloop.XXXXXX";

/*
 * How many loop devices are backed by a job's image: their backing_file
 * in sysfs ends in /.disk.img, "(deleted)" or not.  Not by scratch's path:
 * once the job's directory mount is gone, the kernel names the file from
 * the root of that detached mount ("/.disk.img (deleted)").
 */
static int loops_of_scratch(void)
{
	DIR *d = opendir("/sys/block");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[512], buf[PATH_MAX];
		FILE *f;

		if (strncmp(e->d_name, "loop", 4))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file",
			 e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		if (fgets(buf, sizeof(buf), f) &&
		    strstr(buf, "/" JOBDIR_LOOP_IMAGE))
			n++;
		fclose(f);
	}
	closedir(d);
	return n;
}

/*
 * Wait (TAP_WAIT_MS at most) until n loop devices of scratch are left:
 * a device detaches itself shortly after its last mount goes.
 */
static int loops_become(int n)
{
	for (int ms = 0; ms < TAP_WAIT_MS; ms += 10) {
		if (loops_of_scratch() == n)
			return 1;
		usleep(10000);
	}
	return 0;
}

static int loops_gone(void)
{
	return loops_become(0);
}

/*
 * Whether /proc/self/mountinfo names a mount under scratch whose line
 * holds what (NULL: any).
 */
static bool mounted_in_scratch(const char *what)
{
	char line[4096];
	bool found = false;
	FILE *f = fopen("/proc/self/mountinfo", "r");

	if (!f)
		return true;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, scratch) && (!what || strstr(line, what)))
			found = true;
	fclose(f);
	return found;
}

/*
 * In job_id's namespace, as nobody or as root, write 1 MiB blocks to path
 * until a write fails or 64 MiB are written.  Returns the MiB written and
 * the failing write's errno in *err (0: none failed), -1 when the child
 * could not get there.
 */
static int fill(uint32_t job_id, bool as_root, const char *path, int *err)
{
	int pipefd[2], status;
	pid_t pid;

	if (pipe(pipefd) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		static char block[1 << 20];
		int fd, n, e = 0;

		close(pipefd[0]);
		if (mntns_join(scratch, job_id) < 0)
			_exit(255);
		if (!as_root && (setgroups(0, NULL) < 0 || setgid(NOBODY) < 0 ||
				 setuid(NOBODY) < 0))
			_exit(255);
		if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0)
			_exit(254);
		memset(block, 'x', sizeof(block));
		for (n = 0; n < 64; n++) {
			ssize_t w = write(fd, block, sizeof(block));

			if (w >= 0 && w < (ssize_t)sizeof(block))
				w = write(fd, block, sizeof(block) - w);
			if (w < 0) {
				e = errno;
				break;
			}
		}
		if (!e && fsync(fd) < 0)
			e = errno;
		(void)!write(pipefd[1], &e, sizeof(e));
		_exit(n);
	}
	close(pipefd[1]);
	if (pid < 0 || read(pipefd[0], err, sizeof(*err)) != sizeof(*err))
		*err = -1;
	close(pipefd[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * In job_id's namespace: statvfs of path into *sv and the number of
 * entries of the directory (0: empty).  Returns the count or -1.
 */
static int look(uint32_t job_id, const char *path, struct statvfs *sv,
		mode_t *mode)
{
	struct {
		struct statvfs sv;
		mode_t mode;
		int entries;
	} r;
	int pipefd[2], status;
	pid_t pid;

	memset(&r, 0, sizeof(r));
	if (pipe(pipefd) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		struct dirent *e;
		struct stat st;
		DIR *d;

		close(pipefd[0]);
		r.entries = -1;
		if (mntns_join(scratch, job_id) == 0 &&
		    statvfs(path, &r.sv) == 0 && stat(path, &st) == 0 &&
		    (d = opendir(path))) {
			r.mode = st.st_mode & 07777;
			r.entries = 0;
			while ((e = readdir(d)))
				if (strcmp(e->d_name, ".") &&
				    strcmp(e->d_name, ".."))
					r.entries++;
			closedir(d);
		}
		(void)!write(pipefd[1], &r, sizeof(r));
		_exit(0);
	}
	close(pipefd[1]);
	if (pid < 0 || read(pipefd[0], &r, sizeof(r)) != sizeof(r))
		r.entries = -1;
	close(pipefd[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	*sv = r.sv;
	*mode = r.mode;
	return r.entries;
}

static bool exists_at(const char *job, const char *leaf)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s%s%s", scratch, job,
		 leaf ? "/" : "", leaf ? leaf : "");
	return lstat(path, &st) == 0;
}

/* nsusage_read() of job_id under a node's settings with Dirs as made. */
static int nsusage_read_dirs(uint32_t job_id, struct nsusage *u)
{
	char text[512];
	struct nsconf *c;
	int rc;

	snprintf(text, sizeof(text), "BasePath=%s Dirs=/tmp,/dev/shm "
		 "TmpDiskLimit=20M TmpBackend=loop\n", scratch);
	if (!(c = nsconf_load_text(text, "t.conf", NULL, NULL, fresh()))) {
		diag("%s", rep.msg);
		return -1;
	}
	rc = nsusage_read(c, job_id, u, fresh());
	if (rc < 0)
		diag("%s", rep.msg);
	nsconf_free(c);
	return rc;
}

/*
 * A process that holds an fd of job_id's /tmp past the job's end (one a
 * job could have sent anywhere with SCM_RIGHTS): it opens it, says so on
 * *ready, and once *go says the job is gone, tries what it held: exits 0
 * when it finds the filesystem empty and read-only, 1 otherwise.
 */
static pid_t hold_tmp(uint32_t job_id, int *go)
{
	int ready[2], gop[2];
	char c;
	pid_t pid;

	if (pipe(ready) < 0 || pipe(gop) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		int fd, nfd, home = open("/proc/self/ns/mnt", O_RDONLY);

		close(ready[0]);
		close(gop[1]);
		/* Back out of the namespace: the teardown kills its members. */
		if (home < 0 || mntns_join(scratch, job_id) < 0 ||
		    (fd = open("/tmp", O_RDONLY | O_DIRECTORY)) < 0 ||
		    setns(home, CLONE_NEWNS) < 0)
			_exit(2);
		(void)!write(ready[1], "r", 1);
		if (read(gop[0], &c, 1) != 1)
			_exit(2);
		if (faccessat(fd, "fill", F_OK, 0) == 0)
			_exit(1);	/* the job's file still there */
		nfd = openat(fd, "new", O_WRONLY | O_CREAT, 0600);
		_exit(nfd < 0 && errno == EROFS ? 0 : 1);
	}
	close(ready[1]);
	close(gop[0]);
	if (pid < 0 || read(ready[0], &c, 1) != 1) {
		close(ready[0]);
		close(gop[1]);
		return -1;
	}
	close(ready[0]);
	*go = gop[1];
	return pid;
}

static int create_job(uint32_t job_id, uint64_t limit, uint64_t inodes)
{
	static const char *const dirs[] = { "/tmp", "/var/tmp", "/dev/shm",
					    NULL };
	struct mntns_spec spec = {
		.base_path = scratch,
		.job_id = job_id,
		.uid = NOBODY,
		.gid = NOBODY,
		.disk_limit = limit,
		.inode_limit = inodes,
		.loop = true,
		.pool_fd = -1,
	};

	return testspec_create(&spec, dirs, 0, 0, fresh());
}

static void test_template(int basefd)
{
	char name[64], path[512];
	struct stat st, again;

	ok(nsloop_template_make(basefd, LIMIT, INODES, fresh()) == 0,
	   "the template of 20M is made (%s)", rep.msg);
	nsloop_template_name(name, sizeof(name), LIMIT, INODES);
	snprintf(path, sizeof(path), "%s/%s", scratch, name);
	ok(lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	   (uint64_t)st.st_size == LIMIT && (st.st_mode & 077) == 0,
	   "it is a regular file of 20M, root's only");
	ok((uint64_t)st.st_blocks * 512 < LIMIT / 4,
	   "and sparse: %lld KiB of data", (long long)st.st_blocks / 2);
	ok(nsloop_template_make(basefd, LIMIT, INODES, fresh()) == 0 &&
	   lstat(path, &again) == 0 && again.st_ino == st.st_ino,
	   "a second call keeps it (no mkfs again)");
	errno = 0;
	ok(nsloop_template_make(basefd, 512 * 1024, INODES, fresh()) < 0 &&
	   errno == EINVAL, "an image below 1M is refused: %s", rep.msg);
}

static bool exists_in(int dirfd, const char *name)
{
	struct stat st;

	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static void touch_in(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

	if (fd >= 0)
		close(fd);
}

/*
 * slurmd's start: templates of another size and half-made ones whose
 * maker is gone are removed, the current one and a live maker's kept.
 */
static void test_prune(int basefd)
{
	char keep[64], mine[64];

	nsloop_template_name(keep, sizeof(keep), LIMIT, INODES);
	snprintf(mine, sizeof(mine), JOBDIR_LOOP_TEMPLATE_TEMP "%ld",
		 (long)getpid());
	touch_in(basefd, ".loop-1048576-64.img");
	touch_in(basefd, JOBDIR_LOOP_TEMPLATE_TEMP "999999999");
	touch_in(basefd, mine);
	touch_in(basefd, "other");
	ok(exists_in(basefd, keep) && exists_in(basefd, "other"),
	   "precondition: the template, an old size's, two half-made ones");
	is_int(nsloop_templates_prune(basefd, LIMIT, INODES), 2,
	       "prune removes the old size's and the dead maker's");
	ok(exists_in(basefd, keep) && exists_in(basefd, mine) &&
	   exists_in(basefd, "other") &&
	   !exists_in(basefd, ".loop-1048576-64.img"),
	   "  keeps the current template, a live maker's file, other names");
	unlinkat(basefd, mine, 0);
	unlinkat(basefd, "other", 0);
	is_int(nsloop_templates_prune(basefd, 0, 0), 1,
	       "without TmpBackend=loop every template goes");
	ok(!exists_in(basefd, keep), "  the current one too (made again on "
	   "demand below)");
}

/* Nothing is ever opened through a link at the image's name. */
static void test_no_follow(int basefd)
{
	char victim[512];
	struct stat st;
	int dirfd, fd;

	snprintf(victim, sizeof(victim), "%s/victim", scratch);
	fd = open(victim, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	dirfd = open(scratch, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ok(dirfd >= 0 && symlinkat("victim", dirfd, "planted.img") == 0,
	   "precondition: a link planted at an image's name");
	errno = 0;
	fd = nsloop_image_make(basefd, dirfd, "planted.img", LIMIT, INODES,
			       fresh());
	ok(fd < 0 && errno == EEXIST, "the image is not made through it: %s",
	   rep.msg);
	ok(stat(victim, &st) == 0 && st.st_size == 0,
	   "and its target is untouched");
	if (fd >= 0)
		close(fd);
	unlinkat(dirfd, "planted.img", 0);
	unlink(victim);
	close(dirfd);
}

static void test_job(void)
{
	struct statvfs sv;
	mode_t mode;
	int n, err, go = -1;
	pid_t holder;

	ok(create_job(1, LIMIT, INODES) == 0, "job 1's namespace with a "
	   "filesystem of its own (%s)", rep.msg);
	ok(loops_of_scratch() == 1, "one loop device holds its image");
	ok(exists_at("1", JOBDIR_LOOP_IMAGE), "the image is in its directory");
	ok(!mounted_in_scratch(JOBDIR_LOOP_MOUNT) &&
	   !mounted_in_scratch("/dev/loop"),
	   "the node's mount namespace holds no mount of it");
	n = look(1, "/tmp", &sv, &mode);
	ok(n == 0, "its /tmp is empty (no lost+found): %d entries", n);
	ok(mode == 01777, "/tmp is 1777: %o", (unsigned)mode);
	ok((sv.f_flag & ST_NOSUID) && (sv.f_flag & ST_NODEV),
	   "/tmp is nosuid,nodev");
	ok((uint64_t)sv.f_blocks * sv.f_frsize <= LIMIT &&
	   (uint64_t)sv.f_blocks * sv.f_frsize > LIMIT * 8 / 10,
	   "/tmp's size is near the limit: %llu bytes",
	   (unsigned long long)sv.f_blocks * sv.f_frsize);
	ok(sv.f_files <= INODES && sv.f_files >= INODES / 2,
	   "its inodes follow TmpInodeLimit: %llu",
	   (unsigned long long)sv.f_files);

	{
		struct nsusage u;
		const struct nsusage_dir *d = NULL;

		if (nsusage_read_dirs(1, &u) == 0)
			for (int i = 0; i < u.count; i++)
				if (!strcmp(u.dirs[i].path, "/tmp"))
					d = &u.dirs[i];
		ok(d && d->bytes_limit > LIMIT * 9 / 10 &&
		   d->bytes_limit <= LIMIT && d->bytes < MiB,
		   "usage: /tmp's figures are its filesystem's: %llu of %llu "
		   "bytes", d ? (unsigned long long)d->bytes : 0,
		   d ? (unsigned long long)d->bytes_limit : 0);
	}
	n = fill(1, false, "/tmp/fill", &err);
	ok(n >= 16 && n < 20 && err == ENOSPC,
	   "the job user gets ENOSPC near 20M: %d MiB, %s", n, strerror(err));
	{
		struct nsusage u;
		int found = 0;

		if (nsusage_read_dirs(1, &u) == 0)
			for (int i = 0; i < u.count; i++)
				if (!strcmp(u.dirs[i].path, "/tmp") &&
				    u.dirs[i].bytes > 15 * MiB)
					found = 1;
		ok(found, "usage: /tmp holds what the job wrote");
	}
	n = fill(1, true, "/var/tmp/root", &err);
	ok(n >= 0 && n < 4 && err == ENOSPC,
	   "root's writes (sbcast) are bounded too, /var/tmp shares the "
	   "filesystem: %d MiB more, %s", n, strerror(err));

	ok(create_job(2, LIMIT, INODES) == 0, "job 2 (%s)", rep.msg);
	n = look(2, "/tmp", &sv, &mode);
	ok(n == 0 && sv.f_bfree * sv.f_frsize > LIMIT / 2,
	   "job 2's /tmp is its own and empty: %d entries", n);
	ok(loops_of_scratch() == 2, "two loop devices, one per job");

	holder = hold_tmp(1, &go);
	ok(holder > 0, "precondition: a process holds an fd of job 1's /tmp");
	n = mntns_delete(scratch, 1);
	ok(n == 0, "job 1 torn down: %s", n ? strerror(errno) : "");
	n = mntns_delete(scratch, 2);
	ok(n == 0, "job 2 torn down: %s", n ? strerror(errno) : "");
	ok(holder > 0 && loops_become(1),
	   "  the held fd keeps job 1's loop device (%d)",
	   loops_of_scratch());
	if (holder > 0) {
		int status = -1;

		(void)!write(go, "g", 1);
		close(go);
		waitpid(holder, &status, 0);
		ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		   "  but reaches nothing of the job: its filesystem emptied "
		   "and read-only (status %d)", status);
	} else {
		ok(0, "  no holder");
	}
	ok(!exists_at("1", NULL) && !exists_at("2", NULL),
	   "no job directory (nor image) is left");
	ok(loops_gone(), "no loop device is left");
	ok(!mounted_in_scratch(NULL), "no mount is left");
}

/* A filesystem mke2fs cannot make (more inodes than blocks allow). */
static void test_fail_closed(void)
{
	errno = 0;
	ok(create_job(3, 2 * MiB, 100000000ULL) < 0,
	   "a job whose filesystem cannot be made fails: %s", rep.msg);
	like(rep.msg, NSLOOP_MKFS, "the reason names mke2fs");
	ok(!exists_at("3", NULL), "its directory is gone");
	ok(loops_gone(), "and no loop device is left");
}

int main(void)
{
	int basefd;

	signal(SIGPIPE, SIG_IGN);
	if (!tap_root() || access("/dev/loop-control", R_OK | W_OK) < 0 ||
	    access(NSLOOP_MKFS, X_OK) < 0) {
		tap_skip("needs root, /dev/loop-control and %s", NSLOOP_MKFS);
		return tap_done();
	}
	if (!mkdtemp(scratch) || (basefd = safepath_open(scratch)) < 0) {
		ok(0, "scratch BasePath: %s", strerror(errno));
		return tap_done();
	}
	ok(nsloop_probe(fresh()) == 0, "the node can make filesystems (%s)",
	   rep.msg);
	ok(loops_of_scratch() == 0, "precondition: no loop device holds a "
	   "job's image");
	test_template(basefd);
	test_no_follow(basefd);
	test_prune(basefd);
	if (fdmount_missing_call()) {
		/* valgrind knows no open_tree: the namespace is not made */
		tap_skip("the job parts: no %s here (valgrind?)",
			 fdmount_missing_call());
	} else {
		test_job();
		test_fail_closed();
	}
	close(basefd);
	mntns_delete(scratch, 1);
	mntns_delete(scratch, 2);
	mntns_delete(scratch, 3);
	{
		int fd = open("/var/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);

		if (fd >= 0) {
			saferm_at(fd, strrchr(scratch, '/') + 1);
			close(fd);
		}
	}
	return tap_done();
}
