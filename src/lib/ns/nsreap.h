/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsreap.h - the end of a job's namespace, left to slurmd's pool keeper.
 *
 * Dropping a job's namespace makes the kernel unmount every copy of the
 * node's mounts it holds, and removing the job's directory frees its
 * inodes on BasePath's filesystem: together about 1 ms at 1,000 host
 * mounts, at the job's end.  With NamespacePool, slurmd's keeper, which
 * copies namespaces ahead at nice 10, also drops them behind: the ending
 * job (nsreap_delete) unpins, renames its directory to a reap name
 * and sends that name with an fd of the namespace to BasePath/.reaper;
 * the keeper receives it and calls mntns_reap.
 *
 * The sender never waits and never loses the work: where nothing listens
 * or the queue is full (net.unix.max_dgram_qlen), the send fails and the
 * sender reaps itself.  Only root reaches the socket (it is 0600, in
 * BasePath), and the receiver also checks each sender's credentials.  A
 * request the keeper took but had not done when it stopped is done at its
 * stop; one a killed slurmd had queued is found by its reap name at the
 * next start (nsreap_sweep, from restore).
 */
#ifndef DEVNS_NSREAP_H
#define DEVNS_NSREAP_H

#include <stdint.h>

#include "util/report.h"

/*
 * Listen on BasePath/.reaper, replacing a socket an earlier slurmd left.
 * Returns the socket (non-blocking), or -1 with errno.
 */
int nsreap_listen(const char *base_path);

/*
 * Reap what the socket holds, without waiting for more.  What cannot be
 * removed, or a request that is not root's, is reported to rep.  Returns
 * how many requests were taken.
 */
int nsreap_drain(int sock, const char *base_path, struct report *rep);

/*
 * Stop listening: unlink BasePath/.reaper (senders then reap themselves),
 * reap what was queued, close sock, and sweep what a request lost on the
 * way left.  sock -1 only sweeps.
 */
void nsreap_close(int sock, const char *base_path, struct report *rep);

/*
 * Reap every directory of BasePath with a reap name (its namespace went
 * with the reaper that had it): at slurmd's start.  Returns 0, or -1 with
 * errno and why in rep.
 */
int nsreap_sweep(const char *base_path, struct report *rep);

/*
 * End the job's namespace, leaving the slow part to the reaper listening
 * in BasePath (mntns_delete_behind, sending it the reap name and the
 * namespace over BasePath/.reaper), or doing it all where none listens.
 * Returns 0 or -1 with errno, as mntns_delete.
 */
int nsreap_delete(const char *base_path, uint32_t job_id);

#endif /* DEVNS_NSREAP_H */
