/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsfd_ask - ask a slurmstepd for its job's mount-namespace fd, as any
 * local user can (Slurm's stepd socket is 0777), with Slurm's own
 * protocol (stepd_connect's handshake, then stepd_get_namespace_fd's
 * REQUEST_GET_NS_FD), without linking Slurm.
 *
 * Usage: nsfd_ask SOCKET PROTOCOL_VERSION [REQUEST]
 *   SOCKET            the stepd's socket, SlurmdSpoolDir/<node>_<job>.<step>
 *   PROTOCOL_VERSION  the client's, e.g. 9728 for 22.05 ((38 << 8) | 0)
 *   REQUEST           REQUEST_GET_NS_FD's number (26 from 22.05 to 25.05)
 * Prints "fd mnt:[N]" (exit 0) when handed a namespace (N: its inode, as
 * readlink /proc/PID/ns/mnt names it), "none" (exit 2)
 * for Slurm's 0 (no namespace), "refused" (exit 1) for -1 or a connection
 * closed without an answer; other errors exit 3.  Never waits more than
 * 10 s for an answer.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

static int read_int(int fd, int *v)
{
	size_t got = 0;

	while (got < sizeof(*v)) {
		ssize_t n = read(fd, (char *)v + got, sizeof(*v) - got);

		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

static int write_int(int fd, int v)
{
	return write(fd, &v, sizeof(v)) == (ssize_t)sizeof(v) ? 0 : -1;
}

/* The fd Slurm's send_fd_over_pipe sends: one byte with SCM_RIGHTS. */
static int recv_fd(int sock)
{
	char c, buf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &c, 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = buf, .msg_controllen = sizeof(buf),
	};
	struct cmsghdr *cmsg;
	int fd;

	if (recvmsg(sock, &msg, 0) <= 0 || !(cmsg = CMSG_FIRSTHDR(&msg)) ||
	    cmsg->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cmsg), sizeof(fd));
	return fd;
}

int main(int argc, char **argv)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 10 };
	struct stat st;
	int sock, rc, ns, fd;

	if (argc < 3) {
		fprintf(stderr, "usage: %s SOCKET PROTOCOL_VERSION [REQUEST]\n",
			argv[0]);
		return 3;
	}
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", argv[1]);
	if ((sock = socket(AF_UNIX, SOCK_STREAM, 0)) < 0 ||
	    setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    connect(sock, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		fprintf(stderr, "nsfd_ask: %s: %s\n", argv[1], strerror(errno));
		return 3;
	}
	if (write_int(sock, atoi(argv[2])) < 0 || read_int(sock, &rc) < 0 ||
	    rc < 0) {
		fprintf(stderr, "nsfd_ask: the stepd refused the handshake\n");
		return 3;
	}
	if (write_int(sock, argc > 3 ? atoi(argv[3]) : 26) < 0)
		return 3;
	if (read_int(sock, &ns) < 0 || ns < 0) {
		printf("refused\n");
		return 1;
	}
	if (ns == 0) {
		printf("none\n");
		return 2;
	}
	if ((fd = recv_fd(sock)) < 0) {
		printf("refused\n");
		return 1;
	}
	/* The namespace's own inode: an fd of a pin names the pin's path. */
	if (fstat(fd, &st) < 0)
		return 3;
	printf("fd mnt:[%ju]\n", (uintmax_t)st.st_ino);
	return 0;
}
