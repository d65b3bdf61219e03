/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jobct.c - a job's containment lifecycle: namespace (ns/mntns) plus
 * device filter (devcg.c), set up, joined, adopted into, released and
 * restored.  See jobct.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "dev/cgroup2.h"
#include "dev/devprog.h"
#include "job/denied.h"
#include "job/devcg.h"
#include "job/jobct.h"
#include "job/marker.h"
#include "job/stepcg.h"
#include "ns/dqguard.h"
#include "ns/dquota.h"
#include "ns/jobdir.h"
#include "ns/nscheck.h"
#include "ns/nspool.h"
#include "ns/nsreap.h"
#include "ns/pidns.h"
#include "ns/pidns_fork.h"
#include "util/fdmount.h"
#include "util/fdutil.h"
#include "util/plugstack.h"
#include "util/safepath.h"

/* How long release waits for the caller's effective uid 0 to come back. */
#define RELEASE_RETRY_MS 5000

static int real_marker_create(const char *path)
{
	return open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
}

static int real_marker_stat(const char *path, struct stat *st)
{
	return fstatat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}

static int real_self_cgroup(char *buf, size_t size)
{
	return cgroup2_proc_path(NULL, buf, size);
}

const struct jobct_ops jobct_real_ops = {
	.ns_create = mntns_create,
	.ns_join = mntns_join,
	.ns_delete = mntns_delete,
	.ns_delete_behind = nsreap_delete,
	.pidns_create = pidns_create,
	.pidns_contains_self = pidns_contains_self,
	.pidns_fork_inside = pidns_fork_inside,
	.cg_open_at = cgroup2_open_at,
	.cg_move_pid = cgroup2_move_pid,
	.cg_remove = cgroup2_remove,
	.prog_create = devprog_create,
	.prog_attach = devprog_attach,
	.prog_find = devprog_find_attached,
	.self_cgroup = real_self_cgroup,
	.marker_create = real_marker_create,
	.marker_stat = real_marker_stat,
	.extern_pids = devcg_extern_pids_v1,
};

/* ---- the node ---------------------------------------------------------- */

void jobct_node_free(struct jobct_node *node)
{
	if (!node)
		return;
	free(node->node_name);
	free(node->spool_dir);
	free(node->cgroup_root);
	free(node->dev_dir);
	nsconf_free(node->conf);
	devpolicy_free(&node->policy);
	free(node);
}

static int strdup_opt(char **dst, const char *src)
{
	*dst = NULL;
	if (src && !(*dst = strdup(src)))
		return -1;
	return 0;
}

/*
 * BasePath holds root's job directories: like sshd's StrictModes, every
 * component must be root's and no symlink, and none writable by others
 * except a sticky ancestor such as /var/tmp (util/safepath.h).  What
 * AutoBasePath would make must not go in a directory others may write
 * to, sticky or not: a user could make it first.
 */
static int prepare_base_path(const struct nsconf *c,
			     const struct jobct_node_args *args,
			     struct report *rep)
{
	struct report why;
	int rc;

	if (!c->base_path)
		return 0;
	report_init(&why, NULL, NULL);
	if (args->check_only && c->auto_base_path) {
		rc = safepath_check_makeable(c->base_path, &why);
		if (rc == 0)
			report_warning(rep, "BasePath %s does not exist yet: slurmd creates it at start (AutoBasePath=yes)",
				       c->base_path);
	} else if (args->make_base_path && !args->check_only &&
		   c->auto_base_path) {
		rc = safepath_make_private(c->base_path, 0755, &why);
	} else {
		rc = safepath_check_private(c->base_path, &why);
	}
	if (rc < 0)
		report_error(rep, "%s:%d: BasePath %s cannot hold job directories: %s",
			     c->file ? c->file : "namespace.conf",
			     c->lines.base_path, c->base_path, why.msg);
	return rc < 0 ? -1 : 0;
}

/*
 * TmpDiskLimit needs project quotas that BasePath's filesystem enforces:
 * without them every job would run unlimited while the admin believes
 * otherwise, so slurmd refuses to start.  A BasePath that devns check
 * finds missing (AutoBasePath=yes) cannot be probed yet: a warning.
 */
static int check_disk_limit(const struct nsconf *c,
			    const struct jobct_node_args *args,
			    struct report *rep)
{
	struct report why;
	int fd, rc;

	if (!c->tmp_disk_limit || !c->base_path)
		return 0;
	if ((fd = safepath_open(c->base_path)) < 0) {
		if (args->check_only && errno == ENOENT) {
			report_warning(rep, "TmpDiskLimit=%" PRIu64 " bytes: BasePath %s does not exist yet, so whether its filesystem enforces project quotas is not known",
				       c->tmp_disk_limit, c->base_path);
			return 0;
		}
		return report_errno(rep, errno, "TmpDiskLimit: opening BasePath %s",
				    c->base_path);
	}
	report_init(&why, NULL, NULL);
	rc = dquota_probe(fd, c->base_path, &why);
	close(fd);
	if (rc < 0)
		return report_error(rep, "TmpDiskLimit=%" PRIu64 " bytes cannot be enforced on BasePath: %s",
				    c->tmp_disk_limit, why.msg);
	report_info(rep, "TmpDiskLimit=%" PRIu64 " bytes: BasePath %s enforces project quotas",
		    c->tmp_disk_limit, c->base_path);
	return 0;
}

/*
 * Job directories are mounted through file descriptors (util/fdmount):
 * the new mount API, complete from Linux 5.12.  An older kernel would
 * start slurmd and then fail every job, held: slurmd refuses to start
 * instead, naming the kernel and the call.  BasePath=none mounts nothing.
 */
int jobct_kernel_check(const struct jobct_node *node, struct report *rep)
{
	struct utsname u;
	const char *call;

	if (!node->conf->base_path || !(call = fdmount_missing_call()))
		return 0;
	if (uname(&u) < 0)
		snprintf(u.release, sizeof(u.release), "(unknown)");
	errno = ENOSYS;
	return report_error(rep, "this kernel (Linux %s) has no %s(2): devns mounts job directories with the new mount API, complete from Linux 5.12 (refusing to start rather than fail every job; BasePath=none keeps device containment alone)",
			    u.release, call);
}

/*
 * What fails every job although the file parses (ns/nscheck.h): a
 * missing InitScript refuses the node, a missing Source= part is a
 * warning.  devns check (check_only) makes these checks itself, strictly.
 */
static int check_node(const struct nsconf *c,
		      const struct jobct_node_args *args, struct report *rep)
{
	struct nscheck_args check = { .proc_devices = args->proc_devices };

	return args->check_only ? 0 : nscheck_run(c, &check, rep);
}

/*
 * The node's DeviceAllow lines resolved, each entry's messages starting
 * with the "FILE:LINE" of its line.
 */
static int load_policy(struct jobct_node *node, const char *proc_devices,
		       struct report *rep)
{
	const struct nsconf *c = node->conf;
	struct devpolicy_allow *lines = NULL;
	char (*where)[PATH_MAX + 16] = NULL;
	size_t n = c->allow_count;
	int rc = -1;

	if (n && (!(lines = calloc(n, sizeof(*lines))) ||
		  !(where = calloc(n, sizeof(*where))))) {
		report_errno(rep, ENOMEM, "loading namespace.conf");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		snprintf(where[i], sizeof(where[i]), "%s:%d",
			 c->file ? c->file : "namespace.conf",
			 c->allow[i].line);
		lines[i].value = c->allow[i].value;
		lines[i].where = where[i];
	}
	rc = devpolicy_load_lines(&node->policy, c->device_policy, lines, n,
				  proc_devices, rep);
out:
	free(lines);
	free(where);
	return rc;
}

/*
 * The layout, and the cgroup2 mount unless the caller named one: found
 * once, here, so that no later call reads mountinfo again.
 */
static int probe_cgroups(struct jobct_node *node, const char *mountinfo,
			 struct report *rep)
{
	char mount[PATH_MAX];

	if (cgroup2_probe(mountinfo, &node->layout, mount, sizeof(mount)) < 0)
		return report_errno(rep, errno, "reading the cgroup layout");
	if (node->cgroup_root || !mount[0])
		return 0;
	if (!(node->cgroup_root = strdup(mount)))
		return report_errno(rep, ENOMEM, "loading namespace.conf");
	return 0;
}

struct jobct_node *jobct_node_load(const struct jobct_node_args *args,
				   struct report *rep)
{
	struct jobct_node *node = calloc(1, sizeof(*node));
	int saved;

	if (!node) {
		report_errno(rep, ENOMEM, "loading namespace.conf");
		return NULL;
	}
	devrule_list_init(&node->policy.base, false);
	node->ops = args->ops ? args->ops : &jobct_real_ops;
	if (strdup_opt(&node->node_name, args->node_name) < 0 ||
	    strdup_opt(&node->spool_dir, args->spool_dir) < 0 ||
	    strdup_opt(&node->cgroup_root, args->cgroup_root) < 0 ||
	    strdup_opt(&node->dev_dir, args->dev_dir) < 0) {
		report_errno(rep, ENOMEM, "loading namespace.conf");
		goto error;
	}
	if (!node->node_name || !node->spool_dir) {
		report_errno(rep, EINVAL, "no node name or spool directory");
		goto error;
	}
	if (probe_cgroups(node, args->mountinfo, rep) < 0)
		goto error;
	node->conf = args->conf_text
		     ? nsconf_load_text(args->conf_text, args->conf_path,
					args->node_name, args->host_name, rep)
		     : nsconf_load_host(args->conf_path, args->node_name,
					args->host_name, rep);
	if (!node->conf)
		goto error;
	if (load_policy(node, args->proc_devices, rep) < 0 ||
	    prepare_base_path(node->conf, args, rep) < 0 ||
	    check_disk_limit(node->conf, args, rep) < 0 ||
	    check_node(node->conf, args, rep) < 0)
		goto error;
	return node;
error:
	saved = errno;
	jobct_node_free(node);
	errno = saved;
	return NULL;
}

/* The SPANK plugin PidNamespace needs (plugins/spank/devns_pidns). */
#define PIDNS_SPANK_PLUGIN "devns_pidns.so"

/*
 * PidNamespace: slurmstepd must enter the job's PID namespace before it
 * forks the tasks, through the SPANK plugin, in its own main thread.
 */
static int check_pid_namespace(const struct jobct_slurm *slurm,
			       struct report *rep)
{
	struct report why;
	int rc;

	report_init(&why, NULL, NULL);
	rc = plugstack_requires(slurm->plugstack, PIDNS_SPANK_PLUGIN, &why);
	if (rc < 0)
		return report_error(rep, "PidNamespace=yes: cannot read the SPANK stack: %s",
				    why.msg);
	if (rc == 0) {
		errno = ENOENT;
		return report_error(rep, "PidNamespace=yes needs \"required %s\" in %s (refusing to start rather than fork the tasks outside the job's PID namespace)",
				    PIDNS_SPANK_PLUGIN, slurm->plugstack);
	}
	if (slurm->contain_spank) {
		errno = ENOTSUP;
		return report_error(rep, "PidNamespace=yes does not work with SlurmdParameters=contain_spank, which runs SPANK hooks outside slurmstepd (%s must enter the PID namespace in slurmstepd itself)",
				    PIDNS_SPANK_PLUGIN);
	}
	return 0;
}

int jobct_node_check(const struct jobct_node *node,
		     const struct jobct_slurm *slurm, struct report *rep)
{
	const struct nsconf *c = node->conf;
	struct report why;
	char asks[512];

	if (!slurm->prolog_contain) {
		errno = ENOTSUP;
		return report_error(rep, "PrologFlags=Contain is not set: devns sets up each job's namespace and device filter in its extern step, and refuses every job process of a job it did not set up (refusing to start rather than fail every job)");
	}
	if (c->pid_namespace && check_pid_namespace(slurm, rep) < 0)
		return -1;
	if (devpolicy_check_gres(&node->policy, slurm->node_devices, rep) < 0)
		return -1;
	if (devpolicy_never_filters(&node->policy) ||
	    (devpolicy_is_open(&node->policy) && !slurm->node_has_devices))
		return 0;	/* no job of this node is filtered */
	snprintf(asks, sizeof(asks), "DevicePolicy=%s%s%s%s%s",
		 devpolicy_mode_name(c->device_policy),
		 c->device_allow ? " with DeviceAllow (" : "",
		 c->device_allow ? c->file : "",
		 c->device_allow ? ")" : "",
		 slurm->node_has_devices ? " and GRES device files on the node"
					 : "");
	switch (node->layout) {
	case CGROUP2_NONE:
		errno = ENOENT;
		return report_error(rep, "%s ask for device containment, which needs a cgroup2 hierarchy: none is mounted",
				    asks);
	case CGROUP2_HYBRID:
		return 0;
	case CGROUP2_UNIFIED:
		break;
	}
	if (!slurm->step_cgroups) {
		errno = ENOTSUP;
		return report_error(rep, "%s ask for device containment, which on the %s layout devns attaches to Slurm's step cgroups: set ProctrackType=proctrack/cgroup (refusing to start rather than run jobs unfiltered)",
				    asks, cgroup2_layout_name(node->layout));
	}
	report_init(&why, NULL, NULL);
	if (stepcg_check(node, &why) < 0)
		return report_error(rep, "%s ask for device containment, which cannot be given on the %s layout: %s",
				    asks, cgroup2_layout_name(node->layout),
				    why.msg);
	return 0;
}

/* ---- one job ----------------------------------------------------------- */

/*
 * The private dirs of the node's settings for the job of plan, in dirs
 * (their Source expanded into paths[i]).  Returns the count, or -1.
 */
static int job_dirs(const struct jobct_plan *plan, struct mntns_dir *dirs,
		    char (*paths)[PATH_MAX], struct report *rep)
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
		md->options = nd->options;
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

static int create_namespace(const struct jobct_plan *plan, struct report *rep)
{
	const struct nsconf *c = plan->node->conf;
	struct mntns_dir dirs[NSCONF_MAX_DIRS];
	char (*paths)[PATH_MAX] = calloc(NSCONF_MAX_DIRS, PATH_MAX);
	struct mntns_spec spec = {
		.base_path = c->base_path,
		.job_id = plan->job_id,
		.shared = c->shared,
		.dir_list = dirs,
		.uid = plan->uid,
		.gid = plan->gid,
		.disk_limit = c->tmp_disk_limit,
		.inode_limit = c->tmp_inode_limit,
		.use_pool = c->namespace_pool > 0,
	};
	struct report why;
	int n, rc;

	report_init(&why, NULL, NULL);
	if (!paths)
		return report_errno(rep, errno, "cannot create its namespace");
	if ((n = job_dirs(plan, dirs, paths, &why)) < 0) {
		free(paths);
		return report_error(rep, "cannot create its namespace: %s",
				    why.msg);
	}
	spec.dir_count = (size_t)n;
	spec.pool_fd = spec.use_pool ? nspool_claim(c->base_path) : -1;
	rc = plan->node->ops->ns_create(&spec, &why);
	fdutil_close(spec.pool_fd);
	free(paths);
	if (rc < 0)
		return report_error(rep, "cannot create its namespace: %s",
				    why.msg);
	report_info(rep, "namespace pinned at %s/%u/%s", c->base_path,
		    plan->job_id, JOBDIR_NS_PIN);
	if (!c->pid_namespace)
		return 0;
	if (plan->node->ops->pidns_create(c->base_path, plan->job_id,
					  &why) < 0) {
		int saved = errno;

		plan->node->ops->ns_delete(c->base_path, plan->job_id);
		errno = saved;
		return report_error(rep, "cannot create its PID namespace: %s",
				    why.msg);
	}
	report_info(rep, "PID namespace pinned at %s/%u/%s", c->base_path,
		    plan->job_id, JOBDIR_PIDNS_PIN);
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

/* Slurm's cgroup/v2 owns the job cgroups: the filter goes onto them. */
static bool unified(const struct jobct_node *node)
{
	return node->layout == CGROUP2_UNIFIED;
}

int jobct_device_rules(const struct jobct_plan *plan,
		       struct devrule_list *list, struct report *rep)
{
	const struct jobct_node *node = plan->node;
	struct report why;

	/* none; or auto, no DeviceAllow, no GRES files: nothing to contain */
	if (devpolicy_never_filters(&node->policy) ||
	    (devpolicy_is_open(&node->policy) && !plan->node_devices)) {
		devrule_list_init(list, true);
		return 0;
	}
	report_init(&why, NULL, NULL);
	if (devpolicy_build(&node->policy, plan->node_devices,
			    plan->job_devices, list, &why) < 0)
		return report_error(rep, "its device policy cannot be computed: %s",
				    why.msg);
	return devrule_list_needs_filter(list) ? 1 : 0;
}

/*
 * The job's filter, if its policy asks for one, and in every case its
 * record (job/marker.h), written last: join and adopt refuse a job
 * without one.
 */
static int contain_devices(const struct jobct_plan *plan, struct report *rep)
{
	const struct jobct_node *node = plan->node;
	struct devrule_list list;
	int rc;

	if ((rc = jobct_device_rules(plan, &list, rep)) < 0)
		return -1;
	if (rc) {
		report_rules(&list, rep);
		rc = unified(node) ? stepcg_apply(node, plan->job_id, plan->sluid,
						    &list, rep)
				   : devcg_apply(node, plan->job_id, &list, rep);
	} else {
		/* The record that setup is done, with no filter needed. */
		rc = marker_write(node, plan->job_id, MARKER_NO_FILTER, rep);
	}
	devrule_list_free(&list);
	return rc;
}

/* Milliseconds since *start, for the debug log of where a setup's time went. */
static double ms_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) * 1e3 +
	       (now.tv_nsec - start->tv_nsec) / 1e6;
}

int jobct_setup(const struct jobct_plan *plan, struct report *rep)
{
	const struct nsconf *c = plan->node->conf;
	struct timespec start, filter;
	double filter_ms, total_ms;

	report_info(rep, "setting up for uid %u gid %u", (unsigned)plan->uid,
		    (unsigned)plan->gid);
	clock_gettime(CLOCK_MONOTONIC, &start);
	if (c->base_path && create_namespace(plan, rep) < 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &filter);
	if (contain_devices(plan, rep) < 0) {
		int saved = errno;

		jobct_release(plan->node, plan->job_id, NULL);
		errno = saved;
		return -1;
	}
	filter_ms = ms_since(&filter);
	total_ms = ms_since(&start);
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
static int job_record(const struct jobct_node *node, uint32_t job_id,
		      char *buf, size_t size, struct report *rep)
{
	int state = marker_state(node, job_id, buf, size);

	if (state < 0)
		return report_errno(rep, errno,
				    "cannot tell whether it has a device filter");
	if (state == MARKER_ABSENT) {
		errno = ENOENT;
		return report_error(rep, "it has no setup record: its extern step did not set it up (PrologFlags=Contain), or not yet, or it is being released");
	}
	return state;
}

/*
 * With TmpDiskLimit, the job's files must stay in its project: each
 * process of the job goes under the filter that refuses changing project
 * ids and PROJINHERIT (ns/dqguard.h).
 */
static int guard_disk_limit(const struct jobct_node *node,
			    struct report *rep)
{
	if (!node->conf->tmp_disk_limit || !node->conf->base_path)
		return 0;
	if (dqguard_install() < 0)
		return report_errno(rep, errno,
				    "cannot keep its files in its disk limit's project");
	return 0;
}

/* A job process under the job's filter, refused without a setup record. */
static int join_filter(const struct jobct_node *node, uint32_t job_id,
		       struct report *rep)
{
	char marked[PATH_MAX];
	int state;

	if ((state = job_record(node, job_id, marked, sizeof(marked), rep)) < 0)
		return -1;
	if (state == MARKER_FILTERED &&
	    (unified(node) ? stepcg_join(node, marked, rep)
			   : devcg_move(node, job_id, 0, rep)) < 0)
		return -1;
	return 0;
}

int jobct_join(const struct jobct_node *node, uint32_t job_id,
	       struct report *rep)
{
	if (enter_pid_namespace(node, job_id, rep) < 0)
		return -1;
	if (join_filter(node, job_id, rep) < 0)
		return -1;
	if (jobct_join_ns(node, job_id, rep) < 0)
		return -1;
	return guard_disk_limit(node, rep);
}

int jobct_join_in_ns(const struct jobct_node *node, uint32_t job_id,
		     struct report *rep)
{
	if (node->conf->pid_namespace || node->conf->tmp_disk_limit) {
		errno = EINVAL;
		return report_error(rep, "EntireStepInNS cannot go with "
				    "PidNamespace or TmpDiskLimit");
	}
	return join_filter(node, job_id, rep);
}

int jobct_join_ns(const struct jobct_node *node, uint32_t job_id,
		  struct report *rep)
{
	if (node->conf->base_path &&
	    node->ops->ns_join(node->conf->base_path, job_id) < 0)
		return report_errno(rep, errno, "cannot join its namespace");
	return 0;
}

int jobct_join_from_slurmd(const struct jobct_node *node, uint32_t job_id,
			   struct report *rep)
{
	char marked[PATH_MAX];
	int state;

	if ((state = job_record(node, job_id, marked, sizeof(marked), rep)) < 0)
		return -1;
	if (state == MARKER_FILTERED &&
	    (unified(node) ? stepcg_enter_extern(node, job_id, rep)
			   : devcg_move(node, job_id, 0, rep)) < 0)
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
	return unified(node) ? stepcg_adopt(node, job_id, rep)
			     : devcg_adopt(node, job_id, kill_uncontained, rep);
}

int jobct_ns_open(const struct jobct_node *node, uint32_t job_id,
		  struct report *rep)
{
	char marked[PATH_MAX];
	int fd;

	/* No namespace for a job whose setup has not finished. */
	if (job_record(node, job_id, marked, sizeof(marked), rep) < 0)
		return -1;
	if (!node->conf->base_path)
		return 0;
	if ((fd = mntns_open(node->conf->base_path, job_id)) < 0)
		return report_errno(rep, errno, "cannot open its namespace");
	return fd;
}

/* What one attempt at removing a job could not remove: errno, or 0. */
struct release_errors {
	int ns;		/* the namespace and its directory */
	int dev;	/* the device cgroup and marker */
};

static int delete_namespace(const struct jobct_node *node, uint32_t job_id)
{
	const char *base = node->conf->base_path;

	/* With a pool, slurmd's keeper also drops the namespaces behind. */
	if (node->conf->namespace_pool)
		return node->ops->ns_delete_behind(base, job_id);
	return node->ops->ns_delete(base, job_id);
}

/* Where a release's time goes, over its attempts (the retry waits aside). */
struct release_times {
	double ns;	/* removing the namespace and its directory */
	double dev;	/* removing the device cgroup and marker */
};

/* One attempt; adds the time of each part to *t. */
static bool release_once(const struct jobct_node *node, uint32_t job_id,
			 struct release_errors *e, struct release_times *t)
{
	const char *base = node->conf->base_path;
	struct timespec start;

	e->ns = e->dev = 0;
	clock_gettime(CLOCK_MONOTONIC, &start);
	if (base && delete_namespace(node, job_id) < 0)
		e->ns = errno ? errno : EIO;
	t->ns += ms_since(&start);
	clock_gettime(CLOCK_MONOTONIC, &start);
	if ((unified(node) ? stepcg_release(node, job_id)
			   : devcg_release(node, job_id)) < 0)
		e->dev = errno ? errno : EIO;
	t->dev += ms_since(&start);
	return !e->ns && !e->dev;
}

static bool refused_for_privilege(int err)
{
	return err == EPERM || err == EACCES;
}

/*
 * jobct_release; name_job: rep does not name the job (restore's), so the
 * lines of its denials do.
 */
static int release_job(const struct jobct_node *node, uint32_t job_id,
		       bool name_job, struct report *rep)
{
	struct release_errors e;
	struct release_times t = { 0, 0 };
	struct timespec start;
	/* Nobody to tell (a failed setup's cleanup): nothing to read. */
	bool denials_read = !rep || !rep->log;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (int waited = 0; ; waited += 10) {
		bool last = waited >= RELEASE_RETRY_MS;

		if (geteuid() != 0 && !last) {
			usleep(10000);
			continue;
		}
		/* Once, with the privilege back, while the filter is on:
		 * its counts go with it. */
		if (!denials_read) {
			(void)denied_report(node, job_id, name_job, rep);
			denials_read = true;
		}
		if (release_once(node, job_id, &e, &t)) {
			report_info(rep, "released in %.2f ms (namespace %.2f ms, device cgroup %.2f ms)",
				    ms_since(&start), t.ns, t.dev);
			return 0;
		}
		if (last || !(refused_for_privilege(e.ns) ||
			      refused_for_privilege(e.dev)))
			break;
		report_info(rep, "cleanup refused, retrying");
		usleep(10000);
	}
	if (e.ns)
		report_errno(rep, e.ns, "removing its namespace");
	if (e.dev)
		report_errno(rep, e.dev, "cannot remove its device cgroup");
	errno = e.ns ? e.ns : e.dev;
	return -1;
}

int jobct_release(const struct jobct_node *node, uint32_t job_id,
		  struct report *rep)
{
	return release_job(node, job_id, false, rep);
}

/* ---- what a job left, and restore --------------------------------------- */

/* TmpDiskLimit: the job's project record on BasePath, when it has one. */
static void disk_usage(const struct jobct_node *node, uint32_t job_id,
		       struct jobct_remains *r)
{
	struct dquota_usage u;
	int fd;

	if (!node->conf->tmp_disk_limit ||
	    (fd = safepath_open(node->conf->base_path)) < 0)
		return;
	if (dquota_get(fd, job_id, &u) == 0 && u.bytes_limit) {
		r->has_disk_limit = true;
		r->disk_limit = u.bytes_limit;
		r->disk_used = u.bytes_used;
		r->inode_limit = u.inodes_limit;
		r->inodes_used = u.inodes_used;
	}
	close(fd);
}

int jobct_remains(const struct jobct_node *node, uint32_t job_id,
		  struct jobct_remains *r)
{
	const char *base = node->conf->base_path;
	struct stat st;
	int n;

	memset(r, 0, sizeof(*r));
	r->job_id = job_id;
	if (base) {
		n = snprintf(r->job_dir, sizeof(r->job_dir), "%s/%u", base,
			     job_id);
		if (n < 0 || (size_t)n >= sizeof(r->job_dir)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		r->has_job_dir = lstat(r->job_dir, &st) == 0 &&
				 S_ISDIR(st.st_mode);
		n = mntns_members(base, job_id, NULL, 0, &r->ns_id);
		r->ns_procs = n > 0 ? n : 0;
	}
	marker_path(node, job_id, r->marker, sizeof(r->marker));
	r->has_marker = node->ops->marker_stat(r->marker, &st) == 0;
	if (r->has_marker) {
		char text[PATH_MAX];

		int state = marker_state(node, job_id, text, sizeof(text));

		r->filtered = state == MARKER_FILTERED;
		r->marker_unknown = state < 0;
	}
	if (base) {
		r->has_pidns = pidns_exists(base, job_id);
		disk_usage(node, job_id, r);
	}
	if (unified(node))
		return 0;	/* the cgroups are Slurm's */
	if (devcg_path(node, job_id, r->cgroup, sizeof(r->cgroup)) < 0)
		return -1;
	n = devcg_procs(node, job_id, NULL, 0);
	r->has_cgroup = n >= 0;
	r->cgroup_procs = n > 0 ? n : 0;
	return 0;
}

int jobct_each_cgroup(const struct jobct_node *node, uint32_t job_id,
		      int (*fn)(const char *path, int cg_fd, void *arg),
		      void *arg)
{
	return unified(node) ? stepcg_each_cgroup(node, job_id, fn, arg)
			     : devcg_each_cgroup(node, job_id, fn, arg);
}

/* The ids of the jobs restore found, each once. */
struct job_set {
	uint32_t *ids;
	size_t count;
	size_t alloc;
};

static int job_set_add(uint32_t job_id, void *arg)
{
	struct job_set *set = arg;

	for (size_t i = 0; i < set->count; i++)
		if (set->ids[i] == job_id)
			return 0;
	if (set->count == set->alloc) {
		size_t alloc = set->alloc ? set->alloc * 2 : 16;
		uint32_t *ids = realloc(set->ids, alloc * sizeof(*ids));

		if (!ids)
			return -1;
		set->ids = ids;
		set->alloc = alloc;
	}
	set->ids[set->count++] = job_id;
	return 0;
}

static int job_id_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The jobs with a directory under BasePath. */
static int find_namespaces(const struct jobct_node *node, struct job_set *set,
			   struct report *rep)
{
	const char *base = node->conf->base_path;
	struct dirent *ep;
	uint32_t job_id;
	int rc = 0;
	DIR *dp;

	if (!(dp = opendir(base)))
		return report_errno(rep, errno, "cannot open BasePath %s",
				    base);
	while ((ep = readdir(dp)))
		if (jobdir_parse(ep->d_name, &job_id) == 0 &&
		    job_set_add(job_id, set) < 0)
			rc = report_errno(rep, ENOMEM, "restore");
	closedir(dp);
	return rc;
}

/* Keep or release one job, as restore decided. */
static int restore_job(const struct jobct_node *node, uint32_t job_id,
		       const struct jobct_restore_args *args,
		       struct report *rep)
{
	struct jobct_remains r;

	if (jobct_remains(node, job_id, &r) < 0)
		return report_errno(rep, errno, "job %u", job_id);
	r.alive = args->alive(job_id, args->arg);
	if (args->found)
		args->found(&r, args->arg);
	if (r.alive) {
		report_info(rep, "job %u alive, keeping it", job_id);
		return 0;
	}
	if (args->dry_run) {
		report_info(rep, "job %u ended, would remove what it left",
			    job_id);
		return 0;
	}
	report_info(rep, "job %u ended, removing what it left", job_id);
	if (release_job(node, job_id, true, rep) < 0)
		return report_error(rep, "job %u: not removed", job_id);
	return 0;
}

int jobct_restore_run(const struct jobct_node *node,
		      const struct jobct_restore_args *args,
		      struct report *rep)
{
	struct job_set set = { NULL, 0, 0 };
	int rc = 0;

	if (node->conf->base_path && find_namespaces(node, &set, rep) < 0)
		rc = -1;
	/* A pool left by an earlier boot or slurmd: its keeper refills it. */
	if (node->conf->base_path && !args->dry_run &&
	    nspool_clear(node->conf->base_path, rep) < 0)
		rc = -1;
	/* Jobs whose reaper went before it had dropped their namespace. */
	if (node->conf->base_path && !args->dry_run &&
	    nsreap_sweep(node->conf->base_path, rep) < 0)
		rc = -1;
	if (!unified(node) && devcg_each_job(node, job_set_add, &set) < 0)
		rc = report_errno(rep, errno,
				  "cannot list the jobs' device cgroups");
	/* the jobs whose filter outlived their namespace and cgroup */
	if (marker_each(node, job_set_add, &set) < 0)
		rc = report_errno(rep, errno,
				  "cannot list the jobs' filter markers in %s",
				  node->spool_dir);
	if (set.count)
		qsort(set.ids, set.count, sizeof(*set.ids), job_id_cmp);
	for (size_t i = 0; i < set.count; i++)
		if (restore_job(node, set.ids[i], args, rep) < 0)
			rc = -1;
	free(set.ids);
	return rc;
}

int jobct_restore(const struct jobct_node *node,
		  bool (*alive)(uint32_t job_id, void *arg), void *arg,
		  struct report *rep)
{
	struct jobct_restore_args args = { .alive = alive, .arg = arg };

	return jobct_restore_run(node, &args, rep);
}

/* ---- the namespace pool --------------------------------------------------- */

struct nspool_keeper *jobct_pool_start(const struct jobct_node *node,
				       struct report *rep)
{
	const struct nsconf *c = node->conf;
	struct nspool_keeper *k;

	if (!c->base_path || !c->namespace_pool)
		return NULL;
	k = nspool_keeper_start(c->base_path, c->namespace_pool, rep->log,
				rep->log_arg);
	if (!k)
		report_errno(rep, errno, "NamespacePool: cannot start the "
			     "thread that copies namespaces ahead; jobs copy "
			     "their own");
	else
		report_info(rep, "NamespacePool: keeping %u namespaces ready "
			    "in %s/" JOBDIR_POOL, c->namespace_pool,
			    c->base_path);
	return k;
}

bool jobct_pool_same(const struct jobct_node *a, const struct jobct_node *b)
{
	const struct nsconf *x = a->conf, *y = b->conf;

	if (x->namespace_pool != y->namespace_pool)
		return false;
	if (!x->base_path || !y->base_path)
		return x->base_path == y->base_path;
	return !strcmp(x->base_path, y->base_path);
}
