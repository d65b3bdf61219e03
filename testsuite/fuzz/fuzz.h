/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz.h - what the libFuzzer targets of testsuite/fuzz share: the input
 * as C strings, and a private directory for the parsers whose real entry
 * point takes a file name (gres.conf, slurm.conf, plugstack.conf, CDI
 * specs).  Static functions in a header: each target is one program of
 * its own (run.sh), built from its fuzz_NAME.c alone.
 */
#ifndef DEVNS_FUZZ_H
#define DEVNS_FUZZ_H

#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "util/saferm.h"

/*
 * The input split at its NUL bytes into at most max strings (the last one
 * keeps the rest, NULs cut it short), parts[] pointing into one buffer
 * that the caller free()s (*buf).  Parts the input does not have are "".
 * Returns how many parts the input had (1 to max).
 */
static inline int fuzz_split(const uint8_t *data, size_t size, char **parts,
			     int max, char **buf)
{
	char *copy = malloc(size + 1);
	int n = 1;

	if (!copy)
		abort();
	memcpy(copy, data, size);
	copy[size] = '\0';
	parts[0] = copy;
	for (size_t i = 0; i < size && n < max; i++)
		if (copy[i] == '\0')
			parts[n++] = copy + i + 1;
	for (int i = n; i < max; i++)
		parts[i] = copy + size;
	*buf = copy;
	return n;
}

/* The private directory, made on first use, removed at exit. */
static char fuzz_dir_path[64];

static inline void fuzz_dir_remove(void)
{
	char *slash = strrchr(fuzz_dir_path, '/');
	int dfd;

	/* the target's own directory: removed whole, links not followed */
	*slash = '\0';
	dfd = open(fuzz_dir_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		saferm_at(dfd, slash + 1);
		close(dfd);
	}
}

static inline const char *fuzz_dir(void)
{
	const char *tmp = getenv("TMPDIR");

	if (fuzz_dir_path[0])
		return fuzz_dir_path;
	snprintf(fuzz_dir_path, sizeof(fuzz_dir_path), "%s/devns-fuzz.XXXXXX",
		 tmp && *tmp && strlen(tmp) < 32 ? tmp : "/tmp");
	/* mkdtemp's 0700, then 0755: the CDI loader wants root's, not
	 * writable by others, which a plain directory of root is */
	if (!mkdtemp(fuzz_dir_path) || chmod(fuzz_dir_path, 0755) < 0) {
		perror("fuzz: mkdtemp");
		abort();
	}
	atexit(fuzz_dir_remove);
	return fuzz_dir_path;
}

/*
 * Writes len bytes of text into the file name of the private directory
 * (replacing it), mode 0644, and its path into path[len].
 */
static inline void fuzz_write(const char *name, const char *text,
			      size_t len, char *path, size_t path_len)
{
	int fd;

	snprintf(path, path_len, "%s/%s", fuzz_dir(), name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		  0644);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len || close(fd) < 0) {
		perror(path);
		abort();
	}
}

#endif /* DEVNS_FUZZ_H */
