/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nssource.h - the per-directory Source= directories of a job's namespace.
 *
 * A Dir line with Source= binds a host directory instead of a backing
 * directory in BasePath/<jobid>.  Root walks that path from "/" one
 * component at a time without following links, creates what is missing
 * below its fixed part (the last component for the job's user), checks
 * who owns each component, and hands back a detached mount of the result.
 * The job's own component (the one with %j) is recorded in the job
 * directory's JOBDIR_SOURCES file as "DEV INO PATH", so that teardown
 * removes that very directory and nothing else found at its path.
 */
#ifndef DEVNS_NSSOURCE_H
#define DEVNS_NSSOURCE_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "util/report.h"

/* One Source directory to prepare (from struct mntns_dir and its spec). */
struct nssource {
	const char *path;	/* the expanded Source, absolute */
	int fixed_depth;	/* leading components that must exist */
	int job_depth;		/* the job's own component (from 1), 0: none */
	const char *base_path;	/* BasePath: path may not be in it */
	uid_t uid;		/* own the last component when created */
	gid_t gid;
	unsigned int attrs;	/* FDMOUNT_* for the detached mount */
	/*
	 * A per-user or per-job mount point (Dir=/home/%u/scratch,
	 * nssource_prepare_point), not a Source: a component below the fixed
	 * part may also be the job user's own (their home), never another
	 * user's nor one others may write to.
	 */
	bool mount_point;
};

/*
 * The job's own Source directory a walk created, for removal when the
 * job's namespace cannot be made: the fd of its parent and its name.
 * parent_fd is -1 when there is none; set it so before nssource_prepare.
 */
struct nssource_made {
	int parent_fd;
	char name[NAME_MAX + 1];
};

/*
 * Walk src->path from "/" without following links, creating the missing
 * components below its fixed part (0711, the last one 0700 and the job
 * user's), checking that the fixed part's last directory and every
 * component below it are owned as they must be, and append the job's own
 * component to the record in jobfd (the job directory).  Returns the fd
 * of a detached mount of the directory with src->attrs, or -1 with errno
 * and a message in rep.  On failure the components made stay (those
 * above the job's own may serve another job), and the job's own, when
 * this call created it, is in *made: nssource_made_close(made, true)
 * removes it; the record may hold its line (the record goes with the job
 * directory).
 */
int nssource_prepare(const struct nssource *src, int jobfd,
		     struct nssource_made *made, struct report *rep);

/*
 * nssource_prepare() for a mount point with %u, %j or %S (src->mount_point
 * set): the same walk from "/" without following links, the same
 * creation below the fixed part and record of the job's own component,
 * but a component below the fixed part may be root's (not writable by
 * group or others) or the job user's: below the user's own directory only
 * the job's own namespace is affected, and every mount there is made on
 * a directory reopened without following links.  Nothing is cloned: the
 * namespace's child mounts onto the path.  Returns 0, or -1 with errno
 * and rep; *made as nssource_prepare().
 */
int nssource_prepare_point(const struct nssource *src, int jobfd,
			   struct nssource_made *made, struct report *rep);

/*
 * Close made's parent fd, when set, after removing made's directory
 * (without following links) when remove is true; made is then empty.
 * Keeps errno.
 */
void nssource_made_close(struct nssource_made *made, bool remove);

/*
 * Removes name below parent_fd (arg as given to nssource_remove_all);
 * a name that is gone already is not an error.  Returns 0 or -1 with
 * errno.
 */
typedef int nssource_remove_fn(int parent_fd, const char *name,
			       const void *arg);

/*
 * Remove the per-job Source directories that the record in the job
 * directory name of base_path lists, each by remove: only the very
 * directory recorded (same device and inode), found again from "/"
 * without following links; anything else at its path is left alone.
 * Returns 0 (also when there is no record), or -1 with errno when one
 * could not be removed or a line is malformed (EINVAL); the others are
 * still tried, and the record stays.
 */
int nssource_remove_all(const char *base_path, const char *name,
			nssource_remove_fn *remove, const void *arg);

#endif /* DEVNS_NSSOURCE_H */
