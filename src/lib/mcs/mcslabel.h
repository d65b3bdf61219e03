/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mcslabel.h - MCS labels from Unix groups: configuration, choice and checks.
 *
 * The rules of Slurm's mcs/group, as pure functions over an injected view of
 * the group database (mcslabel_ops_t), so that every row of the mode table can
 * be tested without Slurm and without NSS:
 *
 *   MCSParameters=[common]:GROUP|GROUP|...      (plugin part: this module)
 *
 *   no --mcs-label, not enforced, not --exclusive=mcs  -> accept, no label
 *   no --mcs-label, enforced or --exclusive=mcs        -> the first configured
 *        group (in MCSParameters order) the user is in; none -> reject
 *        ("no valid mcs-label found"); group lookup failed -> reject when
 *        enforced, else accept without a label
 *   --mcs-label=G  -> G names a group (name, or gid of an existing group),
 *        the user is in it, and it is configured; else reject
 *        ("invalid mcs-label").  The job keeps G as written.
 *   check(uid, label): NULL label -> allowed; else label names a group the
 *        user is in (configured or not).
 *
 * "The user is in G" means G is the user's primary group, one of the
 * supplementary groups, or (when a job is submitted) the job's own gid.
 */
#ifndef DEVNS_MCSLABEL_H
#define DEVNS_MCSLABEL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The group database as mcslabel sees it (groupcache in the plugin). */
typedef struct mcslabel_ops {
	/* 1 member, 0 not, -1 with errno when the lookup failed */
	int (*user_in_group)(void *ctx, uid_t uid, gid_t gid);
	/* gid named by text (name, else number of an existing group): 0, or
	 * -1 with errno (ENOENT: no such group) */
	int (*group_gid)(void *ctx, const char *text, gid_t *gid);
	/* canonical name of gid, malloc()ed: 0, or -1 with errno */
	int (*group_name)(void *ctx, gid_t gid, char **name);
	void *ctx;
} mcslabel_ops_t;

typedef struct mcslabel_group {
	char *token;	/* as written in MCSParameters */
	char *name;	/* the group's name: the label jobs get */
	gid_t gid;
} mcslabel_group_t;

typedef struct mcslabel_config {
	mcslabel_group_t *groups;	/* valid groups, in the order given */
	size_t ngroups;
	long cache_ttl;		/* cachettl=SECONDS, or -1 when not given */
	long cache_max;		/* cachemax=ENTRIES, or -1 when not given */
	/* What the admin should read in the log: one line each, naming the
	 * offending value (bad option values, ignored text). */
	char **notes;
	size_t nnotes;
	/* Why the parse failed, when a group could not be resolved: names the
	 * group and the error ("no such group" or the NSS error). */
	char *error;
} mcslabel_config_t;

#define MCSLABEL_NO_LABEL_FOUND "no valid mcs-label found"
#define MCSLABEL_INVALID_LABEL "invalid mcs-label"

/*
 * Parses the plugin part of MCSParameters ("devgrpa|devgrpb|1234", NULL or
 * "" for none).  Each '|'-separated token is a group name or gid; a token
 * "cachettl=SECONDS" sets the cache lifetime, "cachemax=ENTRIES" the bound
 * of the cache instead.  Every group must resolve: unlike mcs/group, which
 * leaves out a group it cannot look up (and with none left turns labels and
 * privatedata off), a group that names nothing or whose lookup fails makes
 * the whole configuration invalid, so that an NSS outage can never switch
 * protection off.  Returns 0; or -1 with errno ENOMEM, or for a group that
 * cannot be resolved ENOENT (no such group) or the lookup's errno, with
 * cfg->error saying which group and why (free with mcslabel_config_free).
 */
int mcslabel_config_parse(const char *spec, const mcslabel_ops_t *ops,
			  mcslabel_config_t *cfg);

void mcslabel_config_free(mcslabel_config_t *cfg);

typedef struct mcslabel_request {
	uid_t uid;
	gid_t job_gid;		/* the gid the job runs as */
	const char *label;	/* --mcs-label, NULL when not given */
	bool enforced;		/* MCSParameters "enforced" */
	bool exclusive_mcs;	/* --exclusive=mcs */
} mcslabel_request_t;

typedef struct mcslabel_decision {
	bool accept;
	/* accept: the label to give the job (a configured group's name), or
	 * NULL to leave the job's label as it is (none, or --mcs-label's). */
	const char *label;
	/* !accept: MCSLABEL_NO_LABEL_FOUND or MCSLABEL_INVALID_LABEL */
	const char *reason;
	/* accept without label because the user's groups could not be read */
	bool lookup_failed;
} mcslabel_decision_t;

/* Decides the label of a job being submitted (the mode table above).
 * Returns 0 (the decision is in *out) or -1 with errno for bad arguments. */
int mcslabel_choose(const mcslabel_config_t *cfg, const mcslabel_ops_t *ops,
		    const mcslabel_request_t *req, mcslabel_decision_t *out);

/* May uid see what carries label?  0 yes, -1 no (including when the user's
 * groups could not be read: privatedata fails closed). */
int mcslabel_check(const mcslabel_config_t *cfg, const mcslabel_ops_t *ops,
		   uid_t uid, const char *label);

#endif /* DEVNS_MCSLABEL_H */
