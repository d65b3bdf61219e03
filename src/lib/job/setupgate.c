/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * setupgate.c - pam_slurm_adopt's requests wait for the job's setup.  See
 * setupgate.h.
 */
#include <errno.h>
#include <time.h>

#include "job/setupgate.h"

static void set_state(struct setupgate *g, enum setupgate_state state)
{
	pthread_mutex_lock(&g->lock);
	g->state = state;
	pthread_cond_broadcast(&g->changed);
	pthread_mutex_unlock(&g->lock);
}

void setupgate_begin(struct setupgate *g)
{
	set_state(g, SETUPGATE_RUNNING);
}

void setupgate_never(struct setupgate *g)
{
	pthread_mutex_lock(&g->lock);
	if (g->state == SETUPGATE_NOT_STARTED)
		g->state = SETUPGATE_NEVER;
	pthread_cond_broadcast(&g->changed);
	pthread_mutex_unlock(&g->lock);
}

void setupgate_end(struct setupgate *g, bool ok)
{
	set_state(g, ok ? SETUPGATE_DONE : SETUPGATE_FAILED);
}

/* The realtime clock ms from now (PTHREAD_COND_INITIALIZER's clock). */
static struct timespec deadline_in(int ms)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

int setupgate_wait(struct setupgate *g, int start_wait_ms)
{
	struct timespec start_by = deadline_in(start_wait_ms);
	enum setupgate_state state;

	pthread_mutex_lock(&g->lock);
	while (g->state == SETUPGATE_RUNNING ||
	       g->state == SETUPGATE_NOT_STARTED) {
		if (g->state == SETUPGATE_RUNNING)
			pthread_cond_wait(&g->changed, &g->lock);
		else if (pthread_cond_timedwait(&g->changed, &g->lock,
						&start_by) == ETIMEDOUT &&
			 g->state == SETUPGATE_NOT_STARTED)
			break;
	}
	state = g->state;
	pthread_mutex_unlock(&g->lock);
	if (state == SETUPGATE_FAILED) {
		errno = EIO;
		return -1;
	}
	return state == SETUPGATE_DONE;
}
