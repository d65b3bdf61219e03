/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * json.c - a small streaming JSON writer.  See json.h.
 */
#include <errno.h>
#include <inttypes.h>

#include "json.h"

void json_init(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->empty[0] = true;
	j->misused = false;
}

/* Writes s quoted and escaped (see json.h); NULL writes null. */
static void escape(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p >= 0x20 && *p < 0x7f)
			fputc(*p, f);
		else	/* control, DEL, and no UTF-8 assumed: one byte */
			fprintf(f, "\\u%04x", *p);
	}
	fputc('"', f);
}

/* What comes before a value: the comma, the new line, the key. */
static void member(struct json *j, const char *key)
{
	if (j->depth > 0) {
		fputs(j->empty[j->depth] ? "\n" : ",\n", j->f);
		fprintf(j->f, "%*s", 2 * j->depth, "");
	} else if (!j->empty[0]) {
		j->misused = true;	/* a second top-level value */
	}
	j->empty[j->depth] = false;
	if (key) {
		escape(j->f, key);
		fputs(": ", j->f);
	}
}

static void begin(struct json *j, const char *key, char open)
{
	member(j, key);
	fputc(open, j->f);
	if (j->depth + 1 >= JSON_MAX_DEPTH) {
		j->misused = true;
		return;
	}
	j->empty[++j->depth] = true;
}

static void end(struct json *j, char close)
{
	if (j->depth <= 0) {
		j->misused = true;
		return;
	}
	if (!j->empty[j->depth])
		fprintf(j->f, "\n%*s", 2 * (j->depth - 1), "");
	fputc(close, j->f);
	j->depth--;
}

void json_object_begin(struct json *j, const char *key)
{
	begin(j, key, '{');
}

void json_array_begin(struct json *j, const char *key)
{
	begin(j, key, '[');
}

void json_object_end(struct json *j)
{
	end(j, '}');
}

void json_array_end(struct json *j)
{
	end(j, ']');
}

void json_string(struct json *j, const char *key, const char *value)
{
	member(j, key);
	escape(j->f, value);
}

void json_bool(struct json *j, const char *key, bool value)
{
	member(j, key);
	fputs(value ? "true" : "false", j->f);
}

void json_int(struct json *j, const char *key, int64_t value)
{
	member(j, key);
	fprintf(j->f, "%" PRId64, value);
}

void json_uint(struct json *j, const char *key, uint64_t value)
{
	member(j, key);
	fprintf(j->f, "%" PRIu64, value);
}

void json_null(struct json *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
}

int json_finish(struct json *j)
{
	fputc('\n', j->f);
	if (fflush(j->f) != 0 || ferror(j->f))
		return -1;
	if (j->misused || j->depth != 0) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}
