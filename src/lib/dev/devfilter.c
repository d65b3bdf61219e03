/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devfilter.c - device rule list -> BPF cgroup-device program (pure).
 *
 * Design: the rules live in a cuckoo hash table kept in a BPF_MAP_TYPE_ARRAY
 * of 16-byte slots {packed key, access}.  Each key has two places, given by
 * two multiplicative hash functions (key * odd multiplier >> shift) whose
 * multipliers and shift are constants of the program.  The program is fixed:
 * pack the device into 64 bits, look at its two places, then at the two
 * places of its wildcard (only when the table has wildcards), else return
 * the default; on a hit deny when the request holds a bit the slot lacks.
 *
 * Why an array and not a BPF hash map: the verifier inlines lookups in an
 * array map into a bounds check and an add, while a hash map lookup runs
 * jhash and walks a bucket.  Measured with the kernel's run-time statistics
 * (testsuite/bench/bench_devfilter): the hash map program cost about 110 ns
 * per device open, this one about as much as a compare tree of the rules;
 * see doc/benchmarks.md.  The table is placed in user space (a few
 * microseconds for 1000 rules), and at most a quarter to a third of the
 * slots are used, which keeps the placement from looping.
 *
 * Why not instructions per rule: the verifier walks every branch, and on
 * this kernel (6.18) each conditional jump it walks costs about 2 us (state
 * copy, bounds refinement).  A flat chain is also quadratic (measured:
 * 42 ms at 100 rules, rejected near 450; our leaner 6-instruction form:
 * 0.56 / 15 / 118 ms at 10 / 100 / 1000 rules).  A balanced compare tree
 * emitted as instructions (~2 jumps per rule, every instruction verified
 * once) was built and measured too: 0.11 / 0.66 / 1.9 / 3.4 ms at 10 /
 * 100 / 300 / 1000 rules, past the 2 ms target between 300 and 1000.
 * The array program is the same 40-80 instructions whatever the table
 * holds, so its load time stays flat.
 *
 * Counting denials (devfilter.h, DEVFILTER_DENIED_NAME): every way to a
 * "no" goes through one block that adds 1 to the denied device's count in
 * a BPF hash map (lookup and atomic add; the first denial of a device
 * makes its entry), so an allowed access runs exactly the instructions it
 * ran without counting: a hit's check jumps to the block only when a bit
 * is missing, and a miss falls into it only under a deny default.  A hash
 * map because the keys are the devices a job happens to be denied, which
 * no table made in advance holds; its cost is paid on the deny path only.
 *
 * Purity: this file computes data and instructions only; the map fd enters
 * the program as an argument (the loader resolves BPF_PSEUDO_MAP_FD), and
 * the kernel calls live in devprog.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dev/devfilter.h"

/* The access bits of devrule.h are the kernel's; no translation needed. */
_Static_assert(DEVRULE_M == BPF_DEVCG_ACC_MKNOD, "DEVRULE_M");
_Static_assert(DEVRULE_R == BPF_DEVCG_ACC_READ, "DEVRULE_R");
_Static_assert(DEVRULE_W == BPF_DEVCG_ACC_WRITE, "DEVRULE_W");
_Static_assert(sizeof(struct devfilter_key) == 12, "key layout");

/* Stack slot of the array index, below the frame pointer r10. */
#define INDEX_OFF (-4)
/* Stack slots of the denied map's key and of a new entry's count. */
#define DENIED_KEY_OFF (-16)
#define DENIED_ONE_OFF (-24)

/* Fields of a packed key (pack). */
#define PACK_TYPE_SHIFT 48
#define PACK_WILD_SHIFT 32
#define PACK_MAJOR_SHIFT 20

/*
 * Table sizing: at least PLACE_LOAD slots per entry; after
 * PLACE_TRIES_PER_SIZE multiplier pairs that fail, twice the slots.
 */
#define PLACE_LOAD 3
#define PLACE_TRIES_PER_SIZE 8
#define PLACE_MAX_KICKS 256
#define PLACE_MAX_BITS 28

/*
 * True when list is in the form the lookup relies on: sorted by type, major,
 * wildcard first, minor; keys unique; unpinned exact rules include their
 * wildcard's access (so that "exact first" equals the union; a pinned rule
 * is meant to win over its wildcard, which is what the lookup does).
 */
static bool is_canonical(const struct devrule_list *list)
{
	int wild = -1;
	size_t i;

	for (i = 0; i < list->count; i++) {
		const struct devrule *r = &list->rules[i];
		const struct devrule *p = i ? &list->rules[i - 1] : NULL;
		bool same = p && p->type == r->type && p->major == r->major;

		if (!same)
			wild = -1;
		if (p && (p->type > r->type ||
			  (p->type == r->type && p->major > r->major)))
			return false;
		if (same && (r->any_minor ||
			     (!p->any_minor && p->minor >= r->minor)))
			return false;
		if (r->any_minor)
			wild = (int)r->access;
		else if (wild >= 0 && !r->pinned &&
			 ((unsigned)wild & ~r->access))
			return false;
	}
	return true;
}

/*
 * The 64-bit form of a key (see devfilter_unpack).  k's major and minor
 * must be in the kernel's ranges (or the minor DEVFILTER_ANY_MINOR).
 */
static uint64_t pack(const struct devfilter_key *k)
{
	bool wild = k->minor == DEVFILTER_ANY_MINOR;

	return (uint64_t)k->type << PACK_TYPE_SHIFT |
	       (uint64_t)wild << PACK_WILD_SHIFT |
	       (uint64_t)k->major << PACK_MAJOR_SHIFT |
	       (wild ? 0 : k->minor);
}

int devfilter_unpack(uint64_t packed, struct devfilter_key *k)
{
	uint64_t type = packed >> PACK_TYPE_SHIFT;
	uint64_t wild = (packed >> PACK_WILD_SHIFT) & 0xffff;
	uint32_t minor = (uint32_t)(packed & DEVFILTER_MINOR_MAX);

	if ((type != BPF_DEVCG_DEV_CHAR && type != BPF_DEVCG_DEV_BLOCK) ||
	    wild > 1 || (wild && minor)) {
		errno = EINVAL;
		return -1;
	}
	k->type = (uint32_t)type;
	k->major = (uint32_t)(packed >> PACK_MAJOR_SHIFT) & DEVFILTER_MAJOR_MAX;
	k->minor = wild ? DEVFILTER_ANY_MINOR : minor;
	return 0;
}

/* Slot index of packed in t by hash function which (0 or 1). */
static uint32_t place(const struct devfilter_table *t, int which,
		      uint64_t packed)
{
	return (uint32_t)((packed * t->mult[which]) >> t->shift);
}

/* Deterministic multipliers: the same rules always give the same table. */
static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * Put e into one of its two places, moving the entry found there to its
 * other place, and so on (cuckoo hashing).  False when that goes on too
 * long: then the multipliers are bad for these keys.
 */
static bool cuckoo_insert(struct devfilter_table *t, struct devfilter_slot e)
{
	uint32_t pos = place(t, 0, e.key);

	if (t->slots[pos].key) {
		uint32_t alt = place(t, 1, e.key);

		if (!t->slots[alt].key)
			pos = alt;
	}
	for (int kick = 0; kick < PLACE_MAX_KICKS; kick++) {
		struct devfilter_slot out = t->slots[pos];

		t->slots[pos] = e;
		if (!out.key)
			return true;
		e = out;
		pos = pos == place(t, 0, e.key)
			      ? place(t, 1, e.key)
			      : place(t, 0, e.key);
	}
	return false;
}

/* Place every entry of t into t->slots; -1 with ENOMEM or E2BIG. */
static int place_all(struct devfilter_table *t)
{
	uint64_t state = 0x64657666696c7472ull; /* "devfiltr" */
	unsigned int bits = 2;
	size_t i;

	while (bits < PLACE_MAX_BITS &&
	       ((size_t)1 << bits) < PLACE_LOAD * t->count)
		bits++;
	for (int attempt = 1;; attempt++) {
		if (bits > PLACE_MAX_BITS) {
			errno = E2BIG;
			return -1;
		}
		free(t->slots);
		t->nslots = (uint32_t)1 << bits;
		if (!(t->slots = calloc(t->nslots, sizeof(*t->slots)))) {
			errno = ENOMEM;
			return -1;
		}
		t->shift = 64 - bits;
		t->mult[0] = splitmix64(&state) | 1;
		t->mult[1] = splitmix64(&state) | 1;
		for (i = 0; i < t->count; i++) {
			struct devfilter_slot e = {
				.key = pack(&t->keys[i]),
				.access = t->access[i],
			};

			if (!cuckoo_insert(t, e))
				break;
		}
		if (i == t->count)
			return 0;
		if (attempt % PLACE_TRIES_PER_SIZE == 0)
			bits++;
	}
}

int devfilter_table_build(const struct devrule_list *list,
			  struct devfilter_table *t)
{
	struct devrule_list copy;
	size_t i;

	memset(t, 0, sizeof(*t));
	devrule_list_init(&copy, list->default_allow);
	for (i = 0; i < list->count; i++) {
		const struct devrule *r = &list->rules[i];

		if ((r->type != 'c' && r->type != 'b') ||
		    (r->access & ~DEVRULE_RWM) ||
		    r->major > DEVFILTER_MAJOR_MAX ||
		    (!r->any_minor && r->minor > DEVFILTER_MINOR_MAX)) {
			errno = EINVAL;
			return -1;
		}
	}
	if (!is_canonical(list)) {
		for (i = 0; i < list->count; i++) {
			const struct devrule *r = &list->rules[i];

			if ((r->pinned ? devrule_list_pin(&copy, r->type,
							 r->major, r->minor,
							 r->access)
				       : devrule_list_add(&copy, r->type,
							 r->major, r->minor,
							 r->any_minor,
							 r->access)) < 0)
				goto error;
		}
		devrule_list_normalise(&copy);
		list = &copy;
	}
	t->default_allow = list->default_allow;
	if (list->count) {
		t->keys = calloc(list->count, sizeof(*t->keys));
		t->access = calloc(list->count, sizeof(*t->access));
		if (!t->keys || !t->access)
			goto error;
	}
	for (i = 0; i < list->count; i++) {
		const struct devrule *r = &list->rules[i];

		t->keys[i].type = r->type == 'c' ? BPF_DEVCG_DEV_CHAR
						 : BPF_DEVCG_DEV_BLOCK;
		t->keys[i].major = r->major;
		t->keys[i].minor = r->any_minor ? DEVFILTER_ANY_MINOR : r->minor;
		t->access[i] = r->access;
		if (r->any_minor)
			t->has_wildcard = true;
	}
	t->count = list->count;
	devrule_list_free(&copy);
	if (t->count && place_all(t) < 0) {
		int saved = errno;

		devfilter_table_free(t);
		errno = saved;
		return -1;
	}
	return 0;
error:
	devrule_list_free(&copy);
	devfilter_table_free(t);
	errno = ENOMEM;
	return -1;
}

void devfilter_table_free(struct devfilter_table *t)
{
	free(t->keys);
	free(t->access);
	free(t->slots);
	t->keys = NULL;
	t->access = NULL;
	t->slots = NULL;
	t->count = 0;
	t->nslots = 0;
}

/* Instruction constructors for the few forms the program uses. */
static struct bpf_insn insn(uint8_t code, uint8_t dst, uint8_t src,
			    int16_t off, int32_t imm)
{
	struct bpf_insn in;

	memset(&in, 0, sizeof(in));
	in.code = code;
	in.dst_reg = dst;
	in.src_reg = src;
	in.off = off;
	in.imm = imm;
	return in;
}

#define LDX_W(dst, src, off) insn(BPF_LDX | BPF_MEM | BPF_W, dst, src, off, 0)
#define LDX_DW(dst, src, off) insn(BPF_LDX | BPF_MEM | BPF_DW, dst, src, off, 0)
#define STX_W(dst, src, off) insn(BPF_STX | BPF_MEM | BPF_W, dst, src, off, 0)
#define STX_DW(dst, src, off) insn(BPF_STX | BPF_MEM | BPF_DW, dst, src, off, 0)
#define ST_DW(dst, off, imm) insn(BPF_ST | BPF_MEM | BPF_DW, dst, 0, off, imm)
/* lock *(u64 *)(dst + off) += src (BPF_XADD's encoding, any kernel) */
#define XADD_DW(dst, src, off) \
	insn(BPF_STX | BPF_ATOMIC | BPF_DW, dst, src, off, BPF_ADD)
#define MOV_X(dst, src) insn(BPF_ALU64 | BPF_MOV | BPF_X, dst, src, 0, 0)
#define MOV_K(dst, imm) insn(BPF_ALU64 | BPF_MOV | BPF_K, dst, 0, 0, imm)
#define ALU_K(op, dst, imm) insn(BPF_ALU64 | (op) | BPF_K, dst, 0, 0, imm)
#define ALU_X(op, dst, src) insn(BPF_ALU64 | (op) | BPF_X, dst, src, 0, 0)
#define JMP_K(op, dst, imm, off) insn(BPF_JMP | (op) | BPF_K, dst, 0, off, imm)
#define JMP_X(op, dst, src, off) insn(BPF_JMP | (op) | BPF_X, dst, src, off, 0)
#define JA(off) insn(BPF_JMP | BPF_JA, 0, 0, off, 0)
#define CALL(fn) insn(BPF_JMP | BPF_CALL, 0, 0, 0, fn)
#define EXIT() insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

/* The most instructions devfilter_build emits (four probes, the count). */
#define PROG_MAX 160

/* dst = a 64-bit constant (the 16-byte load); src_reg tags map fds. */
static size_t emit_ld64(struct bpf_insn *p, size_t n, uint8_t dst,
			uint8_t src, uint64_t v)
{
	p[n++] = insn(BPF_LD | BPF_DW | BPF_IMM, dst, src, 0,
		      (int32_t)(uint32_t)v);
	p[n++] = insn(0, 0, 0, 0, (int32_t)(uint32_t)(v >> 32));
	return n;
}

/*
 * Look at place which of the packed key in key_reg: r1 = its access and
 * jump to the check (*hit, patched later) when the slot holds that key,
 * else fall through to the next probe.
 */
static size_t emit_probe(struct bpf_insn *p, size_t n,
			 const struct devfilter_table *t, int map_fd,
			 uint8_t key_reg, int which, size_t *hit)
{
	n = emit_ld64(p, n, BPF_REG_1, 0, t->mult[which]);
	p[n++] = ALU_X(BPF_MUL, BPF_REG_1, key_reg);
	p[n++] = ALU_K(BPF_RSH, BPF_REG_1, (int32_t)t->shift);
	p[n++] = STX_W(BPF_REG_10, BPF_REG_1, INDEX_OFF);
	n = emit_ld64(p, n, BPF_REG_1, BPF_PSEUDO_MAP_FD, (uint32_t)map_fd);
	p[n++] = MOV_X(BPF_REG_2, BPF_REG_10);
	p[n++] = ALU_K(BPF_ADD, BPF_REG_2, INDEX_OFF);
	p[n++] = CALL(BPF_FUNC_map_lookup_elem);
	/* Never NULL for an index below nslots, but the verifier asks. */
	p[n++] = JMP_K(BPF_JEQ, BPF_REG_0, 0, 4);
	p[n++] = LDX_DW(BPF_REG_1, BPF_REG_0,
			offsetof(struct devfilter_slot, key));
	p[n++] = JMP_X(BPF_JNE, BPF_REG_1, key_reg, 2);
	p[n++] = LDX_W(BPF_REG_1, BPF_REG_0,
		       offsetof(struct devfilter_slot, access));
	*hit = n;
	p[n++] = JA(0);
	return n;
}

/* r1 = the denied map, r2 = its key's address (the helpers' arguments). */
static size_t emit_denied_args(struct bpf_insn *p, size_t n, int denied_fd)
{
	n = emit_ld64(p, n, BPF_REG_1, BPF_PSEUDO_MAP_FD, (uint32_t)denied_fd);
	p[n++] = MOV_X(BPF_REG_2, BPF_REG_10);
	p[n++] = ALU_K(BPF_ADD, BPF_REG_2, DENIED_KEY_OFF);
	return n;
}

/*
 * The deny path when denials are counted: key = r6 (the requested access)
 * << DEVFILTER_DENIED_ACCESS_SHIFT | r7 (the packed device); add 1 to its
 * count, making the entry when it is the first (BPF_NOEXIST: another CPU
 * may make it meanwhile, then its entry is looked up again); a full map
 * counts under DEVFILTER_DENIED_OTHER.  Ends in "r0 = 0; exit", the
 * program's first "r0 = K; exit" when the default is deny (devinspect
 * reads the default from it).
 */
static size_t emit_count(struct bpf_insn *p, size_t n, int denied_fd)
{
	size_t add[2], to_deny[2];

	p[n++] = MOV_X(BPF_REG_1, BPF_REG_6);
	p[n++] = ALU_K(BPF_LSH, BPF_REG_1, DEVFILTER_DENIED_ACCESS_SHIFT);
	p[n++] = ALU_X(BPF_OR, BPF_REG_1, BPF_REG_7);
	p[n++] = STX_DW(BPF_REG_10, BPF_REG_1, DENIED_KEY_OFF);
	n = emit_denied_args(p, n, denied_fd);
	p[n++] = CALL(BPF_FUNC_map_lookup_elem);
	add[0] = n;
	p[n++] = JMP_K(BPF_JNE, BPF_REG_0, 0, 0);
	p[n++] = ST_DW(BPF_REG_10, DENIED_ONE_OFF, 1);
	n = emit_denied_args(p, n, denied_fd);
	p[n++] = MOV_X(BPF_REG_3, BPF_REG_10);
	p[n++] = ALU_K(BPF_ADD, BPF_REG_3, DENIED_ONE_OFF);
	p[n++] = MOV_K(BPF_REG_4, BPF_NOEXIST);
	p[n++] = CALL(BPF_FUNC_map_update_elem);
	to_deny[0] = n;
	p[n++] = JMP_K(BPF_JEQ, BPF_REG_0, 0, 0);
	/* Made by another CPU meanwhile (EEXIST), or the map is full. */
	n = emit_denied_args(p, n, denied_fd);
	p[n++] = CALL(BPF_FUNC_map_lookup_elem);
	add[1] = n;
	p[n++] = JMP_K(BPF_JNE, BPF_REG_0, 0, 0);
	p[n++] = ST_DW(BPF_REG_10, DENIED_KEY_OFF, (int32_t)DEVFILTER_DENIED_OTHER);
	n = emit_denied_args(p, n, denied_fd);
	p[n++] = CALL(BPF_FUNC_map_lookup_elem);
	to_deny[1] = n;
	p[n++] = JMP_K(BPF_JEQ, BPF_REG_0, 0, 0);
	for (int i = 0; i < 2; i++)
		p[add[i]].off = (int16_t)(n - add[i] - 1);
	p[n++] = MOV_K(BPF_REG_1, 1);
	p[n++] = XADD_DW(BPF_REG_0, BPF_REG_1, 0);
	for (int i = 0; i < 2; i++)
		p[to_deny[i]].off = (int16_t)(n - to_deny[i] - 1);
	p[n++] = MOV_K(BPF_REG_0, 0);
	p[n++] = EXIT();
	return n;
}

/*
 * r6 = requested access, r7 = the device's packed key, r8 = its wildcard's
 * (when the table has wildcards; callee-saved: they survive the helper
 * calls).  Devices beyond dev_t's ranges jump to out_of_range[0..1],
 * patched by the caller (no rule names one: table_build).
 */
static size_t emit_prologue(struct bpf_insn *p, size_t n,
			    const struct devfilter_table *t,
			    size_t *out_of_range)
{
	p[n++] = LDX_W(BPF_REG_6, BPF_REG_1,
		       offsetof(struct bpf_cgroup_dev_ctx, access_type));
	p[n++] = MOV_X(BPF_REG_7, BPF_REG_6);
	p[n++] = ALU_K(BPF_AND, BPF_REG_7, 0xffff);
	p[n++] = ALU_K(BPF_RSH, BPF_REG_6, 16);
	p[n++] = LDX_W(BPF_REG_2, BPF_REG_1,
		       offsetof(struct bpf_cgroup_dev_ctx, major));
	p[n++] = LDX_W(BPF_REG_3, BPF_REG_1,
		       offsetof(struct bpf_cgroup_dev_ctx, minor));
	out_of_range[0] = n;
	p[n++] = JMP_K(BPF_JGT, BPF_REG_2, DEVFILTER_MAJOR_MAX, 0);
	out_of_range[1] = n;
	p[n++] = JMP_K(BPF_JGT, BPF_REG_3, DEVFILTER_MINOR_MAX, 0);
	p[n++] = ALU_K(BPF_LSH, BPF_REG_7, PACK_TYPE_SHIFT);
	p[n++] = ALU_K(BPF_LSH, BPF_REG_2, PACK_MAJOR_SHIFT);
	p[n++] = ALU_X(BPF_OR, BPF_REG_7, BPF_REG_2);
	if (t->has_wildcard) {
		p[n++] = MOV_X(BPF_REG_8, BPF_REG_7);
		p[n++] = MOV_K(BPF_REG_1, 1);
		p[n++] = ALU_K(BPF_LSH, BPF_REG_1, PACK_WILD_SHIFT);
		p[n++] = ALU_X(BPF_OR, BPF_REG_8, BPF_REG_1);
	}
	p[n++] = ALU_X(BPF_OR, BPF_REG_7, BPF_REG_3);
	return n;
}

/*
 * Layout: prologue, probes; on a miss the default ("r0 = 1; exit", or with
 * counting and a deny default the count block itself); the count block
 * ending in "r0 = 0; exit"; for a device out of dev_t's range under a deny
 * default, a count as DEVFILTER_DENIED_OTHER; then the check of a found
 * entry's access, which goes to the count block (or its own "r0 = 0;
 * exit") when a bit is missing.  The default's "r0 = K; exit" comes first,
 * as devinspect expects.
 */
int devfilter_build(const struct devfilter_table *t, int map_fd,
		    int denied_fd, struct bpf_insn **insns, size_t *count)
{
	struct bpf_insn *p;
	size_t n = 0, jump[4], njumps = 0, out_of_range[2], oor_to, check;
	size_t deny = 0, i;
	int32_t dflt = t->default_allow ? 1 : 0;
	/* Counting needs a program that can deny. */
	bool counted = denied_fd >= 0 && (!t->default_allow || t->count);

	if (!(p = calloc(PROG_MAX, sizeof(*p))))
		return -1;
	if (!counted && t->count == 0) {
		/* Nothing to look up, nothing to count: the default. */
		p[n++] = MOV_K(BPF_REG_0, dflt);
		p[n++] = EXIT();
		goto done;
	}
	n = emit_prologue(p, n, t, out_of_range);
	if (t->count) {
		n = emit_probe(p, n, t, map_fd, BPF_REG_7, 0, &jump[njumps++]);
		n = emit_probe(p, n, t, map_fd, BPF_REG_7, 1, &jump[njumps++]);
	}
	/* Only tables with wildcards pay for the second key. */
	if (t->has_wildcard) {
		n = emit_probe(p, n, t, map_fd, BPF_REG_8, 0, &jump[njumps++]);
		n = emit_probe(p, n, t, map_fd, BPF_REG_8, 1, &jump[njumps++]);
	}
	oor_to = n;
	if (!counted || t->default_allow) {
		p[n++] = MOV_K(BPF_REG_0, dflt);
		p[n++] = EXIT();
	}
	if (counted) {
		deny = n;
		n = emit_count(p, n, denied_fd);
		if (!t->default_allow) {
			/* Counted under DEVFILTER_DENIED_OTHER (key 0). */
			oor_to = n;
			p[n++] = MOV_K(BPF_REG_6, 0);
			p[n++] = MOV_K(BPF_REG_7, 0);
			p[n] = JA(0);
			p[n].off = (int16_t)(deny - n - 1);
			n++;
		}
	}
	for (i = 0; i < 2; i++)
		p[out_of_range[i]].off = (int16_t)(oor_to - out_of_range[i] - 1);
	if (!t->count)
		goto done;

	/* Found (r1 = its access): deny when the request holds a bit more. */
	check = n;
	p[n++] = ALU_K(BPF_XOR, BPF_REG_1, -1);
	p[n++] = ALU_X(BPF_AND, BPF_REG_1, BPF_REG_6);
	if (counted) {
		p[n] = JMP_K(BPF_JNE, BPF_REG_1, 0, 0);
		p[n].off = (int16_t)(deny - n - 1);
		n++;
		p[n++] = MOV_K(BPF_REG_0, 1);
		p[n++] = EXIT();
	} else {
		p[n++] = JMP_K(BPF_JNE, BPF_REG_1, 0, 2);
		p[n++] = MOV_K(BPF_REG_0, 1);
		p[n++] = EXIT();
		p[n++] = MOV_K(BPF_REG_0, 0);
		p[n++] = EXIT();
	}
	for (i = 0; i < njumps; i++)
		p[jump[i]].off = (int16_t)(check - jump[i] - 1);
done:
	*insns = p;
	*count = n;
	return 0;
}
