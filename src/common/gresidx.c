/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gresidx.c - parse "name[:type]:count(IDX:a,b-c)" items of a GRES detail
 * string.  Items are separated by commas outside parentheses.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "gresidx.h"

#define GRESIDX_MAX_NAME 64
#define GRESIDX_MAX_INDEX 65535

static int fail(void)
{
	errno = EINVAL;
	return -1;
}

static int parse_number(const char **p, unsigned *out)
{
	char *end;
	unsigned long v;

	if (**p < '0' || **p > '9')
		return fail();
	v = strtoul(*p, &end, 10);
	if (v > GRESIDX_MAX_INDEX)
		return fail();
	*out = (unsigned)v;
	*p = end;
	return 0;
}

/* "0,2-3)" -> indices, up to and including the closing parenthesis. */
static int parse_ranges(const char **p, const char *name,
			int (*fn)(const char *, unsigned, void *), void *arg)
{
	for (;;) {
		unsigned lo, hi, i;
		int rc;

		if (parse_number(p, &lo) < 0)
			return -1;
		hi = lo;
		if (**p == '-') {
			(*p)++;
			if (parse_number(p, &hi) < 0 || hi < lo)
				return fail();
		}
		for (i = lo; i <= hi; i++)
			if ((rc = fn(name, i, arg)))
				return rc;
		if (**p == ')') {
			(*p)++;
			return 0;
		}
		if (**p != ',')
			return fail();
		(*p)++;
	}
}

/* One item; *p is left after it (at ',' or the end). */
static int parse_item(const char **p,
		      int (*fn)(const char *, unsigned, void *), void *arg)
{
	char name[GRESIDX_MAX_NAME];
	size_t n = strcspn(*p, ":(,");
	const char *paren, *close;

	if (n == 0 || n >= sizeof(name))
		return fail();
	memcpy(name, *p, n);
	name[n] = '\0';
	paren = *p + strcspn(*p, "(,");
	if (*paren != '(') {		/* "gpu:0": nothing allocated */
		*p = paren;
		return 0;
	}
	if (!strncmp(paren, "(IDX:", 5)) {
		*p = paren + 5;
		if (!strncmp(*p, "N/A)", 4)) {
			*p += 4;
			return 0;
		}
		return parse_ranges(p, name, fn, arg);
	}
	/* Another kind of detail, e.g. shared counts: skip it. */
	if (!(close = strchr(paren, ')')))
		return fail();
	*p = close + 1;
	return 0;
}

int gresidx_parse(const char *detail,
		  int (*fn)(const char *name, unsigned index, void *arg),
		  void *arg)
{
	const char *p = detail;
	int rc;

	if (!p || !*p)
		return 0;
	for (;;) {
		if ((rc = parse_item(&p, fn, arg)))
			return rc;
		if (!*p)
			return 0;
		if (*p != ',')
			return fail();
		p++;
	}
}
