/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * print.h - the "key value" lines of devns's output, one per item: keys
 * in lower case, a list's items on repeated keys or comma-joined.  The
 * device rules print as "device c 195:0 rwm /dev/nvidia0" lines
 * (devrule_format() and the device's file, "-" when none is known) and a
 * "default allow|deny" line, so that what devns check computes and what
 * devns show reads back from the kernel compare line for line; with
 * --json as print_rules_json() writes them.
 *
 * Every string goes out through print_escaped(): the names and paths
 * devns show and cleanup print (process names, mount points, cgroup
 * paths) are chosen by the job's user, who must not be able to send
 * terminal escapes to the admin's screen or forge an output line.
 */
#ifndef DEVNS_PRINT_H
#define DEVNS_PRINT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "conf/nsconf.h"
#include "dev/cgroup2.h"
#include "dev/devname.h"
#include "dev/devpolicy.h"
#include "job/jobct.h"
#include "util/json.h"

/*
 * Writes s to f with printable ASCII (0x20-0x7e) as it is, but a backslash
 * doubled (\\), and every other byte (control characters, newline, DEL,
 * any byte >= 0x80) as \xHH in lower-case hex: what comes out is one
 * line of plain ASCII whatever s holds, and it tells the bytes apart.
 */
void print_escaped(FILE *f, const char *s);

/* "key value", the value escaped */
void print_kv(const char *key, const char *value);

/* "key f1 f2 ...": the NULL-terminated fields, each escaped */
void print_fields(const char *key, ...) __attribute__((sentinel));

/*
 * Where a setting came from, for check's lines: " (FILE:LINE)", or
 * " (default)" for line 0, into buf[len].  Returns buf.
 */
const char *print_from(const char *file, int line, char *buf, size_t len);

/* "key value (FILE:LINE)": print_kv() with where it came from */
void print_kv_from(const char *key, const char *value, const char *file,
		   int line);

/* "key BYTES (FILE:LINE)", "key none (default)" */
void print_size_from(const char *key, uint64_t bytes, const char *file,
		     int line);

/*
 * print_size_from() of a size that may be a share of the job's memory
 * (percent, 1 to 100, printed "N%"; 0: bytes as print_size_from).
 */
void print_share_from(const char *key, uint64_t bytes, unsigned percent,
		      const char *file, int line);

/*
 * The job's filter as its marker records it: "yes", "no" (its policy
 * needs none), "unset" (no marker: not set up, or released), "unknown" (a
 * marker that cannot be read, which slurmstepd refuses processes for).
 */
const char *print_filter_state(const struct jobct_remains *r);

/* " USED/LIMIT inodes USED/LIMIT" (bytes, inodes), or " none" */
void print_disk(const struct jobct_remains *r);

/*
 * "disk": {"used", "limit", "inodes_used", "inode_limit"}, or null
 * without TmpDiskLimit.
 */
void print_disk_json(struct json *j, const struct jobct_remains *r);

/*
 * The live figures of the job of r's private directories (ns/nsusage.h),
 * as " tmp=B/B/L:I/I/L,shm=..." (devns list) or, with lines, one
 * "usage PATH BYTES/LIMIT inodes INODES/LIMIT" line each (devns show); a
 * job without a namespace has none (" none", no line).
 */
void print_usage(const struct nsconf *conf, const struct jobct_remains *r,
		 bool lines);

/*
 * "usage": [{"path", "tmpfs", "bytes", "bytes_limit", "inodes",
 * "inode_limit", "partial"}], null without a namespace.
 */
void print_usage_json(struct json *j, const struct nsconf *conf,
		      const struct jobct_remains *r);

/*
 * "device TYPE MAJOR:MINOR ACCESS PATH" per rule (PATH from names, "-"
 * when none is known or the rule is for any minor), then "default
 * allow|deny".
 */
void print_rules(const struct devrule_list *list,
		 const struct devnames *names);

/*
 * The rules as members of the open object: "default": "allow"|"deny",
 * "devices": [{"rule", "type", "major", "minor" (null: any), "access",
 * "path" (null: not known)}] (devns(8)).
 */
void print_rules_json(struct json *j, const struct devrule_list *list,
		      const struct devnames *names);

/*
 * The device names the rules print with: the files gres_files (NULL-
 * terminated, NULL: none) and the DeviceAllow lines of c name (literal
 * paths only, no globs), then /dev's (dev/devname.h).  A name that cannot
 * be found is left out: it prints as "-".  Returns 0, or -1 with ENOMEM.
 */
int print_names_load(struct devnames *names, const struct nsconf *c,
		     const char *const *gres_files);

#endif /* DEVNS_PRINT_H */
