/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cdidoc.c - the tree of a CDI spec, and its JSON reader (the YAML one is
 * cdiyaml.c).  See cdidoc.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev/cdidoc.h"

static struct cdinode *parse_json(const char *text, const char *name,
				  struct report *rep);

struct cdinode *cdidoc_parse(const char *text, const char *name,
			     struct report *rep)
{
	size_t n = strlen(name);

	if (n >= 5 && !strcmp(name + n - 5, ".json"))
		return parse_json(text, name, rep);
	return cdidoc_parse_yaml(text, name, rep);
}

const struct cdinode *cdidoc_get(const struct cdinode *map, const char *key)
{
	if (!map || map->type != CDINODE_MAP)
		return NULL;
	for (size_t i = 0; i < map->count; i++)
		if (!strcmp(map->kids[i].key, key))
			return &map->kids[i];
	return NULL;
}

struct cdinode *cdidoc_add(struct cdinode *parent, enum cdinode_type type,
			   const char *key, int line)
{
	struct cdinode *kid;

	if (parent->count == parent->alloc) {
		size_t alloc = parent->alloc ? 2 * parent->alloc : 4;
		struct cdinode *k = realloc(parent->kids, alloc * sizeof(*k));

		if (!k)
			return NULL;
		parent->kids = k;
		parent->alloc = alloc;
	}
	kid = &parent->kids[parent->count];
	memset(kid, 0, sizeof(*kid));
	if (key && !(kid->key = strdup(key)))
		return NULL;
	kid->type = type;
	kid->line = line;
	parent->count++;
	return kid;
}

/* Releases what node holds, not node itself. */
static void node_clear(struct cdinode *node)
{
	for (size_t i = 0; i < node->count; i++)
		node_clear(&node->kids[i]);
	free(node->kids);
	free(node->key);
	free(node->str);
}

void cdidoc_free(struct cdinode *node)
{
	if (!node)
		return;
	node_clear(node);
	free(node);
}

/* ---- JSON ------------------------------------------------------------ */

struct jreader {
	const char *s;
	int line;
	int depth;
	const char *name;
	struct report *rep;
	bool failed;
};

int cdidoc_vfail(struct report *rep, const char *name, int line,
		 bool *failed, const char *fmt, va_list ap)
{
	char msg[256];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (!*failed)
		report_error(rep, "%s:%d: %s", name, line, msg);
	*failed = true;
	errno = EINVAL;
	return -1;
}

__attribute__((format(printf, 2, 3)))
static int jfail(struct jreader *r, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = cdidoc_vfail(r->rep, r->name, r->line, &r->failed, fmt, ap);
	va_end(ap);
	return rc;
}

static void jskip(struct jreader *r)
{
	for (;; r->s++) {
		if (*r->s == '\n')
			r->line++;
		else if (*r->s != ' ' && *r->s != '\t' && *r->s != '\r')
			return;
	}
}

/* What the next character is, for messages. */
static const char *jwhat(const struct jreader *r, char *buf, size_t len)
{
	if (!*r->s)
		return "the end of the file";
	if ((unsigned char)*r->s < 0x20 || (unsigned char)*r->s >= 0x7f)
		snprintf(buf, len, "byte 0x%02x", (unsigned char)*r->s);
	else
		snprintf(buf, len, "'%c'", *r->s);
	return buf;
}

static int hex4(const char *s, unsigned *out)
{
	*out = 0;
	for (int i = 0; i < 4; i++) {
		char c = s[i];
		unsigned v;

		if (c >= '0' && c <= '9')
			v = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v = (unsigned)(c - 'A' + 10);
		else
			return -1;
		*out = *out * 16 + v;
	}
	return 0;
}

/* Appends code point cp as UTF-8 to out[*n]. */
static void put_utf8(char *out, size_t *n, unsigned cp)
{
	if (cp < 0x80) {
		out[(*n)++] = (char)cp;
	} else if (cp < 0x800) {
		out[(*n)++] = (char)(0xc0 | (cp >> 6));
		out[(*n)++] = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		out[(*n)++] = (char)(0xe0 | (cp >> 12));
		out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[(*n)++] = (char)(0x80 | (cp & 0x3f));
	} else {
		out[(*n)++] = (char)(0xf0 | (cp >> 18));
		out[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
		out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[(*n)++] = (char)(0x80 | (cp & 0x3f));
	}
}

/*
 * One escape after the backslash at *s; appends it to out.  Returns 0, or
 * -1 with what is wrong in *why.
 */
static int unescape(const char **s, char *out, size_t *n, const char **why)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e = **s ? strchr(from, **s) : NULL;
	unsigned cp, lo;

	if (e) {
		out[(*n)++] = to[e - from];
		(*s)++;
		return 0;
	}
	*why = "unpaired surrogate in a string";
	if (**s != 'u' || hex4(*s + 1, &cp) < 0) {
		*why = "invalid escape in a string";
		return -1;
	}
	*s += 5;
	if (cp >= 0xd800 && cp < 0xdc00) {
		if ((*s)[0] != '\\' || (*s)[1] != 'u' ||
		    hex4(*s + 2, &lo) < 0 || lo < 0xdc00 || lo >= 0xe000)
			return -1;
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		*s += 6;
	} else if (cp >= 0xdc00 && cp < 0xe000) {
		return -1;
	}
	if (cp == 0) {
		*why = "NUL character in a string";
		return -1;
	}
	put_utf8(out, n, cp);
	return 0;
}

/* Bytes from the opening quote at s to its closing one, or to the end. */
static size_t quoted_span(const char *s)
{
	size_t i = 1;

	while (s[i] && s[i] != '"')
		i += (s[i] == '\\' && s[i + 1]) ? 2 : 1;
	return i;
}

char *cdidoc_quoted(const char **s, const char **why)
{
	char *out = malloc(quoted_span(*s) + 1); /* decoding never grows */
	size_t n = 0;

	*why = NULL;
	if (!out)
		return NULL;
	(*s)++;
	while (**s != '"') {
		if (!**s || (unsigned char)**s < 0x20) {
			*why = **s ? "control character in a string"
				   : "unterminated string";
			goto error;
		}
		if (**s == '\\') {
			(*s)++;
			if (unescape(s, out, &n, why) < 0)
				goto error;
		} else {
			out[n++] = *(*s)++;
		}
	}
	(*s)++;
	out[n] = '\0';
	return out;
error:
	free(out);
	errno = EINVAL;
	return NULL;
}

/* The string at r->s (on its quote), unescaped, to free(); NULL: failed. */
static char *jstring(struct jreader *r)
{
	const char *why;
	char *out = cdidoc_quoted(&r->s, &why);

	if (!out && why)
		jfail(r, "%s", why);
	return out;
}

static int jvalue(struct jreader *r, struct cdinode *node);

/* "{...}" into node (a mapping). */
static int jobject(struct jreader *r, struct cdinode *node)
{
	char what[32];

	node->type = CDINODE_MAP;
	r->s++;
	jskip(r);
	if (*r->s == '}') {
		r->s++;
		return 0;
	}
	for (;;) {
		struct cdinode *kid;
		char *key;
		int line;

		jskip(r);
		if (*r->s != '"')
			return jfail(r, "expected a member name, got %s",
				     jwhat(r, what, sizeof(what)));
		line = r->line;
		if (!(key = jstring(r)))
			return -1;
		if (cdidoc_get(node, key)) {
			jfail(r, "member \"%s\" given twice", key);
			free(key);
			return -1;
		}
		kid = cdidoc_add(node, CDINODE_NULL, key, line);
		free(key);
		if (!kid)
			return -1;
		jskip(r);
		if (*r->s != ':')
			return jfail(r, "expected ':', got %s",
				     jwhat(r, what, sizeof(what)));
		r->s++;
		if (jvalue(r, kid) < 0)
			return -1;
		jskip(r);
		if (*r->s == '}')
			break;
		if (*r->s != ',')
			return jfail(r, "expected ',' or '}', got %s",
				     jwhat(r, what, sizeof(what)));
		r->s++;
	}
	r->s++;
	return 0;
}

/* "[...]" into node (a sequence). */
static int jarray(struct jreader *r, struct cdinode *node)
{
	char what[32];

	node->type = CDINODE_SEQ;
	r->s++;
	jskip(r);
	if (*r->s == ']') {
		r->s++;
		return 0;
	}
	for (;;) {
		struct cdinode *kid = cdidoc_add(node, CDINODE_NULL, NULL,
						 r->line);

		if (!kid || jvalue(r, kid) < 0)
			return -1;
		jskip(r);
		if (*r->s == ']')
			break;
		if (*r->s != ',')
			return jfail(r, "expected ',' or ']', got %s",
				     jwhat(r, what, sizeof(what)));
		r->s++;
	}
	r->s++;
	return 0;
}

/* A number, true, false or null: kept as written. */
static int jword(struct jreader *r, struct cdinode *node)
{
	size_t len = strspn(r->s, "0123456789+-.eEabcdefghijklmnopqrstuvwxyz");
	char what[32];

	if (!len)
		return jfail(r, "expected a value, got %s",
			     jwhat(r, what, sizeof(what)));
	if (len == 4 && !strncmp(r->s, "null", 4)) {
		node->type = CDINODE_NULL;
	} else {
		if (!strchr("-0123456789", r->s[0]) &&
		    !(len == 4 && !strncmp(r->s, "true", 4)) &&
		    !(len == 5 && !strncmp(r->s, "false", 5)))
			return jfail(r, "invalid value \"%.*s\"",
				     (int)(len > 40 ? 40 : len), r->s);
		node->type = CDINODE_SCALAR;
		if (!(node->str = strndup(r->s, len)))
			return -1;
	}
	r->s += len;
	return 0;
}

static int jvalue(struct jreader *r, struct cdinode *node)
{
	int rc;

	jskip(r);
	node->line = r->line;
	if (++r->depth > CDIDOC_MAX_DEPTH)
		return jfail(r, "nested deeper than %d levels",
			     CDIDOC_MAX_DEPTH);
	if (*r->s == '{')
		rc = jobject(r, node);
	else if (*r->s == '[')
		rc = jarray(r, node);
	else if (*r->s == '"') {
		node->type = CDINODE_SCALAR;
		rc = (node->str = jstring(r)) ? 0 : -1;
	} else
		rc = jword(r, node);
	r->depth--;
	return rc;
}

/* The JSON reader behind cdidoc_parse(); same contract. */
static struct cdinode *parse_json(const char *text, const char *name,
				  struct report *rep)
{
	struct jreader r = { .s = text, .line = 1, .name = name, .rep = rep };
	struct cdinode *root = calloc(1, sizeof(*root));
	char what[32];

	if (!root)
		return NULL;
	if (jvalue(&r, root) < 0)
		goto error;
	jskip(&r);
	if (*r.s) {
		jfail(&r, "expected the end of the file, got %s",
		      jwhat(&r, what, sizeof(what)));
		goto error;
	}
	return root;
error:
	if (!r.failed)
		errno = ENOMEM;
	cdidoc_free(root);
	return NULL;
}
