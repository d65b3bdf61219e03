/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_gresidx.c - Slurm's GRES detail string, "gpu:a100:2(IDX:0,2-3),
 * mps:100(0/100)" (slurmconv/gresidx.c): the plugin reads it from slurmctld to
 * know which device files a job holds, and fails closed on a bad one.
 *
 * Contract: any string is read or refused with EINVAL (ENOMEM), never a
 * crash, leak or hang; both readers agree on it: gresidx_set_parse()
 * holds exactly the (name, index) pairs gresidx_parse() calls back with.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slurmconv/gresidx.h"
#include "fuzz.h"

/* Each pair the callback sees must be in the set. */
static int seen(const char *name, unsigned index, void *arg)
{
	const struct gresidx_set *set = arg;

	if (strlen(name) >= GRESIDX_MAX_NAME || index > GRESIDX_MAX_INDEX)
		abort();
	for (size_t i = 0; i < set->count; i++)
		if (!strcmp(set->names[i].name, name))
			return gresidx_name_held(&set->names[i], index) ? 0
									: -2;
	return -2;
}

/* Counts the set bits the callback sees (a pair may repeat). */
static int count(const char *name, unsigned index, void *arg)
{
	(void)name;
	(void)index;
	(*(size_t *)arg)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *parts[1], *buf;
	struct gresidx_set set;
	size_t calls = 0, bits = 0;
	int a, b;

	fuzz_split(data, size, parts, 1, &buf);
	a = gresidx_set_parse(parts[0], &set);
	if (a == 0) {
		if (gresidx_parse(parts[0], seen, &set) != 0)
			abort();	/* a pair the set lacks */
		if (gresidx_parse(parts[0], count, &calls) != 0)
			abort();
		for (size_t i = 0; i < set.count; i++) {
			const struct gresidx_name *n = &set.names[i];

			if (!n->nbits || !gresidx_name_held(n, n->nbits - 1))
				abort();	/* nbits: highest held + 1 */
			for (unsigned k = 0; k < n->nbits; k++)
				bits += gresidx_name_held(n, k);
		}
		if (bits > calls)
			abort();	/* the set holds a pair never read */
	} else {
		b = gresidx_parse(parts[0], count, &calls);
		if (errno != ENOMEM && b == 0)
			abort();	/* one reader refused what the other took */
	}
	gresidx_set_free(&set);
	free(buf);
	return 0;
}
