/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cdiyaml.c - the YAML of CDI specs into a cdidoc tree: the block style
 * that nvidia-ctk and other generators write, nothing more (see
 * cdidoc.h).  The text is first cut into tokens, one per "- " and one per
 * remaining line content, each with its column; the tree is then read
 * from their columns alone, which is all block YAML's structure is.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev/cdidoc.h"

struct ytoken {
	int indent;	/* column of its first character, from 0 */
	int line;
	bool dash;	/* a "- " sequence item mark; else text */
	char *text;	/* the content, comment and trailing blanks cut */
};

struct yreader {
	char *copy;		/* the text, cut into lines in place */
	struct ytoken *tok;
	size_t count, alloc, next;
	int depth;
	const char *name;
	struct report *rep;
	bool failed;
};

__attribute__((format(printf, 3, 4)))
static int yfail(struct yreader *r, int line, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = cdidoc_vfail(r->rep, r->name, line, &r->failed, fmt, ap);
	va_end(ap);
	return rc;
}

static int tok_push(struct yreader *r, int indent, int line, bool dash,
		    char *text)
{
	if (r->count == r->alloc) {
		size_t alloc = r->alloc ? 2 * r->alloc : 64;
		struct ytoken *t = realloc(r->tok, alloc * sizeof(*t));

		if (!t)
			return -1;
		r->tok = t;
		r->alloc = alloc;
	}
	r->tok[r->count++] = (struct ytoken){ indent, line, dash, text };
	return 0;
}

/*
 * Cuts a comment ('#' at the start or after a blank, outside quotes) and
 * trailing blanks off s, in place.
 */
static void cut_comment(char *s)
{
	char quote = 0, *e;

	for (char *c = s; *c; c++) {
		if (quote) {
			if (*c == '\\' && quote == '"' && c[1])
				c++;
			else if (*c == quote)
				quote = 0;
		} else if (*c == '"' || *c == '\'') {
			quote = *c;
		} else if (*c == '#' && (c == s || c[-1] == ' ' ||
					 c[-1] == '\t')) {
			*c = '\0';
			break;
		}
	}
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
}

/* One physical line into tokens. */
static int tokenize_line(struct yreader *r, char *s, int line, bool *first)
{
	int col = 0;

	for (const char *c = s; *c; c++)
		if ((unsigned char)*c < 0x20 && *c != '\t' && *c != '\r')
			return yfail(r, line, "control byte 0x%02x",
				     (unsigned char)*c);
	while (s[col] == ' ')
		col++;
	if (s[col] == '\t')
		return yfail(r, line, "tab in indentation (YAML indents "
			     "with spaces)");
	cut_comment(s + col);
	if (!s[col])
		return 0;
	if (!strcmp(s + col, "---") && col == 0) {
		if (!*first)
			return yfail(r, line, "a second document: one spec "
				     "a file");
		*first = false;
		return 0;
	}
	if (s[col] == '%')
		return yfail(r, line, "YAML directives are not supported");
	*first = false;
	/* "- - x": a mark per dash, the content at its own column. */
	while (s[col] == '-' && (s[col + 1] == ' ' || !s[col + 1])) {
		if (tok_push(r, col, line, true, NULL) < 0)
			return -1;
		col++;
		while (s[col] == ' ')
			col++;
	}
	if (s[col] && tok_push(r, col, line, false, s + col) < 0)
		return -1;
	return 0;
}

static int tokenize(struct yreader *r)
{
	bool first = true;
	char *s = r->copy;

	for (int line = 1; s; line++) {
		char *nl = strchr(s, '\n');

		if (nl)
			*nl = '\0';
		if (tokenize_line(r, s, line, &first) < 0)
			return -1;
		s = nl ? nl + 1 : NULL;
	}
	return 0;
}

static const struct ytoken *peek(const struct yreader *r)
{
	return r->next < r->count ? &r->tok[r->next] : NULL;
}

/*
 * Where a key's ':' is in text (a ':' followed by a blank or the end,
 * outside quotes), NULL: the text is no "key: value".
 */
static char *find_colon(char *text)
{
	char quote = 0;

	for (char *c = text; *c; c++) {
		if (quote) {
			if (*c == '\\' && quote == '"' && c[1])
				c++;
			else if (*c == quote)
				quote = 0;
		} else if ((*c == '"' || *c == '\'') && c == text) {
			quote = *c;
		} else if (*c == ':' && (!c[1] || c[1] == ' ')) {
			return c;
		}
	}
	return NULL;
}

/* A single-quoted scalar at *s ('' is a quote); NULL: see *why. */
static char *single_quoted(const char **s, const char **why)
{
	char *out = malloc(strlen(*s) + 1);
	size_t n = 0;

	*why = NULL;
	if (!out)
		return NULL;
	for ((*s)++; ; (*s)++) {
		if (!**s) {
			*why = "unterminated string";
			free(out);
			errno = EINVAL;
			return NULL;
		}
		if (**s == '\'' && (*s)[1] != '\'')
			break;
		if (**s == '\'')
			(*s)++;
		out[n++] = **s;
	}
	(*s)++;
	out[n] = '\0';
	return out;
}

/*
 * A scalar written on one line into node: quoted, plain (null and ~ are
 * null), or [] and {}; what would need more of YAML is an error.
 */
static int scalar(struct yreader *r, struct cdinode *node, const char *text,
		  int line)
{
	const char *s = text, *why;

	node->line = line;
	if (*s == '"' || *s == '\'') {
		node->type = CDINODE_SCALAR;
		node->str = *s == '"' ? cdidoc_quoted(&s, &why)
				      : single_quoted(&s, &why);
		if (!node->str)
			return why ? yfail(r, line, "%s", why) : -1;
		if (*s)
			return yfail(r, line, "text after a quoted string: "
				     "\"%s\"", s);
		return 0;
	}
	if (!strcmp(s, "[]") || !strcmp(s, "{}")) {
		node->type = *s == '[' ? CDINODE_SEQ : CDINODE_MAP;
		return 0;
	}
	if (strchr("[]{}&*!|>%@`,?", *s))
		return yfail(r, line, "\"%s\": this YAML (flow collection, "
			     "anchor, alias, tag or block scalar) is not "
			     "supported (write lists as \"- item\" lines)",
			     text);
	if (!strcmp(s, "null") || !strcmp(s, "~") || !strcmp(s, "Null") ||
	    !strcmp(s, "NULL")) {
		node->type = CDINODE_NULL;
		return 0;
	}
	if (strstr(s, ": ") || s[strlen(s) - 1] == ':')
		return yfail(r, line, "\"%s\": a mapping needs a line of its "
			     "own", text);
	node->type = CDINODE_SCALAR;
	return (node->str = strdup(s)) ? 0 : -1;
}

static int block(struct yreader *r, struct cdinode *node);

/* After a value at indent, deeper text is misplaced. */
static int after_value(struct yreader *r, int indent)
{
	const struct ytoken *t = peek(r);

	if (t && t->indent > indent)
		return yfail(r, t->line, "unexpected indentation");
	return 0;
}

/* The value of a key with nothing after its ':' on the key's line. */
static int key_block(struct yreader *r, struct cdinode *kid, int indent)
{
	const struct ytoken *t = peek(r);

	/* A sequence may sit at its key's column. */
	if (t && (t->indent > indent || (t->dash && t->indent == indent)))
		return block(r, kid);
	kid->type = CDINODE_NULL;
	return 0;
}

/* One "key: value" token into map. */
static int map_entry(struct yreader *r, struct cdinode *map,
		     const struct ytoken *t)
{
	char *colon = find_colon(t->text), *value, *key;
	const char *kp = t->text, *why = NULL;
	int indent = t->indent, line = t->line, rc;
	struct cdinode *kid;

	if (!colon)
		return yfail(r, line, "expected \"key: value\", got \"%s\"",
			     t->text);
	*colon = '\0';
	value = colon + 1 + strspn(colon + 1, " ");
	if (*kp == '"' || *kp == '\'')
		key = *kp == '"' ? cdidoc_quoted(&kp, &why)
				 : single_quoted(&kp, &why);
	else
		key = strdup(kp);
	if (!key)
		return why ? yfail(r, line, "key: %s", why) : -1;
	if (*kp && (t->text[0] == '"' || t->text[0] == '\'')) {
		free(key);
		return yfail(r, line, "text after a quoted key");
	}
	if (cdidoc_get(map, key)) {
		rc = yfail(r, line, "key \"%s\" given twice", key);
		free(key);
		return rc;
	}
	kid = cdidoc_add(map, CDINODE_NULL, key, line);
	free(key);
	if (!kid)
		return -1;
	r->next++;
	rc = *value ? scalar(r, kid, value, line) : key_block(r, kid, indent);
	return rc < 0 ? -1 : after_value(r, indent);
}

static int mapping(struct yreader *r, struct cdinode *node, int indent)
{
	const struct ytoken *t;

	node->type = CDINODE_MAP;
	while ((t = peek(r)) && !t->dash && t->indent == indent)
		if (map_entry(r, node, t) < 0)
			return -1;
	return 0;
}

static int sequence(struct yreader *r, struct cdinode *node, int indent)
{
	const struct ytoken *t;

	node->type = CDINODE_SEQ;
	while ((t = peek(r)) && t->dash && t->indent == indent) {
		struct cdinode *kid = cdidoc_add(node, CDINODE_NULL, NULL,
						 t->line);

		if (!kid)
			return -1;
		r->next++;
		t = peek(r);
		if (t && t->indent > indent && block(r, kid) < 0)
			return -1;
		if (after_value(r, indent) < 0)
			return -1;
	}
	return 0;
}

/* The value that starts at the next token. */
static int block(struct yreader *r, struct cdinode *node)
{
	const struct ytoken *t = peek(r);
	int rc;

	if (!node->line)	/* a key's value: the key's line */
		node->line = t->line;
	if (++r->depth > CDIDOC_MAX_DEPTH)
		return yfail(r, t->line, "nested deeper than %d levels",
			     CDIDOC_MAX_DEPTH);
	if (t->dash)
		rc = sequence(r, node, t->indent);
	else if (find_colon(t->text))
		rc = mapping(r, node, t->indent);
	else {
		r->next++;
		rc = scalar(r, node, t->text, t->line);
	}
	r->depth--;
	return rc;
}

struct cdinode *cdidoc_parse_yaml(const char *text, const char *name,
				  struct report *rep)
{
	struct yreader r = { .name = name, .rep = rep };
	struct cdinode *root = calloc(1, sizeof(*root));
	const struct ytoken *t;

	if (!root || !(r.copy = strdup(text)))
		goto error;
	if (tokenize(&r) < 0)
		goto error;
	if (!r.count) {
		yfail(&r, 1, "no content");
		goto error;
	}
	if (block(&r, root) < 0)
		goto error;
	if ((t = peek(&r))) {
		yfail(&r, t->line, "unexpected %s after the document's end",
		      t->dash ? "\"- \"" : "text");
		goto error;
	}
	free(r.tok);
	free(r.copy);
	return root;
error:
	if (!r.failed)
		errno = ENOMEM;
	free(r.tok);
	free(r.copy);
	cdidoc_free(root);
	return NULL;
}
