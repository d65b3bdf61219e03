/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pidns_fork.c - the stand-in, its child inside the job's PID namespace
 * and the guard that kills the child when the stand-in is killed.
 *
 * Order matters.  The guard is forked first, while the caller's children
 * are still born in the host's namespace, so that it sees the child by
 * its host PID, and before the stand-in makes its own process group, so
 * that a killpg() of that group spares it.  The child is forked next, inside, and waits until the
 * guard holds a pidfd of it: a stand-in killed before that leaves a child
 * that ends itself instead of running unguarded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ns/pidns.h"
#include "ns/pidns_fork.h"
#include "util/fdpass.h"
#include "util/fdutil.h"

/* The stand-in's last word to the guard: the child ended, nothing to do. */
#define GUARD_CHILD_ENDED 'e'

/* A signal to the child, by pidfd when the kernel has them. */
static int signal_child(pid_t pid, int pidfd, int signo)
{
	if (pidfd >= 0)
		return pidfd_send_signal(pidfd, signo, NULL, 0);
	return kill(pid, signo);
}

/*
 * What killpg(stand-in) would have done to the child born in its place.
 * Stopped first: a stopped process cannot exit, so while the group is
 * killed the child's PID, and the group it may lead, name nothing else.
 * Without pidfds (Linux before 5.3) the child's PID has to do.
 */
static void kill_child(pid_t pid, int pidfd)
{
	if (signal_child(pid, pidfd, SIGSTOP) < 0)
		return;		/* gone already */
	if (getpgid(pid) == pid)
		kill(-pid, SIGKILL);
	signal_child(pid, pidfd, SIGKILL);
}

/*
 * The guard: stays root and outside, holds nothing of the job's but the
 * socket to the stand-in.  Learns the child, then waits for the stand-in's
 * end: a clean end says so first; a killed stand-in says nothing.
 */
static _Noreturn void guard_main(int sock)
{
	pid_t child;
	size_t nfds;
	int pidfd = -1;
	char word = 0;

	prctl(PR_SET_NAME, PIDNS_GUARD_NAME, 0, 0, 0);
	if (dup2(sock, 0) < 0)
		_exit(1);
	close_range(1, ~0U, 0);
	if (fdpass_recv(0, &child, sizeof(child), &pidfd, 1, &nfds) !=
	    sizeof(child))
		_exit(0);	/* no child went on: nothing to guard */
	if (nfds == 0)
		pidfd = -1;
	if (read(0, &word, 1) == 1 && word == GUARD_CHILD_ENDED)
		_exit(0);
	kill_child(child, pidfd);
	_exit(0);
}

/* Hand the guard the child, by PID and by pidfd. */
static int guard_learn(int sock, pid_t child)
{
	int pidfd = pidfd_open(child, 0);
	ssize_t n;
	int saved;

	if (pidfd < 0 && errno != ENOSYS)
		return -1;
	n = fdpass_send(sock, &child, sizeof(child), &pidfd, pidfd >= 0);
	saved = errno;
	if (pidfd >= 0)
		close(pidfd);
	errno = saved;
	return n == sizeof(child) ? 0 : -1;
}

/*
 * The child, until it goes on as the job's process: it holds no end of
 * the guard's socket (the guard must see the stand-in's end), and waits
 * for the stand-in's word that the guard knows it.
 */
static int child_start(int guard_sock, int go[2], const sigset_t *old)
{
	char c;

	close(guard_sock);
	close(go[1]);
	/* Until slurmstepd drops privileges, the kernel kills us too. */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (read(go[0], &c, 1) != 1)
		_exit(127);	/* the stand-in died before the guard knew us */
	close(go[0]);
	sigprocmask(SIG_SETMASK, old, NULL);
	return 0;
}

/* The stand-in's end: as the child ended, by its exit status or signal. */
static _Noreturn void end_like(int status)
{
	sigset_t sig;
	int signo;

	if (WIFEXITED(status))
		_exit(WEXITSTATUS(status));
	signo = WTERMSIG(status);
	/* no core of the stand-in: the child's was the one that counts */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	signal(signo, SIG_DFL);
	sigemptyset(&sig);
	sigaddset(&sig, signo);
	sigprocmask(SIG_UNBLOCK, &sig, NULL);
	raise(signo);
	_exit(128 + signo);
}

/*
 * Forward what the stand-in gets to the child until the child ends, then
 * tell the guard and end the same way.
 */
static _Noreturn void stand_in(pid_t child, const sigset_t *all,
			       int guard_sock)
{
	const char ended = GUARD_CHILD_ENDED;
	int status;

	for (;;) {
		int signo = sigwaitinfo(all, NULL);

		if (signo < 0)
			continue;
		if (signo != SIGCHLD) {
			kill(child, signo);
			continue;
		}
		if (waitpid(child, &status, WNOHANG) == child)
			break;
	}
	(void)!send(guard_sock, &ended, 1, MSG_NOSIGNAL);
	end_like(status);
}

/* Undo a guard that has nothing to guard: it ends on the socket's close. */
static void guard_dismiss(int sock, pid_t guard)
{
	close(sock);
	while (waitpid(guard, NULL, 0) < 0 && errno == EINTR)
		;
}

int pidns_fork_inside(const char *base_path, uint32_t job_id)
{
	int sock[2], go[2] = { -1, -1 };
	sigset_t all, old;
	pid_t guard, child;
	int saved;

	/* Nothing may arrive unforwarded between fork and sigwaitinfo. */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sock) < 0)
		goto error;
	guard = fork();
	if (guard == 0)
		guard_main(sock[1]);
	fdutil_close(sock[1]);
	if (guard < 0) {
		close(sock[0]);
		goto error;
	}
	/*
	 * The stand-in leads a process group of its own, as the process it
	 * stands for would once it called setpgid(0, 0): slurmstepd kills a
	 * task epilog past its timeout with killpg() on its PID, which must
	 * reach the stand-in (the guard, forked before, stays outside the
	 * group).  A session leader cannot, and needs not.
	 */
	(void)setpgid(0, 0);
	if (pidns_enter_for_children(base_path, job_id) < 0)
		goto error_guard;
	if (pipe2(go, O_CLOEXEC) < 0 || (child = fork()) < 0)
		goto error_entered;
	if (child == 0)
		return child_start(sock[0], go, &old);
	close(go[0]);
	go[0] = -1;
	/* A child the guard does not know ends on the pipe's close. */
	if (guard_learn(sock[0], child) < 0 || write(go[1], "g", 1) != 1) {
		saved = errno;
		close(go[1]);
		go[1] = -1;
		waitpid(child, NULL, 0);
		errno = saved;
		goto error_entered;
	}
	close(go[1]);
	stand_in(child, &all, sock[0]);

error_entered:
	saved = errno;
	if (go[0] >= 0)
		close(go[0]);
	if (go[1] >= 0)
		close(go[1]);
	pidns_leave_for_children();
	errno = saved;
error_guard:
	saved = errno;
	guard_dismiss(sock[0], guard);
	errno = saved;
error:
	saved = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = saved;
	return -1;
}
