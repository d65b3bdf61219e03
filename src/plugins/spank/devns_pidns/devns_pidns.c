/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devns_pidns.c - SPANK plugin: the step's processes are born in the job's
 * PID namespace (namespace.conf PidNamespace=yes).
 *
 * A process cannot move into a PID namespace, only fork into one, and the
 * job_container interface runs only in the children (container_p_join).
 * SPANK's init runs in slurmstepd's main thread, as root, before it forks
 * the tasks (and in the extern step, after job_container/devns made the
 * namespaces): entering there puts every task, TaskProlog and TaskEpilog
 * inside, while slurmstepd stays outside and sees them by their host PIDs
 * for tracking, signals, limits and sstat.  job_container/devns refuses a
 * task born outside, so a node that is missing this plugin fails closed.
 *
 * plugstack.conf:  required devns_pidns.so
 * A no-op on nodes without PidNamespace and outside slurmstepd.
 */
#include <stdint.h>

#include <slurm/spank.h>

#include "devns_node.h"

SPANK_PLUGIN(devns_pidns, 1);

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	struct jobct_node *node;
	struct report rep;
	uint32_t job_id = 0;
	int rc;

	(void)ac;
	(void)av;
	if (!spank_remote(sp))
		return ESPANK_SUCCESS;
	if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS ||
	    !job_id) {
		slurm_error("devns_pidns: the step has no job id");
		return ESPANK_ERROR;
	}
	report_init(&rep, NULL, NULL);
	if (!(node = devns_node_load(false, &rep))) {
		slurm_error("devns_pidns: job %u: %s", job_id, rep.msg);
		return ESPANK_ERROR;
	}
	rc = jobct_pidns_enter(node, job_id, &rep);
	if (rc < 0)
		slurm_error("devns_pidns: job %u: %s", job_id, rep.msg);
	jobct_node_free(node);
	return rc < 0 ? ESPANK_ERROR : ESPANK_SUCCESS;
}
