/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hostmatch.h - match a host name against a Slurm hostlist expression.
 *
 * namespace.conf selects nodes with NodeName=<hostlist>, written as in
 * slurm.conf: a comma-separated list of names whose numeric parts may be
 * bracket ranges, e.g. "login1,cgpu[01-18],rack[1-2]n[001-016]".
 *
 * Semantics follow Slurm's hostmatch.c:
 *  - several bracket groups in one name form a cartesian product;
 *  - a range's width is the length of its lower bound, and numbers are
 *    printed zero-padded to that width ("%0*lu"): [01-10] names 01..10,
 *    [1-10] names 1..10 (so "n01" is not in n[1-10]), [8-12] names
 *    8, 9, 10, 11, 12;
 *  - names compare case-sensitively.
 * The expression is matched by parsing, never expanded, so a range such as
 * [0-999999999] costs nothing, and without backtracking, so many bracket
 * groups in a row cost no more than as many plain characters.
 *
 * Slurm 22.05 to 26.11: the grammar of src/common/hostlist.c
 * (hostlist_create(), _parse_range_list(), _push_range_list()), unchanged
 * in those releases.  hostexpand.h is the same grammar's expander.  A
 * release that changes it changes this file, hostexpand.c and
 * src/plugins/slurm_compat.h, nowhere else.
 */
#ifndef DEVNS_HOSTMATCH_H
#define DEVNS_HOSTMATCH_H

/*
 * Check the syntax of a hostlist expression.
 * Returns 0 when it is well formed, -1 with errno = EINVAL when it is not:
 * an empty expression or element, unbalanced or nested brackets, an empty
 * bracket or range, a non-digit or over-long range bound, a reversed range
 * (hi < lo), or white space or control characters.
 */
int hostmatch_validate(const char *expr);

/*
 * Tell whether host is one of the names of expr.
 * Returns 1 when it is, 0 when it is not, -1 with errno = EINVAL when expr
 * is malformed (see hostmatch_validate(); the whole expression is checked
 * even when an earlier element matches) or an argument is NULL, -1 with
 * errno = ENOMEM when the two flags per host character it needs cannot be
 * allocated.  Time is polynomial, about the expression's length times the
 * host name's times 18, however many bracket groups an element has.
 */
int hostmatch_match(const char *expr, const char *host);

#endif /* DEVNS_HOSTMATCH_H */
