/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * print.c - devns's "key value" output lines.  See print.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ns/nsusage.h"
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

void print_share_from(const char *key, uint64_t bytes, unsigned percent,
		      const char *file, int line)
{
	char value[32];

	if (!percent) {
		print_size_from(key, bytes, file, line);
		return;
	}
	snprintf(value, sizeof(value), "%u%%", percent);
	print_kv_from(key, value, file, line);
}

const char *print_filter_state(const struct jobct_remains *r)
{
	if (!r->has_marker)
		return "unset";
	if (r->marker_unknown)
		return "unknown";
	return r->filtered ? "yes" : "no";
}

void print_disk(const struct jobct_remains *r)
{
	if (!r->has_disk_limit) {
		printf(" none");
		return;
	}
	printf(" %" PRIu64 "/%" PRIu64 " inodes %" PRIu64 "/%" PRIu64,
	       r->disk_used, r->disk_limit, r->inodes_used, r->inode_limit);
}

void print_disk_json(struct json *j, const struct jobct_remains *r)
{
	if (!r->has_disk_limit) {
		json_null(j, "disk");
		return;
	}
	json_object_begin(j, "disk");
	json_uint(j, "used", r->disk_used);
	json_uint(j, "limit", r->disk_limit);
	json_uint(j, "inodes_used", r->inodes_used);
	json_uint(j, "inode_limit", r->inode_limit);
	json_object_end(j);
}

/* The live figures of r's job into *u; false when it has none. */
static bool usage_of(const struct nsconf *conf, const struct jobct_remains *r,
		     struct nsusage *u)
{
	return r->ns_id && nsusage_read(conf, r->job_id, u, NULL) == 0;
}

void print_usage(const struct nsconf *conf, const struct jobct_remains *r,
		 bool lines)
{
	struct nsusage *u = malloc(sizeof(*u));
	char buf[1024];

	if (!u || !usage_of(conf, r, u)) {
		if (!lines)
			printf(" none");
		free(u);
		return;
	}
	if (!lines) {
		nsusage_format(u, NULL, buf, sizeof(buf));
		/* without its "devns:" */
		printf(" %s", buf + 6);
	}
	for (int i = 0; lines && i < u->count; i++) {
		const struct nsusage_dir *d = &u->dirs[i];

		printf("usage %s %" PRIu64 "/%" PRIu64 " inodes %" PRIu64
		       "/%" PRIu64 "%s\n", d->path, d->bytes, d->bytes_limit,
		       d->inodes, d->inodes_limit, d->partial ? " partial" : "");
	}
	free(u);
}

void print_usage_json(struct json *j, const struct nsconf *conf,
		      const struct jobct_remains *r)
{
	struct nsusage *u = malloc(sizeof(*u));

	if (!u || !usage_of(conf, r, u)) {
		json_null(j, "usage");
		free(u);
		return;
	}
	json_array_begin(j, "usage");
	for (int i = 0; i < u->count; i++) {
		const struct nsusage_dir *d = &u->dirs[i];

		json_object_begin(j, NULL);
		json_string(j, "path", d->path);
		json_bool(j, "tmpfs", d->tmpfs);
		json_uint(j, "bytes", d->bytes);
		if (d->bytes_limit)
			json_uint(j, "bytes_limit", d->bytes_limit);
		else
			json_null(j, "bytes_limit");
		json_uint(j, "inodes", d->inodes);
		if (d->inodes_limit)
			json_uint(j, "inode_limit", d->inodes_limit);
		else
			json_null(j, "inode_limit");
		json_bool(j, "partial", d->partial);
		json_object_end(j);
	}
	json_array_end(j);
	free(u);
}

/* The file of rule r, NULL when none is known (or it is for any minor). */
static const char *rule_path(const struct devrule *r,
			     const struct devnames *names)
{
	return r->any_minor ? NULL
			    : devnames_find(names, r->type, r->major, r->minor);
}

void print_rules(const struct devrule_list *list,
		 const struct devnames *names)
{
	char buf[64];

	for (size_t i = 0; i < list->count; i++) {
		const char *path = rule_path(&list->rules[i], names);

		if (devrule_format(&list->rules[i], buf, sizeof(buf)) >= 0)
			print_fields("device", buf, path ? path : "-",
				     (char *)NULL);
	}
	print_kv("default", list->default_allow ? "allow" : "deny");
}

void print_rules_json(struct json *j, const struct devrule_list *list,
		      const struct devnames *names)
{
	char buf[64];

	json_string(j, "default", list->default_allow ? "allow" : "deny");
	json_array_begin(j, "devices");
	for (size_t i = 0; i < list->count; i++) {
		const struct devrule *r = &list->rules[i];
		char type[2] = { r->type, '\0' };

		if (devrule_format(r, buf, sizeof(buf)) < 0)
			continue;
		json_object_begin(j, NULL);
		json_string(j, "rule", buf);
		json_string(j, "type", type);
		json_uint(j, "major", r->major);
		if (r->any_minor)
			json_null(j, "minor");
		else
			json_uint(j, "minor", r->minor);
		/* devrule_format()'s third field: "rwm", "-" for none */
		json_string(j, "access", strrchr(buf, ' ') + 1);
		json_string(j, "path", rule_path(r, names));
		json_object_end(j);
	}
	json_array_end(j);
}

/*
 * Adds the path of each entry of a DeviceAllow line that names one
 * device by its path (as read at load); globs, classes and numbers name
 * none.
 */
static int names_of_allow(struct devnames *names,
			  const struct devallow_list *entries)
{
	for (size_t i = 0; i < entries->n; i++)
		if (entries->v[i].kind == DEVALLOW_PATH &&
		    devnames_add(names, entries->v[i].spec) < 0)
			return -1;
	return 0;
}

int print_names_load(struct devnames *names, const struct nsconf *c,
		     const char *const *gres_files)
{
	devnames_init(names);
	for (size_t i = 0; gres_files && gres_files[i]; i++)
		if (devnames_add(names, gres_files[i]) < 0)
			return -1;
	for (size_t i = 0; i < c->allow_count; i++)
		if (names_of_allow(names, &c->allow[i].entries) < 0)
			return -1;
	/* /dev unreadable: no names, the rules print with "-" */
	if (devnames_scan(names, "/dev") < 0 && errno == ENOMEM)
		return -1;
	return 0;
}
