/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rangelist.h - how many numbers a list such as "0-3,8,10-11" names
 * (Slurm's core lists, bit_fmt()'s form), for the job's CPUs on a node.
 *
 * Slurm 22.05 to 26.11: the text of src/common/bitstring.c's bit_fmt(),
 * which slurmstepd's job_alloc_cores holds (from 24.11; see
 * src/plugins/slurm_compat.h).  It is a hostlist bracket's inside, so it
 * is read by slurmconv/hostexpand.h, the tree's one bracket expander.
 */
#ifndef DEVNS_RANGELIST_H
#define DEVNS_RANGELIST_H

/* The most numbers a list may name: a node's CPU count is 16 bits in Slurm. */
#define RANGELIST_MAX 65536

/*
 * The count of numbers list names: comma-separated decimal numbers and
 * ranges "a-b" (a <= b), optionally in brackets, each at most 2^30, at
 * most RANGELIST_MAX of them.  Returns it (0 for an empty list), or -1
 * with errno = EINVAL for anything else (ENOMEM: no memory for a copy).
 */
long rangelist_count(const char *list);

#endif /* DEVNS_RANGELIST_H */
