/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fake_proc_devices.c - LD_PRELOAD helper that gives one slurmd a
 * /proc/devices of the test's making, for device classes this machine's
 * kernel does not register (AMD's "drm" and "kfd": test_devices_amd.sh).
 *
 * Loaded into slurmd with DEVNS_FAKE_PROC_DEVICES=FILE, its constructor
 * moves slurmd, before it does anything, into a mount namespace of its
 * own and binds FILE over /proc/devices there.  The slurmstepd slurmd
 * starts, and the job namespaces devns makes from them, inherit it; the
 * host and every other slurmd keep the kernel's file.  Only /proc is made
 * private in the new namespace, so that the bind does not travel back to
 * the host's /proc; every other mount keeps its propagation, and the
 * mounts devns makes under BasePath are seen from the host as they are
 * for the other nodes.  In any other program (the nsenter, unshare and sh
 * that start slurmd, slurmstepd) it does nothing.  When the bind cannot
 * be made slurmd is not started (exit 1, the reason on stderr): a test
 * must not run on the kernel's file believing it runs on its own.
 *
 * A test tool: never installed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

static void fail(const char *what, const char *file)
{
	fprintf(stderr, "fake_proc_devices: %s %s: %s\n", what, file,
		strerror(errno));
	_exit(1);
}

__attribute__((constructor))
static void fake_proc_devices(void)
{
	const char *file = getenv("DEVNS_FAKE_PROC_DEVICES");

	if (!file || !*file || strcmp(program_invocation_short_name, "slurmd"))
		return;
	if (unshare(CLONE_NEWNS) < 0)
		fail("unshare(CLONE_NEWNS) for", file);
	if (mount(NULL, "/proc", NULL, MS_PRIVATE, NULL) < 0)
		fail("making /proc private for", file);
	if (mount(file, "/proc/devices", NULL, MS_BIND, NULL) < 0)
		fail("binding over /proc/devices:", file);
}
