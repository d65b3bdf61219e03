/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * safepath.h - resolve and check absolute paths without following links.
 *
 * Root acts on paths that users can influence: a Dirs entry such as
 * /var/tmp/job lives in a world-writable parent where anyone can plant a
 * symlink, and a mount onto a path follows every link in it.  These
 * functions walk a path one component at a time with O_NOFOLLOW, so a link
 * anywhere makes the walk fail (ELOOP) instead of redirecting it, and hand
 * back an fd of the directory they checked: the caller then acts on that fd
 * (mount onto it, create below it), never on the path again.
 *
 * Paths must be absolute and normal: no empty, "." or ".." components, no
 * trailing slash (EINVAL otherwise).  Nothing here allocates memory, so
 * safepath_open() may be called in a child between fork() and exec().
 */
#ifndef DEVNS_SAFEPATH_H
#define DEVNS_SAFEPATH_H

#include <stddef.h>
#include <sys/types.h>

#include "util/report.h"

/*
 * Open the directory at path, walking from "/" with O_PATH|O_NOFOLLOW on
 * every component.  Returns an O_PATH|O_DIRECTORY|O_CLOEXEC fd, or -1 with
 * errno: ELOOP when a component is a symlink, ENOTDIR when one is not a
 * directory, ENOENT when one is missing, EINVAL for a path that is not
 * absolute and normal.
 */
int safepath_open(const char *path);

/*
 * Check that path may hold root's private job directories, like sshd's
 * StrictModes: every component is a directory owned by root and no
 * symlink, and none is writable by group or others, sticky or not: in a
 * sticky directory such as /var/tmp, root's directory can be removed once
 * it is empty (systemd-tmpfiles ages /var/tmp out) and any user can then
 * take its name (BasePath=/var/tmp/devns is refused, and so is /tmp).
 * Returns 0, or -1 with errno and a message naming the component in rep.
 */
int safepath_check_private(const char *path, struct report *rep);

/*
 * safepath_check_private() for a path that safepath_make_private() would
 * complete, without creating anything: the components that exist are
 * checked, and the first missing one ends the walk; the directory it
 * would be made in must not be writable by group or others, sticky or
 * not (in /tmp a user could make it first and keep slurmd from starting).
 * Returns 1 when all of path exists (and passed), 0 when a trailing part
 * is missing, or -1 with errno and a message in rep.
 */
int safepath_check_makeable(const char *path, struct report *rep);

/*
 * Create the missing components of path as root-owned directories of the
 * given mode (umask ignored), each made with mkdirat() below the fd of its
 * checked parent, without following links, and only in a parent that is
 * not writable by group or others, sticky or not; then run
 * safepath_check_private().  Returns 0, or -1 with errno and a message in
 * rep.
 */
int safepath_make_private(const char *path, mode_t mode, struct report *rep);

/*
 * Check the directory path below which root creates each job's own
 * directories (the fixed part of a Source= template): every ancestor a
 * directory of root's, no symlink, none writable by group or others
 * except a sticky one (whose next component, root's, no user can remove
 * while it holds a job's directory), and path itself a directory of
 * root's that neither group nor others may write to, sticky or not: in a
 * shared directory a user could make another user's job directory first
 * and keep that job from starting.  A missing component is accepted (the
 * job start needs it; a filesystem may be mounted later) unless the
 * directory it would be made in is writable by group or others.
 * Returns 0, or -1 with errno and a message naming the directory in rep.
 */
int safepath_check_create_below(const char *path, struct report *rep);

/*
 * Check a mount point root mounts over at each job start (a private
 * directory): every ancestor a directory of root's, no symlink, and none
 * writable by group or others, sticky or not: removing a mount point's
 * directory (systemd-tmpfiles ages /var/tmp out) detaches the mount from
 * every job's namespace, and in a shared parent any user could then take
 * the name and receive the jobs' writes.  The mount point itself may be
 * writable by anyone (/tmp is 1777, its parent / is root's alone): it is
 * mounted over.  A missing component: as in
 * safepath_check_create_below().
 * Returns 0, or -1 with errno and a message naming the component in rep.
 */
int safepath_check_mount_point(const char *path, struct report *rep);

/*
 * Open a node directory that root binds into jobs as it is (KeepPaths,
 * e.g. /tmp/nvidia-mps): walked from "/" without following links, every
 * component a directory of root's, and an ancestor that group or others
 * may write to only where it is sticky, so that no other user can have
 * made, moved or replaced any component; the directory itself may be
 * writable by anyone (/tmp/.X11-unix is 1777).  Returns an
 * O_PATH|O_DIRECTORY|O_CLOEXEC fd of it, or -1 with errno (ENOENT: a
 * component is missing; EPERM: one could have been planted; ELOOP: a
 * link) and a message naming the component in rep.
 */
int safepath_open_kept(const char *path, struct report *rep);

#endif /* DEVNS_SAFEPATH_H */
