/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devns_nodecheck.c - what the node's settings ask, held against Slurm:
 * the release's interface (slurm_compat.h) and slurmd's view of the node
 * (slurm.conf's flags and plugins, the node's GRES device files).
 */
#include "slurm_compat.h"

#include "src/common/slurm_xlator.h"
#include "src/common/node_conf.h"
#include "src/common/read_config.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmd/slurmd/slurmd.h"

#include "devns_gres.h"
#include "devns_node.h"
#include "devns_nodecheck.h"
#include "conf/nsrelease.h"

/* slurm.conf's Gres= of this node (slurmd keeps it in the node's record). */
static const char *node_gres(void)
{
	node_record_t *rec = find_node_record(conf->node_name);

	if (!rec)
		return NULL;
	return rec->config_ptr ? rec->config_ptr->gres : rec->gres;
}

/*
 * slurmd start: the cgroup layout, in the log, and whether the node can
 * contain devices as configured on it (jobct_node_check).
 */
static int check_node(const struct jobct_node *n, struct report *rep)
{
	char **files = devns_gres_node_devices();
	char *plugstack = slurm_conf.plugstack ? xstrdup(slurm_conf.plugstack)
			  : get_extra_conf_path("plugstack.conf");
	struct jobct_slurm slurm = {
		.gres = node_gres(),
		.prolog_contain = slurm_conf.prolog_flags & PROLOG_FLAG_CONTAIN,
		.node_has_devices = files != NULL,
		.node_devices = (const char *const *)files,
		.step_cgroups = !xstrcmp(slurm_conf.proctrack_type,
					 "proctrack/cgroup"),
		.plugstack = plugstack,
		.contain_spank = DEVNS_CONTAIN_SPANK(slurm_conf.conf_flags),
	};
	int rc;

	jobct_node_report(n, &slurm, rep);
	rc = jobct_kernel_check(n, rep);
	if (rc == 0)
		rc = jobct_node_check(n, &slurm, rep);
	devns_gres_free(files);
	xfree(plugstack);
	return rc;
}

/*
 * The release rules (conf/nsrelease.h) are the table devns check reads too;
 * this Slurm's interface (slurm_compat.h) must agree with it: the step's
 * slurmstepd can start in the job's namespace exactly where Slurm's join
 * call passes the step (DEVNS_JC_JOIN_STEP_ID), and pam_slurm_adopt
 * enters the user namespace itself exactly from the namespace interface.
 */
_Static_assert(DEVNS_JC_JOIN_STEP_ID ==
	       (SLURM_VERSION_NUMBER >= NSRELEASE_ENTIRE_STEP),
	       "EntireStepInNS: slurm_compat.h and conf/nsrelease.h disagree");
_Static_assert(DEVNS_JC_NAMESPACE ==
	       (SLURM_VERSION_NUMBER >= NSRELEASE_USERNS_ALONE),
	       "UserNamespace: slurm_compat.h and conf/nsrelease.h disagree");

struct jobct_node *devns_nodecheck_load(struct report *rep)
{
	struct jobct_node *n = devns_node_load(running_in_slurmd(), rep);

	if (!n)
		return NULL;
	if (nsrelease_check(jobct_node_conf(n), SLURM_VERSION_NUMBER,
			    rep) < 0 ||
	    (running_in_slurmd() && check_node(n, rep) < 0)) {
		jobct_node_free(n);
		return NULL;
	}
	return n;
}
