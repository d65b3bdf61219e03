/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jsonread.h - a strict JSON reader for the tests: it proves that what the
 * devns tool printed is one well-formed JSON value (RFC 8259: no trailing
 * commas, no bare words, no control characters in strings, nothing after
 * the value) and looks values up by path, so a test asserts keys and
 * values, not text.
 */
#ifndef DEVNS_JSONREAD_H
#define DEVNS_JSONREAD_H

#include <stdbool.h>
#include <stddef.h>

enum jv_type { JV_NULL, JV_BOOL, JV_NUMBER, JV_STRING, JV_ARRAY, JV_OBJECT };

struct jv {
	enum jv_type type;
	bool boolean;
	char *text;		/* a string, decoded (\u00XX as one byte,
				 * higher code points as UTF-8); a number
				 * as written */
	size_t count;		/* items or members */
	struct jv *items;
	char **keys;		/* an object's, in order */
};

/*
 * Parses text, which must hold one JSON value and white space only.
 * Returns the value (free with jv_free()), or NULL with a message naming
 * the offset in err[len].
 */
struct jv *jv_parse(const char *text, char *err, size_t len);

void jv_free(struct jv *v);

/*
 * The value at path: member names and array indices joined by dots
 * ("settings.0.key"); "" is v itself.  NULL when there is none.
 */
const struct jv *jv_get(const struct jv *v, const char *path);

/* The string at path, NULL when there is none or it is no string. */
const char *jv_str(const struct jv *v, const char *path);

/* Whether the object at path has member key, exactly once. */
bool jv_has(const struct jv *v, const char *path, const char *key);

#endif /* DEVNS_JSONREAD_H */
