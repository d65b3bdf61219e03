/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bpfinspect.h - read back from the kernel which device programs are
 * attached and loaded (tests and benchmarks only).
 */
#ifndef DEVNS_BPFINSPECT_H
#define DEVNS_BPFINSPECT_H

#include <stddef.h>
#include <stdint.h>

/*
 * Fills ids (up to max) with the ids of the device programs attached directly
 * to cgroup_fd (not inherited ones) and returns how many are attached, which
 * may exceed max; -1 with errno on failure.
 */
int bpfinspect_query(int cgroup_fd, uint32_t *ids, size_t max);

/* The kernel's id of a loaded program.  Returns 0 or -1 (errno). */
int bpfinspect_prog_id(int prog_fd, uint32_t *id);

/*
 * Opens the loaded program with that id (BPF_PROG_GET_FD_BY_ID), e.g. to
 * detach a leftover found with bpfinspect_query.  Returns an fd, or -1 with
 * errno (ENOENT: no such program).
 */
int bpfinspect_prog_open(uint32_t id);

/* 1 while a program with that id is loaded, 0 once it is gone, -1 (errno). */
int bpfinspect_prog_alive(uint32_t id);

/*
 * Number of cgroup-device programs named DEVFILTER_NAME loaded on the whole
 * machine (walks all program ids; needs root), or -1 with errno.
 */
int bpfinspect_count_loaded(void);

#endif /* DEVNS_BPFINSPECT_H */
