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
 * Needs root, cgroup2 and bpf; otherwise the whole file is skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "dev/bpfsys.h"
#include "dev/cgroup2.h"
#include "dev/devinspect.h"
#include "dev/devprog.h"
#include "job/jobct.h"
#include "job/setupgate.h"
#include "job/stepcg.h"
#include "util/sluid.h"
#include "util/fdmount.h"
#include "bpfinspect.h"
#include "tap.h"
#include "testrep.h"

static char tmp[] = "/var/tmp/test_jobct.XXXXXX"; /* BasePath: not in /tmp */
/* scratch paths: short, below tmp */
static char conf_path[128], spool[128], base[160], gpu0[128], gpu1[128];
static char cg_mount[256], node_name[32];

/* ---- fault injection --------------------------------------------------- */

enum op {
	OP_NONE, OP_NS_CREATE, OP_NS_JOIN, OP_NS_DELETE, OP_CG_OPEN,
	OP_CG_MOVE, OP_CG_REMOVE, OP_PROG_CREATE, OP_PROG_ATTACH,
	OP_MARKER_CREATE, OP_MARKER_STAT, OP_EXTERN_PIDS, OP_PROG_FIND,
	OP_SELF_CGROUP, OP_PIDNS_CREATE, OP_PIDNS_CHECK, OP_PIDNS_FORK, OP_COUNT,
};

static const char *const op_names[OP_COUNT] = {
	"none", "ns_create", "ns_join", "ns_delete", "cg_open_at",
	"cg_move_pid", "cg_remove", "prog_create", "prog_attach",
	"marker_create", "marker_stat", "extern_pids", "prog_find",
	"self_cgroup", "pidns_create", "pidns_contains_self", "pidns_fork_inside",
};

static struct {
	enum op op;	/* the call to fail */
	int nth;	/* on its nth call from now (1: the next) */
	int err;	/* with this errno */
	int times;	/* this many times in a row (0: once) */
} fault;
static int calls[OP_COUNT];
static bool ns_exists;		/* the fake namespace */
static bool pidns_exists;	/* the fake PID namespace */
static int pidns_inside = 1;	/* what the fake membership check says */
static pid_t adopt_pid;		/* what the fake extern step holds */
static char self_path[PATH_MAX];	/* the fake cgroup of the caller */

static void inject(enum op op, int nth, int err)
{
	fault.op = op;
	fault.nth = nth;
	fault.err = err;
	fault.times = 0;
	memset(calls, 0, sizeof(calls));
}

/* Counts the call; true (errno set) when it is the one to fail. */
static bool faulty(enum op op)
{
	calls[op]++;
	if (fault.op != op || --fault.nth > 0)
		return false;
	if (fault.times-- <= 0)
		fault.op = OP_NONE;
	else
		fault.nth = 1;
	errno = fault.err;
	return true;
}

static int f_ns_create(const struct mntns_spec *spec, struct report *r)
{
	(void)spec;
	if (faulty(OP_NS_CREATE))
		return report_errno(r, errno, "unsharing");
	ns_exists = true;
	return 0;
}

static int f_ns_join(const char *b, uint32_t job_id)
{
	(void)b;
	(void)job_id;
	return faulty(OP_NS_JOIN) ? -1 : 0;
}

static int f_ns_delete(const char *b, uint32_t job_id)
{
	(void)b;
	(void)job_id;
	if (faulty(OP_NS_DELETE))
		return -1;
	ns_exists = pidns_exists = false;
	return 0;
}

static int f_pidns_create(const char *b, uint32_t job_id, struct report *r)
{
	(void)b;
	(void)job_id;
	if (faulty(OP_PIDNS_CREATE))
		return report_errno(r, errno, "unshare(CLONE_NEWPID)");
	pidns_exists = true;
	return 0;
}

static int f_pidns_contains_self(const char *b, uint32_t job_id)
{
	(void)b;
	(void)job_id;
	if (faulty(OP_PIDNS_CHECK))
		return -1;
	if (!pidns_exists) {
		errno = ENOENT;
		return -1;
	}
	return pidns_inside;
}

/* The fake fork inside: the process goes on, counted, or fails. */
static int f_pidns_fork_inside(const char *b, uint32_t job_id)
{
	(void)b;
	(void)job_id;
	return faulty(OP_PIDNS_FORK) ? -1 : 0;
}

static int f_cg_open_at(int dir_fd, const char *rel, bool create)
{
	return faulty(OP_CG_OPEN) ? -1 : cgroup2_open_at(dir_fd, rel, create);
}

static int f_cg_move_pid(int cg_fd, pid_t pid)
{
	return faulty(OP_CG_MOVE) ? -1 : cgroup2_move_pid(cg_fd, pid);
}

static int f_cg_remove(int parent_fd, const char *name)
{
	return faulty(OP_CG_REMOVE) ? -1 : cgroup2_remove(parent_fd, name);
}

static int f_prog_create(const struct devrule_list *l, char *log, size_t n)
{
	if (faulty(OP_PROG_CREATE)) {
		snprintf(log, n, "0: (b7) r0 = 1\nR0 !read_ok\n");
		return -1;
	}
	return devprog_create(l, log, n);
}

static int f_prog_attach(int prog_fd, int cg_fd)
{
	return faulty(OP_PROG_ATTACH) ? -1 : devprog_attach(prog_fd, cg_fd);
}

static int f_marker_create(const char *path)
{
	return faulty(OP_MARKER_CREATE) ? -1 :
	       jobct_real_ops.marker_create(path);
}

static int f_marker_stat(const char *path, struct stat *st)
{
	return faulty(OP_MARKER_STAT) ? -1 :
	       jobct_real_ops.marker_stat(path, st);
}

static int f_extern_pids(uint32_t job_id, pid_t *pids, size_t max)
{
	(void)job_id;
	if (faulty(OP_EXTERN_PIDS))
		return -1;
	if (max && adopt_pid)
		pids[0] = adopt_pid;
	return adopt_pid ? 1 : 0;
}

static int f_prog_find(int cg_fd)
{
	return faulty(OP_PROG_FIND) ? -1 : devprog_find_attached(cg_fd);
}

/* The caller's cgroup: self_path when set, else the real one. */
static int f_self_cgroup(char *buf, size_t size)
{
	if (faulty(OP_SELF_CGROUP))
		return -1;
	if (!self_path[0])
		return cgroup2_proc_path(NULL, buf, size);
	snprintf(buf, size, "%s", self_path);
	return 0;
}

static const struct jobct_ops faulty_ops = {
	.ns_create = f_ns_create,
	.ns_join = f_ns_join,
	.ns_delete = f_ns_delete,
	.ns_delete_behind = f_ns_delete,
	.pidns_create = f_pidns_create,
	.pidns_contains_self = f_pidns_contains_self,
	.pidns_fork_inside = f_pidns_fork_inside,
	.cg_open_at = f_cg_open_at,
	.cg_move_pid = f_cg_move_pid,
	.cg_remove = f_cg_remove,
	.prog_create = f_prog_create,
	.prog_attach = f_prog_attach,
	.prog_find = f_prog_find,
	.self_cgroup = f_self_cgroup,
	.marker_create = f_marker_create,
	.marker_stat = f_marker_stat,
	.extern_pids = f_extern_pids,
};

/* ---- the scratch node -------------------------------------------------- */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/*
 * The layout the node is loaded with: the lifecycle tests run on the
 * layout where devns keeps its own job cgroups (hybrid), whatever the
 * machine's; test_layout_check sets others.
 */
static const char *mountinfo;

/* A fake mountinfo with the given layout, for load(). */
static void fake_layout(const char *name, const char *text)
{
	static char path[160];

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	write_file(path, text);
	mountinfo = path;
}

#define MI_V1 "36 31 0:33 / /sys/fs/cgroup/devices rw - cgroup cgroup rw,devices\n"
#define MI_V2 "25 1 0:22 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"

static void write_conf(const char *extra)
{
	char text[2048];

	snprintf(text, sizeof(text), "BasePath=%s\nAutoBasePath=yes\n%s\n",
		 base, extra);
	write_file(conf_path, text);
}

static struct jobct_node *load(const struct jobct_ops *ops)
{
	struct jobct_node_args args = {
		.mountinfo = mountinfo,
		.conf_path = conf_path,
		.node_name = node_name,
		.spool_dir = spool,
		.make_base_path = true,
		.cgroup_root = cg_mount,
		.dev_dir = tmp,		/* where the fake GPUs are */
		.ops = ops,
	};

	return jobct_node_load(&args, fresh());
}

/* The job's cgroup, as a path, for checks from outside. */
static void job_cgroup(char *buf, size_t len, uint32_t job_id)
{
	snprintf(buf, len, "%s/devns/%s/job_%u", cg_mount, node_name, job_id);
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static bool cgroup_exists(uint32_t job_id)
{
	char path[PATH_MAX];

	job_cgroup(path, sizeof(path), job_id);
	return exists(path);
}

static bool marker_exists(uint32_t job_id)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/devns_filter_%u", spool, job_id);
	return exists(path);
}

/* The job's record as setup left it ("(none)": no record). */
static const char *marker_text(uint32_t job_id)
{
	static char text[PATH_MAX];
	char path[PATH_MAX];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/devns_filter_%u", spool, job_id);
	if (!(f = fopen(path, "r")))
		return "(none)";
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	return text;
}

/* Nothing of the job anywhere: no cgroup, no marker, no namespace. */
static bool nothing_left(uint32_t job_id)
{
	return !cgroup_exists(job_id) && !marker_exists(job_id) && !ns_exists;
}

static const char *const node_gpus[] = { gpu0, gpu1, NULL };
static const char *const job_gpu0[] = { gpu0, NULL };

static struct jobct_plan plan_for(const struct jobct_node *node,
				  uint32_t job_id)
{
	struct jobct_plan p = {
		.node = node,
		.job_id = job_id,
		.uid = 1000,
		.gid = 1000,
		.node_devices = node_gpus,
		.job_devices = job_gpu0,
	};

	return p;
}

/*
 * Fork a child that joins the job and opens both GPUs; its exit status
 * packs the errno of each open (0: opened) or 99 when the join failed.
 */
static int child_opens(const struct jobct_node *node, uint32_t job_id,
		       int *err0, int *err1)
{
	int status, fd;
	pid_t pid = fork();

	if (pid == 0) {
		int e0 = 0, e1 = 0;

		if (jobct_join(node, job_id, NULL) < 0)
			_exit(99);
		if ((fd = open(gpu0, O_RDWR)) < 0)
			e0 = errno;
		else
			close(fd);
		if ((fd = open(gpu1, O_RDWR)) < 0)
			e1 = errno;
		else
			close(fd);
		_exit((e0 & 0xf) << 4 | (e1 & 0xf));
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	if (WEXITSTATUS(status) == 99)
		return 99;
	*err0 = WEXITSTATUS(status) >> 4;
	*err1 = WEXITSTATUS(status) & 0xf;
	return 0;
}

/* The notices a report made (the log's lines at its default level). */
static char notices[2048];

static void note(enum report_level level, const char *msg, void *arg)
{
	size_t n = strlen(notices);

	(void)arg;
	if (level == REPORT_NOTICE)
		snprintf(notices + n, sizeof(notices) - n, "%s\n", msg);
}

/* fresh(), collecting its notices in notices[]. */
static struct report *noting(void)
{
	notices[0] = '\0';
	report_init(&rep, note, NULL);
	return &rep;
}

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
	write_conf("Dir=/scratch Source=/nonexistent/devns/%u");
	node = load(&faulty_ops);
	ok(node != NULL && rep.warnings == 1, "a missing Source= part only "
	   "warns at load: %s", rep.msg);
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
 * world-writable directory): slurmd would never start.  Refused at load,
 * by slurmd and devns check alike, naming the file, the line and the
 * directory.
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
		 "directories: %s does not exist and %s is writable by "
		 "others (mode 1777)", conf_path, base, base, sticky);
	like(rep.msg, want, "  naming file:line and the directory: %s",
	     rep.msg);
	ok(access(base, F_OK) < 0, "  and makes nothing");
	n = jobct_node_load(&args, fresh());
	ok(n == NULL, "devns check refuses it too");
	like(rep.msg, want, "  with the same message");
	jobct_node_free(n);
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
	is_str(marker_text(101), "none", "  its setup record says: no filter");
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
	const char *real_layout = mountinfo;
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
	is_str(marker_text(103), "none", "  its setup record says: no filter");
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
	mountinfo = real_layout;
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
	jobct_node_free(node);
}

/*
 * Whether pid ends within ms; a child still alive then is killed and
 * reaped, so a broken release cannot hang the test.
 */
static bool reaped_within(pid_t pid, int ms)
{
	for (int waited = 0; waited < ms; waited += 10) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return true;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return false;
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
	ok(jobct_adopt(node, 140, false, fresh()) == -1,
	   "the marker cannot be read: the login is refused");
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

static bool none_alive(uint32_t job_id, void *arg)
{
	(void)job_id;
	(void)arg;
	return false;
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

/* ---- the unified layout: Slurm's cgroup/v2 tree ------------------------- */

static char scope[64];		/* "ut<pid>_slurmstepd.scope" below cg_mount */

/* <cg_mount>/<scope>/<rel>, made with its parents when mk. */
static void slurm_cg(char *buf, size_t len, const char *rel, bool mk)
{
	snprintf(buf, len, "%s/%s/%s", cg_mount, scope, rel);
	if (mk)
		for (char *p = buf + strlen(cg_mount) + 1; ; p++) {
			if (*p == '/' || !*p) {
				char c = *p;

				*p = '\0';
				mkdir(buf, 0755);
				*p = c;
			}
			if (!*p)
				break;
		}
}

/*
 * The SLUID Slurm's cgroup/v2 names the jobs' cgroups after (26.05's
 * default), 0: job_<id> (up to 25.11, or CgroupJobIdPaths=yes).  Job n's
 * SLUID is tree_sluid + n.
 */
static uint64_t tree_sluid;

/* The name of job_id's cgroup in Slurm's tree, as tree_sluid says. */
static const char *job_cg(uint32_t job_id)
{
	static char name[32];

	if (!tree_sluid || sluid_format(tree_sluid + job_id, name,
					sizeof(name)) < 0)
		snprintf(name, sizeof(name), "job_%u", job_id);
	return name;
}

/* Slurm's cgroups of a job: extern step and step 0, as cgroup/v2 has them. */
static void slurm_job_tree(uint32_t job_id)
{
	static const char *const leaves[] = {
		"step_extern/user/task_0", "step_extern/slurm",
		"step_0/user/task_0", "step_0/slurm",
	};
	char rel[128], path[PATH_MAX];

	for (size_t i = 0; i < sizeof(leaves) / sizeof(leaves[0]); i++) {
		snprintf(rel, sizeof(rel), "%s/%s", job_cg(job_id), leaves[i]);
		slurm_cg(path, sizeof(path), rel, true);
	}
}

/* Removes the job's tree, as Slurm does at the job's end. */
static void slurm_job_tree_remove(uint32_t job_id)
{
	static const char *const dirs[] = {
		"step_extern/user/task_0", "step_extern/user",
		"step_extern/slurm", "step_extern", "step_0/user/task_0",
		"step_0/user", "step_0/slurm", "step_0", "",
	};
	char rel[128], path[PATH_MAX];

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(rel, sizeof(rel), "%s/%s", job_cg(job_id), dirs[i]);
		slurm_cg(path, sizeof(path), rel, false);
		rmdir(path);
	}
}

/* Where a process of the job "is": self_path for jobct. */
static void be_in(uint32_t job_id, const char *rel)
{
	snprintf(self_path, sizeof(self_path), "%s/%s/%s", scope,
		 job_cg(job_id), rel);
}

/* How many programs are attached directly to a cgroup of the job. */
static int attached(uint32_t job_id, const char *rel)
{
	char path[PATH_MAX], jrel[128];
	uint32_t ids[8];
	int fd, n;

	snprintf(jrel, sizeof(jrel), "%s/%s", job_cg(job_id), rel);
	slurm_cg(path, sizeof(path), jrel, false);
	if ((fd = cgroup2_open(path)) < 0)
		return -1;
	n = devinspect_query(fd, ids, 8, NULL);
	close(fd);
	return n;
}

/*
 * What Slurm's ConstrainDevices would attach, with flags: a program
 * allowing everything (only < 0) or only the GPU 195:only.
 */
static int slurm_attach(uint32_t job_id, const char *rel, int only,
			uint32_t flags)
{
	struct devrule_list l;
	char path[PATH_MAX], jrel[128];
	union bpf_attr attr;
	int prog_fd, cg_fd, rc = -1;

	devrule_list_init(&l, only < 0);
	if (only >= 0)
		devrule_list_add(&l, 'c', 195, (uint32_t)only, false,
				 DEVRULE_RWM);
	prog_fd = devprog_create(&l, NULL, 0);
	devrule_list_free(&l);
	snprintf(jrel, sizeof(jrel), "%s/%s", job_cg(job_id), rel);
	slurm_cg(path, sizeof(path), jrel, false);
	cg_fd = cgroup2_open(path);
	if (prog_fd >= 0 && cg_fd >= 0) {
		memset(&attr, 0, sizeof(attr));
		attr.target_fd = (uint32_t)cg_fd;
		attr.attach_bpf_fd = (uint32_t)prog_fd;
		attr.attach_type = BPF_CGROUP_DEVICE;
		attr.attach_flags = flags;
		rc = bpfsys_call(BPF_PROG_ATTACH, &attr);
	}
	if (prog_fd >= 0)
		close(prog_fd);
	if (cg_fd >= 0)
		close(cg_fd);
	return rc;
}

/*
 * A task of step 0: forks from "slurmstepd" (in step_0/slurm), joins,
 * is moved into step_0/user/task_0 as Slurm's parent does, then opens
 * both GPUs.  Same packing as child_opens; 98: the move failed.
 */
static int task_opens(const struct jobct_node *node, uint32_t job_id,
		      int *err0, int *err1)
{
	char path[PATH_MAX], rel[64];
	int status, fd;
	pid_t pid;

	snprintf(rel, sizeof(rel), "%s/step_0/user/task_0", job_cg(job_id));
	slurm_cg(path, sizeof(path), rel, false);
	be_in(job_id, "step_0/slurm");
	if ((pid = fork()) == 0) {
		int e0 = 0, e1 = 0, cg;

		if (jobct_join(node, job_id, NULL) < 0)
			_exit(99);
		if ((cg = cgroup2_open(path)) < 0 || cgroup2_move_pid(cg, 0) < 0)
			_exit(98);
		if ((fd = open(gpu0, O_RDWR)) < 0)
			e0 = errno;
		else
			close(fd);
		if ((fd = open(gpu1, O_RDWR)) < 0)
			e1 = errno;
		else
			close(fd);
		_exit((e0 & 0xf) << 4 | (e1 & 0xf));
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	if (WEXITSTATUS(status) >= 98)
		return WEXITSTATUS(status);
	*err0 = WEXITSTATUS(status) >> 4;
	*err1 = WEXITSTATUS(status) & 0xf;
	return 0;
}

static struct jobct_node *load_unified(void)
{
	struct jobct_node *node;

	fake_layout("mi-unified", MI_V2);
	write_conf("");
	node = load(&faulty_ops);
	fake_layout("mi-hybrid", MI_V1 MI_V2);
	return node;
}

static void test_unified_parse(void)
{
	char job[64], step[32];

	ok(stepcg_parse("system.slice/n1_slurmstepd.scope/job_7/step_0/user/task_1",
			7, 0, job, sizeof(job), step, sizeof(step)) == 0,
	   "a task's cgroup parses");
	is_str(job, "system.slice/n1_slurmstepd.scope/job_7", "  the job's");
	is_str(step, "step_0", "  the step");
	ok(stepcg_parse("s/job_7/step_extern/slurm", 7, 0, job, sizeof(job),
			step, sizeof(step)) == 0 && !strcmp(step, "step_extern"),
	   "the extern stepd's parses");
	ok(stepcg_parse("s/job_77/step_0/slurm", 7, 0, job, sizeof(job), step,
			sizeof(step)) == -1 && errno == EINVAL,
	   "job_77 is not job_7");
	ok(stepcg_parse("s/job_7", 7, 0, job, sizeof(job), step,
			sizeof(step)) == -1, "a job without a step is not a step");
	ok(stepcg_parse("user.slice/job_7x/step_0", 7, 0, job, sizeof(job),
			step, sizeof(step)) == -1, "job_7x is not job_7");
	ok(stepcg_parse("a/job_7/step_0", 7, 0, job, 4, step, sizeof(step)) == -1 &&
	   errno == ENAMETOOLONG, "too long a path is an error");
	ok(stepcg_parse("s/sEKNKTV3WPV500/step_0/user/task_0", 7,
			UINT64_C(0xe9d67ad8f96d9400), job, sizeof(job), step,
			sizeof(step)) == 0 && !strcmp(job, "s/sEKNKTV3WPV500") &&
	   !strcmp(step, "step_0"), "26.05: a cgroup named after the job's SLUID parses");
	ok(stepcg_parse("s/sEKNKTV3WPV500/step_0/user/task_0", 7, 0, job,
			sizeof(job), step, sizeof(step)) == -1 && errno == EINVAL,
	   "  not without the SLUID (slurmd's join passes 0)");
	ok(stepcg_parse("s/sEKNKTV3WPV501/step_0", 7,
			UINT64_C(0xe9d67ad8f96d9400), job, sizeof(job), step,
			sizeof(step)) == -1, "  nor another job's SLUID");
	ok(stepcg_parse("s/job_7/step_0", 7, UINT64_C(0xe9d67ad8f96d9400), job,
			sizeof(job), step, sizeof(step)) == 0,
	   "  job_7 still parses with a SLUID given (CgroupJobIdPaths=yes)");
}

/*
 * Setup, join, adopt and release on Slurm's own step cgroups, named
 * job_<id> or after the job's SLUID as tree_sluid says.
 */
static void test_unified_filter(void)
{
	struct jobct_node *node = load_unified();
	struct jobct_plan plan;
	char text[PATH_MAX], path[PATH_MAX];
	int e0 = -1, e1 = -1, rc;
	pid_t sleeper;

	if (!node)
		return (void)ok(0, "load: %s", rep.msg);
	slurm_job_tree(190);
	be_in(190, "step_extern/slurm");
	plan = plan_for(node, 190);
	inject(OP_NONE, 0, 0);
	if (tree_sluid) {
		/* Found from the SLUID Slurm gives, never guessed. */
		ok(jobct_setup(&plan, fresh()) == -1 &&
		   attached(190, "step_extern") == 0 && !marker_exists(190),
		   "SLUID names: setup without the job's SLUID finds no cgroup of the job, attaches nothing: %s",
		   rep.msg);
		plan.sluid = tree_sluid + 191;
		ok(jobct_setup(&plan, fresh()) == -1 &&
		   attached(190, "step_extern") == 0,
		   "  nor with another job's SLUID");
		plan.sluid = tree_sluid + 190;
	}
	ok(jobct_setup(&plan, fresh()) == 0, "unified (%s): a GPU job sets up: %s",
	   job_cg(190), rep.msg);
	ok(attached(190, "step_extern") == 1,
	   "  its filter is on the extern step's cgroup");
	ok(attached(190, "step_0") == 0, "  and not yet on step 0");
	ok(marker_exists(190), "  its marker exists");
	snprintf(path, sizeof(path), "%s/devns_filter_190", spool);
	{
		FILE *f = fopen(path, "r");

		text[0] = '\0';
		if (f) {
			if (!fgets(text, sizeof(text), f))
				text[0] = '\0';
			fclose(f);
		}
	}
	snprintf(path, sizeof(path), "%s/%s", scope, job_cg(190));
	is_str(text, path, "  holding the job's cgroup");
	snprintf(path, sizeof(path), "%s/devns", cg_mount);
	ok(!exists(path) || !cgroup_exists(190), "  no devns cgroup is made");

	/*
	 * Slurm's ConstrainDevices: job and step_0/user OVERRIDE (22.05 to
	 * 24.11 attach the step's program to step_<s>/user), allowing all.
	 */
	ok(slurm_attach(190, "", -1, BPF_F_ALLOW_OVERRIDE) == 0 &&
	   slurm_attach(190, "step_0/user", -1, BPF_F_ALLOW_OVERRIDE) == 0,
	   "Slurm's programs attach to %s and step_0/user (ALLOW_OVERRIDE)",
	   job_cg(190));
	rc = task_opens(node, 190, &e0, &e1);
	is_int(rc, 0, "a task of step 0 joins and is moved into task_0");
	is_int(e0, ENXIO, "  its own GPU opens (ENXIO: no driver here)");
	is_int(e1, EPERM, "  the other GPU is denied by our filter");
	ok(attached(190, "step_0") == 1, "  the filter is now on step 0's cgroup");
	ok(slurm_attach(190, "step_0/slurm", -1, BPF_F_ALLOW_OVERRIDE) == 0,
	   "  Slurm could still attach (OVERRIDE) anywhere below it");
	{
		char p2[PATH_MAX];
		uint32_t id = 0;
		int fd;

		{
			char r2[64];

			snprintf(r2, sizeof(r2), "%s/step_0/slurm", job_cg(190));
			slurm_cg(p2, sizeof(p2), r2, false);
		}
		if ((fd = cgroup2_open(p2)) >= 0) {
			if (devinspect_query(fd, &id, 1, NULL) == 1) {
				int pfd = devinspect_prog_open(id);

				if (pfd >= 0) {
					devprog_detach(pfd, fd);
					close(pfd);
				}
			}
			close(fd);
		}
	}

	/* Slurm's task program (no flag) denying gpu0: both must allow. */
	ok(slurm_attach(190, "step_0/user/task_0", 1, 0) == 0,
	   "Slurm's task program attaches below ours (no flag)");
	rc = task_opens(node, 190, &e0, &e1);
	ok(rc == 0 && e0 == EPERM && e1 == EPERM,
	   "  an access passes only when both allow: gpu0 errno %d, gpu1 errno %d",
	   e0, e1);
	is_int(attached(190, "step_0"), 1,
	   "  a second task attaches nothing twice");

	be_in(190, "step_extern/slurm");
	ok(jobct_adopt(node, 190, false, fresh()) == 0,
	   "an adopted login: the extern step has the filter: %s", rep.msg);

	/* A task left running when the job ends is killed, then detached. */
	snprintf(text, sizeof(text), "%s/step_0/user/task_0", job_cg(190));
	slurm_cg(path, sizeof(path), text, false);
	if ((sleeper = fork()) == 0) {
		int cg = cgroup2_open(path);

		if (cg < 0 || cgroup2_move_pid(cg, 0) < 0)
			_exit(1);
		pause();
		_exit(0);
	}
	usleep(100000);
	ok(sleeper > 0 && kill(sleeper, 0) == 0, "a task is still running");
	ok(jobct_release(node, 190, noting()) == 0, "released: %s", rep.msg);
	snprintf(text, sizeof(text), "denied 2 opens of c 195:1 (%s)\n", gpu1);
	is_str(notices, text,
	       "  the log has the other GPU's two denied opens (one program on two steps, read once)");
	ok(reaped_within(sleeper, TAP_WAIT_MS), "  the task left running is killed");
	ok(attached(190, "step_0") == 0 && attached(190, "step_extern") == 0,
	   "  our filter is off every step cgroup");
	is_int(attached(190, "step_0/user/task_0"), 1,
	       "  Slurm's own program stays");
	ok(!marker_exists(190), "  the marker is gone");
	snprintf(text, sizeof(text), "%s/step_0/user/task_0", job_cg(190));
	slurm_cg(path, sizeof(path), text, false);
	ok(exists(path), "  Slurm's cgroups are Slurm's to remove");
	slurm_job_tree_remove(190);
	ok(jobct_release(node, 190, fresh()) == 0, "releasing twice is fine");
	jobct_node_free(node);
}

/*
 * 26.05's extern step releases after proctrack/cgroup removed the job's
 * cgroups, and the program with them: the counts are still logged, from
 * the reference setup kept (denied_hold).
 */
static void test_unified_denied_after_removal(void)
{
	struct jobct_node *node = load_unified();
	struct jobct_plan plan;
	char want[PATH_MAX];
	int e0 = -1, e1 = -1;

	if (!node)
		return (void)ok(0, "load: %s", rep.msg);
	slurm_job_tree(192);
	be_in(192, "step_extern/slurm");
	plan = plan_for(node, 192);
	plan.sluid = tree_sluid ? tree_sluid + 192 : 0;
	inject(OP_NONE, 0, 0);
	ok(jobct_setup(&plan, fresh()) == 0, "unified: job 192 sets up: %s",
	   rep.msg);
	ok(task_opens(node, 192, &e0, &e1) == 0 && e1 == EPERM,
	   "  a task is denied the other GPU once");
	slurm_job_tree_remove(192);
	ok(attached(192, "step_extern") < 0,
	   "precondition: Slurm removed every cgroup of the job before the release");
	ok(jobct_release(node, 192, noting()) == 0, "released: %s", rep.msg);
	snprintf(want, sizeof(want), "denied 1 opens of c 195:1 (%s)\n", gpu1);
	is_str(notices, want,
	       "  the denied open is logged all the same (the program setup kept)");
	jobct_node_free(node);
}

/* Each fail-closed branch on the unified layout. */
static void test_unified_faults(void)
{
	struct jobct_node *node = load_unified();
	struct jobct_plan plan;
	int e0, e1;

	if (!node)
		return (void)ok(0, "load: %s", rep.msg);
	slurm_job_tree(191);
	plan = plan_for(node, 191);

	be_in(191, "step_0/slurm");
	inject(OP_NONE, 0, 0);
	ok(jobct_setup(&plan, fresh()) == -1, "setup outside the extern step fails");
	like(rep.msg, "not from the extern step", "  saying why: %s", rep.msg);

	be_in(191, "step_extern/slurm");
	inject(OP_SELF_CGROUP, 1, EIO);
	ok(jobct_setup(&plan, fresh()) == -1 && !marker_exists(191),
	   "setup that cannot read its cgroup fails");
	inject(OP_PROG_ATTACH, 1, EPERM);
	ok(jobct_setup(&plan, fresh()) == -1, "an attach refused fails setup");
	like(rep.msg, "cannot attach the device filter to step_extern",
	     "  naming the cgroup: %s", rep.msg);
	ok(attached(191, "step_extern") == 0 && !marker_exists(191),
	   "  nothing is attached, no marker");
	inject(OP_MARKER_CREATE, 1, EROFS);
	ok(jobct_setup(&plan, fresh()) == -1 &&
	   attached(191, "step_extern") == 0,
	   "no marker: setup fails and detaches");

	inject(OP_NONE, 0, 0);
	ok(jobct_setup(&plan, fresh()) == 0, "set up for real: %s", rep.msg);
	inject(OP_PROG_FIND, 1, ENOENT);
	is_int(task_opens(node, 191, &e0, &e1), 99,
	       "a task that cannot find the job's filter does not run");
	inject(OP_PROG_ATTACH, 1, EPERM);
	is_int(task_opens(node, 191, &e0, &e1), 99,
	       "nor one that cannot attach it to its step");
	ok(attached(191, "step_0") == 0, "  which has no filter then");
	inject(OP_NONE, 0, 0);
	snprintf(self_path, sizeof(self_path), "%s/job_1910/step_0/slurm", scope);
	ok(jobct_join(node, 191, fresh()) == -1,
	   "a process in another job's cgroup is refused");
	like(rep.msg, "not in the one its filter was set up for", "  saying why: %s", rep.msg);
	be_in(191, "step_extern/slurm");
	inject(OP_PROG_FIND, 1, ENOENT);
	ok(jobct_adopt(node, 191, false, fresh()) == -1,
	   "a login is refused when the extern step lost the filter");
	inject(OP_NONE, 0, 0);
	ok(jobct_release(node, 191, fresh()) == 0 && !marker_exists(191) &&
	   attached(191, "step_extern") == 0, "released");
	slurm_job_tree_remove(191);
	jobct_node_free(node);
}

/* A dead job's marker after a slurmd restart: restore removes it. */
static void test_unified_restore(void)
{
	struct jobct_node *node = load_unified();
	struct jobct_plan plan;

	if (!node)
		return (void)ok(0, "load: %s", rep.msg);
	slurm_job_tree(192);
	be_in(192, "step_extern/slurm");
	plan = plan_for(node, 192);
	inject(OP_NONE, 0, 0);
	ok(jobct_setup(&plan, fresh()) == 0 && marker_exists(192),
	   "a job set up, with its marker");
	slurm_job_tree_remove(192);	/* the job ended while slurmd was away */
	self_path[0] = '\0';
	ok(jobct_restore(node, none_alive, NULL, fresh()) == 0,
	   "restore: %s", rep.msg);
	ok(!marker_exists(192), "  removes the dead job's marker");
	jobct_node_free(node);
}

/*
 * Slurm removes a step's cgroups as soon as its tasks are gone, which may
 * be while release still waits for them to die: a "user" cgroup that
 * vanished is empty, not busy (seen in the guest: the marker stayed).  The
 * remover spins on rmdir so as to win the race from release's 10 ms poll.
 */
static void test_unified_release_race(void)
{
	struct jobct_node *node = load_unified();
	struct jobct_plan plan;
	char task[PATH_MAX], user[PATH_MAX], ready = 0;
	pid_t sleeper, remover = -1;
	int pipefd[2], task_fd, rc;

	if (!node || pipe(pipefd) < 0)
		return (void)ok(0, "load: %s", rep.msg);
	slurm_job_tree(193);
	be_in(193, "step_extern/slurm");
	plan = plan_for(node, 193);
	inject(OP_NONE, 0, 0);
	ok(jobct_setup(&plan, fresh()) == 0, "race: a job set up: %s", rep.msg);
	slurm_cg(task, sizeof(task), "job_193/step_0/user/task_0", false);
	slurm_cg(user, sizeof(user), "job_193/step_0/user", false);
	if ((sleeper = fork()) == 0) {
		int cg = cgroup2_open(task);

		if (cg < 0 || cgroup2_move_pid(cg, 0) < 0)
			_exit(1);
		/* Memory to free makes its death slow, past release's first look. */
		(void)mmap(NULL, 64 << 20, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (write(pipefd[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(pipefd[1]);
	if (read(pipefd[0], &ready, 1) == 1 && (remover = fork()) == 0) {
		while (rmdir(task) < 0 && errno == EBUSY)
			;
		_exit(rmdir(user) < 0);
	}
	close(pipefd[0]);
	task_fd = cgroup2_open(task);
	ok(ready == 'r' && task_fd >= 0 && cgroup2_populated(task_fd) == 1 &&
	   remover > 0, "race: a task runs, and Slurm waits to remove its cgroups");
	if (task_fd >= 0)
		close(task_fd);
	rc = jobct_release(node, 193, fresh());
	ok(rc == 0, "race: release succeeds: %s", rep.msg);
	ok(reaped_within(sleeper, TAP_WAIT_MS) && remover > 0 &&
	   reaped_within(remover, TAP_WAIT_MS) && !exists(user),
	   "  the task was killed, and its cgroups are gone");
	ok(!marker_exists(193), "  the marker is gone");
	slurm_job_tree_remove(193);
	jobct_node_free(node);
}

/* A non-overridable program above slurmd: nothing can attach below it. */
static void test_unified_blocked(void)
{
	const struct jobct_slurm gres = { .prolog_contain = true, .node_has_devices = true, .step_cgroups = true };
	char path[PATH_MAX];
	struct jobct_node *node = load_unified();
	struct devrule_list l;
	union bpf_attr attr;
	int prog_fd, cg_fd;

	if (!node)
		return (void)ok(0, "load: %s", rep.msg);
	slurm_cg(path, sizeof(path), "blocker/slurmd", true);
	slurm_cg(path, sizeof(path), "blocker", false);
	devrule_list_init(&l, true);
	prog_fd = devprog_create(&l, NULL, 0);
	devrule_list_free(&l);
	cg_fd = cgroup2_open(path);
	memset(&attr, 0, sizeof(attr));
	attr.target_fd = (uint32_t)cg_fd;
	attr.attach_bpf_fd = (uint32_t)prog_fd;
	attr.attach_type = BPF_CGROUP_DEVICE;
	ok(prog_fd >= 0 && cg_fd >= 0 &&
	   bpfsys_call(BPF_PROG_ATTACH, &attr) == 0,
	   "a program attached without flags above slurmd");
	snprintf(self_path, sizeof(self_path), "%s/blocker/slurmd", scope);
	ok(jobct_node_check(node, &gres, fresh()) == -1,
	   "slurmd refuses to start");
	like(rep.msg, "blocker without BPF_F_ALLOW_MULTI", "  naming it: %s",
	     rep.msg);
	devprog_detach(prog_fd, cg_fd);
	close(prog_fd);
	close(cg_fd);
	slurm_cg(path, sizeof(path), "blocker/slurmd", false);
	rmdir(path);
	slurm_cg(path, sizeof(path), "blocker", false);
	rmdir(path);
	self_path[0] = '\0';
	jobct_node_free(node);
}

/* A reconfigure keeps the pool only when NamespacePool and BasePath stay. */
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
	ok(jobct_adopt(node, 170, false, fresh()) == -1 &&
	   jobct_ns_open(node, 170, fresh()) == -1,
	   "  and a login is neither adopted nor given a namespace");
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
}

/*
 * The attack: a program of devns left on step_extern by an earlier job of
 * the same id (here one that allows every device) was taken as this job's,
 * and its other steps got it.  Setup now puts only its own program there.
 */
static void test_unified_stale(void)
{
	struct jobct_node *node = load_unified();
	struct jobct_plan plan;
	int e0 = -1, e1 = -1, fd;
	char path[PATH_MAX];
	uint32_t ids[4];

	if (!node)
		return (void)ok(0, "load: %s", rep.msg);
	slurm_job_tree(194);
	ok(slurm_attach(194, "step_extern", -1, BPF_F_ALLOW_MULTI) == 0 &&
	   attached(194, "step_extern") == 1,
	   "a stale devns program allowing everything is on step_extern");
	be_in(194, "step_extern/slurm");
	plan = plan_for(node, 194);
	inject(OP_NONE, 0, 0);
	ok(jobct_setup(&plan, fresh()) == 0, "job 194 sets up: %s", rep.msg);
	is_int(attached(194, "step_extern"), 1, "  one program on step_extern");
	slurm_cg(path, sizeof(path), "job_194/step_extern", false);
	if ((fd = cgroup2_open(path)) >= 0) {
		ok(devinspect_query(fd, ids, 4, NULL) == 1, "  inspected");
		close(fd);
	}
	is_int(task_opens(node, 194, &e0, &e1), 0, "a task of step 0 runs");
	ok(e0 == ENXIO && e1 == EPERM,
	   "  under this job's filter, not the stale one (%d %d)", e0, e1);
	jobct_release(node, 194, NULL);
	slurm_job_tree_remove(194);
	jobct_node_free(node);
}

/*
 * The attack: stepcg_join took flock(LOCK_EX) on the step's cgroup
 * directory (mode 0755): any user could hold it and hang every task of
 * another user's step before exec.  devns takes no lock a user can.
 */
static void test_unified_user_lock(void)
{
	struct jobct_node *node = load_unified();
	struct jobct_plan plan;
	char path[PATH_MAX], c;
	int sync[2], status = -1;
	pid_t holder, task;

	if (!node)
		return (void)ok(0, "load: %s", rep.msg);
	slurm_job_tree(195);
	be_in(195, "step_extern/slurm");
	plan = plan_for(node, 195);
	inject(OP_NONE, 0, 0);
	ok(jobct_setup(&plan, fresh()) == 0, "job 195 sets up: %s", rep.msg);
	slurm_cg(path, sizeof(path), "job_195/step_0", false);
	if (pipe(sync) < 0)
		return (void)ok(0, "pipe");
	if ((holder = fork()) == 0) {
		int fd;

		if (setresgid(65534, 65534, 65534) < 0 ||
		    setresuid(65534, 65534, 65534) < 0 ||
		    (fd = open(path, O_RDONLY | O_DIRECTORY)) < 0 ||
		    flock(fd, LOCK_EX) < 0)
			_exit(1);
		(void)!write(sync[1], "l", 1);
		pause();
		_exit(0);
	}
	close(sync[1]);
	ok(read(sync[0], &c, 1) == 1,
	   "another user (nobody) holds flock(LOCK_EX) on step_0's cgroup");
	close(sync[0]);
	be_in(195, "step_0/slurm");
	if ((task = fork()) == 0) {
		alarm(10);
		_exit(jobct_join(node, 195, NULL) < 0 ? 99 : 0);
	}
	ok(task > 0 && waitpid(task, &status, 0) == task &&
	   WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "  a task of step 0 joins all the same (before: hung until killed)");
	is_int(attached(195, "step_0"), 1, "  and step 0 has the filter");
	kill(holder, SIGKILL);
	waitpid(holder, NULL, 0);
	jobct_release(node, 195, NULL);
	slurm_job_tree_remove(195);
	jobct_node_free(node);
}

/*
 * Fork a child that joins as slurmd's child of the job's user (sbcast's
 * file opener) and opens the other GPU; its open's errno, or 99.
 */
static int slurmd_child_opens_gpu1(const struct jobct_node *node,
				   uint32_t job_id)
{
	int status, fd;
	pid_t pid = fork();

	if (pid == 0) {
		if (jobct_join_from_slurmd(node, job_id, NULL) < 0)
			_exit(99);
		if ((fd = open(gpu1, O_RDWR)) >= 0)
			_exit(0);
		_exit(errno & 0x7f);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * The attack: sbcast's file opener, which slurmd forks as the job's user,
 * joined the job's namespace but not its filter, so it could open any
 * device (sbcast FILE /dev/nvidia1).  It is under the filter now.
 */
static void test_slurmd_child(void)
{
	struct jobct_node *node;
	struct jobct_plan plan;

	write_conf("");
	if (!(node = load(&faulty_ops)))
		return (void)ok(0, "load: %s", rep.msg);
	inject(OP_NONE, 0, 0);
	is_int(slurmd_child_opens_gpu1(node, 172), 99,
	       "sbcast's opener for a job never set up does not run");
	plan = plan_for(node, 172);
	ok(jobct_setup(&plan, fresh()) == 0, "a GPU job sets up");
	is_int(slurmd_child_opens_gpu1(node, 172), EPERM,
	       "  sbcast's opener is denied the other GPU");
	jobct_release(node, 172, NULL);
	jobct_node_free(node);

	if (!(node = load_unified()))
		return (void)ok(0, "load: %s", rep.msg);
	slurm_job_tree(196);
	be_in(196, "step_extern/slurm");
	plan = plan_for(node, 196);
	ok(jobct_setup(&plan, fresh()) == 0, "unified: a GPU job sets up");
	is_int(slurmd_child_opens_gpu1(node, 196), EPERM,
	       "  sbcast's opener, moved below step_extern, is denied the other GPU");
	jobct_release(node, 196, NULL);
	slurm_job_tree_remove(196);
	jobct_node_free(node);
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
	snprintf(jobdir, sizeof(jobdir), "%s/170", base);
	ok(jobct_release(node, 170, fresh()) == 0 && !exists(jobdir),
	   "release removes the job's directory");
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
	char point[] = "/var/tmp/test_jobct_pt.XXXXXX";
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

/* Root, cgroup2 and bpf, or the reason they are missing. */
static const char *missing(void)
{
	enum cgroup2_layout layout;

	if (geteuid() != 0)
		return "needs root";
	if (cgroup2_probe(NULL, &layout, cg_mount, sizeof(cg_mount)) < 0 ||
	    !cg_mount[0])
		return "no cgroup2 mount";
	if (devprog_probe() < 0)
		return "no BPF cgroup-device programs";
	return NULL;
}

static int make_scratch(void)
{
	if (!mkdtemp(tmp))
		return -1;
	snprintf(conf_path, sizeof(conf_path), "%s/namespace.conf", tmp);
	snprintf(spool, sizeof(spool), "%s/spool", tmp);
	snprintf(base, sizeof(base), "%s/base", tmp);
	snprintf(gpu0, sizeof(gpu0), "%s/nvidia0", tmp);
	snprintf(gpu1, sizeof(gpu1), "%s/nvidia1", tmp);
	snprintf(node_name, sizeof(node_name), "ut%d", (int)getpid());
	snprintf(scope, sizeof(scope), "ut%d_slurmstepd.scope", (int)getpid());
	fake_layout("mi-hybrid", MI_V1 MI_V2);
	if (mkdir(spool, 0700) < 0 ||
	    mknod(gpu0, S_IFCHR | 0666, makedev(195, 0)) < 0 ||
	    mknod(gpu1, S_IFCHR | 0666, makedev(195, 1)) < 0)
		return -1;
	return 0;
}

static void remove_scratch(void)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/devns/%s", cg_mount, node_name);
	rmdir(path);
	/* the parent too, unless another user of it is there */
	snprintf(path, sizeof(path), "%s/devns", cg_mount);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/%s", cg_mount, scope);
	rmdir(path);
	unlink(gpu0);
	unlink(gpu1);
	unlink(conf_path);
	for (const char *const *n = (const char *const[]){ "mi-unified",
			"mi-none", "mi-hybrid", NULL }; *n; n++) {
		snprintf(path, sizeof(path), "%s/%s", tmp, *n);
		unlink(path);
	}
	rmdir(spool);
	rmdir(base);
	rmdir(tmp);
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
	test_node_load();
	test_node_load_text();
	test_kernel_floor();
	test_base_path_link();
	test_base_path_squat();
	test_open_policy();
	test_none_policy();
	test_filter();
	test_setup_faults();
	test_join_faults();
	test_pid_namespace();
	test_adopt();
	test_release();
	test_restore();
	test_restore_dry_run();
	test_job_cgroups();
	test_layout_check();
	test_gres_allow();
	test_unified_parse();
	test_unified_filter();
	tree_sluid = UINT64_C(0xe9d67ad8f96d9400);	/* sEKNKTV3WPV500 */
	test_unified_filter();
	test_unified_denied_after_removal();
	tree_sluid = 0;
	test_unified_faults();
	test_unified_restore();
	test_unified_release_race();
	test_unified_blocked();
	test_no_record();
	test_setup_gate();
	test_unified_stale();
	test_unified_user_lock();
	test_slurmd_child();
	test_pool_same();
	test_real_namespace();
	test_real_source();
	remove_scratch();
	return tap_done();
}
