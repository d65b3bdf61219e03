/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_devfilter.c - how long it takes to make a job's device filter ready,
 * and what the filter costs per device open.  Prints figures, asserts none.
 *
 * For 10 / 100 / 1000 rules (median of RUNS runs each):
 *   build    devfilter_table_build + devfilter_build (pure, user space)
 *   map      devprog_map_create: BPF_MAP_CREATE + batch fill + freeze
 *   denied   devprog_denied_create: the map the program counts denials in
 *   load     devprog_load (verifier + JIT)
 *   attach   devprog_attach to a fresh cgroup
 *   ready    all of the above, timed as one
 * For comparison, two ways of putting the rules into instructions, which
 * devfilter does not use (see the top of devfilter.c): a balanced compare
 * tree and a flat chain of per-rule checks, load time only; the chain is
 * also tried at sizes where the verifier may refuse it.
 * Then the cost of open("/dev/null") + close() in a child inside a cgroup
 * with no filter, with the map filter (counting denials, and without the
 * count: an allowed open must cost the same), with the tree and the chain
 * (where /dev/null is the last rule, the chain's worst case), and the time
 * of one program run from the kernel's BPF run-time statistics, which is
 * free of the noise that other load puts on the open(2) timings.
 *
 * Needs root, a cgroup2 mount and BPF; says so and exits 0 without them.
 * Makes <cgroup2>/devns-bench-<pid> and removes it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dev/bpfsys.h"
#include "dev/cgroup2.h"
#include "dev/devprog.h"
#include "bpfeval.h"
#include "bpfinspect.h"
#include "dev/devpolicy.h"

#define RUNS 21
#define OPEN_ITERS 50000
#define OPEN_ROUNDS 9

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * n rules shaped like a node's GPUs and friends: char majors 200.. with 64
 * minors each (rw), then /dev/null (1:3, rw) last so that a chain walks all
 * of them before it.  Normalised, default deny.
 */
static void make_rules(struct devrule_list *l, size_t n)
{
	size_t i;

	devrule_list_init(l, false);
	for (i = 0; i + 1 < n; i++)
		devrule_list_add(l, 'c', 200 + (uint32_t)(i / 64),
				 (uint32_t)(i % 64), false,
				 DEVRULE_R | DEVRULE_W);
	devrule_list_add(l, 'c', 1, 3, false, DEVRULE_R | DEVRULE_W);
}

/* --- the compare tree (measured alternative, not used by devfilter) --- */

/* Registers of the program (see the prologue). */
enum { R0 = 0, R1 = 1, R_ACC = 2, R_TYPE = 3, R_MAJOR = 4, R_MINOR = 5 };

#define NO_LABEL ((size_t)-1)

/* An instruction buffer whose jumps name labels until resolve(). */
struct emitter {
	struct bpf_insn *insns;
	size_t *jump_label; /* per insn: label it jumps to, or NO_LABEL */
	size_t count, alloc;
	size_t *label_pos;  /* per label: insn index, NO_LABEL until bound */
	size_t nlabels, alabels;
	bool nomem;         /* sticky: checked once at the end */
};

static size_t new_label(struct emitter *e)
{
	if (e->nlabels == e->alabels) {
		size_t n = e->alabels ? e->alabels * 2 : 64;
		size_t *p = reallocarray(e->label_pos, n, sizeof(*p));

		if (!p) {
			e->nomem = true;
			return 0;
		}
		e->label_pos = p;
		e->alabels = n;
	}
	e->label_pos[e->nlabels] = NO_LABEL;
	return e->nlabels++;
}

static void bind(struct emitter *e, size_t label)
{
	if (!e->nomem)
		e->label_pos[label] = e->count;
}

static void emit(struct emitter *e, uint8_t code, uint8_t dst, uint8_t src,
		 int16_t off, int32_t imm, size_t label)
{
	struct bpf_insn *in;

	if (e->nomem)
		return;
	if (e->count == e->alloc) {
		size_t n = e->alloc ? e->alloc * 2 : 256;
		struct bpf_insn *p = reallocarray(e->insns, n, sizeof(*p));
		size_t *q = reallocarray(e->jump_label, n, sizeof(*q));

		if (p)
			e->insns = p;
		if (q)
			e->jump_label = q;
		if (!p || !q) {
			e->nomem = true;
			return;
		}
		e->alloc = n;
	}
	in = &e->insns[e->count];
	memset(in, 0, sizeof(*in));
	in->code = code;
	in->dst_reg = dst;
	in->src_reg = src;
	in->off = off;
	in->imm = imm;
	e->jump_label[e->count++] = label;
}

/* Conditional jump "if (u32)reg OP imm goto label". */
static void jmp32(struct emitter *e, uint8_t op, uint8_t reg, uint32_t imm,
		  size_t label)
{
	emit(e, BPF_JMP32 | op | BPF_K, reg, 0, 0, (int32_t)imm, label);
}

static void ja(struct emitter *e, size_t label)
{
	emit(e, BPF_JMP | BPF_JA, 0, 0, 0, 0, label);
}

static void ret(struct emitter *e, int32_t verdict)
{
	emit(e, BPF_ALU64 | BPF_MOV | BPF_K, R0, 0, 0, verdict, NO_LABEL);
	emit(e, BPF_JMP | BPF_EXIT, 0, 0, 0, 0, NO_LABEL);
}

/* Turns label references into offsets; -1 with E2BIG when one overflows. */
static int resolve(struct emitter *e)
{
	size_t i;

	for (i = 0; i < e->count; i++) {
		size_t label = e->jump_label[i];
		long off;

		if (label == NO_LABEL)
			continue;
		if (e->label_pos[label] == NO_LABEL) {
			errno = EINVAL; /* a bug in the emitter */
			return -1;
		}
		off = (long)e->label_pos[label] - (long)i - 1;
		if (off < 0 || off > INT16_MAX) {
			errno = E2BIG;
			return -1;
		}
		e->insns[i].off = (int16_t)off;
	}
	return 0;
}

/*
 * Resolves e's jumps and hands its instructions to the caller (*insns,
 * *count; free with free()); frees the rest of e.  -1 with ENOMEM when e
 * ran out of memory, with E2BIG when a jump does not fit.
 */
static int emitter_finish(struct emitter *e, struct bpf_insn **insns,
			  size_t *count)
{
	int rc = e->nomem || resolve(e) < 0 ? -1 : 0;

	if (e->nomem)
		errno = ENOMEM;
	if (rc == 0) {
		*insns = e->insns;
		*count = e->count;
	} else {
		free(e->insns);
	}
	free(e->jump_label);
	free(e->label_pos);
	return rc;
}

/*
 * Binary search over sorted keys[lo..hi] in reg: equal -> targets[i], not
 * present -> fallback.  Each node costs two instructions (JEQ plus a JGT to
 * the right half or a JLT/JGT/JA to the fallback when a half is empty).
 */
static void emit_tree(struct emitter *e, uint8_t reg, const uint32_t *keys,
		      const size_t *targets, size_t lo, size_t hi,
		      size_t fallback)
{
	size_t mid = lo + (hi - lo) / 2;
	bool left = mid > lo, right = mid < hi;

	jmp32(e, BPF_JEQ, reg, keys[mid], targets[mid]);
	if (!left && !right) {
		ja(e, fallback);
	} else if (!left) {
		jmp32(e, BPF_JLT, reg, keys[mid], fallback);
		emit_tree(e, reg, keys, targets, mid + 1, hi, fallback);
	} else if (!right) {
		jmp32(e, BPF_JGT, reg, keys[mid], fallback);
		emit_tree(e, reg, keys, targets, lo, mid - 1, fallback);
	} else {
		size_t r = new_label(e);

		jmp32(e, BPF_JGT, reg, keys[mid], r);
		emit_tree(e, reg, keys, targets, lo, mid - 1, fallback);
		bind(e, r);
		emit_tree(e, reg, keys, targets, mid + 1, hi, fallback);
	}
}

/* Rules sharing one type and major: the optional wildcard + exact minors. */
struct group {
	char type;
	uint32_t major;
	int wild;      /* access of the wildcard rule, -1 when there is none */
	size_t first;  /* index of its first exact rule */
	size_t nexact;
	size_t label;
};

/* Emits the whole program for a canonical, non-empty list. */
static void emit_program(struct emitter *e, const struct devrule_list *list,
			 struct group *groups, size_t ngroups, uint32_t *keys,
			 size_t *targets)
{
	size_t allow = new_label(e), deny = new_label(e);
	size_t dflt = list->default_allow ? allow : deny;
	size_t leaf[8], type_label[2];
	bool leaf_used[8] = { false };
	size_t t, g, i, a;

	for (a = 0; a < 8; a++)
		leaf[a] = a == DEVRULE_RWM ? allow : a == 0 ? deny : new_label(e);

	/* r2 = access_type >> 16, r3 = access_type & 0xffff, r4, r5. */
	emit(e, BPF_LDX | BPF_MEM | BPF_W, R_ACC, R1, 0, 0, NO_LABEL);
	emit(e, BPF_ALU64 | BPF_MOV | BPF_X, R_TYPE, R_ACC, 0, 0, NO_LABEL);
	emit(e, BPF_ALU64 | BPF_AND | BPF_K, R_TYPE, 0, 0, 0xffff, NO_LABEL);
	emit(e, BPF_ALU64 | BPF_RSH | BPF_K, R_ACC, 0, 0, 16, NO_LABEL);
	emit(e, BPF_LDX | BPF_MEM | BPF_W, R_MAJOR, R1,
	     offsetof(struct bpf_cgroup_dev_ctx, major), 0, NO_LABEL);
	emit(e, BPF_LDX | BPF_MEM | BPF_W, R_MINOR, R1,
	     offsetof(struct bpf_cgroup_dev_ctx, minor), 0, NO_LABEL);

	/* Dispatch on type; groups are sorted, block ('b') before char. */
	for (t = 0; t < 2; t++) {
		char type = t ? 'c' : 'b';

		type_label[t] = NO_LABEL;
		for (g = 0; g < ngroups; g++)
			if (groups[g].type == type) {
				type_label[t] = new_label(e);
				jmp32(e, BPF_JEQ, R_TYPE,
				      type == 'c' ? BPF_DEVCG_DEV_CHAR
						  : BPF_DEVCG_DEV_BLOCK,
				      type_label[t]);
				break;
			}
	}
	ja(e, dflt);

	/* Per type: search the major. */
	for (t = 0; t < 2; t++) {
		size_t n = 0;

		if (type_label[t] == NO_LABEL)
			continue;
		for (g = 0; g < ngroups; g++)
			if (groups[g].type == (t ? 'c' : 'b')) {
				keys[n] = groups[g].major;
				targets[n++] = groups[g].label;
			}
		bind(e, type_label[t]);
		emit_tree(e, R_MAJOR, keys, targets, 0, n - 1, dflt);
	}

	/* Per major: search the minor; a miss takes the wildcard. */
	for (g = 0; g < ngroups; g++) {
		const struct group *gr = &groups[g];
		size_t miss = gr->wild >= 0 ? leaf[gr->wild] : dflt;

		if (gr->wild >= 0)
			leaf_used[gr->wild] = true;
		bind(e, gr->label);
		if (gr->nexact == 0) {
			ja(e, miss);
			continue;
		}
		for (i = 0; i < gr->nexact; i++) {
			const struct devrule *r = &list->rules[gr->first + i];

			keys[i] = r->minor;
			targets[i] = leaf[r->access];
			leaf_used[r->access] = true;
		}
		emit_tree(e, R_MINOR, keys, targets, 0, gr->nexact - 1, miss);
	}

	/* Leaves: deny when the request has a bit the mask lacks. */
	for (a = 1; a < DEVRULE_RWM; a++) {
		if (!leaf_used[a])
			continue;
		bind(e, leaf[a]);
		emit(e, BPF_JMP | BPF_JSET | BPF_K, R_ACC, 0, 0, (int32_t)~a,
		     deny);
		ja(e, allow);
	}
	bind(e, deny);
	ret(e, 0);
	bind(e, allow);
	ret(e, 1);
}

/* The compare-tree program for a normalised, valid list. */
static int tree_build(const struct devrule_list *list, struct bpf_insn **insns,
		      size_t *count)
{
	struct emitter e = { .insns = NULL };
	struct group *groups = NULL;
	uint32_t *keys = NULL;
	size_t *targets = NULL;
	size_t ngroups = 0, i;
	int rc = -1;

	if (list->count == 0) {
		ret(&e, list->default_allow ? 1 : 0);
		goto done;
	}
	groups = calloc(list->count, sizeof(*groups));
	keys = calloc(list->count, sizeof(*keys));
	targets = calloc(list->count, sizeof(*targets));
	if (!groups || !keys || !targets)
		goto out;
	for (i = 0; i < list->count; i++) {
		const struct devrule *r = &list->rules[i];
		struct group *g = ngroups ? &groups[ngroups - 1] : NULL;

		if (!g || g->type != r->type || g->major != r->major) {
			g = &groups[ngroups++];
			g->type = r->type;
			g->major = r->major;
			g->wild = -1;
			g->first = i;
			g->label = new_label(&e);
		}
		if (r->any_minor) {
			g->wild = (int)r->access;
			g->first = i + 1;
		} else {
			g->nexact++;
		}
	}
	emit_program(&e, list, groups, ngroups, keys, targets);
done:
	if (e.nomem) {
		errno = ENOMEM;
		goto out;
	}
	if (resolve(&e) < 0)
		goto out;
	*insns = e.insns;
	*count = e.count;
	e.insns = NULL;
	rc = 0;
out:
	free(e.insns);
	free(e.jump_label);
	free(e.label_pos);
	free(groups);
	free(keys);
	free(targets);
	return rc;
}

/* --- the flat chain (measured alternative, not used by devfilter) --- */

/* Per rule: type, major, minor, access; first full match allows. */
static int chain_build(const struct devrule_list *list,
		       struct bpf_insn **insns, size_t *count)
{
	struct emitter e = { .insns = NULL };
	size_t i;

	emit(&e, BPF_LDX | BPF_MEM | BPF_W, R_ACC, R1, 0, 0, NO_LABEL);
	emit(&e, BPF_ALU64 | BPF_MOV | BPF_X, R_TYPE, R_ACC, 0, 0, NO_LABEL);
	emit(&e, BPF_ALU64 | BPF_AND | BPF_K, R_TYPE, 0, 0, 0xffff, NO_LABEL);
	emit(&e, BPF_ALU64 | BPF_RSH | BPF_K, R_ACC, 0, 0, 16, NO_LABEL);
	emit(&e, BPF_LDX | BPF_MEM | BPF_W, R_MAJOR, R1, 4, 0, NO_LABEL);
	emit(&e, BPF_LDX | BPF_MEM | BPF_W, R_MINOR, R1, 8, 0, NO_LABEL);
	for (i = 0; i < list->count; i++) {
		const struct devrule *r = &list->rules[i];
		size_t next = new_label(&e);

		jmp32(&e, BPF_JNE, R_TYPE, r->type == 'c' ? BPF_DEVCG_DEV_CHAR
						       : BPF_DEVCG_DEV_BLOCK, next);
		jmp32(&e, BPF_JNE, R_MAJOR, r->major, next);
		if (!r->any_minor)
			jmp32(&e, BPF_JNE, R_MINOR, r->minor, next);
		emit(&e, BPF_JMP | BPF_JSET | BPF_K, R_ACC, 0, 0,
		     (int32_t)~r->access, next);
		ret(&e, 1);
		bind(&e, next);
	}
	ret(&e, list->default_allow ? 1 : 0);
	return emitter_finish(&e, insns, count);
}

/*
 * --- the BPF hash map (devns's earlier design, measured alternative) ---
 *
 * The rules in a BPF_MAP_TYPE_HASH keyed by {type, major, minor}; the
 * program looks the device up, then its wildcard.  Kept to show what the
 * array of devfilter.c gains at run time: a hash lookup runs jhash and
 * walks a bucket, an array lookup is inlined by the verifier.
 */
static int hash_map_fd = -1;

/* Makes the hash map of list's rules into hash_map_fd; -1 on failure. */
static int hash_map_make(const struct devrule_list *list)
{
	struct devfilter_table t;
	union bpf_attr attr;
	int fd;

	if (devfilter_table_build(list, &t) < 0)
		return -1;
	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_HASH;
	attr.key_size = sizeof(struct devfilter_key);
	attr.value_size = sizeof(uint32_t);
	attr.max_entries = (uint32_t)t.count;
	if ((fd = bpfsys_call(BPF_MAP_CREATE, &attr)) < 0)
		goto out;
	memset(&attr, 0, sizeof(attr));
	attr.batch.map_fd = (uint32_t)fd;
	attr.batch.keys = bpfsys_ptr(t.keys);
	attr.batch.values = bpfsys_ptr(t.access);
	attr.batch.count = (uint32_t)t.count;
	if (bpfsys_call(BPF_MAP_UPDATE_BATCH, &attr) < 0) {
		close(fd);
		fd = -1;
	}
out:
	devfilter_table_free(&t);
	if (hash_map_fd >= 0)
		close(hash_map_fd);
	hash_map_fd = fd;
	return fd < 0 ? -1 : 0;
}

/* r1 = the hash map; r2 = the key at fp-16; r0 = lookup; found -> label. */
static void hash_lookup(struct emitter *e, size_t found)
{
	emit(e, BPF_LD | BPF_DW | BPF_IMM, R1, BPF_PSEUDO_MAP_FD, 0,
	     hash_map_fd, NO_LABEL);
	emit(e, 0, 0, 0, 0, 0, NO_LABEL);
	emit(e, BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0, NO_LABEL);
	emit(e, BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -16, NO_LABEL);
	emit(e, BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem,
	     NO_LABEL);
	emit(e, BPF_JMP | BPF_JNE | BPF_K, R0, 0, 0, 0, found);
}

/* The earlier hash-map program over hash_map_fd (made from list). */
static int hash_build(const struct devrule_list *list,
		      struct bpf_insn **insns, size_t *count)
{
	struct emitter e = { .insns = NULL };
	size_t found, deny;

	if (hash_map_make(list) < 0)
		return -1;
	found = new_label(&e);
	deny = new_label(&e);
	/* r6 = requested access; key {type, major, minor} at fp-16. */
	emit(&e, BPF_LDX | BPF_MEM | BPF_W, 6, R1, 0, 0, NO_LABEL);
	emit(&e, BPF_ALU64 | BPF_MOV | BPF_X, 7, 6, 0, 0, NO_LABEL);
	emit(&e, BPF_ALU64 | BPF_AND | BPF_K, 7, 0, 0, 0xffff, NO_LABEL);
	emit(&e, BPF_ALU64 | BPF_RSH | BPF_K, 6, 0, 0, 16, NO_LABEL);
	emit(&e, BPF_STX | BPF_MEM | BPF_W, 10, 7, -16, 0, NO_LABEL);
	emit(&e, BPF_LDX | BPF_MEM | BPF_W, 7, R1, 4, 0, NO_LABEL);
	emit(&e, BPF_STX | BPF_MEM | BPF_W, 10, 7, -12, 0, NO_LABEL);
	emit(&e, BPF_LDX | BPF_MEM | BPF_W, 7, R1, 8, 0, NO_LABEL);
	emit(&e, BPF_STX | BPF_MEM | BPF_W, 10, 7, -8, 0, NO_LABEL);
	hash_lookup(&e, found);
	emit(&e, BPF_ST | BPF_MEM | BPF_W, 10, 0, -8,
	     (int32_t)DEVFILTER_ANY_MINOR, NO_LABEL);
	hash_lookup(&e, found);
	ret(&e, list->default_allow ? 1 : 0);
	bind(&e, found);
	emit(&e, BPF_LDX | BPF_MEM | BPF_W, R1, R0, 0, 0, NO_LABEL);
	emit(&e, BPF_ALU64 | BPF_XOR | BPF_K, R1, 0, 0, -1, NO_LABEL);
	emit(&e, BPF_ALU64 | BPF_AND | BPF_X, R1, 6, 0, 0, NO_LABEL);
	emit(&e, BPF_JMP | BPF_JNE | BPF_K, R1, 0, 0, 0, deny);
	ret(&e, 1);
	bind(&e, deny);
	ret(&e, 0);
	return emitter_finish(&e, insns, count);
}

/* --- measurements --- */

static int mount_fd = -1, bench_fd = -1;

/* A fresh cgroup below the bench's own; the caller removes it. */
static int fresh_cgroup(const char *name)
{
	return cgroup2_open_at(bench_fd, name, true);
}

/* Loads insns; ms in *ms, or -1 and errno. */
static int timed_load(const struct bpf_insn *insns, size_t n, double *ms)
{
	double t0 = now_ms();
	int fd = devprog_load(insns, n, NULL, 0);

	*ms = now_ms() - t0;
	return fd;
}

struct ready {
	double build, map, dmap, load, attach, total;
	size_t insns;
};

/* The devfilter way, step by step, RUNS times; medians in *r. */
static int bench_ready(size_t nrules, struct ready *r)
{
	double build[RUNS], map[RUNS], dmap[RUNS], load[RUNS], attach[RUNS];
	double total[RUNS];
	struct devrule_list l;
	int run, cg;

	make_rules(&l, nrules);
	cg = fresh_cgroup("ready");
	if (cg < 0)
		return -1;
	for (run = 0; run < RUNS; run++) {
		struct devfilter_table t;
		struct bpf_insn *insns;
		size_t n;
		int map_fd, denied_fd, prog_fd;
		double t0, t1, t2, t2d, t3, t4, t5;

		t0 = now_ms();
		if (devfilter_table_build(&l, &t) < 0)
			return -1;
		t1 = now_ms();
		if ((map_fd = devprog_map_create(&t)) < 0)
			return -1;
		t2 = now_ms();
		if ((denied_fd = devprog_denied_create()) < 0)
			return -1;
		t2d = now_ms();
		if (devfilter_build(&t, map_fd, denied_fd, &insns, &n) < 0)
			return -1;
		t3 = now_ms();
		if ((prog_fd = devprog_load(insns, n, NULL, 0)) < 0)
			return -1;
		t4 = now_ms();
		if (devprog_attach(prog_fd, cg) < 0)
			return -1;
		t5 = now_ms();
		build[run] = (t1 - t0) + (t3 - t2d);
		map[run] = t2 - t1;
		dmap[run] = t2d - t2;
		load[run] = t4 - t3;
		attach[run] = t5 - t4;
		total[run] = t5 - t0;
		r->insns = n;
		devprog_detach(prog_fd, cg);
		close(prog_fd);
		close(map_fd);
		close(denied_fd);
		free(insns);
		devfilter_table_free(&t);
	}
	close(cg);
	cgroup2_remove(bench_fd, "ready");
	devrule_list_free(&l);
	r->build = median(build, RUNS);
	r->map = median(map, RUNS);
	r->dmap = median(dmap, RUNS);
	r->load = median(load, RUNS);
	r->attach = median(attach, RUNS);
	r->total = median(total, RUNS);
	return 0;
}

/* Median load time of an alternative program; -1 with errno if refused. */
static int bench_alt(int (*build)(const struct devrule_list *,
				  struct bpf_insn **, size_t *),
		     size_t nrules, int runs, double *ms, size_t *ninsns)
{
	struct devrule_list l;
	struct bpf_insn *insns;
	double t[RUNS];
	int run, fd;

	make_rules(&l, nrules);
	if (build == tree_build)
		devrule_list_normalise(&l); /* the tree needs sorted keys */
	if (build(&l, &insns, ninsns) < 0) {
		devrule_list_free(&l);
		return -1;
	}
	devrule_list_free(&l);
	for (run = 0; run < runs; run++) {
		if ((fd = timed_load(insns, *ninsns, &t[run])) < 0) {
			int saved = errno;

			*ms = t[run];
			free(insns);
			errno = saved;
			return -1;
		}
		close(fd);
	}
	free(insns);
	*ms = median(t, (size_t)runs);
	return 0;
}

/*
 * Nanoseconds per run of a program, from the kernel's run-time statistics
 * (on only while BPF_ENABLE_STATS's fd is open); -1 when unavailable.
 */
static double prog_ns_per_run(int prog_fd)
{
	struct bpf_prog_info info;
	union bpf_attr attr;

	memset(&info, 0, sizeof(info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = (uint32_t)prog_fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (uint64_t)(uintptr_t)&info;
	if (syscall(__NR_bpf, BPF_OBJ_GET_INFO_BY_FD, &attr, sizeof(attr)) < 0 ||
	    info.run_cnt == 0)
		return -1;
	return (double)info.run_time_ns / (double)info.run_cnt;
}

static int enable_stats(void)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.enable_stats.type = BPF_STATS_RUN_TIME;
	return (int)syscall(__NR_bpf, BPF_ENABLE_STATS, &attr, sizeof(attr));
}

/* One configuration for the open-cost measurement. */
struct open_case {
	const char *kind; /* none, map, tree, chain */
	size_t nrules;
	int cg;           /* its own cgroup below the bench's */
	int prog;         /* attached program, -1 for none */
	double ns[OPEN_ROUNDS];
};

/* devprog_create's program without its map of denials (what devns loaded
 * before it counted them). */
static int uncounted_create(const struct devrule_list *l)
{
	struct devfilter_table t;
	struct bpf_insn *insns;
	size_t n;
	int map_fd, fd = -1;

	if (devfilter_table_build(l, &t) < 0)
		return -1;
	if ((map_fd = devprog_map_create(&t)) >= 0 &&
	    devfilter_build(&t, map_fd, -1, &insns, &n) == 0) {
		fd = devprog_load(insns, n, NULL, 0);
		free(insns);
	}
	if (map_fd >= 0)
		close(map_fd);
	devfilter_table_free(&t);
	return fd;
}

/* Makes the case's cgroup and attaches its program; -1 on failure. */
static int open_case_setup(struct open_case *c, int idx)
{
	struct devrule_list l;
	struct bpf_insn *insns = NULL;
	char name[32];
	size_t n;
	int rc = 0;

	snprintf(name, sizeof(name), "open%d", idx);
	c->prog = -1;
	if ((c->cg = fresh_cgroup(name)) < 0)
		return -1;
	if (!strcmp(c->kind, "none"))
		return 0;
	make_rules(&l, c->nrules);
	if (!strcmp(c->kind, "allow")) {
		/* Two instructions: the floor of any program's run. */
		l.default_allow = true;
		l.count = 0;
	}
	if (!strcmp(c->kind, "devns") || !strcmp(c->kind, "allow")) {
		c->prog = devprog_create(&l, NULL, 0);
	} else if (!strcmp(c->kind, "uncntd")) {
		c->prog = uncounted_create(&l);
	} else {
		if (!strcmp(c->kind, "tree")) {
			devrule_list_normalise(&l);
			rc = tree_build(&l, &insns, &n);
		} else if (!strcmp(c->kind, "hash")) {
			rc = hash_build(&l, &insns, &n);
		} else {
			rc = chain_build(&l, &insns, &n); /* /dev/null last */
		}
		if (rc == 0)
			c->prog = devprog_load(insns, n, NULL, 0);
		free(insns);
	}
	devrule_list_free(&l);
	if (c->prog < 0 || devprog_attach(c->prog, c->cg) < 0)
		return -1;
	return 0;
}

static void open_case_teardown(struct open_case *c, int idx)
{
	char name[32];

	snprintf(name, sizeof(name), "open%d", idx);
	if (c->prog >= 0) {
		devprog_detach(c->prog, c->cg);
		close(c->prog);
	}
	if (c->cg >= 0)
		close(c->cg);
	cgroup2_remove(bench_fd, name);
}

/*
 * One child visits every case's cgroup in turn, OPEN_ROUNDS times, and
 * times OPEN_ITERS open(path) + close() in each (denied: each open must
 * fail with EPERM), so that drift and
 * noise from other load hit all cases alike.  Fills c[i].ns; -1 on failure.
 */
static int open_costs_of(struct open_case *c, size_t ncases, size_t rounds,
			 const char *path, bool denied)
{
	size_t total = ncases * rounds;
	double *ns = calloc(total, sizeof(*ns));
	int p[2], status, rc = -1;
	pid_t pid;
	size_t i, r;

	if (!ns || pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		for (r = 0; r < rounds; r++)
			for (i = 0; i < ncases; i++) {
				double t0, t1;
				int k;

				if (cgroup2_move_pid(c[i].cg, 0) < 0)
					_exit(1);
				t0 = now_ms();
				for (k = 0; k < OPEN_ITERS; k++) {
					int fd = open(path,
						      O_RDONLY | O_CLOEXEC);

					if (denied ? fd >= 0 || errno != EPERM
						   : fd < 0)
						_exit(2);
					close(fd);
				}
				t1 = now_ms();
				ns[r * ncases + i] = (t1 - t0) * 1e6 / OPEN_ITERS;
			}
		if (write(p[1], ns, total * sizeof(*ns)) !=
		    (ssize_t)(total * sizeof(*ns)))
			_exit(3);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], ns, total * sizeof(*ns)) == (ssize_t)(total * sizeof(*ns))) {
		for (r = 0; r < rounds; r++)
			for (i = 0; i < ncases; i++)
				c[i].ns[r] = ns[r * ncases + i];
		rc = 0;
	}
	close(p[0]);
	waitpid(pid, &status, 0);
	free(ns);
	return rc;
}

/* open_costs_of() for the allowed /dev/null. */
static int open_costs(struct open_case *c, size_t ncases, size_t rounds)
{
	return open_costs_of(c, ncases, rounds, "/dev/null", false);
}

/*
 * What counting adds to a denied open: /dev/zero, which no rule names,
 * with and without counting (10 rules, default deny).
 */
static void denied_costs(void)
{
	struct open_case cases[] = {
		{ .kind = "devns", .nrules = 10 },
		{ .kind = "uncntd", .nrules = 10 },
	};
	size_t nc = sizeof(cases) / sizeof(*cases), i;
	int ready = 1;

	printf("\nCost of a denied open(\"/dev/zero\") (EPERM) in the cgroup, ns (%d rounds x %d opens)\n",
	       OPEN_ROUNDS, OPEN_ITERS);
	for (i = 0; i < nc; i++)
		if (open_case_setup(&cases[i], (int)(100 + i)) < 0)
			ready = 0;
	if (ready && open_costs_of(cases, nc, OPEN_ROUNDS, "/dev/zero",
				   true) == 0) {
		double run_ns[2] = { -1, -1 };
		int stats = enable_stats();

		for (i = 0; i < nc; i++)
			qsort(cases[i].ns, OPEN_ROUNDS, sizeof(double),
			      cmp_double);
		if (stats >= 0 && open_costs_of(cases, nc, 1, "/dev/zero",
						true) == 0)
			for (i = 0; i < nc; i++)
				run_ns[i] = prog_ns_per_run(cases[i].prog);
		if (stats >= 0)
			close(stats);
		for (i = 0; i < nc; i++)
			printf("  %-6s %5zu   median %8.1f  min %8.1f  program run %6.1f\n",
			       cases[i].kind, cases[i].nrules,
			       median(cases[i].ns, OPEN_ROUNDS), cases[i].ns[0],
			       run_ns[i]);
	} else {
		printf("  measurement failed: %s\n", strerror(errno));
	}
	for (i = 0; i < nc; i++)
		open_case_teardown(&cases[i], (int)(100 + i));
}

/*
 * The per-open cost as a count, free of the machine's noise: how many BPF
 * instructions devns's program runs for an allowed open, the most over
 * every rule's device (bpfeval runs the program in user space against the
 * table; the kernel runs the same instructions).  With denial counting:
 * the program slurmd loads; an allowed open never reaches the count.
 */
static void print_steps(const size_t *sizes, size_t nsizes)
{
	printf("BPF instructions run per allowed open (the most over every rule's device; repeatable)\n");
	printf("%6s %10s %10s\n", "rules", "program", "run");
	for (size_t i = 0; i < nsizes; i++) {
		struct devrule_list l;
		struct devfilter_table t;
		struct bpfeval_map m;
		struct bpf_insn *insns = NULL;
		size_t n = 0, most = 0;
		int bad = 0;

		make_rules(&l, sizes[i]);
		devrule_list_normalise(&l);
		if (devfilter_table_build(&l, &t) < 0 ||
		    devfilter_build(&t, 77, 78, &insns, &n) < 0) {
			printf("%6zu  failed: %s\n", sizes[i], strerror(errno));
			devrule_list_free(&l);
			continue;
		}
		bpfeval_map_init(&m, &t, 77);
		m.backward = true;
		for (size_t r = 0; r < l.count; r++) {
			struct bpfeval ev;

			bpfeval_run(insns, n, &m,
				    ((uint32_t)l.rules[r].access << 16) |
				    BPF_DEVCG_DEV_CHAR, l.rules[r].major,
				    l.rules[r].minor, &ev);
			if (ev.verdict != 1 && !bad++)
				printf("  (%s)\n", ev.why);
			if (ev.steps > most)
				most = ev.steps;
		}
		if (bad)
			printf("%6zu %10zu  %d rules' devices not allowed\n",
			       sizes[i], n, bad);
		else
			printf("%6zu %10zu %10zu\n", sizes[i], n, most);
		free(insns);
		devfilter_table_free(&t);
		devrule_list_free(&l);
	}
	printf("  an empty filter (allow, below): a two-instruction program, 2 run\n\n");
}

int main(void)
{
	static const size_t sizes[] = { 10, 100, 1000 };
	enum cgroup2_layout layout;
	char mount[PATH_MAX], name[64];
	struct utsname u;
	size_t i;
	int before;

	if (geteuid() != 0) {
		printf("bench_devfilter: needs root (BPF and cgroup2); nothing measured\n");
		return 0;
	}
	if (cgroup2_probe(NULL, &layout, mount, sizeof(mount)) < 0 ||
	    (mount_fd = cgroup2_open(mount)) < 0) {
		printf("bench_devfilter: no usable cgroup2 mount (%s); nothing measured\n",
		       strerror(errno));
		return 0;
	}
	if (devprog_probe() < 0) {
		printf("bench_devfilter: cannot load BPF cgroup-device programs (%s); nothing measured\n",
		       strerror(errno));
		return 0;
	}
	snprintf(name, sizeof(name), "devns-bench-%d", (int)getpid());
	if ((bench_fd = cgroup2_open_at(mount_fd, name, true)) < 0) {
		printf("bench_devfilter: cannot make %s/%s (%s)\n", mount, name,
		       strerror(errno));
		return 0;
	}
	before = bpfinspect_count_loaded();
	uname(&u);
	printf("bench_devfilter: kernel %s, cgroup2 at %s\n\n", u.release, mount);

	printf("Filter ready, devfilter (array map + fixed program), median of %d runs, ms\n",
	       RUNS);
	printf("%6s %7s %8s %8s %8s %8s %8s %8s\n", "rules", "insns", "build",
	       "map", "denied", "load", "attach", "ready");
	for (i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
		struct ready r;

		if (bench_ready(sizes[i], &r) < 0) {
			printf("%6zu  failed: %s\n", sizes[i], strerror(errno));
			continue;
		}
		printf("%6zu %7zu %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f\n",
		       sizes[i], r.insns, r.build, r.map, r.dmap, r.load,
		       r.attach, r.total);
	}
	printf("  build = rules -> table + program (user space); map = create + batch fill + freeze;\n"
	       "  denied = the map of denials (create + its one entry)\n\n");

	print_steps(sizes, sizeof(sizes) / sizeof(*sizes));
	printf("Alternatives not used: rules as instructions, load (verifier + JIT) only, ms\n");
	printf("%6s %9s %9s %9s %9s\n", "rules", "tree-ins", "tree", "chain-ins",
	       "chain");
	{
		static const size_t alt[] = { 10, 100, 300, 1000, 3000 };

		for (i = 0; i < sizeof(alt) / sizeof(*alt); i++) {
			double tms = 0, cms = 0;
			size_t tn = 0, cn = 0;
			int runs = alt[i] <= 100 ? RUNS : 3;
			char tbuf[32], cbuf[48];

			if (bench_alt(tree_build, alt[i], runs, &tms, &tn) < 0)
				snprintf(tbuf, sizeof(tbuf), "refused");
			else
				snprintf(tbuf, sizeof(tbuf), "%.3f", tms);
			if (bench_alt(chain_build, alt[i], alt[i] <= 100 ? runs : 1,
				      &cms, &cn) < 0)
				snprintf(cbuf, sizeof(cbuf), "refused (%s, %.0f ms)",
					 strerror(errno), cms);
			else
				snprintf(cbuf, sizeof(cbuf), "%.3f", cms);
			printf("%6zu %9zu %9s %9zu %9s\n", alt[i], tn, tbuf, cn,
			       cbuf);
		}
	}
	printf("\n");

	printf("Cost of open(\"/dev/null\") + close() in the cgroup, ns\n"
	       "(one child visits all cases in turn, %d rounds x %d opens; median, min)\n",
	       OPEN_ROUNDS, OPEN_ITERS);
	{
		struct open_case cases[] = {
			{ .kind = "none" }, { .kind = "allow" },
			{ .kind = "devns", .nrules = 10 },
			{ .kind = "devns", .nrules = 100 },
			{ .kind = "devns", .nrules = 1000 },
			{ .kind = "uncntd", .nrules = 10 },
			{ .kind = "uncntd", .nrules = 1000 },
			{ .kind = "hash", .nrules = 10 },
			{ .kind = "hash", .nrules = 1000 },
			{ .kind = "tree", .nrules = 1000 },
			{ .kind = "chain", .nrules = 10 },
			{ .kind = "chain", .nrules = 100 },
			{ .kind = "chain", .nrules = 1000 },
		};
		size_t nc = sizeof(cases) / sizeof(*cases);
		int ready = 1;

		for (i = 0; i < nc; i++)
			if (open_case_setup(&cases[i], (int)i) < 0) {
				printf("  %s %zu: setup failed: %s\n",
				       cases[i].kind, cases[i].nrules,
				       strerror(errno));
				ready = 0;
			}
		if (ready && open_costs(cases, nc, OPEN_ROUNDS) == 0) {
			double base = 0, base_min = 0, run_ns[16];
			int stats = enable_stats();

			/* A second, shorter pass with run-time statistics on
			 * (they slow every run down, so not in the first). */
			for (i = 0; i < nc; i++)
				run_ns[i] = -1;
			if (stats >= 0 && open_costs(cases, nc, 1) == 0)
				for (i = 0; i < nc; i++)
					if (cases[i].prog >= 0)
						run_ns[i] = prog_ns_per_run(cases[i].prog);
			if (stats >= 0)
				close(stats);
			printf("  %-6s %5s   %8s %8s %9s %9s   %s\n", "filter",
			       "rules", "median", "min", "vs none", "min vs",
			       "program run (over allow)");
			for (i = 0; i < nc; i++) {
				double med, min;
				char run[48] = "-";

				qsort(cases[i].ns, OPEN_ROUNDS, sizeof(double),
				      cmp_double);
				min = cases[i].ns[0];
				med = median(cases[i].ns, OPEN_ROUNDS);
				if (i == 0) {
					base = med;
					base_min = min;
				}
				if (run_ns[i] >= 0)
					snprintf(run, sizeof(run), "%.1f (%+.1f)",
						 run_ns[i], run_ns[i] - run_ns[1]);
				printf("  %-6s %5zu   %8.1f %8.1f %+9.1f %+9.1f   %s\n",
				       cases[i].kind, cases[i].nrules, med, min,
				       med - base, min - base_min, run);
			}
			printf("  devns = devfilter's array program, counting denials; uncntd = the same without counting\n"
			       "  (an allowed open runs the same instructions: the count is on the deny path only);\n"
			       "  allow = a two-instruction program (the floor);\n"
			       "  hash = the hash-map program devns used before; program run = ns per invocation from the\n"
			       "  kernel's BPF run-time statistics, and over allow's\n");
		} else if (ready) {
			printf("  measurement failed\n");
		}
		for (i = 0; i < nc; i++)
			open_case_teardown(&cases[i], (int)i);
	}

	denied_costs();
	close(bench_fd);
	cgroup2_remove(mount_fd, name);
	close(mount_fd);
	printf("\ndevns programs loaded before/after: %d/%d\n", before,
	       bpfinspect_count_loaded());
	return 0;
}
