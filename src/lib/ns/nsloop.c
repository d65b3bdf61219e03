/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsloop.c - TmpBackend=loop: a job's filesystem on a loop device.  See
 * nsloop.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "conf/jobdir.h"
#include "conf/nsconf.h"
#include "ns/nsloop.h"
#include "util/fdmount.h"
#include "util/fdutil.h"
#include "util/runscript.h"

#ifndef LOOP_CONFIGURE
#define LOOP_CONFIGURE 0x4C0A
struct loop_config {
	uint32_t fd;
	uint32_t block_size;
	struct loop_info64 info;
	uint64_t __reserved[8];
};
#endif

#ifndef FICLONE
#define FICLONE _IOW(0x94, 9, int)
#endif

/* The loop devices' block major (Documentation/admin-guide/devices.txt). */
#define NSLOOP_MAJOR 7

/* Tries for a free loop device that another process may take first. */
#define NSLOOP_TRIES 16

int nsloop_probe(struct report *rep)
{
	int fd;

	if (access(NSLOOP_MKFS, X_OK) < 0)
		return report_errno(rep, errno, "%s (e2fsprogs)", NSLOOP_MKFS);
	if ((fd = open("/dev/loop-control", O_RDWR | O_CLOEXEC)) < 0)
		return report_errno(rep, errno, "/dev/loop-control (the loop "
				    "driver)");
	close(fd);
	return 0;
}

int nsloop_template_name(char *buf, size_t len, uint64_t bytes,
			 uint64_t inodes)
{
	int n = snprintf(buf, len, JOBDIR_LOOP_TEMPLATE_PREFIX "%" PRIu64
			 "-%" PRIu64 ".img", bytes, inodes);

	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/*
 * Run mke2fs on the file fd, as /dev/fd/3 of the child: no path of
 * BasePath is walked again.  The child gets an environment of its own
 * (none of slurmstepd's), stdin /dev/null, its output captured, and no
 * other fd of ours (util/runscript.h).
 */
static int run_mkfs(int fd, uint64_t inodes, struct report *rep)
{
	static char *const env[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin",
				     "LC_ALL=C", NULL };
	char inodes_arg[32], how[64];
	const char *const argv[] = { NSLOOP_MKFS, "-q", "-F", "-t", "ext4",
			 "-O", "^has_journal", "-m", "0", "-N", inodes_arg,
			 "-E", "lazy_itable_init=1,nodiscard,root_owner=0:0",
			 "-L", "devns-tmp", "/dev/fd/3", NULL };
	struct runscript_result res;

	snprintf(inodes_arg, sizeof(inodes_arg), "%" PRIu64, inodes);
	if (runscript_exec(argv, env, fd, 0, &res) < 0)
		return report_errno(rep, errno, "running %s", NSLOOP_MKFS);
	if (res.status == 0)
		return 0;
	runscript_describe(&res, 0, how, sizeof(how));
	errno = EIO;
	return report_error(rep, "%s failed (%s): %s", NSLOOP_MKFS, how,
			    res.output);
}

int nsloop_template_make(int basefd, uint64_t bytes, uint64_t inodes,
			 struct report *rep)
{
	char name[64], temp[64];
	struct stat st;
	int fd;

	if (bytes < NSCONF_LOOP_MIN_BYTES || (off_t)bytes < 0) {
		errno = EINVAL;
		return report_errno(rep, errno, "a filesystem of %" PRIu64
				    " bytes (at least %d)", bytes,
				    NSCONF_LOOP_MIN_BYTES);
	}
	if (nsloop_template_name(name, sizeof(name), bytes, inodes) < 0)
		return report_errno(rep, errno, "the template's name");
	if (fstatat(basefd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return 0;
	if (errno != ENOENT)
		return report_errno(rep, errno, "looking for %s", name);
	/* Each maker its own file: two jobs of one size may race here. */
	snprintf(temp, sizeof(temp), JOBDIR_LOOP_TEMPLATE_TEMP "%ld",
		 (long)getpid());
	unlinkat(basefd, temp, 0);
	fd = openat(basefd, temp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
	if (fd < 0)
		return report_errno(rep, errno, "creating %s", temp);
	if (ftruncate(fd, (off_t)bytes) < 0) {
		report_errno(rep, errno, "sizing %s", temp);
		goto error;
	}
	if (run_mkfs(fd, inodes, rep) < 0)
		goto error;
	/* The copy's data must be what mke2fs wrote, before the name says so. */
	if (fsync(fd) < 0 || renameat(basefd, temp, basefd, name) < 0) {
		report_errno(rep, errno, "installing %s", name);
		goto error;
	}
	close(fd);
	return 0;
error:
	fdutil_close(fd);
	{
		int saved = errno;

		unlinkat(basefd, temp, 0);
		errno = saved;
	}
	return -1;
}

/* A half-made template whose maker (its pid in the name) is gone. */
static bool stale_temp(const char *name)
{
	const char *pid = name + strlen(JOBDIR_LOOP_TEMPLATE_TEMP);
	char *end;
	long n;

	errno = 0;
	n = strtol(pid, &end, 10);
	if (*end || errno || n <= 0)
		return true;
	return kill((pid_t)n, 0) < 0 && errno == ESRCH;
}

int nsloop_templates_prune(int basefd, uint64_t bytes, uint64_t inodes)
{
	char keep[64];
	struct dirent *e;
	int fd, n = 0;
	DIR *dir;

	keep[0] = '\0';
	if (bytes && nsloop_template_name(keep, sizeof(keep), bytes,
					  inodes) < 0)
		return -1;
	if ((fd = openat(basefd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	if (!(dir = fdopendir(fd))) {
		fdutil_close(fd);
		return -1;
	}
	while ((e = readdir(dir))) {
		const char *name = e->d_name;

		if (strncmp(name, JOBDIR_LOOP_TEMPLATE_PREFIX,
			    strlen(JOBDIR_LOOP_TEMPLATE_PREFIX)) ||
		    !strcmp(name, keep))
			continue;
		if (!strncmp(name, JOBDIR_LOOP_TEMPLATE_TEMP,
			     strlen(JOBDIR_LOOP_TEMPLATE_TEMP)) &&
		    !stale_temp(name))
			continue;
		if (unlinkat(dirfd(dir), name, 0) == 0)
			n++;
	}
	closedir(dir);
	return n;
}

/*
 * Copy src's data into dst, both size bytes: the extents that hold data
 * only (SEEK_DATA), so the copy is as sparse as the template, in the
 * kernel (copy_file_range).
 */
static int sparse_copy(int src, int dst, off_t size)
{
	off_t data = 0, hole;

	if (ftruncate(dst, size) < 0)
		return -1;
	while (data < size) {
		if ((data = lseek(src, data, SEEK_DATA)) < 0)
			return errno == ENXIO ? 0 : -1;
		if ((hole = lseek(src, data, SEEK_HOLE)) < 0)
			return -1;
		while (data < hole) {
			loff_t in = data, out = data;
			ssize_t n = copy_file_range(src, &in, dst, &out,
						    (size_t)(hole - data), 0);

			if (n < 0)
				return -1;
			if (n == 0) {
				errno = EIO;
				return -1;
			}
			data += n;
		}
	}
	return 0;
}

/* The template for bytes and inodes, opened and checked: root's, regular. */
static int open_template(int basefd, uint64_t bytes, uint64_t inodes,
			 struct report *rep)
{
	char name[64];
	struct stat st;
	int fd;

	if (nsloop_template_make(basefd, bytes, inodes, rep) < 0)
		return -1;
	nsloop_template_name(name, sizeof(name), bytes, inodes);
	fd = openat(basefd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return report_errno(rep, errno, "opening %s", name);
	if (fstat(fd, &st) < 0) {
		report_errno(rep, errno, "opening %s", name);
		goto error;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (uint64_t)st.st_size != bytes) {
		errno = EINVAL;
		report_errno(rep, errno, "%s is not root's template of %" PRIu64
			     " bytes", name, bytes);
		goto error;
	}
	return fd;
error:
	fdutil_close(fd);
	return -1;
}

int nsloop_image_make(int basefd, int dirfd, const char *name,
		      uint64_t bytes, uint64_t inodes, struct report *rep)
{
	int src, dst;

	if ((src = open_template(basefd, bytes, inodes, rep)) < 0)
		return -1;
	dst = openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
		     O_CLOEXEC, 0600);
	if (dst < 0) {
		report_errno(rep, errno, "creating %s", name);
		fdutil_close(src);
		return -1;
	}
	/* A reflink (xfs, btrfs) shares the template's blocks: instant. */
	if (ioctl(dst, FICLONE, src) < 0 &&
	    sparse_copy(src, dst, (off_t)bytes) < 0) {
		report_errno(rep, errno, "copying the template into %s", name);
		fdutil_close(src);
		fdutil_close(dst);
		unlinkat(dirfd, name, 0);
		return -1;
	}
	close(src);
	return dst;
}

/* The old kernels' way: bind, then set the flags. */
static int attach_old(int lfd, int image_fd)
{
	struct loop_info64 info;

	if (ioctl(lfd, LOOP_SET_FD, image_fd) < 0)
		return -1;
	memset(&info, 0, sizeof(info));
	info.lo_flags = LO_FLAGS_AUTOCLEAR;
	if (ioctl(lfd, LOOP_SET_STATUS64, &info) < 0) {
		int saved = errno;

		ioctl(lfd, LOOP_CLR_FD, 0);
		errno = saved;
		return -1;
	}
	return 0;
}

/* Open /dev/loopN, which must be a loop device: root's /dev, no link. */
static int open_loop(int n, char *dev, size_t len)
{
	struct stat st;
	int fd;

	snprintf(dev, len, "/dev/loop%d", n);
	if ((fd = open(dev, O_RDWR | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode) ||
	    major(st.st_rdev) != NSLOOP_MAJOR) {
		close(fd);
		errno = ENODEV;
		return -1;
	}
	return fd;
}

int nsloop_attach(int image_fd, char *dev, size_t len)
{
	int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC), lfd = -1;

	if (ctl < 0)
		return -1;
	for (int tries = 0; tries < NSLOOP_TRIES; tries++) {
		struct loop_config cfg;
		int n = ioctl(ctl, LOOP_CTL_GET_FREE);

		if (n < 0 || (lfd = open_loop(n, dev, len)) < 0)
			break;
		memset(&cfg, 0, sizeof(cfg));
		cfg.fd = (uint32_t)image_fd;
		cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
		if (ioctl(lfd, LOOP_CONFIGURE, &cfg) == 0)
			break;
		if ((errno == EINVAL || errno == ENOTTY) &&
		    attach_old(lfd, image_fd) == 0)
			break;
		fdutil_close(lfd);
		lfd = -1;
		/* Another process took the free device first: the next. */
		if (errno != EBUSY)
			break;
	}
	fdutil_close(ctl);
	return lfd;
}

/*
 * The new filesystem's root as the job's Dirs want it: root's 0755 (each
 * backing directory below gets its own mode), no lost+found for the job
 * to see.
 */
static int prepare_root(int mnt_fd)
{
	int root = openat(mnt_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (root < 0)
		return -1;
	if ((unlinkat(root, "lost+found", AT_REMOVEDIR) < 0 &&
	     errno != ENOENT) || fchmod(root, 0755) < 0) {
		fdutil_close(root);
		return -1;
	}
	close(root);
	return 0;
}

int nsloop_mount(int basefd, int jobfd, uint64_t bytes, uint64_t inodes,
		 struct report *rep)
{
	/* No zeroing of inode tables behind the job: the image dies with it. */
	static const char *const flags[] = { "noinit_itable", NULL };
	int img, lfd, mnt_fd = -1, saved;
	char dev[32];

	if ((img = nsloop_image_make(basefd, jobfd, JOBDIR_LOOP_IMAGE, bytes,
				     inodes, rep)) < 0)
		return -1;
	if ((lfd = nsloop_attach(img, dev, sizeof(dev))) < 0) {
		report_errno(rep, errno, "putting %s on a loop device",
			     JOBDIR_LOOP_IMAGE);
		goto error;
	}
	mnt_fd = fdmount_blockdev("ext4", dev, flags,
				  FDMOUNT_NOSUID | FDMOUNT_NODEV);
	if (mnt_fd < 0) {
		report_errno(rep, errno, "mounting %s (%s)", dev,
			     JOBDIR_LOOP_IMAGE);
		goto error;
	}
	if (prepare_root(mnt_fd) < 0) {
		report_errno(rep, errno, "preparing the root of %s", dev);
		goto error;
	}
	/* The mount holds the device now; our last fds of it go. */
	close(lfd);
	close(img);
	return mnt_fd;
error:
	saved = errno;
	fdutil_close(mnt_fd);
	fdutil_close(lfd);
	fdutil_close(img);
	unlinkat(jobfd, JOBDIR_LOOP_IMAGE, 0);
	errno = saved;
	return -1;
}
