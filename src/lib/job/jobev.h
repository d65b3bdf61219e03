/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jobev.h - a job's events as a Slurm daemon gets them, in the order the
 * core decides: one entry per event, the Slurm plugin's only business
 * being to translate Slurm's call and data into it.
 *
 *   the extern step starts     jobev_stepd_create: setup gate, InitScript,
 *                              what Slurm knows of the job (GRES devices,
 *                              start time), jobct_setup, CloneNSScript;
 *                              a failing step undoes only the steps before
 *                              it, the failure is noted for the admin
 *   every job process          jobev_join: which join verb of jobct.h
 *   pam_slurm_adopt            jobev_join_external, jobev_adopt_userns:
 *                              the gate, jobct_adopt, the cached fds
 *   the job ends               jobev_stepd_delete: end lock, CloneNSEpilog,
 *                              the cached fds retired, jobct_release,
 *                              unlock
 *
 * What only Slurm can do (run a site script with Slurm's variables, note a
 * failure in the job's record, name the job's devices, track a process)
 * comes in through struct jobev_hooks, which the plugin fills once.  A new
 * thing Slurm must do at one of these moments is one more hook and one line
 * here; a new moment is one more step in jobev.c's setup table.
 */
#ifndef DEVNS_JOBEV_H
#define DEVNS_JOBEV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "job/jobct.h"
#include "job/setupgate.h"
#include "util/report.h"

/* The job an event is about, as Slurm names it. */
struct jobev_job {
	const struct jobct_node *node;	/* the daemon's settings; NULL: none
					 * (a stepd that got none: refused) */
	uint32_t job_id;
	uint64_t sluid;		/* the job's SLUID, 0: Slurm gives none */
	uid_t uid;
	gid_t gid;		/* (gid_t)-1: not given (22.05) */
	void *step;		/* Slurm's step record, for the hooks (NULL:
				 * none given) */
};

/* What only Slurm knows of a job at its setup (jobev_hooks.describe). */
struct jobev_facts {
	bool want_start_time;	/* in: the job has no SLUID, so its start
				 * time names its run (jobct_run) */
	char **node_devices;	/* out: the node's GRES device files
				 * (NULL-terminated, NULL: none) */
	char **job_devices;	/* out: those allocated to the job */
	int64_t start_time;	/* out: 0 when not known */
	bool want_job_mem;	/* in: a tmpfs is sized as a share of the
				 * job's memory (nsconf_uses_job_memory) */
	uint64_t job_mem;	/* out: the job's memory limit on this node in
				 * bytes, 0: none (then node_mem) */
	uint64_t node_mem;	/* out: the node's memory in bytes, 0: the
				 * kernel's count */
	const char *disk_gres;	/* in: TmpDiskGres's name, NULL: not set */
	bool want_tmp_disk;	/* in: TmpDiskLimit=request wants --tmp */
	struct nsconf_disk_ask disk_ask; /* out: the TmpDiskGres count
				 * allocated here, --tmp, in bytes (describe
				 * fails when a wanted one cannot be had) */
	nsimex_make_fn imex_make; /* out: the switch's IMEX channel maker
				 * (jobct_plan), NULL: none */
	void *imex_arg;
	uint32_t imex_major;	/* out: SwitchParameters' imex_dev_major */
};

/*
 * What only Slurm can do, each called at its place in the sequence.  A
 * hook returning int returns 0, or -1 with the reason in rep, which fails
 * the event.  NULL: the daemon has none (track_init before 23.02).
 */
struct jobev_hooks {
	/* InitScript, before anything is made (called when it is set) */
	int (*init_script)(const struct jobev_job *job, struct report *rep);
	/*
	 * What Slurm knows of the job (facts): one slurmctld request at
	 * most, where it needs one at all.  -1: its devices cannot be known,
	 * the job is refused.  facts_free releases what it filled, always.
	 */
	int (*describe)(const struct jobev_job *job, struct jobev_facts *facts,
			struct report *rep);
	void (*facts_free)(struct jobev_facts *facts);
	/* UserNsScript, writing the maps of pid's user namespace (when set) */
	int (*user_ns_script)(const struct jobev_job *job, pid_t pid,
			      struct report *rep);
	/* PidNamespace's init into the step's process tracking */
	int (*track_init)(const struct jobev_job *job, pid_t init,
			  struct report *rep);
	/* CloneNSScript, once the namespace exists (when set, with BasePath) */
	int (*clone_ns_script)(const struct jobev_job *job,
			       struct report *rep);
	/* CloneNSEpilog, while the namespace still exists; only logged */
	void (*clone_ns_epilog)(const struct jobev_job *job,
				struct report *rep);
	/* a failed setup's reason where the admin looks (AdminComment) */
	void (*note_failure)(const struct jobev_job *job, const char *why);
	/* the setup succeeded: the job runs (e.g. its usage sampled) */
	void (*started)(const struct jobev_job *job);
	/* the job ends, under the end lock, before anything is released */
	void (*ending)(const struct jobev_job *job);
};

/*
 * The core's own verbs jobev calls (jobct.h); the unit tests replace them
 * to see the order and to make each fail.  NULL in jobev_stepd: jobct's.
 */
struct jobev_verbs {
	const struct nsconf *(*conf)(const struct jobct_node *node);
	char *(*user_name)(uid_t uid, struct report *rep);
	int (*setup)(const struct jobct_plan *plan, struct report *rep);
	int (*setup_undo)(const struct jobct_plan *plan, struct report *rep);
	int (*join_run)(const struct jobct_node *node, uint32_t job_id,
			const struct jobct_run *run, struct report *rep);
	int (*join_in_ns)(const struct jobct_node *node, uint32_t job_id,
			  struct report *rep);
	int (*join_ns)(const struct jobct_node *node, uint32_t job_id,
		       struct report *rep);
	int (*join_from_slurmd)(const struct jobct_node *node,
				uint32_t job_id, struct report *rep);
	int (*adopt)(const struct jobct_node *node, uint32_t job_id,
		     bool kill_uncontained, struct report *rep);
	int (*ns_open)(const struct jobct_node *node, uint32_t job_id,
		       int *fd, struct report *rep);
	int (*userns_open)(const struct jobct_node *node, uint32_t job_id,
			   int *fd, struct report *rep);
	bool (*ns_exists)(const struct jobct_node *node, uint32_t job_id);
	int (*end_lock)(const struct jobct_node *node, uint32_t job_id);
	void (*end_unlock)(const struct jobct_node *node, uint32_t job_id,
			   int fd);
	int (*release)(const struct jobct_node *node, uint32_t job_id,
		       struct report *rep);
};

extern const struct jobev_verbs jobev_jobct_verbs;

/*
 * One daemon's state across a job's events: the extern stepd's setup gate
 * (setupgate.h) and the namespace fds it caches for pam_slurm_adopt.  The
 * stepd answers each login on a thread of its own: two first logins at
 * once would each open the namespace, and the fd one of them cached over
 * would outlive the teardown, keeping the job's namespace and /tmp alive;
 * cache_lock is held only while the cache is opened.
 */
struct jobev_stepd {
	const struct jobev_hooks *hooks;
	const struct jobev_verbs *verbs;	/* NULL: jobev_jobct_verbs */
	struct setupgate gate;
	pthread_mutex_t cache_lock;
	int ns_fd;		/* the job's mount namespace, -1: not open */
	int userns_fd;		/* its user namespace, -1: not open */
};

#define JOBEV_STEPD_INIT(hooks_) \
	{ (hooks_), NULL, SETUPGATE_INIT, PTHREAD_MUTEX_INITIALIZER, -1, -1 }

/* How long a login waits for a setup that has not begun, in ms. */
#define JOBEV_ADOPT_START_WAIT_MS 30000

/*
 * The extern step's setup, in this order: the gate begins (logins wait),
 * InitScript, describe (the job's devices, start time, memory and IMEX
 * channel maker),
 * jobct_setup, CloneNSScript, started; the gate ends with the result.  A step that fails undoes
 * only the steps before it that made something (jobct_setup_undo), the
 * reason goes to note_failure and stays in rep.  Returns 0, or -1.
 */
int jobev_stepd_create(struct jobev_stepd *st, const struct jobev_job *job,
		       struct report *rep);

/* Who asks a job process to join (jobev_join). */
enum jobev_joiner {
	JOBEV_STEPD,		/* a slurmstepd's child; with EntireStepInNS
				 * that stepd is in the namespace already */
	JOBEV_STEPD_OUTSIDE,	/* the extern stepd's child, or any stepd's
				 * before 24.11: the stepd is outside */
	JOBEV_STEPD_CREATE,	/* slurmd's fork that becomes a stepd */
	JOBEV_SLURMD,		/* slurmd's own fork: root's (Prolog,
				 * Epilog), or the user's (sbcast) */
};

/*
 * A process of the job, before exec, joins what its place calls for
 * (jobct_join_run, jobct_join_in_ns, jobct_join_ns or
 * jobct_join_from_slurmd); job_id 0 (no job: a system script) joins
 * nothing.  Returns 0, or -1: the process must not run.
 */
int jobev_join(struct jobev_stepd *st, const struct jobev_job *job,
	       enum jobev_joiner who, struct report *rep);

/*
 * pam_slurm_adopt: waits for the setup (may_set_up false: this stepd never
 * sets the job up, no wait for it to begin), puts the extern step's
 * processes under the filter (jobct_adopt; with kill_uncontained a
 * failure kills the process and the login still gets the namespace), and
 * gives the cached namespace fd, opened on first use.  Returns 1 with the
 * fd in *fd (the cache's: not to be closed), 0 when the job has no
 * namespace, -1 to refuse.
 */
int jobev_join_external(struct jobev_stepd *st, const struct jobev_job *job,
			bool may_set_up, bool kill_uncontained, int *fd,
			struct report *rep);

/*
 * After jobev_join_external gave a namespace: the job's user namespace
 * for the login (jobct_adopt_userns_open), cached as the mount
 * namespace's.  1 with the fd in *fd, 0 when none is for it, -1 refuses.
 */
int jobev_adopt_userns(struct jobev_stepd *st, const struct jobev_job *job,
		       int *fd, struct report *rep);

/*
 * The job's end, under the end lock (jobct_end_lock: before 24.05 slurmd
 * and the extern stepd both end the job): ending, CloneNSEpilog while the
 * namespace exists, the cached fds retired (they would keep the namespace
 * and its /tmp alive; their numbers stay valid for a login being sent one,
 * naming /dev/null, which setns(2) refuses), then jobct_release.
 * Returns 0, or -1.
 */
int jobev_stepd_delete(struct jobev_stepd *st, const struct jobev_job *job,
		       struct report *rep);

/* The daemon unloads: the cached fds are closed. */
void jobev_stepd_close(struct jobev_stepd *st);

#endif /* DEVNS_JOBEV_H */
