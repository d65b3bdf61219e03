/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_devns_tool.c - the devns admin tool end to end, run as a program
 * (DEVNS_TOOL) on a scratch node: its own slurm.conf (SLURM_CONF, with
 * %n in SlurmdSpoolDir and SlurmdPidFile), namespace.conf and gres.conf
 * beside it, fake GPUs (char 195:0 and 195:1) and a fake device (240:7)
 * in a scratch directory.
 *
 *   check    the whole output for a node and a GRES, each setting
 *            with the file:line it came from, NodeName lines, every
 *            SPEC form, and each kind of error with its exit status and
 *            exact message, those of conf/confcheck (a missing InitScript or
 *            Source part, a DeviceAllow pattern matching nothing, a
 *            NodeName that is slurm.conf's in another case) included;
 *            slurmd's verdict (issue 46): the release rules of the
 *            release it was built for, every bad line in one run, a
 *            NodeName that matches no node, a mount point missing or
 *            holding data, -n of another machine without its GRES
 *            device files (notes, filter unknown)
 *   show     a real job made with jobct_setup() (namespace, cgroup,
 *            filter) and a process joined to it: the pin, the private
 *            mounts, the process in the namespace and the cgroup, the
 *            rules read back from the kernel equal to check's; a
 *            process name and a mount point the job chose with a terminal
 *            escape, a newline, a backslash and a byte that is no UTF-8
 *            come out escaped, one line each
 *   --json   each command's output read back by a strict JSON reader
 *            (testsuite/lib/jsonread.h): one object, nothing else on
 *            stdout, the meta block, typed setting values (numbers,
 *            booleans, null, lists), the documented keys with the values the text
 *            output has (rules with their device files, errors with
 *            file and line), the job's escaped names back byte for byte
 *   cleanup  a live job (a listening stepd socket) and a dead one (a
 *            stale socket): --dry-run lists the dead one and removes
 *            nothing; with slurmd running it refuses; then it removes
 *            the dead job and keeps the live one, and the live one goes
 *            once its socket does
 *
 * Under valgrind (testsuite/unit/valgrind.sh exports DEVNS_TOOL_WRAPPER)
 * the tool runs under valgrind too.  Needs root, cgroup2 and bpf;
 * otherwise the whole file is skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dev/cgroup2.h"
#include "dev/devprog.h"
#include "job/jobct.h"
#include "ns/dquota.h"
#include "ns/nsloop.h"
#include "conf/nsrelease.h"
#include "util/safepath.h"
#include "util/saferm.h"
#include "devns_config.h"
#include "jsonread.h"
#include "tap.h"
#include "testrep.h"

static char tmp[] = "/var/lib/test_devns_tool.XXXXXX";
static char etc[64], slurm_conf[96], conf[96], gres_conf[96], base[96];
static char dev[64], gpu0[96], gpu1[96], fake[96], spool[128], pid_file[128];
static char node[32], other[32], cg_mount[256], layout[16], host[256];
static char out[65536], err[65536];	/* the last run's output */

/* ---- running the tool ------------------------------------------------ */

static void read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, len - 1) : -1;

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

/*
 * Drop from text valgrind's own notes ("--PID-- ..." lines: e.g. that it
 * does not know openat2(2), which the tool then falls back from): not the
 * tool's output.
 */
static void drop_valgrind_notes(char *text)
{
	char *r = text, *w = text;

	while (*r) {
		size_t len = strcspn(r, "\n") + (r[strcspn(r, "\n")] ? 1 : 0);
		size_t digits = r[0] == '-' && r[1] == '-' ?
				strspn(r + 2, "0123456789") : 0;

		if (!(digits && r[2 + digits] == '-' && r[3 + digits] == '-')) {
			memmove(w, r, len);
			w += len;
		}
		r += len;
	}
	*w = '\0';
}

/*
 * Runs the tool with the NULL-terminated arguments; out and err get what
 * it printed.  Returns its exit status, or -1 when it did not exit.
 */
static int tool(const char *arg, ...)
{
	const char *argv[32], *wrapper = getenv("DEVNS_TOOL_WRAPPER");
	char out_path[128], err_path[128];
	int n = 0, status;
	va_list ap;
	pid_t pid;

	if (wrapper && *wrapper)
		argv[n++] = wrapper;
	argv[n++] = DEVNS_TOOL;
	va_start(ap, arg);
	for (const char *a = arg; a && n < 31; a = va_arg(ap, const char *))
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	snprintf(out_path, sizeof(out_path), "%s/stdout", tmp);
	snprintf(err_path, sizeof(err_path), "%s/stderr", tmp);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(126);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	read_file(out_path, out, sizeof(out));
	read_file(err_path, err, sizeof(err));
	if (wrapper && *wrapper)
		drop_valgrind_notes(err);
	unlink(out_path);
	unlink(err_path);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The first line of text, for test names. */
static const char *line1(const char *text)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(text, "\n"), text);
	return buf;
}

/* Whether text holds line as a whole line. */
static bool has_line(const char *text, const char *line)
{
	size_t len = strlen(line);

	for (const char *p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') &&
		    (p[len] == '\n' || p[len] == '\0'))
			return true;
	return false;
}

/*
 * Whether text holds the setting "key value" as check prints it: the
 * whole line, or followed by where it came from, " (...)".
 */
static bool has_setting(const char *text, const char *kv)
{
	size_t len = strlen(kv);

	for (const char *p = text; (p = strstr(p, kv)); p++)
		if ((p == text || p[-1] == '\n') &&
		    (p[len] == '\n' || p[len] == '\0' ||
		     !strncmp(p + len, " (", 2)))
			return true;
	return false;
}

/*
 * Whether text has the device rule "device RULE PATH" for some PATH (the
 * device's file, or "-"): the rule whatever file it names.
 */
static bool has_rule(const char *text, const char *rule)
{
	char line[128];
	size_t len;

	len = (size_t)snprintf(line, sizeof(line), "device %s ", rule);
	for (const char *p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && p[len] && p[len] != '\n' &&
		    p[len] != ' ')
			return true;
	return false;
}

/* The lines of text that start with one of the prefixes, in order. */
static void lines_of(const char *text, const char *const *prefixes,
		     char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (const char *p = text; *p; ) {
		size_t l = strcspn(p, "\n");

		for (size_t i = 0; prefixes[i]; i++)
			if (!strncmp(p, prefixes[i], strlen(prefixes[i])) &&
			    n + l + 2 < len) {
				memcpy(buf + n, p, l + 1);
				n += l + 1;
				buf[n] = '\0';
				break;
			}
		p += l + (p[l] == '\n');
	}
}

/*
 * The last run's stdout as JSON: it must be one object and nothing else.
 * Returns it (free with jv_free()), or NULL after a failed test.
 */
static struct jv *json_out(const char *what)
{
	char why[128];
	struct jv *v = jv_parse(out, why, sizeof(why));

	if (!ok(v && v->type == JV_OBJECT, "  %s: stdout is one JSON object%s%s",
		what, v ? "" : ": ", why)) {
		diag("stdout: %s", out);
		jv_free(v);
		return NULL;
	}
	return v;
}

/* The boolean at path is want (false when it is no boolean). */
static bool jv_is(const struct jv *v, const char *path, bool want)
{
	const struct jv *b = jv_get(v, path);

	return b && b->type == JV_BOOL && b->boolean == want;
}

/* The number at path as written ("" when it is no number). */
static const char *jv_num(const struct jv *v, const char *path)
{
	const struct jv *n = jv_get(v, path);

	return n && n->type == JV_NUMBER ? n->text : "";
}

/* The element of the array at path whose member key has value, or NULL. */
static const struct jv *jv_find(const struct jv *v, const char *path,
				const char *key, const char *value)
{
	const struct jv *a = jv_get(v, path);

	for (size_t i = 0; a && a->type == JV_ARRAY && i < a->count; i++) {
		const char *s = jv_str(&a->items[i], key);

		if (s && !strcmp(s, value))
			return &a->items[i];
	}
	return NULL;
}

/* ---- the scratch node ---------------------------------------------------- */

__attribute__((format(printf, 2, 3)))
static void write_file(const char *path, const char *fmt, ...)
{
	FILE *f = fopen(path, "w");
	va_list ap;

	if (!f)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* The job_container.conf most tests use: strict, so the rules are exact. */
static void write_conf(const char *extra)
{
	write_file(conf, "BasePath=%s\nDevicePolicy=strict\n"
		   "DeviceAllow=%s:rw\n"
		   "NodeName=%s ShmSize=1G\n"
		   "NodeName=%s ShmSize=2G TmpSize=3G\n%s",
		   base, fake, node, other, extra);
}

/*
 * The scratch node's slurm.conf, with one more line: node is this machine
 * (its NodeHostname), other another one.
 */
static void write_slurm_conf(const char *extra)
{
	/* %n as in multiple-slurmd clusters; Include lines are skipped */
	write_file(slurm_conf, "ClusterName=test\nInclude /nonexistent\n"
		   "SlurmdSpoolDir=%s/spool/%%n\n"
		   "SlurmdPidFile=%s/slurmd-%%n.pid\n"
		   "NodeName=%s NodeHostname=%s\nNodeName=%s\n%s\n", tmp, tmp,
		   node, host, other, extra);
}

static int make_scratch(void)
{
	if (!mkdtemp(tmp) || chmod(tmp, 0755) < 0)
		return -1;
	snprintf(etc, sizeof(etc), "%s/etc", tmp);
	snprintf(slurm_conf, sizeof(slurm_conf), "%s/slurm.conf", etc);
	snprintf(conf, sizeof(conf), "%s/job_container.conf", etc);
	snprintf(gres_conf, sizeof(gres_conf), "%s/gres.conf", etc);
	snprintf(base, sizeof(base), "%s/base", tmp);
	snprintf(dev, sizeof(dev), "%s/dev", tmp);
	snprintf(gpu0, sizeof(gpu0), "%s/nvidia0", dev);
	snprintf(gpu1, sizeof(gpu1), "%s/nvidia1", dev);
	snprintf(fake, sizeof(fake), "%s/fake", dev);
	snprintf(node, sizeof(node), "ut%d", (int)getpid());
	snprintf(other, sizeof(other), "other%d", (int)getpid());
	if (gethostname(host, sizeof(host)) < 0)
		return -1;
	host[sizeof(host) - 1] = '\0';
	host[strcspn(host, ".")] = '\0';
	snprintf(spool, sizeof(spool), "%s/spool/%s", tmp, node);
	snprintf(pid_file, sizeof(pid_file), "%s/slurmd-%s.pid", tmp, node);
	if (mkdir(etc, 0755) < 0 || mkdir(base, 0755) < 0 ||
	    mkdir(dev, 0755) < 0 ||
	    mknod(gpu0, S_IFCHR | 0666, makedev(195, 0)) < 0 ||
	    mknod(gpu1, S_IFCHR | 0666, makedev(195, 1)) < 0 ||
	    mknod(fake, S_IFCHR | 0666, makedev(240, 7)) < 0)
		return -1;
	{
		char dir[128];

		snprintf(dir, sizeof(dir), "%s/spool", tmp);
		if (mkdir(dir, 0755) < 0 || mkdir(spool, 0700) < 0)
			return -1;
	}
	/* %n as in multiple-slurmd clusters; Include lines are skipped */
	write_slurm_conf("PrologFlags=Contain");
	write_file(gres_conf, "# two fake GPUs on the test nodes\n"
		   "NodeName=%s,%s Name=gpu Type=fake File=%s/nvidia[0-1]\n"
		   "AutoDetect=off\nName=mps Count=100\n", node, other, dev);
	write_conf("");
	return setenv("SLURM_CONF", slurm_conf, 1);
}

static void remove_scratch(void)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/devns/%s", cg_mount, node);
	rmdir(path);
	{
		char parent[PATH_MAX];

		snprintf(parent, sizeof(parent), "%s/devns", cg_mount);
		rmdir(parent);	/* unless another user of it is there */
	}
	fd = open("/var/lib", O_PATH | O_DIRECTORY | O_CLOEXEC);
	ok(fd >= 0 && saferm_at(fd, strrchr(tmp, '/') + 1) == 0 &&
	   !exists(tmp) && !exists(path),
	   "no leftovers: the scratch tree and the node's cgroup are gone");
	if (fd >= 0)
		close(fd);
}

/* ---- check ------------------------------------------------------------- */

static void test_check(void)
{
	char want[8192];

	/* Each setting with where it came from (issue 30): file:line. */
	snprintf(want, sizeof(want),
		 "file %s\nnode %s\nbasepath %s (%s:1)\n"
		 "autobasepath no (default)\n"
		 "dirs /tmp,/dev/shm (default)\ninitscript none (default)\n"
		 "clonensscript none (default)\n"
		 "clonensscriptwait 10 (default)\n"
		 "clonensepilog none (default)\n"
		 "clonensepilogwait 10 (default)\n"
		 "entirestepinns no (default)\n"
		 "shared no (default)\n"
		 "pidnamespace no (default)\n"
		 "usernamespace no (default)\n"
		 "usernsscript none (default)\n"
		 "namespacepool 0 (default)\n"
		 "namespacepoolready 0\n"
		 "shmsize 1073741824 (%s:4)\ntmpsize none (default)\n"
		 "tmpdisklimit none (default)\ntmpdiskgres none (default)\n"
		 "tmpinodelimit 0 (default)\ntmpbackend dir (default)\n"
		 "tmpdiskquota none\nkeeppaths none (default)\n"
		 "dir /tmp type=bind options=nosuid,nodev (default)\n"
		 "dir /dev/shm type=tmpfs size=1073741824 options=nosuid,nodev "
		 "(ShmSize %s:4)\n"
		 "devicepolicy strict (%s:2)\n"
		 "deviceallow %s:rw (%s:3)\ncdispecdirs none (default)\n"
		 "cgrouplayout %s\ngrescfg %s\n"
		 "nodedevice %s\nnodedevice %s\njobdevice %s\nfilter yes\n"
		 "device c 195:1 rwm %s\ndevice c 240:7 rw %s\ndefault deny\n",
		 conf, node, base, conf, conf, conf, conf, fake, conf, layout,
		 gres_conf, gpu0, gpu1, gpu1, gpu1, fake);
	is_int(tool("check", "--node", node, "--gres", "gpu:1(IDX:1)", NULL),
	       0, "check: a good file passes");
	is_str(out, want, "  the node's settings, each with its file:line, and "
	       "the job's rules, one key value line each, with the device's "
	       "file (gres.conf's, DeviceAllow's)");
	is_str(err, "", "  nothing on stderr");

	is_int(tool("check", "-f", conf, "-n", other, NULL), 0,
	       "check -n: another node");
	ok(has_setting(out, "shmsize 2147483648") &&
	   has_setting(out, "tmpsize 3221225472"),
	   "  its NodeName line applies");
	ok(!has_rule(out, "c 195:0 rwm") &&
	   !has_rule(out, "c 195:1 rwm"),
	   "  without --gres neither GPU is allowed");
	ok(has_line(out, "jobdevice") == false && has_line(out, "default deny"),
	   "  no job device, default deny");

	is_int(tool("check", NULL), 0, "check: the short host name by default");
	{
		char host[256], line[300];

		gethostname(host, sizeof(host));
		host[strcspn(host, ".")] = '\0';
		snprintf(line, sizeof(line), "node %s", host);
		ok(has_line(out, line) && has_setting(out, "shmsize none"),
		   "  as node %s, which no NodeName line names", host);
	}
	snprintf(want, sizeof(want), "file %s", conf);
	ok(has_line(out, want), "  job_container.conf found beside $SLURM_CONF");
	{
		char old[PATH_MAX + 32];

		snprintf(old, sizeof(old), "%s/namespace.conf", etc);
		ok(link(conf, old) == 0, "precondition: namespace.conf beside it");
		is_int(tool("check", NULL), 1, "check: both job_container.conf "
		       "and namespace.conf: exit 1");
		ok(strstr(err, conf) && strstr(err, old) &&
		   strstr(err, "both"), "  naming both: %s", err);
		ok(unlink(conf) == 0, "precondition: only namespace.conf");
		is_int(tool("check", NULL), 0, "check: namespace.conf alone "
		       "is read (0.1's name)");
		snprintf(want, sizeof(want), "file %s", old);
		ok(has_line(out, want) && strstr(err, "deprecated"),
		   "  with a warning that the name is deprecated: %s", err);
		rename(old, conf);
	}

	/* TmpDiskGres against a node's slurm.conf Gres= (a BasePath not
	 * made yet: its quota is a warning, this host may have none). */
	write_file(conf, "BasePath=%s/nobase\nAutoBasePath=yes\n"
		   "TmpDiskGres=tmpdisk\n", tmp);
	write_slurm_conf("PrologFlags=Contain\nNodeName=DEFAULT Gres=gpu:2\n"
			 "NodeName=nogres9\nNodeName=DEFAULT Gres=tmpdisk:800M\n"
			 "NodeName=disk9");
	is_int(tool("check", "--node", "nogres9", NULL), 1,
	       "check: TmpDiskGres naming no GRES of the node's slurm.conf fails");
	like(err, "TmpDiskGres=tmpdisk: node nogres9 has no GRES tmpdisk in slurm.conf (Gres=gpu:2)",
	     "  saying so: %s", err);
	is_int(tool("check", "--node", "disk9", NULL), 0,
	       "  a node whose Gres= (NodeName=DEFAULT's) has it passes (%s)",
	       err);
	ok(has_line(out, "tmpdiskgres tmpdisk (") ||
	   strstr(out, "tmpdiskgres tmpdisk ("),
	   "  and prints it with its line");
	is_int(tool("check", "--node", "unlisted9", NULL), 0,
	       "  a node no NodeName line names: not judged (%s)", err);
	write_conf("");

	write_slurm_conf("PrologFlags=Alloc");
	is_int(tool("check", "--node", node, NULL), 1,
	       "check: slurm.conf without PrologFlags=Contain fails");
	like(err, "PrologFlags=Contain is not set", "  saying so: %s", err);
	write_slurm_conf("PrologFlags=alloc,X11");
	is_int(tool("check", "--node", node, NULL), 0,
	       "  PrologFlags=X11, which implies it, passes");
	write_slurm_conf("PrologFlags=Contain");
}

/*
 * CDISpecDirs: a spec made here gives GPU 1 its companion and the shared
 * nvidiactl, never GPU 0's companion; check lists each spec device with
 * its file:line and whether the job gets it; a spec that does not parse
 * fails check, naming its file and line.
 */
static void test_check_cdi(void)
{
	char cdi[128], spec[160], cap0[96], cap1[96], ctl[96], want[1024];
	struct jv *v;

	snprintf(cdi, sizeof(cdi), "%s/cdi", tmp);
	snprintf(spec, sizeof(spec), "%s/nvidia.yaml", cdi);
	snprintf(cap0, sizeof(cap0), "%s/cap0", dev);
	snprintf(cap1, sizeof(cap1), "%s/cap1", dev);
	snprintf(ctl, sizeof(ctl), "%s/nvidiactl", dev);
	if (!ok(mkdir(cdi, 0755) == 0 &&
		mknod(cap0, S_IFCHR | 0600, makedev(236, 0)) == 0 &&
		mknod(cap1, S_IFCHR | 0600, makedev(236, 1)) == 0 &&
		mknod(ctl, S_IFCHR | 0600, makedev(195, 255)) == 0,
		"precondition: CDI companions and a spec directory"))
		return;
	write_file(spec, "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\n"
		   "containerEdits:\n  deviceNodes:\n  - path: %s\n"
		   "devices:\n- name: \"0\"\n  containerEdits:\n"
		   "    deviceNodes:\n    - path: %s\n    - path: %s\n"
		   "- name: \"1\"\n  containerEdits:\n"
		   "    deviceNodes:\n    - path: %s\n    - path: %s\n",
		   ctl, gpu0, cap0, gpu1, cap1);
	chmod(spec, 0644);
	snprintf(want, sizeof(want), "CDISpecDirs=%s\n", cdi);
	write_conf(want);
	is_int(tool("check", "--node", node, "--gres", "gpu:1(IDX:1)", NULL),
	       0, "check with CDISpecDirs: exit 0");
	snprintf(want, sizeof(want), "cdispecdirs %s (%s:6)", cdi, conf);
	ok(has_line(out, want), "  cdispecdirs with its line");
	snprintf(want, sizeof(want), "cdishared nvidia.com/gpu %s (%s)", ctl,
		 spec);
	ok(has_line(out, want), "  the spec's shared node, with the spec");
	snprintf(want, sizeof(want), "cdidevice nvidia.com/gpu=1 job=yes "
		 "%s,%s (%s:12)", gpu1, cap1, spec);
	ok(has_line(out, want), "  GPU 1's nodes, the job's, with file:line");
	snprintf(want, sizeof(want), "cdidevice nvidia.com/gpu=0 job=no "
		 "%s,%s (%s:7)", gpu0, cap0, spec);
	ok(has_line(out, want), "  GPU 0's, not the job's");
	ok(has_rule(out, "c 236:1 rwm") && has_rule(out, "c 195:255 rwm") &&
	   has_rule(out, "c 195:1 rwm"),
	   "  the job's rules: GPU 1, its companion, nvidiactl");
	ok(!has_rule(out, "c 236:0 rwm") && !has_rule(out, "c 195:0 rwm"),
	   "  not GPU 0 nor its companion");
	if (!ok(!strstr(out, "job=yes") || strstr(out, "gpu=1 job=yes"),
		"  only GPU 1 is the job's"))
		diag("%s", out);
	is_int(tool("check", "--json", "--node", node, "--gres",
		    "gpu:1(IDX:1)", NULL), 0, "check --json with CDISpecDirs");
	if ((v = json_out("check --json, CDI"))) {
		const struct jv *sp = jv_find(v, "cdi", "kind",
					      "nvidia.com/gpu");
		const struct jv *d1 = sp ? jv_find(sp, "devices", "name", "1")
					 : NULL;
		const struct jv *d0 = sp ? jv_find(sp, "devices", "name", "0")
					 : NULL;

		ok(sp && !strcmp(jv_str(sp, "file"), spec),
		   "  cdi: the spec, with its file");
		ok(d1 && jv_is(d1, "job", true) && !strcmp(jv_num(d1, "line"),
							    "12"),
		   "  device 1: the job's, line 12");
		ok(d0 && jv_is(d0, "job", false), "  device 0: not the job's");
		jv_free(v);
	}

	write_file(spec, "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\n"
		   "devices:\n- name: \"0\"\n   containerEdits: {}\n");
	is_int(tool("check", "--node", node, NULL), 1,
	       "check with a spec that does not parse: exit 1");
	snprintf(want, sizeof(want), "%s:5: unexpected indentation", spec);
	like(err, want, "  naming the spec's file and line: %s", err);
	write_conf("");
}

/* check --json: the keys devns(8) documents, with the text's values. */
static void test_check_json(void)
{
	const struct jv *set, *dev;
	char where[PATH_MAX];
	struct jv *v;

	is_int(tool("check", "--json", "--node", node, "--gres", "gpu:1(IDX:1)",
		    NULL), 0, "check --json: exit 0");
	is_str(err, "", "  nothing on stderr");
	if (!(v = json_out("check --json")))
		return;
	is_str(jv_str(v, "command"), "check", "  command");
	ok(jv_is(v, "ok", true), "  ok: true");
	is_str(jv_str(v, "file"), conf, "  file");
	is_str(jv_str(v, "node"), node, "  node");
	/* meta: what wrote it, for which Slurm, in which schema */
	is_str(jv_str(v, "meta.devns_version"), PACKAGE_VERSION,
	       "  meta.devns_version");
	is_str(jv_str(v, "meta.slurm_release"), DEVNS_SLURM_VERSION,
	       "  meta.slurm_release");
	is_str(jv_num(v, "meta.schema_version"), "2", "  meta.schema_version");
	/* settings: values typed (doc/json.md) */
	set = jv_find(v, "settings", "key", "shmsize");
	snprintf(where, sizeof(where), "%s:4", conf);
	ok(set && !strcmp(jv_num(set, "value"), "1073741824") &&
	   !strcmp(jv_str(set, "source"), where),
	   "  settings: shmsize 1073741824, a number, from %s", where);
	set = jv_find(v, "settings", "key", "tmpsize");
	ok(set && jv_get(set, "value")->type == JV_NULL &&
	   !strcmp(jv_str(set, "source"), "default"),
	   "  settings: tmpsize null, default");
	set = jv_find(v, "settings", "key", "basepath");
	ok(set && jv_str(set, "value") && !strcmp(jv_str(set, "value"), base),
	   "  settings: basepath a string");
	set = jv_find(v, "settings", "key", "shared");
	ok(set && jv_is(set, "value", false), "  settings: shared false, a "
	   "boolean");
	set = jv_find(v, "settings", "key", "clonensscriptwait");
	ok(set && !strcmp(jv_num(set, "value"), "10"),
	   "  settings: clonensscriptwait 10, a number");
	set = jv_find(v, "settings", "key", "initscript");
	ok(set && jv_get(set, "value")->type == JV_NULL,
	   "  settings: initscript null");
	set = jv_find(v, "settings", "key", "dirs");
	ok(set && jv_get(set, "value")->type == JV_ARRAY &&
	   jv_get(set, "value")->count == 2 &&
	   !strcmp(jv_str(set, "value.1"), "/dev/shm"),
	   "  settings: dirs a list");
	set = jv_find(v, "settings", "key", "deviceallow");
	snprintf(where, sizeof(where), "%s:3", conf);
	ok(set && jv_get(set, "value")->type == JV_ARRAY &&
	   jv_get(set, "value")->count == 1 &&
	   jv_str(set, "sources.0") && !strcmp(jv_str(set, "sources.0"), where)
	   && !strcmp(jv_str(set, "source"), where),
	   "  settings: deviceallow a list, each entry's line in sources");
	ok(jv_get(v, "settings")->count == 27, "  27 settings, one each");
	ok(jv_get(v, "notes") && jv_get(v, "notes")->count == 0,
	   "  no notes");
	set = jv_find(v, "dirs", "path", "/dev/shm");
	ok(set && !strcmp(jv_str(set, "type"), "tmpfs") &&
	   !strcmp(jv_num(set, "size"), "1073741824") &&
	   jv_get(set, "source")->type == JV_NULL &&
	   jv_get(set, "options")->type == JV_ARRAY &&
	   !strcmp(jv_str(set, "options.1"), "nodev"),
	   "  dirs: /dev/shm, a tmpfs of 1G, no Source, options a list");
	is_str(jv_str(v, "cgrouplayout"), layout, "  cgrouplayout");
	is_str(jv_str(v, "grescfg"), gres_conf, "  grescfg");
	is_str(jv_str(v, "nodedevices.1"), gpu1, "  nodedevices");
	is_str(jv_str(v, "jobdevices.0"), gpu1, "  jobdevices");
	ok(jv_get(v, "jobdevices")->count == 1, "  one job device");
	ok(jv_is(v, "filter", true) && jv_is(v, "autodetect", false) &&
	   jv_get(v, "filter_note")->type == JV_NULL,
	   "  filter: true, no AutoDetect, no note");
	is_str(jv_str(v, "rules.default"), "deny", "  rules.default");
	dev = jv_get(v, "rules.devices.0");
	ok(dev && !strcmp(jv_str(dev, "rule"), "c 195:1 rwm") &&
	   !strcmp(jv_str(dev, "type"), "c") &&
	   !strcmp(jv_num(dev, "major"), "195") &&
	   !strcmp(jv_num(dev, "minor"), "1") &&
	   !strcmp(jv_str(dev, "access"), "rwm") &&
	   jv_str(dev, "path") && !strcmp(jv_str(dev, "path"), gpu1),
	   "  rules.devices: c 195:1 rwm, its file gres.conf's %s", gpu1);
	is_str(jv_str(v, "rules.devices.1.path"), fake,
	       "  and c 240:7 DeviceAllow's %s", fake);
	ok(jv_get(v, "rules.devices")->count == 2, "  two rules, as the text");
	ok(jv_get(v, "errors")->count == 0 && jv_get(v, "warnings")->count == 0,
	   "  no errors, no warnings");
	jv_free(v);

	/* an error: exit 1, stderr as before, the error in the object */
	write_conf("ShmSize=12Q\n");
	is_int(tool("check", "--json", "-n", node, NULL), 1,
	       "check --json of a bad file: exit 1");
	like(err, ":6: ShmSize", "  the error still on stderr: %s", line1(err));
	if ((v = json_out("check --json, refused"))) {
		ok(jv_is(v, "ok", false), "  ok: false");
		is_str(jv_str(v, "errors.0.file"), conf, "  errors: the file");
		is_str(jv_num(v, "errors.0.line"), "6", "  the line");
		like(jv_str(v, "errors.0.message"), ":6: ShmSize",
		     "  the message as on stderr");
		ok(!jv_has(v, "", "settings"), "  and no settings");
		jv_free(v);
	}
	write_conf("");

	is_int(tool("check", "--json", "--bogus", NULL), 2,
	       "a usage error with --json: exit 2");
	is_str(out, "", "  nothing on stdout");
	is_int(tool("check", "--json", "-f", "/nonexistent/jc.conf", "-n", node,
		    NULL), 1, "check --json of a missing file: exit 1");
	if ((v = json_out("missing file"))) {
		ok(jv_is(v, "ok", false) && jv_get(v, "errors")->count == 1,
		   "  ok: false, one error");
		ok(!strcmp(jv_num(v, "meta.schema_version"), "2"),
		   "  meta, even so");
		jv_free(v);
	}
}

/*
 * gres.conf with AutoDetect: the node's devices are Slurm's to find, so
 * check cannot say "filter no" as if nothing were filtered: from 23.02 the
 * job is filtered (the devices devns does not know), on 22.05 it is not
 * (AutoDetect devices without File= are not contained), and check says
 * which, and why.
 */
static void test_check_autodetect(void)
{
	bool filtered = strtoul(DEVNS_SLURM_VERSION, NULL, 10) >= 23;
	char want[256];
	struct jv *v;

	write_file(conf, "BasePath=%s\n", base);
	write_file(gres_conf, "AutoDetect=nvml\nNodeName=%s Name=gpu Count=2\n",
		   node);
	is_int(tool("check", "-n", node, NULL), 0,
	       "DevicePolicy=auto, gres.conf AutoDetect=nvml");
	snprintf(want, sizeof(want), "filter %s", filtered
		 ? "yes (devices from AutoDetect: not known to devns)"
		 : "no (AutoDetect devices without File= are not contained on Slurm 22.05)");
	ok(has_line(out, want), "  %s (Slurm %s)", want, DEVNS_SLURM_VERSION);
	ok(!has_line(out, "filter no"), "  never a bare \"filter no\"");
	is_int(tool("check", "--json", "-n", node, NULL), 0, "  --json");
	if ((v = json_out("AutoDetect"))) {
		ok(jv_is(v, "autodetect", true) && jv_is(v, "filter", filtered) &&
		   jv_str(v, "filter_note") &&
		   strstr(want, jv_str(v, "filter_note")),
		   "  autodetect: true, filter: %s, the note", filtered ? "true"
									 : "false");
		jv_free(v);
	}
	write_file(gres_conf, "NodeName=other Name=gpu Count=2 AutoDetect=nvml\n");
	is_int(tool("check", "-n", node, NULL), 0,
	       "AutoDetect on another node's line");
	ok(has_line(out, "filter no"), "  is not this node's: filter no");
	write_file(gres_conf, "AutoDetect=off\nNodeName=%s Name=gpu Count=2\n",
		   node);
	is_int(tool("check", "-n", node, NULL), 0, "AutoDetect=off");
	ok(has_line(out, "filter no"), "  finds nothing: filter no");
	write_file(conf, "BasePath=%s\nDevicePolicy=none\n", base);
	write_file(gres_conf, "AutoDetect=nvml\n");
	is_int(tool("check", "-n", node, NULL), 0,
	       "DevicePolicy=none with AutoDetect");
	ok(has_line(out, "filter no"), "  never filters: filter no");
	write_file(gres_conf, "# two fake GPUs on the test nodes\n"
		   "NodeName=%s,%s Name=gpu Type=fake File=%s/nvidia[0-1]\n"
		   "AutoDetect=off\nName=mps Count=100\n", node, other, dev);
	write_conf("");
}

/* Every SPEC form, and SPECs the node cannot give. */
static void test_check_gres(void)
{
	char line[256], want[512];

	is_int(tool("check", "-n", node, "-g", "gpu:2", NULL), 0, "--gres gpu:2");
	snprintf(line, sizeof(line), "jobdevice %s", gpu0);
	ok(has_line(out, line) && has_rule(out, "c 195:0 rwm") &&
	   has_rule(out, "c 195:1 rwm"), "  both GPUs");
	is_int(tool("check", "-n", node, "-g", "gpu:fake:1", NULL), 0,
	       "--gres gpu:fake:1");
	ok(has_line(out, line) && !has_rule(out, "c 195:1 rwm"),
	   "  the first GPU of that type");
	is_int(tool("check", "-n", node, "-g", gpu1, NULL), 0,
	       "--gres DEVICE-PATH");
	snprintf(line, sizeof(line), "jobdevice %s", gpu1);
	ok(has_line(out, line) && has_rule(out, "c 195:1 rwm") &&
	   !has_rule(out, "c 195:0 rwm"), "  that device only");
	is_int(tool("check", "-n", node, "-g", "gpu:2(IDX:0-1),none", NULL), 0,
	       "--gres Slurm's detail form with a range");
	ok(has_rule(out, "c 195:0 rwm") &&
	   has_rule(out, "c 195:1 rwm"), "  both GPUs");

	is_int(tool("check", "-n", node, "-g", "gpu:3", NULL), 1,
	       "--gres gpu:3 on a node with two: exit 1");
	like(err, "--gres: the node has 2 gpu device(s) in its gres.conf, not 3",
	     "  saying so: %s", line1(err));
	ok(out[0] == '\0', "  and nothing on stdout");
	is_int(tool("check", "-n", node, "-g", "nic:1(IDX:0)", NULL), 1,
	       "--gres of a name the node has no file of: exit 1");
	like(err, "--gres: the node has no nic with index 0", "  saying so: %s",
	     line1(err));
	is_int(tool("check", "-n", node, "-g", "gpu:1(IDX:x)", NULL), 1,
	       "--gres malformed: exit 1");
	like(err, "malformed", "  saying so: %s", line1(err));

	/* auto: only the GPUs the job was not given are denied */
	write_file(conf, "BasePath=%s\n", base);
	is_int(tool("check", "-n", node, "-g", "gpu:1(IDX:0)", NULL), 0,
	       "DevicePolicy=auto with GRES");
	ok(has_line(out, "filter yes") && has_rule(out, "c 195:1 -") &&
	   !has_rule(out, "c 195:0 -") && has_line(out, "default allow"),
	   "  denies the other GPU, allows everything else");
	is_int(tool("check", "-n", node, "--gres-conf", "/nonexistent/gres.conf",
		    NULL), 1, "--gres-conf naming a missing file: exit 1");
	is_str(err, "/nonexistent/gres.conf: cannot open: No such file or directory\n",
	       "  the file named");
	unlink(gres_conf);
	is_int(tool("check", "-n", node, NULL), 0, "auto without gres.conf");
	ok(has_line(out, "grescfg none") && has_line(out, "filter no") &&
	   has_line(out, "default allow") && !has_rule(out, "c"),
	   "  no filter at all");
	write_file(gres_conf, "NodeName=%s Name=gpu File=%s/nvidia[0-1]\n"
		   "Name=gpu File=%s/nvidia[0-1\n", node, dev, dev);
	is_int(tool("check", "-n", node, NULL), 1, "a bad File= in gres.conf: exit 1");
	snprintf(line, sizeof(line), "%s:2: File \"%s/nvidia[0-1\": Invalid argument\n",
		 gres_conf, dev);
	is_str(err, line, "  naming file and line");
	write_file(gres_conf, "NodeName=%s,%s Name=gpu Type=fake File=%s/nvidia[0-1]\n",
		   node, other, dev);

	/* DeviceAllow naming a GRES device: what slurmd refuses at start. */
	write_file(conf, "BasePath=%s\nDevicePolicy=closed\nDeviceAllow=%s:rw\n",
		   base, gpu0);
	is_int(tool("check", "-n", "nogres", NULL), 0,
	       "DeviceAllow naming a GPU, on a node whose gres.conf lists none: exit 0");
	is_int(tool("check", "-n", node, NULL), 1,
	       "DeviceAllow naming a GRES device file: exit 1");
	snprintf(want, sizeof(want),
		 "%s:3: DeviceAllow entry '%s:rw' names GRES device %s (c 195:0)",
		 conf, gpu0, gpu0);
	like(err, want, "  naming file:line, the entry and the device: %s",
	     line1(err));
	write_conf("");
}

/* Errors: exit 1 and the message slurmd would log; usage: exit 2. */
static void test_check_errors(void)
{
	char want[512], dir[160];

	write_conf("ShmSize=12Q\n");
	is_int(tool("check", "-n", node, NULL), 1, "a bad value: exit 1");
	snprintf(want, sizeof(want), "%s:6: ShmSize: invalid size \"12Q\"\n",
		 conf);
	is_str(err, want, "  file:line: message on stderr");
	is_str(out, "", "  nothing on stdout");

	write_conf("NodeName=nowhere DeviceAllow=/dev/null:rwx\n");
	is_int(tool("check", "-n", node, NULL), 1,
	       "a bad DeviceAllow on another node's line: exit 1");
	snprintf(want, sizeof(want), "%s:6: DeviceAllow entry '/dev/null:rwx'",
		 conf);
	like(err, want, "  file:line: %s", line1(err));

	write_conf("");
	snprintf(want, sizeof(want), "%s/missing.conf", etc);
	is_int(tool("check", "-f", want, NULL), 1, "a missing file: exit 1");
	like(err, "missing.conf: cannot open: No such file or directory",
	     "  saying so: %s", line1(err));

	snprintf(dir, sizeof(dir), "%s/userbase", tmp);
	ok(mkdir(dir, 0755) == 0 && chown(dir, 65534, 65534) == 0,
	   "precondition: a BasePath owned by a user");
	write_file(conf, "BasePath=%s\n", dir);
	is_int(tool("check", "-n", node, NULL), 1, "such a BasePath: exit 1");
	like(err, "is not owned by root (uid 65534)", "  saying why: %s", line1(err));
	rmdir(dir);

	{
		int fd = safepath_open(base);

		ok(fd >= 0 && dquota_probe(fd, base, NULL) < 0,
		   "precondition: the scratch BasePath has no project quotas");
		if (fd >= 0)
			close(fd);
	}
	write_file(conf, "BasePath=%s\nTmpDiskLimit=10M\n", base);
	is_int(tool("check", "-n", node, NULL), 1,
	       "TmpDiskLimit on a BasePath that cannot enforce it: exit 1");
	snprintf(want, sizeof(want), "TmpDiskLimit=10485760 bytes cannot be "
		 "enforced on BasePath: %s is on ", base);
	like(err, want, "  saying why: %s", line1(err));
	if (access(NSLOOP_MKFS, X_OK) == 0 &&
	    access("/dev/loop-control", R_OK | W_OK) == 0) {
		write_file(conf, "BasePath=%s\nTmpDiskLimit=10M\n"
			   "TmpBackend=loop\n", base);
		is_int(tool("check", "-n", node, NULL), 0,
		       "TmpBackend=loop there: no quotas needed, exit 0 (%s)",
		       line1(err));
		ok(has_setting(out, "tmpbackend loop") &&
		   has_line(out, "tmpdiskquota loop"),
		   "  tmpbackend loop, tmpdiskquota loop");
	} else {
		tap_skip("TmpBackend=loop: needs %s and /dev/loop-control",
			 NSLOOP_MKFS);
	}
	snprintf(dir, sizeof(dir), "%s/auto/base", tmp);
	write_file(conf, "BasePath=%s\nAutoBasePath=yes\nTmpDiskLimit=1G\n",
		   dir);
	is_int(tool("check", "-n", node, NULL), 0,
	       "TmpDiskLimit on a BasePath not made yet: check passes");
	like(err, "so whether its filesystem enforces project quotas is not "
	     "known", "  with a warning naming TmpDiskLimit: %s",
	     strstr(err, "TmpDiskLimit") ? line1(strstr(err, "TmpDiskLimit"))
					  : err);
	ok(has_setting(out, "tmpdisklimit 1073741824") &&
	   has_setting(out, "tmpinodelimit 65536") &&
	   has_line(out, "tmpdiskquota unknown"),
	   "  tmpdisklimit, tmpinodelimit (its default) and tmpdiskquota unknown");

	write_file(conf, "BasePath=%s\nAutoBasePath=yes\n", dir);
	ok(!exists(dir), "precondition: an AutoBasePath BasePath is missing");
	is_int(tool("check", "-n", node, NULL), 0, "  check passes");
	snprintf(want, sizeof(want), "warning: BasePath %s does not exist yet: slurmd creates it at start (AutoBasePath=yes)\n",
		 dir);
	is_str(err, want, "  with a warning");
	snprintf(dir, sizeof(dir), "%s/auto", tmp);
	ok(!exists(dir), "  and creates nothing");
	write_conf("");

	is_int(tool("check", "extra", NULL), 2, "usage: an argument: exit 2");
	is_int(tool("check", "--dry-run", NULL), 2,
	       "usage: an option of another command: exit 2");
	like(err, "devns: check does not take --dry-run", "  naming it");
	is_int(tool("check", "--bogus", NULL), 2, "usage: unknown option: exit 2");
	like(err, "--bogus: unknown option", "  saying so: %s", line1(err));
	is_int(tool("show", NULL), 2, "usage: show without JOBID: exit 2");
	is_int(tool("list", "7", NULL), 2, "usage: list takes no JOBID");
	is_int(tool("--version", NULL), 0, "--version: exit 0");
	ok(!strncmp(out, "devns (slurm-devns) ", 20) &&
	   strstr(out, ", built for Slurm "),
	   "  names the package's and Slurm's versions: %s", out);
	is_int(tool("show", "12x", NULL), 2, "usage: a JOBID that is no number");
	is_int(tool("frob", NULL), 2, "usage: unknown command: exit 2");
	/* found by testsuite/fuzz: "" was taken, and named nothing */
	is_int(tool("check", "-f", "", NULL), 2, "usage: -f \"\": exit 2");
	like(err, "devns: --file: empty path", "  naming the option");
	is_int(tool("list", "--spool=", NULL), 2, "usage: --spool=\"\"");
	like(err, "devns: --spool: empty path", "  naming the option");
	is_int(tool("cleanup", "--dry-run", "--cgroup", "", NULL), 2,
	       "usage: --cgroup \"\"");
	like(err, "devns: --cgroup: empty path", "  naming the option");
	is_int(tool("check", "--gres-conf", "", NULL), 2,
	       "usage: --gres-conf \"\"");
	like(err, "devns: --gres-conf: empty path", "  naming the option");
	is_int(tool("--help", NULL), 0, "--help: exit 0");
	like(out, "usage: devns check", "  with the usage");
}

/* ---- show and cleanup on real jobs ------------------------------------ */

static struct jobct_node *load_node(void)
{
	struct jobct_node_args args = {
		.conf_path = conf,
		.node_name = node,
		.spool_dir = spool,
		.make_base_path = true,
	};

	return jobct_node_load(&args, fresh());
}

static const char *const node_gpus[] = { gpu0, gpu1, NULL };
static const char *const job_gpu0[] = { gpu0, NULL };

static int setup_job(struct jobct_node *n, uint32_t job_id)
{
	struct jobct_plan plan = {
		.node = n,
		.job_id = job_id,
		.uid = 1000,
		.gid = 1000,
		.node_devices = node_gpus,
		.job_devices = job_gpu0,
	};

	return jobct_setup(&plan, fresh());
}

/*
 * A child called name, waiting; first joined to job_id of n when n is
 * not NULL.  Returns its pid once it is ready, or -1.
 */
static pid_t named_child(const char *name, struct jobct_node *n,
			 uint32_t job_id)
{
	int p[2];
	char c;
	pid_t pid;

	if (pipe(p) < 0)
		return -1;
	if ((pid = fork()) == 0) {
		close(p[0]);
		if (n && jobct_join(n, job_id, NULL) < 0)
			_exit(1);
		prctl(PR_SET_NAME, name);
		(void)!write(p[1], "x", 1);
		pause();
		_exit(0);
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &c, 1) != 1) {
		if (pid > 0)
			waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(p[0]);
	return pid;
}

/* A unix socket at path; listening (fd returned) or stale (closed, -1). */
static int stepd_socket(const char *path, bool listening)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    listen(fd, 8) < 0 || !listening) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static void job_paths(uint32_t job_id, char *dir, char *cg, char *marker)
{
	snprintf(dir, PATH_MAX, "%s/%u", base, job_id);
	snprintf(cg, PATH_MAX, "%s/devns/%s/job_%u", cg_mount, node, job_id);
	snprintf(marker, PATH_MAX, "%s/devns_filter_%u", spool, job_id);
}

/* Whether the job has all it was set up with: directory (with a
 * namespace), cgroup and marker. */
static bool job_whole(uint32_t job_id, bool ns)
{
	char dir[PATH_MAX], cg[PATH_MAX], marker[PATH_MAX];

	job_paths(job_id, dir, cg, marker);
	return (!ns || exists(dir)) && exists(cg) && exists(marker);
}

/* Whether nothing of the job is left. */
static bool job_gone(uint32_t job_id)
{
	char dir[PATH_MAX], cg[PATH_MAX], marker[PATH_MAX];

	job_paths(job_id, dir, cg, marker);
	return !exists(dir) && !exists(cg) && !exists(marker);
}

/* show --json of job 201 (test_show's), and of a job the node lacks. */
static void test_show_json(pid_t pid, bool ns, const char *dir,
			   const char *cg, const char *marker)
{
	const struct jv *c, *p;
	char want[PATH_MAX + 16];
	struct jv *v;

	is_int(tool("show", "--json", "-n", node, "201", NULL), 0,
	       "show --json 201: %s", line1(err));
	if (!(v = json_out("show --json")))
		return;
	ok(!strcmp(jv_str(v, "command"), "show") && jv_is(v, "ok", true) &&
	   !strcmp(jv_num(v, "job"), "201") && !strcmp(jv_str(v, "node"), node),
	   "  command, ok, job, node");
	if (ns) {
		snprintf(want, sizeof(want), "%s/.ns", dir);
		ok(!strcmp(jv_str(v, "jobdir"), dir) &&
		   !strcmp(jv_str(v, "pin.pin"), want) &&
		   !strncmp(jv_str(v, "pin.id"), "mnt:[", 5),
		   "  jobdir, pin: its path and namespace");
		ok(jv_get(v, "pidpin")->type == JV_NULL, "  pidpin: null");
		ok(jv_get(v, "userpin")->type == JV_NULL, "  userpin: null");
		ok(jv_find(v, "mounts", "point", "/dev/shm") &&
		   !strcmp(jv_str(jv_find(v, "mounts", "point", "/dev/shm"),
				  "fstype"), "tmpfs"),
		   "  mounts: its /dev/shm tmpfs");
		p = jv_find(v, "nsprocs", "comm", "devnsjob");
		snprintf(want, sizeof(want), "%d", (int)pid);
		ok(p && !strcmp(jv_num(p, "pid"), want),
		   "  nsprocs: the job's process");
	} else {
		tap_skip("no namespace here (no new mount API under valgrind)");
		tap_skip("no namespace here (no new mount API under valgrind)");
		tap_skip("no namespace here (no new mount API under valgrind)");
		tap_skip("no namespace here (no new mount API under valgrind)");
	}
	is_str(jv_str(v, "marker"), marker, "  marker");
	is_str(jv_str(v, "filter"), "yes", "  filter: yes, as its marker says");
	ok(jv_get(v, "disk") && jv_get(v, "disk")->type == JV_NULL,
	   "  disk: null (no TmpDiskLimit)");
	c = jv_find(v, "cgroups", "path", cg);
	ok(c != NULL, "  cgroups: its cgroup");
	snprintf(want, sizeof(want), "%d", (int)pid);
	p = c ? jv_get(c, "procs.0") : NULL;
	ok(p && !strcmp(jv_num(p, "pid"), want) &&
	   !strcmp(jv_str(p, "comm"), "devnsjob"), "  its process");
	p = c ? jv_find(c, "programs", "attach", "multi") : NULL;
	ok(p && jv_is(p, "devns", true) &&
	   !strcmp(jv_str(p, "rules.default"), "deny"),
	   "  its devns program, ALLOW_MULTI, default deny");
	ok(p && jv_get(p, "denied.0") && !jv_get(p, "denied.1") &&
	   !strcmp(jv_str(p, "denied.0.type"), "c") &&
	   !strcmp(jv_num(p, "denied.0.major"), "195") &&
	   !strcmp(jv_num(p, "denied.0.minor"), "1") &&
	   !strcmp(jv_str(p, "denied.0.access"), "rw") &&
	   !strcmp(jv_num(p, "denied.0.count"), "2"),
	   "  denied: the other GPU's two rw opens, nothing else");
	p = p ? jv_find(p, "rules.devices", "rule", "c 195:0 rwm") : NULL;
	ok(p && jv_str(p, "path") && !strcmp(jv_str(p, "path"), gpu0),
	   "  the rule of its GPU with the GPU's file: %s", gpu0);
	jv_free(v);

	is_int(tool("show", "--json", "-n", node, "299", NULL), 1,
	       "show --json of a job the node does not have: exit 1");
	if ((v = json_out("show 299"))) {
		snprintf(want, sizeof(want), "job 299 has nothing on node %s",
			 node);
		ok(jv_is(v, "ok", false) &&
		   !strcmp(jv_str(v, "errors.0.message"), want) &&
		   jv_get(v, "errors.0.file")->type == JV_NULL,
		   "  ok: false, the error (no file:line)");
		jv_free(v);
	}
}

/*
 * A process of job_id opens gpu0 once and gpu1 twice (read-write); its
 * exit status is the number of gpu1's opens that were denied (EPERM).
 */
static int denied_opens(struct jobct_node *n, uint32_t job_id)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		int denied = 0, fd;

		if (jobct_join(n, job_id, NULL) < 0)
			_exit(99);
		if ((fd = open(gpu0, O_RDWR)) >= 0)
			close(fd);
		for (int i = 0; i < 2; i++)
			if ((fd = open(gpu1, O_RDWR)) < 0 && errno == EPERM)
				denied++;
			else if (fd >= 0)
				close(fd);
		_exit(denied);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void test_show(struct jobct_node *n, pid_t pid, bool ns)
{
	static const char *const rules[] = { "device ", "default ", NULL };
	static const char *const denied[] = { "denied ", NULL };
	char want[PATH_MAX * 2], dir[PATH_MAX], cg[PATH_MAX], marker[PATH_MAX];
	char check_rules[4096], show_rules[4096], show_denied[1024];

	job_paths(201, dir, cg, marker);
	is_int(tool("show", "-n", node, "201", NULL), 0, "show 201: %s", line1(err));
	ok(has_line(out, "denied none"), "  no device denied yet");
	is_int(denied_opens(n, 201), 2,
	       "a process of job 201 opens its GPU, and the other twice: denied");
	is_int(tool("show", "-n", node, "201", NULL), 0, "show 201: %s", line1(err));
	lines_of(out, denied, show_denied, sizeof(show_denied));
	/* the path: the node's /dev name of 195:1, "-" where it has none */
	if (!ok(!strncmp(show_denied, "denied c 195:1 rw 2 ", 20) &&
		strchr(show_denied, '\n') ==
			show_denied + strlen(show_denied) - 1,
		"  lists the other GPU's two denied opens (type major:minor access count path), nothing else"))
		diag("got: %s", show_denied);
	ok(has_line(out, "job 201"), "  the job");
	if (ns) {
		snprintf(want, sizeof(want), "jobdir %s", dir);
		ok(has_line(out, want), "  its directory: %s", dir);
		snprintf(want, sizeof(want), "pin %s/.ns mnt:[", dir);
		like(out, want, "  its pin, with the namespace's inode");
		ok(has_line(out, "pidpin none"), "  no PID namespace");
		ok(has_line(out, "userpin none"), "  no user namespace");
		snprintf(want, sizeof(want), "mount /tmp ");
		like(out, want, "  its private /tmp");
		snprintf(want, sizeof(want), "/201/tmp rw,nosuid,nodev");
		like(out, want, "  a nosuid,nodev bind of BasePath/201/tmp");
		like(out, "mount /dev/shm tmpfs / rw,nosuid,nodev",
		     "  its own /dev/shm tmpfs");
		snprintf(want, sizeof(want), "mount %s tmpfs / ro", base);
		like(out, want, "  BasePath hidden under a read-only tmpfs");
		snprintf(want, sizeof(want), "nsproc %d devnsjob", (int)pid);
		ok(has_line(out, want), "  the job's process in its namespace");
	} else {
		tap_skip("no namespace here (no new mount API under valgrind)");
	}
	snprintf(want, sizeof(want), "marker %s", marker);
	ok(has_line(out, want), "  its filter marker");
	snprintf(want, sizeof(want), "cgroup %s", cg);
	ok(has_line(out, want), "  its cgroup: %s", cg);
	snprintf(want, sizeof(want), "proc %d devnsjob", (int)pid);
	ok(has_line(out, want), "  the job's process in its cgroup");
	like(out, " devns multi\n", "  a devns program, attached with ALLOW_MULTI");
	lines_of(out, rules, show_rules, sizeof(show_rules));
	is_int(tool("check", "-n", node, "-g", gpu0, NULL), 0,
	       "check for the same GRES");
	lines_of(out, rules, check_rules, sizeof(check_rules));
	snprintf(want, sizeof(want), "device c 195:0 rwm %s\n", gpu0);
	ok(strstr(show_rules, want) != NULL,
	   "  the rules read back allow its GPU, named by gres.conf's file");
	is_str(show_rules, check_rules,
	       "  the rules read back from the kernel are those check computes");

	is_int(tool("show", "-n", node, "299", NULL), 1,
	       "show of a job the node does not have: exit 1");
	snprintf(want, sizeof(want), "devns: job 299 has nothing on node %s\n",
		 node);
	is_str(err, want, "  saying so");
	test_show_json(pid, ns, dir, cg, marker);
}

/* What a job may name a process (15 bytes) and a mount point. */
#define EVIL_COMM "\x1b[2J\nfake line"
#define EVIL_COMM_SHOWN "\\x1b[2J\\x0afake line"
#define EVIL_DIR "\x1b[2J\nfake line\\\xc3"
#define EVIL_DIR_SHOWN "\\x1b[2J\\x0afake line\\\\\\xc3"

/* In job_id's namespace: a tmpfs mounted on /tmp/EVIL_DIR.  0 or -1. */
static int evil_mount(struct jobct_node *n, uint32_t job_id)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(jobct_join_ns(n, job_id, NULL) < 0 ||
		      mkdir("/tmp/" EVIL_DIR, 0755) < 0 ||
		      mount("none", "/tmp/" EVIL_DIR, "tmpfs", 0, NULL) < 0);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/*
 * The job names a process and a mount point to clear the admin's screen
 * and forge a line of show's output: they come out escaped.
 */
static void test_show_escapes(struct jobct_node *n, bool ns)
{
	char want[256];
	pid_t evil;

	evil = named_child(EVIL_COMM, n, 201);
	if (!ok(evil > 0, "precondition: job 201 runs a process called "
		"ESC[2J, newline, \"fake line\""))
		return;
	if (ns)
		ok(evil_mount(n, 201) == 0, "precondition: and mounts a tmpfs on "
		   "/tmp/ESC[2J, newline, \"fake line\", backslash, 0xc3");
	is_int(tool("show", "-n", node, "201", NULL), 0, "show 201: %s",
	       line1(err));
	ok(!strchr(out, '\x1b') && !strstr(out, "\nfake line"),
	   "  no escape character and no forged line in its output");
	if (ns) {
		snprintf(want, sizeof(want), "nsproc %d " EVIL_COMM_SHOWN,
			 (int)evil);
		ok(has_line(out, want), "  the name escaped: %s", want);
		like(out, "\nmount /tmp/" EVIL_DIR_SHOWN " tmpfs / rw",
		     "  the mount point escaped, backslash doubled");
	} else {
		tap_skip("no namespace here (no new mount API under valgrind)");
		tap_skip("no namespace here (no new mount API under valgrind)");
	}
	snprintf(want, sizeof(want), "proc %d " EVIL_COMM_SHOWN, (int)evil);
	ok(has_line(out, want), "  in its cgroup too: %s", want);
	is_int(tool("show", "--json", "-n", node, "201", NULL), 0,
	       "show --json 201");
	ok(!strchr(out, '\x1b') && !strstr(out, "\nfake line"),
	   "  no escape character and no forged line in the JSON either");
	{
		struct jv *v = json_out("show --json, names the job chose");

		ok(v && jv_find(v, "cgroups.0.procs", "comm", EVIL_COMM),
		   "  the name reads back byte for byte");
		if (ns)
			ok(v && jv_find(v, "mounts", "point",
					"/tmp/" EVIL_DIR),
			   "  the mount point too (no UTF-8 byte included)");
		else
			tap_skip("no namespace here (no new mount API under valgrind)");
		jv_free(v);
	}
	kill(evil, SIGKILL);
	waitpid(evil, NULL, 0);
}

/* list --json and cleanup --dry-run --json, with test_cleanup's jobs. */
static void test_list_cleanup_json(bool ns, const char *live,
				   const char *d202, const char *m202)
{
	const struct jv *j;
	struct jv *v;

	is_int(tool("list", "--json", "-n", node, NULL), 0, "list --json");
	if ((v = json_out("list --json"))) {
		ok(!strcmp(jv_str(v, "command"), "list") &&
		   jv_is(v, "ok", true) && !strcmp(jv_str(v, "node"), node) &&
		   jv_get(v, "jobs")->count == 2, "  command, ok, node, 2 jobs");
		ok(!strcmp(jv_num(v, "meta.schema_version"), "2") &&
		   jv_str(v, "meta.devns_version") &&
		   jv_str(v, "meta.slurm_release"), "  meta");
		j = jv_get(v, "jobs.0");
		ok(j && !strcmp(jv_num(j, "job"), "201") &&
		   jv_is(j, "alive", true) && jv_is(j, "namespace", ns) &&
		   jv_is(j, "pidns", false) &&
		   !strcmp(jv_str(j, "filter"), "yes") &&
		   jv_get(j, "disk")->type == JV_NULL &&
		   jv_get(j, "processes")->type == JV_NUMBER,
		   "  job 201: alive, namespace, no pidns, filter yes, no disk");
		ok(!strcmp(jv_num(v, "jobs.1.job"), "202") &&
		   jv_is(v, "jobs.1.alive", false), "  job 202: ended");
		jv_free(v);
	}
	is_int(tool("cleanup", "--json", "--dry-run", "-n", node, NULL), 0,
	       "cleanup --json --dry-run");
	if ((v = json_out("cleanup --json"))) {
		ok(jv_is(v, "dry_run", true) && !strcmp(jv_num(v, "kept"), "1") &&
		   !strcmp(jv_num(v, "ended"), "1") &&
		   !strcmp(jv_str(v, "spool"), spool),
		   "  dry_run, 1 kept, 1 ended, the spool");
		ok(!strcmp(jv_num(v, "meta.schema_version"), "2"), "  meta");
		ok(!strcmp(jv_str(v, "jobs.0.answered"), live) &&
		   jv_get(v, "jobs.0.removals")->count == 0,
		   "  job 201 kept: its socket answered, nothing to remove");
		ok(jv_find(v, "jobs.1.removals", "path", m202) &&
		   !strcmp(jv_str(jv_find(v, "jobs.1.removals", "path", m202),
				  "what"), "marker"),
		   "  job 202: its marker to remove");
		if (ns)
			ok(jv_find(v, "jobs.1.removals", "path", d202) &&
			   !strcmp(jv_str(jv_find(v, "jobs.1.removals", "path",
						  d202), "what"), "namespace"),
			   "  and its namespace");
		else
			tap_skip("no namespace here (no new mount API under valgrind)");
		jv_free(v);
	}
	ok(job_whole(202, ns), "  and removes nothing");
}

static void test_cleanup(pid_t pid, bool ns)
{
	char d201[PATH_MAX], c201[PATH_MAX], m201[PATH_MAX];
	char d202[PATH_MAX], c202[PATH_MAX], m202[PATH_MAX];

	char live[PATH_MAX], stale[PATH_MAX], want[PATH_MAX * 2];
	int live_fd, status;
	pid_t slurmd;

	job_paths(201, d201, c201, m201);
	job_paths(202, d202, c202, m202);
	snprintf(live, sizeof(live), "%s/%s_201.0", spool, node);
	snprintf(stale, sizeof(stale), "%s/%s_202.4294967292", spool, node);
	live_fd = stepd_socket(live, true);
	stepd_socket(stale, false);
	ok(live_fd >= 0 && exists(stale),
	   "precondition: job 201's stepd socket listens, 202's is stale");
	ok(job_whole(202, ns),
	   "precondition: job 202 has its directory, cgroup and marker");

	is_int(tool("cleanup", "--dry-run", "-n", node, NULL), 0,
	       "cleanup --dry-run: %s", line1(err));
	snprintf(want, sizeof(want), "job 201 alive: %s answers; kept", live);
	ok(has_line(out, want), "  the live job is kept: %s", want);
	snprintf(want, sizeof(want), "job 202 ended: no slurmstepd of it answers in %s",
		 spool);
	ok(has_line(out, want), "  the dead one is named, with why");
	snprintf(want, sizeof(want), "job 202 would remove cgroup %s", c202);
	ok(has_line(out, want), "  its cgroup");
	snprintf(want, sizeof(want), "job 202 would remove marker %s", m202);
	ok(has_line(out, want), "  its marker");
	if (ns) {
		snprintf(want, sizeof(want), "job 202 would remove namespace %s",
			 d202);
		ok(has_line(out, want), "  its pinned namespace and directory");
	} else {
		tap_skip("no namespace here (no new mount API under valgrind)");
	}
	ok(has_line(out, "1 job kept, 1 ended (dry run: nothing removed)"),
	   "  and sums up");
	ok(job_whole(202, ns),
	   "  and removes nothing: 202's directory, cgroup, marker are there");

	is_int(tool("list", "-n", node, NULL), 0, "list: %s", line1(err));
	like(out, ns ? "job 201 alive namespace yes processes "
		     : "job 201 alive namespace no processes 0 ",
	     "  job 201: alive, with its namespace and the process in it");
	like(out, ns ? " pidns no filter yes disk none usage shm=0/0/"
		     : " pidns no filter yes disk none usage none\njob 202 ",
	     "  filtered, no disk limit, the figures of its /dev/shm");
	like(out, ns ? "job 202 ended namespace yes processes 0 pidns no filter yes disk none usage shm="
		     : "job 202 ended namespace no processes 0 pidns no filter yes disk none usage none",
	     "  job 202 ended, with what it left");
	ok(has_line(out, "2 jobs"), "  and counts them");
	ok(job_whole(202, ns), "  and removes nothing");
	test_list_cleanup_json(ns, live, d202, m202);

	/* slurmd running: a real cleanup refuses */
	slurmd = named_child("slurmd", NULL, 0);
	ok(slurmd > 0, "precondition: a process called slurmd runs");
	write_file(pid_file, "%d\n", (int)slurmd);
	is_int(tool("cleanup", "-n", node, NULL), 1,
	       "cleanup while slurmd runs: exit 1");
	snprintf(want, sizeof(want), "devns: slurmd (pid %d, %s) is running",
		 (int)slurmd, pid_file);
	like(err, want, "  saying so: %s", line1(err));
	ok(job_whole(202, ns), "  removing nothing");
	is_int(tool("cleanup", "--json", "-n", node, NULL), 1,
	       "  with --json: exit 1");
	{
		struct jv *v = json_out("cleanup while slurmd runs");

		like(v ? jv_str(v, "errors.0.message") : NULL, want + 7,
		     "  the error in the object");
		ok(v && jv_is(v, "ok", false) && !jv_has(v, "", "jobs"),
		   "  ok: false, no jobs looked at");
		jv_free(v);
	}
	kill(slurmd, SIGKILL);
	waitpid(slurmd, NULL, 0);
	is_int(tool("cleanup", "-n", node, NULL), 0,
	       "cleanup once slurmd is gone (stale pid file): %s", line1(err));
	ok(job_gone(202),
	   "  removes the dead job's directory, cgroup and marker");
	ok(job_whole(201, ns) && kill(pid, 0) == 0,
	   "  keeps the live job and its process");

	is_int(tool("cleanup", "--dry-run", "-n", node, "-s", "/nonexistent",
		    NULL), 1, "a spool directory that cannot be read: exit 1");
	like(err, "cannot read SlurmdSpoolDir /nonexistent", "  saying so: %s",
	     line1(err));
	ok(has_line(out, "1 job kept, 0 ended (dry run: nothing removed)"),
	   "  and every job counts as alive");

	close(live_fd);
	unlink(live);
	ok(!exists(live), "precondition: job 201's stepd is gone");
	is_int(tool("cleanup", "-n", node, "--force", NULL), 0,
	       "cleanup --force: %s", line1(err));
	snprintf(want, sizeof(want), "job 201 remove cgroup %s (1 process inside, killed)",
		 c201);
	ok(has_line(out, want), "  names the process it kills: %s", want);
	ok(job_gone(201), "  then removes job 201 too");
	ok(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status),
	   "  whose process was killed");
	unlink(stale);
	unlink(pid_file);
}

/*
 * A job with PidNamespace: its /proc is its PID namespace's, where show's
 * child has no pid; show still reads the job's mounts (before, it could
 * not: /proc/self led nowhere).
 */
static void test_show_pidns(void)
{
	struct jobct_node *n;
	pid_t pid;

	write_conf("PidNamespace=yes\nUserNamespace=yes\n");
	if (!(n = load_node()))
		return (void)ok(0, "load with PidNamespace: %s", rep.msg);
	if (!ok(setup_job(n, 203) == 0, "job 203 with a PID namespace sets up: %s",
		rep.msg) ||
	    !ok((pid = named_child("devnspid", n, 203)) > 0,
		"  a process of it runs")) {
		jobct_release(n, 203, NULL);
		jobct_node_free(n);
		write_conf("");
		return;
	}
	is_int(tool("show", "-n", node, "203", NULL), 0, "show 203: %s",
	       line1(err));
	ok(!has_line(out, "pidpin none"), "  it has a PID namespace");
	like(out, "/203/.userns user:[",
	     "  and a user namespace (userpin), with its pin and inode");
	like(out, "\nmount /tmp ", "  and its mounts are listed: its /tmp");
	like(out, "\nmount /dev/shm tmpfs ", "  its /dev/shm");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	jobct_release(n, 203, NULL);
	jobct_node_free(n);
	write_conf("");
}

/*
 * Issue 30's traps: what parses but fails every job or applies to no
 * node is an error of check (exit 1, file:line); every effective value
 * says where it came from.
 */
static void test_check_traps(void)
{
	char want[1024], text[1024], line[512];

	write_conf("InitScript=/nonexistent/devns-init.sh\n");
	is_int(tool("check", "-n", node, NULL), 1, "a missing InitScript: "
	       "exit 1");
	snprintf(want, sizeof(want), "%s:6: InitScript /nonexistent/devns-"
		 "init.sh: No such file or directory", conf);
	like(err, want, "  file:line: %s", line1(err));

	write_conf("Dir=/devns-scratch Source=/nonexistent-devns/%u/%j\n");
	is_int(tool("check", "-n", node, NULL), 1, "a Source whose fixed part "
	       "is missing: exit 1");
	snprintf(want, sizeof(want), "%s:6: Dir=/devns-scratch: Source "
		 "\"/nonexistent-devns/%%u/%%j\": /nonexistent-devns: No such "
		 "file or directory", conf);
	like(err, want, "  file:line: %s", line1(err));

	write_conf("Dirs=/tmp,/etc\n");
	is_int(tool("check", "-n", node, NULL), 1, "Dirs naming /etc: exit 1");
	snprintf(want, sizeof(want), "%s:6: Dirs: \"/etc\" is a system "
		 "directory", conf);
	like(err, want, "  file:line: %s", line1(err));

	write_conf("NodeName=DEFAULT Shared=yes\n");
	is_int(tool("check", "-n", node, NULL), 1, "NodeName=DEFAULT: exit 1");
	like(err, ":6: NodeName=DEFAULT: DEFAULT names no node here",
	     "  file:line: %s", line1(err));

	write_conf("DeviceAllow=char-devns-no-such*:r\n"
		   "DeviceAllow=\"/dev/devns-no-such* rw\"\n");
	is_int(tool("check", "-n", node, NULL), 1, "a DeviceAllow class and "
	       "glob that match nothing: exit 1");
	snprintf(want, sizeof(want), "%s:6: DeviceAllow entry "
		 "'char-devns-no-such*:r': no character device class matches "
		 "'devns-no-such*' in /proc/devices", conf);
	like(err, want, "  the class, with file:line: %s", line1(err));
	snprintf(want, sizeof(want), "%s:7: DeviceAllow entry '/dev/devns-no-"
		 "such* rw': no device node matches /dev/devns-no-such*", conf);
	like(err, want, "  and the glob, not a warning");

	/* NodeName compared with slurm.conf's names, case and all. */
	snprintf(text, sizeof(text), "PrologFlags=Contain\nNodeName=%s "
		 "CPUs=1", node);
	write_slurm_conf(text);
	snprintf(text, sizeof(text), "NodeName=UT%s TmpSize=1G\n",
		 node + 2);
	write_conf(text);
	is_int(tool("check", "-n", node, NULL), 1, "a NodeName that differs "
	       "from slurm.conf's only by case: exit 1");
	snprintf(want, sizeof(want), "%s:6: NodeName=UT%s: UT%s is no node of "
		 "slurm.conf, whose NodeName=%s has it in another case", conf,
		 node + 2, node + 2, node);
	like(err, want, "  naming both: %s", line1(err));
	write_slurm_conf("PrologFlags=Contain");

	/* The more specific wins; each line says where it came from. */
	write_conf("Dir=/dev/shm Type=tmpfs Size=64M Options=noexec\n"
		   "DeviceAllow=/dev/null:rw\n");
	snprintf(text, sizeof(text), "NodeName=%s DeviceAllow=\"/dev/zero r\"\n"
		 "NodeName=%s DeviceAllow=\"c 1:7 rwm\"\n", node, node);
	{
		FILE *f = fopen(conf, "a");

		if (f) {
			fputs(text, f);
			fclose(f);
		}
	}
	is_int(tool("check", "-n", node, NULL), 0, "a node's ShmSize and a "
	       "global Dir=/dev/shm Size=: %s", line1(err));
	snprintf(want, sizeof(want), "dir /dev/shm type=tmpfs size=1073741824 "
		 "options=nosuid,nodev,noexec (Dir %s:6, ShmSize %s:4)", conf,
		 conf);
	ok(has_line(out, want), "  the node's ShmSize wins, both lines named");
	snprintf(want, sizeof(want), "deviceallow /dev/zero r (%s:8)\n"
		 "deviceallow c 1:7 rwm (%s:9)\n", conf, conf);
	like(out, want, "  the node's two DeviceAllow lines, each with its "
	     "line, replace the global one");
	ok(has_rule(out, "c 1:5 r") && has_rule(out, "c 1:7 rwm")
	   && !has_rule(out, "c 1:3 rw"), "  and make the rules");

	/*
	 * check's own rules, pasted back as DeviceAllow (the rule is the
	 * three fields after "device", the file follows), give them again.
	 */
	{
		static const char *const dev[] = { "device ", NULL };
		char rules[2048], allow[2048] = "", pasted[2100];
		size_t n = 0;

		write_conf("DeviceAllow=\"char-pts rw, /dev/null rw\"\n");
		is_int(tool("check", "-n", node, NULL), 0, "a DeviceAllow in "
		       "systemd's form");
		lines_of(out, dev, rules, sizeof(rules));
		for (char *p = rules; *p; p += strcspn(p, "\n") + 1) {
			const char *path = memrchr(p, ' ', strcspn(p, "\n"));

			snprintf(line, sizeof(line), "%.*s",
				 path ? (int)(path - p) - 7 : 0, p + 7);
			n += snprintf(allow + n, sizeof(allow) - n, "%s%s",
				      n ? "," : "", line);
		}
		snprintf(pasted, sizeof(pasted), "DeviceAllow=\"%s\"\n", allow);
		write_conf(pasted);
		is_int(tool("check", "-n", node, NULL), 0, "its device lines "
		       "as DeviceAllow: %s", allow);
		lines_of(out, dev, pasted, sizeof(pasted));
		is_str(pasted, rules, "  give the same rules");
	}
	write_conf("");
}


/*
 * check gives slurmd's verdict (issue 46): the release rules of the
 * release it was built for (conf/nsrelease.h), every error of a file in
 * one run, a NodeName that matches no node of slurm.conf, a Dirs mount
 * point that does not exist or holds data, and -n of another machine
 * without its device files.
 */
static void test_check_verdict(void)
{
	char want[1024], text[1024], dir[160];
	struct jv *v;

	write_conf("EntireStepInNS=yes\n");
	if (DEVNS_SLURM_VERSION_NUMBER < NSRELEASE_ENTIRE_STEP) {
		is_int(tool("check", "-n", node, NULL), 1, "EntireStepInNS=yes "
		       "on Slurm %s: exit 1, as slurmd", DEVNS_SLURM_VERSION);
		snprintf(want, sizeof(want), "%s:6: EntireStepInNS=yes needs "
			 "Slurm 24.11.1 or later (this Slurm does not let "
			 "slurmstepd start in the job's namespace)\n", conf);
		is_str(err, want, "  slurmd's message, with file:line");
	} else {
		is_int(tool("check", "-n", node, NULL), 0, "EntireStepInNS=yes "
		       "on Slurm %s: passes, as in slurmd",
		       DEVNS_SLURM_VERSION);
	}
	write_conf("UserNamespace=yes\n");
	is_int(tool("check", "-n", node, NULL),
	       DEVNS_SLURM_VERSION_NUMBER < NSRELEASE_USERNS_ALONE ? 1 : 0,
	       "UserNamespace=yes without PidNamespace on Slurm %s: as slurmd",
	       DEVNS_SLURM_VERSION);

	/* Every bad line in one run. */
	write_conf("Bogus=1\nShmSize=12Q\nPidNamespace=maybe\n");
	is_int(tool("check", "-n", node, NULL), 1, "three bad lines: exit 1");
	snprintf(want, sizeof(want), "%s:6: unknown key \"Bogus\"\n"
		 "%s:7: ShmSize: invalid size \"12Q\"\n"
		 "%s:8: PidNamespace: invalid boolean \"maybe\" (use yes or "
		 "no)\n", conf, conf, conf);
	is_str(err, want, "  all three named, in order");
	is_int(tool("check", "--json", "-n", node, NULL), 1, "  --json: exit 1");
	if ((v = json_out("check --json, three bad lines"))) {
		const struct jv *e = jv_get(v, "errors");

		ok(e && e->type == JV_ARRAY && e->count == 3 &&
		   !strcmp(jv_num(&e->items[2], "line"), "8"),
		   "  three errors, each with its line");
		jv_free(v);
	}

	/* A NodeName that matches no node of slurm.conf. */
	snprintf(text, sizeof(text), "PrologFlags=Contain\n"
		 "NodeName=gpu[01-04] NodeHostname=elsewhere");
	write_slurm_conf(text);
	write_conf("NodeName=gpu[1-4] DevicePolicy=closed\n");
	is_int(tool("check", "-n", node, NULL), 1, "NodeName=gpu[1-4] for "
	       "slurm.conf's gpu[01-04]: exit 1");
	snprintf(want, sizeof(want), "%s:6: NodeName=gpu[1-4] matches no node "
		 "of slurm.conf (gpu1 (and 3 more) is none; slurm.conf names "
		 "%s,%s,gpu[01-04]): the line applies to no node\n", conf, node,
		 other);
	is_str(err, want, "  naming the line, a name and slurm.conf's");
	write_slurm_conf("PrologFlags=Contain");

	/* Mount points: missing, and holding data. */
	snprintf(dir, sizeof(dir), "%s/nonexistent", tmp);
	snprintf(text, sizeof(text), "Dirs=/tmp,%s\n", dir);
	write_conf(text);
	is_int(tool("check", "-n", node, NULL), 1, "a Dirs mount point that "
	       "does not exist: exit 1");
	snprintf(want, sizeof(want), "%s:6: Dirs: the mount point %s: No such "
		 "file or directory (every job would fail)\n", conf, dir);
	is_str(err, want, "  every job would fail");
	snprintf(dir, sizeof(dir), "%s/home", tmp);
	snprintf(text, sizeof(text), "%s/alice", dir);
	ok(mkdir(dir, 0755) == 0 && mkdir(text, 0700) == 0,
	   "precondition: %s holds a user's directory", dir);
	snprintf(text, sizeof(text), "Dirs=/tmp,%s\n", dir);
	write_conf(text);
	is_int(tool("check", "-n", node, NULL), 0, "a Dirs entry that hides "
	       "data on the node: exit 0");
	snprintf(want, sizeof(want), "warning: %s:6: Dirs: %s holds data on "
		 "this node (\"alice\"): every job gets an empty private %s "
		 "that hides it\n", conf, dir, dir);
	is_str(err, want, "  a warning naming what it hides");

	/*
	 * -n of another machine (no NodeHostname of this host), whose
	 * GRES device files are not here: not an error, the rules unknown;
	 * nothing of the node's filesystem is judged.
	 */
	write_file(gres_conf, "NodeName=%s Name=gpu File=%s/none/nvidia[0-1]\n",
		   other, dev);
	snprintf(text, sizeof(text), "InitScript=%s/nonexistent.sh\n", tmp);
	write_conf(text);
	is_int(tool("check", "-n", other, "-g", "gpu:1", NULL), 0,
	       "check -n of another machine, its GPUs not here: exit 0");
	ok(has_line(out, "filter unknown (GRES device files not on this "
		    "machine)") && !strstr(out, "\ndevice ") &&
	   !strstr(out, "\ndefault "), "  filter unknown, no rules");
	ok(has_line(out, "cgrouplayout unknown"), "  nor the cgroup layout");
	snprintf(want, sizeof(want), "note: %s is not this machine (%s): "
		 "nothing of its filesystem", other, host);
	like(err, want, "  a note says what is not checked");
	snprintf(want, sizeof(want), "note: GRES device file %s/none/nvidia0 "
		 "(and 1 more) is not on this machine: the device rules of a "
		 "job on %s are not computed here", dev, other);
	like(err, want, "  and which device file is missing");
	ok(!strstr(err, "InitScript"), "  the missing InitScript is not "
	   "judged there");
	is_int(tool("check", "-n", node, NULL), 1, "  on the node it is: "
	       "exit 1");
	is_int(tool("check", "--json", "-n", other, "-g", "gpu:1", NULL), 0,
	       "  --json: exit 0");
	if ((v = json_out("check --json elsewhere"))) {
		const struct jv *n = jv_get(v, "notes");
		const struct jv *f = jv_get(v, "filter");

		ok(n && n->type == JV_ARRAY && n->count == 2,
		   "  both notes in \"notes\"");
		ok(f && f->type == JV_NULL && jv_get(v, "rules") &&
		   jv_get(v, "rules")->type == JV_NULL,
		   "  filter and rules null");
		jv_free(v);
	}
	snprintf(text, sizeof(text), "%s/alice", dir);
	rmdir(text);
	rmdir(dir);
	write_file(gres_conf, "# two fake GPUs on the test nodes\n"
		   "NodeName=%s,%s Name=gpu Type=fake File=%s/nvidia[0-1]\n"
		   "AutoDetect=off\nName=mps Count=100\n", node, other, dev);
	write_conf("");
}
static void test_jobs(void)
{
	struct jobct_node *n;
	bool ns = true;
	pid_t pid;
	int rc;

	write_conf("");
	if (!(n = load_node()))
		return (void)ok(0, "load: %s", rep.msg);
	rc = setup_job(n, 201);
	if (rc < 0 && errno == ENOSYS) {
		/* valgrind lacks the new mount API: filter only */
		diag("no namespace: %s", rep.msg);
		jobct_node_free(n);
		write_file(conf, "BasePath=none\nDevicePolicy=strict\n"
			   "DeviceAllow=%s:rw\n", fake);
		n = load_node();
		ns = false;
		rc = n ? setup_job(n, 201) : -1;
	}
	if (!ok(rc == 0, "job 201 sets up: %s", rep.msg) ||
	    !ok(setup_job(n, 202) == 0, "job 202 sets up: %s", rep.msg) ||
	    !ok((pid = named_child("devnsjob", n, 201)) > 0,
		"a process joins job 201")) {
		jobct_release(n, 201, NULL);
		jobct_release(n, 202, NULL);
		jobct_node_free(n);
		return;
	}
	test_show(n, pid, ns);
	test_show_escapes(n, ns);
	test_cleanup(pid, ns);
	jobct_release(n, 201, NULL);
	jobct_release(n, 202, NULL);
	jobct_node_free(n);
	write_conf("");
	if (ns)
		test_show_pidns();
	else
		tap_skip("no namespace here (no new mount API under valgrind)");
}

/* Root, cgroup2 on the hybrid layout, and bpf, or why not. */
static const char *missing(void)
{
	enum cgroup2_layout l;

	if (!tap_root())
		return "needs root";
	if (access(DEVNS_TOOL, X_OK) < 0)
		return "the devns tool is not built";
	if (cgroup2_probe(NULL, &l, cg_mount, sizeof(cg_mount)) < 0 ||
	    !cg_mount[0])
		return "no cgroup2 mount";
	if (l != CGROUP2_HYBRID)
		return "devns's job cgroups need the hybrid layout";
	snprintf(layout, sizeof(layout), "hybrid");
	if (devprog_probe() < 0)
		return "no BPF cgroup-device programs";
	return NULL;
}

/* ---- import ------------------------------------------------------------ */

/*
 * devns import: a namespace.yaml of the scratch node converted, what does
 * not carry over commented, the result checked by devns check (which then
 * warns of the namespace.yaml left beside it); a malformed file refused
 * with its line; no FILE a usage error.
 */
static void test_import(void)
{
	char yaml[128], bad[128], saved[65536];

	snprintf(yaml, sizeof(yaml), "%s/namespace.yaml", etc);
	snprintf(bad, sizeof(bad), "%s/bad.yaml", tmp);
	write_file(yaml, "---\n"
		   "disable_bpf_token: true\n"
		   "defaults:\n"
		   "  base_path: \"%s\"\n"
		   "  clone_ns_flags:\n"
		   "    - \"CLONE_NEWNS\"\n"
		   "  shared: true\n"
		   "node_confs:\n"
		   "  - nodes:\n"
		   "    - \"%s\"\n"
		   "    options:\n"
		   "      dir_confs:\n"
		   "        - path: \"/tmp\"\n"
		   "          options: \"noexec,size=1g,noatime\"\n"
		   "          tmpfs: true\n"
		   "        - path: \"/dev/shm\"\n", base, node);
	is_int(tool("import", yaml, NULL), 0, "import: namespace.yaml, exit 0");
	ok(has_line(out, "Shared=yes") &&
	   has_line(out, "PidNamespace=no") &&
	   strstr(out, "\nNodeName=") &&
	   strstr(out, " Dir=/tmp Type=tmpfs Options=noexec Size=1g\n"),
	   "  the settings as job_container.conf lines");
	ok(strstr(out, "# not carried over: disable_bpf_token") &&
	   strstr(out, "namespace.yaml:2)") &&
	   strstr(out, "# not carried over: dir_confs /tmp options: noatime"),
	   "  each key that does not carry over commented, with its line");
	ok(!err[0], "  nothing on stderr: %s", line1(err));
	snprintf(saved, sizeof(saved), "%s", out);
	write_file(conf, "%s", saved);
	is_int(tool("check", "-n", node, NULL), 0,
	       "check: the imported file is valid");
	ok(has_setting(out, "shared yes") && has_setting(out, "tmpsize none"),
	   "  its settings are the node's");
	ok(strstr(err, yaml) && strstr(err, conf) &&
	   strstr(err, "devns import"),
	   "  a warning names the namespace.yaml left beside it: %s",
	   line1(err));
	unlink(yaml);
	is_int(tool("check", "-n", node, NULL), 0, "check: without it");
	ok(!strstr(err, "namespace.yaml"), "  no warning: %s", line1(err));

	write_file(bad, "defaults:\n  base_path: /x\n\tshared: true\n");
	is_int(tool("import", bad, NULL), 1, "import: malformed YAML, exit 1");
	snprintf(saved, sizeof(saved), "%s:3:", bad);
	like(err, saved, "  naming file and line");
	ok(!out[0], "  and printing nothing");
	unlink(bad);
	is_int(tool("import", NULL), 2, "import without FILE: usage error");
	write_conf("");
}

int main(void)
{
	const char *why = missing();

	if (why) {
		printf("1..0 # SKIP %s\n", why);
		return 0;
	}
	if (make_scratch() < 0) {
		printf("Bail out! scratch directory: %s\n", strerror(errno));
		return 1;
	}
	test_check();
	test_check_json();
	test_check_cdi();
	test_check_autodetect();
	test_check_gres();
	test_check_errors();
	test_check_traps();
	test_check_verdict();
	test_import();
	test_jobs();
	remove_scratch();
	return tap_done();
}
