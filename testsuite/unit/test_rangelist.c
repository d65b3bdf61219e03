/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_rangelist.c - counting Slurm's core lists ("0-3,8"), which size a
 * job's --mem-per-cpu share on a node.
 */
#include <errno.h>

#include "slurmconv/rangelist.h"
#include "tap.h"

int main(void)
{
	static const struct { const char *list; long n; } good[] = {
		{ "", 0 }, { "0", 1 }, { "0-1", 2 }, { "0-3,8,10-11", 7 },
		{ "[0-1,3]", 3 }, { "5-5", 1 }, { "[]", 0 }, { "[01-10]", 10 },
		{ "1073741824", 1 }, { "0-65535", RANGELIST_MAX },
	};
	static const char *const bad[] = {
		"-1", "1-", "3-1", "a", "0,,1", "0;1", "[0-1", "0-1]", " 0",
		"0-1,", "99999999999", "1073741825", "0-65536", "[0-1][2]",
		"[0]1", "0[1]", "[[0]]",
	};

	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		is_int(rangelist_count(good[i].list), good[i].n, "\"%s\": %ld",
		       good[i].list, good[i].n);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		errno = 0;
		ok(rangelist_count(bad[i]) == -1 && errno == EINVAL,
		   "\"%s\": EINVAL", bad[i]);
	}
	errno = 0;
	ok(rangelist_count(NULL) == -1 && errno == EINVAL, "NULL: EINVAL");
	return tap_done();
}
