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
