/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_hostexpand.c - unit tests of hostexpand(): plain names, lists,
 * ranges padded as Slurm prints them, several groups (a cartesian product
 * in the order written), the bound on the number of names, a callback
 * that stops, and malformed expressions; and that every name expanded is
 * one hostmatch_match() names.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "slurmconv/hostexpand.h"
#include "slurmconv/hostmatch.h"
#include "tap.h"

struct names {
	char text[4096];
	const char *expr;
	int unmatched;		/* names hostmatch_match() does not name */
	int stop_at;		/* stop (-1, EINTR) at this name, 0: never */
	int count;
};

static int collect(const char *name, void *arg)
{
	struct names *n = arg;
	size_t used = strlen(n->text);

	if (hostmatch_match(n->expr, name) != 1)
		n->unmatched++;
	snprintf(n->text + used, sizeof(n->text) - used, "%s%s",
		 used ? " " : "", name);
	if (++n->count == n->stop_at) {
		errno = EINTR;
		return -1;
	}
	return 0;
}

static void expands(const char *expr, const char *want)
{
	struct names n = { .text = "", .expr = expr };

	ok(hostexpand(expr, 1000, collect, &n) == 0, "\"%s\" expands", expr);
	is_str(n.text, want, "  into its names");
	is_int(n.unmatched, 0, "  each one hostmatch names");
}

int main(void)
{
	struct names n = { .text = "" };

	expands("login1", "login1");
	expands("a,b,c", "a b c");
	expands("n[1-3]", "n1 n2 n3");
	expands("n[01-03,7]", "n01 n02 n03 n7");
	expands("n[8-11]", "n8 n9 n10 n11");
	expands("gpu[098-101]x", "gpu098x gpu099x gpu100x gpu101x");
	expands("r[1-2]n[01-02]", "r1n01 r1n02 r2n01 r2n02");
	expands("a[1-2],b,c[3]", "a1 a2 b c3");
	expands("n[1-3]0", "n10 n20 n30");

	n.expr = "n[0-999999999]";
	errno = 0;
	ok(hostexpand(n.expr, 5, collect, &n) == -1 && errno == E2BIG,
	   "more names than the bound: E2BIG");
	is_str(n.text, "n0 n1 n2 n3 n4", "  after the first ones");
	memset(&n, 0, sizeof(n));
	n.expr = "a,b,c";
	n.stop_at = 2;
	errno = 0;
	ok(hostexpand(n.expr, 10, collect, &n) == -1 && errno == EINTR &&
	   n.count == 2, "a callback that stops ends it with its errno");
	errno = 0;
	ok(hostexpand("n[1-", 10, collect, &n) == -1 && errno == EINVAL,
	   "a malformed expression: EINVAL");
	errno = 0;
	ok(hostexpand(NULL, 10, collect, &n) == -1 && errno == EINVAL,
	   "NULL: EINVAL");
	{
		char expr[1200];

		memset(expr, 'x', sizeof(expr) - 1);
		expr[sizeof(expr) - 1] = '\0';
		errno = 0;
		ok(hostexpand(expr, 10, collect, &n) == -1 &&
		   errno == ENAMETOOLONG, "a name too long: ENAMETOOLONG");
	}
	return tap_done();
}
