/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stepcg_find.c - where a job and its steps are in Slurm's cgroup/v2 tree
 * (the unified layout): the job's cgroup and step from a process's own
 * cgroup path or from the marker, a step's cgroup, and the job's program
 * on its extern step.  The backend's verbs are stepcg.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dev/cgroup2.h"
#include "job/backend.h"
#include "job/marker.h"
#include "job/stepcg.h"
#include "job/stepcg_int.h"
#include "slurmconv/jobcg.h"
#include "slurmconv/sluid.h"

/* Copies the n bytes at src into dst (size bytes) as a string. */
static int copy_part(char *dst, size_t size, const char *src, size_t n)
{
	if (n >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(dst, src, n);
	dst[n] = '\0';
	return 0;
}

/*
 * Finds the components "<job>/step_<s>" in the cgroup path (relative to
 * the root, as cgroup2_proc_path gives it), where <job> is job_<job_id>
 * or, when sluid is not 0, the SLUID's text, and writes the path up to and
 * with <job> into job_rel and "step_<s>" into step.  Returns 0, or -1 with
 * EINVAL (not such a path) or ENAMETOOLONG.
 */
static int parse_step(const char *path, uint32_t job_id, uint64_t sluid,
		      char *job_rel, size_t job_rel_size, char *step,
		      size_t step_size)
{
	for (const char *c = path; *c; ) {
		const char *next = strchrnul(c, '/'), *s, *s_end;

		if (jobcg_is_job(c, (size_t)(next - c), job_id, sluid) &&
		    *next == '/' && jobcg_is_step(next + 1)) {
			s = next + 1;
			s_end = strchrnul(s, '/');
			if (copy_part(job_rel, job_rel_size, path,
				      (size_t)(next - path)) < 0 ||
			    copy_part(step, step_size, s, (size_t)(s_end - s)) < 0)
				return -1;
			return 0;
		}
		c = *next ? next + 1 : next;
	}
	errno = EINVAL;
	return -1;
}

int stepcg_self_step(const struct jobct_node *node, uint32_t job_id,
		     uint64_t sluid, char *job_rel, size_t job_rel_size,
		     char *step, size_t step_size, struct report *rep)
{
	char self[PATH_MAX];

	if (node->ops->self_cgroup(self, sizeof(self)) < 0)
		return report_errno(rep, errno, "cannot read its own cgroup");
	if (parse_step(self, job_id, sluid, job_rel, job_rel_size, step,
		       step_size) < 0)
		return report_errno(rep, errno,
				    "its cgroup /%s is not a step of job %u in Slurm's cgroup/v2 tree (devns needs ProctrackType=proctrack/cgroup on this layout)",
				    self, job_id);
	return 0;
}

int stepcg_self_step_in(const struct jobct_node *node, const char *job_rel,
			char *step, size_t step_size, struct report *rep)
{
	char self[PATH_MAX];
	size_t len = strlen(job_rel);
	const char *s;

	if (node->ops->self_cgroup(self, sizeof(self)) < 0)
		return report_errno(rep, errno, "cannot read its own cgroup");
	s = self + len + 1;
	if (strncmp(self, job_rel, len) || self[len] != '/' ||
	    !jobcg_is_step(s)) {
		errno = EINVAL;
		return report_error(rep, "its cgroup /%s is not in the one its filter was set up for (/%s)",
				    self, job_rel);
	}
	if (copy_part(step, step_size, s, strcspn(s, "/")) < 0)
		return report_errno(rep, errno, "its cgroup /%s", self);
	return 0;
}

int stepcg_open_step(const struct jobct_node *node, const char *job_rel,
		     const char *step)
{
	char rel[PATH_MAX];
	int root_fd, fd, saved;

	if ((size_t)snprintf(rel, sizeof(rel), "%s/%s", job_rel, step) >=
	    sizeof(rel)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((root_fd = backend_open_root(node)) < 0)
		return -1;
	fd = node->ops->cg_open_at(root_fd, rel, false);
	saved = errno;
	close(root_fd);
	errno = saved;
	return fd;
}

int stepcg_job_prog(const struct jobct_node *node, const char *job_rel,
		    struct report *rep)
{
	int step_fd, prog_fd;

	if ((step_fd = stepcg_open_step(node, job_rel, JOBCG_EXTERN_STEP)) < 0)
		return report_errno(rep, errno,
				    "its extern step's cgroup /%s/" JOBCG_EXTERN_STEP " is gone",
				    job_rel);
	prog_fd = node->ops->prog_find(step_fd);
	close(step_fd);
	if (prog_fd < 0)
		return report_errno(rep, errno,
				    "its device filter is not on /%s/" JOBCG_EXTERN_STEP,
				    job_rel);
	return prog_fd;
}

bool stepcg_job_rel_valid(const char *job_rel, uint32_t job_id)
{
	const char *last = strrchr(job_rel, '/');

	/* A relative path ending in job_<id> or a SLUID (setup knew which). */
	last = last ? last + 1 : job_rel;
	return job_rel[0] != '/' && !strstr(job_rel, "..") &&
	       (jobcg_is_job(last, strlen(last), job_id, 0) ||
		sluid_is_form(last, strlen(last)));
}

int stepcg_marker_job_rel(const struct jobct_node *node, uint32_t job_id,
			  char *job_rel, size_t size)
{
	int found = marker_read(node, job_id, job_rel, size);

	if (found <= 0 || !strcmp(job_rel, MARKER_NO_FILTER))
		return found < 0 ? -1 : 0;
	if (!stepcg_job_rel_valid(job_rel, job_id)) {
		errno = EINVAL;
		return -1;
	}
	return 1;
}
