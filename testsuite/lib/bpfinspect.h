/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bpfinspect.h - what only tests and benchmarks ask the kernel about
 * device programs; reading programs back is dev/devinspect.h.
 */
#ifndef DEVNS_BPFINSPECT_H
#define DEVNS_BPFINSPECT_H

#include <stddef.h>
#include <stdint.h>

/* 1 while a program with that id is loaded, 0 once it is gone, -1 (errno). */
int bpfinspect_prog_alive(uint32_t id);

/*
 * Number of cgroup-device programs named DEVFILTER_NAME loaded on the whole
 * machine (walks all program ids; needs root), or -1 with errno.
 */
int bpfinspect_count_loaded(void);

#endif /* DEVNS_BPFINSPECT_H */
