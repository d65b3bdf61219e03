/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_stepsock.c - whether a job's slurmstepd still runs, from its
 * sockets: only a refused connection or no socket means "ended".
 *
 * The attack this guards against: restore (slurmd start) asked each step
 * socket with Slurm's full request, so a stepd that was hung or too busy
 * to answer made a live job look ended, and restore tore down its /tmp
 * and filter while it ran.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "slurmconv/stepsock.h"
#include "tap.h"

static char spool[] = "/tmp/test_stepsock.XXXXXX";

/* A socket at spool/name, bound; listening unless !listening. */
static int bound(const char *name, int backlog, int listening)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/%s", spool, name);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    (listening && listen(fd, backlog) < 0)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Connects without being accepted until the backlog is full; how many. */
static int fill_backlog(const char *name, int *fds, int max)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int n = 0;

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/%s", spool, name);
	while (n < max) {
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);

		if (fd < 0)
			break;
		if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
			int full = errno == EAGAIN;

			close(fd);
			return full ? n : -1;
		}
		fds[n++] = fd;
	}
	return -1;
}

/*
 * Which names are job 5's steps on n1: each name alone in spool, as a
 * socket that answers, is found (or not) by stepsock_job_alive().
 */
static void name_is_step(const char *name, int want)
{
	char answered[PATH_MAX], path[PATH_MAX];
	int fd = bound(name, 8, 1), rc;

	snprintf(path, sizeof(path), "%s/%s", spool, name);
	answered[0] = '\0';
	rc = stepsock_job_alive(spool, "n1", 5, answered, sizeof(answered));
	ok(fd >= 0 && rc == want && (!want || !strcmp(answered, path)),
	   "%s %s job 5's on n1 (%d)", name, want ? "is" : "is not", rc);
	if (fd >= 0)
		close(fd);
	unlink(path);
}

static void test_names(void)
{
	static const char *const steps[] = {
		"n1_5.0", "n1_5.4294967292", "n1_5.0.1",
	};
	static const char *const others[] = {
		"n10_5.0", "n1_55.0", "n1_5", "n1_x5.0",
	};

	/* a step, the extern step and a component of job 5 on n1 */
	for (size_t i = 0; i < sizeof(steps) / sizeof(*steps); i++)
		name_is_step(steps[i], 1);
	/* n10's, job 55's and names without a step are not */
	for (size_t i = 0; i < sizeof(others) / sizeof(*others); i++)
		name_is_step(others[i], 0);
}

/*
 * Which step's stepd this process is, from the socket it listens on (issue
 * 42 item 9: a batch stepd waited 30 s per join_external request for a
 * setup only the extern stepd makes).
 */
static void test_self_step(void)
{
	char path[PATH_MAX];
	uint32_t step = 7;
	int fd, other;

	ok(stepsock_self_step(spool, "n1", 9, &step) == 0 && step == 7,
	   "no socket of job 9 open here: 0");
	fd = bound("n1_9.4294967294", 8, 1);
	other = bound("n1_19.4294967292", 8, 1);
	ok(fd >= 0 && other >= 0,
	   "precondition: listening as job 9's batch stepd, and job 19's "
	   "extern one");
	ok(stepsock_self_step(spool, "n1", 9, &step) == 1 &&
	   step == 4294967294u, "job 9: the batch step's stepd");
	ok(stepsock_self_step(spool, "n1", 19, &step) == 1 &&
	   step == 4294967292u, "job 19: the extern step's");
	ok(stepsock_self_step(spool, "n2", 9, &step) == 0,
	   "another node's name: 0");
	ok(stepsock_self_step("/tmp", "n1", 9, &step) == 0,
	   "another spool directory: 0");
	close(fd);
	close(other);
	snprintf(path, sizeof(path), "%s/n1_9.4294967294", spool);
	unlink(path);
	snprintf(path, sizeof(path), "%s/n1_19.4294967292", spool);
	unlink(path);
	fd = bound("n1_9.3.1", 8, 1);
	ok(fd >= 0 && stepsock_self_step(spool, "n1", 9, &step) == 1 &&
	   step == 3, "a component's socket: its step");
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "%s/n1_9.3.1", spool);
	unlink(path);
	ok(stepsock_self_step(spool, "n1", 9, &step) == 0,
	   "closed: no longer found");
}

int main(void)
{
	char answered[PATH_MAX], path[PATH_MAX], gone[PATH_MAX + 8];
	int hung, stale, full, extra[64], n_extra, rc;

	if (!mkdtemp(spool)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_names();
	test_self_step();

	hung = bound("n1_5.4294967292", 8, 1);
	ok(hung >= 0, "job 5: a stepd that listens and never accepts (hung)");
	answered[0] = '\0';
	is_int(stepsock_job_alive(spool, "n1", 5, answered, sizeof(answered)),
	       1, "  is alive");
	snprintf(path, sizeof(path), "%s/n1_5.4294967292", spool);
	is_str(answered, path, "  naming its socket");

	stale = bound("n1_6.0", 0, 0);
	if (stale >= 0)
		close(stale);
	ok(stale >= 0, "job 6: a socket whose stepd is gone (killed with -9)");
	snprintf(path, sizeof(path), "%s/n1_6.0", spool);
	is_int(stepsock_job_alive(spool, "n1", 6, NULL, 0), 0,
	       "  so job 6 has ended");

	full = bound("n1_7.0", 0, 1);
	n_extra = full >= 0 ? fill_backlog("n1_7.0", extra, 64) : -1;
	ok(n_extra >= 0, "job 7: a stepd whose backlog is full (%d waiting)",
	   n_extra);
	snprintf(path, sizeof(path), "%s/n1_7.0", spool);
	is_int(stepsock_job_alive(spool, "n1", 7, NULL, 0), 1,
	       "  is alive (EAGAIN)");
	for (int i = 0; i < n_extra; i++)
		close(extra[i]);

	is_int(stepsock_job_alive(spool, "n1", 8, NULL, 0), 0,
	       "job 8: no socket at all: ended");

	/* A stale step and a live one of the same job: alive. */
	stale = bound("n1_5.0", 0, 0);
	if (stale >= 0)
		close(stale);
	is_int(stepsock_job_alive(spool, "n1", 5, NULL, 0), 1,
	       "job 5 with a stale step socket beside the live one: alive");

	/* The same answers for every job in one pass, and per step. */
	{
		uint32_t *ids = NULL;
		size_t count = 0;
		int other = bound("n2_9.0", 8, 1);

		ok(other >= 0, "job 9 is alive on another node (n2)");
		ok(stepsock_alive_jobs(spool, "n1", &ids, &count) == 0 &&
		   count == 2 && ids[0] == 5 && ids[1] == 7,
		   "all at once: jobs 5 and 7 alive on n1, not 6, 8 or n2's 9 (%zu)",
		   count);
		free(ids);
		is_int(stepsock_step_alive(spool, "n1", 5, 4294967292U), 1,
		       "job 5's extern step answers");
		is_int(stepsock_step_alive(spool, "n1", 5, 0), 0,
		       "  its step 0 is stale");
		is_int(stepsock_step_alive(spool, "n1", 8, 4294967292U), 0,
		       "  job 8 has no socket");
		if (other >= 0)
			close(other);
		snprintf(path, sizeof(path), "%s/n2_9.0", spool);
		unlink(path);
		snprintf(gone, sizeof(gone), "%s/nope", spool);
		ok(stepsock_alive_jobs(gone, "n1", &ids, &count) == -1 &&
		   errno == ENOENT && !ids && !count,
		   "all at once, a spool that does not exist: -1 (ENOENT)");
	}

	snprintf(gone, sizeof(gone), "%s/nope", spool);
	rc = stepsock_job_alive(gone, "n1", 5, NULL, 0);
	ok(rc == -1 && errno == ENOENT,
	   "a spool that does not exist: -1 (ENOENT), which callers keep as alive");

	close(hung);
	if (full >= 0)
		close(full);
	{
		static const char *const names[] = {
			"n1_5.4294967292", "n1_5.0", "n1_6.0", "n1_7.0",
		};

		for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
			snprintf(path, sizeof(path), "%s/%s", spool, names[i]);
			unlink(path);
		}
	}
	rmdir(spool);
	return tap_done();
}
