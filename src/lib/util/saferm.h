/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * saferm.h - recursive removal that never follows a link.
 *
 * Job directories are removed by root while the job's files are controlled
 * by the user.  Removal by path (nftw, rm -rf) lets a user swap a directory
 * for a symlink between checks and make root delete outside the job dir
 * (CVE-2023-41914).  These functions work only relative to directory fds
 * opened with O_NOFOLLOW and identified with fstat() on the fd, so a swap
 * can make an open fail but never redirect it.
 *
 * Rules, for both functions:
 *  - a symlink is unlinked, its target is never touched;
 *  - a directory on another mount (different st_dev or mount id, so bind
 *    mounts of the same filesystem count too) is not entered: it is left in
 *    place and reported as EXDEV, and the removal goes on elsewhere;
 *  - a regular file whose only link is this name is emptied (truncated
 *    to 0) before it is unlinked, so that an fd held on it elsewhere
 *    reads nothing and holds no pages or blocks; it is pinned with O_PATH
 *    and checked (regular, one link, on the walk's mount) before it is
 *    opened for writing, through /proc/self/fd, so no FIFO or device is
 *    ever opened.  A file with another link (a hard link planted from
 *    elsewhere) is only unlinked, and so is, when not root, a file of
 *    another user's.  Failing to empty one (ETXTBSY: it is being
 *    executed) is reported, and it is unlinked all the same;
 *  - fifos, sockets and device nodes are unlinked, never opened;
 *  - a directory that lacks u+rwx is given it before its entries are
 *    removed (it is going away; this matters when not running as root);
 *  - entries that vanish meanwhile (ENOENT) are not failures;
 *  - memory does not grow with the number of entries or the length of
 *    their names: the only names held are one batch of SAFERM_BATCH_BYTES
 *    read from the current directory, whose entries are removed as they
 *    come; a directory is read again from its start while a pass over it
 *    removed something, SAFERM_MAX_PASSES times at most;
 *  - memory and fds do not grow with nesting depth either: the walk is
 *    iterative and goes at most SAFERM_MAX_FDS - 1 levels below its top,
 *    each level holding its fd (never reopened by name or by ".."); a
 *    directory deeper than that is moved into the top (renamed between
 *    two fds of the walk, under a name of the form .saferm.N.M) and
 *    removed from there, at most SAFERM_MAX_SPLITS times per call (ELOOP
 *    beyond).
 * Both try to remove everything they can, then return 0 when everything
 * went, or -1 with errno set to the first failure met.
 */
#ifndef DEVNS_SAFERM_H
#define DEVNS_SAFERM_H

/*
 * Most directory fds one call holds open at a time, the top's included;
 * also the most levels of its stack (a name of NAME_MAX bytes each).
 */
#define SAFERM_MAX_FDS 32

/* Most directories one call moves up into its top (see above). */
#define SAFERM_MAX_SPLITS (1UL << 24)

/* The buffer of directory entries one call reads them into (getdents64). */
#define SAFERM_BATCH_BYTES 32768

/* Most passes over one directory (the second normally finds it empty). */
#define SAFERM_MAX_PASSES 64

/*
 * Remove name, a single path component (no '/', not "." or ".."), from the
 * directory dirfd; when it is a directory, remove everything below it first.
 * The mount of name itself is the one the walk stays on.
 * Returns 0 on success, -1 with errno set: EINVAL for a bad name, ENOENT
 * when name does not exist, else the first failure (EXDEV: a mount point
 * was left in place; ELOOP: SAFERM_MAX_SPLITS moves were not enough).
 */
int saferm_at(int dirfd, const char *name);

/*
 * Remove everything inside the directory dirfd (any fd of it, O_PATH
 * included), keeping the directory itself; its mode is restored if it had
 * to be changed.  The walk stays on the mount of dirfd.
 * Returns 0 on success, -1 with errno set to the first failure.
 */
int saferm_contents(int dirfd);

#endif /* DEVNS_SAFERM_H */
