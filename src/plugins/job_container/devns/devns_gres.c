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
 * and reads gres_detail_str of this node: "gpu:2(IDX:0-1),nic:1(IDX:0)".
 * Each index counts the devices of its own GRES name, so the indices are
 * handed back to Slurm as a job GRES list keyed by plugin id and Slurm's own
 * gres_g_get_devices() maps them per name, as for a job it launched itself.
 * On releases that pass the step record (23.02 and later) the job's GRES
 * list is used directly.
 */
#include <errno.h>
#include <inttypes.h>

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

#include "slurmconv/gresidx.h"
#include "devns_gres.h"

extern slurmd_conf_t *conf;
extern const char plugin_type[];

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

/* This node's entry of the job's gres_detail_str, or NULL with none. */
static int job_detail_of_node(const slurm_job_info_t *job,
			      const char **detail)
{
	struct hostlist *hl = hostlist_create(job->nodes);
	int inx = hl ? hostlist_find(hl, conf->node_name) : -1;

	if (hl)
		hostlist_destroy(hl);
	*detail = NULL;
	if (inx < 0) {
		error("%s: job %u has no node %s (nodes %s)",
		      plugin_type, job->job_id, conf->node_name, job->nodes);
		return -1;
	}
	if ((uint32_t)inx < job->gres_detail_cnt)
		*detail = job->gres_detail_str[inx];
	return 0;
}

int devns_gres_job_count(const struct job_info *job, const char *name,
			 uint64_t *count)
{
	const char *detail;

	*count = 0;
	if (!job || job_detail_of_node(job, &detail) < 0)
		return -1;
	if (gresidx_count(detail, name, count) < 0) {
		error("%s: job %u: cannot parse GRES detail \"%s\": %m",
		      plugin_type, job->job_id, detail);
		return -1;
	}
	devns_log_flag("%s: job %u GRES %s on %s: %" PRIu64, plugin_type,
		       job->job_id, name, conf->node_name, *count);
	return 0;
}

#if !DEVNS_JC_STEP_RECORD
/*
 * The job's device indices on this node, per GRES name, from its record
 * (NULL: slurmctld gave none, already logged).
 */
static int held_from_record(const slurm_job_info_t *job, uint32_t job_id,
			    struct gresidx_set *held)
{
	const char *detail;

	held->names = NULL;
	held->count = 0;
	if (!job)
		return -1;
	if (job_detail_of_node(job, &detail) < 0)
		return -1;
	if (gresidx_set_parse(detail, held) < 0) {
		error("%s: job %u: cannot parse GRES detail \"%s\": %m",
		      plugin_type, job_id, detail);
		return -1;
	}
	devns_log_flag("%s: job %u GRES on %s: %s", plugin_type, job_id,
		       conf->node_name, detail ? detail : "none");
	return 0;
}

/*
 * Whether this stepd has a GRES plugin (GresTypes entry) called name: its
 * indices can then be mapped onto that plugin's devices.
 */
static bool gres_name_known(const char *name)
{
	char *known = gres_name_filter((char *)name, conf->node_name);
	bool rc = known != NULL;

	xfree(known);
	return rc;
}

/*
 * One job GRES record as slurmd keeps them: the plugin id of the name and
 * the held indices as node 0's allocation bitmap.  The bitmap covers every
 * index Slurm may test against it (bit_test() checks no bounds in release
 * builds): GRESIDX_INDEX_LIMIT or the node's highest device index + 1.
 */
static gres_state_t *job_gres_state(const struct gresidx_name *n,
				    int64_t nbits)
{
	gres_job_state_t *js = xmalloc(sizeof(*js));
	gres_state_t *gs = xmalloc(sizeof(*gs));

	js->node_cnt = 1;
	js->gres_bit_alloc = xcalloc(1, sizeof(bitstr_t *));
	js->gres_bit_alloc[0] = bit_alloc(nbits);
	for (unsigned i = 0; i < n->nbits; i++)
		if (gresidx_name_held(n, i))
			bit_set(js->gres_bit_alloc[0], i);
	gs->plugin_id = gres_build_id((char *)n->name);
	gs->gres_name = xstrdup(n->name);
	gs->state_type = GRES_STATE_TYPE_JOB;
	gs->gres_data = js;
	return gs;
}

static int max_index(void *x, void *arg)
{
	gres_device_t *dev = x;
	int64_t *nbits = arg;

	if (dev->index >= *nbits)
		*nbits = (int64_t)dev->index + 1;
	return 0;
}

/*
 * The job's GRES list for gres_g_get_devices(): Slurm then marks each
 * device with the allocation of its own GRES plugin, so an index of one
 * name never selects a device of another, typed and MultipleFiles devices
 * included.  NULL (job refused) when a name has no plugin on this node.
 */
static list_t *job_gres_list(uint32_t job_id, const struct gresidx_set *held)
{
	list_t *devices = gres_g_get_devices(NULL, true, 0, NULL, 0, 0);
	list_t *gres_list = list_create(gres_job_list_delete);
	int64_t nbits = GRESIDX_INDEX_LIMIT;

	if (devices)
		list_for_each(devices, max_index, &nbits);
	FREE_NULL_LIST(devices);
	for (size_t i = 0; i < held->count; i++) {
		if (!gres_name_known(held->names[i].name)) {
			error("%s: job %u: its GRES allocation names \"%s\", which is no GRES of node %s (GresTypes=%s): refusing the job",
			      plugin_type, job_id, held->names[i].name, conf->node_name,
			      slurm_conf.gres_plugins ? slurm_conf.gres_plugins : "");
			FREE_NULL_LIST(gres_list);
			return NULL;
		}
		list_append(gres_list, job_gres_state(&held->names[i], nbits));
	}
	return gres_list;
}

/* Every GRES device of the node, the job's marked alloc; -1: refuse. */
static int marked_devices(uint32_t job_id, void *step,
			  const slurm_job_info_t *job, list_t **devices)
{
	struct gresidx_set held;
	list_t *gres_list;

	(void)step;
	*devices = NULL;
	if (held_from_record(job, job_id, &held) < 0)
		goto error;
	if (!(gres_list = job_gres_list(job_id, &held)))
		goto error;
	gresidx_set_free(&held);
	*devices = gres_g_get_devices(gres_list, true, 0, NULL, 0, 0);
	FREE_NULL_LIST(gres_list);
	return 0;
error:
	gresidx_set_free(&held);
	return -1;
}
#else
/* The step record carries the job's allocation on this node. */
static int marked_devices(uint32_t job_id, void *step,
			  const slurm_job_info_t *job, list_t **devices)
{
	stepd_step_rec_t *s = step;

	(void)job_id;
	(void)job;
	*devices = gres_g_get_devices(s->job_gres_list, true, 0, NULL, 0, s);
	return 0;
}
#endif

static int add_if_allocated(void *x, void *arg)
{
	gres_device_t *dev = x;

	if (dev->alloc)
		add_path(dev, arg);
	return 0;
}

int devns_gres_job_devices(uint32_t job_id, void *step,
			   const struct job_info *job, char ***paths)
{
	list_t *devices;

	*paths = NULL;
	if (marked_devices(job_id, step, job, &devices) < 0)
		return -1;
	/*
	 * Slurm marks, per GRES plugin, every device file whose index the job
	 * holds: all files of a MultipleFiles index, and a file that several
	 * indices share (MIG's parent GPU) when any of them is held.
	 */
	if (devices)
		list_for_each(devices, add_if_allocated, paths);
	FREE_NULL_LIST(devices);
	return 0;
}
