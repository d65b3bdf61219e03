/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_restore_plant.c - leave what COUNT ended jobs would leave on a
 * node whose slurmd was away: for bench_restore.sh, which then starts
 * slurmd and times its registration, a new job and the removal.
 *
 *   bench_restore_plant BASE SPOOL NODE FIRST_JOB COUNT
 *
 * For each job id from FIRST_JOB on, as devns's setup leaves them (the
 * names from conf/jobdir.h, the record's form from job/marker.c):
 *   BASE/<id>/                  root 0700, a private bind mount of itself
 *   BASE/<id>/.ns               a pin (bind mount) of a mount namespace of
 *                               its own, with a tmpfs on /dev/shm
 *   BASE/<id>/tmp               the backing directory of its /tmp
 *   SPOOL/devns_filter_<id>     its setup record (a filter, hybrid layout)
 *   <cgroup2>/devns/NODE/job_<id>  its device cgroup, a devns program
 *                               attached (hybrid layout; skipped, and said
 *                               so, where the machine has no cgroup2 tree
 *                               of devns's)
 * Every namespace is made before the first job directory is bound, so that
 * each holds the node's own mounts only: a job made after the others
 * copies their binds too, and 10,000 such copies of 20,000 mounts would
 * take more memory than the machine has (restore removes them alike).
 * Prints what it made and how long it took.  Root only.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "conf/jobdir.h"
#include "dev/cgroup2.h"
#include "dev/devpolicy.h"
#include "dev/devprog.h"
#include "slurmconv/jobcg.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "bench_restore_plant: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* A namespace of its own with a private /dev/shm; its fd. */
static int make_namespace(int home)
{
	int fd;

	if (unshare(CLONE_NEWNS) < 0 ||
	    mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("devns-plant", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV,
		  "size=64k") < 0)
		die("making a namespace");
	if ((fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC)) < 0)
		die("opening it");
	if (setns(home, CLONE_NEWNS) < 0)
		die("setns back");
	return fd;
}

/* BASE/<id>: made, bound onto itself privately, pinned, with its tmp. */
static void make_job_dir(const char *base, uint32_t id, int ns_fd)
{
	char dir[PATH_MAX], pin[PATH_MAX + 8], src[64];
	int fd;

	snprintf(dir, sizeof(dir), "%s/%" PRIu32, base, id);
	snprintf(pin, sizeof(pin), "%s/" JOBDIR_NS_PIN, dir);
	snprintf(src, sizeof(src), "/proc/self/fd/%d", ns_fd);
	if (mkdir(dir, 0700) < 0 ||
	    mount(dir, dir, NULL, MS_BIND, NULL) < 0 ||
	    mount(NULL, dir, NULL, MS_PRIVATE, NULL) < 0)
		die(dir);
	if ((fd = open(pin, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0400)) < 0)
		die(pin);
	close(fd);
	if (mount(src, pin, NULL, MS_BIND, NULL) < 0)
		die("pinning");
	snprintf(pin, sizeof(pin), "%s/tmp", dir);
	if (mkdir(pin, 01777) < 0)
		die(pin);
}

/* The record setup leaves last: a filter on the hybrid layout. */
static void make_record(const char *spool, uint32_t id)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/devns_filter_%" PRIu32, spool, id);
	if (!(f = fopen(path, "wx")) || fputs("run 0 0\n", f) == EOF ||
	    fclose(f) == EOF)
		die(path);
}

/* <cgroup2>/devns/NODE, opened (made if need be); -1 without cgroup2. */
static int node_cgroup(const char *node)
{
	char line[4096], rel[PATH_MAX];
	FILE *f = fopen("/proc/self/mountinfo", "r");
	int root = -1, fd;

	while (f && fgets(line, sizeof(line), f)) {
		char mnt[PATH_MAX], *sep = strstr(line, " - cgroup2 ");

		if (sep && sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1) {
			root = cgroup2_open(mnt);
			break;
		}
	}
	if (f)
		fclose(f);
	if (root < 0)
		return -1;
	snprintf(rel, sizeof(rel), "devns/%s", node);
	fd = cgroup2_open_at(root, rel, true);
	close(root);
	return fd;
}

/* The job's device cgroup with a program of a closed policy attached. */
static void make_cgroup(int node_fd, uint32_t id)
{
	struct devrule_list list;
	char name[64];
	int cg, prog;

	devrule_list_init(&list, false);
	if (devrule_list_add(&list, 'c', 1, 3, false,
			     DEVRULE_R | DEVRULE_W) < 0)
		die("rules");
	devrule_list_normalise(&list);
	jobcg_name(id, name, sizeof(name));
	if ((cg = cgroup2_open_at(node_fd, name, true)) < 0)
		die(name);
	if ((prog = devprog_create(&list, NULL, 0)) < 0 ||
	    devprog_attach(prog, cg) < 0)
		die("device program");
	close(prog);
	close(cg);
	devrule_list_free(&list);
}

int main(int argc, char **argv)
{
	struct rlimit rl;
	uint32_t first, count;
	int home, node_fd, *fds;
	double t0, t1, t2;

	if (argc != 6) {
		fprintf(stderr, "usage: bench_restore_plant BASE SPOOL NODE FIRST_JOB COUNT\n");
		return 2;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "bench_restore_plant: needs root\n");
		return 1;
	}
	first = (uint32_t)strtoul(argv[4], NULL, 10);
	count = (uint32_t)strtoul(argv[5], NULL, 10);
	rl.rlim_cur = rl.rlim_max = (rlim_t)count + 256;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		die("RLIMIT_NOFILE");
	if (!(fds = calloc(count ? count : 1, sizeof(*fds))))
		die("calloc");
	if ((home = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC)) < 0)
		die("/proc/self/ns/mnt");
	t0 = now_s();
	for (uint32_t i = 0; i < count; i++)
		fds[i] = make_namespace(home);
	t1 = now_s();
	node_fd = node_cgroup(argv[3]);
	if (node_fd < 0)
		printf("no cgroup2 tree for devns here (%s): no device cgroups planted\n",
		       strerror(errno));
	for (uint32_t i = 0; i < count; i++) {
		make_job_dir(argv[1], first + i, fds[i]);
		close(fds[i]);
		make_record(argv[2], first + i);
		if (node_fd >= 0)
			make_cgroup(node_fd, first + i);
	}
	t2 = now_s();
	printf("planted %" PRIu32 " ended jobs (%" PRIu32 "..%" PRIu32
	       ") in %s: namespaces %.1f s, directories, pins, records%s %.1f s\n",
	       count, first, first + count - 1, argv[1], t1 - t0,
	       node_fd >= 0 ? ", cgroups and programs" : "", t2 - t1);
	free(fds);
	return 0;
}
