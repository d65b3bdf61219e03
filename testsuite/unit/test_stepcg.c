/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_stepcg.c - the device filter's unified backend (job/stepcg.h): the
 * job's filter on Slurm's own step cgroups, in a scratch Slurm tree
 * "ut<pid>_slurmstepd.scope" below the cgroup2 mount, through the
 * lifecycle of jobct.h, on the scratch node of jobct_fixture.h.
 *
 * Needs root, cgroup2 and bpf; otherwise the whole file is skipped.
 */
#include "jobct_fixture.h"
#include "job/stepcg_int.h"

/* ---- the unified layout: Slurm's cgroup/v2 tree ------------------------- */


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
	pid_t pid;

	snprintf(rel, sizeof(rel), "%s/step_0/user/task_0", job_cg(job_id));
	slurm_cg(path, sizeof(path), rel, false);
	be_in(job_id, "step_0/slurm");
	if ((pid = fork()) == 0) {
		int cg;

		if (jobct_join(node, job_id, NULL) < 0)
			_exit(99);
		if ((cg = cgroup2_open(path)) < 0 || cgroup2_move_pid(cg, 0) < 0)
			_exit(98);
		exit_with_gpu_opens();
	}
	return wait_gpu_opens(pid, 98, 255, err0, err1);
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

/*
 * Where a process of job_id is, found in its cgroup self (the fake
 * self_cgroup of the node) as setup finds it.
 */
static int self_step(struct jobct_node *node, const char *self,
		     uint32_t job_id, uint64_t sluid, char *job,
		     size_t job_size, char *step, size_t step_size)
{
	int rc;

	snprintf(self_path, sizeof(self_path), "%s", self);
	rc = stepcg_self_step(node, job_id, sluid, job, job_size, step,
			      step_size, fresh());
	self_path[0] = '\0';
	return rc;
}

static void test_unified_parse(void)
{
	struct jobct_node *node = load_unified();
	char job[64], step[32];

	if (!node)
		return (void)ok(0, "load: %s", rep.msg);
	ok(self_step(node, "system.slice/n1_slurmstepd.scope/job_7/step_0/user/task_1",
		     7, 0, job, sizeof(job), step, sizeof(step)) == 0,
	   "a task's cgroup parses");
	is_str(job, "system.slice/n1_slurmstepd.scope/job_7", "  the job's");
	is_str(step, "step_0", "  the step");
	ok(self_step(node, "s/job_7/step_extern/slurm", 7, 0, job,
		     sizeof(job), step, sizeof(step)) == 0 &&
	   !strcmp(step, "step_extern"), "the extern stepd's parses");
	ok(self_step(node, "s/job_77/step_0/slurm", 7, 0, job, sizeof(job),
		     step, sizeof(step)) == -1 && errno == EINVAL,
	   "job_77 is not job_7");
	ok(self_step(node, "s/job_7", 7, 0, job, sizeof(job), step,
		     sizeof(step)) == -1, "a job without a step is not a step");
	ok(self_step(node, "user.slice/job_7x/step_0", 7, 0, job,
		     sizeof(job), step, sizeof(step)) == -1,
	   "job_7x is not job_7");
	ok(self_step(node, "a/job_7/step_0", 7, 0, job, 4, step,
		     sizeof(step)) == -1 && errno == ENAMETOOLONG,
	   "too long a path is an error");
	ok(self_step(node, "s/sEKNKTV3WPV500/step_0/user/task_0", 7,
		     UINT64_C(0xe9d67ad8f96d9400), job, sizeof(job), step,
		     sizeof(step)) == 0 && !strcmp(job, "s/sEKNKTV3WPV500") &&
	   !strcmp(step, "step_0"), "26.05: a cgroup named after the job's SLUID parses");
	ok(self_step(node, "s/sEKNKTV3WPV500/step_0/user/task_0", 7, 0, job,
		     sizeof(job), step, sizeof(step)) == -1 && errno == EINVAL,
	   "  not without the SLUID (slurmd's join passes 0)");
	ok(self_step(node, "s/sEKNKTV3WPV501/step_0", 7,
		     UINT64_C(0xe9d67ad8f96d9400), job, sizeof(job), step,
		     sizeof(step)) == -1, "  nor another job's SLUID");
	ok(self_step(node, "s/job_7/step_0", 7, UINT64_C(0xe9d67ad8f96d9400),
		     job, sizeof(job), step, sizeof(step)) == 0,
	   "  job_7 still parses with a SLUID given (CgroupJobIdPaths=yes)");
	jobct_node_free(node);
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
	int ready[2];
	char byte;

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
			/* The first line names the run (SLUID, start). */
			if (!fgets(text, sizeof(text), f) ||
			    !fgets(text, sizeof(text), f))
				text[0] = '\0';
			fclose(f);
		}
	}
	snprintf(path, sizeof(path), "%s/%s", scope, job_cg(190));
	is_str(text, path, "  holding the job's cgroup after its run's line");
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
	/* The task says when it is in its cgroup: no time window to miss. */
	if (pipe(ready) < 0)
		ready[0] = ready[1] = -1;
	if ((sleeper = fork()) == 0) {
		int cg = cgroup2_open(path);

		if (cg < 0 || cgroup2_move_pid(cg, 0) < 0)
			_exit(1);
		(void)!write(ready[1], "r", 1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	ok(sleeper > 0 && read(ready[0], &byte, 1) == 1 && kill(sleeper, 0) == 0,
	   "a task is still running, in its step's cgroup");
	close(ready[0]);
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

	/*
	 * Its extern stepd SIGKILLed: cgroup/v2's step_destroy never ran, so
	 * Slurm's cgroups of the job stay.  Restore takes devns's filter off
	 * them and removes the marker; the cgroups are Slurm's and stay.
	 */
	slurm_job_tree(198);
	be_in(198, "step_extern/slurm");
	plan = plan_for(node, 198);
	inject(OP_NONE, 0, 0);
	ok(jobct_setup(&plan, fresh()) == 0 && attached(198, "step_extern") == 1,
	   "precondition: job 198 set up, its filter on step_extern: %s", rep.msg);
	self_path[0] = '\0';
	ok(jobct_restore(node, none_alive, NULL, fresh()) == 0 &&
	   !marker_exists(198) && attached(198, "step_extern") == 0,
	   "restore of a job whose Slurm cgroups were left: filter detached, marker removed: %s",
	   rep.msg);
	slurm_job_tree_remove(198);

	/*
	 * A record that names no cgroup: empty (a stepd killed between
	 * creating and writing it) or another job's.  Kept, every restart
	 * would fail on it; the hybrid layout removes it too.
	 */
	{
		static const char *const bad[] = { "", "run 0 0\n", "run 0 0\nsystem.slice/x/job_198" };
		static const char *const what[] = { "empty", "a run line only", "another job's cgroup" };

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			char path[PATH_MAX];
			FILE *f;

			snprintf(path, sizeof(path), "%s/devns_filter_199", spool);
			if ((f = fopen(path, "w"))) {
				fputs(bad[i], f);
				fclose(f);
			}
			ok(marker_exists(199) && !strcmp(marker_text(199), bad[i]),
			   "precondition: a marker planted: %s", what[i]);
			ok(jobct_restore(node, none_alive, NULL, fresh()) == 0 &&
			   !marker_exists(199),
			   "  restore removes it: %s", rep.msg);
		}
	}
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
 * The attack (issue 42 item 4): an earlier run of job 195 whose release
 * could not detach (EBUSY) left its program, here one allowing every
 * device, on step_0; the next run of the same id found "a devns program"
 * there and took it as its own, so its step 0 opened the other GPU.  The
 * join now compares the program with this run's and replaces it.
 */
static void test_unified_stale_step(void)
{
	struct jobct_node *node = load_unified();
	struct jobct_plan plan;
	int e0 = -1, e1 = -1;

	if (!node)
		return (void)ok(0, "load: %s", rep.msg);
	slurm_job_tree(195);
	ok(slurm_attach(195, "step_0", -1, BPF_F_ALLOW_MULTI) == 0 &&
	   attached(195, "step_0") == 1,
	   "precondition: a stale devns program allowing everything is on step_0");
	be_in(195, "step_extern/slurm");
	plan = plan_for(node, 195);
	inject(OP_NONE, 0, 0);
	ok(jobct_setup(&plan, fresh()) == 0, "job 195 sets up: %s", rep.msg);
	is_int(attached(195, "step_0"), 1,
	       "  setup leaves step_0 alone (one program)");
	is_int(task_opens(node, 195, &e0, &e1), 0, "a task of step 0 runs");
	ok(e0 == ENXIO && e1 == EPERM,
	   "  under this run's filter, not the stale one (%d %d)", e0, e1);
	is_int(attached(195, "step_0"), 1,
	       "  the stale program replaced: one program on step_0");
	is_int(task_opens(node, 195, &e0, &e1), 0, "a second task runs");
	ok(e0 == ENXIO && e1 == EPERM && attached(195, "step_0") == 1,
	   "  under the same filter, still one program (%d %d)", e0, e1);
	jobct_release(node, 195, NULL);
	is_int(attached(195, "step_0"), 0, "release detaches it");
	slurm_job_tree_remove(195);
	jobct_node_free(node);
}

/*
 * The attack: the unified join (stepcg.c) took flock(LOCK_EX) on the
 * step's cgroup directory (mode 0755): any user could hold it and hang
 * every task of another user's step before exec.  devns takes no lock a user can.
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

int main(void)
{
	int go = scratch_begin();

	if (go <= 0)
		return go < 0;
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
	test_unified_stale();
	test_unified_stale_step();
	test_unified_user_lock();
	test_slurmd_child();
	remove_scratch();
	return tap_done();
}
