/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_groupcache_mt.c - concurrency hammer for groupcache, as slurmctld uses
 * it: many threads asking about many users and labels while entries expire
 * (an injected clock that runs fast), the tables, bounded below what the
 * threads ask about, are emptied when full, and another thread changes the
 * TTL.  Every answer must be right and the counters must add up.
 *
 * Built twice (src/lib/mcs/Makemodule.am): as a normal test, and with
 * -fsanitize=thread as TSAN_TWIN, which the normal build runs at the end so
 * that `make check` reports data races found by ThreadSanitizer.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mcs/groupcache.h"
#include "tap.h"

#define THREADS 8
#define USERS 64
#define NGROUPS 300		/* per user: more than mcs/group's 128 */

static _Atomic long backend_user_calls, backend_group_calls;
static _Atomic int64_t fake_time;
static atomic_bool stop;

/* uid u is in gids u*1000 + 0..NGROUPS-1 (odd ones only) and in 7. */
static int expect_member(uid_t uid, gid_t gid)
{
	if (gid == 7)
		return 1;
	return gid >= uid * 1000 && gid < uid * 1000 + NGROUPS && (gid & 1);
}

static int be_user_groups(void *ctx, uid_t uid, gid_t **gids, size_t *n)
{
	size_t k = 0;
	gid_t g;

	(void)ctx;
	atomic_fetch_add(&backend_user_calls, 1);
	if (uid >= USERS) {
		errno = ENOENT;
		return -1;
	}
	if (!(*gids = malloc((NGROUPS + 1) * sizeof(gid_t))))
		return -1;
	for (g = uid * 1000 + NGROUPS; g-- > uid * 1000;)
		if (g & 1)
			(*gids)[k++] = g;
	(*gids)[k++] = 7;
	*n = k;
	return 0;
}

static int be_group_gid(void *ctx, const char *name, gid_t *gid)
{
	(void)ctx;
	atomic_fetch_add(&backend_group_calls, 1);
	if (!strncmp(name, "grp", 3)) {
		*gid = (gid_t)atoi(name + 3);
		return 0;
	}
	errno = ENOENT;
	return -1;
}

static int be_group_name(void *ctx, gid_t gid, char **name)
{
	(void)ctx;
	return asprintf(name, "grp%u", (unsigned)gid) < 0 ? -1 : 0;
}

/* Every call moves time on: entries expire constantly. */
static int64_t fast_clock(void *ctx)
{
	(void)ctx;
	return atomic_fetch_add(&fake_time, 500);
}

typedef struct worker {
	groupcache_t *gc;
	unsigned int seed;
	long rounds, asked, wrong, errors;
} worker_t;

static void *ask(void *arg)
{
	worker_t *w = arg;
	long i;

	for (i = 0; i < w->rounds; i++) {
		uid_t uid = rand_r(&w->seed) % (USERS + 4);
		gid_t gid = uid * 1000 + rand_r(&w->seed) % (NGROUPS + 10);
		int want = uid < USERS && expect_member(uid, gid);
		int got;

		if (i % 17 == 0)
			gid = 7, want = uid < USERS;
		got = groupcache_is_member(w->gc, uid, gid);
		w->asked++;
		if (got < 0)
			w->errors++;
		else if (got != want)
			w->wrong++;

		if (i % 5 == 0) {
			char name[32];
			gid_t g = 0;
			int r;

			snprintf(name, sizeof(name), "%s%u",
				 i % 10 ? "grp" : "nosuch", (unsigned)(i % 50));
			r = groupcache_group_gid(w->gc, name, &g);
			w->asked++;
			if (i % 10 ? (r != 0 || g != (gid_t)(i % 50)) : r != -1)
				w->wrong++;
		}
	}
	return NULL;
}

static void *tuner(void *arg)
{
	groupcache_t *gc = arg;
	groupcache_stats_t s;
	unsigned int n = 0;

	while (!atomic_load(&stop)) {
		groupcache_set_ttl(gc, 1 + n++ % 3);
		groupcache_get_stats(gc, &s);
		usleep(200);
	}
	return NULL;
}

static int run_tsan_twin(void)
{
#ifdef TSAN_TWIN
	int status;
	pid_t pid;

	if (getenv("DEVNS_NO_TSAN")) {
		tap_skip("DEVNS_NO_TSAN set");
		return 0;
	}
	if (access(TSAN_TWIN, X_OK) != 0) {
		tap_skip("no ThreadSanitizer build at %s", TSAN_TWIN);
		return 0;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		/* The twin's TAP lines would confuse the count: keep only its
		 * TSan reports (stderr), which land in the test log. */
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		setenv("DEVNS_NO_TSAN", "1", 1);
		setenv("TSAN_OPTIONS", "halt_on_error=1:exitcode=66", 0);
		execl(TSAN_TWIN, TSAN_TWIN, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		ok(0, "ThreadSanitizer twin: cannot run (%s)", strerror(errno));
		return 0;
	}
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "the hammer under ThreadSanitizer: no data race, all right "
	   "(exit status %d)", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
#endif
	return 0;
}

int main(void)
{
	static const groupcache_backend_t be = {
		.user_groups = be_user_groups,
		.group_gid = be_group_gid,
		.group_name = be_group_name,
	};
	/* Fewer entries than users: full tables are emptied under the askers. */
	groupcache_options_t o = { .ttl_seconds = 1, .max_entries = USERS / 2,
				   .backend = &be, .clock = fast_clock };
	const char *env = getenv("DEVNS_HAMMER_ROUNDS");
	long rounds = env ? atol(env) : 20000, asked = 0, wrong = 0, errors = 0;
	worker_t w[THREADS];
	pthread_t t[THREADS], f;
	groupcache_stats_t s;
	groupcache_t *gc;
	int i;

	gc = groupcache_create(&o);
	ok(gc != NULL, "cache created");
	for (i = 0; i < THREADS; i++) {
		w[i] = (worker_t){ .gc = gc, .seed = 12345u + i, .rounds = rounds };
		pthread_create(&t[i], NULL, ask, &w[i]);
	}
	pthread_create(&f, NULL, tuner, gc);
	for (i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		asked += w[i].asked;
		wrong += w[i].wrong;
		errors += w[i].errors;
	}
	atomic_store(&stop, true);
	pthread_join(f, NULL);

	groupcache_get_stats(gc, &s);
	diag("%ld questions, %lu hits, %lu misses, %lu expired, %lu lookups, "
	     "%lu evictions", asked, (unsigned long)s.hits,
	     (unsigned long)s.misses, (unsigned long)s.expirations,
	     (unsigned long)s.nss_lookups, (unsigned long)s.evictions);
	is_int(wrong, 0, "%d threads x %ld rounds: every answer right",
	       THREADS, rounds);
	is_int(errors, 0, "no lookup errors");
	is_int(s.hits + s.misses, asked, "hits + misses = questions");
	is_int(s.nss_lookups, s.misses, "one backend lookup per miss");
	is_int(s.nss_lookups,
	       atomic_load(&backend_user_calls) + atomic_load(&backend_group_calls),
	       "lookups counted = backend calls made");
	ok(s.hits > 0 && s.expirations > 0 && s.evictions > 0,
	   "hits, expirations and evictions all happened");
	groupcache_destroy(gc);

	run_tsan_twin();
	return tap_done();
}
