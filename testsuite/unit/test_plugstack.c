/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_plugstack.c - does a SPANK stack require a plugin: required and
 * optional lines, comments, absolute and relative paths, include lines
 * with globs, a missing file, an unreadable include, nesting too deep.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slurmconv/plugstack.h"
#include "tap.h"
#include "testrep.h"

static char dir[] = "/var/tmp/test_plugstack.XXXXXX";
static char stack[256];

static void write_file(const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((f = fopen(path, "w"))) {
		fputs(text, f);
		fclose(f);
	}
}

static int requires(const char *text)
{
	write_file("plugstack.conf", text);
	return plugstack_requires(stack, "devns_pidns.so", fresh());
}

int main(void)
{
	char text[1024];

	if (!mkdtemp(dir)) {
		printf("Bail out! %s\n", strerror(errno));
		return 1;
	}
	snprintf(stack, sizeof(stack), "%s/plugstack.conf", dir);
	is_int(plugstack_requires(stack, "devns_pidns.so", fresh()), 0,
	       "no stack file: nothing is loaded");
	is_int(requires("required devns_pidns.so\n"), 1, "required, bare name");
	is_int(requires("required /usr/lib/slurm/devns_pidns.so arg=1\n"), 1,
	       "required, absolute path with arguments");
	is_int(requires("\trequired\tdevns_pidns.so # the PID namespace\n"),
	       1, "tabs and a trailing comment");
	is_int(requires("optional devns_pidns.so\n"), 0,
	       "optional does not count: a load failure would be silent");
	is_int(requires("# required devns_pidns.so\n"), 0, "a comment");
	is_int(requires("required other.so\nrequired /x/devns_pidns.so.bak\n"),
	       0, "another plugin, another file name");
	is_int(requires("required\n\n"), 0, "a line without a path");
	mkdir(strcat(strcpy(text, dir), "/plugstack.conf.d"), 0755);
	write_file("plugstack.conf.d/a.conf", "required other.so\n");
	write_file("plugstack.conf.d/b.conf", "required devns_pidns.so\n");
	is_int(requires("include plugstack.conf.d/*.conf\n"), 1,
	       "a relative include glob, from the stack's directory");
	snprintf(text, sizeof(text), "include %s/plugstack.conf.d/b.conf\n",
		 dir);
	is_int(requires(text), 1, "an absolute include");
	is_int(requires("include nothing-here/*.conf\n"), 0,
	       "an include that matches nothing");
	write_file("loop.conf", "include loop.conf\n");
	is_int(requires("include loop.conf\n"), -1, "includes nesting forever");
	like(rep.msg, "includes nest too deep", "  said: %s", rep.msg);
	if (geteuid() != 0) {
		write_file("plugstack.conf.d/c.conf", "x\n");
		chmod(strcat(strcpy(text, dir), "/plugstack.conf.d/c.conf"), 0);
		is_int(requires("include plugstack.conf.d/c.conf\n"), -1,
		       "an include that cannot be read");
	}
	snprintf(text, sizeof(text), "rm -rf '%s'", dir);
	ok(system(text) == 0, "scratch removed");
	return tap_done();
}
