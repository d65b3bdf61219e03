/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sluid.h - a job's SLUID as Slurm writes it.
 *
 * From 26.05 every job has, beside its id, a 64-bit SLUID (the cluster's
 * number, a time in ms and a sequence), which Slurm prints as "s" and 13
 * digits of Crockford's base 32, most significant first (the first digit
 * holds the top 4 bits).  26.05's cgroup/v2 names a job's cgroup so
 * (".../sEKNKTV3WPV500/step_0") unless cgroup.conf has CgroupJobIdPaths=yes,
 * and namespace/linux expands %S to it.  0 is no SLUID: what Slurm passes
 * where it has none (slurmd's join for a new stepd, releases before 25.11).
 *
 * Slurm 22.05 to 26.11 (none before 25.11; the text from 26.05): Slurm's
 * src/common/sluid.c (sluid2str()).  The job's cgroup named by it is
 * slurmconv/jobcg.h's.  A release that changes the text changes this file and
 * src/plugins/slurm_compat.h (DEVNS_STEP_SLUID), nowhere else.
 */
#ifndef DEVNS_SLUID_H
#define DEVNS_SLUID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "s" + 13 digits */
#define SLUID_LEN 14

/*
 * Writes sluid's text into buf (at least SLUID_LEN + 1 bytes).  Returns 0,
 * or -1 with EINVAL when sluid is 0 (none) and ENAMETOOLONG when buf is
 * too small (buf then holds "").
 */
int sluid_format(uint64_t sluid, char *buf, size_t size);

/* Pure: whether the len bytes at name have a SLUID's form ("s" or "S",
 * 13 digits of the alphabet, upper case). */
bool sluid_is_form(const char *name, size_t len);

#endif /* DEVNS_SLUID_H */
