/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_mntns.c - per-job cost of a namespace: create + pin, join, delete.
 *
 * Runs the same sequence the plugin runs for a job, N times, under a
 * temporary BasePath, and prints the median and mean of each phase.  "join"
 * is a forked child entering the namespace (as every job process does),
 * timed inside the child around the join (open + setns + close): the
 * fork and wait around it are printed apart and are in no other figure.
 * Beside the wall times, the CPU time of create and delete (this process
 * and its waited-for children, getrusage), which a loaded machine moves
 * less.
 * With -m MOUNTS the benchmark first moves into a namespace of its own and
 * adds tmpfs mounts (shared, as systemd leaves a host's mounts) until it
 * holds MOUNTS, so that a node carrying that many mounts is measured
 * without touching the host's.  A breakdown then times the kernel's part
 * alone, with raw system calls in a child: unshare(CLONE_NEWNS) (the copy
 * of every mount), making the copy private (MS_REC), and dropping the
 * namespace (its teardown, here a setns(2) back that drops the last
 * reference); and the cost of a search of /proc for processes left in the
 * namespace, which grows with the node's process count: delete makes it
 * only when the namespace is still held after its pins are gone (or the
 * kernel, before 6.11, cannot tell).  With -P PROCS the benchmark first
 * starts PROCS idle processes, so that a node running that many is
 * measured.
 * With -b BUSY the benchmark runs BUSY processes that only spin while it
 * measures, so that a node whose CPUs are all taken (a burst of jobs
 * starting) is measured: there each hand-over between processes waits
 * for a CPU.
 * With -s MB the benchmark first fills MB megabytes of memory of its own,
 * so that a caller of slurmstepd's or slurmd's size is measured: making a
 * namespace starts a child, and a fork()ed one would cost with the
 * caller's size.
 * With -a N every job takes its namespace from a pool of N copied ahead
 * (NamespacePool=N): the pool is refilled between jobs, outside the
 * job's timings, and that refill is timed on its own.  Delete then leaves
 * the namespace's teardown and the directory's removal to a reaper, as
 * slurmd's keeper takes them (ns/nsreap.h): the benchmark is that reaper,
 * between jobs, and times each reap on its own too.
 * With -t BasePath is on a tmpfs of its own (in a mount namespace of the
 * benchmark's, as -m), not on /var/tmp's file system: what remains is
 * devns's own work without the file system's (on an ext4 without a
 * journal, mounted with discard, every inode allocation skips the inodes
 * freed in the last minutes and every freed block is a synchronous
 * discard).
 * With -p every job also gets its PID namespace (PidNamespace=yes): its
 * creation (a forked init that mounts the job's /proc) is timed on its
 * own, and delete then kills that init too.
 * Needs root; prints why and exits 0 otherwise.  Never asserts timings.
 *
 *   bench_mntns [-m MOUNTS] [-P PROCS] [-b BUSY] [-s MB] [-a POOL] [-p] [-t]
 *               [ITERATIONS]
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ns/mntns.h"
#include "ns/nspool.h"
#include "ns/nsreap.h"
#include "ns/pidns.h"
#include "testrep.h"
#include "testspec.h"

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

/* This process's CPU time and its waited-for children's, microseconds. */
static double cpu_us(void)
{
	struct rusage self, kids;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	return (self.ru_utime.tv_sec + self.ru_stime.tv_sec +
		kids.ru_utime.tv_sec + kids.ru_stime.tv_sec) * 1e6 +
	       self.ru_utime.tv_usec + self.ru_stime.tv_usec +
	       kids.ru_utime.tv_usec + kids.ru_stime.tv_usec;
}

/*
 * Fork a child that optionally joins, and wait for it: returns the
 * microseconds of the whole (fork, join, exit, wait); the join alone, as
 * the child timed it around mntns_join(), goes to *join_us.  The join is
 * timed inside: the fork and wait around it cost a few hundred
 * microseconds that a loaded machine stretches to milliseconds, and a
 * join figure made by subtracting two such forks (as up to 2026-11-29)
 * moved with the machine's load, not with the join.
 */
static double timed_child(const char *base, uint32_t job_id, int join,
			  double *join_us)
{
	double t0 = now_us(), t[2] = { 0, 0 };
	int fds[2], status;
	pid_t pid;

	if (pipe(fds) < 0 || (pid = fork()) < 0) {
		perror("fork");
		exit(1);
	}
	if (pid == 0) {
		int rc;

		t[0] = now_us();
		rc = join && mntns_join(base, job_id) < 0;
		t[1] = now_us();
		(void)!write(fds[1], t, sizeof(t));
		_exit(rc);
	}
	close(fds[1]);
	if (read(fds[0], t, sizeof(t)) != sizeof(t))
		t[0] = t[1] = 0;
	close(fds[0]);
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "join failed\n");
		exit(1);
	}
	if (join_us)
		*join_us = t[1] - t[0];
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

/*
 * Move into a private copy of the host's namespace and add tmpfs mounts
 * under a temporary directory until the namespace holds want mounts; then
 * share them all, as systemd does at boot.  The host sees none of it.
 */
static int add_mounts(int want, char *dir)
{
	char path[PATH_MAX];

	if (unshare(CLONE_NEWNS) < 0 ||
	    mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    !mkdtemp(dir))
		return -1;
	for (int i = 0; count_mounts() < want; i++) {
		snprintf(path, sizeof(path), "%s/%d", dir, i);
		if (mkdir(path, 0700) < 0 ||
		    mount("bench", path, "tmpfs", 0, "size=4k") < 0)
			return -1;
	}
	return mount("none", "/", NULL, MS_REC | MS_SHARED, NULL);
}

/* Undo add_mounts: unmount and remove what it made under dir. */
static void remove_mounts(const char *dir)
{
	char path[PATH_MAX];

	for (int i = 0;; i++) {
		snprintf(path, sizeof(path), "%s/%d", dir, i);
		if (umount2(path, MNT_DETACH) < 0 && errno == ENOENT)
			break;
		rmdir(path);
	}
	rmdir(dir);
}

/*
 * Start n processes that sleep (a busy node's daemons) or, with spin, use
 * all the CPU they get; their PIDs.
 */
static pid_t *start_procs(int n, bool spin)
{
	pid_t *pids = calloc(n, sizeof(pid_t));

	for (int i = 0; pids && i < n; i++) {
		if ((pids[i] = fork()) < 0) {
			perror("fork");
			exit(1);
		}
		if (pids[i] == 0) {
			/* Never outlives the benchmark, whatever it exits by. */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (;;)
				if (!spin)
					pause();
		}
	}
	return pids;
}

static void stop_procs(pid_t *pids, int n)
{
	for (int i = 0; pids && i < n; i++)
		kill(pids[i], SIGKILL);
	for (int i = 0; pids && i < n; i++)
		waitpid(pids[i], NULL, 0);
	free(pids);
}

/*
 * What a search for processes still inside the namespace costs: one stat
 * of /proc/<pid>/ns/mnt per process of the node, as nsmembers.c's scan
 * does it.  Prints the median of n scans and the process count.
 */
static void scan_cost(int n)
{
	double *t = calloc(n, sizeof(double));
	int procs = 0;

	for (int i = 0; i < n; i++) {
		DIR *d = opendir("/proc");
		struct dirent *e;
		struct stat st;
		char path[64];
		double t0 = now_us();

		if (!d)
			exit(1);
		procs = 0;
		while ((e = readdir(d))) {
			int pid = atoi(e->d_name);

			if (pid <= 0)
				continue;
			snprintf(path, sizeof(path), "/proc/%d/ns/mnt", pid);
			procs += stat(path, &st) == 0;
		}
		closedir(d);
		t[i] = now_us() - t0;
	}
	printf("a search for members (one stat per process, %d processes; "
	       "delete's only when the namespace is still held):\n",
	       procs);
	report("scan of /proc", t, n);
	free(t);
}

/* The calling thread's CPU time, microseconds. */
static double thread_cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/*
 * The kernel's part alone: copy, make private, drop.  In a child, wall
 * time and the child's CPU time of each.  copy + drop is what the job's
 * path is held against: the kernel's own cost of a namespace per job.
 */
static void breakdown(int n)
{
	double *copy = calloc(n, sizeof(double));
	double *priv = calloc(n, sizeof(double));
	double *drop = calloc(n, sizeof(double));
	double *both = calloc(n, sizeof(double));
	double *copy_cpu = calloc(n, sizeof(double));
	double *drop_cpu = calloc(n, sizeof(double));
	double *both_cpu = calloc(n, sizeof(double));
	int fds[2];

	for (int i = 0; i < n; i++) {
		pid_t pid;
		double t[8];

		if (pipe(fds) < 0 || (pid = fork()) < 0)
			exit(1);
		if (pid == 0) {
			int self = open("/proc/self/ns/mnt", O_RDONLY);

			t[0] = now_us();
			t[4] = thread_cpu_us();
			if (unshare(CLONE_NEWNS) < 0)
				_exit(1);
			t[1] = now_us();
			t[5] = thread_cpu_us();
			if (mount("none", "/", NULL, MS_REC | MS_PRIVATE,
				  NULL) < 0)
				_exit(1);
			t[2] = now_us();
			t[6] = thread_cpu_us();
			if (setns(self, CLONE_NEWNS) < 0)
				_exit(1);
			t[3] = now_us();
			t[7] = thread_cpu_us();
			(void)!write(fds[1], t, sizeof(t));
			_exit(0);
		}
		close(fds[1]);
		if (read(fds[0], t, sizeof(t)) != sizeof(t)) {
			fprintf(stderr, "breakdown child failed\n");
			exit(1);
		}
		close(fds[0]);
		waitpid(pid, NULL, 0);
		copy[i] = t[1] - t[0];
		priv[i] = t[2] - t[1];
		drop[i] = t[3] - t[2];
		both[i] = copy[i] + drop[i];
		copy_cpu[i] = t[5] - t[4];
		drop_cpu[i] = t[7] - t[6];
		both_cpu[i] = copy_cpu[i] + drop_cpu[i];
	}
	printf("kernel's part (raw system calls):\n");
	report("unshare (copy)", copy, n);
	report("MS_REC|MS_PRIVATE", priv, n);
	report("drop (teardown)", drop, n);
	report("copy + drop", both, n);
	report("copy, CPU", copy_cpu, n);
	report("drop, CPU", drop_cpu, n);
	report("copy + drop, CPU", both_cpu, n);
	free(copy);
	free(priv);
	free(drop);
	free(both);
	free(copy_cpu);
	free(drop_cpu);
	free(both_cpu);
}

int main(int argc, char **argv)
{
	char mounts_dir[] = "/var/tmp/bench-mounts.XXXXXX";
	int want_mounts = 0, n, with_pidns = 0, idle = 0, busy = 0, pool = 0;
	int on_tmpfs = 0;
	size_t size_mb = 0;
	char *ballast = NULL;
	pid_t *idle_pids = NULL, *busy_pids = NULL;

	int opt;

	while ((opt = getopt(argc, argv, "m:a:s:b:P:pt")) != -1) {
		switch (opt) {
		case 'm': want_mounts = atoi(optarg); break;
		case 'a': pool = atoi(optarg); break;
		case 's': size_mb = (size_t)atoi(optarg); break;
		case 'b': busy = atoi(optarg); break;
		case 'P': idle = atoi(optarg); break;
		case 'p': with_pidns = 1; break;
		case 't': on_tmpfs = 1; break;
		default:
			fprintf(stderr, "usage: bench_mntns [-m MOUNTS] [-P PROCS] "
				"[-b BUSY] [-s MB] [-a POOL] [-p] [-t] "
				"[ITERATIONS]\n");
			return 2;
		}
	}
	n = optind < argc ? atoi(argv[optind]) : 200;
	const char *dirs[] = { "/tmp", "/dev/shm", NULL };
	char base[] = "/var/tmp/bench-mntns.XXXXXX";
	double *create, *join, *fork_only, *del, *total, *pid_create, *refill;
	double *reap, *create_cpu, *del_cpu, *reap_cpu;
	int reaper = -1;

	if (geteuid() != 0) {
		printf("bench_mntns: needs root (mount namespaces); skipped\n");
		return 0;
	}
	if (n < 10)
		n = 10;
	if (want_mounts && add_mounts(want_mounts, mounts_dir) < 0) {
		perror("adding mounts");
		return 1;
	}
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return 1;
	}
	/* Mounted over the new BasePath, in a namespace of our own. */
	if (on_tmpfs &&
	    ((!want_mounts && (unshare(CLONE_NEWNS) < 0 ||
			       mount("none", "/", NULL, MS_REC | MS_PRIVATE,
				     NULL) < 0)) ||
	     mount("bench", base, "tmpfs", 0, "mode=0700") < 0)) {
		perror("a tmpfs for BasePath");
		return 1;
	}
	/* Touched, so that its pages are mapped as a daemon's are. */
	if (size_mb && (ballast = malloc(size_mb << 20)))
		memset(ballast, 1, size_mb << 20);
	if (size_mb && !ballast) {
		perror("malloc");
		return 1;
	}
	if (idle)
		idle_pids = start_procs(idle, false);
	if (busy)
		busy_pids = start_procs(busy, true);
	create = calloc(n, sizeof(double));
	join = calloc(n, sizeof(double));
	fork_only = calloc(n, sizeof(double));
	del = calloc(n, sizeof(double));
	total = calloc(n, sizeof(double));
	pid_create = calloc(n, sizeof(double));
	refill = calloc(n, sizeof(double));
	reap = calloc(n, sizeof(double));
	create_cpu = calloc(n, sizeof(double));
	del_cpu = calloc(n, sizeof(double));
	reap_cpu = calloc(n, sizeof(double));
	if (pool && (reaper = nsreap_listen(base)) < 0) {
		perror("nsreap_listen");
		return 1;
	}

	for (int i = 0; i < n; i++) {
		struct mntns_spec spec = {
			.base_path = base, .job_id = 1000 + i,
			.use_pool = pool > 0,
		};
		double t0, t1, t2, t3, c0, c1, c2, c3;

		if (pool) {
			t0 = now_us();
			if (nspool_fill(base, pool, fresh()) != pool) {
				fprintf(stderr, "nspool_fill: %s\n", rep.msg);
				return 1;
			}
			refill[i] = now_us() - t0;
		}
		t0 = now_us();
		c0 = cpu_us();

		spec.pool_fd = pool ? nspool_claim(base) : -1;
		if (testspec_create(&spec, dirs, 0, 0, fresh()) < 0) {
			fprintf(stderr, "mntns_create: %s\n", rep.msg);
			return 1;
		}
		if (spec.pool_fd >= 0)
			close(spec.pool_fd);
		t1 = now_us();
		c1 = cpu_us();
		if (with_pidns) {
			if (pidns_create(base, spec.job_id, NULL, fresh()) < 0) {
				fprintf(stderr, "pidns_create: %s\n", rep.msg);
				return 1;
			}
			pid_create[i] = now_us() - t1;
			t1 = now_us();
		}
		(void)timed_child(base, spec.job_id, 1, &join[i]);
		t2 = now_us();
		c2 = cpu_us();
		if ((pool ? nsreap_delete : mntns_delete)(base,
							spec.job_id) < 0) {
			perror("mntns_delete");
			return 1;
		}
		t3 = now_us();
		c3 = cpu_us();
		if (pool && nsreap_drain(reaper, base, fresh()) != 1) {
			fprintf(stderr, "nsreap_drain: no request\n");
			return 1;
		}
		reap[i] = now_us() - t3;
		reap_cpu[i] = cpu_us() - c3;
		fork_only[i] = timed_child(base, spec.job_id, 0, NULL);
		create[i] = t1 - t0;
		create_cpu[i] = c1 - c0;
		del[i] = t3 - t2;
		del_cpu[i] = c3 - c2;
		total[i] = create[i] + pid_create[i] + del[i] + join[i];
	}
	printf("namespace per job (%d jobs, %d host mounts, %d spinning processes, %zu MB filled, BasePath on %s%s%s%s):\n",
	       n, count_mounts(), busy, size_mb, base,
	       on_tmpfs ? " (a tmpfs)" : "",
	       with_pidns ? ", PID namespace" : "",
	       pool ? ", from the pool" : "");
	report("create + pin", create, n);
	if (with_pidns)
		report("PID ns create + pin", pid_create, n);
	report("join (setns)", join, n);
	report("delete", del, n);
	report("fork+wait (excluded)", fork_only, n);
	report("create+join+delete", total, n);
	report("create + pin, CPU", create_cpu, n);
	report("delete, CPU", del_cpu, n);
	if (pool) {
		report("pool refill (ahead)", refill, n);
		report("reap (behind)", reap, n);
		report("reap (behind), CPU", reap_cpu, n);
		nspool_clear(base, NULL);
		nsreap_close(reaper, base, NULL);
	}
	breakdown(n);
	scan_cost(n);
	stop_procs(busy_pids, busy);
	stop_procs(idle_pids, idle);
	printf("target: create+join+delete <= 1000 us per job "
	       "(README.md, Benchmarks)\n");
	if (on_tmpfs)
		umount2(base, MNT_DETACH);
	rmdir(base);
	free(ballast);
	if (want_mounts)
		remove_mounts(mounts_dir);
	return 0;
}
