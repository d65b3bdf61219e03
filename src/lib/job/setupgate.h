/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * setupgate.h - pam_slurm_adopt's requests wait for the job's setup.
 *
 * The extern slurmstepd answers requests (pam_slurm_adopt's "give me the
 * namespace", "adopt this pid") on its message thread from its start,
 * while its main thread is still setting the job up.  A login adopted in
 * that window would get the namespace before the filter (and on the
 * hybrid layout never be moved under it).  The daemon's one gate is
 * marked when setup begins and ends; a request waits at it until setup
 * has ended, and learns whether it succeeded.  Only the daemon's own
 * threads hold the gate's mutex, and never across setup: no job user can
 * make a request wait longer than the setup itself (or start_wait_ms).
 */
#ifndef DEVNS_SETUPGATE_H
#define DEVNS_SETUPGATE_H

#include <pthread.h>
#include <stdbool.h>

enum setupgate_state {
	SETUPGATE_NOT_STARTED = 0,
	SETUPGATE_RUNNING,
	SETUPGATE_DONE,
	SETUPGATE_FAILED,
	SETUPGATE_NEVER,	/* this daemon never sets the job up */
};

struct setupgate {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	enum setupgate_state state;
};

#define SETUPGATE_INIT \
	{ PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, \
	  SETUPGATE_NOT_STARTED }

/* Setup begins (in the extern slurmstepd, before anything is made). */
void setupgate_begin(struct setupgate *g);

/* Setup has ended, ok or not: every waiting request goes on. */
void setupgate_end(struct setupgate *g, bool ok);

/*
 * This daemon will never set the job up (a slurmstepd that is not the
 * extern step's): a wait no longer waits for setup to begin.  Any user
 * may send requests to any stepd (on 22.05 its socket is 0777), so a
 * wait there would park a thread for start_wait_ms per request.  Setup
 * beginning after all (setupgate_begin) overrides it.
 */
void setupgate_never(struct setupgate *g);

/*
 * Waits while setup runs, and while it has not started for at most
 * start_wait_ms (the message thread may answer before the main thread
 * begins; in a daemon that never sets the job up it never starts, and
 * after setupgate_never it does not wait for that).
 * Returns 1 when setup is done, 0 when it did not start in time, or -1
 * with errno EIO when it failed.
 */
int setupgate_wait(struct setupgate *g, int start_wait_ms);

#endif /* DEVNS_SETUPGATE_H */
