/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hostexpand.h - the names of a Slurm hostlist expression, one by one.
 *
 * hostmatch.h matches without expanding, which is what selecting a node
 * needs.  Comparing two files' node names (devns check: a namespace.conf
 * NodeName that differs from slurm.conf's only by case) and gres.conf's
 * File= ("/dev/nvidia[0-3]", the same form) need the names themselves,
 * and so do the number lists that are a bracket's inside (a job's core
 * list, rangelist.h; the IDX: lists of its GRES, gresidx.h): the tree's
 * one bracket expander.  An expression is expanded here as hostmatch
 * reads it (brackets form a cartesian product, numbers padded to the
 * width of the range's lower bound), up to a bound the caller sets, since
 * [0-999999999] is a valid expression.
 *
 * Slurm 22.05 to 26.11, as hostmatch.h (src/common/hostlist.c).
 */
#ifndef DEVNS_HOSTEXPAND_H
#define DEVNS_HOSTEXPAND_H

#include <stddef.h>

/* Called with each name; returns 0 to go on, -1 (errno set) to stop. */
typedef int (*hostexpand_fn)(const char *name, void *arg);

/*
 * Call fn with each name of expr, in the order written, at most max of
 * them.  Returns 0, or -1 with errno: EINVAL when expr is malformed (see
 * hostmatch_validate()), E2BIG when it has more than max names (fn has
 * seen the first max), ENAMETOOLONG for a name of more than 1023 bytes,
 * or fn's errno when fn stopped it.
 */
int hostexpand(const char *expr, size_t max, hostexpand_fn fn, void *arg);

#endif /* DEVNS_HOSTEXPAND_H */
