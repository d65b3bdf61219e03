/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stepcg.c - the job's device filter on Slurm's own step cgroups (the
 * unified layout): the backend's verbs.  Where the job and its steps are
 * is stepcg_find.c.  See stepcg.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>

#include "dev/cgroup2.h"
#include "dev/devprog.h"
#include "job/backend.h"
#include "job/denied.h"
#include "job/marker.h"
#include "job/stepcg.h"
#include "job/stepcg_int.h"
#include "slurmconv/jobcg.h"

/* Where a step's tasks and adopted logins are: Slurm's "user" cgroup. */
#define STEP_TASKS JOBCG_TASKS_LEAF

/* The cgroups of a step that hold processes, for each_cgroup. */
static const char *const step_leaves[] = { JOBCG_TASKS_LEAF,
					    JOBCG_STEPD_LEAF };
#define N_LEAVES (sizeof(step_leaves) / sizeof(step_leaves[0]))

/* How long release waits for killed job processes to exit. */
#define KILL_WAIT_MS 2000

/* Detaches every program of ours from the cgroup; 0 or -1. */
static int detach_leaf(int leaf_fd)
{
	int prog_fd;

	while ((prog_fd = devprog_find_attached(leaf_fd)) >= 0) {
		int rc = devprog_detach(prog_fd, leaf_fd), saved = errno;

		close(prog_fd);
		if (rc < 0) {
			errno = saved;
			return -1;
		}
	}
	return errno == ENOENT ? 0 : -1;
}

/*
 * Attaches the job's program prog_fd to the step's cgroup unless it is
 * there.  A program of ours that is not prog_fd's is another run's: an
 * earlier job of the same id whose release could not detach it (EBUSY: a
 * process of it would not die) left it, and it gives that run's devices
 * (issue 42).  It is detached first, so the step runs under this run's
 * filter only.  Tasks of a step join at once: one that loses the race
 * finds the stale program gone (ENOENT) or the same program attached
 * (EEXIST), which is what it wanted.
 */
static int attach_step(const struct jobct_node *node, int step_fd,
		       const char *step, int prog_fd, struct report *rep)
{
	int found, rc;

	while ((found = devprog_find_other(step_fd, prog_fd)) >= 0) {
		rc = devprog_detach(found, step_fd);
		if (rc < 0 && errno != ENOENT) {
			report_errno(rep, errno, "cannot detach another run's device filter from %s",
				     step);
			close(found);
			return -1;
		}
		close(found);
		report_warning(rep, "detached another run's device filter from %s",
			       step);
	}
	if (errno != ENOENT)
		return report_errno(rep, errno,
				    "cannot look for device filters on %s",
				    step);
	if ((found = node->ops->prog_find(step_fd)) >= 0) {
		close(found);
		return 0;
	}
	rc = errno == ENOENT ? node->ops->prog_attach(prog_fd, step_fd) : -1;
	if (rc < 0 && errno != EEXIST)
		return report_errno(rep, errno,
				    "cannot attach the device filter to %s",
				    step);
	return 0;
}

/*
 * In the extern slurmstepd: load the filter of list and attach it to the
 * extern step's cgroups, then leave the marker.  On failure nothing is
 * left attached.
 */
static int apply(const struct jobct_node *node, uint32_t job_id,
		 const struct jobct_run *run, const struct devrule_list *list,
		 struct report *rep)
{
	char job_rel[PATH_MAX], step[NAME_MAX + 1];
	int step_fd, prog_fd = -1, saved;

	if (stepcg_self_step(node, job_id, run->sluid, job_rel, sizeof(job_rel),
			     step, sizeof(step), rep) < 0)
		return -1;
	if (strcmp(step, JOBCG_EXTERN_STEP)) {
		errno = EINVAL;
		return report_error(rep, "set up from /%s/%s, not from the extern step (PrologFlags=Contain)",
				    job_rel, step);
	}
	if ((step_fd = stepcg_open_step(node, job_rel, step)) < 0)
		return report_errno(rep, errno, "cannot open its cgroup /%s/%s",
				    job_rel, step);
	/*
	 * A program of ours already here is not this job's (setup runs once
	 * per job): an earlier job of the same id left it.  Only the one made
	 * now may be found by the job's other steps.
	 */
	if (detach_leaf(step_fd) < 0) {
		report_errno(rep, errno, "cannot detach a stale device filter from /%s/%s",
			     job_rel, step);
		close(step_fd);
		return -1;
	}
	if ((prog_fd = backend_prog_create(node, list, rep)) < 0 ||
	    attach_step(node, step_fd, step, prog_fd, rep) < 0 ||
	    marker_write(node, job_id, run, job_rel, rep) < 0)
		goto error;
	report_info(rep, "device filter attached to /%s/%s", job_rel, step);
	denied_hold(job_id, prog_fd);
	close(prog_fd);
	close(step_fd);
	return 0;
error:
	saved = errno;
	(void)detach_leaf(step_fd);
	if (prog_fd >= 0)
		close(prog_fd);
	close(step_fd);
	errno = saved;
	return -1;
}

/*
 * In a process of the job, before it runs anything of the user's: make
 * sure the job's filter is attached to the cgroups of the step the process
 * is in, attaching the extern step's program where it is missing.  marked
 * is the job's cgroup its marker names.  Takes no lock: the step's tasks
 * may attach at once, and the kernel refuses the same program twice on a
 * cgroup (EEXIST), which is success here.
 */
static int join(const struct jobct_node *node, uint32_t job_id,
		const char *marked, struct report *rep)
{
	char step[NAME_MAX + 1];
	int step_fd, prog_fd, rc;

	(void)job_id;	/* the process's own cgroup must be in marked */
	if (stepcg_self_step_in(node, marked, step, sizeof(step), rep) < 0)
		return -1;
	if ((prog_fd = stepcg_job_prog(node, marked, rep)) < 0)
		return -1;
	if ((step_fd = stepcg_open_step(node, marked, step)) < 0) {
		close(prog_fd);
		return report_errno(rep, errno, "cannot open its cgroup /%s/%s",
				    marked, step);
	}
	rc = attach_step(node, step_fd, step, prog_fd, rep);
	close(step_fd);
	close(prog_fd);
	return rc;
}

/*
 * For a process slurmd forks as the job's user outside every step
 * (sbcast's): move it into the extern step's "slurm" cgroup (a leaf,
 * below the job's filter).
 */
static int enter_extern(const struct jobct_node *node, uint32_t job_id,
			const char *job_rel, struct report *rep)
{
	int fd, rc;

	if (!stepcg_job_rel_valid(job_rel, job_id))
		return report_errno(rep, EINVAL, "its filter marker is unreadable or gone");
	if ((fd = stepcg_open_step(node, job_rel, JOBCG_EXTERN_STEP "/" JOBCG_STEPD_LEAF)) < 0)
		return report_errno(rep, errno,
				    "cannot open /%s/" JOBCG_EXTERN_STEP "/" JOBCG_STEPD_LEAF, job_rel);
	rc = node->ops->cg_move_pid(fd, 0);
	if (rc < 0)
		report_errno(rep, errno,
			     "cannot enter /%s/" JOBCG_EXTERN_STEP "/" JOBCG_STEPD_LEAF, job_rel);
	close(fd);
	return rc;
}

/*
 * For pam_slurm_adopt, in the extern slurmstepd: the adopted processes
 * are in the extern step's "user" cgroup, so its filter must be on the
 * extern step.  Nothing is killed: Slurm's cgroups hold them, and those
 * carry the filter.
 */
static int adopt(const struct jobct_node *node, uint32_t job_id,
		 const char *job_rel, bool kill_uncontained,
		 struct report *rep)
{
	int prog_fd;

	(void)kill_uncontained;
	if (!stepcg_job_rel_valid(job_rel, job_id))
		return report_errno(rep, EINVAL, "its filter marker is unreadable");
	if ((prog_fd = stepcg_job_prog(node, job_rel, rep)) < 0)
		return -1;
	close(prog_fd);
	return 0;
}

/*
 * Waits until the cgroup holds no process; 0, or -1 (EBUSY).  Slurm
 * removes a step's cgroups once its tasks are gone, maybe between two
 * looks: a cgroup that vanished (ENOENT) is empty too.
 */
static int wait_empty(int cg_fd)
{
	for (int waited = 0; waited < KILL_WAIT_MS; waited += 10) {
		int populated = cgroup2_populated(cg_fd);

		if (populated == 0 || (populated < 0 && errno == ENOENT))
			return 0;
		if (populated < 0)
			return -1;
		usleep(10000);
	}
	errno = EBUSY;
	return -1;
}

/*
 * The job is over: its tasks die, then the filter comes off the step.
 * slurmstepd may still sit in the step's "slurm" cgroup (the extern stepd
 * calling release does): it is Slurm's, root's, and no job process.
 */
static int release_step(const struct jobct_node *node, int step_fd)
{
	int tasks_fd = node->ops->cg_open_at(step_fd, STEP_TASKS, false);
	int rc = 0;

	if (tasks_fd >= 0) {
		if (cgroup2_populated(tasks_fd) == 1) {
			(void)cgroup2_kill(tasks_fd);
			rc = wait_empty(tasks_fd);
		}
		close(tasks_fd);
	}
	/* A job process that would not die keeps its filter. */
	if (rc == 0 && detach_leaf(step_fd) < 0)
		rc = -1;
	return rc;
}

/*
 * Job end or restore: kill what is left in the steps' "user" cgroups,
 * detach the filter from every step whose tasks are gone, remove the
 * marker.  EBUSY: a job process would not die, so its filter stays and
 * so does the marker.
 */
static int release(const struct jobct_node *node, uint32_t job_id)
{
	char job_rel[PATH_MAX];
	int root_fd, job_fd, found, rc = 0, saved;
	struct dirent *ep;
	DIR *dp;

	found = stepcg_marker_job_rel(node, job_id, job_rel, sizeof(job_rel));
	/*
	 * A record that names no cgroup of this job: empty (its stepd was
	 * killed between creating and writing it) or not ours.  The job is
	 * over, and the record can lead release to nothing to detach, so it
	 * goes, as on the hybrid layout (where release never reads it): kept,
	 * every restart would fail on it again.  A filter it should have
	 * named stays on a cgroup of Slurm's, where it only denies, and goes
	 * with that cgroup.  A record that cannot be read at all (EIO) stays.
	 */
	if (found < 0 && errno == EINVAL)
		return marker_remove(node, job_id);
	if (found < 0)
		return -1;
	if (!found)	/* no filter: only its record */
		return marker_remove(node, job_id);
	if ((root_fd = backend_open_root(node)) < 0)
		return -1;
	job_fd = node->ops->cg_open_at(root_fd, job_rel, false);
	close(root_fd);
	/*
	 * Slurm removed it, and our programs with it.  Where it is left (a
	 * SIGKILLed stepd never runs cgroup/v2's step_destroy, and nothing of
	 * Slurm's removes it later), its cgroups stay Slurm's: release only
	 * empties the steps' "user" cgroups and takes its filter off them.
	 */
	if (job_fd < 0)
		return errno == ENOENT ? marker_remove(node, job_id) : -1;
	if (!(dp = fdopendir(job_fd))) {
		saved = errno;
		close(job_fd);
		errno = saved;
		return -1;
	}
	while ((ep = readdir(dp))) {
		int step_fd;

		if (!jobcg_is_step(ep->d_name) ||
		    (step_fd = node->ops->cg_open_at(dirfd(dp), ep->d_name,
						     false)) < 0)
			continue;
		if (release_step(node, step_fd) < 0)
			rc = -1;
		close(step_fd);
	}
	closedir(dp);
	if (rc < 0) {
		errno = EBUSY;
		return -1;
	}
	return marker_remove(node, job_id);
}

/*
 * Can the filter be attached below slurmd's own cgroup?  The kernel must
 * load it, and no cgroup on the way down may hold a device program
 * attached without BPF_F_ALLOW_MULTI or BPF_F_ALLOW_OVERRIDE (nothing
 * below such a one can attach).
 */
static int check_attachable(const struct jobct_node *node, struct report *rep)
{
	char self[PATH_MAX], name[NAME_MAX + 1];
	size_t done = 0;	/* the part of self opened so far */
	int fd;

	if (devprog_probe() < 0)
		return report_errno(rep, errno,
				    "the kernel does not load the device filter");
	if (node->ops->self_cgroup(self, sizeof(self)) < 0)
		return report_errno(rep, errno, "cannot read slurmd's cgroup");
	if ((fd = backend_open_root(node)) < 0)
		return report_errno(rep, errno, "cannot open the cgroup2 mount");
	for (;;) {
		const char *start = self + done + (self[done] == '/'), *end;
		uint32_t flags, count;
		int child;

		if (devprog_query(fd, &flags, &count) < 0) {
			report_errno(rep, errno,
				     "cannot query the device programs on /%.*s",
				     (int)done, self);
			break;
		}
		if (count &&
		    !(flags & (BPF_F_ALLOW_MULTI | BPF_F_ALLOW_OVERRIDE))) {
			errno = EPERM;
			report_error(rep, "a device program is attached to /%.*s without BPF_F_ALLOW_MULTI or BPF_F_ALLOW_OVERRIDE, so no filter can be attached below it",
				     (int)done, self);
			break;
		}
		if (!*start) {
			close(fd);
			return 0;
		}
		end = strchrnul(start, '/');
		snprintf(name, sizeof(name), "%.*s", (int)(end - start), start);
		child = node->ops->cg_open_at(fd, name, false);
		close(fd);
		if ((fd = child) < 0)
			return report_errno(rep, errno, "cannot open /%.*s",
					    (int)(end - self), self);
		done = (size_t)(end - self);
	}
	close(fd);
	return -1;
}

/* The step cgroups the walk of each_cgroup has reached. */
struct step_walk {
	const struct jobct_node *node;
	int (*fn)(const char *path, int cg_fd, void *arg);
	void *arg;
	char job_path[PATH_MAX];	/* <cgroup2>/<job_rel> */
};

/* fn for the step's cgroup (its filter) and each of its leaves. */
static int visit_step(struct step_walk *w, int job_fd, const char *step)
{
	char rel[NAME_MAX + 16], path[PATH_MAX + NAME_MAX + 16];
	int rc = 0;

	for (size_t i = 0; i <= N_LEAVES; i++) {
		int fd;

		if (i == 0)
			snprintf(rel, sizeof(rel), "%s", step);
		else
			snprintf(rel, sizeof(rel), "%s/%s", step,
				 step_leaves[i - 1]);
		if ((fd = w->node->ops->cg_open_at(job_fd, rel, false)) < 0) {
			if (errno != ENOENT)
				rc = -1;
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", w->job_path, rel);
		if (w->fn(path, fd, w->arg) < 0)
			rc = -1;
		close(fd);
	}
	return rc;
}

/*
 * fn for each step's cgroup (where the filter is) and its "user" and
 * "slurm" cgroups (where the processes are), found from the marker.
 */
static int each_cgroup(const struct jobct_node *node, uint32_t job_id,
		       int (*fn)(const char *path, int cg_fd, void *arg),
		       void *arg)
{
	struct step_walk w = { .node = node, .fn = fn, .arg = arg };
	char job_rel[PATH_MAX], root[PATH_MAX];
	struct dirent *ep;
	int found, root_fd, job_fd, rc = 0;
	DIR *dp;

	if ((found = stepcg_marker_job_rel(node, job_id, job_rel,
					   sizeof(job_rel))) <= 0)
		return found;	/* no filter, or -1 */
	if (backend_root_path(node, root, sizeof(root)) < 0)
		return -1;
	if ((size_t)snprintf(w.job_path, sizeof(w.job_path), "%s/%s", root,
			     job_rel) >= sizeof(w.job_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((root_fd = backend_open_root(node)) < 0)
		return -1;
	job_fd = node->ops->cg_open_at(root_fd, job_rel, false);
	close(root_fd);
	if (job_fd < 0)
		return errno != ENOENT ? -1 : 0;
	if (!(dp = fdopendir(job_fd))) {
		close(job_fd);
		return -1;
	}
	while ((ep = readdir(dp)))
		if (jobcg_is_step(ep->d_name) &&
		    visit_step(&w, dirfd(dp), ep->d_name) < 0)
			rc = -1;
	closedir(dp);
	return rc;
}

/*
 * Slurm's cgroup/v2 owns the job cgroups: the filter goes onto its step
 * cgroups, which needs proctrack/cgroup and a filter attachable there.
 */
static int check(const struct jobct_node *node, bool step_cgroups,
		 const char *asks, struct report *rep)
{
	struct report why;

	if (!step_cgroups) {
		errno = ENOTSUP;
		return report_error(rep, "%s ask for device containment, which on the %s layout devns attaches to Slurm's step cgroups: set ProctrackType=proctrack/cgroup (refusing to start rather than run jobs unfiltered)",
				    asks, cgroup2_layout_describe(node->layout));
	}
	report_init(&why, NULL, NULL);
	if (check_attachable(node, &why) < 0)
		return report_error(rep, "%s ask for device containment, which cannot be given on the %s layout: %s",
				    asks, cgroup2_layout_describe(node->layout),
				    why.msg);
	return 0;
}

const struct jobct_backend stepcg_backend = {
	.place = "Slurm-managed cgroup v2, device filters attached to Slurm's step cgroups",
	.check = check,
	.apply = apply,
	.join = join,
	.join_from_slurmd = enter_extern,
	.adopt = adopt,
	.release = release,
	.each_cgroup = each_cgroup,
	/* the cgroups are Slurm's: restore finds the jobs by their markers */
	.each_job = backend_each_job_none,
	.job_cgroup = backend_job_cgroup_none,
};
