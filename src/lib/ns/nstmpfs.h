/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nstmpfs.h - a job's private tmpfs mounts, emptied at its teardown.
 *
 * A job's /dev/shm (and a TmpSize /tmp, and tmpfs Dirs entries) is a tmpfs
 * that lives in its mount namespace only, but an fd of its directory
 * outlives the namespace: a job that sent one to another job of the same
 * user (SCM_RIGHTS) would let that one read and write the ended job's files
 * for as long as it likes, and keep the tmpfs's memory allocated.  So the
 * teardown, while it still holds the namespace, opens each such mount's
 * root, and once the job's processes are gone empties it (the pages of
 * every file that no one holds open are freed) and makes its file system
 * read-only (no new file through any fd of it).  The Dirs on a job's own
 * filesystem (TmpBackend=loop, ns/nsloop.h), which also lives in its
 * namespace only, are recorded and emptied the same way: an fd held
 * past the job then reaches nothing of it, and its loop device holds no
 * data once that fd goes.
 *
 * Which mounts are devns's: mntns_create records their mount points as
 * the job directory's record JOBDIR_TMPFS ("PATH" lines; an attribute,
 * or that file: jobrec.h); teardown acts only on a recorded path where
 * it finds the root of a tmpfs mount (or of a mount on ext4, the job's
 * own filesystem), found again without following links.
 */
#ifndef DEVNS_NSTMPFS_H
#define DEVNS_NSTMPFS_H

#include <stddef.h>

#include "conf/nsconf.h"

/* The roots of the job's tmpfs mounts, for nstmpfs_empty(). */
struct nstmpfs_held {
	int fds[NSCONF_MAX_DIRS];
	/* the line (from 0) of the record each fd's mount point is on */
	int which[NSCONF_MAX_DIRS];
	int count;
};

/*
 * Record the mount points points[0..n) (absolute paths) of the job's
 * tmpfs mounts in the job directory jobfd; n 0 writes nothing.  Returns 0,
 * or -1 with errno.
 */
int nstmpfs_record(int jobfd, const char *const *points, size_t n);

/*
 * In a child that enters the namespace ns_fd, open the root of the tmpfs
 * mounted at each mount point that BasePath/name records, into *held; a
 * point where no tmpfs is mounted (or a link) is left out.  No record is
 * not an error.  *held is set even on failure.  Returns 0, or -1 with
 * errno (the first failure; the other points are still tried).
 */
int nstmpfs_open(const char *base_path, const char *name, int ns_fd,
		 struct nstmpfs_held *held);

/*
 * Remove everything in the mounts held, never following a link and never
 * entering a mount below, then make their file systems read-only (best
 * effort: EBUSY while a file on one is open for writing), and close them.
 * Returns 0, or -1 with errno (the first failure).
 */
int nstmpfs_empty(struct nstmpfs_held *held);

#endif /* DEVNS_NSTMPFS_H */
