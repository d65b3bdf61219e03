/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_nsconf.c - unit tests of the namespace.conf parser: every key and
 * its defaults, the syntax (comments, quotes, continuations, CRLF), the
 * NodeName override rules, every error with its exact "file:line: ..."
 * message (every bad line of a file in one run), and loading from a file (including a missing one).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf/nsconf.h"
#include "slurmconv/confread.h"
#include "tap.h"
#include "testrep.h"

#define GiB (1024ULL * 1024 * 1024)
#define MiB (1024ULL * 1024)


static struct nsconf *parse(const char *text, const char *node)
{
	struct nsconf *c = nsconf_load_text(text, "t.conf", node, NULL, fresh());

	if (!c)
		diag("parse error: %s", rep.msg);
	return c;
}

/* The text must fail with EINVAL and exactly this message. */
static void fails(const char *text, const char *node, const char *msg)
{
	struct nsconf *c;

	rep.msg[0] = '\0';
	errno = 0;
	c = nsconf_load_text(text, "t.conf", node, NULL, fresh());
	ok(c == NULL && errno == EINVAL, "rejected: %s", msg);
	is_str(rep.msg, msg, "  message");
	nsconf_free(c);
}

static int ndirs(const struct nsconf *c)
{
	int n = 0;

	while (c->dirs && c->dirs[n])
		n++;
	return n;
}

static void test_defaults(void)
{
	struct nsconf *c = parse("BasePath=/var/spool/devns\n", "n1");

	if (!ok(c != NULL, "minimal file parses"))
		return;
	is_str(c->base_path, "/var/spool/devns", "BasePath");
	is_int(c->auto_base_path, 0, "AutoBasePath defaults to no");
	is_int(ndirs(c), 2, "Dirs defaults to two entries");
	is_str(c->dirs[0], "/tmp", "  /tmp");
	is_str(c->dirs[1], "/dev/shm", "  /dev/shm");
	is_str(c->init_script, NULL, "InitScript unset");
	is_int(c->shared, 0, "Shared defaults to no");
	is_int(c->shm_size, 0, "ShmSize unset");
	is_int(c->tmp_size, 0, "TmpSize unset");
	is_int(c->device_policy, DEVPOLICY_AUTO, "DevicePolicy auto");
	is_str(c->device_allow, NULL, "DeviceAllow unset");
	is_int(c->allow_count, 0, "  no DeviceAllow line");
	is_int(c->allow_none_line, 0, "  nor a DeviceAllow=none");
	nsconf_free(c);
}

static void test_all_keys(void)
{
	struct nsconf *c = parse("# every key\n"
				 "BasePath=/var/devns\n"
				 "AutoBasePath=yes\n"
				 "Dirs=/tmp,/var/tmp,/dev/shm\n"
				 "InitScript=/etc/slurm/ns-init.sh\n"
				 "Shared=true\n"
				 "ShmSize=2G\n"
				 "TmpSize=512MiB\n"
				 "DevicePolicy=Closed\n"
				 "DeviceAllow=/dev/fuse:rw,char-nvidia-caps:r\n",
				 "n1");

	if (!ok(c != NULL, "a file with every key parses"))
		return;
	is_str(c->base_path, "/var/devns", "BasePath");
	is_int(c->auto_base_path, 1, "AutoBasePath");
	is_int(ndirs(c), 3, "Dirs has three entries");
	is_str(c->dirs[1], "/var/tmp", "  in order");
	is_str(c->init_script, "/etc/slurm/ns-init.sh", "InitScript");
	is_int(c->shared, 1, "Shared");
	is_int(c->shm_size, 2 * GiB, "ShmSize");
	is_int(c->tmp_size, 512 * MiB, "TmpSize");
	is_int(c->device_policy, DEVPOLICY_CLOSED, "DevicePolicy");
	is_str(c->device_allow, "/dev/fuse:rw,char-nvidia-caps:r",
	       "DeviceAllow kept raw");
	is_str(c->file, "t.conf", "  with its file");
	ok(c->allow_count == 1 && c->allow[0].line == 10, "  and its line");
	nsconf_free(c);

	c = parse("basepath=/a AUTOBASEPATH=1 dIrS=/x sHaReD=0", NULL);
	if (ok(c != NULL, "keys are case-insensitive, several per line")) {
		is_str(c->base_path, "/a", "  BasePath");
		is_int(c->auto_base_path, 1, "  AutoBasePath");
		is_str(c->dirs[0], "/x", "  Dirs");
		is_int(ndirs(c), 1, "  Dirs replaces the default");
	}
	nsconf_free(c);

	c = parse("BasePath=none", NULL);
	if (ok(c != NULL, "BasePath=none"))
		is_str(c->base_path, NULL, "  gives NULL");
	nsconf_free(c);
	c = parse("BasePath=NONE", NULL);
	if (ok(c != NULL, "BasePath=NONE"))
		is_str(c->base_path, NULL, "  any case");
	nsconf_free(c);
	c = parse("BasePath=//var//spool/devns/ InitScript=/x//y", NULL);
	if (ok(c != NULL, "paths with extra slashes")) {
		is_str(c->base_path, "/var/spool/devns", "  normalised");
		is_str(c->init_script, "/x/y", "  InitScript too");
	}
	nsconf_free(c);
}

static void test_bools(void)
{
	static const struct { const char *s; int v; } cases[] = {
		{ "yes", 1 }, { "YES", 1 }, { "true", 1 }, { "True", 1 },
		{ "1", 1 }, { "no", 0 }, { "No", 0 }, { "false", 0 },
		{ "FALSE", 0 }, { "0", 0 },
	};
	char text[128];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct nsconf *c;

		snprintf(text, sizeof(text), "BasePath=/b Shared=%s "
			 "AutoBasePath=%s", cases[i].s, cases[i].s);
		c = parse(text, NULL);
		ok(c && c->shared == cases[i].v
		   && c->auto_base_path == cases[i].v, "bool \"%s\" is %d",
		   cases[i].s, cases[i].v);
		nsconf_free(c);
	}
	fails("BasePath=/b Shared=maybe", NULL,
	      "t.conf:1: Shared: invalid boolean \"maybe\" (use yes or no)");
	fails("BasePath=/b\nAutoBasePath=2", NULL,
	      "t.conf:2: AutoBasePath: invalid boolean \"2\" (use yes or no)");
}

static void test_sizes(void)
{
	static const struct { const char *s; unsigned long long v; } good[] = {
		{ "0", 0 }, { "1024", 1024 }, { "100B", 100 }, { "1K", 1024 },
		{ "1k", 1024 }, { "1KB", 1024 }, { "1KiB", 1024 },
		{ "3M", 3 * MiB }, { "3mib", 3 * MiB }, { "2G", 2 * GiB },
		{ "2GB", 2 * GiB }, { "1T", 1024 * GiB }, { "1TiB", 1024 * GiB },
		{ "16777215T", 16777215ULL << 40 },
		{ "18446744073709551615", 18446744073709551615ULL },
	};
	static const char *const bad[] = {
		"12Q", "-1", "+1", "1.5G", "G", "1KiBB", "1iB", "1Ki", "1BB",
		"1 G", "0x10", "99999999999999999999", "16777216T", "1P",
	};
	char text[128], msg[256];
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(*good); i++) {
		struct nsconf *c;

		snprintf(text, sizeof(text), "BasePath=/b ShmSize=\"%s\" "
			 "TmpSize=%s", good[i].s, good[i].s);
		c = parse(text, NULL);
		ok(c && c->shm_size == good[i].v && c->tmp_size == good[i].v,
		   "size \"%s\" is %llu", good[i].s, good[i].v);
		nsconf_free(c);
	}
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		snprintf(text, sizeof(text), "BasePath=/b\nTmpSize=\"%s\"",
			 bad[i]);
		snprintf(msg, sizeof(msg),
			 "t.conf:2: TmpSize: invalid size \"%s\"", bad[i]);
		fails(text, NULL, msg);
	}
	fails("BasePath=/b\n\n\n\n\n\nTmpDiskLimit=50%", NULL,
	      "t.conf:7: TmpDiskLimit: invalid size \"50%\" "
	      "(percentages are not supported)");
	rep.msg[0] = '\0';
	nsconf_free(nsconf_load_text("BasePath=/b\n\n\n\n\n\nShmSize=12Q",
				     "namespace.conf", NULL, NULL, fresh()));
	is_str(rep.msg, "namespace.conf:7: ShmSize: invalid size \"12Q\"",
	       "the message names the file given");
}

static void test_dirs(void)
{
	struct nsconf *c = parse("BasePath=/b Dirs=/tmp,/scratch/x,/dev/shm",
				 NULL);

	if (ok(c != NULL, "Dirs with three entries")) {
		is_int(ndirs(c), 3, "  three entries");
		is_str(c->dirs[0], "/tmp", "  first entry");
		is_str(c->dirs[1], "/scratch/x", "  second entry");
		is_str(c->dirs[2], "/dev/shm", "  last entry");
	}
	nsconf_free(c);
	/* Written as mntns uses them: no slashes to tidy up. */
	fails("BasePath=/b Dirs=/tmp/", NULL,
	      "t.conf:1: Dirs: \"/tmp/\" ends with a slash");
	fails("BasePath=/b Dirs=/tmp,//scratch", NULL,
	      "t.conf:1: Dirs: \"//scratch\" has a doubled slash");
	fails("BasePath=/b Dirs=/scratch//x", NULL,
	      "t.conf:1: Dirs: \"/scratch//x\" has a doubled slash");
	fails("BasePath=/b Dirs=//", NULL,
	      "t.conf:1: Dirs: \"//\" has a doubled slash");
	fails("BasePath=/b Dirs=tmp", NULL,
	      "t.conf:1: Dirs: \"tmp\" is not an absolute path");
	/* Per-user or per-job mount points: a fixed part, known escapes. */
	fails("BasePath=/b Dirs=/tmp,/%u/scratch", NULL,
	      "t.conf:1: Dirs: \"/%u/scratch\" needs a fixed directory "
	      "before the first %");
	fails("BasePath=/b\nDir=/scratch/%x\n", NULL,
	      "t.conf:2: Dir: unknown \"%x\" in \"/scratch/%x\" (use %j, "
	      "%S, %u, %n or %%)");
	fails("BasePath=/b\nDir=/var/tmp/%u\n", NULL,
	      "t.conf:2: Dir: \"/var/tmp/%u\" is in /var/tmp, which every "
	      "user can write to");
	fails("BasePath=/b\nDirs=/tmp,/scratch\nDir=/scratch/%u\n", NULL,
	      "t.conf:3: Dir=/scratch/%u: a per-user or per-job mount point, "
	      "and /scratch, another private directory, lie in one another");
	fails("BasePath=/b Dirs=/tmp,,/x", NULL,
	      "t.conf:1: Dirs: empty entry in \"/tmp,,/x\"");
	fails("BasePath=/b Dirs=/tmp,", NULL,
	      "t.conf:1: Dirs: empty entry in \"/tmp,\"");
	fails("BasePath=/b Dirs=,/tmp", NULL,
	      "t.conf:1: Dirs: empty entry in \",/tmp\"");
	fails("BasePath=/b Dirs=/a/../etc", NULL,
	      "t.conf:1: Dirs: \"/a/../etc\" has a \".\" or \"..\" component");
	fails("BasePath=/b Dirs=/tmp/./x", NULL,
	      "t.conf:1: Dirs: \"/tmp/./x\" has a \".\" or \"..\" component");
	fails("BasePath=/b Dirs=/tmp,/dev/shm,/tmp", NULL,
	      "t.conf:1: Dirs: \"/tmp\" is listed twice");
	fails("BasePath=/b Dirs=/", NULL, "t.conf:1: Dirs: \"/\" is not allowed");
	fails("BasePath=/b Dirs=/.", NULL,
	      "t.conf:1: Dirs: \"/.\" has a \".\" or \"..\" component");
	fails("BasePath=/b Dirs=/..", NULL,
	      "t.conf:1: Dirs: \"/..\" has a \".\" or \"..\" component");
}

/* Each Dirs entry needs a backing directory of its own in BasePath/<job>. */
static void test_dirs_backing(void)
{
	char text[8192], dir[300], msg[600];
	struct nsconf *c;
	int i;

	fails("BasePath=/b Dirs=/var/tmp,/var_tmp", NULL,
	      "t.conf:1: Dirs: \"/var/tmp\" and \"/var_tmp\" would share the "
	      "backing directory \"var_tmp\"");
	fails("BasePath=/b\nNodeName=n1 Dirs=/tmp,/a_b/c,/a/b_c", "n2",
	      "t.conf:2: Dirs: \"/a_b/c\" and \"/a/b_c\" would share the "
	      "backing directory \"a_b_c\"");
	fails("BasePath=/b Dirs=/tmp,/.ns", NULL,
	      "t.conf:1: Dirs: \"/.ns\" cannot be a private directory: its "
	      "backing directory name \".ns\" is reserved (.ns is the "
	      "namespace pin)");
	c = parse("BasePath=/b Dirs=/.ns/x,/x.ns,/a/.ns", NULL);
	ok(c != NULL, "names that only contain .ns are fine");
	nsconf_free(c);

	/* NAME_MAX (255) bytes of backing name fit, 256 do not. */
	memset(dir, 'a', sizeof(dir));
	dir[0] = '/';
	dir[256] = '\0';
	snprintf(text, sizeof(text), "BasePath=/b Dirs=%s", dir);
	c = parse(text, NULL);
	ok(c != NULL, "a 255-byte backing name is fine");
	nsconf_free(c);
	dir[256] = 'a';
	dir[257] = '\0';
	snprintf(text, sizeof(text), "BasePath=/b Dirs=%s", dir);
	snprintf(msg, sizeof(msg), "t.conf:1: Dirs: \"%s\" is too long: its "
		 "backing directory name would exceed 255 bytes", dir);
	fails(text, NULL, msg);

	/* As many as mntns mounts, and no more, on any line. */
	snprintf(text, sizeof(text), "BasePath=/b Dirs=/d0");
	for (i = 1; i < NSCONF_MAX_DIRS; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 ",/d%d", i);
	c = parse(text, NULL);
	ok(c && ndirs(c) == NSCONF_MAX_DIRS, "%d Dirs entries are fine",
	   NSCONF_MAX_DIRS);
	nsconf_free(c);
	snprintf(text, sizeof(text), "BasePath=/b\nNodeName=other Dirs=/d0");
	for (i = 1; i <= NSCONF_MAX_DIRS; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 ",/d%d", i);
	snprintf(msg, sizeof(msg), "t.conf:2: Dirs: %d entries in \"%s\", at "
		 "most %d are supported", NSCONF_MAX_DIRS + 1,
		 strstr(text, "/d0"), NSCONF_MAX_DIRS);
	fails(text, "n1", msg);
}

static void test_backing_name(void)
{
	char buf[16];

	ok(nsconf_backing_name("/var/tmp", buf, sizeof(buf)) == 0
	   && !strcmp(buf, "var_tmp"), "backing name of /var/tmp: var_tmp");
	ok(nsconf_backing_name("/tmp", buf, sizeof(buf)) == 0
	   && !strcmp(buf, "tmp"), "backing name of /tmp: tmp");
	errno = 0;
	ok(nsconf_backing_name("/.ns", buf, sizeof(buf)) < 0 && errno == EINVAL,
	   "the pin's name is refused");
	errno = 0;
	ok(nsconf_backing_name("/..", buf, sizeof(buf)) < 0 && errno == EINVAL,
	   ".. is refused");
	errno = 0;
	ok(nsconf_backing_name("/", buf, sizeof(buf)) < 0 && errno == EINVAL,
	   "an empty name is refused");
	errno = 0;
	ok(nsconf_backing_name("tmp", buf, sizeof(buf)) < 0 && errno == EINVAL,
	   "a relative path is refused");
	errno = 0;
	ok(nsconf_backing_name("/0123456789abcdef", buf, sizeof(buf)) < 0
	   && errno == ENAMETOOLONG, "a name that does not fit is refused");
}

/* Jobs' directories must not sit where every user can write. */
static void test_base_path_shared(void)
{
	struct nsconf *c;

	fails("BasePath=/tmp", NULL,
	      "t.conf:1: BasePath: \"/tmp\" is /tmp, which every user can "
	      "write to (use a directory only root can write to, in "
	      "directories only root can write to, such as "
	      "/var/spool/slurm/devns)");
	fails("BasePath=//dev/shm/", NULL,
	      "t.conf:1: BasePath: \"//dev/shm/\" is /dev/shm, which every "
	      "user can write to (use a directory only root can write to, in "
	      "directories only root can write to, such as "
	      "/var/spool/slurm/devns)");
	fails("BasePath=/b\nNodeName=other BasePath=/var/tmp", "n1",
	      "t.conf:2: BasePath: \"/var/tmp\" is /var/tmp, which every "
	      "user can write to (use a directory only root can write to, in "
	      "directories only root can write to, such as "
	      "/var/spool/slurm/devns)");
	/* Below a sticky directory: the node's checks (safepath) refuse it. */
	c = parse("BasePath=/var/tmp/devns", NULL);
	ok(c != NULL, "BasePath=/var/tmp/devns is parsed");
	nsconf_free(c);
	c = parse("BasePath=/tmpx\nNodeName=n1 BasePath=/var/tmpfs", NULL);
	ok(c != NULL, "a name that only starts like /tmp is fine");
	nsconf_free(c);
	/* Nor in a private directory of the job, from whichever line. */
	fails("BasePath=/scratch/devns Dirs=/tmp,/scratch", NULL,
	      "t.conf:1: BasePath: \"/scratch/devns\" is in \"/scratch\", a "
	      "private directory of Dirs (line 1)");
	fails("BasePath=/b\nDirs=/tmp,/scratch\nNodeName=n1 BasePath=/scratch",
	      "n1", "t.conf:3: BasePath: \"/scratch\" is in \"/scratch\", a "
	      "private directory of Dirs (line 2)");
	c = parse("BasePath=/b\nDirs=/tmp,/scratch\nNodeName=n1 BasePath=/scratch",
		  "n2");
	ok(c != NULL, "  another node, with BasePath=/b, is fine");
	nsconf_free(c);
	c = parse("BasePath=/scratch/devns\nNodeName=n1 Dirs=/tmp", "n1");
	ok(c != NULL, "  a node whose Dirs leave BasePath out is fine");
	nsconf_free(c);
}

/* Control bytes could hide text from a reader of the file or of a log. */
static void test_control_bytes(void)
{
	struct nsconf *c;

	fails("BasePath=/b\nInitScript=/x\033[2Ky", NULL,
	      "t.conf:2: control character 0x1b in column 14");
	fails("BasePath=/b\x7f", NULL,
	      "t.conf:1: control character 0x7f in column 12");
	fails("BasePath=/b\rShared=yes", NULL,
	      "t.conf:1: control character 0x0d in column 12");
	fails("BasePath=/b\n# a comment \b\n", NULL,
	      "t.conf:2: control character 0x08 in column 13");
	fails("BasePath=\"/b\tc\"", NULL,
	      "t.conf:1: control character 0x09 in column 13");
	fails("BasePath=/b\nNodeName=other \\\n  ShmSize=1G\f", "n1",
	      "t.conf:3: control character 0x0c in column 13");
	fails("BasePath=/b\vShared=yes", NULL,
	      "t.conf:1: control character 0x0b in column 12");
	c = parse("BasePath=/b\tShared=yes\t# tab\there\r\nTmpSize=1G\r", NULL);
	ok(c && c->shared && c->tmp_size == GiB,
	   "tabs between pairs and in comments, CRLF line ends are fine");
	nsconf_free(c);
}

/*
 * Every DeviceAllow of the file is checked, whichever node its line names.
 * The lines that apply add up, as systemd's DeviceAllow= lines do: the
 * node's lines, together, replace the global ones (issue 30: a second
 * line used to replace the first, silently).
 */
static void test_device_allow_all(void)
{
	struct nsconf *c = parse("BasePath=/b\n"
				 "NodeName=other DeviceAllow=/dev/x:rw\n"
				 "DeviceAllow=/dev/fuse:rw\n"
				 "NodeName=n1 DeviceAllow=char-nvidia:rw\n"
				 "NodeName=n[1-2] \\\n"
				 "   DeviceAllow=block-loop:r\n", "n1");

	if (ok(c != NULL, "DeviceAllow on several lines")) {
		is_str(c->device_allow, "char-nvidia:rw,block-loop:r",
		       "  the node's lines add up and replace the global one");
		ok(c->allow_count == 2 && c->allow[0].line == 4 &&
		   c->allow[1].line == 6, "  each on its physical line");
		/* Read once, on pass 1; pass 2 takes what it read. */
		ok(c->allow_count == 2 && c->allow[0].entries.n == 1 &&
		   c->allow[0].entries.v[0].kind == DEVALLOW_CLASS &&
		   !strcmp(c->allow[0].entries.v[0].spec, "char-nvidia") &&
		   c->allow[1].entries.n == 1 &&
		   !strcmp(c->allow[1].entries.v[0].name, "block-loop:r"),
		   "  each NodeName line handed on as read");
		is_str(c->file, "t.conf", "  and file");
	}
	nsconf_free(c);
	fails("BasePath=/b\nNodeName=other DeviceAllow=/dev/x:rwz\n", "n1",
	      "t.conf:2: DeviceAllow entry '/dev/x:rwz': bad access 'rwz' (want a non-empty subset of rwm, each letter once)");
	fails("BasePath=/b\nNodeName=n[1-2] \\\n  DeviceAllow=bogus:r\n",
	      "n7", "t.conf:3: DeviceAllow entry 'bogus:r': 'bogus' is neither an absolute device path, char-NAME/block-NAME nor TYPE MAJOR:MINOR");
	c = parse("BasePath=/b", "n1");
	ok(c && !c->device_allow && !c->allow_count,
	   "no DeviceAllow: none");
	nsconf_free(c);
	c = parse("BasePath=/b\nDeviceAllow=\"/dev/fuse rw, c 10:229 rw\"\n"
		  "NodeName=other DeviceAllow=char-x:r\n", "n1");
	ok(c && c->allow_count == 1 && c->allow[0].entries.n == 2 &&
	   c->allow[0].entries.v[0].kind == DEVALLOW_PATH &&
	   c->allow[0].entries.v[1].kind == DEVALLOW_NUMBERS &&
	   c->allow[0].entries.v[1].rule.major == 10 &&
	   c->allow[0].entries.v[1].rule.minor == 229,
	   "a global line handed on as read; another node's is not");
	nsconf_free(c);
}

/* Repeated lines add up; a node's set replaces the global one; none. */
static void test_device_allow_add(void)
{
	static const char text[] =
		"BasePath=/b\n"				/* 1 */
		"DeviceAllow=/dev/fuse:rw\n"			/* 2 */
		"NodeName=gpu1 DeviceAllow=char-nvidia:rw\n"	/* 3 */
		"DeviceAllow=/dev/kvm:rw\n"			/* 4 */
		"NodeName=gpu[1-2] DeviceAllow=/dev/fuse:rw\n"	/* 5 */
		"NodeName=cpu1 DeviceAllow=none\n";		/* 6 */
	struct nsconf *c;

	c = parse(text, "n1");
	if (ok(c != NULL, "two global DeviceAllow lines")) {
		is_str(c->device_allow, "/dev/fuse:rw,/dev/kvm:rw",
		       "  add up (the first is not replaced)");
		ok(c->allow_count == 2 && c->allow[0].line == 2 &&
		   c->allow[1].line == 4, "  each with its line");
	}
	nsconf_free(c);
	c = parse(text, "gpu1");
	ok(c && !strcmp(c->device_allow, "char-nvidia:rw,/dev/fuse:rw"),
	   "a node's lines add up and replace the global set, whatever the "
	   "order: %s", c ? c->device_allow : "");
	nsconf_free(c);
	c = parse(text, "cpu1");
	ok(c && !c->device_allow && c->allow_count == 0 &&
	   c->allow_none_line == 6, "a node's DeviceAllow=none: no entry");
	nsconf_free(c);
	c = parse("BasePath=/b\nDeviceAllow=/dev/a:r\nDeviceAllow=NONE\n"
		  "DeviceAllow=/dev/b:r\n", NULL);
	ok(c && !strcmp(c->device_allow, "/dev/b:r") && !c->allow_none_line,
	   "none empties what came before, of its kind");
	nsconf_free(c);
	c = parse("BasePath=/b\nDeviceAllow=/dev/a:r\nNodeName=n1 "
		  "DeviceAllow=/dev/b:r\nNodeName=n1 DeviceAllow=none\n", "n1");
	ok(c && !c->device_allow && c->allow_none_line == 4,
	   "a node's none empties the node's set, and the global one is "
	   "still replaced");
	nsconf_free(c);
	c = parse("BasePath=/b\nDeviceAllow=\"/dev/fuse rw, c 195:* rwm\"\n"
		  "DeviceAllow=\"b 8:0 r\"\n", NULL);
	ok(c && !strcmp(c->device_allow, "/dev/fuse rw, c 195:* rwm,b 8:0 r"),
	   "systemd's \"PATH rw\" and the tool's \"c 195:* rwm\" forms");
	nsconf_free(c);
	fails("BasePath=/b\nDeviceAllow=/dev/fuse rw\n", NULL,
	      "t.conf:2: DeviceAllow entry '/dev/fuse' has no ':ACCESS' (want "
	      "SPEC:ACCESS or SPEC ACCESS, ACCESS from rwm); a value with "
	      "blanks needs quotes: DeviceAllow=\"/dev/fuse rw\"");
	fails("BasePath=/b\nDeviceAllow=/dev/fuse:rw rw\n", NULL,
	      "t.conf:2: expected Key=Value, got \"rw\" (DeviceAllow's \"SPEC "
	      "ACCESS\" form needs quotes: DeviceAllow=\"/dev/fuse rw\")");
	fails("BasePath=/b\nDeviceAllow=\"c 195:x rw\"\n", NULL,
	      "t.conf:2: DeviceAllow entry 'c 195:x rw': 'c 195:x' is not "
	      "TYPE MAJOR:MINOR (c or b, then numbers up to 4095:1048575, "
	      "'*' for any minor)");
	fails("BasePath=/b\nDeviceAllow=\"none,/dev/fuse:rw\"\n", NULL,
	      "t.conf:2: DeviceAllow: \"none\" empties the list and stands "
	      "alone, not in \"none,/dev/fuse:rw\"");
}

static void test_paths(void)
{
	fails("BasePath=var/devns", NULL,
	      "t.conf:1: BasePath: \"var/devns\" is not an absolute path");
	fails("BasePath=/var/../etc", NULL,
	      "t.conf:1: BasePath: \"/var/../etc\" has a \".\" or \"..\" "
	      "component");
	fails("BasePath=//", NULL, "t.conf:1: BasePath: \"/\" is not allowed");
	fails("BasePath=/b InitScript=init.sh", NULL,
	      "t.conf:1: InitScript: \"init.sh\" is not an absolute path");
}

static void test_policy(void)
{
	static const char *const names[] = { "auto", "closed", "strict" };
	char text[64];
	int i;

	for (i = 0; i < 3; i++) {
		struct nsconf *c;

		snprintf(text, sizeof(text), "BasePath=/b DevicePolicy=%s",
			 names[i]);
		c = parse(text, NULL);
		ok(c && (int)c->device_policy == i, "DevicePolicy=%s", names[i]);
		is_str(devpolicy_mode_name((enum devpolicy_mode)i),
		       names[i], "  and back to its name");
		nsconf_free(c);
	}
	{
		struct nsconf *c = parse("BasePath=/b DevicePolicy=STRICT", NULL);

		ok(c && c->device_policy == DEVPOLICY_STRICT,
		   "DevicePolicy is case-insensitive");
		nsconf_free(c);
	}
	fails("BasePath=/b DevicePolicy=open", NULL,
	      "t.conf:1: DevicePolicy: invalid policy \"open\" (use auto, "
	      "closed, strict or none)");
	fails("BasePath=/b DeviceAllow=", NULL,
	      "t.conf:1: DeviceAllow: empty value");
	fails("BasePath=/b DeviceAllow=\"\"", NULL,
	      "t.conf:1: DeviceAllow: empty value");
}

static void test_syntax(void)
{
	struct nsconf *c;

	c = parse("\n   \n# comment only\n\t# indented comment\n"
		  "BasePath=/b   # trailing comment\n"
		  "InitScript=\"/opt/my scripts/#1.sh\"  # quoted #\n"
		  "DeviceAllow=\"/dev/a:rw, /dev/b:r\"\n"
		  "\tShared=yes\tAutoBasePath=yes\n",
		  NULL);
	if (ok(c != NULL, "comments, blank lines, tabs, quotes")) {
		is_str(c->base_path, "/b", "  value before a comment");
		is_str(c->init_script, "/opt/my scripts/#1.sh",
		       "  quoted value keeps spaces and #");
		is_str(c->device_allow, "/dev/a:rw, /dev/b:r",
		       "  quoted DeviceAllow kept raw");
		ok(c->allow_count == 1 && c->allow[0].line == 7,
		   "  DeviceAllow line");
		ok(c->shared && c->auto_base_path, "  tab-separated pairs");
	}
	nsconf_free(c);

	c = parse("BasePath=/b\r\nShared=yes\r\n", NULL);
	ok(c && c->shared && !strcmp(c->base_path, "/b"), "CRLF line ends");
	nsconf_free(c);
	c = parse("BasePath=/b", NULL);
	ok(c != NULL, "no newline at the end");
	nsconf_free(c);
	c = parse("BasePath=/b \\", NULL);
	ok(c != NULL, "a continuation at the end of the text");
	nsconf_free(c);

	c = parse("BasePath=/b \\\n   Shared=yes \\\n\tDeviceAllow=/dev/x:r\n"
		  "ShmSize=1G", NULL);
	if (ok(c != NULL, "continuation lines")) {
		ok(c->shared, "  joined pair applies");
		ok(c->allow_count == 1 && c->allow[0].line == 3,
		   "  DeviceAllow line is the physical line");
		is_int(c->shm_size, GiB, "  the next line is separate");
	}
	nsconf_free(c);
	fails("BasePath=/b \\\n  Shared=yes \\\n  Bogus=1", NULL,
	      "t.conf:3: unknown key \"Bogus\"");
	/* Joined into the NodeName line: only n1 gets /n1. */
	c = parse("BasePath=/g\nNodeName=n1 \\\n  BasePath=/n1\n", "n1");
	ok(c && !strcmp(c->base_path, "/n1"), "continued NodeName line: n1");
	nsconf_free(c);
	c = parse("BasePath=/g\nNodeName=n1 \\\n  BasePath=/n1\n", "n2");
	ok(c && !strcmp(c->base_path, "/g"), "continued NodeName line: n2");
	nsconf_free(c);
	/* A backslash inside a comment does not continue the line. */
	c = parse("BasePath=/g\nNodeName=n1 # note \\\nBasePath=/x\n", "n2");
	ok(c && !strcmp(c->base_path, "/x"), "no continuation in a comment");
	nsconf_free(c);
	/* A continuation before a comment does. */
	c = parse("BasePath=/g\nNodeName=n1 \\ # note\nBasePath=/x\n", "n2");
	ok(c && !strcmp(c->base_path, "/g"), "continuation before a comment");
	nsconf_free(c);
}

static void test_syntax_errors(void)
{
	fails("BasePath /x", NULL, "t.conf:1: expected Key=Value, got "
	      "\"BasePath\"");
	fails("BasePath=/x\nShared", NULL, "t.conf:2: expected Key=Value, got "
	      "\"Shared\"");
	/* a tmpfs site's Include line: Slurm's parser reads it, devns not */
	fails("BasePath=/b\ninclude /etc/slurm/jc.d/site.conf", NULL,
	      "t.conf:2: expected Key=Value, got \"include\" (Include lines "
	      "are not read: put the included file's lines in this file)");
	fails("=/x", NULL, "t.conf:1: missing key before \"=/x\"");
	fails("BasePath=/b\n\nBasPath=/x", NULL,
	      "t.conf:3: unknown key \"BasPath\"");
	fails("BasePath=/x basepath=/y", NULL,
	      "t.conf:1: duplicate key \"BasePath\"");
	fails("BasePath=/b InitScript=\"/x", NULL,
	      "t.conf:1: InitScript: unterminated quote");
	fails("BasePath=/b InitScript=\"/x\"y", NULL,
	      "t.conf:1: InitScript: text after the closing quote");
	fails("BasePath=/b InitScript=/x\"y\"", NULL,
	      "t.conf:1: InitScript: unexpected quote in value");
	fails("BasePath=", NULL, "t.conf:1: BasePath: empty value");
	fails("BasePath=\"\"", NULL, "t.conf:1: BasePath: empty value");
	fails("\"BasePath\"=/x", NULL,
	      "t.conf:1: expected Key=Value, got \"\"BasePath\"=/x\"");
	fails("BasePath=/b\nNodeName=n1 ShmSize=1G\nShmSize=1G NodeName=n1",
	      "n1", "t.conf:3: NodeName must be the first key of its line");
	fails("BasePath=/b\nNodeName=n[1- ShmSize=1G", "n1",
	      "t.conf:2: NodeName: invalid hostlist \"n[1-\"");
	fails("BasePath=/b\nNodeName= ShmSize=1G", "n1",
	      "t.conf:2: NodeName: invalid hostlist \"\"");
	fails("BasePath=/b\nNodeName=n[3-1] ShmSize=1G", "n1",
	      "t.conf:2: NodeName: invalid hostlist \"n[3-1]\"");
	fails("BasePath=/b\nNodeName=n1 NodeName=n2", "n1",
	      "t.conf:2: NodeName must be the first key of its line");
	fails("BasePath=/b\nNodeName=n1 Shared=yes shared=no", "n1",
	      "t.conf:2: duplicate key \"Shared\"");
	/* Lines for other nodes are checked just the same. */
	fails("BasePath=/b\nNodeName=other ShmSize=12Q", "n1",
	      "t.conf:2: ShmSize: invalid size \"12Q\"");
	fails("BasePath=/b\nNodeName=other Bogus=1", "n1",
	      "t.conf:2: unknown key \"Bogus\"");
	/* The first error is the one reported. */
	fails("BasePath=/b\nShared=x\nBogus=1", NULL,
	      "t.conf:2: Shared: invalid boolean \"x\" (use yes or no)");
	fails("Shared=yes", "n1", "t.conf: BasePath is not set for node n1 "
	      "(use BasePath=none for no per-job directory)");
	fails("", NULL, "t.conf: BasePath is not set "
	      "(use BasePath=none for no per-job directory)");
	fails("NodeName=other BasePath=/o", "n1", "t.conf: BasePath is not set "
	      "for node n1 (use BasePath=none for no per-job directory)");
}

static const char override_text[] =
	"BasePath=/global\n"                            /* 1 */
	"ShmSize=1G\n"                                  /* 2 */
	"NodeName=gpu[01-04] BasePath=/gpu ShmSize=4G\n" /* 3 */
	"NodeName=gpu[03-04],big1 ShmSize=8G \\\n"      /* 4 */
	"    DeviceAllow=/dev/fuse:rw\n"                /* 5 */
	"DevicePolicy=strict\n"                         /* 6 */
	"NodeName=login BasePath=none Dirs=/tmp\n"      /* 7 */
	"TmpSize=1G\n"                                  /* 8 */
	"TmpSize=2G\n"                                  /* 9 */
	"NodeName=gpu01 TmpSize=3G\n"                   /* 10 */
	"DeviceAllow=/dev/kvm:rw\n";                    /* 11 */

static void test_overrides(void)
{
	struct nsconf *c;

	c = parse(override_text, "gpu01");
	if (ok(c != NULL, "gpu01")) {
		is_str(c->base_path, "/gpu", "  NodeName BasePath");
		is_int(c->shm_size, 4 * GiB, "  NodeName ShmSize");
		is_int(c->device_policy, DEVPOLICY_STRICT,
		       "  global DevicePolicy (after the node lines)");
		is_int(c->tmp_size, 3 * GiB,
		       "  node TmpSize wins over later global ones");
		is_str(c->device_allow, "/dev/kvm:rw", "  global DeviceAllow");
		ok(c->allow_count == 1 && c->allow[0].line == 11,
		   "  from line 11");
	}
	nsconf_free(c);

	c = parse(override_text, "gpu03");
	if (ok(c != NULL, "gpu03")) {
		is_str(c->base_path, "/gpu", "  first NodeName line");
		is_int(c->shm_size, 8 * GiB, "  later NodeName line wins");
		is_int(c->tmp_size, 2 * GiB, "  later global line wins");
		is_str(c->device_allow, "/dev/fuse:rw", "  node DeviceAllow");
		ok(c->allow_count == 1 && c->allow[0].line == 5,
		   "  from line 5");
	}
	nsconf_free(c);

	c = parse(override_text, "gpu05");
	if (ok(c != NULL, "gpu05 (outside the ranges)")) {
		is_str(c->base_path, "/global", "  global BasePath");
		is_int(c->shm_size, 1 * GiB, "  global ShmSize");
		is_int(ndirs(c), 2, "  default Dirs");
	}
	nsconf_free(c);

	c = parse(override_text, "gpu1");
	ok(c && !strcmp(c->base_path, "/global"),
	   "gpu1 is not gpu01 (zero padding counts)");
	nsconf_free(c);

	c = parse(override_text, "big1");
	ok(c && c->shm_size == 8 * GiB && !strcmp(c->base_path, "/global"),
	   "big1: second element of the list");
	nsconf_free(c);

	c = parse(override_text, "login");
	if (ok(c != NULL, "login")) {
		is_str(c->base_path, NULL, "  BasePath=none on its line");
		is_int(ndirs(c), 1, "  its Dirs");
	}
	nsconf_free(c);

	c = parse(override_text, NULL);
	ok(c && !strcmp(c->base_path, "/global") && c->shm_size == GiB,
	   "no node name: global settings only");
	nsconf_free(c);

	c = parse("NodeName=n1 BasePath=/n1\nBasePath=/g\n", "n1");
	ok(c && !strcmp(c->base_path, "/n1"),
	   "a NodeName line before the global one still wins");
	nsconf_free(c);
	c = parse("NodeName=n[1-3] BasePath=/n\nNodeName=n1 BasePath=/n1\n"
		  "NodeName=n[1-2] AutoBasePath=yes", "n1");
	ok(c && !strcmp(c->base_path, "/n1") && c->auto_base_path,
	   "several matching NodeName lines combine, later ones win");
	nsconf_free(c);
}

/* ---- Dir lines ----------------------------------------------------------- */

static const struct nsconf_dir *dir_of(const struct nsconf *c, const char *d)
{
	const struct nsconf_dir *nd = nsconf_dir_find(c, d);

	if (!nd)
		diag("no private dir %s", d);
	return nd;
}

/* Without Dir lines, each dir gets what the old keys said. */
static void test_dir_defaults(void)
{
	struct nsconf *c = parse("BasePath=/b Dirs=/tmp,/dev/shm,/var/tmp "
				 "ShmSize=1G", NULL);
	const struct nsconf_dir *d;
	char opts[64];

	if (!ok(c != NULL, "Dirs with ShmSize"))
		return;
	if ((d = dir_of(c, "/tmp"))) {
		is_int(d->type, NSCONF_DIR_BIND, "/tmp: a bind from BasePath");
		is_str(d->source, NULL, "  no Source");
		is_int(d->options, NSCONF_OPT_ALWAYS, "  nosuid,nodev");
		is_int(d->line, 0, "  no Dir line");
	}
	if ((d = dir_of(c, "/dev/shm"))) {
		is_int(d->type, NSCONF_DIR_TMPFS, "/dev/shm: a tmpfs");
		is_int(d->size, GiB, "  of ShmSize");
	}
	if ((d = dir_of(c, "/var/tmp")))
		is_int(d->type, NSCONF_DIR_BIND, "/var/tmp: a bind");
	nsconf_options_format(NSCONF_OPT_ALWAYS | NSCONF_OPT_RO |
			      NSCONF_OPT_NOEXEC, opts, sizeof(opts));
	is_str(opts, "nosuid,nodev,noexec,ro", "options format");
	nsconf_free(c);

	c = parse("BasePath=/b TmpSize=2G", NULL);
	if (ok(c != NULL, "TmpSize") && (d = dir_of(c, "/tmp"))) {
		is_int(d->type, NSCONF_DIR_TMPFS, "  makes /tmp a tmpfs");
		is_int(d->size, 2 * GiB, "  of that size");
	}
	nsconf_free(c);
}

static const char dir_text[] =
	"BasePath=/var/spool/devns\n"				/* 1 */
	"TmpSize=1G\n"						/* 2 */
	"Dir=/tmp Options=noexec,nosuid\n"			/* 3 */
	"Dir=/scratch Type=bind Source=/local/%n/%u/%j \\\n"	/* 4 */
	"    Options=nodev\n"					/* 5 */
	"Dir=/dev/shm Type=tmpfs Size=64M Options=noexec\n"	/* 6 */
	"Dir=/data Source=/srv/data Options=ro\n"		/* 7 */
	"NodeName=gpu[01-02] Dir=/scratch Type=tmpfs Size=8G\n"	/* 8 */
	"NodeName=gpu02 Dir=/fast Source=/nvme/%u\n";		/* 9 */

static void test_dir_lines(void)
{
	struct nsconf *c = parse(dir_text, "cpu01");
	const struct nsconf_dir *d;

	if (!ok(c != NULL, "Dir lines parse"))
		return;
	is_int(ndirs(c), 4, "  /tmp, /dev/shm, then /scratch and /data");
	is_str(c->dirs[2], "/scratch", "  Dir lines add their dirs in order");
	is_str(c->dirs[3], "/data", "  ...");
	if ((d = dir_of(c, "/tmp"))) {
		is_int(d->type, NSCONF_DIR_TMPFS, "/tmp: TmpSize's tmpfs");
		is_int(d->size, GiB, "  of TmpSize");
		is_int(d->options, NSCONF_OPT_ALWAYS | NSCONF_OPT_NOEXEC,
		       "  noexec added; nosuid,nodev always");
		is_int(d->line, 3, "  from line 3");
	}
	if ((d = dir_of(c, "/scratch"))) {
		is_int(d->type, NSCONF_DIR_BIND, "/scratch: a bind");
		is_str(d->source, "/local/%n/%u/%j", "  Source kept unexpanded");
		is_int(d->line, 4, "  from line 4 (continued on 5)");
	}
	if ((d = dir_of(c, "/dev/shm"))) {
		is_int(d->size, 64 * MiB, "/dev/shm: Size=64M");
		is_int(d->options, NSCONF_OPT_ALWAYS | NSCONF_OPT_NOEXEC,
		       "  noexec");
	}
	if ((d = dir_of(c, "/data"))) {
		is_int(d->type, NSCONF_DIR_BIND, "/data: Source means bind");
		is_int(d->options, NSCONF_OPT_ALWAYS | NSCONF_OPT_RO, "  ro");
	}
	nsconf_free(c);

	c = parse(dir_text, "gpu02");
	if (ok(c != NULL, "gpu02")) {
		is_int(ndirs(c), 5, "  a NodeName Dir line adds /fast");
		if ((d = dir_of(c, "/scratch"))) {
			is_int(d->type, NSCONF_DIR_TMPFS,
			       "  its NodeName line makes /scratch a tmpfs");
			is_int(d->size, 8 * GiB, "  of 8G");
			is_str(d->source, NULL, "  without the global Source");
			is_int(d->line, 8, "  from line 8");
		}
		if ((d = dir_of(c, "/fast")))
			is_str(d->source, "/nvme/%u", "  /fast from /nvme/%%u");
	}
	nsconf_free(c);
	c = parse(dir_text, "gpu01");
	ok(c && ndirs(c) == 4, "gpu01: no /fast");
	nsconf_free(c);

	c = parse("BasePath=/b Dirs=/tmp\nNodeName=n[1-2] Dir=/x\n"
		  "NodeName=n1 Dir=/x Options=noexec\n", "n1");
	ok(c && (d = dir_of(c, "/x")) && d->line == 3 &&
	   (d->options & NSCONF_OPT_NOEXEC),
	   "of two NodeName lines for one dir, the later wins");
	nsconf_free(c);
	c = parse("BasePath=/b Dirs=/tmp\nDir=/x TYPE=Tmpfs options=NoExec\n",
		  NULL);
	ok(c && (d = dir_of(c, "/x")) && d->type == NSCONF_DIR_TMPFS &&
	   (d->options & NSCONF_OPT_NOEXEC), "keys and values in any case");
	nsconf_free(c);
	c = parse("BasePath=/b\nDir=/dev/shm Type=bind\n", NULL);
	ok(c && (d = dir_of(c, "/dev/shm")) && d->type == NSCONF_DIR_BIND,
	   "/dev/shm may be a bind from BasePath");
	nsconf_free(c);
}

static void test_dir_errors(void)
{
	fails("BasePath=/b\nDir=/x Type=bind Size=1G\n", NULL,
	      "t.conf:2: Dir=/x: Size is only for Type=tmpfs");
	fails("BasePath=/b\nDir=/x Type=tmpfs Source=/s/%j\n", NULL,
	      "t.conf:2: Dir=/x: Source is only for Type=bind");
	fails("BasePath=/b\nDir=/x Size=1G Source=/s/%j\n", NULL,
	      "t.conf:2: Dir=/x: Size (a tmpfs) and Source (a bind) exclude "
	      "each other");
	fails("BasePath=/b\nDir=/x Options=noexec,exec\n", NULL,
	      "t.conf:2: Options: unknown option \"exec\" (use noexec, "
	      "nosuid, nodev or ro)");
	fails("BasePath=/b\nDir=/x Options=noexec,,ro\n", NULL,
	      "t.conf:2: Options: empty entry in \"noexec,,ro\"");
	fails("BasePath=/b\nDir=/x Options=ro\n", NULL,
	      "t.conf:2: Dir=/x: Options=ro needs Source= (an empty "
	      "directory that nobody can write to is of no use)");
	fails("BasePath=/b\nDir=/x Type=tmpfs Options=ro\n", NULL,
	      "t.conf:2: Dir=/x: Options=ro needs Source= (an empty "
	      "directory that nobody can write to is of no use)");
	fails("BasePath=/b\nDir=/x Source=local/%u\n", NULL,
	      "t.conf:2: Source: \"local/%u\" is not an absolute path");
	fails("BasePath=/b\nDir=/x Source=/%u/%j\n", NULL,
	      "t.conf:2: Source: \"/%u/%j\" needs a fixed directory before "
	      "the first %");
	fails("BasePath=/b\nDir=/x Source=/s/%x\n", NULL,
	      "t.conf:2: Source: unknown \"%x\" in \"/s/%x\" (use %j, %S, %u, %n "
	      "or %%)");
	fails("BasePath=/b\nDir=/x Source=/s/a%\n", NULL,
	      "t.conf:2: Source: \"/s/a%\" ends with a lone %");
	fails("BasePath=/b\nDir=/x Source=/tmp/%u\n", NULL,
	      "t.conf:2: Source: \"/tmp/%u\" is in /tmp, which every user "
	      "can write to");
	fails("BasePath=/b\nDir=/x Source=/var/tmp/s/%j\n", NULL,
	      "t.conf:2: Source: \"/var/tmp/s/%j\" is in /var/tmp, which "
	      "every user can write to");
	fails("BasePath=/b\nDir=/x Source=/dev/shm\n", NULL,
	      "t.conf:2: Source: \"/dev/shm\" is in /dev/shm, which every "
	      "user can write to");
	fails("BasePath=/b\nDir=/x Source=/s/../%j\n", NULL,
	      "t.conf:2: Source: \"/s/../%j\" has a \".\" or \"..\" "
	      "component");
	fails("BasePath=/b\nDir=/x Source=/x/%j\n", NULL,
	      "t.conf:2: Dir=/x: Source \"/x/%j\" is in the private "
	      "directory itself");
	fails("BasePath=/b Dirs=/tmp,/scratch\nDir=/x Source=/scratch/%u\n",
	      NULL, "t.conf:2: Dir=/x: Source \"/scratch/%u\" is in /scratch, "
	      "a private directory");
	fails("BasePath=/b\nDir=/x Source=/b/%u\n", NULL,
	      "t.conf:2: Dir=/x: Source \"/b/%u\" and BasePath \"/b\" "
	      "overlap");
	fails("BasePath=/b/c\nDir=/x Source=/b\n", NULL,
	      "t.conf:2: Dir=/x: Source \"/b\" and BasePath \"/b/c\" "
	      "overlap");
	fails("BasePath=/b\nDir=/x Size=0\n", NULL,
	      "t.conf:2: Size: a size of 0 is not allowed (leave Size out "
	      "for tmpfs's default)");
	fails("BasePath=/b\nDir=/x Size=lots\n", NULL,
	      "t.conf:2: Size: invalid size \"lots\"");
	fails("BasePath=/b\nDir=/x Size=0%\n", NULL,
	      "t.conf:2: Size: invalid share \"0%\" (1% to 100% of the job's "
	      "memory on the node)");
	fails("BasePath=/b\nDir=/x Type=overlay\n", NULL,
	      "t.conf:2: Type: invalid type \"overlay\" (use bind or tmpfs)");
	fails("BasePath=/b\nDir=/x\nDir=/x Options=noexec\n", NULL,
	      "t.conf:3: Dir=/x is declared twice (first on line 2)");
	fails("BasePath=/b\nNodeName=n1 Dir=/x\nNodeName=N1 Dir=/x\n", "n2",
	      "t.conf:3: Dir=/x is declared twice for NodeName=N1 (first on "
	      "line 2)");
	fails("BasePath=/b\nDir=/x Dir=/y\n", NULL,
	      "t.conf:2: duplicate key \"Dir\"");
	fails("BasePath=/b\nType=tmpfs Size=1G\n", NULL,
	      "t.conf:2: Type needs Dir= on its line");
	fails("BasePath=/b Dir=/x\n", NULL,
	      "t.conf:1: Dir: Dir settings take a line of their own "
	      "(NodeName= may start it)");
	fails("Dir=/x BasePath=/b\n", NULL,
	      "t.conf:1: BasePath cannot be on a Dir line");
	fails("BasePath=/b\nDir=x\n", NULL,
	      "t.conf:2: Dir: \"x\" is not an absolute path");
	fails("BasePath=/b\nDir=/x/\n", NULL,
	      "t.conf:2: Dir: \"/x/\" ends with a slash");
	fails("BasePath=/b\nDir=/.ns-sources\n", NULL,
	      "t.conf:2: Dir: \"/.ns-sources\" cannot be a private directory: "
	      "its backing directory name \".ns-sources\" is reserved "
	      "(.ns-sources is the list of Source directories)");
	fails("BasePath=/b\nDir=/.ns-tmpfs\n", NULL,
	      "t.conf:2: Dir: \"/.ns-tmpfs\" cannot be a private directory: "
	      "its backing directory name \".ns-tmpfs\" is reserved "
	      "(.ns-tmpfs is the list of tmpfs mounts)");
	fails("BasePath=/b Dirs=/var/tmp\nDir=/var_tmp\n", NULL,
	      "t.conf:2: Dir: \"/var/tmp\" and \"/var_tmp\" would share the "
	      "backing directory \"var_tmp\"");
	fails("BasePath=/b TmpSize=1G\nDir=/tmp Type=bind\n", NULL,
	      "t.conf:2: Dir=/tmp: a bind mount, but TmpSize= (line 1) asks "
	      "for a tmpfs");
	fails("BasePath=/b\nShmSize=1G\nDir=/dev/shm Source=/s/%j\n", NULL,
	      "t.conf:3: Dir=/dev/shm: a bind mount, but ShmSize= (line 2) "
	      "asks for a tmpfs");
	fails("BasePath=/s/x\nDir=/s\n", NULL,
	      "t.conf:1: BasePath: \"/s/x\" is in \"/s\", a private directory "
	      "of Dir (line 2)");
	/* A bad line for another node fails every node. */
	fails("BasePath=/b\nNodeName=other Dir=/x Options=suid\n", "n1",
	      "t.conf:2: Options: unknown option \"suid\" (use noexec, "
	      "nosuid, nodev or ro)");
	{
		char text[2048] = "BasePath=/b Dirs=/tmp\n";

		for (int i = 0; i < NSCONF_MAX_DIRS; i++)
			snprintf(text + strlen(text), sizeof(text) - strlen(text),
				 "Dir=/d%d\n", i);
		fails(text, NULL, "t.conf:17: Dir=/d15: more than 16 private "
		      "directories");
	}
}

/*
 * The most specific setting wins, for every part of a private directory
 * (issue 30): a NodeName line's shorthand over a global Dir line, a node's
 * Dir line over a global shorthand, a node's Dirs over the global Dir
 * lines' additions; on lines of one kind a disagreement is an error.
 */
/*
 * ShmSize=N% (and TmpSize, Dir Size=): a share of the job's memory on the
 * node, resolved with the same precedence as a size, made bytes per job
 * by nsconf_dir_tmpfs_size().
 */
/* Dir=/home/%u/scratch: a mount point per user or job, Source-like. */
static void test_point_template(void)
{
	const struct nsconf_dir *d;
	struct nsconf *c;
	char buf[PATH_MAX];
	int fixed, job;

	c = parse("BasePath=/b\nDir=/home/%u/scratch\nDir=/scratch/%j "
		  "Size=1G\nDirs=/tmp,/dev/shm,/data/%u/%S\n", NULL);
	if (!ok(c != NULL, "Dir=/home/%%u/scratch, /scratch/%%j, %%S parse"))
		return;
	ok((d = dir_of(c, "/home/%u/scratch")) && d->type == NSCONF_DIR_BIND &&
	   !d->source, "  a bind of a backing directory");
	ok((d = dir_of(c, "/scratch/%j")) && d->type == NSCONF_DIR_TMPFS,
	   "  or a tmpfs");
	ok(dir_of(c, "/data/%u/%S") != NULL, "  in Dirs too");
	ok(nsconf_backing_name("/home/%u/scratch", buf, sizeof(buf)) == 0 &&
	   !strcmp(buf, "home_%u_scratch"), "  its backing name: %s", buf);
	nsconf_source_depths("/home/%u/scratch", &fixed, &job);
	ok(fixed == 1 && job == 0, "  fixed part /home, nothing per job");
	nsconf_source_depths("/scratch/%j", &fixed, &job);
	ok(fixed == 1 && job == 2, "  /scratch/%%j goes with the job");
	ok(nsconf_source_expand("/home/%u/scratch", 7, 0, "alice", "n1", buf,
				sizeof(buf)) == 0 &&
	   !strcmp(buf, "/home/alice/scratch"), "  expands to %s", buf);
	nsconf_free(c);
}

/* KeepPaths: node directories kept in the private directory holding each. */
static void test_keep_paths(void)
{
	struct nsconf *c;

	c = parse("BasePath=/b\nKeepPaths=/tmp/nvidia-mps,/tmp/.X11-unix\n",
		  NULL);
	ok(c && c->keep_paths && !strcmp(c->keep_paths[0], "/tmp/nvidia-mps")
	   && !strcmp(c->keep_paths[1], "/tmp/.X11-unix") &&
	   !c->keep_paths[2] && c->lines.keep_paths == 2,
	   "KeepPaths: two, from line 2");
	nsconf_free(c);
	c = parse("BasePath=/b\nKeepPaths=/tmp/nvidia-mps\n"
		  "NodeName=n1 KeepPaths=none\n", "n1");
	ok(c && !c->keep_paths && c->lines.keep_paths == 3,
	   "a node's KeepPaths=none beats the global line");
	nsconf_free(c);
	c = parse("NodeName=n1 KeepPaths=/dev/shm/x\nBasePath=/b\n"
		  "KeepPaths=/tmp/nvidia-mps\n", "n1");
	ok(c && c->keep_paths && !strcmp(c->keep_paths[0], "/dev/shm/x") &&
	   !c->keep_paths[1], "  and a node's list the global one");
	nsconf_free(c);
	c = parse("BasePath=/b\n", NULL);
	ok(c && !c->keep_paths, "none by default");
	nsconf_free(c);
	fails("BasePath=/b\nKeepPaths=/opt/x\n", NULL,
	      "t.conf:2: KeepPaths: \"/opt/x\" is in no private directory (a "
	      "node path the job sees anyway)");
	fails("BasePath=/b\nKeepPaths=/tmp\n", NULL,
	      "t.conf:2: KeepPaths: \"/tmp\" is in no private directory (a "
	      "node path the job sees anyway)");
	fails("BasePath=/b\nDir=/scratch Source=/s\nKeepPaths=/scratch/x\n",
	      NULL, "t.conf:3: KeepPaths: \"/scratch/x\" is in /scratch, "
	      "bound from its Source");
	fails("BasePath=/b\nKeepPaths=/tmp/a,/tmp/a\n", NULL,
	      "t.conf:2: KeepPaths: \"/tmp/a\" is listed twice");
	fails("BasePath=/b\nKeepPaths=/tmp/%u\n", NULL,
	      "t.conf:2: KeepPaths: \"/tmp/%u\" has a %: a node path is "
	      "kept as it is");
	fails("BasePath=/b\nKeepPaths=/tmp/a,,/tmp/b\n", NULL,
	      "t.conf:2: KeepPaths: empty entry in \"/tmp/a,,/tmp/b\"");
	fails("BasePath=/b\nKeepPaths=/tmp/a,\n", NULL,
	      "t.conf:2: KeepPaths: empty entry in \"/tmp/a,\"");
	{
		/* 16 entries are the most; the 17th is refused by count. */
		char text[512] = "BasePath=/b\nKeepPaths=/tmp/k0";
		char msg[512];
		size_t len = strlen(text);

		for (int i = 1; i <= NSCONF_MAX_KEEP; i++)
			len += (size_t)snprintf(text + len, sizeof(text) - len,
						",/tmp/k%d", i);
		snprintf(msg, sizeof(msg), "t.conf:2: KeepPaths: more than %d "
			 "entries in \"%s\"", NSCONF_MAX_KEEP,
			 strchr(text, '\n') + 1 + strlen("KeepPaths="));
		snprintf(text + len, sizeof(text) - len, "\n");
		fails(text, NULL, msg);
	}
	fails("BasePath=none\nKeepPaths=/tmp/a\n", NULL,
	      "t.conf:2: KeepPaths: BasePath is none (line 1): the job has no "
	      "private directories");
}

static void test_size_percent(void)
{
	static const char *const bad[] = {
		"0%", "101%", "%", "50%%", "-5%", "5 %", "1.5%", "50%K", "x%",
	};
	const struct nsconf_dir *d;
	struct nsconf *c;
	char text[128], msg[256];

	c = parse("BasePath=/b\nShmSize=50%\n", NULL);
	if (ok(c != NULL, "ShmSize=50%%") && (d = dir_of(c, "/dev/shm"))) {
		is_int(c->shm_percent, 50, "  ShmSize's share");
		is_int(c->shm_size, 0, "  no bytes");
		is_int(d->type, NSCONF_DIR_TMPFS, "  /dev/shm a tmpfs");
		is_int(d->size_percent, 50, "  of 50%%");
		is_int(d->size, 0, "  no fixed size");
		is_int(d->shorthand_line, 2, "  from line 2");
		ok(nsconf_uses_job_memory(c), "  sized from the job's memory");
		is_int(nsconf_dir_tmpfs_size(d, 200 * MiB, 64 * GiB), 100 * MiB,
		       "  --mem=200M gives 100M");
		is_int(nsconf_dir_tmpfs_size(d, 0, 64 * GiB), 32 * GiB,
		       "  no job limit: half the node's");
		is_int(nsconf_dir_tmpfs_size(d, 0, 0), 0,
		       "  no memory known: tmpfs's default");
		is_int(nsconf_dir_tmpfs_size(d, 1000, 0), 4096,
		       "  at least a page");
		is_int(nsconf_dir_tmpfs_size(d, UINT64_MAX, 0),
		       UINT64_MAX / 2, "  no overflow");
	}
	nsconf_free(c);
	c = parse("BasePath=/b\nShmSize=1G\n", NULL);
	ok(c && !nsconf_uses_job_memory(c) && (d = dir_of(c, "/dev/shm")) &&
	   nsconf_dir_tmpfs_size(d, 200 * MiB, 0) == GiB,
	   "a fixed ShmSize keeps its bytes, whatever the job's memory");
	nsconf_free(c);
	c = parse("BasePath=/b\nShmSize=1G\nNodeName=n1 ShmSize=25%\n", "n1");
	ok(c && (d = dir_of(c, "/dev/shm")) && d->size_percent == 25 &&
	   !d->size && nsconf_dir_tmpfs_size(d, 400 * MiB, 0) == 100 * MiB,
	   "a node's ShmSize=25%% beats a global 1G");
	nsconf_free(c);
	c = parse("BasePath=/b\nShmSize=25%\nNodeName=n1 ShmSize=1G\n", "n1");
	ok(c && (d = dir_of(c, "/dev/shm")) && !d->size_percent &&
	   d->size == GiB && !nsconf_uses_job_memory(c),
	   "a node's ShmSize=1G beats a global 25%%");
	nsconf_free(c);
	c = parse("BasePath=/b\nShmSize=8G\n"
		  "NodeName=n1 Dir=/dev/shm Size=10%\n", "n1");
	ok(c && (d = dir_of(c, "/dev/shm")) && d->size_percent == 10 &&
	   !d->size && !d->shorthand_line,
	   "a node's Dir Size=10%% beats a global ShmSize");
	nsconf_free(c);
	c = parse("BasePath=/b\nDir=/scratch Size=5%\n", NULL);
	ok(c && (d = dir_of(c, "/scratch")) && d->type == NSCONF_DIR_TMPFS &&
	   d->size_percent == 5, "Dir Size=5%% makes a tmpfs");
	nsconf_free(c);
	c = parse("BasePath=/b\nTmpSize=50%\n", NULL);
	ok(c && (d = dir_of(c, "/tmp")) && d->type == NSCONF_DIR_TMPFS &&
	   d->size_percent == 50 && c->tmp_percent == 50, "TmpSize=50%%");
	nsconf_free(c);
	fails("BasePath=/b\nShmSize=50%\nDir=/dev/shm Size=1G\n", NULL,
	      "t.conf:3: Dir=/dev/shm: Size= and ShmSize= (line 2) both set "
	      "its size; set one of them");
	fails("BasePath=/b\nDir=/x Type=bind Size=5%\n", NULL,
	      "t.conf:2: Dir=/x: Size is only for Type=tmpfs");
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		snprintf(text, sizeof(text), "BasePath=/b\nShmSize=\"%s\"",
			 bad[i]);
		snprintf(msg, sizeof(msg), "t.conf:2: ShmSize: invalid share "
			 "\"%s\" (1%% to 100%% of the job's memory on the "
			 "node)", bad[i]);
		fails(text, NULL, msg);
	}
}

static void test_precedence(void)
{
	const struct nsconf_dir *d;
	struct nsconf *c;

	c = parse("BasePath=/b\n"
		  "Dir=/dev/shm Type=tmpfs Size=64M Options=noexec\n"
		  "NodeName=gpu1 ShmSize=64G\n", "gpu1");
	if (ok(c != NULL, "node ShmSize, global Dir=/dev/shm Size=") &&
	    (d = dir_of(c, "/dev/shm"))) {
		is_int(d->size, 64 * GiB, "  the node's ShmSize wins");
		is_int(d->shorthand_line, 3, "  from line 3");
		is_int(d->options, NSCONF_OPT_ALWAYS | NSCONF_OPT_NOEXEC,
		       "  the global line's Options still apply");
	}
	nsconf_free(c);
	c = parse("BasePath=/b\n"
		  "Dir=/dev/shm Type=tmpfs Size=64M Options=noexec\n"
		  "NodeName=gpu1 ShmSize=64G\n", "cpu1");
	ok(c && (d = dir_of(c, "/dev/shm")) && d->size == 64 * MiB &&
	   !d->shorthand_line, "  other nodes keep the Dir line's Size");
	nsconf_free(c);
	c = parse("NodeName=gpu1 ShmSize=64G\nBasePath=/b\n"
		  "Dir=/dev/shm Size=64M\n", "gpu1");
	ok(c && (d = dir_of(c, "/dev/shm")) && d->size == 64 * GiB,
	   "  whatever the order of the lines");
	nsconf_free(c);
	c = parse("BasePath=/b\nShmSize=8G\n"
		  "NodeName=gpu1 Dir=/dev/shm Size=1G\n", "gpu1");
	ok(c && (d = dir_of(c, "/dev/shm")) && d->size == GiB &&
	   !d->shorthand_line, "a node's Dir Size= beats a global ShmSize");
	nsconf_free(c);

	c = parse("BasePath=/b TmpSize=1G\nNodeName=n1 Dir=/tmp Type=bind\n",
		  "n1");
	if (ok(c != NULL, "global TmpSize, node Dir=/tmp Type=bind (was an "
	       "error)") && (d = dir_of(c, "/tmp"))) {
		is_int(d->type, NSCONF_DIR_BIND, "  the node's bind wins");
		is_int(d->size, 0, "  no size");
		is_int(d->shorthand_line, 0, "  TmpSize played no part");
	}
	nsconf_free(c);
	c = parse("BasePath=/b TmpSize=1G\nNodeName=n1 Dir=/tmp Type=bind\n",
		  "n2");
	ok(c && (d = dir_of(c, "/tmp")) && d->type == NSCONF_DIR_TMPFS &&
	   d->size == GiB, "  other nodes keep TmpSize's tmpfs");
	nsconf_free(c);
	c = parse("BasePath=/b\nDir=/tmp Source=/local/%j Options=noexec\n"
		  "NodeName=n1 TmpSize=2G\n", "n1");
	if (ok(c != NULL, "node TmpSize, global Dir=/tmp Source= (was an "
	       "error)") && (d = dir_of(c, "/tmp"))) {
		is_int(d->type, NSCONF_DIR_TMPFS, "  a tmpfs");
		is_int(d->size, 2 * GiB, "  of TmpSize");
		is_str(d->source, NULL, "  without the Source");
		ok(d->options & NSCONF_OPT_NOEXEC, "  with the Options");
	}
	nsconf_free(c);
	c = parse("BasePath=/b TmpSize=3G\nNodeName=n1 Dir=/tmp Type=tmpfs "
		  "Options=noexec\n", "n1");
	ok(c && (d = dir_of(c, "/tmp")) && d->type == NSCONF_DIR_TMPFS &&
	   d->size == 3 * GiB && d->shorthand_line == 1,
	   "a node's Dir line without Size: the global TmpSize's size");
	nsconf_free(c);
	c = parse("BasePath=/b\nTmpSize=1G\nNodeName=n1 Dir=/tmp Type=bind "
		  "\nNodeName=n1 TmpDiskLimit=1G\n", "n1");
	ok(c && c->tmp_disk_limit == GiB, "TmpDiskLimit with the node's bind "
	   "/tmp over a global TmpSize (was an error)");
	nsconf_free(c);

	fails("BasePath=/b ShmSize=8G\nDir=/dev/shm Size=64M\n", NULL,
	      "t.conf:2: Dir=/dev/shm: Size= and ShmSize= (line 1) both set "
	      "its size; set one of them");
	fails("BasePath=/b\nNodeName=n1 Dir=/tmp Size=1G\n"
	      "NodeName=n[1-2] TmpSize=2G\n", "n1",
	      "t.conf:2: Dir=/tmp: Size= and TmpSize= (line 3) both set its "
	      "size; set one of them");
	fails("BasePath=/b\nNodeName=n1 TmpSize=1G\nNodeName=n1 Dir=/tmp "
	      "Type=bind\n", "n1",
	      "t.conf:3: Dir=/tmp: a bind mount, but TmpSize= (line 2) asks "
	      "for a tmpfs");
	fails("BasePath=/b\nDir=/tmp Source=/srv/ro Options=ro\n"
	      "NodeName=n1 TmpSize=1G\n", "n1",
	      "t.conf:2: Dir=/tmp: Options=ro needs Source=, but TmpSize= "
	      "(line 3), more specific, makes it a tmpfs");
}

/* A node's Dirs lists the node's private directories. */
static void test_precedence_dirs(void)
{
	static const char text[] =
		"BasePath=/b\n"					/* 1 */
		"Dir=/scratch Source=/local/%u/%j\n"		/* 2 */
		"Dir=/tmp Options=noexec\n"			/* 3 */
		"NodeName=n1 Dirs=/tmp,/dev/shm\n"		/* 4 */
		"NodeName=n2 Dirs=/tmp,/dev/shm,/scratch\n"	/* 5 */
		"NodeName=n3 Dir=/fast Type=tmpfs\n";		/* 6 */
	const struct nsconf_dir *d;
	struct nsconf *c;

	c = parse(text, "n1");
	if (ok(c != NULL, "a node's Dirs, global Dir lines")) {
		is_int(ndirs(c), 2, "  a global Dir line adds nothing to it "
		       "(it added /scratch)");
		ok((d = dir_of(c, "/tmp")) && (d->options & NSCONF_OPT_NOEXEC)
		   && d->line == 3, "  but refines what it lists");
		is_int(c->lines.dirs, 4, "  Dirs from line 4");
	}
	nsconf_free(c);
	c = parse(text, "n2");
	ok(c && ndirs(c) == 3 && (d = dir_of(c, "/scratch")) && d->source &&
	   d->line == 2, "a node's Dirs that lists /scratch gets its global "
	   "Dir line");
	nsconf_free(c);
	c = parse(text, "n3");
	ok(c && ndirs(c) == 4 && !strcmp(c->dirs[2], "/scratch") &&
	   !strcmp(c->dirs[3], "/fast") && c->lines.dirs == 0,
	   "global Dirs (the default): global, then the node's Dir lines add");
	nsconf_free(c);
}

/*
 * Traps refused at load (issue 30): NodeName=DEFAULT, which in slurm.conf
 * sets defaults but here named a node called DEFAULT; a private directory
 * that hides a system directory of the node.
 */
static void test_load_traps(void)
{
	static const char *const system[] = {
		"/etc", "/usr", "/var", "/bin", "/sbin", "/boot", "/dev",
		"/run", "/lib", "/lib64", "/lib32", "/libx32",
	};
	static const char *const kernel[] = {
		"/proc", "/proc/sys", "/sys", "/sys/fs/cgroup",
	};
	char text[256], msg[512];
	struct nsconf *c;

	fails("BasePath=/b\nNodeName=DEFAULT ShmSize=1G\n", "n1",
	      "t.conf:2: NodeName=DEFAULT: DEFAULT names no node here: the "
	      "lines without NodeName= are the defaults of every node");
	fails("BasePath=/b\nNodeName=n[1-2],default Dir=/x\n", "n1",
	      "t.conf:2: NodeName=n[1-2],default: DEFAULT names no node "
	      "here: the lines without NodeName= are the defaults of every "
	      "node");
	c = parse("BasePath=/b\nNodeName=defaults,n1default ShmSize=1G\n",
		  "n1");
	ok(c != NULL, "names that only contain default are fine");
	nsconf_free(c);
	for (size_t i = 0; i < sizeof(system) / sizeof(*system); i++) {
		snprintf(text, sizeof(text), "BasePath=/b\nDirs=/tmp,%s\n",
			 system[i]);
		snprintf(msg, sizeof(msg), "t.conf:2: Dirs: \"%s\" is a system "
			 "directory: the job's empty private %s would hide the "
			 "node's", system[i], system[i]);
		fails(text, NULL, msg);
	}
	for (size_t i = 0; i < sizeof(kernel) / sizeof(*kernel); i++) {
		snprintf(text, sizeof(text), "BasePath=/b\nNodeName=other "
			 "Dir=%s\n", kernel[i]);
		snprintf(msg, sizeof(msg), "t.conf:2: Dir: \"%s\" is in %s, "
			 "the kernel's: a private directory would hide what "
			 "the kernel shows there", kernel[i],
			 kernel[i][1] == 'p' ? "/proc" : "/sys");
		fails(text, "n1", msg);
	}
	fails("BasePath=/b\nDir=//etc\n", NULL,
	      "t.conf:2: Dir: \"//etc\" has a doubled slash");
	c = parse("BasePath=/b Dirs=/tmp,/var/tmp,/dev/shm,/etc/x,/usr/local,"
		  "/library/x,/run/user,/systems\n", NULL);
	ok(c != NULL, "below a system directory (not /proc, /sys) is fine");
	nsconf_free(c);
}

/* Each key remembers the line it came from; 0 for a default. */
static void test_provenance(void)
{
	struct nsconf *c = parse("BasePath=/b\n"			/* 1 */
				 "NodeName=n1 AutoBasePath=yes\n"	/* 2 */
				 "Dirs=/tmp,/dev/shm\n"			/* 3 */
				 "InitScript=/x Shared=yes\n"		/* 4 */
				 "NodeName=n1 ShmSize=1G TmpSize=2G\n"	/* 5 */
				 "ShmSize=3G PidNamespace=yes\n"	/* 6 */
				 "NamespacePool=2 DevicePolicy=closed\n" /* 7 */
				 "NodeName=n1 BasePath=/c\n",		/* 8 */
				 "n1");

	if (!ok(c != NULL, "a file for provenance"))
		return;
	is_int(c->lines.base_path, 8, "BasePath: the node's line 8");
	is_int(c->lines.auto_base_path, 2, "AutoBasePath: line 2");
	is_int(c->lines.dirs, 3, "Dirs: line 3");
	is_int(c->lines.init_script, 4, "InitScript: line 4");
	is_int(c->lines.shared, 4, "Shared: line 4");
	is_int(c->lines.shm_size, 5, "ShmSize: the node's line 5, not 6");
	is_int(c->lines.tmp_size, 5, "TmpSize: line 5");
	is_int(c->lines.pid_namespace, 6, "PidNamespace: line 6");
	is_int(c->lines.namespace_pool, 7, "NamespacePool: line 7");
	is_int(c->lines.device_policy, 7, "DevicePolicy: line 7");
	is_int(c->lines.tmp_disk_limit, 0, "TmpDiskLimit: default");
	is_int(c->lines.tmp_inode_limit, 0, "TmpInodeLimit: default");
	ok(c->scope_count == 3 && !strcmp(c->scopes[1].hostlist, "n1") &&
	   c->scopes[1].line == 5, "every NodeName value, with its line");
	nsconf_free(c);
}

static void test_source_expand(void)
{
	char buf[256];
	int fixed, job;

	ok(nsconf_source_expand("/l/%n/%u/%j", 42, 0, "alice", "gpu01", buf,
				sizeof(buf)) == 0, "expand");
	is_str(buf, "/l/gpu01/alice/42", "  %%n, %%u, %%j");
	ok(nsconf_source_expand("/l/100%%/j%j.d", 7, 0, NULL, NULL, buf,
				sizeof(buf)) == 0, "  %%%% and %%j in a name");
	is_str(buf, "/l/100%/j7.d", "  ...");
	ok(nsconf_source_expand("/l/%u", 1, 0, "../x", "n", buf, sizeof(buf)) < 0
	   && errno == EINVAL, "a user name with a slash is refused");
	ok(nsconf_source_expand("/l/%u", 1, 0, "..", "n", buf, sizeof(buf)) < 0
	   && errno == EINVAL, "  \"..\" too");
	ok(nsconf_source_expand("/l/%u", 1, 0, NULL, "n", buf, sizeof(buf)) < 0
	   && errno == EINVAL, "  no user name with %%u fails");
	ok(nsconf_source_expand("/l/%n", 1, 0, "u", "", buf, sizeof(buf)) < 0
	   && errno == EINVAL, "  an empty node name too");
	ok(nsconf_source_expand("/l/%u", 1, 0, "a\nb", "n", buf, sizeof(buf)) < 0
	   && errno == EINVAL, "  a control character too");
	ok(nsconf_source_expand("/l/%j", 123456, 0, "u", "n", buf, 6) < 0 &&
	   errno == ENAMETOOLONG, "too long for the buffer");
	nsconf_source_depths("/l/%n/%u/%j", &fixed, &job);
	ok(fixed == 1 && job == 4, "depths of /l/%%n/%%u/%%j: 1 and 4");
	nsconf_source_depths("/a/b/%j/%u", &fixed, &job);
	ok(fixed == 2 && job == 3, "depths of /a/b/%%j/%%u: 2 and 3");
	nsconf_source_depths("/a/b/%u", &fixed, &job);
	ok(fixed == 2 && job == 0, "depths of /a/b/%%u: 2 and none");
	nsconf_source_depths("/a/%%j", &fixed, &job);
	ok(fixed == 1 && job == 0, "%%%%j is no job id");
	nsconf_source_depths("/srv/data", &fixed, &job);
	ok(fixed == 2 && job == 0, "a path without %% is all fixed");
	ok(nsconf_source_expand("/l/%u/%S", 42, UINT64_C(0xe9d67ad8f96d9400),
				"alice", "n", buf, sizeof(buf)) == 0,
	   "%%S expands (26.05)");
	is_str(buf, "/l/alice/sEKNKTV3WPV500", "  to the job's SLUID");
	ok(nsconf_source_expand("/l/%S", 42, 0, "alice", "n", buf,
				sizeof(buf)) < 0 && errno == EINVAL,
	   "  no SLUID given (before 25.11) with %%S fails");
	nsconf_source_depths("/a/b/%S/%u", &fixed, &job);
	ok(fixed == 2 && job == 3, "%%S is the job's own directory as %%j is");
}

static char *write_temp(const char *text, size_t len)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/test_nsconf.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len) {
		printf("Bail out! cannot write %s\n", path);
		exit(1);
	}
	close(fd);
	return path;
}

static void test_load(void)
{
	char msg[600], *path;
	struct nsconf *c;

	path = write_temp(override_text, strlen(override_text));
	c = nsconf_load_host(path, "gpu03", NULL, fresh());
	if (ok(c != NULL, "nsconf_load_host reads a file")) {
		is_int(c->shm_size, 8 * GiB, "  and applies overrides");
		is_str(c->file, path, "  its file");
		is_str(rep.msg, "", "  no message");
	}
	nsconf_free(c);
	unlink(path);

	path = write_temp("BasePath=/b\nShmSize=12Q\n", 24);
	errno = 0;
	c = nsconf_load_host(path, "n1", NULL, fresh());
	snprintf(msg, sizeof(msg), "%s:2: ShmSize: invalid size \"12Q\"", path);
	ok(c == NULL && errno == EINVAL, "a bad file fails with EINVAL");
	is_str(rep.msg, msg, "  message names the path and line");
	unlink(path);

	path = write_temp("BasePath=/b\n\0Shared=yes\n", 24);
	c = nsconf_load_host(path, "n1", NULL, fresh());
	snprintf(msg, sizeof(msg), "%s: contains a NUL byte", path);
	ok(c == NULL && errno == EINVAL, "a NUL byte is an error");
	is_str(rep.msg, msg, "  message");
	unlink(path);

	errno = 0;
	c = nsconf_load_host("/nonexistent/namespace.conf", "n1", NULL,
			     fresh());
	ok(c == NULL && errno == ENOENT, "a missing file fails with ENOENT");
	is_str(rep.msg, "/nonexistent/namespace.conf: cannot open: No such file "
	       "or directory", "  with a clear message");

	c = nsconf_load_host("/tmp", "n1", NULL, fresh());
	ok(c == NULL && errno == EINVAL, "a directory is refused");
	is_str(rep.msg, "/tmp: not a regular file", "  message");

	errno = 0;
	ok(nsconf_load_host(NULL, "n1", NULL, fresh()) == NULL &&
	   errno == EINVAL,
	   "a NULL path is refused");
}

/*
 * nsconf_load_text: the text slurmd read, parsed in slurmstepd as the file
 * would be, with the file's name in every message; conf->text is exactly
 * what was parsed (what slurmd sends on).
 */
static void test_load_text(void)
{
	const char *name = "/etc/slurm/job_container.conf";
	struct nsconf *c, *f;
	char *path, *big;

	path = write_temp(override_text, strlen(override_text));
	f = nsconf_load_host(path, "gpu03", NULL, fresh());
	unlink(path);
	if (ok(f != NULL, "nsconf_load_host reads a file"))
		is_str(f->text, override_text, "  and keeps its exact text");
	c = nsconf_load_text(override_text, name, "gpu03", NULL, fresh());
	if (ok(c != NULL, "nsconf_load_text parses the same text") && f) {
		is_int(c->shm_size, f->shm_size, "  to the same settings");
		is_int(c->lines.shm_size, f->lines.shm_size, "  from the same line");
		is_str(c->file, name, "  named by the path given");
		is_str(c->text, override_text, "  keeping the text");
		ok(c->text != override_text, "  as its own copy");
	}
	nsconf_free(c);
	nsconf_free(f);

	errno = 0;
	c = nsconf_load_text("BasePath=/b\nShmSize=12Q\n", name, "n1", NULL,
			     fresh());
	ok(c == NULL && errno == EINVAL, "a bad text fails with EINVAL");
	is_str(rep.msg, "/etc/slurm/job_container.conf:2: ShmSize: invalid "
	       "size \"12Q\"", "  naming the original file and line");

	c = nsconf_load_text("BasePath=/b\nDirs=/tmp,/etc\n", name, "n1", NULL,
			     fresh());
	ok(c == NULL, "the same checks as a file's: a system directory");

	big = malloc(NSCONF_MAX_SIZE + 2);
	if (!big)
		exit(1);
	memset(big, '#', NSCONF_MAX_SIZE + 1);
	big[NSCONF_MAX_SIZE + 1] = '\0';
	errno = 0;
	c = nsconf_load_text(big, name, "n1", NULL, fresh());
	ok(c == NULL && errno == EFBIG, "a text over NSCONF_MAX_SIZE is refused");
	like(rep.msg, "job_container.conf: larger than", "  saying so: %s",
	     rep.msg);
	free(big);

	errno = 0;
	ok(nsconf_load_text(NULL, name, "n1", NULL, fresh()) == NULL &&
	   errno == EINVAL, "no text is refused");
	errno = 0;
	ok(nsconf_load_text("BasePath=/b\n", NULL, "n1", NULL, fresh()) == NULL &&
	   errno == EINVAL, "no path is refused");
}

/*
 * What nsconf_load_host checks on the filesystem: a Source= whose fixed part is
 * a sticky world-writable directory (a user makes another user's job
 * directory first), a private directory's mount point whose parent others
 * may write to, sticky (1777) or not (0777, 0775), or that is a link.
 * Needs root (root- and user-owned dirs).
 */
static char fs_top[] = "/var/lib/test_nsconf_fs.XXXXXX";

static const char *fs_at(const char *rel)
{
	static char buf[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", fs_top, rel);
	return buf[i];
}

/* Loads "BasePath=/b" and line 2; NULL and rep.msg when refused. */
static struct nsconf *load_line(const char *line, char **path)
{
	char text[1024];
	struct nsconf *c;

	snprintf(text, sizeof(text), "BasePath=/b\n%s\n", line);
	*path = write_temp(text, strlen(text));
	c = nsconf_load_host(*path, "n1", NULL, fresh());
	unlink(*path);
	return c;
}

static void test_load_paths(void)
{
	char line[512], want[1024], *path;
	struct nsconf *c;

	if (!tap_root() || !mkdtemp(fs_top)) {
		tap_skip("filesystem checks need root and /var/lib");
		return;
	}
	chmod(fs_top, 0755);
	mkdir(fs_at("shared"), 01777);
	chmod(fs_at("shared"), 01777);
	mkdir(fs_at("shared/mnt"), 0755);
	mkdir(fs_at("open"), 0777);
	chmod(fs_at("open"), 0777);
	mkdir(fs_at("open/mnt"), 0755);
	mkdir(fs_at("priv"), 0755);
	mkdir(fs_at("priv/mnt"), 0755);
	mkdir(fs_at("src"), 0755);

	snprintf(line, sizeof(line), "Dir=%s Source=%s/%%u/%%j",
		 fs_at("priv/mnt"), fs_at("src"));
	c = load_line(line, &path);
	ok(c != NULL, "a root-owned mount point in a root-only directory and "
	   "a root-only Source pass: %s", rep.msg);
	nsconf_free(c);
	c = load_line("Dirs=/tmp,/dev/shm", &path);
	ok(c != NULL, "/tmp (1777) as a mount point passes: its parent is / "
	   "(%s)", rep.msg);
	nsconf_free(c);

	/*
	 * Removing a mount point's directory (systemd-tmpfiles ages
	 * /var/tmp out) detaches the mount from every job; in a shared
	 * parent any user can then take the name and get the jobs' writes.
	 */
	snprintf(line, sizeof(line), "Dir=%s", fs_at("shared/mnt"));
	c = load_line(line, &path);
	ok(c == NULL && errno == EPERM, "a root-owned mount point in a sticky "
	   "(1777) directory is refused");
	snprintf(want, sizeof(want), "%s:2: private directory %s: its mount "
		 "point cannot be trusted: %s is writable by others (mode "
		 "1777): sticky or not, ", path, fs_at("shared/mnt"),
		 fs_at("shared"));
	like(rep.msg, want, "  with file:line, naming the parent: %s",
	     rep.msg);
	like(rep.msg, "(use a mount point whose parent directories are "
	     "root's and only root may write to)", "  and the fix");
	snprintf(line, sizeof(line), "Dir=%s", fs_at("open/mnt"));
	c = load_line(line, &path);
	ok(c == NULL && errno == EPERM, "one in a 0777 directory is refused");
	snprintf(want, sizeof(want), "its mount point cannot be trusted: %s "
		 "is writable by others (mode 0777)", fs_at("open"));
	like(rep.msg, want, "  naming the parent: %s", rep.msg);
	chmod(fs_at("open"), 0775);
	c = load_line(line, &path);
	ok(c == NULL && errno == EPERM, "one in a 0775 (group) directory too");
	like(rep.msg, "is writable by its group (mode 0775)", "  saying so: %s",
	     rep.msg);

	/* The attack: any user can make shared/<user> first. */
	snprintf(line, sizeof(line), "Dir=%s Source=%s/%%u/%%j",
		 fs_at("priv/mnt"), fs_at("shared"));
	c = load_line(line, &path);
	ok(c == NULL && errno == EPERM, "a Source whose fixed part is sticky "
	   "and world-writable is refused");
	snprintf(want, sizeof(want), "%s:2: Dir=%s: Source \"%s/%%u/%%j\": "
		 "%s belongs to uid 0 with mode 1777: root makes each job's "
		 "directory in it", path, fs_at("priv/mnt"),
		 fs_at("shared"), fs_at("shared"));
	like(rep.msg, want, "  with file:line and the directory: %s",
	     rep.msg);
	snprintf(want, sizeof(want), "BasePath=/b\n%s\n", line);
	c = nsconf_load_text(want, "/etc/slurm/job_container.conf", "n1", NULL,
			     fresh());
	ok(c == NULL && errno == EPERM, "  nsconf_load_text refuses it too: %s",
	   rep.msg);

	snprintf(line, sizeof(line), "Dirs=/tmp,%s", fs_at("shared/none"));
	c = load_line(line, &path);
	ok(c == NULL, "a missing mount point in a sticky directory is "
	   "refused (a user could make it, or a link)");
	snprintf(want, sizeof(want), "%s:2: private directory %s: its mount "
		 "point cannot be trusted: %s is writable by others (mode "
		 "1777)", path, fs_at("shared/none"), fs_at("shared"));
	like(rep.msg, want, "  with file:line: %s", rep.msg);

	ok(symlink(fs_at("src"), fs_at("priv/planted")) == 0,
	   "precondition: a link in a root-only directory");
	snprintf(line, sizeof(line), "Dir=%s", fs_at("priv/planted"));
	c = load_line(line, &path);
	ok(c == NULL, "a mount point that is a link is refused");
	snprintf(want, sizeof(want), "%s:2: private directory %s: its mount "
		 "point cannot be trusted: %s is a symbolic link", path,
		 fs_at("priv/planted"), fs_at("priv/planted"));
	like(rep.msg, want, "  saying so: %s", rep.msg);

	mkdir(fs_at("shared/mine"), 0755);
	(void)!chown(fs_at("shared/mine"), 65534, 65534);
	snprintf(line, sizeof(line), "Dir=%s", fs_at("shared/mine"));
	c = load_line(line, &path);
	ok(c == NULL, "a user's mount point in a sticky directory is refused");
	like(rep.msg, "is writable by others (mode 1777)", "  saying why: %s",
	     rep.msg);

	snprintf(want, sizeof(want), "rm -rf '%s'", fs_top);
	ok(system(want) == 0, "scratch directories removed");
}

/* The shipped example must parse (make check sets srcdir). */
static void test_example(void)
{
	const char *srcdir = getenv("srcdir");
	char path[4096];
	struct nsconf *c;

	if (!srcdir) {
		tap_skip("srcdir not set: run through make check");
		return;
	}
	snprintf(path, sizeof(path), "%s/etc/namespace.conf.example", srcdir);
	c = nsconf_load_host(path, "gpu02", NULL, fresh());
	if (!ok(c != NULL, "etc/namespace.conf.example parses"))
		diag("%s", rep.msg);
	else
		ok(c->shm_size == 64 * GiB && c->tmp_size == 100 * GiB,
		   "  and gives gpu02 its override");
	nsconf_free(c);
}

/*
 * namespace.conf(5)'s EXAMPLE must parse and mean what it says: its GPU
 * nodes get 64 GiB of /dev/shm (issue 30: the global Dir=/dev/shm line's
 * Size=64M used to win, giving them 64 MiB).
 */
static void test_man_example(void)
{
	const char *srcdir = getenv("srcdir");
	char path[4096], *text, *s, *e, *o;
	const struct nsconf_dir *d;
	struct nsconf *c;
	FILE *f;
	long n;

	if (!srcdir) {
		tap_skip("srcdir not set: run through make check");
		return;
	}
	snprintf(path, sizeof(path), "%s/doc/man/namespace.conf.5", srcdir);
	if (!(f = fopen(path, "r")) || fseek(f, 0, SEEK_END) < 0 ||
	    (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0 ||
	    !(text = calloc(1, (size_t)n + 1)) ||
	    fread(text, 1, (size_t)n, f) != (size_t)n) {
		printf("Bail out! cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	s = strstr(text, ".SH EXAMPLE\n.nf\n");
	e = s ? strstr(s, "\n.fi\n") : NULL;
	if (!ok(s && e, "the man page has an EXAMPLE")) {
		free(text);
		return;
	}
	/* roff to text: \- is a '-', \e a '\' */
	s += strlen(".SH EXAMPLE\n.nf\n");
	for (o = text; s < e; s++) {
		if (s[0] == '\\' && (s[1] == '-' || s[1] == 'e'))
			*o++ = *++s == '-' ? '-' : '\\';
		else
			*o++ = *s;
	}
	*o = '\0';
	c = parse(text, "gpu02");
	if (ok(c != NULL, "namespace.conf(5)'s EXAMPLE parses")) {
		ok((d = dir_of(c, "/dev/shm")) && d->size == 64 * GiB &&
		   (d->options & NSCONF_OPT_NOEXEC), "  a GPU node's /dev/shm "
		   "is 64 GiB, noexec");
		ok((d = dir_of(c, "/tmp")) && d->type == NSCONF_DIR_TMPFS &&
		   d->size == 100 * GiB, "  its /tmp a tmpfs of 100 GiB");
		is_int(c->allow_count, 2, "  its two DeviceAllow lines replace "
		       "the global one");
	}
	nsconf_free(c);
	c = parse(text, "cpu042");
	ok(c && (d = dir_of(c, "/dev/shm")) && d->size == 8 * GiB &&
	   c->tmp_disk_limit == 200 * GiB &&
	   !strcmp(c->device_allow, "/dev/fuse:rw"),
	   "  a CPU node: 8 GiB of /dev/shm, TmpDiskLimit, /dev/fuse");
	nsconf_free(c);
	free(text);
}

static void test_api_edges(void)
{
	struct nsconf *c;

	errno = 0;
	c = nsconf_load_text("Bogus=1", "t.conf", NULL, NULL, NULL);
	ok(c == NULL && errno == EINVAL, "no report is fine");
	/* No check of its own: a crash, or a report of ASan or valgrind,
	 * fails the program. */
	nsconf_free(NULL);
}

/* TmpDiskLimit: sizes, defaults, NodeName override, and its conflicts. */
static void test_pid_namespace(void)
{
	struct nsconf *c;

	c = parse("BasePath=/b\n", NULL);
	ok(c && !c->pid_namespace, "PidNamespace defaults to no");
	nsconf_free(c);
	c = parse("BasePath=/b\npidnamespace=YES\n", NULL);
	ok(c && c->pid_namespace, "pidnamespace=YES, any case");
	nsconf_free(c);
	c = parse("BasePath=/b PidNamespace=no\nNodeName=n[1-4] "
		  "PidNamespace=yes\n", "n3");
	ok(c && c->pid_namespace, "a NodeName line turns it on");
	nsconf_free(c);
	c = parse("BasePath=/b PidNamespace=yes\nNodeName=n1 "
		  "PidNamespace=no\n", "n1");
	ok(c && !c->pid_namespace, "or off for its nodes");
	nsconf_free(c);
	c = parse("BasePath=/b PidNamespace=yes\nNodeName=n1 "
		  "PidNamespace=no\n", "n2");
	ok(c && c->pid_namespace, "other nodes keep the global setting");
	nsconf_free(c);
	fails("BasePath=/b\nPidNamespace=sometimes\n", NULL,
	      "t.conf:2: PidNamespace: invalid boolean \"sometimes\" "
	      "(use yes or no)");
	fails("BasePath=none\nPidNamespace=yes\n", NULL,
	      "t.conf:2: PidNamespace: BasePath is none (line 1): the job's "
	      "/proc lives in its mount namespace, which BasePath=none turns "
	      "off");
	/* No private directory may cover /proc, with or without it. */
	fails("BasePath=/b Dirs=/tmp,/proc/sys\nPidNamespace=yes\n", NULL,
	      "t.conf:1: Dirs: \"/proc/sys\" is in /proc, the kernel's: a "
	      "private directory would hide what the kernel shows there");
	fails("BasePath=/b Dirs=/tmp,/.pidns\n", NULL,
	      "t.conf:1: Dirs: \"/.pidns\" cannot be a private directory: "
	      "its backing directory name \".pidns\" is reserved (.pidns is "
	      "the PID namespace pin)");
}

/* UserNamespace and UserNsScript: defaults, NodeName, conflicts. */
static void test_user_namespace(void)
{
	struct nsconf *c;

	c = parse("BasePath=/b\n", NULL);
	ok(c && !c->user_namespace && !c->user_ns_script,
	   "UserNamespace defaults to no, UserNsScript to none");
	nsconf_free(c);
	c = parse("BasePath=/b UserNamespace=no\nNodeName=n[1-4] "
		  "usernamespace=YES UserNsScript=/etc/slurm/map.sh\n", "n3");
	ok(c && c->user_namespace && c->user_ns_script &&
	   !strcmp(c->user_ns_script, "/etc/slurm/map.sh"),
	   "a NodeName line turns it on, with a script");
	is_int(c ? c->lines.user_namespace : 0, 2, "  from line 2");
	nsconf_free(c);
	c = parse("BasePath=/b UserNamespace=yes\nNodeName=n1 "
		  "UserNamespace=no\n", "n2");
	ok(c && c->user_namespace, "other nodes keep the global setting");
	nsconf_free(c);
	fails("BasePath=/b\nUserNamespace=perhaps\n", NULL,
	      "t.conf:2: UserNamespace: invalid boolean \"perhaps\" "
	      "(use yes or no)");
	fails("BasePath=none\nUserNamespace=yes\n", NULL,
	      "t.conf:2: UserNamespace: BasePath is none (line 1): the job's "
	      "user namespace is pinned under BasePath");
	fails("BasePath=/b UserNamespace=yes UserNsScript=map.sh\n", NULL,
	      "t.conf:1: UserNsScript: \"map.sh\" is not an absolute path");
	fails("BasePath=/b Dirs=/tmp,/.userns\n", NULL,
	      "t.conf:1: Dirs: \"/.userns\" cannot be a private directory: "
	      "its backing directory name \".userns\" is reserved (.userns is "
	      "the user namespace pin)");
}

static void test_namespace_pool(void)
{
	struct nsconf *c;

	c = parse("BasePath=/b\n", NULL);
	ok(c && c->namespace_pool == 0, "NamespacePool defaults to 0");
	nsconf_free(c);
	c = parse("BasePath=/b NamespacePool=4\nNodeName=n[1-2] "
		  "namespacepool=0\n", "n3");
	ok(c && c->namespace_pool == 4, "NamespacePool=4");
	nsconf_free(c);
	c = parse("BasePath=/b NamespacePool=4\nNodeName=n[1-2] "
		  "namespacepool=0\n", "n2");
	ok(c && c->namespace_pool == 0, "a NodeName line turns it off");
	nsconf_free(c);
	c = parse("BasePath=/b NamespacePool=64\n", NULL);
	ok(c && c->namespace_pool == 64, "64, the most");
	nsconf_free(c);
	fails("BasePath=/b\nNamespacePool=65\n", NULL,
	      "t.conf:2: NamespacePool: invalid count \"65\" (0 to 64 "
	      "namespaces kept ready)");
	fails("BasePath=/b\nNamespacePool=-1\n", NULL,
	      "t.conf:2: NamespacePool: invalid count \"-1\" (0 to 64 "
	      "namespaces kept ready)");
	fails("BasePath=/b\nNamespacePool=2x\n", NULL,
	      "t.conf:2: NamespacePool: invalid count \"2x\" (0 to 64 "
	      "namespaces kept ready)");
	fails("BasePath=none\nNamespacePool=2\n", NULL,
	      "t.conf:2: NamespacePool: BasePath is none (line 1): there are "
	      "no namespaces to copy ahead");
}

static void test_cdi_spec_dirs(void)
{
	struct nsconf *c;

	c = parse("BasePath=/b\n", NULL);
	ok(c && c->cdi_spec_dirs == NULL, "CDISpecDirs unset by default");
	nsconf_free(c);
	c = parse("BasePath=/b CDISpecDirs=/etc//cdi/,/run/cdi\n"
		  "NodeName=n1 cdispecdirs=none\nNodeName=n2 CDISpecDirs=/x\n",
		  "n3");
	is_str(c ? c->cdi_spec_dirs : NULL, "/etc/cdi,/run/cdi",
	       "CDISpecDirs: two directories, normalised");
	ok(c && c->lines.cdi_spec_dirs == 1, "  from line 1");
	nsconf_free(c);
	c = parse("BasePath=/b CDISpecDirs=/etc/cdi\nNodeName=n1 "
		  "CDISpecDirs=none\n", "n1");
	ok(c && c->cdi_spec_dirs == NULL, "a NodeName line turns it off");
	nsconf_free(c);
	c = parse("BasePath=/b\nNodeName=n2 CDISpecDirs=/x\n", "n2");
	is_str(c ? c->cdi_spec_dirs : NULL, "/x",
	       "a NodeName line sets it for its node");
	nsconf_free(c);
	fails("BasePath=/b\nCDISpecDirs=/etc/cdi,cdi\n", NULL,
	      "t.conf:2: CDISpecDirs: \"cdi\" is not an absolute path");
	fails("BasePath=/b\nCDISpecDirs=/etc/cdi,,/run/cdi\n", NULL,
	      "t.conf:2: CDISpecDirs: empty entry in \"/etc/cdi,,/run/cdi\"");
	fails("BasePath=/b\nCDISpecDirs=,/etc/cdi\n", NULL,
	      "t.conf:2: CDISpecDirs: empty entry in \",/etc/cdi\"");
}

static void test_tmp_backend(void)
{
	struct nsconf *c;

	c = parse("BasePath=/b TmpDiskLimit=20M\n", NULL);
	ok(c && c->tmp_backend == NSCONF_TMP_DIR && !c->lines.tmp_backend,
	   "TmpBackend: dir by default (project quotas, as before)");
	nsconf_free(c);
	c = parse("BasePath=/b TmpDiskLimit=20M\ntmpbackend=LOOP\n", NULL);
	ok(c && c->tmp_backend == NSCONF_TMP_LOOP &&
	   c->lines.tmp_backend == 2, "TmpBackend=loop, any case, its line");
	nsconf_free(c);
	c = parse("BasePath=/b TmpDiskLimit=20M TmpBackend=dir\n"
		  "NodeName=n1 TmpBackend=loop\n", "n1");
	ok(c && c->tmp_backend == NSCONF_TMP_LOOP,
	   "a NodeName line overrides it");
	nsconf_free(c);
	c = parse("NodeName=n1 TmpBackend=loop\n"
		  "BasePath=/b TmpDiskLimit=20M TmpBackend=dir\n", "n2");
	ok(c && c->tmp_backend == NSCONF_TMP_DIR,
	   "another node's line does not apply");
	nsconf_free(c);
	fails("BasePath=/b TmpDiskLimit=20M\nTmpBackend=zfs\n", NULL,
	      "t.conf:2: TmpBackend: invalid value \"zfs\" (dir or loop)");
	fails("BasePath=/b\nTmpBackend=loop\n", NULL,
	      "t.conf:2: TmpBackend: loop sizes each job's filesystem by "
	      "TmpDiskLimit, which is not set");
	fails("BasePath=/b TmpBackend=loop\nTmpDiskLimit=512K\n", NULL,
	      "t.conf:2: TmpDiskLimit: below 1M, the smallest filesystem "
	      "TmpBackend=loop makes");
	fails("BasePath=/b TmpBackend=loop TmpDiskLimit=20M\nTmpSize=1G\n",
	      NULL, "t.conf:1: TmpDiskLimit: TmpSize (line 2) makes /tmp a "
	      "tmpfs, whose size TmpSize already limits; set one of them");
	fails("BasePath=/b TmpBackend=loop TmpDiskLimit=20M\n"
	      "TmpDiskGres=tmpdisk\n", NULL,
	      "t.conf:1: TmpBackend: loop sizes each job's filesystem by a "
	      "fixed TmpDiskLimit, not by TmpDiskGres or TmpDiskLimit=request "
	      "(use TmpBackend=dir with those)");
	fails("BasePath=/b TmpBackend=loop\nTmpDiskLimit=request\n", NULL,
	      "t.conf:1: TmpBackend: loop sizes each job's filesystem by a "
	      "fixed TmpDiskLimit, not by TmpDiskGres or TmpDiskLimit=request "
	      "(use TmpBackend=dir with those)");
}

/* The job's own limit from what it asked (nsconf_job_disk_limit). */
static void job_limit_is(const struct nsconf *c, uint64_t gres, uint64_t tmp,
			 uint64_t fs, int rc, uint64_t want, const char *why,
			 const char *what)
{
	struct nsconf_disk_ask ask = { gres, tmp };
	uint64_t limit = 12345;
	char buf[256] = "";
	int got;

	errno = 0;
	got = nsconf_job_disk_limit(c, &ask, fs, &limit, buf, sizeof(buf));
	if (rc == 0) {
		ok(got == 0 && limit == want, "%s: %ju bytes (got %d, %ju)",
		   what, (uintmax_t)want, got, (uintmax_t)limit);
		return;
	}
	ok(got == -1 && errno == rc && !strcmp(buf, why), "%s: refused (%s)",
	   what, buf);
}

/* TmpDiskGres and TmpDiskLimit=request: parsing, precedence, the limit. */
static void test_tmp_disk_gres(void)
{
	struct nsconf *c;

	c = parse("BasePath=/b\n", NULL);
	ok(c && !c->tmp_disk_gres && !c->tmp_disk_request &&
	   !nsconf_disk_limited(c), "TmpDiskGres, request: unset by default");
	job_limit_is(c, 10 * MiB, 5 * MiB, 0, 0, 0, NULL,
		     "  nothing set: no limit, whatever the job asked");
	nsconf_free(c);
	c = parse("BasePath=/b\nTmpDiskGres=tmpdisk\n", NULL);
	ok(c && c->tmp_disk_gres && !strcmp(c->tmp_disk_gres, "tmpdisk") &&
	   c->lines.tmp_disk_gres == 2 && nsconf_disk_limited(c) &&
	   c->tmp_inode_limit == 0,
	   "TmpDiskGres=tmpdisk alone: limited, the inode limit per job");
	job_limit_is(c, 10 * MiB, 0, 0, 0, 10 * MiB, NULL,
		     "  a job with --gres=tmpdisk:10M");
	job_limit_is(c, 0, 0, 0, 0, 0, NULL,
		     "  a job without: no TmpDiskLimit, no limit");
	job_limit_is(c, 30 * MiB, 0, 20 * MiB, EFBIG, 0,
		     "its GRES of 31457280 bytes is more than BasePath's "
		     "filesystem holds (20971520 bytes)",
		     "  more than BasePath's filesystem");
	job_limit_is(c, 1000, 0, 0, EINVAL, 0,
		     "its GRES of 1000 bytes is below 1K, the smallest limit a "
		     "project quota takes", "  below 1K");
	nsconf_free(c);
	c = parse("BasePath=/b TmpDiskLimit=1G\nTmpDiskGres=tmpdisk\n", NULL);
	job_limit_is(c, 20 * GiB, 0, 0, 0, 20 * GiB, NULL,
		     "TmpDiskGres and TmpDiskLimit: the GRES wins");
	job_limit_is(c, 0, 0, 0, 0, GiB, NULL,
		     "  a job without the GRES: TmpDiskLimit");
	ok(c && c->tmp_inode_limit == 0,
	   "  the inode limit follows each job's size");
	nsconf_free(c);
	c = parse("BasePath=/b TmpDiskGres=tmpdisk\n"
		  "NodeName=n1 TmpDiskGres=scratch\n"
		  "NodeName=n2 TmpDiskGres=none\n", "n1");
	ok(c && c->tmp_disk_gres && !strcmp(c->tmp_disk_gres, "scratch") &&
	   c->lines.tmp_disk_gres == 2, "a NodeName line overrides it");
	nsconf_free(c);
	c = parse("BasePath=/b TmpDiskGres=tmpdisk\n"
		  "NodeName=n2 TmpDiskGres=none\n", "n2");
	ok(c && !c->tmp_disk_gres && !nsconf_disk_limited(c),
	   "  TmpDiskGres=none turns it off for a node");
	nsconf_free(c);
	c = parse("BasePath=/b\nNodeName=n1 TmpDiskGres=tmpdisk\n", "n3");
	ok(c && !c->tmp_disk_gres, "  another node's line does not apply");
	nsconf_free(c);
	fails("BasePath=/b\nTmpDiskGres=tmp/disk\n", NULL,
	      "t.conf:2: TmpDiskGres: \"tmp/disk\" is no GRES name (letters, "
	      "digits, '_' and '-', at most 63)");
	fails("BasePath=/b\nTmpDiskGres=\"\"\n", NULL,
	      "t.conf:2: TmpDiskGres: empty value");
	fails("BasePath=/b\nTmpDiskGres=a234567890123456789012345678901234"
	      "567890123456789012345678901234\n", NULL,
	      "t.conf:2: TmpDiskGres: \"a234567890123456789012345678901234"
	      "567890123456789012345678901234\" is no GRES name (letters, "
	      "digits, '_' and '-', at most 63)");
	fails("BasePath=none\nTmpDiskGres=tmpdisk\n", NULL,
	      "t.conf:2: TmpDiskGres: BasePath is none (line 1): there is no "
	      "job directory on disk to limit");
	fails("BasePath=/b TmpSize=1G\nTmpDiskGres=tmpdisk\n", NULL,
	      "t.conf:2: TmpDiskGres: TmpSize (line 1) makes /tmp a tmpfs, "
	      "whose size TmpSize already limits; set one of them");
	fails("BasePath=/b TmpDiskGres=tmpdisk EntireStepInNS=yes\n", NULL,
	      "t.conf:1: EntireStepInNS: TmpDiskGres (line 1) needs "
	      "slurmstepd outside the job's mount namespace, where it "
	      "reaches BasePath's filesystem; set one of them");
	c = parse("BasePath=/b\nTmpDiskLimit=request\n", NULL);
	ok(c && c->tmp_disk_request && c->tmp_disk_limit == 0 &&
	   nsconf_disk_limited(c), "TmpDiskLimit=request");
	job_limit_is(c, 0, 100 * MiB, 0, 0, 100 * MiB, NULL,
		     "  a job with --tmp=100M");
	job_limit_is(c, 0, 0, 0, EINVAL, 0,
		     "TmpDiskLimit=request: the job asked for no --tmp",
		     "  a job without --tmp");
	nsconf_free(c);
	c = parse("BasePath=/b TmpDiskLimit=Request TmpDiskGres=tmpdisk\n",
		  NULL);
	job_limit_is(c, 2 * GiB, 100 * MiB, 0, 0, 2 * GiB, NULL,
		     "request and TmpDiskGres: the GRES first");
	job_limit_is(c, 0, 100 * MiB, 0, 0, 100 * MiB, NULL,
		     "  then --tmp");
	job_limit_is(c, 0, 0, 0, EINVAL, 0,
		     "TmpDiskLimit=request: the job asked for no --tmp nor "
		     "GRES tmpdisk", "  neither: refused");
	nsconf_free(c);
	c = parse("BasePath=/b TmpDiskLimit=request\nNodeName=n1 "
		  "TmpDiskLimit=3G\n", "n1");
	ok(c && !c->tmp_disk_request && c->tmp_disk_limit == 3 * GiB,
	   "a NodeName line's size overrides request");
	nsconf_free(c);
	fails("BasePath=/b\nTmpDiskLimit=request\nTmpInodeLimit=10\n", NULL,
	      "t.conf:3: TmpInodeLimit: invalid count \"10\" (a number of "
	      "files and directories, at least 64)");
}

static void test_tmp_disk_limit(void)
{
	struct nsconf *c;

	c = parse("BasePath=/b\n", NULL);
	ok(c && c->tmp_disk_limit == 0, "TmpDiskLimit unset by default");
	nsconf_free(c);
	c = parse("BasePath=/b\nTmpDiskLimit=10M\n", NULL);
	ok(c && c->tmp_disk_limit == 10 * MiB, "TmpDiskLimit=10M");
	ok(c && c->tmp_inode_limit == NSCONF_INODES_MIN,
	   "  with the default inode limit: %d", NSCONF_INODES_MIN);
	nsconf_free(c);
	c = parse("BasePath=/b\nTmpDiskLimit=1G\n", NULL);
	ok(c && c->tmp_inode_limit == GiB / NSCONF_INODE_RATIO,
	   "TmpDiskLimit=1G: one inode per 16 KiB");
	nsconf_free(c);
	c = parse("BasePath=/b TmpDiskLimit=1G TmpInodeLimit=5000\n"
		  "NodeName=n1 TmpInodeLimit=100\n", "n1");
	ok(c && c->tmp_inode_limit == 100,
	   "TmpInodeLimit, and a NodeName line overrides it");
	nsconf_free(c);
	fails("BasePath=/b TmpDiskLimit=1G\nTmpInodeLimit=10\n", NULL,
	      "t.conf:2: TmpInodeLimit: invalid count \"10\" (a number of "
	      "files and directories, at least 64)");
	fails("BasePath=/b TmpDiskLimit=1G\nTmpInodeLimit=1k\n", NULL,
	      "t.conf:2: TmpInodeLimit: invalid count \"1k\" (a number of "
	      "files and directories, at least 64)");
	fails("BasePath=/b\n\nTmpInodeLimit=100\n", NULL,
	      "t.conf:3: TmpInodeLimit: no TmpDiskLimit is set, and the "
	      "inode limit comes with it");
	c = parse("BasePath=/b\ntmpdisklimit=1KiB\n", NULL);
	ok(c && c->tmp_disk_limit == 1024, "tmpdisklimit=1KiB, any case");
	nsconf_free(c);
	c = parse("BasePath=/b TmpDiskLimit=1G\n"
		  "NodeName=n[1-2] TmpDiskLimit=2G\n", "n2");
	ok(c && c->tmp_disk_limit == 2 * GiB, "a NodeName line overrides it");
	nsconf_free(c);
	c = parse("BasePath=/b\nNodeName=n1 TmpDiskLimit=2G\n", "n3");
	ok(c && c->tmp_disk_limit == 0, "another node's line does not apply");
	nsconf_free(c);
	c = parse("BasePath=/b Dirs=/tmp,/var/tmp TmpDiskLimit=5G\n", NULL);
	ok(c && c->tmp_disk_limit == 5 * GiB, "with more Dirs");
	nsconf_free(c);
	fails("BasePath=/b\nTmpDiskLimit=lots\n", NULL,
	      "t.conf:2: TmpDiskLimit: invalid size \"lots\"");
	fails("BasePath=/b\nTmpDiskLimit=10%\n", NULL,
	      "t.conf:2: TmpDiskLimit: invalid size \"10%\" "
	      "(percentages are not supported)");
	fails("BasePath=/b\nTmpDiskLimit=0\n", NULL,
	      "t.conf:2: TmpDiskLimit: \"0\" is below 1K, the smallest "
	      "limit a project quota takes");
	fails("BasePath=/b\nTmpDiskLimit=1023\n", NULL,
	      "t.conf:2: TmpDiskLimit: \"1023\" is below 1K, the smallest "
	      "limit a project quota takes");
	fails("BasePath=/b TmpDiskLimit=1M TmpDiskLimit=2M\n", NULL,
	      "t.conf:1: duplicate key \"TmpDiskLimit\"");
	fails("BasePath=/b\nTmpSize=1G\n#\nTmpDiskLimit=1G\n", NULL,
	      "t.conf:4: TmpDiskLimit: TmpSize (line 2) makes /tmp a tmpfs, "
	      "whose size TmpSize already limits; set one of them");
	fails("TmpDiskLimit=1G\nNodeName=n1 TmpSize=1G\nBasePath=/b\n", "n1",
	      "t.conf:1: TmpDiskLimit: TmpSize (line 2) makes /tmp a tmpfs, "
	      "whose size TmpSize already limits; set one of them");
	fails("BasePath=none\nTmpDiskLimit=1G\n", NULL,
	      "t.conf:2: TmpDiskLimit: BasePath is none (line 1): there is no "
	      "job directory on disk to limit");
	fails("BasePath=/b\nNodeName=n1 BasePath=none TmpDiskLimit=1G\n", "n1",
	      "t.conf:2: TmpDiskLimit: BasePath is none (line 2): there is no "
	      "job directory on disk to limit");
	fails("BasePath=/b Dirs=/dev/shm,/var/tmp\nTmpDiskLimit=1G\n", NULL,
	      "t.conf:2: TmpDiskLimit: /tmp is not in Dirs, so the job has no "
	      "private /tmp to limit");
	fails("BasePath=/b TmpDiskLimit=1G\nDir=/tmp Type=tmpfs Size=1G\n",
	      NULL, "t.conf:1: TmpDiskLimit: Dir=/tmp (line 2) makes /tmp a "
	      "tmpfs, whose Size limits it; set one of them");
	fails("BasePath=/b TmpDiskLimit=1G\nDir=/tmp Source=/local/%j\n",
	      NULL, "t.conf:1: TmpDiskLimit: Dir=/tmp (line 2) binds /tmp "
	      "from Source=/local/%j, outside BasePath, where the limit does "
	      "not reach");
	c = parse("BasePath=/b TmpDiskLimit=1G\nDir=/tmp Options=noexec\n",
		  NULL);
	ok(c && c->tmp_disk_limit == GiB,
	   "a Dir=/tmp line that keeps /tmp on BasePath takes the limit");
	nsconf_free(c);
	/* A conflict on another node's line does not stop this node. */
	c = parse("BasePath=/b TmpDiskLimit=1G\nNodeName=n1 TmpSize=1G "
		  "TmpDiskLimit=1G\n", "n2");
	ok(c && c->tmp_disk_limit == GiB && c->tmp_size == 0,
	   "the conflict is judged per node, on the result");
	nsconf_free(c);
}

/* Messages of a run, one per line (test_every_error). */
static char all_msgs[4096];

static void collect_all(enum report_level level, const char *msg, void *arg)
{
	size_t n = strlen(all_msgs);

	(void)arg;
	if (level == REPORT_ERROR)
		snprintf(all_msgs + n, sizeof(all_msgs) - n, "%s\n", msg);
}

/*
 * Every bad line of a file in one run (issue 46): the parser goes on
 * after a bad line, the file still fails, the first error stays
 * rep.msg; the checks of keys from different lines all report too, once
 * every line is good.  A control byte still ends the reading.
 */
static void test_every_error(void)
{
	struct report r;
	struct nsconf *c;

	all_msgs[0] = '\0';
	report_init(&r, collect_all, NULL);
	errno = 0;
	c = nsconf_load_text("BasePath=/var/spool/devns\nBogus=1\n"
			     "ShmSize=12Q\nNodeName=n[1-2 TmpSize=1G\n"
			     "Dir=/scratch Type=tmpfs Colour=red\n"
			     "PidNamespace=maybe\n", "t.conf", "n1", NULL, &r);
	ok(!c && errno == EINVAL, "a file with five bad lines fails: EINVAL");
	is_str(all_msgs,
	       "t.conf:2: unknown key \"Bogus\"\n"
	       "t.conf:3: ShmSize: invalid size \"12Q\"\n"
	       "t.conf:4: NodeName: invalid hostlist \"n[1-2\"\n"
	       "t.conf:5: unknown key \"Colour\"\n"
	       "t.conf:6: PidNamespace: invalid boolean \"maybe\" (use yes or "
	       "no)\n",
	       "  each bad line reported, in order");
	is_int(r.errors, 5, "  five errors counted");
	is_str(r.msg, "t.conf:2: unknown key \"Bogus\"",
	       "  the first is the report's message");
	nsconf_free(c);

	all_msgs[0] = '\0';
	report_init(&r, collect_all, NULL);
	c = nsconf_load_text("BasePath=none\nPidNamespace=yes\n"
			     "NamespacePool=2\n", "t.conf", "n1", NULL, &r);
	ok(!c && errno == EINVAL, "two keys that need BasePath: fails");
	is_int(r.errors, 2, "  both reported");
	like(all_msgs, "t.conf:2: PidNamespace: BasePath is none",
	     "  PidNamespace's");
	like(all_msgs, "t.conf:3: NamespacePool: BasePath is none",
	     "  NamespacePool's");
	nsconf_free(c);

	all_msgs[0] = '\0';
	report_init(&r, collect_all, NULL);
	c = nsconf_load_text("Bogus=1\nBasePath=none\x01\nShmSize=12Q\n",
			     "t.conf", "n1", NULL, &r);
	ok(!c && errno == EINVAL, "a control byte: fails");
	is_str(all_msgs, "t.conf:1: unknown key \"Bogus\"\n"
	       "t.conf:2: control character 0x01 in column 14\n",
	       "  the lines before it reported, nothing after it");
	nsconf_free(c);
}

/*
 * confread_file() sizes its buffer by the file, not by the bound (16 MiB
 * for slurm.conf): every size up to the bound is read whole, one byte
 * more is refused.
 */
static void test_confread_sizes(void)
{
	static const size_t sizes[] = { 0, 1, 4095, 4096, 4097, 70000 };
	char *big = malloc(70001), *path, *text;

	if (!ok(big != NULL, "confread: a buffer for the texts"))
		return;
	for (size_t i = 0; i < 70000; i++)
		big[i] = i % 61 == 60 ? '\n' : (char)('a' + i % 26);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
		size_t n = sizes[i];

		path = write_temp(big, n);
		text = confread_file(path, n ? n : 1, fresh());
		ok(text && strlen(text) == n && !memcmp(text, big, n),
		   "confread: a file of %zu bytes, the bound, is read whole",
		   n);
		free(text);
		errno = 0;
		text = n ? confread_file(path, n - 1, fresh()) : NULL;
		ok(!n || (!text && errno == EFBIG),
		   "confread: ... and refused one byte under it");
		free(text);
		text = confread_file(path, 16 * 1024 * 1024, fresh());
		ok(text && strlen(text) == n,
		   "confread: ... and read under a bound of 16 MiB");
		free(text);
		unlink(path);
	}
	free(big);
}

int main(void)
{
	test_defaults();
	test_confread_sizes();
	test_all_keys();
	test_bools();
	test_sizes();
	test_dirs();
	test_dirs_backing();
	test_backing_name();
	test_base_path_shared();
	test_control_bytes();
	test_device_allow_all();
	test_device_allow_add();
	test_paths();
	test_policy();
	test_syntax();
	test_syntax_errors();
	test_overrides();
	test_dir_defaults();
	test_dir_lines();
	test_dir_errors();
	test_size_percent();
	test_point_template();
	test_keep_paths();
	test_precedence();
	test_precedence_dirs();
	test_provenance();
	test_load_traps();
	test_source_expand();
	test_load();
	test_load_text();
	test_load_paths();
	test_example();
	test_man_example();
	test_every_error();
	test_api_edges();
	test_tmp_disk_limit();
	test_tmp_backend();
	test_tmp_disk_gres();
	test_pid_namespace();
	test_user_namespace();
	test_namespace_pool();
	test_cdi_spec_dirs();
	return tap_done();
}
