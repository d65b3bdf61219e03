/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devname.h - device numbers back to device file names, for the devns
 * tool, which prints a rule "c 195:0 rw" with the file it stands for,
 * "/dev/nvidia0".  The kernel's filter knows only numbers; the names are
 * found by stat: first the files the configuration names (gres.conf
 * File=, DeviceAllow paths), then the entries of /dev.
 *
 * Where several files have one number, a name given with devname_add()
 * wins over one scanned, a shallower scanned name over a deeper one, and
 * of two at one depth the one first in strcmp() order: the same name every
 * run.
 */
#ifndef DEVNS_DEVNAME_H
#define DEVNS_DEVNAME_H

#include <stddef.h>
#include <stdint.h>

struct devname {
	char type;		/* 'c' or 'b' */
	uint32_t major, minor;
	int rank;		/* 0: added, 1 + depth: scanned */
	char *path;
};

struct devnames {
	struct devname *names;
	size_t count, alloc;
};

/* An empty table. */
void devnames_init(struct devnames *d);

void devnames_free(struct devnames *d);

/*
 * Adds path when it is a character or block device (stat(2): the path
 * is the administrator's, from the configuration).  A path that is no
 * device, or cannot be looked at, is skipped.  Returns 0, or -1 with
 * errno ENOMEM.
 */
int devnames_add(struct devnames *d, const char *path);

/*
 * Adds the devices in dir and in its subdirectories one level down (/dev,
 * /dev/nvidia-caps), found without following any link: dir is opened
 * with safepath_open(), a subdirectory with O_NOFOLLOW, each entry looked
 * at with AT_SYMLINK_NOFOLLOW, so a link names nothing.  A subdirectory
 * that group or others may write to (/dev/shm, /dev/mqueue) is skipped:
 * users make names there.  Returns 0, or -1 with errno when dir cannot be
 * read (ENOMEM, or open's errno).
 */
int devnames_scan(struct devnames *d, const char *dir);

/* The name of device type major:minor, NULL when none is known. */
const char *devnames_find(const struct devnames *d, char type,
			  uint32_t major, uint32_t minor);

#endif /* DEVNS_DEVNAME_H */
