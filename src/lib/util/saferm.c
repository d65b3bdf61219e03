/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * saferm.c - recursive removal that never follows a link.
 *
 * How the walk stays safe (see saferm.h for the contract):
 *  - Every directory is opened relative to its parent's fd with O_NOFOLLOW
 *    and O_DIRECTORY, then identified with statx() on the new fd.  A user
 *    who swaps a directory for a symlink between our fstatat() and our
 *    openat() makes the open fail (ELOOP/ENOTDIR); we then unlink the name,
 *    which removes the link, not its target.  No path is ever resolved
 *    from the root or through a link.
 *  - A directory whose device or mount id differs from the top's is a mount
 *    point (st_dev alone misses bind mounts of the same filesystem): it is
 *    not entered.
 *  - Removals are unlinkat() on the parent fd; rmdir of a directory that
 *    is no longer empty just fails.
 *
 * How it copes with size: no directory's names are ever held.  The walk
 * reads the current directory with getdents64() into one buffer of
 * SAFERM_BATCH_BYTES (the only names in memory, whatever the directories
 * hold: a job can make millions of files or long names) and removes each
 * entry as it comes.  Descending into a subdirectory drops the rest of
 * the batch: the level keeps only the position after the entry it
 * descended into (its d_off) and reads on from there once it is back.
 * Reading while removing, or seeking to a d_off after removals, may miss
 * entries on some filesystems (those that count positions: tmpfs before
 * Linux 6.6, overlayfs), so a level reads its directory again from the
 * start (a new pass) as long as a pass met entries and removed one; one
 * that removes nothing (what is left cannot go: a mount point, EPERM)
 * ends it, and so does SAFERM_MAX_PASSES, against a process that keeps
 * creating files while we remove them.
 *
 * How it copes with depth: the walk is a loop over an explicit stack of
 * at most SAFERM_MAX_FDS levels, not recursion, and every level keeps its
 * fd open, so no directory is ever reopened by name or through "..".  A
 * directory met at the deepest level is not entered: it is moved
 * (renamed, between two fds of the walk) into the top under a new name,
 * where a later pass of the top meets it as a shallow directory.  Memory
 * and fds are therefore the same whatever the depth (a chain of ten
 * million directories is cut into pieces of SAFERM_MAX_FDS - 1 levels),
 * and climbing back is closing the deepest fd.  Renames stay inside the
 * tree: both ends are fds the walk opened and identified.  A pass of the
 * top in which directories were moved up is not counted against
 * SAFERM_MAX_PASSES (it is the walk's own doing); SAFERM_MAX_SPLITS bounds
 * the moves against a process that keeps deepening the tree.
 *
 * A directory the walk is in that someone moves elsewhere meanwhile is
 * still emptied through the walk's fd (what it holds is what the tree
 * held, or what that someone could remove himself), and then its old
 * name, gone, is not removed; the walk never goes up into a new parent.
 * It never operates on a directory it has not opened and identified.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util/saferm.h"

/* What we know of a directory: enough to recognise it and its mount. */
struct ident {
	dev_t dev;
	ino_t ino;
	mode_t mode;
	uint32_t nlink;
	uint64_t mnt_id;
	bool has_mnt_id; /* statx may not report it on old kernels */
	bool empty;      /* a file of no size and no block: nothing to free */
};

/* One directory on the way down from the top. */
struct level {
	char name[NAME_MAX + 1]; /* its name in the level above; "" for the top */
	int fd;        /* open as long as the level is on the stack */
	off_t pos;     /* where this pass reads on: the last entry's d_off */
	unsigned passes; /* passes over the directory begun */
	bool seen;     /* this pass met an entry */
	bool removed;  /* this pass removed one */
};

struct walk {
	struct level *levels; /* SAFERM_MAX_FDS of them */
	size_t depth;  /* index of the current level; 0 is the top */
	struct ident top;
	int err;       /* first failure, 0 while there is none */
	char *batch;   /* SAFERM_BATCH_BYTES of the current level's entries */
	size_t blen;   /* bytes in batch */
	size_t bpos;   /* offset of the next entry in batch */
	bool moved_up; /* this pass of the top had directories moved into it */
	unsigned long splits; /* directories moved up so far */
};

static void walk_fail(struct walk *w, int err)
{
	if (w->err == 0)
		w->err = err;
}

/* close() that leaves errno alone, for error paths. */
static void fd_close(int fd)
{
	int saved = errno;

	if (fd >= 0)
		close(fd);
	errno = saved;
}

/* Identify the file open at fd, with its mount id when the kernel has it. */
static int fd_ident(int fd, struct ident *id)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_MODE | STATX_INO
		  | STATX_NLINK | STATX_MNT_ID | STATX_SIZE | STATX_BLOCKS,
		  &stx) < 0)
		return -1;
	id->empty = (stx.stx_mask & STATX_SIZE) && (stx.stx_mask & STATX_BLOCKS)
		    && stx.stx_size == 0 && stx.stx_blocks == 0;
	id->dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
	id->ino = stx.stx_ino;
	id->mode = stx.stx_mode;
	id->nlink = stx.stx_nlink;
	id->has_mnt_id = (stx.stx_mask & STATX_MNT_ID) != 0;
	id->mnt_id = stx.stx_mnt_id;
	return 0;
}

/*
 * Tell whether a file (not a directory) id lies on the mount of top: by
 * mount id where the kernel gives both, else by device.  Not by device
 * and mount id, as for directories: overlayfs reports a file's st_dev as
 * its upper or lower filesystem's, not the overlay's its directories have.
 */
static bool file_same_mount(const struct ident *top, const struct ident *id)
{
	if (top->has_mnt_id && id->has_mnt_id)
		return id->mnt_id == top->mnt_id;
	return id->dev == top->dev;
}

/* Tell whether id lies on the mount of top. */
static bool ident_same_mount(const struct ident *top, const struct ident *id)
{
	if (id->dev != top->dev || id->has_mnt_id != top->has_mnt_id)
		return false;
	return !id->has_mnt_id || id->mnt_id == top->mnt_id;
}

/* Tell whether id lies on the mount the walk started on. */
static bool same_mount(const struct walk *w, const struct ident *id)
{
	return ident_same_mount(&w->top, id);
}

/*
 * chmod the file open at fd.  An O_PATH fd refuses fchmod (EBADF); its
 * /proc/self/fd link names exactly the opened inode, never a new lookup.
 */
static int fd_chmod(int fd, mode_t mode)
{
	char path[64];

	if (fchmod(fd, mode) == 0)
		return 0;
	if (errno != EBADF)
		return -1;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return chmod(path, mode);
}

/*
 * Open directory name below pfd without following a link.  O_NOATIME
 * spares the user's atimes but needs ownership or CAP_FOWNER (EPERM).
 */
static int dir_openat(int pfd, const char *name)
{
	int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	int fd;

	fd = openat(pfd, name, flags | O_NOATIME);
	if (fd < 0 && errno == EPERM)
		fd = openat(pfd, name, flags);
	return fd;
}

/*
 * Open an unreadable directory (not root, mode without u+r): pin it with
 * O_PATH, check that it is on the walk's mount (w is NULL for the top,
 * which defines that mount), add u+rwx, open it for reading.
 */
static int dir_open_unreadable(const struct walk *w, int pfd, const char *name)
{
	struct ident id;
	int pathfd, fd = -1;

	pathfd = openat(pfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW
			| O_CLOEXEC);
	if (pathfd < 0)
		return -1;
	if (fd_ident(pathfd, &id) < 0)
		goto out;
	if (w && !same_mount(w, &id)) {
		errno = EXDEV;
		goto out;
	}
	if (fd_chmod(pathfd, (id.mode & 07777) | S_IRWXU) < 0)
		goto out;
	fd = openat(pathfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
out:
	fd_close(pathfd);
	return fd;
}

/* Open directory name below pfd for reading, never through a link. */
static int dir_open(const struct walk *w, int pfd, const char *name)
{
	int fd = dir_openat(pfd, name);

	if (fd < 0 && errno == EACCES)
		fd = dir_open_unreadable(w, pfd, name);
	return fd;
}

/*
 * Give a directory we are about to empty u+rwx, which unlinkat() needs when
 * we are not root.  Failure is not fatal: the removals will report it.
 */
static void dir_make_writable(int fd, const struct ident *id)
{
	if ((id->mode & S_IRWXU) != S_IRWXU)
		(void)fchmod(fd, (id->mode & 07777) | S_IRWXU);
}

/* Forget the batch: it belonged to a level the walk left. */
static void batch_drop(struct walk *w)
{
	w->blen = 0;
	w->bpos = 0;
}

/*
 * The next entry of l's directory in this pass (it points into w->batch),
 * or NULL at the end of the pass.  A read error is recorded and ends the
 * pass as one that removed nothing, so that it is the last.
 */
static const char *level_next(struct walk *w, struct level *l)
{
	struct dirent64 *de;
	ssize_t n;

	for (;;) {
		if (w->bpos >= w->blen) {
			if (lseek(l->fd, l->pos, SEEK_SET) < 0 ||
			    (n = getdents64(l->fd, w->batch,
					    SAFERM_BATCH_BYTES)) < 0) {
				walk_fail(w, errno);
				l->removed = false;
				return NULL;
			}
			if (n == 0)
				return NULL;
			w->blen = (size_t)n;
			w->bpos = 0;
		}
		de = (struct dirent64 *)(w->batch + w->bpos);
		w->bpos += de->d_reclen;
		l->pos = de->d_off;
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			l->seen = true;
			return de->d_name;
		}
	}
}

/*
 * At the end of a pass over l: begin another (true) when this one met
 * entries and removed some, which may have hidden others from it, or,
 * at the top, when directories were moved into it (not counted).
 */
static bool level_new_pass(struct walk *w, struct level *l)
{
	if (w->depth == 0 && w->moved_up)
		w->moved_up = false;
	else if (!l->seen || !l->removed ||
		 ++l->passes >= SAFERM_MAX_PASSES)
		return false;
	l->pos = 0;
	l->seen = false;
	l->removed = false;
	batch_drop(w);
	return true;
}

/*
 * Forget the current level (not the top); move up one, where reading goes
 * on after the entry just left.
 */
static void level_drop(struct walk *w)
{
	struct level *l = &w->levels[w->depth];

	fd_close(l->fd);
	l->fd = -1;
	w->depth--;
	batch_drop(w);
}

/* Make the directory open at fd (called name) the new current level. */
static void level_push(struct walk *w, const char *name, int fd)
{
	struct level *l = &w->levels[w->depth + 1];

	memset(l, 0, sizeof(*l));
	/* getdents64 names are at most NAME_MAX bytes */
	snprintf(l->name, sizeof(l->name), "%s", name);
	l->fd = fd;
	w->depth++;
	batch_drop(w);	/* name pointed into it: copied above */
}

/*
 * Empty the regular file name below pfd (truncate it to 0) before it is
 * unlinked, so that an fd another process holds on it reads nothing and
 * keeps no pages or blocks.  The name is pinned with O_PATH, which opens
 * nothing (no FIFO waits, no device driver runs, a symlink is itself),
 * and only a regular file on the mount of top whose one link is this
 * name is emptied: a file with another name elsewhere (a hard link the
 * user planted here, protected_hardlinks off) is not only the tree's,
 * and a file mounted over the name is not the tree's at all.  The write
 * open goes through /proc/self/fd, which reaches exactly the pinned
 * inode.  Returns 0 (also when there was nothing to empty, or, when
 * not root, the file is another user's), or -1 with errno set (ETXTBSY:
 * the file is being executed).
 */
static int file_empty(int pfd, const char *name, const struct ident *top)
{
	char path[64];
	struct ident id;
	int pfile, fd = -1, rc = -1;

	pfile = openat(pfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (pfile < 0)
		return errno == ENOENT ? 0 : -1;
	if (fd_ident(pfile, &id) < 0)
		goto out;
	/* Empty already (the namespace's pin): no reopen, no truncate. */
	if (!S_ISREG(id.mode) || id.nlink != 1 || id.empty ||
	    !file_same_mount(top, &id)) {
		rc = 0;
		goto out;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", pfile);
	fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	/* Not root: give our own file u+w (it is going away), as dirs get
	 * u+rwx; a file that is not ours is only unlinked. */
	if (fd < 0 && errno == EACCES) {
		if (fd_chmod(pfile, (id.mode & 07777) | S_IWUSR) < 0) {
			rc = errno == EPERM ? 0 : -1;
			goto out;
		}
		fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	}
	if (fd < 0)
		goto out;
	rc = ftruncate(fd, 0);
out:
	fd_close(fd);
	fd_close(pfile);
	return rc;
}

/* Unlink a non-directory name of the current level; vanished is fine. */
static void entry_unlink(struct walk *w, int pfd, const char *name)
{
	if (unlinkat(pfd, name, 0) == 0)
		w->levels[w->depth].removed = true;
	else if (errno != ENOENT)
		walk_fail(w, errno);
}

/*
 * Move directory name of the current level (the deepest) into the top,
 * under a name of ours (RENAME_NOREPLACE: a name someone put there
 * first is tried again with another), for a later pass of the top.
 * Both ends are fds of the walk, so it stays in the tree.  Returns 0
 * (also when name is gone), or -1 with errno set.
 */
static int entry_move_up(struct walk *w, const char *name)
{
	struct level *l = &w->levels[w->depth];
	char to[64];
	int rc = -1;

	if (w->splits >= SAFERM_MAX_SPLITS) {
		errno = ELOOP;
		return -1;
	}
	for (unsigned try = 0; rc < 0 && try < 8; try++) {
		snprintf(to, sizeof(to), ".saferm.%lu.%u", w->splits, try);
		rc = renameat2(l->fd, name, w->levels[0].fd, to,
			       RENAME_NOREPLACE);
		/* A file system without the flag: replacing can only hit
		 * an empty directory of the tree (a directory is moved). */
		if (rc < 0 && errno == EINVAL)
			rc = renameat(l->fd, name, w->levels[0].fd, to);
		if (rc < 0 && errno != EEXIST)
			break;
	}
	if (rc < 0)
		return errno == ENOENT ? 0 : -1;
	w->splits++;
	w->moved_up = true;
	l->removed = true;
	return 0;
}

/* Open directory name below the current level and descend into it. */
static void entry_enter(struct walk *w, const char *name)
{
	int pfd = w->levels[w->depth].fd;
	struct ident id;
	int fd;

	if ((fd = dir_open(w, pfd, name)) < 0) {
		/* Replaced by a link or file since fstatat(): unlink that. */
		if (errno == ELOOP || errno == ENOTDIR)
			entry_unlink(w, pfd, name);
		else if (errno != ENOENT)
			walk_fail(w, errno);
		return;
	}
	if (fd_ident(fd, &id) < 0)
		goto error;
	if (!same_mount(w, &id)) {
		errno = EXDEV;
		goto error;
	}
	/* Also what moving it needs when we are not root: it gets a new "..". */
	dir_make_writable(fd, &id);
	if (w->depth + 1 < SAFERM_MAX_FDS) {
		level_push(w, name, fd);
		return;
	}
	fd_close(fd);
	if (entry_move_up(w, name) < 0)
		goto error;
	return;
error:
	walk_fail(w, errno);
	fd_close(fd);
}

/* Remove entry name of the current level, or descend into it. */
static void entry_remove(struct walk *w, const char *name)
{
	int pfd = w->levels[w->depth].fd;
	struct stat st;

	if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT)
			walk_fail(w, errno);
		return;
	}
	if (S_ISDIR(st.st_mode)) {
		entry_enter(w, name);
		return;
	}
	/* Emptied even when it cannot be: unlinked, it is at least not
	 * reachable by name any more. */
	if (S_ISREG(st.st_mode) && file_empty(pfd, name, &w->top) < 0)
		walk_fail(w, errno);
	entry_unlink(w, pfd, name);
}

/* The current level (not the top) is empty: remove it, move up. */
static void level_finish(struct walk *w)
{
	size_t k = w->depth;

	if (unlinkat(w->levels[k - 1].fd, w->levels[k].name,
		     AT_REMOVEDIR) == 0)
		w->levels[k - 1].removed = true;
	else if (errno != ENOENT)
		walk_fail(w, errno);
	level_drop(w);
}

/* Empty the top level, depth first.  Returns the first failure or 0. */
static int walk_run(struct walk *w)
{
	struct level *l;
	const char *name;

	for (;;) {
		l = &w->levels[w->depth];
		if ((name = level_next(w, l))) {
			entry_remove(w, name);
			continue;
		}
		if (level_new_pass(w, l))
			continue;
		if (w->depth == 0)
			return w->err;
		level_finish(w);
	}
}

/*
 * Empty the directory open at fd (the walk takes it over and closes it).
 * Returns 0, or -1 with errno set to the first failure.
 */
static int walk_dir(int fd)
{
	struct walk w = { .depth = 0 };
	int err;

	if (fd_ident(fd, &w.top) < 0)
		goto error;
	if (!(w.batch = malloc(SAFERM_BATCH_BYTES)))
		goto error;
	if (!(w.levels = calloc(SAFERM_MAX_FDS, sizeof(*w.levels)))) {
		free(w.batch);
		goto error;
	}
	w.levels[0].fd = fd;
	dir_make_writable(fd, &w.top);
	err = walk_run(&w);
	close(fd);
	free(w.levels);
	free(w.batch);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
error:
	fd_close(fd);
	return -1;
}

/* Tell whether name is one plain path component. */
static bool name_is_component(const char *name)
{
	return name && *name && !strchr(name, '/') && strcmp(name, ".")
	       && strcmp(name, "..");
}

int saferm_at(int dirfd, const char *name)
{
	struct ident top;
	struct stat st;
	int fd, rc, saved;

	if (!name_is_component(name)) {
		errno = EINVAL;
		return -1;
	}
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	if (S_ISREG(st.st_mode)) {
		/* On dirfd's mount: a file mounted over name is not ours. */
		rc = fd_ident(dirfd, &top) < 0 ? -1
		     : file_empty(dirfd, name, &top);
		saved = errno;
		if (unlinkat(dirfd, name, 0) < 0)
			return -1;
		errno = saved;
		return rc;
	}
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dirfd, name, 0);
	/* name's own mount becomes the one the walk stays on. */
	if ((fd = dir_open(NULL, dirfd, name)) < 0) {
		/* Replaced by a link or file since fstatat(): unlink that. */
		if (errno == ELOOP || errno == ENOTDIR)
			return unlinkat(dirfd, name, 0);
		return -1;
	}
	rc = walk_dir(fd);
	saved = errno;
	/* Tried even after a failure below, which may have left it empty. */
	if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT
	    && rc == 0)
		return -1;
	errno = saved;
	return rc;
}

int saferm_contents(int dirfd)
{
	struct stat st;
	int fd, rc, saved;

	if (fstat(dirfd, &st) < 0)
		return -1;
	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno == EACCES
	    && fd_chmod(dirfd, (st.st_mode & 07777) | S_IRWXU) == 0)
		fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	rc = walk_dir(fd);
	saved = errno;
	/* The caller keeps this directory: give it its mode back. */
	if ((st.st_mode & S_IRWXU) != S_IRWXU)
		(void)fd_chmod(dirfd, st.st_mode & 07777);
	errno = saved;
	return rc;
}
