/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_devpolicy.c - unit tests of devpolicy: DeviceAllow syntax and its
 * error messages, path and class resolution, the three modes with and
 * without GRES, GRES devices under a DeviceAllow class (left out) and named
 * by DeviceAllow (an error), and normalisation (checked against the list
 * semantics on random lists, pinned rules included).
 *
 * Paths resolve against the real /dev (/dev/null, /dev/zero); fake GPUs are
 * mknod()ed 195:N nodes in a temporary directory when running as root, and
 * those checks are skipped otherwise.  Classes come from a fake
 * /proc/devices written by the test.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dev/devallow.h"
#include "dev/devpolicy.h"
#include "devaccess.h"
#include "tap.h"

/* Collects reported messages, one per line prefixed "E: ", "W: " or "I: ". */
struct msgs {
	char text[8192];
	int errors;
	int warnings;
	int infos;
};

static void collect(enum report_level level, const char *msg, void *arg)
{
	struct msgs *m = arg;
	size_t n = strlen(m->text);

	if (level == REPORT_ERROR)
		m->errors++;
	else if (level == REPORT_WARNING)
		m->warnings++;
	else
		m->infos++;
	snprintf(m->text + n, sizeof(m->text) - n, "%s: %s\n",
		 level == REPORT_ERROR ? "E" :
		 level == REPORT_WARNING ? "W" : "I", msg);
}

/* A report whose every message goes to m. */
static struct report *to(struct msgs *m)
{
	static struct report r;

	report_init(&r, collect, m);
	return &r;
}

/* What a job's list is made from, as the tests write it. */
struct devpolicy_input {
	enum devpolicy_mode mode;
	const char *device_allow;
	const char *const *node_gres;
	const char *const *job_gres;
	const char *proc_devices;
};

/* The node's policy loaded, then the job's list built from it. */
static int build(const struct devpolicy_input *in, struct devrule_list *l,
		 struct msgs *m)
{
	struct devpolicy policy;
	int rc;

	rc = devpolicy_load_lines(&policy, in->mode,
				  &(struct devpolicy_allow){
					  .value = in->device_allow },
				  in->device_allow ? 1 : 0, in->proc_devices,
				  to(m));
	if (rc == 0)
		rc = devpolicy_build(&policy, in->node_gres, in->job_gres, l,
				     to(m));
	else
		devrule_list_init(l, false);
	devpolicy_free(&policy);
	return rc;
}

static char tmpdir[] = "/tmp/test_devpolicy.XXXXXX";
static char proc_devices[PATH_MAX];
static char gpu[4][PATH_MAX];  /* 195:0..3 char nodes (root only) */
static char gpu_alias[PATH_MAX]; /* another node of 195:2 (root only) */
static char blockdev[PATH_MAX]; /* 7:0 block node (root only) */
static char regular[PATH_MAX];  /* a plain file */
static int have_nodes;

static const char fake_proc_devices[] =
	"Character devices:\n"
	"  1 mem\n"
	"  5 /dev/tty\n"
	"136 pts\n"
	"195 nvidia-frontend\n"
	"195 nvidia\n"
	"234 nvidia-uvm\n"
	"240 multi\n"
	"241 multi\n"
	"\n"
	"Block devices:\n"
	"  7 loop\n"
	"240 multi\n"
	"259 blkext\n";

static void setup(void)
{
	FILE *f;
	int i;

	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		exit(1);
	}
	snprintf(proc_devices, sizeof(proc_devices), "%s/devices", tmpdir);
	f = fopen(proc_devices, "w");
	if (!f || fputs(fake_proc_devices, f) < 0 || fclose(f) != 0) {
		perror(proc_devices);
		exit(1);
	}
	snprintf(regular, sizeof(regular), "%s/plain", tmpdir);
	f = fopen(regular, "w");
	if (!f || fclose(f) != 0) {
		perror(regular);
		exit(1);
	}
	have_nodes = 1;
	for (i = 0; i < 4; i++) {
		snprintf(gpu[i], sizeof(gpu[i]), "%s/nvidia%d", tmpdir, i);
		if (mknod(gpu[i], S_IFCHR | 0600, makedev(195, i)) < 0)
			have_nodes = 0;
	}
	snprintf(gpu_alias, sizeof(gpu_alias), "%s/by-id-gpu2", tmpdir);
	if (mknod(gpu_alias, S_IFCHR | 0600, makedev(195, 2)) < 0)
		have_nodes = 0;
	snprintf(blockdev, sizeof(blockdev), "%s/loop0", tmpdir);
	if (mknod(blockdev, S_IFBLK | 0600, makedev(7, 0)) < 0)
		have_nodes = 0;
}

static void teardown(void)
{
	int i;

	for (i = 0; i < 4; i++)
		unlink(gpu[i]);
	unlink(gpu_alias);
	unlink(blockdev);
	unlink(regular);
	unlink(proc_devices);
	rmdir(tmpdir);
}

static int has_rule(const struct devrule_list *l, const char *want)
{
	char buf[64];
	size_t i;

	for (i = 0; i < l->count; i++) {
		devrule_format(&l->rules[i], buf, sizeof(buf));
		if (!strcmp(buf, want))
			return 1;
	}
	return 0;
}

/* The list as "c 1:3 rw; c 136:* rw" for diagnostics and exact checks. */
static const char *list_str(const struct devrule_list *l)
{
	static char out[4096];
	size_t i, n = 0;

	out[0] = '\0';
	for (i = 0; i < l->count && n < sizeof(out) - 64; i++) {
		if (i)
			n += snprintf(out + n, sizeof(out) - n, "; ");
		n += devrule_format(&l->rules[i], out + n, sizeof(out) - n);
	}
	return out;
}

/*
 * DeviceAllow text as the one namespace.conf line of a "strict" node, the
 * mode that adds no standard devices: out (empty) gets the node's rules.
 * Returns the entries counted, or -1 with errno.
 */
static int parse_allow(const char *text, const char *proc,
		       struct devrule_list *out, struct report *rep)
{
	struct devpolicy_allow line = { .value = text };
	struct devpolicy policy;
	int rc;

	rc = devpolicy_load_lines(&policy, DEVPOLICY_STRICT, &line,
				  text ? 1 : 0, proc, rep);
	if (rc == 0) {
		rc = policy.allow_entries;
		devrule_list_free(out);
		*out = policy.base;
		devrule_list_init(&policy.base, false);
	}
	devpolicy_free(&policy);
	return rc;
}

/* Parses text expecting failure with EINVAL and a message naming needle. */
static void parse_fails(const char *text, const char *needle,
			const char *what)
{
	struct devrule_list l;
	struct msgs m = { .text = "" };
	int rc;

	devrule_list_init(&l, false);
	errno = 0;
	rc = parse_allow(text, proc_devices, &l, to(&m));
	ok(rc == -1 && errno == EINVAL && m.errors >= 1,
	   "%s: '%s' is an error", what, text);
	like(m.text, needle, "%s: message names '%s'", what, needle);
	devrule_list_free(&l);
}

static void test_syntax(void)
{
	struct devrule_list l;
	struct msgs m = { .text = "" };
	int rc;

	parse_fails("/dev/null", "'/dev/null'", "missing colon");
	parse_fails(":rw", "':rw'", "empty device");
	parse_fails("  :rw", "':rw'", "blank device");
	parse_fails("/dev/null:", "'/dev/null:'", "empty access");
	parse_fails("/dev/null:rx", "bad access 'rx'", "bad access letter");
	parse_fails("/dev/null:rr", "bad access 'rr'", "repeated access letter");
	parse_fails("/dev/null:RW", "bad access 'RW'", "upper-case access");
	parse_fails("dev/null:rw", "'dev/null' is neither", "relative path");
	parse_fails("nvidia0:rw", "'nvidia0' is neither", "bare name");
	parse_fails("/dev/null:rw,,/dev/zero:r", "empty entry (item 2)",
		    "empty list item");
	parse_fails("/dev/null:rw,", "empty entry (item 2)",
		    "trailing comma");
	parse_fails(",/dev/null:rw", "empty entry (item 1)",
		    "leading comma");
	parse_fails("char-:rw", "empty device class name", "empty class name");
	parse_fails("block-:r", "empty device class name",
		    "empty block class name");
	{
		char spec[PATH_MAX + 8];

		snprintf(spec, sizeof(spec), "%s:r", regular);
		parse_fails(spec, "plain is not a device node", "regular file");
	}
	parse_fails("/tmp:rw", "/tmp is not a device node", "directory");

	/* Every error is reported, not only the first. */
	devrule_list_init(&l, false);
	rc = parse_allow("/dev/null:x,zero:r,/dev/zero:rw",
			 proc_devices, &l, to(&m));
	is_int(rc, -1, "two bad entries fail");
	is_int(m.errors, 2, "both bad entries are reported");
	devrule_list_free(&l);

	/* A NULL report is allowed. */
	devrule_list_init(&l, false);
	errno = 0;
	rc = parse_allow("/dev/null:q", proc_devices, &l, NULL);
	ok(rc == -1 && errno == EINVAL, "errors without a report still fail");
	devrule_list_free(&l);
}

static void check_fails(const char *text, const char *needle)
{
	struct msgs m = { .text = "" };
	int rc;

	errno = 0;
	rc = devallow_read(text, NULL, to(&m));
	ok(rc == -1 && errno == EINVAL && m.errors >= 1,
	   "syntax check: '%s' is an error", text);
	like(m.text, needle, "  message names '%s'", needle);
}

/*
 * The syntax check of other nodes' lines: the same errors as the parser,
 * but no device is looked at, so what this node lacks is no warning.
 */
static void test_check_allow(void)
{
	struct msgs m = { .text = "" };
	int rc;

	check_fails("/dev/null", "'/dev/null' has no ':ACCESS'");
	check_fails("/dev/x:rwz", "bad access 'rwz'");
	check_fails("/dev/x:", "bad access ''");
	check_fails(":rw", "':rw' has an empty device");
	check_fails("nvidia0:rw", "'nvidia0' is neither");
	check_fails("char-:rw", "empty device class name");
	check_fails("/dev/null:rw,,/dev/zero:r", "empty entry (item 2)");
	rc = devallow_read("/dev/does-not-exist:rw, char-no-such:r,"
			   "block-loop:rwm, /tmp:r", NULL, to(&m));
	is_int(rc, 4, "well-formed entries pass, devices unseen");
	is_int(m.errors + m.warnings, 0, "  with no message at all");
	rc = devallow_read(NULL, NULL, to(&m));
	is_int(rc, 0, "NULL is an empty list");
	m.errors = 0;
	rc = devallow_read("/dev/null:x,zero:r,/dev/zero:rw", NULL,
			   to(&m));
	ok(rc == -1 && m.errors == 2, "every bad entry is reported");
}

static void test_paths(void)
{
	struct devrule_list l;
	struct msgs m = { .text = "" };
	int rc;

	devrule_list_init(&l, false);
	rc = parse_allow(NULL, proc_devices, &l, to(&m));
	ok(rc == 0 && l.count == 0 && m.errors + m.warnings == 0,
	   "NULL DeviceAllow is empty");
	rc = parse_allow("  ", proc_devices, &l, to(&m));
	ok(rc == 0 && l.count == 0 && m.errors + m.warnings == 0,
	   "blank DeviceAllow is empty");

	rc = parse_allow("/dev/null:rw, /dev/zero : r ,/dev/full:rwm",
			 proc_devices, &l, to(&m));
	is_int(rc, 3, "three entries parsed");
	is_int(m.errors + m.warnings, 0, "no messages");
	is_str(list_str(&l), "c 1:3 rw; c 1:5 r; c 1:7 rwm",
	       "/dev/null, /dev/zero, /dev/full resolve by stat");
	devrule_list_free(&l);

	devrule_list_init(&l, false);
	rc = parse_allow("/dev/null:mwr,/dev/zero:wm", proc_devices, &l,
			 to(&m));
	is_str(list_str(&l), "c 1:3 rwm; c 1:5 wm",
	       "access letters in any order");
	devrule_list_free(&l);

	devrule_list_init(&l, false);
	memset(&m, 0, sizeof(m));
	rc = parse_allow("/dev/nonexistent-devns:rw,/dev/null:r",
			 proc_devices, &l, to(&m));
	is_int(rc, 2, "missing path counts as an entry");
	ok(m.errors == 0 && m.warnings == 1, "missing path is one warning");
	like(m.text, "W: DeviceAllow entry '/dev/nonexistent-devns:rw': /dev/nonexistent-devns does not exist, entry skipped",
	     "warning names the missing path");
	is_str(list_str(&l), "c 1:3 r", "missing path is skipped");
	devrule_list_free(&l);

	devrule_list_init(&l, false);
	memset(&m, 0, sizeof(m));
	rc = parse_allow("/dev/null/x:rw", proc_devices, &l, to(&m));
	ok(rc == 1 && m.warnings == 1 && l.count == 0,
	   "path below a non-directory counts as missing");
	devrule_list_free(&l);

	if (!have_nodes) {
		tap_skip("block and by-path device nodes need root (mknod)");
		tap_skip("block and by-path device nodes need root (mknod)");
		return;
	}
	{
		char spec[PATH_MAX * 2];
		char colon_path[PATH_MAX];

		devrule_list_init(&l, false);
		snprintf(spec, sizeof(spec), "%s:rw", blockdev);
		rc = parse_allow(spec, proc_devices, &l, to(&m));
		is_str(list_str(&l), "b 7:0 rw", "block device node resolves");
		devrule_list_free(&l);

		/* by-path names hold ':'; the last one separates ACCESS. */
		snprintf(colon_path, sizeof(colon_path),
			 "%s/pci-0000:00:1f.2", tmpdir);
		if (symlink(gpu[2], colon_path) < 0)
			perror(colon_path);
		snprintf(spec, sizeof(spec), "%s:r", colon_path);
		devrule_list_init(&l, false);
		rc = parse_allow(spec, proc_devices, &l, to(&m));
		is_str(list_str(&l), "c 195:2 r",
		       "path with ':' through a symlink resolves");
		devrule_list_free(&l);
		unlink(colon_path);
	}
}

static void test_classes(void)
{
	struct devrule_list l;
	struct msgs m = { .text = "" };
	int rc;

	devrule_list_init(&l, false);
	rc = parse_allow("char-nvidia:rw", proc_devices, &l, to(&m));
	ok(rc == 1 && m.errors + m.warnings == 0, "char-nvidia parses");
	is_str(list_str(&l), "c 195:* rw", "char-nvidia -> 195, any minor");
	devrule_list_free(&l);

	devrule_list_init(&l, false);
	rc = parse_allow("char-multi:r,block-multi:w,block-loop:rwm",
			 proc_devices, &l, to(&m));
	is_str(list_str(&l), "c 240:* r; c 241:* r; b 240:* w; b 7:* rwm",
	       "a class takes every major of its name, per section");
	devrule_list_free(&l);

	devrule_list_init(&l, false);
	rc = parse_allow("char-/dev/tty:rw", proc_devices, &l, to(&m));
	is_str(list_str(&l), "c 5:* rw", "class names may hold '/'");
	devrule_list_free(&l);

	devrule_list_init(&l, false);
	memset(&m, 0, sizeof(m));
	rc = parse_allow("char-loop:r,char-nvidia-uv:r,char-pts:rw",
			 proc_devices, &l, to(&m));
	is_int(rc, 3, "unknown classes count as entries");
	ok(m.errors == 0 && m.warnings == 2, "two unknown classes, two warnings");
	like(m.text, "no character device class 'loop'",
	     "block-only name is unknown as char");
	like(m.text, "'nvidia-uv'", "no prefix matching of class names");
	is_str(list_str(&l), "c 136:* rw", "the known class remains");
	devrule_list_free(&l);

	devrule_list_init(&l, false);
	memset(&m, 0, sizeof(m));
	rc = parse_allow("char-pts:rw,char-nvidia:rw",
			 "/nonexistent/proc/devices", &l, to(&m));
	ok(rc == -1 && errno == EINVAL, "unreadable /proc/devices is an error");
	is_int(m.errors, 1, "reported once for two classes");
	like(m.text, "cannot read /nonexistent/proc/devices",
	     "message names the file");
	devrule_list_free(&l);

	/* The real /proc/devices always lists pts on Linux. */
	devrule_list_init(&l, false);
	rc = parse_allow("char-pts:rw", NULL, &l, to(&m));
	ok(rc == 1 && l.count >= 1 && l.rules[0].any_minor,
	   "char-pts resolves through the real /proc/devices (%s)",
	   list_str(&l));
	devrule_list_free(&l);
}

static void test_modes(void)
{
	struct devrule_list l;
	struct msgs m = { .text = "" };
	enum devpolicy_mode mode;
	int rc;

	ok(devpolicy_mode_parse("auto", &mode) == 0 && mode == DEVPOLICY_AUTO,
	   "mode auto");
	ok(devpolicy_mode_parse("Closed", &mode) == 0 &&
	   mode == DEVPOLICY_CLOSED, "mode closed, any case");
	ok(devpolicy_mode_parse("STRICT", &mode) == 0 &&
	   mode == DEVPOLICY_STRICT, "mode strict");
	errno = 0;
	ok(devpolicy_mode_parse("open", &mode) == -1 && errno == EINVAL,
	   "unknown mode is EINVAL");
	ok(devpolicy_mode_parse(NULL, &mode) == -1, "NULL mode is EINVAL");
	is_str(devpolicy_mode_name(DEVPOLICY_CLOSED), "closed", "mode name");
	is_str(devpolicy_mode_name((enum devpolicy_mode)42), "?",
	       "bad mode name");

	/* strict, nothing: deny everything. */
	{
		struct devpolicy_input in = { .mode = DEVPOLICY_STRICT,
					      .proc_devices = proc_devices };

		rc = build(&in, &l, &m);
		ok(rc == 0 && l.count == 0 && !l.default_allow,
		   "strict without entries denies everything");
		ok(devrule_list_needs_filter(&l), "and needs a filter");
		devrule_list_free(&l);
	}

	/* closed: the pseudo-devices and pts. */
	{
		struct devpolicy_input in = { .mode = DEVPOLICY_CLOSED,
					      .proc_devices = proc_devices };

		memset(&m, 0, sizeof(m));
		rc = build(&in, &l, &m);
		ok(rc == 0 && !l.default_allow, "closed builds, default deny");
		ok(has_rule(&l, "c 1:3 rwm") && has_rule(&l, "c 1:5 rwm") &&
		   has_rule(&l, "c 1:7 rwm") && has_rule(&l, "c 1:8 rwm") &&
		   has_rule(&l, "c 1:9 rwm") && has_rule(&l, "c 5:0 rwm") &&
		   has_rule(&l, "c 5:2 rwm"),
		   "closed allows the seven pseudo-devices rwm (%s)",
		   list_str(&l));
		ok(has_rule(&l, "c 136:* rw"), "closed allows char-pts rw");
		is_int(l.count, 8, "and nothing else");
		is_int(devaccess(&l, 'c', 136, 7),
		       DEVRULE_R | DEVRULE_W, "pty 136:7 is rw");
		is_int(devaccess(&l, 'c', 1, 1), 0,
		       "/dev/mem 1:1 is denied");
		devrule_list_free(&l);
	}

	/* auto without DeviceAllow and GRES: no filter. */
	{
		struct devpolicy_input in = { .mode = DEVPOLICY_AUTO,
					      .proc_devices = proc_devices };

		rc = build(&in, &l, &m);
		ok(rc == 0 && l.default_allow && l.count == 0,
		   "auto, no entries, no GRES: allow all");
		ok(!devrule_list_needs_filter(&l), "and needs no filter");
		devrule_list_free(&l);
	}

	/* auto with DeviceAllow behaves as closed. */
	{
		struct devpolicy_input in = { .mode = DEVPOLICY_AUTO,
					      .device_allow = "char-nvidia-uvm:rw",
					      .proc_devices = proc_devices };

		rc = build(&in, &l, &m);
		ok(rc == 0 && !l.default_allow && has_rule(&l, "c 1:3 rwm") &&
		   has_rule(&l, "c 234:* rw") && l.count == 9,
		   "auto with DeviceAllow = closed + entries (%s)",
		   list_str(&l));
		devrule_list_free(&l);
	}

	/* ...even when every entry was skipped. */
	{
		struct devpolicy_input in = { .mode = DEVPOLICY_AUTO,
					      .device_allow = "/dev/no-such-gpu:rw",
					      .proc_devices = proc_devices };

		memset(&m, 0, sizeof(m));
		rc = build(&in, &l, &m);
		ok(rc == 0 && !l.default_allow && l.count == 8 &&
		   m.warnings == 1,
		   "auto with only skipped entries stays closed");
		devrule_list_free(&l);
	}

	/* Errors in DeviceAllow fail the build and leave out empty. */
	{
		struct devpolicy_input in = { .mode = DEVPOLICY_CLOSED,
					      .device_allow = "/dev/null:rw,bad",
					      .proc_devices = proc_devices };

		memset(&m, 0, sizeof(m));
		errno = 0;
		rc = build(&in, &l, &m);
		ok(rc == -1 && errno == EINVAL && l.count == 0 && !l.rules,
		   "build fails on a malformed entry, list empty");
		like(m.text, "'bad'", "the entry is named");
	}
	{
		struct devpolicy_input in = { .mode = (enum devpolicy_mode)7 };

		errno = 0;
		ok(build(&in, &l, &m) == -1 &&
		   errno == EINVAL, "invalid mode is EINVAL");
	}
}

static void test_gres(void)
{
	struct devrule_list l;
	struct msgs m = { .text = "" };
	int rc;

	if (!have_nodes) {
		int i;

		for (i = 0; i < 12; i++)
			tap_skip("GRES tests need mknod (root)");
		return;
	}
	{
		const char *node[] = { gpu[0], gpu[1], gpu[2], gpu[3], NULL };
		const char *job[] = { gpu[1], gpu[3], NULL };
		struct devpolicy_input in = { .mode = DEVPOLICY_AUTO,
					      .node_gres = node,
					      .job_gres = job,
					      .proc_devices = proc_devices };

		rc = build(&in, &l, &m);
		ok(rc == 0 && l.default_allow, "auto with GRES: default allow");
		is_str(list_str(&l), "c 195:0 -; c 195:2 -",
		       "only the GPUs the job was not given are denied");
		ok(devrule_list_needs_filter(&l), "needs a filter");
		is_int(devaccess(&l, 'c', 195, 1), DEVRULE_RWM,
		       "given GPU rwm");
		is_int(devaccess(&l, 'c', 195, 255), DEVRULE_RWM,
		       "nvidiactl (not GRES) stays allowed");
		devrule_list_free(&l);

		in.mode = DEVPOLICY_STRICT;
		rc = build(&in, &l, &m);
		is_str(list_str(&l), "c 195:1 rwm; c 195:3 rwm",
		       "strict: exactly the job's GPUs, rwm");
		devrule_list_free(&l);

		in.mode = DEVPOLICY_CLOSED;
		rc = build(&in, &l, &m);
		ok(rc == 0 && has_rule(&l, "c 195:1 rwm") &&
		   has_rule(&l, "c 195:3 rwm") && has_rule(&l, "c 1:3 rwm") &&
		   l.count == 10, "closed: pseudo-devices + job's GPUs");
		devrule_list_free(&l);
	}
	{
		const char *node[] = { gpu[0], gpu[1], NULL };
		const char *job[] = { gpu[0], gpu[1], NULL };
		struct devpolicy_input in = { .mode = DEVPOLICY_AUTO,
					      .node_gres = node,
					      .job_gres = job };

		rc = build(&in, &l, &m);
		ok(rc == 0 && l.default_allow && l.count == 0 &&
		   !devrule_list_needs_filter(&l),
		   "auto, job holds every GPU: no filter");
		devrule_list_free(&l);
	}
	{
		const char *node[] = { gpu[0], "/dev/no-such-gpu", NULL };
		const char *job[] = { gpu[0], NULL };
		struct devpolicy_input in = { .mode = DEVPOLICY_AUTO,
					      .node_gres = node,
					      .job_gres = job };

		memset(&m, 0, sizeof(m));
		errno = 0;
		rc = build(&in, &l, &m);
		ok(rc == -1 && errno == EINVAL, "missing GRES file is an error");
		like(m.text, "GRES device file /dev/no-such-gpu does not exist",
		     "message names it");
	}
	{
		const char *job[] = { regular, "nvidia0", NULL };
		struct devpolicy_input in = { .mode = DEVPOLICY_STRICT,
					      .job_gres = job };

		memset(&m, 0, sizeof(m));
		rc = build(&in, &l, &m);
		ok(rc == -1 && m.errors == 2,
		   "GRES: plain file and relative path are errors");
		like(m.text, "is not a device node", "not a device");
		like(m.text, "'nvidia0' is not an absolute path", "relative");
	}
}

/* A small deterministic generator for the random lists. */
static unsigned long rng_state = 12345;

static unsigned rnd(unsigned n)
{
	rng_state = rng_state * 6364136223846793005UL + 1442695040888963407UL;
	return (unsigned)(rng_state >> 33) % n;
}

/* "exact rule, else wildcard, else default": what the BPF filter does. */
static unsigned first_match(const struct devrule_list *l, char type,
			    uint32_t major, uint32_t minor)
{
	const struct devrule *wild = NULL;
	size_t i;

	for (i = 0; i < l->count; i++) {
		const struct devrule *r = &l->rules[i];

		if (r->type != type || r->major != major)
			continue;
		if (!r->any_minor && r->minor == minor)
			return r->access;
		if (r->any_minor)
			wild = r;
	}
	if (wild)
		return wild->access;
	return l->default_allow ? DEVRULE_RWM : 0;
}

/*
 * The attack: DeviceAllow names a class whose major covers the node's GPUs
 * (char-nvidia-frontend is 195, every /dev/nvidiaN).  A job must still get
 * only the GPUs it was allocated, under the list's semantics and under
 * the BPF program's ("exact, else wildcard, else default"), while the
 * other devices of the class (nvidiactl, 195:255) keep the class's access.
 */
static void test_gres_class(void)
{
	const char *node[] = { gpu[0], gpu[1], gpu[2], gpu[3], NULL };
	const char *job[] = { gpu[1], NULL };
	static const enum devpolicy_mode modes[] = {
		DEVPOLICY_CLOSED, DEVPOLICY_STRICT, DEVPOLICY_AUTO,
	};
	struct devrule_list l;
	struct msgs m = { .text = "" };
	size_t i;

	if (!have_nodes) {
		for (i = 0; i < 19; i++)
			tap_skip("GRES tests need mknod (root)");
		return;
	}
	for (i = 0; i < sizeof(modes) / sizeof(*modes); i++) {
		const char *mode = devpolicy_mode_name(modes[i]);
		struct devpolicy_input in = {
			.mode = modes[i],
			.device_allow = "char-nvidia-frontend:rw",
			.node_gres = node,
			.job_gres = job,
			.proc_devices = proc_devices,
		};
		unsigned other_gpus = 0, other_first = 0;
		uint32_t g;
		int rc;

		memset(&m, 0, sizeof(m));
		rc = build(&in, &l, &m);
		/* The precondition: the class itself does cover 195. */
		ok(rc == 0 && devaccess(&l, 'c', 195, 255) ==
				      (DEVRULE_R | DEVRULE_W) &&
		   first_match(&l, 'c', 195, 255) == (DEVRULE_R | DEVRULE_W),
		   "%s, DeviceAllow=char-nvidia-frontend:rw: nvidiactl (195:255, no GRES) gets the class's rw",
		   mode);
		for (g = 0; g < 4; g++) {
			if (g == 1)
				continue;
			other_gpus |= devaccess(&l, 'c', 195, g);
			other_first |= first_match(&l, 'c', 195, g);
		}
		if (!ok(other_gpus == 0,
			"%s: the GPUs the job was not allocated get nothing, though the class covers them",
			mode))
			diag("got %u; list: %s", other_gpus, list_str(&l));
		is_int(other_first, 0,
		       "%s: the same under the filter's exact-first lookup",
		       mode);
		ok(devaccess(&l, 'c', 195, 1) == DEVRULE_RWM &&
		   first_match(&l, 'c', 195, 1) == DEVRULE_RWM,
		   "%s: the job's own GPU gets rwm", mode);
		devrule_list_free(&l);
	}
	{
		/* A job allocated every GPU gets each one rwm. */
		struct devpolicy_input in = {
			.mode = DEVPOLICY_CLOSED,
			.device_allow = "char-nvidia-frontend:r",
			.node_gres = node,
			.job_gres = node,
			.proc_devices = proc_devices,
		};
		unsigned all = DEVRULE_RWM;
		uint32_t g;

		ok(build(&in, &l, &m) == 0, "closed, job holds every GPU");
		for (g = 0; g < 4; g++)
			all &= devaccess(&l, 'c', 195, g) &
			       first_match(&l, 'c', 195, g);
		is_int(all, DEVRULE_RWM, "every GPU of the job rwm");
		devrule_list_free(&l);
	}
	{
		/*
		 * Naming a GPU outright (which devpolicy_check_gres refuses at
		 * slurmd start) still cannot hand it to a job not allocated it.
		 */
		char allow[2 * PATH_MAX + 16];
		struct devpolicy_input in = {
			.mode = DEVPOLICY_CLOSED,
			.device_allow = allow,
			.node_gres = node,
			.job_gres = job,
			.proc_devices = proc_devices,
		};

		snprintf(allow, sizeof(allow), "%s:rw,%s:r", gpu[0], gpu_alias);
		ok(build(&in, &l, &m) == 0 &&
		   devaccess(&l, 'c', 195, 0) == 0 &&
		   devaccess(&l, 'c', 195, 2) == 0,
		   "DeviceAllow naming a GPU the job was not allocated: still denied");
		devrule_list_free(&l);
	}
}

/* Loads a closed policy with DeviceAllow at "namespace.conf:12". */
static int load_at(struct devpolicy *p, const char *allow, struct msgs *m)
{
	struct devpolicy_allow line = {
		.value = allow, .where = "namespace.conf:12" };

	return devpolicy_load_lines(p, DEVPOLICY_CLOSED, &line, allow ? 1 : 0,
				    proc_devices, to(m));
}

/* devpolicy_check_gres: naming a GRES device is an error at load. */
/*
 * none: devices are Slurm's.  No job is filtered, GRES or not, and a
 * DeviceAllow beside it is an error rather than a list nothing applies.
 */
static void test_none(void)
{
	const char *const node[] = { gpu[0], gpu[1], NULL };
	const char *const job[] = { gpu[0], NULL };
	struct devpolicy_input in = { .mode = DEVPOLICY_NONE,
				      .proc_devices = proc_devices };
	struct msgs m = { .text = "" };
	struct devpolicy policy;
	struct devrule_list l;
	enum devpolicy_mode mode;

	ok(devpolicy_mode_parse("None", &mode) == 0 && mode == DEVPOLICY_NONE,
	   "mode none, any case");
	is_str(devpolicy_mode_name(DEVPOLICY_NONE), "none", "its name");
	if (have_nodes) {
		in.node_gres = node;
		in.job_gres = job;
	}
	ok(build(&in, &l, &m) == 0 && l.default_allow && l.count == 0 &&
	   !devrule_list_needs_filter(&l),
	   "none builds an allow-all list, GRES files%s or not: no filter",
	   have_nodes ? "" : " (none here: not root)");
	devrule_list_free(&l);
	ok(devpolicy_load_lines(&policy, DEVPOLICY_NONE, NULL, 0, proc_devices,
				to(&m)) == 0 &&
	   devpolicy_never_filters(&policy) &&
	   !devpolicy_is_open(&policy), "devpolicy_never_filters says so");
	devpolicy_free(&policy);
	memset(&m, 0, sizeof(m));
	ok(devpolicy_load_lines(&policy, DEVPOLICY_NONE,
				&(struct devpolicy_allow){
					.value = "/dev/null:rw",
					.where = "ns.conf:4" },
				1, proc_devices, to(&m)) < 0 &&
	   errno == EINVAL, "none with DeviceAllow fails the load");
	like(m.text, "ns.conf:4: DeviceAllow=/dev/null:rw has no effect with "
	     "DevicePolicy=none", "  naming file:line and the value: %s",
	     m.text);
	devpolicy_free(&policy);
}

static void test_check_gres(void)
{
	const char *node[] = { gpu[0], gpu[1], gpu[2], gpu[3], NULL };
	char allow[3 * PATH_MAX + 64], want[3 * PATH_MAX + 256];
	struct devpolicy p;
	struct msgs m = { .text = "" };
	size_t i;
	int rc;

	if (!have_nodes) {
		for (i = 0; i < 14; i++)
			tap_skip("GRES tests need mknod (root)");
		return;
	}
	snprintf(allow, sizeof(allow), "/dev/null:rw, %s : rw", gpu[3]);
	ok(load_at(&p, allow, &m) == 0, "DeviceAllow naming a GPU loads");
	errno = 0;
	rc = devpolicy_check_gres(&p, node, to(&m));
	ok(rc == -1 && errno == EINVAL && m.errors == 1,
	   "naming a GRES device file: one error, EINVAL");
	snprintf(want, sizeof(want),
		 "E: namespace.conf:12: DeviceAllow entry '%s:rw' names GRES device %s (c 195:3): GRES devices are given only to the jobs allocated them",
		 gpu[3], gpu[3]);
	like(m.text, want, "the message names file:line, the entry and the device");
	ok(devpolicy_check_gres(&p, NULL, to(&m)) == 0,
	   "the same DeviceAllow on a node without GRES files is fine");
	devpolicy_free(&p);

	memset(&m, 0, sizeof(m));
	snprintf(allow, sizeof(allow), "%s:r,char-pts:rw,%s:w", gpu_alias,
		 gpu[0]);
	ok(load_at(&p, allow, &m) == 0, "another path to a GPU loads");
	ok(devpolicy_check_gres(&p, node, to(&m)) == -1 && m.errors == 2,
	   "every entry naming a GRES device is reported");
	snprintf(want, sizeof(want),
		 "DeviceAllow entry '%s:r' names GRES device %s (c 195:2)",
		 gpu_alias, gpu[2]);
	like(m.text, want, "a path to the same device node (195:2) counts");
	devpolicy_free(&p);

	memset(&m, 0, sizeof(m));
	ok(load_at(&p, "char-nvidia-frontend:rw, /dev/null:rw", &m) == 0,
	   "a class covering the GPUs loads");
	rc = devpolicy_check_gres(&p, node, to(&m));
	ok(rc == 0 && m.errors == 0 && m.warnings == 0,
	   "a class covering GRES devices is no error");
	like(m.text, "I: namespace.conf:12: DeviceAllow's 'c 195:* rw' covers 4 GRES device",
	     "an info line says the class leaves them out");
	devpolicy_free(&p);

	memset(&m, 0, sizeof(m));
	ok(load_at(&p, NULL, &m) == 0 &&
	   devpolicy_check_gres(&p, node, to(&m)) == 0 && m.errors == 0 &&
	   m.infos == 0, "no DeviceAllow: nothing to check");
	devpolicy_free(&p);

	{
		const char *broken[] = { "/dev/no-such-gpu", NULL };

		memset(&m, 0, sizeof(m));
		ok(load_at(&p, "/dev/no-such-gpu:rw,/dev/null:rw", &m) == 0 &&
		   m.warnings == 1, "a missing DeviceAllow path: skipped");
		ok(devpolicy_check_gres(&p, broken, to(&m)) == -1 &&
		   m.errors == 1,
		   "a GRES file that does not resolve is still matched by name");
		devpolicy_free(&p);
	}
	ok(p.allow == NULL && p.where == NULL, "devpolicy_free clears the copies");
}

/* Parses text into a fresh list; the list as list_str() writes it. */
static const char *parsed(const char *text, struct msgs *m, int *rc)
{
	struct devrule_list l;
	const char *s;

	devrule_list_init(&l, false);
	*rc = parse_allow(text, proc_devices, &l, to(m));
	s = list_str(&l);
	devrule_list_free(&l);
	return s;
}

/*
 * A line the settings read at load is resolved from what they read, not
 * from its text again (issue 44): the entries, their kinds, the count.
 */
static void test_read_once(void)
{
	struct msgs m = { .text = "" };
	struct devallow_list read;
	struct devpolicy_allow line = { .where = "t.conf:2" };
	struct devpolicy policy;
	int rc;

	rc = devallow_read("/dev/null:rw, c 1:5 r, char-pts rw,/dev/nu?l:r",
			   &read, to(&m));
	ok(rc == 4 && read.n == 4 && read.written == 4,
	   "devallow_read: four entries read");
	ok(read.n == 4 && read.v[0].kind == DEVALLOW_PATH &&
	   read.v[1].kind == DEVALLOW_NUMBERS && read.v[1].rule.major == 1 &&
	   read.v[1].rule.minor == 5 && read.v[2].kind == DEVALLOW_CLASS &&
	   read.v[3].kind == DEVALLOW_GLOB, "  each of its kind");
	is_str(read.n == 4 ? read.v[2].name : NULL, "char-pts rw",
	       "  named as written");
	/* A text that says something else: only the entries count. */
	line.value = "/dev/zero:rwm";
	line.read = &read;
	rc = devpolicy_load_lines(&policy, DEVPOLICY_STRICT, &line, 1,
				  proc_devices, to(&m));
	ok(rc == 0 && policy.allow_entries == 4,
	   "devpolicy_load_lines resolves the entries read");
	is_str(rc == 0 ? list_str(&policy.base) : NULL,
	       "c 1:3 rw; c 1:5 r; c 136:* rw; c 1:3 r",
	       "  not the line's text again");
	devpolicy_free(&policy);
	devallow_list_free(&read);
	ok(devallow_read("/dev/null:rw,bogus:r", &read, to(&m)) == -1 &&
	   errno == EINVAL && read.n == 0 && !read.v,
	   "a refused value leaves no entries");
}

/*
 * The spellings issue 30 adds: systemd's "PATH rw" (path, blank, access)
 * and the tool's own output, "c 195:* rwm" (devrule_format()).  Today's
 * code refuses both ("has no ':ACCESS'", "'c 195' is neither ...").
 */
static void test_forms(void)
{
	struct msgs m = { .text = "" };
	int rc;

	is_str(parsed("/dev/null rw", &m, &rc), "c 1:3 rw",
	       "systemd's form: /dev/null rw");
	is_str(parsed("  /dev/zero \t r , /dev/full:rwm, char-pts rw", &m, &rc),
	       "c 1:5 r; c 1:7 rwm; c 136:* rw",
	       "mixed with SPEC:ACCESS, blanks and a class");
	is_int(rc, 3, "  three entries");
	is_str(parsed("c 195:* rwm", &m, &rc), "c 195:* rwm",
	       "the tool's output form: c 195:* rwm");
	is_str(parsed("b 8:0 r,c 1:3 rw, c\t10:200 m", &m, &rc),
	       "b 8:0 r; c 1:3 rw; c 10:200 m", "  b 8:0 r, c 1:3 rw");
	is_int(m.errors + m.warnings, 0, "  no messages");
	is_str(parsed("c 4095:1048575 r", &m, &rc), "c 4095:1048575 r",
	       "  Linux's largest device numbers");
	parse_fails("c 195:x rw", "DeviceAllow entry 'c 195:x rw': 'c 195:x' "
		    "is not TYPE MAJOR:MINOR", "numbers form: bad minor");
	parse_fails("c 4096:0 r", "'c 4096:0' is not TYPE MAJOR:MINOR",
		    "numbers form: major beyond 12 bits");
	parse_fails("b 1:1048576 r", "'b 1:1048576' is not TYPE MAJOR:MINOR",
		    "numbers form: minor beyond 20 bits");
	parse_fails("c *:* rwm", "'c *:*' is not TYPE MAJOR:MINOR",
		    "numbers form: any major");
	parse_fails("c 1:3", "DeviceAllow entry 'c 1:3' has no access",
		    "numbers form without access");
	parse_fails("c 1:3 -", "bad access '-'", "the tool's '-' (no access)");
	parse_fails("a 1:3 rw", "'a 1:3' is neither", "type a");
	parse_fails("/dev/null rx", "DeviceAllow entry '/dev/null rx': bad "
		    "access 'rx'", "systemd's form: bad access");
	parse_fails("/dev/null", "'/dev/null' has no ':ACCESS' (want "
		    "SPEC:ACCESS or SPEC ACCESS", "neither form");
	ok(devallow_read("/dev/x rw, c 195:* rwm, b 8:0 r,"
			 "/dev/nvidia* rw, char-nvidia* rw", NULL,
			 to(&m)) == 5 && m.errors == 0,
	   "the syntax check takes every form");
	check_fails("c 195 rw", "'c 195' is not TYPE MAJOR:MINOR");
}

/* What check prints ("device c 195:* rw") reads back as the same rules. */
static void test_forms_round_trip(void)
{
	struct devrule_list l, back;
	struct msgs m = { .text = "" };
	char text[4096] = "", rule[64], want[4096];
	size_t n = 0;

	devrule_list_init(&l, false);
	parse_allow("/dev/null:rw,char-nvidia:r,block-loop:rwm,"
		    "/dev/zero:m", proc_devices, &l, to(&m));
	devrule_list_normalise(&l);
	snprintf(want, sizeof(want), "%s", list_str(&l));
	for (size_t i = 0; i < l.count; i++) {
		devrule_format(&l.rules[i], rule, sizeof(rule));
		n += snprintf(text + n, sizeof(text) - n, "%s%s", i ? "," : "",
			      rule);
	}
	devrule_list_init(&back, false);
	ok(parse_allow(text, proc_devices, &back, to(&m)) == (int)l.count &&
	   m.errors == 0, "devns check's rules parse: %s", text);
	devrule_list_normalise(&back);
	is_str(list_str(&back), want, "  into the same list");
	devrule_list_free(&l);
	devrule_list_free(&back);
}

/*
 * devns check's look at the patterns of text, read first as the settings
 * read it at load.
 */
static int check_patterns(const char *text, const char *where,
			  struct report *rep)
{
	struct devallow_list l;
	int rc;

	if (devallow_read(text, &l, rep) < 0)
		return -1;
	rc = devallow_check_patterns(&l, where, proc_devices, rep);
	devallow_list_free(&l);
	return rc;
}

/*
 * Globs in paths and patterns in class names: what they match now; one
 * that matches nothing is skipped with a warning at load, and is an error
 * in devallow_check_patterns() (devns check).
 */
static void test_patterns(void)
{
	struct msgs m = { .text = "" };
	char text[PATH_MAX + 64], want[PATH_MAX + 256];
	int rc;

	is_str(parsed("char-nvidia*:rw", &m, &rc), "c 195:* rw; c 195:* rw; "
	       "c 234:* rw", "char-nvidia*: every class it matches");
	is_str(parsed("char-nv?dia-uvm r", &m, &rc), "c 234:* r",
	       "  ? matches one character");
	is_int(m.warnings, 0, "  no warning");
	memset(&m, 0, sizeof(m));
	is_str(parsed("block-zz*:r", &m, &rc), "",
	       "a class pattern that matches nothing");
	like(m.text, "W: DeviceAllow entry 'block-zz*:r': no block device "
	     "class matches 'zz*' in ", "  is a warning at load: %s", m.text);

	memset(&m, 0, sizeof(m));
	snprintf(text, sizeof(text), "char-nope:r,block-zz*:r,%s/none*:r,"
		 "/dev/null*:rw,/dev/no-such-devns:r,c 1:3 r,char-pts:rw",
		 tmpdir);
	rc = check_patterns(text, "t.conf:4", to(&m));
	ok(rc == -1 && errno == EINVAL && m.errors == 3 && m.warnings == 0,
	   "check_patterns: a class, a class pattern and a glob that match "
	   "nothing are three errors; a missing path is not looked at");
	like(m.text, "E: t.conf:4: DeviceAllow entry 'char-nope:r': no "
	     "character device class 'nope' in ", "  file:line, entry: %s",
	     m.text);
	snprintf(want, sizeof(want), "E: t.conf:4: DeviceAllow entry "
		 "'%s/none*:r': no device node matches %s/none*\n", tmpdir,
		 tmpdir);
	like(m.text, want, "  the glob's message");
	memset(&m, 0, sizeof(m));
	ok(check_patterns("char-nvidia*:rw,/dev/nu?l:r", NULL, to(&m)) == 0 &&
	   m.errors + m.warnings == 0, "patterns that match pass");

	if (!have_nodes) {
		tap_skip("globs of device nodes need mknod (root)");
		return;
	}
	memset(&m, 0, sizeof(m));
	snprintf(text, sizeof(text), "%s/nvidia[0-2]:rw", tmpdir);
	is_str(parsed(text, &m, &rc), "c 195:0 rw; c 195:1 rw; c 195:2 rw",
	       "a glob: every device node it matches");
	snprintf(text, sizeof(text), "%s/pla* r", tmpdir);
	is_str(parsed(text, &m, &rc), "", "a glob matching no device node");
	snprintf(want, sizeof(want), "W: DeviceAllow entry '%s/pla* r': no "
		 "device node matches %s/pla*, entry skipped", tmpdir, tmpdir);
	like(m.text, want, "  is a warning at load (a plain file is no "
	     "device)");
}

/* GRES devices named by numbers are an error; a glob leaves them out. */
static void test_check_gres_forms(void)
{
	const char *node[] = { gpu[0], gpu[1], gpu[2], gpu[3], NULL };
	char allow[PATH_MAX + 64];
	struct devpolicy p;
	struct msgs m = { .text = "" };

	if (!have_nodes) {
		tap_skip("GRES tests need mknod (root)");
		tap_skip("GRES tests need mknod (root)");
		return;
	}
	ok(load_at(&p, "c 195:3 rw, /dev/null rw", &m) == 0 &&
	   devpolicy_check_gres(&p, node, to(&m)) == -1 && m.errors == 1,
	   "naming a GRES device by its numbers is an error");
	like(m.text, "E: namespace.conf:12: DeviceAllow entry 'c 195:3 rw' "
	     "names GRES device", "  saying so: %s", m.text);
	devpolicy_free(&p);
	memset(&m, 0, sizeof(m));
	snprintf(allow, sizeof(allow), "%s/nvidia* rw", tmpdir);
	ok(load_at(&p, allow, &m) == 0 &&
	   devpolicy_check_gres(&p, node, to(&m)) == 0 && m.errors == 0 &&
	   m.infos == 1, "a glob covering GRES devices: an info line");
	devpolicy_free(&p);
}

static void test_normalise(void)
{
	struct devrule_list l;
	char buf[64];
	int bad_union = 0, bad_first = 0, bad_form = 0, bad_pin = 0;
	int iter;

	devrule_list_init(&l, false);
	devrule_list_add(&l, 'c', 1, 3, false, DEVRULE_R);
	devrule_list_add(&l, 'c', 1, 3, false, DEVRULE_W);
	devrule_list_add(&l, 'c', 1, 3, false, DEVRULE_R);
	devrule_list_normalise(&l);
	is_str(list_str(&l), "c 1:3 rw", "duplicates merge into the union");
	devrule_list_free(&l);

	devrule_list_add(&l, 'c', 136, 4, false, DEVRULE_R);
	devrule_list_add(&l, 'c', 136, 0, true, DEVRULE_R | DEVRULE_W);
	devrule_list_add(&l, 'c', 136, 5, false, DEVRULE_R | DEVRULE_W);
	devrule_list_normalise(&l);
	is_str(list_str(&l), "c 136:* rw",
	       "a wildcard subsumes exact rules with no more access");
	devrule_list_free(&l);

	devrule_list_add(&l, 'c', 136, 4, false, DEVRULE_M);
	devrule_list_add(&l, 'c', 136, 0, true, DEVRULE_R | DEVRULE_W);
	devrule_list_normalise(&l);
	is_str(list_str(&l), "c 136:* rw; c 136:4 rwm",
	       "an exact rule with more access stays, widened");
	devrule_list_free(&l);

	devrule_list_add(&l, 'b', 8, 0, false, DEVRULE_R);
	devrule_list_add(&l, 'c', 8, 0, false, DEVRULE_R);
	devrule_list_add(&l, 'c', 1, 5, false, 0);
	devrule_list_add(&l, 'c', 2, 0, true, 0);
	devrule_list_normalise(&l);
	is_str(list_str(&l), "b 8:0 r; c 8:0 r",
	       "default deny: empty rules dropped, char and block kept apart");
	devrule_list_free(&l);

	devrule_list_init(&l, true);
	devrule_list_add(&l, 'c', 195, 0, false, 0);
	devrule_list_add(&l, 'c', 195, 1, false, DEVRULE_RWM);
	devrule_list_add(&l, 'c', 196, 0, true, 0);
	devrule_list_add(&l, 'c', 196, 2, false, DEVRULE_RWM);
	devrule_list_normalise(&l);
	is_str(list_str(&l), "c 195:0 -; c 196:* -; c 196:2 rwm",
	       "default allow: rwm rules dropped unless a wildcard needs them");
	devrule_list_free(&l);

	devrule_list_add(&l, 'c', 195, 0, false, 0);
	devrule_list_add(&l, 'c', 195, 0, true, DEVRULE_RWM);
	devrule_list_normalise(&l);
	is_int(l.count, 0, "default allow: wildcard rwm absorbs denials");
	devrule_list_free(&l);

	/* Pinned rules: the device gets their union, nothing else. */
	devrule_list_init(&l, false);
	devrule_list_add(&l, 'c', 195, 0, true, DEVRULE_R | DEVRULE_W);
	devrule_list_pin(&l, 'c', 195, 0, 0);
	devrule_list_add(&l, 'c', 195, 0, false, DEVRULE_M);
	devrule_list_pin(&l, 'c', 195, 3, DEVRULE_R);
	is_int(devaccess(&l, 'c', 195, 0), 0,
	   "pinned to nothing: neither the wildcard nor an exact rule adds");
	devrule_list_normalise(&l);
	is_str(list_str(&l), "c 195:* rw; c 195:0 -; c 195:3 r",
	       "pinned rules narrower than their wildcard stay, unwidened");
	ok(l.count == 3 && l.rules[1].pinned && l.rules[2].pinned,
	   "and stay pinned");
	is_int(first_match(&l, 'c', 195, 0) | first_match(&l, 'c', 195, 3),
	       DEVRULE_R, "exact-first lookup agrees");
	devrule_list_free(&l);

	devrule_list_pin(&l, 'c', 195, 1, 0);
	devrule_list_pin(&l, 'c', 195, 1, DEVRULE_RWM);
	devrule_list_add(&l, 'c', 195, 0, true, DEVRULE_R);
	devrule_list_pin(&l, 'c', 195, 2, DEVRULE_R | DEVRULE_M);
	devrule_list_pin(&l, 'c', 196, 2, DEVRULE_R);
	devrule_list_normalise(&l);
	is_str(list_str(&l), "c 195:* r; c 195:1 rwm; c 195:2 rm; c 196:2 r",
	       "pinned rules merge into their union (the job's GPU wins)");
	ok(!l.rules[1].pinned && !l.rules[2].pinned && !l.rules[3].pinned,
	   "pinned rules as wide as their wildcard, or without one, are unpinned");
	devrule_list_free(&l);

	devrule_list_init(&l, true);
	devrule_list_add(&l, 'c', 195, 0, true, DEVRULE_RWM);
	devrule_list_pin(&l, 'c', 195, 0, 0);
	devrule_list_pin(&l, 'c', 195, 1, DEVRULE_R);
	devrule_list_normalise(&l);
	is_str(list_str(&l), "c 195:0 -; c 195:1 r",
	       "default allow: the wildcard equal to the default goes, the pinned rules stay");
	ok(l.count == 2 && !l.rules[0].pinned && !l.rules[1].pinned,
	   "unpinned once their wildcard is gone");
	devrule_list_free(&l);
	devrule_list_init(&l, false);

	ok(devrule_list_pin(&l, 'x', 1, 1, 0) == -1 && errno == EINVAL,
	   "pin: bad type rejected");
	ok(devrule_list_add(&l, 'x', 1, 1, false, 0) == -1 && errno == EINVAL,
	   "bad type rejected");
	ok(devrule_list_add(&l, 'c', 1, 1, false, 8) == -1 && errno == EINVAL,
	   "bad access rejected");

	{
		struct devrule r = { 'c', 195, 0, true, DEVRULE_R | DEVRULE_W,
				     false };

		devrule_format(&r, buf, sizeof(buf));
		is_str(buf, "c 195:* rw", "format wildcard");
		r = (struct devrule){ 'b', 7, 3, false, DEVRULE_RWM, false };
		devrule_format(&r, buf, sizeof(buf));
		is_str(buf, "b 7:3 rwm", "format block");
		r = (struct devrule){ 'c', 1, 3, false, 0, false };
		devrule_format(&r, buf, sizeof(buf));
		is_str(buf, "c 1:3 -", "format no access");
		r.type = 'a';
		ok(devrule_format(&r, buf, sizeof(buf)) == -1,
		   "format rejects bad type");
	}

	/*
	 * Random lists: normalising keeps the union semantics, makes first
	 * match equal to it, and leaves sorted unique keys.
	 */
	for (iter = 0; iter < 2000; iter++) {
		unsigned before[2][4][5];
		int n = (int)rnd(12), i, t, ma, mi;
		size_t k;

		devrule_list_init(&l, rnd(2));
		for (i = 0; i < n; i++) {
			char ty = rnd(2) ? 'c' : 'b';
			uint32_t ma = rnd(4), mi = rnd(5);

			if (rnd(4) == 0)
				devrule_list_pin(&l, ty, ma, mi, rnd(8));
			else
				devrule_list_add(&l, ty, ma, mi, rnd(4) == 0,
						 rnd(8));
		}
		for (t = 0; t < 2; t++)
			for (ma = 0; ma < 4; ma++)
				for (mi = 0; mi < 5; mi++)
					before[t][ma][mi] = devaccess(
						&l, t ? 'c' : 'b', ma, mi);
		devrule_list_normalise(&l);
		for (t = 0; t < 2; t++)
			for (ma = 0; ma < 4; ma++)
				for (mi = 0; mi < 5; mi++) {
					char ty = t ? 'c' : 'b';

					if (devaccess(&l, ty, ma, mi) !=
					    before[t][ma][mi])
						bad_union++;
					if (first_match(&l, ty, ma, mi) !=
					    before[t][ma][mi])
						bad_first++;
				}
		for (k = 1; k < l.count; k++) {
			const struct devrule *a = &l.rules[k - 1], *b = &l.rules[k];

			if (a->type > b->type ||
			    (a->type == b->type && a->major > b->major) ||
			    (a->type == b->type && a->major == b->major &&
			     (b->any_minor ||
			      (!a->any_minor && a->minor >= b->minor))))
				bad_form++;
		}
		/* Canonical: pinned only under a wildcard with more access. */
		for (k = 0; k < l.count; k++) {
			const struct devrule *r = &l.rules[k], *w = NULL;
			size_t j;

			for (j = 0; j < l.count; j++)
				if (l.rules[j].any_minor &&
				    l.rules[j].type == r->type &&
				    l.rules[j].major == r->major)
					w = &l.rules[j];
			if (r->pinned != (!r->any_minor && w &&
					  (w->access & ~r->access)))
				bad_pin++;
		}
		devrule_list_free(&l);
	}
	is_int(bad_union, 0, "random lists (with pins): semantics unchanged");
	is_int(bad_first, 0, "random lists: first match equals the semantics");
	is_int(bad_form, 0, "random lists: sorted, keys unique");
	is_int(bad_pin, 0, "random lists: pinned exactly where it matters");
}

int main(void)
{
	setup();
	test_syntax();
	test_check_allow();
	test_read_once();
	test_paths();
	test_classes();
	test_modes();
	test_gres();
	test_gres_class();
	test_check_gres();
	test_none();
	test_forms();
	test_forms_round_trip();
	test_patterns();
	test_check_gres_forms();
	test_normalise();
	teardown();
	return tap_done();
}
