/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devfilter.c - device rule list -> BPF cgroup-device filter; bpf(2) calls.
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
 * Purity: devfilter_table_build() and devfilter_build() compute data and
 * instructions only; the map fd enters the program as an argument (the
 * loader resolves BPF_PSEUDO_MAP_FD), and the kernel calls are below them.
 * The map is made read-only for programs (BPF_F_RDONLY_PROG) and frozen
 * after filling, so nothing can widen a job's rules once it is set up.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "devfilter.h"

/* The access bits of devpolicy.h are the kernel's; no translation needed. */
_Static_assert(DEVRULE_M == BPF_DEVCG_ACC_MKNOD, "DEVRULE_M");
_Static_assert(DEVRULE_R == BPF_DEVCG_ACC_READ, "DEVRULE_R");
_Static_assert(DEVRULE_W == BPF_DEVCG_ACC_WRITE, "DEVRULE_W");
_Static_assert(sizeof(struct devfilter_key) == 12, "key layout");

/* Not in the uapi headers, but bpf(2) returns it for unsupported commands. */
#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

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

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return (int)syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static uint64_t ptr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/* Fills the map one entry at a time (kernels before 5.6 lack batches). */
static int map_fill_each(int map_fd, const struct devfilter_table *t)
{
	union bpf_attr attr;
	size_t i;

	for (i = 0; i < t->count; i++) {
		memset(&attr, 0, sizeof(attr));
		attr.map_fd = (uint32_t)map_fd;
		attr.key = ptr(&t->keys[i]);
		attr.value = ptr(&t->access[i]);
		attr.flags = BPF_ANY;
		if (sys_bpf(BPF_MAP_UPDATE_ELEM, &attr) < 0)
			return -1;
	}
	return 0;
}

int devfilter_map_create(const struct devfilter_table *t)
{
	union bpf_attr attr;
	int fd, saved;

	if (t->count == 0 || t->count > UINT32_MAX) {
		errno = EINVAL;
		return -1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_HASH;
	attr.key_size = sizeof(struct devfilter_key);
	attr.value_size = sizeof(uint32_t);
	attr.max_entries = (uint32_t)t->count;
	attr.map_flags = BPF_F_RDONLY_PROG;
	memcpy(attr.map_name, DEVFILTER_NAME, sizeof(DEVFILTER_NAME));
	if ((fd = sys_bpf(BPF_MAP_CREATE, &attr)) < 0)
		return -1;

	memset(&attr, 0, sizeof(attr));
	attr.batch.map_fd = (uint32_t)fd;
	attr.batch.keys = ptr(t->keys);
	attr.batch.values = ptr(t->access);
	attr.batch.count = (uint32_t)t->count;
	/* elem_flags must stay 0: batches take no BPF_NOEXIST (EINVAL). */
	if (sys_bpf(BPF_MAP_UPDATE_BATCH, &attr) < 0) {
		if (errno != EINVAL && errno != ENOTSUPP && errno != EOPNOTSUPP)
			goto error;
		if (map_fill_each(fd, t) < 0)
			goto error;
	}

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (uint32_t)fd;
	if (sys_bpf(BPF_MAP_FREEZE, &attr) < 0)
		goto error;
	return fd;
error:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

int devfilter_load(const struct bpf_insn *insns, size_t count, char *log,
		   size_t log_size)
{
	union bpf_attr attr;
	int fd, saved;

	if (!insns || count == 0 || count > UINT32_MAX) {
		errno = EINVAL;
		return -1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
	attr.insns = ptr(insns);
	attr.insn_cnt = (uint32_t)count;
	attr.license = ptr("GPL");
	memcpy(attr.prog_name, DEVFILTER_NAME, sizeof(DEVFILTER_NAME));
	if ((fd = sys_bpf(BPF_PROG_LOAD, &attr)) >= 0)
		return fd;
	saved = errno;
	if (log && log_size >= 128) {
		/*
		 * Again with the log: only now is its cost worth paying.  The
		 * buffer is cleared first because the kernel writes it even
		 * though the call fails, which memory checkers cannot know.
		 */
		memset(log, 0, log_size);
		attr.log_level = 1;
		attr.log_buf = ptr(log);
		attr.log_size = log_size > (UINT32_MAX >> 2)
					? (UINT32_MAX >> 2)
					: (uint32_t)log_size;
		if ((fd = sys_bpf(BPF_PROG_LOAD, &attr)) >= 0)
			return fd;
		log[log_size - 1] = '\0';
	}
	errno = saved;
	return -1;
}

int devfilter_create(const struct devrule_list *list, char *log,
		     size_t log_size)
{
	struct devfilter_table t;
	struct bpf_insn *insns = NULL;
	size_t count;
	int map_fd = -1, fd = -1, saved;

	if (log && log_size)
		log[0] = '\0';
	if (devfilter_table_build(list, &t) < 0)
		return -1;
	if (t.count && (map_fd = devfilter_map_create(&t)) < 0)
		goto out;
	if (devfilter_build(&t, map_fd, &insns, &count) < 0)
		goto out;
	fd = devfilter_load(insns, count, log, log_size);
out:
	/* The program holds the map now; our fd is no longer needed. */
	saved = errno;
	if (map_fd >= 0)
		close(map_fd);
	free(insns);
	devfilter_table_free(&t);
	errno = saved;
	return fd;
}

int devfilter_attach(int prog_fd, int cgroup_fd)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.target_fd = (uint32_t)cgroup_fd;
	attr.attach_bpf_fd = (uint32_t)prog_fd;
	attr.attach_type = BPF_CGROUP_DEVICE;
	attr.attach_flags = BPF_F_ALLOW_MULTI;
	return sys_bpf(BPF_PROG_ATTACH, &attr) < 0 ? -1 : 0;
}

int devfilter_detach(int prog_fd, int cgroup_fd)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.target_fd = (uint32_t)cgroup_fd;
	attr.attach_bpf_fd = (uint32_t)prog_fd;
	attr.attach_type = BPF_CGROUP_DEVICE;
	return sys_bpf(BPF_PROG_DETACH, &attr) < 0 ? -1 : 0;
}

int devfilter_query(int cgroup_fd, uint32_t *ids, size_t max)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.query.target_fd = (uint32_t)cgroup_fd;
	attr.query.attach_type = BPF_CGROUP_DEVICE;
	attr.query.prog_ids = ptr(max ? ids : NULL);
	attr.query.prog_cnt = max > UINT32_MAX ? UINT32_MAX : (uint32_t)max;
	/* ENOSPC: more attached than fit; the count is still filled in. */
	if (sys_bpf(BPF_PROG_QUERY, &attr) < 0 && errno != ENOSPC)
		return -1;
	return (int)attr.query.prog_cnt;
}

/* Reads the kernel's info about a program fd. */
static int prog_info(int prog_fd, struct bpf_prog_info *info)
{
	union bpf_attr attr;

	memset(info, 0, sizeof(*info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = (uint32_t)prog_fd;
	attr.info.info_len = sizeof(*info);
	attr.info.info = ptr(info);
	return sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr) < 0 ? -1 : 0;
}

int devfilter_prog_id(int prog_fd, uint32_t *id)
{
	struct bpf_prog_info info;

	if (prog_info(prog_fd, &info) < 0)
		return -1;
	*id = info.id;
	return 0;
}

int devfilter_prog_open(uint32_t id)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_id = id;
	return sys_bpf(BPF_PROG_GET_FD_BY_ID, &attr);
}

int devfilter_prog_alive(uint32_t id)
{
	int fd = devfilter_prog_open(id);

	if (fd >= 0) {
		close(fd);
		return 1;
	}
	return errno == ENOENT ? 0 : -1;
}

int devfilter_count_loaded(void)
{
	union bpf_attr attr;
	uint32_t id = 0;
	int count = 0;

	for (;;) {
		struct bpf_prog_info info;
		int fd;

		memset(&attr, 0, sizeof(attr));
		attr.start_id = id;
		if (sys_bpf(BPF_PROG_GET_NEXT_ID, &attr) < 0)
			return errno == ENOENT ? count : -1;
		id = attr.next_id;
		if ((fd = devfilter_prog_open(id)) < 0) {
			if (errno == ENOENT)
				continue; /* unloaded meanwhile */
			return -1;
		}
		if (prog_info(fd, &info) == 0 &&
		    info.type == BPF_PROG_TYPE_CGROUP_DEVICE &&
		    !strcmp(info.name, DEVFILTER_NAME))
			count++;
		close(fd);
	}
}

int devfilter_probe(void)
{
	struct devrule_list one;
	int fd, saved;

	devrule_list_init(&one, false);
	if (devrule_list_add(&one, 'c', 1, 3, false, DEVRULE_R) < 0)
		return -1;
	fd = devfilter_create(&one, NULL, 0);
	saved = errno;
	devrule_list_free(&one);
	if (fd < 0) {
		errno = saved;
		return -1;
	}
	close(fd);
	return 0;
}
