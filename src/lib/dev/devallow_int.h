/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devallow_int.h - what devallow.c (DeviceAllow text -> rules) shares
 * with devpolicy.c (a node's policy, a job's list, GRES checks),
 * devcomp.c (a vendor's companion devices) and imexdev.c (the IMEX major,
 * from the same reader of /proc/devices): the state of one parse, and the
 * helpers they use.  Nothing else uses it.  It is devallow's (named for
 * the module its functions live in) and needs only the rule list
 * (devrule.h), so devpolicy and devcomp, which include it, include each
 * other in one direction only.
 */
#ifndef DEVNS_DEVALLOW_INT_H
#define DEVNS_DEVALLOW_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dev/devallow.h"
#include "dev/devrule.h"
#include "util/report.h"

/* One "MAJOR NAME" line of /proc/devices. */
struct devclass {
	char type;
	uint32_t major;
	char *name;
};

/* State shared by the entries of one parse or build call. */
struct parse_ctx {
	const char *proc_devices;
	struct devclass *classes; /* read on first use */
	size_t nclasses;
	bool classes_read;
	bool classes_failed; /* reported once; later classes fail quietly */
	bool patterns_only;  /* resolve only globs and classes, and report
			      * one that matches nothing as an error */
	int errors;
	const char *where;   /* put before each message: "FILE:LINE" */
	struct report *rep;
};

/*
 * Report a problem of an entry: an error (counted in ctx->errors) or a
 * warning, the message after ctx->where ("FILE:LINE: ").
 */
__attribute__((format(printf, 3, 4)))
void devallow_report(struct parse_ctx *ctx, enum report_level level,
		     const char *fmt, ...);

/* Release the classes read from /proc/devices. */
void devallow_classes_free(struct parse_ctx *ctx);

/*
 * Adds one wildcard rule per major registered under name.  Returns the
 * number of rules added (0: unknown class), or -1 (EIO: /proc/devices
 * unreadable, reported).
 */
int devallow_add_class(struct parse_ctx *ctx, char type, const char *name,
		       unsigned access, struct devrule_list *out);

/*
 * Tells whether /proc/devices registers major of type under name (one
 * major may carry several names): 1 yes, 0 no, -1 with errno (EIO:
 * /proc/devices unreadable, reported; ENOMEM).
 */
int devallow_class_is(struct parse_ctx *ctx, char type, uint32_t major,
		      const char *name);

/*
 * Read a DeviceAllow value into out (devallow_read), its problems
 * reported in ctx.  Returns 0 or -1 (ENOMEM; out empty).
 */
int devallow_list_read(struct parse_ctx *ctx, const char *text,
		       struct devallow_list *out);

/*
 * Resolve read entries into rules in out (patterns_only: only globs and
 * classes, looked at, nothing added), problems reported in ctx.
 * Returns 0 or -1 (ENOMEM).
 */
int devallow_resolve(struct parse_ctx *ctx, const struct devallow_list *list,
		     struct devrule_list *out);

#endif /* DEVNS_DEVALLOW_INT_H */
