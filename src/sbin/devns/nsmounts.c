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
#include <sys/wait.h>
#include <unistd.h>

#include "util/mountinfo.h"
#include "nsmounts.h"

/* A mountinfo of more than this is not a job namespace's. */
#define NSMOUNTS_MAX (8 * 1024 * 1024)

/* In the child: join the namespace, copy its mountinfo to out. */
static void child(int ns_fd, int out)
{
	char buf[4096];
	ssize_t n;
	int fd;

	if (setns(ns_fd, CLONE_NEWNS) < 0 ||
	    (fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC)) < 0)
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

/* Whether point is one of dirs or below one. */
static bool wanted(const char *point, const char *const *dirs)
{
	for (size_t i = 0; dirs[i]; i++) {
		size_t len = strlen(dirs[i]);

		if (!strncmp(point, dirs[i], len) &&
		    (point[len] == '\0' || point[len] == '/'))
			return true;
	}
	return false;
}

int nsmounts_each(int ns_fd, const char *const *dirs,
		  void (*fn)(const struct mountinfo_entry *entry, void *arg),
		  void *arg)
{
	char *text, *line, *save = NULL;
	int p[2], status, saved;
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
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct mountinfo_entry e;

		if (mountinfo_parse(line, &e) == 0 && wanted(e.point, dirs))
			fn(&e, arg);
	}
	free(text);
	return 0;
}
