/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsreap.c - the end of a job's namespace, left to slurmd's pool keeper.
 *
 * One request is one datagram: the reap name as its bytes and the
 * namespace as one SCM_RIGHTS fd.  A file in flight, or queued, holds the
 * namespace, so that whatever still runs in it is killed by the reaper
 * and not left to die with the last reference.  The socket is reached as
 * /proc/self/fd/<BasePath fd>/.reaper, so BasePath is resolved once,
 * without following links (safepath).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "conf/jobdir.h"
#include "ns/mntns.h"
#include "ns/nsreap.h"
#include "util/safepath.h"

/* A reap name: ".reap-" + job id + "-" + an inode number. */
#define REAP_NAME_MAX 64

/* The socket's address through an fd of BasePath. */
static void socket_address(struct sockaddr_un *addr, int basefd)
{
	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	snprintf(addr->sun_path, sizeof(addr->sun_path),
		 "/proc/self/fd/%d/" JOBDIR_REAPER_SOCKET, basefd);
}

/*
 * Asks the reaper listening in BasePath to reap BasePath/name (a reap
 * name) and the namespace ns_fd (which stays the caller's to close): the
 * mntns_reaper_f of nsreap_delete.  Returns 0 when the reaper has the
 * request, or -1 with errno (ENOENT or ECONNREFUSED: no reaper; EAGAIN:
 * its queue is full) and the work is the caller's.
 */
static int send_request(const char *base_path, const char *name, int ns_fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct sockaddr_un addr;
	struct iovec iov = { (void *)name, strlen(name) };
	struct msghdr msg = {
		.msg_name = &addr, .msg_namelen = sizeof(addr),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
	};
	struct cmsghdr *cmsg;
	int basefd, sock, rc = -1, saved;

	if ((basefd = safepath_open(base_path)) < 0)
		return -1;
	if ((sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		goto out;
	socket_address(&addr, basefd);
	memset(&ctl, 0, sizeof(ctl));
	cmsg = CMSG_FIRSTHDR(&msg);
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &ns_fd, sizeof(int));
	/* Never wait for the reaper: a full queue is the sender's work. */
	if (sendmsg(sock, &msg, MSG_DONTWAIT | MSG_NOSIGNAL) ==
	    (ssize_t)iov.iov_len)
		rc = 0;
out:
	saved = errno;
	if (sock >= 0)
		close(sock);
	close(basefd);
	errno = saved;
	return rc;
}

/* Remove a socket an earlier listener left; anything else stays. */
static int remove_stale_socket(int basefd)
{
	struct stat st;

	if (fstatat(basefd, JOBDIR_REAPER_SOCKET, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISSOCK(st.st_mode)) {
		errno = EEXIST;
		return -1;
	}
	return unlinkat(basefd, JOBDIR_REAPER_SOCKET, 0);
}

int nsreap_listen(const char *base_path)
{
	struct sockaddr_un addr;
	int basefd, sock = -1, one = 1, saved;

	if ((basefd = safepath_open(base_path)) < 0)
		return -1;
	if (remove_stale_socket(basefd) < 0 ||
	    (sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			   0)) < 0)
		goto error;
	socket_address(&addr, basefd);
	if (setsockopt(sock, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0 ||
	    bind(sock, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		goto error;
	/* Root's alone: only who may write the socket may send to it. */
	if (fchmodat(basefd, JOBDIR_REAPER_SOCKET, 0600, 0) < 0) {
		saved = errno;
		unlinkat(basefd, JOBDIR_REAPER_SOCKET, 0);
		errno = saved;
		goto error;
	}
	close(basefd);
	return sock;
error:
	saved = errno;
	if (sock >= 0)
		close(sock);
	close(basefd);
	errno = saved;
	return -1;
}

/*
 * The request's fd and whether its sender is root, from the control
 * messages; every other fd that came along is closed.  -1 when none.
 */
static int request_fd(struct msghdr *msg, bool *root)
{
	int fd = -1;

	*root = false;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c;
	     c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level != SOL_SOCKET)
			continue;
		if (c->cmsg_type == SCM_CREDENTIALS &&
		    c->cmsg_len >= CMSG_LEN(sizeof(struct ucred))) {
			struct ucred cred;

			memcpy(&cred, CMSG_DATA(c), sizeof(cred));
			*root = cred.uid == 0;
		} else if (c->cmsg_type == SCM_RIGHTS) {
			size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			for (size_t i = 0; i < n; i++) {
				int got;

				memcpy(&got, CMSG_DATA(c) + i * sizeof(int),
				       sizeof(int));
				if (fd < 0)
					fd = got;
				else
					close(got);
			}
		}
	}
	return fd;
}

/*
 * Receive one request: its name into name[REAP_NAME_MAX] and its fd.
 * Returns 1 for a request to do, 0 for one refused (reported), -1 with
 * errno EAGAIN when the queue is empty.
 */
static int receive(int sock, char *name, int *fd, struct report *rep)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct ucred)) +
			 CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { name, REAP_NAME_MAX - 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
	};
	ssize_t n = recvmsg(sock, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	bool root;

	if (n < 0)
		return -1;
	name[n] = '\0';
	*fd = request_fd(&msg, &root);
	if (root && *fd >= 0 && !(msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) &&
	    jobdir_is_reap_name(name))
		return 1;
	if (*fd >= 0)
		close(*fd);
	report_warning(rep, "reaper: ignoring a request that is not root's "
		       "or not a job's (\"%.*s\")", (int)n, name);
	return 0;
}

int nsreap_drain(int sock, const char *base_path, struct report *rep)
{
	char name[REAP_NAME_MAX];
	int taken = 0, fd, got;

	while ((got = receive(sock, name, &fd, rep)) >= 0) {
		if (!got)
			continue;
		taken++;
		if (mntns_reap(base_path, name, fd) < 0)
			report_errno(rep, errno, "removing %s/%s", base_path,
				     name);
		else
			report_info(rep, "reaped %s/%s", base_path, name);
	}
	if (errno != EAGAIN && errno != EWOULDBLOCK)
		report_errno(rep, errno, "reading %s/" JOBDIR_REAPER_SOCKET,
			     base_path);
	return taken;
}

void nsreap_close(int sock, const char *base_path, struct report *rep)
{
	int basefd = safepath_open(base_path);

	if (basefd >= 0) {
		remove_stale_socket(basefd);
		close(basefd);
	}
	if (sock >= 0) {
		nsreap_drain(sock, base_path, rep);
		close(sock);
	}
	nsreap_sweep(base_path, rep);
}

int nsreap_sweep(const char *base_path, struct report *rep)
{
	int basefd = safepath_open(base_path), dirfd, rc = 0;
	struct dirent *ep;
	DIR *dp;

	if (basefd < 0)
		return errno == ENOENT ? 0 :
		       report_errno(rep, errno, "opening %s", base_path);
	dirfd = openat(basefd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(basefd);
	if (dirfd < 0 || !(dp = fdopendir(dirfd))) {
		rc = report_errno(rep, errno, "reading %s", base_path);
		if (dirfd >= 0)
			close(dirfd);
		return rc;
	}
	while ((ep = readdir(dp)))
		if (jobdir_is_reap_name(ep->d_name) &&
		    mntns_reap(base_path, ep->d_name, -1) < 0)
			rc = report_errno(rep, errno, "removing %s/%s",
					  base_path, ep->d_name);
	closedir(dp);
	return rc;
}

int nsreap_delete(const char *base_path, uint32_t job_id)
{
	return mntns_delete_behind(base_path, job_id, send_request);
}
