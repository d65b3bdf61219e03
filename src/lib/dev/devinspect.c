/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devinspect.c - read attached device programs and the rules of
 * devfilter's programs back from the kernel.  See devinspect.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dev/bpfsys.h"
#include "dev/devfilter.h"
#include "dev/devinspect.h"
#include "util/fdutil.h"

/* More maps than a devfilter program holds: anything else is not one. */
#define MAX_MAPS 4

int devinspect_query(int cgroup_fd, uint32_t *ids, size_t max,
		     uint32_t *flags)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.query.target_fd = (uint32_t)cgroup_fd;
	attr.query.attach_type = BPF_CGROUP_DEVICE;
	attr.query.prog_ids = bpfsys_ptr(max ? ids : NULL);
	attr.query.prog_cnt = max > UINT32_MAX ? UINT32_MAX : (uint32_t)max;
	/* ENOSPC: more attached than fit; the count is still filled in. */
	if (bpfsys_call(BPF_PROG_QUERY, &attr) < 0 && errno != ENOSPC)
		return -1;
	if (flags)
		*flags = attr.query.attach_flags;
	return (int)attr.query.prog_cnt;
}

int devinspect_prog_open(uint32_t id)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_id = id;
	return bpfsys_call(BPF_PROG_GET_FD_BY_ID, &attr);
}

/* BPF_OBJ_GET_INFO_BY_FD into info of size len (arrays as set there). */
static int obj_info(int fd, void *info, uint32_t len)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = (uint32_t)fd;
	attr.info.info_len = len;
	attr.info.info = bpfsys_ptr(info);
	return bpfsys_call(BPF_OBJ_GET_INFO_BY_FD, &attr) < 0 ? -1 : 0;
}

int devinspect_prog_info(int prog_fd, struct bpf_prog_info *info)
{
	memset(info, 0, sizeof(*info));
	return obj_info(prog_fd, info, sizeof(*info));
}

int devinspect_prog_id(int prog_fd, uint32_t *id)
{
	struct bpf_prog_info info;

	if (devinspect_prog_info(prog_fd, &info) < 0)
		return -1;
	*id = info.id;
	return 0;
}

bool devinspect_is_devfilter(const struct bpf_prog_info *info)
{
	return info->type == BPF_PROG_TYPE_CGROUP_DEVICE &&
	       !strncmp(info->name, DEVFILTER_NAME, sizeof(info->name));
}

/*
 * The default verdict: the first "r0 = K; exit" of the program, which
 * devfilter_build() emits before any other (after the lookups, or alone).
 * Returns 0 or 1, or -1 with EMEDIUMTYPE when there is none.
 */
static int default_verdict(const struct bpf_insn *insns, size_t count)
{
	for (size_t i = 0; i + 1 < count; i++) {
		if (insns[i].code != (BPF_ALU64 | BPF_MOV | BPF_K) ||
		    insns[i].dst_reg != BPF_REG_0 ||
		    insns[i + 1].code != (BPF_JMP | BPF_EXIT))
			continue;
		if (insns[i].imm == 0 || insns[i].imm == 1)
			return insns[i].imm;
		break;
	}
	errno = EMEDIUMTYPE;
	return -1;
}

/*
 * The program's instructions as the verifier left them and the ids of its
 * maps.  Returns 0, or -1 with errno.
 */
static int prog_read(int prog_fd, struct bpf_insn **insns, size_t *count,
		     uint32_t *map_ids, uint32_t *nr_maps)
{
	struct bpf_prog_info info;
	uint32_t len;

	*insns = NULL;
	if (devinspect_prog_info(prog_fd, &info) < 0)
		return -1;
	if (!devinspect_is_devfilter(&info) || info.nr_map_ids > MAX_MAPS) {
		errno = EMEDIUMTYPE;
		return -1;
	}
	if (!(len = info.xlated_prog_len)) {
		errno = EPERM;	/* hidden from the unprivileged */
		return -1;
	}
	if (!(*insns = calloc(1, len)))
		return -1;
	*nr_maps = info.nr_map_ids;
	memset(&info, 0, sizeof(info));
	info.xlated_prog_len = len;
	info.xlated_prog_insns = bpfsys_ptr(*insns);
	info.nr_map_ids = *nr_maps;
	info.map_ids = bpfsys_ptr(map_ids);
	if (obj_info(prog_fd, &info, sizeof(info)) < 0)
		goto error;
	if (info.xlated_prog_len != len || info.nr_map_ids != *nr_maps) {
		errno = EAGAIN;	/* a loaded program cannot change */
		goto error;
	}
	*count = len / sizeof(**insns);
	return 0;
error:
	{
		int saved = errno;

		free(*insns);
		*insns = NULL;
		errno = saved;
	}
	return -1;
}

/* Opens the map by id, read-only unless writable, with the kernel's info
 * about it. */
static int map_open(uint32_t id, bool writable, struct bpf_map_info *info)
{
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.map_id = id;
	attr.open_flags = writable ? 0 : BPF_F_RDONLY;
	if ((fd = bpfsys_call(BPF_MAP_GET_FD_BY_ID, &attr)) < 0)
		return -1;
	memset(info, 0, sizeof(*info));
	if (obj_info(fd, info, sizeof(*info)) == 0)
		return fd;
	fdutil_close(fd);
	return -1;
}

/* Whether info is that of a devfilter rule table (devprog_map_create). */
static bool is_rule_map(const struct bpf_map_info *info)
{
	return info->type == BPF_MAP_TYPE_ARRAY &&
	       info->key_size == sizeof(uint32_t) &&
	       info->value_size == sizeof(struct devfilter_slot) &&
	       !strncmp(info->name, DEVFILTER_NAME, sizeof(info->name));
}

/* Whether info is that of a map of denials (devprog_denied_create). */
static bool is_denied_map(const struct bpf_map_info *info)
{
	return info->type == BPF_MAP_TYPE_HASH &&
	       info->key_size == sizeof(uint64_t) &&
	       info->value_size == sizeof(uint64_t) &&
	       !strncmp(info->name, DEVFILTER_DENIED_NAME, sizeof(info->name));
}

/*
 * Opens the one map of the program that want() accepts (read-only unless
 * writable): its fd, or -1 with errno (ENOENT: none; EMEDIUMTYPE: a map
 * devfilter never makes, or two of the kind).
 */
static int map_find(const uint32_t *ids, uint32_t n, bool writable,
		    bool (*want)(const struct bpf_map_info *))
{
	struct bpf_map_info info;
	int found = -1, saved;

	for (uint32_t i = 0; i < n; i++) {
		int fd = map_open(ids[i], writable, &info);

		if (fd < 0)
			goto error;
		if ((!is_rule_map(&info) && !is_denied_map(&info)) ||
		    (want(&info) && found >= 0)) {
			close(fd);
			errno = EMEDIUMTYPE;
			goto error;
		}
		if (want(&info))
			found = fd;
		else
			close(fd);
	}
	if (found < 0)
		errno = ENOENT;
	return found;
error:
	saved = errno;
	if (found >= 0)
		close(found);
	errno = saved;
	return -1;
}

/*
 * Appends the rule of one used slot to out.  The program lets an exact
 * entry win over its wildcard, so exact entries read back are pinned;
 * normalising unpins those for which that makes no difference, giving
 * the list devpolicy_build() made.
 */
static int rule_add(struct devrule_list *out, const struct devfilter_slot *slot)
{
	struct devfilter_key k;
	char type;

	if (devfilter_unpack(slot->key, &k) < 0 ||
	    (slot->access & ~DEVRULE_RWM)) {
		errno = EMEDIUMTYPE;
		return -1;
	}
	type = k.type == BPF_DEVCG_DEV_CHAR ? 'c' : 'b';
	if (k.minor == DEVFILTER_ANY_MINOR)
		return devrule_list_add(out, type, k.major, 0, true,
					slot->access);
	return devrule_list_pin(out, type, k.major, k.minor, slot->access);
}

/* The rule of every used slot of the array map into out. */
static int map_dump(int map_fd, struct devrule_list *out)
{
	struct bpf_map_info info;
	struct devfilter_slot slot;
	union bpf_attr attr;

	memset(&info, 0, sizeof(info));
	if (obj_info(map_fd, &info, sizeof(info)) < 0)
		return -1;
	for (uint32_t i = 0; i < info.max_entries; i++) {
		memset(&attr, 0, sizeof(attr));
		memset(&slot, 0, sizeof(slot));
		attr.map_fd = (uint32_t)map_fd;
		attr.key = bpfsys_ptr(&i);
		attr.value = bpfsys_ptr(&slot);
		if (bpfsys_call(BPF_MAP_LOOKUP_ELEM, &attr) < 0)
			return -1;
		if (slot.key && rule_add(out, &slot) < 0)
			return -1;
	}
	return 0;
}

int devinspect_rules(int prog_fd, struct devrule_list *out)
{
	/* zeroed: memory checkers cannot see the kernel fill it */
	uint32_t map_ids[MAX_MAPS] = { 0 }, nr_maps = 0;
	struct bpf_insn *insns;
	size_t count;
	int verdict, map_fd = -1, saved;

	devrule_list_init(out, false);
	if (prog_read(prog_fd, &insns, &count, map_ids, &nr_maps) < 0)
		return -1;
	if ((verdict = default_verdict(insns, count)) < 0)
		goto error;
	out->default_allow = verdict == 1;
	/* No rule map: an empty table (its denials may have a map). */
	if ((map_fd = map_find(map_ids, nr_maps, false, is_rule_map)) < 0 &&
	    errno != ENOENT)
		goto error;
	if (map_fd >= 0 && map_dump(map_fd, out) < 0)
		goto error;
	devrule_list_normalise(out);
	if (map_fd >= 0)
		close(map_fd);
	free(insns);
	return 0;
error:
	saved = errno;
	if (map_fd >= 0)
		close(map_fd);
	free(insns);
	devrule_list_free(out);
	errno = saved;
	return -1;
}

/* The ids of the program's maps (at most MAX_MAPS) into ids, their count
 * into *n, when it is one of devfilter's.  0 or -1 (errno). */
static int prog_maps(int prog_fd, uint32_t *ids, uint32_t *n)
{
	struct bpf_prog_info info;

	if (devinspect_prog_info(prog_fd, &info) < 0)
		return -1;
	if (!devinspect_is_devfilter(&info) || info.nr_map_ids > MAX_MAPS) {
		errno = EMEDIUMTYPE;
		return -1;
	}
	*n = info.nr_map_ids;
	memset(&info, 0, sizeof(info));
	info.nr_map_ids = *n;
	info.map_ids = bpfsys_ptr(ids);
	return obj_info(prog_fd, &info, sizeof(info));
}

static int denial_cmp(const void *a, const void *b)
{
	const struct devinspect_denial *x = a, *y = b;

	/* The entry of a full map (type 0) last. */
	if (x->type != y->type)
		return !x->type ? 1 : !y->type ? -1 : x->type - y->type;
	if (x->major != y->major)
		return x->major < y->major ? -1 : 1;
	if (x->minor != y->minor)
		return x->minor < y->minor ? -1 : 1;
	return (int)x->access - (int)y->access;
}

/* The entry of one key and count; -1 (EMEDIUMTYPE) for a key never made. */
static int denial_of(uint64_t key, uint64_t count, struct devinspect_denial *d)
{
	struct devfilter_key k;
	/* The access bits sit between the packed minor..major and type. */
	uint64_t bits = 0xffull << DEVFILTER_DENIED_ACCESS_SHIFT;

	memset(d, 0, sizeof(*d));
	d->count = count;
	if (key == DEVFILTER_DENIED_OTHER)
		return 0;
	d->access = (unsigned)((key & bits) >> DEVFILTER_DENIED_ACCESS_SHIFT);
	if (devfilter_unpack(key & ~bits, &k) < 0 ||
	    k.minor == DEVFILTER_ANY_MINOR || (d->access & ~DEVRULE_RWM)) {
		errno = EMEDIUMTYPE;
		return -1;
	}
	d->type = k.type == BPF_DEVCG_DEV_CHAR ? 'c' : 'b';
	d->major = k.major;
	d->minor = k.minor;
	return 0;
}

/* Every entry of the map of denials with a count, into out and its key into
 * keys (room for DEVFILTER_DENIED_MAX each).  Returns how many, or -1 with
 * errno. */
static int denied_dump(int map_fd, struct devinspect_denial *out,
		       uint64_t *keys)
{
	/*
	 * A hash map answers a key it does not hold with its first key: start
	 * from one the program never makes (every access bit set) rather than
	 * NULL, which valgrind takes for an unaddressable key.
	 */
	uint64_t key = UINT64_MAX, next, count;
	union bpf_attr attr;
	int n = 0;

	for (;;) {
		memset(&attr, 0, sizeof(attr));
		attr.map_fd = (uint32_t)map_fd;
		attr.key = bpfsys_ptr(&key);
		attr.next_key = bpfsys_ptr(&next);
		if (bpfsys_call(BPF_MAP_GET_NEXT_KEY, &attr) < 0)
			return errno == ENOENT ? n : -1;
		key = next;
		memset(&attr, 0, sizeof(attr));
		attr.map_fd = (uint32_t)map_fd;
		attr.key = bpfsys_ptr(&key);
		attr.value = bpfsys_ptr(&count);
		if (bpfsys_call(BPF_MAP_LOOKUP_ELEM, &attr) < 0) {
			if (errno == ENOENT)
				continue;
			return -1;
		}
		if (!count)
			continue;
		if (n == DEVFILTER_DENIED_MAX) {
			errno = E2BIG;	/* more keys than it is made for */
			return -1;
		}
		if (denial_of(key, count, &out[n]) < 0)
			return -1;
		keys[n++] = key;
	}
}

/*
 * Takes entry d (read by denied_dump) out of the map: its count is what the
 * kernel hands back as it deletes the key, so that a denial counted since
 * the dump is not lost, and an entry another reader took first is dropped
 * (returns 0).  The entry of a full map stays, zeroed: the program counts
 * there only if the key exists.  Returns 1, 0, or -1 with errno.
 */
static int denied_take(int map_fd, struct devinspect_denial *d, uint64_t key)
{
	union bpf_attr attr;
	uint64_t count = 0;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (uint32_t)map_fd;
	attr.key = bpfsys_ptr(&key);
	attr.value = bpfsys_ptr(&count);
	if (key == DEVFILTER_DENIED_OTHER)
		return bpfsys_call(BPF_MAP_UPDATE_ELEM, &attr) < 0 ? -1 : 1;
	if (bpfsys_call(BPF_MAP_LOOKUP_AND_DELETE_ELEM, &attr) < 0)
		return errno == ENOENT ? 0 : -1;
	d->count = count;
	return count != 0;
}

/* denied_take for each of the n entries of d, of keys keys; returns how
 * many are left. */
static int denied_take_all(int map_fd, struct devinspect_denial *d,
			   const uint64_t *keys, int n)
{
	int kept = 0, r;

	for (int i = 0; i < n; i++) {
		if ((r = denied_take(map_fd, &d[i], keys[i])) < 0)
			return -1;
		if (r)
			d[kept++] = d[i];
	}
	return kept;
}

/* devinspect_denials and devinspect_take_denials. */
static int denials_read(int prog_fd, bool take, struct devinspect_denial **out)
{
	uint32_t map_ids[MAX_MAPS] = { 0 }, nr_maps = 0;
	uint64_t *keys;
	int map_fd, n, saved;

	*out = NULL;
	if (prog_maps(prog_fd, map_ids, &nr_maps) < 0 ||
	    (map_fd = map_find(map_ids, nr_maps, take, is_denied_map)) < 0)
		return -1;
	keys = calloc(DEVFILTER_DENIED_MAX, sizeof(*keys));
	if (!keys || !(*out = calloc(DEVFILTER_DENIED_MAX, sizeof(**out)))) {
		free(keys);
		close(map_fd);
		return -1;
	}
	n = denied_dump(map_fd, *out, keys);
	if (n > 0 && take)
		n = denied_take_all(map_fd, *out, keys, n);
	saved = errno;
	free(keys);
	close(map_fd);
	if (n <= 0) {
		free(*out);
		*out = NULL;
		errno = saved;
		return n;
	}
	qsort(*out, (size_t)n, sizeof(**out), denial_cmp);
	return n;
}

int devinspect_denials(int prog_fd, struct devinspect_denial **out)
{
	return denials_read(prog_fd, false, out);
}

int devinspect_take_denials(int prog_fd, struct devinspect_denial **out)
{
	return denials_read(prog_fd, true, out);
}

int devinspect_denial_format(const struct devinspect_denial *d, char *buf,
			     size_t len)
{
	struct devrule r = {
		.type = d->type, .major = d->major, .minor = d->minor,
		.access = d->access,
	};

	if (!d->type)
		return snprintf(buf, len, "other devices (the record was full)");
	return devrule_format(&r, buf, len);
}
