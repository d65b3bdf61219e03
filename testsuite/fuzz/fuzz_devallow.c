/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_devallow.c - DeviceAllow values (dev/devallow.c) and the rule lists
 * they make (dev/devrule.c).  Input: the DeviceAllow text, a NUL, then a
 * /proc/devices to resolve char-NAME and block-NAME classes against.
 *
 * Contract: devallow_read() (the syntax alone, as for other nodes'
 * lines, read once into entries) and devpolicy_load_lines() (this node,
 * from those entries, or from the text where the read refused it: paths
 * stat()ed, classes resolved) accept or refuse any text, never crash,
 * leak or hang;
 * when the syntax check refuses, so does the load (but for
 * DevicePolicy=none, which reads no entry); a job's list built from a
 * loaded policy formats, and normalising it again changes nothing.
 * Globs are left to the syntax check: glob(3) over the host's filesystem
 * is glibc's, and slow where it is huge.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "dev/devallow.h"
#include "dev/devpolicy.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum devpolicy_mode modes[] = {
		DEVPOLICY_AUTO, DEVPOLICY_CLOSED, DEVPOLICY_STRICT,
		DEVPOLICY_NONE,
	};
	char *parts[2], *buf, path[256], line[128];
	struct devpolicy_allow allow;
	struct devallow_list entries = { NULL, 0, 0 };
	struct devpolicy policy = { 0 };
	struct devrule_list list;
	struct report rep;
	int checked, loaded;

	fuzz_split(data, size, parts, 2, &buf);
	report_init(&rep, NULL, NULL);
	checked = devallow_read(parts[0], &entries, &rep);
	if (strpbrk(parts[0], "*?[")) {
		devallow_list_free(&entries);
		free(buf);
		return 0;
	}
	fuzz_write("devices", parts[1], strlen(parts[1]), path, sizeof(path));
	allow.value = parts[0];
	allow.where = "job_container.conf:1";
	/* What was read is resolved as read; what was refused, from text. */
	allow.read = checked >= 0 ? &entries : NULL;
	report_init(&rep, NULL, NULL);
	loaded = devpolicy_load_lines(&policy, modes[size % 4], &allow, 1,
				      path, &rep);
	if (checked < 0 && errno != ENOMEM && loaded == 0 &&
	    policy.mode != DEVPOLICY_NONE)
		abort();	/* the load took what the syntax check refused */
	if (loaded == 0 && devpolicy_build(&policy, NULL, NULL, &list,
					   &rep) == 0) {
		struct devrule_list copy;

		devrule_list_init(&copy, list.default_allow);
		for (size_t i = 0; i < list.count; i++) {
			const struct devrule *r = &list.rules[i];

			if (devrule_format(r, line, sizeof(line)) < 0)
				abort();
			if (r->pinned ? devrule_list_pin(&copy, r->type,
							 r->major, r->minor,
							 r->access)
				      : devrule_list_add(&copy, r->type,
							 r->major, r->minor,
							 r->any_minor,
							 r->access))
				abort();
		}
		/* a normalised list is a fixed point of normalising */
		devrule_list_normalise(&copy);
		if (copy.count != list.count)
			abort();
		for (size_t i = 0; i < list.count; i++)
			if (copy.rules[i].type != list.rules[i].type ||
			    copy.rules[i].major != list.rules[i].major ||
			    copy.rules[i].minor != list.rules[i].minor ||
			    copy.rules[i].any_minor != list.rules[i].any_minor ||
			    copy.rules[i].access != list.rules[i].access ||
			    copy.rules[i].pinned != list.rules[i].pinned)
				abort();
		devrule_list_free(&copy);
		devrule_list_free(&list);
	}
	devpolicy_free(&policy);
	devallow_list_free(&entries);
	free(buf);
	return 0;
}
