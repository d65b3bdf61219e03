/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bpfinspect.c - what tests and benchmarks ask the kernel about device
 * programs: which are attached to a cgroup, whether one is still loaded,
 * how many devns programs the machine holds.  The plugins never need this,
 * so it is not part of libdevns_dev.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "dev/devprog.h"
#include "bpfinspect.h"

int bpfinspect_query(int cgroup_fd, uint32_t *ids, size_t max)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.query.target_fd = (uint32_t)cgroup_fd;
	attr.query.attach_type = BPF_CGROUP_DEVICE;
	attr.query.prog_ids = devprog_ptr(max ? ids : NULL);
	attr.query.prog_cnt = max > UINT32_MAX ? UINT32_MAX : (uint32_t)max;
	/* ENOSPC: more attached than fit; the count is still filled in. */
	if (devprog_bpf(BPF_PROG_QUERY, &attr) < 0 && errno != ENOSPC)
		return -1;
	return (int)attr.query.prog_cnt;
}

/* Reads the kernel's info about a program fd. */
static int inspect_prog_info(int prog_fd, struct bpf_prog_info *info)
{
	union bpf_attr attr;

	memset(info, 0, sizeof(*info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = (uint32_t)prog_fd;
	attr.info.info_len = sizeof(*info);
	attr.info.info = devprog_ptr(info);
	return devprog_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr) < 0 ? -1 : 0;
}

int bpfinspect_prog_id(int prog_fd, uint32_t *id)
{
	struct bpf_prog_info info;

	if (inspect_prog_info(prog_fd, &info) < 0)
		return -1;
	*id = info.id;
	return 0;
}

int bpfinspect_prog_open(uint32_t id)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_id = id;
	return devprog_bpf(BPF_PROG_GET_FD_BY_ID, &attr);
}

int bpfinspect_prog_alive(uint32_t id)
{
	int fd = bpfinspect_prog_open(id);

	if (fd >= 0) {
		close(fd);
		return 1;
	}
	return errno == ENOENT ? 0 : -1;
}

int bpfinspect_count_loaded(void)
{
	union bpf_attr attr;
	uint32_t id = 0;
	int count = 0;

	for (;;) {
		struct bpf_prog_info info;
		int fd;

		memset(&attr, 0, sizeof(attr));
		attr.start_id = id;
		if (devprog_bpf(BPF_PROG_GET_NEXT_ID, &attr) < 0)
			return errno == ENOENT ? count : -1;
		id = attr.next_id;
		if ((fd = bpfinspect_prog_open(id)) < 0) {
			if (errno == ENOENT)
				continue; /* unloaded meanwhile */
			return -1;
		}
		if (inspect_prog_info(fd, &info) == 0 &&
		    info.type == BPF_PROG_TYPE_CGROUP_DEVICE &&
		    !strcmp(info.name, DEVFILTER_NAME))
			count++;
		close(fd);
	}
}
