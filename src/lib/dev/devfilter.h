/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devfilter.h - device rule list -> BPF cgroup-device program: a hash map
 * of the rules plus a fixed lookup program.
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

#include "dev/devpolicy.h"

/* The name of every program and map devfilter makes. */
#define DEVFILTER_NAME "devns"

/* The minor of a map key that stands for "any minor of this major". */
#define DEVFILTER_ANY_MINOR UINT32_MAX

/* A map key: the device as the kernel passes it to the program. */
struct devfilter_key {
	uint32_t type;  /* BPF_DEVCG_DEV_CHAR or BPF_DEVCG_DEV_BLOCK */
	uint32_t major;
	uint32_t minor; /* or DEVFILTER_ANY_MINOR */
};

/*
 * The map's contents for one rule list: parallel arrays, as
 * BPF_MAP_UPDATE_BATCH takes them.  access[i] holds DEVRULE_* bits (the
 * kernel's BPF_DEVCG_ACC_* values).
 */
struct devfilter_table {
	struct devfilter_key *keys;
	uint32_t *access;
	size_t count;
	bool default_allow; /* verdict for devices without an entry */
	bool has_wildcard;  /* some key has DEVFILTER_ANY_MINOR */
};

/*
 * Fills t from list (pure).  A list not in devrule_list_normalise() form is
 * normalised on a private copy first, so that the program's "exact entry,
 * else wildcard entry, else default" equals the union semantics of
 * devpolicy.h.  Returns 0, or -1 with EINVAL (bad type or access, or an
 * exact minor equal to DEVFILTER_ANY_MINOR) or ENOMEM.
 */
int devfilter_table_build(const struct devrule_list *list,
			  struct devfilter_table *t);

/* Releases the arrays of t. */
void devfilter_table_free(struct devfilter_table *t);

/*
 * Emits the program for t into a malloc()ed array (*insns, *count; free with
 * free()) (pure).  It looks devices up in the map map_fd, which must hold
 * t's entries (devprog_map_create); an empty table needs no map (map_fd is
 * then ignored) and gives a two-instruction program with the default
 * verdict.  The program is the same ~30 instructions whatever the size of
 * the table.  Returns 0, or -1 with ENOMEM.
 */
int devfilter_build(const struct devfilter_table *t, int map_fd,
		    struct bpf_insn **insns, size_t *count);

#endif /* DEVNS_DEVFILTER_H */
