/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_slurmconf.c - the devns tool's slurm.conf reader
 * (src/lib/slurmconv/slurmconf.c): SlurmdSpoolDir, SlurmdPidFile,
 * ProctrackType, PlugStackConfig, SlurmdParameters, PrologFlags and the
 * NodeName values, %n and %h expanded.  Input: slurm.conf, a NUL, the
 * node's name.
 *
 * Contract: any file is read (unknown lines skipped) or refused with
 * errno and a message, never a crash, leak or hang; the paths read are
 * NUL-terminated within their buffers and the node names a
 * NULL-terminated list.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "slurmconv/slurmconf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *parts[2], *buf, path[256];
	struct slurmconf sc;
	struct report rep;

	fuzz_split(data, size, parts, 2, &buf);
	fuzz_write("slurm.conf", parts[0], strlen(parts[0]), path,
		   sizeof(path));
	report_init(&rep, NULL, NULL);
	if (slurmconf_read(path, parts[1][0] ? parts[1] : "n1", "h1", &sc,
			   &rep) < 0) {
		if (!errno || !rep.msg[0])
			abort();
	} else {
		if (!memchr(sc.spool_dir, '\0', sizeof(sc.spool_dir)) ||
		    !memchr(sc.pid_file, '\0', sizeof(sc.pid_file)) ||
		    !memchr(sc.plugstack, '\0', sizeof(sc.plugstack)))
			abort();
		for (size_t i = 0; sc.node_names && sc.node_names[i]; i++)
			if (strlen(sc.node_names[i]) > strlen(parts[0]))
				abort();	/* not a value of the file */
		slurmconf_free(&sc);
	}
	free(buf);
	return 0;
}
