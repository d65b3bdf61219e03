/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vchild.h - run a function in a short-lived child process that shares
 * the caller's memory, the calling thread suspended until the child ends:
 * vfork(2), done with clone(2) so that the child runs a function on a
 * stack of its own.
 *
 * Why not fork(): fork() copies the caller's page tables, at a cost that
 * grows with the caller's size (measured on the development VM: 0.2 ms for
 * a small process, 2.2 ms for one of 50 MB), and slurmd and slurmstepd are
 * not small; a child that shares memory costs about 0.04 ms whatever the
 * caller's size.  The child has its own file descriptor table, fs (root,
 * cwd) and namespaces: what it unshares, enters or closes leaves the
 * caller as it was.
 *
 * What the child may do: system calls, and reading or writing memory
 * prepared before the call (it runs while the caller's other threads do).
 * No malloc, no stdio, no locks: glibc's posix_spawn child lives by the
 * same rules.  Signals cannot run a handler of the caller in it: they are
 * blocked across the clone, and the child resets every handler to the
 * default before it restores the caller's mask.
 */
#ifndef DEVNS_VCHILD_H
#define DEVNS_VCHILD_H

#include <sys/types.h>

/*
 * Run fn(arg) in such a child and return once it has ended: fn returns
 * its exit status (an _exit() works too, but under ASan a return keeps
 * the sanitizer from warning about a stack it does not know).  Returns the
 * child's PID, for the caller to reap with waitpid(), or -1 with errno.
 * Safe in any thread of a multithreaded process.
 */
pid_t vchild_run(int (*fn)(void *), void *arg);

/*
 * vchild_run(), the child keeping every signal blocked from start to end
 * (SIGKILL and SIGSTOP aside, which run no handler): no handler of the
 * caller can run in it, so none is reset, which took a system call per
 * signal (64, twice per job's namespace).  A fault in it still kills it
 * (the kernel unblocks a synchronous signal and gives it its default).
 * For a child that only makes system calls and ends: one that execs
 * (its program would inherit the mask) or waits for a signal takes
 * vchild_run().
 */
pid_t vchild_run_blocked(int (*fn)(void *), void *arg);

#endif
