/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsusage.h - what a job's private directories hold: bytes and inodes of
 * each of its tmpfs mounts (/dev/shm, a TmpSize /tmp, tmpfs Dirs) and of
 * each directory it has on BasePath (/tmp by default), live for devns
 * show, and sampled through the job's life by a thread of the extern
 * slurmstepd, whose peaks and final figures go to slurmd's log and the
 * job's AdminComment at its end.
 *
 * How each is measured, and what a sample costs:
 * - a tmpfs: fstatfs(2) of its root, held open from the job's start (one
 *   call, whatever the job holds there);
 * - the directories on BasePath of a job with TmpDiskLimit: its project's
 *   usage (one quotactl), which counts them all, as "/tmp";
 * - without TmpDiskLimit: a walk of each backing directory (fd-based, no
 *   link followed, one filesystem, NSUSAGE_WALK_MAX entries at most),
 *   only when figures are posted (rarely: nsusage_post_due), at the
 *   job's end and for devns show, never at each sample: its peak is the
 *   most those walks saw.
 * The sampler takes one sample every NSUSAGE_INTERVAL seconds and holds
 * no lock a job user can hold (an in-process mutex only).
 */
#ifndef DEVNS_NSUSAGE_H
#define DEVNS_NSUSAGE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf/nsconf.h"
#include "util/report.h"

/* Seconds between the sampler's samples. */
#define NSUSAGE_INTERVAL 10

/* The most entries one walk of a backing directory counts. */
#define NSUSAGE_WALK_MAX 1000000

/* The figures of one private directory. */
struct nsusage_dir {
	char path[PATH_MAX];	/* the mount point, as in the job */
	bool tmpfs;
	bool sampled;		/* its peak is sampled (else: final only) */
	bool partial;		/* a walk that could not count it all */
	uint64_t bytes, inodes;		/* the last figure */
	uint64_t peak_bytes, peak_inodes;
	uint64_t bytes_limit, inodes_limit;	/* 0: none */
};

struct nsusage {
	struct nsusage_dir dirs[NSCONF_MAX_DIRS];
	int count;
	unsigned samples;	/* how many samples the peaks come from */
};

/*
 * The live figures of job_id's private directories under conf (its
 * BasePath), with peak = now, into *u.  The tmpfs mounts are opened in the
 * job's namespace (a short child); nothing is left open.  Returns 0, or -1
 * with errno (ENOENT: the job has no namespace) and rep.
 */
int nsusage_read(const struct nsconf *conf, uint32_t job_id,
		 struct nsusage *u, struct report *rep);

/* The fewest seconds between two posts of one job's figures. */
#define NSUSAGE_POST_GAP 300

/*
 * Whether the figures now are worth posting (to the job's AdminComment,
 * which Slurm lets no one change once the job has ended: the figures go
 * there while it runs), after those posted last (NULL: none yet),
 * elapsed seconds ago: a peak of some directory (bytes or inodes) is
 * above zero for the first time, or has grown by a quarter or more since
 * the last post and NSUSAGE_POST_GAP seconds have passed.  Pure.
 */
bool nsusage_post_due(const struct nsusage *last, const struct nsusage *now,
		      unsigned elapsed);

/*
 * Posts figures nsusage_post_due() found worth it; called on the
 * sampler's thread, outside its lock (it may wait on slurmctld).
 */
typedef void (*nsusage_post_fn)(const struct nsusage *u, void *arg);

/* A thread sampling one job's figures (opaque). */
struct nsusage_sampler;

/*
 * Start sampling job_id's private directories every interval seconds
 * (NSUSAGE_INTERVAL for 0), first sample now; post (NULL: none) gets,
 * with arg, each sample nsusage_post_due() finds worth posting.  Returns
 * the sampler, or NULL with errno and rep (the job then has no figures;
 * nothing else depends on them).
 */
struct nsusage_sampler *nsusage_sampler_start(const struct nsconf *conf,
					      uint32_t job_id,
					      unsigned interval,
					      nsusage_post_fn post, void *arg,
					      struct report *rep);

/*
 * Stop s (NULL: nothing), take the final sample (with the walks, while
 * the job's directories exist: before its teardown) into *u, and free s.
 * A post under way is not waited for (the post may be an RPC that never
 * returns at the job's end): *u is then the last sample, and the thread
 * frees s when its post returns.  Returns 0, or -1 with errno (*u then
 * holds what was sampled).
 */
int nsusage_sampler_stop(struct nsusage_sampler *s, struct nsusage *u);

/*
 * The AdminComment entry for u on node (NULL: none) into buf[len]:
 * "devns:NODE:NAME=PEAK/FINAL/LIMIT:PEAKi/FINALi/LIMITi,..." with NAME
 * "tmp" for /tmp, "shm" for /dev/shm, else the mount point; sizes in
 * bytes with K, M, G, T (1024) and one decimal below 10, a limit of
 * "-" for none.  Returns the length it needed (as snprintf).
 */
int nsusage_format(const struct nsusage *u, const char *node, char *buf,
		   size_t len);

/* A size in bytes as nsusage_format writes it, into buf[len]. */
void nsusage_size(uint64_t bytes, char *buf, size_t len);

#endif /* DEVNS_NSUSAGE_H */
