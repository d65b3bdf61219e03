/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bpfsys.c - the bpf(2) system call.  See bpfsys.h.
 */
#include <sys/syscall.h>
#include <unistd.h>

#include "dev/bpfsys.h"

int bpfsys_call(int cmd, union bpf_attr *attr)
{
	return (int)syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

uint64_t bpfsys_ptr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}
