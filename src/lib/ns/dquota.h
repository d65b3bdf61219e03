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
 */
#ifndef DEVNS_DQUOTA_H
#define DEVNS_DQUOTA_H

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
 * hard limit of bytes (rounded up to whole KiB), replacing any limit it
 * had.  projid 0 (the default project) and bytes 0 are refused (EINVAL).
 * Returns 0, or -1 with errno and a message in rep (may be NULL).  On
 * failure the limit is not set (the directory may have the project id:
 * its caller removes it).
 */
int dquota_set(int dirfd, uint32_t projid, uint64_t bytes,
	       struct report *rep);

/*
 * The project id of the file or directory fd (opened for reading, not
 * O_PATH) into *projid.  Returns 0 or -1 with errno.
 */
int dquota_project(int fd, uint32_t *projid);

/*
 * Remove the block and inode limits of project projid on the filesystem
 * of fd (any fd).  A filesystem without project quotas or a project
 * without limits is not an error.  Returns 0 or -1 with errno.
 */
int dquota_clear(int fd, uint32_t projid);

/*
 * The block hard limit of project projid in bytes into *bytes (0: none),
 * and its usage into *used (may be NULL).  Returns 0 or -1 with errno.
 */
int dquota_get(int fd, uint32_t projid, uint64_t *bytes, uint64_t *used);

#endif /* DEVNS_DQUOTA_H */
