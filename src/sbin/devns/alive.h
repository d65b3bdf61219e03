/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * alive.h - what still runs on the node, told without Slurm's libraries:
 * a job's slurmstepds (for devns cleanup, as the plugin asks them at
 * slurmd start) and slurmd itself.
 */
#ifndef DEVNS_ALIVE_H
#define DEVNS_ALIVE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Whether a slurmstepd of job_id answers on the node: a socket in spool
 * named as Slurm's stepd_available() lists them,
 * <node>_<jobid>.<stepid>[.<component>], that accepts a connection (a
 * step killed with -9 leaves one that refuses).  Returns 1 with the
 * socket's path in answered (may be NULL), 0 when none answers, or -1
 * with errno when spool cannot be read (ENOENT: it does not exist).
 */
int alive_job(const char *spool, const char *node, uint32_t job_id,
	      char *answered, size_t len);

/*
 * The pid of the slurmd that SlurmdPidFile names, when a process called
 * slurmd runs with it; 0 when none does (no file, a stale pid).  -1 with
 * errno when the file exists but cannot be read.
 */
pid_t alive_slurmd(const char *pid_file);

#endif /* DEVNS_ALIVE_H */
