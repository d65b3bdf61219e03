/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_gresidx.c - device indices out of Slurm's GRES detail strings, in the
 * forms slurmctld writes them (gres_ctld.c: "name[:type]:count(IDX:list)",
 * "name(CNT:n)").
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gresidx.h"
#include "tap.h"

struct seen {
	char text[256];
};

static int collect(const char *name, unsigned index, void *arg)
{
	struct seen *s = arg;
	size_t n = strlen(s->text);

	snprintf(s->text + n, sizeof(s->text) - n, "%s%s=%u", n ? " " : "",
		 name, index);
	return 0;
}

static void parses(const char *detail, const char *want)
{
	struct seen s = { "" };

	ok(gresidx_parse(detail, collect, &s) == 0, "parse \"%s\"",
	   detail ? detail : "(null)");
	is_str(s.text, want, "indices of \"%s\"", detail ? detail : "(null)");
}

static void rejects(const char *detail)
{
	struct seen s = { "" };

	errno = 0;
	ok(gresidx_parse(detail, collect, &s) == -1 && errno == EINVAL,
	   "reject \"%s\"", detail);
}

static int stop_at_two(const char *name, unsigned index, void *arg)
{
	(void)name;
	(void)arg;
	return index == 2 ? 7 : 0;
}

int main(void)
{
	parses(NULL, "");
	parses("", "");
	parses("gpu:1(IDX:0)", "gpu=0");
	parses("gpu:2(IDX:0-1)", "gpu=0 gpu=1");
	parses("gpu:tesla:3(IDX:0,2-3)", "gpu=0 gpu=2 gpu=3");
	parses("gpu:1(IDX:3),nic:1(IDX:0)", "gpu=3 nic=0");
	parses("gpu:a100:1(IDX:1),gpu:v100:1(IDX:4)", "gpu=1 gpu=4");
	parses("mps(CNT:50),gpu:1(IDX:2)", "gpu=2");
	parses("gpu:0", "");
	parses("gpu:0(IDX:N/A)", "");
	rejects("gpu:1(IDX:)");
	rejects("gpu:1(IDX:3-1)");
	rejects("gpu:1(IDX:a)");
	rejects("gpu:1(IDX:1");
	rejects("gpu:1(IDX:1)x");
	rejects("(IDX:1)");
	rejects("gpu:1(IDX:99999999)");
	rejects("gpu(CNT:1");
	is_int(gresidx_parse("gpu:4(IDX:0-3)", stop_at_two, NULL), 7,
	       "a non-zero callback value stops the walk and is returned");
	return tap_done();
}
