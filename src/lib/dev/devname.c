/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devname.c - device numbers back to device file names.  See devname.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "devname.h"
#include "util/safepath.h"

void devnames_init(struct devnames *d)
{
	memset(d, 0, sizeof(*d));
}

void devnames_free(struct devnames *d)
{
	for (size_t i = 0; i < d->count; i++)
		free(d->names[i].path);
	free(d->names);
	devnames_init(d);
}

static struct devname *lookup(const struct devnames *d, char type,
			      uint32_t major, uint32_t minor)
{
	for (size_t i = 0; i < d->count; i++)
		if (d->names[i].type == type && d->names[i].major == major &&
		    d->names[i].minor == minor)
			return &d->names[i];
	return NULL;
}

/* Whether a name of rank rank beats the one known (see devname.h). */
static bool better(const struct devname *known, int rank, const char *path)
{
	return rank < known->rank ||
	       (rank == known->rank && strcmp(path, known->path) < 0);
}

/* Records st's device as path, unless a better name is known. */
static int record(struct devnames *d, const struct stat *st, int rank,
		  const char *path)
{
	char type = S_ISCHR(st->st_mode) ? 'c' : 'b';
	struct devname *n = lookup(d, type, major(st->st_rdev),
				   minor(st->st_rdev));
	char *copy;

	if (!S_ISCHR(st->st_mode) && !S_ISBLK(st->st_mode))
		return 0;
	if (n && !better(n, rank, path))
		return 0;
	if (!(copy = strdup(path)))
		return -1;
	if (!n) {
		if (d->count == d->alloc) {
			size_t alloc = d->alloc ? 2 * d->alloc : 64;
			struct devname *names = realloc(d->names,
							alloc * sizeof(*names));

			if (!names) {
				free(copy);
				return -1;
			}
			d->names = names;
			d->alloc = alloc;
		}
		n = &d->names[d->count++];
		n->path = NULL;
	}
	free(n->path);
	*n = (struct devname){ .type = type, .major = major(st->st_rdev),
			       .minor = minor(st->st_rdev), .rank = rank,
			       .path = copy };
	return 0;
}

int devnames_add(struct devnames *d, const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return 0;
	return record(d, &st, 0, path);
}

/*
 * The devices in the directory dir_fd (path names it), and, while depth
 * is 1, those of its subdirectories that only root may write to.
 */
static int scan_at(struct devnames *d, int dir_fd, const char *path,
		   int depth)
{
	char name[PATH_MAX];
	struct dirent *e;
	struct stat st;
	int rc = 0, fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;

	if (!dir) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while (rc == 0 && (e = readdir(dir))) {
		if (e->d_name[0] == '.' ||
		    fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    snprintf(name, sizeof(name), "%s/%s", path,
			     e->d_name) >= (int)sizeof(name))
			continue;
		if (S_ISDIR(st.st_mode) && depth == 1 &&
		    !(st.st_mode & (S_IWGRP | S_IWOTH))) {
			int sub = openat(fd, e->d_name, O_PATH | O_DIRECTORY |
					 O_NOFOLLOW | O_CLOEXEC);

			/* an unreadable subdirectory names nothing */
			if (sub >= 0 && scan_at(d, sub, name, 2) < 0 &&
			    errno == ENOMEM)
				rc = -1;
			if (sub >= 0)
				close(sub);
		} else if (record(d, &st, depth, name) < 0) {
			rc = -1;
		}
	}
	closedir(dir);
	return rc;
}

int devnames_scan(struct devnames *d, const char *dir)
{
	int fd = safepath_open(dir), rc;

	if (fd < 0)
		return -1;
	rc = scan_at(d, fd, dir, 1);
	close(fd);
	return rc;
}

const char *devnames_find(const struct devnames *d, char type,
			  uint32_t major, uint32_t minor)
{
	const struct devname *n = lookup(d, type, major, minor);

	return n ? n->path : NULL;
}
