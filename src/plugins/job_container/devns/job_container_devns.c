/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * job_container_devns.c - Slurm job_container plugin: a private mount
 * namespace per job (own /tmp, own /dev/shm) and a per-job device filter.
 *
 * Thin glue: Slurm calls arrive here and are translated into calls of the
 * Slurm-independent modules in src/common (nsconf, mntns) and of
 * devns_devices.c (device containment).  Lifecycle:
 *
 *   slurmd start        init (read namespace.conf), restore (remove the
 *                       namespaces of jobs that ended while slurmd was down)
 *   extern step start   stepd_create: build and pin the namespace, apply the
 *                       device filter; any failure fails the job
 *   every job process   join (in the forked child, before exec)
 *   pam_slurm_adopt     join_external: move the adopted process into the
 *                       device cgroup, hand out the namespace fd
 *   job end             stepd_delete (extern stepd); on 22.05 also delete
 *                       (slurmd), a backstop
 *
 * The entry points that differ between releases are at the end of the
 * file, one #if block per API generation (slurm_compat.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slurm_compat.h"

#include "src/common/slurm_xlator.h"
#include "src/common/env.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/read_config.h"
#include "src/common/run_in_daemon.h"
#include "src/common/run_command.h"
#include "src/common/stepd_api.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmd/slurmd/slurmd.h"
#include "src/slurmd/slurmstepd/slurmstepd_job.h"

#include "mntns.h"
#include "nsconf.h"
#include "safepath.h"
#include "devns_devices.h"
#include "devns_gres.h"

/*
 * slurmd and slurmstepd both define 'conf'; this definition only satisfies
 * the loader, the daemon's own symbol takes precedence at run time.
 */
slurmd_conf_t *conf = NULL;

const char plugin_name[] = "job_container devns plugin";
const char plugin_type[] = "job_container/devns";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

#define CONF_NAME "namespace.conf"

static struct nsconf *ns_conf;
static int step_ns_fd = -1;	/* cached for join_external */

/*
 * BasePath holds root's job directories: like sshd's StrictModes, every
 * component must be root's and no symlink, and none writable by others
 * except a sticky ancestor such as /var/tmp (safepath.h).  slurmd creates
 * it so with AutoBasePath; every daemon checks it before using it.
 */
static int prepare_base_path(const struct nsconf *c)
{
	char err[PATH_MAX + 256];
	int rc;

	if (!c->base_path)
		return 0;
	if (c->auto_base_path && running_in_slurmd())
		rc = safepath_make_private(c->base_path, 0755, err,
					   sizeof(err));
	else
		rc = safepath_check_private(c->base_path, err, sizeof(err));
	if (rc < 0)
		error("%s: BasePath %s cannot hold job directories: %s",
		      plugin_type, c->base_path, err);
	return rc;
}

/*
 * DevicePolicy=auto filters only the node's GRES device files: a node whose
 * GRES have none (22.05 AutoDetect without File=) would be filtered
 * nothing, silently.  Say so once, at slurmd start.
 */
static void warn_auto_without_files(const struct nsconf *c)
{
	node_record_t *node;
	const char *gres;
	char **files;

	if (!running_in_slurmd() || c->device_policy != NSCONF_DEVPOLICY_AUTO ||
	    c->device_allow)
		return;
	/* slurmd keeps slurm.conf's Gres= in the node's config record. */
	if (!(node = find_node_record(conf->node_name)))
		return;
	gres = node->config_ptr ? node->config_ptr->gres : node->gres;
	if (!gres || !gres[0])
		return;
	if ((files = devns_gres_node_devices()))
		devns_gres_free(files);
	else
		devns_warning("%s: DevicePolicy=auto on node %s with GRES \"%s\" but no GRES device files (gres.conf File=): no device of a job is contained; list them with File= or set DevicePolicy=closed",
			plugin_type, conf->node_name, gres);
}

/* Read namespace.conf for this node; every error names file and line. */
static struct nsconf *load_conf(void)
{
	char err[1024];
	char *path = get_extra_conf_path(CONF_NAME);
	struct nsconf *c;

	c = nsconf_load(path, conf->node_name, err, sizeof(err));
	if (!c)
		error("%s: %s", plugin_type, err);
	else if (devns_devices_check_conf(c, err, sizeof(err)) < 0) {
		error("%s: %s", plugin_type, err);
		nsconf_free(c);
		c = NULL;
	} else if (prepare_base_path(c) < 0) {
		nsconf_free(c);
		c = NULL;
	} else {
		warn_auto_without_files(c);
	}
	xfree(path);
	return c;
}

extern int init(void)
{
	if (!conf || !conf->node_name) {
		error("%s: loaded outside slurmd/slurmstepd", plugin_type);
		return SLURM_ERROR;
	}
	if (!(ns_conf = load_conf()))
		return SLURM_ERROR;
	log_flag(JOB_CONT, "%s: BasePath=%s DevicePolicy=%s", plugin_type,
		 ns_conf->base_path ? ns_conf->base_path : "none",
		 nsconf_devpolicy_name(ns_conf->device_policy));
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	if (step_ns_fd >= 0) {
		close(step_ns_fd);
		step_ns_fd = -1;
	}
	nsconf_free(ns_conf);
	ns_conf = NULL;
	return SLURM_SUCCESS;
}

/* list_find_first: is this a step of the job, and does it answer? */
static int step_of_job_answers(void *x, void *key)
{
	step_loc_t *stepd = x;
	int fd;

	if (stepd->step_id.job_id != *(uint32_t *)key)
		return 0;
	fd = stepd_connect(stepd->directory, stepd->nodename, &stepd->step_id,
			   &stepd->protocol_version);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/*
 * A job is alive when any of its slurmstepd answers: one stale socket (a
 * step killed with -9) says nothing about the job's other steps, and
 * tearing down a live job's namespace and filter would remove its /tmp
 * and let its next step run unfiltered.
 */
static bool job_is_alive(list_t *steps, uint32_t job_id)
{
	return list_find_first(steps, step_of_job_answers, &job_id) != NULL;
}

/* What one attempt at removing a job could not remove: errno, or 0. */
struct teardown_errors {
	int ns;		/* the namespace and its directory */
	int dev;	/* the device cgroup */
};

/* One attempt at removing the job's namespace and device cgroup. */
static bool teardown_once(uint32_t job_id, struct teardown_errors *e)
{
	e->ns = e->dev = 0;
	if (ns_conf->base_path && mntns_delete(ns_conf->base_path, job_id) < 0)
		e->ns = errno ? errno : EIO;
	if (devns_devices_release(job_id) < 0)
		e->dev = errno ? errno : EIO;
	return !e->ns && !e->dev;
}

static bool refused_for_privilege(int err)
{
	return err == EPERM || err == EACCES;
}

/*
 * Slurm 24.11's extern slurmstepd handles SIGTERM on another thread and,
 * unless the container plugin is named "tmpfs", drops to the job's uid
 * there for the X11 shutdown (mgr.c, _x11_signal_handler); glibc applies
 * seteuid() to every thread, so the cleanup may briefly run without root
 * and fail with EPERM/EACCES.  Removal is idempotent: wait for root to come
 * back and try again, for up to TEARDOWN_RETRY_MS.
 */
#define TEARDOWN_RETRY_MS 5000

static int teardown(uint32_t job_id)
{
	struct teardown_errors e;

	for (int waited = 0; ; waited += 10) {
		bool last = waited >= TEARDOWN_RETRY_MS;

		if (geteuid() != 0 && !last) {
			usleep(10000);
			continue;
		}
		if (teardown_once(job_id, &e))
			return SLURM_SUCCESS;
		if (last || !(refused_for_privilege(e.ns) ||
			      refused_for_privilege(e.dev)))
			break;
		log_flag(JOB_CONT, "%s: job %u: cleanup refused, retrying",
			 plugin_type, job_id);
		usleep(10000);
	}
	if (e.ns) {
		errno = e.ns;
		error("%s: removing the namespace of job %u: %m", plugin_type,
		      job_id);
	}
	if (e.dev) {
		errno = e.dev;
		error("%s: job %u: cannot remove its device cgroup: %m",
		      plugin_type, job_id);
	}
	return SLURM_ERROR;
}

/* Remove what ended jobs left under BasePath while slurmd was away. */
static int restore_namespaces(list_t *steps)
{
	DIR *dp;
	struct dirent *ep;
	uint32_t job_id;
	int rc = SLURM_SUCCESS;

	if (!(dp = opendir(ns_conf->base_path))) {
		error("%s: cannot open BasePath %s: %m", plugin_type,
		      ns_conf->base_path);
		return SLURM_ERROR;
	}
	while ((ep = readdir(dp))) {
		if (mntns_parse_job_dir(ep->d_name, &job_id) < 0)
			continue;
		if (job_is_alive(steps, job_id)) {
			log_flag(JOB_CONT, "%s: job %u alive, keeping its namespace",
				 plugin_type, job_id);
			continue;
		}
		debug("%s: job %u ended, removing its namespace", plugin_type,
		      job_id);
		if (teardown(job_id) != SLURM_SUCCESS)
			rc = SLURM_ERROR;
	}
	closedir(dp);
	return rc;
}

static bool job_alive_cb(uint32_t job_id, void *arg)
{
	return job_is_alive(arg, job_id);
}

extern int container_p_restore(char *dir_name, bool recover)
{
	list_t *steps;
	int rc = SLURM_SUCCESS;

	(void)dir_name;
	(void)recover;

	steps = stepd_available(conf->spooldir, conf->node_name);
	if (ns_conf->base_path)
		rc = restore_namespaces(steps);
	if (devns_devices_restore(job_alive_cb, steps) < 0)
		rc = SLURM_ERROR;
	FREE_NULL_LIST(steps);
	return rc;
}

static int create_namespace(uint32_t job_id)
{
	char err[512];
	struct mntns_spec spec = {
		.base_path = ns_conf->base_path,
		.job_id = job_id,
		.dirs = (const char *const *)ns_conf->dirs,
		.shared = ns_conf->shared,
		.shm_size = ns_conf->shm_size,
		.tmp_size = ns_conf->tmp_size,
	};

	if (mntns_create(&spec, err, sizeof(err)) < 0) {
		error("%s: job %u: cannot create its namespace: %s",
		      plugin_type, job_id, err);
		return SLURM_ERROR;
	}
	log_flag(JOB_CONT, "%s: job %u namespace pinned at %s/%u/.ns",
		 plugin_type, job_id, ns_conf->base_path, job_id);
	return SLURM_SUCCESS;
}

/* Run InitScript as root before the namespace is made; failure is fatal. */
static int run_init_script(uint32_t job_id)
{
	char *argv[] = { ns_conf->init_script, NULL };
	char **env = env_array_create();
	char *out;
	int status = 0;
	run_command_args_t args = {
		.max_wait = 60 * 1000,
		.script_path = ns_conf->init_script,
		.script_type = "InitScript",
		.script_argv = argv,
		.status = &status,
	};

	env_array_overwrite_fmt(&env, "SLURM_JOB_ID", "%u", job_id);
	env_array_overwrite_fmt(&env, "SLURMD_NODENAME", "%s", conf->node_name);
	env_array_overwrite_fmt(&env, "SLURM_CONF", "%s", slurm_conf.slurm_conf);
	if (ns_conf->base_path)
		env_array_overwrite_fmt(&env, "SLURM_JOB_MOUNTPOINT_SRC",
					"%s/%u", ns_conf->base_path, job_id);
	args.env = env;
	out = run_command(&args);
	env_array_free(env);
	if (status) {
		error("%s: job %u: InitScript %s failed (status %d): %s",
		      plugin_type, job_id, ns_conf->init_script, status,
		      out ? out : "");
		xfree(out);
		return SLURM_ERROR;
	}
	xfree(out);
	return SLURM_SUCCESS;
}

static int stepd_create(uint32_t job_id, void *step)
{
	if (ns_conf->init_script && run_init_script(job_id) != SLURM_SUCCESS)
		return SLURM_ERROR;
	if (ns_conf->base_path && create_namespace(job_id) != SLURM_SUCCESS)
		return SLURM_ERROR;
	if (devns_devices_setup(ns_conf, job_id, step) < 0) {
		teardown(job_id);
		return SLURM_ERROR;
	}
	return SLURM_SUCCESS;
}

/*
 * Runs in each forked child of the job before exec.  Slurm ignores a failed
 * join on some paths (TaskProlog/TaskEpilog), so a child that cannot be
 * contained ends here instead of running uncontained: fail closed.
 */
static int join(uint32_t job_id)
{
	if (job_id == 0)	/* not a job: a system script */
		return SLURM_SUCCESS;
	if (devns_devices_join(job_id, getpid()) < 0) {
		error("%s: job %u: cannot enter its device cgroup: %m",
		      plugin_type, job_id);
		_exit(127);
	}
	if (ns_conf->base_path && mntns_join(ns_conf->base_path, job_id) < 0) {
		error("%s: job %u: cannot join its namespace: %m", plugin_type,
		      job_id);
		_exit(127);
	}
	return SLURM_SUCCESS;
}

/*
 * pam_slurm_adopt: the stepd has just put the new process into the job's
 * extern step.  Returns the namespace fd for the process to setns() into, 0
 * when the job has no namespace, or -1 when the process could not be
 * contained (pam_slurm_adopt then reports the adoption as failed, and
 * denies the login with action_adopt_failure=deny).
 */
extern int container_p_join_external(uint32_t job_id)
{
	if (devns_devices_adopt(job_id) < 0)
		return -1;
	if (!ns_conf->base_path)
		return 0;
	if (step_ns_fd < 0) {
		step_ns_fd = mntns_open(ns_conf->base_path, job_id);
		if (step_ns_fd < 0)
			error("%s: job %u: cannot open its namespace: %m",
			      plugin_type, job_id);
	}
	return step_ns_fd;
}

extern int container_p_stepd_delete(uint32_t job_id)
{
	return teardown(job_id);
}

#if DEVNS_API_22_05

extern void container_p_reconfig(void)
{
	struct nsconf *c = load_conf();

	/* A broken file on reconfigure keeps the running configuration. */
	if (!c) {
		error("%s: keeping the previous %s", plugin_type, CONF_NAME);
		return;
	}
	nsconf_free(ns_conf);
	ns_conf = c;
}

extern int container_p_create(uint32_t job_id, uid_t uid)
{
	(void)job_id;
	(void)uid;
	return SLURM_SUCCESS;
}

extern int container_p_add_cont(uint32_t job_id, uint64_t cont_id)
{
	(void)job_id;
	(void)cont_id;
	return SLURM_SUCCESS;
}

extern int container_p_stepd_create(uint32_t job_id, uid_t uid)
{
	(void)uid;
	return stepd_create(job_id, NULL);
}

extern int container_p_join(uint32_t job_id, uid_t uid)
{
	(void)uid;
	return join(job_id);
}

/* slurmd's call after the job's steps are gone: a backstop, idempotent. */
extern int container_p_delete(uint32_t job_id)
{
	return teardown(job_id);
}

#else /* 24.11.1+ */

extern int container_p_stepd_create(uint32_t job_id, stepd_step_rec_t *step)
{
	return stepd_create(job_id, step);
}

/*
 * step_create: slurmd joins in the fork that becomes a new slurmstepd
 * (tmpfs's EntireStepInNS).  devns keeps the stepd itself outside and
 * contains the step's processes, which join in their own forks.
 */
extern int container_p_join(slurm_step_id_t *step_id, uid_t uid,
			    bool step_create)
{
	(void)uid;
	if (step_create)
		return SLURM_SUCCESS;
	return join(step_id->job_id);
}

/*
 * slurmd hands its plugins' configuration to each new slurmstepd; devns's
 * stepd reads namespace.conf itself in init(), so nothing travels.
 */
extern int container_p_send_stepd(int fd)
{
	(void)fd;
	return SLURM_SUCCESS;
}

extern int container_p_recv_stepd(int fd)
{
	(void)fd;
	return SLURM_SUCCESS;
}

#endif
