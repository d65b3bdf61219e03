/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devfilter.c - device rule list -> BPF cgroup-device program (pure).
 *
 * Design: the rules live in a BPF_MAP_TYPE_HASH keyed by {type, major,
 * minor} with the allowed access bits as value; a wildcard-minor rule is the
 * key with minor DEVFILTER_ANY_MINOR.  The program is fixed (~30
 * instructions): look the device up, on a miss look its wildcard up, on a
 * miss return the default; on a hit deny when the request holds a bit the
 * value lacks.
 *
 * Why not instructions per rule: the verifier walks every branch, and on
 * this kernel (6.18) each conditional jump it walks costs about 2 us (state
 * copy, bounds refinement).  A flat chain is also quadratic (measured:
 * 42 ms at 100 rules, rejected near 450; our leaner 6-instruction form:
 * 0.56 / 15 / 118 ms at 10 / 100 / 1000 rules).  A balanced compare tree
 * emitted as instructions (~2 jumps per rule, every instruction verified
 * once) was built and measured too: 0.11 / 0.66 / 1.9 / 3.4 ms at 10 /
 * 100 / 300 / 1000 rules, past the 2 ms target between 300 and 1000.
 * The map program is the same 25-32 instructions whatever the table holds
 * and verifies in ~0.06 ms; making and filling the map with one
 * BPF_MAP_UPDATE_BATCH adds 0.01 / 0.04 / 0.4 ms, so build + map + load +
 * attach is 0.09 / 0.13 / 0.60 ms at 10 / 100 / 1000 rules
 * (testsuite/bench/bench_devfilter, medians; doc/device-policy.md).  At run
 * time the map costs one or two hash lookups per device open, which is
 * within noise next to open(2) itself (the benchmark measures it).
 *
 * Purity: this file computes data and instructions only; the map fd enters
 * the program as an argument (the loader resolves BPF_PSEUDO_MAP_FD), and
 * the kernel calls live in devprog.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dev/devfilter.h"

/* The access bits of devpolicy.h are the kernel's; no translation needed. */
_Static_assert(DEVRULE_M == BPF_DEVCG_ACC_MKNOD, "DEVRULE_M");
_Static_assert(DEVRULE_R == BPF_DEVCG_ACC_READ, "DEVRULE_R");
_Static_assert(DEVRULE_W == BPF_DEVCG_ACC_WRITE, "DEVRULE_W");
_Static_assert(sizeof(struct devfilter_key) == 12, "key layout");

/* Stack slot of the key, below the frame pointer r10, and its fields. */
#define KEY_OFF (-16)
#define KEY(field) ((int16_t)(KEY_OFF + (int)offsetof(struct devfilter_key, field)))

/*
 * True when list is in the form the lookup relies on: sorted by type, major,
 * wildcard first, minor; keys unique; exact rules include their wildcard's
 * access (so that "exact first" equals the union).
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
		else if (wild >= 0 && ((unsigned)wild & ~r->access))
			return false;
	}
	return true;
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
		    (!r->any_minor && r->minor == DEVFILTER_ANY_MINOR)) {
			errno = EINVAL;
			return -1;
		}
	}
	if (!is_canonical(list)) {
		for (i = 0; i < list->count; i++) {
			const struct devrule *r = &list->rules[i];

			if (devrule_list_add(&copy, r->type, r->major, r->minor,
					     r->any_minor, r->access) < 0)
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
	t->keys = NULL;
	t->access = NULL;
	t->count = 0;
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
#define STX_W(dst, src, off) insn(BPF_STX | BPF_MEM | BPF_W, dst, src, off, 0)
#define ST_W(dst, off, imm) insn(BPF_ST | BPF_MEM | BPF_W, dst, 0, off, imm)
#define MOV_X(dst, src) insn(BPF_ALU64 | BPF_MOV | BPF_X, dst, src, 0, 0)
#define MOV_K(dst, imm) insn(BPF_ALU64 | BPF_MOV | BPF_K, dst, 0, 0, imm)
#define ALU_K(op, dst, imm) insn(BPF_ALU64 | (op) | BPF_K, dst, 0, 0, imm)
#define ALU_X(op, dst, src) insn(BPF_ALU64 | (op) | BPF_X, dst, src, 0, 0)
#define JMP_K(op, dst, imm, off) insn(BPF_JMP | (op) | BPF_K, dst, 0, off, imm)
#define CALL(fn) insn(BPF_JMP | BPF_CALL, 0, 0, 0, fn)
#define EXIT() insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

/* r1 = map (a 16-byte load the kernel rewrites from fd to map pointer). */
static size_t emit_ld_map(struct bpf_insn *p, size_t n, int map_fd)
{
	p[n++] = insn(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD,
		      0, map_fd);
	p[n++] = insn(0, 0, 0, 0, 0);
	return n;
}

/* r0 = lookup(map, &key); jump to *check (patched later) when found. */
static size_t emit_lookup(struct bpf_insn *p, size_t n, int map_fd,
			  size_t *jump)
{
	n = emit_ld_map(p, n, map_fd);
	p[n++] = MOV_X(BPF_REG_2, BPF_REG_10);
	p[n++] = ALU_K(BPF_ADD, BPF_REG_2, KEY_OFF);
	p[n++] = CALL(BPF_FUNC_map_lookup_elem);
	*jump = n;
	p[n++] = JMP_K(BPF_JNE, BPF_REG_0, 0, 0);
	return n;
}

int devfilter_build(const struct devfilter_table *t, int map_fd,
		    struct bpf_insn **insns, size_t *count)
{
	struct bpf_insn *p;
	size_t n = 0, jump[2], njumps = 0, check, i;
	int32_t dflt = t->default_allow ? 1 : 0;

	if (!(p = calloc(40, sizeof(*p))))
		return -1;
	if (t->count == 0) {
		/* Nothing to look up: the verdict is the default. */
		p[n++] = MOV_K(BPF_REG_0, dflt);
		p[n++] = EXIT();
		goto done;
	}

	/*
	 * r6 = requested access (callee-saved: survives the helper calls);
	 * key {type, major, minor} at r10 + KEY_OFF.
	 */
	p[n++] = LDX_W(BPF_REG_6, BPF_REG_1,
		       offsetof(struct bpf_cgroup_dev_ctx, access_type));
	p[n++] = MOV_X(BPF_REG_7, BPF_REG_6);
	p[n++] = ALU_K(BPF_AND, BPF_REG_7, 0xffff);
	p[n++] = ALU_K(BPF_RSH, BPF_REG_6, 16);
	p[n++] = STX_W(BPF_REG_10, BPF_REG_7,
		       KEY(type));
	p[n++] = LDX_W(BPF_REG_7, BPF_REG_1,
		       offsetof(struct bpf_cgroup_dev_ctx, major));
	p[n++] = STX_W(BPF_REG_10, BPF_REG_7,
		       KEY(major));
	p[n++] = LDX_W(BPF_REG_7, BPF_REG_1,
		       offsetof(struct bpf_cgroup_dev_ctx, minor));
	p[n++] = STX_W(BPF_REG_10, BPF_REG_7,
		       KEY(minor));
	n = emit_lookup(p, n, map_fd, &jump[njumps++]);

	/* Only tables with wildcards pay for the second lookup. */
	if (t->has_wildcard) {
		p[n++] = ST_W(BPF_REG_10,
			      KEY(minor),
			      (int32_t)DEVFILTER_ANY_MINOR);
		n = emit_lookup(p, n, map_fd, &jump[njumps++]);
	}
	p[n++] = MOV_K(BPF_REG_0, dflt);
	p[n++] = EXIT();

	/* Found: deny when the request holds a bit the entry lacks. */
	check = n;
	p[n++] = LDX_W(BPF_REG_1, BPF_REG_0, 0);
	p[n++] = ALU_K(BPF_XOR, BPF_REG_1, -1);
	p[n++] = ALU_X(BPF_AND, BPF_REG_1, BPF_REG_6);
	p[n++] = JMP_K(BPF_JNE, BPF_REG_1, 0, 2);
	p[n++] = MOV_K(BPF_REG_0, 1);
	p[n++] = EXIT();
	p[n++] = MOV_K(BPF_REG_0, 0);
	p[n++] = EXIT();
	for (i = 0; i < njumps; i++)
		p[jump[i]].off = (int16_t)(check - jump[i] - 1);
done:
	*insns = p;
	*count = n;
	return 0;
}
