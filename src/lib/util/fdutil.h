/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fdutil.h - small file descriptor helpers every library shares.
 */
#ifndef DEVNS_FDUTIL_H
#define DEVNS_FDUTIL_H

/*
 * Closes fd when it is >= 0 and leaves errno as it was: for the cleanup
 * of an error path, whose caller wants the first failure's errno.
 */
void fdutil_close(int fd);

#endif /* DEVNS_FDUTIL_H */
