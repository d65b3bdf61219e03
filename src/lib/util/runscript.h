/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * runscript.h - run a site's script for a job as Slurm runs
 * job_container/tmpfs's (InitScript, CloneNSScript, CloneNSEpilog): as the
 * caller (root), with only the variables Slurm sets, stdin from /dev/null,
 * stdout and stderr captured, in a process group of its own that is
 * killed at the time limit.
 *
 * Why not Slurm's run_command(): its arguments and behaviour change from
 * release to release, and the plugin runs on all of them; this is one
 * behaviour, tested without Slurm.
 */
#ifndef DEVNS_RUNSCRIPT_H
#define DEVNS_RUNSCRIPT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* What job_container/tmpfs puts into its scripts' environment. */
struct runscript_job {
	uint32_t job_id;		/* SLURM_JOB_ID, always */
	const char *slurm_conf;		/* SLURM_CONF */
	const char *node_name;		/* SLURMD_NODENAME */
	const char *mount_src;		/* SLURM_JOB_MOUNTPOINT_SRC */
	/* from the step record (tmpfs: 23.02 on; not for CloneNSEpilog) */
	bool has_step;
	uint32_t het_job_id;		/* SLURM_HET_JOB_ID, 0: none */
	uid_t uid;			/* SLURM_JOB_UID */
	gid_t gid;			/* SLURM_JOB_GID, (gid_t)-1: unknown */
	const char *user_name;		/* SLURM_JOB_USER */
	const char *node_aliases;	/* SLURM_NODE_ALIASES */
	const char *work_dir;		/* SLURM_JOB_WORK_DIR */
	const char *ns_path;		/* SLURM_NS: the namespace's pin */
	pid_t ns_pid;			/* SLURM_NS_PID, 0: none (UserNsScript:
					 * a process in the new user
					 * namespace, as namespace/linux) */
};

/*
 * The environment of a script for job: "NAME=value" strings, NULL-
 * terminated, each variable of job that is set (a NULL string is left
 * out, as are the step's variables without has_step); nothing of the
 * caller's environment.  Returns a list to free with runscript_env_free(),
 * or NULL with errno (ENOMEM).
 */
char **runscript_env(const struct runscript_job *job);

void runscript_env_free(char **env);

/* The first bytes of a script's output that runscript_run() keeps. */
#define RUNSCRIPT_OUTPUT_MAX 1024

struct runscript_result {
	int status;		/* waitpid(2)'s: 0 is success */
	bool timed_out;		/* killed at the time limit */
	/* stdout and stderr, cut, as one line: control bytes made spaces */
	char output[RUNSCRIPT_OUTPUT_MAX];
};

/*
 * Run path (argv: path alone) with env, stdin /dev/null, stdout and stderr
 * into res->output, in a new process group, no descriptor of the caller
 * beyond those three.  It ends when the script's output closes and the
 * script has exited, or at timeout_s seconds (0: no limit), when its
 * process group gets SIGTERM and 10 ms later SIGKILL, as Slurm's
 * run_command() does: what it left running in the background is killed
 * with it.  A script that cannot be executed exits 127.  Returns 0 with
 * res filled (res->status says how it ended), or -1 with errno when it
 * could not be started, or ECHILD when another thread reaped it (how it
 * ended is unknown).  Safe in a multithreaded caller.
 */
int runscript_run(const char *path, char *const env[], unsigned timeout_s,
		  struct runscript_result *res);

/*
 * runscript_run() of a program with arguments: argv[0] is its path (argv
 * NULL-terminated), and fd3 (at least 3; -1: none) is its fd 3, for a
 * program given a file of the caller's by its fd ("/dev/fd/3"), never by
 * a path walked again.  Otherwise as runscript_run().
 */
int runscript_exec(const char *const argv[], char *const env[], int fd3,
		   unsigned timeout_s, struct runscript_result *res);

/*
 * Write how the script of res ended into buf[len]: "exit status 3",
 * "killed by signal 9" or "killed after its time limit of 10 s".
 */
void runscript_describe(const struct runscript_result *res,
			unsigned timeout_s, char *buf, size_t len);

#endif /* DEVNS_RUNSCRIPT_H */
