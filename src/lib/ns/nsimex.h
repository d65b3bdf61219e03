/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsimex.h - a job's NVIDIA IMEX channel, made by Slurm's switch
 * (switch/nvidia_imex, dev/imexdev.h) inside the job's pinned mount
 * namespace.
 *
 * Slurm's maker (switch_g_fs_init) mounts a tmpfs on
 * /dev/nvidia-caps-imex-channels and makes the job's channel there, in
 * the mount namespace it is called in on 24.11, in one it unshares first
 * from 25.11 (Slurm's own namespace plugins call it in the child that
 * makes the job's namespace, before they pin it).  devns pins the job's
 * namespace before the maker runs, so nsimex_make runs it in a child that
 * entered the pinned namespace and, where the maker moved on into a
 * namespace of its own, carries the mount it made there over into the
 * pinned one.  Either way the job's namespace then holds the channel,
 * which every process of the job (each step, each adopted login) sees.
 */
#ifndef DEVNS_NSIMEX_H
#define DEVNS_NSIMEX_H

#include <stdint.h>

#include "util/report.h"

/*
 * Makes the job's channel where the caller is (Slurm: switch_g_fs_init);
 * nothing when the job has none.  Runs in a child process of the caller,
 * forked.  Returns 0, or -1 (the maker logs why).
 */
typedef int (*nsimex_make_fn)(void *arg);

/*
 * Runs make(arg) in a forked child inside the namespace pinned at
 * BasePath/<jobid>/.ns and reads what it made (imexdev_channel, with the
 * node's IMEX major): the caller's namespace and files are untouched.
 * Returns 1 with *channel, 0 when the job got no channel (make mounted
 * nothing on the directory), or -1 with errno and rep: the namespace
 * could not be entered, make failed, its mount could not be carried
 * over, or the directory holds anything but the one channel of major.
 */
int nsimex_make(const char *base_path, uint32_t job_id, uint32_t major,
		nsimex_make_fn make, void *arg, uint32_t *channel,
		struct report *rep);

#endif /* DEVNS_NSIMEX_H */
