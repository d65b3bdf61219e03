/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_vchild.c - unit tests of vchild_run(): the function runs in another
 * process that shares our memory, returns its exit status, never runs one
 * of our signal handlers, leaves our signal mask as it was, and may make a
 * mount namespace of its own while we run a second thread, leaving ours
 * as it was.
 *
 * Under valgrind a vfork is a plain fork, so the check of shared memory
 * is skipped there; every other check holds for both.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/vchild.h"
#include "tap.h"

static volatile sig_atomic_t handler_ran;
static pid_t seen_pid;
static int written;

static void on_usr1(int sig)
{
	(void)sig;
	handler_ran = 1;
}

static int note_pid(void *arg)
{
	(void)arg;
	seen_pid = getpid();
	written = 42;
	return 7;
}

static int raise_usr1(void *arg)
{
	(void)arg;
	raise(SIGUSR1);
	return 0;
}

/* 0 when the child's mount namespace differs from the inode in arg. */
static int own_mount_ns(void *arg)
{
	const ino_t *parent_ns = arg;
	struct stat st;

	if (unshare(CLONE_NEWNS) < 0)
		return 1;
	if (stat("/proc/self/ns/mnt", &st) < 0)
		return 2;
	return st.st_ino == *parent_ns ? 3 : 0;
}

/* Wait for pid; its exit status, or -1 (-signal when killed by one). */
static int reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1000;
	if (WIFSIGNALED(status))
		return -WTERMSIG(status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1000;
}

static bool under_valgrind(void)
{
	const char *wrapper = getenv("DEVNS_TOOL_WRAPPER");

	return wrapper && strstr(wrapper, "valgrind");
}

static void test_runs_in_child(void)
{
	pid_t pid = vchild_run(note_pid, NULL);

	ok(pid > 0, "vchild_run starts a child (%s)",
	   pid < 0 ? strerror(errno) : "ok");
	if (pid <= 0)
		return;
	ok(reap(pid) == 7, "its exit status is the function's return value");
	if (under_valgrind()) {
		tap_skip("shared memory: valgrind runs a vfork as a fork");
		return;
	}
	ok(written == 42 && seen_pid == pid && seen_pid != getpid(),
	   "it ran in another process (%d, we are %d) on our memory",
	   (int)seen_pid, (int)getpid());
}

static void test_signals(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	sigset_t before, after;
	pid_t pid;

	sigemptyset(&sa.sa_mask);
	ok(sigaction(SIGUSR1, &sa, NULL) == 0,
	   "precondition: our SIGUSR1 handler is set");
	sigemptyset(&before);
	sigaddset(&before, SIGUSR2);
	pthread_sigmask(SIG_SETMASK, &before, NULL);
	pid = vchild_run(raise_usr1, NULL);
	ok(pid > 0 && reap(pid) == -SIGUSR1,
	   "a signal in the child takes the default action (killed by SIGUSR1)");
	ok(!handler_ran, "our handler did not run in the child");
	pthread_sigmask(SIG_SETMASK, NULL, &after);
	ok(sigismember(&after, SIGUSR2) && !sigismember(&after, SIGUSR1) &&
	   !sigismember(&after, SIGTERM),
	   "our signal mask is as it was");
	signal(SIGUSR1, SIG_DFL);
	sigemptyset(&before);
	pthread_sigmask(SIG_SETMASK, &before, NULL);
}

static volatile sig_atomic_t ill_ran;

static void on_ill(int sig)
{
	(void)sig;
	ill_ran = 1;
}

static int trap(void *arg)
{
	(void)arg;
	__builtin_trap();
}

/*
 * vchild_run_blocked: a signal sent to the child waits, unhandled, and the
 * child ends as its function returns; a fault still kills it with the
 * default action, our handler never running.
 */
static void test_signals_blocked(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 }, ill = {
		.sa_handler = on_ill };
	sigset_t before, after;
	pid_t pid;

	handler_ran = 0;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&ill.sa_mask);
	ok(sigaction(SIGUSR1, &sa, NULL) == 0 &&
	   sigaction(SIGILL, &ill, NULL) == 0,
	   "precondition: our SIGUSR1 and SIGILL handlers are set");
	sigemptyset(&before);
	sigaddset(&before, SIGUSR2);
	pthread_sigmask(SIG_SETMASK, &before, NULL);
	pid = vchild_run_blocked(raise_usr1, NULL);
	ok(pid > 0 && reap(pid) == 0,
	   "blocked: a signal raised in the child waits, the child returns");
	ok(!handler_ran, "our handler did not run in the child");
	if (under_valgrind()) {
		/* It runs the trapping instruction again, for ever. */
		tap_skip("a fault with every signal blocked: not under valgrind");
	} else {
		pid = vchild_run_blocked(trap, NULL);
		ok(pid > 0 && reap(pid) == -SIGILL,
		   "blocked: a fault in the child still kills it (SIGILL)");
		ok(!ill_ran, "our SIGILL handler did not run in the child");
	}
	pthread_sigmask(SIG_SETMASK, NULL, &after);
	ok(sigismember(&after, SIGUSR2) && !sigismember(&after, SIGUSR1),
	   "our signal mask is as it was");
	signal(SIGUSR1, SIG_DFL);
	signal(SIGILL, SIG_DFL);
	sigemptyset(&before);
	pthread_sigmask(SIG_SETMASK, &before, NULL);
}

static void *idle_thread(void *arg)
{
	(void)arg;
	pause();
	return NULL;
}

static void test_mount_namespace(void)
{
	pthread_t thread;
	struct stat st, after;
	pid_t pid;
	int rc;

	if (!tap_root()) {
		tap_skip("a mount namespace in the child needs root");
		return;
	}
	ok(stat("/proc/self/ns/mnt", &st) == 0 &&
	   pthread_create(&thread, NULL, idle_thread, NULL) == 0,
	   "precondition: we run a second thread");
	pid = vchild_run(own_mount_ns, &st.st_ino);
	rc = pid > 0 ? reap(pid) : -1;
	ok(rc == 0, "the child makes a mount namespace of its own (%d)", rc);
	ok(stat("/proc/self/ns/mnt", &after) == 0 && after.st_ino == st.st_ino,
	   "ours is the one we had");
	pthread_cancel(thread);
	pthread_join(thread, NULL);
}

int main(void)
{
	test_runs_in_child();
	test_signals();
	test_signals_blocked();
	test_mount_namespace();
	return tap_done();
}
