/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nstmpfs.h - a job's private tmpfs mounts, emptied at its teardown.
 *
 * A job's /dev/shm (and a TmpSize /tmp, and tmpfs Dirs entries) is a tmpfs
 * that lives in its mount namespace only, but an fd of its directory
 * outlives the namespace: a job that sent one to another job of the same
 * user (SCM_RIGHTS) would let that one read and write the ended job's files
 * for as long as it likes, and keep the tmpfs's memory allocated.  So the
 * teardown, while it still holds the namespace, takes each such mount out
 * of it: made read-only (no more writes through any fd of that mount),
 * detached, and then emptied through a clone of it, which frees the pages
 * of every file that no one holds open.
 *
 * Which mounts are devns's: mntns_create records their mount points in
 * BasePath/<jobid>/NSCONF_TMPFS_RECORD_NAME ("PATH" lines); teardown acts
 * only on a recorded path where it finds the root of a tmpfs mount, found
 * again without following links.
 */
#ifndef DEVNS_NSTMPFS_H
#define DEVNS_NSTMPFS_H

#include <stddef.h>

#include "ns/nsconf.h"

/* The clones of the mounts taken out, for nstmpfs_empty(). */
struct nstmpfs_held {
	int fds[NSCONF_MAX_DIRS];
	int count;
};

/*
 * Record the mount points points[0..n) (absolute paths) of the job's
 * tmpfs mounts in the job directory jobfd; n 0 writes nothing.  Returns 0,
 * or -1 with errno.
 */
int nstmpfs_record(int jobfd, const char *const *points, size_t n);

/*
 * In a child that enters the namespace ns_fd: for each mount point that
 * BasePath/name records (deepest first), when a tmpfs is mounted there,
 * make that mount read-only (best effort: EBUSY while a file on it is open
 * for writing), detach it and keep a private clone of it in *held.  No
 * record, or nothing there, is not an error.  *held is set even on
 * failure.  Returns 0, or -1 with errno (the first failure; the others
 * are still tried).
 */
int nstmpfs_detach(const char *base_path, const char *name, int ns_fd,
		   struct nstmpfs_held *held);

/*
 * Remove everything in the mounts held (never following a link) and close
 * them.  Returns 0, or -1 with errno (the first failure).
 */
int nstmpfs_empty(struct nstmpfs_held *held);

#endif /* DEVNS_NSTMPFS_H */
