/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * groupcache.c - the expiring uid -> group set cache behind mcs/devgroup.
 *
 * Two hash tables (util/hashtab) under one read-write lock: users (uid ->
 * sorted gid array) and groups (label text -> gid).  Each entry holds its own
 * key, so storing one is one allocation.  Entries are immutable once stored,
 * so readers answer under the read lock and never copy.  A miss calls the
 * backend with no lock held - an LDAP lookup can take long and must not stall
 * every other slurmctld thread - and then stores the result under the write
 * lock.
 *
 * Two threads missing on the same user at once both ask the backend; that
 * costs one extra lookup and keeps the code free of waiting.
 *
 * Lifetimes: a user's group set lives the TTL; "no such user", "no such
 * group" and a failed user lookup live GROUPCACHE_NEGATIVE_TTL at most, so
 * that a failure is never answered for long and never as membership.  Each
 * table holds at most max_entries (make_room_locked).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcs/groupcache.h"
#include "util/hashtab.h"

#define USEC_PER_SEC 1000000LL

typedef struct user_entry {
	int64_t expires;	/* clock value after which it is stale */
	uid_t uid;		/* the key of the users table */
	int error;		/* errno of a failed lookup, 0 when it worked */
	size_t ngids;
	gid_t gids[];		/* sorted, unique */
} user_entry_t;

typedef struct group_entry {
	int64_t expires;
	bool exists;
	gid_t gid;
	char name[];		/* the key of the groups table */
} group_entry_t;

struct groupcache {
	pthread_rwlock_t lock;
	hashtab_t *users;	/* &entry->uid -> user_entry_t */
	hashtab_t *groups;	/* entry->name -> group_entry_t */
	int64_t next_sweep;	/* when to drop expired entries; under lock */
	_Atomic int64_t ttl_us;
	_Atomic size_t max_entries;

	groupcache_backend_t backend;
	groupcache_clock_t clock;
	void *clock_ctx;

	_Atomic uint64_t hits, misses, expirations;
	_Atomic uint64_t nss_lookups, nss_failures, evictions;
};

static int64_t clock_monotonic(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * USEC_PER_SEC + ts.tv_nsec / 1000;
}

static int64_t now(groupcache_t *gc)
{
	return gc->clock(gc->clock_ctx);
}

static void count(_Atomic uint64_t *counter)
{
	atomic_fetch_add_explicit(counter, 1, memory_order_relaxed);
}

static uint64_t uid_hash(const void *key)
{
	return *(const uid_t *)key;
}

static bool uid_equal(const void *a, const void *b)
{
	return *(const uid_t *)a == *(const uid_t *)b;
}

groupcache_t *groupcache_create(const groupcache_options_t *opts)
{
	groupcache_t *gc = calloc(1, sizeof(*gc));
	int rc;

	if (!gc)
		return NULL;
	if ((rc = pthread_rwlock_init(&gc->lock, NULL))) {
		free(gc);
		errno = rc;
		return NULL;
	}
	gc->users = hashtab_create(uid_hash, uid_equal, free);
	gc->groups = hashtab_create(hashtab_hash_str, hashtab_equal_str, free);
	if (!gc->users || !gc->groups)
		goto error;
	gc->backend = (opts && opts->backend) ? *opts->backend : groupcache_nss;
	gc->clock = (opts && opts->clock) ? opts->clock : clock_monotonic;
	gc->clock_ctx = opts ? opts->clock_ctx : NULL;
	groupcache_set_ttl(gc, opts ? opts->ttl_seconds : GROUPCACHE_DEFAULT_TTL);
	groupcache_set_max(gc, opts ? opts->max_entries : 0);
	return gc;

error:
	groupcache_destroy(gc);
	errno = ENOMEM;
	return NULL;
}

void groupcache_destroy(groupcache_t *gc)
{
	if (!gc)
		return;
	hashtab_destroy(gc->users);
	hashtab_destroy(gc->groups);
	pthread_rwlock_destroy(&gc->lock);
	free(gc);
}

void groupcache_set_ttl(groupcache_t *gc, unsigned int ttl_seconds)
{
	atomic_store(&gc->ttl_us, (int64_t)ttl_seconds * USEC_PER_SEC);
}

void groupcache_set_max(groupcache_t *gc, size_t max_entries)
{
	atomic_store(&gc->max_entries,
		     max_entries ? max_entries : GROUPCACHE_DEFAULT_MAX);
}

/* The lifetime of a negative or failed answer: the short one, never longer
 * than the TTL (0 keeps nothing). */
static int64_t negative_ttl(groupcache_t *gc)
{
	int64_t ttl = atomic_load(&gc->ttl_us);
	int64_t neg = (int64_t)GROUPCACHE_NEGATIVE_TTL * USEC_PER_SEC;

	return ttl < neg ? ttl : neg;
}

static int cmp_gid(const void *a, const void *b)
{
	gid_t x = *(const gid_t *)a, y = *(const gid_t *)b;

	return (x > y) - (x < y);
}

static bool entry_has(const user_entry_t *e, gid_t gid)
{
	return bsearch(&gid, e->gids, e->ngids, sizeof(gid_t), cmp_gid) != NULL;
}

/* A new entry of uid from the backend's (unsorted, maybe repetitive) list. */
static user_entry_t *entry_new(uid_t uid, const gid_t *gids, size_t n,
			       int64_t expires)
{
	user_entry_t *e = malloc(sizeof(*e) + n * sizeof(gid_t));
	size_t i, out = 0;

	if (!e)
		return NULL;
	e->uid = uid;
	e->error = 0;
	if (n)
		memcpy(e->gids, gids, n * sizeof(gid_t));
	qsort(e->gids, n, sizeof(gid_t), cmp_gid);
	for (i = 0; i < n; i++)
		if (!out || e->gids[out - 1] != e->gids[i])
			e->gids[out++] = e->gids[i];
	e->ngids = out;
	e->expires = expires;
	return e;
}

static bool is_stale(int64_t expires, int64_t t)
{
	return t >= expires;
}

static bool user_expired(const void *key, void *value, void *t)
{
	(void)key;
	return is_stale(((user_entry_t *)value)->expires, *(int64_t *)t);
}

static bool group_expired(const void *key, void *value, void *t)
{
	(void)key;
	return is_stale(((group_entry_t *)value)->expires, *(int64_t *)t);
}

/* The lock calls cannot fail here: the lock is initialized, and a thread
 * never takes it twice nor releases one it does not hold. */
static void read_lock(groupcache_t *gc)
{
	pthread_rwlock_rdlock(&gc->lock);
}

static void write_lock(groupcache_t *gc)
{
	pthread_rwlock_wrlock(&gc->lock);
}

static void unlock(groupcache_t *gc)
{
	pthread_rwlock_unlock(&gc->lock);
}

/*
 * Drops expired entries now and then (write lock held), so that users who
 * never come back do not stay in memory until the next reconfigure.
 */
static void sweep_locked(groupcache_t *gc, int64_t t)
{
	int64_t ttl = atomic_load(&gc->ttl_us);

	if (t < gc->next_sweep)
		return;
	hashtab_remove_if(gc->users, user_expired, &t);
	hashtab_remove_if(gc->groups, group_expired, &t);
	gc->next_sweep = t + (ttl > USEC_PER_SEC ? ttl : USEC_PER_SEC);
}

/*
 * Makes room for one more entry in table (write lock held) unless key is
 * already there: when full, drop the expired entries, and if that freed less
 * than half, everything (counted as an eviction).  Emptying is crude, but the
 * table only fills up when far more users than usual are asked about within
 * one TTL, and each full pass is paid for by max/2 inserts.
 */
static void make_room_locked(groupcache_t *gc, hashtab_t *table,
			     const void *key, hashtab_pred_fn expired,
			     int64_t t)
{
	size_t max = atomic_load(&gc->max_entries);

	if (hashtab_size(table) < max || hashtab_lookup(table, key))
		return;
	hashtab_remove_if(table, expired, &t);
	if (hashtab_size(table) > max / 2) {
		hashtab_clear(table);
		count(&gc->evictions);
	}
}

/*
 * Stores e in table under key (write lock held), making room first and
 * sweeping after.  false when there was no memory for it: the caller keeps
 * e, and its answer is right all the same, just not kept.
 */
static bool store_locked(groupcache_t *gc, hashtab_t *table, const void *key,
			 void *e, hashtab_pred_fn expired, int64_t t)
{
	make_room_locked(gc, table, key, expired, t);
	if (hashtab_replace(table, key, e) < 0)
		return false;
	sweep_locked(gc, t);
	return true;
}

/*
 * Looks up the live entry of uid under the read lock and answers from it.
 * Returns 1/0 for member/not, -1 with errno for a remembered failure, or -2
 * when there is no live entry; *expired whether a stale entry was found.
 */
static int member_cached(groupcache_t *gc, uid_t uid, gid_t gid, int64_t t,
			 bool *expired)
{
	const user_entry_t *e;
	int rc = -2;

	read_lock(gc);
	e = hashtab_lookup(gc->users, &uid);
	*expired = e && is_stale(e->expires, t);
	if (e && !*expired) {
		rc = e->error ? -1 : entry_has(e, gid);
		if (e->error)
			errno = e->error;
	}
	unlock(gc);
	return rc;
}

/*
 * Fills an entry from the backend: the user's groups for the TTL, or for the
 * negative TTL an empty set (no such user) or the failure (e->error).  NULL
 * with errno only when memory ran out.
 */
static user_entry_t *fill_user(groupcache_t *gc, uid_t uid, int64_t t)
{
	int64_t expires = t + atomic_load(&gc->ttl_us);
	gid_t *gids = NULL;
	size_t n = 0;
	user_entry_t *e;
	int saved, error = 0;

	count(&gc->nss_lookups);
	if (gc->backend.user_groups(gc->backend.ctx, uid, &gids, &n) < 0) {
		if (errno != ENOENT) {
			count(&gc->nss_failures);
			error = errno ? errno : EIO;
		}
		free(gids);
		gids = NULL;
		n = 0;
		expires = t + negative_ttl(gc);
	}
	e = entry_new(uid, gids, n, expires);
	if (e)
		e->error = error;
	saved = errno;
	free(gids);
	errno = saved;
	return e;
}

int groupcache_is_member(groupcache_t *gc, uid_t uid, gid_t gid)
{
	int64_t t = now(gc);
	bool expired;
	user_entry_t *e;
	int rc, error;

	rc = member_cached(gc, uid, gid, t, &expired);
	if (rc != -2) {
		count(&gc->hits);
		return rc;
	}
	count(&gc->misses);
	if (expired)
		count(&gc->expirations);

	if (!(e = fill_user(gc, uid, t)))
		return -1;
	error = e->error;
	rc = error ? -1 : entry_has(e, gid);
	if (e->expires > t) {
		write_lock(gc);
		if (store_locked(gc, gc->users, &e->uid, e, user_expired, t))
			e = NULL;
		unlock(gc);
	}
	free(e);
	if (error)
		errno = error;
	return rc;
}

/* Keeps the backend's answer about name for ttl.  Called with no lock held. */
static void group_store(groupcache_t *gc, const char *name, bool exists,
			gid_t gid, int64_t t, int64_t ttl)
{
	size_t len = strlen(name) + 1;
	group_entry_t *e = malloc(sizeof(*e) + len);

	/* Without memory the answer is right all the same; it is not kept. */
	if (!e)
		return;
	e->expires = t + ttl;
	e->exists = exists;
	e->gid = gid;
	memcpy(e->name, name, len);
	write_lock(gc);
	if (store_locked(gc, gc->groups, e->name, e, group_expired, t))
		e = NULL;
	unlock(gc);
	free(e);
}

int groupcache_group_gid(groupcache_t *gc, const char *name, gid_t *gid)
{
	int64_t t = now(gc), ttl;
	const group_entry_t *e;
	bool expired, exists = false;
	gid_t found = 0;

	if (!name) {
		errno = EINVAL;
		return -1;
	}

	read_lock(gc);
	e = hashtab_lookup(gc->groups, name);
	expired = e && is_stale(e->expires, t);
	if (e && !expired) {
		exists = e->exists;
		found = e->gid;
	}
	unlock(gc);

	if (e && !expired) {
		count(&gc->hits);
		goto answer;
	}
	count(&gc->misses);
	if (expired)
		count(&gc->expirations);

	count(&gc->nss_lookups);
	if (gc->backend.group_gid(gc->backend.ctx, name, &found) == 0) {
		exists = true;
	} else if (errno != ENOENT) {
		count(&gc->nss_failures);
		return -1;
	}

	ttl = exists ? atomic_load(&gc->ttl_us) : negative_ttl(gc);
	if (ttl > 0)
		group_store(gc, name, exists, found, t, ttl);

answer:
	if (!exists) {
		errno = ENOENT;
		return -1;
	}
	*gid = found;
	return 0;
}

int groupcache_group_name(groupcache_t *gc, gid_t gid, char **name)
{
	count(&gc->nss_lookups);
	if (gc->backend.group_name(gc->backend.ctx, gid, name) == 0)
		return 0;
	if (errno != ENOENT)
		count(&gc->nss_failures);
	return -1;
}

void groupcache_get_stats(groupcache_t *gc, groupcache_stats_t *stats)
{
	stats->hits = atomic_load(&gc->hits);
	stats->misses = atomic_load(&gc->misses);
	stats->expirations = atomic_load(&gc->expirations);
	stats->nss_lookups = atomic_load(&gc->nss_lookups);
	stats->nss_failures = atomic_load(&gc->nss_failures);
	stats->evictions = atomic_load(&gc->evictions);
	read_lock(gc);
	stats->users = hashtab_size(gc->users);
	stats->groups = hashtab_size(gc->groups);
	unlock(gc);
}
