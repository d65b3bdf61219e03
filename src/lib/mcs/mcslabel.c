/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mcslabel.c - MCS label configuration, choice and checks (see mcslabel.h).
 *
 * No Slurm and no NSS here: every question about users and groups goes
 * through mcslabel_ops_t.  Where mcs/group's behaviour comes from an accident
 * of its parser rather than a rule (an empty entry in "a||b" configures gid 0,
 * text after ':' is dropped only from the last of several groups) we take the
 * safe reading and say so in a note.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mcs/mcslabel.h"

#define TTL_KEY "cachettl="
#define TTL_MAX (7L * 24 * 3600)
#define MAX_KEY "cachemax="
#define MAX_MAX (1L << 24)

__attribute__((format(printf, 2, 3)))
static int add_note(mcslabel_config_t *cfg, const char *fmt, ...)
{
	char **notes, *msg;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	notes = realloc(cfg->notes, (cfg->nnotes + 1) * sizeof(*notes));
	if (!notes) {
		free(msg);
		return -1;
	}
	cfg->notes = notes;
	cfg->notes[cfg->nnotes++] = msg;
	return 0;
}

/* A decimal number in [min, max] into *out; -1 when value is not one. */
static int parse_number(const char *value, long min, long max, long *out)
{
	char *end;
	long l;

	if (*value < '0' || *value > '9')
		return -1;
	errno = 0;
	l = strtol(value, &end, 10);
	if (errno || *end || l < min || l > max)
		return -1;
	*out = l;
	return 0;
}

/* cachettl=SECONDS; a bad value is noted and the default kept. */
static int parse_ttl(mcslabel_config_t *cfg, const char *value)
{
	if (parse_number(value, 0, TTL_MAX, &cfg->cache_ttl) < 0)
		return add_note(cfg, "MCSParameters: bad cachettl value '%s' "
				"(want seconds, 0..%ld): default kept",
				value, TTL_MAX);
	return 0;
}

/* cachemax=ENTRIES; a bad value is noted and the default kept. */
static int parse_max(mcslabel_config_t *cfg, const char *value)
{
	if (parse_number(value, 1, MAX_MAX, &cfg->cache_max) < 0)
		return add_note(cfg, "MCSParameters: bad cachemax value '%s' "
				"(want entries, 1..%ld): default kept",
				value, MAX_MAX);
	return 0;
}

static const mcslabel_group_t *find_gid(const mcslabel_config_t *cfg,
					gid_t gid)
{
	size_t i;

	for (i = 0; i < cfg->ngroups; i++)
		if (cfg->groups[i].gid == gid)
			return &cfg->groups[i];
	return NULL;
}

/*
 * Records in cfg->error why token could not be resolved (errno of the
 * lookup); returns -1 with errno kept.
 */
static int group_error(mcslabel_config_t *cfg, const char *token)
{
	int err = errno ? errno : EIO;

	if (asprintf(&cfg->error, "MCSParameters: cannot resolve group '%s': "
		     "%s", token, err == ENOENT ? "no such group" :
						   strerror(err)) < 0) {
		cfg->error = NULL;
		err = ENOMEM;
	}
	errno = err;
	return -1;
}

/* Resolves one group token and appends it; -1 with errno when it cannot. */
static int add_group(mcslabel_config_t *cfg, const mcslabel_ops_t *ops,
		     const char *token)
{
	mcslabel_group_t *groups, g = { 0 };

	if (ops->group_gid(ops->ctx, token, &g.gid) < 0) {
		if (errno == ENOMEM)
			return -1;
		return group_error(cfg, token);
	}
	if (find_gid(cfg, g.gid))
		return add_note(cfg, "MCSParameters: group '%s' (gid %u) is "
				"listed twice", token, (unsigned)g.gid);
	if (ops->group_name(ops->ctx, g.gid, &g.name) < 0) {
		if (errno == ENOMEM)
			return -1;
		/* Only a racing change to the group database gets here. */
		if (!(g.name = strdup(token)))
			return -1;
	}
	if (!(g.token = strdup(token)))
		goto error;
	groups = realloc(cfg->groups, (cfg->ngroups + 1) * sizeof(*groups));
	if (!groups)
		goto error;
	cfg->groups = groups;
	cfg->groups[cfg->ngroups++] = g;
	return 0;
error:
	free(g.name);
	free(g.token);
	return -1;
}

static int parse_token(mcslabel_config_t *cfg, const mcslabel_ops_t *ops,
		       char *token)
{
	char *colon;

	if (!*token)
		return add_note(cfg, "MCSParameters: empty group entry ignored "
				"(mcs/group would take it as gid 0)");
	if (!strncasecmp(token, TTL_KEY, strlen(TTL_KEY)))
		return parse_ttl(cfg, token + strlen(TTL_KEY));
	if (!strncasecmp(token, MAX_KEY, strlen(MAX_KEY)))
		return parse_max(cfg, token + strlen(MAX_KEY));
	/* Slurm's own parser splits at the first ':' only; mcs/group drops
	 * any further ':' part of the last group. */
	if ((colon = strchr(token, ':'))) {
		if (add_note(cfg, "MCSParameters: text after ':' in '%s' "
			     "ignored", token) < 0)
			return -1;
		*colon = '\0';
		if (!*token)
			return 0;
	}
	return add_group(cfg, ops, token);
}

int mcslabel_config_parse(const char *spec, const mcslabel_ops_t *ops,
			  mcslabel_config_t *cfg)
{
	char *copy = NULL, *token, *next, *why;
	int err;

	memset(cfg, 0, sizeof(*cfg));
	cfg->cache_ttl = -1;
	cfg->cache_max = -1;
	if (!ops) {
		errno = EINVAL;
		return -1;
	}
	if (!spec || !*spec)
		return 0;
	if (!(copy = strdup(spec)))
		goto error;
	for (token = copy; token; token = next) {
		if ((next = strchr(token, '|')))
			*next++ = '\0';
		if (parse_token(cfg, ops, token) < 0)
			goto error;
	}
	free(copy);
	return 0;
error:
	err = errno;
	free(copy);
	/* Nothing of a failed configuration may be used: keep only why. */
	why = cfg->error;
	cfg->error = NULL;
	mcslabel_config_free(cfg);
	cfg->error = why;
	errno = err;
	return -1;
}

void mcslabel_config_free(mcslabel_config_t *cfg)
{
	size_t i;

	if (!cfg)
		return;
	for (i = 0; i < cfg->ngroups; i++) {
		free(cfg->groups[i].token);
		free(cfg->groups[i].name);
	}
	for (i = 0; i < cfg->nnotes; i++)
		free(cfg->notes[i]);
	free(cfg->groups);
	free(cfg->notes);
	free(cfg->error);
	memset(cfg, 0, sizeof(*cfg));
	cfg->cache_ttl = -1;
	cfg->cache_max = -1;
}

static void decide(mcslabel_decision_t *out, bool accept, const char *label,
		   const char *reason)
{
	*out = (mcslabel_decision_t){ .accept = accept, .label = label,
				      .reason = reason };
}

/* No --mcs-label: the first configured group the user is in. */
static void choose_default(const mcslabel_config_t *cfg,
			   const mcslabel_ops_t *ops,
			   const mcslabel_request_t *req,
			   mcslabel_decision_t *out)
{
	size_t i;
	int in;

	if (!req->enforced && !req->exclusive_mcs) {
		decide(out, true, NULL, NULL);
		return;
	}
	for (i = 0; i < cfg->ngroups; i++) {
		const mcslabel_group_t *g = &cfg->groups[i];

		in = ops->user_in_group(ops->ctx, req->uid, g->gid);
		if (in < 0) {
			/* mcs/group: a failed group lookup only rejects the
			 * job where labels are enforced. */
			if (req->enforced) {
				decide(out, false, NULL,
				       MCSLABEL_NO_LABEL_FOUND);
			} else {
				decide(out, true, NULL, NULL);
				out->lookup_failed = true;
			}
			return;
		}
		if (in || g->gid == req->job_gid) {
			decide(out, true, g->name, NULL);
			return;
		}
	}
	decide(out, false, NULL, MCSLABEL_NO_LABEL_FOUND);
}

/* --mcs-label=G: a group, the user's, and configured. */
static void validate_label(const mcslabel_config_t *cfg,
			   const mcslabel_ops_t *ops,
			   const mcslabel_request_t *req,
			   mcslabel_decision_t *out)
{
	gid_t gid;
	int in;

	if (ops->group_gid(ops->ctx, req->label, &gid) < 0)
		goto invalid;
	in = ops->user_in_group(ops->ctx, req->uid, gid);
	if (in < 0 || (!in && gid != req->job_gid))
		goto invalid;
	if (!find_gid(cfg, gid))
		goto invalid;
	decide(out, true, NULL, NULL);
	return;
invalid:
	decide(out, false, NULL, MCSLABEL_INVALID_LABEL);
}

int mcslabel_choose(const mcslabel_config_t *cfg, const mcslabel_ops_t *ops,
		    const mcslabel_request_t *req, mcslabel_decision_t *out)
{
	if (!cfg || !ops || !req || !out) {
		errno = EINVAL;
		return -1;
	}
	if (req->label)
		validate_label(cfg, ops, req, out);
	else
		choose_default(cfg, ops, req, out);
	return 0;
}

/* The gid of a label: configured groups without asking anyone. */
static int label_gid(const mcslabel_config_t *cfg, const mcslabel_ops_t *ops,
		     const char *label, gid_t *gid)
{
	size_t i;

	for (i = 0; cfg && i < cfg->ngroups; i++) {
		if (!strcmp(label, cfg->groups[i].name) ||
		    !strcmp(label, cfg->groups[i].token)) {
			*gid = cfg->groups[i].gid;
			return 0;
		}
	}
	return ops->group_gid(ops->ctx, label, gid);
}

int mcslabel_check(const mcslabel_config_t *cfg, const mcslabel_ops_t *ops,
		   uid_t uid, const char *label)
{
	gid_t gid;

	if (!label)
		return 0;
	if (!ops || label_gid(cfg, ops, label, &gid) < 0)
		return -1;
	return ops->user_in_group(ops->ctx, uid, gid) > 0 ? 0 : -1;
}
