/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_gresidx.c - device indices out of Slurm's GRES detail strings, in the
 * forms slurmctld writes them (gres_ctld.c: "name[:type]:count(IDX:list)",
 * "name(CNT:n)"), and the per-name index sets built from them: an index
 * belongs to its GRES name only.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "slurmconv/gresidx.h"
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

/* "name=i,j name2=k": the indices below 8 that set gives each name. */
static void held_text(const struct gresidx_set *set, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < set->count; i++) {
		const char *sep = "=";

		n += snprintf(buf + n, len - n, "%s%s", i ? " " : "",
			      set->names[i].name);
		for (unsigned x = 0; x < 8; x++)
			if (gresidx_name_held(&set->names[i], x)) {
				n += snprintf(buf + n, len - n, "%s%u", sep, x);
				sep = ",";
			}
	}
}

static void sets(const char *detail, const char *want)
{
	struct gresidx_set set;
	char got[256];

	ok(gresidx_set_parse(detail, &set) == 0, "set of \"%s\"",
	   detail ? detail : "(null)");
	held_text(&set, got, sizeof(got));
	is_str(got, want, "per-name indices of \"%s\"",
	       detail ? detail : "(null)");
	gresidx_set_free(&set);
}

/* The 22.05 bug: an index must not leak to another GRES name. */
/* gresidx_count of name in detail: rc, and the count when 0. */
static void counts(const char *detail, const char *name, int rc,
		   uint64_t want)
{
	uint64_t n = 99;
	int got = gresidx_count(detail, name, &n);

	if (rc == 0)
		ok(got == 0 && n == want, "count %s in \"%s\": %ju (got %ju)",
		   name, detail ? detail : "(null)", (uintmax_t)want,
		   (uintmax_t)n);
	else
		ok(got == -1 && errno == EINVAL, "count %s in \"%s\": refused",
		   name, detail);
}

static void test_names_apart(void)
{
	struct gresidx_set set;

	sets("nic:1(IDX:0)", "nic=0");
	/* the name without its type: gpu, never "gpu:a" */
	sets("gpu:a:1(IDX:1),nic:2(IDX:0-1)", "gpu=1 nic=0,1");

	ok(gresidx_set_parse("gpu:1(IDX:65535)", &set) == 0 &&
	   set.count == 1 && gresidx_name_held(&set.names[0], 65535) &&
	   !gresidx_name_held(&set.names[0], 65534) &&
	   !gresidx_name_held(&set.names[0], 65536) &&
	   set.names[0].nbits == 65536,
	   "the highest index fits: bitmap of 65536 bits");
	gresidx_set_free(&set);
}

static void test_set_rejects(const char *detail)
{
	struct gresidx_set set;

	errno = 0;
	ok(gresidx_set_parse(detail, &set) == -1 && errno == EINVAL,
	   "set rejects \"%s\"", detail);
	gresidx_set_free(&set);
	ok(set.names == NULL && set.count == 0, "and frees what it had");
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
	/* an untyped request on a node with typed GPUs (22.05's slurmctld) */
	parses("gpu:a:1(IDX:0),gpu:b:0(IDX:)", "gpu=0");
	parses("gpu:b:0(IDX:),nic:1(IDX:1)", "nic=1");
	rejects("gpu:1(IDX:)");
	rejects("gpu:a:10(IDX:)");
	rejects("gpu:0(IDX:)x");
	rejects("gpu:1(IDX:3-1)");
	rejects("gpu:1(IDX:a)");
	rejects("gpu:1(IDX:1");
	rejects("gpu:1(IDX:1)x");
	rejects("(IDX:1)");
	rejects("gpu:1(IDX:99999999)");
	rejects("gpu(CNT:1");
	/* the list is a bracket's inside, read by slurmconv/hostexpand */
	rejects("gpu:1(IDX:65536)");
	rejects("gpu:2(IDX:0-65536)");
	rejects("gpu:2(IDX:0-9999999999999)");
	rejects("gpu:1(IDX:[0])");
	rejects("gpu:2(IDX:0][1)");
	rejects("gpu:2(IDX:0,)");
	rejects("gpu:2(IDX:,0)");
	rejects("gpu:2(IDX:0 ,1)");
	parses("gpu:2(IDX:007,08)", "gpu=7 gpu=8");
	is_int(gresidx_parse("gpu:4(IDX:0-3)", stop_at_two, NULL), 7,
	       "a non-zero callback value stops the walk and is returned");
	sets(NULL, "");
	sets("gpu:0(IDX:N/A),mps(CNT:50)", "");
	sets("gpu:tesla:3(IDX:0,2-3),nic:1(IDX:0)", "gpu=0,2,3 nic=0");
	sets("gpu:a:1(IDX:1),gpu:b:1(IDX:2)", "gpu=1,2");
	sets("gpu:a:2(IDX:0-1),nic:1(IDX:1),gpu:b:1(IDX:1)", "gpu=0,1 nic=1");
	sets("fpga:1(IDX:7),nic:1(CNT:1),gpu:1(IDX:3)", "fpga=7 gpu=3");
	test_names_apart();
	ok(gresidx_conf_names("gpu:a:2,gpu:b:2,nic:2,tmpdisk:800M", "tmpdisk") &&
	   gresidx_conf_names("tmpdisk:800M", "tmpdisk") &&
	   gresidx_conf_names("tmpdisk,gpu:1", "tmpdisk") &&
	   gresidx_conf_names("gpu:1(S:0),tmpdisk:1G(S:0)", "tmpdisk"),
	   "a node's Gres= names tmpdisk");
	ok(!gresidx_conf_names("gpu:a:2,nic:2", "tmpdisk") &&
	   !gresidx_conf_names("tmpdisk2:1G,xtmpdisk:1G", "tmpdisk") &&
	   !gresidx_conf_names("", "tmpdisk") &&
	   !gresidx_conf_names(NULL, "tmpdisk") &&
	   !gresidx_conf_names("Tmpdisk:1G", "tmpdisk"),
	   "  and not where only a longer name, another case or none has it");
	counts("tmpdisk(CNT:10485760)", "tmpdisk", 0, 10485760);
	counts("gpu:1(IDX:0),tmpdisk(CNT:31457280),nic:1(IDX:1)", "tmpdisk",
	       0, 31457280);
	counts("tmpdisk:ssd(CNT:5),tmpdisk:hdd(CNT:7)", "tmpdisk", 0, 12);
	counts("gpu:2(IDX:0-1)", "gpu", 0, 2);
	counts("mps:100(0/100,0/100),tmpdisk(CNT:3)", "tmpdisk", 0, 3);
	counts("gpu:2(IDX:0-1)", "tmpdisk", 0, 0);
	counts(NULL, "tmpdisk", 0, 0);
	counts("tmpdisk2(CNT:9),tmp(CNT:8)", "tmpdisk", 0, 0);
	counts("tmpdisk(CNT:18446744073709551615)", "tmpdisk", 0,
	       UINT64_MAX);
	counts("tmpdisk(CNT:18446744073709551616)", "tmpdisk", -1, 0);
	counts("tmpdisk(CNT:18446744073709551615),tmpdisk(CNT:1)", "tmpdisk",
	       -1, 0);
	counts("tmpdisk(CNT:-1)", "tmpdisk", -1, 0);
	counts("tmpdisk(CNT:1e9)", "tmpdisk", -1, 0);
	counts("tmpdisk(CNT:5", "tmpdisk", -1, 0);
	counts("tmpdisk(CNT:)", "tmpdisk", -1, 0);
	counts("tmpdisk:abc", "tmpdisk", -1, 0);
	counts("(CNT:5)", "tmpdisk", -1, 0);
	counts("tmpdisk(CNT:5)x", "tmpdisk", -1, 0);
	test_set_rejects("gpu:1(IDX:0),nic:1(IDX:");
	test_set_rejects("gpu:1(IDX:0),:1(IDX:1)");
	return tap_done();
}
