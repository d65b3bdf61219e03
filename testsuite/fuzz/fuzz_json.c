/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_json.c - the devns tool's JSON writer (util/json.c), given what
 * jobs choose: process names, mount points and paths of any bytes.  The
 * input is a program: NUL-separated parts, each an operation (its first
 * byte: open an object or an array, close one, a string, an integer, a
 * bool, a null) whose key and value are the rest of the part, cut at its
 * first \001.  Keys are given in objects and left out in arrays, as the
 * writer's users do.
 *
 * Contract: whatever the bytes, json_finish() fails only for nesting
 * JSON_MAX_DEPTH deep (json.h), and otherwise the output is one valid JSON
 * value (the strict reader of the tests, testsuite/lib/jsonread.c) that
 * holds exactly what was written, every key and string byte for byte.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "jsonread.h"
#include "util/json.h"

#define MAX_OPS 256

/* One token of the document's reading order, into f: kind, text, NUL. */
static void token(FILE *f, char kind, const char *text)
{
	fputc(kind, f);
	fputs(text, f);
	fputc('\0', f);
}

/* The tokens of a value read back, in document order. */
static void read_back(FILE *f, const struct jv *v)
{
	switch (v->type) {
	case JV_OBJECT:
		token(f, '{', "");
		for (size_t i = 0; i < v->count; i++) {
			token(f, 'k', v->keys[i]);
			read_back(f, &v->items[i]);
		}
		token(f, '}', "");
		break;
	case JV_ARRAY:
		token(f, '[', "");
		for (size_t i = 0; i < v->count; i++)
			read_back(f, &v->items[i]);
		token(f, ']', "");
		break;
	case JV_STRING: token(f, 's', v->text); break;
	case JV_NUMBER: token(f, 'n', v->text); break;
	case JV_BOOL: token(f, 'b', v->boolean ? "true" : "false"); break;
	case JV_NULL: token(f, '0', ""); break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *parts[MAX_OPS], *buf, *out = NULL, *want = NULL, *got = NULL;
	size_t out_len = 0, want_len = 0, got_len = 0;
	bool is_array[MAX_OPS + 1];
	int n = fuzz_split(data, size, parts, MAX_OPS, &buf), depth = 1;
	int deepest = 1;
	FILE *f = open_memstream(&out, &out_len);
	FILE *w = open_memstream(&want, &want_len);
	struct json j;
	char num[32], err[128];
	struct jv *v;

	if (!f || !w)
		abort();
	json_init(&j, f);
	json_object_begin(&j, NULL);
	token(w, '{', "");
	is_array[0] = false;
	for (int i = 0; i < n; i++) {
		char *key = parts[i][0] ? parts[i] + 1 : parts[i];
		char *value = strchr(key, '\001');

		if (value)
			*value++ = '\0';
		else
			value = key + strlen(key);
		if ((parts[i][0] % 8) == 2 || (parts[i][0] % 8) == 3) {
			if (depth == 1)
				continue;	/* the top object stays open */
			if (is_array[--depth]) {
				json_array_end(&j);
				token(w, ']', "");
			} else {
				json_object_end(&j);
				token(w, '}', "");
			}
			continue;
		}
		if (is_array[depth - 1])
			key = NULL;
		else
			token(w, 'k', key);
		switch (parts[i][0] % 8) {
		case 0:
			json_object_begin(&j, key);
			token(w, '{', "");
			is_array[depth++] = false;
			break;
		case 1:
			json_array_begin(&j, key);
			token(w, '[', "");
			is_array[depth++] = true;
			break;
		case 4:
			json_string(&j, key, value);
			token(w, 's', value);
			break;
		case 5:
			json_int(&j, key, strtoll(value, NULL, 0));
			snprintf(num, sizeof(num), "%lld",
				 strtoll(value, NULL, 0));
			token(w, 'n', num);
			break;
		case 6:
			json_uint(&j, key, strtoull(value, NULL, 0));
			snprintf(num, sizeof(num), "%llu",
				 strtoull(value, NULL, 0));
			token(w, 'n', num);
			break;
		default:
			if (*value) {
				json_bool(&j, key, *value & 1);
				token(w, 'b', *value & 1 ? "true" : "false");
			} else {
				json_null(&j, key);
				token(w, '0', "");
			}
		}
		if (depth > deepest)
			deepest = depth;
	}
	while (depth > 0) {
		if (is_array[--depth]) {
			json_array_end(&j);
			token(w, ']', "");
		} else {
			json_object_end(&j);
			token(w, '}', "");
		}
	}
	if (json_finish(&j) < 0) {
		/* refused: only for nesting deeper than the writer holds */
		if (errno != EINVAL || deepest < JSON_MAX_DEPTH)
			abort();
		goto out;
	}
	fflush(f);
	if (!(v = jv_parse(out, err, sizeof(err)))) {
		fprintf(stderr, "fuzz_json: %s in:\n%s\n", err, out);
		abort();
	}
	fclose(w);
	w = open_memstream(&got, &got_len);
	if (!w)
		abort();
	read_back(w, v);
	jv_free(v);
	fflush(w);
	if (got_len != want_len || memcmp(got, want, got_len))
		abort();	/* what was read back is not what was written */
out:
	fclose(f);
	fclose(w);
	free(out);
	free(want);
	free(got);
	free(buf);
	return 0;
}
