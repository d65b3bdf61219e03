/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dquota.c - project quotas on BasePath's filesystem, by file descriptor.
 *
 * quotactl(2) names a block device, which root would have to find from a
 * path; quotactl_fd(2) (Linux 5.14) takes any fd on the filesystem, so the
 * checked fd of BasePath serves.  glibc has no wrapper: syscall(2).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/quota.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/dqblk_xfs.h>
#include <linux/fs.h>

#include "ns/dquota.h"
#include "util/fdutil.h"
#include "util/safepath.h"

#ifndef SYS_quotactl_fd
#define SYS_quotactl_fd 443	/* the same number on every architecture */
#endif
#ifndef PRJQUOTA
#define PRJQUOTA 2
#endif

#define EXT4_MAGIC 0xEF53
#define XFS_MAGIC 0x58465342

static int quotactl_fd(int fd, int cmd, int type, uint32_t id, void *addr)
{
	return (int)syscall(SYS_quotactl_fd, fd, QCMD(cmd, type), id, addr);
}

/* A name for the filesystem type f_type, for messages. */
static const char *fs_name(long type)
{
	static const struct { long magic; const char *name; } names[] = {
		{ EXT4_MAGIC, "ext2/3/4" },
		{ XFS_MAGIC, "xfs" },
		{ 0x01021994, "tmpfs" },
		{ 0x9123683E, "btrfs" },
		{ 0x794c7630, "overlayfs" },
		{ 0x6969, "nfs" },
		{ 0x01021997, "9p" },
		{ 0x2fc12fc1, "zfs" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if ((unsigned long)type == (unsigned long)names[i].magic)
			return names[i].name;
	return NULL;
}

int dquota_probe(int fd, const char *path, struct report *rep)
{
	struct fs_quota_statv sv = { .qs_version = FS_QSTATV_VERSION1 };
	const char *name, *how;
	char fs[64];
	struct statfs sfs;

	if (fstatfs(fd, &sfs) < 0)
		return report_errno(rep, errno, "%s: statfs", path);
	name = fs_name((long)sfs.f_type);
	if (name)
		snprintf(fs, sizeof(fs), "%s", name);
	else
		snprintf(fs, sizeof(fs), "a filesystem of type 0x%lx",
			 (unsigned long)sfs.f_type);
	how = sfs.f_type == EXT4_MAGIC
		? "ext4 made with \"-O quota,project\" (or tune2fs -O quota,project) and mounted with -o prjquota"
		: "ext4 with the quota and project features or xfs, mounted with -o prjquota";
	if (quotactl_fd(fd, Q_XGETQSTATV, PRJQUOTA, 0, &sv) < 0) {
		int err = errno;

		if (err == ENOSYS && !name)
			return report_errno(rep, ENOTSUP, "%s is on %s, which has no quotas (needs %s)",
					    path, fs, how);
		if (err == ENOSYS)
			return report_errno(rep, ENOTSUP, "%s is on %s, which has no quota support in this kernel (needs CONFIG_QUOTA%s)",
					    path, fs,
					    sfs.f_type == XFS_MAGIC ? " and CONFIG_XFS_QUOTA" : "");
		if (err == ESRCH)
			return report_errno(rep, ENOTSUP, "%s is on %s without project quotas (needs %s)",
					    path, fs, how);
		return report_errno(rep, err, "%s is on %s: cannot read its project quota state (needs %s)",
				    path, fs, how);
	}
	if (!(sv.qs_flags & FS_QUOTA_PDQ_ACCT))
		return report_errno(rep, ENOTSUP, "%s is on %s, which does not account project quotas (needs %s)",
				    path, fs, how);
	if (!(sv.qs_flags & FS_QUOTA_PDQ_ENFD))
		return report_errno(rep, ENOTSUP, "%s is on %s, which accounts project quotas but does not enforce them (mount it with -o prjquota)",
				    path, fs);
	return 0;
}

int dquota_project(int fd, uint32_t *projid)
{
	struct fsxattr fx;

	if (ioctl(fd, FS_IOC_FSGETXATTR, &fx) < 0)
		return -1;
	*projid = fx.fsx_projid;
	return 0;
}

/* BasePath/<jobid>, opened for reading without following a link. */
static int open_job_dir(const char *base_path, uint32_t job_id)
{
	char name[16];
	int base_fd, fd;

	snprintf(name, sizeof(name), "%" PRIu32, job_id);
	if ((base_fd = safepath_open(base_path)) < 0)
		return -1;
	/* A real fd: FS_IOC_FSGETXATTR refuses an O_PATH one. */
	fd = openat(base_fd, name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	fdutil_close(base_fd);
	return fd;
}

int dquota_job_project(const char *base_path, uint32_t job_id,
		       uint32_t *projid)
{
	int fd, rc;

	if ((fd = open_job_dir(base_path, job_id)) < 0)
		return -1;
	rc = dquota_project(fd, projid);
	fdutil_close(fd);
	return rc;
}

bool dquota_limits_root(long f_type)
{
	return (unsigned long)f_type == (unsigned long)XFS_MAGIC;
}

int dquota_job_limit(const char *base_path, uint32_t job_id,
		     struct dquota_job_limit *l)
{
	struct dquota_usage u;
	struct statfs sfs;
	const char *name;
	int fd;

	memset(l, 0, sizeof(*l));
	if ((fd = open_job_dir(base_path, job_id)) < 0)
		return -1;
	/*
	 * A filesystem that keeps no project ids (ENOTTY, EOPNOTSUPP: nfs,
	 * an older tmpfs) enforces no project quota: no limit.
	 */
	if ((dquota_project(fd, &l->projid) < 0 && errno != ENOTTY &&
	     errno != EOPNOTSUPP) || fstatfs(fd, &sfs) < 0) {
		fdutil_close(fd);
		return -1;
	}
	l->fs_type = (long)sfs.f_type;
	name = fs_name(l->fs_type);
	if (name)
		snprintf(l->fs, sizeof(l->fs), "%s", name);
	else
		snprintf(l->fs, sizeof(l->fs), "0x%lx",
			 (unsigned long)sfs.f_type);
	if (l->projid && dquota_get(fd, l->projid, &u) == 0)
		l->bytes = u.bytes_limit;
	fdutil_close(fd);
	return 0;
}

/* Set the hard limits of projid: 0 removes a limit. */
static int set_limits(int fd, uint32_t projid, uint64_t kib, uint64_t inodes)
{
	struct if_dqblk q;

	memset(&q, 0, sizeof(q));
	q.dqb_bhardlimit = kib;
	q.dqb_ihardlimit = inodes;
	q.dqb_valid = QIF_LIMITS;
	return quotactl_fd(fd, Q_SETQUOTA, PRJQUOTA, projid, &q);
}

int dquota_set(int dirfd, uint32_t projid, uint64_t bytes, uint64_t inodes,
	       struct report *rep)
{
	struct fsxattr fx;

	if (projid == 0 || bytes == 0 || inodes == 0)
		return report_errno(rep, EINVAL, "project %" PRIu32 ", limits %" PRIu64 " bytes, %" PRIu64 " inodes: not a limit",
				    projid, bytes, inodes);
	if (ioctl(dirfd, FS_IOC_FSGETXATTR, &fx) < 0)
		return report_errno(rep, errno, "reading the project of the job directory");
	fx.fsx_projid = projid;
	fx.fsx_xflags |= FS_XFLAG_PROJINHERIT;
	if (ioctl(dirfd, FS_IOC_FSSETXATTR, &fx) < 0)
		return report_errno(rep, errno, "putting the job directory into project %" PRIu32,
				    projid);
	/* The generic interface counts limits in 1 KiB blocks. */
	if (set_limits(dirfd, projid, bytes / 1024 + (bytes % 1024 != 0),
		       inodes) < 0)
		return report_errno(rep, errno, "setting the limits of project %" PRIu32,
				    projid);
	return 0;
}

/* No quotas here at all: there is no limit to set or clear. */
static int no_quotas(void)
{
	return errno == ENOSYS || errno == ESRCH;
}

int dquota_clear(int fd, uint32_t projid)
{
	if (set_limits(fd, projid, 0, 0) == 0 || no_quotas())
		return 0;
	return -1;
}

int dquota_seal(int fd, uint32_t projid)
{
	if (set_limits(fd, projid, 1, 1) == 0 || no_quotas())
		return 0;
	return -1;
}

int dquota_release(int fd, uint32_t projid)
{
	struct dquota_usage u;

	if (dquota_get(fd, projid, &u) < 0)
		return no_quotas() ? 1 : -1;
	if (u.bytes_used || u.inodes_used)
		return 0;
	return dquota_clear(fd, projid) < 0 ? -1 : 1;
}

/* A seal's limits (dquota_seal), with nothing charged any more. */
static bool sealed_and_empty(const struct if_nextdqblk *q)
{
	return q->dqb_bhardlimit == 1 && q->dqb_ihardlimit == 1 &&
	       q->dqb_curspace == 0 && q->dqb_curinodes == 0;
}

int dquota_release_sealed(int fd)
{
	struct if_nextdqblk q;
	uint32_t id = 1;	/* project 0 is no job's */
	int lifted = 0;

	for (;;) {
		memset(&q, 0, sizeof(q));
		if (quotactl_fd(fd, Q_GETNEXTQUOTA, PRJQUOTA, id, &q) < 0)
			return errno == ENOENT || no_quotas() ? lifted : -1;
		if (q.dqb_id && sealed_and_empty(&q)) {
			if (dquota_clear(fd, q.dqb_id) < 0)
				return -1;
			lifted++;
		}
		if (q.dqb_id == UINT32_MAX)
			return lifted;
		id = q.dqb_id + 1;
	}
}

int dquota_get(int fd, uint32_t projid, struct dquota_usage *u)
{
	struct if_dqblk q;

	memset(&q, 0, sizeof(q));
	if (quotactl_fd(fd, Q_GETQUOTA, PRJQUOTA, projid, &q) < 0 &&
	    errno != ENOENT)
		return -1;
	u->bytes_limit = q.dqb_bhardlimit * 1024;
	u->bytes_used = q.dqb_curspace;
	u->inodes_limit = q.dqb_ihardlimit;
	u->inodes_used = q.dqb_curinodes;
	return 0;
}
