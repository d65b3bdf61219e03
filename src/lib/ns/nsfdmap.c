/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsfdmap.c - hand a job's namespace fds to a receiver that owns them.
 * See nsfdmap.h.
 */
#include <errno.h>
#include <fcntl.h>

#include "ns/nsfdmap.h"
#include "util/fdutil.h"

int nsfdmap_hand(const struct nsfd *cached, size_t n, nsfdmap_take_fn take,
		 void *arg)
{
	int handed = 0;

	for (size_t i = 0; i < n; i++) {
		int fd;

		if (cached[i].fd < 0)
			continue;
		/* Above 2: a receiver's stdio is never taken by accident. */
		if ((fd = fcntl(cached[i].fd, F_DUPFD_CLOEXEC, 3)) < 0)
			return -1;
		if (take(cached[i].nstype, fd, arg) < 0) {
			fdutil_close(fd);
			return -1;
		}
		handed++;
	}
	return handed;
}
