/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devfilter.h - device rule list -> BPF cgroup-device program: the rules
 * in a cuckoo hash table held by a BPF array map, plus a fixed program that
 * looks a device up in at most four slots.
 *
 * Pure: it only computes data and instructions, so it is unit-tested with
 * an evaluator and no kernel.  devprog.h loads and attaches the result.
 * Programs and maps are named DEVFILTER_NAME so that leftovers can be
 * counted.
 */
#ifndef DEVNS_DEVFILTER_H
#define DEVNS_DEVFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h>

#include "dev/devrule.h"

/* The name of every program and rule map devfilter makes. */
#define DEVFILTER_NAME "devns"

/*
 * The record of denied accesses: a BPF hash map named DEVFILTER_DENIED_NAME
 * that the program updates on its deny path only.  Its key is the device's
 * packed form (devfilter_unpack()) with the requested access bits (DEVRULE_*) at
 * DEVFILTER_DENIED_ACCESS_SHIFT, its value a 64-bit count.  The key
 * DEVFILTER_DENIED_OTHER, put in when the map is made, counts the denials
 * that found the map full (DEVFILTER_DENIED_MAX keys).
 */
#define DEVFILTER_DENIED_NAME "devns_denied"
#define DEVFILTER_DENIED_ACCESS_SHIFT 40
#define DEVFILTER_DENIED_OTHER 0ull
#define DEVFILTER_DENIED_MAX 1024

/* The minor of a rule key that stands for "any minor of this major". */
#define DEVFILTER_ANY_MINOR UINT32_MAX

/* The kernel's device numbers (dev_t): 12-bit majors, 20-bit minors. */
#define DEVFILTER_MAJOR_MAX 0xfffu
#define DEVFILTER_MINOR_MAX 0xfffffu

/* A rule's key: the device as the kernel passes it to the program. */
struct devfilter_key {
	uint32_t type;  /* BPF_DEVCG_DEV_CHAR or BPF_DEVCG_DEV_BLOCK */
	uint32_t major;
	uint32_t minor; /* or DEVFILTER_ANY_MINOR */
};

/*
 * One slot of the map: a rule's key packed into 64 bits (devfilter_unpack(),
 * never 0) or 0 for an empty slot, and the rule's DEVRULE_* bits (the
 * kernel's BPF_DEVCG_ACC_* values).
 */
struct devfilter_slot {
	uint64_t key;
	uint32_t access;
	uint32_t pad;
};

/*
 * The rules of one list: keys[i]/access[i] in canonical order, and the
 * same entries placed in slots[nslots] (a power of two) for the map.  Each
 * entry sits in one of its two places, slot (key * mult[0 or 1]) >> shift.
 */
struct devfilter_table {
	struct devfilter_key *keys;
	uint32_t *access;
	size_t count;
	bool default_allow; /* verdict for devices without an entry */
	bool has_wildcard;  /* some key has DEVFILTER_ANY_MINOR */
	struct devfilter_slot *slots;
	uint32_t nslots;
	unsigned int shift; /* 64 - log2(nslots) */
	uint64_t mult[2];   /* odd multipliers of the two hash functions */
};

/*
 * The key of a slot's 64-bit form: type << 48 | wildcard << 32 |
 * major << 20 | minor (0 for a wildcard).  Returns 0, or -1 with EINVAL
 * for what a table never holds (0, an unknown type, a wildcard with a
 * minor).
 */
int devfilter_unpack(uint64_t packed, struct devfilter_key *k);

/*
 * Fills t from list (pure).  A list not in devrule_list_normalise() form is
 * normalised on a private copy first, so that the program's "exact entry,
 * else wildcard entry, else default" equals the semantics of devrule.h
 * (pinned rules, else the union): a pinned exact entry wins over its
 * wildcard even with less access, which is how a GRES device the job does
 * not hold stays denied under a DeviceAllow class.  Returns 0, or -1 with EINVAL (bad type or access, a major
 * or minor outside the kernel's ranges) or ENOMEM.
 */
int devfilter_table_build(const struct devrule_list *list,
			  struct devfilter_table *t);

/* Releases the arrays of t. */
void devfilter_table_free(struct devfilter_table *t);

/*
 * Emits the program for t into a malloc()ed array (*insns, *count; free with
 * free()) (pure).  It looks devices up in the array map map_fd, which must
 * hold t's slots (devprog_map_create); an empty table needs no map (map_fd
 * is then ignored).  With denied_fd >= 0 (a map as described at
 * DEVFILTER_DENIED_NAME) every denial is counted there before the program
 * says no; allowed accesses run the same instructions as without it.  An
 * empty table without counting (or allowing everything) gives a
 * two-instruction program with the default verdict.  The program is the
 * same 40-110 instructions whatever the size of the table.  Returns 0, or
 * -1 with ENOMEM.
 */
int devfilter_build(const struct devfilter_table *t, int map_fd,
		    int denied_fd, struct bpf_insn **insns, size_t *count);

#endif /* DEVNS_DEVFILTER_H */
