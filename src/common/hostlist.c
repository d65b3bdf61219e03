/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hostlist.c - match a host name against a Slurm hostlist expression.
 *
 * The expression is never expanded: a bracket group is matched by reading
 * the run of digits at the same place in the host name and checking whether
 * that number, printed the way Slurm prints it, lies in one of the group's
 * ranges.  Because a range may be followed by more digits ("n[1-3]0"), the
 * matcher tries every length of the digit run (backtracking); host names
 * are short, so this stays cheap.  See hostlist.h for the semantics.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "hostlist.h"

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

int hostlist_validate(const char *expr)
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

/* Tell whether the (valid) element at p, ending at end, names host. */
static bool element_match(const char *p, const char *end, const char *host)
{
	const char *close;
	size_t digits, len;

	for (; p < end && *p != '['; p++, host++) {
		if (*p != *host)
			return false;
	}
	if (p == end)
		return *host == '\0';
	close = strchr(p, ']');
	for (digits = 0; isdigit((unsigned char)host[digits]); digits++)
		;
	/* Let the group take each length of the digit run in turn. */
	for (len = 1; len <= digits; len++) {
		if (bracket_has(p, host, len)
		    && element_match(close + 1, end, host + len))
			return true;
	}
	return false;
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

int hostlist_match(const char *expr, const char *host)
{
	const char *p = expr;
	const char *end;

	if (!host || hostlist_validate(expr) < 0) {
		errno = EINVAL;
		return -1;
	}
	for (;;) {
		end = element_end(p);
		if (element_match(p, end, host))
			return 1;
		if (*end == '\0')
			return 0;
		p = end + 1;
	}
}
