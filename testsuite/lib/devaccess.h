/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devaccess.h - what only tests ask of a rule list (dev/devpolicy.h): the
 * access it grants to a device, by its semantics written out plainly
 * (pinned rules, else the union, else the default; doc/device-policy.md),
 * independent of the normalised form and of the BPF table the filter is
 * built from, so that both can be tested against it.
 */
#ifndef DEVNS_DEVACCESS_H
#define DEVNS_DEVACCESS_H

#include <stdint.h>

#include "dev/devpolicy.h"

/*
 * The DEVRULE_* bits list grants to device type ('c' or 'b') major:minor;
 * works on lists that are not normalised.
 */
unsigned devaccess(const struct devrule_list *list, char type, uint32_t major,
		   uint32_t minor);

#endif /* DEVNS_DEVACCESS_H */
