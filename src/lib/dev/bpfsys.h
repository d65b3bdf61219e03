/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bpfsys.h - bpf(2) itself, raw (no libbpf): what devprog (make, load,
 * attach) and devinspect (read back) both call, below either of them.
 */
#ifndef DEVNS_BPFSYS_H
#define DEVNS_BPFSYS_H

#include <stdint.h>
#include <linux/bpf.h>

/* bpf(2): returns what the system call returns (-1 with errno). */
int bpfsys_call(int cmd, union bpf_attr *attr);

/* A pointer as bpf_attr's 64-bit fields take it. */
uint64_t bpfsys_ptr(const void *p);

#endif /* DEVNS_BPFSYS_H */
