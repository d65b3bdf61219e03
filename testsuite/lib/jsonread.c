/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jsonread.c - a strict JSON reader for the tests.  See jsonread.h.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonread.h"

struct parser {
	const char *s, *p;
	char *err;
	size_t len;
	int depth;
};

static int fail(struct parser *ps, const char *what)
{
	if (!ps->err[0])
		snprintf(ps->err, ps->len, "offset %zu: %s",
			 (size_t)(ps->p - ps->s), what);
	return -1;
}

static void skip_ws(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' ||
	       *ps->p == '\r')
		ps->p++;
}

static int parse_value(struct parser *ps, struct jv *v);

/* Appends code point cp to buf as UTF-8 (one byte below 0x100: see .h). */
static size_t put_cp(char *buf, unsigned cp)
{
	if (cp < 0x100) {
		buf[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		buf[0] = (char)(0xc0 | cp >> 6);
		buf[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	buf[0] = (char)(0xe0 | cp >> 12);
	buf[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
	buf[2] = (char)(0x80 | (cp & 0x3f));
	return 3;
}

static int parse_string(struct parser *ps, char **out)
{
	char *buf = malloc(3 * strlen(ps->p) + 1);
	size_t n = 0;

	if (!buf)
		return fail(ps, "out of memory");
	ps->p++;	/* the quote */
	while (*ps->p != '"') {
		unsigned char c = (unsigned char)*ps->p;

		if (c == '\0' || c < 0x20) {
			free(buf);
			return fail(ps, "unterminated string or raw control character");
		}
		if (c != '\\') {
			buf[n++] = (char)c;
			ps->p++;
			continue;
		}
		ps->p++;
		switch (*ps->p) {
		case '"': case '\\': case '/': buf[n++] = *ps->p; break;
		case 'b': buf[n++] = '\b'; break;
		case 'f': buf[n++] = '\f'; break;
		case 'n': buf[n++] = '\n'; break;
		case 'r': buf[n++] = '\r'; break;
		case 't': buf[n++] = '\t'; break;
		case 'u': {
			unsigned cp = 0;

			for (int i = 1; i <= 4; i++) {
				if (!isxdigit((unsigned char)ps->p[i])) {
					free(buf);
					return fail(ps, "bad \\u escape");
				}
				cp = cp * 16 + (unsigned)(isdigit((unsigned char)ps->p[i])
					? ps->p[i] - '0'
					: tolower((unsigned char)ps->p[i]) - 'a' + 10);
			}
			n += put_cp(buf + n, cp);
			ps->p += 4;
			break;
		}
		default:
			free(buf);
			return fail(ps, "bad escape");
		}
		ps->p++;
	}
	ps->p++;
	buf[n] = '\0';
	/* sized for the rest of the text: give back what it did not use */
	*out = realloc(buf, n + 1);
	if (!*out)
		*out = buf;
	return 0;
}

static int parse_number(struct parser *ps, struct jv *v)
{
	const char *start = ps->p;

	if (*ps->p == '-')
		ps->p++;
	if (*ps->p == '0')
		ps->p++;
	else if (isdigit((unsigned char)*ps->p))
		while (isdigit((unsigned char)*ps->p))
			ps->p++;
	else
		return fail(ps, "bad number");
	if (*ps->p == '.') {
		if (!isdigit((unsigned char)*++ps->p))
			return fail(ps, "bad fraction");
		while (isdigit((unsigned char)*ps->p))
			ps->p++;
	}
	if (*ps->p == 'e' || *ps->p == 'E') {
		ps->p++;
		if (*ps->p == '+' || *ps->p == '-')
			ps->p++;
		if (!isdigit((unsigned char)*ps->p))
			return fail(ps, "bad exponent");
		while (isdigit((unsigned char)*ps->p))
			ps->p++;
	}
	v->type = JV_NUMBER;
	v->text = strndup(start, (size_t)(ps->p - start));
	return v->text ? 0 : fail(ps, "out of memory");
}

/* Room for one more item (and key) in v. */
static int grow(struct parser *ps, struct jv *v)
{
	struct jv *items = realloc(v->items, (v->count + 1) * sizeof(*items));
	char **keys;

	if (!items)
		return fail(ps, "out of memory");
	v->items = items;
	memset(&v->items[v->count], 0, sizeof(*items));
	if (v->type == JV_OBJECT) {
		if (!(keys = realloc(v->keys, (v->count + 1) * sizeof(*keys))))
			return fail(ps, "out of memory");
		v->keys = keys;
		v->keys[v->count] = NULL;
	}
	return 0;
}

static int parse_container(struct parser *ps, struct jv *v, char close)
{
	v->type = close == '}' ? JV_OBJECT : JV_ARRAY;
	if (++ps->depth > 64)
		return fail(ps, "nested too deep");
	ps->p++;
	skip_ws(ps);
	if (*ps->p == close) {
		ps->p++;
		ps->depth--;
		return 0;
	}
	for (;;) {
		if (grow(ps, v) < 0)
			return -1;
		v->count++;	/* counted now, so jv_free() frees it */
		skip_ws(ps);
		if (v->type == JV_OBJECT) {
			if (*ps->p != '"')
				return fail(ps, "a member name must be a string");
			if (parse_string(ps, &v->keys[v->count - 1]) < 0)
				return -1;
			skip_ws(ps);
			if (*ps->p++ != ':')
				return fail(ps, "':' expected");
		}
		if (parse_value(ps, &v->items[v->count - 1]) < 0)
			return -1;
		skip_ws(ps);
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		if (*ps->p != close)
			return fail(ps, "',' or the end expected");
		ps->p++;
		ps->depth--;
		return 0;
	}
}

static int parse_word(struct parser *ps, struct jv *v, const char *word,
		      enum jv_type type, bool b)
{
	if (strncmp(ps->p, word, strlen(word)))
		return fail(ps, "unexpected character");
	ps->p += strlen(word);
	v->type = type;
	v->boolean = b;
	return 0;
}

static int parse_value(struct parser *ps, struct jv *v)
{
	skip_ws(ps);
	switch (*ps->p) {
	case '{': return parse_container(ps, v, '}');
	case '[': return parse_container(ps, v, ']');
	case '"': v->type = JV_STRING; return parse_string(ps, &v->text);
	case 't': return parse_word(ps, v, "true", JV_BOOL, true);
	case 'f': return parse_word(ps, v, "false", JV_BOOL, false);
	case 'n': return parse_word(ps, v, "null", JV_NULL, false);
	default: return parse_number(ps, v);
	}
}

static void free_inside(struct jv *v)
{
	for (size_t i = 0; i < v->count; i++) {
		free_inside(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->text);
}

void jv_free(struct jv *v)
{
	if (!v)
		return;
	free_inside(v);
	free(v);
}

struct jv *jv_parse(const char *text, char *err, size_t len)
{
	struct parser ps = { .s = text, .p = text, .err = err, .len = len };
	struct jv *v = calloc(1, sizeof(*v));

	err[0] = '\0';
	if (!v)
		return NULL;
	if (parse_value(&ps, v) == 0) {
		skip_ws(&ps);
		if (*ps.p == '\0')
			return v;
		fail(&ps, "more after the value");
	}
	jv_free(v);
	return NULL;
}

const struct jv *jv_get(const struct jv *v, const char *path)
{
	while (v && *path) {
		size_t n = strcspn(path, ".");
		const struct jv *next = NULL;

		if (v->type == JV_OBJECT) {
			for (size_t i = 0; i < v->count && !next; i++)
				if (strlen(v->keys[i]) == n &&
				    !strncmp(v->keys[i], path, n))
					next = &v->items[i];
		} else if (v->type == JV_ARRAY) {
			char *end;
			unsigned long i = strtoul(path, &end, 10);

			if (end == path + n && i < v->count)
				next = &v->items[i];
		}
		v = next;
		path += n + (path[n] == '.');
	}
	return v;
}

const char *jv_str(const struct jv *v, const char *path)
{
	const struct jv *s = jv_get(v, path);

	return s && s->type == JV_STRING ? s->text : NULL;
}

bool jv_has(const struct jv *v, const char *path, const char *key)
{
	const struct jv *o = jv_get(v, path);
	int seen = 0;

	for (size_t i = 0; o && o->type == JV_OBJECT && i < o->count; i++)
		seen += !strcmp(o->keys[i], key);
	return seen == 1;
}
