/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fdpass.c - a message with file descriptors.  See fdpass.h.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "util/fdpass.h"

/* Room for the largest control message. */
union fdpass_ctl {
	char buf[CMSG_SPACE(sizeof(int) * FDPASS_MAX_FDS)];
	struct cmsghdr align;
};

ssize_t fdpass_send(int sock, const void *buf, size_t len, const int *fds,
		    size_t nfds)
{
	union fdpass_ctl ctl;
	struct iovec iov = { (void *)buf, len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cmsg;

	if (nfds > FDPASS_MAX_FDS) {
		errno = EINVAL;
		return -1;
	}
	if (nfds) {
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(cmsg), fds, sizeof(int) * nfds);
	}
	return sendmsg(sock, &msg, MSG_NOSIGNAL);
}

/* Takes the fds of one SCM_RIGHTS message into fds[max], closing the rest. */
static void take_fds(const struct cmsghdr *cmsg, int *fds, size_t max,
		     size_t *nfds)
{
	size_t count = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);

	for (size_t i = 0; i < count; i++) {
		int fd;

		memcpy(&fd, CMSG_DATA(cmsg) + i * sizeof(int), sizeof(int));
		if (*nfds < max)
			fds[(*nfds)++] = fd;
		else
			close(fd);
	}
}

ssize_t fdpass_recv(int sock, void *buf, size_t len, int *fds, size_t max,
		    size_t *nfds)
{
	union fdpass_ctl ctl;
	struct iovec iov = { buf, len };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl.buf,
		.msg_controllen = sizeof(ctl.buf),
	};
	struct cmsghdr *cmsg;
	ssize_t n;

	*nfds = 0;
	while ((n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC)) < 0 &&
	       errno == EINTR)
		;
	for (cmsg = n >= 0 ? CMSG_FIRSTHDR(&msg) : NULL; cmsg;
	     cmsg = CMSG_NXTHDR(&msg, cmsg))
		if (cmsg->cmsg_level == SOL_SOCKET &&
		    cmsg->cmsg_type == SCM_RIGHTS)
			take_fds(cmsg, fds, max, nfds);
	return n;
}
