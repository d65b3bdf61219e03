/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * job_container_devns.c - Slurm job_container plugin: a private mount
 * namespace per job (own /tmp, own /dev/shm) and a per-job device filter.
 *
 * Translation only: each of Slurm's calls becomes one entry of the
 * Slurm-free core (src/lib/job/jobev.h for a job's events, jobct.h for the
 * node), which owns the order; the core's reports come out through
 * Slurm's log with one prefix, plugin_type.  What Slurm alone can do is
 * the core's hooks (struct jobev_hooks, below): the site's scripts
 * (devns_scripts.c: InitScript, CloneNSScript, CloneNSEpilog,
 * UserNsScript, with what Slurm tells them), the job's record and
 * AdminComment (devns_job.c), the GRES lookups (devns_gres.c); and asking
 * slurmstepds whether they live (restore).
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
#include <string.h>
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

#include "conf/nsconf_msg.h"
#include "dev/imexdev.h"
#include "job/jobct.h"
#include "job/jobev.h"
#include "ns/nsfdmap.h"
#include "ns/nsusage.h"
#include "util/admincomment.h"
#include "slurmconv/rangelist.h"
#include "util/stepcaller.h"
#include "slurmconv/stepsock.h"
#include "devns_gres.h"
#include "devns_job.h"
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
static struct nspool_keeper *keeper;	/* slurmd's NamespacePool thread */
static struct jobct_restorer *restorer;	/* slurmd's restore, behind it */
/*
 * The job's owner, as the extern stepd's setup was told it: who besides
 * root may have the job's namespace fd (caller_may_have_ns).  Unknown in
 * every other stepd.
 */
static uid_t job_owner = STEPCALLER_NO_OWNER;

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

static struct jobev_stepd stepd;	/* with its hooks, below */
static void restore_stop(void);

static void release_node(void)
{
	restore_stop();
	pool_stop();
	jobev_stepd_close(&stepd);
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
 * behind it (slurmconv/stepsock.h): one stale socket (a step killed with -9)
 * says nothing about the job's other steps, and a stepd that is hung or
 * busy is still alive.  Tearing down a live job's namespace and filter
 * would remove its /tmp and let its next step run unfiltered, so only a
 * refused connection counts as ended, and an unreadable spool keeps all.
 * The spool is read once, at restore (with 10,000 jobs left, once per
 * job would be 10,000 reads of 10,000 names); restore then works behind
 * slurmd, and a job none of whose steps answered then can only have
 * started again since: its extern step comes first (PrologFlags=Contain,
 * checked at slurmd's start), so that step's socket is asked too.
 */
static uint32_t *alive_ids;	/* answered at restore, sorted */
static size_t alive_count;
static bool alive_unknown;	/* the spool could not be read: all alive */
/* slurmd's spool and node name at restore: a reconfigure frees conf's
 * strings while restore's threads may still read them. */
static char *alive_spool, *alive_node;

static int job_id_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static bool job_is_alive(uint32_t job_id, void *arg)
{
	(void)arg;
	if (alive_unknown ||
	    bsearch(&job_id, alive_ids, alive_count, sizeof(*alive_ids),
		    job_id_cmp))
		return true;
	return stepsock_step_alive(alive_spool, alive_node, job_id,
				   SLURM_EXTERN_CONT) != 0;
}

/* Wait for restore's thread, after its current job, and forget it. */
static void restore_stop(void)
{
	(void)jobct_restore_finish(restorer, true);	/* NULL: a no-op */
	restorer = NULL;
	free(alive_ids);
	alive_ids = NULL;
	alive_count = 0;
	free(alive_spool);
	free(alive_node);
	alive_spool = alive_node = NULL;
}

/*
 * slurmd's start: what ended jobs left is found now and removed behind
 * slurmd by a thread (jobct_restore_start), so that 10,000 of them do not
 * hold up its registration and the jobs sent to it meanwhile.
 */
static int restore_start(void)
{
	struct jobct_restore_args args = { .alive = job_is_alive };
	struct report rep;

	report_start(&rep, NULL);
	if (!(alive_spool = strdup(conf->spooldir)) ||
	    !(alive_node = strdup(conf->node_name))) {
		error("%s: restore: out of memory", plugin_type);
		free(alive_spool);
		alive_spool = NULL;
		return -1;
	}
	alive_unknown = stepsock_alive_jobs(alive_spool, alive_node,
					    &alive_ids, &alive_count) < 0;
	if (alive_unknown)
		error("%s: restore: cannot read %s, so every job that left something counts as alive: %m",
		      plugin_type, conf->spooldir);
	restorer = jobct_restore_start(node, &args, &rep);
	return rep.errors ? -1 : 0;
}

extern int DEVNS_JC(restore)(char *dir_name, bool recover)
{
	int rc;

	(void)dir_name;
	(void)recover;
	restore_stop();
	rc = restore_start();
	/* After restore's first half, which cleared what an earlier
	 * slurmd left of the pool. */
	if (!keeper)
		pool_start();
	return rc < 0 ? SLURM_ERROR : SLURM_SUCCESS;
}

/* ---- one job: the core's hooks ------------------------------------------ */

static void note_failure(const struct jobev_job *job, const char *why)
{
	devns_job_note_failure(job->job_id, why);
}

/*
 * The memory the job asked slurmctld for on this node in bytes (record:
 * its record; --mem, or --mem-per-cpu times its CPUs here: cpus, 0: from
 * the record's resources, which 22.05 has; -1: unknown).  Returns 0, or
 * -1 when it cannot be had.
 */
static int job_memory_asked(const slurm_job_info_t *record, int cpus,
			    uint64_t *bytes)
{
	uint64_t mb = record->pn_min_memory & ~MEM_PER_CPU;

	if (!(record->pn_min_memory & MEM_PER_CPU))
		cpus = 1;
#if !DEVNS_JC_STEP_RECORD
	else if (!cpus)
		cpus = slurm_job_cpus_allocated_on_node(record->job_resrcs,
							conf->node_name);
#endif
	if (cpus <= 0)
		return -1;
	*bytes = mb * (uint64_t)cpus * 1024 * 1024;
	return 0;
}

/*
 * The job's memory limit on this node from its step record, in bytes:
 * from 23.02 (MB, --mem-per-cpu already times the CPUs here) where memory
 * is a consumable resource.  Returns false where the record has none (and
 * always on 22.05): then the job's request (job_memory_asked), over the
 * CPUs step_cpus gives.
 */
static bool step_job_mem(void *step, uint64_t *bytes)
{
#if DEVNS_JC_STEP_RECORD
	stepd_step_rec_t *rec = step;

	*bytes = rec ? rec->job_mem * 1024 * 1024 : 0;
	return *bytes != 0;
#else
	(void)step;
	(void)bytes;
	return false;
#endif
}

/* The job's CPUs here: its credential's cores, each of conf->threads
 * (-1: unknown); 22.05: 0, the record's resources say. */
static int step_cpus(void *step)
{
#if DEVNS_JC_STEP_RECORD
	stepd_step_rec_t *rec = step;
	long cores = rec && rec->job_alloc_cores
		     ? rangelist_count(rec->job_alloc_cores) : -1;

	return cores > 0 ? (int)cores * (conf->threads ? conf->threads : 1)
			 : -1;
#else
	(void)step;
	return 0;
#endif
}

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
 * The setup's IMEX part, where slurm.conf's switch hands out channels:
 * the maker, and SwitchParameters' imex_dev_major (0: /proc/devices'),
 * which Slurm's plugin takes first.  -1 when that value is no major:
 * Slurm would use it, devns cannot tell which devices are channels.
 */
static int describe_imex(void *step, struct jobev_facts *facts,
			 struct report *rep)
{
	if (!xstrstr(slurm_conf.switch_type, "nvidia_imex"))
		return 0;
	facts->imex_make = imex_make;
	facts->imex_arg = step;
	if (imexdev_param_major(slurm_conf.switch_param,
				&facts->imex_major) < 0)
		return report_error(rep, "SwitchParameters=%s: imex_dev_major is no device major",
				    slurm_conf.switch_param);
	return 0;
}
#else
static int describe_imex(void *step, struct jobev_facts *facts,
			 struct report *rep)
{
	(void)step;
	(void)facts;
	(void)rep;
	return 0;
}
#endif

/*
 * What the job asked of BasePath's disk (TmpDiskGres, TmpDiskLimit=
 * request), from its record, which every release's slurmctld sends with
 * this node's GRES counts and --tmp (pn_min_tmp_disk, MB); neither is in
 * the step record or the credential.  -1: wanted and not known.
 */
static int describe_disk(const struct jobev_job *job,
			 const slurm_job_info_t *record,
			 struct jobev_facts *facts, struct report *rep)
{
	if (!facts->disk_gres && !facts->want_tmp_disk)
		return 0;
	if (!record)
		return report_error(rep, "refusing the job: its /tmp limit cannot be known without its record from slurmctld");
	if (facts->disk_gres &&
	    devns_gres_job_count(record, facts->disk_gres,
				 &facts->disk_ask.gres_bytes) < 0)
		return report_error(rep, "refusing the job: its GRES %s, which sizes its /tmp, cannot be read from its record",
				    facts->disk_gres);
	if (facts->want_tmp_disk)
		facts->disk_ask.tmp_bytes =
			(uint64_t)record->pn_min_tmp_disk * 1024 * 1024;
	devns_log_flag("%s: job %u asks %" PRIu64 " bytes of GRES %s, --tmp %" PRIu64 " bytes",
		       plugin_type, job->job_id, facts->disk_ask.gres_bytes,
		       facts->disk_gres ? facts->disk_gres : "(none)",
		       facts->disk_ask.tmp_bytes);
	return 0;
}

/*
 * What Slurm knows of the job at its setup: the node's GRES device files,
 * those allocated to the job, its start time where it has no SLUID, its
 * memory limit here where a tmpfs is sized by it.  Where any needs the
 * job's record (22.05's GRES allocation, the start time before 26.05, the
 * memory the step record lacks) it is asked of slurmctld once.  A start
 * time that cannot be had is 0: the setup record then names none, and
 * only that is lost; a memory limit that cannot be had refuses the job.
 */
static int describe(const struct jobev_job *job, struct jobev_facts *facts,
		    struct report *rep)
{
	job_info_msg_t *msg = NULL;
	slurm_job_info_t *record = NULL;
	bool need_record, need_mem;
	int rc = 0;

	if (describe_imex(job->step, facts, rep) < 0)
		return -1;
	facts->node_devices = devns_gres_node_devices();
	/* RealMemory unset is 1 (MB): then the kernel's count (jobct). */
	if (DEVNS_NODE_MEMORY_MB(conf) > 1)
		facts->node_mem = (uint64_t)DEVNS_NODE_MEMORY_MB(conf) * 1024 * 1024;
	need_record = (facts->node_devices && !DEVNS_JC_STEP_RECORD) ||
		      facts->disk_gres || facts->want_tmp_disk;
	need_mem = facts->want_job_mem && !step_job_mem(job->step, &facts->job_mem);
	if ((need_record || need_mem || facts->want_start_time) &&
	    devns_job_load(job->job_id, &msg, &record) < 0) {
		if (!need_record && !need_mem)
			debug("%s: job %u: cannot read its start time: %m",
			      plugin_type, job->job_id);
		else if (errno == ENOENT)
			error("%s: job %u: slurmctld returned no job record",
			      plugin_type, job->job_id);
		else
			error("%s: job %u: cannot read the job's record (GRES allocation, memory) from slurmctld: %m",
			      plugin_type, job->job_id);
	}
	if (need_mem &&
	    (!record || job_memory_asked(record, step_cpus(job->step),
					 &facts->job_mem) < 0)) {
		report_error(rep, "refusing the job: its memory limit, which sizes its tmpfs, cannot be known");
		rc = -1;
	}
	if (describe_disk(job, record, facts, rep) < 0)
		rc = -1;
	/* No GRES files on the node: the job cannot hold any. */
	if (facts->node_devices &&
	    devns_gres_job_devices(job->job_id, job->step, record,
				   &facts->job_devices) < 0)
		rc = -1;
	if (record && facts->want_start_time)
		facts->start_time = (int64_t)record->start_time;
	slurm_free_job_info_msg(msg);
	return rc;
}

static void facts_free(struct jobev_facts *facts)
{
	devns_gres_free(facts->node_devices);
	devns_gres_free(facts->job_devices);
	facts->node_devices = facts->job_devices = NULL;
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
static int track_init(const struct jobev_job *job, pid_t init,
		      struct report *rep)
{
	if (proctrack_g_add(job->step, init) != SLURM_SUCCESS)
		return report_errno(rep, errno, "proctrack_g_add");
	return 0;
}
#endif

/*
 * The job's /tmp and /dev/shm figures (ns/nsusage.h), sampled by a thread
 * of the extern stepd from its setup: posted to the job's AdminComment
 * while it runs (Slurm refuses to change it once the job has ended, which
 * is before this stepd learns of it), replacing this node's earlier
 * figures there, and the final ones logged at its end.
 */
static struct nsusage_sampler *usage_sampler;
static uint32_t usage_job;

static void usage_post(const struct nsusage *u, void *arg)
{
	char entry[ADMINCOMMENT_ENTRY_MAX], prefix[128];

	(void)arg;
	nsusage_format(u, conf->node_name, entry, sizeof(entry));
	snprintf(prefix, sizeof(prefix), "devns:%s:", conf->node_name);
	devns_job_admin_comment(usage_job, entry, prefix);
}

/* The setup succeeded: its private directories are sampled (BasePath). */
static void usage_start(const struct jobev_job *job)
{
	struct report rep;
	uint32_t job_id = job->job_id;

	if (!jobct_node_conf(node)->base_path)
		return;
	report_start(&rep, &job_id);
	usage_job = job_id;
	usage_sampler = nsusage_sampler_start(jobct_node_conf(node), job_id,
					      0, usage_post, NULL, &rep);
}

/* The job ends: the sampler stops and the final figures are logged. */
static void usage_report(const struct jobev_job *job)
{
	struct nsusage u;
	char entry[ADMINCOMMENT_ENTRY_MAX];

	if (!usage_sampler || usage_job != job->job_id)
		return;
	(void)nsusage_sampler_stop(usage_sampler, &u);
	usage_sampler = NULL;
	if (!u.count)
		return;
	nsusage_format(&u, conf->node_name, entry, sizeof(entry));
	info("%s: job %u: usage %s (%u samples, every %d s)", plugin_type,
	     job->job_id, entry, u.samples, NSUSAGE_INTERVAL);
}

static const struct jobev_hooks hooks = {
	.init_script = devns_script_init,
	.describe = describe,
	.facts_free = facts_free,
	.user_ns_script = devns_script_user_ns,
#if DEVNS_JC_STEP_RECORD
	.track_init = track_init,
#endif
	.clone_ns_script = devns_script_clone_ns,
	.clone_ns_epilog = devns_script_clone_ns_epilog,
	.note_failure = note_failure,
	.started = usage_start,
	.ending = usage_report,
};

/*
 * The extern stepd's state across the job's events: its setup gate, which
 * pam_slurm_adopt's requests wait for, and the namespace fds it caches.
 */
static struct jobev_stepd stepd = JOBEV_STEPD_INIT(&hooks);

/* ---- one job: Slurm's calls ---------------------------------------------- */

/*
 * The extern step.  step is the step record where the release passes one
 * (NULL on 22.05); sluid the job's SLUID, 0 before 26.05.
 */
static int stepd_create(uint32_t job_id, uint64_t sluid, uid_t uid,
			gid_t gid, void *step)
{
	const struct jobev_job job = {
		.node = node, .job_id = job_id, .sluid = sluid, .uid = uid,
		.gid = gid, .step = step,
	};
	struct report rep;

	__atomic_store_n(&job_owner, uid, __ATOMIC_RELEASE);
	report_start(&rep, &job_id);
	return jobev_stepd_create(&stepd, &job, &rep) < 0 ? SLURM_ERROR
							  : SLURM_SUCCESS;
}

/*
 * Runs in each forked child of the job before exec.  Slurm ignores a failed
 * join on some paths (TaskProlog/TaskEpilog), so a child that cannot be
 * contained ends here instead of running uncontained: fail closed.
 */
static int join(uint32_t job_id, uint64_t sluid, uid_t uid,
		enum jobev_joiner who)
{
	const struct jobev_job job = {
		.node = node, .job_id = job_id, .sluid = sluid, .uid = uid,
	};
	struct report rep;

	report_start(&rep, &job_id);
	if (jobev_join(&stepd, &job, who, &rep) < 0) {
		/*
		 * sbcast's file opener.  Slurm returns its exit status to
		 * sbcast as an errno: a job whose disk limit would not bind
		 * slurmd's root writes (jobct.h) ends it with EDQUOT, which
		 * the user sees as "Disk quota exceeded", slurmd's log with
		 * our message before it.
		 */
		if (who == JOBEV_SLURMD && errno == EDQUOT)
			_exit(EDQUOT);
		_exit(127);
	}
	return SLURM_SUCCESS;
}

/* Whose fork a join is in, where Slurm does not say it. */
static enum jobev_joiner joiner(bool stepd_in_ns)
{
	if (running_in_slurmd())
		return JOBEV_SLURMD;
	return stepd_in_ns ? JOBEV_STEPD : JOBEV_STEPD_OUTSIDE;
}

/*
 * Whether this stepd may still set the job up: only the extern step's
 * does.  step is the stepd's own step where Slurm says it (25.11 on),
 * NO_VAL where it does not: then the socket this stepd listens on says it
 * (slurmconv/stepsock.h); unknown counts as "may".
 */
static bool may_set_up(uint32_t job_id, uint32_t step)
{
	if (step == NO_VAL &&
	    stepsock_self_step(conf->spooldir, conf->node_name, job_id,
			       &step) != 1)
		return true;
	return step == SLURM_EXTERN_CONT;
}

/*
 * pam_slurm_adopt: the stepd has just put the new process into the job's
 * extern step (jobev_join_external).  From 25.11 pam_slurm_adopt cannot
 * be trusted with -1 (namespace_p_join_external): a process that could
 * not be put under the filter is killed instead, and the login gets the
 * namespace.
 */
static int join_external(uint32_t job_id, uint32_t step, int *fd)
{
	const struct jobev_job job = { .node = node, .job_id = job_id };
	struct report rep;

	report_start(&rep, &job_id);
	return jobev_join_external(&stepd, &job, may_set_up(job_id, step),
				   DEVNS_JC_NAMESPACE, fd, &rep);
}

/*
 * The job's end.  Before 24.05 both the extern stepd and slurmd call it,
 * possibly at once (jobev_stepd_delete holds the end lock).
 */
static int release(uint32_t job_id)
{
	const struct jobev_job job = { .node = node, .job_id = job_id };
	struct report rep;

	report_start(&rep, &job_id);
	return jobev_stepd_delete(&stepd, &job, &rep) < 0 ? SLURM_ERROR
							  : SLURM_SUCCESS;
}

/* ==== entry points whose arguments differ (slurm_compat.h) ============== */

#if DEVNS_JC_JOB_CALLS
/* 22.05 to 23.11: slurmd's calls for each job, and reconfigure. */

extern void container_p_reconfig(void)
{
	struct jobct_node *n = load_node();
	bool restart_pool, restart_restore;

	/* A broken file on reconfigure keeps the running configuration. */
	if (!n) {
		error("%s: keeping the previous settings", plugin_type);
		return;
	}
	/* Clearing and copying again is for a pool that changed. */
	restart_pool = !jobct_pool_same(node, n);
	if (restart_pool)
		pool_stop();
	/* Its thread works on the node freed here: it starts again on n. */
	restart_restore = jobct_restore_busy(restorer);
	restore_stop();
	slurm_mutex_lock(&node_lock);
	jobct_node_free(node);
	node = n;
	slurm_mutex_unlock(&node_lock);
	log_settings("reconfigured from");
	if (restart_restore)
		(void)restore_start();
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
	if (step_create)
		return join(step_id->job_id, 0, 0, JOBEV_STEPD_CREATE);
	return join(step_id->job_id, DEVNS_STEP_SLUID(step_id), uid,
		    joiner(running_in_slurmstepd() &&
			   step_id->step_id != SLURM_EXTERN_CONT));
}
#else
extern int container_p_join(uint32_t job_id, uid_t uid)
{
	return join(job_id, 0, uid, joiner(false));
}
#endif

#if DEVNS_JC_NAMESPACE
/*
 * UserNamespace without PidNamespace: pam_slurm_adopt enters the user
 * namespace after the mount namespace (the list's order).  Returns 1 with
 * its cached fd in *fd, 0 when the job has none for it, or -1: an existing
 * namespace that cannot be opened, where the login must not go on outside
 * it, so the adoption fails (see below for what pam_slurm_adopt then does).
 */
static int adopt_user_namespace(uint32_t job_id, int *fd)
{
	const struct jobev_job job = { .node = node, .job_id = job_id };
	struct report rep;

	report_start(&rep, &job_id);
	return jobev_adopt_userns(&stepd, &job, fd, &rep);
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
 * fds devns keeps (jobev_stepd's cache) are opened once for the job's life
 * either way.  -1 refuses the adoption: the stepd then closes
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
	int fd, userns_fd;
	int rc = join_external(step_id->job_id, step_id->step_id, &fd);

	if (rc < 0)
		return -1;
	if (rc > 0) {
		if (adopt_user_namespace(step_id->job_id, &userns_fd) < 0)
			return -1;
		if (hand_fds(fd_map, fd, userns_fd) < 0)
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
/*
 * Before 25.11 Slurm's REQUEST_GET_NS_FD handler checks no uid and the
 * stepd's socket is 0777: any local user could ask any stepd for the
 * job's namespace fd and hold the namespace (issue 42).  This call gets
 * only the job id; util/stepcaller.h tells from the stepd's own
 * connections and threads whether the request can only be root's or the
 * job owner's.  A refusal is -1, which pam_slurm_adopt takes as a failed
 * adoption (action_adopt_failure=deny then denies the login), never as
 * "no namespace".  Not from 25.11: there a refused pam_slurm_adopt may
 * double free or let the login go on outside the namespace (see
 * namespace_p_join_external), so a mistaken refusal would be worse than
 * the hole (README).
 */
static bool caller_may_have_ns(uint32_t job_id)
{
	uid_t owner = __atomic_load_n(&job_owner, __ATOMIC_ACQUIRE);
	struct stepcaller_peer bad;
	int rc = stepcaller_check(owner, &bad);

	if (rc > 0)
		return true;
	if (rc < 0)
		error("%s: job %u: refusing its namespace fd: cannot tell who asks: %m",
		      plugin_type, job_id);
	else if (bad.fd < 0)
		error("%s: job %u: refusing its namespace fd: the request comes from no connection this stepd can see",
		      plugin_type, job_id);
	else if (owner == STEPCALLER_NO_OWNER)
		error("%s: job %u: refusing its namespace fd: uid %u (pid %d) may be asking; only root may have it from this stepd, which does not know the job's owner",
		      plugin_type, job_id, (unsigned)bad.uid, (int)bad.pid);
	else
		error("%s: job %u: refusing its namespace fd: uid %u (pid %d) may be asking; only root and the job's owner (uid %u) may have it",
		      plugin_type, job_id, (unsigned)bad.uid, (int)bad.pid,
		      (unsigned)owner);
	return false;
}

/* Slurm's answer: the fd, 0 for no namespace, or -1. */
extern int container_p_join_external(uint32_t job_id)
{
	int fd, rc;

	if (!caller_may_have_ns(job_id))
		return -1;
	rc = join_external(job_id, NO_VAL, &fd);
	return rc > 0 ? fd : rc;
}
#endif

#if DEVNS_JC_SEND_RECV
/*
 * slurmd: hand each new slurmstepd the settings it parsed, as the exact
 * text of the file and its path (conf/nsconf_msg.h).  Copied under the lock,
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
