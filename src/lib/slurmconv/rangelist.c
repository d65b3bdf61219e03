/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rangelist.c - count the numbers of a range list, as the names of the
 * hostlist "[list]" (slurmconv/hostexpand.c).  See rangelist.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurmconv/hostexpand.h"
#include "slurmconv/rangelist.h"

/* Longest list read; a node's cores fit many times over. */
#define RANGELIST_MAX_LEN 65536

/* Counts one number of the list; refuses one above 2^30. */
static int count_one(const char *name, void *arg)
{
	long *total = arg;

	if (strtoull(name, NULL, 10) > 1UL << 30) {
		errno = EINVAL;
		return -1;
	}
	(*total)++;
	return 0;
}

long rangelist_count(const char *list)
{
	size_t len = list ? strlen(list) : 0;
	size_t skip = len && list[0] == '[';
	long total = 0;
	char *expr;

	if (!list || len > RANGELIST_MAX_LEN)
		goto bad;
	/* "[...]" whole or no bracket at all: one group, never a product */
	if (skip && list[len - 1] != ']')
		goto bad;
	if (strcspn(list + skip, "[]") != len - 2 * skip)
		goto bad;
	if (len == 2 * skip)
		return 0;
	if (!(expr = malloc(len + 3)))
		return -1;
	snprintf(expr, len + 3, "[%.*s]", (int)(len - 2 * skip), list + skip);
	if (hostexpand(expr, RANGELIST_MAX, count_one, &total) < 0)
		total = -1;
	free(expr);
	if (total >= 0)
		return total;
bad:
	errno = EINVAL;
	return -1;
}
