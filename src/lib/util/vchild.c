/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vchild.c - a vfork()-like child that runs a function.  See vchild.h.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/vchild.h"

/*
 * Under ASan the child's frames poison the stack's shadow, and a child
 * that ends inside a frame leaves it poisoned: the next mapping at that
 * address would then report the next child's locals as out of scope.
 */
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#define unpoison_stack(p, n) __asan_unpoison_memory_region(p, n)
#else
#define unpoison_stack(p, n) ((void)(p), (void)(n))
#endif

/*
 * The child's stack.  What runs there is a few system calls deep, but
 * under ASan every frame carries redzones: room to spare, of which only
 * the pages touched are ever backed.  A guard page below it turns an
 * overflow into the child's SIGSEGV instead of a write into the caller.
 */
#define VCHILD_STACK_SIZE (256 * 1024)
#define VCHILD_GUARD_SIZE 4096

struct vchild_start {
	int (*fn)(void *);
	void *arg;
	sigset_t mask;		/* the caller's, restored in the child */
	bool blocked;		/* vchild_run_blocked: kept all blocked */
};

/* A handler of the caller would run on the caller's memory: none may. */
static void reset_handlers(void)
{
	struct sigaction sa;

	for (int sig = 1; sig < NSIG; sig++) {
		if (sigaction(sig, NULL, &sa) < 0 ||
		    sa.sa_handler == SIG_DFL || sa.sa_handler == SIG_IGN)
			continue;
		sa.sa_handler = SIG_DFL;
		sa.sa_flags = 0;
		sigemptyset(&sa.sa_mask);
		(void)sigaction(sig, &sa, NULL);
	}
}

/* Returning ends the child: clone(2)'s wrapper exits with the value. */
static int child_start(void *arg)
{
	const struct vchild_start *start = arg;

	/* Nothing can be delivered: no handler to reset. */
	if (start->blocked)
		return start->fn(start->arg);
	reset_handlers();
	(void)sigprocmask(SIG_SETMASK, &start->mask, NULL);
	return start->fn(start->arg);
}

static pid_t run(int (*fn)(void *), void *arg, bool blocked)
{
	const size_t size = VCHILD_GUARD_SIZE + VCHILD_STACK_SIZE;
	struct vchild_start start = { .fn = fn, .arg = arg,
				      .blocked = blocked };
	sigset_t all;
	char *stack;
	pid_t pid;
	int saved;

	stack = mmap(NULL, size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return -1;
	if (mprotect(stack, VCHILD_GUARD_SIZE, PROT_NONE) < 0)
		goto error;
	/* Nothing may reach the child before it has reset the handlers. */
	sigfillset(&all);
	if ((errno = pthread_sigmask(SIG_BLOCK, &all, &start.mask)))
		goto error;
	pid = clone(child_start, stack + size,
		    CLONE_VM | CLONE_VFORK | SIGCHLD, &start);
	saved = errno;
	(void)pthread_sigmask(SIG_SETMASK, &start.mask, NULL);
	unpoison_stack(stack + VCHILD_GUARD_SIZE, VCHILD_STACK_SIZE);
	munmap(stack, size);
	errno = saved;
	return pid;
error:
	saved = errno;
	munmap(stack, size);
	errno = saved;
	return -1;
}

pid_t vchild_run(int (*fn)(void *), void *arg)
{
	return run(fn, arg, false);
}

pid_t vchild_run_blocked(int (*fn)(void *), void *arg)
{
	return run(fn, arg, true);
}
