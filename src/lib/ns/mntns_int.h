/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mntns_int.h - what the files of mntns share: the plan the child
 * carries out (mntns_child.c) and the lock around project limits.  Not
 * for use outside mntns*.c.
 */
#ifndef DEVNS_MNTNS_INT_H
#define DEVNS_MNTNS_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "conf/nsconf.h"
#include "ns/mntns.h"
#include "ns/nssource.h"
#include "util/report.h"

/* Shared with the parser, which refuses what would not fit. */
#define MNTNS_MAX_DIRS NSCONF_MAX_DIRS

/* What the child does for one private directory. */
struct private_dir {
	char target[PATH_MAX];	/* e.g. /tmp */
	char tmpfs_size[24];	/* bytes when a tmpfs, "" = default */
	bool tmpfs;
	unsigned int attrs;	/* FDMOUNT_* */
	int mnt_fd;		/* a detached mount of the backing directory
				 * or the Source, or -1 (a tmpfs, or source) */
	/* TmpBackend=loop: the backing directory on the job's filesystem,
	 * bound once that is attached (attach_disk), or "" */
	char source[PATH_MAX];
};

/* A kept node directory (KeepPaths) and where it goes in the job. */
struct kept_dir {
	int dir;		/* the index in dirs of the private dir */
	char rel[PATH_MAX];	/* its path below that dir, e.g. nvidia-mps */
	int mnt_fd;		/* a detached mount of the node's directory */
};

/* Everything the child needs, computed before the child starts. */
struct ns_plan {
	unsigned long root_propagation;
	struct private_dir dirs[MNTNS_MAX_DIRS];
	int ndirs;
	struct kept_dir keeps[NSCONF_MAX_KEEP];
	int nkeeps;
	char base_path[PATH_MAX];
	uid_t uid;		/* the job user's: its /run/user/UID (nsbus.h) */
	gid_t gid;
	uint64_t parent_ns_id;	/* see unshare_newer_than() */
	int pool_fd;		/* a namespace of the pool to enter, or -1 */
	/*
	 * TmpBackend=loop: the job's filesystem, a detached mount attached
	 * at disk_target before the private dirs are bound from it; -1: none
	 */
	int disk_fd;
	char disk_target[PATH_MAX];
	bool bare;		/* the pool's own: no private dirs, BasePath
				 * left alone, slave to the caller's */
	/* the parent's alone: what to remove if the namespace fails */
	struct nssource_made made[MNTNS_MAX_DIRS];
	/* and what the walks of per-user or per-job mount points made */
	struct nssource_made made_point[MNTNS_MAX_DIRS];
};

enum child_step {
	STEP_OK = 0,
	STEP_UNSHARE,
	STEP_ENTER_POOL,
	STEP_PROPAGATION,
	STEP_ATTACH_DISK,
	STEP_OPEN_TARGET,
	STEP_MOUNT_DIR,
	STEP_KEEP_PATH,
	STEP_HIDE_BUS,
	STEP_HIDE_BASE,
	STEP_OPEN_NS,
};

/* The id of the caller's mount namespace, or 0 where the kernel has none. */
uint64_t mntns_own_ns_id(void);

/*
 * Fork the child, pin its namespace and collect its verdict.  Returns 0,
 * or -1 with errno and a message in rep, and the step that failed in
 * *failed (STEP_OK when it was not the child's).
 */
int mntns_run_child(const struct ns_plan *plan, int pin_fd, int *failed,
		    struct report *rep);

/* umount2 of the mount at the file or directory the fd names, no path. */
void mntns_unmount_fd(int fd);

/*
 * Serialise setting a project's limits (a job's create) with lifting a
 * sealed one (the end of an earlier job of the same id, maybe in the
 * reaper): lifting checks that nothing is charged to the project and then
 * clears it, and a create must not set its limit in between.  The lock
 * file is root's, in BasePath, held for two quotactl calls: no job user
 * can open it, so none can make root wait.  Returns the locked fd, or -1
 * when no lock could be had (the caller goes on: a create is then no
 * worse than without the lock, and a lift is skipped).
 */
int mntns_quota_lock(int basefd);

/* Release what mntns_quota_lock() returned (-1: nothing). */
void mntns_quota_unlock(int fd);

#endif /* DEVNS_MNTNS_INT_H */
