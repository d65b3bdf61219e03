/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fdpass.h - one message and the file descriptors riding along with it
 * (SCM_RIGHTS) over a unix socket: how the short-lived children that
 * enter a job's namespace hand back what they opened there.
 */
#ifndef DEVNS_FDPASS_H
#define DEVNS_FDPASS_H

#include <stddef.h>
#include <sys/types.h>

/* The most fds one message carries. */
#define FDPASS_MAX_FDS 64

/*
 * Sends buf[len] with fds[nfds] (nfds <= FDPASS_MAX_FDS; 0: none) as one
 * message, never raising SIGPIPE.  Returns what sendmsg(2) returns.
 */
ssize_t fdpass_send(int sock, const void *buf, size_t len, const int *fds,
		    size_t nfds);

/*
 * Receives one message into buf[len] (retrying EINTR) and the fds that
 * came with it, close-on-exec, into fds[max]; *nfds says how many.  An fd
 * beyond max is closed.  Returns the message's length, or -1 with errno
 * (then *nfds is 0).
 */
ssize_t fdpass_recv(int sock, void *buf, size_t len, int *fds, size_t max,
		    size_t *nfds);

#endif /* DEVNS_FDPASS_H */
