/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mntns.c - create, pin, join and tear down a job's mount namespace.
 *
 * Why a child process: unshare(CLONE_NEWNS) fails in a multithreaded process
 * (slurmstepd is one), so a forked child unshares, sets up the private
 * mounts inside the new namespace and waits until the parent has pinned the
 * namespace by bind-mounting /proc/<child>/ns/mnt onto BasePath/<jobid>/.ns.
 * After that the namespace needs no process to live.
 *
 * The child only makes system calls on strings prepared before fork(), since
 * after fork() in a threaded process only async-signal-safe calls are safe.
 *
 * Every directory below BasePath is root-owned and 0700, so users cannot
 * swap anything there; backing directories of private dirs are 1777 like a
 * real /tmp, so no chown is ever needed.  Removal is saferm's (fd-based, no
 * link followed), so whatever a job leaves in its /tmp cannot redirect it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mntns.h"
#include "nsconf.h"
#include "saferm.h"

#ifndef NSFS_MAGIC
#define NSFS_MAGIC 0x6e736673
#endif

/* Shared with the parser, which refuses what would not fit. */
#define MNTNS_MAX_DIRS NSCONF_MAX_DIRS
#define PIN_NAME NSCONF_PIN_NAME

/* What the child does for one private directory. */
struct private_dir {
	char target[PATH_MAX];	/* e.g. /tmp */
	char source[PATH_MAX];	/* backing directory, or "" for a tmpfs */
	char tmpfs_opts[64];	/* options when source is "" */
};

/* Everything the child needs, computed before fork(). */
struct ns_plan {
	unsigned long root_propagation;
	struct private_dir dirs[MNTNS_MAX_DIRS];
	int ndirs;
	char base_path[PATH_MAX];
};

/* The child reports the step that failed and its errno over a pipe. */
struct child_result {
	int step;
	int err;
};

enum child_step {
	STEP_OK = 0,
	STEP_UNSHARE,
	STEP_PROPAGATION,
	STEP_MOUNT_DIR,
	STEP_REMOUNT_DIR,
	STEP_HIDE_BASE,
	STEP_WAIT_PIN,
};

static const char *step_names[] = {
	[STEP_OK] = "ok",
	[STEP_UNSHARE] = "unshare(CLONE_NEWNS)",
	[STEP_PROPAGATION] = "making / private in the namespace",
	[STEP_MOUNT_DIR] = "mounting a private directory",
	[STEP_REMOUNT_DIR] = "remounting a private directory nosuid,nodev",
	[STEP_HIDE_BASE] = "hiding BasePath",
	[STEP_WAIT_PIN] = "waiting for the namespace pin",
};

static void set_err(char *err, size_t errlen, const char *fmt, const char *what,
		    int errnum)
{
	if (err && errlen)
		snprintf(err, errlen, fmt, what, strerror(errnum));
	errno = errnum;
}

int mntns_parse_job_dir(const char *name, uint32_t *job_id)
{
	unsigned long long v = 0;
	const char *p;

	if (!name[0] || name[0] == '0' || strlen(name) > 10)
		return -1;
	for (p = name; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (unsigned)(*p - '0');
	}
	if (v > UINT32_MAX)
		return -1;
	*job_id = (uint32_t)v;
	return 0;
}

static int job_path(char *buf, size_t len, const char *base, uint32_t job_id,
		    const char *leaf)
{
	int n;

	if (leaf)
		n = snprintf(buf, len, "%s/%" PRIu32 "/%s", base, job_id, leaf);
	else
		n = snprintf(buf, len, "%s/%" PRIu32, base, job_id);
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}


static void tmpfs_options(char *buf, size_t len, uint64_t size)
{
	if (size)
		snprintf(buf, len, "mode=1777,size=%" PRIu64, size);
	else
		snprintf(buf, len, "mode=1777");
}

/* Make the backing directories and fill in the child's plan. */
static int plan_dirs(const struct mntns_spec *spec, int jobfd,
		     struct ns_plan *plan)
{
	const char *const *d;

	for (d = spec->dirs; d && *d; d++) {
		struct private_dir *pd = &plan->dirs[plan->ndirs];
		char name[NAME_MAX + 1];

		if (plan->ndirs == MNTNS_MAX_DIRS || (*d)[0] != '/') {
			errno = EINVAL;
			return -1;
		}
		snprintf(pd->target, sizeof(pd->target), "%s", *d);
		plan->ndirs++;
		if (!strcmp(*d, "/dev/shm")) {
			tmpfs_options(pd->tmpfs_opts, sizeof(pd->tmpfs_opts),
				      spec->shm_size);
			continue;
		}
		if (!strcmp(*d, "/tmp") && spec->tmp_size) {
			tmpfs_options(pd->tmpfs_opts, sizeof(pd->tmpfs_opts),
				      spec->tmp_size);
			continue;
		}
		/* Refuses ".ns" and over-long names rather than truncating. */
		if (nsconf_backing_name(*d, name, sizeof(name)) < 0)
			return -1;
		if (mkdirat(jobfd, name, 0700) < 0)
			return -1;
		/* mkdir's mode is filtered by the umask; fchmodat is not. */
		if (fchmodat(jobfd, name, 01777, 0) < 0)
			return -1;
		if (job_path(pd->source, sizeof(pd->source), spec->base_path,
			     spec->job_id, name) < 0)
			return -1;
	}
	return 0;
}

static int mount_private_dir(const struct private_dir *pd, int *step)
{
	*step = STEP_MOUNT_DIR;
	if (!pd->source[0]) {
		/* A fresh tmpfs; an older mount there is simply covered. */
		return mount("tmpfs", pd->target, "tmpfs", MS_NOSUID | MS_NODEV,
			     pd->tmpfs_opts);
	}
	if (mount(pd->source, pd->target, "none", MS_BIND | MS_REC, NULL) < 0)
		return -1;
	/* Node-local scratch must not carry set-uid programs or devices. */
	*step = STEP_REMOUNT_DIR;
	return mount("none", pd->target, "none",
		     MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV, NULL);
}

/* Runs in the child, inside the new namespace. */
static int setup_namespace(const struct ns_plan *plan, int *step)
{
	int i;

	*step = STEP_PROPAGATION;
	if (mount("none", "/", "none", MS_REC | plan->root_propagation, NULL) < 0)
		return -1;
	for (i = 0; i < plan->ndirs; i++)
		if (mount_private_dir(&plan->dirs[i], step) < 0)
			return -1;
	/*
	 * Other jobs' directories are 0700 already; this hides their names.
	 * ENOENT means a private dir now covers BasePath: hidden already.
	 */
	*step = STEP_HIDE_BASE;
	if (mount("tmpfs", plan->base_path, "tmpfs",
		  MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "mode=0555,size=4k") < 0 && errno != ENOENT)
		return -1;
	return 0;
}

static void child_main(const struct ns_plan *plan, int ready_fd, int pinned_fd)
{
	struct child_result res = { STEP_OK, 0 };
	char c;

	if (unshare(CLONE_NEWNS) < 0) {
		res.step = STEP_UNSHARE;
		res.err = errno;
		(void)!write(ready_fd, "\1", 1);
		(void)!write(ready_fd, &res, sizeof(res));
		_exit(1);
	}
	/* Tell the parent it may pin; set up while it does. */
	(void)!write(ready_fd, "\0", 1);
	if (setup_namespace(plan, &res.step) < 0)
		res.err = errno;
	else
		res.step = STEP_OK;
	/* The namespace dies with us unless the pin is in place. */
	if (read(pinned_fd, &c, 1) != 1 && res.step == STEP_OK) {
		res.step = STEP_WAIT_PIN;
		res.err = EPIPE;
	}
	(void)!write(ready_fd, &res, sizeof(res));
	_exit(res.step == STEP_OK ? 0 : 1);
}

static int pin_namespace(pid_t pid, const char *pin)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/%d/ns/mnt", (int)pid);
	return mount(proc, pin, "none", MS_BIND, NULL);
}

/*
 * Fork the child, pin its namespace and collect its verdict.  Returns 0, or
 * -1 with errno and a message in err.
 */
static int run_child(const struct ns_plan *plan, const char *pin, char *err,
		     size_t errlen)
{
	int ready[2] = { -1, -1 }, pinned[2] = { -1, -1 };
	struct child_result res = { STEP_OK, 0 };
	bool is_pinned = false;
	int status, saved;
	char first;
	pid_t pid;

	if (pipe2(ready, O_CLOEXEC) < 0 || pipe2(pinned, O_CLOEXEC) < 0) {
		set_err(err, errlen, "%s: %s", "pipe", errno);
		goto error;
	}
	pid = fork();
	if (pid < 0) {
		set_err(err, errlen, "%s: %s", "fork", errno);
		goto error;
	}
	if (pid == 0) {
		close(ready[0]);
		close(pinned[1]);
		child_main(plan, ready[1], pinned[0]);
	}
	close(ready[1]);
	close(pinned[0]);
	ready[1] = pinned[0] = -1;

	if (read(ready[0], &first, 1) == 1 && first == '\0') {
		if (pin_namespace(pid, pin) == 0) {
			is_pinned = true;
			(void)!write(pinned[1], "", 1);
		} else {
			saved = errno;
			res.step = -1;
			set_err(err, errlen, "%s: %s",
				"pinning the namespace", saved);
		}
	}
	close(pinned[1]);
	pinned[1] = -1;
	if (res.step == STEP_OK &&
	    read(ready[0], &res, sizeof(res)) != sizeof(res)) {
		/* The child died before it could say why. */
		res.step = STEP_UNSHARE;
		res.err = EIO;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	close(ready[0]);
	ready[0] = -1;
	if (res.step == STEP_OK && WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	if (res.step > 0)
		set_err(err, errlen, "%s: %s", step_names[res.step],
			res.err ? res.err : EIO);
	if (is_pinned)
		umount2(pin, MNT_DETACH);
	errno = res.err ? res.err : EIO;
	return -1;
error:
	saved = errno;
	for (int i = 0; i < 2; i++) {
		if (ready[i] >= 0)
			close(ready[i]);
		if (pinned[i] >= 0)
			close(pinned[i]);
	}
	errno = saved;
	return -1;
}

/* The job directory becomes a private mount so the pin cannot propagate. */
static int make_private_bind(const char *path)
{
	if (mount(path, path, "none", MS_BIND, NULL) < 0)
		return -1;
	if (mount("none", path, "none", MS_PRIVATE, NULL) < 0) {
		int saved = errno;

		umount2(path, MNT_DETACH);
		errno = saved;
		return -1;
	}
	return 0;
}

static int create_pin_file(int jobfd)
{
	int fd = openat(jobfd, PIN_NAME,
			O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC,
			0400);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

int mntns_create(const struct mntns_spec *spec, char *err, size_t errlen)
{
	char name[16], jobdir[PATH_MAX], pin[PATH_MAX];
	struct ns_plan *plan = NULL;
	int basefd = -1, jobfd = -1, saved;
	bool made_dir = false, bound = false;

	if (job_path(jobdir, sizeof(jobdir), spec->base_path, spec->job_id,
		     NULL) < 0 ||
	    job_path(pin, sizeof(pin), spec->base_path, spec->job_id,
		     PIN_NAME) < 0) {
		set_err(err, errlen, "%s: %s", "BasePath", errno);
		return -1;
	}
	snprintf(name, sizeof(name), "%" PRIu32, spec->job_id);
	if (!(plan = calloc(1, sizeof(*plan)))) {
		set_err(err, errlen, "%s: %s", "allocating the plan", errno);
		return -1;
	}
	plan->root_propagation = spec->shared ? MS_SLAVE : MS_PRIVATE;
	snprintf(plan->base_path, sizeof(plan->base_path), "%s",
		 spec->base_path);

	basefd = open(spec->base_path,
		      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (basefd < 0) {
		set_err(err, errlen, "opening BasePath %s: %s",
			spec->base_path, errno);
		goto error;
	}
	if (mkdirat(basefd, name, 0700) < 0) {
		set_err(err, errlen, "creating %s: %s", jobdir, errno);
		goto error;
	}
	made_dir = true;
	jobfd = openat(basefd, name,
		       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (jobfd < 0 || fchmod(jobfd, 0700) < 0) {
		set_err(err, errlen, "opening %s: %s", jobdir, errno);
		goto error;
	}
	if (make_private_bind(jobdir) < 0) {
		set_err(err, errlen, "bind-mounting %s: %s", jobdir, errno);
		goto error;
	}
	bound = true;
	if (create_pin_file(jobfd) < 0) {
		set_err(err, errlen, "creating %s: %s", pin, errno);
		goto error;
	}
	if (plan_dirs(spec, jobfd, plan) < 0) {
		set_err(err, errlen, "creating private directories in %s: %s",
			jobdir, errno);
		goto error;
	}
	if (run_child(plan, pin, err, errlen) < 0)
		goto error;
	close(jobfd);
	close(basefd);
	free(plan);
	return 0;
error:
	saved = errno;
	if (jobfd >= 0)
		close(jobfd);
	if (bound)
		umount2(jobdir, MNT_DETACH);
	if (made_dir)
		saferm_at(basefd, name);
	if (basefd >= 0)
		close(basefd);
	free(plan);
	errno = saved;
	return -1;
}

int mntns_open(const char *base_path, uint32_t job_id)
{
	char pin[PATH_MAX];

	if (job_path(pin, sizeof(pin), base_path, job_id, PIN_NAME) < 0)
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

	if (job_path(pin, sizeof(pin), base_path, job_id, PIN_NAME) < 0)
		return false;
	return statfs(pin, &sfs) == 0 && sfs.f_type == NSFS_MAGIC;
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

int mntns_delete(const char *base_path, uint32_t job_id)
{
	char name[16], jobdir[PATH_MAX], pin[PATH_MAX];
	int basefd, rc = 0, saved = 0;

	if (job_path(jobdir, sizeof(jobdir), base_path, job_id, NULL) < 0 ||
	    job_path(pin, sizeof(pin), base_path, job_id, PIN_NAME) < 0)
		return -1;
	snprintf(name, sizeof(name), "%" PRIu32, job_id);

	/* The pin may be stacked if a create raced; remove every layer. */
	for (int layer = 0; layer < 8 && mntns_exists(base_path, job_id);
	     layer++) {
		if (unmount_if_mounted(pin) < 0) {
			saved = errno;
			rc = -1;
			break;
		}
	}
	if (unmount_if_mounted(jobdir) < 0 && !saved) {
		saved = errno;
		rc = -1;
	}
	basefd = open(base_path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				 O_CLOEXEC);
	if (basefd < 0) {
		if (errno == ENOENT)
			return rc;
		return -1;
	}
	if (saferm_at(basefd, name) < 0 && errno != ENOENT && !saved) {
		saved = errno;
		rc = -1;
	}
	close(basefd);
	errno = saved;
	return rc;
}
