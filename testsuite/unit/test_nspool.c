/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_nspool.c - namespaces copied ahead (NamespacePool), for real.
 *
 * Runs in a mount namespace of its own, made private and then shared again
 * as systemd leaves a host's, so that the pool's slaves see what this
 * process mounts and the host sees none of it.  Needs root and the new
 * mount API (mntns); skips cleanly without them.  Checks that a job takes
 * a namespace from the pool and gets its private /tmp and hidden BasePath
 * as from a fresh copy, that mounts and unmounts the node makes after the
 * copy reach it, that a namespace is claimed exactly once, that stale and
 * claimed entries are swept, that the keeper refills after a claim, and
 * that clearing leaves no mount and no directory.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "conf/jobdir.h"
#include "conf/nsconf.h"
#include "ns/mntns.h"
#include "ns/nsmembers.h"
#include "ns/nspool.h"
#include "ns/nspool_keeper.h"
#include "nsgone.h"
#include "tap.h"
#include "testrep.h"
#include "testspec.h"

#ifndef NSFS_MAGIC
#define NSFS_MAGIC 0x6e736673
#endif

static char base[] = "/var/tmp/test-nspool.XXXXXX";
static char outside[] = "/var/tmp/test-nspool-mnt.XXXXXX";

/* How many mounts of this namespace lie at or below path. */
static int mounts_below(const char *path)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[4096];
	size_t len = strlen(path);
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = line;

		/* the fifth field: the mount point */
		for (int field = 0; field < 4 && p; field++)
			if ((p = strchr(p, ' ')))
				p++;
		if (p && !strncmp(p, path, len) &&
		    (p[len] == ' ' || p[len] == '/'))
			n++;
	}
	fclose(f);
	return n;
}

static int make_job(uint32_t job_id, bool use_pool)
{
	static const char *const dirs[] = { "/tmp", "/dev/shm", NULL };
	struct mntns_spec spec = {
		.base_path = base,
		.job_id = job_id,
		.use_pool = use_pool,
	};
	int rc;

	/* The caller claims, as jobct does. */
	spec.pool_fd = use_pool ? nspool_claim(base) : -1;
	rc = testspec_create(&spec, dirs, 0, 0, fresh());
	if (spec.pool_fd >= 0)
		close(spec.pool_fd);
	return rc;
}

/*
 * In a child inside the job's namespace: 0 when path exists there
 * (want_exists) or does not (!want_exists), 1 otherwise, 2 when the child
 * could not join.
 */
static int exists_in_job(uint32_t job_id, const char *path, bool want_exists)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		struct stat st;

		if (mntns_join(base, job_id) < 0)
			_exit(2);
		_exit((stat(path, &st) == 0) == want_exists ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* A file written to /tmp inside the job, read back from BasePath. */
static bool tmp_is_private(uint32_t job_id)
{
	char backing[512];
	struct stat st;
	pid_t pid = fork();
	int status, fd;

	if (pid == 0) {
		DIR *d;
		struct dirent *e;
		int names = 0;

		if (mntns_join(base, job_id) < 0)
			_exit(2);
		if ((fd = open("/tmp/from-job", O_CREAT | O_WRONLY, 0600)) < 0)
			_exit(3);
		close(fd);
		/* BasePath is hidden: no job directory can be seen. */
		if (!(d = opendir(base)))
			_exit(4);
		while ((e = readdir(d)))
			names += e->d_name[0] != '.';
		closedir(d);
		_exit(names ? 5 : 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		diag("  job child exit %d", WIFEXITED(status) ?
		     WEXITSTATUS(status) : -1);
		return false;
	}
	snprintf(backing, sizeof(backing), "%s/%u/tmp/from-job", base, job_id);
	return stat(backing, &st) == 0 && stat("/tmp/from-job", &st) < 0;
}

static void test_fill_and_claim(void)
{
	int fd, ready;
	struct statfs sfs;

	is_int(nspool_ready(base), 0, "no pool before the first fill");
	is_int(nspool_fill(base, 3, fresh()), 3, "fill makes 3");
	is_int(nspool_ready(base), 3, "3 ready");
	fd = nspool_claim(base);
	ok(fd >= 0 && fstatfs(fd, &sfs) == 0 && sfs.f_type == NSFS_MAGIC,
	   "a claim gives a namespace");
	is_int(nspool_ready(base), 2, "2 ready after the claim");
	if (fd >= 0)
		close(fd);
	is_int(nspool_fill(base, 3, fresh()), 3, "a fill tops it up to 3");
	ready = mounts_below(base);
	/* each entry: its private bind and its pin */
	is_int(ready, 6, "the claimed entry is swept: 3 entries' mounts");
	is_int(nspool_fill(base, 1, fresh()), 3,
	       "a smaller fill leaves what is ready");
}

static void test_job_from_pool(void)
{
	is_int(nspool_fill(base, 1, fresh()) >= 1, 1, "a namespace is ready");
	int before = nspool_ready(base);

	if (!ok(make_job(201, true) == 0, "a job is created from the pool"))
		diag("  %s", rep.msg);
	is_int(nspool_ready(base), before - 1, "it took one of the pool");
	ok(tmp_is_private(201), "its /tmp is its own and BasePath is hidden");
	ok(mntns_delete(base, 201) == 0, "delete");
	ok(make_job(202, false) == 0, "without use_pool: a fresh copy");
	is_int(nspool_ready(base), before - 1, "the pool is left alone");
	ok(mntns_delete(base, 202) == 0, "delete");
}

/* Create dir/file; true when it could. */
static bool touch_in(const char *dir)
{
	char path[700];
	int fd;

	snprintf(path, sizeof(path), "%s/file", dir);
	if ((fd = open(path, O_CREAT | O_WRONLY, 0600)) < 0)
		return false;
	close(fd);
	return true;
}

/*
 * The point of a slave copy: what the node mounts or unmounts after the
 * pool's copy reaches the job as it would reach a fresh copy.
 */
static void test_propagation(void)
{
	char gone[600], later[600], file[700];

	snprintf(gone, sizeof(gone), "%s/gone", outside);
	snprintf(later, sizeof(later), "%s/later", outside);
	if (!ok(mkdir(gone, 0700) == 0 && mkdir(later, 0700) == 0 &&
		mount("t", gone, "tmpfs", 0, NULL) == 0 && touch_in(gone),
		"a tmpfs with a file before the fill"))
		return;
	nspool_clear(base, fresh());
	is_int(nspool_fill(base, 1, fresh()), 1, "the pool copies the node");
	ok(umount2(gone, 0) == 0, "the node unmounts it after the copy");
	ok(mount("t", later, "tmpfs", 0, NULL) == 0 && touch_in(later),
	   "and mounts another, with a file");
	if (ok(make_job(203, true) == 0 && nspool_ready(base) == 0,
	       "a job takes that copy")) {
		snprintf(file, sizeof(file), "%s/file", later);
		is_int(exists_in_job(203, file, true), 0,
		       "the job sees the mount made after the copy");
		snprintf(file, sizeof(file), "%s/file", gone);
		is_int(exists_in_job(203, file, false), 0,
		       "and not the one unmounted after it");
		ok(mntns_delete(base, 203) == 0, "delete");
	}
	umount2(later, MNT_DETACH);
	umount2(gone, MNT_DETACH);
	rmdir(later);
	rmdir(gone);
}

/* Four claimers, one namespace: exactly one wins. */
static void test_claimed_once(void)
{
	pid_t pids[4];
	int wins = 0, status;

	nspool_clear(base, fresh());
	if (!ok(nspool_fill(base, 1, fresh()) == 1, "one namespace ready"))
		return;
	for (int i = 0; i < 4; i++) {
		if ((pids[i] = fork()) == 0) {
			int fd = nspool_claim(base);

			_exit(fd >= 0 ? 0 : errno == ENOENT ? 1 : 2);
		}
	}
	for (int i = 0; i < 4; i++)
		if (pids[i] > 0 && waitpid(pids[i], &status, 0) == pids[i] &&
		    WIFEXITED(status) && WEXITSTATUS(status) == 0)
			wins++;
	is_int(wins, 1, "exactly one of four claimers got it");
	is_int(nspool_claim(base), -1, "none is left");
}

/*
 * A claimer killed before it pins (slurmstepd killed between claim and
 * pin): the copy it held dies with it, and the next fill sweeps its entry.
 */
static void test_claimer_killed(void)
{
	struct nsmembers_ns ns = { 0 };
	int p[2], status;
	pid_t pid;

	nspool_clear(base, fresh());
	if (!ok(nspool_fill(base, 1, fresh()) == 1 && pipe(p) == 0,
		"one namespace ready"))
		return;
	if ((pid = fork()) == 0) {
		int fd = nspool_claim(base);

		if (fd < 0 || nsmembers_ident(fd, &ns) < 0)
			_exit(1);
		(void)!write(p[1], &ns, sizeof(ns));
		pause();
		_exit(0);
	}
	close(p[1]);
	ok(read(p[0], &ns, sizeof(ns)) == sizeof(ns), "a claimer holds it");
	close(p[0]);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	if (ns.id)
		ok(ns_gone(&ns) == 1, "killed, its namespace is gone");
	else
		tap_skip("no NS_GET_MNTNS_ID/listmount by id (Linux < 6.11)");
	is_int(nspool_fill(base, 1, fresh()), 1, "the next fill makes another");
	is_int(mounts_below(base), 2, "and only its private bind and pin are "
	       "mounted: the claimed entry is swept");
}

/* What an earlier boot left: a marker and a directory, no pin. */
static void test_stale(void)
{
	char path[600];
	int fd;

	nspool_clear(base, fresh());
	is_int(nspool_fill(base, 0, fresh()), 0, "no pool wanted");
	snprintf(path, sizeof(path), "%s/" JOBDIR_POOL, base);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/" JOBDIR_POOL "/7", base);
	if (!ok(mkdir(path, 0700) == 0, "a stale entry planted"))
		return;
	snprintf(path, sizeof(path), "%s/" JOBDIR_POOL "/7.ready", base);
	if ((fd = open(path, O_CREAT | O_WRONLY, 0400)) >= 0)
		close(fd);
	is_int(nspool_ready(base), 0, "a marker without a pin is not ready");
	is_int(nspool_claim(base), -1, "nor claimed");
	is_int(nspool_fill(base, 1, fresh()), 1, "a fill makes a real one");
	snprintf(path, sizeof(path), "%s/" JOBDIR_POOL "/7", base);
	ok(access(path, F_OK) < 0, "and sweeps the stale one");
}

static bool wait_ready(int want)
{
	for (int i = 0; i < TAP_WAIT_MS / 10; i++) {
		if (nspool_ready(base) == want)
			return true;
		usleep(10000);
	}
	return false;
}

/*
 * A clear wakes the keeper (its unlinks), which waits for the lock to
 * refill: its first new entry must not land between the clear's sweep and
 * its removal of the directory, or the clear fails (seen in CI).
 */
static void clear_under_keeper(void)
{
	int failed = 0, rounds = 0;

	for (; rounds < 40 && !failed; rounds++) {
		if (nspool_clear(base, fresh()) < 0) {
			failed = 1;
			diag("round %d: %s", rounds, rep.msg);
		}
		/* at times wait for the refill, at times clear at once */
		if (rounds % 2)
			wait_ready(2);
	}
	ok(!failed, "%d clears of a pool its keeper refills all succeed",
	   rounds);
	ok(wait_ready(2), "and it refills after them");
}

static void test_keeper(void)
{
	struct nspool_keeper *k;
	int fd;
	char pool[600];

	nspool_clear(base, fresh());
	k = nspool_keeper_start(base, 2, NULL, NULL);
	if (!ok(k != NULL, "the keeper starts"))
		return;
	ok(wait_ready(2), "it fills the pool to 2");
	fd = nspool_claim(base);
	ok(fd >= 0, "a claim");
	if (fd >= 0)
		close(fd);
	ok(wait_ready(2), "it refills after the claim");
	/* devns cleanup (restore) clears a live pool */
	ok(nspool_clear(base, fresh()) == 0 && wait_ready(2),
	   "it refills a pool cleared under it");
	fd = nspool_claim(base);
	if (fd >= 0)
		close(fd);
	ok(fd >= 0 && wait_ready(2), "and still wakes up for a claim");
	clear_under_keeper();
	nspool_keeper_stop(k);
	snprintf(pool, sizeof(pool), "%s/" JOBDIR_POOL, base);
	ok(access(pool, F_OK) < 0, "stopping it removes the pool");
	is_int(mounts_below(base), 0, "and every mount of it");
}

/* The inodes of the ready entries' namespaces, their fds kept in fds. */
static int ready_inodes(ino_t *inos, int *fds, int max)
{
	char pin[700];
	struct stat st;
	int n = 0;

	for (int i = 1; i < 64 && n < max; i++) {
		snprintf(pin, sizeof(pin), "%s/" JOBDIR_POOL "/%d/"
			 JOBDIR_NS_PIN, base, i);
		if ((fds[n] = open(pin, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		if (fstat(fds[n], &st) == 0)
			inos[n++] = st.st_ino;
		else
			close(fds[n]);
	}
	return n;
}

/*
 * Where the node's mounts are private, nothing propagates into a copy:
 * the keeper must copy again when the node's mounts change.  In a child
 * whose namespace is private, a mount made after the fill must make the
 * keeper replace both ready copies (their namespaces change, with no
 * claim), and a copy taken then sees the mount.  A second mount right
 * after withdraws the copies at once but they are made again only
 * NSPOOL_REBUILD_MS after the first rebuild: a user who makes mounts
 * come and go (autofs) cannot keep the keeper copying.
 */
static int keeper_refresh_child(void)
{
	char late[600], late2[600], file[700];
	struct nspool_keeper *k;
	ino_t old[2], now[2];
	int oldfd[2], nowfd[2], fd, n, replaced = 0, status;
	pid_t pid;

	snprintf(late, sizeof(late), "%s/late", outside);
	snprintf(file, sizeof(file), "%s/file", late);
	if (unshare(CLONE_NEWNS) < 0 ||
	    mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return 10;
	nspool_clear(base, NULL);
	if (!(k = nspool_keeper_start(base, 2, NULL, NULL)) || !wait_ready(2))
		return 11;
	if (ready_inodes(old, oldfd, 2) != 2)
		return 12;
	if (mkdir(late, 0700) < 0 || mount("t", late, "tmpfs", 0, NULL) < 0 ||
	    !touch_in(late))
		return 13;
	for (int i = 0; i < TAP_WAIT_MS / 10 && !replaced; i++) {
		usleep(10000);
		if (nspool_ready(base) != 2)
			continue;
		n = ready_inodes(now, nowfd, 2);
		replaced = n == 2;
		for (int j = 0; j < n; j++) {
			replaced &= now[j] != old[0] && now[j] != old[1];
			close(nowfd[j]);
		}
	}
	if (!replaced)
		return 14;
	if ((fd = nspool_claim(base)) < 0)
		return 15;
	if ((pid = fork()) == 0)
		_exit(setns(fd, CLONE_NEWNS) == 0 && access(file, F_OK) == 0 ?
		      0 : 1);
	if (waitpid(pid, &status, 0) != pid || status != 0)
		return 16;
	close(fd);
	if (!wait_ready(2))
		return 17;
	/* Mounts that come and go (autofs): no rebuild per change. */
	snprintf(late2, sizeof(late2), "%s/late2", outside);
	if (mkdir(late2, 0700) < 0 || mount("t", late2, "tmpfs", 0, NULL) < 0)
		return 13;
	if (!wait_ready(0))
		return 18;	/* the stale copies stay claimable */
	for (int i = 0; i < 100; i++, usleep(10000))
		if (nspool_ready(base) != 0)
			return 19;	/* rebuilt at once again */
	for (int i = 0; i < (NSPOOL_REBUILD_MS + TAP_WAIT_MS) / 10 &&
	     nspool_ready(base) != 2; i++)
		usleep(10000);
	if (nspool_ready(base) != 2)
		return 20;	/* never rebuilt */
	umount2(late2, MNT_DETACH);
	rmdir(late2);
	nspool_keeper_stop(k);
	close(oldfd[0]);
	close(oldfd[1]);
	umount2(late, MNT_DETACH);
	rmdir(late);
	return 0;
}

static void test_keeper_refresh(void)
{
	pid_t pid = fork();
	int status = -1;

	if (pid == 0)
		_exit(keeper_refresh_child());
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		status = -1;
	if (!ok(status == 0, "private node mounts: the keeper copies again "
		"after a mount, and the new copy sees it; after a second "
		"mount it withdraws the copies and rebuilds only %d ms after "
		"the first", NSPOOL_REBUILD_MS))
		diag("  child's wait status %#x (exit 10: namespace, 11: "
		     "keeper, 12: inodes, 13: mount, 14: not replaced, 15: "
		     "claim, 16: not seen, 17: not refilled, 18: not "
		     "withdrawn, 19: rebuilt at once, 20: never rebuilt)",
		     status);
}

static void test_clear(void)
{
	int fd;

	is_int(nspool_fill(base, 2, fresh()), 2, "two ready");
	fd = nspool_claim(base);
	ok(nspool_clear(base, fresh()) == 0, "clear");
	is_int(mounts_below(base), 0, "no mount is left below BasePath");
	is_int(nspool_clear(base, fresh()), 0, "clear again: nothing to do");
	if (fd >= 0)
		close(fd);
}

static const char *setup(void)
{
	if (!tap_root())
		return "namespace pool tests need root";
	if (syscall(SYS_open_tree, -1, "", 0) < 0 && errno == ENOSYS)
		return "no open_tree(2) here (valgrind or a kernel before 5.12)";
	if (unshare(CLONE_NEWNS) < 0 ||
	    mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("none", "/", NULL, MS_REC | MS_SHARED, NULL) < 0)
		return "no mount namespace of our own";
	if (!mkdtemp(base) || !mkdtemp(outside))
		return "cannot make a BasePath";
	return NULL;
}

int main(void)
{
	const char *why = setup();

	if (why) {
		tap_skip("%s", why);
		return tap_done();
	}
	test_fill_and_claim();
	test_job_from_pool();
	test_propagation();
	test_claimed_once();
	test_claimer_killed();
	test_stale();
	test_keeper();
	test_keeper_refresh();
	test_clear();
	is_int(mounts_below(base), 0, "no mount below BasePath at the end");
	ok(rmdir(base) == 0, "BasePath is empty at the end");
	rmdir(outside);
	return tap_done();
}
