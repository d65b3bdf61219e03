/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_gresconf.c - the devns tool's gres.conf reader and its GRES SPEC
 * (src/lib/slurmconv/gresconf.c): Name=, Type=, File= with Slurm's bracket
 * form, MultipleFiles=, NodeName= lines, and "gpu:2(IDX:0,2)",
 * "gpu:a100:1", "/dev/nvidia0" specs.  Input: gres.conf, a NUL, the
 * node's name, a NUL, the SPEC (given as devns check --gres takes it).
 *
 * Contract: any file is read or refused with errno and "FILE:LINE: ..."
 * (at most GRESCONF_MAX_FILES files, however the brackets multiply), any
 * SPEC resolves to files of the node or is refused, never a crash, leak or
 * hang; every file a job gets is one of the node's.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "slurmconv/gresconf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *parts[3], *buf, path[256], **job = NULL;
	const char **node = NULL;
	struct gresconf g;
	struct report rep;

	fuzz_split(data, size, parts, 3, &buf);
	fuzz_write("gres.conf", parts[0], strlen(parts[0]), path,
		   sizeof(path));
	report_init(&rep, NULL, NULL);
	if (gresconf_load(path, parts[1][0] ? parts[1] : "n1", &g, &rep) < 0) {
		if (!errno || !rep.msg[0])
			abort();
		goto out;
	}
	if (gresconf_node_files(&g, &node) < 0)
		abort();
	report_init(&rep, NULL, NULL);
	if (gresconf_job_files(&g, parts[2], &job, &rep) == 0)
		for (size_t i = 0; job && job[i]; i++) {
			bool found = false;

			for (size_t k = 0; node && node[k]; k++)
				found |= !strcmp(job[i], node[k]);
			if (!found && job[i][0] != '/')
				abort();	/* neither the node's nor a path */
		}
	gresconf_files_free(job);
	free(node);
out:
	gresconf_free(&g);
	free(buf);
	return 0;
}
