/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsloop.h - TmpBackend=loop: a filesystem of the job's own, on a sparse
 * image in its directory, so that TmpDiskLimit holds on any BasePath
 * filesystem (no project quotas) and binds root's writes too (sbcast).
 *
 *   BasePath/.loop-<bytes>-<inodes>.img  an empty ext4 of that size, made
 *                             once by mke2fs (no journal, lazy inode
 *                             tables, no reserved blocks)
 *   BasePath/<jobid>/.disk.img  the job's copy of it (reflink, else a
 *                             sparse copy of its data extents)
 *   BasePath/<jobid>/.disk    where the job's namespace mounts it (ns/mntns.h)
 *
 * The image goes onto a loop device with LO_FLAGS_AUTOCLEAR and its
 * filesystem is mounted detached (nosuid, nodev): the only mount of it is
 * the one the job's namespace attaches, so when the namespace goes the
 * kernel detaches the loop device itself, and the image goes with the
 * job's directory.  No mkfs runs on a job's critical path but the first
 * of its size on the node.
 */
#ifndef DEVNS_NSLOOP_H
#define DEVNS_NSLOOP_H

#include <stddef.h>
#include <stdint.h>

#include "util/report.h"

/* The mke2fs run to make a template: an absolute path, no $PATH lookup. */
#define NSLOOP_MKFS "/sbin/mke2fs"

/*
 * Whether this node can make jobs' filesystems: NSLOOP_MKFS executable,
 * /dev/loop-control there to open.  Returns 0, or -1 with errno and why in
 * rep.
 */
int nsloop_probe(struct report *rep);

/*
 * Write the template's name for bytes and inodes into buf[len]
 * (".loop-<bytes>-<inodes>.img").  Returns 0, or -1 with ENAMETOOLONG.
 */
int nsloop_template_name(char *buf, size_t len, uint64_t bytes,
			 uint64_t inodes);

/*
 * Make the template for bytes and inodes in the directory basefd
 * (BasePath, root's, opened without following links) unless it is there:
 * mke2fs (NSLOOP_MKFS, with an environment of its own and no fd of ours
 * but the new file's) on a new file, renamed into place once complete, so
 * a concurrent caller never copies a half-made one.  Returns 0, or -1 with
 * errno and why in rep (mke2fs's own words when it failed).
 */
int nsloop_template_make(int basefd, uint64_t bytes, uint64_t inodes,
			 struct report *rep);

/*
 * Remove from basefd (BasePath) the templates of other sizes than bytes
 * and inodes (bytes 0: all of them; TmpBackend is no longer loop) and the
 * half-made ones whose maker is gone: slurmd at its start, so that a
 * changed TmpDiskLimit leaves nothing behind.  A job copying from one
 * holds its fd and is not disturbed.  Returns how many it removed, or -1
 * with errno.
 */
int nsloop_templates_prune(int basefd, uint64_t bytes, uint64_t inodes);

/*
 * Make the file name in dirfd (O_EXCL, no link followed, root's 0600) a
 * copy of the template for bytes and inodes in basefd, making the template
 * first when it is missing.  Returns the new file's fd (O_RDWR, O_CLOEXEC),
 * or -1 with errno and rep; on failure no file is left.
 */
int nsloop_image_make(int basefd, int dirfd, const char *name,
		      uint64_t bytes, uint64_t inodes, struct report *rep);

/*
 * Put the image image_fd on a free loop device (LOOP_CONFIGURE, or
 * LOOP_SET_FD and LOOP_SET_STATUS64 on kernels before 5.8) that detaches
 * itself at its last close (LO_FLAGS_AUTOCLEAR).  Writes the device's path
 * into dev[len].  Returns the device's fd (O_CLOEXEC), or -1 with errno.
 */
int nsloop_attach(int image_fd, char *dev, size_t len);

/*
 * The job's filesystem: BasePath/<jobid>/.disk.img made (nsloop_image_make
 * in jobfd, the job's directory), attached, and mounted detached with
 * nosuid and nodev, its root root's 0755 and without lost+found.  Returns
 * the detached mount's fd, the only thing that keeps the loop device: close
 * it unattached and the device goes.  -1 with errno and rep, the image
 * removed.
 */
int nsloop_mount(int basefd, int jobfd, uint64_t bytes, uint64_t inodes,
		 struct report *rep);

#endif
