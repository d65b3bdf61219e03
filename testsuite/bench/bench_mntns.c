/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_mntns.c - per-job cost of a namespace: create + pin, join, delete.
 *
 * Runs the same sequence the plugin runs for a job, N times, under a
 * temporary BasePath, and prints the median and mean of each phase.  "join"
 * is a forked child entering the namespace (as every job process does); its
 * fork is measured separately and subtracted so that join is the setns cost.
 * Needs root; prints why and exits 0 otherwise.  Never asserts timings.
 *
 *   bench_mntns [ITERATIONS]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ns/mntns.h"
#include "testrep.h"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void report(const char *name, double *v, int n)
{
	double sum = 0;

	for (int i = 0; i < n; i++)
		sum += v[i];
	qsort(v, n, sizeof(*v), cmp_double);
	printf("  %-22s median %8.1f us   mean %8.1f us   p90 %8.1f us\n", name,
	       v[n / 2], sum / n, v[(n * 9) / 10]);
}

/* Fork a child that optionally joins, and wait for it: returns microseconds. */
static double timed_child(const char *base, uint32_t job_id, int join)
{
	double t0 = now_us();
	pid_t pid = fork();
	int status;

	if (pid == 0)
		_exit(join && mntns_join(base, job_id) < 0 ? 1 : 0);
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "join failed\n");
		exit(1);
	}
	return now_us() - t0;
}

static int count_mounts(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	int n = 0, c;

	if (!f)
		return -1;
	while ((c = fgetc(f)) != EOF)
		n += (c == '\n');
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200;
	const char *dirs[] = { "/tmp", "/dev/shm", NULL };
	char base[] = "/var/tmp/bench-mntns.XXXXXX";
	double *create, *join, *fork_only, *del, *total;

	if (geteuid() != 0) {
		printf("bench_mntns: needs root (mount namespaces); skipped\n");
		return 0;
	}
	if (n < 10)
		n = 10;
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return 1;
	}
	create = calloc(n, sizeof(double));
	join = calloc(n, sizeof(double));
	fork_only = calloc(n, sizeof(double));
	del = calloc(n, sizeof(double));
	total = calloc(n, sizeof(double));

	for (int i = 0; i < n; i++) {
		struct mntns_spec spec = {
			.base_path = base, .job_id = 1000 + i, .dirs = dirs,
		};
		double t0 = now_us(), t1, t2, t3;

		if (mntns_create(&spec, fresh()) < 0) {
			fprintf(stderr, "mntns_create: %s\n", rep.msg);
			return 1;
		}
		t1 = now_us();
		join[i] = timed_child(base, spec.job_id, 1);
		t2 = now_us();
		if (mntns_delete(base, spec.job_id) < 0) {
			perror("mntns_delete");
			return 1;
		}
		t3 = now_us();
		fork_only[i] = timed_child(base, spec.job_id, 0);
		create[i] = t1 - t0;
		del[i] = t3 - t2;
		total[i] = create[i] + del[i] + (join[i] - fork_only[i]);
		join[i] -= fork_only[i];
	}
	printf("namespace per job (%d jobs, %d host mounts, BasePath on %s):\n",
	       n, count_mounts(), base);
	report("create + pin", create, n);
	report("join (setns)", join, n);
	report("delete", del, n);
	report("fork+wait (excluded)", fork_only, n);
	report("create+join+delete", total, n);
	printf("target: create+join+delete <= 1000 us per job "
	       "(README.md, Benchmarks)\n");
	rmdir(base);
	return 0;
}
