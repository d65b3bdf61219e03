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
 * passes through unchanged.  A test tool: never installed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int unshare(int flags)
{
	static int (*real_unshare)(int);
	const char *fault = getenv("DEVNS_FAULT");
	int rc;

	if (!real_unshare)
		real_unshare = (int (*)(int))dlsym(RTLD_NEXT, "unshare");
	rc = real_unshare(flags);
	if (rc == 0 && (flags & CLONE_NEWNS) && fault &&
	    !strcmp(fault, "kill_after_unshare"))
		kill(getppid(), SIGKILL);
	return rc;
}
