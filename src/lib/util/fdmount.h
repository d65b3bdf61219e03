/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fdmount.h - mount onto directories held as file descriptors.
 *
 * mount(2) takes a target path and resolves it again, following links: a
 * directory checked a moment before may not be the one mounted on.  The
 * new mount API (Linux 5.2; mount_setattr 5.12) takes file descriptors
 * instead, so the directory that safepath_open() checked is the directory
 * that gets the mount.  Only system calls are made: these functions may
 * run in a child between fork() and exec().
 *
 * Every fd must belong to the caller's mount namespace (the kernel refuses
 * mounts of other namespaces with EINVAL).  attrs are MOUNT_ATTR_* bits
 * (<linux/mount.h>): FDMOUNT_NOSUID, FDMOUNT_NODEV, FDMOUNT_NOEXEC,
 * FDMOUNT_RDONLY below.
 */
#ifndef DEVNS_FDMOUNT_H
#define DEVNS_FDMOUNT_H

#define FDMOUNT_RDONLY 0x1
#define FDMOUNT_NOSUID 0x2
#define FDMOUNT_NODEV  0x4
#define FDMOUNT_NOEXEC 0x8

/*
 * The first system call of the new mount API these functions use that the
 * running kernel lacks (it answers ENOSYS), by name, or NULL when it has
 * them all (Linux 5.12 or later).  Probes with arguments no call can act
 * on (a bad fd, a NULL name): nothing changes.
 */
const char *fdmount_missing_call(void);

/*
 * Bind-mount the directory src_fd onto the directory target_fd, with attrs.
 * The new mount is private: nothing mounted below it later propagates.
 * Returns 0, or -1 with errno.
 */
int fdmount_bind(int src_fd, int target_fd, unsigned int attrs);

/*
 * A detached, private copy of the mount of directory dir_fd (rooted at
 * it), with attrs set (FDMOUNT_RDONLY makes it read-only without a
 * remount).  It may be attached in another mount namespace than the one
 * it was made in, e.g. after unshare(2).  Returns the mount's fd, or -1
 * with errno.
 */
int fdmount_clone(int dir_fd, unsigned int attrs);

/*
 * Attach the detached mount mnt_fd (fdmount_clone()) onto the directory
 * target_fd.  Returns 0, or -1 with errno.
 */
int fdmount_attach(int mnt_fd, int target_fd);

/*
 * Mount a new tmpfs onto target_fd with the given mode (octal string, e.g.
 * "1777") and size (bytes as a decimal string; NULL for tmpfs's default),
 * with attrs.  Returns 0, or -1 with errno.
 */
int fdmount_tmpfs(int target_fd, const char *mode, const char *size,
		  unsigned int attrs);

/*
 * A new file system of type fstype (e.g. "ext4") on the block device at
 * source (a path the kernel resolves: give one under /dev), with each
 * flag of flags (NULL-terminated, may be NULL) set, mounted detached with
 * attrs.  Nothing is attached: the mount lives as long as the returned fd,
 * or until fdmount_attach() puts it somewhere.  Returns the mount's fd
 * (O_PATH-like, O_CLOEXEC), or -1 with errno.
 */
int fdmount_blockdev(const char *fstype, const char *source,
		     const char *const *flags, unsigned int attrs);

/*
 * Hide what the directory target_fd holds under an empty tmpfs: read-only,
 * root's 0555, nosuid, nodev, noexec.  Returns 0, or -1 with errno.
 */
int fdmount_hide(int target_fd);

/*
 * Make the file system whose mount root the directory root_fd is (any fd
 * of it, O_PATH included; the mount may be detached, or in another
 * namespace) read-only in all its mounts: a reconfiguration of its
 * superblock (fspick(2), fsconfig(2)).  Returns 0, or -1 with errno:
 * EBUSY while a file on it is open for writing, EINVAL when root_fd is
 * not a mount root.
 */
int fdmount_remount_ro(int root_fd);

/*
 * Make the directory dir_fd a private bind mount of itself, so that mounts
 * made below it stay out of the peers of its parent mount.  Returns an
 * O_PATH fd of the new mount's root (create files below it through this
 * fd: the old fd still names the covered directory), or -1 with errno.
 */
int fdmount_private_self(int dir_fd);

#endif /* DEVNS_FDMOUNT_H */
