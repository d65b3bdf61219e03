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
 * EntireStepInNS needs slurmd's call in the fork of each new slurmstepd,
 * which Slurm makes from 24.11.1 (when tmpfs got the key): before, the
 * step's slurmstepd would stay outside, unlike what the file asks.
 */
static bool entire_step_supported(const struct jobct_node *n,
				  struct report *rep)
{
	const struct nsconf *c = jobct_node_conf(n);

	if (DEVNS_JC_JOIN_STEP_ID || !c->entire_step_in_ns)
		return true;
	report_error(rep, "%s:%d: EntireStepInNS=yes needs Slurm 24.11.1 or "
		     "later (this Slurm does not let slurmstepd start in the "
		     "job's namespace)", c->file, c->lines.entire_step_in_ns);
	return false;
}

/*
 * A login that pam_slurm_adopt puts into a job goes into the job's user
 * namespace through pam_slurm_adopt from 25.11 (namespace_p_join_external
 * hands it the fd), and before that only through pam_devns, which finds
 * the namespace held by the job's PID namespace init.
 */
static bool user_namespace_supported(const struct jobct_node *n,
				     struct report *rep)
{
	const struct nsconf *c = jobct_node_conf(n);

	if (DEVNS_JC_NAMESPACE || !c->user_namespace || c->pid_namespace)
		return true;
	report_error(rep, "%s:%d: UserNamespace=yes needs PidNamespace=yes "
		     "before Slurm 25.11 (logins adopted by pam_slurm_adopt "
		     "reach the job's user namespace only through pam_devns "
		     "and the PID namespace's init)", c->file,
		     c->lines.user_namespace);
	return false;
}

struct jobct_node *devns_nodecheck_load(struct report *rep)
{
	struct jobct_node *n = devns_node_load(running_in_slurmd(), rep);

	if (!n)
		return NULL;
	if (!entire_step_supported(n, rep) ||
	    !user_namespace_supported(n, rep) ||
	    (running_in_slurmd() && check_node(n, rep) < 0)) {
		jobct_node_free(n);
		return NULL;
	}
	return n;
}
