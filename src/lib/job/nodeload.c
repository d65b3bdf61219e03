/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nodeload.c - a node's settings, loaded once per daemon: namespace.conf
 * resolved, BasePath checked, the cgroup layout and its backend found;
 * slurmd's start checks; the NamespacePool keeper.  See jobct.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "conf/confcheck.h"
#include "conf/jobdir.h"
#include "conf/nsconf_file.h"
#include "dev/cgroup2.h"
#include "slurmconv/gresidx.h"
#include "job/backend.h"
#include "job/devcg.h"
#include "job/jobct.h"
#include "job/node.h"
#include "job/stepcg.h"
#include "ns/dquota.h"
#include "ns/nsloop.h"
#include "util/fdmount.h"
#include "util/fdutil.h"
#include "slurmconv/plugstack.h"
#include "util/safepath.h"

/* ---- the node ---------------------------------------------------------- */

void jobct_node_free(struct jobct_node *node)
{
	if (!node)
		return;
	free(node->node_name);
	free(node->spool_dir);
	free(node->cgroup_root);
	free(node->dev_dir);
	free(node->proc_devices);
	fdutil_close(node->base_fd);
	nsconf_free(node->conf);
	devpolicy_free(&node->policy);
	free(node);
}

const struct nsconf *jobct_node_conf(const struct jobct_node *node)
{
	return node->conf;
}

const struct devpolicy *jobct_node_policy(const struct jobct_node *node)
{
	return &node->policy;
}

const char *jobct_node_layout(const struct jobct_node *node)
{
	return cgroup2_layout_name(node->layout);
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
 * component must be root's and no symlink, and none writable by others,
 * not even a sticky ancestor such as /var/tmp (util/safepath.h).  What
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
		report_error(rep, "%s:%d: BasePath %s cannot hold job directories: %s (use a BasePath that is root's, in directories that are root's, and that only root may write to, such as /var/spool/slurm/devns)",
			     c->file ? c->file : "namespace.conf",
			     c->lines.base_path, c->base_path, why.msg);
	return rc < 0 ? -1 : 0;
}

/* slurmd without TmpBackend=loop: the templates of an earlier setting go. */
static void drop_templates(const struct nsconf *c,
			   const struct jobct_node_args *args)
{
	int fd;

	if (args->check_only || !args->make_base_path ||
	    (fd = safepath_open(c->base_path)) < 0)
		return;
	nsloop_templates_prune(fd, 0, 0);
	close(fd);
}

/*
 * TmpBackend=loop needs no quotas but mke2fs and the loop driver; slurmd
 * makes the template of the node's size at its start (ns/nsloop.h), so the
 * first job pays no mkfs and a node that cannot make one refuses to start
 * instead of failing every job.
 */
static int check_loop(const struct nsconf *c,
		      const struct jobct_node_args *args, struct report *rep)
{
	bool make = !args->check_only && args->make_base_path;
	struct report why;
	int fd, rc;

	report_init(&why, NULL, NULL);
	if (nsloop_probe(&why) < 0)
		return report_error(rep, "TmpBackend=loop (line %d): cannot make jobs' filesystems: %s",
				    c->lines.tmp_backend, why.msg);
	if (make) {
		if ((fd = safepath_open(c->base_path)) < 0)
			return report_errno(rep, errno, "TmpBackend=loop: opening BasePath %s",
					    c->base_path);
		nsloop_templates_prune(fd, c->tmp_disk_limit,
				       c->tmp_inode_limit);
		rc = nsloop_template_make(fd, c->tmp_disk_limit,
					  c->tmp_inode_limit, &why);
		close(fd);
		if (rc < 0)
			return report_error(rep, "TmpBackend=loop: cannot make the filesystem template of %" PRIu64 " bytes in %s: %s",
					    c->tmp_disk_limit, c->base_path, why.msg);
	}
	report_info(rep, "TmpDiskLimit=%" PRIu64 " bytes: a filesystem per job on a loop device (TmpBackend=loop)%s%s",
		    c->tmp_disk_limit, make ? ", template in " : "",
		    make ? c->base_path : "");
	return 0;
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
	char what[128];
	int fd, rc;

	if (!c->base_path)
		return 0;
	if (c->tmp_disk_limit && c->tmp_backend == NSCONF_TMP_LOOP)
		return check_loop(c, args, rep);
	drop_templates(c, args);
	if (!nsconf_disk_limited(c))
		return 0;
	if (c->tmp_disk_gres)
		snprintf(what, sizeof(what), "TmpDiskGres=%s", c->tmp_disk_gres);
	else if (c->tmp_disk_request)
		snprintf(what, sizeof(what), "TmpDiskLimit=request");
	else
		snprintf(what, sizeof(what), "TmpDiskLimit=%" PRIu64 " bytes",
			 c->tmp_disk_limit);
	if ((fd = safepath_open(c->base_path)) < 0) {
		if (args->check_only && errno == ENOENT) {
			report_warning(rep, "%s: BasePath %s does not exist yet, so whether its filesystem enforces project quotas is not known",
				       what, c->base_path);
			return 0;
		}
		return report_errno(rep, errno, "%s: opening BasePath %s",
				    what, c->base_path);
	}
	report_init(&why, NULL, NULL);
	rc = dquota_probe(fd, c->base_path, &why);
	close(fd);
	if (rc < 0)
		return report_error(rep, "%s cannot be enforced on BasePath: %s",
				    what, why.msg);
	report_info(rep, "%s: BasePath %s enforces project quotas", what,
		    c->base_path);
	return 0;
}

/*
 * UserNamespace on a node whose kernel makes none (user.max_user_namespaces
 * is 0, as some sites set it): every job would fail at its start.
 */
static int user_namespace_check(const struct nsconf *c, struct report *rep)
{
	FILE *f;
	long max = -1;

	if (!c->user_namespace)
		return 0;
	if ((f = fopen("/proc/sys/user/max_user_namespaces", "re"))) {
		if (fscanf(f, "%ld", &max) != 1)
			max = -1;
		fclose(f);
	}
	if (max != 0)
		return 0;
	errno = EPERM;
	return report_error(rep, "%s:%d: UserNamespace=yes, but this kernel makes no user namespaces (sysctl user.max_user_namespaces is 0; refusing to start rather than fail every job)",
			    c->file ? c->file : NSCONF_FILE_NAME,
			    c->lines.user_namespace);
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

	if (user_namespace_check(node->conf, rep) < 0)
		return -1;
	if (!node->conf->base_path || !(call = fdmount_missing_call()))
		return 0;
	if (uname(&u) < 0)
		snprintf(u.release, sizeof(u.release), "(unknown)");
	errno = ENOSYS;
	return report_error(rep, "this kernel (Linux %s) has no %s(2): devns mounts job directories with the new mount API, complete from Linux 5.12 (refusing to start rather than fail every job; BasePath=none keeps device containment alone)",
			    u.release, call);
}

/*
 * What fails every job although the file parses (conf/confcheck.h): a
 * missing InitScript refuses the node, a missing Source= part is a
 * warning.  devns check (check_only) makes these checks itself, strictly.
 */
static int check_node(const struct nsconf *c,
		      const struct jobct_node_args *args, struct report *rep)
{
	struct confcheck_args check = { .proc_devices = args->proc_devices };

	return args->check_only ? 0 : confcheck_run(c, &check, rep);
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
		lines[i].read = &c->allow[i].entries;
	}
	rc = devpolicy_load_lines(&node->policy, c->device_policy, lines, n,
				  proc_devices, rep);
	/* A spec that does not parse fails the load, as a bad line does. */
	if (rc == 0 && c->cdi_spec_dirs)
		rc = devpolicy_load_cdi(&node->policy, c->cdi_spec_dirs, rep);
out:
	free(lines);
	free(where);
	return rc;
}

/* Where the jobs' filters go on the layout (backend.h). */
static const struct jobct_backend *backend_for(enum cgroup2_layout layout)
{
	switch (layout) {
	case CGROUP2_HYBRID:
		return &devcg_backend;
	case CGROUP2_UNIFIED:
		return &stepcg_backend;
	default:
		return &nocg_backend;
	}
}

/*
 * The layout and its backend, and the cgroup2 mount unless the caller named one: found
 * once, here, so that no later call reads mountinfo again.
 */
static int probe_cgroups(struct jobct_node *node, const char *mountinfo,
			 struct report *rep)
{
	char mount[PATH_MAX];

	if (cgroup2_probe(mountinfo, &node->layout, mount, sizeof(mount)) < 0)
		return report_errno(rep, errno, "reading the cgroup layout");
	node->backend = backend_for(node->layout);
	if (node->cgroup_root || !mount[0])
		return 0;
	if (!(node->cgroup_root = strdup(mount)))
		return report_errno(rep, ENOMEM, "loading namespace.conf");
	return 0;
}

/*
 * BasePath, held open from the load on: a slurmstepd loads its node at
 * its start, before Slurm's switch/nvidia_imex may unshare its mount
 * namespace (25.11 on, switch_p_job_init), after which the jobs' pins
 * are reached only through this fd (ns/mntns.h).
 */
static int hold_base_path(struct jobct_node *node,
			  const struct jobct_node_args *args,
			  struct report *rep)
{
	const char *base = node->conf->base_path;

	if (!base || args->check_only)
		return 0;
	if ((node->base_fd = safepath_open(base)) < 0)
		return report_errno(rep, errno, "cannot open BasePath %s", base);
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
	node->base_fd = -1;
	node->ops = args->ops ? args->ops : &jobct_real_ops;
	if (strdup_opt(&node->node_name, args->node_name) < 0 ||
	    strdup_opt(&node->spool_dir, args->spool_dir) < 0 ||
	    strdup_opt(&node->cgroup_root, args->cgroup_root) < 0 ||
	    strdup_opt(&node->dev_dir, args->dev_dir) < 0 ||
	    strdup_opt(&node->proc_devices, args->proc_devices) < 0) {
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
	    check_node(node->conf, args, rep) < 0 ||
	    hold_base_path(node, args, rep) < 0)
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

void jobct_node_report(const struct jobct_node *node,
		       const struct jobct_slurm *slurm, struct report *rep)
{
	report_notice(rep, "cgroup layout: %s (%s)",
		      cgroup2_layout_describe(node->layout),
		      devpolicy_never_filters(&node->policy)
		      ? "DevicePolicy=none: no device filter, devices are Slurm's"
		      : node->backend->place);
	/* auto filters only the GRES device files: here none, silently */
	if (!slurm->node_has_devices && devpolicy_is_open(&node->policy) &&
	    slurm->gres && slurm->gres[0])
		report_warning(rep, "DevicePolicy=auto on node %s with GRES \"%s\" but no GRES device files (gres.conf File=): no device of a job is contained; list them with File= or set DevicePolicy=closed",
			       node->node_name, slurm->gres);
}

int jobct_node_check(const struct jobct_node *node,
		     const struct jobct_slurm *slurm, struct report *rep)
{
	const struct nsconf *c = node->conf;
	char asks[512];

	if (!slurm->prolog_contain) {
		errno = ENOTSUP;
		return report_error(rep, "PrologFlags=Contain is not set: devns sets up each job's namespace and device filter in its extern step, and refuses every job process of a job it did not set up (refusing to start rather than fail every job)");
	}
	if (c->pid_namespace && check_pid_namespace(slurm, rep) < 0)
		return -1;
	/* A name no job can be given: every job would silently fall back. */
	if (c->tmp_disk_gres && !slurm->gres_unknown &&
	    !gresidx_conf_names(slurm->gres, c->tmp_disk_gres)) {
		errno = ENOENT;
		return report_error(rep, "TmpDiskGres=%s: node %s has no GRES %s in slurm.conf (Gres=%s), so no job could ask for it; add it there (and to GresTypes, with gres.conf's Name=%s Count=SIZE) or set TmpDiskGres=none on a NodeName line for this node",
				    c->tmp_disk_gres, node->node_name,
				    c->tmp_disk_gres,
				    slurm->gres ? slurm->gres : "",
				    c->tmp_disk_gres);
	}
	if (devpolicy_check_gres(&node->policy, slurm->node_devices, rep) < 0)
		return -1;
	if (devpolicy_never_filters(&node->policy) ||
	    (devpolicy_is_open(&node->policy) && !slurm->node_has_devices) ||
	    slurm->elsewhere)
		return 0;	/* no job of this node is filtered, or not here */
	snprintf(asks, sizeof(asks), "DevicePolicy=%s%s%s%s%s",
		 devpolicy_mode_name(c->device_policy),
		 c->device_allow ? " with DeviceAllow (" : "",
		 c->device_allow ? c->file : "",
		 c->device_allow ? ")" : "",
		 slurm->node_has_devices ? " and GRES device files on the node"
					 : "");
	return node->backend->check(node, slurm->step_cgroups, asks, rep);
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

void jobct_pool_stop(struct nspool_keeper *keeper)
{
	nspool_keeper_stop(keeper);
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
