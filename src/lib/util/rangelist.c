/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rangelist.c - count the numbers of a range list.  See rangelist.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/rangelist.h"

/* A decimal number at *s, moving *s past it; -1 when there is none. */
static long number(const char **s)
{
	char *end;
	long n;

	if (!isdigit((unsigned char)**s))
		return -1;
	errno = 0;
	n = strtol(*s, &end, 10);
	if (errno || n > 1L << 30)
		return -1;
	*s = end;
	return n;
}

long rangelist_count(const char *list)
{
	const char *s = list;
	size_t len;
	long total = 0, a, b;
	bool bracket;

	if (!s)
		goto bad;
	len = strlen(s);
	bracket = len && s[0] == '[';
	if (bracket && s[len - 1] != ']')
		goto bad;
	if (bracket)
		s++;
	while (*s && !(bracket && *s == ']' && !s[1])) {
		if ((a = number(&s)) < 0)
			goto bad;
		b = a;
		if (*s == '-') {
			s++;
			if ((b = number(&s)) < a)
				goto bad;
		}
		total += b - a + 1;
		if (*s == ',' && (isdigit((unsigned char)s[1])))
			s++;
		else if (*s && !(bracket && *s == ']' && !s[1]))
			goto bad;
	}
	return total;
bad:
	errno = EINVAL;
	return -1;
}
