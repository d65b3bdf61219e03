/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devcg.c - a job's device cgroup: made with its filter, joined, adopted
 * into, released, found again after a restart.  See devcg.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dev/cgroup2.h"
#include "job/devcg.h"
#include "job/marker.h"

#define VERIFIER_LOG_SIZE 4096
#define ADOPT_MAX_PIDS 4096

int devcg_root_path(const struct jobct_node *node, char *buf, size_t len)
{
	if (!node->cgroup_root) {
		errno = ENOENT;	/* no cgroup2 was mounted at load */
		return -1;
	}
	if (snprintf(buf, len, "%s", node->cgroup_root) >= (int)len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int devcg_open_root(const struct jobct_node *node)
{
	char mount[PATH_MAX];

	if (devcg_root_path(node, mount, sizeof(mount)) < 0)
		return -1;
	return cgroup2_open(mount);
}

/* <cgroup2>/devns/<node>, made on demand; -1 with errno. */
static int open_node_cgroup(const struct jobct_node *node, bool create)
{
	char rel[PATH_MAX];
	int root_fd, fd, saved;

	if ((root_fd = devcg_open_root(node)) < 0)
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

/* The verifier log on one line: "insn; insn; reason". */
static void one_line(char *log)
{
	size_t n = strlen(log);

	while (n && log[n - 1] == '\n')
		log[--n] = '\0';
	for (char *p = log; (p = strchr(p, '\n')); p++)
		*p = ';';
}

int devcg_prog_create(const struct jobct_node *node,
		      const struct devrule_list *list, struct report *rep)
{
	char *vlog = calloc(1, VERIFIER_LOG_SIZE);
	int prog_fd;

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
	/* Loaded, the log can only say why denials go uncounted. */
	if (vlog[0])
		report_warning(rep, "its denied device opens are not counted: %s",
			       vlog);
	free(vlog);
	return prog_fd;
}

/* Load the program and attach it to cg_fd. */
static int attach_filter(const struct jobct_node *node, int cg_fd,
			 const struct devrule_list *list, struct report *rep)
{
	int prog_fd, rc;

	if ((prog_fd = devcg_prog_create(node, list, rep)) < 0)
		return -1;
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
	int node_fd, job_fd = -1;

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
	if (marker_write(node, job_id, "", rep) < 0)
		goto error;
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

/* An adopted pid that cannot be contained: killed when kill (never the
 * caller, the extern slurmstepd); -1 with rep. */
static int uncontained(pid_t pid, bool kill_it, int err, struct report *rep)
{
	if (!kill_it)
		return report_errno(rep, err,
				    "adopted pid %d cannot be put under its device filter",
				    (int)pid);
	if (pid != getpid())
		(void)kill(pid, SIGKILL);
	return report_errno(rep, err,
			    "adopted pid %d cannot be put under its device filter: killed",
			    (int)pid);
}

int devcg_adopt(const struct jobct_node *node, uint32_t job_id,
		bool kill_uncontained, struct report *rep)
{
	pid_t *pids = calloc(ADOPT_MAX_PIDS, sizeof(*pids));
	int job_fd = -1, n, rc = -1, err;

	if (!pids)
		return report_errno(rep, ENOMEM, "adopting");
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
	if ((job_fd = open_job_cgroup(node, job_id, false)) < 0) {
		err = errno;
		report_errno(rep, err,
			     "cannot open its device cgroup for an adopted process");
		for (int i = 0; i < n; i++)
			uncontained(pids[i], kill_uncontained, err, rep);
		goto out;
	}
	rc = 0;
	for (int i = 0; i < n; i++)
		if (node->ops->cg_move_pid(job_fd, pids[i]) < 0 &&
		    errno != ESRCH)
			rc = uncontained(pids[i], kill_uncontained, errno,
					 rep);
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

	if (job_fd < 0)
		return;
	(void)cgroup2_kill(job_fd);
	close(job_fd);
}

int devcg_release(const struct jobct_node *node, uint32_t job_id)
{
	char name[PATH_MAX];
	int node_fd, rc, saved;

	if (marker_remove(node, job_id) < 0)
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

int devcg_each_job(const struct jobct_node *node,
		   int (*fn)(uint32_t job_id, void *arg), void *arg)
{
	int node_fd = open_node_cgroup(node, false), rc = 0;
	struct dirent *ep;
	uint32_t job_id;
	char end;
	DIR *dp;

	if (node_fd < 0)
		return errno == ENOENT ? 0 : -1;
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

int devcg_path(const struct jobct_node *node, uint32_t job_id,
	       char *cgroup, size_t cgroup_len)
{
	char mount[PATH_MAX];
	int n;

	cgroup[0] = '\0';
	if (devcg_root_path(node, mount, sizeof(mount)) < 0)
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

int devcg_each_cgroup(const struct jobct_node *node, uint32_t job_id,
		      int (*fn)(const char *path, int cg_fd, void *arg),
		      void *arg)
{
	char path[PATH_MAX];
	int fd, rc;

	if (devcg_path(node, job_id, path, sizeof(path)) < 0)
		return -1;
	if (!path[0])
		return 0;	/* no cgroup2 */
	if ((fd = open_job_cgroup(node, job_id, false)) < 0)
		return absent();
	rc = fn(path, fd, arg);
	close(fd);
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
