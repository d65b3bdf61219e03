/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_pidns.c - a job's PID namespace made, entered and torn down for
 * real (PidNamespace=yes).
 *
 * Needs root, mount and PID namespaces and the new mount API (mntns);
 * skips cleanly without them.  Checks what a job relies on: a process
 * born after pidns_enter_for_children sees in /proc only the namespace's
 * init and the job's own processes, /proc/self works, the init reaps
 * orphans, the parent that entered stays outside, and teardown leaves no
 * process, no pin and no directory, also of processes that never joined
 * the mount namespace.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf/jobdir.h"
#include "conf/nsconf.h"
#include "ns/mntns.h"
#include "ns/pidns.h"
#include "ns/pidns_fork.h"
#include "ns/userns.h"
#include "tap.h"
#include "testrep.h"
#include "testspec.h"

static char base[] = "/var/tmp/test-pidns.XXXXXX";

static int make_job(uint32_t job_id)
{
	static const char *const dirs[] = { "/tmp", NULL };
	struct mntns_spec spec = {
		.base_path = base,
		.job_id = job_id,
	};

	if (testspec_create(&spec, dirs, 0, 0, fresh()) < 0)
		return -1;
	if (pidns_create(base, job_id, NULL, fresh()) < 0) {
		mntns_delete(base, job_id);
		return -1;
	}
	return 0;
}

/* The PIDs /proc lists, up to max; how many, or -1. */
static int proc_pids(int *pids, int max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		int pid = atoi(e->d_name);

		if (pid > 0 && n < max)
			pids[n++] = pid;
	}
	closedir(d);
	return n;
}

static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	bool got;

	if (!f)
		return false;
	got = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (got)
		buf[strcspn(buf, "\n")] = '\0';
	return got;
}

/* What a job process finds; each failed check is one bit of its exit. */
enum finding {
	NOT_INSIDE = 1,		/* pidns_contains_self said no */
	NO_JOIN = 2,		/* could not join the mount namespace */
	FOREIGN_PIDS = 4,	/* /proc lists more than init and us */
	NO_SELF = 8,		/* /proc/self does not name us */
	NO_INIT = 16,		/* PID 1 is not devns-init */
	ORPHAN_LEFT = 32,	/* an orphan was not reaped by the init */
};

/* Fork a child whose child outlives it: the init must reap it. */
static bool orphan_reaped(void)
{
	int fds[2], pid = 0;
	char path[64];
	pid_t mid;

	if (pipe(fds) < 0 || (mid = fork()) < 0)
		return false;
	if (mid == 0) {
		pid_t orphan = fork();

		if (orphan == 0) {
			/* wait until the parent is gone, then end */
			while (getppid() != 1)
				usleep(1000);
			_exit(0);
		}
		(void)!write(fds[1], &orphan, sizeof(orphan));
		_exit(0);
	}
	waitpid(mid, NULL, 0);
	if (read(fds[0], &pid, sizeof(pid)) != sizeof(pid))
		return false;
	snprintf(path, sizeof(path), "/proc/%d", pid);
	for (int waited = 0; waited < TAP_WAIT_MS; waited++) {
		if (access(path, F_OK) < 0)
			return true;	/* ended and reaped: no zombie */
		usleep(1000);
	}
	return false;
}

static int job_process(uint32_t job_id)
{
	int found = 0, pids[16], n;
	char buf[64], self[16];

	if (pidns_contains_self(base, job_id) != 1)
		found |= NOT_INSIDE;
	if (mntns_join(base, job_id) < 0)
		return NO_JOIN;
	n = proc_pids(pids, 16);
	for (int i = 0; i < n; i++)
		if (pids[i] != 1 && pids[i] != getpid())
			found |= FOREIGN_PIDS;
	snprintf(self, sizeof(self), "%d", (int)getpid());
	if (readlink("/proc/self", buf, sizeof(buf) - 1) < 0 ||
	    strncmp(buf, self, strlen(self)))
		found |= NO_SELF;
	if (!read_line("/proc/1/comm", buf, sizeof(buf)) ||
	    strcmp(buf, PIDNS_INIT_NAME))
		found |= NO_INIT;
	if (!orphan_reaped())
		found |= ORPHAN_LEFT;
	return found;
}

/*
 * In a child: enter the job's PID namespace, check the entering process
 * stays outside, and run job_process in a grandchild.  Returns the
 * grandchild's findings, or 128 + what went wrong before it.
 */
static int run_in_job(uint32_t job_id)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		pid_t child;

		if (pidns_enter_for_children(base, job_id) < 0)
			_exit(129);
		if (pidns_contains_self(base, job_id) != 0)
			_exit(130);
		if ((child = fork()) == 0)
			_exit(job_process(job_id));
		if (child < 0 || waitpid(child, &status, 0) != child ||
		    !WIFEXITED(status))
			_exit(131);
		_exit(WEXITSTATUS(status));
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void test_inside(void)
{
	int found;

	if (!ok(make_job(11) == 0, "a job gets its PID namespace")) {
		diag("%s", rep.msg);
		return;
	}
	ok(pidns_exists(base, 11), "  pinned");
	found = run_in_job(11);
	is_int(found, 0, "a process born inside sees only the init and "
	       "itself, its /proc/self, devns-init as PID 1, orphans reaped");
	if (found > 0 && found < 128) {
		for (int bit = 1; bit < 64; bit <<= 1)
			if (found & bit)
				diag("finding %d", bit);
	}
	ok(pidns_contains_self(base, 11) == 0,
	   "the test itself is not inside");
	ok(mntns_delete(base, 11) == 0, "teardown");
}

/* The host PID of the only process in the job's PID namespace (its init). */
static pid_t find_init(uint32_t job_id)
{
	char pin[256], path[64];
	struct stat ns, st;
	int pids[4096], n;

	snprintf(pin, sizeof(pin), "%s/%u/%s", base, job_id,
		 JOBDIR_PIDNS_PIN);
	if (stat(pin, &ns) < 0 || (n = proc_pids(pids, 4096)) < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/proc/%d/ns/pid", pids[i]);
		if (stat(path, &st) == 0 && st.st_ino == ns.st_ino &&
		    st.st_dev == ns.st_dev)
			return pids[i];
	}
	return -1;
}

/* Gone or a zombie (its parent reaps it): it runs no more. */
static bool ended_within(pid_t pid, int ms)
{
	char path[64], state[512];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (int waited = 0; waited <= ms; waited += 10) {
		if (!read_line(path, state, sizeof(state)))
			return true;
		if (strstr(state, ") Z "))
			return true;
		usleep(10000);
	}
	return false;
}

static void test_teardown(void)
{
	char jobdir[256];
	pid_t init, stray, keeper;
	int fds[2];

	if (!ok(make_job(12) == 0, "another job gets one")) {
		diag("%s", rep.msg);
		return;
	}
	init = find_init(12);
	ok(init > 0, "its init runs (host pid %d)", (int)init);
	/*
	 * A process of the PID namespace that never joined the mount
	 * namespace: only the init's death takes it down.
	 */
	if (pipe(fds) < 0)
		return (void)ok(0, "pipe");
	if ((keeper = fork()) == 0) {
		pid_t p;

		close(fds[0]);
		if (pidns_enter_for_children(base, 12) < 0 ||
		    (p = fork()) < 0)
			_exit(1);
		if (p == 0) {
			close(fds[1]);
			pause();
			_exit(0);
		}
		(void)!write(fds[1], &p, sizeof(p));
		close(fds[1]);
		waitpid(p, NULL, 0);
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], &stray, sizeof(stray)) != sizeof(stray))
		stray = 0;
	ok(stray > 0 && kill(stray, 0) == 0,
	   "a stray process runs in it (pid %d)", (int)stray);
	close(fds[0]);
	ok(mntns_delete(base, 12) == 0, "teardown");
	ok(init > 0 && ended_within(init, TAP_WAIT_MS), "  ends the init");
	ok(stray > 0 && ended_within(stray, TAP_WAIT_MS),
	   "  and the process that never joined the mount namespace");
	waitpid(keeper, NULL, 0);
	ok(!pidns_exists(base, 12), "  unpins the PID namespace");
	snprintf(jobdir, sizeof(jobdir), "%s/12", base);
	ok(access(jobdir, F_OK) < 0 && errno == ENOENT,
	   "  and removes the job directory");
}

static void test_failures(void)
{
	char dir[256], pin[300];

	ok(pidns_create(base, 13, NULL, fresh()) < 0 && errno == ENOENT,
	   "no job directory: refused");
	like(rep.msg, "opening", "  saying so: %s", rep.msg);
	snprintf(dir, sizeof(dir), "%s/14", base);
	mkdir(dir, 0700);
	ok(pidns_create(base, 14, NULL, fresh()) < 0,
	   "a job directory without a mount namespace: refused");
	like(rep.msg, "joining the job's mount namespace",
	     "  by the init: %s", rep.msg);
	snprintf(pin, sizeof(pin), "%s/%s", dir, JOBDIR_PIDNS_PIN);
	ok(access(pin, F_OK) < 0 && errno == ENOENT, "  leaving no pin file");
	rmdir(dir);
	ok(pidns_enter_for_children(base, 15) < 0 && errno == ENOENT,
	   "entering a job without one: ENOENT");
	ok(pidns_contains_self(base, 15) < 0 && errno == ENOENT,
	   "asking about a job without one: ENOENT");
}

/*
 * A login (pam_devns): a process that joined the job's mount namespace
 * enters the PID namespace its /proc shows; one in the host's is left
 * alone.
 */
static int login_process(uint32_t job_id, bool join)
{
	pid_t child;
	int status, entered;

	if (join && mntns_join(base, job_id) < 0)
		return 100;
	entered = pidns_enter_from_proc();
	if (entered < 0)
		return 101;
	if ((child = fork()) == 0) {
		char buf[64];

		/* born inside: our own /proc/self; outside: host's init */
		if (!read_line("/proc/1/comm", buf, sizeof(buf)))
			_exit(2);
		if (readlink("/proc/self", buf, sizeof(buf)) < 0)
			_exit(3);
		_exit(0);
	}
	if (child < 0 || waitpid(child, &status, 0) != child ||
	    !WIFEXITED(status) || WEXITSTATUS(status))
		return 102;
	return entered;
}

static int run_login(uint32_t job_id, bool join)
{
	pid_t pid = fork();
	int status;

	if (pid == 0)
		_exit(login_process(job_id, join));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * A login's user namespace (pam_devns): after the PID namespace, the one
 * the job's init holds.  Exits 0 for none, 1 when the login is then in a
 * user namespace whose uid_map is the identity (as its child, born in
 * the PID namespace, reads it), 1xx for a failure.
 */
static int userns_login(uint32_t job_id)
{
	char map[128];
	int fd, rc, status;
	pid_t child;

	if (mntns_join(base, job_id) < 0)
		return 100;
	if (pidns_enter_from_proc() != 1)
		return 101;
	if ((rc = pidns_userns_from_proc(&fd)) <= 0)
		return rc < 0 ? 102 : 0;
	if (userns_enter(fd) < 0)
		return 103;
	/* Only its children are in the PID namespace, whose /proc we see. */
	if ((child = fork()) == 0)
		_exit(read_line("/proc/self/uid_map", map, sizeof(map)) &&
		      strstr(map, "4294967295") ? 0 : 1);
	if (child < 0 || waitpid(child, &status, 0) != child ||
	    !WIFEXITED(status) || WEXITSTATUS(status))
		return 104;
	return 1;
}

static int run_userns_login(uint32_t job_id)
{
	pid_t pid = fork();
	int status;

	if (pid == 0)
		_exit(userns_login(job_id));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* UserNamespace with PidNamespace: the init holds the user namespace. */
static void test_userns_login(void)
{
	static const char *const dirs[] = { "/tmp", NULL };
	struct mntns_spec spec = { .base_path = base, .job_id = 17 };
	pid_t init, reported = 0;
	struct stat init_ns, host_ns;
	char path[64];

	if (!ok(testspec_create(&spec, dirs, 0, 0, fresh()) == 0 &&
		userns_create(base, 17, 0, 0, NULL, NULL, fresh()) == 0 &&
		pidns_create(base, 17, &reported, fresh()) == 0,
		"a job with a user namespace and a PID namespace")) {
		diag("%s", rep.msg);
		mntns_delete(base, 17);
		return;
	}
	init = find_init(17);
	ok(init > 0 && reported == init,
	   "pidns_create gives its init's PID (%d; /proc shows %d)",
	   (int)reported, (int)init);
	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)init);
	ok(init > 0 && stat(path, &init_ns) == 0 &&
	   stat("/proc/self/ns/user", &host_ns) == 0 &&
	   init_ns.st_ino == host_ns.st_ino,
	   "its init stays in the host's user namespace");
	is_int(run_userns_login(17), 1,
	       "a login enters the user namespace the init holds, after the PID namespace");
	ok(mntns_delete(base, 17) == 0, "teardown");
}

static void test_login(void)
{
	if (!ok(make_job(16) == 0, "a job for logins")) {
		diag("%s", rep.msg);
		return;
	}
	is_int(run_login(16, true), 1, "a login in the job's mount namespace "
	       "enters its PID namespace, and its child sees itself");
	is_int(run_login(16, false), 0, "a login outside any job enters "
	       "nothing");
	is_int(run_userns_login(16), 0,
	       "a job without a user namespace gives its login none");
	ok(mntns_delete(base, 16) == 0, "teardown");
	test_userns_login();
}

/*
 * A process born outside (a TaskEpilog): pidns_fork_inside goes on in a
 * child inside; the caller stands in for it, passes signals on and ends
 * as it ends.
 */
static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

/* mode 0: exit 7 when inside; 1: wait for SIGUSR1, exit 9; 2: die by it */
static int outsider(uint32_t job_id, int mode, int ready_fd)
{
	if (pidns_fork_inside(base, job_id) < 0)
		_exit(100);
	if (pidns_contains_self(base, job_id) != 1)
		_exit(101);
	if (mode == 1)
		signal(SIGUSR1, on_usr1);
	(void)!write(ready_fd, "r", 1);
	if (mode == 0)
		_exit(7);
	while (!got_usr1)
		pause();
	_exit(9);
}

static int run_outsider(uint32_t job_id, int mode, bool signal_it)
{
	int fds[2], status;
	pid_t pid;
	char c;

	if (pipe(fds) < 0 || (pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		close(fds[0]);
		_exit(outsider(job_id, mode, fds[1]));
	}
	close(fds[1]);
	if (read(fds[0], &c, 1) != 1)
		c = 0;
	close(fds[0]);
	if (signal_it)
		kill(pid, SIGUSR1);	/* the stand-in, as slurmstepd would */
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status)
				 : 1000 + WTERMSIG(status);
}

static void test_fork_inside(void)
{
	if (!ok(make_job(17) == 0, "a job for processes born outside")) {
		diag("%s", rep.msg);
		return;
	}
	is_int(run_outsider(17, 0, false), 7, "one born outside goes on "
	       "inside; its stand-in ends with its exit status");
	is_int(run_outsider(17, 1, true), 9, "a signal to the stand-in "
	       "reaches it");
	is_int(run_outsider(17, 2, true), 1000 + SIGUSR1, "and one that "
	       "kills it ends the stand-in by the same signal");
	ok(mntns_delete(base, 17) == 0, "teardown");
	ok(pidns_fork_inside(base, 17) < 0 && errno == ENOENT,
	   "a job without one: no fork, ENOENT");
}

/*
 * The stand-in's child as slurmstepd's task epilog makes it: a process
 * group of its own (setpgid after the join) with a second process in it,
 * and root dropped, which clears PR_SET_PDEATHSIG.  Says 'r' when so.
 */
static _Noreturn void epilog_like(uint32_t job_id, int ready_fd)
{
	int pdeathsig = -1;
	char c = 'r';
	pid_t member;

	if (pidns_fork_inside(base, job_id) < 0)
		_exit(100);
	if (setpgid(0, 0) < 0 || (member = fork()) < 0)
		_exit(101);
	if (member == 0)
		for (;;)
			pause();
	if (setgid(65534) < 0 || setuid(65534) < 0)
		c = 'u';
	else if (prctl(PR_GET_PDEATHSIG, &pdeathsig) < 0 || pdeathsig != 0)
		c = 'p';
	(void)!write(ready_fd, &c, 1);
	for (;;)
		pause();
}

/* Whether every writer of the pipe is gone within ms. */
static bool writers_gone_within(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c;

	return poll(&p, 1, ms) == 1 && read(fd, &c, 1) == 0;
}

/*
 * slurmstepd ends a task epilog past its timeout with killpg(SIGKILL) on
 * the process it forked: here the stand-in.  Its child and the child's
 * group must die with it, as they would without the PID namespace.  Each
 * of them holds the write end of a pipe; the read end sees its end.
 */
static void test_killed_stand_in(void)
{
	int ready[2], alive[2];
	pid_t pid;
	char c = 0;

	if (!ok(make_job(18) == 0, "a job for a killed stand-in")) {
		diag("%s", rep.msg);
		return;
	}
	if (pipe(ready) < 0 || pipe(alive) < 0 || (pid = fork()) < 0) {
		ok(0, "pipes and a fork");
		return;
	}
	if (pid == 0) {
		close(ready[0]);
		close(alive[0]);
		epilog_like(18, ready[1]);
	}
	close(ready[1]);
	close(alive[1]);
	if (read(ready[0], &c, 1) != 1)
		c = 0;
	close(ready[0]);
	ok(c == 'r', "precondition: the child inside runs as nobody with no "
	   "death signal left, leading a group of two (said '%c')", c ? c : '-');
	/* As slurmstepd does: killpg on the PID of the process it forked. */
	ok(killpg(pid, SIGKILL) == 0, "killpg(stand-in, SIGKILL) reaches the "
	   "stand-in: it leads a process group of its own");
	if (kill(pid, 0) == 0)
		kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	ok(writers_gone_within(alive[0], 10000), "a stand-in killed with "
	   "SIGKILL takes its child and the child's group along");
	close(alive[0]);
	ok(mntns_delete(base, 18) == 0, "teardown");
}

static const char *missing(void)
{
	if (!tap_root())
		return "PID namespace tests need root";
	if (syscall(SYS_open_tree, -1, "", 0) < 0 && errno == ENOSYS)
		return "no open_tree(2) here (valgrind or a kernel before 5.12)";
	if (access("/proc/self/ns/pid_for_children", F_OK) < 0)
		return "no PID namespaces";
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
	test_inside();
	test_teardown();
	test_failures();
	test_login();
	test_fork_inside();
	test_killed_stand_in();
	ok(rmdir(base) == 0, "BasePath is empty at the end");
	return tap_done();
}
