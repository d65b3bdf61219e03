/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsgone.h - whether a mount namespace is gone, asked through
 * nsmembers_kill(), the call that cleanup makes.
 *
 * nsmembers_kill() returns 0 for a gone namespace before it searches /proc
 * for members, and fails where the search cannot run.  So a child chrooted
 * into an empty tmpfs, with no /proc, can tell the two apart: 0 for a
 * namespace that is gone, -1 for one that still exists (or has no id), and
 * it kills nothing.  Needs root; the namespace must carry an id.
 */
#ifndef DEVNS_NSGONE_H
#define DEVNS_NSGONE_H

#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ns/nsmembers.h"
#include "tap.h"

/* 1: ns is gone, 0: it still exists, -1: the child could not ask. */
static inline int ns_gone(const struct nsmembers_ns *ns)
{
	pid_t child = fork();
	int status;

	if (child == 0) {
		if (unshare(CLONE_NEWNS) < 0 ||
		    mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
		    mount("none", "/tmp", "tmpfs", 0, NULL) < 0 ||
		    chroot("/tmp") < 0 || chdir("/") < 0)
			_exit(10);
		_exit(nsmembers_kill(ns, 0) == 0 ? 1 : 0);
	}
	if (child < 0 || waitpid(child, &status, 0) != child ||
	    !WIFEXITED(status) || WEXITSTATUS(status) > 1) {
		diag("ns_gone: the child could not ask");
		return -1;
	}
	return WEXITSTATUS(status);
}

#endif /* DEVNS_NSGONE_H */
