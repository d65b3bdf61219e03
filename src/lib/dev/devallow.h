/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devallow.h - DeviceAllow values read once, at load, into entries
 * (every node's lines: the syntax), and, for devns check, the globs and
 * classes of those entries against this node's devices.
 * devpolicy_load_lines() (devpolicy.h) resolves the same entries.
 */
#ifndef DEVNS_DEVALLOW_H
#define DEVNS_DEVALLOW_H

#include <stddef.h>

#include "dev/devrule.h"
#include "util/report.h"

/* What the device part of an entry is. */
enum devallow_kind {
	DEVALLOW_NUMBERS,	/* "c 195:*": a rule as it is */
	DEVALLOW_PATH,		/* an absolute device path */
	DEVALLOW_GLOB,		/* an absolute path with * ? [ */
	DEVALLOW_CLASS,		/* char-NAME or block-NAME, NAME maybe a
				 * pattern */
};

/* One well-formed entry of a DeviceAllow value. */
struct devallow_entry {
	enum devallow_kind kind;
	char *name;		/* as written, "SPEC:ACCESS" or "SPEC
				 * ACCESS", for messages */
	char *spec;		/* its device part, as written */
	unsigned access;	/* DEVRULE_R | DEVRULE_W | DEVRULE_M */
	struct devrule rule;	/* DEVALLOW_NUMBERS: the rule */
};

/* A DeviceAllow value, read (devallow_read). */
struct devallow_list {
	struct devallow_entry *v;
	size_t n;
	int written;		/* entries written, malformed ones too */
};

/*
 * Reads a DeviceAllow value (its three forms, SPEC an absolute path,
 * char-NAME or block-NAME, the numbers within Linux's limits, ACCESS a
 * non-empty subset of rwm) into out, without looking at any device or
 * at /proc/devices: the value is read once, at load, for every node's
 * lines, and what this node's lines say is resolved from out
 * (devpolicy_load_lines, devallow_check_patterns).  out may be NULL to
 * check the syntax alone.  Every error is reported; nothing is a
 * warning.  Returns the number of entries written, or -1 with EINVAL
 * when an error was reported (out is empty then), or ENOMEM; free out
 * with devallow_list_free().
 */
int devallow_read(const char *text, struct devallow_list *out,
		  struct report *rep);

/* Free a list's entries; the list is empty after. */
void devallow_list_free(struct devallow_list *list);

/* A copy of src into dst.  Returns 0, or -1 with ENOMEM (dst empty). */
int devallow_list_copy(struct devallow_list *dst,
		       const struct devallow_list *src);

/*
 * devns check's look at this node's devices: each glob of the read
 * DeviceAllow value (a device path with * ? [) must match a device node
 * of the node,
 * and each class (char-NAME or block-NAME, NAME maybe a pattern) a class
 * of proc_devices (NULL: /proc/devices); one that matches nothing is an
 * error, "WHERE: DeviceAllow entry '...': no ...", where the load only
 * warns.  Paths and numbers are not looked at (devpolicy_load_lines() warns
 * about a missing path).  Returns 0, or -1 with EINVAL after reporting,
 * or ENOMEM.
 */
int devallow_check_patterns(const struct devallow_list *list,
			    const char *where, const char *proc_devices,
			    struct report *rep);

#endif /* DEVNS_DEVALLOW_H */
