/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_mntns.c - a job namespace made, joined and removed for real.
 *
 * Needs root and mount namespaces; skips cleanly without them.  Checks what
 * a job relies on: its /tmp and /dev/shm are private and shared by all its
 * processes, the namespace lives without a process, ShmSize/TmpSize apply,
 * and delete leaves no mount and no directory, also after failures.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mntns.h"
#include "tap.h"

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
	struct mntns_spec spec = { .base_path = base, .job_id = 41,
				   .dirs = dirs, .shm_size = 1 << 20 };
	char err[256] = "", jobdir[256];
	struct stat st;

	snprintf(jobdir, sizeof(jobdir), "%s/41", base);
	ok(mntns_create(&spec, err, sizeof(err)) == 0, "create: %s",
	   err[0] ? err : "ok");
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

	ok(mntns_delete(base, 41) == 0, "delete");
	ok(!mntns_exists(base, 41), "the pin is gone");
	ok(stat(jobdir, &st) < 0 && errno == ENOENT, "the job directory is gone");
	is_int(count_mounts_of(jobdir), 0, "no mount of the job is left");
	ok(mntns_delete(base, 41) == 0, "a second delete is harmless");
}

static void test_two_jobs(void)
{
	const char *dirs[] = { "/tmp", "/dev/shm", "/var/tmp", NULL };
	struct mntns_spec a = { .base_path = base, .job_id = 51, .dirs = dirs };
	struct mntns_spec b = { .base_path = base, .job_id = 52, .dirs = dirs };
	char err[256];

	ok(mntns_create(&a, err, sizeof(err)) == 0 &&
	   mntns_create(&b, err, sizeof(err)) == 0, "two jobs created");
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
	struct mntns_spec spec = { .base_path = base, .job_id = 61,
				   .dirs = dirs, .tmp_size = 2 << 20 };
	char err[256], jobdir[256];
	struct stat st;

	snprintf(jobdir, sizeof(jobdir), "%s/61/tmp", base);
	ok(mntns_create(&spec, err, sizeof(err)) == 0, "TmpSize create");
	ok(stat(jobdir, &st) < 0, "TmpSize: no disk-backed /tmp directory");
	is_int(in_job(61, write_file, "/tmp/t"), 0, "TmpSize: /tmp is writable");
	mntns_delete(base, 61);
}

static void test_failure_leaves_nothing(void)
{
	const char *bad[] = { "/no/such/dir/anywhere", NULL };
	struct mntns_spec spec = { .base_path = base, .job_id = 71,
				   .dirs = bad };
	char err[256] = "", jobdir[256];
	struct stat st;

	snprintf(jobdir, sizeof(jobdir), "%s/71", base);
	ok(mntns_create(&spec, err, sizeof(err)) < 0,
	   "a private dir that does not exist fails the namespace");
	like(err, "mounting a private directory", "the error says which step");
	ok(stat(jobdir, &st) < 0 && errno == ENOENT,
	   "the failed job leaves no directory");
	is_int(count_mounts_of(jobdir), 0, "and no mount");
	spec.base_path = "/no/such/base";
	ok(mntns_create(&spec, err, sizeof(err)) < 0, "a missing BasePath fails");
	like(err, "BasePath", "the error names BasePath");
}

static void test_parse_job_dir(void)
{
	uint32_t id = 0;

	ok(mntns_parse_job_dir("123", &id) == 0 && id == 123, "parse 123");
	ok(mntns_parse_job_dir("4294967295", &id) == 0, "parse UINT32_MAX");
	ok(mntns_parse_job_dir("4294967296", &id) < 0, "reject overflow");
	ok(mntns_parse_job_dir("0", &id) < 0, "reject 0");
	ok(mntns_parse_job_dir("012", &id) < 0, "reject leading zero");
	ok(mntns_parse_job_dir(".ns", &id) < 0, "reject .ns");
	ok(mntns_parse_job_dir("12a", &id) < 0, "reject 12a");
	ok(mntns_parse_job_dir("", &id) < 0, "reject empty");
}

int main(void)
{
	test_parse_job_dir();
	if (geteuid() != 0) {
		tap_skip("namespace tests need root");
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
	rmdir(base);
	return tap_done();
}
