/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_confcheck.c - unit tests of confcheck_run(): a missing, non-regular or
 * non-executable InitScript, a Source= whose fixed part is missing (an
 * error for devns check, a warning for slurmd), a DeviceAllow glob or
 * class that matches nothing, and a NodeName that differs from
 * slurm.conf's names only by case or matches none of them, a mount point
 * that is missing or holds data, nothing of the node's filesystem for
 * another machine; each message with file:line; every
 * problem reported, not only the first.  Files live in a scratch
 * directory; classes come from a fake /proc/devices.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf/confcheck.h"
#include "tap.h"
#include "testrep.h"

/*
 * Source= may not be in /tmp or /var/tmp: the scratch directory is made
 * in /var/lib as root, else in the build directory (the tests' cwd).
 */
static char tmp[PATH_MAX / 2];
static bool sources_ok;
static char proc_devices[PATH_MAX];

/* Messages of the last run, one per line: "E: ..." or "W: ...". */
static char msgs[8192];
static int errors, warnings;

static void collect(enum report_level level, const char *msg, void *arg)
{
	size_t n = strlen(msgs);

	(void)arg;
	if (level == REPORT_INFO)
		return;
	errors += level == REPORT_ERROR;
	warnings += level == REPORT_WARNING;
	snprintf(msgs + n, sizeof(msgs) - n, "%s: %s\n",
		 level == REPORT_ERROR ? "E" : "W", msg);
}

static const char *at(const char *rel)
{
	static char buf[4][PATH_MAX];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", tmp, rel);
	return buf[i];
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0 ||
	    chmod(path, mode) < 0) {
		printf("Bail out! cannot write %s\n", path);
		exit(1);
	}
}

/*
 * Parse text (as "t.conf", for node n1) and run the checks; the return
 * of confcheck_run, or -2 when the text did not parse.
 */
static int check(const char *text, bool strict, const char *const *slurm)
{
	struct confcheck_args args = {
		.strict = strict,
		.proc_devices = proc_devices,
		.slurm_nodes = slurm,
	};
	struct report r;
	struct nsconf *c = nsconf_load_text(text, "t.conf", "n1", NULL, fresh());
	int rc;

	msgs[0] = '\0';
	errors = warnings = 0;
	if (!c) {
		diag("parse error: %s", rep.msg);
		return -2;
	}
	report_init(&r, collect, NULL);
	errno = 0;
	rc = confcheck_run(c, &args, &r);
	nsconf_free(c);
	return rc;
}

/* KeepPaths: one a user made is left out: devns check's error, slurmd's warning. */
static void test_keep_paths(void)
{
	char ukeep[64], text[256];

	snprintf(ukeep, sizeof(ukeep), "/tmp/test-confcheck-ukeep.%d", getpid());
	if (!ok(mkdir(ukeep, 0755) == 0 && chown(ukeep, 65534, 65534) == 0,
		"precondition: %s belongs to uid 65534", ukeep))
		return;
	snprintf(text, sizeof(text), "BasePath=/b\nKeepPaths=%s,/tmp/none-%d\n",
		 ukeep, getpid());
	ok(check(text, true, NULL) == -1 && errors == 1,
	   "devns check: a kept path a user made is an error (a missing one "
	   "is fine)");
	like(msgs, "E: t.conf:2: KeepPaths: ", "  on its line: %s", msgs);
	like(msgs, "is not owned by root (uid 65534)", "  saying why");
	ok(check(text, false, NULL) == 0 && warnings == 1 && !errors,
	   "slurmd: a warning, it starts (a user must not keep it from it)");
	rmdir(ukeep);
}

static void test_init_script(void)
{
	char text[PATH_MAX * 2], want[PATH_MAX * 2];

	snprintf(text, sizeof(text), "BasePath=/b\nInitScript=%s\n",
		 at("init.sh"));
	ok(check(text, true, NULL) == 0 && !errors, "an executable InitScript "
	   "passes: %s", msgs);
	ok(check(text, false, NULL) == 0, "  for slurmd too");

	snprintf(text, sizeof(text), "BasePath=/b\n\nInitScript=%s\n",
		 at("missing.sh"));
	ok(check(text, false, NULL) == -1 && errno == EINVAL && errors == 1,
	   "a missing InitScript is an error, for slurmd too");
	snprintf(want, sizeof(want), "E: t.conf:3: InitScript %s: No such "
		 "file or directory (every job of the node would fail)\n",
		 at("missing.sh"));
	is_str(msgs, want, "  naming file:line and the path");

	snprintf(text, sizeof(text), "BasePath=/b\nInitScript=%s\n",
		 at("noexec.sh"));
	ok(check(text, true, NULL) == -1 && errors == 1,
	   "a non-executable InitScript is an error");
	snprintf(want, sizeof(want), "E: t.conf:2: InitScript %s is not "
		 "executable (mode 0644): every job of the node would fail\n",
		 at("noexec.sh"));
	is_str(msgs, want, "  with its mode");

	snprintf(text, sizeof(text), "BasePath=/b\nNodeName=n1 InitScript=%s\n",
		 tmp);
	ok(check(text, true, NULL) == -1 && errors == 1,
	   "a directory as InitScript is an error");
	snprintf(want, sizeof(want), "E: t.conf:2: InitScript %s is not a "
		 "regular file\n", tmp);
	is_str(msgs, want, "  on the node's line");
}

/* tmpfs's CloneNSScript and CloneNSEpilog are checked as InitScript. */
static void test_clone_scripts(void)
{
	char text[PATH_MAX * 3], want[PATH_MAX * 2];

	snprintf(text, sizeof(text), "BasePath=/b\nCloneNSScript=%s "
		 "CloneNSEpilog=%s\n", at("init.sh"), at("init.sh"));
	ok(check(text, false, NULL) == 0 && !errors,
	   "executable CloneNSScript and CloneNSEpilog pass: %s", msgs);
	snprintf(text, sizeof(text), "BasePath=/b\nCloneNSScript=%s\n",
		 at("missing.sh"));
	ok(check(text, false, NULL) == -1 && errors == 1,
	   "a missing CloneNSScript is an error, for slurmd too");
	snprintf(want, sizeof(want), "E: t.conf:2: CloneNSScript %s: No such "
		 "file or directory (every job of the node would fail)\n",
		 at("missing.sh"));
	is_str(msgs, want, "  naming file:line and the path");
	snprintf(text, sizeof(text), "BasePath=/b\n\nCloneNSEpilog=%s\n",
		 at("noexec.sh"));
	ok(check(text, false, NULL) == -1 && errors == 1,
	   "a non-executable CloneNSEpilog is an error");
	snprintf(want, sizeof(want), "E: t.conf:3: CloneNSEpilog %s is not "
		 "executable (mode 0644): it would fail at the end of every "
		 "job\n", at("noexec.sh"));
	is_str(msgs, want, "  saying when it would fail");
}

static void test_sources(void)
{
	char text[PATH_MAX * 4], want[PATH_MAX * 2];

	if (!sources_ok) {
		tap_skip("the scratch directory is in /tmp: no Source there");
		return;
	}
	snprintf(text, sizeof(text), "BasePath=/b\nDir=%s Source=%s/%%u"
		 "/%%j\nDir=%s Source=%s Options=ro\n", at("mnt"), at("src"),
		 at("mnt2"), at("src"));
	ok(check(text, true, NULL) == 0 && !errors && !warnings,
	   "Sources whose fixed parts exist pass: %s", msgs);

	snprintf(text, sizeof(text), "BasePath=/b\nDir=%s Source=%s/x/"
		 "%%u/%%j\n", at("mnt"), at("nonexistent"));
	ok(check(text, true, NULL) == -1 && errors == 1,
	   "devns check: a missing fixed part is an error");
	snprintf(want, sizeof(want), "E: t.conf:2: Dir=%s: Source "
		 "\"%s/x/%%u/%%j\": %s/x: No such file or directory (every job "
		 "would fail)\n", at("mnt"), at("nonexistent"),
		 at("nonexistent"));
	is_str(msgs, want, "  naming file:line, the Source and the part");
	ok(check(text, false, NULL) == 0 && warnings == 1 && !errors,
	   "slurmd: a warning (a disk may come later)");
	snprintf(want, sizeof(want), "W: t.conf:2: Dir=%s: Source ", at("mnt"));
	like(msgs, want, "  %s", msgs);

	snprintf(text, sizeof(text), "BasePath=/b\nDir=%s Source=%s\n",
		 at("mnt"), at("init.sh"));
	ok(check(text, true, NULL) == -1 && errors == 1,
	   "a Source without %% must be a directory");
	like(msgs, "init.sh: not a directory", "  saying so: %s", msgs);
}

static void test_devices(void)
{
	char text[PATH_MAX * 2];

	snprintf(text, sizeof(text), "BasePath=/b\nDeviceAllow=char-nvidia*:rw"
		 "\nDeviceAllow=\"%s/nul?:r, /dev/null rw\"\n", "/dev");
	ok(check(text, true, NULL) == 0 && !errors,
	   "a class pattern and a glob that match pass: %s", msgs);
	ok(check("BasePath=/b\nDeviceAllow=char-nvidia-uv:rw\n"
		 "DeviceAllow=/dev/nonexistent-devns*:r\n"
		 "DeviceAllow=/dev/nonexistent-devns:r\n", true, NULL) == -1 &&
	   errors == 2, "a class and a glob that match nothing: two errors; a "
	   "missing path is none");
	like(msgs, "E: t.conf:2: DeviceAllow entry 'char-nvidia-uv:rw': no "
	     "character device class 'nvidia-uv' in ", "  each with its "
	     "line: %s", msgs);
	like(msgs, "E: t.conf:3: DeviceAllow entry '/dev/nonexistent-devns*:r': "
	     "no device node matches /dev/nonexistent-devns*", "  ...");
	ok(check("BasePath=/b\nDeviceAllow=char-nvidia-uv:rw\n", false,
		 NULL) == 0 && !errors, "  slurmd leaves them to the policy's "
	   "warnings");
	ok(check("BasePath=/b\nDeviceAllow=char-x:rw\nNodeName=n1 "
		 "DeviceAllow=char-pts:rw\n", true, NULL) == 0,
	   "  only the lines that apply to the node");
}

static void test_node_names(void)
{
	static const char *const slurm[] = { "gpu[01-16]", "login1",
					     "cpu[001-100]", NULL };

	ok(check("BasePath=/b\nNodeName=gpu[01-04] ShmSize=1G\n"
		 "NodeName=login1,other ShmSize=1G\n", true, slurm) == 0 &&
	   !errors, "names as in slurm.conf, and names it lacks, pass: %s",
	   msgs);
	ok(check("BasePath=/b\nNodeName=GPU[01-02] ShmSize=1G\n"
		 "NodeName=Login1 Shared=yes\n", true, slurm) == -1 &&
	   errors == 2, "names that differ only by case: an error per line");
	like(msgs, "E: t.conf:2: NodeName=GPU[01-02]: GPU01 (and 1 more) is no "
	     "node of slurm.conf, whose NodeName=gpu[01-16] has it in another "
	     "case "
	     "(node names are case-sensitive: the line applies to no such "
	     "node)\n", "  naming file:line, the name and slurm.conf's: %s",
	     msgs);
	like(msgs, "E: t.conf:3: NodeName=Login1: Login1 is no node", "  ...");
	ok(check("BasePath=/b\nNodeName=GPU[01-02] ShmSize=1G\n", true,
		 NULL) == 0, "without slurm.conf's names: not compared");
	ok(check("BasePath=/b\nNodeName=Cpu[0-999999999] ShmSize=1G\n", true,
		 slurm) == 0, "a hostlist too large to be real nodes: skipped");

	ok(check("BasePath=/b\nNodeName=gpu[1-4] ShmSize=1G\n", true,
		 slurm) == -1 && errors == 1,
	   "a NodeName none of whose names is a node of slurm.conf: error");
	is_str(msgs, "E: t.conf:2: NodeName=gpu[1-4] matches no node of "
	       "slurm.conf (gpu1 (and 3 more) is none; slurm.conf names "
	       "gpu[01-16],login1,cpu[001-100]): the line applies to no node\n",
	       "  naming file:line, the first name and slurm.conf's");
	ok(check("BasePath=/b\nNodeName=gpu[15-20] ShmSize=1G\n", true,
		 slurm) == 0 && warnings == 1,
	   "a NodeName some of whose names are none: a warning");
	is_str(msgs, "W: t.conf:2: NodeName=gpu[15-20]: gpu17 (and 3 more) is "
	       "no node of slurm.conf (the line applies to its other "
	       "nodes)\n", "  naming the first");
	{
		static const char *const none[] = { NULL };

		ok(check("BasePath=/b\nNodeName=gpu[1-4] ShmSize=1G\n", true,
			 none) == 0 && !warnings,
		   "a slurm.conf that names no node (configless, Include): "
		   "not compared");
	}
}

/*
 * A private directory's mount point must exist (mntns makes none: every
 * job would fail), and one that holds data hides it from every job: a
 * warning, but for the scratch directories every user writes to.
 */
static void test_mount_points(void)
{
	char text[PATH_MAX * 3], want[PATH_MAX * 2];

	snprintf(text, sizeof(text), "BasePath=/b\nDirs=/tmp,%s\n",
		 at("mnt"));
	ok(check(text, true, NULL) == 0 && !errors && !warnings,
	   "an empty mount point passes: %s", msgs);

	snprintf(text, sizeof(text), "BasePath=/b\nDirs=/tmp,%s\n",
		 at("nonexistent"));
	ok(check(text, true, NULL) == -1 && errno == EINVAL && errors == 1,
	   "devns check: a missing mount point is an error");
	snprintf(want, sizeof(want), "E: t.conf:2: Dirs: the mount point %s: "
		 "No such file or directory (every job would fail)\n",
		 at("nonexistent"));
	is_str(msgs, want, "  naming file:line and the path");
	ok(check(text, false, NULL) == 0 && warnings == 1 && !errors,
	   "slurmd: a warning (a disk may come later)");
	snprintf(text, sizeof(text), "BasePath=/b\nDir=%s Type=tmpfs\n",
		 at("nonexistent"));
	ok(check(text, true, NULL) == -1 && errors == 1,
	   "a Dir line's mount point too");
	like(msgs, "E: t.conf:2: Dirs: the mount point ", "  on its line");

	/* Per user or job: its fixed part must be there, not the path. */
	snprintf(text, sizeof(text), "BasePath=/b\nDir=%s/%%u/scratch\n",
		 at("mnt"));
	ok(check(text, true, NULL) == 0 && !errors && !warnings,
	   "a per-user mount point below an existing fixed part passes: %s",
	   msgs);
	snprintf(text, sizeof(text), "BasePath=/b\nDir=%s/%%u/scratch\n",
		 at("nonexistent"));
	ok(check(text, true, NULL) == -1 && errors == 1,
	   "  its fixed part missing: an error");
	snprintf(want, sizeof(want), "E: t.conf:2: Dirs: the mount point %s: "
		 "No such file or directory (every job would fail)\n",
		 at("nonexistent"));
	is_str(msgs, want, "  naming the fixed part");

	write_file(at("full/data"), "x", 0644);
	snprintf(text, sizeof(text), "BasePath=/b\nDirs=/tmp,%s\n",
		 at("full"));
	ok(check(text, true, NULL) == 0 && !errors && warnings == 1,
	   "a mount point that holds data: a warning, not an error");
	snprintf(want, sizeof(want), "W: t.conf:2: Dirs: %s holds data on "
		 "this node (\"data\"): every job gets an empty private %s "
		 "that hides it\n", at("full"), at("full"));
	is_str(msgs, want, "  naming the path and what it holds");
	ok(check(text, false, NULL) == 0 && !warnings,
	   "  not in slurmd (each slurmstepd would read it, per job)");
	write_file(at("full/more"), "x", 0644);
	ok(check(text, true, NULL) == 0 && warnings == 1 &&
	   strstr(msgs, "\", ...)"), "  more than one entry: \", ...\"");
	unlink(at("full/more"));
	{
		struct stat st;
		bool tmp_full = false;
		DIR *d = opendir("/tmp");
		struct dirent *e;

		while (d && (e = readdir(d)))
			tmp_full |= strcmp(e->d_name, ".") &&
				    strcmp(e->d_name, "..");
		if (d)
			closedir(d);
		if (!tmp_full || stat("/tmp", &st) < 0) {
			tap_skip("/tmp is empty: nothing to hide");
		} else {
			ok(check("BasePath=/b\nDirs=/tmp\n", true, NULL) == 0 &&
			   !warnings, "/tmp holds data, and hiding it is the "
			   "point: no warning");
		}
	}
	unlink(at("full/data"));
	rmdir(at("full"));
}

/*
 * devns check -n NODE for another machine (elsewhere): nothing of the
 * node's filesystem is checked here, slurm.conf's names are.
 */
static void test_elsewhere(void)
{
	static const char *const slurm[] = { "n1", NULL };
	struct confcheck_args args = {
		.strict = true,
		.proc_devices = proc_devices,
		.slurm_nodes = slurm,
		.elsewhere = true,
	};
	char text[PATH_MAX * 4];
	struct nsconf *c;
	struct report r;

	snprintf(text, sizeof(text), "BasePath=/b\nInitScript=%s\n"
		 "Dirs=/tmp,%s\nDeviceAllow=char-none:r\n"
		 "NodeName=N1 Shared=yes\n", at("missing.sh"),
		 at("nonexistent"));
	ok(check(text, true, slurm) == -1 && errors == 4,
	   "precondition: on the node, four errors: %s", msgs);
	if (!(c = nsconf_load_text(text, "t.conf", "n1", NULL, fresh())))
		return;
	msgs[0] = '\0';
	errors = warnings = 0;
	report_init(&r, collect, NULL);
	ok(confcheck_run(c, &args, &r) == -1 && errors == 1,
	   "elsewhere: only slurm.conf's names are checked");
	like(msgs, "E: t.conf:5: NodeName=N1: N1 is no node", "  %s", msgs);
	nsconf_free(c);
}

/* Every problem is reported, not only the first. */
static void test_all(void)
{
	static const char *const slurm[] = { "n1", NULL };
	char text[PATH_MAX * 4];

	snprintf(text, sizeof(text), "BasePath=/b\nInitScript=%s\n"
		 "DeviceAllow=char-none:r\nNodeName=N1 Shared=yes\n",
		 at("missing.sh"));
	ok(check(text, true, slurm) == -1 && errors == 3,
	   "three problems, three errors: %s", msgs);
}

int main(void)
{
	char cwd[PATH_MAX / 2 - 32];

	snprintf(tmp, sizeof(tmp), "/var/lib/test_confcheck.XXXXXX");
	if (!mkdtemp(tmp)) {
		if (!getcwd(cwd, sizeof(cwd))) {
			printf("Bail out! getcwd\n");
			return 1;
		}
		snprintf(tmp, sizeof(tmp), "%s/test_confcheck.XXXXXX", cwd);
		if (!mkdtemp(tmp)) {
			printf("Bail out! mkdtemp %s\n", tmp);
			return 1;
		}
	}
	chmod(tmp, 0755);
	sources_ok = strncmp(tmp, "/tmp/", 5) && strncmp(tmp, "/var/tmp/", 9) &&
		     strncmp(tmp, "/dev/shm/", 9);
	snprintf(proc_devices, sizeof(proc_devices), "%s/devices", tmp);
	write_file(proc_devices, "Character devices:\n  1 mem\n136 pts\n"
		   "195 nvidia\n234 nvidia-uvm\n\nBlock devices:\n  7 loop\n",
		   0644);
	write_file(at("init.sh"), "#!/bin/sh\n", 0755);
	write_file(at("noexec.sh"), "#!/bin/sh\n", 0644);
	if (mkdir(at("src"), 0755) < 0 || mkdir(at("mnt"), 0755) < 0 ||
	    mkdir(at("mnt2"), 0755) < 0 || mkdir(at("full"), 0755) < 0) {
		printf("Bail out! mkdir\n");
		return 1;
	}
	test_init_script();
	test_clone_scripts();
	test_sources();
	test_devices();
	test_node_names();
	test_mount_points();
	test_keep_paths();
	test_elsewhere();
	test_all();
	unlink(proc_devices);
	unlink(at("init.sh"));
	unlink(at("noexec.sh"));
	rmdir(at("src"));
	rmdir(at("mnt"));
	rmdir(at("mnt2"));
	ok(rmdir(tmp) == 0, "scratch directory removed");
	return tap_done();
}
