/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_nsimport.c - unit tests of nsimport_yaml(): namespace.yaml(5)'s
 * own example converted and the result loaded back by nsconf_load_text()
 * for nodes of each node_confs element and for another node; every key
 * that does not carry over commented with its name and line, and the
 * result still loading; malformed YAML and values of the wrong type
 * refused with FILE:LINE; and nsconf_file_leftover(), the warning about
 * a namespace.yaml left beside job_container.conf.
 */
#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "conf/nsconf.h"
#include "conf/nsconf_file.h"
#include "conf/nsimport.h"

/* namespace.yaml(5)'s EXAMPLE, Slurm 26.05.3, as printed there. */
static const char example[] =
	"---\n"
	"defaults:\n"
	"  auto_base_path: true\n"
	"  base_path: \"/var/nvme/storage_0\"\n"
	"  clone_ns_flags:\n"
	"    - \"CLONE_NEWPID\"\n"
	"    - \"CLONE_NEWUSER\"\n"
	"    - \"CLONE_NEWNS\"\n"
	"  clone_ns_epilog: \"/path/to/epilog_script\"\n"
	"  clone_ns_epilog_wait: 10\n"
	"  clone_ns_script: \"/path/to/ns_script\"\n"
	"  init_script: \"/path/to/init_script\"\n"
	"  shared: true\n"
	"node_confs:\n"
	"  - nodes:\n"
	"    - \"n1\"\n"
	"    - \"n[2-4,6]\"\n"
	"    options:\n"
	"      auto_base_path: true\n"
	"      base_path: \"/var/nvme/storage_1\"\n"
	"      clone_ns_script_wait: 20\n"
	"      dir_confs:\n"
	"        - path: \"/tmp\"\n"
	"          options: \"noexec,nosuid,size=8g\"\n"
	"          tmpfs: true\n"
	"        - path: \"/scratch\"\n"
	"          base_path: \"/var/nvme/storage_1\"\n"
	"          options: \"noexec,nosuid\"\n"
	"      shared: false\n"
	"      user_ns_script: \"/path/to/user_script\"\n"
	"  - nodes:\n"
	"    - \"n[7-10]\"\n"
	"    options:\n"
	"      auto_base_path: true\n"
	"      base_path: \"/var/nvme/storage_2\"\n"
	"      init_script: \"/etc/slurm/init.sh\"\n";

static char last_warning[REPORT_MSG_MAX];

static void keep_warning(enum report_level level, const char *msg, void *arg)
{
	(void)arg;
	if (level == REPORT_WARNING)
		snprintf(last_warning, sizeof(last_warning), "%s", msg);
}

/* The converted text loaded as node's settings, NULL: refused (diag). */
static struct nsconf *reload(const char *text, const char *node)
{
	struct report rep;
	struct nsconf *c;

	report_init(&rep, NULL, NULL);
	c = nsconf_load_text(text, "job_container.conf", node, node, &rep);
	if (!c)
		diag("nsconf_load_text(%s): %s", node, rep.msg);
	return c;
}

static char *convert(const char *yaml, struct report *rep)
{
	report_init(rep, NULL, NULL);
	return nsimport_yaml(yaml, "ns.yaml", rep);
}

static const struct nsconf_dir *dir_of(const struct nsconf *c,
				       const char *path)
{
	for (size_t i = 0; c->dirs[i]; i++)
		if (!strcmp(c->dirs[i], path))
			return &c->dir_conf[i];
	return NULL;
}

static void test_example(void)
{
	const struct nsconf_dir *d;
	struct report rep;
	struct nsconf *c;
	char *conf = convert(example, &rep);

	ok(conf != NULL, "the example of namespace.yaml(5) converts");
	if (!conf) {
		diag("%s", rep.msg);
		return;
	}
	ok(!strstr(conf, "not carried over"),
	   "  every key of it carries over");
	like(conf, "\nBasePath=/var/nvme/storage_0\n", "  defaults' base_path");
	like(conf, "\nNodeName=n1,n[2-4,6] AutoBasePath=yes BasePath=/var/nvme/storage_1 CloneNSScript_Wait=20 Dirs=/tmp,/scratch Shared=no UserNsScript=/path/to/user_script\n",
	     "  the first node_confs element, its nodes one hostlist");
	like(conf, "\nNodeName=n1,n[2-4,6] Dir=/tmp Type=tmpfs Options=noexec,nosuid Size=8g\n",
	     "  its tmpfs dir_confs element a Dir line");

	c = reload(conf, "n3");
	ok(c != NULL, "the result loads, as node n3");
	if (c) {
		is_str(c->base_path, "/var/nvme/storage_1", "  node's base_path");
		ok(c->auto_base_path && c->pid_namespace && c->user_namespace,
		   "  auto_base_path, and CLONE_NEWPID/NEWUSER of the defaults");
		ok(!c->shared, "  node's shared: false");
		is_int(c->clone_ns_script_wait, 20, "  clone_ns_script_wait");
		is_int(c->clone_ns_epilog_wait, 10, "  defaults' epilog wait");
		is_str(c->user_ns_script, "/path/to/user_script",
		       "  user_ns_script");
		ok(c->dirs[0] && c->dirs[1] && !c->dirs[2] &&
		   !strcmp(c->dirs[0], "/tmp") &&
		   !strcmp(c->dirs[1], "/scratch"),
		   "  dir_confs' paths are the private directories");
		d = dir_of(c, "/tmp");
		ok(d && d->type == NSCONF_DIR_TMPFS &&
		   d->size == 8ULL << 30 && (d->options & NSCONF_OPT_NOEXEC),
		   "  /tmp a noexec tmpfs of 8 GiB");
		d = dir_of(c, "/scratch");
		ok(d && d->type == NSCONF_DIR_BIND && !d->source &&
		   (d->options & NSCONF_OPT_NOEXEC),
		   "  /scratch bound from BasePath, its base_path being it");
		nsconf_free(c);
	}
	c = reload(conf, "n8");
	ok(c != NULL, "the result loads, as node n8");
	if (c) {
		is_str(c->base_path, "/var/nvme/storage_2", "  its base_path");
		is_str(c->init_script, "/etc/slurm/init.sh", "  its init_script");
		ok(c->shared && c->pid_namespace,
		   "  the defaults for what it leaves out");
		nsconf_free(c);
	}
	c = reload(conf, "login1");
	ok(c != NULL, "the result loads, as a node no element names");
	if (c) {
		is_str(c->base_path, "/var/nvme/storage_0", "  the defaults");
		is_str(c->clone_ns_script, "/path/to/ns_script",
		       "  clone_ns_script");
		is_str(c->clone_ns_epilog, "/path/to/epilog_script",
		       "  clone_ns_epilog");
		nsconf_free(c);
	}
	free(conf);
}

/* Keys and values with no devns equivalent, each with its line. */
static const char unsupported[] =
	"disable_bpf_token: true\n"				/* 1 */
	"colour: blue\n"					/* 2 */
	"defaults:\n"						/* 3 */
	"  base_path: /var/spool/ns\n"				/* 4 */
	"  dirs: /tmp,/dev/shm\n"				/* 5 */
	"  clone_ns_flags:\n"					/* 6 */
	"  shared: maybe\n"					/* 7 */
	"  clone_ns_script_wait: 1m\n"				/* 8 */
	"  init_script: '/opt/a\"b'\n"				/* 9 */
	"  frobnicate: 1\n"					/* 10 */
	"  user_ns_script:\n"					/* 11 */
	"node_confs:\n"						/* 12 */
	"  - nodes: gpu1\n"					/* 13 */
	"    colour: red\n"					/* 14 */
	"    options:\n"					/* 15 */
	"      dirs: /tmp\n"					/* 16 */
	"      clone_ns_flags:\n"				/* 17 */
	"        - CLONE_NEWPID\n"				/* 18 */
	"        - CLONE_NEWNET\n"				/* 19 */
	"      dir_confs:\n"					/* 20 */
	"        - path: /home/%u\n"				/* 21 */
	"        - path: /tmp\n"				/* 22 */
	"          tmpfs: true\n"				/* 23 */
	"          base_path: /data\n"				/* 24 */
	"          options: noatime,mode=0700,nr_inodes=9\n"	/* 25 */
	"        - path: /scratch\n"				/* 26 */
	"          base_path: /data/%h\n"			/* 27 */
	"          options: ro,size=1g,noexec\n"		/* 28 */
	"          owner: root\n"				/* 29 */
	"        - path: /work\n"				/* 30 */
	"          base_path: /data/%n\n"			/* 31 */
	"          options: ro,nodev\n";			/* 32 */

static void test_unsupported(void)
{
	static const struct { const char *text; int line; } want[] = {
		{ "disable_bpf_token: devns attaches", 1 },
		{ "unknown key \"colour\"", 2 },
		{ "shared: \"maybe\" is not true or false", 7 },
		{ "clone_ns_script_wait: \"1m\" is not a number", 8 },
		{ "init_script: its value holds a double quote", 9 },
		{ "unknown key \"frobnicate\"", 10 },
		{ "user_ns_script: no value", 11 },
		{ "node_confs: unknown key \"colour\"", 14 },
		{ "dirs: dir_confs takes precedence", 16 },
		{ "clone_ns_flags: unknown flag", 19 },
		{ "dir_confs /tmp base_path: ignored with tmpfs", 24 },
		{ "dir_confs /tmp options: noatime: devns supports only", 25 },
		{ "dir_confs /tmp options: mode=0700: devns's private directories are always mode 1777", 25 },
		{ "dir_confs /tmp options: nr_inodes=9", 25 },
		{ "dir_confs /scratch base_path: \"/data/%h\" is not", 27 },
		{ "dir_confs /scratch options: ro:", 28 },
		{ "dir_confs /scratch options: size=1g: a bind mount has no size", 28 },
		{ "dir_confs /scratch: unknown key \"owner\"", 29 },
	};
	const struct nsconf_dir *d;
	struct report rep;
	struct nsconf *c;
	char *conf = convert(unsupported, &rep);
	char line[512];
	size_t n = 0;

	ok(conf != NULL, "a file full of keys that do not carry over converts");
	if (!conf) {
		diag("%s", rep.msg);
		return;
	}
	for (const char *s = conf; (s = strstr(s, "# not carried over: "));
	     s++)
		n++;
	for (size_t i = 0; i < sizeof(want) / sizeof(*want); i++) {
		bool found = false;

		for (const char *s = conf; !found &&
		     (s = strstr(s, "# not carried over: ")); s++) {
			size_t len = strcspn(s, "\n");

			snprintf(line, sizeof(line), "%.*s", (int)len, s);
			found = strstr(line, want[i].text) != NULL;
			if (found) {
				char at[32];

				snprintf(at, sizeof(at), "(ns.yaml:%d)",
					 want[i].line);
				found = strstr(line, at) != NULL;
			}
		}
		ok(found, "  commented: %s (line %d)", want[i].text,
		   want[i].line);
	}
	is_int(n, sizeof(want) / sizeof(*want),
	       "  and nothing else is commented");
	like(conf, "\nNodeName=gpu1 Dir=/work Source=/data/%n/%j Options=ro,nodev\n",
	     "  a base_path of its own: Source=BASE/%%j, %%n kept, and ro with it");
	like(conf, "\nNodeName=gpu1 Dir=/scratch Options=noexec\n",
	     "  the options that carry over kept");
	c = reload(conf, "gpu1");
	ok(c != NULL, "the result loads, as gpu1");
	if (c) {
		ok(c->pid_namespace && !c->user_namespace,
		   "  the node's clone_ns_flags, CLONE_NEWPID alone");
		ok(dir_of(c, "/home/%u") && dir_of(c, "/tmp") &&
		   dir_of(c, "/work"), "  the dir_confs that carry over, "
		   "/home/%%u a mount point per user");
		d = dir_of(c, "/work");
		is_str(d ? d->source : NULL, "/data/%n/%j", "  /work's Source");
		ok(d && (d->options & NSCONF_OPT_RO), "  read-only");
		nsconf_free(c);
	}
	c = reload(conf, "n1");
	ok(c != NULL, "the result loads, as another node");
	if (c) {
		ok(!c->pid_namespace && !c->user_namespace && !c->shared,
		   "  an empty clone_ns_flags: no pid or user namespace");
		nsconf_free(c);
	}
	free(conf);
}

static void test_refused(void)
{
	static const struct { const char *yaml, *msg, *what; } bad[] = {
		{ "defaults:\n  base_path: /x\n\tshared: true\n", "ns.yaml:3:",
		  "a tab in the indentation" },
		{ "defaults:\n  base_path: /x\n shared: true\n", "ns.yaml:3:",
		  "an indentation that fits no level" },
		{ "defaults:\n  base_path: &a /x\n", "ns.yaml:2:",
		  "an anchor" },
		{ "defaults:\n  base_path: \"/x\n", "ns.yaml:2:",
		  "an unterminated quote" },
		{ "node_confs: n1\n", "ns.yaml:1: node_confs: a list",
		  "node_confs not a list" },
		{ "node_confs:\n  - options:\n      shared: true\n",
		  "ns.yaml:2: node_confs: an element has no nodes",
		  "an element without nodes" },
		{ "defaults:\n  base_path:\n    - /x\n",
		  "ns.yaml:2: base_path: a single value",
		  "a list where a path belongs" },
		{ "defaults:\n  dir_confs:\n    - tmpfs: true\n",
		  "ns.yaml:3: dir_confs: an element has no path",
		  "a dir_confs element without a path" },
		{ "# nothing\n", "ns.yaml:1: no content",
		  "a file with nothing in it" },
		{ "- defaults\n", "ns.yaml:1: a mapping",
		  "a list as the document" },
		{ "defaults:\n  clone_ns_flags: [CLONE_NEWPID]\n",
		  "ns.yaml:2: \"[CLONE_NEWPID]\": this YAML (flow collection",
		  "a flow sequence, which the reader does not take" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct report rep;
		char *conf;

		errno = 0;
		conf = convert(bad[i].yaml, &rep);
		ok(!conf && errno == EINVAL, "refused: %s", bad[i].what);
		ok(!strncmp(rep.msg, bad[i].msg, strlen(bad[i].msg)),
		   "  naming file and line: %s", rep.msg);
		free(conf);
	}
}

static void test_small(void)
{
	struct report rep;
	struct nsconf *c;
	char *conf;

	conf = convert("defaults:\n  base_path: /var/spool/my ns\n"
		       "  dirs:\n    - /tmp\n    - /var/tmp\n", &rep);
	like(conf, "\nBasePath=\"/var/spool/my ns\"\n",
	     "a value with a space is quoted");
	like(conf, "\nDirs=/tmp,/var/tmp\n", "dirs as a YAML list");
	if (conf && (c = reload(conf, "n1"))) {
		is_str(c->base_path, "/var/spool/my ns", "  which loads");
		nsconf_free(c);
	}
	free(conf);
	conf = convert("defaults:\n  base_path: none\n", &rep);
	like(conf, "\nBasePath=none\n", "base_path: none carries over");
	free(conf);
}

static void test_leftover(void)
{
	char tmp[] = "/tmp/test_nsimport.XXXXXX", jc[PATH_MAX],
	     yaml[PATH_MAX];
	struct report rep;
	FILE *f;

	if (!mkdtemp(tmp)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(jc, sizeof(jc), "%s/job_container.conf", tmp);
	snprintf(yaml, sizeof(yaml), "%s/namespace.yaml", tmp);
	f = fopen(jc, "w");
	ok(f && fclose(f) == 0, "precondition: job_container.conf alone");
	report_init(&rep, keep_warning, NULL);
	ok(!nsconf_file_leftover(jc, &rep) && rep.warnings == 0,
	   "no namespace.yaml: no warning");
	f = fopen(yaml, "w");
	ok(f && fclose(f) == 0, "precondition: a namespace.yaml beside it");
	ok(nsconf_file_leftover(jc, &rep) && rep.warnings == 1,
	   "a leftover namespace.yaml: a warning");
	ok(strstr(last_warning, jc) && strstr(last_warning, yaml) &&
	   strstr(last_warning, "devns import"),
	   "  naming both files and devns import: %s", last_warning);
	unlink(yaml);
	unlink(jc);
	rmdir(tmp);
}

int main(void)
{
	test_example();
	test_unsupported();
	test_refused();
	test_small();
	test_leftover();
	return tap_done();
}
