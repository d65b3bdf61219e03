/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fdutil.c - small file descriptor helpers.  See fdutil.h.
 */
#include <errno.h>
#include <unistd.h>

#include "util/fdutil.h"

void fdutil_close(int fd)
{
	int saved = errno;

	if (fd >= 0)
		close(fd);
	errno = saved;
}

int fdutil_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
