/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_hostlist.c - Slurm hostlist expressions as NodeName= writes them,
 * "cgpu[01-18],rack[1-2]n[001-016]": the matcher that selects a node's
 * lines (slurmconv/hostmatch.c) and the expander of devns check
 * (slurmconv/hostexpand.c).  Input: the expression, a NUL, a host name.
 *
 * Contract: neither crashes, leaks or hangs, and they agree: an
 * expression the validator refuses is refused by both; every name the
 * expander gives (the first 256) is matched; the host is matched exactly
 * when the expander gives it, for expressions of few enough names.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "slurmconv/hostexpand.h"
#include "slurmconv/hostmatch.h"

#define MAX_NAMES 256

struct seen {
	const char *expr;
	const char *host;
	bool host_seen;
};

static int each(const char *name, void *arg)
{
	struct seen *s = arg;

	if (hostmatch_match(s->expr, name) != 1)
		abort();	/* a name of the expression that does not match */
	if (!strcmp(name, s->host))
		s->host_seen = true;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *parts[2], *buf;
	struct seen s;
	int valid, match, expand;

	fuzz_split(data, size, parts, 2, &buf);
	s.expr = parts[0];
	s.host = parts[1];
	s.host_seen = false;
	valid = hostmatch_validate(parts[0]);
	match = hostmatch_match(parts[0], parts[1]);
	expand = hostexpand(parts[0], MAX_NAMES, each, &s);
	if (valid < 0 && (match != -1 || expand != -1 || errno != EINVAL))
		abort();	/* refused by the validator, taken by another */
	if (valid == 0 && (match < 0 || (expand < 0 && errno == EINVAL)))
		abort();	/* the other way round */
	if (expand == 0 && match != s.host_seen)
		abort();	/* matcher and expander disagree on the host */
	free(buf);
	return 0;
}
