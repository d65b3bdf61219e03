/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devaccess.c - the reference semantics of a rule list, which the tests
 * hold the filter and the policy against.  See devaccess.h.
 */
#include <stdbool.h>

#include "devaccess.h"

unsigned devaccess(const struct devrule_list *list, char type, uint32_t major,
		   uint32_t minor)
{
	unsigned access = 0, pinned_access = 0;
	bool matched = false, pinned = false;
	size_t i;

	for (i = 0; i < list->count; i++) {
		const struct devrule *r = &list->rules[i];

		if (r->type != type || r->major != major ||
		    !(r->any_minor || r->minor == minor))
			continue;
		if (r->pinned) {
			pinned_access |= r->access;
			pinned = true;
		} else {
			access |= r->access;
			matched = true;
		}
	}
	if (pinned)
		return pinned_access;
	if (!matched)
		return list->default_allow ? DEVRULE_RWM : 0;
	return access;
}
