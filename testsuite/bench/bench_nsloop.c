/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_nsloop.c - TmpBackend=loop: what a job's own filesystem costs at
 * its setup, and the ways to make it compared.
 *
 * For each size (default 20M, 1G, 100G; the image is sparse, so a size
 * costs no disk) it times, ITERATIONS times each, under a temporary
 * BasePath in DIR (default /var/tmp: the filesystem BasePath would be on):
 *
 *   mkfs      mke2fs on a fresh image per job (no journal, lazy inode
 *             tables): the way without a template
 *   template  the one mke2fs per size and node that makes the template
 *   copy      the job's image copied from the template (nsloop_image_make:
 *             a reflink where the filesystem has them, else a sparse copy
 *             of the data extents)
 *   mount     the job's whole filesystem as setup makes it: copy, loop
 *             device (LOOP_CONFIGURE), detached ext4 mount, root prepared
 *             (nsloop_mount)
 *   close     dropping the unattached mount, which takes the loop device
 *             with it (autoclear)
 *
 * and prints the median and mean in milliseconds, and the data the
 * template and an image hold (KiB).  Needs root, /dev/loop-control and
 * mke2fs; prints why and exits 0 otherwise.  Never asserts timings.
 *
 *   bench_nsloop [-d DIR] [ITERATIONS] [SIZE...]
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "conf/jobdir.h"
#include "conf/nsconf.h"
#include "ns/dquota.h"
#include "ns/nsloop.h"
#include "util/report.h"
#include "util/safepath.h"
#include "util/saferm.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void print_row(const char *what, const char *size, double *t, int n)
{
	double sum = 0;

	for (int i = 0; i < n; i++)
		sum += t[i];
	qsort(t, (size_t)n, sizeof(*t), cmp);
	printf("%-8s %-9s median %8.2f ms  mean %8.2f ms  (n=%d)\n", size,
	       what, t[n / 2], sum / n, n);
}

static uint64_t parse_size(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 10);

	switch (*end) {
	case 'G': return v << 30;
	case 'M': return v << 20;
	case 'K': return v << 10;
	default: return v;
	}
}

static long long data_kib(int dirfd, const char *name)
{
	struct stat st;

	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ?
	       (long long)st.st_blocks / 2 : -1;
}

static int bench_size(int basefd, const char *label, uint64_t bytes, int n)
{
	uint64_t inodes = nsconf_default_inodes(bytes);
	double *t = calloc((size_t)n, sizeof(*t));
	double *t2 = calloc((size_t)n, sizeof(*t2));
	char name[64];
	struct report rep;
	int fd;

	if (!t || !t2)
		return -1;
	report_init(&rep, NULL, NULL);
	/* mkfs per job: each a template of its own name, made and dropped. */
	for (int i = 0; i < n; i++) {
		double t0;

		nsloop_template_name(name, sizeof(name), bytes, inodes);
		unlinkat(basefd, name, 0);
		t0 = now_ms();
		if (nsloop_template_make(basefd, bytes, inodes, &rep) < 0) {
			fprintf(stderr, "mkfs: %s\n", rep.msg);
			return -1;
		}
		t[i] = now_ms() - t0;
	}
	print_row("mkfs", label, t, n);
	printf("%-8s template  %lld KiB of data in %s\n", label,
	       data_kib(basefd, name), name);
	/* the template stays: the copies below are each job's */
	for (int i = 0; i < n; i++) {
		double t0 = now_ms();

		fd = nsloop_image_make(basefd, basefd, "bench.img", bytes,
				       inodes, &rep);
		t[i] = now_ms() - t0;
		if (fd < 0) {
			fprintf(stderr, "copy: %s\n", rep.msg);
			return -1;
		}
		if (i == 0)
			printf("%-8s image     %lld KiB of data\n", label,
			       data_kib(basefd, "bench.img"));
		close(fd);
		unlinkat(basefd, "bench.img", 0);
	}
	print_row("copy", label, t, n);
	for (int i = 0; i < n; i++) {
		double t0 = now_ms();

		fd = nsloop_mount(basefd, basefd, bytes, inodes, &rep);
		t[i] = now_ms() - t0;
		if (fd < 0) {
			fprintf(stderr, "mount: %s\n", rep.msg);
			return -1;
		}
		t0 = now_ms();
		close(fd);
		t2[i] = now_ms() - t0;
		unlinkat(basefd, JOBDIR_LOOP_IMAGE, 0);
	}
	print_row("mount", label, t, n);
	print_row("close", label, t2, n);
	free(t);
	free(t2);
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const sizes[] = { "20M", "1G", "100G", NULL };
	char base[PATH_MAX];
	const char *dir = "/var/tmp";
	int n = 10, basefd, opt, rc = 0;
	struct report rep;

	while ((opt = getopt(argc, argv, "d:")) != -1) {
		if (opt != 'd') {
			fprintf(stderr, "usage: %s [-d DIR] [ITERATIONS] [SIZE...]\n",
				argv[0]);
			return 2;
		}
		dir = optarg;
	}
	if (optind < argc)
		n = atoi(argv[optind++]);
	if (n < 1)
		n = 1;
	report_init(&rep, NULL, NULL);
	if (geteuid() != 0 || nsloop_probe(&rep) < 0) {
		printf("bench_nsloop: needs root, /dev/loop-control and %s: %s\n",
		       NSLOOP_MKFS, rep.msg);
		return 0;
	}
	snprintf(base, sizeof(base), "%s/bench-nsloop.XXXXXX", dir);
	if (!mkdtemp(base) || (basefd = safepath_open(base)) < 0) {
		perror(base);
		return 1;
	}
	printf("BasePath %s\n", base);
	if (optind < argc) {
		for (int i = optind; i < argc && rc == 0; i++)
			rc = bench_size(basefd, argv[i], parse_size(argv[i]), n);
	} else {
		for (int i = 0; sizes[i] && rc == 0; i++)
			rc = bench_size(basefd, sizes[i], parse_size(sizes[i]),
					n);
	}
	saferm_contents(basefd);
	close(basefd);
	rmdir(base);
	return rc < 0 ? 1 : 0;
}
