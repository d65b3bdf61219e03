/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * print.c - devns's "key value" output lines.  See print.h.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>

#include "print.h"

void print_escaped(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\\')
			fputs("\\\\", f);
		else if (*p >= 0x20 && *p < 0x7f)
			fputc(*p, f);
		else
			fprintf(f, "\\x%02x", *p);
	}
}

void print_kv(const char *key, const char *value)
{
	printf("%s ", key);
	print_escaped(stdout, value);
	putchar('\n');
}

void print_fields(const char *key, ...)
{
	const char *field;
	va_list ap;

	fputs(key, stdout);
	va_start(ap, key);
	while ((field = va_arg(ap, const char *))) {
		putchar(' ');
		print_escaped(stdout, field);
	}
	va_end(ap);
	putchar('\n');
}

void print_list(const char *key, const char *const *items)
{
	printf("%s ", key);
	for (size_t i = 0; items && items[i]; i++) {
		if (i)
			putchar(',');
		print_escaped(stdout, items[i]);
	}
	printf("%s\n", items && items[0] ? "" : "none");
}

void print_size(const char *key, uint64_t bytes)
{
	if (bytes)
		printf("%s %" PRIu64 "\n", key, bytes);
	else
		print_kv(key, "none");
}

const char *print_from(const char *file, int line, char *buf, size_t len)
{
	if (line)
		snprintf(buf, len, " (%s:%d)", file, line);
	else
		snprintf(buf, len, " (default)");
	return buf;
}

void print_kv_from(const char *key, const char *value, const char *file,
		   int line)
{
	char from[PATH_MAX + 32];

	printf("%s ", key);
	print_escaped(stdout, value);
	print_escaped(stdout, print_from(file, line, from, sizeof(from)));
	putchar('\n');
}

void print_size_from(const char *key, uint64_t bytes, const char *file,
		     int line)
{
	char value[32];

	if (bytes)
		snprintf(value, sizeof(value), "%" PRIu64, bytes);
	else
		snprintf(value, sizeof(value), "none");
	print_kv_from(key, value, file, line);
}

const char *print_layout(enum cgroup2_layout layout)
{
	switch (layout) {
	case CGROUP2_HYBRID:
		return "hybrid";
	case CGROUP2_UNIFIED:
		return "unified";
	default:
		return "none";
	}
}

void print_rules(const struct devrule_list *list)
{
	char buf[64];

	for (size_t i = 0; i < list->count; i++)
		if (devrule_format(&list->rules[i], buf, sizeof(buf)) >= 0)
			print_kv("device", buf);
	print_kv("default", list->default_allow ? "allow" : "deny");
}
