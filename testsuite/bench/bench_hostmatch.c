/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_hostmatch.c - cost of hostmatch_match() as bracket groups pile up.
 *
 * For k = 1..MAX_GROUPS groups "[1-99999999999999999]" followed by "x",
 * matched against a 38-character name of 37 digits and a "y" (so the answer
 * is "no" and a backtracking matcher would try every split of the digit
 * run), prints the mean time of one match.  Never asserts timings.
 *
 *   bench_hostmatch [MAX_GROUPS [ITERATIONS]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurmconv/hostmatch.h"

#define GROUP "[1-99999999999999999]"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	int max = argc > 1 ? atoi(argv[1]) : 12;
	int iters = argc > 2 ? atoi(argv[2]) : 1000;
	char host[39], *expr;
	double t0;
	int k, i, rc = 0;

	if (max < 1 || iters < 1) {
		fprintf(stderr, "usage: %s [MAX_GROUPS [ITERATIONS]]\n", argv[0]);
		return 2;
	}
	if (!(expr = malloc((size_t)max * strlen(GROUP) + 2)))
		return 1;
	memset(host, '1', 37);
	strcpy(host + 37, "y");
	printf("%6s %14s\n", "groups", "us/match");
	for (k = 1; k <= max; k++) {
		expr[0] = '\0';
		for (i = 0; i < k; i++)
			strcat(expr, GROUP);
		strcat(expr, "x");
		t0 = now_us();
		for (i = 0; i < iters; i++)
			rc |= hostmatch_match(expr, host);
		printf("%6d %14.2f\n", k, (now_us() - t0) / iters);
	}
	free(expr);
	return rc ? 1 : 0; /* every answer must be 0 ("no") */
}
