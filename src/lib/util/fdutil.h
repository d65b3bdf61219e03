/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fdutil.h - small file descriptor helpers every library shares.
 */
#ifndef DEVNS_FDUTIL_H
#define DEVNS_FDUTIL_H

#include <stddef.h>

/*
 * Closes fd when it is >= 0 and leaves errno as it was: for the cleanup
 * of an error path, whose caller wants the first failure's errno.
 */
void fdutil_close(int fd);

/*
 * Write all len bytes of buf to fd, again after a signal or a short
 * write.  Returns 0, or -1 with errno (EIO when write(2) wrote nothing).
 */
int fdutil_write_all(int fd, const void *buf, size_t len);

#endif /* DEVNS_FDUTIL_H */
