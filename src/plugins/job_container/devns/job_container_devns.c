/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * job_container_devns.c - Slurm job_container plugin: a private mount
 * namespace per job (own /tmp, own /dev/shm) and a per-job device filter.
 *
 * Translation only: Slurm's calls become calls of the Slurm-free core
 * (src/lib/job/jobct.h), which owns the lifecycle; Slurm's data (node name,
 * spool directory, GRES device files, the job's allocation) goes into the
 * core's plan, and the core's reports come out through Slurm's log with one
 * prefix, plugin_type.  What Slurm alone can do stays in the plugin: the
 * site's scripts (devns_scripts.c: InitScript, CloneNSScript,
 * CloneNSEpilog, UserNsScript, with what Slurm tells them), asking
 * slurmstepds whether they live (restore), the GRES lookups
 * (devns_gres.c).
 *
 * From Slurm 25.11 the interface is called namespace: the same file is
 * namespace_devns.so with plugin_type "namespace/devns" and namespace_p_*
 * entry points (DEVNS_JC(), slurm_compat.h).  The entry points whose
 * arguments differ between releases are at the end of the file, one #if
 * block per change of the interface (slurm_compat.h names each).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "slurm_compat.h"

#include "src/common/slurm_xlator.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmd/slurmd/slurmd.h"
#include "src/slurmd/slurmstepd/slurmstepd_job.h"
#if DEVNS_JC_STEP_RECORD
#include DEVNS_PROCTRACK_HEADER
#endif
#if DEVNS_SWITCH_FS_INIT
#include DEVNS_SWITCH_HEADER
#endif

#include "dev/imexdev.h"
#include "job/jobct.h"
#include "job/setupgate.h"
#include "ns/nsconf_msg.h"
#include "ns/nsfdmap.h"
#include "util/admincomment.h"
#include "util/fdutil.h"
#include "util/stepsock.h"
#include "devns_gres.h"
#include "devns_node.h"
#include "devns_nodecheck.h"
#include "devns_scripts.h"

const char plugin_name[] = DEVNS_JC_INTERFACE " devns plugin";
const char plugin_type[] = DEVNS_JC_TYPE;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/*
 * The node's settings: slurmd's, parsed at its start and at reconfigure;
 * from 23.02 a slurmstepd's are slurmd's, handed over (recv_stepd).
 * node_lock guards the swap at reconfigure against send_stepd.
 */
static struct jobct_node *node;
static pthread_mutex_t node_lock = PTHREAD_MUTEX_INITIALIZER;
static int step_ns_fd = -1;	/* cached for join_external */
static int step_userns_fd = -1;	/* likewise, UserNamespace (25.11 on) */
/*
 * The stepd answers each login on a thread of its own: two first logins at
 * once would each open the namespace, and the fd one of them cached over
 * would stay open past the teardown (drop_step_ns_fd), keeping the job's
 * namespace and /tmp alive.  Held only while the cache is opened, in the
 * extern stepd, where no fork's child takes it.
 */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct nspool_keeper *keeper;	/* slurmd's NamespacePool thread */

/*
 * The extern stepd's setup, which pam_slurm_adopt's requests wait for:
 * they may come before it begins (the stepd answers from its start), for
 * at most ADOPT_START_WAIT_MS.
 */
static struct setupgate setup_gate = SETUPGATE_INIT;
#define ADOPT_START_WAIT_MS 30000


/* ---- the core's reports, in Slurm's log ---------------------------------- */

/* The core's messages, logged as they come: "plugin_type: [job N: ]msg". */
static void log_line(enum report_level level, const char *msg, void *arg)
{
	const uint32_t *job_id = arg;
	char job[32] = "";

	if (job_id)
		snprintf(job, sizeof(job), "job %u: ", *job_id);
	switch (level) {
	case REPORT_ERROR:
		error("%s: %s%s", plugin_type, job, msg);
		break;
	case REPORT_WARNING:
		devns_warning("%s: %s%s", plugin_type, job, msg);
		break;
	case REPORT_INFO:
		devns_log_flag("%s: %s%s", plugin_type, job, msg);
		break;
	case REPORT_NOTICE:
		info("%s: %s%s", plugin_type, job, msg);
		break;
	}
}

/* A report for one call of the core, about job_id (NULL: the node). */
static void report_start(struct report *rep, const uint32_t *job_id)
{
	report_init(rep, log_line, (void *)job_id);
}

/* ---- the node ------------------------------------------------------------ */

/* The node's settings; every error is logged with file and line. */
static struct jobct_node *load_node(void)
{
	struct jobct_node *n;
	struct report rep;

	report_start(&rep, NULL);
	n = devns_nodecheck_load(&rep);
	/* Which file, for configless nodes (the cache) above all. */
	if (n && running_in_slurmd())
		info("%s: settings from %s", plugin_type,
		     jobct_node_conf(n)->file ? jobct_node_conf(n)->file
					      : "(none)");
	return n;
}

/* The node's main settings, with the debug flag JobContainer/Namespace. */
static void log_settings(const char *from)
{
	const struct nsconf *c = jobct_node_conf(node);

	devns_log_flag("%s: BasePath=%s DevicePolicy=%s (%s %s)", plugin_type,
		       c->base_path ? c->base_path : "none",
		       devpolicy_mode_name(c->device_policy), from, c->file);
}

/*
 * From 23.02 a slurmstepd gets slurmd's settings in recv_stepd, which
 * Slurm calls right after init and before any other call: reading the
 * file here would let an edit reach new jobs before slurmd (and its
 * reconfigure) saw it.  22.05 hands nothing over: its stepds read the
 * file.
 */
extern int init(void)
{
	if (DEVNS_JC_SEND_RECV && running_in_slurmstepd())
		return SLURM_SUCCESS;
	if (!(node = load_node()))
		return SLURM_ERROR;
	log_settings("read from");
	return SLURM_SUCCESS;
}

/*
 * A call that needs the settings in a slurmstepd that has none (recv_stepd
 * not called, or failed): refused, never run uncontained.
 */
static bool have_node(uint32_t job_id)
{
	if (node)
		return true;
	error("%s: job %u: no settings from slurmd (recv_stepd): refusing",
	      plugin_type, job_id);
	return false;
}

/*
 * For the SPANK plugin devns_pidns in the same slurmstepd, which must look
 * for the job's PID namespace where this plugin made it: the BasePath of
 * the settings this process holds (slurmd's, from 23.02), never the file's,
 * which may have been edited since.  Writes it into buf[len] and returns
 * 1, 0 for BasePath=none, or -1 with errno: ENOENT when this process holds
 * no settings, ENAMETOOLONG.  Exported (Makefile.am); found by
 * devns_pidns.c.
 */
extern int devns_stepd_base_path(char *buf, size_t len)
{
	const char *base;

	if (!node) {
		errno = ENOENT;
		return -1;
	}
	if (!(base = jobct_node_conf(node)->base_path))
		return 0;
	if (snprintf(buf, len, "%s", base) >= (int)len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 1;
}

/* slurmd: keep the node's NamespacePool copied ahead (none: a no-op). */
static void pool_start(void)
{
	struct report rep;

	report_start(&rep, NULL);
	keeper = jobct_pool_start(node, &rep);
}

/* Stop the keeper and empty the pool: no namespace outlives slurmd. */
static void pool_stop(void)
{
	jobct_pool_stop(keeper);
	keeper = NULL;
}

static void release_node(void)
{
	pool_stop();
	fdutil_close(step_ns_fd);
	fdutil_close(step_userns_fd);
	step_ns_fd = step_userns_fd = -1;
	jobct_node_free(node);
	node = NULL;
}

/* The loader ignores fini's value (26.05's own plugins return void). */
extern int fini(void)
{
	release_node();
	return SLURM_SUCCESS;
}

/* ---- restore ------------------------------------------------------------- */

/*
 * A job is alive when any of its slurmstepd's sockets may have a stepd
 * behind it (util/stepsock.h): one stale socket (a step killed with -9)
 * says nothing about the job's other steps, and a stepd that is hung or
 * busy is still alive.  Tearing down a live job's namespace and filter
 * would remove its /tmp and let its next step run unfiltered, so only a
 * refused connection counts as ended, and an unreadable spool keeps all.
 */
static bool job_is_alive(uint32_t job_id, void *arg)
{
	(void)arg;
	return stepsock_job_alive(conf->spooldir, conf->node_name, job_id,
				  NULL, 0) != 0;
}

extern int DEVNS_JC(restore)(char *dir_name, bool recover)
{
	struct report rep;
	int rc;

	(void)dir_name;
	(void)recover;
	report_start(&rep, NULL);
	rc = jobct_restore(node, job_is_alive, NULL, &rep);
	/* After restore, which cleared what an earlier slurmd left. */
	if (!keeper)
		pool_start();
	return rc < 0 ? SLURM_ERROR : SLURM_SUCCESS;
}

/* ---- one job ------------------------------------------------------------- */

/*
 * Where an admin looks first: the job's AdminComment ("scontrol show job")
 * gets the reason its containment failed, beside slurmd's log, before
 * Slurm requeues it held.  The comment is shared with the site and other
 * plugins: devns reads it and appends its entry (util/admincomment.h:
 * bounded, never cutting what is there), and writes nothing when it
 * cannot read it.  Two writers at once may still lose one entry (Slurm
 * has no append).  The extern stepd asks slurmctld as root, which may set
 * it.  Best effort: a failure here is only logged.
 */
static void note_failure(uint32_t job_id, const char *why)
{
	job_desc_msg_t desc;
	job_info_msg_t *msg = NULL;
	const char *old = NULL;
	char *entry = NULL, *comment = NULL;
	bool found = false;

	xstrfmtcat(entry, "devns on %s: %s", conf->node_name,
		   why[0] ? why : "containment failed (see slurmd's log)");
	if (DEVNS_LOAD_JOB(&msg, job_id, SHOW_DETAIL) != SLURM_SUCCESS) {
		error("%s: job %u: cannot read its AdminComment, so not adding the reason there: %m",
		      plugin_type, job_id);
		goto out;
	}
	/* An array task's id also names its array: pick the task itself. */
	for (uint32_t i = 0; msg && i < msg->record_count; i++)
		if (msg->job_array[i].job_id == job_id) {
			old = msg->job_array[i].admin_comment;
			found = true;
		}
	if (!found) {
		error("%s: job %u: slurmctld returned no job record, so no AdminComment",
		      plugin_type, job_id);
		goto out;
	}
	comment = admincomment_append(old, entry);
	if (!comment) {
		if (errno == ENOSPC)
			error("%s: job %u: its AdminComment is full, the reason is only here",
			      plugin_type, job_id);
		else if (errno != EEXIST)
			error("%s: job %u: cannot add the reason to its AdminComment: %m",
			      plugin_type, job_id);
		goto out;
	}
	slurm_init_job_desc_msg(&desc);
	DEVNS_JOB_DESC_SET_ID(&desc, job_id);
	desc.admin_comment = comment;
	if (slurm_update_job(&desc) != SLURM_SUCCESS)
		error("%s: job %u: cannot record the reason in its AdminComment: %m",
		      plugin_type, job_id);
out:
	free(comment);
	xfree(entry);
	slurm_free_job_info_msg(msg);
}

#if DEVNS_JC_STEP_RECORD
/*
 * The PID namespace's init into the extern step's process tracking.  It
 * starts in slurmstepd's own cgroup (cgroup/v2: step_extern/slurm), where
 * Slurm's kill at the job's end (step_extern/user's cgroup.kill) never
 * reaches it while its wait counts it: the node would drain with "Kill
 * task failed".  Tracked, it goes where adopted logins go and dies with
 * the job.
 */
static int track_init(pid_t init, void *step, struct report *rep)
{
	if (proctrack_g_add(step, init) != SLURM_SUCCESS)
		return report_errno(rep, errno, "proctrack_g_add");
	return 0;
}
#endif

#if DEVNS_SWITCH_FS_INIT
/*
 * switch/nvidia_imex: Slurm's maker of the job's IMEX channel, which the
 * core runs inside the job's namespace (ns/nsimex.h), as Slurm's own
 * namespace plugins do.
 */
static int imex_make(void *step)
{
	return switch_g_fs_init(step) == SLURM_SUCCESS ? 0 : -1;
}

/*
 * The plan's IMEX part, where slurm.conf's switch hands out channels:
 * the maker, and SwitchParameters' imex_dev_major (0: /proc/devices'),
 * which Slurm's plugin takes first.  -1 when that value is no major:
 * Slurm would use it, devns cannot tell which devices are channels.
 */
static int plan_imex(struct jobct_plan *plan, void *step,
		     struct report *rep)
{
	int rc;

	if (!xstrstr(slurm_conf.switch_type, "nvidia_imex"))
		return 0;
	plan->imex_make = imex_make;
	plan->imex_arg = step;
	rc = imexdev_param_major(slurm_conf.switch_param, &plan->imex_major);
	if (rc < 0)
		return report_error(rep, "SwitchParameters=%s: imex_dev_major is no device major",
				    slurm_conf.switch_param);
	return 0;
}
#else
static int plan_imex(struct jobct_plan *plan, void *step,
		     struct report *rep)
{
	(void)plan;
	(void)step;
	(void)rep;
	return 0;
}
#endif

/*
 * The job's start time, which names its run (jobct_run) where Slurm gives
 * no SLUID (before 25.11): one request to slurmctld.  0 when it cannot be
 * had: the record then names no start time, and only that is lost.
 */
static int64_t job_start_time(uint32_t job_id)
{
	job_info_msg_t *msg = NULL;
	int64_t start = 0;

	if (DEVNS_LOAD_JOB(&msg, job_id, 0) != SLURM_SUCCESS) {
		debug("%s: job %u: cannot read its start time: %m",
		      plugin_type, job_id);
		return 0;
	}
	for (uint32_t i = 0; msg && i < msg->record_count; i++)
		if (msg->job_array[i].job_id == job_id)
			start = (int64_t)msg->job_array[i].start_time;
	slurm_free_job_info_msg(msg);
	return start;
}

/*
 * The extern step: InitScript, then the core's setup with the GRES device
 * files Slurm knows of.  step is the step record where the release passes
 * one (NULL on 22.05); sluid the job's SLUID, 0 before 25.11.
 */
static int stepd_create(uint32_t job_id, uint64_t sluid, uid_t uid,
			gid_t gid, void *step)
{
	char **node_devices = NULL;
	char **job_devices = NULL;
	struct devns_script_job scripts = {
		.node = node, .job_id = job_id, .step = step
	};
	struct jobct_plan plan = {
		.node = node,
		.job_id = job_id,
		.sluid = sluid,
		.uid = uid,
		.gid = gid,
		.userns_arg = &scripts,
#if DEVNS_JC_STEP_RECORD
		.track_init = track_init,
		.track_arg = step,
#endif
	};
	const struct nsconf *c;
	struct report rep;
	int rc = SLURM_ERROR;
	char *user;

	if (!have_node(job_id))
		return SLURM_ERROR;
	c = jobct_node_conf(node);
	if (c->user_ns_script)
		plan.userns_map = devns_script_user_ns;
	/* Source's %u, from Slurm's uid (NULL: a Source with %u fails). */
	report_start(&rep, NULL);
	user = jobct_user_name(uid, &rep);
	node_devices = devns_gres_node_devices();
	plan.node_devices = (const char *const *)node_devices;
	plan.user_name = user;
	report_start(&rep, &job_id);
	setupgate_begin(&setup_gate);
	if (c->init_script && devns_script_init(&scripts, &rep) < 0) {
		report_error(&rep, "refusing the job: InitScript %s failed",
			     c->init_script);
		goto out;
	}
	/* No GRES files on the node: the job cannot hold any. */
	if (node_devices &&
	    devns_gres_job_devices(job_id, step, &job_devices) < 0) {
		report_error(&rep, "refusing the job: its GRES devices cannot be known");
		goto out;
	}
	plan.job_devices = (const char *const *)job_devices;
	if (plan_imex(&plan, step, &rep) < 0)
		goto out;
	if (!sluid)
		plan.start_time = job_start_time(job_id);
	if (jobct_setup(&plan, &rep) < 0)
		goto out;
	if (devns_script_clone_ns(&scripts, &rep) < 0) {
		/* Its message, not the release's, is the job's reason. */
		struct report quiet;

		report_init(&quiet, log_line, &job_id);
		(void)jobct_release(node, job_id, &quiet);
		goto out;
	}
	rc = SLURM_SUCCESS;
out:
	if (rc != SLURM_SUCCESS)
		note_failure(job_id, rep.msg);
	setupgate_end(&setup_gate, rc == SLURM_SUCCESS);
	devns_gres_free(node_devices);
	devns_gres_free(job_devices);
	free(user);
	return rc;
}

/*
 * Runs in each forked child of the job before exec.  Slurm ignores a failed
 * join on some paths (TaskProlog/TaskEpilog), so a child that cannot be
 * contained ends here instead of running uncontained: fail closed.  In
 * slurmd, root's children (Prolog, Epilog) join the namespace only; one
 * forked as the job's user (sbcast's file opener) goes under the filter.
 * in_ns: the slurmstepd lives in the job's namespace already
 * (EntireStepInNS), the child only goes under the filter.
 */
static int join(uint32_t job_id, uint64_t sluid, uid_t uid, bool in_ns)
{
	/* A step that knows its job's SLUID joins only that run's setup. */
	const struct jobct_run run = { .sluid = sluid };
	struct report rep;
	int rc;

	if (job_id == 0)	/* not a job: a system script */
		return SLURM_SUCCESS;
	if (!have_node(job_id))
		_exit(127);
	report_start(&rep, &job_id);
	if (in_ns)
		rc = jobct_join_in_ns(node, job_id, &rep);
	else if (!running_in_slurmd())
		rc = jobct_join_run(node, job_id, sluid ? &run : NULL, &rep);
	else if (uid == 0)
		rc = jobct_join_ns(node, job_id, &rep);
	else
		rc = jobct_join_from_slurmd(node, job_id, &rep);
	if (rc < 0)
		_exit(127);
	return SLURM_SUCCESS;
}

/*
 * pam_slurm_adopt: the stepd has just put the new process into the job's
 * extern step.  Answers once the job's setup has ended (setupgate.h):
 * returns 1 with the namespace fd for the process to setns() into in
 * *fd, 0 when the job has no namespace, or -1 when the process could not
 * be contained (pam_slurm_adopt then reports the adoption as failed, and
 * denies the login with action_adopt_failure=deny).  From 25.11
 * pam_slurm_adopt cannot be trusted with -1 (namespace_p_join_external):
 * a job whose namespace exists always gets its fd, and a process that
 * could not be put under the filter has been killed by jobct_adopt
 * instead.
 */
/*
 * Whether this stepd may still set the job up: only the extern step's
 * does.  step is the stepd's own step where Slurm says it (25.11 on),
 * NO_VAL where it does not: then the socket this stepd listens on says it
 * (util/stepsock.h); unknown counts as "may".
 */
static bool may_set_up(uint32_t job_id, uint32_t step)
{
	if (step == NO_VAL &&
	    stepsock_self_step(conf->spooldir, conf->node_name, job_id,
			       &step) != 1)
		return true;
	return step == SLURM_EXTERN_CONT;
}

static int join_external(uint32_t job_id, uint32_t step, int *fd)
{
	struct report rep;
	int rc;

	*fd = -1;
	if (!have_node(job_id))
		return -1;
	report_start(&rep, &job_id);
	/*
	 * Any user may ask any stepd; one that never sets the job up (the
	 * batch step's) answers at once instead of parking this thread
	 * until ADOPT_START_WAIT_MS have passed.
	 */
	if (!may_set_up(job_id, step))
		setupgate_never(&setup_gate);
	if (setupgate_wait(&setup_gate, ADOPT_START_WAIT_MS) < 0) {
		error("%s: job %u: refusing to adopt a process: the job's setup failed",
		      plugin_type, job_id);
		return -1;
	}
	if (jobct_adopt(node, job_id, DEVNS_JC_NAMESPACE, &rep) < 0 &&
	    !DEVNS_JC_NAMESPACE)
		return -1;
	slurm_mutex_lock(&cache_lock);
	rc = step_ns_fd >= 0 ? 1 : jobct_ns_open(node, job_id, &step_ns_fd, &rep);
	slurm_mutex_unlock(&cache_lock);
	if (rc > 0)
		*fd = step_ns_fd;
	return rc;
}

/*
 * The extern stepd's cached namespace fd goes before the teardown: while
 * it is open the namespace lives on, and with it the job's /tmp (whose
 * TmpDiskLimit project then stays sealed) and its memory.  Slurm may be
 * sending that fd's number to a login at this moment, so the number stays
 * valid: it is made to name /dev/null (dup3 is atomic), which setns(2)
 * refuses, and is never opened again (step_ns_fd stays >= 0).  The user
 * namespace's fd goes the same way.
 */
static void drop_cached_fd(int fd)
{
	int null_fd;

	if (fd < 0)
		return;
	null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null_fd < 0)
		return;
	(void)dup3(null_fd, fd, O_CLOEXEC);
	close(null_fd);
}

static void drop_step_ns_fd(void)
{
	drop_cached_fd(step_ns_fd);
	drop_cached_fd(step_userns_fd);
}

/*
 * The job's end.  Before 24.05 both the extern stepd and slurmd call it,
 * possibly at once: the lock keeps one's CloneNSEpilog off a namespace
 * the other is tearing down.
 */
static int release(uint32_t job_id)
{
	struct report rep;
	int lock, rc;

	if (!have_node(job_id))
		return SLURM_ERROR;
	report_start(&rep, &job_id);
	lock = jobct_end_lock(node, job_id);
	devns_script_clone_ns_epilog(node, job_id, &rep);
	drop_step_ns_fd();
	rc = jobct_release(node, job_id, &rep);
	jobct_end_unlock(node, job_id, lock);
	return rc < 0 ? SLURM_ERROR : SLURM_SUCCESS;
}

/* ==== entry points whose arguments differ (slurm_compat.h) ============== */

#if DEVNS_JC_JOB_CALLS
/* 22.05 to 23.11: slurmd's calls for each job, and reconfigure. */

extern void container_p_reconfig(void)
{
	struct jobct_node *n = load_node();
	bool restart_pool;

	/* A broken file on reconfigure keeps the running configuration. */
	if (!n) {
		error("%s: keeping the previous settings", plugin_type);
		return;
	}
	/* Clearing and copying again is for a pool that changed. */
	restart_pool = !jobct_pool_same(node, n);
	if (restart_pool)
		pool_stop();
	slurm_mutex_lock(&node_lock);
	jobct_node_free(node);
	node = n;
	slurm_mutex_unlock(&node_lock);
	log_settings("reconfigured from");
	if (restart_pool && running_in_slurmd())
		pool_start();
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

/* slurmd's call after the job's steps are gone: a backstop, idempotent. */
extern int container_p_delete(uint32_t job_id)
{
	return release(job_id);
}
#endif

/* The extern step's setup. */
#if DEVNS_JC_NAMESPACE
extern int namespace_p_stepd_create(stepd_step_rec_t *step)
{
	return stepd_create(step->step_id.job_id, DEVNS_STEP_SLUID(&step->step_id),
			    step->uid, step->gid, step);
}
#elif DEVNS_JC_STEP_RECORD
extern int container_p_stepd_create(uint32_t job_id, stepd_step_rec_t *step)
{
	return stepd_create(job_id, DEVNS_STEP_SLUID(&step->step_id), step->uid,
			    step->gid, step);
}
#else
/* 22.05 passes no gid: the plan gets the job's uid only. */
extern int container_p_stepd_create(uint32_t job_id, uid_t uid)
{
	return stepd_create(job_id, 0, uid, (gid_t)-1, NULL);
}
#endif

/* The extern step's end. */
#if DEVNS_JC_DELETE_STEP_RECORD
extern int namespace_p_stepd_delete(stepd_step_rec_t *step)
{
	return release(step->step_id.job_id);
}
#elif DEVNS_JC_NAMESPACE
extern int namespace_p_stepd_delete(slurm_step_id_t *step_id)
{
	return release(step_id->job_id);
}
#else
extern int container_p_stepd_delete(uint32_t job_id)
{
	return release(job_id);
}
#endif

#if DEVNS_JC_JOIN_STEP_ID
/*
 * step_create: slurmd's fork that becomes a new slurmstepd (never the
 * extern step's, whose stepd makes the namespace).  Without
 * EntireStepInNS devns keeps the stepd outside and contains the step's
 * processes, which join in their own forks; with it, as tmpfs, the stepd
 * goes into the job's namespace here (a failure ends the fork: no stepd),
 * and its processes then only go under the filter.
 */
extern int DEVNS_JC(join)(slurm_step_id_t *step_id, uid_t uid,
			  bool step_create)
{
	bool entire = jobct_node_conf(node)->entire_step_in_ns;

	if (step_create)
		return entire ? join(step_id->job_id, 0, 0, false)
			      : SLURM_SUCCESS;
	return join(step_id->job_id, DEVNS_STEP_SLUID(step_id), uid,
		    entire && running_in_slurmstepd() &&
		    step_id->step_id != SLURM_EXTERN_CONT);
}
#else
extern int container_p_join(uint32_t job_id, uid_t uid)
{
	return join(job_id, 0, uid, false);
}
#endif

#if DEVNS_JC_NAMESPACE
/*
 * UserNamespace without PidNamespace: pam_slurm_adopt enters the user
 * namespace after the mount namespace (the list's order).  Returns 1 with
 * step_userns_fd, 0 when the job has none for it (jobct_adopt_userns_open),
 * or -1: an existing namespace that cannot be opened, where the login
 * must not go on outside it, so the adoption fails (see below for what
 * pam_slurm_adopt then does).
 */
static int adopt_user_namespace(uint32_t job_id)
{
	struct report rep;
	int rc = 1;

	report_start(&rep, &job_id);
	slurm_mutex_lock(&cache_lock);
	if (step_userns_fd < 0)
		rc = jobct_adopt_userns_open(node, job_id, &step_userns_fd,
					     &rep);
	slurm_mutex_unlock(&cache_lock);
	return rc;
}

#if DEVNS_JC_JOIN_EXTERNAL_OWNED
/*
 * 26.11: the stepd's list owns its entries (stepd_destroy_ns_fd_map closes
 * each fd and xfree()s each entry), so each gets an xmalloc'd entry and a
 * dup of the cached fd (ns/nsfdmap.h).  Never fails: xmalloc aborts.
 */
static int take_entry(int nstype, int fd, void *arg)
{
	ns_fd_map_t *entry = xmalloc(sizeof(*entry));

	entry->type = nstype;
	entry->fd = fd;
	list_append((list_t *)arg, entry);
	return 0;
}

static int hand_fds(list_t *fd_map, int mnt_fd, int userns_fd)
{
	const struct nsfd cached[] = {
		{ .nstype = CLONE_NEWNS, .fd = mnt_fd },
		{ .nstype = CLONE_NEWUSER, .fd = userns_fd },
	};

	if (nsfdmap_hand(cached, 2, take_entry, fd_map) < 0) {
		error("%s: cannot hand a namespace fd to the login: %m",
		      plugin_type);
		return -1;
	}
	return 0;
}
#else
/*
 * Up to 26.05 the stepd's list frees no entry and closes no fd
 * (slurmstepd/req.c: list_create(NULL)), so the entries are static and
 * the fds the cache's own.
 */
static int hand_fds(list_t *fd_map, int mnt_fd, int userns_fd)
{
	static ns_fd_map_t mnt_ns = { .type = CLONE_NEWNS, .fd = -1 };
	static ns_fd_map_t user_ns = { .type = CLONE_NEWUSER, .fd = -1 };

	mnt_ns.fd = mnt_fd;
	list_append(fd_map, &mnt_ns);
	if (userns_fd >= 0) {
		user_ns.fd = userns_fd;
		list_append(fd_map, &user_ns);
	}
	return 0;
}
#endif

/*
 * The namespaces for pam_slurm_adopt to setns() into, appended to fd_map:
 * the job's mount namespace, then its user namespace where it has one;
 * none when the node has no BasePath.  What the list's entries are
 * depends on who frees them (hand_fds, DEVNS_JC_JOIN_EXTERNAL_OWNED); the
 * fds devns keeps (step_ns_fd, step_userns_fd) are opened once for the
 * job's life either way.  -1 refuses the adoption: the stepd then closes
 * the connection without an answer.
 * But 25.11's and 26.05's pam_slurm_adopt handle that badly
 * (doc/slurm-26.05-port.md, section 2): stepd_get_namespace_fds and
 * _adopt_process both free the list (glibc usually aborts the PAM process
 * on the double free), and a block-local rc in _adopt_process would report
 * the adoption as successful: the login would go on outside the namespace.
 * 26.11's frees it once but keeps the shadowed rc.  So -1 comes only when
 * the job has no namespace to give (its setup failed: Slurm ends the job,
 * and the login with it) or its fds cannot be handed; containment never
 * rests on PAM's error path (join_external).
 */
extern int namespace_p_join_external(slurm_step_id_t *step_id,
				     list_t *fd_map)
{
	int fd, rc = join_external(step_id->job_id, step_id->step_id, &fd);

	if (rc < 0)
		return -1;
	if (rc > 0) {
		if ((rc = adopt_user_namespace(step_id->job_id)) < 0)
			return -1;
		if (hand_fds(fd_map, fd, rc > 0 ? step_userns_fd : -1) < 0)
			return -1;
	}
	return list_count(fd_map);
}

/*
 * task/cgroup leaves the job's devices unconstrained when this is false and
 * there is no BPF token: slurmstepd never enters the job's user namespace
 * (UserNamespace: only the job's processes do, last), so Slurm's own
 * device programs always work.
 */
extern bool namespace_p_can_bpf(stepd_step_rec_t *step)
{
	(void)step;
	return true;
}

/* No BPF token is needed (can_bpf is always true). */
extern int namespace_p_setup_bpf_token(stepd_step_rec_t *step)
{
	(void)step;
	return SLURM_SUCCESS;
}
#else
/* Slurm's answer: the fd, 0 for no namespace, or -1. */
extern int container_p_join_external(uint32_t job_id)
{
	int fd, rc = join_external(job_id, NO_VAL, &fd);

	return rc > 0 ? fd : rc;
}
#endif

#if DEVNS_JC_SEND_RECV
/*
 * slurmd: hand each new slurmstepd the settings it parsed, as the exact
 * text of the file and its path (ns/nsconf_msg.h).  Copied under the lock,
 * written outside it: a slow stepd never holds up a reconfigure.  A
 * failure fails the step's launch (Slurm's rwfail).
 */
extern int DEVNS_JC(send_stepd)(int fd)
{
	struct report rep;
	size_t len = 0;
	char *buf;
	int rc;

	report_start(&rep, NULL);
	slurm_mutex_lock(&node_lock);
	buf = nsconf_msg_encode(node ? jobct_node_conf(node) : NULL, &len,
				&rep);
	slurm_mutex_unlock(&node_lock);
	if (!buf)
		return SLURM_ERROR;
	rc = nsconf_msg_send(fd, buf, len, &rep);
	free(buf);
	return rc < 0 ? SLURM_ERROR : SLURM_SUCCESS;
}

/*
 * slurmstepd: slurmd's settings, parsed here with the same parser (every
 * error still names the file and line) and checked as slurmd's load
 * checks them, BasePath made by nobody but slurmd.  Anything wrong fails
 * the stepd (Slurm's fatal), and with it the job: never the file instead.
 */
extern int DEVNS_JC(recv_stepd)(int fd)
{
	struct nsconf_msg msg;
	struct report rep;
	struct jobct_node *n;

	report_start(&rep, NULL);
	if (nsconf_msg_recv(fd, &msg, &rep) < 0)
		return SLURM_ERROR;
	n = devns_node_from_text(msg.path, msg.text, &rep);
	nsconf_msg_clear(&msg);
	if (!n)
		return SLURM_ERROR;
	jobct_node_free(node);
	node = n;
	log_settings("from slurmd, parsed from");
	return SLURM_SUCCESS;
}
#endif
