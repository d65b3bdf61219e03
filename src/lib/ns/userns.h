/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * userns.h - a job's user namespace (UserNamespace=yes): every process of
 * the job runs in a user namespace of its own, which root makes at the
 * job's setup and pins beside the mount namespace:
 *
 *   BasePath/<jobid>/.userns   pin: bind mount of /proc/<pid>/ns/user
 *
 * Its maps are the identity by default ("0 0 4294967295" for uids and
 * gids: every id means what it means outside, and setgroups(2) stays
 * allowed, so that Slurm can drop to the job's user in it), or whatever a
 * site's UserNsScript writes into /proc/$SLURM_NS_PID/{uid,gid}_map, as
 * Slurm's namespace/linux does.
 *
 * The namespace is owned by root's (the host's) user namespace, and
 * owns nothing: the job's mount and PID namespaces are made by root
 * outside it.  So whatever capabilities a process has in it (root inside,
 * with a site's map) reach no mount of the job, no device filter (root
 * attaches it from outside, in the host's user namespace), and no project
 * id of TmpDiskLimit (the kernel refuses project changes inside).
 *
 * A process enters it last, after its cgroup, its mount namespace and
 * every other step that needs root in the host's user namespace
 * (userns_open before the mount namespace hides BasePath, userns_enter
 * after).
 */
#ifndef DEVNS_USERNS_H
#define DEVNS_USERNS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/report.h"

/*
 * Writes the maps of the user namespace that process pid has just made:
 * the site's script (UserNsScript).  Returns 0, or -1 with the reason in
 * rep.  NULL in userns_create: the identity map.
 */
typedef int (*userns_map_fn)(pid_t pid, void *arg, struct report *rep);

/*
 * Make the user namespace of job_id, map it (map, or the identity when
 * NULL) and pin it.  The maps must map the job's uid and gid, and root's
 * (0), each to itself: Slurm moves between them inside.  A script that
 * does not fails the setup, as one that writes no map.  gid (gid_t)-1 is
 * unknown, and not checked.  The job's directory must exist.
 * The caller may be multi-threaded: the namespace is made in a forked
 * child.  On failure nothing is left (no pin, no process), errno is set
 * and rep says which step failed.
 */
int userns_create(const char *base_path, uint32_t job_id, uid_t uid,
		  gid_t gid, userns_map_fn map, void *arg, struct report *rep);

/*
 * Open the pin of job_id's user namespace.  Returns the fd, or -1 with
 * errno (ENOENT: the job has none).
 */
int userns_open(const char *base_path, uint32_t job_id);

/*
 * Move the calling process into the user namespace open as fd (closed in
 * every case).  The caller must be single-threaded and have
 * CAP_SYS_ADMIN (root in the host's user namespace).  Returns 0 or -1
 * with errno.
 */
int userns_enter(int fd);

/* True when BasePath/<jobid> holds a pinned user namespace. */
bool userns_exists(const char *base_path, uint32_t job_id);

#endif /* DEVNS_USERNS_H */
