/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dquota.h - a disk limit for a job's directory through project quotas.
 *
 * TmpDiskLimit puts BasePath/<jobid> into a project of its own (project id
 * = job id, flag PROJINHERIT, so everything made below it joins) and gives
 * that project a block hard limit: a write past it fails with EDQUOT
 * (ENOSPC on some filesystems).  The filesystem must account and enforce
 * project quotas: ext4 made with "-O quota,project" (or tune2fs) and
 * mounted with "prjquota", or xfs mounted with "prjquota", on a kernel
 * built with quota support.  Everything acts on file descriptors
 * (quotactl_fd(2), FS_IOC_FSSETXATTR), never on a path.
 *
 * Project ids are job ids: on BasePath's filesystem, ids in Slurm's job id
 * range belong to devns (namespace.conf(5)).
 *
 * In the initial user namespace a file's owner may change its project id
 * or clear PROJINHERIT, and so leave the limit: the job's processes run
 * under ns/dqguard.h, which refuses those calls.  What a job leaves open
 * past its end (an fd of a deleted file held elsewhere) is still charged
 * to its project: teardown seals the project (dquota_seal: nothing more
 * may be written) and lifts the seal only once nothing of it is left
 * (dquota_release; seals left then are lifted at a later teardown,
 * dquota_release_sealed).
 */
#ifndef DEVNS_DQUOTA_H
#define DEVNS_DQUOTA_H

#include <stdbool.h>
#include <stdint.h>

#include "util/report.h"

/*
 * Tell whether the filesystem holding fd (any fd, O_PATH too; path names
 * it in messages) enforces project quotas.  Returns 0, or -1 with errno
 * (ENOTSUP and the like) and a message in rep (may be NULL) that says
 * what is missing: a kernel without quota support, a filesystem type
 * without project quotas, quotas not accounted or not enforced.
 */
int dquota_probe(int fd, const char *path, struct report *rep);

/*
 * Put the directory dirfd (opened for reading, not O_PATH; nothing in it
 * yet) into project projid with PROJINHERIT and give the project a block
 * hard limit of bytes (rounded up to whole KiB) and an inode hard limit
 * of inodes, replacing any limits it had.  projid 0 (the default
 * project), bytes 0 and inodes 0 are refused (EINVAL).  Returns 0, or -1
 * with errno and a message in rep (may be NULL).  On failure the limit is
 * not set (the directory may have the project id: its caller removes it).
 */
int dquota_set(int dirfd, uint32_t projid, uint64_t bytes, uint64_t inodes,
	       struct report *rep);

/*
 * The project id of the file or directory fd (opened for reading, not
 * O_PATH) into *projid.  Returns 0 or -1 with errno.
 */
int dquota_project(int fd, uint32_t *projid);

/*
 * The project id of a job's directory, BasePath/<jobid>, as its setup
 * left it (0: the job has no disk limit), into *projid: what the job's
 * processes must be kept in (ns/dqguard.h), whatever the settings say
 * now.  BasePath is walked from "/" and the job's directory opened
 * without following a link.  Returns 0, or -1 with errno (ENOENT: the
 * job has no directory).
 */
int dquota_job_project(const char *base_path, uint32_t job_id,
		       uint32_t *projid);

/*
 * Whether project-quota hard limits bind a process with CAP_SYS_RESOURCE
 * (root) on a filesystem of type f_type (statfs(2)'s f_type).  xfs
 * enforces a project's limits on every writer (xfs_trans_dqresv checks no
 * capability for a non-zero id): true.  ext4, and every other filesystem
 * on the kernel's generic quota code (fs/quota/dquot.c, whose
 * ignore_hardlimit() lets CAP_SYS_RESOURCE past hard limits), lets root
 * write on past them: false, and so is any type not known here.
 */
bool dquota_limits_root(long f_type);

/* A job's disk limit as its directory holds it. */
struct dquota_job_limit {
	uint32_t projid;	/* the directory's project, 0: no limit */
	uint64_t bytes;		/* the project's block hard limit, 0: unknown */
	long fs_type;		/* statfs(2)'s f_type of its filesystem */
	char fs[16];		/* that type's name, for messages */
};

/*
 * The disk limit of a job's directory, BasePath/<jobid> (walked from "/"
 * without following a link), into *l: its project, the project's block
 * limit and the filesystem's type (projid 0 on a filesystem that keeps
 * no project ids).  Returns 0, or -1 with errno (ENOENT: the job has no
 * directory).  A limit that cannot be read leaves bytes 0.
 */
int dquota_job_limit(const char *base_path, uint32_t job_id,
		     struct dquota_job_limit *l);

/*
 * Remove the block and inode limits of project projid on the filesystem
 * of fd (any fd).  A filesystem without project quotas or a project
 * without limits is not an error.  Returns 0 or -1 with errno.
 */
int dquota_clear(int fd, uint32_t projid);

/*
 * Give project projid on the filesystem of fd (any fd) the smallest
 * limits there are (1 KiB, 1 inode; 0 would mean none): whatever of the
 * project is still open somewhere cannot grow.  A filesystem without
 * project quotas is not an error.  Returns 0 or -1 with errno.
 */
int dquota_seal(int fd, uint32_t projid);

/*
 * Remove the limits of project projid when nothing is charged to it any
 * more (no block, no inode: no file of it exists, open or not); leave
 * them otherwise.  The caller makes sure that nothing can put a file
 * into the project meanwhile.  Returns 1 when the limits were removed
 * (or there were none to remove), 0 when something of the project is
 * left, -1 with errno.
 */
int dquota_release(int fd, uint32_t projid);

/*
 * dquota_release for every sealed project of fd's filesystem (limits
 * exactly dquota_seal's): those of ended jobs whose files were still held
 * open when the job ended, and are not any more.  Same caller's duty as
 * dquota_release.  Returns how many seals were lifted, or -1 with errno.
 */
int dquota_release_sealed(int fd);

/* The limits of a project and what is charged to it. */
struct dquota_usage {
	uint64_t bytes_limit;	/* block hard limit in bytes, 0: none */
	uint64_t bytes_used;
	uint64_t inodes_limit;	/* inode hard limit, 0: none */
	uint64_t inodes_used;
};

/*
 * The limits and usage of project projid on the filesystem of fd into
 * *u.  A project with no quota record has none of either (xfs answers
 * ENOENT for it where ext4 gives zeros: both are all zero here).
 * Returns 0 or -1 with errno.
 */
int dquota_get(int fd, uint32_t projid, struct dquota_usage *u);

#endif /* DEVNS_DQUOTA_H */
