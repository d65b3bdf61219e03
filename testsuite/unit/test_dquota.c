/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_dquota.c - TmpDiskLimit for real: project quotas on a loop-mounted
 * ext4 made by the test, through mntns_create/mntns_delete.
 *
 * Needs root.  Where the kernel has no quota support (a kernel without
 * CONFIG_QUOTA refuses to mount an ext4 with the quota feature) the quota
 * part is one skip with the reason, and what can be checked is: the probe
 * says the filesystem cannot enforce, and a job with a limit fails and
 * leaves nothing (with DEVNS_REQUIRE_QUOTA set in the environment, as in
 * run-tests.sh's guest stage, that skip is a failure).  The loop filesystem is unmounted (its loop device goes
 * with it) and its files removed, on every path.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/fs.h>

#include "conf/jobdir.h"
#include "conf/nsconf.h"
#include "ns/dqguard.h"
#include "ns/dquota.h"
#include "ns/mntns.h"
#include "util/fdpass.h"
#include "util/safepath.h"
#include "util/saferm.h"
#include "tap.h"
#include "testrep.h"
#include "testspec.h"

#define MiB (1024ULL * 1024)
#define NOBODY 65534

static char scratch[] = "/var/tmp/test-dquota.XXXXXX";
static char image[128], mnt[128], base[256];

/* Run a shell command quietly; its output goes to diag on failure. */
static int sh(const char *cmd, char *out, size_t len)
{
	char full[1024];
	FILE *p;
	size_t n = 0;
	int status;

	snprintf(full, sizeof(full), "%s 2>&1", cmd);
	if (!(p = popen(full, "r")))
		return -1;
	if (out && len) {
		n = fread(out, 1, len - 1, p);
		out[n] = '\0';
		out[strcspn(out, "\n")] = '\0';
	} else {
		char buf[512];

		while (fread(buf, 1, sizeof(buf), p) > 0)
			;
	}
	status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The probe of the filesystem holding path; rep says why it failed. */
static int probe(const char *path)
{
	int fd = safepath_open(path), rc;

	if (fd < 0)
		return -1;
	rc = dquota_probe(fd, path, fresh());
	close(fd);
	return rc;
}

/*
 * In job_id's namespace as an unprivileged user (root's CAP_SYS_RESOURCE
 * ignores quota limits), write 1 MiB blocks to /tmp/fill until a write
 * fails or want_mib are written.  Exits with the MiB written (<= 250) and
 * reports the errno of the failed write through errfd.
 */
static int fill_tmp(uint32_t job_id, int want_mib, int *err)
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
		if (mntns_join(base, job_id) < 0 || setgroups(0, NULL) < 0 ||
		    setgid(NOBODY) < 0 || setuid(NOBODY) < 0)
			_exit(255);
		fd = open("/tmp/fill", O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0)
			_exit(254);
		memset(block, 'x', sizeof(block));
		for (n = 0; n < want_mib; n++) {
			ssize_t w = write(fd, block, sizeof(block));

			/* A short write: the next one says why. */
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
	*err = 0;
	if (pid < 0 || read(pipefd[0], err, sizeof(*err)) != sizeof(*err))
		*err = -1;
	close(pipefd[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* Become nobody, as a job's task does after joining. */
static int become_nobody(void)
{
	return setgroups(0, NULL) < 0 || setgid(NOBODY) < 0 ||
	       setuid(NOBODY) < 0 ? -1 : 0;
}

/* What a job user tries: returns 0 when done, else the errno. */
typedef int (*attempt_fn)(const void *arg);

/*
 * Run attempt(arg) as nobody in job_id's namespace, under the filter when
 * guarded, as jobct_join leaves a task.  Returns its errno (0: it was
 * done), or -1 when the child could not get there.
 */
static int as_job_user(uint32_t job_id, bool guarded, attempt_fn attempt,
		       const void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (mntns_join(base, job_id) < 0 ||
		    (guarded && dqguard_install() < 0) || become_nobody() < 0)
			_exit(255);
		_exit(attempt(arg));
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status) == 255)
		return -1;
	return WEXITSTATUS(status);
}

static int errno_of(int rc)
{
	return rc < 0 ? errno : 0;
}

static int create_file(const void *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd >= 0)
		close(fd);
	return errno_of(fd);
}

static int remove_file(const void *path)
{
	return errno_of(unlink(path));
}

static int create_dir(const void *path)
{
	return errno_of(mkdir(path, 0700));
}

/* What to do to a path's project id: set it, or clear PROJINHERIT. */
struct project_change {
	const char *path;
	uint32_t projid;	/* the new project id */
	bool no_inherit;	/* clear PROJINHERIT instead */
	bool by_flags;		/* ... with FS_IOC_SETFLAGS (chattr -P) */
};

static int change_project(const void *arg)
{
	const struct project_change *c = arg;
	int fd = open(c->path, O_RDONLY | O_CLOEXEC), rc;
	struct fsxattr fx;
	long flags;

	if (fd < 0)
		return errno;
	if (c->by_flags) {
		rc = ioctl(fd, FS_IOC_GETFLAGS, &flags);
		flags &= ~(long)FS_PROJINHERIT_FL;
		if (rc == 0)
			rc = ioctl(fd, FS_IOC_SETFLAGS, &flags);
	} else {
		rc = ioctl(fd, FS_IOC_FSGETXATTR, &fx);
		if (c->no_inherit)
			fx.fsx_xflags &= ~FS_XFLAG_PROJINHERIT;
		else
			fx.fsx_projid = c->projid;
		if (rc == 0)
			rc = ioctl(fd, FS_IOC_FSSETXATTR, &fx);
	}
	rc = errno_of(rc);
	close(fd);
	return rc;
}

/* The project id of path, as root sees it from job_id's namespace. */
static uint32_t project_of(uint32_t job_id, const char *path)
{
	int pipefd[2], status;
	uint32_t projid = UINT32_MAX;
	pid_t pid;

	if (pipe(pipefd) < 0)
		return projid;
	if ((pid = fork()) == 0) {
		int fd;

		if (mntns_join(base, job_id) < 0 ||
		    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 ||
		    dquota_project(fd, &projid) < 0)
			projid = UINT32_MAX;
		(void)!write(pipefd[1], &projid, sizeof(projid));
		_exit(0);
	}
	close(pipefd[1]);
	if (pid < 0 || read(pipefd[0], &projid, sizeof(projid)) !=
	    sizeof(projid))
		projid = UINT32_MAX;
	close(pipefd[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	return projid;
}

/* Files made in /tmp, up to *arg: 0 when all were, else the errno. */
static int fill_inodes(const void *arg)
{
	char name[64];
	int n, limit = *(const int *)arg, fd = -1;

	for (n = 0; n < limit; n++) {
		snprintf(name, sizeof(name), "/tmp/i%d", n);
		if ((fd = open(name, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) < 0)
			break;
		close(fd);
	}
	return fd >= 0 ? 0 : errno;
}

/*
 * A hard link and a rename from job_id's /tmp into other's: the child
 * opens other's /tmp first (as root, from its namespace), then goes into
 * job_id's as the filtered user.  Returns the errno of link (*link_err)
 * and rename (*rename_err), or -1.
 */
static int into_other_job(uint32_t job_id, uint32_t other, int *link_err,
			  int *rename_err)
{
	int pipefd[2], errs[2] = { -1, -1 }, status;
	pid_t pid;

	if (pipe(pipefd) < 0)
		return -1;
	if ((pid = fork()) == 0) {
		/* Both pins first: the path to one is not in the other. */
		int own = mntns_open(base, job_id), ns = mntns_open(base, other);
		int dfd;

		if (own < 0 || ns < 0 || setns(ns, CLONE_NEWNS) < 0 ||
		    (dfd = open("/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 ||
		    setns(own, CLONE_NEWNS) < 0 || dqguard_install() < 0 ||
		    become_nobody() < 0 || create_file("/tmp/l") != 0 ||
		    create_file("/tmp/r") != 0)
			_exit(1);
		errs[0] = errno_of(linkat(AT_FDCWD, "/tmp/l", dfd, "l", 0));
		errs[1] = errno_of(renameat(AT_FDCWD, "/tmp/r", dfd, "r"));
		(void)!write(pipefd[1], errs, sizeof(errs));
		_exit(0);
	}
	close(pipefd[1]);
	if (pid < 0 || read(pipefd[0], errs, sizeof(errs)) != sizeof(errs))
		errs[0] = errs[1] = -1;
	close(pipefd[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	*link_err = errs[0];
	*rename_err = errs[1];
	return errs[0] < 0 ? -1 : 0;
}

/*
 * A file of job_id's /tmp, made and filled with 1 MiB by the filtered
 * user, its fd handed out: another job's process keeping it past the job.
 * Returns the fd (O_WRONLY|O_APPEND), or -1.
 */
static int held_file(uint32_t job_id)
{
	int sv[2], fd = -1, status;
	size_t n = 0;
	pid_t pid;
	char c;

	/* SEQPACKET: a child that fails before sending gives EOF. */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	if ((pid = fork()) == 0) {
		static char block[1 << 20];

		close(sv[0]);
		if (mntns_join(base, job_id) < 0 || dqguard_install() < 0 ||
		    become_nobody() < 0 ||
		    (fd = open("/tmp/held", O_WRONLY | O_CREAT | O_APPEND |
			       O_CLOEXEC, 0600)) < 0 ||
		    write(fd, block, sizeof(block)) != sizeof(block) ||
		    fsync(fd) < 0)
			_exit(1);
		(void)fdpass_send(sv[1], "f", 1, &fd, 1);
		_exit(0);
	}
	close(sv[1]);
	if (pid < 0 || fdpass_recv(sv[0], &c, 1, &fd, 1, &n) != 1 || n != 1)
		fd = -1;
	close(sv[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	return fd;
}

/*
 * Write mib MiB into fd as nobody (root's writes ignore quota limits),
 * outside every job.  Returns 0 or the errno of the failed write.
 */
static int write_as_nobody(int fd, int mib)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		static char block[1 << 20];

		if (become_nobody() < 0)
			_exit(255);
		for (int i = 0; i < mib; i++)
			if (write(fd, block, sizeof(block)) != sizeof(block))
				_exit(errno ? errno : EIO);
		_exit(errno_of(fsync(fd)));
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static bool usage_is(int basefd, uint32_t projid, uint64_t bytes_limit,
		     uint64_t inodes_limit, bool unused)
{
	struct dquota_usage u;

	if (dquota_get(basefd, projid, &u) < 0)
		return false;
	diag("project %u: limits %ju bytes, %ju inodes; used %ju bytes, %ju inodes",
	     projid, (uintmax_t)u.bytes_limit, (uintmax_t)u.inodes_limit,
	     (uintmax_t)u.bytes_used, (uintmax_t)u.inodes_used);
	return u.bytes_limit == bytes_limit && u.inodes_limit == inodes_limit &&
	       (!unused || (!u.bytes_used && !u.inodes_used));
}

static void test_args(void)
{
	int fd = open("/", O_RDONLY | O_DIRECTORY);

	ok(dquota_set(fd, 0, MiB, 100, fresh()) < 0 && errno == EINVAL,
	   "dquota_set refuses project 0 (the default project)");
	ok(dquota_set(fd, 7, 0, 100, fresh()) < 0 && errno == EINVAL,
	   "dquota_set refuses a limit of 0 (no limit)");
	ok(dquota_set(fd, 7, MiB, 0, fresh()) < 0 && errno == EINVAL,
	   "dquota_set refuses an inode limit of 0 (no limit)");
	ok(nsconf_default_inodes(10 * MiB) == NSCONF_INODES_MIN &&
	   nsconf_default_inodes(1024 * MiB) == 1024 * MiB / NSCONF_INODE_RATIO,
	   "the default inode limit: one per 16 KiB, at least %d",
	   NSCONF_INODES_MIN);
	ok(dquota_limits_root(0x58465342) && !dquota_limits_root(0xEF53) &&
	   !dquota_limits_root(0x01021994) && !dquota_limits_root(0),
	   "project limits bind root on xfs only (not ext4, tmpfs, unknown)");
	close(fd);
}

/*
 * Why sbcast into a job with TmpDiskLimit on ext4 is refused (issue 42):
 * slurmd writes sbcast's blocks as root, and on ext4 root's writes
 * (CAP_SYS_RESOURCE) pass the project's hard limit.  Shown on the kernel:
 * root writes 20 MiB into job 41's 10 MiB directory; dquota_job_limit
 * then says the directory's limit, its filesystem, and that it does not
 * bind root.
 */
static void test_root_exempt(int basefd)
{
	static char block[1 << 20];
	struct dquota_usage u = { 0 };
	struct dquota_job_limit l;
	char path[320];
	int fd, rc, n = 0;

	snprintf(path, sizeof(path), "%s/41/tmp/rootfill", base);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (!ok(fd >= 0, "precondition: root opens a file in job 41's /tmp"))
		return;
	memset(block, 'r', sizeof(block));
	while (n < 20 && write(fd, block, sizeof(block)) ==
			 (ssize_t)sizeof(block))
		n++;
	rc = fsync(fd) == 0 && dquota_get(basefd, 41, &u) == 0;
	ok(rc && n == 20 && u.bytes_limit == 10 * MiB &&
	   u.bytes_used >= 20 * MiB,
	   "ext4: root (CAP_SYS_RESOURCE) writes %d MiB into job 41's "
	   "10 MiB project (%ju bytes charged): the hard limit does not "
	   "bind root", n, (uintmax_t)u.bytes_used);
	close(fd);
	rc = dquota_job_limit(base, 41, &l);
	ok(rc == 0 && l.projid == 41 && l.bytes == 10 * MiB &&
	   !dquota_limits_root(l.fs_type) && strcmp(l.fs, "ext2/3/4") == 0,
	   "dquota_job_limit: project %u, %ju bytes, on %s, not binding root",
	   l.projid, (uintmax_t)l.bytes, l.fs);
	ok(unlink(path) == 0, "  root's file removed");
	ok(dquota_job_limit(base, 999, &l) < 0 && errno == ENOENT,
	   "dquota_job_limit: a job without a directory: ENOENT");
}

/* A tmpfs has no project quotas: the probe and a job with a limit fail. */
static void test_cannot_enforce(void)
{
	const char *dirs[] = { "/tmp", NULL };
	struct mntns_spec spec = { .job_id = 31, .disk_limit = 10 * MiB };
	char tbase[300], jobdir[320];

	snprintf(tbase, sizeof(tbase), "%s/tmpfs", scratch);
	if (mkdir(tbase, 0700) < 0 ||
	    mount("tmpfs", tbase, "tmpfs", 0, "mode=0700") < 0) {
		ok(0, "precondition: a tmpfs at %s: %s", tbase, strerror(errno));
		rmdir(tbase);
		return;
	}
	ok(probe(tbase) < 0 && errno == ENOTSUP,
	   "probe: a tmpfs cannot enforce project quotas");
	like(rep.msg, "tmpfs", "  the message names the filesystem type");
	like(rep.msg, tbase, "  and the path");
	spec.base_path = tbase;
	snprintf(jobdir, sizeof(jobdir), "%s/31", tbase);
	ok(testspec_create(&spec, dirs, 0, 0, fresh()) < 0,
	   "a job with a disk limit on it fails");
	like(rep.msg, "TmpDiskLimit", "  the error names TmpDiskLimit");
	ok(!exists(jobdir), "  and leaves no job directory");
	ok(umount2(tbase, MNT_DETACH) == 0 && rmdir(tbase) == 0,
	   "the tmpfs is removed");
}

/*
 * Make an ext4 with project quotas in the scratch directory and mount it
 * with opts.  Returns 0, or -1 with the reason in why.
 */
static int make_ext4(const char *opts, char *why, size_t len)
{
	char cmd[1024];

	if (!exists(image)) {
		snprintf(cmd, sizeof(cmd),
			 "truncate -s 64M %s && mkfs.ext4 -q -F -O quota,project %s",
			 image, image);
		if (sh(cmd, why, len) != 0)
			return -1;
	}
	if (!exists(mnt) && mkdir(mnt, 0700) < 0) {
		snprintf(why, len, "mkdir %s: %s", mnt, strerror(errno));
		return -1;
	}
	snprintf(cmd, sizeof(cmd), "mount -t ext4 -o loop,%s %s %s", opts,
		 image, mnt);
	return sh(cmd, why, len) == 0 ? 0 : -1;
}

/* Unmount the loop filesystem; its loop device is detached with it. */
static int unmount_ext4(void)
{
	char cmd[600], out[256];

	if (umount2(mnt, 0) < 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "losetup -j %s", image);
	return sh(cmd, out, sizeof(out)) == 0 && !out[0] ? 0 : -1;
}

/*
 * Job 41 (running, 10 MiB) tries to leave its project; job 42 (running)
 * is the victim whose project id it would borrow, and whose /tmp it would
 * link into.
 */
static void test_escapes(void)
{
	struct project_change to_zero = { .path = "/tmp/x", .projid = 0 };
	struct project_change to_victim = { .path = "/tmp/y", .projid = 42 };
	struct project_change dir_flag = { .path = "/tmp/d", .no_inherit = true };
	struct project_change dir_chattr = { .path = "/tmp/d", .no_inherit = true,
					     .by_flags = true };
	int link_err = -1, rename_err = -1;

	ok(as_job_user(41, true, create_file, "/tmp/x") == 0 &&
	   as_job_user(41, true, create_file, "/tmp/y") == 0 &&
	   as_job_user(41, true, create_dir, "/tmp/d") == 0,
	   "precondition: job 41's user makes files and a directory in /tmp");
	ok(project_of(41, "/tmp/x") == 41 && project_of(41, "/tmp/d") == 41,
	   "  they are in project 41");

	/* The hole: without the filter, the owner leaves the project. */
	ok(as_job_user(41, false, change_project, &to_zero) == 0 &&
	   project_of(41, "/tmp/x") == 0,
	   "without the filter, the owner moves /tmp/x to project 0 (chattr -p 0): the hole");
	to_zero.path = "/tmp/y";
	ok(as_job_user(41, true, change_project, &to_zero) == EPERM &&
	   project_of(41, "/tmp/y") == 41,
	   "under the filter, chattr -p 0 is refused and /tmp/y stays in project 41");
	ok(as_job_user(41, true, change_project, &to_victim) == EPERM &&
	   project_of(41, "/tmp/y") == 41,
	   "  and so is moving it into the victim job 42's project");
	ok(as_job_user(41, true, change_project, &dir_flag) == EPERM,
	   "  and clearing PROJINHERIT on a directory (FS_IOC_FSSETXATTR)");
	ok(as_job_user(41, true, change_project, &dir_chattr) == EPERM,
	   "  and through FS_IOC_SETFLAGS (chattr -P)");
	ok(as_job_user(41, true, create_file, "/tmp/d/inside") == 0 &&
	   project_of(41, "/tmp/d/inside") == 41,
	   "  a file made in that directory is in project 41");

	ok(into_other_job(41, 42, &link_err, &rename_err) == 0,
	   "precondition: job 41's user holds job 42's /tmp");
	ok(link_err == EXDEV, "a hard link into job 42's /tmp: EXDEV (%s)",
	   link_err > 0 ? strerror(link_err) : "done");
	ok(rename_err == EXDEV, "a rename into it: EXDEV (%s)",
	   rename_err > 0 ? strerror(rename_err) : "done");
}

/* Job 41 ends while another process holds a file of it open. */
static void test_held_fd(int basefd)
{
	int fd = held_file(41), rc;

	ok(fd >= 0, "precondition: job 41's user made /tmp/held (1 MiB) and handed its fd out");
	if (fd < 0)
		return;
	rc = write_as_nobody(fd, 1);
	ok(rc == 0, "  the fd's holder writes 1 MiB more while job 41 runs (%s)",
	   rc > 0 ? strerror(rc) : rc == 0 ? "ok" : "no child");
	ok(mntns_delete(base, 41) == 0, "job 41 deleted");
	rc = write_as_nobody(fd, 5);
	ok(rc == EDQUOT || rc == ENOSPC,
	   "after it, the holder cannot write through the fd: %s",
	   rc > 0 ? strerror(rc) : rc == 0 ? "it wrote 5 MiB" : "no child");
	ok(usage_is(basefd, 41, 1024, 1, false),
	   "  project 41 stays sealed (1 KiB, 1 inode) while the file is held");
	close(fd);
	ok(usage_is(basefd, 41, 1024, 1, true),
	   "  once it is closed nothing is charged to it; the seal stays");
	ok(dquota_release_sealed(basefd) >= 1 &&
	   usage_is(basefd, 41, 0, 0, true),
	   "  until a later teardown lifts every empty seal");
}

/* A job with an inode limit of 100 makes files until refused. */
static void test_inodes(int basefd)
{
	const char *dirs[] = { "/tmp", NULL };
	struct mntns_spec c = { .base_path = base, .job_id = 44,
				.disk_limit = 10 * MiB, .inode_limit = 100 };
	int want = 200, rc;

	ok(testspec_create(&c, dirs, 0, 0, fresh()) == 0 &&
	   usage_is(basefd, 44, 10 * MiB, 100, false),
	   "job 44 with TmpInodeLimit 100");
	rc = as_job_user(44, true, fill_inodes, &want);
	ok(rc == EDQUOT || rc == ENOSPC,
	   "its user cannot make %d files in /tmp: %s", want,
	   rc > 0 ? strerror(rc) : rc == 0 ? "all were made" : "no child");
	ok(mntns_delete(base, 44) == 0 && usage_is(basefd, 44, 0, 0, true),
	   "job 44 deleted: nothing left, no limit");
}

static void test_quota(void)
{
	const char *dirs[] = { "/tmp", "/dev/shm", NULL };
	struct mntns_spec a = { .job_id = 41, .disk_limit = 10 * MiB };
	struct mntns_spec b = { .job_id = 42, .disk_limit = 20 * MiB };
	char why[512], job[320];
	uint32_t projid = 0;
	int n, err, fd, basefd;

	if (make_ext4("noquota", why, sizeof(why)) < 0) {
		/* Where quotas must work (the guest), this is a failure. */
		if (getenv("DEVNS_REQUIRE_QUOTA")) {
			ok(0, "DEVNS_REQUIRE_QUOTA: an ext4 with the quota "
			   "feature mounts: %s", why);
			return;
		}
		tap_skip("quota part: cannot mount an ext4 with the quota "
			 "feature here (%s); the kernel lacks quota support",
			 why);
		return;
	}
	ok(probe(mnt) < 0 && errno == ENOTSUP,
	   "probe: ext4 mounted without prjquota cannot enforce");
	like(rep.msg, "does not enforce", "  the message says why: %s",
	     rep.msg);
	ok(unmount_ext4() == 0, "unmounted");
	if (make_ext4("prjquota", why, sizeof(why)) < 0) {
		ok(0, "precondition: mount -o prjquota: %s", why);
		return;
	}
	ok(probe(mnt) == 0, "probe: ext4 with prjquota enforces: %s",
	   rep.msg[0] ? rep.msg : "ok");
	snprintf(base, sizeof(base), "%s/base", mnt);
	ok(mkdir(base, 0700) == 0, "BasePath on it");
	a.base_path = b.base_path = base;

	ok(testspec_create(&a, dirs, 0, 0, fresh()) == 0,
	   "job 41 with a 10 MiB limit: %s",
	   rep.msg[0] ? rep.msg : "ok");
	ok(testspec_create(&b, dirs, 0, 0, fresh()) == 0,
	   "job 42 with a 20 MiB limit: %s",
	   rep.msg[0] ? rep.msg : "ok");
	snprintf(job, sizeof(job), "%s/41", base);
	fd = open(job, O_RDONLY | O_DIRECTORY);
	ok(fd >= 0 && dquota_project(fd, &projid) == 0 && projid == 41,
	   "job 41's directory is project 41");
	if (fd >= 0)
		close(fd);
	basefd = safepath_open(base);
	ok(usage_is(basefd, 41, 10 * MiB, NSCONF_INODES_MIN, false),
	   "project 41 has a 10 MiB block limit and the default inode limit");

	n = fill_tmp(41, 30, &err);
	ok(n >= 8 && n <= 10 && (err == EDQUOT || err == ENOSPC),
	   "job 41 (as nobody) writes %d MiB into /tmp, then fails with %s",
	   n, strerror(err));
	n = fill_tmp(42, 30, &err);
	ok(n >= 18 && n <= 20 && (err == EDQUOT || err == ENOSPC),
	   "job 42, at the same time, has its own 20 MiB: %d MiB, then %s",
	   n, strerror(err));
	n = fill_tmp(42, 5, &err);
	ok(n == 5 && err == 0,
	   "job 42 writes again once its file is truncated: %d MiB (%s)", n,
	   strerror(err));

	ok(as_job_user(41, true, remove_file, "/tmp/fill") == 0 &&
	   as_job_user(42, true, remove_file, "/tmp/fill") == 0,
	   "both remove what they wrote");
	test_root_exempt(basefd);
	test_escapes();
	test_held_fd(basefd);

	ok(usage_is(basefd, 42, 20 * MiB, nsconf_default_inodes(20 * MiB), false),
	   "project 42 keeps its limits while job 42 runs");
	ok(mntns_delete(base, 42) == 0, "job 42 deleted");
	ok(usage_is(basefd, 42, 0, 0, true),
	   "nothing of job 42 was held: project 42 has no limit and no usage left");

	/* A requeued job of the same id: its limits replace the seal. */
	ok(testspec_create(&a, dirs, 0, 0, fresh()) == 0, "job 41 again");
	ok(usage_is(basefd, 41, 10 * MiB, NSCONF_INODES_MIN, false),
	   "  its limits replace the seal");
	ok(mntns_delete(base, 41) == 0 && usage_is(basefd, 41, 0, 0, true),
	   "  deleting it, with nothing held, lifts them");

	test_inodes(basefd);

	/* A failing create leaves neither directory nor limit. */
	{
		const char *bad[] = { "/tmp", "/no/such/dir", NULL };
		struct mntns_spec c = { .base_path = base, .job_id = 43,
					.disk_limit = MiB };

		ok(testspec_create(&c, bad, 0, 0, fresh()) < 0,
		   "a job that fails");
		snprintf(job, sizeof(job), "%s/43", base);
		ok(!exists(job) && usage_is(basefd, 43, 0, 0, true),
		   "  leaves no directory and no limit");
	}
	/* Root's lock around the limits (mntns.c) stays in BasePath. */
	ok(unlinkat(basefd, JOBDIR_QUOTA_LOCK, 0) == 0 && rmdir(base) == 0,
	   "BasePath holds nothing but root's lock " JOBDIR_QUOTA_LOCK);
	close(basefd);
	ok(unmount_ext4() == 0, "the loop filesystem is unmounted and its "
	   "loop device detached");
}

int main(void)
{
	test_args();
	if (!tap_root()) {
		tap_skip("quota tests need root");
		return tap_done();
	}
	/* Every mount of the test dies with this private namespace. */
	if (unshare(CLONE_NEWNS) < 0 ||
	    mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0) {
		tap_skip("quota tests need a mount namespace: %s",
			 strerror(errno));
		return tap_done();
	}
	if (!mkdtemp(scratch)) {
		tap_skip("cannot make a scratch directory: %s", strerror(errno));
		return tap_done();
	}
	snprintf(image, sizeof(image), "%s/ext4.img", scratch);
	snprintf(mnt, sizeof(mnt), "%s/mnt", scratch);
	test_cannot_enforce();
	test_quota();
	umount2(mnt, MNT_DETACH);
	{
		int fd = open("/var/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);

		ok(fd >= 0 && saferm_at(fd, strrchr(scratch, '/') + 1) == 0 &&
		   !exists(scratch), "no leftovers: the scratch directory is "
		   "gone");
		if (fd >= 0)
			close(fd);
	}
	return tap_done();
}
