/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nspool_keeper.h - slurmd's NamespacePool thread: it keeps the pool
 * (ns/nspool.h) filled and drops the namespaces of ended jobs behind
 * (ns/nsreap.h).
 */
#ifndef DEVNS_NSPOOL_KEEPER_H
#define DEVNS_NSPOOL_KEEPER_H

#include "util/report.h"

struct nspool_keeper;

/*
 * The shortest time between two rebuilds of the pool for changes of the
 * node's mounts, which users can cause (autofs): a change withdraws the
 * ready copies at once, and the keeper makes new ones no sooner.
 */
#define NSPOOL_REBUILD_MS 10000

/*
 * Start a thread that keeps want namespaces ready: it fills the pool, then
 * waits until a claim (an inotify event on BasePath/.pool) or a minute
 * passes.  It also reaps the namespaces of ended jobs that it is sent
 * (ns/nsreap.h).  It runs at nice 10: copying ahead and dropping behind
 * must not take the CPU from jobs starting meanwhile.  What it cannot do
 * goes to log (may be NULL).  Returns the keeper, or NULL with errno.
 */
struct nspool_keeper *nspool_keeper_start(const char *base_path,
					  unsigned want, report_log_f log,
					  void *log_arg);

/*
 * Stop the keeper's thread, after it has reaped what it was sent, and
 * clear the pool.  NULL is a no-op.
 */
void nspool_keeper_stop(struct nspool_keeper *keeper);

#endif /* DEVNS_NSPOOL_KEEPER_H */
