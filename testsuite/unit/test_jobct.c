/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_jobct.c - the job's containment lifecycle, without a cluster.
 *
 * Real cgroups and real BPF programs (a scratch node "ut<pid>" below the
 * cgroup2 mount), a fake GPU pair (char 195:0 and 195:1 in a scratch dir:
 * an allowed open fails with ENXIO, there being no driver, a denied one
 * with EPERM from the filter).  The namespace calls are recorded, not made,
 * except in the last test, which uses the real ones where the kernel and
 * the tool running us allow (valgrind lacks open_tree).
 *
 * Every fail-closed branch is reached by making one call of struct
 * jobct_ops fail (fault injection): the lifecycle call must fail, say
 * why, and leave nothing behind (no cgroup, no marker, no namespace).
 *
 * The unified layout's backend (Slurm's step cgroups) is test_stepcg's;
 * the scratch node both use is jobct_fixture.h.
 *
 * Needs root, cgroup2 and bpf; otherwise the whole file is skipped.
 */
#include "jobct_fixture.h"
#include "job/elapsed.h"
#include "ns/dqguard.h"
#include "ns/mntns.h"
#include <sys/ioctl.h>
#include <linux/fs.h>

/* ---- tests ------------------------------------------------------------- */

static void test_node_load(void)
{
	struct jobct_node *node;
	struct stat st;

	write_conf("DevicePolicy=closed\nDeviceAllow=/dev/fuse:rw,/dev/nope:r");
	node = load(&faulty_ops);
	ok(node != NULL, "a node loads: %s", rep.msg);
	ok(stat(base, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == 0 &&
	   (st.st_mode & 07777) == 0755,
	   "AutoBasePath made BasePath root's 0755");
	is_int(rep.warnings, 1, "a DeviceAllow device that is missing warns");
	if (node) {
		is_int(node->policy.mode, DEVPOLICY_CLOSED, "DevicePolicy");
		is_int(node->policy.allow_entries, 2,
		       "DeviceAllow resolved once, at load");
	}
	jobct_node_free(node);

	write_conf("DeviceAllow=/dev/null:rwz");
	ok(load(&faulty_ops) == NULL && errno == EINVAL,
	   "a malformed DeviceAllow fails the load");
	like(rep.msg, ":3: DeviceAllow entry '/dev/null:rwz'",
	     "naming file and line: %s", rep.msg);

	write_conf("Bogus=1");
	ok(load(&faulty_ops) == NULL, "an unknown key fails the load");
	like(rep.msg, conf_path, "naming the file: %s", rep.msg);

	/* issue 30: every job would fail; now the node does not start */
	write_conf("InitScript=/nonexistent/devns-init.sh");
	ok(load(&faulty_ops) == NULL && errno == EINVAL,
	   "a missing InitScript fails the load");
	like(rep.msg, ":3: InitScript /nonexistent/devns-init.sh: No such "
	     "file or directory", "  naming file:line: %s", rep.msg);
	{
		char line[256], mnt[160];

		/* a mount point that is there: the Source part alone warns */
		snprintf(mnt, sizeof(mnt), "%s/mnt", tmp);
		snprintf(line, sizeof(line), "Dir=%s Source=/nonexistent/"
			 "devns/%%u", mnt);
		write_conf(line);
		node = mkdir(mnt, 0755) == 0 ? load(&faulty_ops) : NULL;
		ok(node != NULL && rep.warnings == 1, "a missing Source= part "
		   "only warns at load: %s", rep.msg);
		jobct_node_free(node);
		rmdir(mnt);
	}
	/* issue 46: devns makes no mount point; it may come later */
	write_conf("Dir=/nonexistent-devns-scratch Type=tmpfs");
	node = load(&faulty_ops);
	ok(node != NULL && rep.warnings == 1, "a missing mount point only "
	   "warns at load");
	jobct_node_free(node);
}

/*
 * slurmstepd's load (23.02+): slurmd's text, parsed and checked as the
 * file is, named by the file's path; the file itself is not read again.
 */
static void test_node_load_text(void)
{
	struct jobct_node_args args = {
		.mountinfo = mountinfo,
		.conf_path = conf_path,
		.node_name = node_name,
		.spool_dir = spool,
		.cgroup_root = cg_mount,
		.dev_dir = tmp,
		.ops = &faulty_ops,
	};
	struct jobct_node *file_node, *node;
	char text[512];

	write_conf("DevicePolicy=closed\nShmSize=32M");
	file_node = load(&faulty_ops);
	if (!ok(file_node != NULL, "precondition: the file loads: %s", rep.msg))
		return;
	snprintf(text, sizeof(text), "%s", file_node->conf->text);
	write_conf("Bogus=1");	/* an edit slurmd has not seen */
	args.conf_text = text;
	node = jobct_node_load(&args, fresh());
	ok(node != NULL, "the text slurmd parsed loads, the edited file "
	   "unread: %s", rep.msg);
	if (node) {
		is_int(node->conf->shm_size, 32 << 20, "  the same settings");
		is_int(node->policy.mode, DEVPOLICY_CLOSED, "  the same policy");
		is_str(node->conf->file, conf_path, "  named by slurmd's path");
		is_str(node->conf->text, text, "  keeping the text");
	}
	jobct_node_free(node);
	jobct_node_free(file_node);

	args.conf_text = "BasePath=/b\nShmSize=12Q\n";
	errno = 0;
	ok(jobct_node_load(&args, fresh()) == NULL && errno == EINVAL,
	   "a bad text fails the load");
	snprintf(text, sizeof(text), "%s:2: ShmSize: invalid size \"12Q\"",
		 conf_path);
	is_str(rep.msg, text, "  naming slurmd's file and line");
}

/* An older kernel, as far as mount_setattr(2) goes: it answers ENOSYS. */
static int pretend_no_mount_setattr(void)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mount_setattr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = 4, .filter = insns };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/*
 * A kernel without the whole new mount API (before 5.12): slurmd refuses
 * to start (jobct_kernel_check), naming the kernel and the call, instead
 * of failing every job.  Seen in a child that a seccomp filter gives an
 * older kernel.  valgrind has none of these calls: there only the
 * refusal itself can be seen.
 */
static void test_kernel_floor(void)
{
	char *msg = mmap(NULL, 1024, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct jobct_node *node;
	struct utsname u;
	int status = -1;
	pid_t pid;

	write_conf("");
	if (!(node = load(&faulty_ops)) || msg == MAP_FAILED ||
	    uname(&u) < 0) {
		ok(0, "a node, a shared page and uname: %s", rep.msg);
		jobct_node_free(node);
		return;
	}
	if (fdmount_missing_call()) {
		ok(jobct_kernel_check(node, fresh()) < 0 && errno == ENOSYS &&
		   strstr(rep.msg, u.release), "no new mount API here "
		   "(valgrind?): slurmd refuses: %s", rep.msg);
		tap_skip("no whole new mount API here to take away");
		tap_skip("no whole new mount API here to take away");
		goto out;
	}
	ok(jobct_kernel_check(node, fresh()) == 0, "this kernel has the "
	   "whole new mount API: slurmd starts");
	if ((pid = fork()) < 0) {
		ok(0, "fork");
		goto out;
	}
	if (pid == 0) {
		if (pretend_no_mount_setattr() < 0)
			_exit(3);
		if (strcmp(fdmount_missing_call() ?: "", "mount_setattr"))
			_exit(4);
		status = jobct_kernel_check(node, fresh());
		snprintf(msg, 1024, "%s", rep.msg);
		_exit(status < 0 && errno == ENOSYS ? 0 : 5);
	}
	waitpid(pid, &status, 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
		tap_skip("cannot install a seccomp filter here");
		tap_skip("cannot install a seccomp filter here");
	} else {
		is_int(status, 0, "without mount_setattr(2) slurmd refuses "
		       "to start (ENOSYS)");
		ok(strstr(msg, "mount_setattr(2)") && strstr(msg, u.release) &&
		   strstr(msg, "5.12"), "  naming the call, the kernel and "
		   "the release needed: %s", msg);
	}
out:
	jobct_node_free(node);
	munmap(msg, 1024);
}

static void test_base_path_link(void)
{
	char link[64], saved[sizeof(base)];

	snprintf(link, sizeof(link), "%s/link", tmp);
	snprintf(saved, sizeof(saved), "%s", base);
	ok(symlink(base, link) == 0, "a link to BasePath is planted");
	snprintf(base, sizeof(base), "%s", link);
	write_conf("");
	ok(load(&faulty_ops) == NULL, "BasePath through a link is refused");
	like(rep.msg, "symbolic link", "saying so: %s", rep.msg);
	snprintf(base, sizeof(base), "%s", saved);
	unlink(link);
}

/*
 * AutoBasePath where a user could make BasePath first (below a sticky
 * world-writable directory): slurmd would never start.  A BasePath root
 * made there, or in a 0777 directory, could be removed and taken.  Each
 * is refused at load, by slurmd and devns check alike, naming the file,
 * the line and the directory.
 */
static void test_base_path_squat(void)
{
	char sticky[64], saved[sizeof(base)], want[1024];
	struct jobct_node_args args = {
		.mountinfo = mountinfo,
		.conf_path = conf_path,
		.node_name = node_name,
		.spool_dir = spool,
		.check_only = true,
		.cgroup_root = cg_mount,
		.ops = &faulty_ops,
	};
	struct jobct_node *n;

	snprintf(sticky, sizeof(sticky), "%s/sticky", tmp);
	snprintf(saved, sizeof(saved), "%s", base);
	ok(mkdir(sticky, 01777) == 0 && chmod(sticky, 01777) == 0,
	   "precondition: %s is 1777, like /tmp", sticky);
	snprintf(base, sizeof(base), "%s/devns", sticky);
	write_conf("");
	ok(load(&faulty_ops) == NULL, "slurmd: AutoBasePath in a sticky "
	   "world-writable directory is refused");
	snprintf(want, sizeof(want), "%s:1: BasePath %s cannot hold job "
		 "directories: %s is writable by others (mode 1777)",
		 conf_path, base, sticky);
	like(rep.msg, want, "  naming file:line and the directory: %s",
	     rep.msg);
	ok(access(base, F_OK) < 0, "  and makes nothing");
	n = jobct_node_load(&args, fresh());
	ok(n == NULL, "devns check refuses it too");
	like(rep.msg, want, "  with the same message");
	jobct_node_free(n);

	/*
	 * Made by root there, it is refused too: once empty it can be
	 * removed (systemd-tmpfiles ages /var/tmp out) and a user can take
	 * its name, with the next jobs' directories.
	 */
	ok(mkdir(base, 0755) == 0, "precondition: root made %s", base);
	ok(load(&faulty_ops) == NULL, "slurmd: a root-made BasePath in a "
	   "sticky (1777) directory is refused");
	like(rep.msg, want, "  naming file:line and the parent: %s", rep.msg);
	like(rep.msg, "(use a BasePath that is root's, in directories that "
	     "are root's, and that only root may write to, such as "
	     "/var/spool/slurm/devns)", "  and the fix");
	n = jobct_node_load(&args, fresh());
	ok(n == NULL, "devns check refuses it too");
	like(rep.msg, want, "  with the same message");
	jobct_node_free(n);
	ok(chmod(sticky, 0777) == 0, "precondition: %s is now 0777", sticky);
	snprintf(want, sizeof(want), "%s:1: BasePath %s cannot hold job "
		 "directories: %s is writable by others (mode 0777)",
		 conf_path, base, sticky);
	ok(load(&faulty_ops) == NULL, "slurmd: in a 0777 directory too");
	like(rep.msg, want, "  naming it: %s", rep.msg);
	n = jobct_node_load(&args, fresh());
	ok(n == NULL, "devns check refuses it too");
	like(rep.msg, want, "  with the same message");
	jobct_node_free(n);
	rmdir(base);
	snprintf(base, sizeof(base), "%s", saved);
	rmdir(sticky);
}

static void test_open_policy(void)
{
	struct jobct_node *node;
	struct jobct_plan plan;

	write_conf("");
	if (!(node = load(&faulty_ops)))
		return (void)ok(0, "load: %s", rep.msg);
	plan = plan_for(node, 101);
	plan.node_devices = plan.job_devices = NULL;
	inject(OP_NONE, 0, 0);
	ok(jobct_setup(&plan, fresh()) == 0, "auto without GRES sets up");
	ok(ns_exists, "  with a namespace");
	ok(!cgroup_exists(101) && calls[OP_PROG_CREATE] == 0,
	   "  and no cgroup or program: nothing to contain");
	is_str(marker_text(101), "run 0 0\nnone", "  its setup record says: no filter");
	{
		int e0 = -1, e1 = -1;

		is_int(child_opens(node, 101, &e0, &e1), 0, "a job process joins");
		ok(e0 == ENXIO && e1 == ENXIO, "  unfiltered: both GPUs open");
	}
	ok(jobct_release(node, 101, fresh()) == 0 && nothing_left(101),
	   "released, its record too");
	jobct_node_free(node);
}

/*
 * DevicePolicy=none: devices are Slurm's.  A GPU job gets its namespace
 * and a record, no cgroup, no program; a node without cgroup2 (cgroup v1,
 * as RHEL 8 boots) with GRES files starts, where any filtering policy is
 * refused.
 */
static void test_none_policy(void)
{
	const struct jobct_slurm gres = { .prolog_contain = true,
					  .node_has_devices = true };
	struct jobct_node *node;
	struct jobct_plan plan;
	int e0 = -1, e1 = -1;

	write_conf("DevicePolicy=none");
	if (!(node = load(&faulty_ops)))
		return (void)ok(0, "none: load: %s", rep.msg);
	plan = plan_for(node, 103);
	inject(OP_NONE, 0, 0);
	ok(jobct_setup(&plan, fresh()) == 0, "none: a GPU job sets up: %s",
	   rep.msg);
	ok(ns_exists && !cgroup_exists(103) && calls[OP_PROG_CREATE] == 0,
	   "  with a namespace, no cgroup, no program");
	is_str(marker_text(103), "run 0 0\nnone", "  its setup record says: no filter");
	is_int(child_opens(node, 103, &e0, &e1), 0, "  a job process joins");
	ok(e0 == ENXIO && e1 == ENXIO, "  both GPUs open (Slurm's to contain)");
	ok(jobct_release(node, 103, fresh()) == 0 && nothing_left(103),
	   "  released");
	jobct_node_free(node);

	fake_layout("mi-none", MI_V1);
	if ((node = load(&faulty_ops))) {
		ok(jobct_node_check(node, &gres, fresh()) == 0,
		   "none: a node without cgroup2 and with GRES files starts: %s",
		   rep.msg);
	} else {
		ok(0, "none: load without cgroup2: %s", rep.msg);
	}
	jobct_node_free(node);
	write_conf("DevicePolicy=closed");
	if ((node = load(&faulty_ops))) {
		ok(jobct_node_check(node, &gres, fresh()) == -1,
		   "  where closed is refused (no cgroup2 to filter with)");
	}
	jobct_node_free(node);
	/* fake_layout's path is one buffer: write the hybrid one again */
	fake_layout("mi-hybrid", MI_V1 MI_V2);
}

static void test_filter(void)
{
	struct jobct_node *node;
	struct jobct_plan plan;
	uint32_t id = 0;
	int e0 = -1, e1 = -1, cg_fd, n = 0;
	char path[PATH_MAX];

	write_conf("");
	if (!(node = load(&faulty_ops)))
		return (void)ok(0, "load: %s", rep.msg);
	plan = plan_for(node, 102);
	inject(OP_NONE, 0, 0);
	ok(jobct_setup(&plan, fresh()) == 0, "a GPU job sets up: %s", rep.msg);
	ok(cgroup_exists(102) && marker_exists(102),
	   "  its cgroup and marker exist");
	job_cgroup(path, sizeof(path), 102);
	if ((cg_fd = cgroup2_open(path)) >= 0) {
		n = devinspect_query(cg_fd, &id, 1, NULL);
		close(cg_fd);
	}
	is_int(n, 1, "  one program is attached to it");
	is_int(child_opens(node, 102, &e0, &e1), 0, "a job process joins");
	is_int(e0, ENXIO, "  its own GPU opens (ENXIO: no driver here)");
	is_int(e1, EPERM, "  the other GPU is denied by the filter");
	{
		pid_t pid = fork();
		int status = -1;

		if (pid == 0) {
			int fd;

			if (jobct_join_ns(node, 102, NULL) < 0)
				_exit(99);
			fd = open(gpu1, O_RDWR);
			_exit(fd < 0 && errno == ENXIO ? 0 : 1);
		}
		ok(pid > 0 && waitpid(pid, &status, 0) == pid &&
		   WIFEXITED(status) && WEXITSTATUS(status) == 0,
		   "slurmd's Epilog joins the namespace only: every GPU opens");
	}
	{
		pid_t pid = fork();
		int status = -1;

		if (pid == 0) {
			int fd;

			memset(calls, 0, sizeof(calls));
			if (jobct_join_in_ns(node, 102, NULL) < 0)
				_exit(99);
			if (calls[OP_NS_JOIN])
				_exit(2);
			fd = open(gpu1, O_RDWR);
			_exit(fd < 0 && errno == EPERM ? 0 : 1);
		}
		ok(pid > 0 && waitpid(pid, &status, 0) == pid &&
		   WIFEXITED(status) && WEXITSTATUS(status) == 0,
		   "EntireStepInNS: a process of a stepd in the namespace goes "
		   "under the filter (the other GPU denied), joining no "
		   "namespace");
	}
	ok(jobct_release(node, 102, noting()) == 0, "released: %s", rep.msg);
	snprintf(path, sizeof(path), "denied 2 opens of c 195:1 (%s)\n", gpu1);
	is_str(notices, path,
	       "  the log has the two denied opens (the job process's, the EntireStepInNS one's), of the other GPU, named; none of its own GPU");
	ok(nothing_left(102), "  nothing left");
	for (int i = 0; i < TAP_WAIT_MS / 10 && bpfinspect_prog_alive(id) == 1; i++)
		usleep(10000);
	is_int(bpfinspect_prog_alive(id), 0, "  the program is unloaded");
	ok(jobct_release(node, 102, fresh()) == 0, "releasing twice is fine");
	jobct_node_free(node);
}

/* Each fail-closed branch of setup: fails, says why, leaves nothing. */
static void test_setup_faults(void)
{
	static const struct {
		enum op op;
		int nth;
		const char *why;
	} cases[] = {
		{ OP_NS_CREATE, 1, "cannot create its namespace" },
		{ OP_CG_OPEN, 1, "no usable cgroup2 hierarchy" },
		{ OP_CG_OPEN, 2, "cannot create its device cgroup" },
		{ OP_PROG_CREATE, 1, "verifier: 0: (b7) r0 = 1;R0 !read_ok" },
		{ OP_PROG_ATTACH, 1, "cannot attach the device filter" },
		{ OP_MARKER_CREATE, 1, "cannot record its device filter" },
	};
	struct jobct_node *node;
	struct jobct_plan plan;

	write_conf("");
	if (!(node = load(&faulty_ops)))
		return (void)ok(0, "load: %s", rep.msg);
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		uint32_t job = 110 + (uint32_t)i;
		int rc;

		plan = plan_for(node, job);
		inject(cases[i].op, cases[i].nth, EIO);
		rc = jobct_setup(&plan, fresh());
		ok(rc == -1 && calls[cases[i].op] >= cases[i].nth,
		   "setup fails when %s call %d fails", op_names[cases[i].op],
		   cases[i].nth);
		like(rep.msg, cases[i].why, "  saying why: %s", rep.msg);
		ok(nothing_left(job), "  and leaves nothing behind");
	}
	/* A GRES file that is gone: the policy cannot be computed. */
	{
		const char *const gone[] = { "/nonexistent/nvidia7", NULL };

		plan = plan_for(node, 120);
		plan.job_devices = gone;
		inject(OP_NONE, 0, 0);
		ok(jobct_setup(&plan, fresh()) == -1,
		   "setup fails when a GRES file is missing");
		like(rep.msg, "its device policy cannot be computed",
		     "  saying why: %s", rep.msg);
		ok(nothing_left(120), "  and leaves nothing behind");
	}
	jobct_node_free(node);
}

/*
 * A later step of the extern step's setup fails (CloneNSScript): the setup
 * done is undone, namespace, filter and record, and a removal that fails
 * is said.
 */
static void test_setup_undo(void)
{
	struct jobct_node *node;
	struct jobct_plan plan;

	write_conf("");
	if (!(node = load(&faulty_ops)))
		return (void)ok(0, "load: %s", rep.msg);
	plan = plan_for(node, 121);
	inject(OP_NONE, 0, 0);
	ok(jobct_setup(&plan, fresh()) == 0 && cgroup_exists(121) &&
	   marker_exists(121) && ns_exists,
	   "undo: a GPU job set up (namespace, cgroup, record): %s", rep.msg);
	ok(jobct_setup_undo(&plan, fresh()) == 0 && nothing_left(121),
	   "undo: leaves nothing behind");
	ok(jobct_setup(&plan, fresh()) == 0, "undo: set up again");
	inject(OP_NS_DELETE, 1, EIO);
	ok(jobct_setup_undo(&plan, fresh()) == -1 && errno == EIO,
	   "undo: fails when the namespace cannot be removed");
	like(rep.msg, "removing its namespace", "  saying why: %s", rep.msg);
	ok(jobct_release(node, 121, fresh()) == 0 && nothing_left(121),
	   "  and the job's release still removes it");
	jobct_node_free(node);
}

/* Each way a join can fail ends the process instead of running it. */
static void test_join_faults(void)
{
	static const struct {
		enum op op;
		int err;
		const char *what;
	} cases[] = {
		{ OP_MARKER_STAT, EACCES, "the marker cannot be read" },
		{ OP_CG_OPEN, ENOENT, "the job's cgroup is gone" },
		{ OP_CG_MOVE, EBUSY, "the move into the cgroup fails" },
		{ OP_NS_JOIN, EINVAL, "setns fails" },
	};
	struct jobct_node *node;
	struct jobct_plan plan;
	int e0, e1;

	write_conf("");
	if (!(node = load(&faulty_ops)))
		return (void)ok(0, "load: %s", rep.msg);
	plan = plan_for(node, 130);
	inject(OP_NONE, 0, 0);
	if (!ok(jobct_setup(&plan, fresh()) == 0, "a GPU job sets up"))
		diag("%s", rep.msg);
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		inject(cases[i].op, 1, cases[i].err);
		is_int(child_opens(node, 130, &e0, &e1), 99,
		       "a process does not run when %s", cases[i].what);
	}
	inject(OP_NONE, 0, 0);
	is_int(child_opens(node, 130, &e0, &e1), 0,
	       "without a fault the same process runs");
	jobct_release(node, 130, NULL);
	jobct_node_free(node);
}

/*
 * slurmd's start: TmpDiskGres names a GRES the node's slurm.conf Gres=
 * has, else every job would silently get TmpDiskLimit (or no limit).
 * Loaded as devns check does, before AutoBasePath makes BasePath, so
 * that the quota probe (this host may lack quotas) is only a warning.
 */
static void test_tmp_disk_gres_check(void)
{
	char saved[sizeof(base)];
	struct jobct_node_args args = {
		.mountinfo = mountinfo,
		.conf_path = conf_path,
		.node_name = node_name,
		.spool_dir = spool,
		.check_only = true,
		.cgroup_root = cg_mount,
		.ops = &faulty_ops,
	};
	struct jobct_slurm slurm = { .prolog_contain = true,
				     .gres = "gpu:a:2,nic:2" };
	struct jobct_node *n;

	snprintf(saved, sizeof(saved), "%s", base);
	snprintf(base, sizeof(base), "%s/no-such-base", tmp);
	write_conf("TmpDiskGres=tmpdisk");
	n = jobct_node_load(&args, fresh());
	ok(n != NULL, "precondition: TmpDiskGres=tmpdisk loads (%s)", rep.msg);
	if (n) {
		ok(jobct_node_check(n, &slurm, fresh()) == -1 && errno == ENOENT,
		   "slurmd refuses TmpDiskGres naming no GRES of the node");
		like(rep.msg, "has no GRES tmpdisk in slurm.conf (Gres=gpu:a:2,nic:2), so no job could ask for it",
		     "  saying which and where: %s", rep.msg);
		slurm.gres = "gpu:a:2,nic:2,tmpdisk:800M";
		ok(jobct_node_check(n, &slurm, fresh()) == 0,
		   "and starts where the node has it: %s", rep.msg);
		jobct_node_free(n);
	}
	snprintf(base, sizeof(base), "%s", saved);
	write_conf("");
}

/* slurmd's start: PidNamespace needs devns_pidns.so in the SPANK stack. */
static void test_pid_namespace_check(const struct jobct_node *node)
{
	char stack[256];
	struct jobct_slurm slurm = { .prolog_contain = true, .plugstack = stack };

	snprintf(stack, sizeof(stack), "%s/plugstack.conf", tmp);
	unlink(stack);
	ok(jobct_node_check(node, &slurm, fresh()) == -1,
	   "slurmd refuses PidNamespace without a SPANK stack");
	like(rep.msg, "needs \"required devns_pidns.so\" in /",
	     "  naming the line it needs: %s", rep.msg);
	write_file(stack, "optional devns_pidns.so\n");
	ok(jobct_node_check(node, &slurm, fresh()) == -1,
	   "  or with the plugin only optional");
	write_file(stack, "required devns_pidns.so\n");
	ok(jobct_node_check(node, &slurm, fresh()) == 0,
	   "and starts with it required: %s", rep.msg);
	slurm.contain_spank = true;
	ok(jobct_node_check(node, &slurm, fresh()) == -1,
	   "but not with SlurmdParameters=contain_spank");
	like(rep.msg, "contain_spank", "  saying so: %s", rep.msg);
	unlink(stack);
}

static pid_t tracked_init;

static int track_init(pid_t init, void *arg, struct report *rep)
{
	(void)arg;
	(void)rep;
	tracked_init = init;
	return 0;
}

static int refuse_init(pid_t init, void *arg, struct report *rep)
{
	(void)arg;
	tracked_init = init;
	return report_error(rep, "proctrack_g_add refused");
}

/*
 * The PID namespace's init goes to the daemon's process tracking (Slurm's
 * cgroup/v2 kills only what it tracks); a job whose init cannot be
 * tracked does not start, and nothing of it is left.
 */
static void test_pid_namespace_tracked(const struct jobct_node *node)
{
	struct jobct_plan plan = plan_for(node, 137);

	plan.track_init = refuse_init;
	tracked_init = 0;
	ok(jobct_setup(&plan, fresh()) == -1 && tracked_init == FAKE_INIT_PID,
	   "setup fails when the PID namespace's init cannot be tracked");
	like(rep.msg, "cannot track its PID namespace's init (PID 4242): proctrack_g_add refused",
	     "  saying why: %s", rep.msg);
	ok(nothing_left(137) && !pidns_exists,
	   "  and leaves nothing behind, the PID namespace included");
	plan.track_init = track_init;
	tracked_init = 0;
	ok(jobct_setup(&plan, fresh()) == 0 && tracked_init == FAKE_INIT_PID,
	   "the init's PID goes to the process tracking");
	jobct_release(node, 137, NULL);
	ok(nothing_left(137) && !pidns_exists, "  and release removes it");
}

/*
 * PidNamespace: a PID namespace that cannot be made fails the job and
 * takes its mount namespace with it; a process born outside the job's PID
 * namespace goes on in a child forked inside, and does not run when that
 * fails; slurmd refuses to start without the SPANK plugin.
 */
static void test_pid_namespace(void)
{
	struct jobct_node *node;
	struct jobct_plan plan;
	int e0, e1;

	write_conf("PidNamespace=yes");
	if (!(node = load(&faulty_ops)))
		return (void)ok(0, "load: %s", rep.msg);
	ok(node->conf->pid_namespace, "PidNamespace=yes is read");
	plan = plan_for(node, 135);
	inject(OP_PIDNS_CREATE, 1, EIO);
	ok(jobct_setup(&plan, fresh()) == -1 && calls[OP_NS_CREATE] == 1,
	   "setup fails when the PID namespace cannot be made");
	like(rep.msg, "cannot create its PID namespace: unshare",
	     "  saying why: %s", rep.msg);
	ok(nothing_left(135) && !pidns_exists,
	   "  and leaves nothing behind, the mount namespace included");
	inject(OP_NONE, 0, 0);
	if (!ok(jobct_setup(&plan, fresh()) == 0 && pidns_exists,
		"without a fault the job gets both namespaces"))
		diag("%s", rep.msg);
	pidns_inside = 0;
	inject(OP_NONE, 0, 0);
	is_int(child_opens(node, 135, &e0, &e1), 0,
	       "a process born outside the job's PID namespace runs");
	inject(OP_PIDNS_FORK, 1, EAGAIN);
	is_int(child_opens(node, 135, &e0, &e1), 99,
	   "  and does not when its child inside cannot be forked");
	inject(OP_PIDNS_CHECK, 1, EACCES);
	pidns_inside = 1;
	is_int(child_opens(node, 135, &e0, &e1), 99,
	       "nor one whose PID namespace cannot be looked at");
	ok(jobct_join(node, 135, fresh()) == -1, "  its join fails");
	like(rep.msg, "cannot tell whether it is in its PID namespace",
	     "  saying why: %s", rep.msg);
	inject(OP_NONE, 0, 0);
	is_int(child_opens(node, 135, &e0, &e1), 0,
	       "one born inside runs");
	jobct_release(node, 135, NULL);
	ok(nothing_left(135) && !pidns_exists, "release removes both");
	/* A job set up before PidNamespace was turned on keeps running. */
	plan = plan_for(node, 136);
	ok(jobct_setup(&plan, fresh()) == 0, "another job");
	pidns_exists = false;
	is_int(child_opens(node, 136, &e0, &e1), 0,
	       "a job without a PID namespace (older than the setting) runs");
	is_int(jobct_pidns_enter(node->conf->base_path, 136, fresh()), 0,
	       "  and slurmstepd has none to enter for it");
	jobct_release(node, 136, NULL);
	test_pid_namespace_check(node);
	test_pid_namespace_tracked(node);
	jobct_node_free(node);
}

/*
 * A child of the job: 0 when its join went into the user namespace, 1
 * when it ran outside one, 99 when the join failed.
 */
static int child_in_userns(const struct jobct_node *node, uint32_t job_id)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (jobct_join(node, job_id, NULL) < 0)
			_exit(99);
		_exit(userns_entered ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * UserNamespace: a user namespace that cannot be made fails the job and
 * takes its mount namespace with it; each process of the job enters it
 * last, and does not run when it cannot; a job set up without one runs
 * without one.
 */
static void test_user_namespace(void)
{
	struct jobct_node *node;
	struct jobct_plan plan;

	write_conf("UserNamespace=yes");
	if (!(node = load(&faulty_ops)))
		return (void)ok(0, "load: %s", rep.msg);
	ok(node->conf->user_namespace, "UserNamespace=yes is read");
	plan = plan_for(node, 137);
	inject(OP_USERNS_CREATE, 1, EPERM);
	ok(jobct_setup(&plan, fresh()) == -1 && calls[OP_NS_CREATE] == 1,
	   "setup fails when the user namespace cannot be made");
	like(rep.msg, "cannot create its user namespace: unshare(CLONE_NEWUSER)",
	     "  saying why: %s", rep.msg);
	ok(nothing_left(137) && !fake_userns,
	   "  and leaves nothing behind, the mount namespace included");
	inject(OP_NONE, 0, 0);
	if (!ok(jobct_setup(&plan, fresh()) == 0 && fake_userns,
		"without a fault the job gets its user namespace"))
		diag("%s", rep.msg);
	is_int(child_in_userns(node, 137), 0,
	       "a process of the job runs in it");
	inject(OP_USERNS_ENTER, 1, EINVAL);
	is_int(child_in_userns(node, 137), 99,
	       "  and does not run when it cannot enter it");
	inject(OP_USERNS_OPEN, 1, EACCES);
	ok(jobct_join(node, 137, fresh()) == -1,
	   "nor when its pin cannot be opened");
	like(rep.msg, "cannot open its user namespace", "  saying why: %s",
	     rep.msg);
	inject(OP_NONE, 0, 0);
	jobct_release(node, 137, NULL);
	ok(nothing_left(137) && !fake_userns, "release removes it");
	/* A job set up before UserNamespace was turned on keeps running. */
	plan = plan_for(node, 138);
	ok(jobct_setup(&plan, fresh()) == 0, "another job");
	fake_userns = false;
	is_int(child_in_userns(node, 138), 1,
	       "a job without a user namespace (older than the setting) runs outside one");
	jobct_release(node, 138, NULL);
	jobct_node_free(node);
}

static void test_adopt(void)
{
	struct jobct_node *node;
	struct jobct_plan plan;
	char want[PATH_MAX], line[PATH_MAX], path[64];
	pid_t pid;
	FILE *f;
	bool moved = false;

	write_conf("");
	if (!(node = load(&faulty_ops)))
		return (void)ok(0, "load: %s", rep.msg);
	plan = plan_for(node, 140);
	inject(OP_NONE, 0, 0);
	ok(jobct_setup(&plan, fresh()) == 0, "a GPU job sets up");
	if ((pid = fork()) == 0) {
		pause();
		_exit(0);
	}
	adopt_pid = pid;
	ok(jobct_adopt(node, 140, false, fresh()) == 0, "an adopted process moves: %s",
	   rep.msg);
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	snprintf(want, sizeof(want), "/devns/%s/job_140\n", node_name);
	if ((f = fopen(path, "r"))) {
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "0::", 3) && strstr(line, want))
				moved = true;
		fclose(f);
	}
	ok(moved, "  into the job's cgroup");
	inject(OP_EXTERN_PIDS, 1, ENOENT);
	ok(jobct_adopt(node, 140, false, fresh()) == -1,
	   "the extern step cannot be found: the login is refused");
	like(rep.msg, "extern step", "  saying why: %s", rep.msg);
	{
		pid_t login = fork(), kept = adopt_pid;

		if (login == 0) {
			pause();
			_exit(0);
		}
		adopt_pid = login;
		inject(OP_CG_MOVE, 1, EACCES);
		ok(login > 0 && jobct_adopt(node, 140, false, fresh()) == -1 &&
		   kill(login, 0) == 0,
		   "the move fails: the login is refused (and left to PAM)");
		inject(OP_CG_MOVE, 1, EACCES);
		ok(jobct_adopt(node, 140, true, fresh()) == -1,
		   "  from 25.11 (kill_uncontained): refused");
		like(rep.msg, "killed", "  saying so: %s", rep.msg);
		ok(reaped_within(login, TAP_WAIT_MS),
		   "  and the process that could not be contained is killed, whatever PAM does with the refusal");
		if ((login = fork()) == 0) {
			pause();
			_exit(0);
		}
		adopt_pid = login;
		inject(OP_CG_OPEN, 1, ENOENT);
		ok(login > 0 && jobct_adopt(node, 140, true, fresh()) == -1 &&
		   reaped_within(login, TAP_WAIT_MS),
		   "the job's device cgroup is gone (kill_uncontained): the login is refused and killed: %s",
		   rep.msg);
		adopt_pid = kept;
	}
	inject(OP_MARKER_STAT, 1, EIO);
	ok(jobct_adopt(node, 140, false, fresh()) == -1 && errno == EIO,
	   "the marker cannot be read: the login is refused (EIO)");
	/* An unreadable record is an error, never taken for a missing one. */
	like(rep.msg, "cannot tell whether it has a device filter",
	     "  saying it could not read the record: %s", rep.msg);
	inject(OP_NONE, 0, 0);
	ok(jobct_adopt(node, 999998, false, fresh()) == -1 && errno == ENOENT &&
	   calls[OP_EXTERN_PIDS] == 0,
	   "a job never set up: the login is refused");
	like(rep.msg, "no setup record", "  saying why: %s", rep.msg);
	{
		struct jobct_plan open = plan_for(node, 141);

		open.node_devices = open.job_devices = NULL;
		ok(jobct_setup(&open, fresh()) == 0, "a job with no filter sets up");
		inject(OP_NONE, 0, 0);
		ok(jobct_adopt(node, 141, false, fresh()) == 0 &&
		   calls[OP_EXTERN_PIDS] == 0,
		   "  and adopts without looking for its processes");
		jobct_release(node, 141, NULL);
	}
	ok(jobct_release(node, 140, fresh()) == 0 && nothing_left(140),
	   "release kills the adopted process and removes everything");
	ok(reaped_within(pid, TAP_WAIT_MS), "  the process is gone");
	adopt_pid = 0;
	jobct_node_free(node);
}

/* The last "released in" line the release logged, as its three figures. */
static struct {
	int seen;
	double total, ns, dev;
} released;

static void catch_released(enum report_level level, const char *msg,
			   void *arg)
{
	(void)level;
	(void)arg;
	if (sscanf(msg, "released in %lf ms (namespace %lf ms, device cgroup %lf ms)",
		   &released.total, &released.ns, &released.dev) == 3)
		released.seen++;
}

static void test_release(void)
{
	struct jobct_node *node;
	struct jobct_plan plan;

	write_conf("");
	if (!(node = load(&faulty_ops)))
		return (void)ok(0, "load: %s", rep.msg);
	plan = plan_for(node, 150);
	inject(OP_NONE, 0, 0);
	ok(jobct_setup(&plan, fresh()) == 0, "a GPU job sets up");
	inject(OP_CG_REMOVE, 1, EPERM);
	report_init(&rep, catch_released, NULL);
	ok(jobct_release(node, 150, &rep) == 0 && nothing_left(150),
	   "a removal refused once for privilege is retried");
	is_int(calls[OP_CG_REMOVE], 2, "  twice");
	is_int(released.seen, 1, "  and the release logs its time once");
	/* usleep(10000) sleeps at least 10 ms: the wait is in neither part */
	ok(released.total - released.ns - released.dev >= 10.0,
	   "  with the retry's wait in its total only (%.2f ms: namespace %.2f, device cgroup %.2f)",
	   released.total, released.ns, released.dev);

	ok(jobct_setup(&plan, fresh()) == 0, "set up again");
	inject(OP_CG_REMOVE, 1, EIO);
	ok(jobct_release(node, 150, fresh()) == -1 && errno == EIO,
	   "a removal that fails otherwise fails the release");
	like(rep.msg, "cannot remove its device cgroup", "  saying why: %s",
	     rep.msg);
	inject(OP_NS_DELETE, 1, EBUSY);
	ok(jobct_release(node, 150, fresh()) == -1, "so does a namespace");
	like(rep.msg, "removing its namespace", "  saying why: %s", rep.msg);
	inject(OP_NONE, 0, 0);
	ok(jobct_release(node, 150, fresh()) == 0 && nothing_left(150),
	   "and the next release finishes the job");
	jobct_node_free(node);
}

static bool only_160_alive(uint32_t job_id, void *arg)
{
	(void)arg;
	return job_id == 160;
}

static void test_restore(void)
{
	struct jobct_node *node;
	struct jobct_plan plan;
	char dir[PATH_MAX + 16];

	write_conf("");
	if (!(node = load(&faulty_ops)))
		return (void)ok(0, "load: %s", rep.msg);
	inject(OP_NONE, 0, 0);
	plan = plan_for(node, 160);
	ok(jobct_setup(&plan, fresh()) == 0, "job 160 sets up");
	plan = plan_for(node, 161);
	ok(jobct_setup(&plan, fresh()) == 0, "job 161 sets up");
	{
		int e0 = -1, e1 = -1;

		ok(child_opens(node, 161, &e0, &e1) == 0 && e1 == EPERM,
		   "  a process of job 161 is denied the other GPU");
	}
	/* a job dir under BasePath from before a restart */
	snprintf(dir, sizeof(dir), "%s/162", base);
	ok(mkdir(dir, 0700) == 0, "a stale job directory is planted");
	ok(jobct_restore(node, only_160_alive, NULL, noting()) == 0,
	   "restore: %s", rep.msg[0] ? rep.msg : "ok");
	snprintf(dir, sizeof(dir), "job 161: denied 1 opens of c 195:1 (%s)\n",
		 gpu1);
	is_str(notices, dir, "  the ended job's denials are logged, naming it");
	snprintf(dir, sizeof(dir), "%s/162", base);
	ok(cgroup_exists(160) && marker_exists(160), "  the live job is kept");
	ok(!cgroup_exists(161) && !marker_exists(161),
	   "  the ended job's cgroup and marker are gone");
	ok(calls[OP_NS_DELETE] >= 2, "  the ended jobs' namespaces removed");
	rmdir(dir);	/* the fake ns_delete removes nothing */
	jobct_release(node, 160, NULL);
	jobct_node_free(node);
}


/* Every line a report made, any level: the restore thread's log. */
static char lines[4096];

static void log_all(enum report_level level, const char *msg, void *arg)
{
	size_t n = strlen(lines);

	(void)level;
	(void)arg;
	snprintf(lines + n, sizeof(lines) - n, "%s\n", msg);
}

static struct report *logging(void)
{
	lines[0] = '\0';
	report_init(&rep, log_all, NULL);
	return &rep;
}

/* slurmd's restore behind it: the same decisions as jobct_restore. */
static void test_restore_behind(void)
{
	struct jobct_restore_args args = { .alive = only_160_alive };
	struct jobct_restorer *r;
	struct jobct_node *node;
	struct jobct_plan plan;
	char dir[PATH_MAX + 16];
	int waited;

	write_conf("");
	if (!(node = load(&faulty_ops)))
		return (void)ok(0, "load: %s", rep.msg);
	inject(OP_NONE, 0, 0);
	plan = plan_for(node, 160);
	ok(jobct_setup(&plan, fresh()) == 0, "behind: job 160 sets up");
	plan = plan_for(node, 161);
	ok(jobct_setup(&plan, fresh()) == 0, "behind: job 161 sets up");
	snprintf(dir, sizeof(dir), "%s/162", base);
	ok(mkdir(dir, 0700) == 0, "  a stale job directory 162 is planted");
	calls[OP_NS_DELETE] = 0;
	r = jobct_restore_start(node, &args, logging());
	ok(r != NULL, "the restore thread starts: %s",
	   rep.msg[0] ? rep.msg : "ok");
	for (waited = 0; jobct_restore_busy(r) && waited < 10000; waited += 10)
		usleep(10000);
	ok(!jobct_restore_busy(r), "  and ends by itself");
	is_int(jobct_restore_finish(r, false), 0, "  with nothing failed");
	ok(cgroup_exists(160) && marker_exists(160), "  the live job is kept");
	ok(!cgroup_exists(161) && !marker_exists(161),
	   "  the ended job's cgroup and marker are gone");
	ok(calls[OP_NS_DELETE] >= 2, "  the ended jobs' namespaces removed");
	like(lines, "3 ended or unknown jobs left was looked at",
	     "  and it says when it is done");
	{
		static const char first[] = "restore: 3 jobs left something (found in ";
		const char *nl = strchr(lines, '\n');

		ok(strncmp(lines, first, strlen(first)) == 0 && nl &&
		   strstr(lines, " ms); looking at them behind slurmd\n") ==
			   nl - strlen(" ms); looking at them behind slurmd"),
		   "  after saying first, before returning, what it found and how long that took");
	}
	rmdir(dir);	/* the fake ns_delete removes nothing */
	jobct_release(node, 160, NULL);
	ok(jobct_restore_finish(NULL, true) == 0 && !jobct_restore_busy(NULL),
	   "no thread: nothing to wait for");
	jobct_node_free(node);
}

/* Whether job 170's new run has started (its stepd answers). */
static bool run_170_started;

static bool job_170_alive(uint32_t job_id, void *arg)
{
	(void)arg;
	return job_id == 170 && __atomic_load_n(&run_170_started,
						 __ATOMIC_SEQ_CST);
}

struct setup_call {
	struct jobct_plan plan;
	struct report rep;
	int rc;
	bool done;
};

static void *setup_thread(void *arg)
{
	struct setup_call *c = arg;

	report_init(&c->rep, NULL, NULL);
	c->rc = jobct_setup(&c->plan, &c->rep);
	__atomic_store_n(&c->done, true, __ATOMIC_SEQ_CST);
	return NULL;
}

/*
 * A job id that runs again while restore works behind slurmd: restore
 * must not remove what the new run made.  Restore keeps or releases a
 * job under its end lock and asks alive() only once it holds it; setup
 * holds the same lock while it makes the namespace.  Without the lock the
 * thread would ask at once, find 170 ended and remove the new run's
 * filter below.
 */
static void test_restore_reused_id(void)
{
	struct jobct_restore_args args = { .alive = job_170_alive };
	struct jobct_restorer *r;
	struct jobct_node *node;
	struct setup_call call;
	struct jobct_plan plan;
	char dir[PATH_MAX + 16];
	pthread_t t;
	int lock;

	write_conf("");
	if (!(node = load(&faulty_ops)))
		return (void)ok(0, "load: %s", rep.msg);
	inject(OP_NONE, 0, 0);
	plan = plan_for(node, 170);
	ok(jobct_setup(&plan, fresh()) == 0, "reused id: job 170's first run sets up");
	/* The first run ended while slurmd was away; its end lock is held
	 * by what comes next (the new run's setup, below: ours for now). */
	lock = mntns_lock_job(base, 170);
	ok(lock >= 0, "  its end lock is held");
	run_170_started = false;
	r = jobct_restore_start(node, &args, logging());
	ok(r != NULL, "  restore starts behind slurmd");
	usleep(100000);
	ok(jobct_restore_busy(r), "  and waits for the lock");
	/* The new run: its stepd answers from now on. */
	__atomic_store_n(&run_170_started, true, __ATOMIC_SEQ_CST);
	mntns_unlock_job(base, 170, lock);
	is_int(jobct_restore_finish(r, false), 0, "  restore ends");
	ok(cgroup_exists(170) && marker_exists(170),
	   "  and keeps what the new run has");
	like(lines, "job 170 alive, keeping it", "  saying so");

	/* Setup waits for a restore that holds the lock. */
	lock = mntns_lock_job(base, 171);
	memset(&call, 0, sizeof(call));
	call.plan = plan_for(node, 171);
	ok(lock >= 0 && pthread_create(&t, NULL, setup_thread, &call) == 0,
	   "job 171's setup starts while its end lock is held");
	usleep(100000);
	ok(!__atomic_load_n(&call.done, __ATOMIC_SEQ_CST),
	   "  and waits for it");
	mntns_unlock_job(base, 171, lock);
	pthread_join(t, NULL);
	ok(call.rc == 0 && marker_exists(171), "  then sets up: %s",
	   call.rep.msg[0] ? call.rep.msg : "ok");

	/* A directory an earlier run left, which restore kept or has not
	 * reached: setup removes it first instead of failing on it. */
	jobct_release(node, 171, NULL);
	snprintf(dir, sizeof(dir), "%s/171", base);
	ok(mkdir(dir, 0700) == 0, "an earlier run of job 171 left its directory");
	calls[OP_NS_DELETE] = 0;
	plan = plan_for(node, 171);
	ok(jobct_setup(&plan, logging()) == 0, "  setup sets up");
	is_int(calls[OP_NS_DELETE], 1, "  removing it first");
	snprintf(dir, sizeof(dir), "the directory of an earlier run (%s/171) was left: removing it",
		 base);
	like(lines, dir, "  saying so");
	snprintf(dir, sizeof(dir), "%s/171", base);
	rmdir(dir);	/* the fake ns_delete removes nothing */
	jobct_release(node, 170, NULL);
	jobct_release(node, 171, NULL);
	jobct_node_free(node);
}

/* What a dry run saw, job by job. */
struct seen {
	int count;
	struct jobct_remains r[4];
};

static void record(const struct jobct_remains *r, void *arg)
{
	struct seen *seen = arg;

	if (seen->count < 4)
		seen->r[seen->count] = *r;
	seen->count++;
}

/* Restore as devns cleanup runs it: report only, then for real. */
static void test_restore_dry_run(void)
{
	struct jobct_restore_args args = { .alive = none_alive };
	struct seen seen = { 0 };
	struct jobct_node *node;
	struct jobct_plan plan;
	char path[PATH_MAX];

	write_conf("");
	if (!(node = load(&faulty_ops)))
		return (void)ok(0, "load: %s", rep.msg);
	inject(OP_NONE, 0, 0);
	plan = plan_for(node, 291);
	ok(jobct_setup(&plan, fresh()) == 0, "job 291 sets up");
	snprintf(path, sizeof(path), "%s/devns_filter_290", spool);
	write_file(path, "");
	ok(marker_exists(290) && !cgroup_exists(290),
	   "job 290 has a marker and nothing else");
	args.arg = &seen;
	args.found = record;
	args.dry_run = true;
	ok(jobct_restore_run(node, &args, fresh()) == 0, "a dry run: %s",
	   rep.msg[0] ? rep.msg : "ok");
	is_int(seen.count, 2, "  sees both jobs, each once");
	ok(seen.r[0].job_id == 290 && seen.r[0].has_marker &&
	   !seen.r[0].has_cgroup && !seen.r[0].alive,
	   "  290 first: its marker, no cgroup, not alive");
	job_cgroup(path, sizeof(path), 291);
	ok(seen.r[1].job_id == 291 && seen.r[1].has_marker &&
	   seen.r[1].has_cgroup && !strcmp(seen.r[1].cgroup, path) &&
	   seen.r[1].cgroup_procs == 0,
	   "  291: marker and cgroup %s, no process", seen.r[1].cgroup);
	ok(marker_exists(290) && marker_exists(291) && cgroup_exists(291) &&
	   calls[OP_NS_DELETE] == 0 && calls[OP_CG_REMOVE] == 0,
	   "  and removes nothing");
	args.dry_run = false;
	seen.count = 0;
	ok(jobct_restore_run(node, &args, fresh()) == 0 && seen.count == 2,
	   "the same for real");
	ok(!marker_exists(290) && nothing_left(291),
	   "  removes both, the lone marker too");
	jobct_node_free(node);
}


/* jobct_each_cgroup's callback: the paths it was given, joined. */
static int collect(const char *path, int cg_fd, void *arg)
{
	char *buf = arg;

	(void)cg_fd;
	snprintf(buf + strlen(buf), 4096 - strlen(buf), "%s\n", path);
	return 0;
}

/*
 * Where the job's filter lives, per layout: devns's own job cgroup on
 * hybrid, Slurm's step cgroups on unified, found from the job's marker (a
 * scratch tree stands for the cgroup2 root there).
 */
static void test_job_cgroups(void)
{
	static const char *const dirs[] = {
		"system.slice", "system.slice/%s_slurmstepd.scope",
		"system.slice/%s_slurmstepd.scope/job_7",
		"system.slice/%s_slurmstepd.scope/job_7/step_0",
		"system.slice/%s_slurmstepd.scope/job_7/step_0/user",
		"system.slice/%s_slurmstepd.scope/job_7/step_0/slurm",
		"system.slice/%s_slurmstepd.scope/job_7/step_extern",
		"system.slice/%s_slurmstepd.scope/job_7/step_extern/user",
		NULL,
	};
	char root[sizeof(cg_mount)], path[PATH_MAX + 128], want[4096], got[4096];
	char saved[sizeof(cg_mount)];
	struct jobct_node *node;
	struct jobct_plan plan;
	size_t n;

	write_conf("");
	if (!(node = load(&faulty_ops)))
		return (void)ok(0, "load: %s", rep.msg);
	inject(OP_NONE, 0, 0);
	plan = plan_for(node, 195);
	ok(jobct_setup(&plan, fresh()) == 0, "hybrid: job 195 sets up");
	got[0] = '\0';
	job_cgroup(want, sizeof(want), 195);
	strcat(want, "\n");
	ok(jobct_each_cgroup(node, 195, collect, got) == 0, "  its cgroups");
	is_str(got, want, "  are its own job cgroup");
	jobct_release(node, 195, NULL);
	jobct_node_free(node);

	snprintf(root, sizeof(root), "%.200s/devns-ut-root-%d", cg_mount,
		 (int)getpid());
	for (n = 0; n == 0 || dirs[n - 1]; n++) {
		snprintf(path, sizeof(path), "%s/", root);
		if (n)
			snprintf(path + strlen(path), sizeof(path) - strlen(path),
				 dirs[n - 1], node_name);
		if (mkdir(path, 0755) < 0)
			break;
	}
	ok(n == sizeof(dirs) / sizeof(*dirs),
	   "precondition: Slurm's step cgroups of job 7 under a scratch root");
	/* the marker names the job's cgroup, as stepcg_apply leaves it */
	snprintf(path, sizeof(path), "%s/devns_filter_7", spool);
	snprintf(want, sizeof(want), "system.slice/%s_slurmstepd.scope/job_7",
		 node_name);
	write_file(path, want);
	snprintf(saved, sizeof(saved), "%s", cg_mount);
	snprintf(cg_mount, sizeof(cg_mount), "%s", root);
	fake_layout("mi-unified", MI_V2);
	node = load(&faulty_ops);
	ok(node && node->layout == CGROUP2_UNIFIED, "unified: the node loads");
	got[0] = '\0';
	ok(node && jobct_each_cgroup(node, 7, collect, got) == 0,
	   "  job 7's cgroups");
	snprintf(path, sizeof(path), "%s/system.slice/%s_slurmstepd.scope/job_7",
		 root, node_name);
	ok(got[0] && strstr(got, "/step_0/user\n") &&
	   strstr(got, "/step_0/slurm\n") && strstr(got, "/step_extern/user\n") &&
	   !strncmp(got, path, strlen(path)),
	   "  are the user and slurm cgroups of each step: %s", got);
	got[0] = '\0';
	ok(node && jobct_each_cgroup(node, 8, collect, got) == 0 && !got[0],
	   "  a job without a marker has none");
	jobct_node_free(node);
	snprintf(path, sizeof(path), "%s/devns_filter_7", spool);
	unlink(path);
	snprintf(cg_mount, sizeof(cg_mount), "%s", saved);
	fake_layout("mi-hybrid", MI_V1 MI_V2);
	while (n-- > 0) {
		snprintf(path, sizeof(path), "%s/", root);
		if (n)
			snprintf(path + strlen(path), sizeof(path) - strlen(path),
				 dirs[n - 1], node_name);
		rmdir(path);
	}
	ok(!exists(root), "  the scratch tree is removed");
}


/* Whether the rules of a job on node give c 1:3 (/dev/null) rw. */
static bool rules_allow_devnull(const struct jobct_node *node)
{
	struct jobct_plan plan = plan_for(node, 140);
	struct devrule_list list;
	bool found = false;

	if (jobct_device_rules(&plan, &list, fresh()) < 0)
		return false;
	for (size_t i = 0; i < list.count; i++)
		found |= list.rules[i].type == 'c' && list.rules[i].major == 1 &&
			 list.rules[i].minor == 3 && !list.rules[i].any_minor &&
			 (list.rules[i].access & (DEVRULE_R | DEVRULE_W)) ==
				 (DEVRULE_R | DEVRULE_W);
	devrule_list_free(&list);
	return found;
}

/*
 * On the unified layout the filter covers slurmstepd too (Slurm's step
 * cgroup holds it): /dev/null stays open to it whatever the policy; on
 * the hybrid layout strict means strict.
 */
static void test_stepd_devices(void)
{
	struct jobct_node *node;

	write_conf("DevicePolicy=strict\nDeviceAllow=/dev/zero:r");
	fake_layout("mi-unified", MI_V2);
	node = load(&faulty_ops);
	ok(node && rules_allow_devnull(node),
	   "unified + strict without /dev/null: the rules still give /dev/null rw (slurmstepd's)");
	jobct_node_free(node);
	fake_layout("mi-hybrid", MI_V1 MI_V2);
	node = load(&faulty_ops);
	ok(node && !rules_allow_devnull(node),
	   "hybrid + strict without /dev/null: /dev/null is denied");
	jobct_node_free(node);
	fake_layout("mi-unified", MI_V2);
}

/* The layout decides at slurmd start whether the node may filter. */
static void test_layout_check(void)
{
	const struct jobct_slurm gres = { .prolog_contain = true, .node_has_devices = true, .step_cgroups = true },
				 no_gres = { .prolog_contain = true, .step_cgroups = true },
				 linuxproc = { .prolog_contain = true, .node_has_devices = true };
	struct jobct_node *node;

	fake_layout("mi-unified", MI_V2);
	write_conf("DevicePolicy=closed");
	if ((node = load(&faulty_ops))) {
		is_int(node->layout, CGROUP2_UNIFIED, "unified layout found");
		self_path[0] = '\0';	/* this process's real cgroup */
		ok(jobct_node_check(node, &gres, fresh()) == 0,
		   "unified + DevicePolicy=closed + proctrack/cgroup: starts: %s",
		   rep.msg);
		ok(jobct_node_check(node, &linuxproc, fresh()) == -1,
		   "unified without proctrack/cgroup: slurmd refuses to start");
		like(rep.msg, "DevicePolicy=closed", "  naming the setting: %s",
		     rep.msg);
		like(rep.msg, "ProctrackType=proctrack/cgroup", "  and the fix");
	}
	jobct_node_free(node);

	write_conf("");
	if ((node = load(&faulty_ops))) {
		struct jobct_slurm open_linuxproc = { .prolog_contain = true };

		ok(jobct_node_check(node, &open_linuxproc, fresh()) == 0,
		   "unified + auto without GRES files: starts (namespaces only)");
		ok(jobct_node_check(node, &linuxproc, fresh()) == -1,
		   "unified + auto with GRES files, no proctrack/cgroup: refuses");
		like(rep.msg, "GRES device files", "  naming them: %s", rep.msg);
	}
	jobct_node_free(node);

	test_stepd_devices();
	fake_layout("mi-none", MI_V1);
	write_conf("DeviceAllow=/dev/null:rw");
	if ((node = load(&faulty_ops))) {
		ok(jobct_node_check(node, &no_gres, fresh()) == -1,
		   "no cgroup2 + DeviceAllow: refuses");
		like(rep.msg, "needs a cgroup2 hierarchy", "  saying why: %s",
		     rep.msg);
	}
	jobct_node_free(node);

	fake_layout("mi-hybrid", MI_V1 MI_V2);
	write_conf("DevicePolicy=strict");
	if ((node = load(&faulty_ops))) {
		ok(node->layout == CGROUP2_HYBRID &&
		   jobct_node_check(node, &linuxproc, fresh()) == 0,
		   "hybrid + strict with GRES files: starts");
	}
	jobct_node_free(node);
}

/* What jobct_node_report logged, one line after another. */
static char logged[2048];

static void log_into(enum report_level level, const char *msg, void *arg)
{
	size_t n = strlen(logged);

	(void)arg;
	snprintf(logged + n, sizeof(logged) - n, "%s%s\n",
		 level == REPORT_WARNING ? "warning: " : "", msg);
}

/* jobct_node_report on the layout of mi with conf; what it logged. */
static const char *node_report(const char *mi_name, const char *mi,
			       const char *conf, const struct jobct_slurm *s)
{
	struct jobct_node *node;
	struct report r;

	fake_layout(mi_name, mi);
	write_conf(conf);
	logged[0] = '\0';
	if (!(node = load(&faulty_ops)))
		return "(no node)";
	report_init(&r, log_into, NULL);
	jobct_node_report(node, s, &r);
	jobct_node_free(node);
	return logged;
}

/* slurmd's log at start: the layout, where filters go, auto's blind spot. */
static void test_node_report(void)
{
	const struct jobct_slurm gpus = { .gres = "gpu:2" },
				 files = { .gres = "gpu:2",
					   .node_has_devices = true };
	struct jobct_node *node;

	like(node_report("mi-hybrid", MI_V1 MI_V2, "", &files),
	     "cgroup layout: hybrid (cgroup v1 controllers, a separate cgroup2) (device filters on devns's own cgroup2 tree)",
	     "hybrid: the layout and devns's own tree: %s", logged);
	ok(!strstr(logged, "warning"), "  no warning: the node has GRES files");
	like(node_report("mi-unified", MI_V2, "", &files),
	     "cgroup layout: unified (cgroup v2 only) (Slurm-managed cgroup v2, device filters attached to Slurm's step cgroups)",
	     "unified: Slurm's step cgroups: %s", logged);
	like(node_report("mi-none", MI_V1, "", &files),
	     "cgroup layout: no cgroup2 (no cgroup2, no device filter)",
	     "none: no filter: %s", logged);
	like(node_report("mi-hybrid", MI_V1 MI_V2, "DevicePolicy=none",
			 &files),
	     "(DevicePolicy=none: no device filter, devices are Slurm's)",
	     "policy none says so on any layout: %s", logged);
	like(node_report("mi-hybrid", MI_V1 MI_V2, "", &gpus),
	     "warning: DevicePolicy=auto on node ",
	     "auto with GRES but without device files: a warning: %s",
	     logged);
	like(logged, "with GRES \"gpu:2\" but no GRES device files",
	     "  naming the GRES");
	node_report("mi-hybrid", MI_V1 MI_V2, "DevicePolicy=closed", &gpus);
	ok(logged[0] && !strstr(logged, "warning"),
	   "  no warning with closed, which filters every device: %s", logged);
	fake_layout("mi-unified", MI_V2);
	write_conf("");
	if ((node = load(&faulty_ops)))
		is_str(jobct_node_layout(node), "unified",
		       "devns check's name of the layout");
	jobct_node_free(node);
	fake_layout("mi-hybrid", MI_V1 MI_V2);
}

/*
 * DeviceAllow naming a GRES device file would hand it to every job of the
 * node: slurmd refuses to start, naming DeviceAllow's file:line.
 */
static void test_gres_allow(void)
{
	const char *const files[] = { gpu0, gpu1, NULL };
	const struct jobct_slurm gres = { .prolog_contain = true, .node_has_devices = true,
					  .node_devices = files,
					  .step_cgroups = true },
				 no_gres = { .prolog_contain = true, .step_cgroups = true };
	char conf[PATH_MAX + 64], want[2 * PATH_MAX + 128];
	struct jobct_node *node;

	fake_layout("mi-hybrid", MI_V1 MI_V2);
	write_conf("DevicePolicy=closed\nDeviceAllow=/dev/null:rw");
	if ((node = load(&faulty_ops)))
		ok(jobct_node_check(node, &gres, fresh()) == 0,
		   "closed, DeviceAllow without GRES files, GRES on the node: starts: %s",
		   rep.msg);
	else
		ok(0, "load: %s", rep.msg);
	jobct_node_free(node);

	snprintf(conf, sizeof(conf),
		 "DevicePolicy=closed\nDeviceAllow=/dev/null:rw,%s:rw", gpu1);
	write_conf(conf);
	if (!(node = load(&faulty_ops)))
		return (void)ok(0, "load: %s", rep.msg);
	ok(jobct_node_check(node, &no_gres, fresh()) == 0,
	   "DeviceAllow naming %s on a node without GRES files: starts", gpu1);
	ok(jobct_node_check(node, &gres, fresh()) == -1,
	   "DeviceAllow naming a GRES device file: slurmd refuses to start");
	snprintf(want, sizeof(want),
		 "%s:4: DeviceAllow entry '%s:rw' names GRES device %s (c 195:1)",
		 conf_path, gpu1, gpu1);
	like(rep.msg, want, "  naming file:line, the entry and the device: %s",
	     rep.msg);
	jobct_node_free(node);
}

/*
 * The attack: a job that no setup ran for (no PrologFlags=Contain, so no
 * extern step; 22.05's requeue path, which can launch the batch step
 * without it; restore taking a live job for ended) had no marker, which
 * meant "no filter": with BasePath=none its processes opened every GPU.
 * Now every setup leaves a record and a job without one does not run.
 */
static void test_no_record(void)
{
	struct jobct_slurm no_contain = { .node_has_devices = true };
	struct jobct_node *node;
	struct jobct_plan plan;
	int e0 = -1, e1 = -1;

	write_file(conf_path, "BasePath=none\nDevicePolicy=closed\n");
	if (!(node = load(&faulty_ops)))
		return (void)ok(0, "load: %s", rep.msg);
	inject(OP_NONE, 0, 0);
	ok(!marker_exists(170) && !cgroup_exists(170),
	   "BasePath=none, closed: job 170 was never set up here");
	is_int(child_opens(node, 170, &e0, &e1), 99,
	       "  its process does not run (it opened every GPU before)");
	ok(jobct_join(node, 170, fresh()) == -1 && errno == ENOENT,
	   "  its join fails");
	like(rep.msg, "no setup record", "  saying why: %s", rep.msg);
	{
		int fd = 0;

		struct jobct_plan plan = plan_for(node, 171);
		char path[PATH_MAX] = "x";

		ok(jobct_adopt(node, 170, false, fresh()) == -1 &&
		   jobct_ns_open(node, 170, &fd, fresh()) == -1 && fd == -1,
		   "  and a login is neither adopted nor given a namespace");
		fd = 0;
		ok(jobct_setup(&plan, fresh()) == 0 &&
		   jobct_ns_open(node, 171, &fd, fresh()) == 0 && fd == -1,
		   "  a job set up there has no namespace to give (0, no fd): %s",
		   rep.msg);
		ok(jobct_release(node, 171, fresh()) == 0 && nothing_left(171),
		   "  and is released");
		ok(jobct_job_path(node, 171, NULL, path, sizeof(path)) == 0 &&
		   !path[0] && !jobct_ns_exists(node, 171),
		   "  without BasePath a job has no directory and no namespace");
	}
	ok(jobct_node_check(node, &no_contain, fresh()) == -1,
	   "slurmd refuses to start without PrologFlags=Contain");
	like(rep.msg, "PrologFlags=Contain", "  naming it: %s", rep.msg);
	no_contain.prolog_contain = true;
	ok(jobct_node_check(node, &no_contain, fresh()) == 0,
	   "  and starts with it: %s", rep.msg);

	plan = plan_for(node, 171);
	ok(jobct_setup(&plan, fresh()) == 0, "a job set up: %s", rep.msg);
	is_int(child_opens(node, 171, &e0, &e1), 0, "  its process runs");
	ok(e0 == ENXIO && e1 == EPERM, "  filtered (%d %d)", e0, e1);
	ok(jobct_release(node, 171, fresh()) == 0, "released");
	is_int(child_opens(node, 171, &e0, &e1), 99,
	       "  a process that comes after its release does not run");
	jobct_node_free(node);
}

/* A child of a run of job_id joins and opens both GPUs (as child_opens). */
static int run_child_opens(const struct jobct_node *node, uint32_t job_id,
			   const struct jobct_run *run, int *err0, int *err1)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (jobct_join_run(node, job_id, run, NULL) < 0)
			_exit(99);
		exit_with_gpu_opens();
	}
	return wait_gpu_opens(pid, 99, 99, err0, err1);
}

/*
 * The attack (issue 42 item 4): run A of job 176 had both GPUs, and its
 * release could not finish (EBUSY: here it is never called), leaving its
 * record and filter.  Run B of the same id, given GPU 0 only, took A's
 * record for its own: a process of B that came before B's setup ran
 * under A's filter (both GPUs).  The record now names its run.
 */
static void test_stale_record(void)
{
	const struct jobct_run run_a = { .sluid = 0x100, .start_time = 1000 };
	const struct jobct_run run_b = { .sluid = 0x200, .start_time = 2000 };
	const struct jobct_run start_b = { .start_time = 2000 };
	struct jobct_node *node;
	struct jobct_plan plan;
	int e0 = -1, e1 = -1;

	ok(jobct_run_same(&run_a, &run_a) && !jobct_run_same(&run_a, &run_b) &&
	   jobct_run_same(&run_a, &(struct jobct_run){ .sluid = 0x100 }) &&
	   !jobct_run_same(&start_b, &run_a) &&
	   jobct_run_same(&(struct jobct_run){ 0 }, &run_a),
	   "jobct_run_same: a field known to both decides");
	write_file(conf_path, "BasePath=none\nDevicePolicy=closed\n");
	if (!(node = load(&faulty_ops)))
		return (void)ok(0, "load: %s", rep.msg);
	inject(OP_NONE, 0, 0);
	plan = plan_for(node, 176);
	plan.sluid = run_a.sluid;
	plan.start_time = run_a.start_time;
	plan.job_devices = node_gpus;
	ok(jobct_setup(&plan, fresh()) == 0, "run A of job 176 (both GPUs) "
	   "sets up: %s", rep.msg);
	is_str(marker_text(176), "run 256 1000\n",
	       "  its record names its run (SLUID 256, started at 1000)");
	is_int(run_child_opens(node, 176, &run_a, &e0, &e1), 0,
	       "  a process of run A runs");
	ok(e0 == ENXIO && e1 == ENXIO, "  with both GPUs (%d %d)", e0, e1);

	/* A's release never finishes: its record and filter stay. */
	is_int(run_child_opens(node, 176, NULL, &e0, &e1), 0,
	       "the hole: a process that does not say its run (every one "
	       "before) takes A's record");
	ok(e0 == ENXIO && e1 == ENXIO, "  and A's GPUs (%d %d)", e0, e1);
	is_int(run_child_opens(node, 176, &run_b, &e0, &e1), 99,
	       "a process of run B before B's setup does not run (it had "
	       "run A's GPUs)");
	ok(jobct_join_run(node, 176, &run_b, fresh()) == -1 &&
	   errno == ESTALE, "  its join fails (ESTALE)");
	like(rep.msg, "an earlier run's", "  saying why: %s", rep.msg);
	is_int(run_child_opens(node, 176, &start_b, &e0, &e1), 99,
	       "  nor one that knows only its start time");

	plan.sluid = run_b.sluid;
	plan.start_time = run_b.start_time;
	plan.job_devices = job_gpu0;
	ok(jobct_setup(&plan, fresh()) == 0 && rep.warnings >= 1,
	   "run B (GPU 0) sets up over A's leftovers, with a warning: %s",
	   rep.msg);
	is_str(marker_text(176), "run 512 2000\n", "  the record is B's");
	is_int(run_child_opens(node, 176, &run_b, &e0, &e1), 0,
	       "  a process of run B runs");
	ok(e0 == ENXIO && e1 == EPERM, "  with GPU 0 only (%d %d)", e0, e1);
	is_int(run_child_opens(node, 176, &run_a, &e0, &e1), 99,
	       "  a late process of run A does not run");
	is_int(run_child_opens(node, 176, NULL, &e0, &e1), 0,
	       "  one that does not know its run (22.05) takes the record");
	ok(e0 == ENXIO && e1 == EPERM, "  and gets B's filter (%d %d)", e0,
	   e1);
	ok(jobct_release(node, 176, fresh()) == 0 && nothing_left(176),
	   "run B is released: %s", rep.msg);

	/* A record written before records named their run names none. */
	ok(jobct_setup(&plan, fresh()) == 0, "job 176 set up again");
	{
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/devns_filter_176", spool);
		write_file(path, "none");
	}
	is_int(run_child_opens(node, 176, &run_b, &e0, &e1), 0,
	       "a record without a run line (an older devns's) is taken");
	jobct_release(node, 176, NULL);
	jobct_node_free(node);
}

/*
 * A child of job_id joins, then sets a file's attributes to what they are
 * (chattr -p with the same id): its errno (0: the kernel took it), 99 when
 * the join failed.
 */
static int joined_fssetxattr(const struct jobct_node *node, uint32_t job_id,
			     const char *file)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		struct fsxattr fx;
		int fd;

		if (jobct_join(node, job_id, NULL) < 0)
			_exit(99);
		if ((fd = open(file, O_RDONLY | O_CLOEXEC)) < 0 ||
		    ioctl(fd, FS_IOC_FSGETXATTR, &fx) < 0)
			_exit(98);
		_exit(ioctl(fd, FS_IOC_FSSETXATTR, &fx) < 0 ? errno : 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * The attack (issue 42 item 5): job 178 was set up with TmpDiskLimit, its
 * directory in project 178; the admin dropped TmpDiskLimit and
 * reconfigured; a new step of job 178 ran without the guard and could
 * chattr -p 0 its files.  The guard follows the job's directory now.
 */
static void test_disk_guard_follows_setup(void)
{
	char file[PATH_MAX];
	struct jobct_node *node;
	struct jobct_plan plan;
	struct fsxattr fx;
	int fd;

	snprintf(file, sizeof(file), "%s/projfile", tmp);
	fd = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (!ok(fd >= 0 && ioctl(fd, FS_IOC_FSGETXATTR, &fx) == 0 &&
		ioctl(fd, FS_IOC_FSSETXATTR, &fx) == 0,
		"precondition: unguarded, FS_IOC_FSSETXATTR reaches the kernel "
		"here (%s)", strerror(errno))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	{
		/* valgrind emulates no seccomp(2) (test_dqguard skips too) */
		int status;
		pid_t pid = fork();

		if (pid == 0)
			_exit(dqguard_install() < 0 && errno == ENOSYS);
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			tap_skip("the disk guard: no seccomp(2) here");
			unlink(file);
			return;
		}
	}
	write_conf("");		/* TmpDiskLimit dropped */
	if (!(node = load(&faulty_ops)))
		return (void)ok(0, "load: %s", rep.msg);
	inject(OP_NONE, 0, 0);
	plan = plan_for(node, 178);
	ok(jobct_setup(&plan, fresh()) == 0 && fake_projid == 0,
	   "job 178 sets up without a disk limit: %s", rep.msg);
	is_int(joined_fssetxattr(node, 178, file), 0,
	       "  a process of a job without a project is not guarded");
	fake_projid = 178;	/* what setup made under TmpDiskLimit */
	is_int(joined_fssetxattr(node, 178, file), EPERM,
	       "a job whose directory is in project 178, TmpDiskLimit since "
	       "dropped: its process is guarded (EPERM; it was not)");
	inject(OP_JOB_PROJECT, 1, EIO);
	fake_projid = 0;
	is_int(joined_fssetxattr(node, 178, file), EPERM,
	       "a project that cannot be read: guarded too");
	inject(OP_NONE, 0, 0);
	ok(jobct_release(node, 178, fresh()) == 0, "released: %s", rep.msg);
	jobct_node_free(node);
	unlink(file);

	/* The real lookup, on this filesystem's (project-less) directories. */
	{
		char dir[PATH_MAX];
		uint32_t projid = 99;

		snprintf(dir, sizeof(dir), "%s/179", base);
		ok(jobct_real_ops.job_project(base, 179, &projid) == -1 &&
		   errno == ENOENT, "dquota_job_project: no directory, ENOENT");
		ok(mkdir(dir, 0700) == 0 &&
		   jobct_real_ops.job_project(base, 179, &projid) == 0 &&
		   projid == 0, "  a directory in no project: 0");
		rmdir(dir);
		ok(symlink(tmp, dir) == 0 &&
		   jobct_real_ops.job_project(base, 179, &projid) == -1 &&
		   (errno == ELOOP || errno == ENOTDIR),
	   "  a link in its place is not followed (%s)", strerror(errno));
		unlink(dir);
	}
}

/*
 * In a child, as slurmd's child of the job's user (sbcast's file opener):
 * jobct_join_from_slurmd's errno (0: joined), its message into msg.
 */
static int slurmd_child_join(const struct jobct_node *node, uint32_t job_id,
			     char *msg, size_t len)
{
	int status, p[2];
	ssize_t n;
	pid_t pid;

	msg[0] = '\0';
	if (pipe(p) < 0)
		return -1;
	if ((pid = fork()) == 0) {
		int rc = jobct_join_from_slurmd(node, job_id, fresh());
		int err = errno;

		(void)!write(p[1], rep.msg, strlen(rep.msg));
		_exit(rc < 0 ? (err ? err & 0x7f : 99) : 0);
	}
	close(p[1]);
	n = pid < 0 ? -1 : read(p[0], msg, len - 1);
	msg[n > 0 ? n : 0] = '\0';
	close(p[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * The attack (issue 42 item 1): sbcast's opener joins the job from slurmd
 * and opens the file as the user; slurmd then writes every block itself,
 * as root, and ext4 lets root past the project's hard limit, so sbcast
 * filled BasePath whatever TmpDiskLimit said.  The opener of a job whose
 * directory has a limit that does not bind root (ext4) is refused now,
 * with EDQUOT and the remedy; on xfs (whose limit binds root) and for a
 * job without a limit it runs; a job's own processes are not affected.
 */
static void test_sbcast_disk_limit(void)
{
	char msg[1024];
	struct jobct_node *node;
	struct jobct_plan plan;

	write_conf("");
	if (!(node = load(&faulty_ops)))
		return (void)ok(0, "load: %s", rep.msg);
	inject(OP_NONE, 0, 0);
	plan = plan_for(node, 181);
	ok(jobct_setup(&plan, fresh()) == 0 && fake_projid == 0,
	   "job 181 sets up without a disk limit: %s", rep.msg);
	fake_fs_type = 0xEF53;
	is_int(slurmd_child_join(node, 181, msg, sizeof(msg)), 0,
	       "  sbcast's opener joins a job without a disk limit (%s)",
	       msg[0] ? msg : "ok");
	fake_projid = 181;	/* what setup made under TmpDiskLimit */
	is_int(slurmd_child_join(node, 181, msg, sizeof(msg)), EDQUOT,
	       "a job with a disk limit on ext4 (root passes it): sbcast's "
	       "opener is refused with EDQUOT (before: it joined)");
	like(msg, "refusing sbcast into the job: its disk limit (TmpDiskLimit, project 181, 10485760 bytes) is on ext2/3/4, where slurmd's writes, made as root, would pass it",
	     "  the message names the limit and the filesystem: %s", msg);
	like(msg, "put BasePath on xfs (-o prjquota), or drop TmpDiskLimit",
	     "  and the remedy");
	{
		int status, err = -1;
		pid_t pid = fork();

		if (pid == 0)
			_exit(jobct_join(node, 181, NULL) < 0 ? errno & 0x7f : 0);
		if (pid > 0 && waitpid(pid, &status, 0) == pid &&
		    WIFEXITED(status))
			err = WEXITSTATUS(status);
		/* ENOSYS: no seccomp(2) under valgrind for the disk guard */
		ok(err == 0 || err == ENOSYS,
		   "  the job's own processes still join (%s)", strerror(err));
	}
	fake_fs_type = 0x58465342;	/* xfs */
	is_int(slurmd_child_join(node, 181, msg, sizeof(msg)), 0,
	       "the same limit on xfs (it binds root): the opener joins (%s)",
	       msg[0] ? msg : "ok");
	inject(OP_JOB_LIMIT, 1, EIO);
	ok(slurmd_child_join(node, 181, msg, sizeof(msg)) == EIO &&
	   strstr(msg, "cannot read its disk limit"),
	   "a limit that cannot be read refuses the opener: %s", msg);
	inject(OP_NONE, 0, 0);
	fake_fs_type = 0xEF53;
	ok(jobct_release(node, 181, fresh()) == 0, "released: %s", rep.msg);
	jobct_node_free(node);
}

/* The extern stepd's setup, seen from pam_slurm_adopt's request thread. */
struct gate_run {
	struct setupgate *g;
	int begin_ms, end_ms;	/* when setup begins and ends */
	bool ok;
	volatile bool ended;	/* set just before setupgate_end */
};

static void *run_setup(void *arg)
{
	struct gate_run *r = arg;

	usleep((useconds_t)r->begin_ms * 1000);
	setupgate_begin(r->g);
	usleep((useconds_t)(r->end_ms - r->begin_ms) * 1000);
	r->ended = true;
	setupgate_end(r->g, r->ok);
	return NULL;
}

/* Starts r's setup thread; the wait's result, with r->ended then in *ended. */
static int wait_during(struct gate_run *r, int start_wait_ms, bool *ended)
{
	pthread_t t;
	int rc;

	if (pthread_create(&t, NULL, run_setup, r))
		return -2;
	rc = setupgate_wait(r->g, start_wait_ms);
	*ended = r->ended;
	pthread_join(t, NULL);
	return rc;
}

/*
 * The attack: pam_slurm_adopt's request answered between the namespace
 * and the filter gave the login the namespace and no filter.  A request
 * now waits until setup has ended, and is refused when it failed.
 */
static void test_setup_gate(void)
{
	struct setupgate g1 = SETUPGATE_INIT, g2 = SETUPGATE_INIT,
			 g3 = SETUPGATE_INIT, g4 = SETUPGATE_INIT;
	struct gate_run during = { &g1, 0, 300, true, false },
			failed = { &g2, 0, 100, false, false },
			late = { &g3, 100, 200, true, false };
	bool ended = false;

	is_int(wait_during(&during, 30000, &ended), 1,
	       "a request during setup: answered when setup is done");
	ok(ended, "  not before");
	is_int(wait_during(&failed, 30000, &ended), -1,
	       "a request during a setup that fails: refused");
	ok(ended && errno == EIO, "  once it has failed");
	is_int(wait_during(&late, 30000, &ended), 1,
	       "a request before setup begins waits for it");
	ok(ended, "  until it is done");
	is_int(setupgate_wait(&g4, 50), 0,
	       "a daemon that never sets up answers after start_wait_ms: 0");
	{
		/* Issue 42 item 9: a stepd that is not the extern step's
		 * parked each request for the whole start_wait_ms. */
		struct setupgate g5 = SETUPGATE_INIT, g6 = SETUPGATE_INIT;
		struct timespec t0;

		setupgate_never(&g5);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		is_int(setupgate_wait(&g5, 30000), 0,
		       "a stepd that never sets up (setupgate_never): 0");
		ok(elapsed_ms(&t0) < 1000, "  at once (%.1f ms, not 30 s)",
		   elapsed_ms(&t0));
		setupgate_never(&g6);
		setupgate_begin(&g6);
		setupgate_end(&g6, true);
		is_int(setupgate_wait(&g6, 30000), 1,
		       "a setup that begins after all overrides it");
	}
}

static void test_pool_same(void)
{
	char b1[] = "/b1", b2[] = "/b2";
	struct nsconf x = { .base_path = b1, .namespace_pool = 2 };
	struct nsconf y = x;
	struct jobct_node a = { .conf = &x }, b = { .conf = &y };

	ok(jobct_pool_same(&a, &b), "pool: the same settings keep it");
	y.namespace_pool = 3;
	ok(!jobct_pool_same(&a, &b), "pool: another NamespacePool restarts it");
	y.namespace_pool = 2;
	y.base_path = b2;
	ok(!jobct_pool_same(&a, &b), "pool: another BasePath restarts it");
	y.base_path = NULL;
	ok(!jobct_pool_same(&a, &b), "pool: BasePath=none restarts it");
	x.base_path = NULL;
	ok(jobct_pool_same(&a, &b), "pool: none and none are the same");
}

/* The real namespace calls: a private /tmp for the job's processes. */
/* A login of job_id, set up with a BasePath, gets its namespace's pin. */
static void ns_open_gives_pin(const struct jobct_node *node, uint32_t job_id)
{
	char pin[PATH_MAX + 32];
	struct stat want, got;
	int fd = -1;

	char path[PATH_MAX];

	snprintf(pin, sizeof(pin), "%s/%u/%s", base, job_id, JOBDIR_NS_PIN);
	if (!ok(stat(pin, &want) == 0, "  its namespace is pinned at %s", pin))
		return;
	ok(jobct_job_path(node, job_id, JOBDIR_NS_PIN, path,
			  sizeof(path)) == 1 && !strcmp(path, pin) &&
	   jobct_ns_exists(node, job_id),
	   "  which jobct_job_path names and jobct_ns_exists sees");
	ok(jobct_ns_open(node, job_id, &fd, fresh()) == 1 && fd >= 0 &&
	   fstat(fd, &got) == 0 && got.st_ino == want.st_ino &&
	   got.st_dev == want.st_dev,
	   "  a login gets that namespace (1, its fd): %s", rep.msg);
	if (fd >= 0)
		close(fd);
}

static void test_real_namespace(void)
{
	struct jobct_node *node;
	struct jobct_plan plan;
	char jobdir[PATH_MAX + 16];
	int status, rc;
	pid_t pid;

	unlink("/tmp/test_jobct_private");	/* a leak of an earlier run */
	write_conf("Dirs=/tmp");
	if (!(node = load(NULL)))
		return (void)ok(0, "load: %s", rep.msg);
	plan = plan_for(node, 170);
	plan.node_devices = plan.job_devices = NULL;
	rc = jobct_setup(&plan, fresh());
	if (rc < 0 && errno == ENOSYS) {
		tap_skip("no new mount API here (valgrind): %s", rep.msg);
		jobct_node_free(node);
		return;
	}
	if (!ok(rc == 0, "setup with the real namespace: %s", rep.msg)) {
		jobct_node_free(node);
		return;
	}
	if ((pid = fork()) == 0) {
		if (jobct_join(node, 170, NULL) < 0)
			_exit(2);
		write_file("/tmp/test_jobct_private", "x");
		_exit(exists("/tmp/test_jobct_private") ? 0 : 3);
	}
	ok(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	   WEXITSTATUS(status) == 0, "a job process writes its /tmp");
	ok(!exists("/tmp/test_jobct_private"), "  which the host does not see");
	unlink("/tmp/test_jobct_private");
	ns_open_gives_pin(node, 170);
	snprintf(jobdir, sizeof(jobdir), "%s/170", base);
	ok(jobct_release(node, 170, fresh()) == 0 && !exists(jobdir),
	   "release removes the job's directory");
	ok(!jobct_ns_exists(node, 170), "  and jobct_ns_exists says so");
	jobct_node_free(node);
}

/*
 * A Dir line with a Source: the plan's user name and the node's name are
 * expanded into it, the job's writes land there, release removes it; no
 * user name for %u fails the job and leaves nothing.
 */
static void test_real_source(void)
{
	char src[] = "/var/lib/test_jobct_src.XXXXXX";
	char point[] = "/var/lib/test_jobct_pt.XXXXXX";
	char conf[512], jobsrc[PATH_MAX], file[PATH_MAX + 8];
	struct jobct_node *node = NULL;
	struct jobct_plan plan;
	struct stat st;
	int status, rc;
	pid_t pid;

	if (!mkdtemp(src) || !mkdtemp(point))
		return (void)ok(0, "precondition: scratch directories");
	chmod(src, 0755);
	snprintf(conf, sizeof(conf), "Dir=%s Source=%s/%%n/%%u/%%j "
		 "Options=noexec", point, src);
	write_conf(conf);
	if (!(node = load(NULL))) {
		ok(0, "load: %s", rep.msg);
		goto out;
	}
	plan = plan_for(node, 171);
	plan.node_devices = plan.job_devices = NULL;
	plan.user_name = "alice";
	snprintf(jobsrc, sizeof(jobsrc), "%s/%s/alice/171", src, node_name);
	rc = jobct_setup(&plan, fresh());
	if (rc < 0 && errno == ENOSYS) {
		tap_skip("no new mount API here (valgrind): %s", rep.msg);
		goto out;
	}
	ok(rc == 0, "setup with a Source: %s", rc ? rep.msg : "ok");
	ok(lstat(jobsrc, &st) == 0 && st.st_uid == 1000,
	   "  %s is made, the job user's", jobsrc);
	snprintf(file, sizeof(file), "%s/f", point);
	if ((pid = fork()) == 0) {
		if (jobct_join(node, 171, NULL) < 0)
			_exit(2);
		write_file(file, "x");
		_exit(0);
	}
	ok(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	   WEXITSTATUS(status) == 0, "  a job process writes there");
	snprintf(file, sizeof(file), "%s/f", jobsrc);
	ok(exists(file), "  the file is in the expanded Source");
	ok(jobct_release(node, 171, fresh()) == 0 && !exists(jobsrc),
	   "release removes the %%j directory");

	plan.user_name = NULL;
	ok(jobct_setup(&plan, fresh()) < 0, "no user name for %%u: refused");
	like(rep.msg, "/%n/%u/%j", "  the message names the Source: %s",
	     rep.msg);
	snprintf(file, sizeof(file), "%s/171", base);
	ok(!exists(file) && !exists(jobsrc), "  nothing is left");
out:
	jobct_node_free(node);
	snprintf(conf, sizeof(conf), "rm -rf --one-file-system '%s' '%s'",
		 src, point);
	ok(system(conf) == 0, "scratch directories removed");
}

/* The fake switch's maker: counts its calls. */
static int imex_made;

static int count_imex_make(void *arg)
{
	(void)arg;
	imex_made++;
	return 0;
}

/*
 * switch/nvidia_imex: the node's /proc/devices names the channels' major
 * (here the fake GPUs' 195: gpu0 is channel 0, gpu1 channel 1, no GRES).
 * The maker runs once per setup, in the namespace; the job opens its own
 * channel and not the other under auto (which otherwise filters nothing
 * without GRES), closed and strict; a job without a channel opens none;
 * and each failure refuses the job, saying why, leaving nothing.
 */
static void test_imex(void)
{
	static const char *const policies[] = {
		"", "DevicePolicy=closed", "DevicePolicy=strict",
	};
	char devices[PATH_MAX];
	struct jobct_node *node;
	struct jobct_plan plan;
	uint32_t job = 160;
	int e0, e1;

	snprintf(devices, sizeof(devices), "%s/proc-devices", tmp);
	write_file(devices, "Character devices:\n  1 mem\n195 nvidia-caps-imex-channels\n\nBlock devices:\n  8 sd\n");
	proc_devices = devices;
	for (size_t i = 0; i < sizeof(policies) / sizeof(*policies); i++) {
		const char *name = i ? policies[i] + 13 : "auto";

		write_conf(policies[i]);
		if (!(node = load(&faulty_ops))) {
			ok(0, "imex %s: load: %s", name, rep.msg);
			continue;
		}
		for (int with = 1; with >= 0; with--, job++) {
			plan = plan_for(node, job);
			plan.node_devices = plan.job_devices = NULL;
			plan.imex_make = count_imex_make;
			fake_imex_channel = with ? 0 : -1;
			imex_made = 0;
			inject(OP_NONE, 0, 0);
			ok(jobct_setup(&plan, fresh()) == 0 && imex_made == 1 &&
			   fake_imex_major == 195,
			   "imex %s: a job %s a channel sets up, the switch's maker run once, with the major of /proc/devices: %s",
			   name, with ? "with" : "without", rep.msg);
			e0 = e1 = -1;
			is_int(child_opens(node, job, &e0, &e1), 0, "  a job process joins");
			if (with)
				ok(e0 == ENXIO && e1 == EPERM,
				   "  its channel 0 opens (ENXIO: no driver), channel 1 is denied (%d %d)",
				   e0, e1);
			else
				ok(e0 == EPERM && e1 == EPERM,
				   "  no channel opens (%d %d)", e0, e1);
			ok(jobct_release(node, job, fresh()) == 0 &&
			   nothing_left(job), "  released");
		}
		jobct_node_free(node);
	}

	/* Fail closed: the maker fails, or no namespace can hold it. */
	write_conf("DevicePolicy=closed");
	if ((node = load(&faulty_ops))) {
		plan = plan_for(node, job);
		plan.node_devices = plan.job_devices = NULL;
		plan.imex_make = count_imex_make;
		fake_imex_channel = 0;
		inject(OP_IMEX_MAKE, 1, EIO);
		ok(jobct_setup(&plan, fresh()) == -1 && calls[OP_IMEX_MAKE] == 1,
		   "imex: setup fails when the channel cannot be made");
		like(rep.msg, "cannot make its IMEX channel", "  saying why: %s", rep.msg);
		ok(nothing_left(job) && !ns_exists, "  and leaves nothing behind");
		job++;
		plan = plan_for(node, job);
		plan.node_devices = plan.job_devices = NULL;
		plan.imex_make = count_imex_make;
		plan.imex_major = 4000;
		inject(OP_NONE, 0, 0);
		ok(jobct_setup(&plan, fresh()) == 0 && fake_imex_major == 4000,
		   "imex: SwitchParameters' imex_dev_major wins over /proc/devices");
		ok(jobct_release(node, job, fresh()) == 0, "  released");
		jobct_node_free(node);
	}
	job++;
	{
		char text[256];

		snprintf(text, sizeof(text), "BasePath=none\nDevicePolicy=closed\n");
		write_file(conf_path, text);
	}
	if ((node = load(&faulty_ops))) {
		plan = plan_for(node, job);
		plan.node_devices = plan.job_devices = NULL;
		plan.imex_make = count_imex_make;
		imex_made = 0;
		inject(OP_NONE, 0, 0);
		ok(jobct_setup(&plan, fresh()) == -1 && imex_made == 0,
		   "imex: BasePath=none refuses the job (no namespace to hold its channel)");
		like(rep.msg, "BasePath=none", "  saying why: %s", rep.msg);
		ok(nothing_left(job), "  and leaves nothing behind");
		jobct_node_free(node);
	} else {
		ok(0, "imex: BasePath=none: load: %s", rep.msg);
	}

	/* Without the switch (no maker) the major is left to the policy. */
	write_conf("");
	if ((node = load(&faulty_ops))) {
		job++;
		plan = plan_for(node, job);
		plan.node_devices = plan.job_devices = NULL;
		inject(OP_NONE, 0, 0);
		ok(jobct_setup(&plan, fresh()) == 0 &&
		   calls[OP_IMEX_MAKE] == 0 && calls[OP_PROG_CREATE] == 0,
		   "imex: no switch: auto without GRES has no filter, as before");
		ok(jobct_release(node, job, fresh()) == 0, "  released");
		jobct_node_free(node);
	}
	proc_devices = NULL;
	fake_imex_channel = -1;
}

int main(void)
{
	int go = scratch_begin();

	if (go <= 0)
		return go < 0;
	test_node_load();
	test_node_load_text();
	test_kernel_floor();
	test_base_path_link();
	test_base_path_squat();
	test_open_policy();
	test_none_policy();
	test_filter();
	test_setup_faults();
	test_setup_undo();
	test_join_faults();
	test_pid_namespace();
	test_user_namespace();
	test_adopt();
	test_release();
	test_restore();
	test_restore_dry_run();
	test_restore_behind();
	test_restore_reused_id();
	test_job_cgroups();
	test_layout_check();
	test_node_report();
	test_gres_allow();
	test_imex();
	test_no_record();
	test_stale_record();
	test_disk_guard_follows_setup();
	test_sbcast_disk_limit();
	test_tmp_disk_gres_check();
	test_setup_gate();
	test_pool_same();
	test_real_namespace();
	test_real_source();
	remove_scratch();
	return tap_done();
}
