/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mntns.h - a job's persistent mount namespace.
 *
 * Layout under BasePath (all made and removed by this module):
 *
 *   BasePath/<jobid>/         0700 root, a private bind mount of itself
 *   BasePath/<jobid>/.ns      pin: bind mount of /proc/<pid>/ns/mnt
 *   BasePath/<jobid>/<name>   backing directory of one private dir
 *                             (/tmp -> "tmp", /var/tmp -> "var_tmp":
 *                             nsconf_backing_name())
 *   BasePath/<jobid>/.ns-sources  the per-job Source directories to
 *                             remove with the job ("DEV INO PATH" lines)
 *   BasePath/<jobid>/.pidns   the PID namespace's pin (ns/pidns.h), which
 *                             delete unpins with the rest
 *   BasePath/<jobid>/.ns-tmpfs  the mount points of the job's tmpfs
 *                             mounts, which delete empties (ns/nstmpfs.h):
 *                             the directory's attribute
 *                             trusted.devns.ns-tmpfs, this file only
 *                             where BasePath's file system keeps none
 *   BasePath/<jobid>/.disk.img, .disk  TmpBackend=loop: the job's
 *                             filesystem and its mount point, mounted in
 *                             the job's namespace only, the backing
 *                             directories in it (ns/nsloop.h)
 *
 * A private dir with a Source (struct mntns_dir) is bound from that path
 * of the node instead: root creates its missing components below the
 * fixed part, root's and 0711, the last one the job user's and 0700.
 *
 * The namespace outlives the process that made it because the pin holds a
 * reference; every process of the job joins it with setns(2).
 */
#ifndef DEVNS_MNTNS_H
#define DEVNS_MNTNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "util/report.h"

/* One private directory and how it is made (from struct nsconf_dir). */
struct mntns_dir {
	const char *path;	/* the mount point, absolute */
	bool tmpfs;		/* a fresh tmpfs, else a bind mount */
	uint64_t size;		/* tmpfs: bytes, 0 = tmpfs's default */
	unsigned options;	/* NSCONF_OPT_*; nosuid and nodev always */
	/*
	 * bind: the expanded Source path, or NULL for a backing directory
	 * in BasePath/<jobid>; fixed_depth leading components of it must
	 * exist, the others are created; job_depth (from 1) names the
	 * component removed with the job (0: none, all of it persists)
	 */
	const char *source;
	int fixed_depth;
	int job_depth;
	/*
	 * A mount point with %u, %j or %S (path is then the expanded one):
	 * its point_fixed_depth leading components must exist, the others
	 * are made as a Source's (nssource_prepare_point), point_job_depth
	 * (from 1) names the component removed with the job (0: none);
	 * backing is the template that names the backing directory (NULL:
	 * path).  point_fixed_depth 0: a plain mount point, which must exist.
	 */
	const char *backing;
	int point_fixed_depth;
	int point_job_depth;
};

struct mntns_spec {
	const char *base_path;	 /* BasePath, absolute, must exist */
	uint32_t job_id;
	bool shared;		 /* keep host mount events flowing in (slave) */
	/*
	 * The private dirs with their own settings (at most NSCONF_MAX_DIRS);
	 * uid and gid own the last component of each Source that is
	 * created.
	 */
	const struct mntns_dir *dir_list;
	size_t dir_count;
	uid_t uid;
	gid_t gid;
	/*
	 * bytes: BasePath/<jobid> and all below it is project job_id with
	 * this block limit (ns/dquota.h), 0 = none
	 */
	uint64_t disk_limit;
	/* and this inode limit (0: nsconf_default_inodes(disk_limit)) */
	uint64_t inode_limit;
	/*
	 * TmpBackend=loop: the limits above size a filesystem of the job's
	 * own (ns/nsloop.h) that holds the backing directories, instead of
	 * a project quota on BasePath/<jobid>
	 */
	bool loop;
	/*
	 * When set, pool_fd is a namespace the caller claimed from the pool
	 * (nspool_claim(), ns/nspool.h), or -1 when none was ready: entered
	 * instead of copying the node's mounts now.  It stays the caller's
	 * to close.
	 */
	bool use_pool;
	int pool_fd;
	/*
	 * KeepPaths: node directories bound as they are into the private
	 * directory of dir_list that holds each (NULL-terminated, at most
	 * NSCONF_MAX_KEEP; NULL: none).  One that is missing, or that a user
	 * could have planted (safepath_open_kept), is left out with a
	 * warning in rep: the job runs without it, as on a node without it.
	 */
	const char *const *keep_paths;
};

/*
 * Make and pin the namespace of spec->job_id.  On failure nothing is left
 * behind (no mount, no directory), errno is set and rep (may be NULL)
 * says which step failed.
 */
int mntns_create(const struct mntns_spec *spec, struct report *rep);

/*
 * For the pool (ns/nspool.h): make a copy of the caller's mount namespace
 * that receives its later mounts and unmounts (slave), with nothing of a
 * job in it, and pin it onto the file pin_fd (held open, on a private
 * mount).  Returns 0, or -1 with errno and why in rep.
 */
int mntns_make_bare(const char *base_path, int pin_fd, struct report *rep);

/*
 * Open the pin of a job's namespace (O_RDONLY|O_CLOEXEC), for setns(2) or to
 * hand to pam_slurm_adopt.  Returns an fd or -1 with errno set.
 */
int mntns_open(const char *base_path, uint32_t job_id);

/*
 * Fills a new pin: binds a namespace onto pin_fd, the empty file
 * mntns_pin_make() made.  Returns 0, or -1 with errno and rep.
 */
typedef int (*mntns_pin_fill_fn)(int pin_fd, void *arg, struct report *rep);

/*
 * Make the pin BasePath/<jobid>/leaf (ns/pidns.h's, ns/userns.h's): an
 * empty file, made in the job's directory opened without following a
 * link and never over an existing name (O_EXCL), that fill(pin_fd, arg)
 * binds a namespace onto.  When fill fails the file goes again.  Returns
 * 0, or -1 with errno and rep.
 */
int mntns_pin_make(const char *base_path, uint32_t job_id, const char *leaf,
		   mntns_pin_fill_fn fill, void *arg, struct report *rep);

/*
 * Open the namespace pinned at BasePath/<jobid>/leaf (JOBDIR_NS_PIN, or
 * ns/pidns.h's pin) without following a link, and note its identity in *ns
 * (may be NULL).  Returns the fd (O_CLOEXEC), or -1 with errno: ENOENT
 * when nothing is pinned there.
 */
int mntns_pin_open(const char *base_path, uint32_t job_id, const char *leaf,
		   struct stat *ns);

/*
 * mntns_pin_open() of any pin: path relative to dir_fd (or AT_FDCWD), its
 * last component not followed.  Returns the fd, or -1 with errno: ENOENT
 * when no namespace is pinned there.
 */
int mntns_pin_openat(int dir_fd, const char *path, struct stat *ns);

/*
 * Move the calling process into the job's namespace.  The caller must be
 * single-threaded (setns fails with EINVAL otherwise).  Returns 0 or -1.
 */
int mntns_join(const char *base_path, uint32_t job_id);

/*
 * mntns_open() and mntns_join() through base_fd, a directory fd of
 * BasePath opened earlier (-1: by base_path).  A pin is a mount of the
 * mount namespace it was made in, and the kernel copies no pin of a mount
 * namespace into a new one: a process that unshared its namespace since
 * (Slurm's switch/nvidia_imex does in every step's slurmstepd, from
 * 25.11) finds an empty file at the pin's path, but still reaches the pin
 * through an fd opened before.
 */
int mntns_open_at(int base_fd, const char *base_path, uint32_t job_id);
int mntns_join_at(int base_fd, const char *base_path, uint32_t job_id);

/*
 * Tear down a job's namespace: unpin both namespaces, open the job's
 * tmpfs mounts in it, kill what is inside (the PID namespace's init with
 * it), remove the per-job Source directories it recorded and the job's
 * directory, and empty the tmpfs mounts and make them read-only (so that
 * an fd of one that another process holds reaches nothing of the job, and
 * their memory is freed: ns/nstmpfs.h), without following any
 * link the job left behind, and seal the disk limit of its project when
 * the directory was in project job_id (so a restore handles stale job
 * directories too, without knowing the configuration): nothing of the
 * job may grow after it, and the limit is lifted once nothing of the
 * project is left (ns/dquota.h).  Absent
 * pieces are not an error, so it is safe to call twice; when a Source
 * directory cannot be removed, the job's directory and its record stay for
 * a later call.  Returns 0 or -1 with errno set.
 */
int mntns_delete(const char *base_path, uint32_t job_id);

/*
 * A reaper that takes over a job's end (nsreap_delete(), ns/nsreap.h):
 * BasePath/name, a reap name, and the namespace ns_fd, which stays the
 * caller's.  Returns 0 when it took both, -1 when the work stays ours.
 */
typedef int (*mntns_reaper_f)(const char *base_path, const char *name,
			      int ns_fd);

/*
 * mntns_delete, leaving the slow part behind when reaper (the caller's:
 * slurmd's pool keeper, through nsreap_delete()) takes it: the job's path
 * only unpins, seals the disk limit and renames BasePath/<jobid> to
 * BasePath/.reap-<jobid>-<n>, and the reaper then opens the job's tmpfs
 * mounts, drops the namespace (the kernel unmounts every copy of the
 * node's mounts), kills what still holds it, removes the directory and
 * empties the tmpfs mounts (read-only after), as mntns_delete would.  A
 * requeued job of the same id may start meanwhile.  Where reaper does not
 * take it, or the kernel cannot name the namespace by id (before Linux
 * 6.11), it is mntns_delete.  Returns 0 or -1 with errno, as
 * mntns_delete.
 */
int mntns_delete_behind(const char *base_path, uint32_t job_id,
			mntns_reaper_f reaper);

/*
 * The reaper's part of mntns_delete_behind: open the tmpfs mounts that
 * BasePath/name records in the namespace ns_fd, drop ns_fd (-1: the
 * reaper that had it is gone, and with it the namespace), kill what still
 * holds that namespace, remove the Source directories recorded in
 * BasePath/name and that directory, and empty the tmpfs mounts
 * (read-only after).  name
 * must be a reap name (jobdir_is_reap_name); anything else is refused
 * with EINVAL.  Returns 0 or -1 with errno.
 */
int mntns_reap(const char *base_path, const char *name, int ns_fd);

/*
 * Hold a job's end: an exclusive flock(2) on BasePath/.end-<jobid>, a
 * file only root can open (BasePath is root's alone).  Slurm 22.05 to
 * 23.11 end a job twice, in the extern stepd and in slurmd, and the two
 * may overlap: whoever comes second waits here, then finds the namespace
 * gone (mntns_exists) and runs no CloneNSEpilog against a namespace being
 * torn down.  A file beside the job's directory, not the directory
 * itself: an open fd of that would keep its inode, and with it the
 * project of its disk limit, alive past the teardown.  Returns the locked
 * fd, for mntns_unlock_job, or -1 with errno.
 */
int mntns_lock_job(const char *base_path, uint32_t job_id);

/* Remove the lock file and release what mntns_lock_job returned (-1: no-op). */
void mntns_unlock_job(const char *base_path, uint32_t job_id, int fd);

/* True when BasePath/<jobid> holds a pinned namespace. */
bool mntns_exists(const char *base_path, uint32_t job_id);

/*
 * The processes inside the job's namespace (their /proc/<pid>/ns/mnt is
 * the pinned one), other than the caller: the first max go into pids (may
 * be NULL), and *ns_id (may be NULL) gets the namespace's inode number
 * (as in "mnt:[4026532001]"; 0 when nothing is pinned).  Returns how many
 * there are (may exceed max; 0 when nothing is pinned), or -1 with errno.
 */
int mntns_members(const char *base_path, uint32_t job_id, pid_t *pids,
		  size_t max, uint64_t *ns_id);

#endif /* DEVNS_MNTNS_H */
