/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mntns.c - create and pin a job's mount namespace (mntns_child.c is the
 * child that makes it, mntns_pin.c opens and joins it, mntns_delete.c
 * tears it down).
 *
 * Why a child process: the thread that unshared or entered a namespace
 * would stay in it, with an fs (root, cwd) of its own, for the rest of
 * slurmstepd's life, and setns() into a mount namespace needs that fs
 * unshared first.  So a child unshares (or enters a namespace of the
 * pool), sets up the private mounts inside and sends an fd of the
 * namespace with its verdict in one message (SCM_RIGHTS), then exits; the
 * fd in flight keeps the namespace alive, and the parent pins it by
 * bind-mounting that fd onto BasePath/<jobid>/.ns.  After that the
 * namespace needs no process to live.
 *
 * The child is a vchild (util/vchild.h): it shares the parent's memory, so
 * that making it costs the same whatever slurmstepd's size (a fork()
 * copies its page tables), and the parent waits, suspended, until it has
 * ended: one hand-over, which on a busy node is one wait for a CPU.  The
 * child only makes system calls on what was prepared before it started:
 * it runs beside slurmstepd's other threads, on their memory.
 *
 * Every directory below BasePath is root-owned and 0700, so users cannot
 * swap anything there; backing directories of private dirs are 1777 like a
 * real /tmp, so no chown is ever needed.  Removal is saferm's (fd-based, no
 * link followed), so whatever a job leaves in its /tmp cannot redirect it.
 * Dirs entries with a Source are nssource's: made and recorded before
 * the child starts, removed here at teardown through nssource_remove_all().
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf/jobdir.h"
#include "conf/nsconf.h"
#include "ns/dquota.h"
#include "ns/mntns.h"
#include "ns/mntns_int.h"
#include "ns/nsloop.h"
#include "ns/nsmembers.h"
#include "ns/nssource.h"
#include "ns/nstmpfs.h"
#include "util/fdmount.h"
#include "util/fdutil.h"
#include "util/safepath.h"
#include "util/saferm.h"

static void tmpfs_size(char *buf, size_t len, uint64_t size)
{
	if (size)
		snprintf(buf, len, "%" PRIu64, size);
	else
		buf[0] = '\0';
}

/* The private dirs of spec, at most MNTNS_MAX_DIRS of them. */
static int spec_dirs(const struct mntns_spec *spec, struct mntns_dir *out,
		     size_t *n)
{
	*n = 0;
	if (spec->dir_count > MNTNS_MAX_DIRS) {
		errno = EINVAL;
		return -1;
	}
	if (spec->dir_count)
		memcpy(out, spec->dir_list, spec->dir_count * sizeof(*out));
	*n = spec->dir_count;
	return 0;
}

static unsigned int mount_attrs(unsigned options)
{
	unsigned int attrs = FDMOUNT_NOSUID | FDMOUNT_NODEV;

	if (options & NSCONF_OPT_NOEXEC)
		attrs |= FDMOUNT_NOEXEC;
	if (options & NSCONF_OPT_RO)
		attrs |= FDMOUNT_RDONLY;
	return attrs;
}

/*
 * A detached copy of the backing directory name below jobfd, with attrs:
 * the child only attaches it, where it walked BasePath again to bind the
 * directory (16 system calls at a BasePath four deep) and cloned it there.
 */
static int clone_backing(int jobfd, const char *name, unsigned int attrs)
{
	int fd = openat(jobfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW |
			O_CLOEXEC), mnt_fd;

	if (fd < 0)
		return -1;
	mnt_fd = fdmount_clone(fd, attrs);
	fdutil_close(fd);
	return mnt_fd;
}

/*
 * Make the backing directory name, 01777, in the job's directory jobfd,
 * and a detached clone of it in pd->mnt_fd, which the child attaches; or
 * with TmpBackend=loop in the job's filesystem (plan->disk_fd), whose
 * mount point inside the namespace is BasePath/<jobid>/.disk, with its
 * path there in pd->source, which the child binds once that filesystem
 * is attached (a detached mount's directory cannot be cloned before
 * Linux 6.15).
 */
static int backing_dir(const struct ns_plan *plan, int jobfd,
		       const char *name, struct private_dir *pd)
{
	int dirfd = plan->disk_fd >= 0 ? plan->disk_fd : jobfd;
	int n;

	if (mkdirat(dirfd, name, 0700) < 0 ||
	    /* mkdir's mode is filtered by the umask; fchmodat is not. */
	    fchmodat(dirfd, name, 01777, 0) < 0)
		return -1;
	if (plan->disk_fd < 0)
		return (pd->mnt_fd = clone_backing(jobfd, name, pd->attrs));
	n = snprintf(pd->source, sizeof(pd->source), "%s/%s",
		     plan->disk_target, name);
	if (n < 0 || (size_t)n >= sizeof(pd->source)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/*
 * TmpBackend=loop: the job's filesystem, mounted detached, and its mount
 * point BasePath/<jobid>/.disk, root's 0700 (plan->disk_fd, disk_target).
 */
static int plan_disk(const struct mntns_spec *spec, int basefd, int jobfd,
		     struct ns_plan *plan, struct report *rep)
{
	uint64_t inodes = spec->inode_limit ? spec->inode_limit :
			  nsconf_default_inodes(spec->disk_limit);

	if (!spec->loop)
		return 0;
	if (jobdir_path(plan->disk_target, sizeof(plan->disk_target),
			spec->base_path, spec->job_id, JOBDIR_LOOP_MOUNT) < 0)
		return report_errno(rep, errno, "BasePath");
	if (mkdirat(jobfd, JOBDIR_LOOP_MOUNT, 0700) < 0)
		return report_errno(rep, errno, "creating %s",
				    plan->disk_target);
	if ((plan->disk_fd = nsloop_mount(basefd, jobfd, spec->disk_limit,
					  inodes, rep)) < 0)
		return -1;
	return 0;
}

/* Make the backing directories and fill in the child's plan. */
static int plan_dirs(const struct mntns_spec *spec, int jobfd,
		     struct ns_plan *plan, struct report *rep)
{
	struct mntns_dir dirs[MNTNS_MAX_DIRS];
	size_t n;

	if (spec_dirs(spec, dirs, &n) < 0)
		return report_errno(rep, errno, "too many private directories");
	for (size_t i = 0; i < n; i++) {
		const struct mntns_dir *md = &dirs[i];
		struct private_dir *pd = &plan->dirs[plan->ndirs];
		char name[NAME_MAX + 1];

		if (!md->path || md->path[0] != '/') {
			errno = EINVAL;
			return report_errno(rep, errno, "private directory");
		}
		snprintf(pd->target, sizeof(pd->target), "%s", md->path);
		pd->attrs = mount_attrs(md->options);
		plan->ndirs++;
		if (md->point_fixed_depth) {
			const struct nssource point = {
				.path = md->path,
				.fixed_depth = md->point_fixed_depth,
				.job_depth = md->point_job_depth,
				.base_path = spec->base_path,
				.uid = spec->uid,
				.gid = spec->gid,
				.mount_point = true,
			};

			if (nssource_prepare_point(&point, jobfd,
						   &plan->made_point[i],
						   rep) < 0)
				return -1;
		}
		if (md->tmpfs) {
			pd->tmpfs = true;
			tmpfs_size(pd->tmpfs_size, sizeof(pd->tmpfs_size),
				   md->size);
			continue;
		}
		if (md->source) {
			const struct nssource src = {
				.path = md->source,
				.fixed_depth = md->fixed_depth,
				.job_depth = md->job_depth,
				.base_path = spec->base_path,
				.uid = spec->uid,
				.gid = spec->gid,
				.attrs = pd->attrs,
			};

			if ((pd->mnt_fd = nssource_prepare(&src, jobfd,
							   &plan->made[i],
							   rep)) < 0)
				return -1;
			continue;
		}
		/* Refuses ".ns" and over-long names rather than truncating. */
		if (nsconf_backing_name(md->backing ? md->backing : md->path,
					name, sizeof(name)) < 0 ||
		    backing_dir(plan, jobfd, name, pd) < 0)
			return report_errno(rep, errno, "creating the backing "
					    "directory of %s", md->path);
	}
	return 0;
}

/*
 * The private directory of plan that holds path (the deepest one), its
 * index, or -1.
 */
static int holding_dir(const struct ns_plan *plan, const char *path)
{
	int best = -1;

	for (int i = 0; i < plan->ndirs; i++) {
		size_t len = strlen(plan->dirs[i].target);

		if (!strncmp(path, plan->dirs[i].target, len) &&
		    path[len] == '/' &&
		    (best < 0 || len > strlen(plan->dirs[best].target)))
			best = i;
	}
	return best;
}

/*
 * KeepPaths into the plan: each node directory opened without following
 * links, root's all the way (safepath_open_kept), and cloned as it is
 * (read-write as on the node; nosuid, nodev).  One that is missing or
 * could have been planted is left out, with a warning: the job runs as on
 * a node without it, and never gets a directory a user made.
 */
static int plan_keeps(const struct mntns_spec *spec, struct ns_plan *plan,
		      struct report *rep)
{
	for (size_t i = 0; spec->keep_paths && spec->keep_paths[i]; i++) {
		const char *path = spec->keep_paths[i];
		struct kept_dir *kd = &plan->keeps[plan->nkeeps];
		struct report why;
		int dir = holding_dir(plan, path), fd;

		if (plan->nkeeps == NSCONF_MAX_KEEP || dir < 0) {
			errno = EINVAL;
			return report_errno(rep, errno, "KeepPaths %s: in no "
					    "private directory, or too many",
					    path);
		}
		report_init(&why, NULL, NULL);
		if ((fd = safepath_open_kept(path, &why)) < 0) {
			report_warning(rep, "KeepPaths %s not bound into the "
				       "job: %s", path, why.msg);
			continue;
		}
		kd->mnt_fd = fdmount_clone(fd, FDMOUNT_NOSUID | FDMOUNT_NODEV);
		fdutil_close(fd);
		if (kd->mnt_fd < 0)
			return report_errno(rep, errno, "KeepPaths %s: cloning "
					    "its mount", path);
		kd->dir = dir;
		snprintf(kd->rel, sizeof(kd->rel), "%s",
			 path + strlen(plan->dirs[dir].target) + 1);
		plan->nkeeps++;
	}
	return 0;
}

/*
 * Whether pd is bound from the job's own filesystem (TmpBackend=loop),
 * which lives in the namespace only, as a tmpfs does: the teardown empties
 * it as it empties them, and usage reads it as it reads them (statfs).
 */
static bool on_disk(const struct ns_plan *plan, const struct private_dir *pd)
{
	size_t len = strlen(plan->disk_target);

	return plan->disk_fd >= 0 && !pd->tmpfs && pd->mnt_fd < 0 &&
	       !strncmp(pd->source, plan->disk_target, len) &&
	       pd->source[len] == '/';
}

/*
 * Record the plan's tmpfs mount points, and those on the job's own
 * filesystem, for the teardown to empty.
 */
static int record_tmpfs(int jobfd, const struct ns_plan *plan)
{
	const char *points[MNTNS_MAX_DIRS];
	size_t n = 0;

	for (int i = 0; i < plan->ndirs; i++)
		if (plan->dirs[i].tmpfs || on_disk(plan, &plan->dirs[i]))
			points[n++] = plan->dirs[i].target;
	return nstmpfs_record(jobfd, points, n);
}

static int create_pin_file(int jobfd)
{
	return openat(jobfd, JOBDIR_NS_PIN,
		      O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC,
		      0400);
}

/*
 * Close the parent's fds of the plan; with remove, also remove what the
 * Source walks created (the job failed: nothing may stay).
 */
static void plan_close(struct ns_plan *plan, bool remove)
{
	int saved = errno;

	for (int i = 0; i < MNTNS_MAX_DIRS; i++) {
		if (plan->dirs[i].mnt_fd >= 0)
			close(plan->dirs[i].mnt_fd);
		plan->dirs[i].mnt_fd = -1;
		nssource_made_close(&plan->made[i], remove);
		nssource_made_close(&plan->made_point[i], remove);
	}
	for (int i = 0; i < plan->nkeeps; i++) {
		fdutil_close(plan->keeps[i].mnt_fd);
		plan->keeps[i].mnt_fd = -1;
	}
	plan->nkeeps = 0;
	/* Unattached it takes the loop device with it (autoclear). */
	fdutil_close(plan->disk_fd);
	plan->disk_fd = -1;
	errno = saved;
}

int mntns_quota_lock(int basefd)
{
	int fd = openat(basefd, JOBDIR_QUOTA_LOCK,
			O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd >= 0 && flock(fd, LOCK_EX) < 0) {
		fdutil_close(fd);
		return -1;
	}
	return fd;
}

void mntns_quota_unlock(int fd)
{
	if (fd >= 0)
		fdutil_close(fd);
}

/*
 * Give the new, still empty job directory name (below basefd) its disk
 * limit: project job_id, inherited by all that is made below it.
 */
static int limit_job_dir(int basefd, const char *name,
			 const struct mntns_spec *spec, struct report *rep)
{
	struct report why;
	int fd, rc, lock;

	fd = openat(basefd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	if (fd < 0)
		return report_errno(rep, errno, "opening %s/%s",
				    spec->base_path, name);
	report_init(&why, NULL, NULL);
	lock = mntns_quota_lock(basefd);
	rc = dquota_set(fd, spec->job_id, spec->disk_limit,
			spec->inode_limit ? spec->inode_limit
					  : nsconf_default_inodes(spec->disk_limit),
			&why);
	mntns_quota_unlock(lock);
	fdutil_close(fd);
	if (rc < 0)
		return report_error(rep, "TmpDiskLimit on %s/%s: %s",
				    spec->base_path, name, why.msg);
	/* A failure above left no limit: only a set one needs clearing. */
	return 0;
}

/*
 * The namespace the caller claimed from the pool (spec->pool_fd), when it
 * can be pinned here: the kernel binds a namespace only into an older one
 * (unshare_newer_than()), and the pool's was made by slurmd.  -1: none.
 */
static int pool_namespace(const struct mntns_spec *spec,
			  const struct ns_plan *plan)
{
	if (!spec->use_pool || spec->pool_fd < 0)
		return -1;
	if (plan->parent_ns_id &&
	    nsmembers_id(spec->pool_fd) <= plan->parent_ns_id)
		return -1;
	return spec->pool_fd;
}

/*
 * Run the child in a namespace of the pool when there is one, else in a
 * fresh copy; a pool's that cannot be entered only costs the time of
 * trying.  Returns 0, or -1 with errno and rep.
 */
static int make_namespace(const struct mntns_spec *spec, struct ns_plan *plan,
			  int pinfd, struct report *rep)
{
	int failed, rc;

	plan->pool_fd = pool_namespace(spec, plan);
	rc = mntns_run_child(plan, pinfd, &failed, rep);
	if (plan->pool_fd >= 0) {
		plan->pool_fd = -1;	/* the caller's to close */
		if (rc < 0 && failed == STEP_ENTER_POOL)
			rc = mntns_run_child(plan, pinfd, &failed, rep);
	}
	return rc;
}

/*
 * A namespace for the pool: a copy of the caller's that receives its later
 * mounts and unmounts (slave), with nothing of a job in it yet, pinned
 * onto the file pin_fd.
 */
int mntns_make_bare(const char *base_path, int pin_fd, struct report *rep)
{
	struct ns_plan *plan = calloc(1, sizeof(*plan));
	int failed, rc;

	if (!plan)
		return report_errno(rep, errno, "allocating the plan");
	plan->root_propagation = MS_SLAVE;
	plan->parent_ns_id = mntns_own_ns_id();
	plan->pool_fd = -1;
	plan->disk_fd = -1;
	plan->bare = true;
	snprintf(plan->base_path, sizeof(plan->base_path), "%s", base_path);
	for (int i = 0; i < MNTNS_MAX_DIRS; i++)
		plan->dirs[i].mnt_fd = -1;
	rc = mntns_run_child(plan, pin_fd, &failed, rep);
	free(plan);
	return rc;
}

int mntns_create(const struct mntns_spec *spec, struct report *rep)
{
	char name[16], jobdir[PATH_MAX];
	struct ns_plan *plan = NULL;
	int basefd = -1, dirfd = -1, jobfd = -1, pinfd = -1, saved;
	bool made_dir = false, limited = false;

	if (jobdir_path(jobdir, sizeof(jobdir), spec->base_path, spec->job_id,
		     NULL) < 0) {
		report_errno(rep, errno, "BasePath");
		return -1;
	}
	snprintf(name, sizeof(name), "%" PRIu32, spec->job_id);
	if (!(plan = calloc(1, sizeof(*plan)))) {
		report_errno(rep, errno, "allocating the plan");
		return -1;
	}
	for (int i = 0; i < MNTNS_MAX_DIRS; i++) {
		plan->dirs[i].mnt_fd = -1;
		plan->made[i].parent_fd = -1;
		plan->made_point[i].parent_fd = -1;
	}
	plan->root_propagation = spec->shared ? MS_SLAVE : MS_PRIVATE;
	plan->uid = spec->uid;
	plan->gid = spec->gid;
	plan->parent_ns_id = mntns_own_ns_id();
	plan->pool_fd = -1;
	plan->disk_fd = -1;
	snprintf(plan->base_path, sizeof(plan->base_path), "%s",
		 spec->base_path);

	basefd = safepath_open(spec->base_path);
	if (basefd < 0) {
		report_errno(rep, errno, "opening BasePath %s",
			     spec->base_path);
		goto error;
	}
	if (mkdirat(basefd, name, 0700) < 0) {
		report_errno(rep, errno, "creating %s", jobdir);
		goto error;
	}
	made_dir = true;
	dirfd = openat(basefd, name,
		       O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dirfd < 0 || fchmodat(basefd, name, 0700, 0) < 0) {
		report_errno(rep, errno, "opening %s", jobdir);
		goto error;
	}
	/* Before anything is made in it, so that all of it inherits. */
	if (spec->disk_limit && !spec->loop) {
		if (limit_job_dir(basefd, name, spec, rep) < 0)
			goto error;
		limited = true;
	}
	/* The job directory is a private mount: the pin cannot propagate. */
	if ((jobfd = fdmount_private_self(dirfd)) < 0) {
		report_errno(rep, errno, "bind-mounting %s", jobdir);
		goto error;
	}
	if ((pinfd = create_pin_file(jobfd)) < 0) {
		report_errno(rep, errno, "creating %s/" JOBDIR_NS_PIN, jobdir);
		goto error;
	}
	if (plan_disk(spec, basefd, jobfd, plan, rep) < 0 ||
	    plan_dirs(spec, jobfd, plan, rep) < 0 ||
	    plan_keeps(spec, plan, rep) < 0)
		goto error;
	if (record_tmpfs(jobfd, plan) < 0) {
		report_errno(rep, errno, "recording the tmpfs mounts in %s",
			     jobdir);
		goto error;
	}
	if (make_namespace(spec, plan, pinfd, rep) < 0)
		goto error;
	plan_close(plan, false);
	close(pinfd);
	close(jobfd);
	close(dirfd);
	close(basefd);
	free(plan);
	return 0;
error:
	saved = errno;
	if (pinfd >= 0)
		close(pinfd);
	if (jobfd >= 0) {
		mntns_unmount_fd(jobfd);
		close(jobfd);
	}
	if (dirfd >= 0)
		close(dirfd);
	if (plan)
		plan_close(plan, true);
	if (made_dir)
		saferm_at(basefd, name);
	if (limited)
		dquota_clear(basefd, spec->job_id);
	if (basefd >= 0)
		close(basefd);
	free(plan);
	errno = saved;
	return -1;
}
