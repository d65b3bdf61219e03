/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_hostmatch.c - unit tests of hostmatch_match() and hostmatch_validate():
 * plain names, ranges, lists inside brackets, several bracket groups, zero
 * padding as Slurm prints it, digits around groups, huge ranges (which
 * must not be expanded), many groups in a row (which must not backtrack)
 * and every kind of malformed expression.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "slurmconv/hostmatch.h"
#include "tap.h"

static void yes(const char *expr, const char *host)
{
	is_int(hostmatch_match(expr, host), 1, "\"%s\" names %s", expr, host);
}

static void no(const char *expr, const char *host)
{
	is_int(hostmatch_match(expr, host), 0, "\"%s\" does not name %s", expr,
	       host);
}

static void bad(const char *expr)
{
	errno = 0;
	is_int(hostmatch_validate(expr), -1, "validate rejects \"%s\"", expr);
	is_int(errno, EINVAL, "  with EINVAL");
	errno = 0;
	is_int(hostmatch_match(expr, "node1"), -1, "match rejects \"%s\"", expr);
	is_int(errno, EINVAL, "  with EINVAL");
}

static void good(const char *expr)
{
	is_int(hostmatch_validate(expr), 0, "validate accepts \"%s\"", expr);
}

static void test_plain(void)
{
	yes("node1", "node1");
	no("node1", "node10");
	no("node1", "node");
	no("node1", "Node1");
	yes("login,node1,node2", "node2");
	yes("login,node1,node2", "login");
	no("login,node1,node2", "node3");
	yes("a.example.org", "a.example.org");
	yes("node-ib_1", "node-ib_1");
	no("node1", "");
}

static void test_ranges(void)
{
	yes("cgpu[01-18]", "cgpu01");
	yes("cgpu[01-18]", "cgpu09");
	yes("cgpu[01-18]", "cgpu18");
	no("cgpu[01-18]", "cgpu00");
	no("cgpu[01-18]", "cgpu19");
	no("cgpu[01-18]", "cgpu1");
	no("cgpu[01-18]", "cgpu001");
	no("cgpu[01-18]", "cgpu");
	no("cgpu[01-18]", "gpu01");
	yes("n[1-3,7,10-12]", "n1");
	yes("n[1-3,7,10-12]", "n3");
	yes("n[1-3,7,10-12]", "n7");
	yes("n[1-3,7,10-12]", "n11");
	no("n[1-3,7,10-12]", "n4");
	no("n[1-3,7,10-12]", "n9");
	no("n[1-3,7,10-12]", "n13");
	yes("n[5]", "n5");
	no("n[5]", "n6");
	yes("[1-3]", "2");
	yes("login,n[1-2],gpu[1-2]", "gpu2");
	no("login,n[1-2],gpu[1-2]", "gpu3");
}

static void test_padding(void)
{
	/* Width is the width of the lower bound, as in Slurm. */
	no("n[1-10]", "n01");
	yes("n[1-10]", "n10");
	yes("n[8-12]", "n9");
	yes("n[8-12]", "n12");
	no("n[8-12]", "n09");
	yes("n[001-120]", "n007");
	yes("n[001-120]", "n120");
	no("n[001-120]", "n07");
	no("n[001-120]", "n7");
	yes("n[098-1002]", "n099");
	yes("n[098-1002]", "n1001");
	no("n[098-1002]", "n0999");
	yes("n[0-3]", "n0");
	no("n[0-3]", "n00");
	yes("n[1,01]", "n01");
	yes("n[1,01]", "n1");
}

static void test_multi(void)
{
	yes("rack[1-2]n[01-04]", "rack1n01");
	yes("rack[1-2]n[01-04]", "rack2n04");
	no("rack[1-2]n[01-04]", "rack3n01");
	no("rack[1-2]n[01-04]", "rack1n05");
	no("rack[1-2]n[01-04]", "rack1n1");
	no("rack[1-2]n[01-04]", "rack1");
	yes("r[1-2][01-02]", "r102");
	yes("r[1-2][01-02]", "r201");
	no("r[1-2][01-02]", "r21");
	yes("n[1-3]-ib", "n2-ib");
	no("n[1-3]-ib", "n2");
	no("n[1-3]-ib", "n2-ib0");
	yes("x,rack[1-2]n[01-04]-ib,y", "rack2n03-ib");
}

static void test_digits_around(void)
{
	/* A group followed by digits: the matcher must backtrack. */
	yes("n[1-3]0", "n10");
	yes("n[1-3]0", "n30");
	no("n[1-3]0", "n40");
	yes("n[1-12]5", "n125");
	yes("n[1-12]5", "n15");
	yes("n1[0-5]", "n13");
	no("n1[0-5]", "n16");
	yes("[1-9][0-9]", "42");
	no("[1-9][0-9]", "4");
	no("[1-9][0-9]", "420");
}

static void test_huge(void)
{
	/* Matched by parsing: these would be huge when expanded. */
	yes("n[0-999999999999999999]", "n123456789012345678");
	no("n[0-999999999999999999]", "n1234567890123456789");
	yes("n[000000000000000000-999999999999999999]",
	    "n000000000000000042");
	no("n[1-999999999]", "n1000000000");
	no("n[1-5]", "n99999999999999999999999999");
}

/* n copies of group, then tail, into buf. */
static const char *groups(char *buf, size_t len, int n, const char *group,
			  const char *tail)
{
	buf[0] = '\0';
	while (n-- > 0 && strlen(buf) + strlen(group) < len)
		strcat(buf, group);
	if (strlen(buf) + strlen(tail) < len)
		strcat(buf, tail);
	return buf;
}

static void test_many_groups(void)
{
	/*
	 * Twelve groups against a 38-character name: a backtracking matcher
	 * tries each split of the digit run among the groups (about 10^9 of
	 * them, minutes of CPU) before it can answer "no"; a polynomial one
	 * answers at once.  No time is asserted: finishing is the test.
	 */
	char expr[512], host[64];

	memset(host, '1', 37);
	strcpy(host + 37, "y");
	is_int(strlen(host), 38, "the name has 38 characters");
	no(groups(expr, sizeof(expr), 12, "[1-99999999999999999]", "x"), host);
	yes(groups(expr, sizeof(expr), 12, "[1-99999999999999999]", "y"), host);
	/* Padding allows one split only: 11 groups of 3 digits, then 5. */
	memset(host, '0', 37);
	strcpy(host + 37, "7");
	no(groups(expr, sizeof(expr), 12, "[000-999]", ""), host);
	yes(groups(expr, sizeof(expr), 11, "[000-999]", "00007"), host);
	yes(groups(expr, sizeof(expr), 11, "[000-999]", "[00000-00007]"), host);
	no(groups(expr, sizeof(expr), 11, "[000-999]", "[00000-00006]"), host);
	no(groups(expr, sizeof(expr), 11, "[000-999]", "[0000-0007]"), host);
	/* Each group must take at least one digit. */
	no(groups(expr, sizeof(expr), 39, "[0-9]", ""), host);
	yes(groups(expr, sizeof(expr), 38, "[0-9]", ""), host);
	/* Groups between literals, and a later element that matches. */
	strcpy(host, "r1n1x11y111z1111w11111v111111u1111111t");
	yes("r[1]n[1-9]x[11-99]y[100-999]z[1000-9999]w[1-99999]v[1-999999]"
	    "u[1-9999999]t", host);
	no("r[1]n[1-9]x[11-99]y[100-999]z[1000-9999]w[1-99999]v[1-999999]"
	   "u[1-9999999]s", host);
	yes(groups(expr, sizeof(expr), 12, "[1-99999999999999999]",
		   "x,r1n1x11y111z1111w11111v111111u1111111t"), host);
}

static void test_malformed(void)
{
	bad("");
	bad(",");
	bad("a,");
	bad(",a");
	bad("a,,b");
	bad("n[1-3");
	bad("n1-3]");
	bad("n[1-3]]");
	bad("n[[1-3]]");
	bad("n[1-[2]]");
	bad("n[]");
	bad("n[,]");
	bad("n[1,]");
	bad("n[,1]");
	bad("n[3-1]");
	bad("n[01-a]");
	bad("n[a-c]");
	bad("n[1-]");
	bad("n[-1]");
	bad("n[1--3]");
	bad("n[1-2-3]");
	bad("n[ 1-3]");
	bad("n[1-3],m[4-2]");
	bad("node 1");
	bad("node\t1");
	bad("n[1-9999999999999999999]");
	bad("n[0000000000000000001]");
	/* Malformed after a matching element still fails. */
	errno = 0;
	is_int(hostmatch_match("node1,n[", "node1"), -1,
	       "the whole expression is checked");
	is_int(hostmatch_validate(NULL), -1, "validate rejects NULL");
	is_int(hostmatch_match("node1", NULL), -1, "match rejects a NULL host");
	is_int(errno, EINVAL, "  with EINVAL");
}

static void test_valid(void)
{
	good("node1");
	good("a,b,c");
	good("cgpu[01-18]");
	good("n[1-3,7,10-12]");
	good("rack[1-2]n[01-04]");
	good("[0]");
	good("n[999999999999999999]");
}

int main(void)
{
	test_plain();
	test_ranges();
	test_padding();
	test_multi();
	test_digits_around();
	test_huge();
	test_many_groups();
	test_valid();
	test_malformed();
	return tap_done();
}
