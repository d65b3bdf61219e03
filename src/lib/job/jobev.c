/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jobev.c - a job's events in the core's order, Slurm's part through
 * hooks.  See jobev.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf/nsconf.h"
#include "job/jobev.h"
#include "util/fdutil.h"

const struct jobev_verbs jobev_jobct_verbs = {
	.conf = jobct_node_conf,
	.user_name = jobct_user_name,
	.setup = jobct_setup,
	.setup_undo = jobct_setup_undo,
	.join_run = jobct_join_run,
	.join_in_ns = jobct_join_in_ns,
	.join_ns = jobct_join_ns,
	.join_from_slurmd = jobct_join_from_slurmd,
	.adopt = jobct_adopt,
	.ns_open = jobct_ns_open,
	.userns_open = jobct_adopt_userns_open,
	.ns_exists = jobct_ns_exists,
	.end_lock = jobct_end_lock,
	.end_unlock = jobct_end_unlock,
	.release = jobct_release,
};

static const struct jobev_verbs *verbs(const struct jobev_stepd *st)
{
	return st->verbs ? st->verbs : &jobev_jobct_verbs;
}

/*
 * A call that needs the settings in a daemon that has none (a stepd whose
 * recv_stepd was not called, or failed): refused, never run uncontained.
 */
static int have_node(const struct jobev_job *job, struct report *rep)
{
	if (job->node)
		return 0;
	errno = ENOENT;
	return report_error(rep, "no settings from slurmd (recv_stepd): refusing");
}

/* ---- the extern step's setup -------------------------------------------- */

/* One setup as it goes: what its steps made and hand on. */
struct setup {
	struct jobev_stepd *st;
	const struct jobev_job *job;
	const struct nsconf *conf;
	struct jobct_plan plan;
	struct jobev_facts facts;
};

static int step_init_script(struct setup *s, struct report *rep)
{
	if (!s->conf->init_script)
		return 0;
	if (s->st->hooks->init_script(s->job, rep) < 0)
		return report_error(rep, "refusing the job: InitScript %s failed",
				    s->conf->init_script);
	return 0;
}

static int step_describe(struct setup *s, struct report *rep)
{
	s->facts.want_start_time = !s->job->sluid;
	s->facts.want_job_mem = nsconf_uses_job_memory(s->conf);
	s->facts.disk_gres = s->conf->tmp_disk_gres;
	s->facts.want_tmp_disk = s->conf->tmp_disk_request;
	/* rep keeps describe's own reason where it gave one (the first). */
	if (s->st->hooks->describe(s->job, &s->facts, rep) < 0)
		return report_error(rep, "refusing the job: its GRES devices cannot be known");
	s->plan.node_devices = (const char *const *)s->facts.node_devices;
	s->plan.job_devices = (const char *const *)s->facts.job_devices;
	s->plan.start_time = s->facts.start_time;
	s->plan.job_mem = s->facts.job_mem;
	s->plan.node_mem = s->facts.node_mem;
	s->plan.disk_ask = s->facts.disk_ask;
	s->plan.imex_make = s->facts.imex_make;
	s->plan.imex_arg = s->facts.imex_arg;
	s->plan.imex_major = s->facts.imex_major;
	return 0;
}

static int step_contain(struct setup *s, struct report *rep)
{
	return verbs(s->st)->setup(&s->plan, rep);
}

/*
 * The job's containment is undone when a later step fails; its reasons
 * go to the log, never over the failing step's in rep (the job's reason).
 */
static void undo_contain(struct setup *s, struct report *rep)
{
	struct report aside;

	report_init(&aside, rep->log, rep->log_arg);
	(void)verbs(s->st)->setup_undo(&s->plan, &aside);
}

static int step_clone_ns_script(struct setup *s, struct report *rep)
{
	if (!s->conf->clone_ns_script || !s->conf->base_path)
		return 0;
	return s->st->hooks->clone_ns_script(s->job, rep);
}

/*
 * The setup's steps in order; undo (NULL: nothing to undo) runs, in
 * reverse, for each step done before one that failed.
 */
static const struct setup_step {
	int (*run)(struct setup *s, struct report *rep);
	void (*undo)(struct setup *s, struct report *rep);
} setup_steps[] = {
	{ step_init_script, NULL },
	{ step_describe, NULL },
	{ step_contain, undo_contain },
	{ step_clone_ns_script, NULL },
};

#define SETUP_STEPS (sizeof(setup_steps) / sizeof(setup_steps[0]))

/* The core's userns_map_fn: UserNsScript through the hook. */
static int map_user_ns(pid_t pid, void *arg, struct report *rep)
{
	const struct setup *s = arg;

	return s->st->hooks->user_ns_script(s->job, pid, rep);
}

static int track_init(pid_t init, void *arg, struct report *rep)
{
	const struct setup *s = arg;

	return s->st->hooks->track_init(s->job, init, rep);
}

/* The plan jobct_setup works from, less what describe adds. */
static void plan_init(struct setup *s, const char *user_name)
{
	const struct jobev_job *job = s->job;

	s->plan = (struct jobct_plan){
		.node = job->node,
		.job_id = job->job_id,
		.sluid = job->sluid,
		.uid = job->uid,
		.gid = job->gid,
		.user_name = user_name,
	};
	if (s->conf->user_ns_script && s->st->hooks->user_ns_script) {
		s->plan.userns_map = map_user_ns;
		s->plan.userns_arg = s;
	}
	if (s->st->hooks->track_init) {
		s->plan.track_init = track_init;
		s->plan.track_arg = s;
	}
}

int jobev_stepd_create(struct jobev_stepd *st, const struct jobev_job *job,
		       struct report *rep)
{
	struct setup s = { .st = st, .job = job };
	struct report aside;
	size_t done = 0;
	char *user;

	if (have_node(job, rep) < 0)
		return -1;
	s.conf = verbs(st)->conf(job->node);
	/* Source's %u, from Slurm's uid (NULL: a Source with %u fails). */
	report_init(&aside, rep->log, rep->log_arg);
	user = verbs(st)->user_name(job->uid, &aside);
	plan_init(&s, user);
	setupgate_begin(&st->gate);
	while (done < SETUP_STEPS && setup_steps[done].run(&s, rep) == 0)
		done++;
	if (done < SETUP_STEPS) {
		while (done-- > 0)
			if (setup_steps[done].undo)
				setup_steps[done].undo(&s, rep);
		st->hooks->note_failure(job, rep->msg);
	} else if (st->hooks->started) {
		st->hooks->started(job);
	}
	setupgate_end(&st->gate, done == SETUP_STEPS);
	if (st->hooks->facts_free)
		st->hooks->facts_free(&s.facts);
	free(user);
	return done == SETUP_STEPS ? 0 : -1;
}

/* ---- job processes ------------------------------------------------------ */

int jobev_join(struct jobev_stepd *st, const struct jobev_job *job,
	       enum jobev_joiner who, struct report *rep)
{
	const struct jobev_verbs *v = verbs(st);
	/* A step that knows its job's SLUID joins only that run's setup. */
	const struct jobct_run run = { .sluid = job->sluid };
	bool entire;

	if (job->job_id == 0)
		return 0;
	if (have_node(job, rep) < 0)
		return -1;
	entire = v->conf(job->node)->entire_step_in_ns;
	switch (who) {
	case JOBEV_STEPD_CREATE:
		/* EntireStepInNS: the stepd itself goes into the namespace */
		return entire ? v->join_ns(job->node, job->job_id, rep) : 0;
	case JOBEV_SLURMD:
		if (job->uid == 0)
			return v->join_ns(job->node, job->job_id, rep);
		return v->join_from_slurmd(job->node, job->job_id, rep);
	case JOBEV_STEPD:
		if (entire)
			return v->join_in_ns(job->node, job->job_id, rep);
		break;
	case JOBEV_STEPD_OUTSIDE:
		break;
	}
	return v->join_run(job->node, job->job_id, job->sluid ? &run : NULL,
			   rep);
}

/* ---- pam_slurm_adopt ---------------------------------------------------- */

int jobev_join_external(struct jobev_stepd *st, const struct jobev_job *job,
			bool may_set_up, bool kill_uncontained, int *fd,
			struct report *rep)
{
	const struct jobev_verbs *v = verbs(st);
	int rc;

	*fd = -1;
	if (have_node(job, rep) < 0)
		return -1;
	/*
	 * Any user may ask any stepd; one that never sets the job up (the
	 * batch step's) answers at once instead of parking this thread
	 * until JOBEV_ADOPT_START_WAIT_MS have passed.
	 */
	if (!may_set_up)
		setupgate_never(&st->gate);
	if (setupgate_wait(&st->gate, JOBEV_ADOPT_START_WAIT_MS) < 0)
		return report_error(rep, "refusing to adopt a process: the job's setup failed");
	if (v->adopt(job->node, job->job_id, kill_uncontained, rep) < 0 &&
	    !kill_uncontained)
		return -1;
	pthread_mutex_lock(&st->cache_lock);
	rc = st->ns_fd >= 0 ? 1
			    : v->ns_open(job->node, job->job_id, &st->ns_fd,
					 rep);
	pthread_mutex_unlock(&st->cache_lock);
	if (rc > 0)
		*fd = st->ns_fd;
	return rc;
}

int jobev_adopt_userns(struct jobev_stepd *st, const struct jobev_job *job,
		       int *fd, struct report *rep)
{
	int rc = 1;

	*fd = -1;
	if (have_node(job, rep) < 0)
		return -1;
	pthread_mutex_lock(&st->cache_lock);
	if (st->userns_fd < 0)
		rc = verbs(st)->userns_open(job->node, job->job_id,
					    &st->userns_fd, rep);
	pthread_mutex_unlock(&st->cache_lock);
	if (rc > 0)
		*fd = st->userns_fd;
	return rc;
}

/* ---- the job's end ------------------------------------------------------ */

static void retire_fd(int fd)
{
	int null_fd;

	if (fd < 0)
		return;
	null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null_fd < 0)
		return;
	(void)dup3(null_fd, fd, O_CLOEXEC);
	close(null_fd);
}

/*
 * The cached fds go before the teardown: while one is open the namespace
 * lives on, and with it the job's /tmp.  Slurm may be sending an fd's
 * number to a login at this moment, so the number stays valid: it is made
 * to name /dev/null (dup3 is atomic), which setns(2) refuses, and is never
 * opened again (the cache stays >= 0).
 */
static void retire_fds(struct jobev_stepd *st)
{
	retire_fd(st->ns_fd);
	retire_fd(st->userns_fd);
}

void jobev_stepd_close(struct jobev_stepd *st)
{
	fdutil_close(st->ns_fd);
	fdutil_close(st->userns_fd);
	st->ns_fd = st->userns_fd = -1;
}

int jobev_stepd_delete(struct jobev_stepd *st, const struct jobev_job *job,
		       struct report *rep)
{
	const struct jobev_verbs *v = verbs(st);
	const struct nsconf *c;
	int lock, rc;

	if (have_node(job, rep) < 0)
		return -1;
	c = v->conf(job->node);
	lock = v->end_lock(job->node, job->job_id);
	if (st->hooks->ending)
		st->hooks->ending(job);
	if (c->clone_ns_epilog && v->ns_exists(job->node, job->job_id))
		st->hooks->clone_ns_epilog(job, rep);
	retire_fds(st);
	rc = v->release(job->node, job->job_id, rep);
	v->end_unlock(job->node, job->job_id, lock);
	return rc;
}
