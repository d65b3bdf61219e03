/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jobct.h - a job's containment, from slurmd start to the job's end,
 * without Slurm: the plugins translate Slurm's node calls into these, and
 * a job's events into jobev.h's, which calls these in its order.
 *
 *   slurmd start, reconfigure,   jobct_node_load: namespace.conf for the node
 *   every slurmstepd             (a stepd: the text slurmd read), the device
 *                                policy resolved once, BasePath checked (and
 *                                made, in slurmd)
 *   slurmd start                 jobct_restore_start: remove what jobs that
 *                                ended while slurmd was away left behind,
 *                                in threads behind slurmd (devns cleanup:
 *                                jobct_restore_run)
 *   extern step start            jobct_setup: the job's namespace and device
 *                                filter; any failure fails the job
 *   slurmstepd, before forking   jobct_pidns_enter (PidNamespace)
 *   every job process            jobct_join (in the forked child)
 *   pam_slurm_adopt              jobct_adopt, jobct_ns_open,
 *                                jobct_adopt_userns_open
 *   job end                      jobct_release
 *
 * Fail closed: where containment was asked for and cannot be applied, the
 * call fails and says why.  Every function returns 0 or -1 with errno set
 * and, when rep is not NULL, the reason in rep (util/report.h).
 *
 * What the kernel calls are is in struct jobct_ops, so that the unit tests
 * can make each of them fail and check that nothing runs uncontained and
 * nothing is left behind.
 */
#ifndef DEVNS_JOBCT_H
#define DEVNS_JOBCT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "conf/nsconf.h"
#include "dev/cgroup2.h"
#include "dev/devpolicy.h"
#include "ns/nsimex.h"
#include "ns/nspool_keeper.h"
#include "util/report.h"

#include "job/ops.h"
#include "job/run.h"

/* A node's settings, loaded once per daemon (jobct_node_load); opaque. */
struct jobct_node;


/* What jobct_node_load works from. */
struct jobct_node_args {
	const char *conf_path;	   /* namespace.conf */
	/*
	 * NULL: read conf_path; else the text to parse in its place, read
	 * from conf_path before (slurmstepd: slurmd's, conf/nsconf_msg.h)
	 */
	const char *conf_text;
	const char *node_name;
	const char *host_name;	   /* NodeHostname, BasePath's %h (NULL:
				    * node_name, slurm.conf's default) */
	const char *spool_dir;
	bool make_base_path;	   /* AutoBasePath may create BasePath (slurmd) */
	/*
	 * devns check: create nothing, and take a BasePath that AutoBasePath
	 * would create as slurmd will find it (its existing part checked, a
	 * warning saying it is missing)
	 */
	bool check_only;
	const char *cgroup_root;   /* NULL: the system's cgroup2 mount */
	const char *dev_dir;	   /* NULL: /dev (names of denied devices) */
	const char *proc_devices;  /* NULL: /proc/devices */
	const char *mountinfo;	   /* NULL: /proc/self/mountinfo */
	const struct jobct_ops *ops; /* NULL: jobct_real_ops */
};

/*
 * Reads namespace.conf for the node, or parses args->conf_text for it
 * (every error names file and line),
 * resolves its DevicePolicy/DeviceAllow (a DeviceAllow device that does not
 * exist is a warning in rep) and reads its CDISpecDirs specs (one that
 * does not parse fails the load, "SPEC:LINE: ..."), and checks BasePath like sshd's StrictModes,
 * creating it first when AutoBasePath=yes and args->make_base_path (with
 * args->check_only, checking what exists of it).  With TmpDiskLimit,
 * BasePath's filesystem must enforce project quotas (ns/dquota.h), or the
 * load fails naming TmpDiskLimit, BasePath and what is missing (with
 * args->check_only a BasePath not made yet is a warning).  Then, unless
 * args->check_only (devns check makes them itself, strictly), the checks
 * of conf/confcheck.h that are safe at start: a missing or non-executable
 * InitScript fails the load, a missing Source= fixed part warns.
 * Returns a node to free with jobct_node_free(), or NULL with errno.
 */
struct jobct_node *jobct_node_load(const struct jobct_node_args *args,
				   struct report *rep);

void jobct_node_free(struct jobct_node *node);

/* The node's settings, as namespace.conf gave them (conf/nsconf.h). */
const struct nsconf *jobct_node_conf(const struct jobct_node *node);

/* The node's DevicePolicy and DeviceAllow, resolved (dev/devpolicy.h). */
const struct devpolicy *jobct_node_policy(const struct jobct_node *node);

/*
 * The name of the node's cgroup layout, as found at load: "hybrid",
 * "unified" or "none" (devns check's cgrouplayout).
 */
const char *jobct_node_layout(const struct jobct_node *node);

/* What slurmd knows of its own configuration that jobct_node_check needs. */
struct jobct_slurm {
	const char *gres;	/* slurm.conf's Gres= of the node, NULL: none */
	bool gres_unknown;	/* devns check without a slurm.conf line of
				 * the node: gres tells nothing (TmpDiskGres
				 * is then not checked against it) */
	bool prolog_contain;	/* PrologFlags=Contain: every job has an
				 * extern step, where setup runs */
	bool node_has_devices;	/* the node's GRES have device files */
	const char *const *node_devices; /* those files (NULL-terminated,
				 * NULL: none), which DeviceAllow must not
				 * name */
	bool step_cgroups;	/* ProctrackType=proctrack/cgroup: every step
				 * has cgroups of its own */
	const char *plugstack;	/* the SPANK stack file (PidNamespace needs
				 * it to require devns_pidns.so) */
	bool contain_spank;	/* SlurmdParameters=contain_spank: SPANK
				 * hooks run in a child of slurmstepd */
	bool elsewhere;		/* the node is not this machine (devns check
				 * -n): its kernel and cgroups are not
				 * checked here */
};

/*
 * slurmd start: whether this kernel has what the node's settings need
 * (with a BasePath, the whole new mount API: Linux 5.12; with
 * UserNamespace, user namespaces: user.max_user_namespaces not 0).
 * Returns 0, or -1 with errno (ENOSYS: rep names the kernel and the
 * missing call; EPERM: no user namespaces).
 */
int jobct_kernel_check(const struct jobct_node *node, struct report *rep);

/*
 * At slurmd start, for the log: the node's cgroup layout and where it puts
 * the jobs' filters (a notice), and a warning when DevicePolicy=auto
 * would filter nothing on a node with GRES (slurm->gres) whose devices it
 * does not know (no GRES device files: no gres.conf File=).
 */
void jobct_node_report(const struct jobct_node *node,
		       const struct jobct_slurm *slurm, struct report *rep);

/*
 * At slurmd start: can this node contain its jobs as configured?  Setup
 * runs in the extern step, so PrologFlags=Contain is required.  A job is
 * filtered when the policy is not "auto without DeviceAllow" or the node
 * has GRES device files.  On the hybrid layout devns needs a cgroup2
 * hierarchy of its own.  On the unified layout Slurm's cgroup/v2 owns the
 * job cgroups and devns attaches its filter to Slurm's step cgroups
 * (stepcg.h): that needs proctrack/cgroup, a kernel that loads the filter
 * and no non-overridable device program above slurmd.  A node that would
 * filter and cannot refuses to start, naming the setting, as does one
 * whose DeviceAllow names a GRES device file (devpolicy_check_gres: GRES
 * devices only ever go to the jobs allocated them).  PidNamespace
 * needs the SPANK stack to require devns_pidns.so, whose hooks must run
 * in slurmstepd itself.  Returns 0 or -1 (rep says why).
 */
int jobct_node_check(const struct jobct_node *node,
		     const struct jobct_slurm *slurm, struct report *rep);

/*
 * Whether two runs may be the same: no field known to both differs.
 * Pure.
 */
bool jobct_run_same(const struct jobct_run *a, const struct jobct_run *b);

/* One job, as jobct_setup() contains it. */
struct jobct_plan {
	const struct jobct_node *node;
	uint32_t job_id;
	/* the job's SLUID from 26.05 on (slurmconv/sluid.h), 0: none given */
	uint64_t sluid;
	/* the job's start time (s since the epoch), 0: not known; with
	 * sluid, the run its setup record names */
	int64_t start_time;
	uid_t uid;
	gid_t gid;
	/* the job user's name, from Slurm's uid (for %u), NULL: unknown */
	const char *user_name;
	/*
	 * The job's memory limit on this node in bytes (--mem, or
	 * --mem-per-cpu times its CPUs here), 0: none; and the node's memory
	 * (RealMemory), 0: the kernel's count.  A tmpfs sized "N%" gets N%
	 * of the first, of the second when the job has no limit.
	 */
	uint64_t job_mem;
	uint64_t node_mem;
	/*
	 * What the job asked of BasePath's disk here (TmpDiskGres's count,
	 * --tmp), which with the settings makes its /tmp limit
	 * (nsconf_job_disk_limit); zeros: nothing asked or not wanted.
	 */
	struct nsconf_disk_ask disk_ask;
	/* GRES device files (NULL-terminated, NULL: none) of the node and
	 * those allocated to the job on it */
	const char *const *node_devices;
	const char *const *job_devices;
	/*
	 * UserNamespace: what writes the maps of the job's user namespace
	 * (UserNsScript's runner), NULL: the identity map (ns/userns.h)
	 */
	userns_map_fn userns_map;
	void *userns_arg;
	/*
	 * PidNamespace: hands the namespace's init (its PID on the node) to
	 * the daemon's process tracking, so that the job's end kills it with
	 * the job: Slurm's cgroup/v2 kills only what it tracks and waits
	 * for every process of the step (0, or -1 with rep: the setup fails).
	 * NULL: the init stays where the caller is.
	 */
	int (*track_init)(pid_t init, void *arg, struct report *rep);
	void *track_arg;
	/*
	 * switch/nvidia_imex (Slurm 24.11 on): makes the job's IMEX channel
	 * where it is called (switch_g_fs_init), which jobct_setup runs in
	 * the job's namespace (ns/nsimex.h) and whose channel alone of the
	 * IMEX major the job's filter allows (dev/imexdev.h).  NULL: the
	 * switch hands out no channels.  imex_major: SwitchParameters'
	 * imex_dev_major, 0: the node's /proc/devices says (none there: the
	 * switch makes no channels on this node).
	 */
	nsimex_make_fn imex_make;
	void *imex_arg;
	uint32_t imex_major;
};

/*
 * The device rules jobct_setup() gives the job of plan: fills list (made
 * here, normalised; free it with devrule_list_free()) and returns 1 when
 * the job gets a filter of it, 0 when it gets none (list allows
 * everything), or -1 with errno and rep (list empty).
 */
int jobct_device_rules(const struct jobct_plan *plan,
		       struct devrule_list *list, struct report *rep);

/*
 * Builds and pins the job's namespace (when BasePath is set; with
 * PidNamespace its PID namespace too), has the switch make the job's
 * IMEX channel in it (plan->imex_make: a node with an IMEX major and no
 * BasePath refuses the job, as does a channel that cannot be made or
 * read back) and, when the
 * policy or the node's GRES call for it, makes the job's device cgroup,
 * attaches its filter and leaves a marker saying so.  On failure nothing
 * of the job is left.  The rules go to rep as info lines.
 */
int jobct_setup(const struct jobct_plan *plan, struct report *rep);

/*
 * Undoes a jobct_setup() of plan that succeeded, when a later step of the
 * job's setup fails (CloneNSScript): its namespace, its filter and its
 * setup record, with nothing else a release does (no denials to read: the
 * job never ran; no waiting for privilege: setup has it).  Returns 0, or
 * -1 with errno and rep naming what could not be removed.
 */
int jobct_setup_undo(const struct jobct_plan *plan, struct report *rep);

/*
 * When the job has a PID namespace under BasePath (its setup made one:
 * PidNamespace; NULL: no BasePath, so none), make the calling thread's
 * next children be born in it (ns/pidns.h),
 * while the caller stays outside.  slurmstepd's main thread calls it just
 * before it forks the step's tasks, and jobct_pidns_leave() right after:
 * until then it cannot create threads (clone(2) refuses a thread whose
 * creator's children would be born in another PID namespace).  Returns 1
 * when entered, 0 when the job has none, -1 with errno and rep.
 */
int jobct_pidns_enter(const char *base_path, uint32_t job_id,
		      struct report *rep);

/*
 * After the fork: the calling thread's next children are born where it
 * lives again (it may create threads again).  Returns 0 or -1.
 */
int jobct_pidns_leave(struct report *rep);

/*
 * In a process of the job, before exec: refuse a job without a setup
 * record (job/marker.h: never set up, not yet, or being released); put it
 * under the job's device filter, if it has one (hybrid: enter the job's
 * device cgroup; unified:
 * make sure the filter is on the cgroups of the process's step), and into
 * its namespace.  When the job has a PID namespace, a process born
 * outside it goes on in a child forked inside (pidns_fork_inside: the
 * caller returns in that child, its original stays behind as a stand-in).
 * The caller must be single-threaded.  A failure means the process must
 * not run.
 */
int jobct_join(const struct jobct_node *node, uint32_t job_id,
	       struct report *rep);

/*
 * jobct_join for a process that knows which run of the job it belongs to
 * (run, NULL: not known, as jobct_join): a setup record of another run
 * (jobct_run_same) is refused as a missing one is, so an earlier run's
 * leftovers never contain, or fail to contain, this one's process.
 */
int jobct_join_run(const struct jobct_node *node, uint32_t job_id,
		   const struct jobct_run *run, struct report *rep);

/*
 * jobct_join in a slurmstepd that lives in the job's namespace already
 * (EntireStepInNS: slurmd put it there with jobct_join_ns, and BasePath,
 * hidden inside, cannot be reached): refuse a job without a setup
 * record, and put the process under the job's filter.  The parser refuses
 * EntireStepInNS with PidNamespace or TmpDiskLimit, whose pins and
 * project live under BasePath; so does this, should such a node come.
 */
int jobct_join_in_ns(const struct jobct_node *node, uint32_t job_id,
		     struct report *rep);

/*
 * jobct_join for slurmd's own processes of the job (Prolog, Epilog and
 * PrEp scripts, root's, forked from slurmd): the job's namespace only.
 * They are not job processes: Slurm keeps them out of the job's cgroups
 * and its ConstrainDevices, and an Epilog may need every GPU (to reset
 * them).
 */
int jobct_join_ns(const struct jobct_node *node, uint32_t job_id,
		  struct report *rep);

/*
 * jobct_join for a process slurmd forks as the job's user, outside every
 * step (sbcast's file opener): refused for a job without a setup record;
 * put under the job's filter (hybrid: into its device cgroup; unified:
 * into its extern step's "slurm" cgroup, below the filter) and into its
 * namespace.  A failure means the process must not run.  slurmd writes
 * what sbcast sends through the fd this process opens, as root: a job
 * whose directory has a disk limit on a filesystem where root passes it
 * (ext4; not xfs: ns/dquota.h, dquota_limits_root) is refused with errno
 * EDQUOT and a message naming the limit and the remedy.
 */
int jobct_join_from_slurmd(const struct jobct_node *node, uint32_t job_id,
			   struct report *rep);

/*
 * Put the processes pam_slurm_adopt put into the job's extern step under
 * its filter, if it has one (hybrid: move them into its device cgroup;
 * unified: check the filter is on the extern step's cgroups).  A job
 * without a setup record is refused, as in jobct_join.  A failure means
 * the login must be refused; with kill_uncontained a process that could
 * not be put under the filter is also killed (SIGKILL): from 25.11
 * pam_slurm_adopt may go on with a refused login (doc/slurm-26.05-port.md),
 * so there containment cannot rest on PAM's error handling.
 */
int jobct_adopt(const struct jobct_node *node, uint32_t job_id,
		bool kill_uncontained, struct report *rep);

/*
 * Writes the path of the job's directory under BasePath, or with name
 * the path of name in it (JOBDIR_NS_PIN: its namespace's pin), into
 * buf[len], whether it exists or not.  Returns 1, 0 when the node has no
 * BasePath (buf ""), or -1 with errno (ENAMETOOLONG).
 */
int jobct_job_path(const struct jobct_node *node, uint32_t job_id,
		   const char *name, char *buf, size_t len);

/* Whether the job's namespace is pinned (false without BasePath). */
bool jobct_ns_exists(const struct jobct_node *node, uint32_t job_id);

/*
 * Open the pin of the job's namespace (for setns(2), to hand to
 * pam_slurm_adopt) once its setup is done (it has a setup record).
 * Returns 1 with the fd in *fd, 0 when the node has no BasePath (the job
 * has no namespace; *fd is -1), or -1 with errno (*fd is -1).
 */
int jobct_ns_open(const struct jobct_node *node, uint32_t job_id, int *fd,
		  struct report *rep);

/*
 * The job's user namespace for a login that pam_slurm_adopt enters into
 * it, after the mount namespace (25.11 on): 1 with the fd in *fd when the
 * job has one and no PID namespace, 0 otherwise (*fd is -1: with a PID
 * namespace pam_devns enters both, the PID namespace first, which it
 * could not do from inside the user namespace), or -1 with errno.
 */
int jobct_adopt_userns_open(const struct jobct_node *node, uint32_t job_id,
			    int *fd, struct report *rep);

/*
 * Hold the job's end against another caller's (mntns_lock_job): Slurm
 * 22.05 to 23.11 end a job in the extern stepd and in slurmd, and the
 * CloneNSEpilog and jobct_release of one must not overlap the other's.
 * Returns an fd for jobct_end_unlock, -1 when there is nothing to hold
 * (no BasePath) or it cannot be held.
 */
int jobct_end_lock(const struct jobct_node *node, uint32_t job_id);

/* Release what jobct_end_lock returned for job_id. */
void jobct_end_unlock(const struct jobct_node *node, uint32_t job_id, int fd);

/*
 * Remove everything of the job: its namespace and directory, its device
 * cgroup (killing what is left in it) or, on the unified layout, its
 * filter on Slurm's step cgroups (killing the tasks left there), its
 * marker.  First the device opens its filter denied go to rep, one
 * report_notice() line per device: "denied 3 opens of c 195:1
 * (/dev/nvidia1)" (job/denied.h).
 * Idempotent.  Waits (up to 5 s) for a caller that lost its effective uid
 * 0 on another thread to get it back (Slurm 24.11's extern stepd does so
 * briefly for X11), and retries what was refused for privilege.
 */
int jobct_release(const struct jobct_node *node, uint32_t job_id,
		  struct report *rep);

/*
 * At slurmd start: release every job that has a directory under BasePath,
 * a device cgroup or a filter marker and for which alive() says no.
 * Returns 0, or -1 when some job could not be released (each is in rep;
 * the rest are done).  jobct_restore_run() with only alive and arg.
 */
int jobct_restore(const struct jobct_node *node,
		  bool (*alive)(uint32_t job_id, void *arg), void *arg,
		  struct report *rep);

/* What a job has on the node (jobct_remains), and what restore said. */
struct jobct_remains {
	uint32_t job_id;
	bool alive;		   /* restore: alive() said so, so it is kept */
	bool has_job_dir;	   /* BasePath/<id> exists */
	char job_dir[PATH_MAX];	   /* "" without BasePath */
	uint64_t ns_id;		   /* inode of its pinned namespace, 0: none */
	int ns_procs;		   /* processes inside it */
	bool has_cgroup;	   /* its device cgroup exists */
	char cgroup[PATH_MAX];	   /* "" without cgroup2 */
	int cgroup_procs;	   /* processes in it */
	bool has_marker;	   /* its filter marker exists */
	char marker[PATH_MAX];
	bool filtered;		   /* the marker says: a device filter */
	bool marker_unknown;	   /* it cannot be read (not root's plain
				    * file, an I/O error): filtered is not
				    * known, and the job's processes are
				    * refused */
	bool has_pidns;		   /* a pinned PID namespace */
	bool has_disk_limit;	   /* TmpDiskLimit: its project's record */
	uint64_t disk_limit, disk_used;	    /* bytes */
	uint64_t inode_limit, inodes_used;
};

/*
 * Fills r with the paths of what the job has on the node (its directory
 * under BasePath, its device cgroup on the hybrid layout, its filter
 * marker), which of them exist and how many processes each holds; alive
 * is false.  What cannot be looked at counts as absent.  Returns 0, or
 * -1 with errno (ENAMETOOLONG).
 */
int jobct_remains(const struct jobct_node *node, uint32_t job_id,
		  struct jobct_remains *r);

/*
 * Calls fn(path, fd, arg) for each existing cgroup that carries the job's
 * device filter on the node's layout (hybrid: <cgroup2>/devns/<node>/
 * job_<id>; unified: each of the job's step cgroups and their leaves
 * in Slurm's slurmstepd scope).  Returns 0 (also when there is none), or
 * -1 with errno when one could not be looked at or fn returned -1.
 */
int jobct_each_cgroup(const struct jobct_node *node, uint32_t job_id,
		      int (*fn)(const char *path, int cg_fd, void *arg),
		      void *arg);

/* How jobct_restore_run() works through the node's jobs. */
struct jobct_restore_args {
	bool (*alive)(uint32_t job_id, void *arg);
	void *arg;		/* for alive and found */
	bool dry_run;		/* decide and report, remove nothing */
	/* sees each job found, in job id order, before it is kept or
	 * released (NULL: nobody) */
	void (*found)(const struct jobct_remains *r, void *arg);
};

/*
 * Finds every job with a directory under BasePath, a device cgroup or a
 * filter marker, asks alive() about each once, passes what it has to
 * found() and, unless dry_run, releases it when it is not alive.  The one
 * place where restore decides.  Returns 0, or -1 when something could not
 * be read or some job could not be released (each is in rep; the rest
 * are done).
 */
int jobct_restore_run(const struct jobct_node *node,
		      const struct jobct_restore_args *args,
		      struct report *rep);

/* slurmd's restore, working behind it (jobct_restore_start). */
struct jobct_restorer;

/*
 * slurmd start: restore without holding slurmd up.  Finds now, in one
 * pass over BasePath, the device cgroups and the markers, which jobs left
 * something (and clears the pool an earlier slurmd left), and says in
 * a notice how many and how long that took (none: no line); then a thread
 * of the caller, at nice 10, asks args->alive() about each job and
 * releases it when it ended, as jobct_restore_run() (found and dry_run
 * are not used), logging through rep's callback.  A job is kept or
 * released under its end lock, which jobct_setup also holds: a new run
 * of the same job id never has its namespace removed.  The node must
 * outlive the thread: jobct_restore_finish() before jobct_node_free().
 * Returns the thread's handle, or NULL when no thread could start (then
 * the work was done before returning, errno set, each failure in rep).
 */
struct jobct_restorer *jobct_restore_start(const struct jobct_node *node,
					   const struct jobct_restore_args *args,
					   struct report *rep);

/*
 * Wait for the restore thread to end, after the job it works on when
 * early is true (slurmd stopping, a reconfigure: what is left is found
 * again at the next restore), and free it.  NULL is a no-op.  Returns 0,
 * or -1 when some job could not be released or something could not be
 * read (each was logged).
 */
int jobct_restore_finish(struct jobct_restorer *restorer, bool early);

/* Whether the restore thread is still at work (NULL: false). */
bool jobct_restore_busy(const struct jobct_restorer *restorer);

/*
 * slurmd: start the thread that keeps NamespacePool namespaces copied
 * ahead (ns/nspool.h), logging through rep's callback for as long as it
 * runs.  Returns it, or NULL when the node has no pool or the thread
 * cannot start (reported: jobs then copy their own namespaces).  Stop it
 * with jobct_pool_stop().
 */
struct nspool_keeper *jobct_pool_start(const struct jobct_node *node,
				       struct report *rep);

/*
 * Whether nodes a and b keep the same pool (NamespacePool and BasePath):
 * then a reconfigure keeps the running keeper and its ready namespaces.
 */
bool jobct_pool_same(const struct jobct_node *a, const struct jobct_node *b);

/*
 * slurmd: stop the keeper jobct_pool_start() gave (NULL: none) and empty
 * the pool, so that no namespace outlives slurmd.
 */
void jobct_pool_stop(struct nspool_keeper *keeper);

/*
 * The name of the user uid for Source's %u, from the system's user
 * database (never from the job's environment, which the user controls).
 * Returns a string to free(), or NULL with rep saying why.
 */
char *jobct_user_name(uid_t uid, struct report *rep);

#endif /* DEVNS_JOBCT_H */
