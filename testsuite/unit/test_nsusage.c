/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_nsusage.c - the figures of a job's private directories: a job
 * writes known amounts into its /dev/shm (a tmpfs) and its /tmp (a
 * backing directory on BasePath); nsusage_read gives them live, the
 * sampler their peaks after the job removed them, and nsusage_format the
 * AdminComment entry.  A link the job plants in its /tmp is not followed
 * by the walk.  Needs root and mount namespaces; skips without them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf/nsconf.h"
#include "ns/mntns.h"
#include "ns/nsusage.h"
#include "tap.h"
#include "testrep.h"

#define KiB 1024ULL

static char base[] = "/var/tmp/test-nsusage.XXXXXX";

/* Run fn(arg) in a child inside job_id's namespace; its exit status. */
static int in_job(uint32_t job_id, int (*fn)(const char *), const char *arg)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		if (mntns_join(base, job_id) < 0)
			_exit(100);
		_exit(fn(arg));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* "PATH SIZE": a file of SIZE bytes (written, so that it takes blocks). */
static int write_sized(const char *spec)
{
	char path[256], buf[4096];
	unsigned long long size;
	int fd;

	if (sscanf(spec, "%255s %llu", path, &size) != 2)
		return 2;
	memset(buf, 'x', sizeof(buf));
	if ((fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644)) < 0)
		return 1;
	for (unsigned long long n = 0; n < size; n += sizeof(buf))
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return 1;
	return close(fd) ? 1 : 0;
}

static int remove_file(const char *path)
{
	return unlink(path) ? 1 : 0;
}

static int plant_link(const char *path)
{
	return symlink("/usr", path) ? 1 : 0;
}

static const struct nsusage_dir *fig(const struct nsusage *u,
				     const char *path)
{
	for (int i = 0; i < u->count; i++)
		if (!strcmp(u->dirs[i].path, path))
			return &u->dirs[i];
	return NULL;
}

static int posts;
static uint64_t posted_shm;

static void count_post(const struct nsusage *u, void *arg)
{
	const struct nsusage_dir *d = fig(u, "/dev/shm");

	(void)arg;
	posts++;
	posted_shm = d ? d->peak_bytes : 0;
}

/* When the sampler posts: new figures at once, growth after a gap. */
static void test_post_due(void)
{
	struct nsusage last = { .count = 1 }, now;

	snprintf(last.dirs[0].path, sizeof(last.dirs[0].path), "/dev/shm");
	now = last;
	ok(!nsusage_post_due(NULL, &now, 0), "nothing yet: no post");
	now.dirs[0].peak_bytes = 4096;
	ok(nsusage_post_due(NULL, &now, 0), "a first figure: posted at once");
	last.dirs[0].peak_bytes = 4000;
	now.dirs[0].peak_bytes = 4999;
	ok(!nsusage_post_due(&last, &now, NSUSAGE_POST_GAP),
	   "grown by less than a quarter: not posted");
	now.dirs[0].peak_bytes = 5000;
	ok(!nsusage_post_due(&last, &now, NSUSAGE_POST_GAP - 1),
	   "grown by a quarter within the gap: not yet");
	ok(nsusage_post_due(&last, &now, NSUSAGE_POST_GAP),
	   "  after the gap: posted");
	now = last;
	snprintf(now.dirs[1].path, sizeof(now.dirs[1].path), "/tmp");
	now.count = 2;
	now.dirs[1].peak_inodes = 1;
	ok(nsusage_post_due(&last, &now, 0),
	   "another directory's first figure: posted at once");
}

/* mntns_create for the job of conf's private directories. */
static int create_job(const struct nsconf *c, uint32_t job_id)
{
	struct mntns_dir dirs[NSCONF_MAX_DIRS];
	struct mntns_spec spec = { .base_path = c->base_path,
				   .job_id = job_id, .dir_list = dirs,
				   .uid = 0, .gid = 0 };
	size_t n = 0;

	memset(dirs, 0, sizeof(dirs));
	for (; c->dirs[n]; n++) {
		dirs[n].path = c->dir_conf[n].path;
		dirs[n].tmpfs = c->dir_conf[n].type == NSCONF_DIR_TMPFS;
		dirs[n].size = c->dir_conf[n].size;
		dirs[n].options = c->dir_conf[n].options;
	}
	spec.dir_count = n;
	return mntns_create(&spec, fresh());
}

static void test_format(void)
{
	struct nsusage u = { .count = 2 };
	char buf[256], small[16];
	int n;

	snprintf(u.dirs[0].path, sizeof(u.dirs[0].path), "/tmp");
	u.dirs[0].peak_bytes = 1288490189;	/* 1.2G */
	u.dirs[0].bytes = 800 * 1024 * 1024;
	u.dirs[0].bytes_limit = 20ULL << 30;
	u.dirs[0].peak_inodes = 1042;
	u.dirs[0].inodes = 900;
	snprintf(u.dirs[1].path, sizeof(u.dirs[1].path), "/dev/shm");
	u.dirs[1].peak_bytes = 300 * 1024 * 1024;
	u.dirs[1].bytes_limit = 100 * 1024 * 1024;
	u.dirs[1].inodes_limit = 51200;
	u.dirs[1].peak_inodes = 12;
	n = nsusage_format(&u, "node1", buf, sizeof(buf));
	is_str(buf, "devns:node1:tmp=1.2G/800M/20G:1042/900/-,"
	       "shm=300M/0/100M:12/0/51200", "the AdminComment entry");
	is_int(n, (long long)strlen(buf), "  its length");
	is_int(nsusage_format(&u, "node1", small, sizeof(small)), n,
	       "  a short buffer: the length it needs");
	is_int(strlen(small), sizeof(small) - 1, "  and a cut string");
	nsusage_size(1536, small, sizeof(small));
	is_str(small, "1.5K", "1536 bytes: 1.5K");
	nsusage_size(1023, small, sizeof(small));
	is_str(small, "1023", "1023 bytes as they are");
}

/* A post that waits for the test, as a Slurm RPC at a job's end may. */
static int post_gate[2] = { -1, -1 };
static volatile int blocked_posts, blocked_done;

static void blocked_post(const struct nsusage *u, void *arg)
{
	char c;

	(void)u;
	(void)arg;
	__atomic_add_fetch(&blocked_posts, 1, __ATOMIC_SEQ_CST);
	(void)!read(post_gate[0], &c, 1);
	__atomic_add_fetch(&blocked_done, 1, __ATOMIC_SEQ_CST);
}

/*
 * Stop does not wait for a post under way (26.05's slurmstepd, at the
 * job's end, never answers the RPC): it returns the last sample, and the
 * thread frees the sampler once the post returns.
 */
static void test_blocked_post(const struct nsconf *c, uint32_t job)
{
	struct nsusage_sampler *s;
	struct nsusage u;
	int rc;

	if (!ok(pipe(post_gate) == 0, "precondition: a pipe"))
		return;
	is_int(in_job(job, write_sized, "/dev/shm/h 65536"), 0,
	       "precondition: the job has 64K in /dev/shm (figures to post)");
	s = nsusage_sampler_start(c, job, 1, blocked_post, NULL, fresh());
	ok(s != NULL, "a sampler whose posts wait starts: %s", rep.msg);
	for (int i = 0; i < 100 && !__atomic_load_n(&blocked_posts, __ATOMIC_SEQ_CST); i++)
		usleep(50 * 1000);
	if (!ok(blocked_posts == 1, "precondition: its first post is under way"))
		return;
	rc = nsusage_sampler_stop(s, &u);
	ok(rc == 0 && u.count > 0,
	   "stop returns with the last sample (%d directories) while the post still waits",
	   u.count);
	ok(blocked_done == 0, "  the post had not returned");
	(void)!write(post_gate[1], "x", 1);
	for (int i = 0; i < 100 && !__atomic_load_n(&blocked_done, __ATOMIC_SEQ_CST); i++)
		usleep(50 * 1000);
	ok(blocked_done == 1, "  the post returns afterwards, and its thread frees the sampler");
	usleep(100 * 1000);	/* the thread's last frees (ASan sees them) */
	close(post_gate[0]);
	close(post_gate[1]);
}

static void test_job(void)
{
	char text[256], spec[512], shmfile[] = "/dev/shm/f", tmpfile[64];
	struct nsusage u;
	const struct nsusage_dir *d;
	struct nsusage_sampler *s;
	struct nsconf *c;

	snprintf(text, sizeof(text), "BasePath=%s\nShmSize=4M\n", base);
	c = nsconf_load_text(text, "t.conf", NULL, NULL, fresh());
	if (!ok(c != NULL, "precondition: settings: %s", rep.msg))
		return;
	if (!ok(create_job(c, 51) == 0, "precondition: job 51's namespace: %s",
		rep.msg)) {
		nsconf_free(c);
		return;
	}
	snprintf(tmpfile, sizeof(tmpfile), "/tmp/test-nsusage-%d", getpid());
	snprintf(spec, sizeof(spec), "%s %llu", shmfile, 300 * KiB);
	is_int(in_job(51, write_sized, spec), 0, "the job writes 300K to "
	       "/dev/shm");
	snprintf(spec, sizeof(spec), "%s %llu", tmpfile, 200 * KiB);
	is_int(in_job(51, write_sized, spec), 0, "  and 200K to /tmp");
	is_int(in_job(51, plant_link, "/tmp/usr"), 0,
	       "  and plants a link to /usr in /tmp");

	ok(nsusage_read(c, 51, &u, fresh()) == 0, "live figures: %s",
	   rep.msg);
	d = fig(&u, "/dev/shm");
	ok(d && d->tmpfs && d->bytes == 300 * KiB && d->inodes == 1 &&
	   d->bytes_limit == 4096 * KiB, "  /dev/shm: 300K in one file of 4M "
	   "(%llu bytes, %llu inodes)", d ? (unsigned long long)d->bytes : 0,
	   d ? (unsigned long long)d->inodes : 0);
	d = fig(&u, "/tmp");
	ok(d && !d->tmpfs && d->bytes >= 200 * KiB &&
	   d->bytes < 200 * KiB + 64 * KiB && d->inodes == 2 && !d->partial,
	   "  /tmp: 200K (%llu bytes on disk), the file and the link, the "
	   "link not followed", d ? (unsigned long long)d->bytes : 0);

	posts = 0;
	s = nsusage_sampler_start(c, 51, 1, count_post, NULL, fresh());
	ok(s != NULL, "the sampler starts: %s", rep.msg);
	snprintf(spec, sizeof(spec), "%s %llu", "/dev/shm/g", 1024 * KiB);
	is_int(in_job(51, write_sized, spec), 0, "the job adds 1M to /dev/shm");
	usleep(2500 * 1000);	/* two samples at 1 s */
	is_int(in_job(51, remove_file, "/dev/shm/g"), 0, "  and removes it");
	is_int(in_job(51, remove_file, shmfile), 0, "  and its 300K");
	ok(nsusage_sampler_stop(s, &u) == 0, "the sampler stops");
	ok(u.samples >= 3, "  %u samples", u.samples);
	is_int(posts, 1, "  one post: the 1M, new since the 300K (a gap of "
	       "%d s before the next)", NSUSAGE_POST_GAP);
	ok(posted_shm >= 1324 * KiB, "  with /dev/shm's 1.3M: %llu",
	   (unsigned long long)posted_shm);
	d = fig(&u, "/dev/shm");
	ok(d && d->peak_bytes == 1324 * KiB && d->bytes == 0 &&
	   d->peak_inodes == 2 && d->inodes == 0 && d->sampled,
	   "  /dev/shm: peak 1.3M in 2 files, final 0 (%llu, %llu)",
	   d ? (unsigned long long)d->peak_bytes : 0,
	   d ? (unsigned long long)d->bytes : 0);
	d = fig(&u, "/tmp");
	ok(d && !d->sampled && d->peak_bytes == d->bytes &&
	   d->bytes >= 200 * KiB, "  /tmp: counted at the end, peak = final");
	test_blocked_post(c, 51);
	ok(mntns_delete(base, 51) == 0, "delete");
	errno = 0;
	ok(nsusage_read(c, 51, &u, fresh()) < 0 && errno == ENOENT,
	   "no figures for a job that is gone: %s", rep.msg);
	nsconf_free(c);
}

int main(void)
{
	test_format();
	test_post_due();
	if (!tap_root()) {
		tap_skip("namespace tests need root");
		return tap_done();
	}
	if (syscall(SYS_open_tree, -1, "", 0) < 0 && errno == ENOSYS) {
		tap_skip("no open_tree(2) here (valgrind or an old kernel)");
		return tap_done();
	}
	if (!mkdtemp(base)) {
		tap_skip("cannot make a BasePath: %s", strerror(errno));
		return tap_done();
	}
	test_job();
	rmdir(base);
	return tap_done();
}
