/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_json.c - the JSON writer (util/json.h): escaping of quotes,
 * backslashes, control characters, DEL and bytes that are no UTF-8; the
 * layout of nested objects and arrays; every value type; misuse caught by
 * json_finish(); and every output read back by the tests' strict reader
 * (testsuite/lib/jsonread.h), which must itself refuse what is not JSON.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "jsonread.h"
#include "tap.h"

static char *buf;
static size_t len;

static FILE *start(struct json *j)
{
	FILE *f = open_memstream(&buf, &len);

	if (f)
		json_init(j, f);
	return f;
}

/* Closes f; buf holds what was written. */
static void stop(FILE *f)
{
	fclose(f);
}

static const char *escaped(const char *s)
{
	static char out[512];
	FILE *f = fmemopen(out, sizeof(out), "w");

	struct json j;

	if (!f)
		return "";
	/* One string at the top level: just the string, quoted. */
	json_init(&j, f);
	json_string(&j, NULL, s);
	fclose(f);
	return out;
}

static void test_escape(void)
{
	is_str(escaped("plain /dev/nvidia0"), "\"plain /dev/nvidia0\"",
	       "printable ASCII as it is");
	is_str(escaped("a\"b\\c"), "\"a\\\"b\\\\c\"",
	       "a quote and a backslash escaped");
	is_str(escaped("\x1b[2J\nfake\t\x7f"),
	       "\"\\u001b[2J\\u000afake\\u0009\\u007f\"",
	       "control characters and DEL as \\u00XX");
	is_str(escaped("m\xc3\xbc\xff"), "\"m\\u00c3\\u00bc\\u00ff\"",
	       "each byte >= 0x80 as \\u00XX, UTF-8 or not");
	is_str(escaped(""), "\"\"", "the empty string");
	is_str(escaped(NULL), "null", "NULL is null");
}

/* Every type, nested, read back with the values it was given. */
static void test_document(void)
{
	static const char want[] =
		"{\n"
		"  \"s\": \"x\\\"y\",\n"
		"  \"t\": true,\n"
		"  \"f\": false,\n"
		"  \"n\": null,\n"
		"  \"i\": -42,\n"
		"  \"u\": 18446744073709551615,\n"
		"  \"empty\": {},\n"
		"  \"none\": [],\n"
		"  \"list\": [\n"
		"    {\n"
		"      \"path\": \"/dev/\\u0001\"\n"
		"    },\n"
		"    \"two\"\n"
		"  ]\n"
		"}\n";
	struct json j;
	struct jv *v;
	char err[128];
	FILE *f = start(&j);

	if (!ok(f != NULL, "precondition: a memory stream"))
		return;
	json_object_begin(&j, NULL);
	json_string(&j, "s", "x\"y");
	json_bool(&j, "t", true);
	json_bool(&j, "f", false);
	json_null(&j, "n");
	json_int(&j, "i", -42);
	json_uint(&j, "u", UINT64_MAX);
	json_object_begin(&j, "empty");
	json_object_end(&j);
	json_array_begin(&j, "none");
	json_array_end(&j);
	json_array_begin(&j, "list");
	json_object_begin(&j, NULL);
	json_string(&j, "path", "/dev/\x01");
	json_object_end(&j);
	json_string(&j, NULL, "two");
	json_array_end(&j);
	json_object_end(&j);
	is_int(json_finish(&j), 0, "a balanced document finishes");
	stop(f);
	is_str(buf, want, "one member a line, two spaces a level");
	v = jv_parse(buf, err, sizeof(err));
	ok(v != NULL, "  it reads back as JSON%s%s", v ? "" : ": ", err);
	is_str(jv_str(v, "s"), "x\"y", "  the string with its quote");
	is_str(jv_str(v, "list.0.path"), "/dev/\x01", "  the control byte back");
	is_str(jv_str(v, "list.1"), "two", "  an array's string");
	ok(jv_get(v, "t") && jv_get(v, "t")->boolean &&
	   jv_get(v, "f") && !jv_get(v, "f")->boolean &&
	   jv_get(v, "n") && jv_get(v, "n")->type == JV_NULL,
	   "  true, false, null");
	is_str(jv_get(v, "u") ? jv_get(v, "u")->text : NULL,
	       "18446744073709551615", "  the largest uint64");
	ok(jv_has(v, "", "empty") && jv_get(v, "empty")->count == 0 &&
	   jv_get(v, "none")->type == JV_ARRAY, "  empty object and array");
	jv_free(v);
	free(buf);
}

/* The bytes of any string come back whole: a round trip of all 255. */
static void test_round_trip(void)
{
	char all[256], err[128];
	bool ascii;
	struct json j;
	struct jv *v;
	FILE *f = start(&j);

	if (!ok(f != NULL, "precondition: a memory stream"))
		return;
	for (int i = 1; i < 256; i++)
		all[i - 1] = (char)i;
	all[255] = '\0';
	json_object_begin(&j, NULL);
	json_string(&j, "all", all);
	json_object_end(&j);
	json_finish(&j);
	stop(f);
	ascii = true;
	for (const char *p = buf; *p; p++)
		ascii = ascii && ((*p >= 0x20 && *p < 0x7f) || *p == '\n');
	ok(ascii,
	   "bytes 1-255: the output is printable ASCII only");
	v = jv_parse(buf, err, sizeof(err));
	is_str(jv_str(v, "all"), all, "  and reads back byte for byte%s",
	       err);
	jv_free(v);
	free(buf);
}

static void misuse(const char *what, int opens, int closes)
{
	struct json j;
	FILE *f = start(&j);

	if (!f)
		return;
	for (int i = 0; i < opens; i++)
		json_array_begin(&j, NULL);
	for (int i = 0; i < closes; i++)
		json_array_end(&j);
	errno = 0;
	is_int(json_finish(&j), -1, "json_finish refuses %s", what);
	is_int(errno, EINVAL, "  with EINVAL");
	stop(f);
	free(buf);
}

/*
 * JSON_MAX_DEPTH - 1 levels are the most the writer takes (json.h says so
 * since the fuzzer held it to the header's old wording, one more).
 */
static void test_deepest(void)
{
	struct json j;
	FILE *f = start(&j);

	if (!f)
		return;
	for (int i = 0; i < JSON_MAX_DEPTH - 1; i++)
		json_array_begin(&j, NULL);
	for (int i = 0; i < JSON_MAX_DEPTH - 1; i++)
		json_array_end(&j);
	is_int(json_finish(&j), 0, "json_finish takes JSON_MAX_DEPTH - 1 "
	       "levels");
	stop(f);
	free(buf);
}

/* The reader the tool's tests rely on refuses what is not JSON. */
static void test_reader_refuses(void)
{
	static const char *const bad[] = {
		"", "{", "{\"a\":1,}", "[1,]", "{a:1}", "{\"a\" 1}",
		"\"raw\x01control\"", "\"\\x41\"", "01", "1.", "tru", "{} {}",
		"[1 2]", NULL,
	};
	char err[128];

	for (size_t i = 0; bad[i]; i++) {
		struct jv *v = jv_parse(bad[i], err, sizeof(err));

		ok(v == NULL && err[0], "the reader refuses '%s' (%s)", bad[i],
		   err);
		jv_free(v);
	}
}

int main(void)
{
	test_escape();
	test_document();
	test_round_trip();
	misuse("an unclosed array", 1, 0);
	misuse("one close too many", 1, 2);
	misuse("nesting JSON_MAX_DEPTH deep", JSON_MAX_DEPTH, JSON_MAX_DEPTH);
	test_deepest();
	test_reader_refuses();
	return tap_done();
}
