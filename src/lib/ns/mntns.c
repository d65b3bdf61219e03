/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mntns.c - create, pin, join and tear down a job's mount namespace.
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
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/fdmount.h"
#include "util/fdpass.h"
#include "ns/dquota.h"
#include "ns/jobdir.h"
#include "ns/mntns.h"
#include "ns/nsconf.h"
#include "ns/nsmembers.h"
#include "ns/nssource.h"
#include "ns/nstmpfs.h"
#include "util/fdutil.h"
#include "util/safepath.h"
#include "util/saferm.h"
#include "util/vchild.h"

#ifndef NSFS_MAGIC
#define NSFS_MAGIC 0x6e736673
#endif

/* Shared with the parser, which refuses what would not fit. */
#define MNTNS_MAX_DIRS NSCONF_MAX_DIRS
#define PIN_NAME JOBDIR_NS_PIN
/* Most extra unshares for a newer namespace id: unshare_newer_than(). */
#define MNTNS_MAX_UNSHARES 65536
/* How long teardown waits for the job's last processes to die. */
#define MNTNS_KILL_WAIT_MS 5000
#define MNTNS_REMOVE_ATTEMPTS 100

/* What the child does for one private directory. */
struct private_dir {
	char target[PATH_MAX];	/* e.g. /tmp */
	char source[PATH_MAX];	/* backing directory, or "" (tmpfs, Source) */
	char tmpfs_size[24];	/* bytes when a tmpfs, "" = default */
	bool tmpfs;
	unsigned int attrs;	/* FDMOUNT_* */
	int mnt_fd;		/* a detached mount of a Source, or -1 */
};

/* Everything the child needs, computed before the child starts. */
struct ns_plan {
	unsigned long root_propagation;
	struct private_dir dirs[MNTNS_MAX_DIRS];
	int ndirs;
	char base_path[PATH_MAX];
	uint64_t parent_ns_id;	/* see unshare_newer_than() */
	int pool_fd;		/* a namespace of the pool to enter, or -1 */
	bool bare;		/* the pool's own: no private dirs, BasePath
				 * left alone, slave to the caller's */
	/* the parent's alone: what to remove if the namespace fails */
	struct nssource_made made[MNTNS_MAX_DIRS];
};

/* The child reports the step that failed, its errno and which Dirs entry. */
struct child_result {
	int step;
	int err;
	int dir;
};

enum child_step {
	STEP_OK = 0,
	STEP_UNSHARE,
	STEP_ENTER_POOL,
	STEP_PROPAGATION,
	STEP_OPEN_TARGET,
	STEP_MOUNT_DIR,
	STEP_HIDE_BASE,
	STEP_OPEN_NS,
};

static const char *step_names[] = {
	[STEP_OK] = "ok",
	[STEP_UNSHARE] = "unshare(CLONE_NEWNS)",
	[STEP_ENTER_POOL] = "entering a namespace of the pool",
	[STEP_PROPAGATION] = "making / private in the namespace",
	[STEP_OPEN_TARGET] = "opening a private directory's mount point",
	[STEP_MOUNT_DIR] = "mounting a private directory",
	[STEP_HIDE_BASE] = "hiding BasePath",
	[STEP_OPEN_NS] = "opening the new namespace",
};

static void tmpfs_size(char *buf, size_t len, uint64_t size)
{
	if (size)
		snprintf(buf, len, "%" PRIu64, size);
	else
		buf[0] = '\0';
}

/* The private dirs of spec as struct mntns_dir, the old fields mapped. */
static int spec_dirs(const struct mntns_spec *spec, struct mntns_dir *out,
		     size_t *n)
{
	const char *const *d;

	*n = 0;
	if (spec->dir_list) {
		if (spec->dir_count > MNTNS_MAX_DIRS) {
			errno = EINVAL;
			return -1;
		}
		memcpy(out, spec->dir_list, spec->dir_count * sizeof(*out));
		*n = spec->dir_count;
		return 0;
	}
	for (d = spec->dirs; d && *d; d++) {
		struct mntns_dir *md = &out[*n];

		if (*n == MNTNS_MAX_DIRS) {
			errno = EINVAL;
			return -1;
		}
		memset(md, 0, sizeof(*md));
		md->path = *d;
		md->options = NSCONF_OPT_ALWAYS;
		if (!strcmp(*d, "/dev/shm")) {
			md->tmpfs = true;
			md->size = spec->shm_size;
		} else if (!strcmp(*d, "/tmp") && spec->tmp_size) {
			md->tmpfs = true;
			md->size = spec->tmp_size;
		}
		(*n)++;
	}
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
		if (nsconf_backing_name(md->path, name, sizeof(name)) < 0 ||
		    mkdirat(jobfd, name, 0700) < 0 ||
		    /* mkdir's mode is filtered by the umask; fchmodat is not. */
		    fchmodat(jobfd, name, 01777, 0) < 0 ||
		    jobdir_path(pd->source, sizeof(pd->source), spec->base_path,
			     spec->job_id, name) < 0)
			return report_errno(rep, errno, "creating the backing "
					    "directory of %s", md->path);
	}
	return 0;
}

/* Record the plan's tmpfs mount points, for the teardown to empty. */
static int record_tmpfs(int jobfd, const struct ns_plan *plan)
{
	const char *points[MNTNS_MAX_DIRS];
	size_t n = 0;

	for (int i = 0; i < plan->ndirs; i++)
		if (plan->dirs[i].tmpfs)
			points[n++] = plan->dirs[i].target;
	return nstmpfs_record(jobfd, points, n);
}

/*
 * Mount one private directory.  The mount point is opened without
 * following any link (a user may plant one in a world-writable parent such
 * as /var/tmp) and the mount goes onto that fd: a symlink, a missing
 * directory or a file there fails the job instead of redirecting root.
 * Node-local scratch never carries set-uid programs or devices (nosuid and
 * nodev are in every pd->attrs).
 */
static int mount_private_dir(const struct private_dir *pd, int *step)
{
	const unsigned int attrs = pd->attrs;
	int target_fd, source_fd, rc;

	*step = STEP_OPEN_TARGET;
	if ((target_fd = safepath_open(pd->target)) < 0)
		return -1;
	*step = STEP_MOUNT_DIR;
	if (pd->mnt_fd >= 0) {
		/* Cloned, options set, by the parent in its namespace. */
		rc = fdmount_attach(pd->mnt_fd, target_fd);
	} else if (pd->tmpfs) {
		/* A fresh tmpfs; an older mount there is simply covered. */
		rc = fdmount_tmpfs(target_fd, "1777",
				   pd->tmpfs_size[0] ? pd->tmpfs_size : NULL,
				   attrs);
	} else if ((source_fd = safepath_open(pd->source)) < 0) {
		rc = -1;
	} else {
		rc = fdmount_bind(source_fd, target_fd, attrs);
		fdutil_close(source_fd);
	}
	fdutil_close(target_fd);
	return rc;
}

/*
 * Other jobs' directories are 0700 already; this hides their names.
 * ENOENT means a private dir now covers BasePath: hidden already.
 */
static int hide_base_path(const char *base_path)
{
	int fd = safepath_open(base_path), rc;

	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	rc = fdmount_tmpfs(fd, "0555", "4096",
			   FDMOUNT_RDONLY | FDMOUNT_NOSUID | FDMOUNT_NODEV |
			   FDMOUNT_NOEXEC);
	fdutil_close(fd);
	return rc;
}

/* Runs in the child, inside the new namespace. */
static int setup_namespace(const struct ns_plan *plan, int *step, int *dir)
{
	*step = STEP_PROPAGATION;
	if (mount("none", "/", "none", MS_REC | plan->root_propagation, NULL) < 0)
		return -1;
	if (plan->bare)
		return 0;
	for (*dir = 0; *dir < plan->ndirs; (*dir)++)
		if (mount_private_dir(&plan->dirs[*dir], step) < 0)
			return -1;
	*dir = -1;
	*step = STEP_HIDE_BASE;
	return hide_base_path(plan->base_path);
}

/* The id of the caller's mount namespace, or 0 where the kernel has none. */
static uint64_t own_ns_id(void)
{
	int fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	uint64_t id;

	if (fd < 0)
		return 0;
	id = nsmembers_id(fd);
	close(fd);
	return id;
}

/*
 * The kernel binds a mount namespace only into an older one: the parent's
 * pin fails with EINVAL unless our namespace's id is above the parent's
 * (mnt_ns_loop()).  In the initial namespace that always holds, but slurmd
 * may run in one of its own (systemd's PrivateTmp), and since Linux 6.18
 * namespace ids come from per-CPU batches of 4096, so a child on another
 * CPU can get an older id than its parent's namespace.  Unsharing again
 * draws the next id of this CPU's batch until it passes the parent's
 * (measured: 4092 unshares, 0.5 s, in the worst case).  Kernels without
 * NS_GET_MNTNS_ID number namespaces in order and never need this.
 */
static int unshare_newer_than(uint64_t parent_id)
{
	if (unshare(CLONE_NEWNS) < 0)
		return -1;
	for (int n = 0; parent_id && n < MNTNS_MAX_UNSHARES; n++) {
		uint64_t id = own_ns_id();

		if (!id || id > parent_id)
			break;
		if (unshare(CLONE_NEWNS) < 0)
			return -1;
	}
	return 0;
}

/*
 * The child's one message: its verdict, and with STEP_OK the namespace's fd
 * riding along.  Returns what sendmsg returns.
 */
static ssize_t send_result(int sock, const struct child_result *res,
			   int ns_fd)
{
	return fdpass_send(sock, res, sizeof(*res), &ns_fd, ns_fd >= 0);
}

/*
 * The parent's side of send_result(): 0 with *res and *ns_fd (-1 when none
 * came), or -1 when the child died before it could say why.
 */
static int recv_result(int sock, struct child_result *res, int *ns_fd)
{
	size_t nfds;
	ssize_t n = fdpass_recv(sock, res, sizeof(*res), ns_fd, 1, &nfds);

	if (!nfds)
		*ns_fd = -1;
	return n == (ssize_t)sizeof(*res) ? 0 : -1;
}

/* What the child gets: the plan, and both ends of the socket pair. */
struct child_args {
	const struct ns_plan *plan;
	int sock[2];
};

static int child_main(void *arg)
{
	const struct child_args *args = arg;
	const struct ns_plan *plan = args->plan;
	struct child_result res = { STEP_OK, 0, -1 };
	int ns_fd = -1;

	close(args->sock[0]);

	/* A namespace of the pool is a copy made ahead: no copy here. */
	if (plan->pool_fd >= 0 ? setns(plan->pool_fd, CLONE_NEWNS) < 0
			       : unshare_newer_than(plan->parent_ns_id) < 0) {
		res.step = plan->pool_fd >= 0 ? STEP_ENTER_POOL : STEP_UNSHARE;
		res.err = errno;
	} else if (setup_namespace(plan, &res.step, &res.dir) < 0) {
		res.err = errno;
	} else if ((ns_fd = open("/proc/self/ns/mnt",
				 O_RDONLY | O_CLOEXEC)) < 0) {
		res.step = STEP_OPEN_NS;
		res.err = errno;
	} else {
		res.step = STEP_OK;
	}
	/* The namespace dies with us unless the parent got the fd. */
	(void)send_result(args->sock[1], &res, ns_fd);
	return res.step == STEP_OK ? 0 : 1;
}

/* Bind the namespace ns_fd refers to onto the pin file, held open as pin_fd. */
static int pin_namespace(int ns_fd, int pin_fd)
{
	char source[64], target[64];

	snprintf(source, sizeof(source), "/proc/self/fd/%d", ns_fd);
	snprintf(target, sizeof(target), "/proc/self/fd/%d", pin_fd);
	return mount(source, target, "none", MS_BIND, NULL);
}

/* umount2 of the mount at the file or directory the fd names, no path. */
static void unmount_fd(int fd)
{
	char target[64];

	snprintf(target, sizeof(target), "/proc/self/fd/%d", fd);
	umount2(target, MNT_DETACH);
}

static void child_failed(const struct ns_plan *plan,
			 const struct child_result *res, struct report *rep)
{
	int errnum = res->err ? res->err : EIO;

	if (res->dir >= 0 && res->dir < plan->ndirs) {
		const char *target = plan->dirs[res->dir].target;

		if (res->step == STEP_OPEN_TARGET && errnum == ELOOP) {
			errno = errnum;
			report_error(rep, "%s: %s is a symbolic link (or has one in its path); refusing to mount there",
				     step_names[res->step], target);
			return;
		}
		report_errno(rep, errnum, "%s %s", step_names[res->step],
			     target);
		return;
	}
	report_errno(rep, errnum, "%s", step_names[res->step]);
}

/*
 * Fork the child, pin its namespace and collect its verdict.  Returns 0,
 * or -1 with errno and a message in rep, and the step that failed in
 * *failed (STEP_OK when it was not the child's).
 */
static int run_child(const struct ns_plan *plan, int pin_fd, int *failed,
		     struct report *rep)
{
	struct child_result res = { STEP_OK, 0, -1 };
	struct child_args args = { plan, { -1, -1 } };
	int *sock = args.sock, ns_fd = -1;
	bool is_pinned = false;
	int status, saved;
	pid_t pid;

	*failed = STEP_OK;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sock) < 0)
		return report_errno(rep, errno, "socketpair");
	/* Returns once the child has ended: its message waits in sock[0]. */
	pid = vchild_run(child_main, &args);
	if (pid < 0) {
		saved = errno;
		close(sock[0]);
		close(sock[1]);
		return report_errno(rep, saved, "starting the namespace's child");
	}
	close(sock[1]);
	if (recv_result(sock[0], &res, &ns_fd) < 0) {
		/* The child died before it could say why. */
		res.step = STEP_UNSHARE;
		res.err = EIO;
	} else if (res.step == STEP_OK && ns_fd < 0) {
		res.step = STEP_OPEN_NS;
		res.err = EIO;
	} else if (res.step == STEP_OK) {
		if (pin_namespace(ns_fd, pin_fd) == 0) {
			is_pinned = true;
		} else {
			res.step = -1;
			res.err = errno;
			report_errno(rep, res.err, "pinning the namespace");
		}
	}
	close(sock[0]);
	if (ns_fd >= 0)
		close(ns_fd);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (res.step == STEP_OK && WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	*failed = res.step > 0 ? res.step : STEP_OK;
	/* The caller makes a fresh namespace instead: nothing to report. */
	if (res.step > 0 && res.step != STEP_ENTER_POOL)
		child_failed(plan, &res, rep);
	if (is_pinned)
		unmount_fd(pin_fd);
	errno = res.err ? res.err : EIO;
	return -1;
}

static int create_pin_file(int jobfd)
{
	return openat(jobfd, PIN_NAME,
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
	}
	errno = saved;
}

/*
 * Serialise setting a project's limits (a job's create) with lifting a
 * sealed one (the end of an earlier job of the same id, maybe in the
 * reaper): lifting checks that nothing is charged to the project and then
 * clears it, and a create must not set its limit in between.  The lock
 * file is root's, in BasePath, held for two quotactl calls: no job user
 * can open it, so none can make root wait.  Returns the locked fd, or -1
 * when no lock could be had (the caller goes on: a create is then no
 * worse than without the lock, and a lift is skipped).
 */
static int quota_lock(int basefd)
{
	int fd = openat(basefd, JOBDIR_QUOTA_LOCK,
			O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd >= 0 && flock(fd, LOCK_EX) < 0) {
		fdutil_close(fd);
		return -1;
	}
	return fd;
}

static void quota_unlock(int fd)
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
	lock = quota_lock(basefd);
	rc = dquota_set(fd, spec->job_id, spec->disk_limit,
			spec->inode_limit ? spec->inode_limit
					  : dquota_default_inodes(spec->disk_limit),
			&why);
	quota_unlock(lock);
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
	rc = run_child(plan, pinfd, &failed, rep);
	if (plan->pool_fd >= 0) {
		plan->pool_fd = -1;	/* the caller's to close */
		if (rc < 0 && failed == STEP_ENTER_POOL)
			rc = run_child(plan, pinfd, &failed, rep);
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
	plan->parent_ns_id = own_ns_id();
	plan->pool_fd = -1;
	plan->bare = true;
	snprintf(plan->base_path, sizeof(plan->base_path), "%s", base_path);
	for (int i = 0; i < MNTNS_MAX_DIRS; i++)
		plan->dirs[i].mnt_fd = -1;
	rc = run_child(plan, pin_fd, &failed, rep);
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
	}
	plan->root_propagation = spec->shared ? MS_SLAVE : MS_PRIVATE;
	plan->parent_ns_id = own_ns_id();
	plan->pool_fd = -1;
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
	if (spec->disk_limit) {
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
		report_errno(rep, errno, "creating %s/" PIN_NAME, jobdir);
		goto error;
	}
	if (plan_dirs(spec, jobfd, plan, rep) < 0)
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
		unmount_fd(jobfd);
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

int mntns_open(const char *base_path, uint32_t job_id)
{
	char pin[PATH_MAX];

	if (jobdir_path(pin, sizeof(pin), base_path, job_id, PIN_NAME) < 0)
		return -1;
	return open(pin, O_RDONLY | O_CLOEXEC);
}

int mntns_join(const char *base_path, uint32_t job_id)
{
	int fd, rc, saved;

	if ((fd = mntns_open(base_path, job_id)) < 0)
		return -1;
	rc = setns(fd, CLONE_NEWNS);
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

bool mntns_exists(const char *base_path, uint32_t job_id)
{
	char pin[PATH_MAX];
	struct statfs sfs;

	if (jobdir_path(pin, sizeof(pin), base_path, job_id, PIN_NAME) < 0)
		return false;
	return statfs(pin, &sfs) == 0 && sfs.f_type == NSFS_MAGIC;
}

/*
 * While the fd mntns_pin_open() returns is open the namespace cannot be
 * freed, so its number (the inode the members' /proc/<pid>/ns/mnt show)
 * names it alone: a freed namespace's number goes to the next namespace
 * made, and killing by a number noted earlier would hit that one.
 */
int mntns_pin_open(const char *base_path, uint32_t job_id, const char *leaf,
		   struct stat *ns)
{
	char pin[PATH_MAX];

	if (jobdir_path(pin, sizeof(pin), base_path, job_id, leaf) < 0)
		return -1;
	return mntns_pin_openat(AT_FDCWD, pin, ns);
}

int mntns_pin_openat(int dir_fd, const char *path, struct stat *ns)
{
	struct statfs sfs;
	int fd = openat(dir_fd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstatfs(fd, &sfs) < 0 || sfs.f_type != NSFS_MAGIC ||
	    (ns && fstat(fd, ns) < 0)) {
		close(fd);
		errno = ENOENT;
		return -1;
	}
	return fd;
}

/* umount2 without following a link; "not mounted" is not an error. */
static int unmount_if_mounted(const char *path)
{
	if (umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW) == 0)
		return 0;
	if (errno == EINVAL || errno == ENOENT)
		return 0;
	return -1;
}

int mntns_members(const char *base_path, uint32_t job_id, pid_t *pids,
		  size_t max, uint64_t *ns_id)
{
	struct nsmembers_ns ns;
	struct stat st;
	int fd, n = -1;

	if (ns_id)
		*ns_id = 0;
	if ((fd = mntns_pin_open(base_path, job_id, PIN_NAME, &st)) < 0)
		return errno == ENOENT ? 0 : -1;
	if (ns_id)
		*ns_id = (uint64_t)st.st_ino;
	if (nsmembers_ident(fd, &ns) == 0)
		n = nsmembers_scan(&ns, pids, max, false);
	fdutil_close(fd);
	return n;
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
		if ((lock = quota_lock(basefd)) < 0)
			break;
		rc = dquota_release(basefd, job_id);
		quota_unlock(lock);
	}
	if ((lock = quota_lock(basefd)) >= 0) {
		(void)dquota_release_sealed(basefd);
		quota_unlock(lock);
	}
	close(basefd);
}

/*
 * Unpin the job's namespaces and unmount the job directory.  The job
 * directory's private bind goes first: detached, it takes both pins below
 * it along in one unmount (each unmount waits for an RCU grace period).
 * What is left (a pin stacked by a racing create, a directory without its
 * bind) goes one by one.
 */
static int unpin_job(const char *base_path, uint32_t job_id,
		     const char *jobdir, const char *pin)
{
	char pidpin[PATH_MAX];
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
	if (jobdir_path(pidpin, sizeof(pidpin), base_path, job_id,
			   JOBDIR_PIDNS_PIN) < 0 ||
	    unmount_if_mounted(pidpin) < 0)
		saved = saved ? saved : errno;
	errno = saved;
	return saved ? -1 : 0;
}

/*
 * What is left once the job's name no longer holds its namespace: open
 * its tmpfs mounts (which needs ns_fd), drop ns_fd (the teardown, when it
 * was the last reference), kill what still holds the namespace, then
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
	int saved = 0;

	/*
	 * While the namespace is still ours: its tmpfs mounts, which an fd
	 * held elsewhere would keep alive after it, are only reached in it.
	 */
	if (ns_fd >= 0 && nstmpfs_open(base_path, name, ns_fd, &tmpfs) < 0)
		saved = errno;
	if (ns && ns->id && ns_fd >= 0) {
		close(ns_fd);
		ns_fd = -1;
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
	char name[64], jobdir[PATH_MAX], pin[PATH_MAX];
	struct nsmembers_ns ns;
	int saved = 0;
	bool pinned, limited;
	int ns_fd;

	if (jobdir_path(jobdir, sizeof(jobdir), base_path, job_id, NULL) < 0 ||
	    jobdir_path(pin, sizeof(pin), base_path, job_id, PIN_NAME) < 0)
		return -1;
	snprintf(name, sizeof(name), "%" PRIu32, job_id);

	ns_fd = mntns_pin_open(base_path, job_id, PIN_NAME, NULL);
	pinned = ns_fd >= 0 && nsmembers_ident(ns_fd, &ns) == 0;
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
