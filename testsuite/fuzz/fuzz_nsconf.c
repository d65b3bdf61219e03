/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_nsconf.c - job_container.conf (and namespace.conf, its old name:
 * one parser) as slurmd and slurmstepd read it: nsconf_load_text(), which
 * is nsconf_load_host() after the file is read, with slurmconv/confread's
 * syntax, the keys, NodeName hostlists, DeviceAllow's syntax, Dir= and
 * Source= templates, and the checks on the node's paths (read-only).
 *
 * Contract: any text gives a conf or NULL with errno and a message, never
 * a crash, leak or hang; a conf's Source templates expand or fail with
 * errno, and every Dirs entry has a backing name or a reason.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz.h"
#include "conf/nsconf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *parts[1], *buf, out[4096];
	struct report rep;
	struct nsconf *conf;

	fuzz_split(data, size, parts, 1, &buf);
	report_init(&rep, NULL, NULL);
	conf = nsconf_load_text(parts[0], "job_container.conf", "n1",
				"n1.example", &rep);
	if (!conf) {
		if (!errno || !rep.msg[0])
			abort();	/* NULL without saying why */
		free(buf);
		return 0;
	}
	for (size_t i = 0; conf->dirs[i]; i++) {
		const struct nsconf_dir *d = &conf->dir_conf[i];

		if (nsconf_dir_find(conf, conf->dirs[i]) == NULL)
			abort();
		nsconf_backing_name(d->path, out, sizeof(out));
		nsconf_options_format(d->options, out, sizeof(out));
		if (d->source) {
			int fixed, job;

			nsconf_source_depths(d->source, &fixed, &job);
			nsconf_source_expand(d->source, 42, 0x1234, "alice",
					     "n1", out, sizeof(out));
		}
	}
	nsconf_free(conf);
	free(buf);
	return 0;
}
