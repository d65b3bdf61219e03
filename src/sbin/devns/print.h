/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * print.h - the "key value" lines of devns's output, one per item: keys
 * in lower case, a list's items on repeated keys or comma-joined.  The
 * device rules print as "device c 195:0 rwm" lines (devrule_format()) and
 * a "default allow|deny" line, so that what devns check computes and
 * what devns show reads back from the kernel compare line for line.
 */
#ifndef DEVNS_PRINT_H
#define DEVNS_PRINT_H

#include <stdint.h>

#include "dev/cgroup2.h"
#include "dev/devpolicy.h"

/* "key value" */
void print_kv(const char *key, const char *value);

/* "key a,b,c"; "key none" for an empty or NULL list */
void print_list(const char *key, const char *const *items);

/* "key BYTES", "key none" for 0 (unset) */
void print_size(const char *key, uint64_t bytes);

/* "none", "hybrid" or "unified" */
const char *print_layout(enum cgroup2_layout layout);

/* "device TYPE MAJOR:MINOR ACCESS" per rule, then "default allow|deny" */
void print_rules(const struct devrule_list *list);

#endif /* DEVNS_PRINT_H */
