/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_userns.c - a job's user namespace made, entered and torn down for
 * real (UserNamespace=yes).
 *
 * Needs root, user and mount namespaces and the new mount API (mntns);
 * skips cleanly without them.  Checks what a job relies on: a process
 * that enters after the mount namespace gets the identity map (or the
 * site's), can still become the job's user there as Slurm does, is
 * still signalled by root outside, and cannot undo the job's mounts even
 * as root inside; a map that leaves the job's ids out fails the setup
 * and leaves nothing; teardown leaves no pin and no directory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf/jobdir.h"
#include "ns/mntns.h"
#include "ns/userns.h"
#include "tap.h"
#include "testrep.h"
#include "testspec.h"

#define JOB_UID 4242
#define JOB_GID 4343

static char base[] = "/var/tmp/test-userns.XXXXXX";

static int make_job(uint32_t job_id)
{
	static const char *const dirs[] = { "/tmp", NULL };
	struct mntns_spec spec = {
		.base_path = base,
		.job_id = job_id,
	};

	return testspec_create(&spec, dirs, 0, 0, fresh());
}

static bool pin_file_exists(uint32_t job_id)
{
	char pin[256];

	snprintf(pin, sizeof(pin), "%s/%u/%s", base, job_id, JOBDIR_USERNS_PIN);
	return access(pin, F_OK) == 0;
}

/* The first line of path, without its newline, squeezed of blanks. */
static bool read_map(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char raw[256], *w = buf;
	bool got, blank = true;

	if (!f)
		return false;
	got = fgets(raw, sizeof(raw), f) != NULL;
	fclose(f);
	for (char *r = raw; got && *r && *r != '\n' && w + 1 < buf + len; r++) {
		if (*r == ' ') {
			if (!blank)
				*w++ = ' ';
			blank = true;
			continue;
		}
		*w++ = *r;
		blank = false;
	}
	*w = '\0';
	return got;
}

/* What a child of the job reports: each bit a thing that went right. */
enum {
	IN_ENTERED = 1 << 0,	/* joined mount ns, then user ns */
	IN_NEW_NS = 1 << 1,	/* /proc/self/ns/user is not the host's */
	IN_MAP = 1 << 2,	/* uid_map is as expected */
	IN_TMP_KEPT = 1 << 3,	/* root inside cannot unmount /tmp */
	IN_NO_MKNOD = 1 << 4,	/* nor make a device node */
	IN_BECAME_USER = 1 << 5, /* setgroups, setgid, setuid as Slurm */
};

/*
 * The job's process: enter as a task does, then report what holds in it
 * on fd, and wait (for a signal) when hold is true.
 */
static void job_process(uint32_t job_id, const char *want_map, int fd,
			bool hold)
{
	struct stat host, self;
	char map[256], node[256];
	gid_t groups[] = { JOB_GID };
	int ns = userns_open(base, job_id), bits = 0;

	stat("/proc/self/ns/user", &host);
	if (ns >= 0 && mntns_join(base, job_id) == 0 && userns_enter(ns) == 0)
		bits |= IN_ENTERED;
	if (stat("/proc/self/ns/user", &self) == 0 && self.st_ino != host.st_ino)
		bits |= IN_NEW_NS;
	if (read_map("/proc/self/uid_map", map, sizeof(map)) &&
	    !strcmp(map, want_map))
		bits |= IN_MAP;
	if (umount2("/tmp", MNT_DETACH) < 0)
		bits |= IN_TMP_KEPT;
	snprintf(node, sizeof(node), "/tmp/test-userns-null.%d", (int)getpid());
	if (mknod(node, S_IFCHR | 0600, makedev(1, 3)) < 0)
		bits |= IN_NO_MKNOD;
	else
		unlink(node);
	if (setgroups(1, groups) == 0 && setgid(JOB_GID) == 0 &&
	    setuid(JOB_UID) == 0 && getuid() == JOB_UID)
		bits |= IN_BECAME_USER;
	(void)!write(fd, &bits, sizeof(bits));
	close(fd);
	if (hold)
		pause();
	_exit(0);
}

/* Fork job_process and return its bits (the child reaped unless held). */
static int run_job_process(uint32_t job_id, const char *want_map, bool hold,
			   pid_t *pid)
{
	int fds[2], bits = -1;

	if (pipe(fds) < 0)
		return -1;
	if ((*pid = fork()) == 0) {
		close(fds[0]);
		job_process(job_id, want_map, fds[1], hold);
	}
	close(fds[1]);
	if (*pid < 0 || read(fds[0], &bits, sizeof(bits)) != sizeof(bits))
		bits = -1;
	close(fds[0]);
	if (!hold && *pid > 0)
		waitpid(*pid, NULL, 0);
	return bits;
}

static void check_bits(int bits, const char *what)
{
	ok(bits >= 0 && (bits & IN_ENTERED),
	   "%s: a job process joins the mount namespace, then the user namespace",
	   what);
	ok(bits >= 0 && (bits & IN_NEW_NS),
	   "%s: it is then in a user namespace other than the host's", what);
	ok(bits >= 0 && (bits & IN_MAP), "%s: its uid_map is the one made",
	   what);
	ok(bits >= 0 && (bits & IN_TMP_KEPT),
	   "%s: root inside cannot unmount the job's /tmp", what);
	ok(bits >= 0 && (bits & IN_NO_MKNOD),
	   "%s: nor make a device node", what);
	ok(bits >= 0 && (bits & IN_BECAME_USER),
	   "%s: it becomes the job's user there, as Slurm does (setgroups, setgid, setuid)",
	   what);
}

static void test_identity(void)
{
	pid_t pid;
	int bits, status;

	if (!ok(make_job(1) == 0, "precondition: a job's mount namespace")) {
		diag("%s", rep.msg);
		return;
	}
	if (!ok(userns_create(base, 1, JOB_UID, JOB_GID, NULL, NULL,
			      fresh()) == 0,
		"the job gets a user namespace with the identity map"))
		diag("%s", rep.msg);
	ok(userns_exists(base, 1), "it is pinned under the job's directory");
	bits = run_job_process(1, "0 0 4294967295", true, &pid);
	check_bits(bits, "identity map");
	/* root outside keeps reaching it: Slurm's signals, scancel */
	ok(pid > 0 && kill(pid, SIGTERM) == 0 &&
	   waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) &&
	   WTERMSIG(status) == SIGTERM,
	   "root outside signals a process inside (SIGTERM ends it)");
	ok(mntns_delete(base, 1) == 0, "the job is torn down");
	ok(!pin_file_exists(1), "no pin is left");
	/* Slurm 22.05 gives no gid: the identity map is made all the same. */
	if (!ok(make_job(4) == 0 &&
		userns_create(base, 4, JOB_UID, (gid_t)-1, NULL, NULL,
			      fresh()) == 0 && userns_exists(base, 4),
		"a job whose gid is unknown ((gid_t)-1) gets one too"))
		diag("%s", rep.msg);
	ok(mntns_delete(base, 4) == 0 && !pin_file_exists(4),
	   "and it goes with the job");
}

/*
 * A site's script, as a map function: root's and the job's ids only, as
 * themselves; arg names a map to leave out, "other" to map another id
 * instead of the job's, "shifted" to map the job's ids as 0 inside, or
 * "noroot" to leave root's out.
 */
static int map_job_user_as_root(pid_t pid, void *arg, struct report *rep)
{
	const char *what = arg;
	char path[64], line[64];
	const char *files[] = { "uid_map", "gid_map" };
	unsigned ids[] = { JOB_UID, JOB_GID };

	for (int i = 0; i < 2; i++) {
		int fd;

		if (what && !strcmp(what, files[i]))
			continue;	/* this one left out */
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, files[i]);
		if (what && !strcmp(what, "other"))
			snprintf(line, sizeof(line), "0 0 1\n777 777 1\n");
		else if (what && !strcmp(what, "shifted"))	/* inside 0 */
			snprintf(line, sizeof(line), "0 %u 1\n", ids[i]);
		else if (what && !strcmp(what, "noroot"))
			snprintf(line, sizeof(line), "%u %u 1\n", ids[i],
				 ids[i]);
		else	/* one write, as the kernel takes a map */
			snprintf(line, sizeof(line), "0 0 1\n%u %u 1\n",
				 ids[i], ids[i]);
		if ((fd = open(path, O_WRONLY)) < 0 ||
		    write(fd, line, strlen(line)) < 0) {
			if (fd >= 0)
				close(fd);
			return report_errno(rep, errno, "test map %s", path);
		}
		close(fd);
	}
	return 0;
}

static void test_site_map(void)
{
	char want[64];
	pid_t pid;
	int bits;

	if (!ok(make_job(2) == 0, "precondition: another job's mount namespace"))
		return;
	if (!ok(userns_create(base, 2, JOB_UID, JOB_GID, map_job_user_as_root,
			      NULL, fresh()) == 0,
		"a site's map function writes the maps instead"))
		diag("%s", rep.msg);
	snprintf(want, sizeof(want), "0 0 1");
	bits = run_job_process(2, want, false, &pid);
	check_bits(bits, "site's map");
	ok(mntns_delete(base, 2) == 0 && !pin_file_exists(2),
	   "that job is torn down, without its pin");
}

/* A map that leaves the job's ids out fails the setup, leaving nothing. */
static void refused(const char *leave_out, const char *want_msg)
{
	int rc;

	if (!ok(make_job(3) == 0, "precondition: a job (%s)", leave_out))
		return;
	rc = userns_create(base, 3, JOB_UID, JOB_GID, map_job_user_as_root,
			   (void *)leave_out, fresh());
	ok(rc < 0, "a map without %s fails the setup", leave_out);
	like(rep.msg, want_msg, "and says which id is not mapped");
	ok(!pin_file_exists(3) && !userns_exists(base, 3),
	   "no pin is left behind (%s)", leave_out);
	ok(mntns_delete(base, 3) == 0, "the job is torn down");
}

static void test_refusals(void)
{
	refused("uid_map", "uid_map does not map the job's uid 4242");
	refused("gid_map", "gid_map does not map the job's gid 4343");
	refused("other", "uid_map does not map the job's uid 4242");
	refused("shifted", "uid_map does not map the job's uid 4242 to itself");
	refused("noroot", "uid_map does not map root's uid 0 to itself");
	errno = 0;
	ok(userns_open(base, 99) < 0 && errno == ENOENT,
	   "a job without one: userns_open says ENOENT");
	ok(userns_enter(-1) < 0, "userns_enter refuses no fd");
}

static const char *missing(void)
{
	if (!tap_root())
		return "user namespace tests need root";
	if (syscall(SYS_open_tree, -1, "", 0) < 0 && errno == ENOSYS)
		return "no open_tree(2) here (valgrind or a kernel before 5.12)";
	if (access("/proc/self/ns/user", F_OK) < 0)
		return "no user namespaces";
	return NULL;
}

int main(void)
{
	const char *why = missing();

	if (why) {
		tap_skip("%s", why);
		return tap_done();
	}
	if (!mkdtemp(base)) {
		tap_skip("cannot make a BasePath: %s", strerror(errno));
		return tap_done();
	}
	test_identity();
	test_site_map();
	test_refusals();
	ok(rmdir(base) == 0, "BasePath is empty at the end");
	return tap_done();
}
