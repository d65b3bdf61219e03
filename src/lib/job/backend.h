/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * backend.h - where a job's device filter goes, one backend per cgroup
 * layout (private to libdevns_job).
 *
 *   hybrid    devns's own job cgroup in a cgroup2 tree Slurm does not use
 *             (devcg.h)
 *   unified   Slurm's step cgroups, where cgroup/v2 owns the tree (stepcg.h)
 *   none      no cgroup2: no filter can be given (a node that asks for one
 *             refuses to start)
 *
 * jobct_node_load picks the node's backend once, from the layout it finds
 * (backend_for), and the lifecycle calls node->backend->verb: no verb asks
 * which layout it is on.  What the backends share (the node's cgroup2
 * root, loading the program, the extern step's processes) is here too.
 * The job's setup record (marker.h) is read once by the lifecycle and its
 * text handed to the verbs that need it.
 */
#ifndef DEVNS_BACKEND_H
#define DEVNS_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "dev/devpolicy.h"
#include "job/node.h"
#include "job/run.h"
#include "util/report.h"

/* What each backend does; every verb returns 0 or -1 with errno. */
struct jobct_backend {
	/* where the job's filter goes, for slurmd's log */
	const char *place;
	/*
	 * slurmd start, for a node that filters: whether the filter can be
	 * given here.  step_cgroups: proctrack/cgroup; asks: the settings
	 * that ask for a filter, for the message.
	 */
	int (*check)(const struct jobct_node *node, bool step_cgroups,
		     const char *asks, struct report *rep);
	/*
	 * Setup, in the extern slurmstepd: attach a filter of list and
	 * leave the job's setup record.  On failure nothing is left.
	 */
	int (*apply)(const struct jobct_node *node, uint32_t job_id,
		     const struct jobct_run *run,
		     const struct devrule_list *list, struct report *rep);
	/*
	 * A process of the job (before exec, in a step) goes under its
	 * filter; marked is the text of its setup record.
	 */
	int (*join)(const struct jobct_node *node, uint32_t job_id,
		    const char *marked, struct report *rep);
	/* A process slurmd forks as the job's user, outside every step. */
	int (*join_from_slurmd)(const struct jobct_node *node,
				uint32_t job_id, const char *marked,
				struct report *rep);
	/* pam_slurm_adopt's processes in the extern step (jobct_adopt). */
	int (*adopt)(const struct jobct_node *node, uint32_t job_id,
		     const char *marked, bool kill_uncontained,
		     struct report *rep);
	/*
	 * Remove the filter and the setup record; idempotent, nothing
	 * reported (the caller retries).
	 */
	int (*release)(const struct jobct_node *node, uint32_t job_id);
	/* jobct_each_cgroup */
	int (*each_cgroup)(const struct jobct_node *node, uint32_t job_id,
			   int (*fn)(const char *path, int cg_fd, void *arg),
			   void *arg);
	/* restore: fn for each job with a cgroup of devns's own */
	int (*each_job)(const struct jobct_node *node,
			int (*fn)(uint32_t job_id, void *arg), void *arg);
	/*
	 * jobct_remains: the path of the job's own device cgroup in
	 * cgroup[len] ("" when the backend makes none) and, when it exists,
	 * its processes in *procs.  Returns 1 when it exists, 0 when not,
	 * -1 with errno (ENAMETOOLONG).
	 */
	int (*job_cgroup)(const struct jobct_node *node, uint32_t job_id,
			  char *cgroup, size_t len, int *procs);
};

/* The backend of a node without cgroup2: no filter can be given. */
extern const struct jobct_backend nocg_backend;

/*
 * Writes the path of the node's cgroup2 mount into buf.  0, or -1 with
 * errno (ENOENT: none was mounted at load).
 */
int backend_root_path(const struct jobct_node *node, char *buf, size_t len);

/* The node's cgroup2 mount: an fd, or -1. */
int backend_open_root(const struct jobct_node *node);

/*
 * Builds and loads the program for list; on failure rep says why, with
 * the verifier's log.  A program that cannot count its denials (devprog.h)
 * is a warning.  Returns the program fd, or -1 with errno.
 */
int backend_prog_create(const struct jobct_node *node,
			const struct devrule_list *list, struct report *rep);

/*
 * The processes pam_slurm_adopt put into the job's extern step, in *pids
 * (to free()).  Returns how many, or -1 with errno and rep.
 */
int backend_extern_pids(const struct jobct_node *node, uint32_t job_id,
			pid_t **pids, struct report *rep);

/*
 * An adopted pid that cannot be put under the filter for err: reported
 * and, with kill_it, killed (SIGKILL; never the caller, the extern
 * slurmstepd).  Returns -1 with errno err.
 */
int backend_uncontained(pid_t pid, bool kill_it, int err, struct report *rep);

/*
 * each_job and job_cgroup of a backend that makes no cgroup of devns's
 * own (unified: the cgroups are Slurm's; none): no job, no cgroup ("").
 */
int backend_each_job_none(const struct jobct_node *node,
			  int (*fn)(uint32_t job_id, void *arg), void *arg);
int backend_job_cgroup_none(const struct jobct_node *node, uint32_t job_id,
			    char *cgroup, size_t len, int *procs);

#endif /* DEVNS_BACKEND_H */
