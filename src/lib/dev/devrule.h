/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devrule.h - device rules and rule lists: what a job's filter allows,
 * built by devpolicy (DevicePolicy, DeviceAllow, GRES) and devcdi (CDI
 * specs), turned into a program by devfilter.  Below both builders, so
 * that neither includes the other's header to reach the list.
 *
 * Semantics of a list: a device named by pinned rules (exact rules made
 * with devrule_list_pin) gets the union of their access and nothing else;
 * any other device gets the union of the access of every rule that matches
 * it (its exact rules and its type/major wildcard); a device no rule
 * matches gets everything (default_allow) or nothing.  Pinned rules are how
 * GRES devices stay out of DeviceAllow's classes: a job's unallocated GPU
 * is pinned to no access, and "char-nvidia-frontend:rw" cannot widen it.
 *
 * After devrule_list_normalise() each (type, major, minor) key appears
 * once, an exact rule includes the access of its wildcard unless it is
 * pinned, a rule is pinned only when that matters (its wildcard is in the
 * list and has a bit the rule lacks), and rules that change nothing are
 * gone, so "exact rule, else wildcard, else default" (what the BPF program
 * does) gives the same answer as the semantics above.  In a normalised
 * list an exact rule narrower than its wildcard is therefore always a
 * pinned one, which is how devrule_format()'s output is read.
 */
#ifndef DEVNS_DEVRULE_H
#define DEVNS_DEVRULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Access bits.  The values are those of the kernel's BPF_DEVCG_ACC_* so that
 * the filter can compare them with the request without translating.
 */
#define DEVRULE_M 1u /* mknod */
#define DEVRULE_R 2u /* open for reading */
#define DEVRULE_W 4u /* open for writing */
#define DEVRULE_RWM (DEVRULE_R | DEVRULE_W | DEVRULE_M)

struct devrule {
	char type;       /* 'c' or 'b' */
	uint32_t major;
	uint32_t minor;  /* ignored when any_minor */
	bool any_minor;
	unsigned access; /* DEVRULE_* bits */
	bool pinned;     /* exact rule whose access no other rule widens */
};

struct devrule_list {
	struct devrule *rules;
	size_t count;
	size_t alloc;
	bool default_allow; /* verdict for a device that no rule names */
};

/* Empty list with the given default verdict; never fails. */
void devrule_list_init(struct devrule_list *list, bool default_allow);

/* Releases the rules; the list is empty (same default) afterwards. */
void devrule_list_free(struct devrule_list *list);

/*
 * Appends one rule as given (no merging: see devrule_list_normalise).
 * type must be 'c' or 'b' and access a subset of DEVRULE_RWM (EINVAL);
 * ENOMEM when the list cannot grow.
 */
int devrule_list_add(struct devrule_list *list, char type, uint32_t major,
		     uint32_t minor, bool any_minor, unsigned access);

/*
 * Appends a pinned exact rule (see the top): the device gets the union of
 * the access of its pinned rules, whatever its wildcard and its other exact
 * rules say.  Errors as devrule_list_add().
 */
int devrule_list_pin(struct devrule_list *list, char type, uint32_t major,
		     uint32_t minor, unsigned access);

/*
 * Brings the list into the canonical form described at the top: duplicates
 * merged (union of access; a pinned rule overrides the unpinned ones of its
 * key), unpinned exact rules widened by their wildcard and dropped when
 * that is all they give, pinned ones kept pinned only while their wildcard
 * has more access, rules equal to the default dropped, the rest sorted by
 * type, major, wildcard first, minor.  Never fails.
 */
void devrule_list_normalise(struct devrule_list *list);

/*
 * False when the list allows everything (default allow and no rule), so the
 * caller need make neither a cgroup nor a program.  Expects a normalised list.
 */
bool devrule_list_needs_filter(const struct devrule_list *list);

/*
 * Writes "c 195:* rw" (cgroup v1 devices.list style; "-" for no access) into
 * buf; pinned shows only in a normalised list (see the top).  Returns the
 * length snprintf would, or -1 with EINVAL.
 */
int devrule_format(const struct devrule *rule, char *buf, size_t size);

/*
 * stat()s an absolute path (the administrator's: a DeviceAllow path, a CDI
 * spec's node).  Returns 1 with type and numbers, 0 when it does not
 * exist, -1 with a message in why (not a device, other stat errors).
 */
int devrule_resolve_path(const char *path, char *type, uint32_t *major,
			 uint32_t *minor, char *why, size_t whysize);

#endif /* DEVNS_DEVRULE_H */
