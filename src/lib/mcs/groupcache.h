/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * groupcache.h - a thread-safe, expiring cache of "which groups is this user in".
 *
 * slurmctld asks the MCS plugin whether a user belongs to a group once per job
 * (or node, or step) that it packs for a client; Slurm's mcs/group answers each
 * of those questions with fresh NSS calls.  This cache fills a user's whole
 * group set with one backend lookup and answers every later question for that
 * user from memory until the entry expires.  Group names given as labels are
 * resolved and cached the same way.
 *
 * The backend (NSS by default) and the clock are injectable so that the unit
 * tests can count lookups and move time.  All functions may be called from
 * any number of threads at once.
 */
#ifndef DEVNS_GROUPCACHE_H
#define DEVNS_GROUPCACHE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct groupcache groupcache_t;

/*
 * Where group data comes from.  Each function returns 0 on success or -1 with
 * errno set: ENOENT when the user or group does not exist (a definite but
 * negative answer), anything else when the lookup itself failed.  Negative
 * answers and user lookup failures are kept GROUPCACHE_NEGATIVE_TTL seconds at
 * most, group lookup failures not at all (see below).
 */
typedef struct groupcache_backend {
	/*
	 * Every group of the user: the primary group from the passwd entry and
	 * all supplementary groups, in any order, duplicates allowed.
	 * *gids is malloc()ed; the cache free()s it.
	 */
	int (*user_groups)(void *ctx, uid_t uid, gid_t **gids, size_t *ngids);
	/*
	 * The group a label or configuration token names, with Slurm's rule: a
	 * group name first, else a decimal number that is the gid of an existing
	 * group.
	 */
	int (*group_gid)(void *ctx, const char *name, gid_t *gid);
	/* The name of an existing group; *name is malloc()ed, caller frees. */
	int (*group_name)(void *ctx, gid_t gid, char **name);
	void *ctx;
} groupcache_backend_t;

/* Monotonic time in microseconds. */
typedef int64_t (*groupcache_clock_t)(void *ctx);

typedef struct groupcache_options {
	unsigned int ttl_seconds;	 /* 0: keep nothing, always ask */
	size_t max_entries;	/* per table; 0: GROUPCACHE_DEFAULT_MAX */
	const groupcache_backend_t *backend; /* NULL: NSS (groupcache_nss) */
	groupcache_clock_t clock;	 /* NULL: CLOCK_MONOTONIC */
	void *clock_ctx;
} groupcache_options_t;

typedef struct groupcache_stats {
	uint64_t hits;		/* answered from a live entry */
	uint64_t misses;	/* had to ask the backend (expired included) */
	uint64_t expirations;	/* misses that found an expired entry */
	uint64_t nss_lookups;	/* backend calls, user and group */
	uint64_t nss_failures;	/* backend calls that failed (not ENOENT) */
	uint64_t evictions;	/* tables emptied because they were full */
	size_t users;		/* entries now held */
	size_t groups;
} groupcache_stats_t;

/* Default lifetime of an entry: long enough to absorb the bursts of checks an
 * squeue or scontrol over many jobs makes, short enough that a group change in
 * LDAP reaches slurmctld within minutes without a reconfigure. */
#define GROUPCACHE_DEFAULT_TTL 300

/*
 * Longest lifetime of a negative entry (no such user, no such group) and of a
 * failed user lookup, whatever the TTL.  A user or group created in LDAP, or
 * an LDAP server that comes back, is seen within this time; while LDAP is
 * down, every check of a user asks NSS at most once per this time instead of
 * once per job packed (a failed lookup answers "not a member", so privatedata
 * and labels fail closed).  Failed group lookups are not kept at all: they
 * only happen for labels, which are rare.
 */
#define GROUPCACHE_NEGATIVE_TTL 5

/*
 * Default bound of each table (users, groups).  A table that is full when an
 * entry is to be added first drops its expired entries; if that does not
 * free half of it, it is emptied: one pass over the table per max/2 inserts,
 * so filling stays O(1) amortized and memory is bounded whatever uids or
 * --mcs-label texts clients send.
 */
#define GROUPCACHE_DEFAULT_MAX 65536

/* The NSS backend: getpwuid_r + getgrouplist with buffers that grow as needed
 * (no limit on the number of groups), getgrnam_r/getgrgid_r for groups. */
extern const groupcache_backend_t groupcache_nss;

/* A new empty cache; NULL with errno on allocation failure. */
groupcache_t *groupcache_create(const groupcache_options_t *opts);

/* Frees the cache; it must no longer be in use by any thread. */
void groupcache_destroy(groupcache_t *gc);

/* Changes the lifetime of entries filled from now on. */
void groupcache_set_ttl(groupcache_t *gc, unsigned int ttl_seconds);

/* Changes the bound of each table (0: GROUPCACHE_DEFAULT_MAX); applies at the
 * next insert. */
void groupcache_set_max(groupcache_t *gc, size_t max_entries);

/*
 * Is uid in group gid (primary or supplementary)?  1 yes, 0 no, -1 with errno
 * when the user's groups could not be looked up (callers must take that as
 * "no").  A user that does not exist is in no group.  A failure is remembered
 * for GROUPCACHE_NEGATIVE_TTL seconds (at most the TTL) and answered -1 with
 * the same errno meanwhile.
 */
int groupcache_is_member(groupcache_t *gc, uid_t uid, gid_t gid);

/* The gid that name denotes (see backend group_gid): 0, or -1 with errno
 * (ENOENT: no such group). */
int groupcache_group_gid(groupcache_t *gc, const char *name, gid_t *gid);

/* The name of gid, asked from the backend (not cached: used at setup only).
 * 0 with *name malloc()ed, or -1 with errno. */
int groupcache_group_name(groupcache_t *gc, gid_t gid, char **name);

/* A consistent-enough snapshot of the counters (each one is exact). */
void groupcache_get_stats(groupcache_t *gc, groupcache_stats_t *stats);

#endif /* DEVNS_GROUPCACHE_H */
