/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * safepath.c - resolve and check absolute paths without following links.
 *
 * Each walk holds the fd of the directory it has checked and opens the next
 * component relative to it with O_NOFOLLOW: the kernel refuses a symlink
 * there, so what is checked is what the next step uses.  The component is
 * inspected with fstat() on the new fd, never by path.
 *
 * safepath_open() asks the kernel for the same in one call where it can:
 * openat2(2) with RESOLVE_NO_SYMLINKS refuses a link in any component
 * (magic links included) and O_DIRECTORY a last one that is no
 * directory, as the walk does; a job's namespace takes about ten such
 * opens of BasePath and the private directories, three system calls a
 * component each way.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "util/report.h"
#include "util/safepath.h"

/* One walk over a path: the copy it cuts up and where it stands. */
struct walk {
	char buf[PATH_MAX];
	char *next;		/* start of the next component, or NULL */
	int fd;			/* the directory checked last */
};

static bool component_ok(const char *c, size_t len)
{
	if (len == 0 || len > NAME_MAX)
		return false;
	return !(c[0] == '.' && (len == 1 || (len == 2 && c[1] == '.')));
}

/* Syntax only: absolute, components non-empty and not "." or "..". */
static bool path_ok(const char *path)
{
	const char *c, *slash;

	if (!path || path[0] != '/' || strlen(path) >= PATH_MAX)
		return false;
	if (path[1] == '\0')
		return true;
	for (c = path + 1; ; c = slash + 1) {
		slash = strchr(c, '/');
		if (!component_ok(c, slash ? (size_t)(slash - c) : strlen(c)))
			return false;
		if (!slash)
			return true;
	}
}

static int walk_start(struct walk *w, const char *path)
{
	if (!path_ok(path)) {
		errno = EINVAL;
		return -1;
	}
	strcpy(w->buf, path);
	w->next = w->buf[1] ? w->buf + 1 : NULL;
	w->fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	return w->fd < 0 ? -1 : 0;
}

/* Cut the next component out of the buffer; NULL at the end. */
static const char *walk_name(struct walk *w)
{
	char *name = w->next, *slash;

	if (!name)
		return NULL;
	slash = strchr(name, '/');
	if (slash)
		*slash = '\0';
	w->next = slash ? slash + 1 : NULL;
	return name;
}

/* Step into name below the current directory; it must be a directory. */
static int walk_step(struct walk *w, const char *name)
{
	struct stat st;
	int fd = openat(w->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		int saved = errno;

		close(fd);
		errno = saved;
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		close(fd);
		errno = S_ISLNK(st.st_mode) ? ELOOP : ENOTDIR;
		return -1;
	}
	close(w->fd);
	w->fd = fd;
	return 0;
}

static void walk_abort(struct walk *w)
{
	int saved = errno;

	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	errno = saved;
}

/*
 * The whole of path (checked by path_ok) in one openat2(2): -1 with errno
 * ENOSYS where the kernel (before 5.6) or a seccomp filter has none, or
 * refuses the call's flags.
 */
static int open_whole(const char *path)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS,
	};
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));

	if (fd < 0 && (errno == EINVAL || errno == E2BIG || errno == EPERM))
		errno = ENOSYS;
	return fd;
}

int safepath_open(const char *path)
{
	struct walk w;
	const char *name;
	int fd;

	if (!path_ok(path)) {
		errno = EINVAL;
		return -1;
	}
	if ((fd = open_whole(path)) >= 0 || errno != ENOSYS)
		return fd;
	if (walk_start(&w, path) < 0)
		return -1;
	while ((name = walk_name(&w)))
		if (walk_step(&w, name) < 0) {
			walk_abort(&w);
			return -1;
		}
	return w.fd;
}

/* "WHAT: strerror", or "WHAT is a symbolic link"; -1 with errno. */
static int fail(struct report *rep, int errnum, const char *what)
{
	if (errnum == ELOOP) {
		errno = errnum;
		return report_error(rep, "%s is a symbolic link", what);
	}
	return report_errno(rep, errnum, "%s", what);
}

/*
 * The ownership rule for one checked directory; see the header.  A
 * sticky ancestor is accepted only with sticky_ok: in it root's
 * directory, once empty, can be removed (systemd-tmpfiles ages /var/tmp
 * out), and then any user can take its name.
 */
static int check_dir(int fd, const char *shown, bool last, bool sticky_ok,
		     struct report *rep)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return fail(rep, errno, shown);
	if (st.st_uid != 0) {
		errno = EPERM;
		return report_error(rep, "%s is not owned by root (uid %u)",
				    shown, (unsigned)st.st_uid);
	}
	if (!(st.st_mode & (S_IWGRP | S_IWOTH)))
		return 0;
	if (last || !(st.st_mode & S_ISVTX) || !sticky_ok) {
		errno = EPERM;
		return report_error(rep, "%s is writable by %s (mode %04o)%s",
			shown, st.st_mode & S_IWOTH ? "others" : "its group",
			(unsigned)(st.st_mode & 07777),
			last && (st.st_mode & S_ISVTX) ?
			": a shared directory cannot hold job directories" :
			st.st_mode & S_ISVTX ? ": sticky or not, a directory "
			"in it can be removed once empty (systemd-tmpfiles "
			"ages /var/tmp out) and its name taken by any user" :
			"");
	}
	return 0;	/* sticky: the next component must be root's, checked next */
}

/*
 * Component shown (missing) would be made below the directory fd, shown
 * as parent: only where no other user can make it first.  In a directory
 * others may write to, sticky or not, a user could take the name (a
 * directory of theirs, a link) and keep root from ever making it: every
 * job, or slurmd itself, would fail to start.  Returns 0 or -1.
 */
static int missing_check(int fd, const char *parent, const char *shown,
			 struct report *rep)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return fail(rep, errno, parent);
	if (!(st.st_mode & (S_IWGRP | S_IWOTH)))
		return 0;
	errno = EPERM;
	return report_error(rep, "%s does not exist and %s is writable by %s "
			    "(mode %04o): another user could make %s first",
			    shown, parent, st.st_mode & S_IWOTH ? "others" :
			    "its group", (unsigned)(st.st_mode & 07777),
			    shown);
}

/* path up to and including component name of w, into shown[PATH_MAX]. */
static void walk_shown(const struct walk *w, const char *path,
		       const char *name, char *shown)
{
	snprintf(shown, PATH_MAX, "%.*s",
		 (int)(name - w->buf + strlen(name)), path);
}

/*
 * One step of a walk, into component name (shown, below parent, for
 * messages).  A missing one ends the walk where missing_ok, once it passes
 * missing_check(): returns 0 then, with w closed.  Returns 1 when w moved
 * on, -1 on a failure (reported; w left for the caller's error path).
 */
static int walk_step_checked(struct walk *w, const char *name,
			     const char *parent, const char *shown,
			     bool missing_ok, struct report *rep)
{
	if (walk_step(w, name) == 0)
		return 1;
	if (!missing_ok || errno != ENOENT)
		return fail(rep, errno, shown);
	if (missing_check(w->fd, parent, shown, rep) < 0)
		return -1;
	walk_abort(w);
	return 0;
}

/*
 * Walk path; with mode != 0 create what is missing.  With partial, a
 * missing component ends the walk: returns 0 then, 1 when all exists.
 * Either way a missing component must pass missing_check().
 */
static int walk_private(const char *path, mode_t mode, bool partial,
			struct report *rep)
{
	char shown[PATH_MAX], parent[PATH_MAX] = "/";
	const char *name;
	struct stat st;
	struct walk w;
	int stepped;

	if (walk_start(&w, path) < 0)
		return fail(rep, errno, path);
	if (check_dir(w.fd, "/", !w.next, false, rep) < 0)
		goto error;
	while ((name = walk_name(&w))) {
		/* path up to and including this component, for messages */
		walk_shown(&w, path, name, shown);
		if (mode && fstatat(w.fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 &&
		    errno == ENOENT) {
			if (missing_check(w.fd, parent, shown, rep) < 0)
				goto error;
			/*
			 * A directory root just made in a directory only root
			 * writes to cannot be swapped: fixing its mode by
			 * name is safe.
			 */
			if (mkdirat(w.fd, name, mode) == 0 &&
			    fchmodat(w.fd, name, mode, 0) < 0) {
				fail(rep, errno, shown);
				goto error;
			}
		}
		if ((stepped = walk_step_checked(&w, name, parent, shown,
						 partial, rep)) <= 0) {
			if (stepped == 0)
				return 0;
			goto error;
		}
		if (check_dir(w.fd, shown, !w.next, false, rep) < 0)
			goto error;
		snprintf(parent, sizeof(parent), "%s", shown);
	}
	close(w.fd);
	return partial ? 1 : 0;
error:
	walk_abort(&w);
	return -1;
}

int safepath_check_private(const char *path, struct report *rep)
{
	return walk_private(path, 0, false, rep);
}

int safepath_check_makeable(const char *path, struct report *rep)
{
	return walk_private(path, 0, true, rep);
}

int safepath_make_private(const char *path, mode_t mode, struct report *rep)
{
	return walk_private(path, mode & 07777 ? mode & 07777 : 0755, false,
			    rep);
}

/* What the last component of a checked path is for. */
enum last_rule {
	LAST_CREATE_BELOW,	/* root creates job directories in it */
	LAST_MOUNT_POINT,	/* root mounts over it */
};

/* The last component, open at fd, for rule.  (A mount point's owner does
 * not matter: its parent is root's alone, so no one else can swap it.) */
static int check_last(int fd, const char *shown, enum last_rule rule,
		      struct report *rep)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return fail(rep, errno, shown);
	if (rule == LAST_CREATE_BELOW &&
	    (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)))) {
		errno = EPERM;
		return report_error(rep, "%s belongs to uid %u with mode %04o: "
				    "root makes each job's directory in it, "
				    "which needs a directory of root's that "
				    "no other user may write to, sticky or "
				    "not (another user could make a job's "
				    "directory first)", shown,
				    (unsigned)st.st_uid,
				    (unsigned)(st.st_mode & 07777));
	}
	return 0;
}

/*
 * The walk of safepath_check_create_below() and
 * safepath_check_mount_point(): every ancestor as check_dir() wants it
 * (a sticky one only below a Source's fixed part: a mount point's
 * would be removed from under the jobs' mounts), the last component by
 * rule, a missing one by missing_check().
 */
static int walk_check(const char *path, enum last_rule rule,
		      struct report *rep)
{
	char shown[PATH_MAX], parent[PATH_MAX] = "/";
	bool sticky_ok = rule == LAST_CREATE_BELOW;
	const char *name;
	struct walk w;
	int stepped;

	if (walk_start(&w, path) < 0)
		return fail(rep, errno, path);
	if (!w.next) {
		if (check_last(w.fd, "/", rule, rep) < 0)
			goto error;
		close(w.fd);
		return 0;
	}
	while ((name = walk_name(&w))) {
		walk_shown(&w, path, name, shown);
		/* w.fd is an ancestor of the last component */
		if (check_dir(w.fd, parent, false, sticky_ok, rep) < 0)
			goto error;
		if ((stepped = walk_step_checked(&w, name, parent, shown, true,
						 rep)) <= 0) {
			if (stepped == 0)
				return 0;
			goto error;
		}
		snprintf(parent, sizeof(parent), "%s", shown);
	}
	if (check_last(w.fd, shown, rule, rep) < 0)
		goto error;
	close(w.fd);
	return 0;
error:
	walk_abort(&w);
	return -1;
}

int safepath_check_create_below(const char *path, struct report *rep)
{
	return walk_check(path, LAST_CREATE_BELOW, rep);
}

int safepath_check_mount_point(const char *path, struct report *rep)
{
	return walk_check(path, LAST_MOUNT_POINT, rep);
}

int safepath_open_kept(const char *path, struct report *rep)
{
	char shown[PATH_MAX] = "/", parent[PATH_MAX] = "/";
	const char *name;
	struct stat st;
	struct walk w;

	if (walk_start(&w, path) < 0)
		return fail(rep, errno, path);
	while ((name = walk_name(&w))) {
		walk_shown(&w, path, name, shown);
		/* an ancestor: root's, others' writes only where sticky */
		if (check_dir(w.fd, parent, false, true, rep) < 0)
			goto error;
		if (walk_step(&w, name) < 0) {
			fail(rep, errno, shown);
			goto error;
		}
		snprintf(parent, sizeof(parent), "%s", shown);
	}
	/* The kept directory itself: root's (a user's could be planted). */
	if (fstat(w.fd, &st) < 0) {
		fail(rep, errno, shown);
		goto error;
	}
	if (st.st_uid != 0) {
		errno = EPERM;
		report_error(rep, "%s is not owned by root (uid %u): another "
			     "user may have made it first", shown,
			     (unsigned)st.st_uid);
		goto error;
	}
	return w.fd;
error:
	walk_abort(&w);
	return -1;
}
