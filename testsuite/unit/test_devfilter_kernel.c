/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_devfilter_kernel.c - devfilter against the real kernel: load the
 * filter, attach it to a fresh cgroup-v2 directory, and let a forked child
 * that moved itself there open and mknod device nodes.
 *
 * Device nodes are mknod()ed in a temporary directory.  NVIDIA's major 195
 * has no driver here, so an open the filter allows fails with ENXIO (the
 * driver is missing) and one it denies fails with EPERM (the filter): the
 * errno tells which layer answered.  The same holds for block major 240.
 * Also checked: composition with a second program on the same cgroup, a
 * program on the parent and a cgroup v1 devices controller (all must
 * allow), detaching exactly one program,
 * reopening a program by id (the restore path), the verifier log on a
 * rejected program, and that no program is left once fds, attachments and
 * cgroups are gone.  Skipped (tap_skip) without root, cgroup2 or bpf.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dev/bpfsys.h"
#include "dev/cgroup2.h"
#include "dev/devfilter.h"
#include "dev/devinspect.h"
#include "dev/devprog.h"
#include "bpfinspect.h"
#include "dev/devpolicy.h"
#include "tap.h"

#define KTESTS 92

static char tmpdir[] = "/tmp/test_devfilter_k.XXXXXX";
/* cgroup.procs of a v1 devices cgroup the child also joins, when set. */
static char v1_procs[PATH_MAX];
static char gpu[3][PATH_MAX], blk[2][PATH_MAX], nullclone[PATH_MAX];

enum op_kind { OPEN, MKNOD };

struct op {
	const char *what;
	enum op_kind kind;
	const char *path;
	int flags;        /* open flags, or S_IFCHR/S_IFBLK for mknod */
	dev_t dev;        /* mknod only */
	int want;         /* errno, 0 for success */
};

/*
 * Forks a child that moves itself into cg_fd and runs the ops; returns the
 * number of ops whose errno differs from want (each one is diag()ed).
 */
static int run_in_cgroup(int cg_fd, const struct op *ops, size_t nops,
			 const char *label)
{
	int res[32], p[2], bad = 0, status;
	pid_t pid;
	size_t i;

	if (nops > 32 || pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		if (cgroup2_move_pid(cg_fd, 0) < 0)
			_exit(3);
		if (*v1_procs) {
			FILE *f = fopen(v1_procs, "w");

			if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 ||
			    fclose(f) != 0)
				_exit(5);
		}
		for (i = 0; i < nops; i++) {
			int rc;

			errno = 0;
			if (ops[i].kind == OPEN) {
				rc = open(ops[i].path, ops[i].flags | O_CLOEXEC);
				if (rc >= 0)
					close(rc);
			} else {
				unlink(ops[i].path);
				rc = mknod(ops[i].path, (mode_t)ops[i].flags | 0600,
					   ops[i].dev);
			}
			res[i] = rc < 0 ? errno : 0;
		}
		if (write(p[1], res, nops * sizeof(int)) !=
		    (ssize_t)(nops * sizeof(int)))
			_exit(4);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], res, nops * sizeof(int)) != (ssize_t)(nops * sizeof(int))) {
		diag("%s: child failed", label);
		bad = (int)nops;
	}
	close(p[0]);
	waitpid(pid, &status, 0);
	for (i = 0; !bad && i < nops; i++) {
		if (res[i] != ops[i].want) {
			diag("%s: %s: got %s, want %s", label, ops[i].what,
			     res[i] ? strerror(res[i]) : "success",
			     ops[i].want ? strerror(ops[i].want) : "success");
			bad++;
		}
	}
	return bad;
}

static int make_nodes(void)
{
	int i;

	if (!mkdtemp(tmpdir))
		return -1;
	for (i = 0; i < 3; i++) {
		snprintf(gpu[i], sizeof(gpu[i]), "%s/nvidia%d", tmpdir, i);
		if (mknod(gpu[i], S_IFCHR | 0600, makedev(195, i)) < 0)
			return -1;
	}
	for (i = 0; i < 2; i++) {
		snprintf(blk[i], sizeof(blk[i]), "%s/blk%d", tmpdir, i);
		if (mknod(blk[i], S_IFBLK | 0600, makedev(240, i)) < 0)
			return -1;
	}
	snprintf(nullclone, sizeof(nullclone), "%s/null", tmpdir);
	return mknod(nullclone, S_IFCHR | 0666, makedev(1, 3));
}

static void remove_nodes(void)
{
	char path[PATH_MAX + 16];
	int i;

	for (i = 0; i < 3; i++)
		unlink(gpu[i]);
	for (i = 0; i < 2; i++)
		unlink(blk[i]);
	unlink(nullclone);
	snprintf(path, sizeof(path), "%s/new0", tmpdir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/new2", tmpdir);
	unlink(path);
	rmdir(tmpdir);
}

/* Loads list, checking it worked; returns the fd and its id. */
static int load(const struct devrule_list *l, uint32_t *id, const char *what)
{
	static char log[65536];
	int fd = devprog_create(l, log, sizeof(log));

	if (!ok(fd >= 0, "%s: loaded", what))
		diag("%s\n%s", strerror(errno), log);
	if (fd >= 0 && devinspect_prog_id(fd, id) < 0)
		*id = 0;
	return fd;
}

/* Waits up to TAP_WAIT_MS for a program to be freed (cgroup release is
 * asynchronous in the kernel). */
static int gone_soon(uint32_t id)
{
	int i;

	for (i = 0; i < TAP_WAIT_MS / 10; i++) {
		int alive = bpfinspect_prog_alive(id);

		if (alive <= 0)
			return alive == 0;
		usleep(10000);
	}
	return 0;
}

static void test_kernel(int mount_fd)
{
	char top[64], new0[PATH_MAX + 16], new2[PATH_MAX + 16];
	struct devrule_list a, b, c;
	uint32_t ida = 0, idb = 0, idc = 0, ids[4];
	int top_fd, cg_fd, fa, fb, fc, n;

	snprintf(new0, sizeof(new0), "%s/new0", tmpdir);
	snprintf(new2, sizeof(new2), "%s/new2", tmpdir);
	snprintf(top, sizeof(top), "devns-ktest-%d", (int)getpid());
	top_fd = cgroup2_open_at(mount_fd, top, true);
	cg_fd = top_fd >= 0 ? cgroup2_open_at(top_fd, "job_1", true) : -1;
	ok(cg_fd >= 0, "fresh cgroup %s/job_1", top);

	/* A: strict-like list, default deny. */
	devrule_list_init(&a, false);
	devrule_list_add(&a, 'c', 195, 0, false, DEVRULE_RWM);
	devrule_list_add(&a, 'c', 195, 2, false, DEVRULE_R);
	devrule_list_add(&a, 'c', 1, 3, false, DEVRULE_R | DEVRULE_W);
	devrule_list_add(&a, 'b', 240, 0, false, DEVRULE_R);
	devrule_list_normalise(&a);
	fa = load(&a, &ida, "list A (4 rules, default deny)");
	ok(devprog_attach(fa, cg_fd) == 0, "A attached");
	n = devinspect_query(cg_fd, ids, 4, NULL);
	ok(n == 1 && ids[0] == ida, "query: A is the one program attached");
	errno = 0;
	if (!ok(devprog_attach(fa, cg_fd) == -1 && errno == EINVAL,
		"attaching A twice: EINVAL"))
		diag("errno %s", strerror(errno));
	{
		const struct op ops[] = {
			{ "open 195:0 rw (rwm)", OPEN, gpu[0], O_RDWR, 0, ENXIO },
			{ "open 195:1 rw (not listed)", OPEN, gpu[1], O_RDWR, 0, EPERM },
			{ "open 195:2 r (r)", OPEN, gpu[2], O_RDONLY, 0, ENXIO },
			{ "open 195:2 w (r)", OPEN, gpu[2], O_WRONLY, 0, EPERM },
			{ "open 195:2 rw (r)", OPEN, gpu[2], O_RDWR, 0, EPERM },
			{ "open /dev/null rw", OPEN, "/dev/null", O_RDWR, 0, 0 },
			{ "open /dev/zero r", OPEN, "/dev/zero", O_RDONLY, 0, EPERM },
			{ "open a 1:3 clone r", OPEN, nullclone, O_RDONLY, 0, 0 },
			{ "mknod 195:0 (m)", MKNOD, new0, S_IFCHR, makedev(195, 0), 0 },
			{ "mknod 195:2 (no m)", MKNOD, new2, S_IFCHR, makedev(195, 2), EPERM },
			{ "mknod 1:3 (no m)", MKNOD, new2, S_IFCHR, makedev(1, 3), EPERM },
			{ "open block 240:0 r", OPEN, blk[0], O_RDONLY, 0, ENXIO },
			{ "open block 240:0 w", OPEN, blk[0], O_WRONLY, 0, EPERM },
			{ "open block 240:1 r", OPEN, blk[1], O_RDONLY, 0, EPERM },
		};
		is_int(run_in_cgroup(cg_fd, ops, sizeof(ops) / sizeof(*ops), "A"),
		       0, "A: allowed opens reach the driver (ENXIO), denied ones get EPERM, mknod needs m");
	}

	ok(devprog_detach(fa, cg_fd) == 0, "A detached");
	ok(devinspect_query(cg_fd, ids, 4, NULL) == 0, "query: nothing attached");
	errno = 0;
	ok(devprog_detach(fa, cg_fd) == -1 && errno == ENOENT,
	   "detaching again: ENOENT");
	{
		const struct op ops[] = {
			{ "open 195:1 rw", OPEN, gpu[1], O_RDWR, 0, ENXIO },
			{ "open /dev/zero r", OPEN, "/dev/zero", O_RDONLY, 0, 0 },
		};
		is_int(run_in_cgroup(cg_fd, ops, 2, "none"), 0,
		       "without a program everything reaches the driver");
	}

	/* B: auto with GRES: default allow, 195:1 denied. */
	devrule_list_init(&b, true);
	devrule_list_add(&b, 'c', 195, 1, false, 0);
	fb = load(&b, &idb, "list B (default allow, one GPU denied)");
	ok(devprog_attach(fb, cg_fd) == 0, "B attached");
	{
		const struct op ops[] = {
			{ "open 195:0 rw", OPEN, gpu[0], O_RDWR, 0, ENXIO },
			{ "open 195:1 r", OPEN, gpu[1], O_RDONLY, 0, EPERM },
			{ "mknod 195:1", MKNOD, new2, S_IFCHR, makedev(195, 1), EPERM },
			{ "open /dev/zero r", OPEN, "/dev/zero", O_RDONLY, 0, 0 },
			{ "open block 240:1 r", OPEN, blk[1], O_RDONLY, 0, ENXIO },
		};
		is_int(run_in_cgroup(cg_fd, ops, 5, "B"), 0,
		       "B: only the denied GPU is refused");
	}

	/* A and B on the same cgroup (ALLOW_MULTI): both must allow. */
	ok(devprog_attach(fa, cg_fd) == 0, "A attached beside B");
	n = devinspect_query(cg_fd, ids, 4, NULL);
	is_int(n, 2, "query: two programs");
	{
		const struct op ops[] = {
			{ "open 195:0 rw (A and B allow)", OPEN, gpu[0], O_RDWR, 0, ENXIO },
			{ "open 195:1 r (both deny)", OPEN, gpu[1], O_RDONLY, 0, EPERM },
			{ "open /dev/zero r (A denies)", OPEN, "/dev/zero", O_RDONLY, 0, EPERM },
			{ "open 195:2 r (A r, B all)", OPEN, gpu[2], O_RDONLY, 0, ENXIO },
			{ "open /dev/null rw", OPEN, "/dev/null", O_RDWR, 0, 0 },
		};
		is_int(run_in_cgroup(cg_fd, ops, 5, "A+B"), 0,
		       "A+B: the intersection applies");
	}
	ok(devprog_detach(fb, cg_fd) == 0, "B detached, A stays");
	n = devinspect_query(cg_fd, ids, 4, NULL);
	ok(n == 1 && ids[0] == ida, "query: exactly A is left");

	/* C on the parent denies /dev/null: the child cgroup inherits it. */
	devrule_list_init(&c, false);
	devrule_list_add(&c, 'c', 195, 0, true, DEVRULE_RWM);
	devrule_list_add(&c, 'b', 240, 0, true, DEVRULE_RWM);
	fc = load(&c, &idc, "list C (wildcards only)");
	ok(devprog_attach(fc, top_fd) == 0, "C attached to the parent cgroup");
	{
		const struct op ops[] = {
			{ "open /dev/null r (C denies)", OPEN, "/dev/null", O_RDONLY, 0, EPERM },
			{ "open 195:0 rw (A, C allow)", OPEN, gpu[0], O_RDWR, 0, ENXIO },
			{ "open 195:2 w (A denies)", OPEN, gpu[2], O_WRONLY, 0, EPERM },
			{ "open block 240:0 r", OPEN, blk[0], O_RDONLY, 0, ENXIO },
		};
		is_int(run_in_cgroup(cg_fd, ops, 4, "A+parent C"), 0,
		       "parent's program applies too (Slurm's job cgroup case)");
	}
	ok(devprog_detach(fc, top_fd) == 0, "C detached from the parent");

	/* Restore path: find A by id, reopen it, detach it with the new fd. */
	close(fa);
	fa = devinspect_prog_open(ida);
	ok(fa >= 0, "A reopened by id %u after its fd was closed", ida);
	ok(devprog_detach(fa, cg_fd) == 0 &&
	   devinspect_query(cg_fd, ids, 4, NULL) == 0,
	   "A detached through the reopened fd");

	/* Everything released: the programs are gone. */
	close(fa);
	close(fb);
	close(fc);
	ok(bpfinspect_prog_alive(ida) == 0 && bpfinspect_prog_alive(idb) == 0 &&
	   bpfinspect_prog_alive(idc) == 0,
	   "after detach and close, programs %u %u %u are gone", ida, idb, idc);

	/* A program left attached goes with its cgroup. */
	fa = load(&a, &ida, "A again");
	ok(devprog_attach(fa, cg_fd) == 0, "A attached and its fd closed");
	close(fa);
	ok(bpfinspect_prog_alive(ida) == 1, "the cgroup keeps it loaded");
	close(cg_fd);
	ok(cgroup2_remove(top_fd, "job_1") == 0, "job cgroup removed with A on it");
	ok(gone_soon(ida), "A is freed with its cgroup");

	close(top_fd);
	ok(cgroup2_remove(mount_fd, top) == 0, "test cgroup removed");
	devrule_list_free(&a);
	devrule_list_free(&b);
	devrule_list_free(&c);
}

/*
 * The attack end to end: DevicePolicy=closed with DeviceAllow naming the
 * class that covers every GPU (char-nvidia-frontend, major 195), on a node
 * whose GRES are the three GPUs; the job holds nvidia1.  In the kernel the
 * job opens its own GPU and nvidiactl (195:255, no GRES: the class's rw),
 * and not the two others.
 */
static void test_gres_class(int mount_fd)
{
	const char *node[] = { gpu[0], gpu[1], gpu[2], NULL };
	const char *job[] = { gpu[1], NULL };
	char proc_devices[PATH_MAX + 16], ctl[PATH_MAX + 16], top[64];
	char new1[PATH_MAX + 16];
	struct devpolicy policy;
	struct devrule_list l;
	struct report rep;
	uint32_t id = 0;
	int top_fd, cg_fd, fd = -1;
	FILE *f;

	snprintf(proc_devices, sizeof(proc_devices), "%s/devices", tmpdir);
	snprintf(ctl, sizeof(ctl), "%s/nvidiactl", tmpdir);
	snprintf(new1, sizeof(new1), "%s/new1", tmpdir);
	f = fopen(proc_devices, "w");
	ok(f && fputs("Character devices:\n  1 mem\n136 pts\n195 nvidia-frontend\n\nBlock devices:\n",
		      f) >= 0 && fclose(f) == 0 &&
	   mknod(ctl, S_IFCHR | 0600, makedev(195, 255)) == 0,
	   "fake /proc/devices and nvidiactl (195:255)");
	report_init(&rep, NULL, NULL);
	ok(devpolicy_load_lines(&policy, DEVPOLICY_CLOSED,
				&(struct devpolicy_allow){
					.value = "char-nvidia-frontend:rw",
					.where = "namespace.conf:3" },
				1, proc_devices, &rep) == 0 &&
	   devpolicy_build(&policy, node, job, &l, &rep) == 0,
	   "closed, DeviceAllow=char-nvidia-frontend:rw, job holds nvidia1: %s",
	   rep.msg);
	snprintf(top, sizeof(top), "devns-gresclass-%d", (int)getpid());
	top_fd = cgroup2_open_at(mount_fd, top, true);
	cg_fd = top_fd >= 0 ? cgroup2_open_at(top_fd, "job_1", true) : -1;
	fd = load(&l, &id, "the job's list");
	ok(fd >= 0 && cg_fd >= 0 && devprog_attach(fd, cg_fd) == 0,
	   "attached to %s/job_1", top);
	{
		const struct op ops[] = {
			{ "open nvidia0 r (not the job's)", OPEN, gpu[0], O_RDONLY, 0, EPERM },
			{ "open nvidia2 rw (not the job's)", OPEN, gpu[2], O_RDWR, 0, EPERM },
			{ "open nvidia1 rw (the job's)", OPEN, gpu[1], O_RDWR, 0, ENXIO },
			{ "mknod 195:1 (the job's: rwm)", MKNOD, new1, S_IFCHR, makedev(195, 1), 0 },
			{ "mknod 195:0 (not the job's)", MKNOD, new1, S_IFCHR, makedev(195, 0), EPERM },
			{ "open nvidiactl rw (the class)", OPEN, ctl, O_RDWR, 0, ENXIO },
			{ "open /dev/null rw (closed's)", OPEN, "/dev/null", O_RDWR, 0, 0 },
		};
		is_int(run_in_cgroup(cg_fd, ops, sizeof(ops) / sizeof(*ops),
				     "GRES under a class"),
		       0, "a class covering the GPUs opens only the job's own GPU, and nvidiactl");
	}
	if (fd >= 0)
		close(fd);
	if (cg_fd >= 0)
		close(cg_fd);
	if (top_fd >= 0) {
		cgroup2_remove(top_fd, "job_1");
		close(top_fd);
	}
	cgroup2_remove(mount_fd, top);
	devrule_list_free(&l);
	devpolicy_free(&policy);
	unlink(new1);
	unlink(ctl);
	unlink(proc_devices);
}

#define V1_DEVICES "/sys/fs/cgroup/devices"

/* Writes one line to a cgroup v1 control file. */
static int v1_write(const char *dir, const char *file, const char *text)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (!(f = fopen(path, "w")))
		return -1;
	if (fputs(text, f) < 0) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

/*
 * Slurm's ConstrainDevices on cgroup v1 (the devices controller) and our
 * program on cgroup v2 both judge every access: the intersection applies.
 */
static void test_v1(int mount_fd)
{
	char top[64], v1dir[256];
	struct devrule_list a;
	struct stat st;
	uint32_t id;
	int cg, fd;

	if (stat(V1_DEVICES "/devices.deny", &st) < 0) {
		tap_skip("no cgroup v1 devices controller at %s", V1_DEVICES);
		tap_skip("no cgroup v1 devices controller at %s", V1_DEVICES);
		tap_skip("no cgroup v1 devices controller at %s", V1_DEVICES);
		return;
	}
	snprintf(v1dir, sizeof(v1dir), "%s/devns-ktest-%d", V1_DEVICES,
		 (int)getpid());
	snprintf(top, sizeof(top), "devns-ktest-v1-%d", (int)getpid());
	ok((mkdir(v1dir, 0755) == 0 || errno == EEXIST) &&
	   v1_write(v1dir, "devices.deny", "c 195:0 rwm") == 0,
	   "v1 devices cgroup denying 195:0 made");
	cg = cgroup2_open_at(mount_fd, top, true);
	devrule_list_init(&a, false);
	devrule_list_add(&a, 'c', 195, 0, false, DEVRULE_RWM);
	devrule_list_add(&a, 'c', 195, 2, false, DEVRULE_R);
	fd = load(&a, &id, "v2 list allowing 195:0 and 195:2");
	devprog_attach(fd, cg);
	snprintf(v1_procs, sizeof(v1_procs), "%s/cgroup.procs", v1dir);
	{
		const struct op ops[] = {
			{ "open 195:0 (v2 allows, v1 denies)", OPEN, gpu[0], O_RDWR, 0, EPERM },
			{ "open 195:2 r (both allow)", OPEN, gpu[2], O_RDONLY, 0, ENXIO },
			{ "open 195:1 (v1 allows, v2 denies)", OPEN, gpu[1], O_RDONLY, 0, EPERM },
		};
		is_int(run_in_cgroup(cg, ops, 3, "v1+v2"), 0,
		       "v1 ConstrainDevices and the v2 program: both must allow");
	}
	v1_procs[0] = '\0';
	devprog_detach(fd, cg);
	close(fd);
	close(cg);
	cgroup2_remove(mount_fd, top);
	rmdir(v1dir);
	devrule_list_free(&a);
}

/* Attaches with explicit flags, as Slurm's cgroup/v2 does (test only). */
static int attach_flags(int prog_fd, int cg_fd, unsigned flags)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.target_fd = (uint32_t)cg_fd;
	attr.attach_bpf_fd = (uint32_t)prog_fd;
	attr.attach_type = BPF_CGROUP_DEVICE;
	attr.attach_flags = flags;
	return (int)syscall(__NR_bpf, BPF_PROG_ATTACH, &attr, sizeof(attr));
}

/*
 * Slurm's cgroup/v2 (22.05 to 25.x) attaches its device program to the job
 * cgroup with BPF_F_ALLOW_OVERRIDE and to leaf cgroups with no flag.  The
 * kernel allows one attach mode per cgroup, so our ALLOW_MULTI program
 * cannot share Slurm's job cgroup (and, attached first, would make Slurm's
 * attach fail); on an ancestor it composes with Slurm's leaf program.
 */
static void test_slurm_v2_flags(int mount_fd)
{
	char top[64];
	struct devrule_list slurm, ours;
	uint32_t id;
	int g, job, leaf, fs_job, fs_leaf, fo;

	snprintf(top, sizeof(top), "devns-ktest-flags-%d", (int)getpid());
	g = cgroup2_open_at(mount_fd, top, true);
	job = cgroup2_open_at(g, "job_1", true);
	leaf = cgroup2_open_at(job, "step_0", true);
	devrule_list_init(&slurm, false); /* Slurm: the GPU and /dev/null */
	devrule_list_add(&slurm, 'c', 195, 0, false, DEVRULE_RWM);
	devrule_list_add(&slurm, 'c', 1, 3, false, DEVRULE_RWM);
	devrule_list_init(&ours, false);  /* ours: the GPU only */
	devrule_list_add(&ours, 'c', 195, 0, false, DEVRULE_RWM);
	fs_job = devprog_create(&slurm, NULL, 0);
	fs_leaf = devprog_create(&slurm, NULL, 0);
	fo = load(&ours, &id, "v2 flags: our program");

	ok(attach_flags(fs_job, job, BPF_F_ALLOW_OVERRIDE) == 0 &&
	   devprog_attach(fo, job) == -1 && errno == EPERM,
	   "job cgroup with an ALLOW_OVERRIDE program refuses ours: EPERM");
	ok(devprog_attach(fo, g) == 0 && attach_flags(fs_leaf, leaf, 0) == 0,
	   "ours on the parent, Slurm's (no flag) on the leaf: both attach");
	{
		const struct op ops[] = {
			{ "open /dev/null (Slurm allows, ours denies)", OPEN, "/dev/null", O_RDONLY, 0, EPERM },
			{ "open 195:0 (both allow)", OPEN, gpu[0], O_RDWR, 0, ENXIO },
		};
		is_int(run_in_cgroup(leaf, ops, 2, "v2 flags"), 0,
		       "in Slurm's leaf both programs apply");
	}
	close(fs_job);
	close(fs_leaf);
	close(fo);
	close(leaf);
	close(job);
	{
		int j = cgroup2_open_at(g, "job_1", false);

		cgroup2_remove(j, "step_0");
		close(j);
	}
	cgroup2_remove(g, "job_1");
	close(g);
	cgroup2_remove(mount_fd, top);
	devrule_list_free(&slurm);
	devrule_list_free(&ours);
}

static void test_log(void)
{
	/* Exits without setting r0: the verifier must refuse it. */
	struct bpf_insn bad[1];
	char log[4096];
	int fd;

	memset(bad, 0, sizeof(bad));
	bad[0].code = BPF_JMP | BPF_EXIT;
	errno = 0;
	fd = devprog_load(bad, 1, log, sizeof(log));
	ok(fd == -1 && errno == EACCES, "a bad program is refused (%s)",
	   strerror(errno));
	like(log, "R0 !read_ok", "the verifier's reason is in the log");
	errno = 0;
	fd = devprog_load(bad, 1, NULL, 0);
	ok(fd == -1 && errno == EACCES, "refused without a log too");
}

/* A rule list as devns show prints it: "c 1:3 rw; ...; default deny". */
static void list_text(const struct devrule_list *l, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < l->count && n < len; i++) {
		n += (size_t)devrule_format(&l->rules[i], buf + n, len - n);
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, "; ");
	}
	if (n < len)
		snprintf(buf + n, len - n, "default %s",
			 l->default_allow ? "allow" : "deny");
}

/* Loads list, reads it back, compares; returns the program fd. */
static int read_back(struct devrule_list *l, const char *what)
{
	char want[512], got[512];
	struct devrule_list back;
	uint32_t id;
	int fd;

	devrule_list_normalise(l);
	list_text(l, want, sizeof(want));
	if ((fd = load(l, &id, what)) < 0)
		return -1;
	ok(devinspect_rules(fd, &back) == 0, "%s: read back", what);
	list_text(&back, got, sizeof(got));
	is_str(got, want, "%s: the same rules and default", what);
	devrule_list_free(&back);
	return fd;
}

/* The rules of a loaded filter, read back from the kernel (devns show). */
static void test_read_back(int mount_fd)
{
	struct devrule_list l, back;
	struct bpf_insn insns[2];
	union bpf_attr attr;
	uint32_t ids[4], flags = 0;
	char top[64];
	int fd, top_fd, cg_fd, n;

	devrule_list_init(&l, false);
	devrule_list_add(&l, 'c', 195, 0, false, DEVRULE_RWM);
	devrule_list_add(&l, 'c', 1, 3, false, DEVRULE_R | DEVRULE_W);
	devrule_list_add(&l, 'c', 136, 0, true, DEVRULE_R | DEVRULE_W);
	devrule_list_add(&l, 'b', 240, 1, false, DEVRULE_R);
	fd = read_back(&l, "default deny, a wildcard");
	snprintf(top, sizeof(top), "devns-readback-%d", (int)getpid());
	top_fd = cgroup2_open_at(mount_fd, top, true);
	cg_fd = top_fd >= 0 ? cgroup2_open_at(top_fd, "job_1", true) : -1;
	ok(fd >= 0 && cg_fd >= 0 && devprog_attach(fd, cg_fd) == 0,
	   "attached to %s/job_1", top);
	n = devinspect_query(cg_fd, ids, 4, &flags);
	ok(n == 1 && flags == BPF_F_ALLOW_MULTI,
	   "query: one program, attached with BPF_F_ALLOW_MULTI");
	if (fd >= 0)
		close(fd);
	fd = n == 1 ? devinspect_prog_open(ids[0]) : -1;
	ok(fd >= 0 && devinspect_rules(fd, &back) == 0 && back.count == 4 &&
	   !back.default_allow, "the attached program, opened by its id, reads back");
	devrule_list_free(&back);
	if (fd >= 0)
		close(fd);
	if (cg_fd >= 0)
		close(cg_fd);
	if (top_fd >= 0) {
		cgroup2_remove(top_fd, "job_1");
		close(top_fd);
	}
	cgroup2_remove(mount_fd, top);
	devrule_list_free(&l);

	devrule_list_init(&l, true);
	devrule_list_add(&l, 'c', 195, 1, false, 0);
	devrule_list_add(&l, 'c', 195, 2, false, 0);
	if ((fd = read_back(&l, "default allow, two denials")) >= 0)
		close(fd);
	devrule_list_free(&l);
	devrule_list_init(&l, false);
	devrule_list_add(&l, 'c', 195, 0, true, DEVRULE_R | DEVRULE_W);
	devrule_list_add(&l, 'c', 195, 7, false, DEVRULE_M);
	devrule_list_pin(&l, 'c', 195, 0, 0);
	devrule_list_pin(&l, 'c', 195, 1, DEVRULE_RWM);
	if ((fd = read_back(&l, "a class with pinned GPUs")) >= 0) {
		struct devrule_list back;

		ok(devinspect_rules(fd, &back) == 0 && back.count == 4 &&
		   back.rules[1].pinned && !back.rules[2].pinned &&
		   !back.rules[3].pinned,
		   "the denied GPU reads back pinned, the others not");
		devrule_list_free(&back);
		close(fd);
	}
	devrule_list_free(&l);
	devrule_list_init(&l, true);
	if ((fd = read_back(&l, "no rules, default allow")) >= 0)
		close(fd);
	devrule_list_init(&l, false);
	if ((fd = read_back(&l, "no rules, default deny")) >= 0)
		close(fd);

	/* A program devfilter did not make: not read as one. */
	memset(insns, 0, sizeof(insns));
	insns[0].code = BPF_ALU64 | BPF_MOV | BPF_K;
	insns[0].imm = 1;
	insns[1].code = BPF_JMP | BPF_EXIT;
	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
	attr.insns = bpfsys_ptr(insns);
	attr.insn_cnt = 2;
	attr.license = bpfsys_ptr("GPL");
	memcpy(attr.prog_name, "other", sizeof("other"));
	fd = bpfsys_call(BPF_PROG_LOAD, &attr);
	errno = 0;
	ok(fd >= 0 && devinspect_rules(fd, &back) == -1 && errno == EMEDIUMTYPE &&
	   back.count == 0, "another program's rules are not read (EMEDIUMTYPE)");
	if (fd >= 0)
		close(fd);
}

/* The id of the program's map of denials, or 0. */
static uint32_t denied_map_id(int prog_fd)
{
	uint32_t ids[4] = { 0 };
	struct bpf_prog_info info;
	union bpf_attr attr;

	memset(&info, 0, sizeof(info));
	info.nr_map_ids = 4;
	info.map_ids = bpfsys_ptr(ids);
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = (uint32_t)prog_fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = bpfsys_ptr(&info);
	if (bpfsys_call(BPF_OBJ_GET_INFO_BY_FD, &attr) < 0)
		return 0;
	for (uint32_t i = 0; i < info.nr_map_ids && i < 4; i++) {
		struct bpf_map_info mi;
		int fd;

		memset(&attr, 0, sizeof(attr));
		attr.map_id = ids[i];
		if ((fd = bpfsys_call(BPF_MAP_GET_FD_BY_ID, &attr)) < 0)
			continue;
		memset(&mi, 0, sizeof(mi));
		memset(&attr, 0, sizeof(attr));
		attr.info.bpf_fd = (uint32_t)fd;
		attr.info.info_len = sizeof(mi);
		attr.info.info = bpfsys_ptr(&mi);
		if (bpfsys_call(BPF_OBJ_GET_INFO_BY_FD, &attr) == 0 &&
		    !strcmp(mi.name, DEVFILTER_DENIED_NAME)) {
			close(fd);
			return ids[i];
		}
		close(fd);
	}
	return 0;
}

/* Waits up to TAP_WAIT_MS for the map with that id to be freed. */
static int map_gone_soon(uint32_t id)
{
	for (int i = 0; i < TAP_WAIT_MS / 10; i++) {
		union bpf_attr attr;
		int fd;

		memset(&attr, 0, sizeof(attr));
		attr.map_id = id;
		if ((fd = bpfsys_call(BPF_MAP_GET_FD_BY_ID, &attr)) < 0)
			return errno == ENOENT;
		close(fd);
		usleep(10000);
	}
	return 0;
}

/* The denials of prog_fd as "c 195:1 r=3; ..." ("" for none). */
static int denials_text(int prog_fd, char *buf, size_t len)
{
	struct devinspect_denial *d;
	size_t k = 0;
	int n = devinspect_denials(prog_fd, &d);

	buf[0] = '\0';
	for (int i = 0; i < n && k < len; i++) {
		char one[64];

		devinspect_denial_format(&d[i], one, sizeof(one));
		k += (size_t)snprintf(buf + k, len - k, "%s%s=%llu",
				      i ? "; " : "", one,
				      (unsigned long long)d[i].count);
	}
	free(d);
	return n;
}

/*
 * Denied opens are counted per device and access, allowed ones not; the
 * counts read back (devns show, the log at the job's end); the map goes
 * with the program; a program made without counting says so (ENOENT).
 */
static void test_denials(int mount_fd)
{
	struct devrule_list a, b;
	struct devfilter_table t;
	struct bpf_insn *insns;
	struct devinspect_denial *d;
	char top[64], text[512];
	uint32_t id = 0, map_id;
	size_t count;
	int top_fd, cg_fd, fd, map_fd, n;

	snprintf(top, sizeof(top), "devns-denied-%d", (int)getpid());
	top_fd = cgroup2_open_at(mount_fd, top, true);
	cg_fd = top_fd >= 0 ? cgroup2_open_at(top_fd, "job_1", true) : -1;
	devrule_list_init(&a, false);
	devrule_list_add(&a, 'c', 195, 0, false, DEVRULE_RWM);
	devrule_list_add(&a, 'c', 195, 2, false, DEVRULE_R);
	devrule_list_add(&a, 'c', 1, 3, false, DEVRULE_R | DEVRULE_W);
	devrule_list_normalise(&a);
	fd = load(&a, &id, "counting: default deny");
	map_id = fd >= 0 ? denied_map_id(fd) : 0;
	ok(map_id != 0, "the program holds a map named " DEVFILTER_DENIED_NAME);
	n = denials_text(fd, text, sizeof(text));
	ok(n == 0, "nothing is counted before any open (%d: %s)", n, text);
	ok(cg_fd >= 0 && devprog_attach(fd, cg_fd) == 0, "attached to %s/job_1",
	   top);
	{
		const struct op ops[] = {
			{ "open 195:0 rw (allowed)", OPEN, gpu[0], O_RDWR, 0, ENXIO },
			{ "open 195:1 r (denied)", OPEN, gpu[1], O_RDONLY, 0, EPERM },
			{ "open 195:1 r again", OPEN, gpu[1], O_RDONLY, 0, EPERM },
			{ "open 195:1 r a third time", OPEN, gpu[1], O_RDONLY, 0, EPERM },
			{ "open 195:2 r (allowed)", OPEN, gpu[2], O_RDONLY, 0, ENXIO },
			{ "open 195:2 w (denied)", OPEN, gpu[2], O_WRONLY, 0, EPERM },
			{ "open /dev/null rw (allowed)", OPEN, "/dev/null", O_RDWR, 0, 0 },
			{ "open /dev/zero r (the default)", OPEN, "/dev/zero", O_RDONLY, 0, EPERM },
		};
		is_int(run_in_cgroup(cg_fd, ops, sizeof(ops) / sizeof(*ops),
				     "counted"),
		       0, "counting changes no verdict");
	}
	n = denials_text(fd, text, sizeof(text));
	if (n < 0)
		diag("reading the denials: %s", strerror(errno));
	is_str(text, "c 1:5 r=1; c 195:1 r=3; c 195:2 w=1",
	       "each denied device and access counted once per open, allowed opens not at all");
	n = devinspect_denials(fd, &d);
	ok(n == 3 && d[1].type == 'c' && d[1].major == 195 && d[1].minor == 1 &&
	   d[1].access == DEVRULE_R && d[1].count == 3,
	   "read back as entries: c 195:1, access r, count 3");
	free(d);
	/* Taken at the job's end: reported once, whoever reads second. */
	n = devinspect_take_denials(fd, &d);
	if (n < 0)
		diag("taking the denials: %s", strerror(errno));
	ok(n == 3 && d[1].minor == 1 && d[1].count == 3,
	   "taken: the same 3 entries, c 195:1 with count 3 (%d)", n);
	free(d);
	n = devinspect_take_denials(fd, &d);
	ok(n == 0 && d == NULL, "taken again: nothing (%d)", n);
	n = denials_text(fd, text, sizeof(text));
	ok(n == 0, "and nothing is left to read (%d: %s)", n, text);
	{
		const struct op ops[] = {
			{ "open 195:1 r (denied after the take)", OPEN, gpu[1], O_RDONLY, 0, EPERM },
		};
		is_int(run_in_cgroup(cg_fd, ops, 1, "counted after a take"), 0,
		       "the filter still denies after a take");
	}
	denials_text(fd, text, sizeof(text));
	is_str(text, "c 195:1 r=1", "a denial after the take is counted afresh");
	{
		struct devrule_list back;
		char want[512], got[512];

		list_text(&a, want, sizeof(want));
		ok(devinspect_rules(fd, &back) == 0, "the rules of a counting program read back");
		list_text(&back, got, sizeof(got));
		is_str(got, want, "the same rules beside the map of denials");
		devrule_list_free(&back);
	}
	/* The map goes with the program: detached, closed, cgroup gone. */
	ok(devprog_detach(fd, cg_fd) == 0, "detached");
	close(fd);
	ok(gone_soon(id) && map_gone_soon(map_id),
	   "program %u and its map of denials %u are freed together", id,
	   map_id);

	/* Default allow, one GPU denied: only its opens count. */
	devrule_list_init(&b, true);
	devrule_list_add(&b, 'c', 195, 1, false, 0);
	fd = load(&b, &id, "counting: default allow, 195:1 denied");
	ok(fd >= 0 && devprog_attach(fd, cg_fd) == 0, "attached");
	{
		const struct op ops[] = {
			{ "open 195:1 rw (denied)", OPEN, gpu[1], O_RDWR, 0, EPERM },
			{ "open 195:0 rw (allowed)", OPEN, gpu[0], O_RDWR, 0, ENXIO },
			{ "open /dev/zero r (allowed)", OPEN, "/dev/zero", O_RDONLY, 0, 0 },
		};
		is_int(run_in_cgroup(cg_fd, ops, 3, "counted, default allow"),
		       0, "default allow: the denied GPU still refused");
	}
	denials_text(fd, text, sizeof(text));
	is_str(text, "c 195:1 rw=1", "default allow: only the denied GPU's open counted");
	map_id = denied_map_id(fd);
	devprog_detach(fd, cg_fd);
	close(fd);
	close(cg_fd);
	cg_fd = -1;
	ok(cgroup2_remove(top_fd, "job_1") == 0 && gone_soon(id) &&
	   map_gone_soon(map_id), "with its cgroup gone, no program or map is left");

	/* A program made without counting (what an older devns made). */
	devfilter_table_build(&a, &t);
	map_fd = devprog_map_create(&t);
	fd = -1;
	if (map_fd >= 0 && devfilter_build(&t, map_fd, -1, &insns, &count) == 0) {
		fd = devprog_load(insns, count, NULL, 0);
		free(insns);
	}
	errno = 0;
	ok(fd >= 0 && devinspect_denials(fd, &d) == -1 && errno == ENOENT &&
	   d == NULL, "a program without counting: ENOENT");
	{
		struct devrule_list back;

		ok(fd >= 0 && devinspect_rules(fd, &back) == 0 &&
		   back.count == a.count, "and its rules read back as before");
		devrule_list_free(&back);
	}
	if (fd >= 0)
		close(fd);
	if (map_fd >= 0)
		close(map_fd);
	devfilter_table_free(&t);
	if (top_fd >= 0)
		close(top_fd);
	cgroup2_remove(mount_fd, top);
	devrule_list_free(&a);
	devrule_list_free(&b);
}

static void test_limits(void)
{
	struct devrule_list l;
	uint32_t id;
	size_t i;
	int fd;

	devrule_list_init(&l, false);
	for (i = 0; i < 5000; i++)
		devrule_list_add(&l, 'c', 1 + (uint32_t)i / 64,
				 (uint32_t)i % 64, false, DEVRULE_R);
	fd = load(&l, &id, "5000 rules");
	if (fd >= 0)
		close(fd);
	devrule_list_free(&l);
	ok(bpfinspect_prog_alive(id) == 0, "and gone after close");
}

int main(void)
{
	enum cgroup2_layout layout;
	char mount[PATH_MAX];
	int mount_fd = -1, before, after, i;
	const char *why = NULL;
	int err = 0;

	if (!tap_root())
		why = "needs root";
	else if (cgroup2_probe(NULL, &layout, mount, sizeof(mount)) < 0 ||
		 (mount_fd = cgroup2_open(mount)) < 0)
		why = "no usable cgroup2 mount", err = errno;
	else if (devprog_probe() < 0)
		why = "cannot load BPF cgroup-device programs", err = errno;
	else if (make_nodes() < 0)
		why = "cannot mknod test devices", err = errno;
	if (why) {
		diag("skipped: %s%s%s", why, err ? ": " : "",
		     err ? strerror(err) : "");
		for (i = 0; i < KTESTS; i++)
			tap_skip("%s", why);
		return tap_done();
	}
	before = bpfinspect_count_loaded();
	ok(before >= 0, "devns programs loaded before: %d", before);
	test_kernel(mount_fd);
	test_gres_class(mount_fd);
	test_v1(mount_fd);
	test_slurm_v2_flags(mount_fd);
	test_log();
	test_limits();
	test_read_back(mount_fd);
	test_denials(mount_fd);
	after = bpfinspect_count_loaded();
	/* Others may load devns programs meanwhile: the ids above decide. */
	diag("devns programs loaded after: %d", after);
	close(mount_fd);
	remove_nodes();
	return tap_done();
}
