/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hostmatch.c - match a host name against a Slurm hostlist expression.
 *
 * The expression is never expanded: a bracket group is matched by reading
 * the run of digits at the same place in the host name and checking whether
 * that number, printed the way Slurm prints it, lies in one of the group's
 * ranges.  Because a range may be followed by more digits ("n[1-3]0"), a
 * group may take any length of the digit run.  Each element is read once,
 * left to right, with the set of host positions its prefix can reach (see
 * element_match()), so matching is polynomial: no backtracking, whose cost
 * grows exponentially with the number of groups.  See hostmatch.h for the
 * semantics.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "slurmconv/hostmatch.h"

/*
 * Longest bound accepted, in digits: 10^18 - 1 fits an unsigned long long
 * with room to spare, and no host name has longer numbers.
 */
#define HOSTLIST_MAX_DIGITS 18

struct range {
	unsigned long long lo;
	unsigned long long hi;
	size_t width; /* digits of lo as written: numbers are padded to it */
};

/* A character that may appear in a host name outside brackets. */
static bool is_name_char(char c)
{
	return c != ',' && c != '[' && c != ']' && !isspace((unsigned char)c)
	       && !iscntrl((unsigned char)c);
}

/*
 * Read the run of digits at p (at most HOSTLIST_MAX_DIGITS).
 * Returns the end of the run, or NULL when there is none or it is too long.
 */
static const char *number_parse(const char *p, unsigned long long *val,
				size_t *len)
{
	const char *start = p;

	*val = 0;
	while (isdigit((unsigned char)*p)) {
		if (p - start >= HOSTLIST_MAX_DIGITS)
			return NULL;
		*val = *val * 10 + (unsigned long long)(*p - '0');
		p++;
	}
	if (p == start)
		return NULL;
	*len = (size_t)(p - start);
	return p;
}

/*
 * Parse one range "lo" or "lo-hi" at p, inside a bracket group.
 * Returns the character after it (',' or ']'), or NULL when malformed.
 */
static const char *range_parse(const char *p, struct range *r)
{
	size_t hi_len;

	if (!(p = number_parse(p, &r->lo, &r->width)))
		return NULL;
	r->hi = r->lo;
	if (*p == '-' && !(p = number_parse(p + 1, &r->hi, &hi_len)))
		return NULL;
	if (r->hi < r->lo || (*p != ',' && *p != ']'))
		return NULL;
	return p;
}

/*
 * Check the bracket group whose '[' is at p.
 * Returns its closing ']', or NULL when malformed.
 */
static const char *bracket_check(const char *p)
{
	struct range r;

	do {
		if (!(p = range_parse(p + 1, &r)))
			return NULL;
	} while (*p == ',');
	return p;
}

/*
 * Check the element (one comma-separated name) at p.
 * Returns its end (',' or '\0'), or NULL when malformed.
 */
static const char *element_check(const char *p)
{
	const char *start = p;

	while (*p && *p != ',') {
		if (*p == '[') {
			if (!(p = bracket_check(p)))
				return NULL;
		} else if (!is_name_char(*p)) {
			return NULL;
		}
		p++;
	}
	return p == start ? NULL : p;
}

int hostmatch_validate(const char *expr)
{
	const char *p = expr;

	if (!expr)
		goto error;
	for (;;) {
		if (!(p = element_check(p)))
			goto error;
		if (*p == '\0')
			return 0;
		p++; /* the comma */
	}
error:
	errno = EINVAL;
	return -1;
}

/*
 * Tell whether the len digits at s are a number that range r names, i.e.
 * whether they equal printf("%0*llu", r->width, v) for some lo <= v <= hi.
 */
static bool range_has(const struct range *r, const char *s, size_t len)
{
	unsigned long long v;
	size_t n;

	/* Shorter than the width: Slurm would have padded it. */
	if (len < r->width || len > HOSTLIST_MAX_DIGITS)
		return false;
	/* Wider than the width: printed without padding, so no leading 0. */
	if (len > r->width && s[0] == '0')
		return false;
	for (v = 0, n = 0; n < len; n++)
		v = v * 10 + (unsigned long long)(s[n] - '0');
	return r->lo <= v && v <= r->hi;
}

/* Tell whether any range of the (valid) bracket group at p names s[len]. */
static bool bracket_has(const char *p, const char *s, size_t len)
{
	struct range r;

	do {
		p = range_parse(p + 1, &r);
		if (range_has(&r, s, len))
			return true;
	} while (*p == ',');
	return false;
}

/*
 * Advance the set of host positions reachable before the token at p to
 * those reachable after it, in next[] (cleared here).  A literal moves each
 * position on by one where the host has that character; a bracket group
 * moves it past each length of the digit run there that the group names.
 * Returns the token's last character.
 */
static const char *token_step(const char *p, const char *host, size_t hlen,
			      const bool *cur, bool *next)
{
	size_t i, len;

	memset(next, 0, hlen + 1);
	for (i = 0; i < hlen; i++) {
		if (!cur[i])
			continue;
		if (*p != '[') {
			next[i + 1] = next[i + 1] || host[i] == *p;
			continue;
		}
		for (len = 1; i + len <= hlen
			      && isdigit((unsigned char)host[i + len - 1]); len++) {
			if (bracket_has(p, host + i, len))
				next[i + len] = true;
		}
	}
	return *p == '[' ? strchr(p, ']') : p;
}

/*
 * Tell whether the (valid) element at p, ending at end, names host (hlen
 * characters).  cur and next are scratch of hlen + 1 flags each.
 *
 * Why not backtracking: a group followed by digits may take any length of
 * the digit run, and trying every split of the run among k groups costs
 * about run^k.  Instead the element is read once, left to right, carrying
 * the set of host positions its prefix can end at: O(element * host * 18).
 */
static bool element_match(const char *p, const char *end, const char *host,
			  size_t hlen, bool *cur, bool *next)
{
	bool *tmp, live;
	size_t i;

	memset(cur, 0, hlen + 1);
	cur[0] = true;
	for (; p < end; p++) {
		p = token_step(p, host, hlen, cur, next);
		tmp = cur;
		cur = next;
		next = tmp;
		for (live = false, i = 0; i <= hlen && !live; i++)
			live = cur[i];
		if (!live)
			return false;
	}
	return cur[hlen];
}

/* Return the end (',' or '\0') of the valid element at p. */
static const char *element_end(const char *p)
{
	while (*p && *p != ',') {
		if (*p == '[')
			p = strchr(p, ']'); /* commas inside belong to it */
		p++;
	}
	return p;
}

int hostmatch_match(const char *expr, const char *host)
{
	const char *p = expr;
	const char *end;
	size_t hlen;
	bool *flags;
	int rc;

	if (!host || hostmatch_validate(expr) < 0) {
		errno = EINVAL;
		return -1;
	}
	hlen = strlen(host);
	if (!(flags = calloc(2 * (hlen + 1), sizeof(*flags))))
		return -1;
	for (;;) {
		end = element_end(p);
		if (element_match(p, end, host, hlen, flags, flags + hlen + 1)) {
			rc = 1;
			break;
		}
		if (*end == '\0') {
			rc = 0;
			break;
		}
		p = end + 1;
	}
	free(flags);
	return rc;
}
