/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * denied.c - a job's denied device opens, for the log at its end.  See
 * denied.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dev/devinspect.h"
#include "dev/devname.h"
#include "job/backend.h"
#include "job/denied.h"

/* Programs of one job read, at most (unified: one per step, the same). */
#define DENIED_MAX_PROGS 64

/* Where the walk over the job's cgroups is. */
struct walk {
	const struct jobct_node *node;
	char job[32];		/* "job <id>: " or "" */
	struct report *rep;
	struct devnames names;	/* the node's /dev, scanned once, on demand */
	bool scanned;
	uint32_t seen[DENIED_MAX_PROGS];
	size_t nseen;
	int lines;
	int failed;		/* errno of the first program not read */
};

/* The program denied_hold keeps, of held_job; -1: none. */
static int held_fd = -1;
static uint32_t held_job;

void denied_hold(uint32_t job_id, int prog_fd)
{
	if (held_fd >= 0)
		close(held_fd);
	held_fd = fcntl(prog_fd, F_DUPFD_CLOEXEC, 0);
	held_job = job_id;
}

/* Whether the program id was read already; else remembers it. */
static bool seen(struct walk *w, uint32_t id)
{
	for (size_t i = 0; i < w->nseen; i++)
		if (w->seen[i] == id)
			return true;
	if (w->nseen < DENIED_MAX_PROGS)
		w->seen[w->nseen++] = id;
	return false;
}

/* The device's name in /dev, NULL when it has none (or /dev is unread). */
static const char *dev_name(struct walk *w, const struct devinspect_denial *d)
{
	if (!w->scanned) {
		w->scanned = true;
		(void)devnames_scan(&w->names, w->node->dev_dir
					       ? w->node->dev_dir : "/dev");
	}
	return devnames_find(&w->names, d->type, d->major, d->minor);
}

/* One line per device: d[0..n) is sorted, a device's accesses adjacent. */
static void report_devices(struct walk *w, const struct devinspect_denial *d,
			   int n)
{
	for (int i = 0, j; i < n; i = j) {
		uint64_t count = 0;
		const char *name;

		for (j = i; j < n && d[j].type == d[i].type &&
			    d[j].major == d[i].major && d[j].minor == d[i].minor;
		     j++)
			count += d[j].count;
		w->lines++;
		if (!d[i].type) {
			report_notice(w->rep, "%sdenied %" PRIu64 " opens of other devices (its record of denials was full)",
				      w->job, count);
			continue;
		}
		name = dev_name(w, &d[i]);
		report_notice(w->rep, "%sdenied %" PRIu64 " opens of %c %u:%u%s%s%s",
			      w->job, count, d[i].type, d[i].major, d[i].minor,
			      name ? " (" : "", name ? name : "",
			      name ? ")" : "");
	}
}

/* The denials of program prog_fd, unless it was read already. */
static void read_program(struct walk *w, int prog_fd)
{
	struct devinspect_denial *d;
	uint32_t id;
	int n;

	if (devinspect_prog_id(prog_fd, &id) < 0 || seen(w, id))
		return;
	n = devinspect_take_denials(prog_fd, &d);
	if (n < 0 && errno != ENOENT && !w->failed)
		w->failed = errno;
	if (n > 0)
		report_devices(w, d, n);
	free(d);
}

/* The backend's each_cgroup callback: the denials of our program there. */
static int read_cgroup(const char *path, int cg_fd, void *arg)
{
	struct walk *w = arg;
	int prog_fd = w->node->ops->prog_find(cg_fd);

	(void)path;
	if (prog_fd < 0)
		return 0;	/* a leaf, or Slurm's: ours is on the step */
	read_program(w, prog_fd);
	close(prog_fd);
	return 0;
}

int denied_report(const struct jobct_node *node, uint32_t job_id,
		  bool name_job, struct report *rep)
{
	struct walk w = { .node = node, .rep = rep };

	if (name_job)
		snprintf(w.job, sizeof(w.job), "job %u: ", job_id);
	devnames_init(&w.names);
	if (held_fd >= 0 && held_job == job_id) {
		read_program(&w, held_fd);
		close(held_fd);
		held_fd = -1;
	}
	(void)node->backend->each_cgroup(node, job_id, read_cgroup, &w);
	devnames_free(&w.names);
	if (w.failed) {
		report_warning(rep, "%scannot read its denied device opens: %s",
			       w.job, strerror(w.failed));
		errno = w.failed;
		return -1;
	}
	return w.lines;
}
