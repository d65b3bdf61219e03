/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cgroup2.h - the job's directory in the cgroup-v2 hierarchy: find the
 * mount, make and open the job's cgroup, move processes into it, list them,
 * and remove it once it is empty.
 *
 * The device filter is attached to this directory, so it must hold every
 * process of the job.  On hybrid nodes (v1 controllers, cgroup2 at
 * /sys/fs/cgroup/unified) devns keeps its own tree there, e.g.
 * <mount>/devns/job_<id>; where Slurm manages cgroup v2 the caller opens
 * Slurm's job directory instead and uses the same calls.
 *
 * Everything below the mount is done relative to directory fds, one path
 * component at a time with O_NOFOLLOW, so no path is ever re-resolved.
 */
#ifndef DEVNS_CGROUP2_H
#define DEVNS_CGROUP2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The node's cgroup layout.  On a hybrid node Slurm's cgroup plugin works
 * on the v1 hierarchies and leaves cgroup2 alone, so devns keeps job
 * cgroups of its own there.  On a unified node Slurm's cgroup/v2 owns the
 * hierarchy: job processes live in Slurm's cgroups, which carry the job's
 * limits and tracking, and must never be moved out of them.
 */
enum cgroup2_layout {
	CGROUP2_NONE,		/* no cgroup2 mounted */
	CGROUP2_HYBRID,		/* cgroup2 beside v1 hierarchies */
	CGROUP2_UNIFIED,	/* cgroup2 only */
};

/*
 * The layout and the cgroup2 mount point (mount[0] == '\0' when there is
 * none) in one look.  With mountinfo NULL it first looks where systemd
 * mounts the cgroups and Slurm's cgroup/autodetect looks for them:
 * /sys/fs/cgroup itself cgroup2 (unified), or a tmpfs there holding a
 * cgroup v1 systemd hierarchy and cgroup2 at unified/ (hybrid).  Those are
 * three statfs calls at most, where mountinfo grows with the node's mounts
 * and every slurmstepd looks.  Anything else, or a mountinfo file given,
 * is read from mountinfo, in one pass: unified when cgroup2 is mounted
 * and no v1 hierarchy is, and a mount of the hierarchy's root preferred
 * over a bind mount of a subtree.
 * Returns 0, or -1 with errno (ENAMETOOLONG, or reading mountinfo failed).
 */
int cgroup2_probe(const char *mountinfo, enum cgroup2_layout *layout,
		  char *mount, size_t size);

/*
 * The layout's name: "unified", "hybrid" or "none", the one name of each
 * (devns check's cgrouplayout, a documented interface; the backend of each
 * layout is known by it).
 */
const char *cgroup2_layout_name(enum cgroup2_layout layout);

/* The layout in words, for the log: its name and what it means. */
const char *cgroup2_layout_describe(enum cgroup2_layout layout);

/*
 * Writes the cgroup-v2 path of a process, relative to the hierarchy's root
 * and without its leading "/" ("" for the root), read from the "0::" line
 * of proc_cgroup (NULL: /proc/self/cgroup).  Returns 0, or -1 with errno
 * (ENOENT: no cgroup2 line, ENAMETOOLONG).
 */
int cgroup2_proc_path(const char *proc_cgroup, char *buf, size_t size);

/*
 * Opens an existing directory on a cgroup2 file system (O_DIRECTORY,
 * close-on-exec; the last component must not be a symlink).  Returns the
 * fd, or -1 with errno (EMEDIUMTYPE when it is not cgroup2).
 */
int cgroup2_open(const char *path);

/*
 * Opens relpath ("devns", "slurm/devns") below the cgroup directory dir_fd,
 * making missing directories (mode 0755) when create is set.  Components
 * are opened one by one with O_NOFOLLOW; "", ".", ".." and absolute paths
 * are EINVAL.  An existing directory is reused.  Returns the fd of the last
 * component, or -1 with errno (ENOENT when it or a parent is missing and
 * create is not set, or when dir_fd's directory was removed).
 */
int cgroup2_open_at(int dir_fd, const char *relpath, bool create);

/*
 * Moves pid (0: the caller) into the cgroup cg_fd by writing cgroup.procs;
 * the whole thread group moves.  Returns 0 or -1 with errno (ESRCH: no such
 * process).
 */
int cgroup2_move_pid(int cg_fd, pid_t pid);

/*
 * Reads the pids in cg_fd (cgroup.procs) into pids, at most max of them,
 * and returns how many there are (which may exceed max), or -1 with errno.
 * Processes in child cgroups are not included.
 */
int cgroup2_list_pids(int cg_fd, pid_t *pids, size_t max);

/*
 * Kills every process in cg_fd and its descendants (cgroup.kill, Linux
 * 5.14).  Asynchronous: the cgroup empties a moment later.  0 or -1.
 */
int cgroup2_kill(int cg_fd);

/*
 * 1 when cg_fd or a descendant holds a process (cgroup.events says
 * "populated 1"), 0 when none does, -1 with errno.
 */
int cgroup2_populated(int cg_fd);

/*
 * Removes the empty cgroup name below parent_fd.  Never kills or moves
 * anything: EBUSY while it (or a child cgroup) still holds a process or has
 * child cgroups, so the caller decides what to do with them; ENOENT when it
 * does not exist (removal is then already done).  Returns 0 or -1 (errno).
 */
int cgroup2_remove(int parent_fd, const char *name);

#endif /* DEVNS_CGROUP2_H */
