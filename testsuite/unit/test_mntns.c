/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_mntns.c - a job namespace made, joined and removed for real.
 *
 * Needs root and mount namespaces; skips cleanly without them.  Checks what
 * a job relies on: its /tmp and /dev/shm are private and shared by all its
 * processes, the namespace lives without a process, ShmSize/TmpSize apply,
 * per-directory settings give the mount options asked for, Source paths
 * are expanded, made safely and removed only when per job, delete
 * leaves no mount and no directory, also after failures, and nothing of
 * an ended job stays reachable through an fd of its directories that
 * another process holds (its tmpfs mounts emptied and made read-only),
 * also while that process swaps links in during the teardown, nor through
 * an fd of one of its files (emptied before they are unlinked).
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sched.h>
#include <poll.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "conf/jobdir.h"
#include "conf/nsconf.h"
#include "ns/mntns.h"
#include "ns/nsmembers.h"
#include "util/mountinfo.h"
#include "tap.h"
#include "testrep.h"
#include "testspec.h"

static char base[] = "/var/tmp/test-mntns.XXXXXX";

/* Run fn in a child that joined job_id's namespace; return its exit code. */
static int in_job(uint32_t job_id, int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		if (mntns_join(base, job_id) < 0)
			_exit(100);
		_exit(fn(arg));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int write_file(void *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return 1;
	fputs("x", f);
	return fclose(f) ? 1 : 0;
}

static int file_exists(void *path)
{
	return access(path, F_OK) == 0 ? 0 : 1;
}

static int shm_size_kib(void *unused)
{
	struct statvfs sv;

	(void)unused;
	if (statvfs("/dev/shm", &sv) < 0)
		return 255;
	return (int)((sv.f_blocks * sv.f_frsize) / 1024 / 64); /* in 64 KiB */
}

static int base_hidden(void *unused)
{
	char path[128];

	(void)unused;
	snprintf(path, sizeof(path), "%s/41", base);
	return access(path, F_OK) == 0 ? 1 : 0;
}

/* 0 when the directory arg is empty, else 1 (2: unreadable). */
static int dir_is_empty(void *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int rc = 0;

	if (!d)
		return 2;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			rc = 1;
	closedir(d);
	return rc;
}

/* ns/nsbus.h: the job (uid 0 here) sees its own runtime dir alone. */
static int run_user_is_own(void *unused)
{
	struct stat st;

	(void)unused;
	if (lstat("/run/user/0", &st) < 0 || !S_ISDIR(st.st_mode) ||
	    (st.st_mode & 07777) != 0700 || dir_is_empty("/run/user/0"))
		return 1;
	return rmdir("/run/user/0") == 0 && !dir_is_empty("/run/user") ? 0 : 1;
}

static int count_mounts_of(const char *needle)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[4096];
	int n = 0;

	while (f && fgets(line, sizeof(line), f))
		n += strstr(line, needle) != NULL;
	if (f)
		fclose(f);
	return n;
}

static void test_lifecycle(void)
{
	const char *dirs[] = { "/tmp", "/dev/shm", NULL };
	struct mntns_spec spec = { .base_path = base, .job_id = 41 };
	char jobdir[256];
	struct stat st;

	snprintf(jobdir, sizeof(jobdir), "%s/41", base);
	ok(testspec_create(&spec, dirs, 1 << 20, 0, fresh()) == 0, "create: %s",
	   rep.msg[0] ? rep.msg : "ok");
	ok(mntns_exists(base, 41), "the namespace is pinned");
	ok(stat(jobdir, &st) == 0 && (st.st_mode & 07777) == 0700 &&
	   st.st_uid == 0, "job directory is root-owned 0700");
	is_int(in_job(41, write_file, "/tmp/from-step-1"), 0,
	       "a job process writes to its /tmp");
	is_int(in_job(41, file_exists, "/tmp/from-step-1"), 0,
	       "another process of the same job sees the file");
	is_int(file_exists("/tmp/from-step-1"), 1,
	       "the host's /tmp does not have it");
	is_int(in_job(41, write_file, "/dev/shm/seg"), 0,
	       "a job process writes to its /dev/shm");
	is_int(file_exists("/dev/shm/seg"), 1, "the host's /dev/shm does not");
	is_int(in_job(41, shm_size_kib, NULL), 16,
	       "ShmSize 1 MiB gives a 1 MiB /dev/shm");
	is_int(in_job(41, base_hidden, NULL), 0,
	       "BasePath is hidden inside the namespace");
	is_int(in_job(41, dir_is_empty, "/run/dbus"), 0,
	       "no system bus inside (/run/dbus is empty)");
	is_int(in_job(41, run_user_is_own, NULL), 0,
	       "/run/user holds the job user's empty runtime dir alone");

	ok(mntns_delete(base, 41) == 0, "delete");
	ok(!mntns_exists(base, 41), "the pin is gone");
	ok(stat(jobdir, &st) < 0 && errno == ENOENT, "the job directory is gone");
	is_int(count_mounts_of(jobdir), 0, "no mount of the job is left");
	ok(mntns_delete(base, 41) == 0, "a second delete is harmless");
}

static void test_two_jobs(void)
{
	const char *dirs[] = { "/tmp", "/dev/shm", "/var/tmp", NULL };
	struct mntns_spec a = { .base_path = base, .job_id = 51 };
	struct mntns_spec b = { .base_path = base, .job_id = 52 };

	ok(testspec_create(&a, dirs, 0, 0, fresh()) == 0 &&
	   testspec_create(&b, dirs, 0, 0, fresh()) == 0, "two jobs created");
	is_int(in_job(51, write_file, "/tmp/a"), 0, "job 51 writes /tmp/a");
	is_int(in_job(52, file_exists, "/tmp/a"), 1, "job 52 does not see it");
	is_int(in_job(51, write_file, "/var/tmp/a"), 0,
	       "an extra Dirs entry (/var/tmp) is private too");
	is_int(in_job(52, file_exists, "/var/tmp/a"), 1,
	       "job 52 does not see job 51's /var/tmp file");
	ok(mntns_delete(base, 51) == 0 && mntns_delete(base, 52) == 0,
	   "both deleted");
}

static void test_tmp_size(void)
{
	const char *dirs[] = { "/tmp", NULL };
	struct mntns_spec spec = { .base_path = base, .job_id = 61 };
	char jobdir[256];
	struct stat st;

	snprintf(jobdir, sizeof(jobdir), "%s/61/tmp", base);
	ok(testspec_create(&spec, dirs, 0, 2 << 20, fresh()) == 0,
	   "TmpSize create");
	ok(stat(jobdir, &st) < 0, "TmpSize: no disk-backed /tmp directory");
	is_int(in_job(61, write_file, "/tmp/t"), 0, "TmpSize: /tmp is writable");
	mntns_delete(base, 61);
}

static void test_failure_leaves_nothing(void)
{
	const char *bad[] = { "/no/such/dir/anywhere", NULL };
	struct mntns_spec spec = { .base_path = base, .job_id = 71 };
	char jobdir[256];
	struct stat st;

	snprintf(jobdir, sizeof(jobdir), "%s/71", base);
	ok(testspec_create(&spec, bad, 0, 0, fresh()) < 0,
	   "a private dir that does not exist fails the namespace");
	like(rep.msg, "/no/such/dir/anywhere", "the error names the missing Dirs entry");
	ok(stat(jobdir, &st) < 0 && errno == ENOENT,
	   "the failed job leaves no directory");
	is_int(count_mounts_of(jobdir), 0, "and no mount");
	spec.base_path = "/no/such/base";
	ok(testspec_create(&spec, bad, 0, 0, fresh()) < 0,
	   "a missing BasePath fails");
	like(rep.msg, "BasePath", "the error names BasePath");
}

/*
 * The attack of the security report: a user plants a link where a Dirs
 * entry should be (in a world-writable parent such as /var/tmp) pointing at
 * a directory root cares about; the next job must not mount over it.
 */
static void test_link_attack(void)
{
	char parent[] = "/var/tmp/test-mntns-link.XXXXXX";
	char victim[] = "/var/tmp/test-mntns-victim.XXXXXX";
	char link[256], mid[256], deep[256], file[256];
	const char *dirs[] = { "/tmp", link, NULL };
	struct mntns_spec spec = { .base_path = base, .job_id = 81 };
	char jobdir[256];
	struct stat st;

	if (!mkdtemp(parent) || !mkdtemp(victim)) {
		ok(0, "temporary directories for the link attack");
		return;
	}
	chmod(parent, 01777);
	snprintf(link, sizeof(link), "%s/job", parent);
	snprintf(jobdir, sizeof(jobdir), "%s/81", base);
	ok(symlink(victim, link) == 0 && lstat(link, &st) == 0 &&
	   S_ISLNK(st.st_mode), "precondition: the link %s is planted", link);
	ok(testspec_create(&spec, dirs, 0, 0, fresh()) < 0,
	   "a Dirs entry that is a symlink fails the job");
	like(rep.msg, link, "the error names the Dirs entry");
	like(rep.msg, "symbolic link", "and says it is a link");
	is_int(count_mounts_of(victim), 0, "nothing is mounted on the target");
	ok(stat(jobdir, &st) < 0 && errno == ENOENT,
	   "the refused job leaves no directory");

	/* A link in the middle of the path is refused as well. */
	unlink(link);
	snprintf(mid, sizeof(mid), "%s/mid", parent);
	snprintf(deep, sizeof(deep), "%s/mid/sub", parent);
	mkdir(strcat(strcpy(file, victim), "/sub"), 0755);
	ok(symlink(victim, mid) == 0, "precondition: a link mid-path");
	dirs[1] = deep;
	ok(testspec_create(&spec, dirs, 0, 0, fresh()) < 0,
	   "a link in a Dirs entry's path fails the job");
	is_int(count_mounts_of(victim), 0, "nothing is mounted through it");
	unlink(mid);

	/* Not a directory. */
	snprintf(file, sizeof(file), "%s/file", parent);
	close(open(file, O_CREAT | O_WRONLY, 0644));
	dirs[1] = file;
	ok(testspec_create(&spec, dirs, 0, 0, fresh()) < 0 &&
	   strstr(rep.msg, "Not a directory"),
	   "a Dirs entry that is a file fails the job: %s", rep.msg);
	unlink(file);

	/* A real directory there works and is private. */
	ok(mkdir(link, 0755) == 0, "precondition: a real directory");
	dirs[1] = link;
	ok(testspec_create(&spec, dirs, 0, 0, fresh()) == 0,
	   "then the job runs: %s",
	   rep.msg[0] ? rep.msg : "ok");
	ok(mntns_delete(base, 81) == 0, "and is removed");
	rmdir(link);
	rmdir(strcat(strcpy(file, victim), "/sub"));
	rmdir(parent);
	rmdir(victim);
}

/* BasePath itself reached through a link is refused. */
static void test_base_link(void)
{
	char link[] = "/var/tmp/test-mntns-baselink.XXXXXX";
	const char *dirs[] = { "/tmp", NULL };
	struct mntns_spec spec = { .base_path = link, .job_id = 82 };

	if (!mkdtemp(link) || rmdir(link) < 0 || symlink(base, link) < 0) {
		ok(0, "precondition: a link to BasePath");
		return;
	}
	ok(testspec_create(&spec, dirs, 0, 0, fresh()) < 0,
	   "a BasePath that is a symlink is refused");
	unlink(link);
}

static int writer(void *unused)
{
	char path[64];

	(void)unused;
	for (unsigned long i = 0; ; i++) {
		snprintf(path, sizeof(path), "/tmp/f%lu", i % 4096);
		close(open(path, O_CREAT | O_WRONLY, 0644));
	}
	return 0;
}

/* Teardown with a job process still writing into /tmp. */
static void test_teardown_with_writer(void)
{
	const char *dirs[] = { "/tmp", NULL };
	struct mntns_spec spec = { .base_path = base, .job_id = 83 };
	char jobdir[256], probe[300];
	int status, alive = 0;
	struct stat st;
	pid_t pid;

	snprintf(jobdir, sizeof(jobdir), "%s/83", base);
	snprintf(probe, sizeof(probe), "%s/tmp/f1", jobdir);
	ok(testspec_create(&spec, dirs, 0, 0, fresh()) == 0, "create: %s",
	   rep.msg[0] ? rep.msg : "ok");
	pid = fork();
	if (pid == 0) {
		if (mntns_join(base, 83) < 0)
			_exit(100);
		_exit(writer(NULL));
	}
	for (int i = 0; i < TAP_WAIT_MS / 10 && access(probe, F_OK) < 0; i++)
		usleep(10000);
	ok(access(probe, F_OK) == 0, "precondition: the writer fills /tmp");
	ok(mntns_delete(base, 83) == 0, "delete succeeds while it writes");
	ok(stat(jobdir, &st) < 0 && errno == ENOENT, "the directory is gone");
	/*
	 * Its namespace is gone when delete returns; the rest of its exit
	 * (becoming a zombie) may take a moment more.
	 */
	for (int i = 0; i < TAP_WAIT_MS / 10 &&
			waitpid(pid, &status, WNOHANG) == 0; i++)
		usleep(10000);
	if (kill(pid, 0) == 0 && waitpid(pid, &status, WNOHANG) == 0) {
		alive = 1;
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	is_int(alive, 0, "the writer was killed");
	ok(!alive && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	   "by SIGKILL");
	ok(testspec_create(&spec, dirs, 0, 0, fresh()) == 0,
	   "the same job id can be created again: %s", rep.msg[0] ? rep.msg : "ok");
	mntns_delete(base, 83);
}

/*
 * A bystander: unshares mount namespaces until it sits in one numbered
 * ino (the kernel gives a freed namespace's number to the next one at
 * once), then stays there; exits 0 when time runs out first.  Writes to
 * fd the time (CLOCK_MONOTONIC) at which it got the number.
 */
static void bystander(ino_t ino, int fd, int ms)
{
	struct timespec at;
	struct stat st;

	for (int waited = 0; waited < ms * 10; waited++) {
		if (unshare(CLONE_NEWNS) < 0)
			_exit(2);
		if (stat("/proc/self/ns/mnt", &st) == 0 && st.st_ino == ino) {
			clock_gettime(CLOCK_MONOTONIC, &at);
			(void)!write(fd, &at, sizeof(at));
			pause();
		}
		usleep(100);
	}
	_exit(0);
}

/* Refills dir with files for ms milliseconds, from the host's namespace. */
static void refiller(const char *dir, int ms)
{
	char path[512];

	for (int i = 0; i < ms; i++) {
		snprintf(path, sizeof(path), "%s/r%d", dir, i);
		close(open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
		usleep(1000);
	}
	_exit(0);
}

/*
 * One round of the test below: creates job 84, starts a bystander and a
 * refiller, deletes the job.  *in_time: the bystander took the job's
 * number before the delete returned; *status: the bystander's wait status
 * once sent SIGTERM.  Returns the delete's result.
 */
static int teardown_round(bool *in_time, int *status)
{
	const char *dirs[] = { "/tmp", NULL };
	struct mntns_spec spec = { .base_path = base, .job_id = 84 };
	struct timespec took, ended;
	char pin[256], tmp[256];
	int rc, fill_status, p[2];
	pid_t by, fill;
	struct stat st;

	*in_time = false;
	*status = 0;
	snprintf(pin, sizeof(pin), "%s/84/.ns", base);
	snprintf(tmp, sizeof(tmp), "%s/84/tmp", base);
	if (testspec_create(&spec, dirs, 0, 0, fresh()) < 0 ||
	    stat(pin, &st) < 0) {
		diag("create: %s", rep.msg[0] ? rep.msg : strerror(errno));
		return -1;
	}
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	if ((by = fork()) == 0)
		bystander(st.st_ino, p[1], TAP_WAIT_MS);
	if ((fill = fork()) == 0)
		refiller(tmp, 100);
	close(p[1]);
	usleep(20000);
	rc = mntns_delete(base, 84);
	clock_gettime(CLOCK_MONOTONIC, &ended);
	waitpid(fill, &fill_status, 0);
	if (read(p[0], &took, sizeof(took)) == (ssize_t)sizeof(took))
		*in_time = took.tv_sec < ended.tv_sec ||
			   (took.tv_sec == ended.tv_sec &&
			    took.tv_nsec < ended.tv_nsec);
	kill(by, SIGTERM);
	waitpid(by, status, 0);
	close(p[0]);
	return rc;
}

/*
 * Teardown retries its removal while something refills the job's
 * directory, and kills what is left in the job's namespace before each
 * retry.  It must kill by the namespace itself, not by a number noted
 * before the unpin: once the namespace is freed the kernel hands its
 * number to the next one, here a bystander's (in life, another job's
 * namespace being set up), which must survive.  The bystander's survival
 * means something only when it sat in the job's number while the teardown
 * still ran (killed by number, it would have died); when it got the number
 * only after the delete returned (a teardown without retries), the round
 * is run again, up to 10 times.
 */
static void test_teardown_kills_only_its_namespace(void)
{
	bool in_time = false;
	int rounds, rc = 0, status = 0;

	for (rounds = 1; rounds <= 10 && rc == 0 && !in_time; rounds++)
		rc = teardown_round(&in_time, &status);
	ok(rc == 0, "delete succeeds while the host refills the job's /tmp");
	/* Timing, not devns: under emulation the teardown can end first in
	 * every round.  Then the check would prove nothing: a skip. */
	if (!in_time) {
		tap_skip("a bystander in a namespace made after the unpin: in "
			 "10 rounds none took the job's namespace number while "
			 "the teardown ran, so its survival would prove nothing");
		return;
	}
	ok(in_time, "precondition: a bystander took the job's namespace "
	   "number while the teardown ran (round %d)", rounds - 1);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM,
	   "a bystander in a namespace made after the unpin is not killed "
	   "by the teardown (%s)", WIFSIGNALED(status) ?
	   strsignal(WTERMSIG(status)) : "exited");
}

/*
 * slurmd may run in a mount namespace of its own (systemd's PrivateTmp,
 * propagation slave).  Create and delete from such a namespace, with the
 * creator on every CPU in turn: the pin must never fail.
 */
static void test_non_initial_namespace(void)
{
	const char *dirs[] = { "/tmp", "/dev/shm", NULL };
	int status, ncpu = 0;
	cpu_set_t set;
	pid_t pid;

	sched_getaffinity(0, sizeof(set), &set);
	ncpu = CPU_COUNT(&set);
	pid = fork();
	if (pid == 0) {
		int failures = 0;

		if (unshare(CLONE_NEWNS) < 0 ||
		    mount("none", "/", "none", MS_REC | MS_SLAVE, NULL) < 0)
			_exit(100);
		for (int round = 0; round < 8; round++)
			for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
				struct mntns_spec spec = { .base_path = base,
					.job_id = 90 };
				cpu_set_t one;

				if (!CPU_ISSET(cpu, &set))
					continue;
				CPU_ZERO(&one);
				CPU_SET(cpu, &one);
				sched_setaffinity(0, sizeof(one), &one);
				if (testspec_create(&spec, dirs, 0, 0,
						    NULL) < 0)
					failures++;
				else if (mntns_delete(base, 90) < 0)
					failures++;
			}
		_exit(failures > 99 ? 99 : failures);
	}
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) != 100,
	   "precondition: a slave mount namespace like PrivateTmp's");
	is_int(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0,
	       "no create fails in a non-initial namespace (%d CPUs, 8 rounds)",
	       ncpu);
}

/* The id of the caller's mount namespace after an unshare, 0 on failure. */
static uint64_t unshare_id(void)
{
	int fd;
	uint64_t id;

	if (unshare(CLONE_NEWNS) < 0 ||
	    (fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	id = nsmembers_id(fd);
	close(fd);
	return id;
}

/* The id a new mount namespace gets on the caller's CPU (a child's). */
static uint64_t probe_id(void)
{
	uint64_t id = 0;
	int fds[2];
	pid_t pid;

	if (pipe(fds) < 0 || (pid = fork()) < 0)
		return 0;
	if (pid == 0) {
		id = unshare_id();
		_exit(write(fds[1], &id, sizeof(id)) == sizeof(id) ? 0 : 1);
	}
	close(fds[1]);
	if (read(fds[0], &id, sizeof(id)) != sizeof(id))
		id = 0;
	close(fds[0]);
	waitpid(pid, NULL, 0);
	return id;
}

static void pin_cpu(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	sched_setaffinity(0, sizeof(one), &one);
}

/*
 * Linux 6.18 gives namespace ids from per-CPU batches of 4096.  slurmd's
 * own namespace made from the newest batch (on CPU a), the job's child
 * then starts on CPU b, whose batch is older: the child's first copy is
 * older than slurmd's namespace and cannot be pinned.  The create must
 * still succeed, with a namespace newer than slurmd's (the child takes a
 * new batch; before, it copied the namespace again up to 4095 times).
 * Exit codes of the forked creator: 100 precondition not met.
 */
static void test_older_batch(void)
{
	const char *dirs[] = { "/tmp", "/dev/shm", NULL };
	int status, a = -1, b = -1;
	cpu_set_t set;
	pid_t pid;

	sched_getaffinity(0, sizeof(set), &set);
	for (int cpu = 0; cpu < CPU_SETSIZE && b < 0; cpu++)
		if (CPU_ISSET(cpu, &set))
			*(a < 0 ? &a : &b) = cpu;
	if (b < 0) {
		tap_skip("older namespace-id batch: needs two CPUs");
		return;
	}
	pid = fork();
	if (pid == 0) {
		struct mntns_spec spec = { .base_path = base, .job_id = 91 };
		uint64_t parent, first, job = 0;
		int fd;

		pin_cpu(a);
		first = unshare_id();
		/* The rest of a's batch, so that the next id is a new one's. */
		for (uint64_t n = (4096 - first % 4096) % 4096; n > 0; n--)
			if (unshare(CLONE_NEWCGROUP) < 0)
				_exit(100);
		parent = unshare_id();
		if (!first || !parent ||
		    mount("none", "/", "none", MS_REC | MS_SLAVE, NULL) < 0)
			_exit(100);
		pin_cpu(b);
		if (probe_id() >= parent)
			_exit(100);	/* b's batch is not the older one */
		if (testspec_create(&spec, dirs, 0, 0, NULL) < 0)
			_exit(1);
		if ((fd = mntns_open(base, 91)) >= 0) {
			job = nsmembers_id(fd);
			close(fd);
		}
		if (mntns_delete(base, 91) < 0)
			_exit(2);
		_exit(job > parent ? 0 : 3);
	}
	waitpid(pid, &status, 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 100) {
		tap_skip("older namespace-id batch: ids here are not given "
			 "in per-CPU batches (a kernel before 6.18)");
		return;
	}
	is_int(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0,
	       "a child on a CPU with an older id batch than slurmd's "
	       "namespace: the create succeeds, pinned, with a newer id");
}

/* ---- per-directory settings (Dir= lines) -------------------------------- */

/* What a job process looks up: a mount point, an option it must carry. */
struct want_opt {
	const char *point;
	const char *options;	/* comma list, each must be in the mount's */
};

/*
 * 0 when the mount at w->point in the caller's namespace carries every
 * option of w->options (read back from /proc/self/mountinfo; the last
 * mount at a point is the visible one).
 */
static int has_options(void *arg)
{
	const struct want_opt *w = arg;
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[4096], found[4096] = "", want[256];
	struct mountinfo_entry e;

	if (!f)
		return 2;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (mountinfo_parse(line, &e) == 0 && !strcmp(e.point, w->point))
			snprintf(found, sizeof(found), ",%s,", e.options);
	}
	fclose(f);
	if (!found[0])
		return 3;
	snprintf(want, sizeof(want), "%s", w->options);
	for (char *o = strtok(want, ","); o; o = strtok(NULL, ",")) {
		char needle[64];

		snprintf(needle, sizeof(needle), ",%s,", o);
		if (!strstr(found, needle))
			return 1;
	}
	return 0;
}

/* 0 when a copy of /bin/true in dir cannot be run (EACCES: noexec). */
static int exec_refused(void *dir)
{
	char path[256], buf[65536];
	int in, out;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/true", (char *)dir);
	in = open("/bin/true", O_RDONLY);
	out = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0755);
	if (in < 0 || out < 0)
		return 2;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			return 2;
	close(in);
	close(out);
	execl(path, "true", (char *)NULL);
	return errno == EACCES ? 0 : 1;
}

/* 0 when writing a file in dir fails with EROFS. */
static int write_refused(void *dir)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/x", (char *)dir);
	return open(path, O_CREAT | O_WRONLY, 0644) < 0 && errno == EROFS ? 0 : 1;
}

/* A struct mntns_dir with its Source template expanded into buf. */
static struct mntns_dir source_dir(const char *point, const char *tmpl,
				   uint32_t job, char *buf, unsigned options)
{
	struct mntns_dir d = { .path = point, .options = options };

	if (nsconf_source_expand(tmpl, job, 0, "alice", "node1", buf, 512) < 0)
		buf[0] = '\0';
	d.source = buf;
	nsconf_source_depths(tmpl, &d.fixed_depth, &d.job_depth);
	return d;
}

static bool is_dir_of(const char *path, uid_t uid, mode_t mode)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
	       st.st_uid == uid && (st.st_mode & 07777) == mode;
}

static void test_dir_settings(void)
{
	char root[] = "/var/tmp/test-mntns-src.XXXXXX";
	char point[] = "/var/tmp/test-mntns-pt.XXXXXX";
	char ropoint[] = "/var/tmp/test-mntns-ro.XXXXXX";
	char ppoint[] = "/var/tmp/test-mntns-pp.XXXXXX";
	char tmpl[256], ptmpl[256], rosrc[256], path[600], file[700];
	char src[512], psrc[512], rsrc[512], jobdir[256];
	struct mntns_dir dirs[5];
	struct mntns_spec spec = { .base_path = base, .job_id = 101,
				   .dir_list = dirs, .dir_count = 5,
				   .uid = 12345, .gid = 12346 };
	struct want_opt w;
	struct stat st;
	int rc;

	if (!mkdtemp(root) || !mkdtemp(point) || !mkdtemp(ropoint) ||
	    !mkdtemp(ppoint)) {
		ok(0, "precondition: scratch directories");
		return;
	}
	snprintf(tmpl, sizeof(tmpl), "%s/%%n/%%u/%%j", root);
	snprintf(ptmpl, sizeof(ptmpl), "%s/persist/%%u", root);
	snprintf(file, sizeof(file), "%s/persist", root);
	mkdir(file, 0755);	/* the fixed part must exist */
	snprintf(rosrc, sizeof(rosrc), "%s/data", root);
	mkdir(rosrc, 0755);
	snprintf(file, sizeof(file), "%s/readme", rosrc);
	close(open(file, O_CREAT | O_WRONLY, 0644));
	dirs[0] = (struct mntns_dir){ .path = "/tmp",
		.options = NSCONF_OPT_ALWAYS | NSCONF_OPT_NOEXEC };
	dirs[1] = (struct mntns_dir){ .path = "/dev/shm", .tmpfs = true,
		.size = 1 << 20,
		.options = NSCONF_OPT_ALWAYS | NSCONF_OPT_NOEXEC };
	dirs[2] = source_dir(point, tmpl, 101, src, NSCONF_OPT_ALWAYS);
	dirs[3] = source_dir(ropoint, rosrc, 101, rsrc,
			     NSCONF_OPT_ALWAYS | NSCONF_OPT_RO);
	dirs[4] = source_dir(ppoint, ptmpl, 101, psrc, NSCONF_OPT_ALWAYS);
	snprintf(path, sizeof(path), "%s/node1/alice/101", root);
	is_str(src, path, "precondition: %%n/%%u/%%j expand to node1/alice/101");
	is_int(dirs[2].fixed_depth, 3, "  the fixed part is /var/tmp/<dir>");
	is_int(dirs[2].job_depth, 6, "  the job's own directory is %%j's");

	rc = mntns_create(&spec, fresh());
	ok(rc == 0, "create with Dir settings: %s", rc ? rep.msg : "ok");
	w = (struct want_opt){ "/tmp", "rw,nosuid,nodev,noexec" };
	is_int(in_job(101, has_options, &w), 0,
	       "/tmp (bind from BasePath) is nosuid,nodev,noexec");
	is_int(in_job(101, exec_refused, "/tmp"), 0,
	       "  a program copied there cannot run");
	w = (struct want_opt){ "/dev/shm", "rw,nosuid,nodev,noexec" };
	is_int(in_job(101, has_options, &w), 0,
	       "/dev/shm (tmpfs) is nosuid,nodev,noexec");
	is_int(in_job(101, shm_size_kib, NULL), 16, "  and 1 MiB");
	w = (struct want_opt){ point, "rw,nosuid,nodev" };
	is_int(in_job(101, has_options, &w), 0, "the Source mount is nosuid,nodev");
	w = (struct want_opt){ point, "noexec" };
	is_int(in_job(101, has_options, &w), 1, "  and not noexec (not asked)");
	w = (struct want_opt){ ropoint, "ro,nosuid,nodev" };
	is_int(in_job(101, has_options, &w), 0, "the ro Source mount is ro");
	is_int(in_job(101, write_refused, ropoint), 0, "  writes fail: EROFS");
	snprintf(file, sizeof(file), "%s/readme", ropoint);
	is_int(in_job(101, file_exists, file), 0, "  its files are there");
	snprintf(file, sizeof(file), "%s/out", point);
	is_int(in_job(101, write_file, file), 0, "a job process writes to it");
	snprintf(file, sizeof(file), "%s/out", path);
	is_int(file_exists(file), 0, "  the file lands in %s", path);
	ok(is_dir_of(path, 12345, 0700), "  which is the job user's, 0700");
	snprintf(file, sizeof(file), "%s/node1", root);
	ok(is_dir_of(file, 0, 0711), "  the components above are root's, 0711");
	ok(is_dir_of(psrc, 12345, 0700), "a Source without %%j is made too");

	ok(mntns_delete(base, 101) == 0, "delete");
	ok(lstat(path, &st) < 0 && errno == ENOENT,
	   "the %%j directory is removed with the job");
	snprintf(file, sizeof(file), "%s/node1/alice", root);
	ok(is_dir_of(file, 0, 0711), "  its parent persists");
	ok(is_dir_of(psrc, 12345, 0700), "the Source without %%j persists");
	snprintf(jobdir, sizeof(jobdir), "%s/101", base);
	ok(lstat(jobdir, &st) < 0 && errno == ENOENT, "the job dir is gone");
	is_int(count_mounts_of(root), 0, "no mount of a Source is left");

	/* A failure after the Source was made leaves no job directory. */
	dirs[3] = (struct mntns_dir){ .path = "/no/such/dir",
		.options = NSCONF_OPT_ALWAYS };
	spec.dir_count = 4;
	ok(mntns_create(&spec, fresh()) < 0, "a failing later dir fails it");
	ok(lstat(path, &st) < 0 && errno == ENOENT,
	   "  the %%j directory made for it is gone");
	ok(lstat(jobdir, &st) < 0 && errno == ENOENT, "  and the job dir");

	snprintf(file, sizeof(file),
		 "rm -rf --one-file-system '%s' && rmdir '%s' '%s' '%s'", root,
		 point, ropoint, ppoint);
	ok(system(file) == 0, "scratch directories removed");
}

/* A struct mntns_dir for a per-user or per-job mount point tmpl. */
static struct mntns_dir point_dir(const char *tmpl, uint32_t job,
				  const char *user, char *buf)
{
	struct mntns_dir d = { .options = NSCONF_OPT_ALWAYS, .backing = tmpl };

	if (nsconf_source_expand(tmpl, job, 0, user, "node1", buf, 512) < 0)
		buf[0] = '\0';
	d.path = buf;
	nsconf_source_depths(tmpl, &d.point_fixed_depth, &d.point_job_depth);
	return d;
}

/*
 * Dir=/home/%u/scratch: the mount point is made below the fixed part
 * (in the user's own directory: the user's, 0700), a private mount goes
 * on it, another user's job gets its own; %j's directory goes with the
 * job; a link or another user's directory in the path fails the job.
 */
static void test_point_templates(void)
{
	char home[] = "/var/tmp/test-mntns-home.XXXXXX";
	char tmpl[256], jtmpl[256], p1[512], p2[512], pj[512];
	char file[700], cmd[1024], alice[300], dave[300];
	struct mntns_dir dirs[2];
	struct mntns_spec spec = { .base_path = base, .job_id = 103,
				   .dir_list = dirs, .dir_count = 2,
				   .uid = 12345, .gid = 12345 };
	struct stat st;

	if (!mkdtemp(home) || chmod(home, 0755) < 0) {
		ok(0, "precondition: a home directory root");
		return;
	}
	snprintf(tmpl, sizeof(tmpl), "%s/%%u/scratch", home);
	snprintf(jtmpl, sizeof(jtmpl), "%s/jobs/%%j", home);
	snprintf(alice, sizeof(alice), "%s/alice", home);
	snprintf(file, sizeof(file), "%s/jobs", home);
	ok(mkdir(alice, 0700) == 0 && chown(alice, 12345, 12345) == 0 &&
	   mkdir(file, 0755) == 0 && is_dir_of(alice, 12345, 0700),
	   "precondition: alice's home, the user's 0700, and %s", file);
	dirs[0] = point_dir(tmpl, 103, "alice", p1);
	dirs[1] = point_dir(jtmpl, 103, "alice", pj);
	dirs[1].tmpfs = true;
	is_int(dirs[0].point_fixed_depth, 3, "  the fixed part is %s", home);
	is_int(dirs[1].point_job_depth, 5, "  %%j is the job's own");
	ok(lstat(p1, &st) < 0 && errno == ENOENT, "precondition: no %s", p1);

	ok(mntns_create(&spec, fresh()) == 0, "create: %s", rep.msg);
	ok(is_dir_of(p1, 12345, 0700), "%s made, the user's, 0700", p1);
	ok(is_dir_of(pj, 12345, 0700), "%s made, the user's, 0700", pj);
	snprintf(file, sizeof(file), "%s/out", p1);
	is_int(in_job(103, write_file, file), 0, "a job process writes %s",
	       file);
	ok(access(file, F_OK) < 0 && errno == ENOENT,
	   "  not into the node's %s: a private mount", p1);
	snprintf(file, sizeof(file), "%s/103/%s_%%u_scratch/out", base,
		 home + 1);
	for (char *c = file + strlen(base) + 5; *c && strcmp(c, "out"); c++)
		if (*c == '/' && strncmp(c, "/out", 4))
			*c = '_';
	is_int(file_exists(file), 0, "  but into its backing directory");
	snprintf(file, sizeof(file), "%s/x", pj);
	is_int(in_job(103, write_file, file), 0, "the %%j tmpfs is written");

	/* Another user's job: its own mount point, its own private mount. */
	spec.job_id = 104;
	spec.uid = spec.gid = 12346;
	dirs[0] = point_dir(tmpl, 104, "bob", p2);
	spec.dir_count = 1;
	ok(mntns_create(&spec, fresh()) == 0, "bob's job: %s", rep.msg);
	ok(is_dir_of(p2, 12346, 0700), "  %s made, bob's", p2);
	snprintf(file, sizeof(file), "%s/bob", home);
	ok(is_dir_of(file, 0, 0711), "  %s made root's, 0711", file);
	snprintf(file, sizeof(file), "%s/out", p1);
	is_int(in_job(104, file_exists, file), 1,
	       "  alice's job's file is not in bob's job");
	ok(mntns_delete(base, 104) == 0, "  delete");

	ok(mntns_delete(base, 103) == 0, "delete alice's job");
	ok(lstat(pj, &st) < 0 && errno == ENOENT, "  %%j's directory is gone");
	ok(is_dir_of(p1, 12345, 0700), "  the per-user mount point persists");

	/* A component of another user's: refused, nothing mounted. */
	snprintf(dave, sizeof(dave), "%s/dave", home);
	ok(mkdir(dave, 0700) == 0 && chown(dave, 999, 999) == 0,
	   "precondition: %s belongs to uid 999", dave);
	spec.job_id = 105;
	spec.uid = spec.gid = 12345;
	dirs[0] = point_dir(tmpl, 105, "dave", p2);
	ok(mntns_create(&spec, fresh()) < 0, "uid 12345 with dave's "
	   "directory in the path is refused");
	like(rep.msg, "belongs to uid 999", "  the error says so: %s", rep.msg);
	snprintf(file, sizeof(file), "%s/scratch", dave);
	ok(lstat(file, &st) < 0 && errno == ENOENT, "  nothing made in it");

	/* A link the user planted where the mount point goes: refused. */
	ok(symlink("/etc", p1) == 0 || (rmdir(p1) == 0 &&
					symlink("/etc", p1) == 0),
	   "precondition: %s is a link to /etc", p1);
	dirs[0] = point_dir(tmpl, 105, "alice", p2);
	ok(mntns_create(&spec, fresh()) < 0, "a link at the mount point "
	   "fails the job");
	like(rep.msg, "symbolic link", "  the error says so: %s", rep.msg);
	is_int(count_mounts_of(" /etc "), 0, "  nothing is mounted on /etc");
	snprintf(file, sizeof(file), "%s/105", base);
	ok(lstat(file, &st) < 0 && errno == ENOENT, "  no job directory left");

	snprintf(cmd, sizeof(cmd), "rm -rf --one-file-system '%s'", home);
	ok(system(cmd) == 0, "scratch directories removed");
}

/* The last warning a call made, for test_keep_paths. */
static char last_warning[REPORT_MSG_MAX];

static void note_warning(enum report_level level, const char *msg, void *arg)
{
	(void)arg;
	if (level == REPORT_WARNING)
		snprintf(last_warning, sizeof(last_warning), "%s", msg);
}

/* 0 when a unix socket at path accepts a connection. */
static int socket_answers(void *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0), rc;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", (char *)path);
	rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
	return rc == 0 ? 0 : 1;
}

/*
 * KeepPaths: a node directory root made in /tmp (a daemon's socket in
 * it) is bound into the job's private /tmp, read-write; one a user made,
 * a link, or a missing one is left out with a warning, and the rest of
 * the job's /tmp stays private.
 */
static void test_keep_paths(void)
{
	char keep[] = "/tmp/test-mntns-keep.XXXXXX";
	char ukeep[] = "/tmp/test-mntns-ukeep.XXXXXX";
	char lkeep[64], missing[64], sock[100], file[128], other[128];
	const char *keeps[5] = { keep, ukeep, lkeep, missing, NULL };
	struct mntns_dir dirs[1] = { { .path = "/tmp",
				      .options = NSCONF_OPT_ALWAYS } };
	struct mntns_spec spec = { .base_path = base, .job_id = 106,
				   .dir_list = dirs, .dir_count = 1,
				   .uid = 12345, .gid = 12345,
				   .keep_paths = keeps };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct report r;
	int srv, c;

	snprintf(lkeep, sizeof(lkeep), "/tmp/test-mntns-lkeep.%d", getpid());
	snprintf(missing, sizeof(missing), "/tmp/test-mntns-nokeep.%d",
		 getpid());
	if (!mkdtemp(keep) || chmod(keep, 0755) < 0 || !mkdtemp(ukeep) ||
	    chown(ukeep, 12345, 12345) < 0 || symlink(keep, lkeep) < 0) {
		ok(0, "precondition: kept directories");
		return;
	}
	snprintf(sock, sizeof(sock), "%s/sock", keep);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	srv = socket(AF_UNIX, SOCK_STREAM, 0);
	ok(srv >= 0 && bind(srv, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	   listen(srv, 8) == 0 && socket_answers(sock) == 0,
	   "precondition: a daemon serves %s on the node", sock);
	snprintf(other, sizeof(other), "%s/x", ukeep);
	close(open(other, O_CREAT | O_WRONLY, 0644));

	report_init(&r, note_warning, NULL);
	last_warning[0] = '\0';
	ok(mntns_create(&spec, &r) == 0, "create with KeepPaths: %s", r.msg);
	is_int(in_job(106, socket_answers, sock), 0,
	       "the job reaches the daemon's socket %s", sock);
	c = accept4(srv, NULL, NULL, SOCK_NONBLOCK);
	ok(c >= 0, "  the node's daemon got the connection");
	if (c >= 0)
		close(c);
	snprintf(file, sizeof(file), "%s/from-job", keep);
	is_int(in_job(106, write_file, file), 0, "  read-write: the job "
	       "writes %s", file);
	is_int(file_exists(file), 0, "  which is the node's");
	is_int(in_job(106, file_exists, other), 1,
	       "a user's directory (%s) is not kept", ukeep);
	is_int(in_job(106, file_exists, lkeep), 1,
	       "  nor a link (%s)", lkeep);
	like(last_warning, "not bound into the job", "  warned: %s",
	     last_warning);
	is_int(r.warnings, 3, "  three left out: the user's, the link, the "
	       "missing one");
	ok(mntns_delete(base, 106) == 0, "delete");
	is_int(socket_answers(sock), 0, "the node's socket outlives the job");
	snprintf(file, sizeof(file), "%s/from-job", keep);
	is_int(file_exists(file), 0, "  and the job's file in the kept path");
	close(srv);
	unlink(sock);
	unlink(file);
	unlink(other);
	unlink(lkeep);
	ok(rmdir(keep) == 0 && rmdir(ukeep) == 0, "scratch directories removed");
}

/* A link planted in a Source's path is never followed. */
static void test_source_attacks(void)
{
	char root[] = "/var/tmp/test-mntns-srcl.XXXXXX";
	char victim[] = "/var/tmp/test-mntns-vict.XXXXXX";
	char point[] = "/var/tmp/test-mntns-ptl.XXXXXX";
	char tmpl[256], link[300], src[512], cmd[1024], jobdir[256];
	struct mntns_dir dirs[1];
	struct mntns_spec spec = { .base_path = base, .job_id = 102,
				   .dir_list = dirs, .dir_count = 1,
				   .uid = 12345, .gid = 12345 };
	struct stat st;
	DIR *d;
	int entries = 0;

	if (!mkdtemp(root) || !mkdtemp(victim) || !mkdtemp(point)) {
		ok(0, "precondition: scratch directories");
		return;
	}
	snprintf(tmpl, sizeof(tmpl), "%s/%%n/%%u/%%j", root);
	snprintf(link, sizeof(link), "%s/node1", root);
	snprintf(jobdir, sizeof(jobdir), "%s/102", base);
	dirs[0] = source_dir(point, tmpl, 102, src, NSCONF_OPT_ALWAYS);
	ok(symlink(victim, link) == 0 && lstat(link, &st) == 0 &&
	   S_ISLNK(st.st_mode), "precondition: a link planted at %s", link);
	ok(mntns_create(&spec, fresh()) < 0, "a link in the Source fails it");
	like(rep.msg, "symbolic link", "  the error says so: %s", rep.msg);
	if ((d = opendir(victim))) {
		while (readdir(d))
			entries++;
		closedir(d);
	}
	is_int(entries, 2, "  nothing was made in the link's target");
	is_int(count_mounts_of(victim), 0, "  nothing mounted from it");
	ok(lstat(jobdir, &st) < 0 && errno == ENOENT, "  no job dir left");
	unlink(link);

	/* A fixed part that others may write to, not sticky. */
	ok(chmod(root, 0777) == 0, "precondition: %s is mode 0777", root);
	ok(mntns_create(&spec, fresh()) < 0, "a fixed part open to all is "
	   "refused");
	like(rep.msg, "fixed part must be root's", "  the error says why: %s",
	     rep.msg);
	/* Sticky: a user could make another user's directory first. */
	ok(chmod(root, 01777) == 0, "precondition: now 1777 (sticky)");
	ok(mntns_create(&spec, fresh()) < 0, "  a sticky one is refused too");
	like(rep.msg, "sticky or not", "  the error says why: %s", rep.msg);
	ok(lstat(link, &st) < 0 && errno == ENOENT,
	   "  nothing was made in it");
	chmod(root, 0700);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/node1'", root);
	ok(system(cmd) == 0, "  its tree removed");

	/* A component below the fixed part that a user owns. */
	ok(mkdir(link, 0755) == 0 && chown(link, 12345, 12345) == 0,
	   "precondition: %s made by a user", link);
	ok(mntns_create(&spec, fresh()) < 0, "a user's directory above the "
	   "job's is refused");
	like(rep.msg, "only root", "  the error says why: %s", rep.msg);
	rmdir(link);

	/* The job's directory made beforehand by another user. */
	snprintf(cmd, sizeof(cmd), "mkdir -p -m 0711 %s/node1/alice && "
		 "mkdir %s/node1/alice/102 && chown 999 %s/node1/alice/102",
		 root, root, root);
	ok(system(cmd) == 0, "precondition: the job's directory is uid 999's");
	ok(mntns_create(&spec, fresh()) < 0, "it is refused");
	like(rep.msg, "belongs to uid 999", "  the error says why: %s",
	     rep.msg);
	ok(lstat(src, &st) == 0 && st.st_uid == 999,
	   "  the other user's directory is left alone");
	ok(lstat(jobdir, &st) < 0 && errno == ENOENT, "  no job dir left");

	snprintf(cmd, sizeof(cmd), "rm -rf --one-file-system '%s' && rmdir "
		 "'%s' '%s'", root, victim, point);
	ok(system(cmd) == 0, "scratch directories removed");
}

/*
 * Job B's view of job A's private directories: a child joins A's namespace,
 * leaves in each of dirs[0..n) a file "secret" of mib MiB and a link
 * "link" to victim (a directory of the host), opens the directories (or,
 * when files, the secret files, read-write) and sends their fds here, as
 * A would to another job of its user over a unix socket.
 * Returns 0 with fds[0..n), or -1.
 */
static int grab_fds(uint32_t job_id, const char *const *dirs, int n,
		    const char *victim, int mib, bool files, int *fds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 4)];
		struct cmsghdr align;
	} ctl;
	char byte = 0;
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = ctl.buf,
			      .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *cmsg;
	int sock[2], status;
	pid_t pid;

	if (n > 4 || socketpair(AF_UNIX, SOCK_DGRAM, 0, sock) < 0)
		return -1;
	if ((pid = fork()) == 0) {
		static char data[1 << 20];
		int got[4];

		memset(data, 'x', sizeof(data));
		if (mntns_join(base, job_id) < 0)
			_exit(100);
		for (int i = 0; i < n; i++) {
			int fd;

			if ((got[i] = open(dirs[i], O_RDONLY | O_DIRECTORY)) < 0 ||
			    (fd = openat(got[i], "secret", O_CREAT | O_RDWR,
					 0600)) < 0 ||
			    symlinkat(victim, got[i], "link") < 0)
				_exit(101);
			for (int m = 0; m < mib; m++)
				if (write(fd, data, sizeof(data)) != sizeof(data))
					_exit(101);
			if (files) {
				close(got[i]);
				got[i] = fd;
			} else if (close(fd) < 0) {
				_exit(101);
			}
		}
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n);
		memcpy(CMSG_DATA(cmsg), got, sizeof(int) * (size_t)n);
		_exit(sendmsg(sock[1], &msg, 0) == 1 ? 0 : 102);
	}
	close(sock[1]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0 || recvmsg(sock[0], &msg, 0) != 1 ||
	    !(cmsg = CMSG_FIRSTHDR(&msg)) ||
	    cmsg->cmsg_len != CMSG_LEN(sizeof(int) * (size_t)n)) {
		close(sock[0]);
		return -1;
	}
	memcpy(fds, CMSG_DATA(cmsg), sizeof(int) * (size_t)n);
	close(sock[0]);
	return 0;
}

/* Entries of the directory fd, "." and ".." aside; -1 on error. */
static int entries(int fd)
{
	int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *e;
	int n = 0;

	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return -1;
	}
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* KiB in use on the file system of fd; -1 on error. */
static long used_kib(int fd)
{
	struct statvfs sv;

	if (fstatvfs(fd, &sv) < 0)
		return -1;
	return (long)((sv.f_blocks - sv.f_bfree) * sv.f_frsize / 1024);
}

/* errno of creating a file in the directory fd, 0 when it could. */
static int create_errno(int fd)
{
	int f = openat(fd, "new", O_CREAT | O_EXCL | O_WRONLY, 0600);

	if (f < 0)
		return errno;
	close(f);
	unlinkat(fd, "new", 0);
	return 0;
}

/*
 * Job A sends fds of its /dev/shm and its /tmp to job B of the same user;
 * after A's teardown B must reach nothing of A through them: no file, no
 * new file, and A's tmpfs memory is freed.
 */
static void test_held_fds(void)
{
	const char *dirs[] = { "/tmp", "/dev/shm", NULL };
	struct mntns_spec spec = { .base_path = base, .job_id = 121 };
	char victim[] = "/var/tmp/test-mntns-victim.XXXXXX", keep[128];
	int fds[2] = { -1, -1 }, tmp, shm, rc;

	if (!mkdtemp(victim)) {
		ok(0, "precondition: a victim directory");
		return;
	}
	snprintf(keep, sizeof(keep), "%s/keep", victim);
	close(open(keep, O_CREAT | O_WRONLY, 0600));
	rc = testspec_create(&spec, dirs, 4 << 20, 0, fresh());
	ok(rc == 0, "create: %s", rc ? rep.msg : "ok");
	ok(grab_fds(121, dirs, 2, victim, 1, false, fds) == 0,
	   "precondition: another process holds fds of A's /tmp and /dev/shm");
	tmp = fds[0];
	shm = fds[1];
	ok(faccessat(shm, "secret", F_OK, 0) == 0 && used_kib(shm) >= 1024,
	   "precondition: A's 1 MiB file is in /dev/shm (%ld KiB used)",
	   used_kib(shm));
	ok(faccessat(tmp, "secret", F_OK, 0) == 0,
	   "precondition: A's file is in /tmp");

	ok(mntns_delete(base, 121) == 0, "delete A");
	is_int(entries(shm), 0, "A's /dev/shm, through the held fd, is empty");
	ok(faccessat(shm, "secret", F_OK, AT_SYMLINK_NOFOLLOW) < 0 &&
	   errno == ENOENT, "  A's file is gone");
	is_int(used_kib(shm), 0, "  its tmpfs memory is freed");
	is_int(create_errno(shm), EROFS, "  and nothing new is written there");
	is_int(entries(tmp), 0, "A's /tmp, through the held fd, is empty");
	ok(faccessat(tmp, "secret", F_OK, AT_SYMLINK_NOFOLLOW) < 0 &&
	   errno == ENOENT, "  A's file is gone");
	is_int(create_errno(tmp), ENOENT, "  a new file fails: it was removed");
	ok(access(keep, F_OK) == 0, "the links A left were not followed");
	close(tmp);
	close(shm);
	ok(mntns_delete(base, 121) == 0, "a second delete is harmless");
	unlink(keep);
	rmdir(victim);
}

/*
 * The tmpfs record is an attribute of the job directory (no file, no
 * inode of its own); a record file, as an earlier release wrote it (or
 * where BasePath's file system keeps no trusted attributes), still makes
 * the teardown empty the job's /dev/shm.
 */
static void test_record_forms(void)
{
	const char *dirs[] = { "/tmp", "/dev/shm", NULL };
	struct mntns_spec spec = { .base_path = base, .job_id = 131 };
	char victim[] = "/var/tmp/test-mntns-victim.XXXXXX", dir[256];
	char path[300], value[64];
	int fds[2] = { -1, -1 }, rc, fd;
	ssize_t n;

	if (!mkdtemp(victim)) {
		ok(0, "precondition: a victim directory");
		return;
	}
	rc = testspec_create(&spec, dirs, 4 << 20, 0, fresh());
	ok(rc == 0, "create: %s", rc ? rep.msg : "ok");
	snprintf(dir, sizeof(dir), "%s/131", base);
	snprintf(path, sizeof(path), "%s/" JOBDIR_TMPFS, dir);
	n = getxattr(dir, "trusted.devns" JOBDIR_TMPFS, value,
		     sizeof(value) - 1);
	if (n < 0 && (errno == ENOTSUP || errno == EOPNOTSUPP)) {
		tap_skip("tmpfs record: BasePath keeps no trusted attributes");
	} else {
		value[n > 0 ? n : 0] = '\0';
		is_str(value, "/dev/shm\n",
		       "the tmpfs record is an attribute of the job directory");
		ok(access(path, F_OK) < 0 && errno == ENOENT,
		   "  and no file of its own");
	}
	/* The earlier form: the attribute gone, the file in its place. */
	removexattr(dir, "trusted.devns" JOBDIR_TMPFS);
	fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
	ok(fd >= 0 && write(fd, "/dev/shm\n", 9) == 9 && close(fd) == 0,
	   "precondition: the record is a file, as an earlier release's");
	ok(grab_fds(131, dirs, 2, victim, 1, false, fds) == 0 &&
	   used_kib(fds[1]) >= 1024,
	   "precondition: another process holds A's /dev/shm, 1 MiB in it");
	ok(mntns_delete(base, 131) == 0, "delete A");
	is_int(entries(fds[1]), 0, "A's /dev/shm, through the held fd, is "
	       "empty: the record file was read");
	is_int(create_errno(fds[1]), EROFS, "  and read-only");
	for (int i = 0; i < 2; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	rmdir(victim);
}

/*
 * Job A sends fds of a 64 MiB file of its /tmp (on disk) and of its
 * /dev/shm to job B: after A's teardown they read nothing and hold no
 * blocks or pages (a collector job holding one fd of each ended job
 * would otherwise keep their disk and memory, charged to no live job).
 */
static void test_held_files(void)
{
	const char *dirs[] = { "/tmp", "/dev/shm", NULL };
	struct mntns_spec spec = { .base_path = base, .job_id = 124 };
	char victim[] = "/var/tmp/test-mntns-victim.XXXXXX";
	int fds[2] = { -1, -1 }, rc;
	struct stat st;
	char c;

	if (!mkdtemp(victim)) {
		ok(0, "precondition: a victim directory");
		return;
	}
	rc = testspec_create(&spec, dirs, 80 << 20, 0, fresh());
	ok(rc == 0, "create: %s", rc ? rep.msg : "ok");
	ok(grab_fds(124, dirs, 2, victim, 64, true, fds) == 0,
	   "precondition: another process holds fds of A's files");
	for (int i = 0; i < 2; i++) {
		bool got = fds[i] >= 0 && fstat(fds[i], &st) == 0;

		ok(got && st.st_size == 64 << 20 &&
		   st.st_blocks >= (64 << 20) / 512,
		   "precondition: A's file in %s has 64 MiB (%jd blocks)",
		   dirs[i], got ? (intmax_t)st.st_blocks : -1);
	}
	ok(mntns_delete(base, 124) == 0, "delete A");
	for (int i = 0; i < 2; i++) {
		is_int((int)pread(fds[i], &c, 1, 0), 0,
		       "A's file in %s, through the held fd, reads 0 bytes",
		       dirs[i]);
		ok(fstat(fds[i], &st) == 0 && st.st_blocks == 0,
		   "  and holds no %s", i ? "pages" : "blocks");
		if (fds[i] >= 0)
			close(fds[i]);
	}
	rmdir(victim);
}

/*
 * Lines of the mountinfo of the namespace ns_fd names, read in a child
 * that enters it (through the host's /proc, opened before: the
 * namespace may have none); with needle, only lines that hold it.
 * -1 on error.
 */
static int ns_mount_lines(int ns_fd, const char *needle)
{
	int pipefd[2], n = -1;
	pid_t pid;

	if (pipe(pipefd) < 0)
		return -1;
	if ((pid = fork()) == 0) {
		int proc = open("/proc", O_RDONLY | O_DIRECTORY), fd, count = 0;
		char line[4096];
		FILE *f;

		close(pipefd[0]);
		if (proc < 0 || setns(ns_fd, CLONE_NEWNS) < 0 ||
		    (fd = openat(proc, "self/mountinfo", O_RDONLY)) < 0 ||
		    !(f = fdopen(fd, "r")))
			_exit(1);
		while (fgets(line, sizeof(line), f))
			count += !needle || strstr(line, needle);
		_exit(write(pipefd[1], &count, sizeof(count)) ==
		      sizeof(count) ? 0 : 1);
	}
	close(pipefd[1]);
	if (pid > 0) {
		if (read(pipefd[0], &n, sizeof(n)) != sizeof(n))
			n = -1;
		waitpid(pid, NULL, 0);
	}
	close(pipefd[0]);
	return n;
}

/*
 * A process outside the job (a stepd, or another job sent the fd) holds
 * the job's mount namespace: after the teardown that namespace must pin
 * nothing of the node's, so a host file system it had a copy of is
 * released once the host unmounts it, and it holds only a bare root.
 */
static void test_held_namespace(void)
{
	const char *dirs[] = { "/tmp", "/dev/shm", NULL };
	struct mntns_spec spec = { .base_path = base, .job_id = 125 };
	char host[] = "/var/tmp/test-mntns-hostfs.XXXXXX", path[64];
	int ns_fd = -1, rc;
	pid_t pid;

	if (!mkdtemp(host) ||
	    mount("devns-test-hostfs", host, "tmpfs", 0, "size=1m") < 0) {
		ok(0, "precondition: a host file system: %s", strerror(errno));
		rmdir(host);
		return;
	}
	rc = testspec_create(&spec, dirs, 0, 0, fresh());
	ok(rc == 0, "create: %s", rc ? rep.msg : "ok");
	/* Hold the namespace by fd, as a process outside the job would. */
	if ((pid = fork()) == 0) {
		if (mntns_join(base, 125) < 0)
			_exit(1);
		pause();
		_exit(0);
	}
	usleep(100000);
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	ns_fd = open(path, O_RDONLY | O_CLOEXEC);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	ok(ns_fd >= 0 && ns_mount_lines(ns_fd, "devns-test-hostfs") == 1,
	   "precondition: the held namespace has a copy of the host's file "
	   "system");
	ok(mntns_delete(base, 125) == 0, "delete the job");
	is_int(ns_mount_lines(ns_fd, NULL), 1,
	       "the held namespace has only a bare root left");
	is_int(ns_mount_lines(ns_fd, "devns-test-hostfs"), 0,
	       "  no copy of the host's file system");
	ok(umount2(host, 0) == 0, "the host unmounts its file system");
	if (ns_fd >= 0)
		close(ns_fd);
	(void)umount2(host, MNT_DETACH);
	rmdir(host);
}

/*
 * The same for tmpfs Dirs entries (a TmpSize /tmp, another tmpfs), beside
 * a Source directory, the site's: that keeps its files.
 */
static void test_held_fds_dirs(void)
{
	char victim[] = "/var/tmp/test-mntns-victim.XXXXXX", keep[128];
	char src[] = "/var/tmp/test-mntns-site.XXXXXX", data[128];
	char point[] = "/var/tmp/test-mntns-pt.XXXXXX";
	char tpoint[] = "/var/tmp/test-mntns-tp.XXXXXX";
	const char *const points[] = { "/tmp", tpoint };
	struct mntns_dir dirs[3] = {
		{ .path = "/tmp", .tmpfs = true, .size = 4 << 20,
		  .options = NSCONF_OPT_ALWAYS },
		{ .path = tpoint, .tmpfs = true,
		  .options = NSCONF_OPT_ALWAYS },
		{ .path = point, .source = src, .fixed_depth = 3,
		  .options = NSCONF_OPT_ALWAYS },
	};
	struct mntns_spec spec = { .base_path = base, .job_id = 122,
				   .dir_list = dirs, .dir_count = 3 };
	int fds[2] = { -1, -1 }, rc;

	if (!mkdtemp(victim) || !mkdtemp(src) || !mkdtemp(point) ||
	    !mkdtemp(tpoint)) {
		ok(0, "precondition: scratch directories");
		return;
	}
	snprintf(keep, sizeof(keep), "%s/keep", victim);
	close(open(keep, O_CREAT | O_WRONLY, 0600));
	snprintf(data, sizeof(data), "%s/data", src);
	close(open(data, O_CREAT | O_WRONLY, 0600));
	rc = mntns_create(&spec, fresh());
	ok(rc == 0, "create: %s", rc ? rep.msg : "ok");
	ok(grab_fds(122, points, 2, victim, 1, false, fds) == 0,
	   "precondition: another process holds fds of both tmpfs mounts");
	ok(used_kib(fds[0]) >= 1024 && used_kib(fds[1]) >= 1024,
	   "precondition: 1 MiB of A's in each");
	ok(mntns_delete(base, 122) == 0, "delete A");
	for (int i = 0; i < 2; i++) {
		is_int(entries(fds[i]), 0, "%s, through the held fd, is empty",
		       i ? "a tmpfs Dir" : "a TmpSize /tmp");
		is_int(used_kib(fds[i]), 0, "  its tmpfs memory is freed");
		is_int(create_errno(fds[i]), EROFS, "  nothing new is written");
		if (fds[i] >= 0)
			close(fds[i]);
	}
	ok(access(keep, F_OK) == 0, "the links A left were not followed");
	ok(access(data, F_OK) == 0, "the Source directory keeps its files");
	unlink(keep);
	unlink(data);
	rmdir(victim);
	rmdir(src);
	rmdir(point);
	rmdir(tpoint);
}

/*
 * Job B swaps, through its fd of A's /dev/shm, a directory "d" and a link
 * "l" to victim (renameat2 RENAME_EXCHANGE) while root empties it, to make
 * the removal follow the link.  Runs until killed.
 */
static void swapper(int shm, const char *victim)
{
	for (;;) {
		int dir, fd;

		mkdirat(shm, "d", 0700);
		dir = openat(shm, "d", O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
		if (dir >= 0) {
			if ((fd = openat(dir, "f", O_CREAT | O_WRONLY, 0600)) >= 0)
				close(fd);
			close(dir);
		}
		(void)!symlinkat(victim, shm, "l");
		syscall(SYS_renameat2, shm, "d", shm, "l", 2 /* EXCHANGE */);
	}
}

/* Whether BasePath/<job_id> is still there. */
static bool job_dir_exists(uint32_t job_id)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%u", base, job_id);
	return access(path, F_OK) == 0;
}

static void test_held_fds_swap(void)
{
	const char *dirs[] = { "/dev/shm", NULL };
	struct mntns_spec spec = { .base_path = base, .job_id = 123 };
	char victim[] = "/var/tmp/test-mntns-victim.XXXXXX", keep[128];
	int shm = -1, rc;
	pid_t pid;

	if (!mkdtemp(victim)) {
		ok(0, "precondition: a victim directory");
		return;
	}
	snprintf(keep, sizeof(keep), "%s/keep", victim);
	close(open(keep, O_CREAT | O_WRONLY, 0600));
	rc = testspec_create(&spec, dirs, 0, 0, fresh());
	ok(rc == 0, "create: %s", rc ? rep.msg : "ok");
	ok(grab_fds(123, dirs, 1, victim, 1, false, &shm) == 0,
	   "precondition: another process holds an fd of A's /dev/shm");
	if ((pid = fork()) == 0)
		swapper(shm, victim);
	usleep(20000);
	ok(pid > 0 && faccessat(shm, "d", F_OK, AT_SYMLINK_NOFOLLOW) == 0,
	   "precondition: it swaps a link in and out there");
	/*
	 * B refills the tmpfs while root empties it: the delete may report
	 * it not emptied (saferm's passes are bounded), which is not what
	 * is checked here; that no link was followed is.
	 */
	rc = mntns_delete(base, 123);
	diag("delete A meanwhile: %s", rc ? strerror(errno) : "ok");
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	ok(faccessat(shm, "secret", F_OK, AT_SYMLINK_NOFOLLOW) < 0 &&
	   errno == ENOENT, "A's file is gone");
	ok(access(keep, F_OK) == 0, "the victim's file was not removed");
	ok(mntns_delete(base, 123) == 0 && !job_dir_exists(123),
	   "once B stops, delete again: nothing of A is left");
	close(shm);
	unlink(keep);
	rmdir(victim);
}

static void test_parse_job_dir(void)
{
	uint32_t id = 0;

	ok(jobdir_parse("123", &id) == 0 && id == 123, "parse 123");
	ok(jobdir_parse("4294967295", &id) == 0, "parse UINT32_MAX");
	ok(jobdir_parse("4294967296", &id) < 0, "reject overflow");
	ok(jobdir_parse("0", &id) < 0, "reject 0");
	ok(jobdir_parse("012", &id) < 0, "reject leading zero");
	ok(jobdir_parse(".ns", &id) < 0, "reject .ns");
	ok(jobdir_parse("12a", &id) < 0, "reject 12a");
	ok(jobdir_parse("", &id) < 0, "reject empty");
}

/*
 * mntns mounts with the new mount API (open_tree, move_mount, fsopen).
 * Where the system call layer lacks it (valgrind 3.19 answers ENOSYS,
 * kernels before 5.12) these tests cannot run: skipped, with the reason.
 */
static bool mount_api_missing(void)
{
	return syscall(SYS_open_tree, -1, "", 0) < 0 && errno == ENOSYS;
}

/*
 * Slurm 22.05 to 23.11 end a job in the extern stepd and in slurmd at
 * once: the second caller waits for the first's end, then finds nothing
 * to run its CloneNSEpilog against.
 */
static void test_end_lock(void)
{
	const char *dirs[] = { "/tmp", NULL };
	struct mntns_spec spec = { .base_path = base, .job_id = 43 };
	int ready[2], result[2], lock, status;
	struct pollfd pfd;
	char c = 0;
	pid_t pid;

	char lockfile[256];
	struct stat st;

	snprintf(lockfile, sizeof(lockfile), "%s/" JOBDIR_END_LOCK_PREFIX "43",
		 base);
	ok(testspec_create(&spec, dirs, 0, 0, fresh()) == 0,
	   "end lock: precondition: job 43's namespace exists");
	lock = mntns_lock_job(base, 43);
	ok(lock >= 0, "end lock: the first caller holds it");
	ok(stat(lockfile, &st) == 0 && st.st_uid == 0 &&
	   (st.st_mode & 07777) == 0600,
	   "  on a file beside the job's directory, root's, mode 0600");
	if (lock < 0 || pipe(ready) < 0 || pipe(result) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		int mine;

		close(lock);	/* the parent's, inherited: another caller's */
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		mine = mntns_lock_job(base, 43);
		c = mntns_exists(base, 43) ? 'y' : 'n';
		if (write(result[1], &c, 1) != 1)
			_exit(1);
		mntns_unlock_job(base, 43, mine);
		_exit(0);
	}
	ok(read(ready[0], &c, 1) == 1, "end lock: the second caller started");
	pfd = (struct pollfd){ .fd = result[0], .events = POLLIN };
	is_int(poll(&pfd, 1, 300), 0,
	       "  and waits while the first holds the lock");
	ok(mntns_delete(base, 43) == 0, "  the first tears the namespace down");
	snprintf(lockfile + strlen(base), sizeof(lockfile) - strlen(base),
		 "/43");
	ok(stat(lockfile, &st) < 0 && errno == ENOENT,
	   "  its directory is gone while the lock is held");
	snprintf(lockfile + strlen(base), sizeof(lockfile) - strlen(base),
		 "/" JOBDIR_END_LOCK_PREFIX "43");
	mntns_unlock_job(base, 43, lock);
	ok(read(result[0], &c, 1) == 1 && c == 'n',
	   "  then the second gets it and finds the namespace gone");
	ok(waitpid(pid, &status, 0) == pid && WIFEXITED(status),
	   "  and ends");
	ok(lstat(lockfile, &st) < 0 && errno == ENOENT,
	   "  leaving no lock file behind");
	close(ready[0]);
	close(ready[1]);
	close(result[0]);
	close(result[1]);
}

int main(void)
{
	test_parse_job_dir();
	if (!tap_root()) {
		tap_skip("namespace tests need root");
		return tap_done();
	}
	if (mount_api_missing()) {
		tap_skip("namespace tests: no open_tree(2) here (valgrind or a "
			 "kernel before 5.12)");
		return tap_done();
	}
	if (!mkdtemp(base)) {
		tap_skip("cannot make a BasePath: %s", strerror(errno));
		return tap_done();
	}
	test_lifecycle();
	test_two_jobs();
	test_tmp_size();
	test_failure_leaves_nothing();
	test_link_attack();
	test_base_link();
	test_teardown_with_writer();
	test_teardown_kills_only_its_namespace();
	test_non_initial_namespace();
	test_older_batch();
	test_dir_settings();
	test_source_attacks();
	test_point_templates();
	test_keep_paths();
	test_held_fds();
	test_held_fds_dirs();
	test_held_fds_swap();
	test_held_files();
	test_record_forms();
	test_held_namespace();
	test_end_lock();
	rmdir(base);
	return tap_done();
}
