/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devcg.c - a job's device cgroup: made with its filter, joined, adopted
 * into, released, found again after a restart.  See devcg.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dev/cgroup2.h"
#include "job/devcg.h"

#define VERIFIER_LOG_SIZE 4096
#define ADOPT_MAX_PIDS 4096

/* The cgroup2 mount's path, from the node or the system's mountinfo. */
static int root_path(const struct jobct_node *node, char *buf, size_t len)
{
	if (!node->cgroup_root)
		return cgroup2_find_mount(NULL, buf, len);
	if (snprintf(buf, len, "%s", node->cgroup_root) >= (int)len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* The cgroup2 mount, opened; -1 with errno. */
static int open_root(const struct jobct_node *node)
{
	char mount[PATH_MAX];

	if (root_path(node, mount, sizeof(mount)) < 0)
		return -1;
	return cgroup2_open(mount);
}

/* <cgroup2>/devns/<node>, made on demand; -1 with errno. */
static int open_node_cgroup(const struct jobct_node *node, bool create)
{
	char rel[PATH_MAX];
	int root_fd, fd, saved;

	if ((root_fd = open_root(node)) < 0)
		return -1;
	snprintf(rel, sizeof(rel), "devns/%s", node->node_name);
	fd = node->ops->cg_open_at(root_fd, rel, create);
	saved = errno;
	close(root_fd);
	errno = saved;
	return fd;
}

/* After a failed open: 0 when it failed for ENOENT (nothing there). */
static int absent(void)
{
	return errno != ENOENT ? -1 : 0;
}

static void job_name(char *buf, size_t len, uint32_t job_id)
{
	snprintf(buf, len, "job_%u", job_id);
}

/* The job's cgroup below the node's; -1 with errno. */
static int open_job_cgroup(const struct jobct_node *node, uint32_t job_id,
			   bool create)
{
	char name[32];
	int node_fd, fd, saved;

	if ((node_fd = open_node_cgroup(node, create)) < 0)
		return -1;
	job_name(name, sizeof(name), job_id);
	fd = node->ops->cg_open_at(node_fd, name, create);
	saved = errno;
	close(node_fd);
	errno = saved;
	return fd;
}

static void marker_path(const struct jobct_node *node, char *buf, size_t len,
			uint32_t job_id)
{
	snprintf(buf, len, "%s/devns_filter_%u", node->spool_dir, job_id);
}

int devcg_filtered(const struct jobct_node *node, uint32_t job_id)
{
	char path[PATH_MAX];
	struct stat st;

	marker_path(node, path, sizeof(path), job_id);
	if (node->ops->marker_stat(path, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISREG(st.st_mode) || st.st_uid != 0) {
		errno = EINVAL;
		return -1;
	}
	return 1;
}

/* The verifier log on one line: "insn; insn; reason". */
static void one_line(char *log)
{
	size_t n = strlen(log);

	while (n && log[n - 1] == '\n')
		log[--n] = '\0';
	for (char *p = log; (p = strchr(p, '\n')); p++)
		*p = ';';
}

/* Load the program and attach it to cg_fd. */
static int attach_filter(const struct jobct_node *node, int cg_fd,
			 const struct devrule_list *list, struct report *rep)
{
	char *vlog = calloc(1, VERIFIER_LOG_SIZE);
	int prog_fd, rc;

	if (!vlog)
		return report_errno(rep, ENOMEM, "device filter");
	if ((prog_fd = node->ops->prog_create(list, vlog,
					      VERIFIER_LOG_SIZE)) < 0) {
		int saved = errno;

		one_line(vlog);
		errno = saved;
		report_error(rep, "the kernel refused the device filter: %s%s%s",
			     strerror(saved), vlog[0] ? "; verifier: " : "",
			     vlog);
		free(vlog);
		return -1;
	}
	free(vlog);
	rc = node->ops->prog_attach(prog_fd, cg_fd);
	if (rc < 0)
		report_errno(rep, errno, "cannot attach the device filter");
	/* Attached, the program lives as long as the cgroup: no fd is kept. */
	close(prog_fd);
	return rc;
}

int devcg_apply(const struct jobct_node *node, uint32_t job_id,
		const struct devrule_list *list, struct report *rep)
{
	char path[PATH_MAX];
	int node_fd, job_fd = -1, fd;

	if ((node_fd = open_node_cgroup(node, true)) < 0)
		return report_errno(rep, errno,
				    "no usable cgroup2 hierarchy for the device filter");
	job_name(path, sizeof(path), job_id);
	if ((job_fd = node->ops->cg_open_at(node_fd, path, true)) < 0) {
		report_errno(rep, errno, "cannot create its device cgroup");
		goto error;
	}
	if (attach_filter(node, job_fd, list, rep) < 0)
		goto error;
	marker_path(node, path, sizeof(path), job_id);
	if ((fd = node->ops->marker_create(path)) < 0) {
		report_errno(rep, errno, "cannot record its device filter in %s",
			     path);
		goto error;
	}
	close(fd);
	close(job_fd);
	close(node_fd);
	return 0;
error:
	{
		int saved = errno;

		if (job_fd >= 0)
			close(job_fd);
		job_name(path, sizeof(path), job_id);
		node->ops->cg_remove(node_fd, path);
		close(node_fd);
		errno = saved;
	}
	return -1;
}

int devcg_move(const struct jobct_node *node, uint32_t job_id, pid_t pid,
	       struct report *rep)
{
	int job_fd, rc;

	if ((job_fd = open_job_cgroup(node, job_id, false)) < 0)
		return report_errno(rep, errno, "cannot open its device cgroup");
	rc = node->ops->cg_move_pid(job_fd, pid);
	if (rc < 0)
		report_errno(rep, errno, "cannot enter its device cgroup");
	close(job_fd);
	return rc;
}

int devcg_adopt(const struct jobct_node *node, uint32_t job_id,
		struct report *rep)
{
	pid_t *pids = calloc(ADOPT_MAX_PIDS, sizeof(*pids));
	int job_fd = -1, n, rc = -1;

	if (!pids)
		return report_errno(rep, ENOMEM, "adopting");
	if ((job_fd = open_job_cgroup(node, job_id, false)) < 0) {
		report_errno(rep, errno,
			     "cannot open its device cgroup for an adopted process");
		goto out;
	}
	n = node->ops->extern_pids(job_id, pids, ADOPT_MAX_PIDS);
	if (n < 0) {
		report_errno(rep, errno,
			     "cannot find the extern step's processes (adoption needs proctrack/cgroup)");
		goto out;
	}
	if (n > ADOPT_MAX_PIDS) {
		report_errno(rep, E2BIG, "%d processes in the extern step", n);
		goto out;
	}
	rc = 0;
	for (int i = 0; i < n; i++)
		if (node->ops->cg_move_pid(job_fd, pids[i]) < 0 &&
		    errno != ESRCH)
			rc = report_errno(rep, errno,
					  "cannot move adopted pid %d into its device cgroup",
					  (int)pids[i]);
out:
	if (job_fd >= 0)
		close(job_fd);
	free(pids);
	return rc;
}

/* Processes that outlived the job would keep the cgroup busy: kill them. */
static void kill_leftovers(const struct jobct_node *node, int node_fd,
			   const char *name)
{
	int job_fd = node->ops->cg_open_at(node_fd, name, false);
	int fd;

	if (job_fd < 0)
		return;
	fd = openat(job_fd, "cgroup.kill", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		(void)!write(fd, "1", 1);
		close(fd);
	}
	close(job_fd);
}

int devcg_release(const struct jobct_node *node, uint32_t job_id)
{
	char name[PATH_MAX];
	int node_fd, rc, saved;

	marker_path(node, name, sizeof(name), job_id);
	if (unlink(name) < 0 && errno != ENOENT)
		return -1;
	if ((node_fd = open_node_cgroup(node, false)) < 0)
		return 0;	/* no node cgroup: no job cgroup either */
	job_name(name, sizeof(name), job_id);
	rc = node->ops->cg_remove(node_fd, name);
	if (rc < 0 && errno == EBUSY) {
		kill_leftovers(node, node_fd, name);
		/* cgroup.kill is asynchronous; the last exits take a moment. */
		for (int i = 0; i < 100; i++) {
			usleep(10000);
			rc = node->ops->cg_remove(node_fd, name);
			if (rc == 0 || errno != EBUSY)
				break;
		}
	}
	if (rc < 0 && errno == ENOENT)
		rc = 0;
	saved = errno;
	close(node_fd);
	errno = saved;
	return rc;
}

/* Calls fn for every job with a marker in the node's spool directory. */
static int each_marker(const struct jobct_node *node,
		       int (*fn)(uint32_t job_id, void *arg), void *arg)
{
	DIR *dp = opendir(node->spool_dir);
	struct dirent *ep;
	uint32_t job_id;
	int rc = 0;
	char end;

	if (!dp)
		return absent();
	while ((ep = readdir(dp)))
		if (sscanf(ep->d_name, "devns_filter_%u%c", &job_id,
			   &end) == 1 && fn(job_id, arg) < 0)
			rc = -1;
	closedir(dp);
	return rc;
}

int devcg_each_job(const struct jobct_node *node,
		   int (*fn)(uint32_t job_id, void *arg), void *arg)
{
	int node_fd = open_node_cgroup(node, false), rc = 0;
	struct dirent *ep;
	uint32_t job_id;
	char end;
	DIR *dp;

	if (each_marker(node, fn, arg) < 0)
		rc = -1;
	if (node_fd < 0)
		return errno == ENOENT ? rc : -1;
	if (!(dp = fdopendir(node_fd))) {
		close(node_fd);
		return -1;
	}
	while ((ep = readdir(dp)))
		if (sscanf(ep->d_name, "job_%u%c", &job_id, &end) == 1 &&
		    fn(job_id, arg) < 0)
			rc = -1;
	closedir(dp);
	return rc;
}

int devcg_paths(const struct jobct_node *node, uint32_t job_id,
		char *cgroup, size_t cgroup_len, char *marker,
		size_t marker_len)
{
	char mount[PATH_MAX];
	int n;

	marker_path(node, marker, marker_len, job_id);
	cgroup[0] = '\0';
	if (root_path(node, mount, sizeof(mount)) < 0)
		return absent();
	n = snprintf(cgroup, cgroup_len, "%s/devns/%s/job_%u", mount,
		     node->node_name, job_id);
	if (n < 0 || (size_t)n >= cgroup_len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int devcg_procs(const struct jobct_node *node, uint32_t job_id, pid_t *pids,
		size_t max)
{
	int fd = open_job_cgroup(node, job_id, false), n, saved;

	if (fd < 0)
		return -1;
	n = cgroup2_list_pids(fd, pids, max);
	saved = errno;
	close(fd);
	errno = saved;
	return n;
}

/* What devcg_each_cgroup passes down the walk of Slurm's step cgroups. */
struct cgroup_walk {
	int (*fn)(const char *path, int cg_fd, void *arg);
	void *arg;
	char path[PATH_MAX];
};

/*
 * Appends "/rel" to the walk's path; returns its former length, or -1
 * with ENAMETOOLONG (the path unchanged).
 */
static int path_push(struct cgroup_walk *w, const char *rel)
{
	size_t len = strlen(w->path);
	int n = snprintf(w->path + len, sizeof(w->path) - len, "/%s", rel);

	if (n < 0 || (size_t)n >= sizeof(w->path) - len) {
		w->path[len] = '\0';
		errno = ENAMETOOLONG;
		return -1;
	}
	return (int)len;
}

/* fn for rel below the walk's path, when it exists. */
static int visit(struct cgroup_walk *w, int dir_fd, const char *rel)
{
	int fd = cgroup2_open_at(dir_fd, rel, false), rc, len;

	if (fd < 0)
		return absent();
	if ((len = path_push(w, rel)) < 0) {
		close(fd);
		return -1;
	}
	rc = w->fn(w->path, fd, w->arg);
	w->path[len] = '\0';
	close(fd);
	return rc;
}

/*
 * The unified layout: the user and slurm cgroups of every step of the job
 * in Slurm's stepd scope (system.slice/<node>_slurmstepd.scope with
 * multiple-slurmd builds, system.slice/slurmstepd.scope otherwise).
 */
static int each_step_cgroup(const struct jobct_node *node, int root_fd,
			    uint32_t job_id, struct cgroup_walk *w)
{
	char rel[PATH_MAX];
	struct dirent *ep;
	int job_fd = -1, rc = 0, len;
	DIR *dp;

	snprintf(rel, sizeof(rel), "system.slice/%s_slurmstepd.scope/job_%u",
		 node->node_name, job_id);
	if ((job_fd = cgroup2_open_at(root_fd, rel, false)) < 0 &&
	    errno == ENOENT) {
		snprintf(rel, sizeof(rel),
			 "system.slice/slurmstepd.scope/job_%u", job_id);
		job_fd = cgroup2_open_at(root_fd, rel, false);
	}
	if (job_fd < 0)
		return absent();
	if ((len = path_push(w, rel)) < 0) {
		close(job_fd);
		return -1;
	}
	if (!(dp = fdopendir(job_fd))) {
		close(job_fd);
		w->path[len] = '\0';
		return -1;
	}
	while ((ep = readdir(dp))) {
		if (strncmp(ep->d_name, "step_", 5) != 0)
			continue;
		snprintf(rel, sizeof(rel), "%s/user", ep->d_name);
		if (visit(w, dirfd(dp), rel) < 0)
			rc = -1;
		snprintf(rel, sizeof(rel), "%s/slurm", ep->d_name);
		if (visit(w, dirfd(dp), rel) < 0)
			rc = -1;
	}
	closedir(dp);
	w->path[len] = '\0';
	return rc;
}

int devcg_each_cgroup(const struct jobct_node *node, uint32_t job_id,
		      int (*fn)(const char *path, int cg_fd, void *arg),
		      void *arg)
{
	struct cgroup_walk w = { .fn = fn, .arg = arg };
	char rel[PATH_MAX];
	int root_fd, rc;

	if (node->layout == CGROUP2_NONE)
		return 0;
	if (root_path(node, w.path, sizeof(w.path)) < 0 ||
	    (root_fd = cgroup2_open(w.path)) < 0)
		return absent();
	if (node->layout == CGROUP2_UNIFIED) {
		rc = each_step_cgroup(node, root_fd, job_id, &w);
	} else {
		snprintf(rel, sizeof(rel), "devns/%s/job_%u", node->node_name,
			 job_id);
		rc = visit(&w, root_fd, rel);
	}
	close(root_fd);
	return rc;
}

/*
 * The cgroup.procs of the job's extern step in the v1 freezer hierarchy,
 * where proctrack/cgroup puts the processes pam_slurm_adopt hands to the
 * stepd.  Found from the stepd's own freezer cgroup (.../job_<id>/...).
 */
static FILE *open_extern_procs(uint32_t job_id)
{
	char line[PATH_MAX], needle[32], path[PATH_MAX + 64];
	FILE *f = fopen("/proc/self/cgroup", "re"), *procs = NULL;
	size_t nlen;

	nlen = (size_t)snprintf(needle, sizeof(needle), "/job_%u", job_id);
	while (f && !procs && fgets(line, sizeof(line), f)) {
		char *ctrl = strchr(line, ':'), *rel, *end;

		if (!ctrl || !(rel = strchr(ctrl + 1, ':')) ||
		    strncmp(ctrl + 1, "freezer:", 8))
			continue;
		/* "/job_12" must end a path component: not "/job_123" */
		for (end = strstr(rel, needle); end; end = strstr(end + 1, needle))
			if (strchr("/\n", end[nlen]))
				break;
		if (!end)
			continue;
		end[nlen] = '\0';
		snprintf(path, sizeof(path),
			 "/sys/fs/cgroup/freezer%s/step_extern/cgroup.procs",
			 rel + 1);
		procs = fopen(path, "re");
	}
	if (f)
		fclose(f);
	if (!procs)
		errno = ENOENT;
	return procs;
}

int devcg_extern_pids_v1(uint32_t job_id, pid_t *pids, size_t max)
{
	FILE *procs = open_extern_procs(job_id);
	int pid, n = 0;

	if (!procs)
		return -1;
	while (fscanf(procs, "%d", &pid) == 1) {
		if ((size_t)n < max)
			pids[n] = pid;
		n++;
	}
	fclose(procs);
	return n;
}
