/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_plugstack.c - a SPANK plugstack.conf as slurmd reads it to see
 * whether devns_pidns.so is required (slurmconv/plugstack.c), include lines
 * followed.  The input is the stack file, in a directory of the target's
 * own beside two files it may include (a.conf requires the plugin, b.conf
 * includes a.conf).  An input with "include" and a '/' is passed over:
 * an include pattern reaching out of that directory would glob(3) and
 * open the host's files (a FIFO there blocks any reader), which is no
 * test of the parser.
 *
 * Contract: any file gives 1, 0, or -1 with errno and a message (includes
 * nested too deep), never a crash, leak or hang.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "slurmconv/plugstack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char a[] = "required /usr/lib/slurm/devns_pidns.so x=1\n";
	static const char b[] = "optional other.so\ninclude a.conf\n";
	static bool ready;
	char path[256];
	struct report rep;
	int rc;

	if (memmem(data, size, "include", 7) && memchr(data, '/', size))
		return 0;
	if (!ready) {
		fuzz_write("a.conf", a, strlen(a), path, sizeof(path));
		fuzz_write("b.conf", b, strlen(b), path, sizeof(path));
		ready = true;
	}
	fuzz_write("plugstack.conf", (const char *)data, size, path,
		   sizeof(path));
	report_init(&rep, NULL, NULL);
	rc = plugstack_requires(path, "devns_pidns.so", &rep);
	if (rc < -1 || rc > 1 || (rc < 0 && (!errno || !rep.msg[0])))
		abort();
	return 0;
}
