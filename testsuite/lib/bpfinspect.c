/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bpfinspect.c - what tests and benchmarks ask the kernel about device
 * programs: whether one is still loaded, how many devns programs the
 * machine holds.  Built on dev/devinspect.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "dev/bpfsys.h"
#include "dev/devinspect.h"
#include "dev/devprog.h"
#include "bpfinspect.h"

int bpfinspect_prog_alive(uint32_t id)
{
	int fd = devinspect_prog_open(id);

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
		if (bpfsys_call(BPF_PROG_GET_NEXT_ID, &attr) < 0)
			return errno == ENOENT ? count : -1;
		id = attr.next_id;
		if ((fd = devinspect_prog_open(id)) < 0) {
			if (errno == ENOENT)
				continue; /* unloaded meanwhile */
			return -1;
		}
		if (devinspect_prog_info(fd, &info) == 0 &&
		    devinspect_is_devfilter(&info))
			count++;
		close(fd);
	}
}
