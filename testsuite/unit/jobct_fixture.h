/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jobct_fixture.h - the scratch node test_jobct and test_stepcg share: real
 * cgroups and BPF programs below the cgroup2 mount, a fake GPU pair, the
 * kernel calls of struct jobct_ops recorded and made to fail on demand
 * (fault injection).  Included once by each test program (like tap.h):
 * its functions are static inline so that neither needs all of them.
 */
#ifndef DEVNS_JOBCT_FIXTURE_H
#define DEVNS_JOBCT_FIXTURE_H

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

#include "conf/jobdir.h"
#include "dev/bpfsys.h"
#include "dev/cgroup2.h"
#include "dev/devinspect.h"
#include "dev/devprog.h"
#include "job/jobct.h"
#include "job/node.h"	/* the layout a node was loaded with */
#include "job/setupgate.h"
#include "job/stepcg.h"
#include "slurmconv/sluid.h"
#include "util/fdmount.h"
#include "bpfinspect.h"
#include "tap.h"
#include "testrep.h"

static char tmp[] = "/var/lib/test_jobct.XXXXXX"; /* BasePath: no shared ancestor */
/* scratch paths: short, below tmp */
static char conf_path[128], spool[128], base[160], gpu0[128], gpu1[128];
static char cg_mount[256], node_name[32];

/* ---- fault injection --------------------------------------------------- */

enum op {
	OP_NONE, OP_NS_CREATE, OP_NS_JOIN, OP_NS_DELETE, OP_CG_OPEN,
	OP_CG_MOVE, OP_CG_REMOVE, OP_PROG_CREATE, OP_PROG_ATTACH,
	OP_MARKER_CREATE, OP_MARKER_STAT, OP_EXTERN_PIDS, OP_PROG_FIND,
	OP_SELF_CGROUP, OP_PIDNS_CREATE, OP_PIDNS_CHECK, OP_PIDNS_FORK,
	OP_USERNS_CREATE, OP_USERNS_OPEN, OP_USERNS_ENTER, OP_JOB_PROJECT,
	OP_JOB_LIMIT, OP_IMEX_MAKE, OP_COUNT,
};

static const char *const op_names[OP_COUNT] = {
	"none", "ns_create", "ns_join", "ns_delete", "cg_open_at",
	"cg_move_pid", "cg_remove", "prog_create", "prog_attach",
	"marker_create", "marker_stat", "extern_pids", "prog_find",
	"self_cgroup", "pidns_create", "pidns_contains_self", "pidns_fork_inside",
	"userns_create", "userns_open", "userns_enter", "job_project",
	"job_limit",
	"imex_make",
};

static struct {
	enum op op;	/* the call to fail */
	int nth;	/* on its nth call from now (1: the next) */
	int err;	/* with this errno */
	int times;	/* this many times in a row (0: once) */
} fault;
static int calls[OP_COUNT];
static bool ns_exists;		/* the fake namespace */
static uint32_t fake_projid;	/* its directory's project, as setup made it */
static long fake_fs_type = 0xEF53;	/* its filesystem (statfs f_type): ext4 */
static bool pidns_exists;	/* the fake PID namespace */
#define FAKE_INIT_PID 4242	/* its init's PID */
static bool fake_userns;		/* the fake user namespace */
static bool userns_entered;	/* the caller went into it */
static int pidns_inside = 1;	/* what the fake membership check says */
static pid_t adopt_pid;		/* what the fake extern step holds */
static char self_path[PATH_MAX];	/* the fake cgroup of the caller */
static int fake_imex_channel = -1;	/* what the fake switch makes, -1: none */
static uint32_t fake_imex_major;	/* the major it was handed */

static inline void inject(enum op op, int nth, int err)
{
	fault.op = op;
	fault.nth = nth;
	fault.err = err;
	fault.times = 0;
	memset(calls, 0, sizeof(calls));
}

/* Counts the call; true (errno set) when it is the one to fail. */
static inline bool faulty(enum op op)
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

static inline int f_ns_create(const struct mntns_spec *spec, struct report *r)
{
	if (faulty(OP_NS_CREATE))
		return report_errno(r, errno, "unsharing");
	ns_exists = true;
	/* TmpDiskLimit puts the job's directory in project <jobid>. */
	fake_projid = spec->disk_limit ? spec->job_id : 0;
	return 0;
}

/* The fake job directory's project; ENOENT without a namespace. */
static inline int f_job_project(const char *b, uint32_t job_id,
				uint32_t *projid)
{
	(void)b;
	(void)job_id;
	if (faulty(OP_JOB_PROJECT))
		return -1;
	if (!ns_exists) {
		errno = ENOENT;
		return -1;
	}
	*projid = fake_projid;
	return 0;
}

/* The fake job directory's disk limit: its project, 10 MiB, fake_fs_type. */
static inline int f_job_limit(const char *b, uint32_t job_id,
			      struct dquota_job_limit *l)
{
	memset(l, 0, sizeof(*l));
	if (faulty(OP_JOB_LIMIT))
		return -1;
	if (f_job_project(b, job_id, &l->projid) < 0)
		return -1;
	l->bytes = l->projid ? 10485760 : 0;
	l->fs_type = fake_fs_type;
	snprintf(l->fs, sizeof(l->fs), "%s",
		 fake_fs_type == 0xEF53 ? "ext2/3/4" : "xfs");
	return 0;
}

static inline int f_ns_join(int base_fd, const char *b, uint32_t job_id)
{
	(void)base_fd;
	(void)b;
	(void)job_id;
	return faulty(OP_NS_JOIN) ? -1 : 0;
}

static inline int f_ns_delete(const char *b, uint32_t job_id)
{
	(void)b;
	(void)job_id;
	if (faulty(OP_NS_DELETE))
		return -1;
	ns_exists = pidns_exists = fake_userns = false;
	fake_projid = 0;
	return 0;
}

static inline int f_userns_create(const char *b, uint32_t job_id, uid_t uid,
				  gid_t gid, userns_map_fn map, void *arg,
				  struct report *r)
{
	(void)b;
	(void)job_id;
	(void)uid;
	(void)gid;
	(void)map;
	(void)arg;
	if (faulty(OP_USERNS_CREATE))
		return report_errno(r, errno, "unshare(CLONE_NEWUSER)");
	fake_userns = true;
	return 0;
}

/* The fake namespace's fd: /dev/null, which the fake enter closes. */
static inline int f_userns_open(const char *b, uint32_t job_id)
{
	(void)b;
	(void)job_id;
	if (faulty(OP_USERNS_OPEN))
		return -1;
	if (!fake_userns) {
		errno = ENOENT;
		return -1;
	}
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static inline int f_userns_enter(int fd)
{
	close(fd);
	if (faulty(OP_USERNS_ENTER))
		return -1;
	userns_entered = true;
	return 0;
}

static inline int f_pidns_create(const char *b, uint32_t job_id, pid_t *init,
				 struct report *r)
{
	(void)b;
	(void)job_id;
	if (faulty(OP_PIDNS_CREATE))
		return report_errno(r, errno, "unshare(CLONE_NEWPID)");
	pidns_exists = true;
	*init = FAKE_INIT_PID;
	return 0;
}

static inline int f_pidns_contains_self(const char *b, uint32_t job_id)
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
static inline int f_pidns_fork_inside(const char *b, uint32_t job_id)
{
	(void)b;
	(void)job_id;
	return faulty(OP_PIDNS_FORK) ? -1 : 0;
}

static inline int f_cg_open_at(int dir_fd, const char *rel, bool create)
{
	return faulty(OP_CG_OPEN) ? -1 : cgroup2_open_at(dir_fd, rel, create);
}

static inline int f_cg_move_pid(int cg_fd, pid_t pid)
{
	return faulty(OP_CG_MOVE) ? -1 : cgroup2_move_pid(cg_fd, pid);
}

static inline int f_cg_remove(int parent_fd, const char *name)
{
	return faulty(OP_CG_REMOVE) ? -1 : cgroup2_remove(parent_fd, name);
}

static inline int f_prog_create(const struct devrule_list *l, char *log, size_t n)
{
	if (faulty(OP_PROG_CREATE)) {
		snprintf(log, n, "0: (b7) r0 = 1\nR0 !read_ok\n");
		return -1;
	}
	return devprog_create(l, log, n);
}

static inline int f_prog_attach(int prog_fd, int cg_fd)
{
	return faulty(OP_PROG_ATTACH) ? -1 : devprog_attach(prog_fd, cg_fd);
}

static inline int f_marker_create(const char *path)
{
	return faulty(OP_MARKER_CREATE) ? -1 :
	       jobct_real_ops.marker_create(path);
}

static inline int f_marker_stat(const char *path, struct stat *st)
{
	return faulty(OP_MARKER_STAT) ? -1 :
	       jobct_real_ops.marker_stat(path, st);
}

static inline int f_extern_pids(uint32_t job_id, pid_t *pids, size_t max)
{
	(void)job_id;
	if (faulty(OP_EXTERN_PIDS))
		return -1;
	if (max && adopt_pid)
		pids[0] = adopt_pid;
	return adopt_pid ? 1 : 0;
}

static inline int f_prog_find(int cg_fd)
{
	return faulty(OP_PROG_FIND) ? -1 : devprog_find_attached(cg_fd);
}

/* The caller's cgroup: self_path when set, else the real one. */
static inline int f_self_cgroup(char *buf, size_t size)
{
	if (faulty(OP_SELF_CGROUP))
		return -1;
	if (!self_path[0])
		return cgroup2_proc_path(NULL, buf, size);
	snprintf(buf, size, "%s", self_path);
	return 0;
}

/*
 * The fake switch: runs the plan's maker here (it must be called, once)
 * and reports fake_imex_channel as what it made in the namespace.
 */
static inline int f_imex_make(const char *b, uint32_t job_id, uint32_t major,
			      nsimex_make_fn make, void *arg,
			      uint32_t *channel, struct report *r)
{
	(void)b;
	(void)job_id;
	fake_imex_major = major;
	if (faulty(OP_IMEX_MAKE))
		return report_errno(r, errno, "the switch plugin could not make it");
	if (!ns_exists) {
		errno = ENOENT;
		return report_errno(r, errno, "no namespace");
	}
	if (make(arg) < 0)
		return report_error(r, "the maker failed");
	if (fake_imex_channel < 0)
		return 0;
	*channel = (uint32_t)fake_imex_channel;
	return 1;
}

static const struct jobct_ops faulty_ops = {
	.ns_create = f_ns_create,
	.ns_join = f_ns_join,
	.ns_delete = f_ns_delete,
	.ns_delete_behind = f_ns_delete,
	.pidns_create = f_pidns_create,
	.pidns_contains_self = f_pidns_contains_self,
	.pidns_fork_inside = f_pidns_fork_inside,
	.userns_create = f_userns_create,
	.userns_open = f_userns_open,
	.userns_enter = f_userns_enter,
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
	.job_project = f_job_project,
	.job_limit = f_job_limit,
	.imex_make = f_imex_make,
};

/* ---- the scratch node -------------------------------------------------- */

static inline void write_file(const char *path, const char *text)
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
static const char *proc_devices;	/* NULL: the machine's */

/* A fake mountinfo with the given layout, for load(). */
static inline void fake_layout(const char *name, const char *text)
{
	static char path[160];

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	write_file(path, text);
	mountinfo = path;
}

#define MI_V1 "36 31 0:33 / /sys/fs/cgroup/devices rw - cgroup cgroup rw,devices\n"
#define MI_V2 "25 1 0:22 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"

static inline void write_conf(const char *extra)
{
	char text[2048];

	snprintf(text, sizeof(text), "BasePath=%s\nAutoBasePath=yes\n%s\n",
		 base, extra);
	write_file(conf_path, text);
}

static inline struct jobct_node *load(const struct jobct_ops *ops)
{
	struct jobct_node_args args = {
		.mountinfo = mountinfo,
		.conf_path = conf_path,
		.node_name = node_name,
		.spool_dir = spool,
		.make_base_path = true,
		.cgroup_root = cg_mount,
		.dev_dir = tmp,		/* where the fake GPUs are */
		.proc_devices = proc_devices,
		.ops = ops,
	};

	return jobct_node_load(&args, fresh());
}

/* The job's cgroup, as a path, for checks from outside. */
static inline void job_cgroup(char *buf, size_t len, uint32_t job_id)
{
	snprintf(buf, len, "%s/devns/%s/job_%u", cg_mount, node_name, job_id);
}

static inline bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static inline bool cgroup_exists(uint32_t job_id)
{
	char path[PATH_MAX];

	job_cgroup(path, sizeof(path), job_id);
	return exists(path);
}

static inline bool marker_exists(uint32_t job_id)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/devns_filter_%u", spool, job_id);
	return exists(path);
}

/* The job's record as setup left it ("(none)": no record). */
static inline const char *marker_text(uint32_t job_id)
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
static inline bool nothing_left(uint32_t job_id)
{
	return !cgroup_exists(job_id) && !marker_exists(job_id) && !ns_exists;
}

static const char *const node_gpus[] = { gpu0, gpu1, NULL };
static const char *const job_gpu0[] = { gpu0, NULL };

static inline struct jobct_plan plan_for(const struct jobct_node *node,
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
/* In a forked child: open both GPUs, exit with their errnos packed. */
static inline void exit_with_gpu_opens(void)
{
	int e0 = 0, e1 = 0, fd;

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

/*
 * Waits for the child pid of exit_with_gpu_opens: its errnos unpacked,
 * 0; its own exit code when it is from fail to fail_max (it failed before
 * the opens); -1 when it did not exit.
 */
static inline int wait_gpu_opens(pid_t pid, int fail, int fail_max,
				 int *err0, int *err1)
{
	int status, code;

	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	code = WEXITSTATUS(status);
	if (code >= fail && code <= fail_max)
		return code;
	*err0 = code >> 4;
	*err1 = code & 0xf;
	return 0;
}

static inline int child_opens(const struct jobct_node *node, uint32_t job_id,
			      int *err0, int *err1)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (jobct_join(node, job_id, NULL) < 0)
			_exit(99);
		exit_with_gpu_opens();
	}
	return wait_gpu_opens(pid, 99, 99, err0, err1);
}

/* The notices a report made (the log's lines at its default level). */
static char notices[2048];

static inline void note(enum report_level level, const char *msg, void *arg)
{
	size_t n = strlen(notices);

	(void)arg;
	if (level == REPORT_NOTICE)
		snprintf(notices + n, sizeof(notices) - n, "%s\n", msg);
}

/* fresh(), collecting its notices in notices[]. */
static inline struct report *noting(void)
{
	notices[0] = '\0';
	report_init(&rep, note, NULL);
	return &rep;
}

/*
 * Whether pid ends within ms; a child still alive then is killed and
 * reaped, so a broken release cannot hang the test.
 */
static inline bool reaped_within(pid_t pid, int ms)
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

static inline bool none_alive(uint32_t job_id, void *arg)
{
	(void)job_id;
	(void)arg;
	return false;
}

/* ---- the unified layout's scratch scope ------------------------------- */

static char scope[64];		/* "ut<pid>_slurmstepd.scope" below cg_mount */

/* Root, cgroup2 and bpf, or the reason they are missing. */
static inline const char *missing(void)
{
	enum cgroup2_layout layout;

	if (!tap_root())
		return "needs root";
	if (cgroup2_probe(NULL, &layout, cg_mount, sizeof(cg_mount)) < 0 ||
	    !cg_mount[0])
		return "no cgroup2 mount";
	if (devprog_probe() < 0)
		return "no BPF cgroup-device programs";
	return NULL;
}

static inline int make_scratch(void)
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

static inline void remove_scratch(void)
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

/*
 * The start of a test program's main: 1 when the scratch node is made and
 * the tests may run, 0 when the program is skipped (the reason on stdout),
 * -1 when it must bail out.
 */
static inline int scratch_begin(void)
{
	const char *why = missing();

	if (why) {
		printf("1..0 # SKIP %s\n", why);
		return 0;
	}
	if (make_scratch() < 0) {
		printf("Bail out! scratch directory: %s\n", strerror(errno));
		return -1;
	}
	return 1;
}

#endif /* DEVNS_JOBCT_FIXTURE_H */
