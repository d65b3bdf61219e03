/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fdmount.c - mount onto directories held as file descriptors.
 *
 * Raw system calls: glibc wraps the new mount API only from 2.36, and
 * mixing <sys/mount.h> with <linux/mount.h> clashes on some releases.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/fdmount.h"
#include "util/fdutil.h"

#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#define MOVE_MOUNT_T_EMPTY_PATH 0x00000040
#endif
#ifndef FSCONFIG_SET_STRING
#define FSCONFIG_SET_STRING 1
#define FSCONFIG_CMD_CREATE 6
#endif
#ifndef FSCONFIG_SET_FLAG
#define FSCONFIG_SET_FLAG 0
#endif
#ifndef FSCONFIG_CMD_RECONFIGURE
#define FSCONFIG_CMD_RECONFIGURE 7
#endif
#ifndef FSPICK_CLOEXEC
#define FSPICK_CLOEXEC 0x00000001
#define FSPICK_EMPTY_PATH 0x00000008
#endif
#ifndef FSOPEN_CLOEXEC
#define FSOPEN_CLOEXEC 0x00000001
#endif
#ifndef FSMOUNT_CLOEXEC
#define FSMOUNT_CLOEXEC 0x00000001
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

#define PROPAGATION_PRIVATE (1 << 18)	/* MS_PRIVATE */

/* struct mount_attr of <linux/mount.h>, first published version. */
struct fdmount_attr {
	uint64_t attr_set;
	uint64_t attr_clr;
	uint64_t propagation;
	uint64_t userns_fd;
};

static int set_attrs(int mnt_fd, unsigned int attrs, uint64_t propagation)
{
	struct fdmount_attr a = { .attr_set = attrs,
				  .propagation = propagation };

	return (int)syscall(SYS_mount_setattr, mnt_fd, "", AT_EMPTY_PATH, &a,
			    sizeof(a));
}

/* Attach the detached mount mnt_fd onto target_fd. */
static int attach(int mnt_fd, int target_fd)
{
	return (int)syscall(SYS_move_mount, mnt_fd, "", target_fd, "",
			    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
}

/* A detached copy of the directory dir_fd, made private, with attrs. */
static int clone_dir(int dir_fd, unsigned int attrs)
{
	int mnt_fd = (int)syscall(SYS_open_tree, dir_fd, "",
				  OPEN_TREE_CLONE | O_CLOEXEC | AT_EMPTY_PATH);

	if (mnt_fd < 0)
		return -1;
	if (set_attrs(mnt_fd, attrs, PROPAGATION_PRIVATE) < 0) {
		fdutil_close(mnt_fd);
		return -1;
	}
	return mnt_fd;
}

int fdmount_clone(int dir_fd, unsigned int attrs)
{
	return clone_dir(dir_fd, attrs);
}

int fdmount_attach(int mnt_fd, int target_fd)
{
	return attach(mnt_fd, target_fd);
}

int fdmount_bind(int src_fd, int target_fd, unsigned int attrs)
{
	int mnt_fd = clone_dir(src_fd, attrs), rc;

	if (mnt_fd < 0)
		return -1;
	rc = attach(mnt_fd, target_fd);
	fdutil_close(mnt_fd);
	return rc;
}

int fdmount_remount_ro(int root_fd)
{
	int fs_fd = (int)syscall(SYS_fspick, root_fd, "",
				 FSPICK_CLOEXEC | FSPICK_EMPTY_PATH);
	int rc;

	if (fs_fd < 0)
		return -1;
	rc = (int)syscall(SYS_fsconfig, fs_fd, FSCONFIG_SET_FLAG, "ro", NULL,
			  0);
	if (rc == 0)
		rc = (int)syscall(SYS_fsconfig, fs_fd, FSCONFIG_CMD_RECONFIGURE,
				  NULL, NULL, 0);
	fdutil_close(fs_fd);
	return rc;
}

static int fs_set(int fs_fd, const char *key, const char *value)
{
	return (int)syscall(SYS_fsconfig, fs_fd, FSCONFIG_SET_STRING, key,
			    value, 0);
}

int fdmount_tmpfs(int target_fd, const char *mode, const char *size,
		  unsigned int attrs)
{
	int fs_fd = (int)syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC);
	int mnt_fd = -1, rc = -1;

	if (fs_fd < 0)
		return -1;
	if (fs_set(fs_fd, "mode", mode) < 0 ||
	    (size && fs_set(fs_fd, "size", size) < 0) ||
	    syscall(SYS_fsconfig, fs_fd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		goto out;
	mnt_fd = (int)syscall(SYS_fsmount, fs_fd, FSMOUNT_CLOEXEC, attrs);
	if (mnt_fd < 0)
		goto out;
	rc = attach(mnt_fd, target_fd);
out:
	fdutil_close(mnt_fd);
	fdutil_close(fs_fd);
	return rc;
}

int fdmount_blockdev(const char *fstype, const char *source,
		     const char *const *flags, unsigned int attrs)
{
	int fs_fd = (int)syscall(SYS_fsopen, fstype, FSOPEN_CLOEXEC);
	int mnt_fd = -1;

	if (fs_fd < 0)
		return -1;
	if (fs_set(fs_fd, "source", source) < 0)
		goto out;
	for (size_t i = 0; flags && flags[i]; i++)
		if (syscall(SYS_fsconfig, fs_fd, FSCONFIG_SET_FLAG, flags[i],
			    NULL, 0) < 0)
			goto out;
	if (syscall(SYS_fsconfig, fs_fd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		goto out;
	mnt_fd = (int)syscall(SYS_fsmount, fs_fd, FSMOUNT_CLOEXEC, attrs);
out:
	fdutil_close(fs_fd);
	return mnt_fd;
}

int fdmount_hide(int target_fd)
{
	return fdmount_tmpfs(target_fd, "0555", "4096",
			     FDMOUNT_RDONLY | FDMOUNT_NOSUID | FDMOUNT_NODEV |
			     FDMOUNT_NOEXEC);
}

int fdmount_private_self(int dir_fd)
{
	int mnt_fd = clone_dir(dir_fd, 0);

	if (mnt_fd < 0)
		return -1;
	/* Attached below a shared parent it joined a peer group: leave it. */
	if (attach(mnt_fd, dir_fd) < 0 ||
	    set_attrs(mnt_fd, 0, PROPAGATION_PRIVATE) < 0) {
		fdutil_close(mnt_fd);
		return -1;
	}
	return mnt_fd;
}

/* A probe answers ENOSYS only where the kernel has no such call. */
static bool lacks(long rc)
{
	return rc < 0 && errno == ENOSYS;
}

const char *fdmount_missing_call(void)
{
	if (lacks(syscall(SYS_open_tree, -1, "", 0)))
		return "open_tree";
	if (lacks(syscall(SYS_move_mount, -1, "", -1, "", 0)))
		return "move_mount";
	if (lacks(syscall(SYS_fsopen, NULL, 0)))
		return "fsopen";
	if (lacks(syscall(SYS_fsconfig, -1, 0, NULL, NULL, 0)))
		return "fsconfig";
	if (lacks(syscall(SYS_fsmount, -1, 0, 0)))
		return "fsmount";
	if (lacks(syscall(SYS_fspick, -1, "", 0)))
		return "fspick";
	if (lacks(syscall(SYS_mount_setattr, -1, "", 0, NULL, 0)))
		return "mount_setattr";
	return NULL;
}
