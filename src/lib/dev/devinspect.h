/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devinspect.h - read device filters back from the kernel: which programs
 * are attached to a cgroup, and the rules and default verdict of one that
 * devfilter made.  For the devns tool (devns show) and the tests; the
 * plugins never need it.
 *
 * A devfilter program keeps its rules in one array map of slots (packed
 * key, access bits; devfilter.h) and its default verdict in the first
 * "r0 = K; exit" pair of the instructions (devfilter.c): the used slots
 * are read back, the verdict from the program as the verifier left it.
 * A second map, a hash named DEVFILTER_DENIED_NAME, holds the counts of
 * the accesses it denied (devinspect_denials).
 */
#ifndef DEVNS_DEVINSPECT_H
#define DEVNS_DEVINSPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h>

#include "dev/devrule.h"

/*
 * Fills ids (up to max) with the ids of the device programs attached
 * directly to cgroup_fd (not inherited ones), and *flags (may be NULL)
 * with the cgroup's attach flags (BPF_F_ALLOW_MULTI, ...).  Returns how
 * many are attached, which may exceed max, or -1 with errno.
 */
int devinspect_query(int cgroup_fd, uint32_t *ids, size_t max,
		     uint32_t *flags);

/*
 * Opens the loaded program with that id (BPF_PROG_GET_FD_BY_ID).  Returns
 * an fd (close-on-exec), or -1 with errno (ENOENT: no such program).
 */
int devinspect_prog_open(uint32_t id);

/* The kernel's info about a program fd (no arrays).  0 or -1 (errno). */
int devinspect_prog_info(int prog_fd, struct bpf_prog_info *info);

/* The kernel's id of a loaded program.  Returns 0 or -1 (errno). */
int devinspect_prog_id(int prog_fd, uint32_t *id);

/* Whether info is that of a device program devfilter made (by name). */
bool devinspect_is_devfilter(const struct bpf_prog_info *info);

/*
 * Reads the rules of the devfilter program prog_fd into out (initialised
 * here, normalised: the rule list devpolicy_build() gave, as
 * devrule_format() prints it) with its default verdict.  Needs root.
 * Returns 0, or -1 with errno (out empty): EMEDIUMTYPE when the program
 * is not shaped like one of devfilter's (another name or type, no default
 * verdict found, an unexpected map), EPERM when the kernel hides the
 * instructions, or the kernel's.
 */
int devinspect_rules(int prog_fd, struct devrule_list *out);

/* One device and access that a filter denied, and how often. */
struct devinspect_denial {
	char type;	  /* 'c' or 'b'; 0: denials that found the map full */
	uint32_t major;
	uint32_t minor;
	unsigned access;  /* DEVRULE_* bits of the request */
	uint64_t count;
};

/*
 * Reads the denials the devfilter program prog_fd counted (devfilter.h,
 * DEVFILTER_DENIED_NAME) into *out (malloc()ed, free() it; NULL when
 * none): the entries with a count, sorted by type, major, minor and
 * access, the entry of a full map last.  Needs root.  Returns how many,
 * or -1 with errno: ENOENT when the program counts nothing (made without
 * counting), EMEDIUMTYPE as devinspect_rules, or the kernel's.
 */
int devinspect_denials(int prog_fd, struct devinspect_denial **out);

/*
 * As devinspect_denials, and takes what it reads out of the record: each
 * entry's count is the one removed, so that the job's denials are
 * reported once though two processes read them at its end (on 22.05 on
 * pure v2 slurmd and the extern stepd both do), and a later call reads
 * only what was denied since.
 */
int devinspect_take_denials(int prog_fd, struct devinspect_denial **out);

/*
 * Writes "c 195:1 rw" (type, major:minor, the access asked for, as
 * devrule_format() writes a rule) or, for the entry of a full map, "other
 * devices (the record was full)" into buf.  Returns snprintf's value, or
 * -1 with EINVAL.
 */
int devinspect_denial_format(const struct devinspect_denial *d, char *buf,
			     size_t len);

#endif /* DEVNS_DEVINSPECT_H */
