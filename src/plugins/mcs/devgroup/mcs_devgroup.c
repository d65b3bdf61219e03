/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mcs_devgroup.c - Slurm's mcs plugin interface over mcslabel and groupcache.
 *
 * MCSPlugin=mcs/devgroup behaves for users exactly like mcs/group (labels
 * are Unix groups listed in MCSParameters) but asks NSS once per user per
 * cache lifetime instead of several times per job that slurmctld packs.
 * The rules live in src/common/mcslabel.c, the cache in groupcache.c; this
 * file only translates Slurm's calls and logs.
 *
 * Lifetime: slurmctld loads the plugin at start and, on `scontrol
 * reconfigure`, unloads it (fini) and loads it again (init): groups are
 * resolved afresh and the cache starts empty each time.
 *
 * Never fail open: init fails when a configured group cannot be resolved
 * (NSS down, or no such group) or none is configured, and slurmctld treats a
 * failed mcs init as fatal - at start (both releases) and at reconfigure on
 * 22.05 (read_config.c).  On 24.11 reconfigure re-executes slurmctld: the new
 * process dies and the old one goes on with its previous configuration.  The
 * plugin never calls slurm_mcs_reset_params(), which would switch enforced
 * and privatedata off for the whole life of the configuration.
 */
#include <stdatomic.h>
#include <string.h>

#include "slurm/slurm_errno.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "slurm_compat.h"
#include DEVNS_MCS_HEADER

#include "mcs/groupcache.h"
#include "mcs/mcslabel.h"

const char plugin_name[] = "mcs devgroup plugin (Unix groups, cached)";
const char plugin_type[] = "mcs/devgroup";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* A counters line at debug level after this many set/check calls. */
#define STATS_EVERY 10000

static groupcache_t *cache;
static mcslabel_config_t config;
static mcslabel_ops_t ops;
static _Atomic unsigned long calls;

static int op_user_in_group(void *ctx, uid_t uid, gid_t gid)
{
	return groupcache_is_member(ctx, uid, gid);
}

static int op_group_gid(void *ctx, const char *text, gid_t *gid)
{
	return groupcache_group_gid(ctx, text, gid);
}

static int op_group_name(void *ctx, gid_t gid, char **name)
{
	return groupcache_group_name(ctx, gid, name);
}

static void log_stats(bool final)
{
	groupcache_stats_t s;
	char *line = NULL;

	groupcache_get_stats(cache, &s);
	xstrfmtcat(line, "%s: cache: %lu calls, %lu hits, %lu misses "
		   "(%lu expired), %lu NSS lookups (%lu failed), "
		   "%zu users and %zu labels held, %lu evictions, ttl %lds",
		   plugin_type, atomic_load(&calls),
		   (unsigned long)s.hits, (unsigned long)s.misses,
		   (unsigned long)s.expirations,
		   (unsigned long)s.nss_lookups,
		   (unsigned long)s.nss_failures, s.users, s.groups,
		   (unsigned long)s.evictions,
		   config.cache_ttl >= 0 ? config.cache_ttl :
					   (long)GROUPCACHE_DEFAULT_TTL);
	if (final)
		info("%s", line);
	else
		debug("%s", line);
	xfree(line);
}

static void count_call(void)
{
	if (atomic_fetch_add(&calls, 1) % STATS_EVERY == STATS_EVERY - 1)
		log_stats(false);
}

static char *group_list(void)
{
	char *list = NULL;
	size_t i;

	for (i = 0; i < config.ngroups; i++)
		xstrfmtcat(list, "%s%s(%u)", i ? "," : "",
			   config.groups[i].name,
			   (unsigned)config.groups[i].gid);
	return list;
}

extern int init(void)
{
	groupcache_options_t opts = { .ttl_seconds = GROUPCACHE_DEFAULT_TTL };
	char *spec = slurm_mcs_get_params_specific(), *list;
	size_t i;

	if (!(cache = groupcache_create(&opts))) {
		error("%s: cannot create the group cache: %m", plugin_type);
		goto error;
	}
	ops = (mcslabel_ops_t){ .user_in_group = op_user_in_group,
				.group_gid = op_group_gid,
				.group_name = op_group_name,
				.ctx = cache };
	if (mcslabel_config_parse(spec, &ops, &config) < 0) {
		if (config.error)
			error("%s: %s; not loaded (labels and privatedata "
			      "cannot be enforced without it)", plugin_type,
			      config.error);
		else
			error("%s: cannot read MCSParameters: %m",
			      plugin_type);
		goto error;
	}
	for (i = 0; i < config.nnotes; i++)
		error("%s: %s", plugin_type, config.notes[i]);
	if (!config.ngroups) {
		/* mcs/group turns labels and privatedata off instead, which
		 * would silently open what the admin meant to protect. */
		error("%s: no group in MCSParameters ('%s'): not loaded",
		      plugin_type, spec ? spec : "");
		goto error;
	}
	if (config.cache_ttl >= 0)
		groupcache_set_ttl(cache, (unsigned int)config.cache_ttl);
	if (config.cache_max > 0)
		groupcache_set_max(cache, (size_t)config.cache_max);
	list = group_list();
	info("%s: groups %s, cache ttl %lds, at most %ld users", plugin_type,
	     list ? list : "(none)",
	     config.cache_ttl >= 0 ? config.cache_ttl :
				     (long)GROUPCACHE_DEFAULT_TTL,
	     config.cache_max > 0 ? config.cache_max :
				    (long)GROUPCACHE_DEFAULT_MAX);
	xfree(list);
	xfree(spec);
	return SLURM_SUCCESS;
error:
	mcslabel_config_free(&config);
	groupcache_destroy(cache);
	cache = NULL;
	xfree(spec);
	return SLURM_ERROR;
}

extern int fini(void)
{
	if (cache)
		log_stats(true);
	mcslabel_config_free(&config);
	groupcache_destroy(cache);
	cache = NULL;
	atomic_store(&calls, 0);
	return SLURM_SUCCESS;
}

/*
 * Called at submission with the job's --mcs-label (NULL when not given):
 * accepts it, sets the label of the job, or refuses the job
 * (ESLURM_INVALID_MCS_LABEL, "Invalid mcs_label specified" to the user).
 */
extern int mcs_p_set_mcs_label(job_record_t *job_ptr, char *label)
{
	mcslabel_request_t req = {
		.uid = job_ptr->user_id,
		.job_gid = job_ptr->group_id,
		.label = label,
		.enforced = slurm_mcs_get_enforced(),
		/* mcs/group also looks for a label when details are absent */
		.exclusive_mcs = !job_ptr->details ||
			DEVNS_WHOLE_NODE_MCS(job_ptr->details->whole_node),
	};
	mcslabel_decision_t d;

	count_call();
	if (mcslabel_choose(&config, &ops, &req, &d) < 0)
		return SLURM_ERROR;
	if (!d.accept) {
		debug("%s: %pJ uid %u: %s%s%s", plugin_type, job_ptr,
		      job_ptr->user_id, d.reason, label ? ": " : "",
		      label ? label : "");
		return SLURM_ERROR;
	}
	if (d.lookup_failed)
		error("%s: %pJ: cannot read the groups of uid %u: runs "
		      "without mcs label (ondemand)", plugin_type, job_ptr,
		      job_ptr->user_id);
	if (d.label) {
		xfree(job_ptr->mcs_label);
		job_ptr->mcs_label = xstrdup(d.label);
	}
	return SLURM_SUCCESS;
}

/*
 * May user_id see what carries mcs_label (privatedata)?  The group table
 * needs no association lock, so assoc_locked (unreliable on 22.05:
 * slurm_compat.h) is not used.
 */
extern int mcs_p_check_mcs_label(uint32_t user_id, char *mcs_label,
				 bool assoc_locked)
{
	(void)DEVNS_MCS_ASSOC_LOCKED(assoc_locked);
	count_call();
	return mcslabel_check(&config, &ops, user_id, mcs_label) ?
		SLURM_ERROR : SLURM_SUCCESS;
}
