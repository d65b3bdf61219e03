/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rangelist.h - how many numbers a list such as "0-3,8,10-11" names
 * (Slurm's core lists, bit_fmt()'s form), for the job's CPUs on a node.
 */
#ifndef DEVNS_RANGELIST_H
#define DEVNS_RANGELIST_H

/*
 * The count of numbers list names: comma-separated decimal numbers and
 * ranges "a-b" (a <= b), optionally in brackets.  Returns it (0 for an
 * empty list), or -1 with errno = EINVAL for anything else.  Pure.
 */
long rangelist_count(const char *list);

#endif /* DEVNS_RANGELIST_H */
