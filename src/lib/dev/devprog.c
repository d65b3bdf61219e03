/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devprog.c - the bpf(2) calls of device containment: make and freeze the
 * rule map, load the program devfilter.c emits, attach it to a cgroup.
 *
 * Raw syscalls, no libbpf.  The map is made read-only for programs
 * (BPF_F_RDONLY_PROG) and frozen after filling, so nothing can widen a
 * job's rules once it is set up.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dev/bpfsys.h"
#include "dev/devinspect.h"
#include "dev/devprog.h"
#include "util/fdutil.h"

/* Not in the uapi headers, but bpf(2) returns it for unsupported commands. */
#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

/* Fills the map one slot at a time (kernels before 5.6 lack batches). */
static int map_fill_each(int map_fd, const uint32_t *index,
			 const struct devfilter_slot *slots, size_t count)
{
	union bpf_attr attr;
	size_t i;

	for (i = 0; i < count; i++) {
		memset(&attr, 0, sizeof(attr));
		attr.map_fd = (uint32_t)map_fd;
		attr.key = bpfsys_ptr(&index[i]);
		attr.value = bpfsys_ptr(&slots[i]);
		attr.flags = BPF_ANY;
		if (bpfsys_call(BPF_MAP_UPDATE_ELEM, &attr) < 0)
			return -1;
	}
	return 0;
}

/*
 * Writes t's used slots into the array map (unused slots are the array's
 * zeros, which mean empty): one batch, or one update per slot.
 */
static int map_fill(int map_fd, const struct devfilter_table *t)
{
	struct devfilter_slot *slots = calloc(t->count, sizeof(*slots));
	uint32_t *index = calloc(t->count, sizeof(*index));
	union bpf_attr attr;
	size_t n = 0;
	int rc = -1;

	if (!slots || !index)
		goto out;
	for (uint32_t i = 0; i < t->nslots; i++) {
		if (!t->slots[i].key)
			continue;
		index[n] = i;
		slots[n++] = t->slots[i];
	}
	memset(&attr, 0, sizeof(attr));
	attr.batch.map_fd = (uint32_t)map_fd;
	attr.batch.keys = bpfsys_ptr(index);
	attr.batch.values = bpfsys_ptr(slots);
	attr.batch.count = (uint32_t)n;
	/* elem_flags must stay 0: batches take no BPF_NOEXIST (EINVAL). */
	rc = bpfsys_call(BPF_MAP_UPDATE_BATCH, &attr);
	if (rc < 0 && (errno == EINVAL || errno == ENOTSUPP ||
		       errno == EOPNOTSUPP))
		rc = map_fill_each(map_fd, index, slots, n);
out:
	if (!slots || !index)
		errno = ENOMEM;
	{
		int saved = errno;

		free(slots);
		free(index);
		errno = saved;
	}
	return rc;
}

int devprog_map_create(const struct devfilter_table *t)
{
	union bpf_attr attr;
	int fd;

	if (t->count == 0 || !t->nslots) {
		errno = EINVAL;
		return -1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = sizeof(uint32_t);
	attr.value_size = sizeof(struct devfilter_slot);
	attr.max_entries = t->nslots;
	/*
	 * No BPF_F_RDONLY_PROG: the verifier then reads every load from a
	 * value as a constant of the frozen map, which an array of more than
	 * one entry refuses (ENOTSUPP).  Frozen, the map is closed to
	 * bpf(2) writes; our program only reads it.
	 */
	memcpy(attr.map_name, DEVFILTER_NAME, sizeof(DEVFILTER_NAME));
	if ((fd = bpfsys_call(BPF_MAP_CREATE, &attr)) < 0)
		return -1;
	if (map_fill(fd, t) < 0)
		goto error;
	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (uint32_t)fd;
	if (bpfsys_call(BPF_MAP_FREEZE, &attr) < 0)
		goto error;
	return fd;
error:
	fdutil_close(fd);
	return -1;
}

int devprog_denied_create(void)
{
	uint64_t key = DEVFILTER_DENIED_OTHER, zero = 0;
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_HASH;
	attr.key_size = sizeof(uint64_t);
	attr.value_size = sizeof(uint64_t);
	attr.max_entries = DEVFILTER_DENIED_MAX;
	/* Memory for the devices a job is denied, not for the most it may. */
	attr.map_flags = BPF_F_NO_PREALLOC;
	memcpy(attr.map_name, DEVFILTER_DENIED_NAME,
	       sizeof(DEVFILTER_DENIED_NAME));
	if ((fd = bpfsys_call(BPF_MAP_CREATE, &attr)) < 0)
		return -1;
	/* The entry a full map's denials go to must be there already. */
	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (uint32_t)fd;
	attr.key = bpfsys_ptr(&key);
	attr.value = bpfsys_ptr(&zero);
	attr.flags = BPF_NOEXIST;
	if (bpfsys_call(BPF_MAP_UPDATE_ELEM, &attr) < 0) {
		fdutil_close(fd);
		return -1;
	}
	return fd;
}

int devprog_load(const struct bpf_insn *insns, size_t count, char *log,
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
	attr.insns = bpfsys_ptr(insns);
	attr.insn_cnt = (uint32_t)count;
	attr.license = bpfsys_ptr("GPL");
	memcpy(attr.prog_name, DEVFILTER_NAME, sizeof(DEVFILTER_NAME));
	if ((fd = bpfsys_call(BPF_PROG_LOAD, &attr)) >= 0)
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
		attr.log_buf = bpfsys_ptr(log);
		attr.log_size = log_size > (UINT32_MAX >> 2)
					? (UINT32_MAX >> 2)
					: (uint32_t)log_size;
		if ((fd = bpfsys_call(BPF_PROG_LOAD, &attr)) >= 0)
			return fd;
		log[log_size - 1] = '\0';
	}
	errno = saved;
	return -1;
}

/* Emits and loads t's program (denied_fd < 0: without counting). */
static int build_load(const struct devfilter_table *t, int map_fd,
		      int denied_fd, char *log, size_t log_size)
{
	struct bpf_insn *insns = NULL;
	size_t count;
	int fd, saved;

	if (devfilter_build(t, map_fd, denied_fd, &insns, &count) < 0)
		return -1;
	fd = devprog_load(insns, count, log, log_size);
	saved = errno;
	free(insns);
	errno = saved;
	return fd;
}

/* Says in log (when there is one) why denials go uncounted. */
static void note_uncounted(char *log, size_t log_size, const char *what,
			   int err)
{
	if (log && log_size)
		snprintf(log, log_size, "%s: %s", what, strerror(err));
}

/*
 * Counting is a record, not the containment: when the kernel refuses the
 * map or the counting program, the job gets the same filter without it
 * (the log says why), never no filter.
 */
int devprog_create(const struct devrule_list *list, char *log,
		     size_t log_size)
{
	struct devfilter_table t;
	int map_fd = -1, denied_fd, fd = -1, saved;

	if (log && log_size)
		log[0] = '\0';
	if (devfilter_table_build(list, &t) < 0)
		return -1;
	if (t.count && (map_fd = devprog_map_create(&t)) < 0)
		goto out;
	if (!t.count && t.default_allow) {
		denied_fd = -1;	/* it denies nothing: nothing to count */
	} else if ((denied_fd = devprog_denied_create()) < 0) {
		note_uncounted(log, log_size,
			       "the kernel refused the map of denied opens",
			       errno);
	} else {
		fd = build_load(&t, map_fd, denied_fd, NULL, 0);
		saved = errno;
		close(denied_fd);
		if (fd >= 0)
			goto out;
		note_uncounted(log, log_size,
			       "the kernel refused the counting program",
			       saved);
	}
	/* The log keeps the reason unless this load fails too. */
	fd = build_load(&t, map_fd, -1, log, log_size);
out:
	/* The program holds the maps now; our fds are no longer needed. */
	saved = errno;
	if (map_fd >= 0)
		close(map_fd);
	devfilter_table_free(&t);
	errno = saved;
	return fd;
}

int devprog_attach(int prog_fd, int cgroup_fd)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.target_fd = (uint32_t)cgroup_fd;
	attr.attach_bpf_fd = (uint32_t)prog_fd;
	attr.attach_type = BPF_CGROUP_DEVICE;
	attr.attach_flags = BPF_F_ALLOW_MULTI;
	return bpfsys_call(BPF_PROG_ATTACH, &attr) < 0 ? -1 : 0;
}

int devprog_detach(int prog_fd, int cgroup_fd)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.target_fd = (uint32_t)cgroup_fd;
	attr.attach_bpf_fd = (uint32_t)prog_fd;
	attr.attach_type = BPF_CGROUP_DEVICE;
	return bpfsys_call(BPF_PROG_DETACH, &attr) < 0 ? -1 : 0;
}

int devprog_query(int cgroup_fd, uint32_t *flags, uint32_t *count)
{
	int n = devinspect_query(cgroup_fd, NULL, 0, flags);

	if (n < 0)
		return -1;
	*count = (uint32_t)n;
	return 0;
}

/* At most this many programs on one cgroup (the kernel's limit is 64). */
#define QUERY_MAX 64

/* The first program of ours on cgroup_fd whose id is not skip_id. */
static int find_attached_but(int cgroup_fd, uint32_t skip_id)
{
	uint32_t ids[QUERY_MAX] = { 0 };
	struct bpf_prog_info info;
	int n = devinspect_query(cgroup_fd, ids, QUERY_MAX, NULL);

	if (n < 0)
		return -1;
	for (int i = 0; i < n && i < QUERY_MAX; i++) {
		int fd;

		if (skip_id && ids[i] == skip_id)
			continue;
		if ((fd = devinspect_prog_open(ids[i])) < 0)
			continue;	/* detached and freed meanwhile */
		if (devinspect_prog_info(fd, &info) < 0) {
			fdutil_close(fd);
			return -1;
		}
		if (devinspect_is_devfilter(&info))
			return fd;
		close(fd);
	}
	errno = ENOENT;
	return -1;
}

int devprog_find_attached(int cgroup_fd)
{
	return find_attached_but(cgroup_fd, 0);
}

int devprog_find_other(int cgroup_fd, int keep_fd)
{
	struct bpf_prog_info info;

	if (devinspect_prog_info(keep_fd, &info) < 0)
		return -1;
	if (!info.id) {		/* every loaded program has one */
		errno = EINVAL;
		return -1;
	}
	return find_attached_but(cgroup_fd, info.id);
}

int devprog_probe(void)
{
	struct devrule_list one;
	int fd, saved;

	devrule_list_init(&one, false);
	if (devrule_list_add(&one, 'c', 1, 3, false, DEVRULE_R) < 0)
		return -1;
	fd = devprog_create(&one, NULL, 0);
	saved = errno;
	devrule_list_free(&one);
	if (fd < 0) {
		errno = saved;
		return -1;
	}
	close(fd);
	return 0;
}
