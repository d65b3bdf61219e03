/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsfdmap.h - hand a job's namespace fds to a receiver that owns what it
 * gets.
 *
 * pam_slurm_adopt's login enters a job's namespaces through fds that the
 * extern slurmstepd sends it (namespace_p_join_external).  The stepd keeps
 * its own fds on them open for the job's life (opened once, made to name
 * /dev/null at the teardown), so the namespaces must never be opened
 * again by path while a login runs.  From Slurm 26.11 the receiver closes
 * each fd it was handed and frees each entry: what it gets must be a
 * duplicate, never the cached fd itself, or the first login would close
 * the cache and the next one would get a stale or reused number.
 */
#ifndef DEVNS_NSFDMAP_H
#define DEVNS_NSFDMAP_H

#include <stddef.h>

/* One namespace: its CLONE_NEW* type and an fd on it. */
struct nsfd {
	int nstype;
	int fd;
};

/*
 * The receiver: returns 0 when it took nstype and fd, which it owns from
 * then on (it closes fd), or -1 with errno when it did not (fd is then
 * closed by nsfdmap_hand).
 */
typedef int (*nsfdmap_take_fn)(int nstype, int fd, void *arg);

/*
 * Hands each of the n cached namespaces in order to take(): a duplicate
 * of its fd (close-on-exec: the stepd forks tasks, and the duplicate must
 * not outlive the handing in any of them) with its type.  An entry whose
 * fd is negative is skipped.  The cached fds are left open and unchanged.
 * Returns the number of fds handed, or -1 with errno when a duplicate
 * cannot be made or take() fails: the fds handed before stay the
 * receiver's (it frees them as it frees the rest), none is left open here.
 */
int nsfdmap_hand(const struct nsfd *cached, size_t n, nsfdmap_take_fn take,
		 void *arg);

#endif /* DEVNS_NSFDMAP_H */
