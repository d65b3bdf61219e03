/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsmounts.c - a namespace's mounts, read by a child that joined it.  See
 * nsmounts.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/mountinfo.h"
#include "nsmounts.h"

/* A mountinfo of more than this is not a job namespace's. */
#define NSMOUNTS_MAX (8 * 1024 * 1024)

/*
 * In the child: join the namespace, copy its mountinfo to out.  The host's
 * /proc is opened first: with PidNamespace the job's /proc is its PID
 * namespace's, where the child has no pid and /proc/self leads nowhere;
 * the host's still names the child, whose mountinfo is now the job's.
 */
static void child(int ns_fd, int out)
{
	char buf[4096];
	ssize_t n;
	int proc, fd;

	if ((proc = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    setns(ns_fd, CLONE_NEWNS) < 0 ||
	    (fd = openat(proc, "self/mountinfo", O_RDONLY | O_CLOEXEC)) < 0)
		_exit(1);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			_exit(1);
	_exit(n < 0 ? 1 : 0);
}

/* Reads everything from fd into a NUL-terminated string, or NULL. */
static char *read_all(int fd)
{
	size_t len = 0, cap = 65536;
	char *text = malloc(cap), *grown;
	ssize_t n = 0;

	while (text && (n = read(fd, text + len, cap - len - 1)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		len += (size_t)n;
		if (len + 1 < cap)
			continue;
		if (cap >= NSMOUNTS_MAX) {
			errno = EFBIG;
			break;
		}
		if (!(grown = realloc(text, cap * 2)))
			break;
		text = grown;
		cap *= 2;
	}
	if (!text || n != 0) {
		int saved = errno;

		free(text);
		errno = saved;
		return NULL;
	}
	text[len] = '\0';
	return text;
}

/* Whether path is dir or below it. */
static bool path_under(const char *path, const char *dir)
{
	size_t len = strlen(dir);

	if (!strcmp(dir, "/"))
		return true;
	return !strncmp(path, dir, len) && (path[len] == '\0' ||
					    path[len] == '/');
}

/* Whether point is one of dirs or below one. */
static bool wanted(const char *point, const char *const *dirs)
{
	for (size_t i = 0; dirs[i]; i++)
		if (path_under(point, dirs[i]))
			return true;
	return false;
}

/* The mounts of one mountinfo, and which of them a process can reach. */
struct table {
	struct mountinfo_entry *e;
	signed char *visible;	/* -1 not known yet, 0, 1 */
	size_t count;
};

static ssize_t find_id(const struct table *t, int id)
{
	for (size_t i = 0; i < t->count; i++)
		if (t->e[i].id == id)
			return (ssize_t)i;
	return -1;
}

static bool visible(struct table *t, size_t i, int depth);

/*
 * Whether the place a mount sits on can be reached: the namespace's root
 * can; a mount stacked on another at the same point where that one's
 * place can; any other where its parent is visible and no visible mount
 * sits between the two (at a path below the parent's mount point that
 * holds this one's): such a mount, BasePath's hiding tmpfs for one,
 * covers it.
 */
static bool reachable(struct table *t, size_t i, int depth)
{
	const struct mountinfo_entry *m = &t->e[i];
	ssize_t parent = find_id(t, m->parent);
	const char *above;

	if (parent < 0 || (size_t)parent == i)
		return true;
	if (depth > 64)
		return false;	/* a loop: mountinfo changed under us */
	if (!strcmp(t->e[parent].point, m->point))
		return reachable(t, (size_t)parent, depth + 1);
	if (!visible(t, (size_t)parent, depth + 1))
		return false;
	above = t->e[parent].point;
	for (size_t j = 0; j < t->count; j++) {
		const char *q = t->e[j].point;

		if (j != i && (ssize_t)j != parent &&
		    strlen(q) > strlen(above) && path_under(m->point, q) &&
		    path_under(q, above) && visible(t, j, depth + 1))
			return false;
	}
	return true;
}

/* Reached, and nothing mounted on top of it (at its own point). */
static bool visible(struct table *t, size_t i, int depth)
{
	const struct mountinfo_entry *m = &t->e[i];

	if (t->visible[i] >= 0)
		return t->visible[i];
	t->visible[i] = 0;	/* while deciding: breaks loops */
	for (size_t j = 0; j < t->count; j++)
		if (t->e[j].parent == m->id && !strcmp(t->e[j].point, m->point))
			return false;
	t->visible[i] = reachable(t, i, depth);
	return t->visible[i];
}

/* Splits text into t; the entries point into text.  -1 with ENOMEM. */
static int table_read(char *text, struct table *t)
{
	char *line, *save = NULL;
	size_t alloc = 0;

	memset(t, 0, sizeof(*t));
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (t->count == alloc) {
			size_t n = alloc ? alloc * 2 : 64;
			void *e = realloc(t->e, n * sizeof(*t->e));

			if (!e)
				return -1;
			t->e = e;
			alloc = n;
		}
		if (mountinfo_parse(line, &t->e[t->count]) == 0)
			t->count++;
	}
	if (!(t->visible = malloc(t->count + 1)))
		return -1;
	memset(t->visible, -1, t->count + 1);
	return 0;
}

int nsmounts_each(int ns_fd, const char *const *dirs,
		  void (*fn)(const struct mountinfo_entry *entry, void *arg),
		  void *arg)
{
	struct table t;
	char *text;
	int p[2], status, saved, rc;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	if ((pid = fork()) < 0) {
		saved = errno;
		close(p[0]);
		close(p[1]);
		errno = saved;
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		child(ns_fd, p[1]);
	}
	close(p[1]);
	text = read_all(p[0]);
	saved = errno;
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!text) {
		errno = saved;
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		free(text);
		errno = EPERM;	/* the child could not join or read */
		return -1;
	}
	if ((rc = table_read(text, &t)) == 0)
		for (size_t i = 0; i < t.count; i++)
			if (wanted(t.e[i].point, dirs) && visible(&t, i, 0))
				fn(&t.e[i], arg);
	saved = errno;
	free(t.e);
	free(t.visible);
	free(text);
	errno = saved;
	return rc;
}
