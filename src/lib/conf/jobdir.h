/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jobdir.h - the names root gives things under BasePath: a job's
 * directory BasePath/<jobid> and what it holds beside the backing
 * directories of Dirs entries (the namespace pins, the records), and
 * BasePath's own entries (the pool, the reaper's socket, directories
 * waiting for the reaper, the quota lock, the job-end locks).  Every
 * module spells them through here, and the parser refuses a backing
 * directory that would take one (jobdir_reserved).
 */
#ifndef DEVNS_JOBDIR_H
#define DEVNS_JOBDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* In BasePath/<jobid>: the mount namespace's pin (ns/mntns.h). */
#define JOBDIR_NS_PIN ".ns"

/* The PID namespace's pin (PidNamespace=yes, ns/pidns.h), likewise. */
#define JOBDIR_PIDNS_PIN ".pidns"

/* The user namespace's pin (UserNamespace=yes, ns/userns.h), likewise. */
#define JOBDIR_USERNS_PIN ".userns"

/*
 * The record of the per-job Source directories (those with %j) to remove
 * when the job ends (ns/nssource.h).
 */
#define JOBDIR_SOURCES ".ns-sources"

/*
 * The record of the mount points of the job's tmpfs mounts, emptied at
 * teardown (ns/nstmpfs.h).
 */
#define JOBDIR_TMPFS ".ns-tmpfs"

/*
 * TmpBackend=loop (ns/nsloop.h): the job's filesystem image, and the
 * directory its filesystem is mounted on inside the job's namespace, which
 * holds the backing directories of the job's disk-backed Dirs.
 */
#define JOBDIR_LOOP_IMAGE ".disk.img"
#define JOBDIR_LOOP_MOUNT ".disk"

/*
 * In BasePath: the empty filesystem images jobs' images are copied from,
 * .loop-<bytes>-<inodes>.img, and the prefix of one being made.
 */
#define JOBDIR_LOOP_TEMPLATE_PREFIX ".loop-"
#define JOBDIR_LOOP_TEMPLATE_TEMP ".loop-new-"

/* In BasePath: the namespaces copied ahead (ns/nspool.h). */
#define JOBDIR_POOL ".pool"

/* The reaper's socket (ns/nsreap.h). */
#define JOBDIR_REAPER_SOCKET ".reaper"

/* The name a job's directory takes while it waits for the reaper. */
#define JOBDIR_REAP_PREFIX ".reap-"

/* The lock of a job's end, BasePath/.end-<jobid> (ns/mntns.h). */
#define JOBDIR_END_LOCK_PREFIX ".end-"

/* Root's lock around setting and lifting project limits (ns/dquota.h). */
#define JOBDIR_QUOTA_LOCK ".quota-lock"

/*
 * Why name, a backing directory's name in BasePath/<jobid>, may not be
 * used: a text for the error message ("... is the namespace pin"), or
 * NULL when it takes none of the names above.
 */
const char *jobdir_reserved(const char *name);

/*
 * Write BasePath/<jobid>/leaf into buf[len] (leaf NULL: the job's
 * directory).  Returns 0, or -1 with errno ENAMETOOLONG.
 */
int jobdir_path(char *buf, size_t len, const char *base_path,
		uint32_t job_id, const char *leaf);

/*
 * Parse a directory entry name of BasePath as a job id.  Returns 0 and sets
 * *job_id for names a job's directory takes (decimal, no leading zero, at
 * most UINT32_MAX), -1 for anything else.
 */
int jobdir_parse(const char *name, uint32_t *job_id);

/*
 * Whether name is one that a job's directory takes while it waits for the
 * reaper: JOBDIR_REAP_PREFIX, a job id, '-', a number without leading
 * zero.
 */
bool jobdir_is_reap_name(const char *name);

#endif /* DEVNS_JOBDIR_H */
