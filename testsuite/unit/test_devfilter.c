/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_devfilter.c - unit tests of the pure half of devfilter (table and
 * program) without a kernel.
 *
 * A small evaluator (testsuite/lib/bpfeval.c) runs the emitted instructions
 * for a given device access against an emulated array map holding the
 * table's slots, and the verdict is
 * compared with the rule list's own semantics (devaccess,
 * testsuite/lib).  The evaluator knows only the instruction forms
 * devfilter emits and fails on anything else, on reads of unset registers
 * or stack, on pointer misuse, on backward or out-of-range jumps and on
 * exits without a verdict, so a change in the emitter that the tests do
 * not expect shows up here before the verifier sees it.  Loading into the kernel is test_devfilter_kernel.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>

#include "dev/devfilter.h"
#include "dev/devprog.h"
#include "dev/devpolicy.h"
#include "bpfeval.h"
#include "devaccess.h"
#include "tap.h"

/* Table + program for list, as devprog_create would make them. */
struct built {
	struct devfilter_table t;
	struct bpfeval_map m;
	struct bpf_insn *insns;
	size_t n;
};

#define FAKE_MAP_FD 77

static int built_make(struct built *b, const struct devrule_list *l)
{
	memset(b, 0, sizeof(*b));
	if (devfilter_table_build(l, &b->t) < 0)
		return -1;
	if (devfilter_build(&b->t, FAKE_MAP_FD, -1, &b->insns, &b->n) < 0) {
		devfilter_table_free(&b->t);
		return -1;
	}
	bpfeval_map_init(&b->m, &b->t, FAKE_MAP_FD);
	return 0;
}

static void built_free(struct built *b)
{
	free(b->insns);
	devfilter_table_free(&b->t);
}

static void run(const struct built *b, uint32_t access_type, uint32_t major,
		uint32_t minor, struct bpfeval *ev)
{
	bpfeval_run(b->insns, b->n, &b->m, access_type, major, minor, ev);
}

static uint32_t ctx_type(char type)
{
	return type == 'c' ? BPF_DEVCG_DEV_CHAR : BPF_DEVCG_DEV_BLOCK;
}

/* One expectation: device + requested access -> verdict. */
struct probe {
	char type;
	uint32_t major, minor;
	unsigned access;
	int allow;
};

static void check_probes(const char *name, const struct devrule_list *l,
			 const struct probe *p, size_t np)
{
	struct built b;
	size_t i;
	int bad = 0;

	if (built_make(&b, l) < 0) {
		ok(0, "%s: build (%s)", name, strerror(errno));
		return;
	}
	for (i = 0; i < np; i++) {
		struct bpfeval ev;

		run(&b, (p[i].access << 16) | ctx_type(p[i].type), p[i].major,
		    p[i].minor, &ev);
		if (ev.verdict != p[i].allow) {
			diag("%s: %c %u:%u acc %u: got %d want %d %s", name,
			     p[i].type, p[i].major, p[i].minor, p[i].access,
			     ev.verdict, p[i].allow, ev.why);
			bad++;
		}
	}
	ok(bad == 0, "%s: %zu probes (%zu entries, %zu insns)", name, np,
	   b.t.count, b.n);
	built_free(&b);
}

#define R DEVRULE_R
#define W DEVRULE_W
#define M DEVRULE_M
#define NP(a) (sizeof(a) / sizeof(*(a)))

static void test_tables(void)
{
	struct devrule_list l;

	devrule_list_init(&l, false);
	{
		static const struct probe p[] = {
			{ 'c', 1, 3, R, 0 }, { 'c', 1, 3, M, 0 },
			{ 'b', 0, 0, M, 0 }, { 'c', 195, 0, R | W, 0 },
		};
		struct built b;

		check_probes("empty list denies all", &l, p, NP(p));
		built_make(&b, &l);
		ok(b.n == 2 && b.t.count == 0,
		   "empty list: no entries, two instructions");
		built_free(&b);
	}
	l.default_allow = true;
	{
		static const struct probe p[] = {
			{ 'c', 1, 3, R | W | M, 1 }, { 'b', 8, 0, R, 1 },
			{ 'c', 195, 0, R | W, 1 },
		};
		check_probes("empty default-allow list allows all", &l, p, NP(p));
	}

	devrule_list_init(&l, false);
	devrule_list_add(&l, 'c', 1, 3, false, R);
	devrule_list_add(&l, 'c', 1, 5, false, R | W);
	devrule_list_add(&l, 'c', 1, 7, false, R | W | M);
	devrule_list_add(&l, 'c', 1, 8, false, M);
	devrule_list_normalise(&l);
	{
		static const struct probe p[] = {
			{ 'c', 1, 3, R, 1 }, { 'c', 1, 3, W, 0 },
			{ 'c', 1, 3, R | W, 0 }, { 'c', 1, 3, M, 0 },
			{ 'c', 1, 5, R, 1 }, { 'c', 1, 5, W, 1 },
			{ 'c', 1, 5, R | W, 1 }, { 'c', 1, 5, M, 0 },
			{ 'c', 1, 5, R | W | M, 0 }, { 'c', 1, 7, R | W | M, 1 },
			{ 'c', 1, 7, M, 1 }, { 'c', 1, 8, M, 1 },
			{ 'c', 1, 8, R, 0 }, { 'c', 1, 4, R, 0 },
			{ 'c', 1, 9, R, 0 }, { 'c', 1, 2, R, 0 },
			{ 'c', 2, 3, R, 0 }, { 'b', 1, 3, R, 0 },
		};
		check_probes("access subsets (r allowed, rw requested: deny)",
			     &l, p, NP(p));
	}
	devrule_list_free(&l);

	devrule_list_add(&l, 'c', 136, 0, true, R | W);
	devrule_list_add(&l, 'c', 136, 4, false, M);
	devrule_list_add(&l, 'c', 195, 0, true, R);
	devrule_list_add(&l, 'b', 7, 0, false, R | W | M);
	devrule_list_add(&l, 'b', 8, 0, true, R);
	devrule_list_normalise(&l);
	{
		static const struct probe p[] = {
			{ 'c', 136, 0, R, 1 }, { 'c', 136, 99, R | W, 1 },
			{ 'c', 136, 5, M, 0 }, { 'c', 136, 4, M, 1 },
			{ 'c', 136, 4, R | W | M, 1 }, { 'c', 136, 3, R | W | M, 0 },
			{ 'c', 136, 1048575, W, 1 }, { 'b', 136, 0, R, 0 },
			{ 'c', 195, 12345, R, 1 }, { 'c', 195, 0, W, 0 },
			{ 'c', 194, 0, R, 0 }, { 'c', 196, 0, R, 0 },
			{ 'b', 7, 0, R | W | M, 1 }, { 'c', 7, 0, R, 0 },
			{ 'b', 7, 1, R, 0 }, { 'b', 8, 3, R, 1 },
			{ 'b', 8, 3, W, 0 }, { 'c', 8, 3, R, 0 },
		};
		check_probes("wildcards, exact over wildcard, block vs char", &l,
			     p, NP(p));
	}
	devrule_list_free(&l);

	/* auto with GRES: default allow, only unallocated GPUs denied. */
	devrule_list_init(&l, true);
	devrule_list_add(&l, 'c', 195, 0, false, 0);
	devrule_list_add(&l, 'c', 195, 2, false, 0);
	devrule_list_normalise(&l);
	{
		static const struct probe p[] = {
			{ 'c', 195, 0, R, 0 }, { 'c', 195, 0, M, 0 },
			{ 'c', 195, 2, R | W, 0 }, { 'c', 195, 1, R | W, 1 },
			{ 'c', 195, 255, R | W, 1 }, { 'c', 1, 3, R | W | M, 1 },
			{ 'b', 195, 0, R, 1 }, { 'c', 196, 0, R, 1 },
		};
		check_probes("default allow with denied GPUs", &l, p, NP(p));
	}
	devrule_list_free(&l);

	/*
	 * A GRES device the job was not allocated under a DeviceAllow class
	 * (c 195:* rw): pinned to nothing, its exact entry wins over the
	 * wildcard; the job's own GPU is pinned to rwm.
	 */
	devrule_list_init(&l, false);
	devrule_list_add(&l, 'c', 195, 0, true, R | W);
	devrule_list_pin(&l, 'c', 195, 0, 0);
	devrule_list_pin(&l, 'c', 195, 2, 0);
	devrule_list_pin(&l, 'c', 195, 1, R | W | M);
	devrule_list_normalise(&l);
	{
		static const struct probe p[] = {
			{ 'c', 195, 0, R, 0 }, { 'c', 195, 0, W, 0 },
			{ 'c', 195, 0, M, 0 }, { 'c', 195, 2, R | W, 0 },
			{ 'c', 195, 1, R | W | M, 1 }, { 'c', 195, 255, R | W, 1 },
			{ 'c', 195, 255, M, 0 }, { 'c', 195, 3, R, 1 },
			{ 'b', 195, 0, R, 0 },
		};
		check_probes("pinned GPUs under a class allow", &l, p, NP(p));
	}
	devrule_list_free(&l);

	/* The same, not normalised: the table's private copy keeps the pins. */
	devrule_list_init(&l, false);
	devrule_list_pin(&l, 'c', 195, 0, 0);
	devrule_list_add(&l, 'c', 195, 0, false, R);
	devrule_list_add(&l, 'c', 195, 0, true, R | W);
	{
		static const struct probe p[] = {
			{ 'c', 195, 0, R, 0 }, { 'c', 195, 7, R | W, 1 },
		};
		check_probes("raw list with a pinned denial", &l, p, NP(p));
	}
	devrule_list_free(&l);

	/*
	 * The largest numbers of dev_t (12-bit majors, 20-bit minors) are
	 * plain key bits; past them no device exists: the default.
	 */
	devrule_list_init(&l, false);
	devrule_list_add(&l, 'c', DEVFILTER_MAJOR_MAX, DEVFILTER_MINOR_MAX,
			 false, R);
	devrule_list_add(&l, 'c', DEVFILTER_MAJOR_MAX - 1, 0, true, W);
	devrule_list_add(&l, 'c', 0, 0, false, R);
	{
		static const struct probe p[] = {
			{ 'c', DEVFILTER_MAJOR_MAX, DEVFILTER_MINOR_MAX, R, 1 },
			{ 'c', DEVFILTER_MAJOR_MAX, DEVFILTER_MINOR_MAX - 1, R, 0 },
			{ 'c', DEVFILTER_MAJOR_MAX, 1, R, 0 },
			{ 'c', DEVFILTER_MAJOR_MAX - 1, DEVFILTER_MINOR_MAX, W, 1 },
			{ 'c', DEVFILTER_MAJOR_MAX, DEVFILTER_MINOR_MAX + 1, R, 0 },
			{ 'c', DEVFILTER_MAJOR_MAX - 1 + 4096, 0, W, 0 },
			{ 'c', 0, 0, R, 1 }, { 'c', 4096, 0, R, 0 },
			{ 'c', 0, 1u << 20, R, 0 },
		};
		check_probes("largest dev_t numbers", &l, p, NP(p));
	}
	devrule_list_free(&l);
	devrule_list_init(&l, true);
	devrule_list_add(&l, 'c', 5, 1, false, 0);
	{
		static const struct probe p[] = {
			{ 'c', 5, 1, R, 0 }, { 'c', 5 + 4096, 1, R, 1 },
			{ 'c', 5, 1 + (1u << 20), R, 1 },
		};
		check_probes("past dev_t's ranges: the default (allow)", &l, p,
			     NP(p));
	}
	devrule_list_free(&l);
	devrule_list_init(&l, false);

	/* Unknown device types take the default; unknown access bits deny. */
	devrule_list_add(&l, 'c', 1, 3, false, R | W);
	{
		struct built b;
		struct bpfeval ev;

		built_make(&b, &l);
		run(&b, (R << 16) | 3, 1, 3, &ev);
		is_int(ev.verdict, 0, "unknown device type 3 is denied");
		run(&b, (R << 16) | 0, 1, 3, &ev);
		is_int(ev.verdict, 0, "device type 0 is denied");
		run(&b, ((R | 8) << 16) | BPF_DEVCG_DEV_CHAR, 1, 3, &ev);
		is_int(ev.verdict, 0, "an unknown access bit is denied");
		ok(!b.t.has_wildcard && ev.lookups >= 1 && ev.lookups <= 2,
		   "no wildcard in the table: at most two lookups per access");
		built_free(&b);
	}
	devrule_list_free(&l);

	/* Not normalised: duplicates, unsorted, exact narrower than wildcard. */
	devrule_list_init(&l, false);
	devrule_list_add(&l, 'c', 10, 5, false, M);
	devrule_list_add(&l, 'c', 1, 3, false, R);
	devrule_list_add(&l, 'c', 10, 0, true, R);
	devrule_list_add(&l, 'c', 1, 3, false, W);
	devrule_list_add(&l, 'b', 10, 5, false, R);
	{
		static const struct probe p[] = {
			{ 'c', 1, 3, R | W, 1 }, { 'c', 10, 5, R | M, 1 },
			{ 'c', 10, 6, R, 1 }, { 'c', 10, 6, M, 0 },
			{ 'b', 10, 5, R, 1 }, { 'b', 10, 6, R, 0 },
		};
		check_probes("a raw list gets union semantics", &l, p, NP(p));
		ok(l.count == 5 && l.rules[0].major == 10,
		   "the caller's list is left as it was");
	}
	devrule_list_free(&l);
}

/* The index of key k in t->keys, or -1. */
static int find_key(const struct devfilter_table *t,
		    const struct devfilter_key *k)
{
	for (size_t i = 0; i < t->count; i++)
		if (t->keys[i].type == k->type && t->keys[i].major == k->major &&
		    t->keys[i].minor == k->minor)
			return (int)i;
	return -1;
}

static void test_table(void)
{
	struct devrule_list l;
	struct devfilter_table t;
	struct devrule bad = { 'x', 1, 3, false, R, false };
	struct bpf_insn *insns;
	size_t n, n_plain;
	int i;

	devrule_list_init(&l, false);
	devrule_list_add(&l, 'c', 195, 1, false, R | W | M);
	devrule_list_add(&l, 'b', 7, 0, true, R);
	ok(devfilter_table_build(&l, &t) == 0 && t.count == 2 &&
	   t.has_wildcard && !t.default_allow, "table of two rules");
	ok(t.keys[0].type == BPF_DEVCG_DEV_BLOCK && t.keys[0].major == 7 &&
	   t.keys[0].minor == DEVFILTER_ANY_MINOR && t.access[0] == R,
	   "block wildcard key {1, 7, ANY} -> r");
	ok(t.keys[1].type == BPF_DEVCG_DEV_CHAR && t.keys[1].major == 195 &&
	   t.keys[1].minor == 1 && t.access[1] == (R | W | M),
	   "char key {2, 195, 1} -> rwm");
	devfilter_build(&t, 5, -1, &insns, &n);
	{
		size_t fds = 0;

		for (size_t k = 0; k < n; k++)
			if (insns[k].code == (BPF_LD | BPF_DW | BPF_IMM) &&
			    insns[k].src_reg == BPF_PSEUDO_MAP_FD)
				fds += insns[k].imm == 5 ? 1 : 1000;
		ok(fds == 4, "the map fd is in the program as BPF_PSEUDO_MAP_FD, once per probe (4)");
	}
	{
		/*
		 * Every entry sits in one of its two places: slot
		 * (key * mult[0 or 1]) >> shift, as the program looks.
		 */
		size_t placed = 0, used = 0;

		for (uint32_t k = 0; k < t.nslots; k++) {
			uint64_t key = t.slots[k].key;
			struct devfilter_key back;

			if (!key)
				continue;
			used++;
			placed += devfilter_unpack(key, &back) == 0 &&
				  ((key * t.mult[0]) >> t.shift == k ||
				   (key * t.mult[1]) >> t.shift == k) &&
				  find_key(&t, &back) >= 0;
		}
		ok(placed == 2 && used == 2 && t.nslots >= 3 * t.count &&
		   (t.nslots & (t.nslots - 1)) == 0,
		   "both entries in one of their two places of %u slots",
		   t.nslots);
	}
	free(insns);
	devfilter_table_free(&t);
	ok(t.keys == NULL && t.count == 0, "table freed");
	devrule_list_free(&l);

	/* The program does not grow with the table. */
	for (i = 0; i < 5000; i++)
		devrule_list_add(&l, 'c', 1 + i / 100, (uint32_t)i % 100, false, R);
	devfilter_table_build(&l, &t);
	devfilter_build(&t, 5, -1, &insns, &n_plain);
	free(insns);
	devfilter_table_free(&t);
	devrule_list_free(&l);
	devrule_list_add(&l, 'c', 1, 3, false, R);
	devfilter_table_build(&l, &t);
	devfilter_build(&t, 5, -1, &insns, &n);
	free(insns);
	devfilter_table_free(&t);
	ok(n == n_plain, "1 rule and 5000 rules: same program (%zu insns)", n);
	devrule_list_add(&l, 'c', 2, 0, true, R);
	devfilter_table_build(&l, &t);
	devfilter_build(&t, 5, -1, &insns, &n);
	free(insns);
	devfilter_table_free(&t);
	ok(n > n_plain && n < 96, "with a wildcard: %zu insns", n);
	{
		/* Counting: the rule map in the probes, the map of denials
		 * only in the count block (4 helper calls), and still short. */
		size_t rules = 0, denied = 0;

		devfilter_table_build(&l, &t);
		devfilter_build(&t, 5, 9, &insns, &n);
		for (size_t k = 0; k < n; k++)
			if (insns[k].code == (BPF_LD | BPF_DW | BPF_IMM) &&
			    insns[k].src_reg == BPF_PSEUDO_MAP_FD)
				*(insns[k].imm == 5 ? &rules : &denied) += 1;
		free(insns);
		devfilter_table_free(&t);
		ok(rules == 4 && denied == 4 && n < 160,
		   "counting: rule map 4 times, map of denials 4 times, %zu insns",
		   n);
	}
	devrule_list_free(&l);
	{
		/* Nothing to deny, nothing to count; deny all is counted. */
		struct devrule_list none;

		devrule_list_init(&none, true);
		devfilter_table_build(&none, &t);
		devfilter_build(&t, 5, 9, &insns, &n);
		ok(n == 2 && insns[0].imm == 1, "counting, allow all: two instructions");
		free(insns);
		devfilter_table_free(&t);
		none.default_allow = false;
		devfilter_table_build(&none, &t);
		devfilter_build(&t, 5, 9, &insns, &n);
		ok(n > 2, "counting, deny all: the count block (%zu insns)", n);
		free(insns);
		devfilter_table_free(&t);
	}

	l.rules = &bad;
	l.count = 1;
	l.alloc = 1;
	errno = 0;
	ok(devfilter_table_build(&l, &t) == -1 && errno == EINVAL,
	   "bad device type is EINVAL");
	bad.type = 'c';
	bad.access = 9;
	errno = 0;
	ok(devfilter_table_build(&l, &t) == -1 && errno == EINVAL,
	   "bad access bits are EINVAL");
	bad.access = R;
	bad.minor = DEVFILTER_ANY_MINOR;
	errno = 0;
	ok(devfilter_table_build(&l, &t) == -1 && errno == EINVAL,
	   "an exact minor equal to the wildcard marker is EINVAL");
	bad.minor = DEVFILTER_MINOR_MAX + 1;
	errno = 0;
	ok(devfilter_table_build(&l, &t) == -1 && errno == EINVAL,
	   "a minor past dev_t's 20 bits is EINVAL");
	bad.minor = 1;
	bad.major = DEVFILTER_MAJOR_MAX + 1;
	errno = 0;
	ok(devfilter_table_build(&l, &t) == -1 && errno == EINVAL,
	   "a major past dev_t's 12 bits is EINVAL");
	bad.major = 1;
	{
		struct devrule_list el;
		struct devfilter_table edge;
		struct devfilter_key back;
		/* type << 48 | wildcard << 32 | major << 20 | minor */
		uint64_t wild_minor = (uint64_t)BPF_DEVCG_DEV_BLOCK << 48 |
				      1ull << 32 | 4095ull << 20 | 1;
		size_t found = 0;

		devrule_list_init(&el, false);
		devrule_list_add(&el, 'b', 4095, 0, true, R);
		devrule_list_add(&el, 'c', 195, 1048575, false, R);
		ok(devfilter_table_build(&el, &edge) == 0 && edge.count == 2,
		   "table of the widest wildcard and exact keys");
		for (uint32_t k = 0; k < edge.nslots; k++)
			found += edge.slots[k].key &&
				 devfilter_unpack(edge.slots[k].key, &back) == 0 &&
				 find_key(&edge, &back) >= 0;
		ok(found == 2, "each slot unpacks to its key (wildcard and "
		   "exact)");
		devfilter_table_free(&edge);
		devrule_list_free(&el);
		ok(devfilter_unpack(0, &back) == -1 && errno == EINVAL &&
		   devfilter_unpack((uint64_t)3 << 48, &back) == -1 &&
		   devfilter_unpack(wild_minor, &back) == -1,
		   "unpack refuses an empty slot, type 3, a wildcard with a minor");
	}
	errno = 0;
	ok(devprog_load(NULL, 0, NULL, 0) == -1 && errno == EINVAL,
	   "loading nothing is EINVAL");
	t.count = 0;
	errno = 0;
	ok(devprog_map_create(&t) == -1 && errno == EINVAL,
	   "no map for an empty table");
}

static unsigned long rng_state = 42;

static unsigned rnd(unsigned n)
{
	rng_state = rng_state * 6364136223846793005UL + 1442695040888963407UL;
	return (unsigned)(rng_state >> 33) % n;
}

/*
 * A list of exactly nrules rules, shaped like a big node: majors with 16
 * exact minors each, char and block, every 50th rule a wildcard on a major
 * of its own, and masks that never equal the default (so normalising keeps
 * all of them).
 */
static void make_big(struct devrule_list *l, size_t nrules, bool dflt)
{
	size_t i;

	devrule_list_init(l, dflt);
	for (i = 0; i < nrules; i++) {
		char type = (i / 16) % 5 ? 'c' : 'b';
		unsigned access = dflt ? rnd(DEVRULE_RWM) : 1 + rnd(DEVRULE_RWM);

		if (i % 50 == 49)
			devrule_list_add(l, type, 2048 + (uint32_t)i / 50, 0, true,
					 access);
		else
			devrule_list_add(l, type, 1 + (uint32_t)(i / 16),
					 (uint32_t)(i % 16) * 256 + rnd(256),
					 false, access);
	}
	devrule_list_normalise(l);
}

/* Compares a probe key with a rule in the normalised order. */
static int key_cmp(char type, uint32_t major, bool any, uint32_t minor,
		   const struct devrule *r)
{
	if (type != r->type)
		return type < r->type ? -1 : 1;
	if (major != r->major)
		return major < r->major ? -1 : 1;
	if (any != r->any_minor)
		return any ? -1 : 1;
	if (!any && minor != r->minor)
		return minor < r->minor ? -1 : 1;
	return 0;
}

static const struct devrule *find(const struct devrule_list *l, char type,
				  uint32_t major, bool any, uint32_t minor)
{
	size_t lo = 0, hi = l->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = key_cmp(type, major, any, minor, &l->rules[mid]);

		if (c == 0)
			return &l->rules[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/*
 * devaccess for a normalised list in O(log n): a pinned exact
 * rule, else the union of the exact and the wildcard rule, found by binary
 * search (the big lists would take minutes with the linear reference).
 */
static unsigned fast_access(const struct devrule_list *l, char type,
			    uint32_t major, uint32_t minor)
{
	const struct devrule *e = find(l, type, major, false, minor);
	const struct devrule *w = find(l, type, major, true, 0);

	if (e && e->pinned)
		return e->access;
	if (!e && !w)
		return l->default_allow ? DEVRULE_RWM : 0;
	return (e ? e->access : 0) | (w ? w->access : 0);
}

/*
 * Every rule's device and its neighbours, both types, every access mask
 * (the kernel never asks with no bit set, so neither do the probes): the
 * program agrees with the list.
 */
static void check_big(size_t nrules, bool dflt)
{
	struct devrule_list l;
	struct built b;
	size_t i, probes = 0;
	int bad = 0;

	make_big(&l, nrules, dflt);
	if (built_make(&b, &l) < 0) {
		ok(0, "%zu rules: build (%s)", nrules, strerror(errno));
		devrule_list_free(&l);
		return;
	}
	for (i = 0; i < l.count; i++) {
		const struct devrule *r = &l.rules[i];
		int dm, dn, t;
		unsigned a;

		for (t = 0; t < 2; t++)
			for (dm = -1; dm <= 1; dm++)
				for (dn = -1; dn <= 1; dn++)
					for (a = 1; a <= DEVRULE_RWM; a++) {
						char ty = t ? (r->type == 'c' ? 'b' : 'c')
							    : r->type;
						uint32_t ma = r->major + (uint32_t)dm;
						uint32_t mi = r->minor + (uint32_t)dn;
						int want;
						struct bpfeval ev;

						/* The kernel passes no such device. */
						if (ma > DEVFILTER_MAJOR_MAX ||
						    mi > DEVFILTER_MINOR_MAX)
							continue;
						want = (a & ~fast_access(
							&l, ty, ma, mi)) == 0;

						run(&b, (a << 16) | ctx_type(ty),
						    ma, mi, &ev);
						probes++;
						if (ev.verdict != want && !bad++)
							diag("%c %u:%u acc %u: got %d want %d %s",
							     ty, ma, mi, a, ev.verdict,
							     want, ev.why);
					}
	}
	/* The fast reference must itself agree with the real one. */
	for (i = 0; i < 200 && l.count; i++) {
		const struct devrule *r = &l.rules[rnd((unsigned)l.count)];

		if (fast_access(&l, r->type, r->major, r->minor + 1) !=
		    devaccess(&l, r->type, r->major, r->minor + 1) &&
		    !bad++)
			diag("fast_access disagrees with devaccess");
	}
	ok(l.count == nrules && b.t.count == nrules,
	   "%zu distinct rules, %zu map entries", nrules, b.t.count);
	ok(bad == 0, "%zu rules, default %s: %zu probes agree with the list",
	   nrules, dflt ? "allow" : "deny", probes);
	built_free(&b);
	devrule_list_free(&l);
}

/* Random small lists, exhaustive grid: the program equals the union. */
static void test_random(void)
{
	int iter, bad = 0;

	for (iter = 0; iter < 3000 && !bad; iter++) {
		struct devrule_list l;
		struct built b;
		int i, nr = (int)rnd(10), t, ma, mi;
		unsigned a;

		devrule_list_init(&l, rnd(2));
		for (i = 0; i < nr; i++) {
			char ty = rnd(2) ? 'c' : 'b';
			uint32_t ma = rnd(4), mi = rnd(5);

			if (rnd(4) == 0)
				devrule_list_pin(&l, ty, ma, mi, rnd(8));
			else
				devrule_list_add(&l, ty, ma, mi, rnd(4) == 0,
						 rnd(8));
		}
		if (rnd(2))
			devrule_list_normalise(&l);
		if (built_make(&b, &l) < 0) {
			bad++;
			break;
		}
		for (t = 0; t < 2; t++)
			for (ma = 0; ma < 5; ma++)
				for (mi = 0; mi < 6; mi++)
					for (a = 1; a <= DEVRULE_RWM; a++) {
						char ty = t ? 'c' : 'b';
						int want = (a & ~devaccess(
							&l, ty, ma, mi)) == 0;
						struct bpfeval ev;

						run(&b, (a << 16) | ctx_type(ty),
						    ma, mi, &ev);
						if (ev.verdict != want && !bad++)
							diag("iter %d: %c %d:%d acc %u: got %d want %d %s",
							     iter, ty, ma, mi, a,
							     ev.verdict, want, ev.why);
					}
		built_free(&b);
		devrule_list_free(&l);
	}
	is_int(bad, 0, "3000 random lists (with pins): program equals the list's semantics");
}

/*
 * What an allowed device open costs does not grow with the rules: the
 * program runs at most as many instructions at 1,000 rules as at 10, over
 * every rule's device (rules shaped like bench_devfilter's: GPU-like
 * majors with 64 minors each, /dev/null last), and no more than the
 * program has (no loop, no walk over the rules).  The counts are the
 * repeatable figure of bench_devfilter's per-open cost.
 */
static size_t max_allowed_steps(size_t nrules, size_t *prog_len)
{
	struct devrule_list l;
	struct built b;
	size_t i, max = 0;
	int bad = 0;

	devrule_list_init(&l, false);
	for (i = 0; i + 1 < nrules; i++)
		devrule_list_add(&l, 'c', 200 + (uint32_t)(i / 64),
				 (uint32_t)(i % 64), false,
				 DEVRULE_R | DEVRULE_W);
	devrule_list_add(&l, 'c', 1, 3, false, DEVRULE_R | DEVRULE_W);
	devrule_list_normalise(&l);
	if (built_make(&b, &l) < 0) {
		devrule_list_free(&l);
		return 0;
	}
	for (i = 0; i < l.count; i++) {
		const struct devrule *r = &l.rules[i];
		struct bpfeval ev;

		run(&b, ((unsigned)(DEVRULE_R | DEVRULE_W) << 16) |
			ctx_type(r->type), r->major, r->minor, &ev);
		bad += ev.verdict != 1;
		if (ev.steps > max)
			max = ev.steps;
	}
	*prog_len = b.n;
	built_free(&b);
	devrule_list_free(&l);
	return bad ? 0 : max;
}

static void test_flat_cost(void)
{
	size_t len10, len100, len1000;
	size_t s10 = max_allowed_steps(10, &len10);
	size_t s100 = max_allowed_steps(100, &len100);
	size_t s1000 = max_allowed_steps(1000, &len1000);

	ok(s10 && s100 && s1000, "every rule's device is allowed at 10, 100 and 1000 rules");
	diag("instructions run per allowed open, at most: %zu / %zu / %zu at 10 / 100 / 1000 rules (programs of %zu / %zu / %zu)",
	     s10, s100, s1000, len10, len100, len1000);
	ok(s1000 <= s10 && s100 <= s10,
	   "an allowed open runs no more instructions at 1000 rules than at 10 (%zu, %zu)",
	   s1000, s10);
	ok(s1000 <= len1000, "  nor more than the program has (%zu of %zu)",
	   s1000, len1000);
}

int main(void)
{
	test_tables();
	test_table();
	test_random();
	check_big(10, false);
	check_big(100, false);
	check_big(1000, false);
	check_big(1000, true);
	check_big(5000, false);
	test_flat_cost();
	return tap_done();
}
