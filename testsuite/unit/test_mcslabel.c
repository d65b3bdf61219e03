/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_mcslabel.c - unit tests of the mcs/group rules: parsing the plugin part
 * of MCSParameters, the label chosen or refused for every row of the mode
 * table, and the privatedata check.  The expectations are written out row by
 * row from mcs/group's behaviour, not computed.
 *
 * Users (uid: primary gid, groups):
 *   alice 1001: 1001, devgrpa          bob   1002: 1002, devgrpb
 *   carol 1003: 1003, devgrpa, devgrpb dave  1004: 1004
 *   many  5000: 5000, 10000..10199, devgrpc (201 groups)
 *   root     0: 0                      broken 4500: lookup fails (EIO)
 * Groups: devgrpa 2001, devgrpb 2002, devgrpc 2003, alice 1001, ...
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mcs/groupcache.h"
#include "mcs/mcslabel.h"
#include "tap.h"

enum { ROOT = 0, ALICE = 1001, BOB = 1002, CAROL = 1003, DAVE = 1004,
       MANY = 5000, BROKEN = 4500 };
enum { GA = 2001, GB = 2002, GC = 2003 };

static const struct { const char *name; gid_t gid; } groups[] = {
	{ "devgrpa", GA }, { "devgrpb", GB }, { "devgrpc", GC },
	{ "root", 0 }, { "alice", ALICE }, { "bob", BOB }, { "carol", CAROL },
	{ "dave", DAVE }, { "many", MANY },
};

static int user_groups(uid_t uid, gid_t **gids, size_t *n)
{
	gid_t *g = malloc(256 * sizeof(gid_t));
	size_t k = 0, i;

	switch (uid) {
	case ROOT: g[k++] = 0; break;
	case ALICE: g[k++] = ALICE; g[k++] = GA; break;
	case BOB: g[k++] = BOB; g[k++] = GB; break;
	case CAROL: g[k++] = CAROL; g[k++] = GA; g[k++] = GB; break;
	case DAVE: g[k++] = DAVE; break;
	case MANY:
		g[k++] = MANY;
		for (i = 0; i < 200; i++)
			g[k++] = 10000 + i;
		g[k++] = GC;
		break;
	case BROKEN: free(g); errno = EIO; return -1;
	default: free(g); errno = ENOENT; return -1;
	}
	*gids = g;
	*n = k;
	return 0;
}

/* ---- the fake database as groupcache backend --------------------------- */

static int be_calls;

static int be_user_groups(void *ctx, uid_t uid, gid_t **gids, size_t *n)
{
	(void)ctx;
	be_calls++;
	return user_groups(uid, gids, n);
}

static int be_group_gid(void *ctx, const char *text, gid_t *gid)
{
	size_t i;
	char *end;
	long l;

	(void)ctx;
	be_calls++;
	if (!strcmp(text, "brokenldap")) {
		errno = EIO;
		return -1;
	}
	for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		if (!strcmp(text, groups[i].name)) {
			*gid = groups[i].gid;
			return 0;
		}
	}
	l = strtol(text, &end, 10);
	if (*text >= '0' && *text <= '9' && !*end) {
		for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
			if (groups[i].gid == (gid_t)l) {
				*gid = groups[i].gid;
				return 0;
			}
		}
	}
	errno = ENOENT;
	return -1;
}

static int be_group_name(void *ctx, gid_t gid, char **name)
{
	size_t i;

	(void)ctx;
	be_calls++;
	for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		if (groups[i].gid == gid) {
			*name = strdup(groups[i].name);
			return 0;
		}
	}
	errno = ENOENT;
	return -1;
}

/* ---- mcslabel_ops_t over a groupcache, as the plugin wires it ---------- */

static int op_in(void *ctx, uid_t uid, gid_t gid)
{
	return groupcache_is_member(ctx, uid, gid);
}

static int op_gid(void *ctx, const char *text, gid_t *gid)
{
	return groupcache_group_gid(ctx, text, gid);
}

static int op_name(void *ctx, gid_t gid, char **name)
{
	return groupcache_group_name(ctx, gid, name);
}

static groupcache_t *cache;
static mcslabel_ops_t ops;

static void setup(void)
{
	static const groupcache_backend_t be = {
		.user_groups = be_user_groups,
		.group_gid = be_group_gid,
		.group_name = be_group_name,
	};
	groupcache_options_t o = { .ttl_seconds = 300, .backend = &be };

	cache = groupcache_create(&o);
	ops = (mcslabel_ops_t){ .user_in_group = op_in, .group_gid = op_gid,
				.group_name = op_name, .ctx = cache };
}

static mcslabel_config_t parse(const char *spec)
{
	mcslabel_config_t cfg;

	if (mcslabel_config_parse(spec, &ops, &cfg) < 0)
		diag("parse of '%s' failed: %s", spec, strerror(errno));
	return cfg;
}

static int has_note(const mcslabel_config_t *cfg, const char *needle)
{
	size_t i;

	for (i = 0; i < cfg->nnotes; i++)
		if (strstr(cfg->notes[i], needle))
			return 1;
	return 0;
}

/* ---- parsing ------------------------------------------------------------ */

static void test_parse(void)
{
	mcslabel_config_t c;

	c = parse("devgrpa|devgrpb");
	is_int(c.ngroups, 2, "two groups");
	is_str(c.groups[0].name, "devgrpa", "first is devgrpa");
	is_int(c.groups[0].gid, GA, "... gid 2001");
	is_str(c.groups[1].name, "devgrpb", "second is devgrpb");
	is_int(c.nnotes, 0, "no notes for a clean list");
	is_int(c.cache_ttl, -1, "no cachettl given");
	mcslabel_config_free(&c);

	c = parse("2002|devgrpa");
	is_int(c.ngroups, 2, "a gid is accepted");
	is_int(c.groups[0].gid, GB, "... as gid 2002");
	is_str(c.groups[0].name, "devgrpb", "... labelled with the group name");
	is_str(c.groups[0].token, "2002", "... token kept as written");
	mcslabel_config_free(&c);

	/* A group that cannot be resolved invalidates the configuration:
	 * leaving it out would fail open (fewer or no labels, privatedata
	 * off when none is left). */
	errno = 0;
	ok(mcslabel_config_parse("devgrpa|nosuchgrp|devgrpb", &ops, &c) == -1 &&
	   errno == ENOENT, "unknown group in the middle: -1/ENOENT");
	is_str(c.error, "MCSParameters: cannot resolve group 'nosuchgrp': "
	       "no such group", "... the error names it");
	ok(c.ngroups == 0 && !c.groups, "... and no group is left to use");
	mcslabel_config_free(&c);
	ok(!c.error, "config_free frees the error");

	errno = 0;
	ok(mcslabel_config_parse("nosuchgrp|4242", &ops, &c) == -1 &&
	   errno == ENOENT, "unknown name and unused gid: -1/ENOENT");
	is_str(c.error, "MCSParameters: cannot resolve group 'nosuchgrp': "
	       "no such group", "... the first one is named");
	mcslabel_config_free(&c);

	errno = 0;
	ok(mcslabel_config_parse("devgrpa|4242", &ops, &c) == -1 &&
	   errno == ENOENT, "a gid of no group: -1/ENOENT");
	is_str(c.error, "MCSParameters: cannot resolve group '4242': "
	       "no such group", "... named");
	mcslabel_config_free(&c);

	c = parse(NULL);
	ok(c.ngroups == 0 && c.nnotes == 0, "NULL: no groups, no notes");
	mcslabel_config_free(&c);
	c = parse("");
	ok(c.ngroups == 0 && c.nnotes == 0, "empty: no groups, no notes");
	mcslabel_config_free(&c);

	c = parse("devgrpa||devgrpb|");
	is_int(c.ngroups, 2, "empty entries do not become gid 0");
	ok(has_note(&c, "empty group entry"), "... and are noted");
	mcslabel_config_free(&c);

	c = parse("devgrpa|devgrpb:whatever");
	is_int(c.ngroups, 2, "text after ':' in the last group dropped");
	is_str(c.groups[1].name, "devgrpb", "... group kept");
	ok(has_note(&c, "after ':' in 'devgrpb:whatever'"),
	   "... the dropped text is noted");
	mcslabel_config_free(&c);

	c = parse("devgrpa|2001");
	is_int(c.ngroups, 1, "a group listed twice is kept once");
	ok(has_note(&c, "listed twice"), "... with a note");
	mcslabel_config_free(&c);

	errno = 0;
	ok(mcslabel_config_parse("devgrpa|brokenldap", &ops, &c) == -1 &&
	   errno == EIO, "a group whose lookup fails: -1/EIO");
	is_str(c.error, "MCSParameters: cannot resolve group 'brokenldap': "
	       "Input/output error", "... the error names it and the NSS error");
	ok(c.ngroups == 0 && c.nnotes == 0, "... nothing else kept");
	mcslabel_config_free(&c);

	c = parse("devgrpa|cachettl=60");
	is_int(c.ngroups, 1, "cachettl is not a group");
	is_int(c.cache_ttl, 60, "cachettl=60");
	mcslabel_config_free(&c);
	c = parse("CacheTTL=0|devgrpa");
	is_int(c.cache_ttl, 0, "CacheTTL=0 (any case, any position)");
	mcslabel_config_free(&c);
	c = parse("devgrpa|cachettl=5m");
	is_int(c.cache_ttl, -1, "cachettl=5m refused");
	ok(has_note(&c, "bad cachettl value '5m'"), "... with a note");
	mcslabel_config_free(&c);
	c = parse("devgrpa|cachettl=-1");
	is_int(c.cache_ttl, -1, "negative cachettl refused");
	mcslabel_config_free(&c);
	c = parse("devgrpa|cachettl=");
	is_int(c.cache_ttl, -1, "empty cachettl refused");
	mcslabel_config_free(&c);
	c = parse("devgrpa|cachettl=99999999999");
	is_int(c.cache_ttl, -1, "huge cachettl refused");
	mcslabel_config_free(&c);

	c = parse("devgrpa|cachemax=1000");
	is_int(c.ngroups, 1, "cachemax is not a group");
	is_int(c.cache_max, 1000, "cachemax=1000");
	is_int(c.cache_ttl, -1, "... cachettl untouched");
	mcslabel_config_free(&c);
	c = parse("CacheMax=1|devgrpa");
	is_int(c.cache_max, 1, "CacheMax=1 (any case, any position)");
	mcslabel_config_free(&c);
	c = parse("devgrpa|cachemax=0");
	is_int(c.cache_max, -1, "cachemax=0 refused");
	ok(has_note(&c, "bad cachemax value '0'"), "... with a note");
	mcslabel_config_free(&c);
	c = parse("devgrpa|cachemax=1k");
	is_int(c.cache_max, -1, "cachemax=1k refused");
	mcslabel_config_free(&c);
	c = parse("devgrpa|cachemax=99999999999");
	is_int(c.cache_max, -1, "huge cachemax refused");
	mcslabel_config_free(&c);
	c = parse("devgrpa");
	is_int(c.cache_max, -1, "no cachemax given");
	mcslabel_config_free(&c);

	errno = 0;
	ok(mcslabel_config_parse("x", NULL, &c) == -1 && errno == EINVAL,
	   "no ops: EINVAL");
}

/* ---- the mode table ----------------------------------------------------- */

typedef struct row {
	const char *spec;	/* plugin part of MCSParameters */
	int enforced, exclusive;
	uid_t uid;
	gid_t job_gid;		/* 0: the user's primary group */
	const char *label;	/* --mcs-label */
	int accept;
	const char *want;	/* label set by the plugin (NULL: none) */
	const char *reason;	/* when refused */
} row_t;

#define AB "devgrpa|devgrpb"
#define BA "devgrpb|devgrpa"
#define ABC "devgrpa|devgrpb|devgrpc"
#define NOLBL MCSLABEL_NO_LABEL_FOUND
#define INVAL MCSLABEL_INVALID_LABEL

static const row_t rows[] = {
	/* ondemand, no --exclusive=mcs, no label: never labelled */
	{ AB, 0, 0, ALICE, 0, NULL, 1, NULL, NULL },
	{ AB, 0, 0, CAROL, 0, NULL, 1, NULL, NULL },
	{ AB, 0, 0, DAVE, 0, NULL, 1, NULL, NULL },
	{ AB, 0, 0, BROKEN, 0, NULL, 1, NULL, NULL },
	{ AB, 0, 0, ROOT, 0, NULL, 1, NULL, NULL },
	/* ondemand + --exclusive=mcs: first configured group of the user */
	{ AB, 0, 1, ALICE, 0, NULL, 1, "devgrpa", NULL },
	{ AB, 0, 1, BOB, 0, NULL, 1, "devgrpb", NULL },
	{ AB, 0, 1, CAROL, 0, NULL, 1, "devgrpa", NULL },
	{ BA, 0, 1, CAROL, 0, NULL, 1, "devgrpb", NULL },
	{ AB, 0, 1, DAVE, 0, NULL, 0, NULL, NOLBL },
	{ AB, 0, 1, ROOT, 0, NULL, 0, NULL, NOLBL },
	{ AB, 0, 1, MANY, 0, NULL, 0, NULL, NOLBL },
	{ ABC, 0, 1, MANY, 0, NULL, 1, "devgrpc", NULL },
	/* groups unreadable: ondemand runs the job unlabelled */
	{ AB, 0, 1, BROKEN, 0, NULL, 1, NULL, NULL },
	/* the job's own gid counts (sg devgrpb sbatch ...) */
	{ AB, 0, 1, DAVE, GB, NULL, 1, "devgrpb", NULL },
	/* enforced: a label always */
	{ AB, 1, 0, ALICE, 0, NULL, 1, "devgrpa", NULL },
	{ AB, 1, 1, ALICE, 0, NULL, 1, "devgrpa", NULL },
	{ AB, 1, 0, BOB, 0, NULL, 1, "devgrpb", NULL },
	{ AB, 1, 0, CAROL, 0, NULL, 1, "devgrpa", NULL },
	{ BA, 1, 0, CAROL, 0, NULL, 1, "devgrpb", NULL },
	{ AB, 1, 0, DAVE, 0, NULL, 0, NULL, NOLBL },
	{ AB, 1, 1, DAVE, 0, NULL, 0, NULL, NOLBL },
	{ AB, 1, 0, ROOT, 0, NULL, 0, NULL, NOLBL },
	{ AB, 1, 0, BROKEN, 0, NULL, 0, NULL, NOLBL },
	{ ABC, 1, 0, MANY, 0, NULL, 1, "devgrpc", NULL },
	{ "", 1, 0, ALICE, 0, NULL, 0, NULL, NOLBL },
	/* --mcs-label: the same in every mode */
	{ AB, 0, 0, ALICE, 0, "devgrpa", 1, NULL, NULL },
	{ AB, 0, 1, ALICE, 0, "devgrpa", 1, NULL, NULL },
	{ AB, 1, 0, ALICE, 0, "devgrpa", 1, NULL, NULL },
	{ AB, 1, 1, ALICE, 0, "devgrpa", 1, NULL, NULL },
	{ AB, 0, 0, ALICE, 0, "2001", 1, NULL, NULL },
	{ AB, 1, 0, CAROL, 0, "devgrpb", 1, NULL, NULL },
	{ AB, 0, 0, ALICE, 0, "devgrpb", 0, NULL, INVAL },
	{ AB, 1, 1, ALICE, 0, "devgrpb", 0, NULL, INVAL },
	{ AB, 0, 0, ALICE, 0, "nosuchgrp", 0, NULL, INVAL },
	{ AB, 1, 0, ALICE, 0, "nosuchgrp", 0, NULL, INVAL },
	{ AB, 0, 0, ALICE, 0, "", 0, NULL, INVAL },
	{ AB, 0, 0, ALICE, 0, "alice", 0, NULL, INVAL },
	{ AB, 0, 0, DAVE, 0, "devgrpa", 0, NULL, INVAL },
	{ AB, 1, 0, DAVE, GA, "devgrpa", 1, NULL, NULL },
	{ AB, 0, 0, MANY, 0, "devgrpc", 0, NULL, INVAL },
	{ ABC, 0, 0, MANY, 0, "devgrpc", 1, NULL, NULL },
	{ ABC, 0, 0, MANY, 0, "2003", 1, NULL, NULL },
	{ AB, 0, 0, BROKEN, 0, "devgrpa", 0, NULL, INVAL },
	{ AB, 0, 0, ROOT, 0, "devgrpa", 0, NULL, INVAL },
	{ AB, 0, 0, ALICE, 0, "brokenldap", 0, NULL, INVAL },
};

static void test_mode_table(void)
{
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const row_t *r = &rows[i];
		mcslabel_config_t cfg = parse(r->spec);
		mcslabel_request_t req = {
			.uid = r->uid,
			.job_gid = r->job_gid ? r->job_gid : r->uid,
			.label = r->label, .enforced = r->enforced,
			.exclusive_mcs = r->exclusive,
		};
		mcslabel_decision_t d;
		char name[160];

		snprintf(name, sizeof(name),
			 "%s %s%s uid %u gid %u label %s",
			 *r->spec ? r->spec : "(none)",
			 r->enforced ? "enforced" : "ondemand",
			 r->exclusive ? " --exclusive=mcs" : "",
			 (unsigned)req.uid, (unsigned)req.job_gid,
			 r->label ? r->label : "-");
		if (mcslabel_choose(&cfg, &ops, &req, &d) < 0) {
			ok(0, "%s: choose failed", name);
			continue;
		}
		if (r->accept)
			ok(d.accept && (r->want ? d.label && !strcmp(d.label, r->want)
					       : !d.label),
			   "%s -> accept, label %s", name,
			   r->want ? r->want : "none");
		else
			ok(!d.accept && d.reason && !strcmp(d.reason, r->reason),
			   "%s -> reject '%s'", name, r->reason);
		if (r->uid == BROKEN && !r->enforced && r->exclusive && !r->label)
			ok(d.lookup_failed, "%s: lookup failure flagged", name);
		mcslabel_config_free(&cfg);
	}
	errno = 0;
	ok(mcslabel_choose(NULL, &ops, NULL, NULL) == -1 && errno == EINVAL,
	   "choose without arguments: EINVAL");
}

/* ---- privatedata checks -------------------------------------------------- */

static void test_check(void)
{
	mcslabel_config_t c = parse(AB);

	is_int(mcslabel_check(&c, &ops, DAVE, NULL), 0, "unlabelled: visible to all");
	is_int(mcslabel_check(&c, &ops, BROKEN, NULL), 0,
	       "unlabelled: visible even when groups are unreadable");
	is_int(mcslabel_check(&c, &ops, ALICE, "devgrpa"), 0, "alice sees devgrpa");
	is_int(mcslabel_check(&c, &ops, ALICE, "devgrpb"), -1, "alice not devgrpb");
	is_int(mcslabel_check(&c, &ops, CAROL, "devgrpa"), 0, "carol sees devgrpa");
	is_int(mcslabel_check(&c, &ops, CAROL, "devgrpb"), 0, "carol sees devgrpb");
	is_int(mcslabel_check(&c, &ops, DAVE, "devgrpa"), -1, "dave sees no devgrpa");
	is_int(mcslabel_check(&c, &ops, DAVE, "devgrpb"), -1, "dave sees no devgrpb");
	is_int(mcslabel_check(&c, &ops, ALICE, "2001"), 0,
	       "a numeric label is the gid");
	is_int(mcslabel_check(&c, &ops, MANY, "devgrpc"), 0,
	       "a label outside the configured groups still counts");
	is_int(mcslabel_check(&c, &ops, ALICE, "alice"), 0,
	       "the primary group counts");
	is_int(mcslabel_check(&c, &ops, ALICE, "nosuchgrp"), -1,
	       "a label naming no group hides");
	is_int(mcslabel_check(&c, &ops, BROKEN, "devgrpa"), -1,
	       "unreadable groups hide (fail closed)");
	is_int(mcslabel_check(&c, &ops, ROOT, "devgrpa"), -1,
	       "root is not special here (slurmctld skips operators)");
	is_int(mcslabel_check(NULL, &ops, ALICE, "devgrpa"), 0,
	       "no config: labels resolved through the cache");
	mcslabel_config_free(&c);
}

/* ---- cost: what the cache saves ----------------------------------------- */

static void test_cost(void)
{
	mcslabel_config_t c = parse(AB);
	int i, all = 1, before;

	/* A fresh cache, so that only the checks below count. */
	groupcache_destroy(cache);
	setup();
	before = be_calls;
	for (i = 0; i < 10000; i++)
		all &= mcslabel_check(&c, &ops, BOB, i % 2 ? "devgrpa" : "devgrpb")
		       == (i % 2 ? -1 : 0);
	ok(all, "10000 checks of configured labels all right");
	is_int(be_calls - before, 1, "... cost one lookup");

	before = be_calls;
	for (i = 0; i < 10000; i++)
		all &= mcslabel_check(&c, &ops, MANY, "devgrpc") == 0;
	ok(all, "10000 checks of a label outside the config all right");
	is_int(be_calls - before, 2, "... cost one user and one group lookup");
	mcslabel_config_free(&c);
}

int main(void)
{
	setup();
	test_parse();
	test_mode_table();
	test_check();
	test_cost();
	groupcache_destroy(cache);
	return tap_done();
}
