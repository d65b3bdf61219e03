/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bpfeval.c - devfilter's program run in user space.  See bpfeval.h.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "bpfeval.h"

void bpfeval_map_init(struct bpfeval_map *m, const struct devfilter_table *t,
		      int fd)
{
	m->t = t;
	m->fd = fd;
	m->backward = false;
}

/* What a register holds, as far as the evaluator tracks it. */
enum kind { UNSET, SCALAR, CTX, FP, MAP, VALUE };

struct reg {
	enum kind kind;
	int64_t v; /* scalar value, offset from the frame, or value index */
};

static int eval_fail(struct bpfeval *ev, size_t pc, const char *what)
{
	snprintf(ev->why, sizeof(ev->why), "insn %zu: %s", pc, what);
	ev->verdict = -1;
	return -1;
}

int bpfeval_run(const struct bpf_insn *prog, size_t n,
		const struct bpfeval_map *m, uint32_t access_type, uint32_t major,
		uint32_t minor, struct bpfeval *ev)
{
	const uint32_t ctx[3] = { access_type, major, minor };
	struct reg reg[11];
	uint8_t stack[16];
	bool stack_set[16] = { false };
	size_t pc = 0, i;

	memset(reg, 0, sizeof(reg));
	reg[1].kind = CTX;
	reg[10].kind = FP;
	ev->steps = 0;
	ev->lookups = 0;
	ev->why[0] = '\0';
	while (pc < n) {
		const struct bpf_insn *in = &prog[pc];
		uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
		struct reg *d = &reg[in->dst_reg], *s = &reg[in->src_reg];

		if (++ev->steps > n)
			return eval_fail(ev, pc, "too many steps");
		if (in->dst_reg > 10 || in->src_reg > 10)
			return eval_fail(ev, pc, "bad register");
		if (in->code == (BPF_LD | BPF_DW | BPF_IMM)) {
			if (pc + 1 >= n || prog[pc + 1].code != 0 ||
			    in->dst_reg == 10)
				return eval_fail(ev, pc, "bad 64-bit load");
			if (in->src_reg == BPF_PSEUDO_MAP_FD) {
				if (in->imm != m->fd || prog[pc + 1].imm)
					return eval_fail(ev, pc, "bad map load");
				d->kind = MAP;
			} else if (in->src_reg == 0) {
				d->kind = SCALAR;
				d->v = (int64_t)((uint64_t)(uint32_t)prog[pc + 1].imm << 32 |
						 (uint32_t)in->imm);
			} else {
				return eval_fail(ev, pc, "bad 64-bit load");
			}
			pc += 2;
			continue;
		}
		if (in->code == (BPF_LDX | BPF_MEM | BPF_W) ||
		    in->code == (BPF_LDX | BPF_MEM | BPF_DW)) {
			bool dw = BPF_SIZE(in->code) == BPF_DW;

			if (in->dst_reg == 10)
				return eval_fail(ev, pc, "write to r10");
			if (!dw && s->kind == CTX && in->off >= 0 &&
			    in->off <= 8 && in->off % 4 == 0) {
				d->v = ctx[in->off / 4];
			} else if (dw && s->kind == VALUE && in->off == 0) {
				d->v = (int64_t)m->t->slots[s->v].key;
			} else if (!dw && s->kind == VALUE && in->off == 8) {
				d->v = m->t->slots[s->v].access;
			} else {
				return eval_fail(ev, pc, "bad load");
			}
			d->kind = SCALAR;
			pc++;
			continue;
		}
		if (in->code == (BPF_STX | BPF_MEM | BPF_W) ||
		    in->code == (BPF_ST | BPF_MEM | BPF_W)) {
			uint32_t v;
			int off;

			if (d->kind != FP || d->v != 0 || in->off < -16 ||
			    in->off > -4 || in->off % 4)
				return eval_fail(ev, pc, "bad store");
			if (BPF_CLASS(in->code) == BPF_STX) {
				if (s->kind != SCALAR)
					return eval_fail(ev, pc, "store of non-scalar");
				v = (uint32_t)s->v;
			} else {
				v = (uint32_t)in->imm;
			}
			off = 16 + in->off;
			memcpy(&stack[off], &v, 4);
			for (i = 0; i < 4; i++)
				stack_set[off + i] = true;
			pc++;
			continue;
		}
		if (cls == BPF_ALU64) {
			int64_t val;

			if (in->dst_reg == 10)
				return eval_fail(ev, pc, "write to r10");
			if (BPF_SRC(in->code) == BPF_X) {
				if (s->kind == UNSET)
					return eval_fail(ev, pc, "unset source");
				if (op == BPF_MOV) {
					*d = *s;
					pc++;
					continue;
				}
				if (s->kind != SCALAR)
					return eval_fail(ev, pc, "pointer arithmetic");
				val = s->v;
			} else {
				val = in->imm;
			}
			if (op == BPF_MOV) {
				d->kind = SCALAR;
				d->v = val;
				pc++;
				continue;
			}
			if (op == BPF_ADD && d->kind == FP) {
				d->v += val;
				pc++;
				continue;
			}
			if (d->kind != SCALAR)
				return eval_fail(ev, pc, "ALU on non-scalar");
			switch (op) {
			case BPF_AND: d->v &= val; break;
			case BPF_OR: d->v |= val; break;
			case BPF_XOR: d->v ^= val; break;
			case BPF_RSH: d->v = (int64_t)((uint64_t)d->v >> (val & 63)); break;
			case BPF_LSH: d->v = (int64_t)((uint64_t)d->v << (val & 63)); break;
			case BPF_MUL: d->v = (int64_t)((uint64_t)d->v * (uint64_t)val); break;
			case BPF_ADD: d->v += val; break;
			default: return eval_fail(ev, pc, "unsupported ALU op");
			}
			pc++;
			continue;
		}
		if (cls != BPF_JMP)
			return eval_fail(ev, pc, "unsupported class");
		if (op == BPF_CALL) {
			uint32_t index;
			long idx;

			if (in->imm != BPF_FUNC_map_lookup_elem || in->src_reg)
				return eval_fail(ev, pc, "unexpected call");
			if (reg[1].kind != MAP || reg[2].kind != FP ||
			    reg[2].v != -4)
				return eval_fail(ev, pc, "bad lookup arguments");
			for (i = 12; i < 16; i++)
				if (!stack_set[i])
					return eval_fail(ev, pc, "key not initialised");
			memcpy(&index, &stack[12], sizeof(index));
			ev->lookups++;
			/* An array lookup: NULL only past the end. */
			idx = index < m->t->nslots ? (long)index : -1;
			/* r1-r5 are clobbered by a call. */
			for (i = 1; i <= 5; i++)
				reg[i].kind = UNSET;
			reg[0].kind = idx < 0 ? SCALAR : VALUE;
			reg[0].v = idx < 0 ? 0 : idx;
			pc++;
			continue;
		}
		if (op == BPF_EXIT) {
			if (reg[0].kind != SCALAR || reg[0].v < 0 || reg[0].v > 1)
				return eval_fail(ev, pc, "exit without verdict");
			ev->verdict = (int)reg[0].v;
			return 0;
		}
		if (in->off < 0 && !m->backward)
			return eval_fail(ev, pc, "backward jump");
		if ((in->off < 0 && (size_t)-in->off > pc + 1) ||
		    (in->off >= 0 && pc + 1 + (size_t)in->off >= n))
			return eval_fail(ev, pc, "jump out of the program");
		if (op == BPF_JA) {
			pc = (size_t)((ptrdiff_t)pc + 1 + in->off);
			continue;
		}
		if ((d->kind != SCALAR && d->kind != VALUE) ||
		    (BPF_SRC(in->code) == BPF_X &&
		     (d->kind != SCALAR || s->kind != SCALAR)))
			return eval_fail(ev, pc, "bad compare operand");
		{
			/* A map value pointer is never 0 (NULL is a scalar 0). */
			int64_t v = d->kind == VALUE ? 1 : d->v;
			int64_t w = BPF_SRC(in->code) == BPF_X ? s->v : (int64_t)in->imm;
			int taken;

			if (d->kind == VALUE && (BPF_SRC(in->code) != BPF_K || in->imm != 0))
				return eval_fail(ev, pc, "pointer compared with non-NULL");
			switch (op) {
			case BPF_JEQ: taken = v == w; break;
			case BPF_JNE: taken = v != w; break;
			case BPF_JGT: taken = (uint64_t)v > (uint64_t)w; break;
			default: return eval_fail(ev, pc, "unsupported jump");
			}
			pc = (size_t)((ptrdiff_t)pc + 1 + (taken ? in->off : 0));
		}
	}
	return eval_fail(ev, pc, "fell off the end");
}
