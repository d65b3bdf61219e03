/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsusage.c - the figures of a job's private directories, live and
 * sampled.  See nsusage.h.
 *
 * Root reads what a hostile job holds here, so nothing is resolved by a
 * path below the job's directory: the tmpfs roots come from nstmpfs
 * (opened in the namespace without following links), the backing
 * directories are walked with openat(O_NOFOLLOW) and fstatat
 * (AT_SYMLINK_NOFOLLOW), never leaving their filesystem.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "conf/jobdir.h"
#include "ns/dquota.h"
#include "ns/jobrec.h"
#include "ns/mntns.h"
#include "ns/nstmpfs.h"
#include "ns/nsusage.h"
#include "util/fdutil.h"
#include "util/safepath.h"

/* How deep a walk goes (each level holds an fd). */
#define WALK_DEPTH 64

/* What stays open between samples. */
struct probe {
	struct nstmpfs_held held;
	char labels[NSCONF_MAX_DIRS][PATH_MAX];	/* held.fds[i]'s point */
	int job_fd;		/* BasePath/<jobid>, O_RDONLY, or -1 */
	uint32_t projid;	/* its disk-limit project, 0: none */
	/* the backing directories to walk (no project), and their points */
	char walk_names[NSCONF_MAX_DIRS][NAME_MAX + 1];
	char walk_paths[NSCONF_MAX_DIRS][PATH_MAX];
	int walks;
};

/* The entry of u for path, made when missing; NULL when u is full. */
static struct nsusage_dir *dir_of(struct nsusage *u, const char *path)
{
	struct nsusage_dir *d;

	for (int i = 0; i < u->count; i++)
		if (!strcmp(u->dirs[i].path, path))
			return &u->dirs[i];
	if (u->count == NSCONF_MAX_DIRS)
		return NULL;
	d = &u->dirs[u->count++];
	memset(d, 0, sizeof(*d));
	snprintf(d->path, sizeof(d->path), "%s", path);
	return d;
}

/* A figure of d: the last one, and the peak. */
static void dir_set(struct nsusage_dir *d, uint64_t bytes, uint64_t inodes)
{
	d->bytes = bytes;
	d->inodes = inodes;
	if (bytes > d->peak_bytes)
		d->peak_bytes = bytes;
	if (inodes > d->peak_inodes)
		d->peak_inodes = inodes;
}

static void probe_close(struct probe *p)
{
	for (int i = 0; i < p->held.count; i++)
		fdutil_close(p->held.fds[i]);
	p->held.count = 0;
	fdutil_close(p->job_fd);
	p->job_fd = -1;
}

/* The mount point of each held tmpfs, from the job's record. */
static int probe_labels(const char *base_path, const char *name,
			struct probe *p)
{
	char *text = NULL, *line, *next, *lines[NSCONF_MAX_DIRS];
	int n = 0;

	if (jobrec_read(base_path, name, JOBDIR_TMPFS,
			NSCONF_MAX_DIRS * (PATH_MAX + 1), &text) < 0)
		return -1;
	for (line = text; line && *line && n < NSCONF_MAX_DIRS; line = next) {
		next = strchr(line, '\n');
		*next++ = '\0';
		if (line[0] == '/')
			lines[n++] = line;
	}
	for (int i = 0; i < p->held.count; i++)
		snprintf(p->labels[i], PATH_MAX, "%s", p->held.which[i] < n ?
			 lines[p->held.which[i]] : "?");
	free(text);
	return 0;
}

static int probe_open(const struct nsconf *conf, uint32_t job_id,
		      struct probe *p, struct report *rep)
{
	char name[16];
	int ns_fd, base_fd;

	memset(p, 0, sizeof(*p));
	p->job_fd = -1;
	if (!conf->base_path) {
		errno = ENOENT;
		return report_error(rep, "BasePath=none: no private "
				    "directories");
	}
	snprintf(name, sizeof(name), "%" PRIu32, job_id);
	if ((ns_fd = mntns_pin_open(conf->base_path, job_id, JOBDIR_NS_PIN,
				    NULL)) < 0)
		return report_errno(rep, errno, "job %s has no namespace",
				    name);
	if (nstmpfs_open(conf->base_path, name, ns_fd, &p->held) < 0 ||
	    probe_labels(conf->base_path, name, p) < 0) {
		fdutil_close(ns_fd);
		report_errno(rep, errno, "opening job %s's tmpfs mounts", name);
		goto error;
	}
	fdutil_close(ns_fd);
	if ((base_fd = safepath_open(conf->base_path)) < 0) {
		report_errno(rep, errno, "opening BasePath %s",
			     conf->base_path);
		goto error;
	}
	p->job_fd = openat(base_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			   O_CLOEXEC);
	fdutil_close(base_fd);
	if (p->job_fd < 0) {
		report_errno(rep, errno, "opening %s/%s", conf->base_path,
			     name);
		goto error;
	}
	/* A filesystem without project ids: no disk limit, walked. */
	if (dquota_project(p->job_fd, &p->projid) < 0)
		p->projid = 0;
	for (size_t i = 0; !p->projid && conf->dirs[i]; i++) {
		const struct nsconf_dir *nd = &conf->dir_conf[i];

		if (nd->type != NSCONF_DIR_BIND || nd->source ||
		    nsconf_backing_name(nd->path, p->walk_names[p->walks],
					NAME_MAX + 1) < 0)
			continue;
		snprintf(p->walk_paths[p->walks], PATH_MAX, "%s", nd->path);
		p->walks++;
	}
	return 0;
error:
	probe_close(p);
	return -1;
}

/* One cheap sample: each tmpfs's statfs, the project's usage. */
static void probe_sample(const struct probe *p, struct nsusage *u)
{
	for (int i = 0; i < p->held.count; i++) {
		struct nsusage_dir *d = dir_of(u, p->labels[i]);
		struct statfs sfs;

		if (!d || fstatfs(p->held.fds[i], &sfs) < 0)
			continue;
		d->tmpfs = d->sampled = true;
		d->bytes_limit = (uint64_t)sfs.f_blocks * (uint64_t)sfs.f_bsize;
		d->inodes_limit = sfs.f_files;
		/* The root directory is the mount's, not the job's. */
		dir_set(d, (uint64_t)(sfs.f_blocks - sfs.f_bfree) *
			   (uint64_t)sfs.f_bsize,
			sfs.f_files > sfs.f_ffree
				? (uint64_t)(sfs.f_files - sfs.f_ffree) - 1 : 0);
	}
	if (p->projid && p->job_fd >= 0) {
		struct dquota_usage q;
		struct nsusage_dir *d = dir_of(u, "/tmp");

		if (d && dquota_get(p->job_fd, p->projid, &q) == 0) {
			d->sampled = true;
			d->bytes_limit = q.bytes_limit;
			d->inodes_limit = q.inodes_limit;
			dir_set(d, q.bytes_used, q.inodes_used);
		}
	}
	u->samples++;
}

/* Count what lies below the directory fd (closed here), depth levels in. */
static void walk(int fd, dev_t dev, int depth, uint64_t *bytes,
		 uint64_t *inodes, uint64_t *seen, bool *partial)
{
	DIR *dir = fdopendir(fd);
	struct dirent *e;

	if (!dir) {
		fdutil_close(fd);
		*partial = true;
		return;
	}
	while ((e = readdir(dir))) {
		struct stat st;
		int sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (++*seen > NSUSAGE_WALK_MAX) {
			*partial = true;
			break;
		}
		if (fstatat(dirfd(dir), e->d_name, &st,
			    AT_SYMLINK_NOFOLLOW) < 0)
			continue;	/* gone meanwhile */
		*bytes += (uint64_t)st.st_blocks * 512;
		(*inodes)++;
		if (!S_ISDIR(st.st_mode) || st.st_dev != dev)
			continue;
		if (depth >= WALK_DEPTH) {
			*partial = true;
			continue;
		}
		sub = openat(dirfd(dir), e->d_name, O_RDONLY | O_DIRECTORY |
			     O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue;
		walk(sub, dev, depth + 1, bytes, inodes, seen, partial);
	}
	closedir(dir);
}

/*
 * The figures of the job's directories on BasePath that no project
 * counts: each backing directory walked.
 */
static void probe_walk(const struct probe *p, struct nsusage *u)
{
	for (int i = 0; p->job_fd >= 0 && i < p->walks; i++) {
		uint64_t bytes = 0, inodes = 0, seen = 0;
		bool partial = false;
		struct nsusage_dir *d;
		struct stat st;
		int fd;

		fd = openat(p->job_fd, p->walk_names[i], O_RDONLY |
			    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) < 0 || !(d = dir_of(u, p->walk_paths[i]))) {
			fdutil_close(fd);
			continue;
		}
		walk(fd, st.st_dev, 0, &bytes, &inodes, &seen, &partial);
		d->partial = partial;
		dir_set(d, bytes, inodes);
	}
}

int nsusage_read(const struct nsconf *conf, uint32_t job_id,
		 struct nsusage *u, struct report *rep)
{
	struct probe *p = malloc(sizeof(*p));

	memset(u, 0, sizeof(*u));
	if (!p)
		return report_errno(rep, errno, "allocating");
	if (probe_open(conf, job_id, p, rep) < 0) {
		int saved = errno;

		free(p);
		errno = saved;
		return -1;
	}
	probe_sample(p, u);
	probe_walk(p, u);
	probe_close(p);
	free(p);
	return 0;
}

/* Whether one figure grew from zero, or by a quarter, since it was last. */
static bool grew(uint64_t last, uint64_t now, bool *first)
{
	if (!last && now)
		*first = true;
	return now > last && now - last >= last / 4;
}

bool nsusage_post_due(const struct nsusage *last, const struct nsusage *now,
		      unsigned elapsed)
{
	bool first = false, more = false;

	for (int i = 0; i < now->count; i++) {
		const struct nsusage_dir *d = &now->dirs[i];
		uint64_t lb = 0, li = 0;

		for (int k = 0; last && k < last->count; k++)
			if (!strcmp(last->dirs[k].path, d->path)) {
				lb = last->dirs[k].peak_bytes;
				li = last->dirs[k].peak_inodes;
			}
		more |= grew(lb, d->peak_bytes, &first);
		more |= grew(li, d->peak_inodes, &first);
	}
	return first || (more && elapsed >= NSUSAGE_POST_GAP);
}

struct nsusage_sampler {
	pthread_t thread;
	pthread_mutex_t lock;	/* this process's own: no user holds it */
	pthread_cond_t wake;
	bool stop;
	bool posting;		/* the thread is in post, lock released */
	bool abandoned;		/* stop left it there: it frees s itself */
	unsigned interval;
	struct probe probe;
	struct nsusage usage;
	nsusage_post_fn post;
	void *post_arg;
	struct nsusage posted;	/* the figures posted last */
	bool any_posted;
	struct timespec posted_at;
};

/* After a sample, under s->lock: post it when it is worth it. */
static void maybe_post(struct nsusage_sampler *s)
{
	struct nsusage *now;
	struct timespec t;

	if (!s->post)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t);
	if (!nsusage_post_due(s->any_posted ? &s->posted : NULL, &s->usage,
			      (unsigned)(t.tv_sec - s->posted_at.tv_sec)))
		return;
	if (!(now = malloc(sizeof(*now))))
		return;
	*now = s->usage;
	s->posting = true;
	pthread_mutex_unlock(&s->lock);
	/* Only this thread uses the probe until stop has joined it. */
	probe_walk(&s->probe, now);
	s->post(now, s->post_arg);
	pthread_mutex_lock(&s->lock);
	s->posting = false;
	if (s->abandoned) {
		free(now);
		return;
	}
	for (int i = 0; i < now->count; i++) {
		struct nsusage_dir *d;

		if (now->dirs[i].sampled || !(d = dir_of(&s->usage,
							   now->dirs[i].path)))
			continue;
		d->partial = now->dirs[i].partial;
		dir_set(d, now->dirs[i].bytes, now->dirs[i].inodes);
	}
	s->posted = *now;
	s->any_posted = true;
	s->posted_at = t;
	free(now);
}

static void *sampler_main(void *arg)
{
	struct nsusage_sampler *s = arg;
	struct timespec at;

	pthread_mutex_lock(&s->lock);
	while (!s->stop) {
		clock_gettime(CLOCK_MONOTONIC, &at);
		at.tv_sec += s->interval;
		while (!s->stop &&
		       pthread_cond_timedwait(&s->wake, &s->lock, &at) == 0)
			;
		if (s->stop)
			break;
		probe_sample(&s->probe, &s->usage);
		maybe_post(s);
	}
	if (s->abandoned) {
		/* stop returned without us: the rest is ours to free. */
		pthread_mutex_unlock(&s->lock);
		probe_close(&s->probe);
		pthread_cond_destroy(&s->wake);
		pthread_mutex_destroy(&s->lock);
		free(s);
		return NULL;
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

struct nsusage_sampler *nsusage_sampler_start(const struct nsconf *conf,
					      uint32_t job_id,
					      unsigned interval,
					      nsusage_post_fn post, void *arg,
					      struct report *rep)
{
	struct nsusage_sampler *s = calloc(1, sizeof(*s));
	pthread_condattr_t attr;
	int rc;

	if (!s) {
		report_errno(rep, errno, "allocating the sampler");
		return NULL;
	}
	s->interval = interval ? interval : NSUSAGE_INTERVAL;
	s->post = post;
	s->post_arg = arg;
	if (probe_open(conf, job_id, &s->probe, rep) < 0)
		goto error;
	probe_sample(&s->probe, &s->usage);
	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&s->wake, &attr);
	pthread_condattr_destroy(&attr);
	if ((rc = pthread_create(&s->thread, NULL, sampler_main, s))) {
		pthread_cond_destroy(&s->wake);
		pthread_mutex_destroy(&s->lock);
		probe_close(&s->probe);
		report_errno(rep, rc, "starting the sampler");
		goto error;
	}
	return s;
error:
	{
		int saved = errno;

		free(s);
		errno = saved;
	}
	return NULL;
}

int nsusage_sampler_stop(struct nsusage_sampler *s, struct nsusage *u)
{
	memset(u, 0, sizeof(*u));
	if (!s)
		return 0;
	pthread_mutex_lock(&s->lock);
	s->stop = true;
	pthread_cond_signal(&s->wake);
	if (s->posting) {
		/*
		 * A post is a Slurm RPC, which at the job's end may never
		 * return (26.05's slurmstepd has stopped the machinery it
		 * waits for): the thread is left to it and frees s when it
		 * returns; the figures are the last sample's.
		 */
		s->abandoned = true;
		*u = s->usage;
		pthread_mutex_unlock(&s->lock);
		pthread_detach(s->thread);
		return 0;
	}
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	probe_sample(&s->probe, &s->usage);
	probe_walk(&s->probe, &s->usage);
	*u = s->usage;
	probe_close(&s->probe);
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
	free(s);
	return 0;
}

void nsusage_size(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "KMGT";
	double v = (double)bytes;
	int u = -1;

	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%" PRIu64, bytes);
	else if (v < 10 && v != (double)(uint64_t)v)
		snprintf(buf, len, "%.1f%c", v, units[u]);
	else
		snprintf(buf, len, "%.0f%c", v, units[u]);
}

int nsusage_format(const struct nsusage *u, const char *node, char *buf,
		   size_t len)
{
	size_t used = 0;
	int n, total;

	n = snprintf(buf, len, "devns:%s%s", node ? node : "", node ? ":" : "");
	total = n;
	used = n < 0 ? 0 : (size_t)n < len ? (size_t)n : len ? len - 1 : 0;
	for (int i = 0; i < u->count; i++) {
		const struct nsusage_dir *d = &u->dirs[i];
		const char *name = !strcmp(d->path, "/tmp") ? "tmp"
				   : !strcmp(d->path, "/dev/shm") ? "shm"
				   : d->path;
		char pb[16], fb[16], lb[16] = "-", li[24] = "-";

		nsusage_size(d->peak_bytes, pb, sizeof(pb));
		nsusage_size(d->bytes, fb, sizeof(fb));
		if (d->bytes_limit)
			nsusage_size(d->bytes_limit, lb, sizeof(lb));
		if (d->inodes_limit)
			snprintf(li, sizeof(li), "%" PRIu64, d->inodes_limit);
		n = snprintf(buf + used, len - used, "%s%s=%s/%s/%s:%" PRIu64
			     "/%" PRIu64 "/%s%s", i ? "," : "", name, pb, fb,
			     lb, d->peak_inodes, d->inodes, li,
			     d->partial ? "+" : "");
		if (n < 0)
			return n;
		total += n;
		used += (size_t)n < len - used ? (size_t)n : len - used - 1;
	}
	return total;
}
