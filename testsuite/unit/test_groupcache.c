/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_groupcache.c - unit tests of the uid -> groups cache: one backend
 * lookup per user, expiry with an injected clock, negative answers
 * and failures kept only GROUPCACHE_NEGATIVE_TTL, the bound on the tables,
 * users in more than 128 groups, and the real NSS backend on this machine's
 * own users.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcs/groupcache.h"
#include "tap.h"

#define SEC 1000000LL

/* ---- a fake group database -------------------------------------------- */

typedef struct fake {
	int user_calls, gid_calls, name_calls;
} fake_t;

#define MANY_UID 5000
#define MANY_COUNT 1000

static int fake_user_groups(void *ctx, uid_t uid, gid_t **gids, size_t *n)
{
	fake_t *f = ctx;
	static const gid_t alice[] = { 1001, 2001, 2001 };
	static const gid_t bob[] = { 2002, 1002 };
	const gid_t *src = NULL;
	size_t i, count = 0;

	f->user_calls++;
	switch (uid) {
	case 1001: src = alice; count = 3; break;
	case 1002: src = bob; count = 2; break;
	case 4040: errno = ENOENT; return -1;
	case 4500: errno = EIO; return -1;
	case MANY_UID: break;
	default: errno = ENOENT; return -1;
	}
	if (uid == MANY_UID) {
		*gids = malloc((MANY_COUNT + 1) * sizeof(gid_t));
		for (i = 0; i < MANY_COUNT; i++)
			(*gids)[i] = 10000 + MANY_COUNT - 1 - i;
		(*gids)[MANY_COUNT] = 2003;
		*n = MANY_COUNT + 1;
		return 0;
	}
	*gids = malloc(count * sizeof(gid_t));
	memcpy(*gids, src, count * sizeof(gid_t));
	*n = count;
	return 0;
}

static int fake_group_gid(void *ctx, const char *name, gid_t *gid)
{
	fake_t *f = ctx;

	f->gid_calls++;
	if (!strcmp(name, "devgrpa") || !strcmp(name, "2001")) {
		*gid = 2001;
		return 0;
	}
	if (!strcmp(name, "brokenldap")) {
		errno = EIO;
		return -1;
	}
	errno = ENOENT;
	return -1;
}

static int fake_group_name(void *ctx, gid_t gid, char **name)
{
	fake_t *f = ctx;

	f->name_calls++;
	if (gid == 2001) {
		*name = strdup("devgrpa");
		return 0;
	}
	errno = ENOENT;
	return -1;
}

static int64_t fake_now;

static int64_t fake_clock(void *ctx)
{
	(void)ctx;
	return fake_now;
}

static groupcache_t *new_cache(fake_t *f, unsigned int ttl)
{
	groupcache_backend_t be = {
		.user_groups = fake_user_groups,
		.group_gid = fake_group_gid,
		.group_name = fake_group_name,
		.ctx = f,
	};
	groupcache_options_t o = {
		.ttl_seconds = ttl, .backend = &be, .clock = fake_clock,
	};

	memset(f, 0, sizeof(*f));
	fake_now = 1000 * SEC;
	return groupcache_create(&o);
}

static groupcache_stats_t stats(groupcache_t *gc)
{
	groupcache_stats_t s;

	groupcache_get_stats(gc, &s);
	return s;
}

/* ---- tests ------------------------------------------------------------- */

static void test_one_lookup_per_user(void)
{
	fake_t f;
	groupcache_t *gc = new_cache(&f, 60);
	int i, all = 1;

	is_int(groupcache_is_member(gc, 1001, 2001), 1, "alice is in devgrpa");
	is_int(f.user_calls, 1, "first question asks the backend once");
	is_int(groupcache_is_member(gc, 1001, 1001), 1,
	       "the primary group counts");
	is_int(groupcache_is_member(gc, 1001, 2002), 0,
	       "alice is not in devgrpb");
	for (i = 0; i < 10000; i++)
		all &= groupcache_is_member(gc, 1001, 2001) == 1;
	ok(all, "10000 more questions all answered yes");
	is_int(f.user_calls, 1, "... without another backend lookup");
	is_int(groupcache_is_member(gc, 1002, 2002), 1, "bob is in devgrpb");
	is_int(f.user_calls, 2, "a second user costs one more lookup");

	groupcache_stats_t s = stats(gc);
	is_int(s.hits, 10002, "hits counted");
	is_int(s.misses, 2, "misses counted");
	is_int(s.nss_lookups, 2, "nss_lookups counted");
	is_int(s.expirations, 0, "nothing expired");
	is_int(s.users, 2, "two users held");

	/* uid 0, a key of all zero bits, must be cached too. */
	groupcache_is_member(gc, 0, 0);
	groupcache_is_member(gc, 0, 0);
	is_int(f.user_calls, 3, "uid 0 is looked up once");
	groupcache_destroy(gc);
}

static void test_expiry(void)
{
	fake_t f;
	groupcache_t *gc = new_cache(&f, 60);

	groupcache_is_member(gc, 1001, 2001);
	fake_now += 60 * SEC - 1;
	groupcache_is_member(gc, 1001, 2001);
	is_int(f.user_calls, 1, "entry alive one microsecond before its TTL");
	fake_now += 1;
	is_int(groupcache_is_member(gc, 1001, 2001), 1,
	       "expired entry still answers right");
	is_int(f.user_calls, 2, "an expired entry is looked up again");
	is_int(stats(gc).expirations, 1, "expiration counted");
	groupcache_is_member(gc, 1001, 2001);
	is_int(f.user_calls, 2, "the refreshed entry lives again");

	/* A TTL change applies to entries filled from then on. */
	groupcache_set_ttl(gc, 5);
	groupcache_is_member(gc, 1002, 2002);
	fake_now += 5 * SEC;
	groupcache_is_member(gc, 1002, 2002);
	is_int(f.user_calls, 4, "a shorter TTL set later takes effect");

	/* Expired entries of users who never come back are swept. */
	fake_now += 3600 * SEC;
	groupcache_is_member(gc, MANY_UID, 2003);
	is_int(stats(gc).users, 1, "stale users swept on the next fill");
	groupcache_destroy(gc);
}

static void test_ttl_zero(void)
{
	fake_t f;
	groupcache_t *gc = new_cache(&f, 0);

	groupcache_is_member(gc, 1001, 2001);
	groupcache_is_member(gc, 1001, 2001);
	groupcache_group_gid(gc, "devgrpa", &(gid_t){ 0 });
	groupcache_group_gid(gc, "devgrpa", &(gid_t){ 0 });
	is_int(f.user_calls, 2, "cachettl=0: every user question asks");
	is_int(f.gid_calls, 2, "cachettl=0: every group question asks");
	is_int(stats(gc).users, 0, "cachettl=0: nothing kept");
	groupcache_destroy(gc);
}

static void test_negative_and_failures(void)
{
	fake_t f;
	groupcache_t *gc = new_cache(&f, 60);
	gid_t gid = 77;
	int rc;

	is_int(groupcache_is_member(gc, 4040, 2001), 0,
	       "an unknown user is in no group");
	groupcache_is_member(gc, 4040, 2001);
	is_int(f.user_calls, 1, "the unknown user is remembered too");

	errno = 0;
	rc = groupcache_is_member(gc, 4500, 2001);
	ok(rc == -1 && errno == EIO, "a failed lookup reports -1/EIO");
	errno = 0;
	rc = groupcache_is_member(gc, 4500, 2001);
	ok(rc == -1 && errno == EIO, "... and so does the next check");
	is_int(f.user_calls, 2, "... answered from the remembered failure");
	is_int(stats(gc).nss_failures, 1, "failures counted");

	is_int(groupcache_group_gid(gc, "devgrpa", &gid), 0, "devgrpa resolves");
	is_int(gid, 2001, "... to its gid");
	groupcache_group_gid(gc, "devgrpa", &gid);
	is_int(f.gid_calls, 1, "group names are cached");
	errno = 0;
	rc = groupcache_group_gid(gc, "nosuch", &gid);
	ok(rc == -1 && errno == ENOENT, "unknown group: -1/ENOENT");
	groupcache_group_gid(gc, "nosuch", &gid);
	is_int(f.gid_calls, 2, "unknown groups are cached as unknown");
	fake_now += GROUPCACHE_NEGATIVE_TTL * SEC;
	groupcache_group_gid(gc, "nosuch", &gid);
	is_int(f.gid_calls, 3, "... for GROUPCACHE_NEGATIVE_TTL only");
	rc = groupcache_group_gid(gc, "brokenldap", &gid);
	ok(rc == -1 && errno == EIO, "group lookup failure: -1/EIO");
	groupcache_group_gid(gc, "brokenldap", &gid);
	is_int(f.gid_calls, 5, "a failed group lookup is not cached");
	fake_now += 61 * SEC;
	groupcache_group_gid(gc, "devgrpa", &gid);
	is_int(f.gid_calls, 6, "group entries expire with the TTL");
	errno = 0;
	ok(groupcache_group_gid(gc, NULL, &gid) == -1 && errno == EINVAL,
	   "a NULL name is EINVAL");
	groupcache_destroy(gc);
}

/* Negative answers and failures live GROUPCACHE_NEGATIVE_TTL, not the TTL. */
static void test_negative_ttl(void)
{
	fake_t f;
	groupcache_t *gc = new_cache(&f, 300);
	int64_t neg = GROUPCACHE_NEGATIVE_TTL * SEC;

	ok(GROUPCACHE_NEGATIVE_TTL > 0 && GROUPCACHE_NEGATIVE_TTL <= 10,
	   "GROUPCACHE_NEGATIVE_TTL is short (%d s)", GROUPCACHE_NEGATIVE_TTL);
	groupcache_is_member(gc, 4040, 2001);
	groupcache_is_member(gc, 4500, 2001);
	groupcache_is_member(gc, 1001, 2001);
	fake_now += neg - 1;
	groupcache_is_member(gc, 4040, 2001);
	groupcache_is_member(gc, 4500, 2001);
	is_int(f.user_calls, 3, "negative and failed entries live until "
	       "GROUPCACHE_NEGATIVE_TTL");
	fake_now += 1;
	is_int(groupcache_is_member(gc, 4040, 2001), 0,
	       "an unknown user still answers no after it");
	errno = 0;
	ok(groupcache_is_member(gc, 4500, 2001) == -1 && errno == EIO,
	   "a failing user still answers -1/EIO after it");
	is_int(f.user_calls, 5, "... both asked again after "
	       "GROUPCACHE_NEGATIVE_TTL, not the 300 s TTL");
	groupcache_is_member(gc, 1001, 2001);
	is_int(f.user_calls, 5, "a positive entry still lives the TTL");

	/* A TTL below the negative one bounds negative entries too. */
	groupcache_set_ttl(gc, 1);
	fake_now += 300 * SEC;
	groupcache_is_member(gc, 4040, 2001);
	fake_now += SEC;
	groupcache_is_member(gc, 4040, 2001);
	is_int(f.user_calls, 7, "a TTL shorter than the negative TTL wins");
	groupcache_set_ttl(gc, 0);
	groupcache_is_member(gc, 4500, 2001);
	groupcache_is_member(gc, 4500, 2001);
	is_int(f.user_calls, 9, "cachettl=0 keeps no failure either");
	groupcache_destroy(gc);
}

/* A failure is never a membership, whatever was cached before. */
static void test_failure_denies(void)
{
	fake_t f;
	groupcache_t *gc = new_cache(&f, 60);
	int all = 1;
	gid_t g;

	for (g = 0; g < 3000; g += 7)
		all &= groupcache_is_member(gc, 4500, g) == -1;
	ok(all, "a failing user is in no group (always -1)");
	is_int(f.user_calls, 1, "... one backend call for all those checks");
	groupcache_destroy(gc);
}

static groupcache_t *new_bounded(fake_t *f, unsigned int ttl, size_t max)
{
	groupcache_t *gc = new_cache(f, ttl);

	groupcache_set_max(gc, max);
	return gc;
}

/* uids 100000.. are unknown users: each one is a new (negative) entry. */
static void test_bound(void)
{
	fake_t f;
	groupcache_t *gc = new_bounded(&f, 300, 8);
	groupcache_stats_t s;
	int i, bounded = 1;
	char name[32];
	gid_t gid;

	for (i = 0; i < 1000; i++) {
		groupcache_is_member(gc, 100000 + i, 1);
		bounded &= stats(gc).users <= 8;
	}
	ok(bounded, "1000 users through a cache of 8: never more than 8 held");
	s = stats(gc);
	ok(s.evictions > 0, "... by evicting (%lu times)",
	   (unsigned long)s.evictions);
	ok(s.evictions <= 1000 / 4, "... at most once per max/2 inserts");

	/* Full of live entries, a known user still gets in and is kept. */
	groupcache_is_member(gc, 1001, 2001);
	groupcache_is_member(gc, 1001, 2001);
	is_int(f.user_calls, 1001, "the newest user is kept after eviction");

	/* Expired entries go first: no eviction while they make room. */
	groupcache_destroy(gc);
	gc = new_bounded(&f, 300, 8);
	for (i = 0; i < 8; i++)
		groupcache_is_member(gc, 100000 + i, 1);
	fake_now += GROUPCACHE_NEGATIVE_TTL * SEC;
	groupcache_is_member(gc, 1001, 2001);
	s = stats(gc);
	is_int(s.evictions, 0, "full of expired entries: they are dropped");
	is_int(s.users, 1, "... and the new one kept");

	/* Replacing an entry does not count against the bound. */
	for (i = 0; i < 7; i++)
		groupcache_is_member(gc, 100000 + i, 1);
	fake_now += 300 * SEC;
	groupcache_is_member(gc, 1001, 2001);
	is_int(stats(gc).evictions, 0, "refreshing a held user evicts nothing");
	groupcache_destroy(gc);

	/* The group table is bounded the same way (--mcs-label texts). */
	gc = new_bounded(&f, 300, 4);
	bounded = 1;
	for (i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "label%d", i);
		groupcache_group_gid(gc, name, &gid);
		bounded &= stats(gc).groups <= 4;
	}
	ok(bounded, "100 label texts through a cache of 4: never more than 4");
	groupcache_set_max(gc, 0);
	for (i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "other%d", i);
		groupcache_group_gid(gc, name, &gid);
	}
	is_int(stats(gc).groups, 104, "set_max(0): GROUPCACHE_DEFAULT_MAX");
	ok(GROUPCACHE_DEFAULT_MAX >= 1024, "GROUPCACHE_DEFAULT_MAX is %d",
	   GROUPCACHE_DEFAULT_MAX);
	groupcache_destroy(gc);
}

static void test_many_groups(void)
{
	fake_t f;
	groupcache_t *gc = new_cache(&f, 60);
	int all = 1, i;

	is_int(groupcache_is_member(gc, MANY_UID, 2003), 1,
	       "user in 1001 groups: the last one is found");
	for (i = 0; i < MANY_COUNT; i++)
		all &= groupcache_is_member(gc, MANY_UID, 10000 + i) == 1;
	ok(all, "... and every one of the other 1000");
	is_int(groupcache_is_member(gc, MANY_UID, 10000 + MANY_COUNT), 0,
	       "... and no other");
	is_int(f.user_calls, 1, "... from one lookup");
	groupcache_destroy(gc);
}

/* The real NSS backend against this machine's users. */
static void test_nss(void)
{
	groupcache_t *gc = groupcache_create(NULL);
	struct passwd *pw;
	struct group *gr;
	gid_t gid = 99;
	char *name = NULL;

	is_int(groupcache_is_member(gc, 0, 0), 1, "nss: root is in gid 0");
	is_int(groupcache_group_gid(gc, "root", &gid), 0, "nss: 'root' resolves");
	is_int(gid, 0, "nss: ... to gid 0");
	gid = 99;
	is_int(groupcache_group_gid(gc, "0", &gid), 0,
	       "nss: '0' is the number of an existing group");
	is_int(gid, 0, "nss: ... gid 0");
	errno = 0;
	ok(groupcache_group_gid(gc, "devns-no-such-group", &gid) == -1 &&
	   errno == ENOENT, "nss: unknown name is ENOENT");
	errno = 0;
	ok(groupcache_group_gid(gc, "2147483000", &gid) == -1 &&
	   errno == ENOENT, "nss: number of no group is ENOENT");
	ok(groupcache_group_gid(gc, "-1", &gid) == -1, "nss: '-1' is no gid");
	ok(groupcache_group_gid(gc, "0x0", &gid) == -1, "nss: '0x0' is no gid");
	is_int(groupcache_group_name(gc, 0, &name), 0, "nss: gid 0 has a name");
	is_str(name, "root", "nss: ... root");
	free(name);
	is_int(groupcache_is_member(gc, 2147483000, 0), 0,
	       "nss: a uid without passwd entry is in no group");

	/* The cluster harness's user in 140 groups, where it exists. */
	pw = getpwnam("dnmany");
	gr = getgrnam("devgrpc");
	if (pw && gr) {
		gid_t c = gr->gr_gid, g140;
		int r1 = groupcache_is_member(gc, pw->pw_uid, c);

		gr = getgrnam("dnmany140");
		g140 = gr ? gr->gr_gid : (gid_t)-1;
		is_int(r1, 1, "nss: dnmany (>128 groups) is in devgrpc");
		is_int(groupcache_is_member(gc, pw->pw_uid, g140), 1,
		       "nss: dnmany is in dnmany140");
		is_int(groupcache_is_member(gc, pw->pw_uid, pw->pw_gid), 1,
		       "nss: dnmany is in its primary group");
	} else {
		tap_skip("no user dnmany / group devgrpc on this machine "
			 "(testsuite/cluster/cluster.sh users creates them)");
	}
	groupcache_destroy(gc);
}

int main(void)
{
	test_one_lookup_per_user();
	test_expiry();
	test_ttl_zero();
	test_negative_and_failures();
	test_negative_ttl();
	test_failure_denies();
	test_bound();
	test_many_groups();
	test_nss();
	return tap_done();
}
