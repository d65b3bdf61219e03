/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jobct.c - one job's containment: namespace (ns/mntns) plus device
 * filter (the node's backend, backend.h), set up, joined and adopted
 * into.  Release is release.c's, restore restore.c's, the node nodeload.c's.
 * See jobct.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "conf/jobdir.h"
#include "dev/imexdev.h"
#include "job/backend.h"
#include "job/elapsed.h"
#include "job/jobct.h"
#include "job/marker.h"
#include "job/node.h"
#include "ns/dqguard.h"
#include "ns/dquota.h"
#include "ns/mntns.h"
#include "ns/nspool.h"
#include "ns/pidns.h"
#include "util/fdutil.h"

/* The node's memory in bytes: the plan's, else the kernel's count. */
static uint64_t node_memory(const struct jobct_plan *plan)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);

	if (plan->node_mem)
		return plan->node_mem;
	return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
}

/*
 * The private dirs of the node's settings for the job of plan, in dirs
 * (their Source expanded into paths[i], a mount point with %u, %j or %S
 * into points[i], a tmpfs's share of memory made bytes, which log is
 * told).  Returns the count, or -1 with rep.
 */
static int job_dirs(const struct jobct_plan *plan, struct mntns_dir *dirs,
		    char (*paths)[PATH_MAX], char (*points)[PATH_MAX],
		    struct report *rep, struct report *log)
{
	const struct nsconf *c = plan->node->conf;
	size_t n = 0;

	for (; c->dirs[n]; n++) {
		const struct nsconf_dir *nd = &c->dir_conf[n];
		struct mntns_dir *md = &dirs[n];

		if (n == NSCONF_MAX_DIRS) {
			errno = EINVAL;
			return report_error(rep, "too many private directories");
		}
		memset(md, 0, sizeof(*md));
		md->path = nd->path;
		md->tmpfs = nd->type == NSCONF_DIR_TMPFS;
		md->size = nd->size;
		if (md->tmpfs && nd->size_percent) {
			md->size = nsconf_dir_tmpfs_size(nd, plan->job_mem,
							 node_memory(plan));
			report_info(log, "%s: a tmpfs of %" PRIu64 " bytes, "
				    "%u%% of %s %" PRIu64 " bytes", nd->path,
				    md->size, nd->size_percent,
				    plan->job_mem ? "the job's memory"
						  : "the node's memory",
				    plan->job_mem ? plan->job_mem
						  : node_memory(plan));
		}
		md->options = nd->options;
		if (strchr(nd->path, '%')) {
			/* A per-user or per-job mount point. */
			if (nsconf_source_expand(nd->path, plan->job_id,
						 plan->sluid, plan->user_name,
						 plan->node->node_name,
						 points[n], PATH_MAX) < 0)
				return report_errno(rep, errno, "cannot expand "
						    "the mount point %s for "
						    "user %s (uid %u)",
						    nd->path,
						    plan->user_name
							? plan->user_name
							: "unknown",
						    (unsigned)plan->uid);
			md->path = points[n];
			md->backing = nd->path;
			nsconf_source_depths(nd->path, &md->point_fixed_depth,
					     &md->point_job_depth);
		}
		if (!nd->source)
			continue;
		if (nsconf_source_expand(nd->source, plan->job_id, plan->sluid,
					 plan->user_name,
					 plan->node->node_name, paths[n],
					 PATH_MAX) < 0)
			return report_errno(rep, errno, "cannot expand Source "
					    "%s of %s for user %s (uid %u) on "
					    "node %s", nd->source, nd->path,
					    plan->user_name ? plan->user_name
							    : "unknown",
					    (unsigned)plan->uid,
					    plan->node->node_name
						    ? plan->node->node_name
						    : "unknown");
		md->source = paths[n];
		nsconf_source_depths(nd->source, &md->fixed_depth,
				     &md->job_depth);
	}
	return (int)n;
}

/*
 * UserNamespace: made before the PID namespace, whose init holds it for
 * the logins pam_devns puts into the job (ns/pidns.h).
 */
static int create_user_namespace(const struct jobct_plan *plan,
				 struct report *rep)
{
	const struct nsconf *c = plan->node->conf;
	struct report why;

	if (!c->user_namespace)
		return 0;
	report_init(&why, NULL, NULL);
	if (plan->node->ops->userns_create(c->base_path, plan->job_id,
					   plan->uid, plan->gid,
					   plan->userns_map, plan->userns_arg,
					   &why) < 0)
		return report_error(rep, "cannot create its user namespace: %s",
				    why.msg);
	report_info(rep, "user namespace pinned at %s/%u/%s (%s)",
		    c->base_path, plan->job_id, JOBDIR_USERNS_PIN,
		    plan->userns_map ? "UserNsScript's maps" : "identity map");
	return 0;
}

static int create_pid_namespace(const struct jobct_plan *plan,
				struct report *rep)
{
	const struct nsconf *c = plan->node->conf;
	struct report why;
	pid_t init;

	if (!c->pid_namespace)
		return 0;
	report_init(&why, NULL, NULL);
	if (plan->node->ops->pidns_create(c->base_path, plan->job_id, &init,
					  &why) < 0)
		return report_error(rep, "cannot create its PID namespace: %s",
				    why.msg);
	report_info(rep, "PID namespace pinned at %s/%u/%s", c->base_path,
		    plan->job_id, JOBDIR_PIDNS_PIN);
	if (plan->track_init &&
	    plan->track_init(init, plan->track_arg, &why) < 0)
		return report_error(rep,
				    "cannot track its PID namespace's init (PID %d): %s",
				    (int)init, why.msg);
	return 0;
}

/*
 * What the namespace's making tells besides its error (a KeepPaths left
 * out), passed on to the job's report; the error itself comes back in
 * the caller's words.
 */
static void pass_notes(enum report_level level, const char *msg, void *arg)
{
	if (level == REPORT_WARNING)
		report_warning(arg, "%s", msg);
	else if (level == REPORT_INFO)
		report_info(arg, "%s", msg);
	else if (level == REPORT_NOTICE)
		report_notice(arg, "%s", msg);
}

/*
 * The job's /tmp limit (nsconf_job_disk_limit) into *limit, checked
 * against the size of BasePath's filesystem, and logged at the default
 * level (the admin's answer to "how much /tmp did this job get").  Returns
 * 0, or -1 with the reason in rep: the job does not run.
 */
static int job_disk_limit(const struct jobct_plan *plan, uint64_t *limit,
			  struct report *rep)
{
	const struct jobct_node *node = plan->node;
	struct statvfs fs;
	uint64_t fs_bytes = 0;
	char why[256];

	*limit = 0;
	if (!nsconf_disk_limited(node->conf))
		return 0;
	if (node->base_fd >= 0 && fstatvfs(node->base_fd, &fs) == 0)
		fs_bytes = (uint64_t)fs.f_blocks * fs.f_frsize;
	if (nsconf_job_disk_limit(node->conf, &plan->disk_ask, fs_bytes,
				  limit, why, sizeof(why)) < 0)
		return report_error(rep, "refusing the job: its /tmp limit: %s",
				    why);
	if (*limit)
		report_notice(rep, "/tmp limited to %" PRIu64 " bytes (%s)",
			    *limit, node->conf->tmp_disk_gres &&
			    plan->disk_ask.gres_bytes
			    ? node->conf->tmp_disk_gres
			    : node->conf->tmp_disk_request ? "--tmp"
							    : "TmpDiskLimit");
	return 0;
}

static int create_namespace(const struct jobct_plan *plan, struct report *rep)
{
	const struct nsconf *c = plan->node->conf;
	struct mntns_dir dirs[NSCONF_MAX_DIRS];
	/* the expanded Sources, then the expanded mount points */
	char (*paths)[PATH_MAX] = calloc(2 * NSCONF_MAX_DIRS, PATH_MAX);
	struct mntns_spec spec = {
		.base_path = c->base_path,
		.job_id = plan->job_id,
		.shared = c->shared,
		.dir_list = dirs,
		.uid = plan->uid,
		.gid = plan->gid,
		.inode_limit = c->tmp_inode_limit,
		.loop = c->tmp_backend == NSCONF_TMP_LOOP,
		.use_pool = c->namespace_pool > 0,
		.keep_paths = (const char *const *)c->keep_paths,
	};
	struct report why;
	int n, rc;

	report_init(&why, NULL, NULL);
	if (!paths)
		return report_errno(rep, errno, "cannot create its namespace");
	if (job_disk_limit(plan, &spec.disk_limit, rep) < 0) {
		free(paths);
		return -1;
	}
	if ((n = job_dirs(plan, dirs, paths, paths + NSCONF_MAX_DIRS, &why,
			  rep)) < 0) {
		free(paths);
		return report_error(rep, "cannot create its namespace: %s",
				    why.msg);
	}
	spec.dir_count = (size_t)n;
	report_init(&why, pass_notes, rep);
	spec.pool_fd = spec.use_pool ? nspool_claim(c->base_path) : -1;
	rc = plan->node->ops->ns_create(&spec, &why);
	fdutil_close(spec.pool_fd);
	free(paths);
	if (rc < 0)
		return report_error(rep, "cannot create its namespace: %s",
				    why.msg);
	report_info(rep, "namespace pinned at %s/%u/%s", c->base_path,
		    plan->job_id, JOBDIR_NS_PIN);
	if (create_user_namespace(plan, rep) < 0 ||
	    create_pid_namespace(plan, rep) < 0) {
		int saved = errno;

		plan->node->ops->ns_delete(c->base_path, plan->job_id);
		errno = saved;
		return -1;
	}
	return 0;
}

static void report_rules(const struct devrule_list *list, struct report *rep)
{
	char buf[64];

	for (size_t i = 0; i < list->count; i++) {
		devrule_format(&list->rules[i], buf, sizeof(buf));
		report_info(rep, "allows %s", buf);
	}
	report_info(rep, "everything else %s",
		    list->default_allow ? "allowed" : "denied");
}

/*
 * On the unified layout the filter sits on Slurm's step cgroups, whose
 * "slurm" leaf holds slurmstepd itself.  At the step's end slurmstepd
 * reopens /dev/null (io_close_all); refused, it abandons the step's output
 * only after 60 s.  So there a filter always lets /dev/null (c 1:3, the
 * same on every Linux) be read and written, whatever the policy names.
 */
static int allow_stepd_devices(const struct jobct_node *node,
			       struct devrule_list *list)
{
	if (node->layout != CGROUP2_UNIFIED || list->default_allow)
		return 0;
	if (devrule_list_add(list, 'c', 1, 3, false,
			     DEVRULE_R | DEVRULE_W) < 0)
		return -1;
	devrule_list_normalise(list);
	return 0;
}

/* The job's IMEX channel (dev/imexdev.h), as the switch made it. */
struct imex_grant {
	uint32_t major;		/* 0: the node has no IMEX channels */
	bool has_channel;
	uint32_t channel;
};

/*
 * The device rules of plan's job, its IMEX channel (NULL: none) given
 * the IMEX major alone.
 */
static int device_rules(const struct jobct_plan *plan,
			const struct imex_grant *imex,
			struct devrule_list *list, struct report *rep)
{
	const struct jobct_node *node = plan->node;
	bool imex_major = imex && imex->major;
	struct report why;

	/*
	 * none; or auto, no DeviceAllow, no GRES files and no IMEX channels
	 * to keep apart: nothing to contain
	 */
	if (devpolicy_never_filters(&node->policy) ||
	    (devpolicy_is_open(&node->policy) && !plan->node_devices &&
	     !imex_major)) {
		devrule_list_init(list, true);
		return 0;
	}
	report_init(&why, NULL, NULL);
	if (devpolicy_build(&node->policy, plan->node_devices,
			    plan->job_devices, list, &why) < 0)
		return report_error(rep, "its device policy cannot be computed: %s",
				    why.msg);
	if ((imex_major &&
	     imexdev_rules(list, imex->major, imex->has_channel,
			   imex->channel) < 0) ||
	    allow_stepd_devices(node, list) < 0) {
		int saved = errno;

		devrule_list_free(list);
		return report_errno(rep, saved, "its device policy cannot be computed");
	}
	return devrule_list_needs_filter(list) ? 1 : 0;
}

int jobct_device_rules(const struct jobct_plan *plan,
		       struct devrule_list *list, struct report *rep)
{
	return device_rules(plan, NULL, list, rep);
}

/*
 * switch/nvidia_imex: the job's channel made in its namespace by the
 * switch (plan->imex_make), read back into imex.  Fail closed: a node
 * whose switch makes channels but where the job has no namespace to
 * hold one, or whose channel cannot be made or read, refuses the job.
 */
static int make_imex_channel(const struct jobct_plan *plan,
			     struct imex_grant *imex, struct report *rep)
{
	const struct jobct_node *node = plan->node;
	const char *base = node->conf->base_path;
	struct report why;
	int rc;

	if (!plan->imex_make)
		return 0;
	report_init(&why, NULL, NULL);
	imex->major = plan->imex_major;
	if (!imex->major) {
		rc = imexdev_major(node->proc_devices, &imex->major, &why);
		if (rc < 0)
			return report_error(rep, "cannot find the IMEX channels' major: %s",
					    why.msg);
		if (rc == 0)
			return 0;	/* Slurm's switch is off on this node */
	}
	if (!base) {
		errno = EINVAL;
		return report_error(rep, "switch/nvidia_imex makes IMEX channels (c %u:*) in the job's namespace, which BasePath=none leaves it without",
				    (unsigned)imex->major);
	}
	rc = node->ops->imex_make(base, plan->job_id, imex->major,
				  plan->imex_make, plan->imex_arg,
				  &imex->channel, &why);
	if (rc < 0)
		return report_error(rep, "cannot make its IMEX channel: %s",
				    why.msg);
	imex->has_channel = rc == 1;
	if (imex->has_channel)
		report_info(rep, "IMEX channel %u (c %u:%u) in its namespace",
			    (unsigned)imex->channel, (unsigned)imex->major,
			    (unsigned)imex->channel);
	else
		report_info(rep, "no IMEX channel (c %u:* denied)",
			    (unsigned)imex->major);
	return 0;
}

/*
 * The job's filter, if its policy asks for one, and in every case its
 * record (job/marker.h), written last: join and adopt refuse a job
 * without one.
 */
static int contain_devices(const struct jobct_plan *plan,
			   const struct imex_grant *imex, struct report *rep)
{
	const struct jobct_node *node = plan->node;
	const struct jobct_run run = {
		.sluid = plan->sluid, .start_time = plan->start_time
	};
	struct devrule_list list;
	int rc;

	if ((rc = device_rules(plan, imex, &list, rep)) < 0)
		return -1;
	if (rc) {
		report_rules(&list, rep);
		rc = node->backend->apply(node, plan->job_id, &run, &list,
					  rep);
	} else {
		/* The record that setup is done, with no filter needed. */
		rc = marker_write(node, plan->job_id, &run, MARKER_NO_FILTER,
				  rep);
	}
	devrule_list_free(&list);
	return rc;
}

bool jobct_run_same(const struct jobct_run *a, const struct jobct_run *b)
{
	if (a->sluid && b->sluid && a->sluid != b->sluid)
		return false;
	return !a->start_time || !b->start_time ||
	       a->start_time == b->start_time;
}

/*
 * A setup record found before setup is an earlier run's (setup runs once
 * per run): its release could not finish.  It goes first, so that no
 * process of this run takes it for this run's while setup runs (join
 * refuses a job without a record).
 */
static int drop_stale_record(const struct jobct_plan *plan,
			     struct report *rep)
{
	struct jobct_run old;
	char text[PATH_MAX];
	int state = marker_state(plan->node, plan->job_id, text, sizeof(text),
				 &old);

	if (state == MARKER_ABSENT)
		return 0;
	if (state >= 0)
		report_warning(rep, "a setup record of an earlier run (SLUID %" PRIu64 ", started %" PRId64 ") was left: removing it",
			       old.sluid, old.start_time);
	if (marker_remove(plan->node, plan->job_id) < 0)
		return report_errno(rep, errno, "cannot remove an earlier run's setup record");
	return 0;
}

/*
 * A job directory found before setup is an earlier run's too (a release
 * that could not finish, or one restore has not reached yet): it goes
 * first, or this run's namespace could not be made in its place.
 */
static int drop_stale_namespace(const struct jobct_plan *plan,
				struct report *rep)
{
	const struct jobct_node *node = plan->node;
	char dir[PATH_MAX];
	struct stat st;

	if (jobct_job_path(node, plan->job_id, NULL, dir, sizeof(dir)) < 0)
		return report_errno(rep, errno, "BasePath");
	if (lstat(dir, &st) < 0)
		return errno == ENOENT ? 0 :
		       report_errno(rep, errno, "cannot look at %s", dir);
	report_warning(rep, "the directory of an earlier run (%s) was left: removing it",
		       dir);
	if (node->ops->ns_delete(node->conf->base_path, plan->job_id) < 0)
		return report_errno(rep, errno, "cannot remove an earlier run's namespace");
	return 0;
}

int jobct_setup(const struct jobct_plan *plan, struct report *rep)
{
	const struct nsconf *c = plan->node->conf;
	struct imex_grant imex = { 0 };
	struct timespec start, filter;
	double filter_ms, total_ms;
	int lock = -1, rc;

	report_info(rep, "setting up for uid %u gid %u", (unsigned)plan->uid,
		    (unsigned)plan->gid);
	/*
	 * Under the job's end lock: restore, working behind slurmd, may be
	 * removing what an earlier run of this job id left; it is done with
	 * that first, and once this run holds the lock it finds the job
	 * alive and keeps it.
	 */
	if (c->base_path && (lock = mntns_lock_job(c->base_path,
						   plan->job_id)) < 0)
		return report_errno(rep, errno, "cannot hold the job's end lock in %s",
				    c->base_path);
	clock_gettime(CLOCK_MONOTONIC, &start);
	rc = drop_stale_record(plan, rep);
	if (rc == 0 && c->base_path)
		rc = drop_stale_namespace(plan, rep);
	if (rc == 0 && c->base_path)
		rc = create_namespace(plan, rep);
	if (lock >= 0)
		mntns_unlock_job(c->base_path, plan->job_id, lock);
	if (rc < 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &filter);
	/* The filter leaves nothing when it fails: the namespace goes. */
	if (make_imex_channel(plan, &imex, rep) < 0 ||
	    contain_devices(plan, &imex, rep) < 0) {
		int saved = errno;

		if (c->base_path)
			plan->node->ops->ns_delete(c->base_path, plan->job_id);
		errno = saved;
		return -1;
	}
	filter_ms = elapsed_ms(&filter);
	total_ms = elapsed_ms(&start);
	report_info(rep, "set up in %.2f ms (namespace %.2f ms, device filter %.2f ms)",
		    total_ms, total_ms - filter_ms, filter_ms);
	return 0;
}

/*
 * A job with a PID namespace: its processes must live in it, or the job's
 * /proc would not show them.  The tasks are born inside (jobct_pidns_enter
 * in slurmstepd); one born outside goes on in a child forked inside.
 * Whether the job has one is what its setup made, not what namespace.conf
 * says now: a reconfigure does not change running jobs.  Checked while
 * /proc is the host's, before the mount namespace is joined.
 */
static int enter_pid_namespace(const struct jobct_node *node,
			       uint32_t job_id, struct report *rep)
{
	const char *base = node->conf->base_path;
	int inside;

	if (!base)
		return 0;
	inside = node->ops->pidns_contains_self(base, job_id);
	if (inside < 0 && errno == ENOENT)
		return 0;	/* the job has none */
	if (inside < 0)
		return report_errno(rep, errno,
				    "cannot tell whether it is in its PID namespace");
	if (!inside && node->ops->pidns_fork_inside(base, job_id) < 0)
		return report_errno(rep, errno,
				    "cannot start it in its PID namespace");
	return 0;
}

int jobct_pidns_enter(const char *base_path, uint32_t job_id,
		      struct report *rep)
{
	if (!base_path)
		return 0;
	if (pidns_enter_for_children(base_path, job_id) == 0)
		return 1;
	if (errno == ENOENT)
		return 0;	/* the job has none */
	return report_errno(rep, errno, "cannot enter its PID namespace");
}

int jobct_pidns_leave(struct report *rep)
{
	if (pidns_leave_for_children() < 0)
		return report_errno(rep, errno, "cannot leave its PID namespace");
	return 0;
}

/*
 * The job's record, read once: its state (job/marker.h) with the text in
 * buf, or -1 when the job has none or it cannot be read.  A job without
 * one was never set up here (no extern step ran: PrologFlags=Contain, or
 * Slurm launched a step without it), is still being set up or is being
 * released: its processes must not run, whatever its policy would say.
 */
static int job_record_of(const struct jobct_node *node, uint32_t job_id,
			 const struct jobct_run *run, char *buf, size_t size,
			 struct report *rep)
{
	struct jobct_run made;
	int state = marker_state(node, job_id, buf, size, &made);

	if (state < 0)
		return report_errno(rep, errno,
				    "cannot tell whether it has a device filter");
	if (state == MARKER_ABSENT) {
		errno = ENOENT;
		return report_error(rep, "it has no setup record: its extern step did not set it up (PrologFlags=Contain), or not yet, or it is being released");
	}
	if (run && !jobct_run_same(run, &made)) {
		errno = ESTALE;
		return report_error(rep, "its setup record is an earlier run's (SLUID %" PRIu64 ", started %" PRId64 "; this run: %" PRIu64 ", %" PRId64 "): this run is not set up yet",
				    made.sluid, made.start_time, run->sluid,
				    run->start_time);
	}
	return state;
}

static int job_record(const struct jobct_node *node, uint32_t job_id,
		      char *buf, size_t size, struct report *rep)
{
	return job_record_of(node, job_id, NULL, buf, size, rep);
}

/*
 * Whether a process of the job must be kept in the job's disk-limit
 * project: when its directory is in one, as its setup made it
 * (TmpDiskLimit then), not as namespace.conf says now.  After the admin
 * drops TmpDiskLimit and reconfigures, a new step of a job started before
 * still has its project, and without the guard could move its files out
 * of it or into another job's (issue 42).  Read while BasePath is in
 * sight (before the mount namespace hides it).  TmpDiskLimit set now
 * guards too, and so does a project that cannot be read: the guard only
 * refuses.  A job without a directory has nothing to keep.
 */
static bool needs_disk_guard(const struct jobct_node *node, uint32_t job_id)
{
	uint32_t projid = 0;

	if (!node->conf->base_path)
		return false;
	if (nsconf_disk_limited(node->conf))
		return true;
	if (node->ops->job_project(node->conf->base_path, job_id,
				   &projid) < 0)
		return errno != ENOENT;
	return projid != 0;
}

/*
 * Keeps the job's files in its project: the process goes under the filter
 * that refuses changing project ids and PROJINHERIT (ns/dqguard.h).
 */
static int guard_disk_limit(bool needed, struct report *rep)
{
	if (!needed)
		return 0;
	if (dqguard_install() < 0)
		return report_errno(rep, errno,
				    "cannot keep its files in its disk limit's project");
	return 0;
}

/*
 * A job process under the job's filter, refused without a setup record of
 * its run (run NULL: not known).
 */
static int join_filter(const struct jobct_node *node, uint32_t job_id,
		       const struct jobct_run *run, struct report *rep)
{
	char marked[PATH_MAX];
	int state;

	if ((state = job_record_of(node, job_id, run, marked, sizeof(marked),
				   rep)) < 0)
		return -1;
	if (state == MARKER_FILTERED &&
	    node->backend->join(node, job_id, marked, rep) < 0)
		return -1;
	return 0;
}

/*
 * The job's user namespace, opened while BasePath is in sight (before
 * the mount namespace hides it): *fd, or -1 when the job has none, which
 * is what its setup made, not what namespace.conf says now.
 */
static int open_user_namespace(const struct jobct_node *node,
			       uint32_t job_id, int *fd, struct report *rep)
{
	const char *base = node->conf->base_path;

	*fd = -1;
	if (!base)
		return 0;
	if ((*fd = node->ops->userns_open(base, job_id)) >= 0 ||
	    errno == ENOENT)
		return 0;
	return report_errno(rep, errno, "cannot open its user namespace");
}

/*
 * Last: in the user namespace the process has no capability on the
 * host's, and every step before needs them (cgroups, setns into the
 * mount namespace, the disk limit's filter).
 */
static int enter_user_namespace(const struct jobct_node *node, int fd,
				struct report *rep)
{
	if (fd < 0)
		return 0;
	if (node->ops->userns_enter(fd) < 0)
		return report_errno(rep, errno, "cannot enter its user namespace");
	return 0;
}

int jobct_join(const struct jobct_node *node, uint32_t job_id,
	       struct report *rep)
{
	return jobct_join_run(node, job_id, NULL, rep);
}

int jobct_join_run(const struct jobct_node *node, uint32_t job_id,
		   const struct jobct_run *run, struct report *rep)
{
	bool guard;
	int userns_fd;

	if (enter_pid_namespace(node, job_id, rep) < 0)
		return -1;
	guard = needs_disk_guard(node, job_id);
	if (open_user_namespace(node, job_id, &userns_fd, rep) < 0)
		return -1;
	if (join_filter(node, job_id, run, rep) < 0 ||
	    jobct_join_ns(node, job_id, rep) < 0 ||
	    guard_disk_limit(guard, rep) < 0) {
		fdutil_close(userns_fd);
		return -1;
	}
	return enter_user_namespace(node, userns_fd, rep);
}

int jobct_join_in_ns(const struct jobct_node *node, uint32_t job_id,
		     struct report *rep)
{
	if (node->conf->pid_namespace || nsconf_disk_limited(node->conf) ||
	    node->conf->user_namespace) {
		errno = EINVAL;
		return report_error(rep, "EntireStepInNS cannot go with "
				    "PidNamespace, UserNamespace or "
				    "TmpDiskLimit");
	}
	return join_filter(node, job_id, NULL, rep);
}

int jobct_join_ns(const struct jobct_node *node, uint32_t job_id,
		  struct report *rep)
{
	if (node->conf->base_path &&
	    node->ops->ns_join(node->base_fd, node->conf->base_path,
			       job_id) < 0)
		return report_errno(rep, errno, "cannot join its namespace");
	return 0;
}

/*
 * Whether what slurmd writes into the job's directory for the process it
 * forks as the user stays within the job's disk limit.  That process is
 * sbcast's file opener (srun --bcast's too): it opens the file as the
 * user and hands slurmd the fd, and slurmd writes every block itself, as
 * root.  On xfs the project's hard limit binds root as it binds the user;
 * ext4's quota code lets CAP_SYS_RESOURCE past it, so there sbcast could
 * fill BasePath's filesystem whatever TmpDiskLimit says (issue 42).  devns
 * cannot make slurmd write as the user (the writes are Slurm's, in
 * slurmd's own threads), nor see which path the opener will open: a job
 * with a limit that does not bind root gets no sbcast at all, refused with
 * EDQUOT, which sbcast prints as "Disk quota exceeded".  The limit is the
 * one the job's directory holds (as needs_disk_guard reads it), not
 * today's settings; one that cannot be read refuses.
 */
static int slurmd_writes_bounded(const struct jobct_node *node,
				 uint32_t job_id, struct report *rep)
{
	struct dquota_job_limit l;

	if (!node->conf->base_path)
		return 0;
	if (node->ops->job_limit(node->conf->base_path, job_id, &l) < 0)
		return report_errno(rep, errno, "refusing sbcast into the job: cannot read its disk limit");
	if (l.projid == 0 || dquota_limits_root(l.fs_type))
		return 0;
	errno = EDQUOT;
	return report_error(rep, "refusing sbcast into the job: its disk limit (TmpDiskLimit, project %" PRIu32 ", %" PRIu64 " bytes) is on %s, where slurmd's writes, made as root, would pass it; for sbcast into jobs with TmpDiskLimit put BasePath on xfs (-o prjquota), or drop TmpDiskLimit",
			    l.projid, l.bytes, l.fs);
}

int jobct_join_from_slurmd(const struct jobct_node *node, uint32_t job_id,
			   struct report *rep)
{
	char marked[PATH_MAX];
	int state;

	if ((state = job_record(node, job_id, marked, sizeof(marked), rep)) < 0)
		return -1;
	if (slurmd_writes_bounded(node, job_id, rep) < 0)
		return -1;
	if (state == MARKER_FILTERED &&
	    node->backend->join_from_slurmd(node, job_id, marked, rep) < 0)
		return -1;
	return jobct_join_ns(node, job_id, rep);
}

int jobct_adopt(const struct jobct_node *node, uint32_t job_id,
		bool kill_uncontained, struct report *rep)
{
	char marked[PATH_MAX];
	int state = job_record(node, job_id, marked, sizeof(marked), rep);

	if (state < 0)
		return -1;
	if (state == MARKER_UNFILTERED)
		return 0;
	return node->backend->adopt(node, job_id, marked, kill_uncontained,
				    rep);
}

int jobct_job_path(const struct jobct_node *node, uint32_t job_id,
		   const char *name, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!node->conf->base_path)
		return 0;
	if (jobdir_path(buf, len, node->conf->base_path, job_id, name) < 0)
		return -1;
	return 1;
}

bool jobct_ns_exists(const struct jobct_node *node, uint32_t job_id)
{
	return node->conf->base_path &&
	       mntns_exists(node->conf->base_path, job_id);
}

int jobct_end_lock(const struct jobct_node *node, uint32_t job_id)
{
	if (!node->conf->base_path)
		return -1;
	return mntns_lock_job(node->conf->base_path, job_id);
}

void jobct_end_unlock(const struct jobct_node *node, uint32_t job_id, int fd)
{
	if (node->conf->base_path)
		mntns_unlock_job(node->conf->base_path, job_id, fd);
}

int jobct_ns_open(const struct jobct_node *node, uint32_t job_id, int *fd,
		  struct report *rep)
{
	char marked[PATH_MAX];

	*fd = -1;
	/* No namespace for a job whose setup has not finished. */
	if (job_record(node, job_id, marked, sizeof(marked), rep) < 0)
		return -1;
	if (!node->conf->base_path)
		return 0;
	if ((*fd = mntns_open_at(node->base_fd, node->conf->base_path,
				 job_id)) < 0)
		return report_errno(rep, errno, "cannot open its namespace");
	return 1;
}

int jobct_adopt_userns_open(const struct jobct_node *node, uint32_t job_id,
			    int *fd, struct report *rep)
{
	const char *base = node->conf->base_path;

	*fd = -1;
	if (!base || pidns_exists(base, job_id))
		return 0;
	if ((*fd = node->ops->userns_open(base, job_id)) >= 0)
		return 1;
	if (errno == ENOENT)
		return 0;
	return report_errno(rep, errno, "cannot open its user namespace");
}

/* ---- the job's user ------------------------------------------------------ */

char *jobct_user_name(uid_t uid, struct report *rep)
{
	struct passwd pw, *res = NULL;
	long size = sysconf(_SC_GETPW_R_SIZE_MAX);
	char *buf, *name = NULL;
	int rc;

	if (size <= 0)
		size = 16384;
	for (;;) {
		if (!(buf = malloc((size_t)size)))
			return NULL;
		rc = getpwuid_r(uid, &pw, buf, (size_t)size, &res);
		if (rc != ERANGE || size > (1 << 20))
			break;
		free(buf);
		size *= 2;
	}
	if (!rc && res)
		name = strdup(pw.pw_name);
	else
		report_error(rep, "no user name for uid %u: %s", (unsigned)uid,
			     rc ? strerror(rc) : "not found");
	free(buf);
	return name;
}
