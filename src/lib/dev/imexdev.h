/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * imexdev.h - NVIDIA IMEX channels (GB200 NVL72), as Slurm's
 * switch/nvidia_imex hands them out: slurmctld gives a job channel N and,
 * on the node, Slurm mounts a tmpfs on /dev/nvidia-caps-imex-channels in
 * the job's mount namespace and makes channelN there, a character device
 * of the major /proc/devices lists as "nvidia-caps-imex-channels" (or
 * SwitchParameters=imex_dev_major=) with minor N.
 *
 * A channel is a job's alone: every other minor of the major is another
 * job's channel.  So a job's device rules give the major to nobody but
 * the switch: whatever DevicePolicy and DeviceAllow say, the major is
 * denied and the job's own channel, if it has one, allowed (imexdev_rules).
 * Pure but for reading /proc/devices and one directory.
 */
#ifndef DEVNS_IMEXDEV_H
#define DEVNS_IMEXDEV_H

#include <stdbool.h>
#include <stdint.h>

#include "dev/devpolicy.h"
#include "util/report.h"

/* Where Slurm makes the channel, and the name of its major. */
#define IMEXDEV_DIR "/dev/nvidia-caps-imex-channels"
#define IMEXDEV_CLASS "nvidia-caps-imex-channels"

/*
 * The major of the IMEX channels in proc_devices (NULL: /proc/devices),
 * its "Character devices" section, as Slurm's plugin finds it.  Returns 1
 * with *major, 0 when the node has none (the switch makes no channels
 * there), or -1 with errno (EIO: unreadable, reported in rep).
 */
int imexdev_major(const char *proc_devices, uint32_t *major,
		  struct report *rep);

/*
 * SwitchParameters' imex_dev_major=N (params: the comma-separated value,
 * NULL: none), which Slurm takes before /proc/devices.  Returns 1 with
 * *major, 0 when it is not there, -1 with EINVAL when N is no major
 * (1 to 4095).
 */
int imexdev_param_major(const char *params, uint32_t *major);

/*
 * What the switch made in the directory dir_fd (any fd of it, O_PATH
 * too): nothing, or exactly one entry "channelN", a character device
 * c major:N.  Returns 1 with *channel, 0 for an empty directory, or -1
 * with errno (EINVAL: anything else, which rep names: a second entry,
 * another major, a minor that is not N; a job must not get a device it
 * was not given).
 */
int imexdev_channel(int dir_fd, uint32_t major, uint32_t *channel,
		    struct report *rep);

/*
 * Gives the IMEX major to the switch alone in a job's rule list: every
 * rule of c major (DeviceAllow's too) is dropped, the major denied, and,
 * when has_channel, c major:channel allowed rw; then the list is
 * normalised.  Returns 0, or -1 with errno (ENOMEM; the list is then
 * unchanged but for dropped rules, and must not be used).
 */
int imexdev_rules(struct devrule_list *list, uint32_t major,
		  bool has_channel, uint32_t channel);

#endif /* DEVNS_IMEXDEV_H */
