/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mntns_child.c - the short-lived child that makes a job's namespace: it
 * unshares (or enters a namespace of the pool), mounts the private
 * directories inside and sends the namespace back to be pinned.  Why a
 * child, and why a vchild: see mntns.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ns/mntns_int.h"
#include "ns/nsbus.h"
#include "ns/nsmembers.h"
#include "util/fdmount.h"
#include "util/fdpass.h"
#include "util/fdutil.h"
#include "util/safepath.h"
#include "util/vchild.h"

/* Most extra unshares for a newer namespace id: unshare_newer_than(). */
#define MNTNS_MAX_UNSHARES 65536
/* The ids a CPU takes at once (COOKIE_LOCAL_BATCH, Linux 6.18). */
#define NS_ID_BATCH 4096

/* The child reports the step that failed, its errno and which Dirs entry. */
struct child_result {
	int step;
	int err;
	int dir;
};

static const char *step_names[] = {
	[STEP_OK] = "ok",
	[STEP_UNSHARE] = "unshare(CLONE_NEWNS)",
	[STEP_ENTER_POOL] = "entering a namespace of the pool",
	[STEP_PROPAGATION] = "making / private in the namespace",
	[STEP_ATTACH_DISK] = "mounting the job's filesystem (TmpBackend=loop)",
	[STEP_OPEN_TARGET] = "opening a private directory's mount point",
	[STEP_MOUNT_DIR] = "mounting a private directory",
	[STEP_KEEP_PATH] = "binding a kept path (KeepPaths) into",
	[STEP_HIDE_BUS] = "hiding the user manager and the system bus (/run/user, /run/dbus)",
	[STEP_HIDE_BASE] = "hiding BasePath",
	[STEP_OPEN_NS] = "opening the new namespace",
};

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
	int target_fd, rc;

	*step = STEP_OPEN_TARGET;
	if ((target_fd = safepath_open(pd->target)) < 0)
		return -1;
	*step = STEP_MOUNT_DIR;
	if (pd->mnt_fd >= 0) {
		/* Cloned, options set, by the parent in its namespace. */
		rc = fdmount_attach(pd->mnt_fd, target_fd);
	} else if (pd->source[0]) {
		/* On the job's filesystem, attached in this namespace. */
		int source_fd = safepath_open(pd->source);

		rc = source_fd < 0 ? -1 :
		     fdmount_bind(source_fd, target_fd, pd->attrs);
		fdutil_close(source_fd);
	} else {
		/* A fresh tmpfs; an older mount there is simply covered. */
		rc = fdmount_tmpfs(target_fd, "1777",
				   pd->tmpfs_size[0] ? pd->tmpfs_size : NULL,
				   pd->attrs);
	}
	fdutil_close(target_fd);
	return rc;
}

/*
 * Bind a kept node directory into the job's private directory pd, just
 * mounted: its mount point is made there, root's, one component at a
 * time below the private directory's fd without following links (the
 * private directory is fresh: no job process has run in it yet).
 */
static int mount_kept(const struct private_dir *pd, const struct kept_dir *kd)
{
	char rel[PATH_MAX];
	char *name, *save = NULL;
	int fd, nfd, rc;

	memcpy(rel, kd->rel, sizeof(rel));
	if ((fd = safepath_open(pd->target)) < 0)
		return -1;
	for (name = strtok_r(rel, "/", &save); name;
	     name = strtok_r(NULL, "/", &save)) {
		if (mkdirat(fd, name, 0755) < 0 && errno != EEXIST)
			goto error;
		nfd = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW |
			     O_CLOEXEC);
		if (nfd < 0)
			goto error;
		fdutil_close(fd);
		fd = nfd;
	}
	rc = fdmount_attach(kd->mnt_fd, fd);
	fdutil_close(fd);
	return rc;
error:
	fdutil_close(fd);
	return -1;
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
	rc = fdmount_hide(fd);
	fdutil_close(fd);
	return rc;
}

/*
 * TmpBackend=loop: the job's filesystem onto BasePath/<jobid>/.disk, in
 * this namespace only (the node's and other jobs' never hold it, so it
 * and its loop device go with the namespace); hidden with BasePath.
 */
static int attach_disk(const struct ns_plan *plan)
{
	int fd, rc;

	if (plan->disk_fd < 0)
		return 0;
	if ((fd = safepath_open(plan->disk_target)) < 0)
		return -1;
	rc = fdmount_attach(plan->disk_fd, fd);
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
	*step = STEP_ATTACH_DISK;
	if (attach_disk(plan) < 0)
		return -1;
	for (*dir = 0; *dir < plan->ndirs; (*dir)++)
		if (mount_private_dir(&plan->dirs[*dir], step) < 0)
			return -1;
	*step = STEP_KEEP_PATH;
	for (int k = 0; k < plan->nkeeps; k++) {
		*dir = plan->keeps[k].dir;
		if (mount_kept(&plan->dirs[*dir], &plan->keeps[k]) < 0)
			return -1;
	}
	*dir = -1;
	*step = STEP_HIDE_BUS;
	if (nsbus_hide(NSBUS_RUN_DIR, plan->uid, plan->gid) < 0)
		return -1;
	*step = STEP_HIDE_BASE;
	return hide_base_path(plan->base_path);
}

/* An fd of the caller's mount namespace, or -1. */
static int open_own_ns(void)
{
	return open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
}

/* The id of the caller's mount namespace, or 0 where the kernel has none. */
uint64_t mntns_own_ns_id(void)
{
	int fd = open_own_ns();
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
 * namespace ids come from per-CPU batches of NS_ID_BATCH, so a child on
 * another CPU can get an older id than its parent's namespace.  Every
 * further id of that CPU's batch is older still: only the next batch,
 * newer than any id given so far, helps.  Unsharing the mount namespace
 * again until it comes copied every mount of the node each time (4092
 * times in the worst case: 0.5 s at 25 mounts, seconds at 1,000), so the
 * rest of the batch goes to cgroup namespaces instead, which draw from
 * the same batch (namespaces of every kind share the generator) at about
 * 1 us each, the child held on its CPU meanwhile, and one more copy then
 * takes the new batch.  Where that does not give a newer id (another
 * batch size, no cgroup namespaces) the copies go on as before.  Kernels
 * without NS_GET_MNTNS_ID number namespaces in order and never need this.
 */
static bool burn_batch(uint64_t id)
{
	unsigned int cpu;
	cpu_set_t one;

	/* getcpu(2), not glibc's: this child has no rseq area of its own. */
	if (syscall(SYS_getcpu, &cpu, NULL, NULL) < 0)
		return false;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) < 0)
		return false;
	/* The batch's last id is a multiple of NS_ID_BATCH. */
	for (uint64_t n = (NS_ID_BATCH - id % NS_ID_BATCH) % NS_ID_BATCH;
	     n > 0; n--)
		if (unshare(CLONE_NEWCGROUP) < 0)
			return false;
	return true;
}

/*
 * Unshare into a namespace newer than parent_id (0: any will do).  The fd
 * opened to read the id is kept in *ns_fd, for the parent's pin: one open
 * of /proc per job fewer (-1 when none was opened).
 */
static int unshare_newer_than(uint64_t parent_id, int *ns_fd)
{
	uint64_t id;

	*ns_fd = -1;
	if (unshare(CLONE_NEWNS) < 0)
		return -1;
	if (!parent_id)
		return 0;
	if ((*ns_fd = open_own_ns()) < 0 || !(id = nsmembers_id(*ns_fd)) ||
	    id > parent_id)
		return 0;
	close(*ns_fd);
	*ns_fd = -1;
	if (burn_batch(id) && unshare(CLONE_NEWNS) < 0)
		return -1;
	for (int n = 0; n < MNTNS_MAX_UNSHARES; n++) {
		id = mntns_own_ns_id();
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
			       : unshare_newer_than(plan->parent_ns_id,
						    &ns_fd) < 0) {
		res.step = plan->pool_fd >= 0 ? STEP_ENTER_POOL : STEP_UNSHARE;
		res.err = errno;
	} else if (setup_namespace(plan, &res.step, &res.dir) < 0) {
		res.err = errno;
	} else if (ns_fd < 0 && (ns_fd = open_own_ns()) < 0) {
		res.step = STEP_OPEN_NS;
		res.err = errno;
	} else {
		res.step = STEP_OK;
	}
	if (res.step != STEP_OK && ns_fd >= 0) {
		close(ns_fd);
		ns_fd = -1;
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

void mntns_unmount_fd(int fd)
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

int mntns_run_child(const struct ns_plan *plan, int pin_fd, int *failed,
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
	pid = vchild_run_blocked(child_main, &args);
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
		mntns_unmount_fd(pin_fd);
	errno = res.err ? res.err : EIO;
	return -1;
}
