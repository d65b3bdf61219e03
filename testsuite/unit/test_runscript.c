/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_runscript.c - unit tests of util/runscript: the environment holds
 * the variables tmpfs's scripts get and nothing of ours; a script's exit
 * status and output come back; one that runs past its limit is killed
 * with everything it started in its process group, at the limit; one
 * that cannot be executed exits 127; no descriptor of ours reaches it.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/runscript.h"
#include "tap.h"

static char dir[] = "/tmp/test_runscript.XXXXXX";

/* Write an executable script at dir/name; returns its path (static). */
static const char *script(const char *name, const char *body)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(f = fopen(path, "w")))
		return NULL;
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	chmod(path, 0755);
	return path;
}

/*
 * Whether pid runs: gone, or a zombie (killed, and not ours to reap: it
 * waits for an init that may be slow to, or never does in a container)
 * is not running.
 */
static bool runs(long pid)
{
	char path[64], stat[256];
	const char *state;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (!(f = fopen(path, "r")))
		return false;
	n = fread(stat, 1, sizeof(stat) - 1, f);
	fclose(f);
	stat[n] = '\0';
	state = strrchr(stat, ')');
	return state && state[1] == ' ' && state[2] != 'Z' && state[2] != 'X';
}

static bool env_has(char **env, const char *entry)
{
	for (size_t i = 0; env && env[i]; i++)
		if (!strcmp(env[i], entry))
			return true;
	return false;
}

static size_t env_count(char **env)
{
	size_t n = 0;

	while (env && env[n])
		n++;
	return n;
}

static void test_env(void)
{
	struct runscript_job job = {
		.job_id = 42, .slurm_conf = "/etc/slurm/slurm.conf",
		.node_name = "n1", .mount_src = "/var/devns/42",
		.has_step = true, .uid = 1000, .gid = 100, .user_name = "alice",
		.work_dir = "/home/alice", .ns_path = "/var/devns/42/.ns",
	};
	char **env = runscript_env(&job);

	ok(env_has(env, "SLURM_JOB_ID=42") && env_has(env, "SLURMD_NODENAME=n1")
	   && env_has(env, "SLURM_CONF=/etc/slurm/slurm.conf")
	   && env_has(env, "SLURM_JOB_MOUNTPOINT_SRC=/var/devns/42"),
	   "env: the job's id, node, slurm.conf and directory");
	ok(env_has(env, "SLURM_JOB_UID=1000") && env_has(env, "SLURM_JOB_GID=100")
	   && env_has(env, "SLURM_JOB_USER=alice")
	   && env_has(env, "SLURM_JOB_WORK_DIR=/home/alice"),
	   "env: the step's user, group and working directory");
	ok(env_has(env, "SLURM_NS=/var/devns/42/.ns"), "env: SLURM_NS");
	ok(env_count(env) == 9, "env: nothing else (no het job, no aliases): %zu",
	   env_count(env));
	runscript_env_free(env);

	/* CloneNSEpilog's: no step record, no namespace-less variables. */
	job.has_step = false;
	job.mount_src = NULL;
	job.het_job_id = 7;
	env = runscript_env(&job);
	ok(env_count(env) == 4 && !env_has(env, "SLURM_JOB_UID=1000") &&
	   !env_has(env, "SLURM_HET_JOB_ID=7"),
	   "env without a step: job id, conf, node, SLURM_NS only");
	runscript_env_free(env);
	job.has_step = true;
	job.gid = (gid_t)-1;
	env = runscript_env(&job);
	ok(env_has(env, "SLURM_HET_JOB_ID=7") &&
	   !env_has(env, "SLURM_JOB_GID=4294967295"),
	   "env: a het job's id; an unknown gid left out");
	runscript_env_free(env);
}

static void test_run(void)
{
	char *env[] = { "SLURM_JOB_ID=5", "SLURM_NS=/x/.ns", NULL };
	struct runscript_result res;
	char out[64], what[128];
	const char *p;
	int fd;

	p = script("env.sh", "env | sort; echo to-stderr >&2; exit 3");
	ok(runscript_run(p, env, 10, &res) == 0, "a script runs");
	ok(WIFEXITED(res.status) && WEXITSTATUS(res.status) == 3 &&
	   !res.timed_out, "its exit status comes back");
	ok(strstr(res.output, "SLURM_JOB_ID=5 ") &&
	   strstr(res.output, "SLURM_NS=/x/.ns ") &&
	   strstr(res.output, "to-stderr"), "stdout and stderr are captured");
	ok(!strchr(res.output, '\n') &&
	   res.output[strlen(res.output) - 1] == 'r',
	   "  as one line: newlines made spaces, the trailing one dropped");
	/* sh sets PWD, SHLVL and _ itself; HOME or PATH would be ours. */
	ok(!strstr(res.output, "HOME=") && !strstr(res.output, "USER="),
	   "nothing of the caller's environment");
	runscript_describe(&res, 10, what, sizeof(what));
	ok(!strcmp(what, "exit status 3"), "described: %s", what);

	/* A descriptor of ours, not close-on-exec, must not reach it. */
	fd = open("/dev/null", O_RDONLY);
	snprintf(out, sizeof(out), "test -e /proc/self/fd/%d && exit 1; "
		 "read x; exit 0", fd);
	p = script("fds.sh", out);
	ok(runscript_run(p, env, 10, &res) == 0 && res.status == 0,
	   "no descriptor of the caller's; stdin is /dev/null");
	close(fd);

	p = script("not-executable.sh", "exit 0");
	chmod(p, 0644);
	ok(runscript_run(p, env, 10, &res) == 0 &&
	   WIFEXITED(res.status) && WEXITSTATUS(res.status) == 127,
	   "a script that cannot be executed exits 127");
}

static void test_timeout(void)
{
	char *env[] = { NULL };
	struct runscript_result res;
	char body[512], what[128];
	struct timespec t0, t1;
	const char *p;
	FILE *f;
	long bg = 0;
	double took;

	/* The background child holds no output: only the group kill ends it. */
	snprintf(body, sizeof(body),
		 "sleep 30 >/dev/null 2>&1 & echo $! > %s/bg.pid; "
		 "echo started; sleep 30", dir);
	p = script("slow.sh", body);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ok(runscript_run(p, env, 1, &res) == 0, "a slow script runs");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	took = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	ok(res.timed_out && took >= 0.9 && took < 5,
	   "it is killed at its limit of 1 s (after %.2f s)", took);
	ok(strstr(res.output, "started") != NULL,
	   "its output before the limit is kept");
	runscript_describe(&res, 1, what, sizeof(what));
	ok(!strcmp(what, "killed after its time limit of 1 s"), "described: %s",
	   what);
	snprintf(body, sizeof(body), "%s/bg.pid", dir);
	if ((f = fopen(body, "r"))) {
		if (fscanf(f, "%ld", &bg) != 1)
			bg = 0;
		fclose(f);
	}
	ok(bg > 0, "the script's background child was started (pid %ld)", bg);
	/* The check below would pass on a pid that never ran: prove it. */
	p = script("bg.sh", "sleep 30 >/dev/null 2>&1 & echo $!");
	if (runscript_run(p, env, 5, &res) == 0) {
		long other = atol(res.output);

		ok(other > 0 && runs(other),
		   "a background child outlives a script that ends in time");
		if (other > 0)
			kill((pid_t)other, SIGKILL);
	}
	if (bg > 0) {
		for (int i = 0; i < 100 && runs(bg); i++)
			usleep(10000);
		ok(!runs(bg),
		   "its background child is killed with its process group");
	}

	/*
	 * A script reaped behind our back (here by the kernel, SIGCHLD
	 * ignored; in slurmstepd another thread could) did not succeed as
	 * far as we know: an error, never a success.
	 */
	p = script("reaped.sh", "exit 0");
	signal(SIGCHLD, SIG_IGN);
	errno = 0;
	ok(runscript_run(p, env, 5, &res) == -1 && errno == ECHILD,
	   "a script reaped by another is an error (ECHILD), not a success");
	signal(SIGCHLD, SIG_DFL);

	/* No limit: waits for the end, however long (here short). */
	p = script("quick.sh", "sleep 0.2; exit 0");
	ok(runscript_run(p, env, 0, &res) == 0 && res.status == 0 &&
	   !res.timed_out, "a limit of 0 waits for the script's end");
}

/* runscript_exec: arguments, and one file of the caller's as fd 3. */
static void test_exec(void)
{
	char *env[] = { NULL };
	struct runscript_result res;
	char path[PATH_MAX];
	int fd, other;

	snprintf(path, sizeof(path), "%s/fd3", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	other = open("/dev/null", O_RDONLY);
	ok(fd > 3 && other > 3 && write(fd, "given", 5) == 5,
	   "precondition: a file of ours, close-on-exec, above fd 3");
	{
		char probe[160];
		const char *argv[] = { "/bin/sh", "-c", probe, "sh", "word",
				       NULL };

		snprintf(probe, sizeof(probe), "echo $1; cat /dev/fd/3; "
			 "test -e /proc/self/fd/%d && echo leaked; exit 0",
			 other);
		ok(runscript_exec(argv, env, fd, 10, &res) == 0 &&
		   res.status == 0, "a program runs with its arguments");
		ok(!strcmp(res.output, "word given"),
		   "  its argument, the file as fd 3, no other fd of ours: %s",
		   res.output);
		errno = 0;
		ok(runscript_exec(argv, env, 2, 10, &res) == -1 &&
		   errno == EINVAL, "an fd 3 below 3 is refused");
	}
	close(other);
	close(fd);
}

int main(void)
{
	char cmd[128];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_env();
	test_run();
	test_timeout();
	test_exec();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		diag("could not remove %s", dir);
	return tap_done();
}
