/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_jobev.c - the order of a job's events (job/jobev.h) and every
 * failure point of it, with fake hooks and fake core verbs that write
 * each call into one trace: no Slurm, no root, no kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "job/jobev.h"
#include "tap.h"

/* ---- the trace, and the call to fail ------------------------------------ */

static char trace[1024];
static const char *fail_at;	/* the call that fails, NULL: none */
static struct nsconf conf;	/* the fake node's settings */
static const struct jobct_node *const fake_node =
	(const struct jobct_node *)&conf;
static const struct jobct_plan *seen_plan;	/* setup's, at its call */
static struct jobct_plan plan_copy;
static char plan_user[64];	/* its user name, which setup then frees */
static int plan_map_rc, plan_track_rc;	/* its hooks called back, 1: none */
static struct jobev_facts *seen_facts;
static char noted[REPORT_MSG_MAX];	/* note_failure's reason */
static int noted_count;
static int ns_open_count, userns_open_count;
static uint32_t adopt_kill;
static const struct jobct_run *seen_run;
static bool seen_run_null;
static uint64_t seen_sluid;
static const char *seen_disk_gres;	/* describe's ins, at its call */
static bool seen_want_tmp;

/* Whether name is one of the calls to fail (fail_at: names, space-cut). */
static bool fails(const char *name)
{
	size_t len = strlen(name);

	for (const char *p = fail_at; p && *p; p += strcspn(p, " "),
	     p += *p == ' ') {
		if (!strncmp(p, name, len) && (p[len] == ' ' || !p[len]))
			return true;
	}
	return false;
}

/* Appends name to the trace; -1 (EIO, rep) when it is one to fail. */
static int called(const char *name, struct report *rep)
{
	if (trace[0])
		strcat(trace, " ");
	strcat(trace, name);
	if (fails(name)) {
		errno = EIO;
		return report_error(rep, "%s failed", name);
	}
	return 0;
}

static void reset(const char *fail)
{
	trace[0] = '\0';
	fail_at = fail;
	seen_plan = NULL;
	seen_facts = NULL;
	noted[0] = '\0';
	noted_count = ns_open_count = userns_open_count = 0;
	seen_run = NULL;
	seen_run_null = false;
}

/* ---- fake core verbs ---------------------------------------------------- */

static const struct nsconf *v_conf(const struct jobct_node *node)
{
	return (const struct nsconf *)node;
}

static char *v_user_name(uid_t uid, struct report *rep)
{
	(void)uid;
	if (called("user_name", rep) < 0)
		return NULL;
	return strdup("alice");
}

static int v_setup(const struct jobct_plan *plan, struct report *rep)
{
	seen_plan = plan;
	plan_copy = *plan;
	snprintf(plan_user, sizeof(plan_user), "%s",
		 plan->user_name ? plan->user_name : "(null)");
	if (called("setup", rep) < 0)
		return -1;
	/* what jobct_setup calls back, while the setup lasts */
	plan_map_rc = plan->userns_map
		? plan->userns_map(123, plan->userns_arg, rep) : 1;
	plan_track_rc = plan->track_init
		? plan->track_init(99, plan->track_arg, rep) : 1;
	return 0;
}

static int v_setup_undo(const struct jobct_plan *plan, struct report *rep)
{
	(void)plan;
	return called("setup_undo", rep);
}

static int v_join_run(const struct jobct_node *node, uint32_t job_id,
		      const struct jobct_run *run, struct report *rep)
{
	(void)node;
	(void)job_id;
	seen_run_null = !run;
	seen_sluid = run ? run->sluid : 0;
	return called("join_run", rep);
}

static int v_join_in_ns(const struct jobct_node *node, uint32_t job_id,
			struct report *rep)
{
	(void)node;
	(void)job_id;
	return called("join_in_ns", rep);
}

static int v_join_ns(const struct jobct_node *node, uint32_t job_id,
		     struct report *rep)
{
	(void)node;
	(void)job_id;
	return called("join_ns", rep);
}

static int v_join_from_slurmd(const struct jobct_node *node, uint32_t job_id,
			      struct report *rep)
{
	(void)node;
	(void)job_id;
	return called("join_from_slurmd", rep);
}

static int v_adopt(const struct jobct_node *node, uint32_t job_id,
		   bool kill_uncontained, struct report *rep)
{
	(void)node;
	(void)job_id;
	adopt_kill = kill_uncontained;
	return called("adopt", rep);
}

/* The fake namespaces' fds: /dev/zero, so a retired one is told apart. */
static int v_ns_open(const struct jobct_node *node, uint32_t job_id, int *fd,
		     struct report *rep)
{
	(void)node;
	(void)job_id;
	*fd = -1;
	ns_open_count++;
	if (called("ns_open", rep) < 0)
		return -1;
	if (!conf.base_path)
		return 0;
	*fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	return *fd < 0 ? -1 : 1;
}

static int v_userns_open(const struct jobct_node *node, uint32_t job_id,
			 int *fd, struct report *rep)
{
	(void)node;
	(void)job_id;
	*fd = -1;
	userns_open_count++;
	if (called("userns_open", rep) < 0)
		return -1;
	if (!conf.user_namespace)
		return 0;
	*fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	return *fd < 0 ? -1 : 1;
}

static bool ns_there;

static bool v_ns_exists(const struct jobct_node *node, uint32_t job_id)
{
	(void)node;
	(void)job_id;
	(void)called("ns_exists", NULL);
	return ns_there;
}

static int v_end_lock(const struct jobct_node *node, uint32_t job_id)
{
	(void)node;
	(void)job_id;
	(void)called("end_lock", NULL);
	return 42;
}

static int unlocked_fd;

static void v_end_unlock(const struct jobct_node *node, uint32_t job_id,
			 int fd)
{
	(void)node;
	(void)job_id;
	unlocked_fd = fd;
	(void)called("end_unlock", NULL);
}

static int v_release(const struct jobct_node *node, uint32_t job_id,
		     struct report *rep)
{
	(void)node;
	(void)job_id;
	return called("release", rep);
}

static const struct jobev_verbs fake_verbs = {
	.conf = v_conf,
	.user_name = v_user_name,
	.setup = v_setup,
	.setup_undo = v_setup_undo,
	.join_run = v_join_run,
	.join_in_ns = v_join_in_ns,
	.join_ns = v_join_ns,
	.join_from_slurmd = v_join_from_slurmd,
	.adopt = v_adopt,
	.ns_open = v_ns_open,
	.userns_open = v_userns_open,
	.ns_exists = v_ns_exists,
	.end_lock = v_end_lock,
	.end_unlock = v_end_unlock,
	.release = v_release,
};

/* ---- fake hooks (what Slurm would do) ----------------------------------- */

static char *gpu_node[] = { "/dev/nvidia0", "/dev/nvidia1", NULL };
static char *gpu_job[] = { "/dev/nvidia1", NULL };

static int h_init_script(const struct jobev_job *job, struct report *rep)
{
	(void)job;
	return called("init_script", rep);
}

static int h_describe(const struct jobev_job *job, struct jobev_facts *f,
		      struct report *rep)
{
	(void)job;
	seen_facts = f;
	seen_disk_gres = f->disk_gres;
	seen_want_tmp = f->want_tmp_disk;
	if (f->disk_gres)
		f->disk_ask.gres_bytes = 10 << 20;
	if (f->want_tmp_disk)
		f->disk_ask.tmp_bytes = 30 << 20;
	f->node_devices = gpu_node;
	f->job_devices = gpu_job;
	if (f->want_start_time)
		f->start_time = 1700000000;
	return called("describe", rep);
}

static void h_facts_free(struct jobev_facts *f)
{
	f->node_devices = f->job_devices = NULL;
	(void)called("facts_free", NULL);
}

static int h_user_ns_script(const struct jobev_job *job, pid_t pid,
			    struct report *rep)
{
	(void)job;
	(void)pid;
	return called("user_ns_script", rep);
}

static int h_track_init(const struct jobev_job *job, pid_t init,
			struct report *rep)
{
	(void)job;
	(void)init;
	return called("track_init", rep);
}

static int h_clone_ns_script(const struct jobev_job *job, struct report *rep)
{
	(void)job;
	return called("clone_ns_script", rep);
}

static void h_clone_ns_epilog(const struct jobev_job *job, struct report *rep)
{
	(void)job;
	(void)called("clone_ns_epilog", rep);
}

static void h_note_failure(const struct jobev_job *job, const char *why)
{
	(void)job;
	noted_count++;
	snprintf(noted, sizeof(noted), "%s", why);
	(void)called("note_failure", NULL);
}

static const struct jobev_hooks hooks = {
	.init_script = h_init_script,
	.describe = h_describe,
	.facts_free = h_facts_free,
	.user_ns_script = h_user_ns_script,
	.track_init = h_track_init,
	.clone_ns_script = h_clone_ns_script,
	.clone_ns_epilog = h_clone_ns_epilog,
	.note_failure = h_note_failure,
};

/* A fresh daemon state with the fakes. */
static void stepd_init(struct jobev_stepd *st, const struct jobev_hooks *h)
{
	const struct jobev_stepd init = JOBEV_STEPD_INIT(h);

	*st = init;
	st->verbs = &fake_verbs;
}

static const struct jobev_job job = {
	.node = fake_node, .job_id = 7, .uid = 1000, .gid = 1000,
};

/* The gate after a setup: 1 done, -1 failed (immediate: it has ended). */
static int gate_result(struct jobev_stepd *st)
{
	return setupgate_wait(&st->gate, 0);
}

/* ---- setup -------------------------------------------------------------- */

static void test_setup_order(void)
{
	struct jobev_stepd st;
	struct report rep;
	int rc;

	stepd_init(&st, &hooks);
	report_init(&rep, NULL, NULL);
	reset(NULL);
	rc = jobev_stepd_create(&st, &job, &rep);
	ok(rc == 0, "setup: succeeds with every step succeeding");
	ok(!strcmp(trace, "user_name init_script describe setup track_init clone_ns_script facts_free"),
	   "setup: user name, InitScript, describe, setup, CloneNSScript, then the facts freed (%s)",
	   trace);
	ok(gate_result(&st) == 1, "setup: the gate says done");
	ok(noted_count == 0, "setup: no failure noted");
	ok(seen_plan && plan_copy.job_id == 7 && plan_copy.uid == 1000 &&
	   !strcmp(plan_user, "alice"),
	   "setup: the plan has the job, its uid and user name");
	ok(plan_copy.node_devices == (const char *const *)gpu_node &&
	   plan_copy.job_devices == (const char *const *)gpu_job,
	   "setup: the plan has describe's devices");
	ok(plan_copy.start_time == 1700000000 && plan_copy.sluid == 0,
	   "setup: without a SLUID the start time is asked and handed on");
	ok(plan_map_rc == 1,
	   "setup: no UserNsScript, no map hook in the plan");
	ok(plan_track_rc == 0,
	   "setup: the daemon's track_init reaches the plan");
	jobev_stepd_close(&st);
}

static void test_setup_sluid(void)
{
	struct jobev_stepd st;
	struct jobev_job j = job;
	struct report rep;

	j.sluid = 0x1234;
	stepd_init(&st, &hooks);
	report_init(&rep, NULL, NULL);
	reset(NULL);
	ok(jobev_stepd_create(&st, &j, &rep) == 0 && seen_facts &&
	   plan_copy.start_time == 0 && plan_copy.sluid == 0x1234,
	   "setup: with a SLUID no start time is asked");
}

/*
 * TmpDiskGres and TmpDiskLimit=request ask describe for what the job
 * asked of the disk, which reaches the plan (jobct makes the limit);
 * without them nothing is asked.
 */
static void test_setup_disk_ask(void)
{
	struct jobev_stepd st;
	struct report rep;

	stepd_init(&st, &hooks);
	report_init(&rep, NULL, NULL);
	reset(NULL);
	ok(jobev_stepd_create(&st, &job, &rep) == 0 && !seen_disk_gres &&
	   !seen_want_tmp && plan_copy.disk_ask.gres_bytes == 0 &&
	   plan_copy.disk_ask.tmp_bytes == 0,
	   "setup: without TmpDiskGres or request no disk ask");
	jobev_stepd_close(&st);
	conf.tmp_disk_gres = "tmpdisk";
	conf.tmp_disk_request = true;
	stepd_init(&st, &hooks);
	reset(NULL);
	ok(jobev_stepd_create(&st, &job, &rep) == 0 && seen_disk_gres &&
	   !strcmp(seen_disk_gres, "tmpdisk") && seen_want_tmp &&
	   plan_copy.disk_ask.gres_bytes == 10 << 20 &&
	   plan_copy.disk_ask.tmp_bytes == 30 << 20,
	   "setup: TmpDiskGres's name and request asked; the answers reach the plan");
	jobev_stepd_close(&st);
	conf.tmp_disk_gres = NULL;
	conf.tmp_disk_request = false;
}

/* Each step failing: what ran, what was undone, what was noted. */
static void test_setup_failures(void)
{
	static const struct {
		const char *fail, *trace, *why;
	} cases[] = {
		{ "init_script", "user_name init_script note_failure facts_free",
		  "init_script failed" },
		{ "describe", "user_name init_script describe note_failure facts_free",
		  "describe failed" },
		{ "setup", "user_name init_script describe setup note_failure facts_free",
		  "setup failed" },
		{ "clone_ns_script", "user_name init_script describe setup track_init clone_ns_script setup_undo note_failure facts_free",
		  "clone_ns_script failed" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct jobev_stepd st;
		struct report rep;
		int rc;

		stepd_init(&st, &hooks);
		report_init(&rep, NULL, NULL);
		reset(cases[i].fail);
		rc = jobev_stepd_create(&st, &job, &rep);
		ok(rc == -1, "%s fails: setup fails", cases[i].fail);
		ok(!strcmp(trace, cases[i].trace),
		   "%s fails: only the steps before it undone (%s)",
		   cases[i].fail, trace);
		ok(noted_count == 1 && !strcmp(noted, cases[i].why),
		   "%s fails: its own reason noted (%s)", cases[i].fail,
		   noted);
		ok(gate_result(&st) == -1 && errno == EIO,
		   "%s fails: the gate says failed", cases[i].fail);
	}
}

/* The undo's own failure never replaces the failing step's reason. */
static void test_setup_undo_fails(void)
{
	struct jobev_stepd st;
	struct report rep;

	stepd_init(&st, &hooks);
	report_init(&rep, NULL, NULL);
	reset("clone_ns_script setup_undo");
	ok(jobev_stepd_create(&st, &job, &rep) == -1 &&
	   strstr(trace, "setup_undo") &&
	   !strcmp(rep.msg, "clone_ns_script failed") &&
	   !strcmp(noted, "clone_ns_script failed"),
	   "CloneNSScript and the undo fail: the job's reason is the script's (%s)",
	   rep.msg);
}

/* A user name that cannot be had fails nothing (a %u Source fails later). */
static void test_setup_no_user(void)
{
	struct jobev_stepd st;
	struct report rep;

	stepd_init(&st, &hooks);
	report_init(&rep, NULL, NULL);
	reset("user_name");
	ok(jobev_stepd_create(&st, &job, &rep) == 0 &&
	   !strcmp(plan_user, "(null)") &&
	   rep.msg[0] == '\0',
	   "no user name: setup goes on without one, the job's report clean");
}

/* What the settings do not ask for is not run. */
static void test_setup_conf(void)
{
	struct jobev_stepd st;
	struct report rep;
	struct nsconf saved = conf;

	conf.init_script = NULL;
	conf.base_path = NULL;	/* CloneNSScript needs a namespace */
	stepd_init(&st, &hooks);
	report_init(&rep, NULL, NULL);
	reset(NULL);
	ok(jobev_stepd_create(&st, &job, &rep) == 0 &&
	   !strcmp(trace, "user_name describe setup track_init facts_free"),
	   "no InitScript, no BasePath: neither script runs (%s)", trace);
	conf = saved;

	conf.user_ns_script = "/etc/slurm/userns.sh";
	reset(NULL);
	stepd_init(&st, &hooks);
	(void)jobev_stepd_create(&st, &job, &rep);
	ok(plan_map_rc == 0 &&
	   !strcmp(trace, "user_name init_script describe setup user_ns_script track_init clone_ns_script facts_free"),
	   "UserNsScript: the plan's map runs the hook, in jobct_setup (%s)",
	   trace);
	ok(plan_track_rc == 0, "the plan's track_init runs the hook");
	conf = saved;
}

/* A daemon without track_init (22.05) gives the plan none. */
static void test_setup_no_track(void)
{
	struct jobev_hooks h = hooks;
	struct jobev_stepd st;
	struct report rep;

	h.track_init = NULL;
	stepd_init(&st, &h);
	report_init(&rep, NULL, NULL);
	reset(NULL);
	ok(jobev_stepd_create(&st, &job, &rep) == 0 && plan_track_rc == 1,
	   "no track_init hook: none in the plan");
}

static void test_setup_no_node(void)
{
	struct jobev_stepd st;
	struct jobev_job j = job;
	struct report rep;

	j.node = NULL;
	stepd_init(&st, &hooks);
	report_init(&rep, NULL, NULL);
	reset(NULL);
	ok(jobev_stepd_create(&st, &j, &rep) == -1 && trace[0] == '\0' &&
	   strstr(rep.msg, "no settings from slurmd"),
	   "no settings: setup refused before anything runs");
	ok(st.gate.state == SETUPGATE_NOT_STARTED,
	   "no settings: the gate never began");
	reset(NULL);
	ok(jobev_join(&st, &j, JOBEV_STEPD, &rep) == -1 && trace[0] == '\0',
	   "no settings: a job process is refused");
	ok(jobev_stepd_delete(&st, &j, &rep) == -1 && trace[0] == '\0',
	   "no settings: the end does nothing");
}

/* ---- join --------------------------------------------------------------- */

static void test_join(void)
{
	static const struct {
		enum jobev_joiner who;
		bool entire;
		uid_t uid;
		const char *verb;
	} cases[] = {
		{ JOBEV_STEPD, false, 1000, "join_run" },
		{ JOBEV_STEPD, true, 1000, "join_in_ns" },
		{ JOBEV_STEPD_OUTSIDE, false, 1000, "join_run" },
		{ JOBEV_STEPD_OUTSIDE, true, 1000, "join_run" },
		{ JOBEV_STEPD_CREATE, false, 0, "" },
		{ JOBEV_STEPD_CREATE, true, 0, "join_ns" },
		{ JOBEV_SLURMD, false, 0, "join_ns" },
		{ JOBEV_SLURMD, false, 1000, "join_from_slurmd" },
		{ JOBEV_SLURMD, true, 1000, "join_from_slurmd" },
	};
	struct jobev_stepd st;
	struct report rep;

	stepd_init(&st, &hooks);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct jobev_job j = job;

		j.uid = cases[i].uid;
		conf.entire_step_in_ns = cases[i].entire;
		report_init(&rep, NULL, NULL);
		reset(NULL);
		ok(jobev_join(&st, &j, cases[i].who, &rep) == 0 &&
		   !strcmp(trace, cases[i].verb),
		   "join: joiner %d, EntireStepInNS %d, uid %u: %s (%s)",
		   (int)cases[i].who, cases[i].entire, (unsigned)cases[i].uid,
		   cases[i].verb[0] ? cases[i].verb : "nothing", trace);
		if (!cases[i].verb[0])
			continue;
		reset(cases[i].verb);
		ok(jobev_join(&st, &j, cases[i].who, &rep) == -1,
		   "join: %s failing fails the process", cases[i].verb);
	}
	conf.entire_step_in_ns = false;

	{
		struct jobev_job j = job;

		j.job_id = 0;
		reset(NULL);
		ok(jobev_join(&st, &j, JOBEV_SLURMD, &rep) == 0 &&
		   trace[0] == '\0', "join: no job (a system script) joins nothing");
		j = job;
		j.sluid = 0x99;
		reset(NULL);
		ok(jobev_join(&st, &j, JOBEV_STEPD, &rep) == 0 &&
		   !seen_run_null && seen_sluid == 0x99,
		   "join: a step that knows the SLUID joins only that run");
		reset(NULL);
		ok(jobev_join(&st, &job, JOBEV_STEPD, &rep) == 0 &&
		   seen_run_null, "join: without a SLUID no run is asked for");
	}
}

/* ---- pam_slurm_adopt ---------------------------------------------------- */

static bool is_dev(int fd, unsigned maj, unsigned min)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) &&
	       major(st.st_rdev) == maj && minor(st.st_rdev) == min;
}

static void test_join_external(void)
{
	struct jobev_stepd st;
	struct report rep;
	int fd, fd2, ufd;

	stepd_init(&st, &hooks);
	report_init(&rep, NULL, NULL);
	reset("setup");
	(void)jobev_stepd_create(&st, &job, &rep);
	reset(NULL);
	report_init(&rep, NULL, NULL);
	ok(jobev_join_external(&st, &job, true, false, &fd, &rep) == -1 &&
	   fd == -1 && trace[0] == '\0' &&
	   strstr(rep.msg, "the job's setup failed"),
	   "adopt: after a failed setup, refused before anything is done");

	stepd_init(&st, &hooks);
	reset(NULL);
	(void)jobev_stepd_create(&st, &job, &rep);
	reset(NULL);
	ok(jobev_join_external(&st, &job, true, false, &fd, &rep) == 1 &&
	   fd >= 0 && is_dev(fd, 1, 5) && !strcmp(trace, "adopt ns_open"),
	   "adopt: the filter first, then the namespace's fd (%s)", trace);
	reset(NULL);
	ok(jobev_join_external(&st, &job, true, false, &fd2, &rep) == 1 &&
	   fd2 == fd && ns_open_count == 0,
	   "adopt: the second login gets the cached fd, nothing opened");

	conf.user_namespace = true;
	reset(NULL);
	ok(jobev_adopt_userns(&st, &job, &ufd, &rep) == 1 && ufd >= 0 &&
	   userns_open_count == 1, "adopt: the user namespace, opened once");
	reset(NULL);
	ok(jobev_adopt_userns(&st, &job, &fd2, &rep) == 1 && fd2 == ufd &&
	   userns_open_count == 0, "adopt: then cached");
	conf.user_namespace = false;

	/* The end retires both: same numbers, now /dev/null. */
	ns_there = true;
	reset(NULL);
	ok(jobev_stepd_delete(&st, &job, &rep) == 0 && is_dev(fd, 1, 3) &&
	   is_dev(ufd, 1, 3), "end: the cached fds name /dev/null");
	reset(NULL);
	ok(jobev_join_external(&st, &job, true, false, &fd2, &rep) == 1 &&
	   fd2 == fd && ns_open_count == 0,
	   "end: a login after it is never given a fresh namespace fd");
	jobev_stepd_close(&st);
	ok(st.ns_fd == -1 && st.userns_fd == -1 && fcntl(fd, F_GETFD) < 0,
	   "close: the cached fds are closed");

	/* A failed adopt: refused, unless the process was killed instead. */
	stepd_init(&st, &hooks);
	reset(NULL);
	(void)jobev_stepd_create(&st, &job, &rep);
	reset("adopt");
	ok(jobev_join_external(&st, &job, true, false, &fd, &rep) == -1 &&
	   !strcmp(trace, "adopt"),
	   "adopt fails (PAM trusted): refused, no namespace");
	reset("adopt");
	ok(jobev_join_external(&st, &job, true, true, &fd, &rep) == 1 &&
	   !strcmp(trace, "adopt ns_open") && adopt_kill,
	   "adopt fails (kill_uncontained): the login still gets the namespace");
	jobev_stepd_close(&st);

	/* The namespace or the user namespace cannot be opened: refused. */
	stepd_init(&st, &hooks);
	reset(NULL);
	(void)jobev_stepd_create(&st, &job, &rep);
	reset("ns_open");
	ok(jobev_join_external(&st, &job, true, false, &fd, &rep) == -1 &&
	   fd == -1 && st.ns_fd == -1,
	   "ns_open fails: refused, nothing cached");
	reset(NULL);
	ok(jobev_join_external(&st, &job, true, false, &fd, &rep) == 1 &&
	   ns_open_count == 1, "  the next login opens it");
	conf.user_namespace = true;
	reset("userns_open");
	ok(jobev_adopt_userns(&st, &job, &ufd, &rep) == -1 && ufd == -1 &&
	   st.userns_fd == -1, "userns_open fails: refused, nothing cached");
	conf.user_namespace = false;
	reset(NULL);
	ok(jobev_adopt_userns(&st, &job, &ufd, &rep) == 0 && ufd == -1,
	   "no user namespace for the login: 0");
	jobev_stepd_close(&st);

	/* A stepd that never sets the job up answers at once. */
	{
		struct timespec a, b;

		stepd_init(&st, &hooks);
		reset(NULL);
		clock_gettime(CLOCK_MONOTONIC, &a);
		(void)jobev_join_external(&st, &job, false, false, &fd, &rep);
		clock_gettime(CLOCK_MONOTONIC, &b);
		ok(b.tv_sec - a.tv_sec < 5,
		   "adopt: a stepd that never sets up does not wait for it");
		jobev_stepd_close(&st);
	}

	/* No BasePath: no namespace to give. */
	{
		char *base = conf.base_path;

		conf.base_path = NULL;
		stepd_init(&st, &hooks);
		reset(NULL);
		(void)jobev_stepd_create(&st, &job, &rep);
		reset(NULL);
		ok(jobev_join_external(&st, &job, true, false, &fd, &rep) == 0 &&
		   fd == -1, "adopt: no BasePath, no namespace (0)");
		conf.base_path = base;
	}
}

/* ---- the end ------------------------------------------------------------ */

static void test_end(void)
{
	struct jobev_stepd st;
	struct report rep;
	char *epilog = conf.clone_ns_epilog;

	stepd_init(&st, &hooks);
	report_init(&rep, NULL, NULL);
	ns_there = true;
	reset(NULL);
	unlocked_fd = -1;
	ok(jobev_stepd_delete(&st, &job, &rep) == 0 &&
	   !strcmp(trace, "end_lock ns_exists clone_ns_epilog release end_unlock") &&
	   unlocked_fd == 42,
	   "end: lock, CloneNSEpilog, release, unlock (%s)", trace);
	ns_there = false;
	reset(NULL);
	ok(jobev_stepd_delete(&st, &job, &rep) == 0 &&
	   !strcmp(trace, "end_lock ns_exists release end_unlock"),
	   "end: no namespace (the other caller's), no CloneNSEpilog (%s)",
	   trace);
	conf.clone_ns_epilog = NULL;
	ns_there = true;
	reset(NULL);
	ok(jobev_stepd_delete(&st, &job, &rep) == 0 &&
	   !strcmp(trace, "end_lock release end_unlock"),
	   "end: no CloneNSEpilog set, none run (%s)", trace);
	conf.clone_ns_epilog = epilog;
	reset("clone_ns_epilog");
	ok(jobev_stepd_delete(&st, &job, &rep) == 0 &&
	   !strcmp(trace, "end_lock ns_exists clone_ns_epilog release end_unlock"),
	   "end: a failed CloneNSEpilog is only logged, the release goes on");
	reset("release");
	ok(jobev_stepd_delete(&st, &job, &rep) == -1 &&
	   !strcmp(trace, "end_lock ns_exists clone_ns_epilog release end_unlock"),
	   "end: a failed release fails, the lock still released");
}

int main(void)
{
	conf.base_path = "/var/spool/devns";
	conf.init_script = "/etc/slurm/init.sh";
	conf.clone_ns_script = "/etc/slurm/clone.sh";
	conf.clone_ns_epilog = "/etc/slurm/epilog.sh";

	test_setup_order();
	test_setup_sluid();
	test_setup_disk_ask();
	test_setup_failures();
	test_setup_undo_fails();
	test_setup_no_user();
	test_setup_conf();
	test_setup_no_track();
	test_setup_no_node();
	test_join();
	test_join_external();
	test_end();
	return tap_done();
}
