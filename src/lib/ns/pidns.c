/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pidns.c - a job's PID namespace: its init, its /proc, its pin.
 *
 * Three processes take part in pidns_create.  The caller forks a child,
 * which stays in the host's namespaces and unshares CLONE_NEWPID: only
 * its own children are born inside.  It forks the init, which is PID 1
 * of the new namespace, joins the job's mount namespace and mounts the
 * namespace's proc there.  The child pins the namespace once the init
 * says it is ready: while the init is the child's unreaped child its PID
 * cannot name another process, so /proc/<init>/ns/pid is the right one.
 * Then the child exits and the init is inherited by whoever reaps
 * orphans on the node.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <linux/nsfs.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf/jobdir.h"
#include "conf/nsconf.h"
#include "ns/mntns.h"
#include "ns/pidns.h"
#include "ns/userns.h"
#include "util/fdutil.h"

#define PIN_NAME JOBDIR_PIDNS_PIN

/* Where pidns_create failed, as the child reports it. */
enum step {
	STEP_OK,
	STEP_UNSHARE,
	STEP_FORK_INIT,
	STEP_USERNS,
	STEP_JOIN_MNTNS,
	STEP_MOUNT_PROC,
	STEP_PIN,
};

static const char *const step_names[] = {
	[STEP_OK] = "ok",
	[STEP_UNSHARE] = "unshare(CLONE_NEWPID)",
	[STEP_FORK_INIT] = "starting the namespace's init",
	[STEP_USERNS] = "opening the job's user namespace (init)",
	[STEP_JOIN_MNTNS] = "joining the job's mount namespace (init)",
	[STEP_MOUNT_PROC] = "mounting the job's /proc (init)",
	[STEP_PIN] = "pinning the PID namespace",
};

struct result {
	int step;
	int err;
	pid_t init;	/* the init's PID in the caller's namespace */
};

/* Open the pin of the job's PID namespace; -1 with ENOENT when none is. */
static int pin_open(const char *base_path, uint32_t job_id, struct stat *ns)
{
	return mntns_pin_open(base_path, job_id, PIN_NAME, ns);
}

bool pidns_exists(const char *base_path, uint32_t job_id)
{
	int fd = pin_open(base_path, job_id, NULL);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/*
 * The init's life: reap every orphan of the job until killed.  It blocks
 * every signal: as PID 1 it gets none from inside its namespace anyway,
 * and from outside only SIGKILL, the teardown's, is meant for it.
 */
static void init_loop(void)
{
	sigset_t all, chld;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	for (;;) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		sigwaitinfo(&chld, NULL);
	}
}

/* Move fd out of 0..PIDNS_INIT_USERNS_FD, which init_detach reassigns. */
static int fd_above_reserved(int fd)
{
	int moved;

	if (fd < 0 || fd > PIDNS_INIT_USERNS_FD)
		return fd;
	moved = fcntl(fd, F_DUPFD_CLOEXEC, PIDNS_INIT_USERNS_FD + 1);
	return moved < 0 ? fd : moved;
}

/*
 * Stdio on /dev/null, the job's user namespace (if any) as
 * PIDNS_INIT_USERNS_FD, and nothing else open but keep_fd (the ready
 * pipe, moved above the reserved numbers): the init holds no other fd of
 * the job.  Returns keep_fd's number now.
 */
static int init_detach(int userns_fd, int keep_fd)
{
	int fd;

	userns_fd = fd_above_reserved(userns_fd);
	keep_fd = fd_above_reserved(keep_fd);
	if ((fd = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
	}
	if (userns_fd >= 0)
		dup2(userns_fd, PIDNS_INIT_USERNS_FD);
	else
		close(PIDNS_INIT_USERNS_FD);
	if (keep_fd > PIDNS_INIT_USERNS_FD + 1)
		close_range(PIDNS_INIT_USERNS_FD + 1, keep_fd - 1, 0);
	close_range(keep_fd + 1, ~0U, 0);
	return keep_fd;
}

/*
 * The init stays in the host's user namespace (a job user who is root in
 * the job's could otherwise trace it, a kuid-0 process) and only holds
 * the job's, for the logins pam_devns puts into the job
 * (pidns_userns_from_proc): opened before the mount namespace hides
 * BasePath.  Its fds are arranged before it says it is ready: a login
 * that reads /proc/1/fd/PIDNS_INIT_USERNS_FD as soon as the job runs must
 * find the job's user namespace or nothing, never an fd inherited from
 * the process that forked the init.
 */
static void init_main(const char *base_path, uint32_t job_id, int ready_fd)
{
	struct result res = { .step = STEP_OK };
	int userns_fd;

	setsid();
	prctl(PR_SET_NAME, PIDNS_INIT_NAME, 0, 0, 0);
	userns_fd = userns_open(base_path, job_id);
	if (userns_fd < 0 && errno != ENOENT) {
		res.step = STEP_USERNS;
	} else if (mntns_join(base_path, job_id) < 0) {
		res.step = STEP_JOIN_MNTNS;
	} else if (mount("proc", "/proc", "proc",
			 MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
		res.step = STEP_MOUNT_PROC;
	}
	res.err = res.step ? errno : 0;
	if (!res.step)
		ready_fd = init_detach(userns_fd, ready_fd);
	(void)!write(ready_fd, &res, sizeof(res));
	if (res.step)
		_exit(1);
	close(ready_fd);
	if (chdir("/") < 0)
		_exit(1);
	init_loop();
}

/* Bind the namespace of process pid onto the pin file held as pin_fd. */
static int pin_namespace(pid_t pid, int pin_fd)
{
	char proc[64], target[64];

	snprintf(proc, sizeof(proc), "/proc/%d/ns/pid", (int)pid);
	snprintf(target, sizeof(target), "/proc/self/fd/%d", pin_fd);
	return mount(proc, target, "none", MS_BIND, NULL);
}

/*
 * The forked child: make the namespace, start its init, pin it, report.
 * The init's verdict comes to us on init_pipe, ours goes to report_fd.
 */
static void child_main(const char *base_path, uint32_t job_id, int pin_fd,
		       int report_fd)
{
	struct result res = { .step = STEP_OK };
	int init_pipe[2];
	pid_t init;

	if (unshare(CLONE_NEWPID) < 0) {
		res = (struct result){ .step = STEP_UNSHARE, .err = errno };
		goto out;
	}
	if (pipe2(init_pipe, O_CLOEXEC) < 0) {
		res = (struct result){ .step = STEP_FORK_INIT, .err = errno };
		goto out;
	}
	init = fork();
	if (init < 0) {
		res = (struct result){ .step = STEP_FORK_INIT, .err = errno };
		goto out;
	}
	if (init == 0) {
		close(init_pipe[0]);
		init_main(base_path, job_id, init_pipe[1]);
	}
	close(init_pipe[1]);
	if (read(init_pipe[0], &res, sizeof(res)) != sizeof(res))
		res = (struct result){ .step = STEP_FORK_INIT, .err = EIO };
	if (res.step == STEP_OK && pin_namespace(init, pin_fd) < 0)
		res = (struct result){ .step = STEP_PIN, .err = errno };
	if (res.step != STEP_OK) {
		kill(init, SIGKILL);
		waitpid(init, NULL, 0);
	} else {
		res.init = init;
	}
out:
	(void)!write(report_fd, &res, sizeof(res));
	_exit(res.step == STEP_OK ? 0 : 1);
}

/*
 * Fork child_main and collect its verdict: 0 with the init's PID in *init,
 * or -1 with errno and rep.
 */
static int run_child(const char *base_path, uint32_t job_id, int pin_fd,
		     pid_t *init, struct report *rep)
{
	struct result res = { .step = STEP_FORK_INIT, .err = EIO };
	int report[2], status;
	pid_t pid;

	if (pipe2(report, O_CLOEXEC) < 0)
		return report_errno(rep, errno, "pipe");
	pid = fork();
	if (pid < 0) {
		int saved = errno;

		close(report[0]);
		close(report[1]);
		return report_errno(rep, saved, "fork");
	}
	if (pid == 0) {
		close(report[0]);
		child_main(base_path, job_id, pin_fd, report[1]);
	}
	close(report[1]);
	if (read(report[0], &res, sizeof(res)) != sizeof(res))
		res = (struct result){ .step = STEP_FORK_INIT, .err = EIO };
	close(report[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (res.step == STEP_OK) {
		*init = res.init;
		return 0;
	}
	return report_errno(rep, res.err ? res.err : EIO, "%s",
			    step_names[res.step]);
}

struct job {
	const char *base_path;
	uint32_t job_id;
	pid_t *init;
};

static int fill_pin(int pin_fd, void *arg, struct report *rep)
{
	const struct job *j = arg;

	return run_child(j->base_path, j->job_id, pin_fd, j->init, rep);
}

int pidns_create(const char *base_path, uint32_t job_id, pid_t *init,
		 struct report *rep)
{
	pid_t ignored;
	struct job j = { base_path, job_id, init ? init : &ignored };

	return mntns_pin_make(base_path, job_id, PIN_NAME, fill_pin, &j, rep);
}

/* The calling thread's children go to the PID namespace fd (closed). */
static int children_into(int fd)
{
	int rc;

	if (fd < 0)
		return -1;
	rc = setns(fd, CLONE_NEWPID);
	fdutil_close(fd);
	return rc;
}

int pidns_enter_for_children(const char *base_path, uint32_t job_id)
{
	return children_into(pin_open(base_path, job_id, NULL));
}

int pidns_leave_for_children(void)
{
	return children_into(open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC));
}

int pidns_contains_self(const char *base_path, uint32_t job_id)
{
	struct stat job, self;
	int fd = pin_open(base_path, job_id, &job);

	if (fd < 0)
		return -1;
	close(fd);
	if (stat("/proc/self/ns/pid", &self) < 0)
		return -1;
	return job.st_dev == self.st_dev && job.st_ino == self.st_ino;
}

/*
 * Whether PID 1 of the /proc we see is a job's devns-init: the host's
 * init, or a job's when this mount namespace is a job's with
 * PidNamespace.  No user can be PID 1 of a proc mount root can see, nor
 * mount another over a job's /proc.  Returns 1, 0, or -1 with errno.
 */
static int proc_shows_job_init(void)
{
	char comm[32] = "";
	ssize_t n;
	int fd;

	fd = open("/proc/1/comm", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, comm, sizeof(comm) - 1);
	close(fd);
	if (n < 0)
		return -1;
	comm[strcspn(comm, "\n")] = '\0';
	return strcmp(comm, PIDNS_INIT_NAME) == 0;
}

int pidns_enter_from_proc(void)
{
	int rc = proc_shows_job_init();

	if (rc <= 0)
		return rc;
	return children_into(open("/proc/1/ns/pid", O_RDONLY | O_CLOEXEC)) < 0
		       ? -1 : 1;
}

int pidns_userns_from_proc(int *fd)
{
	char path[64];
	int rc = proc_shows_job_init();

	*fd = -1;
	if (rc <= 0)
		return rc;
	snprintf(path, sizeof(path), "/proc/1/fd/%d", PIDNS_INIT_USERNS_FD);
	if ((*fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return errno == ENOENT ? 0 : -1;
	if (ioctl(*fd, NS_GET_NSTYPE) != CLONE_NEWUSER) {
		fdutil_close(*fd);
		*fd = -1;
		errno = EINVAL;
		return -1;
	}
	return 1;
}
