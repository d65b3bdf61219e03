/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_mountinfo.c - lines of /proc/PID/mountinfo (util/mountinfo.c), as
 * the devns tool reads a job's namespace (devns show) and the cgroup code
 * finds cgroup2: the kernel writes them, but the mount points, roots and
 * sources in them are whatever a job's user named (escaped as \040 and
 * the like, which the parser undoes).  Input: lines.
 *
 * Contract: a line is split into its fields, each a string within the
 * line, or refused with EINVAL, never a crash, leak or hang; an unescaped
 * path is never longer than it was written.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "util/mountinfo.h"

static void within(const char *field, const char *line, size_t len)
{
	if (!field || field < line || field + strlen(field) > line + len)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *parts[1], *buf, *save = NULL;

	fuzz_split(data, size, parts, 1, &buf);
	for (char *line = strtok_r(parts[0], "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		size_t len = strlen(line);
		struct mountinfo_entry e;

		if (mountinfo_parse(line, &e) < 0) {
			if (errno != EINVAL)
				abort();
			continue;
		}
		within(e.root, line, len);
		within(e.point, line, len);
		within(e.options, line, len);
		within(e.fstype, line, len);
		/* "none" and "" stand for what the line does not have */
		if (e.superopts[0])
			within(e.superopts, line, len);
		if (strcmp(e.source, "none"))
			within(e.source, line, len);
	}
	free(buf);
	return 0;
}
