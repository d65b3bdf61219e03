/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bpfeval.h - runs devfilter's program in user space, for the tests and
 * benchmarks: its verdict for one device access against an emulated
 * array map holding the table's slots, and how many instructions it ran
 * (a repeatable figure of the per-open cost, which the kernel's run-time
 * statistics give only in nanoseconds).  It knows only the instruction
 * forms devfilter emits and fails on anything else.
 */
#ifndef DEVNS_TEST_BPFEVAL_H
#define DEVNS_TEST_BPFEVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h>

#include "dev/devfilter.h"

/* Outcome of one evaluation: 0 deny, 1 allow, -1 the program is broken. */
struct bpfeval {
	int verdict;
	size_t steps;		/* instructions run */
	size_t lookups;
	char why[128];
};

/* The emulated map: the table's slots, as the array map holds them. */
struct bpfeval_map {
	const struct devfilter_table *t;
	int fd;
	/*
	 * Backward jumps allowed (a loop still ends at "too many steps"):
	 * the program that counts denials has them; false from init.
	 */
	bool backward;
};

/* m emulates the array map fd holds, with t's slots. */
void bpfeval_map_init(struct bpfeval_map *m, const struct devfilter_table *t,
		      int fd);

/*
 * Runs prog on ctx {access_type, major, minor} against the emulated map.
 * Knows exactly the forms devfilter emits; anything else is an error, as are
 * reads of unset registers or stack, backward or out-of-range jumps, helper
 * calls other than map lookups, and exits without a 0/1 verdict.  Returns
 * 0 with ev's verdict (0 deny, 1 allow), steps and lookups, or -1 with
 * ev->verdict -1 and why.
 */
int bpfeval_run(const struct bpf_insn *prog, size_t n,
		const struct bpfeval_map *m, uint32_t access_type,
		uint32_t major, uint32_t minor, struct bpfeval *ev);

#endif /* DEVNS_TEST_BPFEVAL_H */
