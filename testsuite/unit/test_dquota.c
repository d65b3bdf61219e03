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

#include "ns/dquota.h"
#include "ns/mntns.h"
#include "util/safepath.h"
#include "util/saferm.h"
#include "tap.h"
#include "testrep.h"

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

static void test_args(void)
{
	int fd = open("/", O_RDONLY | O_DIRECTORY);

	ok(dquota_set(fd, 0, MiB, fresh()) < 0 && errno == EINVAL,
	   "dquota_set refuses project 0 (the default project)");
	ok(dquota_set(fd, 7, 0, fresh()) < 0 && errno == EINVAL,
	   "dquota_set refuses a limit of 0 (no limit)");
	close(fd);
}

/* A tmpfs has no project quotas: the probe and a job with a limit fail. */
static void test_cannot_enforce(void)
{
	const char *dirs[] = { "/tmp", NULL };
	struct mntns_spec spec = { .job_id = 31, .dirs = dirs,
				   .disk_limit = 10 * MiB };
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
	ok(mntns_create(&spec, fresh()) < 0,
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

static void test_quota(void)
{
	const char *dirs[] = { "/tmp", "/dev/shm", NULL };
	struct mntns_spec a = { .job_id = 41, .dirs = dirs,
				.disk_limit = 10 * MiB };
	struct mntns_spec b = { .job_id = 42, .dirs = dirs,
				.disk_limit = 20 * MiB };
	uint64_t limit = 1, used = 1;
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

	ok(mntns_create(&a, fresh()) == 0, "job 41 with a 10 MiB limit: %s",
	   rep.msg[0] ? rep.msg : "ok");
	ok(mntns_create(&b, fresh()) == 0, "job 42 with a 20 MiB limit: %s",
	   rep.msg[0] ? rep.msg : "ok");
	snprintf(job, sizeof(job), "%s/41", base);
	fd = open(job, O_RDONLY | O_DIRECTORY);
	ok(fd >= 0 && dquota_project(fd, &projid) == 0 && projid == 41,
	   "job 41's directory is project 41");
	if (fd >= 0)
		close(fd);
	basefd = safepath_open(base);
	ok(dquota_get(basefd, 41, &limit, NULL) == 0 && limit == 10 * MiB,
	   "project 41 has a 10 MiB block limit");

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

	ok(mntns_delete(base, 41) == 0, "job 41 deleted");
	ok(dquota_get(basefd, 41, &limit, &used) == 0 && limit == 0 &&
	   used == 0, "project 41 has no limit and no usage left");
	ok(dquota_get(basefd, 42, &limit, NULL) == 0 && limit == 20 * MiB,
	   "project 42 keeps its limit while job 42 runs");
	ok(mntns_delete(base, 42) == 0, "job 42 deleted");
	ok(dquota_get(basefd, 42, &limit, &used) == 0 && limit == 0 &&
	   used == 0, "project 42 has no limit and no usage left");

	/* A stale job directory (slurmd died) is cleared by a delete. */
	ok(mntns_create(&a, fresh()) == 0, "job 41 again");
	ok(mntns_delete(base, 41) == 0 &&
	   dquota_get(basefd, 41, &limit, NULL) == 0 && limit == 0,
	   "deleting it clears the limit again");

	/* A failing create leaves neither directory nor limit. */
	{
		const char *bad[] = { "/tmp", "/no/such/dir", NULL };
		struct mntns_spec c = { .base_path = base, .job_id = 43,
					.dirs = bad, .disk_limit = MiB };

		ok(mntns_create(&c, fresh()) < 0, "a job that fails");
		snprintf(job, sizeof(job), "%s/43", base);
		ok(!exists(job) && dquota_get(basefd, 43, &limit, NULL) == 0 &&
		   limit == 0, "  leaves no directory and no limit");
	}
	close(basefd);
	ok(rmdir(base) == 0, "BasePath is empty");
	ok(unmount_ext4() == 0, "the loop filesystem is unmounted and its "
	   "loop device detached");
}

int main(void)
{
	test_args();
	if (geteuid() != 0) {
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
