/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nspool.h - mount namespaces copied ahead of the jobs (NamespacePool=N).
 *
 * unshare(CLONE_NEWNS) copies every mount of the node, and at 1,000 host
 * mounts that copy is most of what a job's namespace costs.  The pool
 * makes it before a job asks: bare copies of the node's namespace, pinned
 * under BasePath/.pool, that stay slaves of the node's, so that what the
 * node mounts or unmounts meanwhile reaches them as it would reach a copy
 * made at the job's start.  The job's caller claims one and hands it to
 * mntns_create (spec->pool_fd), which adds the job's own mounts; with
 * none ready it copies as before.
 *
 * Layout, all root's and 0700: BasePath/.pool/<n>/ is a private bind of
 * itself holding the pin .ns, and BasePath/.pool/<n>.ready says it may be
 * claimed.  A claim is the unlink of that marker, which exactly one
 * claimer wins; the winner then holds the namespace by an fd and unpins
 * it, and the next fill removes what is left of the entry.  Fill and clear
 * take an flock on BasePath/.pool, so one runs at a time; claims take no
 * lock.  Only the keeper (slurmd) fills; slurmstepd claims.
 */
#ifndef DEVNS_NSPOOL_H
#define DEVNS_NSPOOL_H

#include "util/report.h"

/*
 * Remove what is left of claimed or dead entries, then make namespaces
 * until want are ready.  Returns how many are ready, or -1 with errno and
 * why in rep when not even the sweep could run; a namespace that cannot be
 * made is reported and ends the fill early.
 */
int nspool_fill(const char *base_path, unsigned want, struct report *rep);

/*
 * Claim a ready namespace.  Returns an fd of it (O_CLOEXEC), the only
 * thing holding it now, or -1 with errno ENOENT when none is ready.
 */
int nspool_claim(const char *base_path);

/*
 * Remove every entry, ready or not, and BasePath/.pool itself: at slurmd's
 * start (entries of an earlier boot or daemon) and stop.  Absent is not an
 * error.  Returns 0, or -1 with errno and why in rep.
 */
int nspool_clear(const char *base_path, struct report *rep);

/* How many namespaces are ready to be claimed (0 when there is no pool). */
int nspool_ready(const char *base_path);

/*
 * Add to the inotify instance ino a watch of BasePath/.pool for claims (a
 * marker unlinked): nspool_keeper.h wakes on them.  Returns the watch
 * descriptor, or -1 with errno (no pool yet).
 */
int nspool_watch(int ino, const char *base_path);

#endif
