/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mntns_delete.c - the end of a job's namespace: unpin it, kill what is
 * left inside, remove its directories, lift its disk limit; here, or in
 * the reaper the caller hands it to (mntns_delete_behind).  See mntns.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "conf/jobdir.h"
#include "ns/dquota.h"
#include "ns/mntns.h"
#include "ns/mntns_int.h"
#include "ns/nsmembers.h"
#include "ns/nssource.h"
#include "ns/nstmpfs.h"
#include "util/fdutil.h"
#include "util/safepath.h"
#include "util/saferm.h"
#include "util/vchild.h"

/* How long teardown waits for the job's last processes to die. */
#define MNTNS_KILL_WAIT_MS 5000
#define MNTNS_REMOVE_ATTEMPTS 100

/* umount2 without following a link; "not mounted" is not an error. */
static int unmount_if_mounted(const char *path)
{
	if (umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW) == 0)
		return 0;
	if (errno == EINVAL || errno == ENOENT)
		return 0;
	return -1;
}

/*
 * A process of the job that outlived it (it escaped Slurm's tracking, or
 * teardown runs before Slurm's kill) may still write into the job's /tmp
 * and refill it while it is removed: a requeued job with the same id would
 * then meet EEXIST.  Kill whatever is still inside the namespace ns and
 * wait until it has gone.  Returns 0, or -1 with errno EBUSY when
 * processes remain after MNTNS_KILL_WAIT_MS.
 */
static int kill_namespace(const struct nsmembers_ns *ns)
{
	return nsmembers_kill(ns, MNTNS_KILL_WAIT_MS);
}

/*
 * Remove name from parent_fd, again while something refills it: what is
 * left of the namespace ns (NULL: none) is killed before each new try.
 * A name that is gone already is not an error.
 */
static int remove_retry(int parent_fd, const char *name,
			const struct nsmembers_ns *ns)
{
	int rc = -1;

	for (int attempt = 0; attempt < MNTNS_REMOVE_ATTEMPTS; attempt++) {
		rc = saferm_at(parent_fd, name);
		if (rc == 0 || errno == ENOENT)
			return 0;
		if (errno != ENOTEMPTY && errno != EBUSY)
			break;
		if (ns)
			(void)kill_namespace(ns);
		usleep(10000);
	}
	return rc;
}

/* remove_retry as nssource_remove_all calls it: arg is the namespace. */
static int remove_source_dir(int parent_fd, const char *name, const void *arg)
{
	return remove_retry(parent_fd, name, arg);
}

/*
 * Remove the job's directory, again while something refills it: what is
 * left of the namespace ns (NULL: none) is killed before each new try.
 */
static int remove_job_dir(const char *base_path, const char *name,
			  const struct nsmembers_ns *ns)
{
	int basefd = safepath_open(base_path), rc = -1;

	if (basefd < 0)
		return errno == ENOENT ? 0 : -1;
	for (int attempt = 0; attempt < MNTNS_REMOVE_ATTEMPTS; attempt++) {
		rc = saferm_at(basefd, name);
		if (rc == 0 || errno == ENOENT) {
			rc = 0;
			break;
		}
		if (errno != ENOTEMPTY && errno != EBUSY)
			break;
		if (ns)
			(void)kill_namespace(ns);
		usleep(10000);
	}
	fdutil_close(basefd);
	return rc;
}

/*
 * Whether BasePath/name is in project job_id, as mntns_create puts a job
 * directory with a disk limit.  Another project id (0, or one an admin
 * gave BasePath to inherit) is not devns's to clear.
 */
static bool job_dir_project(const char *base_path, const char *name,
			    uint32_t job_id)
{
	int basefd = safepath_open(base_path), fd;
	uint32_t projid = 0;

	if (basefd < 0)
		return false;
	fd = openat(basefd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	close(basefd);
	if (fd < 0)
		return false;
	if (dquota_project(fd, &projid) < 0)
		projid = 0;
	close(fd);
	return projid == job_id;
}

/* Seal project job_id on BasePath's filesystem (dquota_seal). */
static int seal_limit(const char *base_path, uint32_t job_id)
{
	int basefd = safepath_open(base_path), rc;

	if (basefd < 0)
		return -1;
	rc = dquota_seal(basefd, job_id);
	fdutil_close(basefd);
	return rc;
}

/* How long a teardown waits for its project to empty: 40 x 50 ms. */
#define RELEASE_TRIES 40
#define RELEASE_PAUSE_NS 50000000L

/*
 * Lift the seal of project job_id once nothing is charged to it.  Killed
 * processes of the job may still be exiting, holding the namespace and
 * with it the job's /tmp: a short wait lets them go.  When an fd
 * elsewhere still holds a file of the project, the seal stays; a later
 * teardown lifts it once that is gone (dquota_release_sealed), or a
 * later job of this id replaces it.
 */
static void release_limit(const char *base_path, uint32_t job_id)
{
	const struct timespec pause = { 0, RELEASE_PAUSE_NS };
	int basefd = safepath_open(base_path), lock, rc = 0;

	if (basefd < 0)
		return;
	for (int try = 0; rc == 0 && try < RELEASE_TRIES; try++) {
		if (try)
			nanosleep(&pause, NULL);
		if ((lock = mntns_quota_lock(basefd)) < 0)
			break;
		rc = dquota_release(basefd, job_id);
		mntns_quota_unlock(lock);
	}
	if ((lock = mntns_quota_lock(basefd)) >= 0) {
		(void)dquota_release_sealed(basefd);
		mntns_quota_unlock(lock);
	}
	close(basefd);
}

/*
 * Unpin the job's namespaces and unmount the job directory.  The job
 * directory's private bind goes first: detached, it takes every pin below
 * it along in one unmount (each unmount waits for an RCU grace period).
 * What is left (a pin stacked by a racing create, a directory without its
 * bind) goes one by one.
 */
static int unpin_job(const char *base_path, uint32_t job_id,
		     const char *jobdir, const char *pin)
{
	static const char *const more_pins[] = {
		JOBDIR_PIDNS_PIN, JOBDIR_USERNS_PIN,
	};
	char other[PATH_MAX];
	int saved = 0;

	if (unmount_if_mounted(jobdir) < 0)
		saved = errno;
	for (int layer = 0; layer < 8 && mntns_exists(base_path, job_id);
	     layer++) {
		if (unmount_if_mounted(pin) < 0) {
			saved = errno;
			break;
		}
	}
	for (size_t i = 0; i < sizeof(more_pins) / sizeof(*more_pins); i++) {
		if (jobdir_path(other, sizeof(other), base_path, job_id,
				more_pins[i]) < 0 ||
		    unmount_if_mounted(other) < 0)
			saved = saved ? saved : errno;
	}
	errno = saved;
	return saved ? -1 : 0;
}

/* Where the bare root is mounted before it becomes the root: a directory
 * every root file system has, mounted over (the namespace is going). */
static const char *const bare_points[] = { "/dev", "/proc", "/tmp", NULL };

/*
 * In a child in the namespace ns_fd names: make every mount private (a
 * shared one would refuse pivot_root and pass the detach on to the
 * host), mount an empty read-only tmpfs over one of bare_points, make it
 * the root (pivot_root(".", ".") stacks the old root on it) and detach
 * the old root with everything below it.  System calls only (vchild).
 * Returns 0, or the errno of what failed.
 */
static int bare_child(void *arg)
{
	const int *ns_fd = arg;
	int i;

	if (setns(*ns_fd, CLONE_NEWNS) < 0 ||
	    mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return errno ? errno : EIO;
	for (i = 0; bare_points[i]; i++)
		if (mount("devns-bare", bare_points[i], "tmpfs", MS_RDONLY |
			  MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=0")
		    == 0)
			break;
	if (!bare_points[i] || chdir(bare_points[i]) < 0 ||
	    syscall(SYS_pivot_root, ".", ".") < 0 ||
	    umount2(".", MNT_DETACH) < 0)
		return errno ? errno : EIO;
	return 0;
}

/*
 * Detach every mount of the job's namespace down to a bare root, so that
 * a process still holding the namespace (an fd of it, sent away or kept
 * by a stepd) pins nothing of the node's: not the host's file systems it
 * had a copy of (an unmounted one would stay busy), not the job's
 * private mounts.  Processes of the job still inside lose their view of
 * every file too; they are being killed.  Returns 0, or -1 with errno.
 */
static int strip_namespace(int ns_fd)
{
	int status;
	pid_t pid = vchild_run_blocked(bare_child, &ns_fd);

	if (pid < 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		errno = WIFEXITED(status) ? WEXITSTATUS(status) : EIO;
		return -1;
	}
	return 0;
}

/*
 * What is left once the job's name no longer holds its namespace: open
 * its tmpfs mounts (which needs ns_fd), detach every mount of it down to
 * a bare root (strip_namespace), drop ns_fd (the teardown, when it was
 * the last reference), kill what still holds the namespace, then
 * remove the Source directories recorded in BasePath/name and that
 * directory, and empty the tmpfs mounts and make them read-only.  ns is
 * NULL when nothing was pinned.
 *
 * With an id (Linux 6.11+) ns_fd goes first, and the kernel then tells
 * whether anything still holds the namespace: usually nothing, and then no
 * search of /proc.  Without one, ns names the namespace by its inode
 * number only, which the kernel gives to the next namespace made once this
 * one is freed: the kill and the removal's retries go by that number, so
 * ns_fd is held until they are done and the teardown comes last.
 */
static int finish_delete(const char *base_path, const char *name, int ns_fd,
			 const struct nsmembers_ns *ns, uint32_t projid)
{
	struct nstmpfs_held tmpfs = { .count = 0 };
	struct nsmembers_handle handle;
	int saved = 0, held;

	/*
	 * While the namespace is still ours: its tmpfs mounts, which an fd
	 * held elsewhere would keep alive after it, are only reached in it.
	 */
	if (ns_fd >= 0 && nstmpfs_open(base_path, name, ns_fd, &tmpfs) < 0)
		saved = errno;
	if (ns && ns->id && ns_fd >= 0 && nsmembers_handle(ns_fd, &handle) == 0) {
		/*
		 * The kernel reopens the namespace by its handle for as long
		 * as anything holds it (Linux 6.18): drop ns_fd first, which
		 * usually tears the namespace down, and strip it only when
		 * something still holds it.  The strip (a child, an empty
		 * tmpfs as root, an unmount of every mount and a second drop)
		 * cost about 0.2 ms of CPU at every teardown otherwise.
		 */
		close(ns_fd);
		ns_fd = -1;
		if (!nsmembers_gone(ns) &&
		    (held = nsmembers_reopen(&handle)) >= 0) {
			if (strip_namespace(held) < 0 && !saved)
				saved = errno;
			close(held);
		}
	} else if (ns_fd >= 0) {
		/* Before ns_fd goes, the last chance to reach the namespace. */
		if (strip_namespace(ns_fd) < 0 && !saved)
			saved = errno;
		if (ns && ns->id) {
			close(ns_fd);
			ns_fd = -1;
		}
	}
	if (ns && kill_namespace(ns) < 0)
		saved = errno;
	/* Kept with its record when a Source stays, for a later call. */
	if (nssource_remove_all(base_path, name, remove_source_dir, ns) < 0)
		saved = saved ? saved : errno;
	else if (remove_job_dir(base_path, name, ns) < 0 && !saved)
		saved = errno;
	/* Once no process of the job is left to refill them. */
	if (nstmpfs_empty(&tmpfs) < 0 && !saved)
		saved = errno;
	if (ns_fd >= 0)
		close(ns_fd);
	/* Dropped, the namespace no longer holds the job directory. */
	if (projid)
		release_limit(base_path, projid);
	errno = saved;
	return saved ? -1 : 0;
}

/*
 * The project of the reap name's directory when it is the job's own, as
 * delete_job found it before the hand-over: 0 when none.
 */
static uint32_t reap_project(const char *base_path, const char *name)
{
	uint32_t job_id;

	if (sscanf(name + strlen(JOBDIR_REAP_PREFIX), "%" SCNu32,
		   &job_id) != 1)
		return 0;
	return job_dir_project(base_path, name, job_id) ? job_id : 0;
}

int mntns_reap(const char *base_path, const char *name, int ns_fd)
{
	struct nsmembers_ns ns;
	bool known = ns_fd >= 0 && nsmembers_ident(ns_fd, &ns) == 0;

	if (!jobdir_is_reap_name(name)) {
		if (ns_fd >= 0)
			close(ns_fd);
		errno = EINVAL;
		return -1;
	}
	return finish_delete(base_path, name, ns_fd, known ? &ns : NULL,
			     reap_project(base_path, name));
}

/*
 * Hand what is left of the job to the reaper: rename its directory, which
 * no longer holds a mount, to BasePath/.reap-<jobid>-<ns inode> (so that a
 * requeued job of the same id can start meanwhile), into name[len], and
 * send that name with ns_fd.  Returns 0 when the reaper took both, and -1
 * otherwise, name then naming where the directory is now.
 */
static int hand_over(const char *base_path, uint32_t job_id, char *name,
		     size_t len, int ns_fd, const struct nsmembers_ns *ns,
		     mntns_reaper_f reaper)
{
	char reap[64];
	int basefd = safepath_open(base_path), rc;

	if (basefd < 0)
		return -1;
	snprintf(reap, sizeof(reap), JOBDIR_REAP_PREFIX "%" PRIu32 "-%ju",
		 job_id, (uintmax_t)ns->ino);
	rc = renameat(basefd, name, basefd, reap);
	close(basefd);
	if (rc < 0)
		return -1;
	snprintf(name, len, "%s", reap);
	return reaper(base_path, reap, ns_fd);
}

static int delete_job(const char *base_path, uint32_t job_id,
		      mntns_reaper_f reaper)
{
	char name[64], jobdir[PATH_MAX], pin[PATH_MAX], other[PATH_MAX];
	struct nsmembers_ns ns;
	int saved = 0;
	bool pinned, limited;
	int ns_fd;

	if (jobdir_path(jobdir, sizeof(jobdir), base_path, job_id, NULL) < 0 ||
	    jobdir_path(pin, sizeof(pin), base_path, job_id, JOBDIR_NS_PIN) < 0)
		return -1;
	snprintf(name, sizeof(name), "%" PRIu32, job_id);

	ns_fd = mntns_pin_open(base_path, job_id, JOBDIR_NS_PIN, NULL);
	pinned = ns_fd >= 0 && nsmembers_ident(ns_fd, &ns) == 0;
	/* A PID namespace's init is inside until the kill: no use asking
	 * whether the namespace is going first. */
	if (pinned && jobdir_path(other, sizeof(other), base_path, job_id,
				  JOBDIR_PIDNS_PIN) == 0)
		ns.held = access(other, F_OK) == 0;
	limited = job_dir_project(base_path, name, job_id);
	/*
	 * The pins go first, so that nothing can join any more; ns_fd keeps
	 * the namespace for the kill (finish_delete, or the reaper's).
	 */
	if (unpin_job(base_path, job_id, jobdir, pin) < 0 && !saved)
		saved = errno;
	/*
	 * Nothing of the job may grow any more: what is still open of it,
	 * here or in an fd sent away, stays charged to its project, whose
	 * limit is lifted only once nothing of it is left (finish_delete).
	 */
	if (limited && seal_limit(base_path, job_id) < 0 && !saved)
		saved = errno;
	if (reaper && pinned && ns.id &&
	    hand_over(base_path, job_id, name, sizeof(name), ns_fd, &ns,
		      reaper) == 0) {
		close(ns_fd);
		errno = saved;
		return saved ? -1 : 0;
	}
	if (finish_delete(base_path, name, ns_fd, pinned ? &ns : NULL,
			  limited ? job_id : 0) < 0 && !saved)
		saved = errno;
	errno = saved;
	return saved ? -1 : 0;
}

int mntns_delete(const char *base_path, uint32_t job_id)
{
	return delete_job(base_path, job_id, NULL);
}

int mntns_delete_behind(const char *base_path, uint32_t job_id,
			mntns_reaper_f reaper)
{
	return delete_job(base_path, job_id, reaper);
}

/* BasePath/.end-<jobid>, mntns_lock_job's file, into buf[len]. */
static void end_lock_name(char *buf, size_t len, uint32_t job_id)
{
	(void)snprintf(buf, len, JOBDIR_END_LOCK_PREFIX "%" PRIu32, job_id);
}

int mntns_lock_job(const char *base_path, uint32_t job_id)
{
	char name[32];
	struct stat st;
	int basefd, fd = -1;

	end_lock_name(name, sizeof(name), job_id);
	if ((basefd = safepath_open(base_path)) < 0)
		return -1;
	for (;;) {
		fd = openat(basefd, name, O_RDWR | O_CREAT | O_NOFOLLOW |
			    O_CLOEXEC, 0600);
		if (fd < 0)
			break;
		if (flock(fd, LOCK_EX) < 0 || fstat(fd, &st) < 0) {
			fdutil_close(fd);
			fd = -1;
			break;
		}
		/* The holder before us removed it: the lock is the new file's. */
		if (st.st_nlink > 0)
			break;
		fdutil_close(fd);
	}
	fdutil_close(basefd);
	return fd;
}

void mntns_unlock_job(const char *base_path, uint32_t job_id, int fd)
{
	char name[32];
	int basefd;

	if (fd < 0)
		return;
	end_lock_name(name, sizeof(name), job_id);
	/* Removed while still held, so that no one locks a file gone. */
	if ((basefd = safepath_open(base_path)) >= 0) {
		(void)unlinkat(basefd, name, 0);
		fdutil_close(basefd);
	}
	fdutil_close(fd);
}
