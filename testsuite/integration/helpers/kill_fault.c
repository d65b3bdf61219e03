/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kill_fault.c - LD_PRELOAD fault injection: a slurmstepd killed in the
 * middle of setting up a job's namespace.
 *
 * Loaded into slurmd (and so into the slurmstepd it starts) with
 * DEVNS_FAULT=kill_after_unshare: once the child that builds the job's
 * namespace has unshared it, and before the parent pins it, the child
 * sends SIGKILL to its parent, the slurmstepd doing the setup, as a
 * `kill -9` of the step at that moment would.  Every other unshare(2)
 * passes through unchanged.  With DEVNS_FAULT_LOG=FILE it first appends a
 * line to FILE, "kill_after_unshare: SIGKILL to PID (COMM)", so that a
 * test can prove the fault fired before it asserts what followed.  A test
 * tool: never installed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Appends the fault's line for the process about to be killed to
 * DEVNS_FAULT_LOG, when set. */
static void note_fault(pid_t victim)
{
	const char *log = getenv("DEVNS_FAULT_LOG");
	char path[64], comm[64] = "?", line[160];
	ssize_t n;
	int fd;

	if (!log)
		return;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)victim);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(fd, comm, sizeof(comm) - 1);
		comm[n > 0 ? n : 0] = '\0';
		comm[strcspn(comm, "\n")] = '\0';
		close(fd);
	}
	n = snprintf(line, sizeof(line),
		     "kill_after_unshare: SIGKILL to %d (%s)\n", (int)victim,
		     comm);
	fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0) {
		(void)!write(fd, line, (size_t)n);
		close(fd);
	}
}

int unshare(int flags)
{
	static int (*real_unshare)(int);
	const char *fault = getenv("DEVNS_FAULT");
	int rc;

	if (!real_unshare)
		real_unshare = (int (*)(int))dlsym(RTLD_NEXT, "unshare");
	rc = real_unshare(flags);
	if (rc == 0 && (flags & CLONE_NEWNS) && fault &&
	    !strcmp(fault, "kill_after_unshare")) {
		note_fault(getppid());
		kill(getppid(), SIGKILL);
	}
	return rc;
}
