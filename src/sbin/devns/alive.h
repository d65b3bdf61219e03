/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * alive.h - whether slurmd runs on the node, told without Slurm's
 * libraries (a job's slurmstepds: slurmconv/stepsock.h).
 */
#ifndef DEVNS_ALIVE_H
#define DEVNS_ALIVE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The pid of the slurmd that SlurmdPidFile names, when a process called
 * slurmd runs with it; 0 when none does (no file, a stale pid).  -1 with
 * errno when the file exists but cannot be read.
 */
pid_t alive_slurmd(const char *pid_file);

#endif /* DEVNS_ALIVE_H */
