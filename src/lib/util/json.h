/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * json.h - a small streaming JSON writer, for the devns tool's --json
 * output: members go out as they are given, two spaces of indent a level,
 * so a caller needs no tree and no library.
 *
 * Strings are written as pure ASCII: printable ASCII as it is, a quote and
 * a backslash escaped (\" \\), every other byte (control characters, DEL,
 * and each byte >= 0x80) as \u00XX.  So the output is valid JSON whatever
 * bytes a string holds (process names and mount points are chosen by the
 * job's user and need not be UTF-8), and the bytes can be had back: each
 * character of a decoded string is one byte (in Python,
 * s.encode("latin-1")).
 *
 * Usage: json_init(), one json_object_begin(j, NULL) ... json_object_end(),
 * then json_finish().  Inside an object every call names its key; inside an
 * array the key is NULL.
 */
#ifndef DEVNS_JSON_H
#define DEVNS_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Objects and arrays nested this deep are a misuse (json_finish): at most
 * JSON_MAX_DEPTH - 1 levels.
 */
#define JSON_MAX_DEPTH 16

struct json {
	FILE *f;
	int depth;			/* open objects and arrays */
	bool empty[JSON_MAX_DEPTH];	/* nothing in the one at that depth */
	bool misused;			/* unbalanced or too deep */
};

/* A writer to f, with nothing written. */
void json_init(struct json *j, FILE *f);

/* Opens an object or an array, as member key (NULL: in an array, or the
 * top level). */
void json_object_begin(struct json *j, const char *key);
void json_array_begin(struct json *j, const char *key);

/* Closes the innermost object or array. */
void json_object_end(struct json *j);
void json_array_end(struct json *j);

/* One value, as member key (NULL: in an array). */
void json_string(struct json *j, const char *key, const char *value);
void json_bool(struct json *j, const char *key, bool value);
void json_int(struct json *j, const char *key, int64_t value);
void json_uint(struct json *j, const char *key, uint64_t value);
void json_null(struct json *j, const char *key);

/*
 * Ends the output with a newline and flushes it.  Returns 0, or -1 with
 * errno EINVAL when objects were left open, closed once too often or
 * nested too deep, or the errno of a failed write.
 */
int json_finish(struct json *j);

#endif /* DEVNS_JSON_H */
