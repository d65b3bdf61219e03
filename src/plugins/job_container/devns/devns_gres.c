/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devns_gres.c - the node's GRES device files and the job's share of them.
 *
 * The node's device files come from slurmstepd's own GRES configuration
 * (gres.conf as slurmd read it, passed to the stepd): gres_g_get_devices()
 * without a job list returns every device file with its bitmap index.
 *
 * The job's allocation must come from Slurm, never from the job's
 * environment.  On 22.05 the plugin API carries none, so the extern
 * slurmstepd (root, munge-authenticated) asks slurmctld for the job record
 * and reads gres_detail_str of this node: "gpu:2(IDX:0-1)".  On releases
 * that pass the step record (24.11) the job's GRES list is used directly.
 */
#include <errno.h>

#include "slurm_compat.h"

#include "src/common/slurm_xlator.h"
#include DEVNS_GRES_HEADER
#include "src/common/hostlist.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmd/slurmd/slurmd.h"
#include "src/slurmd/slurmstepd/slurmstepd_job.h"

#include "gresidx.h"
#include "devns_gres.h"

extern slurmd_conf_t *conf;

#define MAX_GRES_INDEX 4096

static int add_path(void *x, void *arg)
{
	gres_device_t *dev = x;
	char ***paths = arg;
	int n = 0;

	while (*paths && (*paths)[n])
		n++;
	xrecalloc(*paths, n + 2, sizeof(char *));
	(*paths)[n] = xstrdup(dev->path);
	return 0;
}

void devns_gres_free(char **paths)
{
	for (int i = 0; paths && paths[i]; i++)
		xfree(paths[i]);
	xfree(paths);
}

char **devns_gres_node_devices(void)
{
	list_t *devices = gres_g_get_devices(NULL, true, 0, NULL, 0, 0);
	char **paths = NULL;

	if (devices)
		list_for_each(devices, add_path, &paths);
	FREE_NULL_LIST(devices);
	return paths;
}

#if DEVNS_API_22_05
static int mark_index(const char *name, unsigned index, void *arg)
{
	bool *held = arg;

	(void)name;
	if (index >= MAX_GRES_INDEX)
		return -1;
	held[index] = true;
	return 0;
}

/* This node's entry of the job's gres_detail_str, or NULL with none. */
static int job_detail_of_node(slurm_job_info_t *job, const char **detail)
{
	struct hostlist *hl = hostlist_create(job->nodes);
	int inx = hl ? hostlist_find(hl, conf->node_name) : -1;

	if (hl)
		hostlist_destroy(hl);
	*detail = NULL;
	if (inx < 0) {
		error("job_container/devns: job %u has no node %s (nodes %s)",
		      job->job_id, conf->node_name, job->nodes);
		return -1;
	}
	if ((uint32_t)inx < job->gres_detail_cnt)
		*detail = job->gres_detail_str[inx];
	return 0;
}

static int held_from_controller(uint32_t job_id, bool *held)
{
	job_info_msg_t *msg = NULL;
	slurm_job_info_t *job = NULL;
	const char *detail;
	int rc = -1;

	if (slurm_load_job(&msg, job_id, SHOW_DETAIL) != SLURM_SUCCESS) {
		error("job_container/devns: job %u: cannot read the job's GRES allocation from slurmctld: %m",
		      job_id);
		return -1;
	}
	/* An array task's id also names its array: pick the task itself. */
	for (uint32_t i = 0; msg && i < msg->record_count; i++)
		if (msg->job_array[i].job_id == job_id)
			job = &msg->job_array[i];
	if (!job) {
		error("job_container/devns: job %u: slurmctld returned no job record",
		      job_id);
		goto out;
	}
	if (job_detail_of_node(job, &detail) < 0)
		goto out;
	if (gresidx_parse(detail, mark_index, held) != 0) {
		error("job_container/devns: job %u: cannot parse GRES detail \"%s\"",
		      job_id, detail);
		goto out;
	}
	log_flag(JOB_CONT, "job_container/devns: job %u GRES on %s: %s", job_id,
		 conf->node_name, detail ? detail : "none");
	rc = 0;
out:
	slurm_free_job_info_msg(msg);
	return rc;
}

#endif

struct pick_arg {
	const bool *held;
	char ***paths;
};

static int add_if_held(void *x, void *arg)
{
	gres_device_t *dev = x;
	struct pick_arg *pick = arg;

	if (pick->held ? (dev->index >= 0 && dev->index < MAX_GRES_INDEX &&
			  pick->held[dev->index])
		       : dev->alloc)
		add_path(dev, pick->paths);
	return 0;
}

int devns_gres_job_devices(uint32_t job_id, void *step, char ***paths)
{
	struct pick_arg pick = { NULL, paths };
	list_t *devices;

	*paths = NULL;
#if DEVNS_API_22_05
	bool held[MAX_GRES_INDEX] = { false };

	(void)step;
	pick.held = held;
	if (held_from_controller(job_id, held) < 0)
		return -1;
	devices = gres_g_get_devices(NULL, true, 0, NULL, 0, 0);
#else
	/* The step record carries the job's allocation on this node. */
	stepd_step_rec_t *s = step;

	(void)job_id;
	devices = gres_g_get_devices(s->job_gres_list, true, 0, NULL, 0, s);
#endif
	if (devices)
		list_for_each(devices, add_if_held, &pick);
	FREE_NULL_LIST(devices);
	return 0;
}
