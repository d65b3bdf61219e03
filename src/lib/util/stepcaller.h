/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stepcaller.h - who may be asking a slurmstepd's request thread, told
 * from the process's own sockets and threads, without Slurm.
 *
 * A slurmstepd listens on a unix socket that any local user may connect
 * to (mode 0777), accepts each connection and serves it in a thread of
 * its own, which reads one request after another with read(2).  Slurm
 * checks no uid before it asks the job_container plugin for the job's
 * mount-namespace fd (REQUEST_GET_NS_FD; the plugin's call gets only the
 * job id), so any user could hold any job's namespace.  The plugin cannot
 * see the connection it answers; this narrows it down: the connections
 * the calling thread may be serving are the accepted unix connections of
 * the process (stream sockets bound to a name, not listening) that no
 * other thread is blocked reading (/proc/self/task/<tid>/syscall: a
 * thread waiting for its connection's next request).  The caller's own
 * connection is always among them: the caller is running, not blocked,
 * and no other thread reads its connection.  So when every one of them
 * has a peer (SO_PEERCRED: the process that connected) that is root or
 * the job's owner, so has the caller's; when one does not, the request
 * may be that user's, and is refused.
 *
 * Nothing here waits on anything a user controls: the scan reads this
 * process's /proc and asks the kernel about its own sockets.  A user who
 * keeps requests of their own in flight (each is refused) can make a
 * concurrent root request look ambiguous too: stepcaller_check scans a
 * few times, a few milliseconds apart, and then refuses.  That costs an
 * adoption, never hands the fd to the wrong user.
 */
#ifndef DEVNS_STEPCALLER_H
#define DEVNS_STEPCALLER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* One connection the caller may be serving. */
struct stepcaller_peer {
	int fd;		/* the accepted socket in this process, -1: none */
	uid_t uid;	/* its peer's, when it connected (SO_PEERCRED) */
	pid_t pid;
};

/* No owner known: only root is allowed. */
#define STEPCALLER_NO_OWNER ((uid_t)-1)

/*
 * The connections the calling thread may be serving, into peers (at most
 * max; *n counts them all): every AF_UNIX stream socket of the process
 * that is bound to a name and not listening (an accepted connection; a
 * client socket has no name), less those another thread of the process
 * is blocked reading (read, readv, recvfrom, recvmsg).  Returns 0, or -1
 * with errno when /proc/self/fd cannot be read.
 */
int stepcaller_scan(struct stepcaller_peer *peers, size_t max, size_t *n);

/*
 * The decision on a scan: 1 when there is at least one connection and
 * every one's peer is root or owner (STEPCALLER_NO_OWNER: root only),
 * 0 otherwise, with the index of the first other peer in *bad (n when
 * there is no connection at all).  all_bad: every connection's peer is
 * another user (the caller's is then surely one).
 */
int stepcaller_judge(const struct stepcaller_peer *peers, size_t n,
		     uid_t owner, size_t *bad, bool *all_bad);

/*
 * Whether the calling thread, a slurmstepd's request thread, may hand
 * the job's namespace to its caller: scans and judges, again up to
 * STEPCALLER_TRIES times STEPCALLER_PAUSE_MS apart while the answer is
 * ambiguous (other users' connections beside root's or the owner's).
 * Returns 1 (allowed), 0 (refused: *bad is a connection of another user,
 * fd -1 when no connection was found at all, which also refuses: the
 * caller is not a connection this can see), or -1 with errno.
 */
#define STEPCALLER_TRIES 5
#define STEPCALLER_PAUSE_MS 2
int stepcaller_check(uid_t owner, struct stepcaller_peer *bad);

#endif /* DEVNS_STEPCALLER_H */
