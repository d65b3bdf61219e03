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
 * or hang, and the same again when parsed a second time in the process
 * (after the first argv is freed); no subcommand runs.
 */
#define main devns_tool_main
#include "devns.c"
#undef main

#include "fuzz.h"

#define MAX_ARGS 16

/* One parse of argv[argc], its options into *o; returns the status. */
static int parse(int argc, char **argv, struct devns_opts *o)
{
	int rc = devns_options(argc, argv, o);

	if (rc != DEVNS_EXIT_OK && rc != DEVNS_EXIT_FAIL &&
	    rc != DEVNS_EXIT_USAGE)
		abort();
	if (rc == DEVNS_EXIT_OK && (!o->node[0] || !o->conf_path[0]))
		abort();
	messages_free();
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *parts[MAX_ARGS + 2], *again[MAX_ARGS + 2], *buf, *buf2;
	char path[256];
	int n = fuzz_split(data, size, parts, MAX_ARGS + 1, &buf), rc;
	struct devns_opts o, o2;

	for (int i = 1; i < n; i++)
		if (!strncmp(parts[i], "-h", 2) || !strncmp(parts[i], "--h", 3))
			goto out;
	fuzz_write("slurm.conf", parts[0], strlen(parts[0]), path,
		   sizeof(path));
	setenv("SLURM_CONF", path, 1);
	if (n < 2)
		goto out;
	/*
	 * Twice, the first argv freed before the second parse: what the
	 * first left behind (getopt's place in a cluster of options) must
	 * not be read, and both parses agree.
	 */
	parts[n] = NULL;
	rc = parse(n - 1, parts + 1, &o);
	if (rc == DEVNS_EXIT_OK)
		o.gres = o.gres ? strdup(o.gres) : NULL;
	devns_options_free(&o);
	free(buf);
	fuzz_split(data, size, again, MAX_ARGS + 1, &buf2);
	again[n] = NULL;
	if (parse(n - 1, again + 1, &o2) != rc)
		abort();
	if (rc == DEVNS_EXIT_OK &&
	    (strcmp(o.node, o2.node) || strcmp(o.conf_path, o2.conf_path) ||
	     o.job_id != o2.job_id || o.json != o2.json ||
	     (o.gres ? !o2.gres || strcmp(o.gres, o2.gres) : !!o2.gres)))
		abort();
	if (rc == DEVNS_EXIT_OK)
		free((char *)o.gres);
	devns_options_free(&o2);
	free(buf2);
	return 0;
out:
	free(buf);
	return 0;
}
