/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mountinfo.c - split a mountinfo line into its fields.  See mountinfo.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/mountinfo.h"

/* Undoes mountinfo's octal escapes (\040 for a space) in place. */
static void unescape(char *s)
{
	char *out = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
					(s[3] - '0'));
			s += 4;
		} else {
			*out++ = *s++;
		}
	}
	*out = '\0';
}

/* A decimal field; -1 when it is not one. */
static int number(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > 0x7fffffff)
		return -1;
	return (int)v;
}

int mountinfo_parse(char *line, struct mountinfo_entry *e)
{
	char *save = NULL, *tok, *f[6] = { NULL }, *fstype = NULL;
	char *source = NULL, *superopts = NULL;
	int field = 0;

	memset(e, 0, sizeof(*e));
	for (tok = strtok_r(line, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save), field++) {
		if (field < 6) {
			f[field] = tok;
		} else if (!strcmp(tok, "-")) {
			fstype = strtok_r(NULL, " \n", &save);
			source = strtok_r(NULL, " \n", &save);
			superopts = strtok_r(NULL, " \n", &save);
			break;
		}
	}
	if (!f[5] || !fstype || (e->id = number(f[0])) < 0 ||
	    (e->parent = number(f[1])) < 0) {
		errno = EINVAL;
		return -1;
	}
	unescape(f[3]);
	unescape(f[4]);
	e->root = f[3];
	e->point = f[4];
	e->options = f[5];
	e->fstype = fstype;
	if (source)
		unescape(source);
	e->source = source ? source : "none";
	e->superopts = superopts ? superopts : "";
	return 0;
}
