/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsconf_allow.c - DeviceAllow lines, added up as systemd adds up its
 * DeviceAllow= lines: each global line adds its entries to the global
 * set, and the NodeName lines that name the node add up into a set of
 * their own that replaces the global one for that node (a node's list is
 * written out whole, so that no global entry reaches it unseen).
 * DeviceAllow=none empties the set of its kind.  Each value is read
 * once (devallow_read), on pass 1, and its entries handed on with it.
 * See nsconf_int.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf/nsconf_int.h"
#include "dev/devallow.h"

/* Drop c's DeviceAllow lines: a NodeName set begins, or "none". */
static void allow_clear(struct nsconf *c)
{
	for (size_t i = 0; i < c->allow_count; i++) {
		free(c->allow[i].value);
		devallow_list_free(&c->allow[i].entries);
	}
	c->allow_count = 0;
}

void nsconf_allow_free(struct nsconf *c)
{
	allow_clear(c);
	free(c->allow);
	free(c->device_allow);
	c->allow = NULL;
	c->device_allow = NULL;
}

void nsconf_allow_read_free(struct parser *p)
{
	for (size_t i = 0; i < p->allow_read_count; i++)
		devallow_list_free(&p->allow_read[i].entries);
	free(p->allow_read);
	p->allow_read = NULL;
	p->allow_read_count = 0;
}

/*
 * Append one line's value to c's set, with its entries (moved: *entries
 * is empty after).  Returns 0 or -1 (ENOMEM).
 */
static int allow_push(struct nsconf *c, const char *value, int line,
		      struct devallow_list *entries)
{
	struct nsconf_allow *v;
	char *copy = strdup(value);

	if (!copy)
		return -1;
	v = realloc(c->allow, (c->allow_count + 1) * sizeof(*v));
	if (!v) {
		free(copy);
		return -1;
	}
	c->allow = v;
	v[c->allow_count].value = copy;
	v[c->allow_count].line = line;
	v[c->allow_count].entries = *entries;
	memset(entries, 0, sizeof(*entries));
	c->allow_count++;
	return 0;
}

/*
 * Keep a NodeName line's entries, read on pass 1, for pass 2 (moved).
 * Returns 0 or -1 (ENOMEM).
 */
static int allow_keep(struct parser *p, struct devallow_list *entries)
{
	struct nsconf_allow *v;

	v = realloc(p->allow_read, (p->allow_read_count + 1) * sizeof(*v));
	if (!v)
		return -1;
	p->allow_read = v;
	v[p->allow_read_count] = (struct nsconf_allow){
		.line = p->line,
		.entries = *entries,
	};
	memset(entries, 0, sizeof(*entries));
	p->allow_read_count++;
	return 0;
}

/* Pass 2: take the entries pass 1 read on this line (moved). */
static void allow_take(struct parser *p, struct devallow_list *entries)
{
	for (size_t i = 0; i < p->allow_read_count; i++) {
		if (p->allow_read[i].line == p->line) {
			*entries = p->allow_read[i].entries;
			memset(&p->allow_read[i].entries, 0,
			       sizeof(*entries));
			return;
		}
	}
}

/* Tell whether one entry of the comma-separated value is "none". */
static bool has_none(const char *value)
{
	for (const char *s = value; *s; ) {
		size_t len;

		s += strspn(s, " \t");
		len = strcspn(s, ",");
		while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
			len--;
		if (len == 4 && !strncasecmp(s, "none", 4))
			return true;
		s += strcspn(s, ",");
		s += *s == ',';
	}
	return false;
}

/*
 * Every line is read on pass 1, which sees every line once: a typo on
 * another node's line must stop this slurmd too, as every other error in
 * the file does, not wait for that node to start.  Devices are not looked
 * at: this node need not have them.  What is read is kept (out), so that
 * nothing reads the value again.
 */
static int allow_read(struct parser *p, const char *key, const char *value,
		      struct devallow_list *out)
{
	struct report check;

	if (strcasecmp(value, "none") && has_none(value))
		return nsconf_error(p, "%s: \"none\" empties the list and "
				    "stands alone, not in \"%s\"", key, value);
	if (!strcasecmp(value, "none"))
		return 0;
	report_init(&check, NULL, NULL);
	if (devallow_read(value, out, &check) >= 0)
		return 0;
	if (errno == ENOMEM)
		return -1;
	/* DeviceAllow=/dev/fuse rw: the blank ended the value. */
	if (strstr(check.msg, "has no ':ACCESS'") && !strpbrk(value, " \t"))
		return nsconf_error(p, "%s; a value with blanks needs quotes: "
				    "%s=\"/dev/fuse rw\"", check.msg, key);
	return nsconf_error(p, "%s", check.msg);
}

int nsconf_key_device_allow(struct parser *p, struct nsconf *c,
			    const char *key, const char *value)
{
	struct devallow_list entries = { NULL, 0, 0 };
	int rc;

	if (!p->pass2 && allow_read(p, key, value, &entries) < 0)
		return -1;
	/* Pass 1 reads a NodeName line into scratch: keep it for pass 2. */
	if (!p->pass2 && c != p->conf) {
		rc = allow_keep(p, &entries);
		devallow_list_free(&entries);
		return rc;
	}
	if (p->pass2)
		allow_take(p, &entries);
	/* The node's first line replaces the global set. */
	if (p->pass2 && !(p->node_set & (1u << KEY_DEVICE_ALLOW))) {
		allow_clear(c);
		c->allow_none_line = 0;
	}
	if (!strcasecmp(value, "none")) {
		allow_clear(c);
		c->allow_none_line = p->line;
		return 0;
	}
	c->allow_none_line = 0;
	rc = allow_push(c, value, p->line, &entries);
	devallow_list_free(&entries);
	return rc;
}

int nsconf_allow_join(struct nsconf *c)
{
	size_t len = 0, used = 0;
	char *s;

	if (!c->allow_count)
		return 0;
	for (size_t i = 0; i < c->allow_count; i++)
		len += strlen(c->allow[i].value) + 1;
	if (!(s = malloc(len)))
		return -1;
	for (size_t i = 0; i < c->allow_count; i++) {
		size_t n = strlen(c->allow[i].value);

		if (i)
			s[used++] = ',';
		memcpy(s + used, c->allow[i].value, n);
		used += n;
	}
	s[used] = '\0';
	free(c->device_allow);
	c->device_allow = s;
	return 0;
}
