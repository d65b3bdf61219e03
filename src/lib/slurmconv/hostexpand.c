/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hostexpand.c - the names of a hostlist expression.  Each element (the
 * expression's commas outside brackets cut them) is expanded from left to
 * right: text is copied, and a bracket group's numbers are tried in turn,
 * each followed by the expansion of the rest of the element.  The
 * expression is checked with hostmatch_validate() first, so the reading
 * here can trust its shape.  See hostexpand.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurmconv/hostexpand.h"
#include "slurmconv/hostmatch.h"

#define NAME_MAX_LEN 1024

struct expansion {
	hostexpand_fn fn;
	void *arg;
	size_t left;		/* names fn may still see */
	char name[NAME_MAX_LEN];
};

static int element_expand(struct expansion *x, const char *p,
			  const char *end, size_t used);

/* Append len bytes of s to x->name at used.  -1 (ENAMETOOLONG) if full. */
static int name_put(struct expansion *x, size_t used, const char *s,
		    size_t len)
{
	if (used + len >= sizeof(x->name)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(x->name + used, s, len);
	x->name[used + len] = '\0';
	return 0;
}

/*
 * One range of a group at r ("7" or "01-10"): each number, padded to the
 * lower bound's width, then the rest of the element after the group.
 */
static int range_expand(struct expansion *x, const char *r, const char *rest,
			const char *end, size_t used)
{
	char *after;
	unsigned long long lo = strtoull(r, &after, 10), hi = lo;
	int width = (int)(after - r);
	char num[32];

	if (*after == '-')
		hi = strtoull(after + 1, NULL, 10);
	for (unsigned long long n = lo; n <= hi; n++) {
		int len = snprintf(num, sizeof(num), "%0*llu", width, n);

		if (name_put(x, used, num, (size_t)len) < 0 ||
		    element_expand(x, rest, end, used + (size_t)len) < 0)
			return -1;
	}
	return 0;
}

/* The bracket group at p ('['): each of its ranges in turn. */
static int group_expand(struct expansion *x, const char *p, const char *end,
			size_t used)
{
	const char *close = strchr(p, ']');

	for (const char *r = p + 1; r < close; r += strcspn(r, ",]") + 1) {
		if (range_expand(x, r, close + 1, end, used) < 0)
			return -1;
	}
	return 0;
}

/* The rest of an element, [p, end), after the name's first used bytes. */
static int element_expand(struct expansion *x, const char *p,
			  const char *end, size_t used)
{
	const char *open = memchr(p, '[', (size_t)(end - p));
	size_t text = (size_t)((open ? open : end) - p);

	if (name_put(x, used, p, text) < 0)
		return -1;
	if (open)
		return group_expand(x, open, end, used + text);
	if (!x->left) {
		errno = E2BIG;
		return -1;
	}
	x->left--;
	return x->fn(x->name, x->arg);
}

int hostexpand(const char *expr, size_t max, hostexpand_fn fn, void *arg)
{
	struct expansion *x;
	const char *p = expr;
	int rc = 0;

	if (!expr || !fn || hostmatch_validate(expr) < 0) {
		errno = EINVAL;
		return -1;
	}
	if (!(x = calloc(1, sizeof(*x))))
		return -1;
	*x = (struct expansion){ .fn = fn, .arg = arg, .left = max };
	while (rc == 0 && *p) {
		const char *e = p;
		int depth = 0;

		for (; *e && (*e != ',' || depth); e++)
			depth += *e == '[' ? 1 : *e == ']' ? -1 : 0;
		rc = element_expand(x, p, e, 0);
		p = *e ? e + 1 : e;
	}
	free(x);
	return rc;
}
