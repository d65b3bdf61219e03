/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devallow.h - DeviceAllow values checked without building a policy: the
 * syntax alone (every node's lines, at load) and, for devns check, the
 * globs and classes against this node's devices.  The parser itself is
 * devallow.c's, shared with devpolicy_load_lines() (devpolicy.h).
 */
#ifndef DEVNS_DEVALLOW_H
#define DEVNS_DEVALLOW_H

#include "util/report.h"

/*
 * Checks the syntax of a DeviceAllow value as devpolicy_load_lines() does
 * (its three forms, SPEC an absolute path, char-NAME or block-NAME, the
 * numbers within Linux's limits, ACCESS a non-empty subset of rwm),
 * without looking at any device or at
 * /proc/devices: for the values of other nodes' lines, whose devices this
 * node need not have.  Every error is reported; nothing is a warning.
 * Returns the number of entries, or -1 with EINVAL when an error was
 * reported, or ENOMEM.
 */
int devallow_check(const char *text, struct report *rep);

/*
 * devns check's look at this node's devices: each glob of the DeviceAllow
 * value (a device path with * ? [) must match a device node of the node,
 * and each class (char-NAME or block-NAME, NAME maybe a pattern) a class
 * of proc_devices (NULL: /proc/devices); one that matches nothing is an
 * error, "WHERE: DeviceAllow entry '...': no ...", where the load only
 * warns.  Paths and numbers are not looked at (devpolicy_load_lines() warns
 * about a missing path).  Returns 0, or -1 with EINVAL after reporting,
 * or ENOMEM.
 */
int devallow_check_patterns(const char *text, const char *where,
			    const char *proc_devices, struct report *rep);

#endif /* DEVNS_DEVALLOW_H */
