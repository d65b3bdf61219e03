/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_devns_args.c - the devns tool's command line, devns_options()
 * (src/sbin/devns/devns.c, taken in whole so that its static message
 * list can be emptied between runs): subcommands, options, JOBID, and the
 * defaults filled in from $SLURM_CONF, which the input supplies.  Input:
 * slurm.conf, a NUL, then the arguments (the subcommand first), one per
 * NUL-separated part.  An input with an argument that starts "-h" or
 * "--h" is passed over: --help prints and exit()s, as it should.
 *
 * Contract: any command line gives DEVNS_EXIT_OK with the options filled
 * in, or a usage or failure status after saying why, never a crash, leak
 * or hang; no subcommand runs.
 */
#define main devns_tool_main
#include "devns.c"
#undef main

#include "fuzz.h"

#define MAX_ARGS 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *parts[MAX_ARGS + 1], *buf, path[256];
	int n = fuzz_split(data, size, parts, MAX_ARGS + 1, &buf), rc;
	struct devns_opts o;

	for (int i = 1; i < n; i++)
		if (!strncmp(parts[i], "-h", 2) || !strncmp(parts[i], "--h", 3))
			goto out;
	fuzz_write("slurm.conf", parts[0], strlen(parts[0]), path,
		   sizeof(path));
	setenv("SLURM_CONF", path, 1);
	parts[n] = NULL;
	if (n < 2)
		goto out;
	rc = devns_options(n - 1, parts + 1, &o);
	if (rc != DEVNS_EXIT_OK && rc != DEVNS_EXIT_FAIL &&
	    rc != DEVNS_EXIT_USAGE)
		abort();
	if (rc == DEVNS_EXIT_OK && (!o.node[0] || !o.conf_path[0]))
		abort();
	devns_options_free(&o);
	messages_free();
out:
	free(buf);
	return 0;
}
