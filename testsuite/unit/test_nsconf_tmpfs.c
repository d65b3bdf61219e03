/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_nsconf_tmpfs.c - the parser as a drop-in for job_container/tmpfs
 * and namespace/tmpfs: the example files of job_container.conf(5) of
 * every release (22.05 to 26.05) parse unchanged, with the meaning tmpfs
 * gives them; every tmpfs key (24.11's full set) is read, with tmpfs's
 * defaults; BasePath's %h and %n are expanded as Slurm expands them; bad
 * values are refused naming the line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/nsconf.h"
#include "tap.h"
#include "testrep.h"

static struct nsconf *parse_host(const char *text, const char *node,
				 const char *host)
{
	struct nsconf *c = nsconf_load_text(text, "job_container.conf", node,
					     host, fresh());

	if (!c)
		diag("parse error: %s", rep.msg);
	return c;
}

static struct nsconf *parse(const char *text, const char *node)
{
	return parse_host(text, node, NULL);
}

/* The text must fail with EINVAL and exactly this message. */
static void fails(const char *text, const char *node, const char *msg)
{
	struct nsconf *c;

	rep.msg[0] = '\0';
	errno = 0;
	c = nsconf_load_text(text, "job_container.conf", node, NULL, fresh());
	ok(c == NULL && errno == EINVAL, "rejected: %s", msg);
	is_str(rep.msg, msg, "  message");
	nsconf_free(c);
}

/* job_container.conf(5), EXAMPLE, 22.05 to 26.05: the first sample. */
static void test_man_example_1(void)
{
	struct nsconf *c = parse("AutoBasePath=true\n"
				 "BasePath=/var/nvme/storage\n", "n1");

	if (!ok(c != NULL, "example 1 (every release) parses"))
		return;
	is_str(c->base_path, "/var/nvme/storage", "  BasePath");
	is_int(c->auto_base_path, 1, "  AutoBasePath=true");
	is_str(c->dirs[0], "/tmp", "  Dirs: tmpfs's default /tmp,");
	is_str(c->dirs[1], "/dev/shm", "  /dev/shm");
	is_str(c->dirs[2], NULL, "  and no more");
	nsconf_free(c);
}

/* The second sample: only NodeName lines, with man-page escapes undone. */
static const char example_2[] =
	"NodeName=largemem[1-2] AutoBasePath=true BasePath=/var/nvme/storage_a\n"
	"NodeName=gpu[1-10] BasePath=/var/nvme/storage_b "
	"InitScript=/etc/slurm/init.sh\n";

static void test_man_example_2(void)
{
	struct nsconf *c = parse(example_2, "largemem2");

	if (ok(c != NULL, "example 2 (every release) parses for largemem2")) {
		is_str(c->base_path, "/var/nvme/storage_a", "  its BasePath");
		is_int(c->auto_base_path, 1, "  AutoBasePath on its line");
		is_str(c->init_script, NULL, "  no InitScript");
	}
	nsconf_free(c);
	c = parse(example_2, "gpu7");
	if (ok(c != NULL, "example 2 parses for gpu7")) {
		is_str(c->base_path, "/var/nvme/storage_b", "  its BasePath");
		is_int(c->auto_base_path, 0, "  AutoBasePath not on its line");
		is_str(c->init_script, "/etc/slurm/init.sh", "  its InitScript");
		is_int(c->lines.init_script, 2, "  from line 2");
	}
	nsconf_free(c);
	/*
	 * tmpfs 23.11+ turns itself off on a node no line names (22.05 and
	 * 23.02 fail); devns fails, naming the fix (namespace.conf(5)).
	 */
	fails(example_2, "login1", "job_container.conf: BasePath is not set "
	      "for node login1 (use BasePath=none for no per-job directory)");
}

/* The third sample (23.02 on): Dirs on the BasePath line. */
static void test_man_example_3(void)
{
	struct nsconf *c = parse("AutoBasePath=true\n"
				 "BasePath=/var/nvme/storage Dirs=/tmp,/var/tmp\n",
				 "n1");

	if (!ok(c != NULL, "example 3 (23.02 on) parses"))
		return;
	is_str(c->dirs[0], "/tmp", "  Dirs /tmp");
	is_str(c->dirs[1], "/var/tmp", "  and /var/tmp");
	is_str(c->dirs[2], NULL, "  only: no /dev/shm");
	is_int(c->lines.dirs, 2, "  from line 2");
	nsconf_free(c);
}

/* Every key of 24.11 to 26.05's tmpfs, as a site writes them. */
static const char all_keys[] =
	"# job_container.conf of a tmpfs site\n"
	"AutoBasePath=true\n"
	"BasePath=/var/nvme/%n/storage Dirs=/tmp,/dev/shm,/var/tmp "
	"Shared=true EntireStepInNS=true\n"
	"InitScript=/etc/slurm/init.sh\n"
	"CloneNSScript=/etc/slurm/clone.sh CloneNSScript_Wait=30\n"
	"CloneNSEpilog=/etc/slurm/epilog.sh CloneNSEpilog_Wait=0\n";

static void test_all_keys(void)
{
	struct nsconf *c = parse(all_keys, "n7");

	if (!ok(c != NULL, "every tmpfs key parses"))
		return;
	is_str(c->base_path, "/var/nvme/n7/storage", "  BasePath, %%n expanded");
	is_int(c->auto_base_path, 1, "  AutoBasePath");
	is_str(c->dirs[2], "/var/tmp", "  Dirs");
	is_int(c->shared, 1, "  Shared");
	is_int(c->entire_step_in_ns, 1, "  EntireStepInNS");
	is_int(c->lines.entire_step_in_ns, 3, "    from line 3");
	is_str(c->init_script, "/etc/slurm/init.sh", "  InitScript");
	is_str(c->clone_ns_script, "/etc/slurm/clone.sh", "  CloneNSScript");
	is_int(c->lines.clone_ns_script, 5, "    from line 5");
	is_int(c->clone_ns_script_wait, 30, "  CloneNSScript_Wait");
	is_int(c->lines.clone_ns_script_wait, 5, "    from line 5");
	is_str(c->clone_ns_epilog, "/etc/slurm/epilog.sh", "  CloneNSEpilog");
	is_int(c->lines.clone_ns_epilog, 6, "    from line 6");
	is_int(c->clone_ns_epilog_wait, 0, "  CloneNSEpilog_Wait=0: no limit");
	nsconf_free(c);
}

static void test_defaults(void)
{
	struct nsconf *c = parse("BasePath=/var/nvme/storage\n", "n1");

	if (!ok(c != NULL, "a minimal file parses"))
		return;
	is_str(c->clone_ns_script, NULL, "  no CloneNSScript");
	is_str(c->clone_ns_epilog, NULL, "  no CloneNSEpilog");
	is_int(c->clone_ns_script_wait, 10, "  CloneNSScript_Wait: tmpfs's 10 s");
	is_int(c->clone_ns_epilog_wait, 10, "  CloneNSEpilog_Wait: 10 s");
	is_int(c->lines.clone_ns_script_wait, 0, "    from no line");
	is_int(c->entire_step_in_ns, 0, "  EntireStepInNS: no");
	nsconf_free(c);
}

/* Keys any case, a NodeName line's beating the global ones. */
static void test_node_lines(void)
{
	struct nsconf *c = parse("BasePath=/var/nvme/storage "
				 "clonensscript=/etc/slurm/a.sh "
				 "CLONENSSCRIPT_WAIT=5\n"
				 "NodeName=n[1-2] CloneNSScript=/etc/slurm/b.sh "
				 "EntireStepInNS=no\n"
				 "EntireStepInNS=yes\n", "n2");

	if (!ok(c != NULL, "keys in any case, on NodeName lines"))
		return;
	is_str(c->clone_ns_script, "/etc/slurm/b.sh", "  the node's script");
	is_int(c->clone_ns_script_wait, 5, "  the global line's wait");
	is_int(c->entire_step_in_ns, 0, "  the node's EntireStepInNS");
	is_int(c->lines.entire_step_in_ns, 2, "    from its line");
	nsconf_free(c);
}

/* Slurm's slurm_conf_expand_slurmd_path(): the first %h, the first %n. */
static void test_expand(void)
{
	struct nsconf *c;

	c = parse_host("BasePath=/scratch/%h/%n\n", "n1", "n1.example.org");
	if (ok(c != NULL, "BasePath with %%h and %%n"))
		is_str(c->base_path, "/scratch/n1.example.org/n1",
		       "  %%h the NodeHostname, %%n the NodeName");
	nsconf_free(c);
	c = parse("BasePath=/scratch/%h\n", "n1");
	if (ok(c != NULL, "%%h without a hostname given"))
		is_str(c->base_path, "/scratch/n1",
		       "  is the node name (NodeHostname's default)");
	nsconf_free(c);
	c = parse("BasePath=/scratch/%n/%n-%j\n", "n1");
	if (ok(c != NULL, "two %%n and a %%j"))
		is_str(c->base_path, "/scratch/n1/%n-%j",
		       "  only the first %%n is expanded, as in Slurm");
	nsconf_free(c);
	c = parse("NodeName=n[1-3] BasePath=/local/%n\n", "n3");
	if (ok(c != NULL, "%%n on a NodeName line"))
		is_str(c->base_path, "/local/n3", "  expanded for the node");
	nsconf_free(c);
	fails("BasePath=/scratch/%n\n", NULL,
	      "job_container.conf:1: BasePath: \"/scratch/%n\" has %h or %n, "
	      "and no node name is known to put in (devns check: -n NODE)");
	/* The checks apply to the path the node gets. */
	fails("BasePath=/%n\n", "tmp",
	      "job_container.conf:1: BasePath: \"/%n\" is /tmp, which every "
	      "user can write to (use a directory only root can write to, in "
	      "directories only root can write to, such as "
	      "/var/spool/slurm/devns)");
}

static void test_errors(void)
{
	fails("BasePath=/b CloneNSScript_Wait=ten\n", "n1",
	      "job_container.conf:1: CloneNSScript_Wait: invalid number of "
	      "seconds \"ten\" (0, no limit, to 2147483)");
	fails("BasePath=/b CloneNSEpilog_Wait=-1\n", "n1",
	      "job_container.conf:1: CloneNSEpilog_Wait: invalid number of "
	      "seconds \"-1\" (0, no limit, to 2147483)");
	fails("BasePath=/b\nCloneNSEpilog_Wait=2147484\n", "n1",
	      "job_container.conf:2: CloneNSEpilog_Wait: invalid number of "
	      "seconds \"2147484\" (0, no limit, to 2147483)");
	fails("BasePath=/b CloneNSScript=clone.sh\n", "n1",
	      "job_container.conf:1: CloneNSScript: \"clone.sh\" is not an "
	      "absolute path");
	fails("BasePath=/b CloneNSEpilog=\n", "n1",
	      "job_container.conf:1: CloneNSEpilog: empty value");
	fails("BasePath=/b EntireStepInNS=yes\nPidNamespace=yes\n", "n1",
	      "job_container.conf:1: EntireStepInNS: PidNamespace (line 2) "
	      "needs slurmstepd outside the job's mount namespace, where it "
	      "reaches the PID namespace under BasePath; set one of them");
	fails("BasePath=/b EntireStepInNS=yes\nUserNamespace=yes\n", "n1",
	      "job_container.conf:1: EntireStepInNS: UserNamespace (line 2) "
	      "needs slurmstepd outside the job's mount namespace, where it "
	      "reaches the user namespace under BasePath; set one of them");
	fails("NodeName=n1 TmpDiskLimit=1G\nEntireStepInNS=yes BasePath=/b\n",
	      "n1", "job_container.conf:2: EntireStepInNS: TmpDiskLimit (line "
	      "1) needs slurmstepd outside the job's mount namespace, where it "
	      "reaches BasePath's filesystem; set one of them");
	fails("BasePath=/b EntireStepInNS=maybe\n", "n1",
	      "job_container.conf:1: EntireStepInNS: invalid boolean \"maybe\" "
	      "(use yes or no)");
}

int main(void)
{
	test_man_example_1();
	test_man_example_2();
	test_man_example_3();
	test_all_keys();
	test_defaults();
	test_node_lines();
	test_expand();
	test_errors();
	return tap_done();
}
