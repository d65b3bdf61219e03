/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * userns.c - a job's user namespace: made by a child, mapped and pinned
 * by its parent, entered by each process of the job.  See userns.h.
 *
 * The caller forks a child that unshares CLONE_NEWUSER and then waits,
 * doing nothing, until its parent closes the pipe between them.  While
 * the child is the caller's unreaped child its PID names it alone, so
 * /proc/<pid>/{uid,gid}_map and /proc/<pid>/ns/user are the new
 * namespace's: the parent (root in the host's user namespace, which
 * the kernel requires to write a map of more than the writer's own id)
 * writes the maps or has the site's script write them, checks them and
 * pins the namespace.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf/jobdir.h"
#include "ns/mntns.h"
#include "ns/userns.h"
#include "util/fdutil.h"

#define PIN_NAME JOBDIR_USERNS_PIN

/* Every id as itself: what Slurm's namespace/linux writes by default. */
static const char identity_map[] = "0 0 4294967295\n";

/* The longest map the kernel takes (340 lines) fits in a page. */
#define MAP_MAX 4096

/* The child: a new user namespace, held until the pipe closes. */
static void child_main(int ready_fd, int hold_fd)
{
	char c;
	int err = unshare(CLONE_NEWUSER) < 0 ? errno : 0;

	(void)!write(ready_fd, &err, sizeof(err));
	if (!err)
		while (read(hold_fd, &c, 1) < 0 && errno == EINTR)
			;
	_exit(err ? 1 : 0);
}

/* Write text into /proc/<pid>/<name>.  Returns 0 or -1 with errno. */
static int write_proc(pid_t pid, const char *name, const char *text)
{
	char path[64];
	size_t len = strlen(text);
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	n = write(fd, text, len);
	fdutil_close(fd);
	if (n < 0)
		return -1;
	if ((size_t)n != len) {
		errno = EIO;
		return -1;
	}
	return 0;
}

static int identity(pid_t pid, struct report *rep)
{
	if (write_proc(pid, "uid_map", identity_map) < 0)
		return report_errno(rep, errno, "writing its uid_map");
	if (write_proc(pid, "gid_map", identity_map) < 0)
		return report_errno(rep, errno, "writing its gid_map");
	return 0;
}

/*
 * Whether /proc/<pid>/<name> ("uid_map" or "gid_map") maps id to itself:
 * a line "INSIDE OUTSIDE COUNT" with INSIDE <= id < INSIDE + COUNT and
 * INSIDE == OUTSIDE.  Slurm calls setuid(2) and setgid(2) with the job's
 * ids in the namespace, where they must mean the job's user outside.
 * Returns 1, 0 (no line does, or the map is empty), or -1 with errno.
 */
static int map_has(pid_t pid, const char *name, uint32_t id)
{
	char path[64], buf[MAP_MAX + 1];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, MAP_MAX);
	fdutil_close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	for (char *line = buf; *line; ) {
		uint64_t inside, outside, count;
		char *next = strchr(line, '\n');

		if (next)
			*next++ = '\0';
		if (sscanf(line, "%" SCNu64 " %" SCNu64 " %" SCNu64, &inside,
			   &outside, &count) == 3 &&
		    id >= inside && id - inside < count && inside == outside)
			return 1;
		if (!next)
			break;
		line = next;
	}
	return 0;
}

/*
 * The job's ids must map to themselves: Slurm becomes them in the
 * namespace.  So must root's: on its way there slurmstepd's task child
 * becomes root again (seteuid(0), setegid(0)) inside.  A gid of
 * (gid_t)-1 is unknown (Slurm 22.05 gives none): not checked.
 */
static int check_maps(pid_t pid, uid_t uid, gid_t gid, struct report *rep)
{
	const struct {
		const char *map, *what;
		uint32_t id;
		bool check;
	} ids[] = {
		{ "uid_map", "the job's uid", (uint32_t)uid, true },
		{ "gid_map", "the job's gid", (uint32_t)gid, gid != (gid_t)-1 },
		{ "uid_map", "root's uid", 0, true },
		{ "gid_map", "root's gid", 0, true },
	};

	for (size_t i = 0; i < sizeof(ids) / sizeof(*ids); i++) {
		int has = ids[i].check ? map_has(pid, ids[i].map, ids[i].id) : 1;

		if (has < 0)
			return report_errno(rep, errno, "reading its %s",
					    ids[i].map);
		if (!has) {
			errno = EINVAL;
			return report_error(rep, "its %s does not map %s %u to "
					    "itself", ids[i].map, ids[i].what,
					    (unsigned)ids[i].id);
		}
	}
	return 0;
}

/* Bind the user namespace of process pid onto the pin file held as fd. */
static int pin_namespace(pid_t pid, int pin_fd, struct report *rep)
{
	char proc[64], target[64];

	snprintf(proc, sizeof(proc), "/proc/%d/ns/user", (int)pid);
	snprintf(target, sizeof(target), "/proc/self/fd/%d", pin_fd);
	if (mount(proc, target, "none", MS_BIND, NULL) < 0)
		return report_errno(rep, errno, "pinning it");
	return 0;
}

struct made {
	pid_t pid;
	int hold_fd;	/* closing it ends the child */
};

/* Fork the child and wait for its namespace.  0, or -1 with rep. */
static int make_namespace(struct made *m, struct report *rep)
{
	int ready[2], hold[2], err = EIO;

	if (pipe2(ready, O_CLOEXEC) < 0)
		return report_errno(rep, errno, "pipe");
	if (pipe2(hold, O_CLOEXEC) < 0) {
		err = errno;
		goto error_ready;
	}
	if ((m->pid = fork()) < 0) {
		err = errno;
		goto error_hold;
	}
	if (m->pid == 0) {
		close(ready[0]);
		close(hold[1]);
		child_main(ready[1], hold[0]);
	}
	close(ready[1]);
	close(hold[0]);
	m->hold_fd = hold[1];
	if (read(ready[0], &err, sizeof(err)) != sizeof(err))
		err = EIO;
	close(ready[0]);
	if (err) {
		fdutil_close(m->hold_fd);
		waitpid(m->pid, NULL, 0);
		return report_errno(rep, err, "unshare(CLONE_NEWUSER)");
	}
	return 0;
error_hold:
	close(hold[0]);
	close(hold[1]);
error_ready:
	close(ready[0]);
	close(ready[1]);
	return report_errno(rep, err, "fork");
}

/* Let the child go and reap it. */
static void end_child(struct made *m)
{
	fdutil_close(m->hold_fd);
	while (waitpid(m->pid, NULL, 0) < 0 && errno == EINTR)
		;
}

struct job {
	uid_t uid;
	gid_t gid;
	userns_map_fn map;
	void *arg;
};

/* Make, map, check and pin the namespace onto pin_fd. */
static int fill_pin(int pin_fd, void *arg, struct report *rep)
{
	const struct job *j = arg;
	struct made m = { .pid = -1, .hold_fd = -1 };
	int rc, saved;

	if (make_namespace(&m, rep) < 0)
		return -1;
	rc = j->map ? j->map(m.pid, j->arg, rep) : identity(m.pid, rep);
	if (rc == 0)
		rc = check_maps(m.pid, j->uid, j->gid, rep);
	if (rc == 0)
		rc = pin_namespace(m.pid, pin_fd, rep);
	saved = errno;
	end_child(&m);
	errno = saved;
	return rc;
}

int userns_create(const char *base_path, uint32_t job_id, uid_t uid,
		  gid_t gid, userns_map_fn map, void *arg, struct report *rep)
{
	struct job j = { uid, gid, map, arg };

	return mntns_pin_make(base_path, job_id, PIN_NAME, fill_pin, &j, rep);
}

int userns_open(const char *base_path, uint32_t job_id)
{
	return mntns_pin_open(base_path, job_id, PIN_NAME, NULL);
}

/*
 * The caller is still root (kuid 0) after setns until Slurm drops to the
 * job's user.  With a site's map that makes the job's user root in the
 * namespace, the user's processes hold CAP_SYS_PTRACE there and could
 * take over a dumpable kuid-0 process in it, and with it root's access
 * to the host's files.  A non-dumpable process can be traced only with
 * the capability in the user namespace its memory was made in, the
 * host's; exec(2) as the job's user makes it dumpable again.
 */
int userns_enter(int fd)
{
	int rc;

	if (fd < 0) {
		errno = EBADF;
		return -1;
	}
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0) {
		fdutil_close(fd);
		return -1;
	}
	rc = setns(fd, CLONE_NEWUSER);
	fdutil_close(fd);
	return rc;
}

bool userns_exists(const char *base_path, uint32_t job_id)
{
	int fd = userns_open(base_path, job_id);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}
