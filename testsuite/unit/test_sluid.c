/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_sluid.c - unit tests of sluid_format() and sluid_is_form(): the
 * text of known SLUIDs (the example 26.05's cgroup names show, computed
 * independently), the edges (1, the largest), no SLUID, a short buffer,
 * and which names have a SLUID's form.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "slurmconv/sluid.h"
#include "tap.h"

static void test_format(void)
{
	char buf[SLUID_LEN + 1];

	ok(sluid_format(UINT64_C(0xe9d67ad8f96d9400), buf, sizeof(buf)) == 0 &&
	   !strcmp(buf, "sEKNKTV3WPV500"),
	   "the SLUID of 26.05's example cgroup is sEKNKTV3WPV500 (%s)", buf);
	ok(sluid_format(1, buf, sizeof(buf)) == 0 &&
	   !strcmp(buf, "s0000000000001"), "1 is s0000000000001 (%s)", buf);
	ok(sluid_format(UINT64_MAX, buf, sizeof(buf)) == 0 &&
	   !strcmp(buf, "sFZZZZZZZZZZZZ"),
	   "the top digit holds four bits: the largest is sFZZZZZZZZZZZZ (%s)",
	   buf);
	ok(sluid_format(UINT64_C(32), buf, sizeof(buf)) == 0 &&
	   !strcmp(buf, "s0000000000010"), "32 is s0000000000010 (%s)", buf);
	errno = 0;
	ok(sluid_format(0, buf, sizeof(buf)) == -1 && errno == EINVAL &&
	   buf[0] == '\0', "0 is no SLUID: EINVAL, empty text");
	errno = 0;
	ok(sluid_format(1, buf, SLUID_LEN) == -1 && errno == ENAMETOOLONG &&
	   buf[0] == '\0', "a buffer without room for the NUL: ENAMETOOLONG");
}

static void test_form(void)
{
	static const char *const good[] = { "sEKNKTV3WPV500", "S0000000000001",
					    "sFZZZZZZZZZZZZ" };
	static const char *const bad[] = {
		"job_12",		/* the other naming */
		"sEKNKTV3WPV50",	/* 12 digits */
		"sEKNKTV3WPV5000",	/* 14 digits */
		"sGKNKTV3WPV500",	/* top digit over four bits */
		"sEKNKTV3WPV5O0",	/* O is not a digit */
		"sekNKTV3WPV500",	/* lower case */
		"tEKNKTV3WPV500",
	};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ok(sluid_is_form(good[i], strlen(good[i])), "%s has a SLUID's form",
		   good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(!sluid_is_form(bad[i], strlen(bad[i])),
		   "%s has not a SLUID's form", bad[i]);
	ok(sluid_is_form("sEKNKTV3WPV500/step_0", SLUID_LEN),
	   "a component of a path is judged by its length alone");
}

int main(void)
{
	test_format();
	test_form();
	return tap_done();
}
