/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * runscript.c - a site's script for a job, run as Slurm runs tmpfs's.
 * See runscript.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/runscript.h"
#include "util/vchild.h"

/* ---- the environment ------------------------------------------------- */

/* Append "name=value" to env[*n] (value NULL: nothing).  0 or -1. */
static int env_add(char **env, size_t *n, const char *name, const char *value)
{
	if (!value)
		return 0;
	if (asprintf(&env[*n], "%s=%s", name, value) < 0) {
		env[*n] = NULL;
		errno = ENOMEM;
		return -1;
	}
	(*n)++;
	return 0;
}

/* The most variables runscript_env() sets, and the list's NULL. */
#define ENV_MAX 13

char **runscript_env(const struct runscript_job *job)
{
	char **env = calloc(ENV_MAX + 1, sizeof(*env));
	char job_id[16], het[16], uid[24], gid[24], ns_pid[24];
	const struct runscript_job *s = job->has_step ? job : NULL;
	size_t n = 0;

	if (!env)
		return NULL;
	snprintf(job_id, sizeof(job_id), "%" PRIu32, job->job_id);
	snprintf(het, sizeof(het), "%" PRIu32, job->het_job_id);
	snprintf(uid, sizeof(uid), "%ju", (uintmax_t)job->uid);
	snprintf(gid, sizeof(gid), "%ju", (uintmax_t)job->gid);
	snprintf(ns_pid, sizeof(ns_pid), "%jd", (intmax_t)job->ns_pid);
	/* Slurm's order, which a script printing its environment shows. */
	if (env_add(env, &n, "SLURM_JOB_ID", job_id) < 0 ||
	    env_add(env, &n, "SLURM_CONF", job->slurm_conf) < 0 ||
	    env_add(env, &n, "SLURMD_NODENAME", job->node_name) < 0 ||
	    env_add(env, &n, "SLURM_JOB_MOUNTPOINT_SRC", job->mount_src) < 0 ||
	    env_add(env, &n, "SLURM_HET_JOB_ID",
		    s && s->het_job_id ? het : NULL) < 0 ||
	    env_add(env, &n, "SLURM_JOB_GID",
		    s && s->gid != (gid_t)-1 ? gid : NULL) < 0 ||
	    env_add(env, &n, "SLURM_JOB_UID", s ? uid : NULL) < 0 ||
	    env_add(env, &n, "SLURM_JOB_USER", s ? s->user_name : NULL) < 0 ||
	    env_add(env, &n, "SLURM_NODE_ALIASES",
		    s ? s->node_aliases : NULL) < 0 ||
	    env_add(env, &n, "SLURM_JOB_WORK_DIR", s ? s->work_dir : NULL) < 0 ||
	    env_add(env, &n, "SLURM_NS", job->ns_path) < 0 ||
	    env_add(env, &n, "SLURM_NS_PID", job->ns_pid ? ns_pid : NULL) < 0) {
		runscript_env_free(env);
		return NULL;
	}
	return env;
}

void runscript_env_free(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

/* ---- running it ------------------------------------------------------ */

struct child_args {
	const char *const *argv;
	char *const *env;
	int out_fd;		/* the pipe's write end */
	int fd3;		/* made the child's fd 3, or -1 */
};

/*
 * In the child (util/vchild.h: system calls only): a process group of its
 * own, so that the limit kills what it starts too; stdio; then nothing of
 * slurmd's open.
 */
static int child_exec(void *arg)
{
	const struct child_args *a = arg;
	int null_fd;

	if (setpgid(0, 0) < 0)
		return 127;
	null_fd = open("/dev/null", O_RDONLY);
	if (null_fd < 0 || dup2(null_fd, 0) < 0 || dup2(a->out_fd, 1) < 0 ||
	    dup2(a->out_fd, 2) < 0)
		return 127;
	/* dup2 onto itself would keep close-on-exec: clear it instead. */
	if (a->fd3 == 3 ? fcntl(3, F_SETFD, 0) < 0 :
	    a->fd3 >= 0 && dup2(a->fd3, 3) < 0)
		return 127;
	close_range(a->fd3 >= 0 ? 4 : 3, ~0U, 0);
	execve(a->argv[0], (char *const *)a->argv, a->env);
	return 127;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds left until deadline (-1: none), at least 0. */
static int left_ms(int64_t deadline)
{
	int64_t left;

	if (deadline < 0)
		return -1;
	left = deadline - now_ms();
	return left < 0 ? 0 : left > INT32_MAX ? INT32_MAX : (int)left;
}

/*
 * Read the script's output into res until it closes; returns 0 then, 1
 * when the deadline came first.
 */
static int output_read(int fd, int64_t deadline, struct runscript_result *res)
{
	size_t used = 0;
	char discard[512];

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int rc = poll(&pfd, 1, left_ms(deadline));
		ssize_t n;

		if (rc < 0 && errno == EINTR)
			continue;
		if (rc == 0)
			return 1;
		if (rc < 0)
			return 0;	/* cannot happen on one good fd */
		if (used + 1 < sizeof(res->output))
			n = read(fd, res->output + used,
				 sizeof(res->output) - 1 - used);
		else
			n = read(fd, discard, sizeof(discard));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		if (used + 1 < sizeof(res->output))
			used += (size_t)n;
		res->output[used] = '\0';
	}
}

/*
 * One line for the log: trailing white space dropped, every other control
 * byte (a newline included) made a space, so that nothing a script prints
 * can forge or hide a log line.
 */
static void output_flatten(char *out)
{
	size_t n = strlen(out);

	while (n && (unsigned char)out[n - 1] <= ' ')
		out[--n] = '\0';
	for (size_t i = 0; i < n; i++) {
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
			out[i] = ' ';
	}
}

/*
 * Wait for pid until deadline; returns 0 when reaped, 1 on the deadline,
 * -1 with errno when it cannot be waited for (another thread of the
 * caller reaped it: how it ended is unknown).
 */
static int reap(pid_t pid, int64_t deadline, int *status)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };

	for (;;) {
		pid_t rc = waitpid(pid, status, deadline < 0 ? 0 : WNOHANG);

		if (rc == pid)
			return 0;
		if (rc < 0 && errno != EINTR)
			return -1;
		if (rc == 0 && left_ms(deadline) == 0)
			return 1;
		if (rc == 0)
			nanosleep(&tick, NULL);
	}
}

/* The limit: the group first asked, then killed (Slurm's _kill_pg). */
static void group_kill(pid_t pgid, int *status)
{
	const struct timespec grace = { 0, 10 * 1000 * 1000 };

	(void)kill(-pgid, SIGTERM);
	nanosleep(&grace, NULL);
	(void)kill(-pgid, SIGKILL);
	while (waitpid(pgid, status, 0) < 0 && errno == EINTR)
		;
}

int runscript_run(const char *path, char *const env[], unsigned timeout_s,
		  struct runscript_result *res)
{
	const char *const argv[] = { path, NULL };

	return runscript_exec(argv, env, -1, timeout_s, res);
}

int runscript_exec(const char *const argv[], char *const env[], int fd3,
		   unsigned timeout_s, struct runscript_result *res)
{
	struct child_args a = { .argv = argv, .env = env, .fd3 = fd3 };
	int64_t deadline = timeout_s ? now_ms() + (int64_t)timeout_s * 1000
				     : -1;
	int fds[2], rc = 0;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	if (!argv || !argv[0] || !env || (fd3 >= 0 && fd3 < 3)) {
		errno = EINVAL;
		return -1;
	}
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	a.out_fd = fds[1];
	pid = vchild_run(child_exec, &a);
	close(fds[1]);
	if (pid < 0) {
		int saved = errno;

		close(fds[0]);
		errno = saved;
		return -1;
	}
	/* The child ran setpgid() before its exec, which vchild waited for. */
	if (output_read(fds[0], deadline, res) == 1 ||
	    (rc = reap(pid, deadline, &res->status)) == 1) {
		res->timed_out = true;
		group_kill(pid, &res->status);
	}
	close(fds[0]);
	output_flatten(res->output);
	if (rc < 0) {
		/* Not known to have succeeded: the caller fails closed. */
		errno = ECHILD;
		return -1;
	}
	return 0;
}

void runscript_describe(const struct runscript_result *res,
			unsigned timeout_s, char *buf, size_t len)
{
	if (res->timed_out)
		snprintf(buf, len, "killed after its time limit of %u s",
			 timeout_s);
	else if (WIFSIGNALED(res->status))
		snprintf(buf, len, "killed by signal %d",
			 WTERMSIG(res->status));
	else
		snprintf(buf, len, "exit status %d", WEXITSTATUS(res->status));
}
