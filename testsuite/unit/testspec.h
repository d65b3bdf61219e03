/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * testspec.h - mntns_create() for a job whose private directories are
 * plain paths, as the tests write them: /dev/shm a tmpfs of shm_size
 * bytes (0: tmpfs's default), /tmp a tmpfs of tmp_size bytes when that is
 * set, every other path a backing directory in BasePath/<jobid>, all
 * with nosuid and nodev.  The library takes only spec->dir_list, which
 * jobct fills from the node's settings.
 */
#ifndef DEVNS_TESTSPEC_H
#define DEVNS_TESTSPEC_H

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "conf/nsconf.h"
#include "ns/mntns.h"

static inline int testspec_create(struct mntns_spec *spec,
				  const char *const *paths, uint64_t shm_size,
				  uint64_t tmp_size, struct report *rep)
{
	struct mntns_dir list[NSCONF_MAX_DIRS + 1];
	size_t n = 0;

	memset(list, 0, sizeof(list));
	for (; paths && *paths && n <= NSCONF_MAX_DIRS; paths++, n++) {
		list[n].path = *paths;
		list[n].options = NSCONF_OPT_ALWAYS;
		if (!strcmp(*paths, "/dev/shm")) {
			list[n].tmpfs = true;
			list[n].size = shm_size;
		} else if (!strcmp(*paths, "/tmp") && tmp_size) {
			list[n].tmpfs = true;
			list[n].size = tmp_size;
		}
	}
	spec->dir_list = list;
	spec->dir_count = n;
	return mntns_create(spec, rep);
}

#endif /* DEVNS_TESTSPEC_H */
