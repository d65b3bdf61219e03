/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * groupcache.c - the expiring uid -> group set cache behind mcs/devgroup.
 *
 * Two GHashTables under one GRWLock: users (uid -> sorted gid array) and
 * groups (label text -> gid).  Entries are immutable once stored, so readers
 * answer under the read lock and never copy.  A miss calls the backend with no
 * lock held - an LDAP lookup can take long and must not stall every other
 * slurmctld thread - and then stores the result under the write lock, unless
 * a flush happened meanwhile (generation counter), in which case the result
 * answers only the caller that asked for it.
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
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "mcs/groupcache.h"

typedef struct user_entry {
	int64_t expires;	/* clock value after which it is stale */
	int error;		/* errno of a failed lookup, 0 when it worked */
	size_t ngids;
	gid_t gids[];		/* sorted, unique */
} user_entry_t;

typedef struct group_entry {
	int64_t expires;
	bool exists;
	gid_t gid;
} group_entry_t;

struct groupcache {
	GRWLock lock;
	GHashTable *users;	/* GUINT_TO_POINTER(uid) -> user_entry_t */
	GHashTable *groups;	/* char * -> group_entry_t */
	uint64_t generation;	/* bumped by flush; under lock */
	int64_t next_sweep;	/* when to drop expired entries; under lock */
	_Atomic int64_t ttl_us;
	_Atomic size_t max_entries;

	groupcache_backend_t backend;
	groupcache_clock_t clock;
	void *clock_ctx;

	_Atomic uint64_t hits, misses, expirations;
	_Atomic uint64_t nss_lookups, nss_failures, flushes, evictions;
};

static int64_t clock_monotonic(void *ctx)
{
	(void)ctx;
	return g_get_monotonic_time();
}

static int64_t now(groupcache_t *gc)
{
	return gc->clock(gc->clock_ctx);
}

static void count(_Atomic uint64_t *counter)
{
	atomic_fetch_add_explicit(counter, 1, memory_order_relaxed);
}

groupcache_t *groupcache_create(const groupcache_options_t *opts)
{
	groupcache_t *gc = calloc(1, sizeof(*gc));

	if (!gc)
		return NULL;
	g_rw_lock_init(&gc->lock);
	gc->users = g_hash_table_new_full(g_direct_hash, g_direct_equal,
					  NULL, free);
	gc->groups = g_hash_table_new_full(g_str_hash, g_str_equal,
					   free, free);
	gc->backend = (opts && opts->backend) ? *opts->backend : groupcache_nss;
	gc->clock = (opts && opts->clock) ? opts->clock : clock_monotonic;
	gc->clock_ctx = opts ? opts->clock_ctx : NULL;
	groupcache_set_ttl(gc, opts ? opts->ttl_seconds : GROUPCACHE_DEFAULT_TTL);
	groupcache_set_max(gc, opts ? opts->max_entries : 0);
	return gc;
}

void groupcache_destroy(groupcache_t *gc)
{
	if (!gc)
		return;
	g_hash_table_destroy(gc->users);
	g_hash_table_destroy(gc->groups);
	g_rw_lock_clear(&gc->lock);
	free(gc);
}

void groupcache_set_ttl(groupcache_t *gc, unsigned int ttl_seconds)
{
	atomic_store(&gc->ttl_us, (int64_t)ttl_seconds * G_USEC_PER_SEC);
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
	int64_t neg = (int64_t)GROUPCACHE_NEGATIVE_TTL * G_USEC_PER_SEC;

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

/* A new entry from the backend's (unsorted, maybe repetitive) list. */
static user_entry_t *entry_new(const gid_t *gids, size_t n, int64_t expires)
{
	user_entry_t *e = malloc(sizeof(*e) + n * sizeof(gid_t));
	size_t i, out = 0;

	if (!e)
		return NULL;
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

static gboolean user_expired(gpointer key, gpointer value, gpointer t)
{
	(void)key;
	return is_stale(((user_entry_t *)value)->expires, *(int64_t *)t);
}

static gboolean group_expired(gpointer key, gpointer value, gpointer t)
{
	(void)key;
	return is_stale(((group_entry_t *)value)->expires, *(int64_t *)t);
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
	g_hash_table_foreach_remove(gc->users, user_expired, &t);
	g_hash_table_foreach_remove(gc->groups, group_expired, &t);
	gc->next_sweep = t + (ttl > G_USEC_PER_SEC ? ttl : G_USEC_PER_SEC);
}

/*
 * Makes room for one more entry in table (write lock held) unless key is
 * already there: when full, drop the expired entries, and if that freed less
 * than half, everything (counted as an eviction).  Emptying is crude, but the
 * table only fills up when far more users than usual are asked about within
 * one TTL, and each full pass is paid for by max/2 inserts.
 */
static void make_room_locked(groupcache_t *gc, GHashTable *table,
			     gconstpointer key, GHRFunc expired, int64_t t)
{
	size_t max = atomic_load(&gc->max_entries);

	if (g_hash_table_size(table) < max || g_hash_table_contains(table, key))
		return;
	g_hash_table_foreach_remove(table, expired, &t);
	if (g_hash_table_size(table) > max / 2) {
		g_hash_table_remove_all(table);
		count(&gc->evictions);
	}
}

/*
 * Looks up the live entry of uid under the read lock and answers from it.
 * Returns 1/0 for member/not, -1 with errno for a remembered failure, or -2
 * when there is no live entry; *gen gets the generation seen, *expired
 * whether a stale entry was found.
 */
static int member_cached(groupcache_t *gc, uid_t uid, gid_t gid, int64_t t,
			 uint64_t *gen, bool *expired)
{
	const user_entry_t *e;
	int rc = -2;

	g_rw_lock_reader_lock(&gc->lock);
	e = g_hash_table_lookup(gc->users, GUINT_TO_POINTER(uid));
	*expired = e && is_stale(e->expires, t);
	if (e && !*expired) {
		rc = e->error ? -1 : entry_has(e, gid);
		if (e->error)
			errno = e->error;
	}
	*gen = gc->generation;
	g_rw_lock_reader_unlock(&gc->lock);
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
	e = entry_new(gids, n, expires);
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
	uint64_t gen;
	bool expired;
	user_entry_t *e;
	int rc, error;

	rc = member_cached(gc, uid, gid, t, &gen, &expired);
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
		g_rw_lock_writer_lock(&gc->lock);
		if (gc->generation == gen) {
			make_room_locked(gc, gc->users, GUINT_TO_POINTER(uid),
					 user_expired, t);
			g_hash_table_replace(gc->users, GUINT_TO_POINTER(uid),
					     e);
			e = NULL;
			sweep_locked(gc, t);
		}
		g_rw_lock_writer_unlock(&gc->lock);
	}
	free(e);
	if (error)
		errno = error;
	return rc;
}

int groupcache_group_gid(groupcache_t *gc, const char *name, gid_t *gid)
{
	int64_t t = now(gc), ttl;
	const group_entry_t *e;
	group_entry_t *fresh;
	uint64_t gen;
	bool expired, exists = false;
	char *key;
	gid_t found = 0;

	if (!name) {
		errno = EINVAL;
		return -1;
	}

	g_rw_lock_reader_lock(&gc->lock);
	e = g_hash_table_lookup(gc->groups, name);
	expired = e && is_stale(e->expires, t);
	if (e && !expired) {
		exists = e->exists;
		found = e->gid;
	}
	gen = gc->generation;
	g_rw_lock_reader_unlock(&gc->lock);

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
	if (ttl <= 0)
		goto answer;
	fresh = malloc(sizeof(*fresh));
	key = strdup(name);
	if (!fresh || !key) {
		/* The answer is right; it just is not kept. */
		free(fresh);
		free(key);
		goto answer;
	}
	*fresh = (group_entry_t){ .expires = t + ttl, .exists = exists,
				  .gid = found };
	g_rw_lock_writer_lock(&gc->lock);
	if (gc->generation == gen) {
		make_room_locked(gc, gc->groups, key, group_expired, t);
		g_hash_table_replace(gc->groups, key, fresh);
		key = NULL;
		fresh = NULL;
		sweep_locked(gc, t);
	}
	g_rw_lock_writer_unlock(&gc->lock);
	free(fresh);
	free(key);

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

void groupcache_flush(groupcache_t *gc)
{
	g_rw_lock_writer_lock(&gc->lock);
	g_hash_table_remove_all(gc->users);
	g_hash_table_remove_all(gc->groups);
	gc->generation++;
	g_rw_lock_writer_unlock(&gc->lock);
	count(&gc->flushes);
}

void groupcache_get_stats(groupcache_t *gc, groupcache_stats_t *stats)
{
	stats->hits = atomic_load(&gc->hits);
	stats->misses = atomic_load(&gc->misses);
	stats->expirations = atomic_load(&gc->expirations);
	stats->nss_lookups = atomic_load(&gc->nss_lookups);
	stats->nss_failures = atomic_load(&gc->nss_failures);
	stats->flushes = atomic_load(&gc->flushes);
	stats->evictions = atomic_load(&gc->evictions);
	g_rw_lock_reader_lock(&gc->lock);
	stats->users = g_hash_table_size(gc->users);
	stats->groups = g_hash_table_size(gc->groups);
	g_rw_lock_reader_unlock(&gc->lock);
}
