/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * import.c - devns import FILE: Slurm's namespace.yaml (namespace/linux)
 * printed as the equivalent job_container.conf (conf/nsimport.h).  It reads
 * no slurm.conf and touches nothing on the node, so it runs anywhere.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/nsimport.h"
#include "devns.h"
#include "slurmconv/confread.h"

/* namespace.yaml files are a few dozen lines; this is generous. */
#define IMPORT_MAX_BYTES (1024 * 1024)

int devns_import(int argc, char **argv)
{
	struct report rep;
	char *text, *conf;
	int rc = DEVNS_EXIT_OK;

	if (argc != 2 || !argv[1][0] || argv[1][0] == '-') {
		fputs("usage: devns import FILE (a namespace.yaml; prints job_container.conf)\n",
		      stderr);
		return DEVNS_EXIT_USAGE;
	}
	devns_report_init(&rep);
	if (!(text = confread_file(argv[1], IMPORT_MAX_BYTES, &rep)))
		return DEVNS_EXIT_FAIL;
	if (!(conf = nsimport_yaml(text, argv[1], &rep))) {
		if (!rep.errors)
			devns_error("%s: %s", argv[1], strerror(errno));
		free(text);
		return DEVNS_EXIT_FAIL;
	}
	if (fputs(conf, stdout) == EOF || fflush(stdout) != 0) {
		devns_error("writing the output: %s", strerror(errno));
		rc = DEVNS_EXIT_FAIL;
	}
	free(conf);
	free(text);
	return rc;
}
