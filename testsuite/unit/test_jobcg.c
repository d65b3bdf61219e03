/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_jobcg.c - the names Slurm gives a job's and its steps' cgroups:
 * job_<id> written in one place and read back only as written, a SLUID
 * as the job's name, a step's prefix.
 */
#include <errno.h>
#include <string.h>

#include "slurmconv/jobcg.h"
#include "slurmconv/sluid.h"
#include "tap.h"

/* "job_<id>", written in one place and read back only as written. */
static void test_job_name(void)
{
	char buf[32];
	uint32_t id = 0;

	ok(jobcg_name(42, buf, sizeof(buf)) == 0 && !strcmp(buf, "job_42"),
	   "job 42's cgroup is job_42");
	ok(jobcg_name(4294967295u, buf, 8) == -1 && errno == ENAMETOOLONG,
	   "  a short buffer: ENAMETOOLONG");
	ok(jobcg_parse("job_42", 6, &id) && id == 42,
	   "job_42 is job 42's");
	ok(jobcg_parse("job_4294967295", 14, &id) && id == 4294967295u,
	   "  the largest id reads back");
	ok(jobcg_parse("job_42/step_0", 6, &id) && id == 42,
	   "  only len bytes are read");
	ok(!jobcg_parse("job_", 4, NULL) &&
	   !jobcg_parse("job_042", 7, NULL) &&
	   !jobcg_parse("job_+42", 7, NULL) &&
	   !jobcg_parse("job_42x", 7, NULL) &&
	   !jobcg_parse("job_4294967296", 14, NULL) &&
	   !jobcg_parse("jobs_42", 7, NULL),
	   "  nothing else: job_, a leading zero or sign, a suffix, an overflow, another prefix");
}

/* A job's cgroup by its id or, from 26.05, its SLUID's text. */
static void test_is_job(void)
{
	char text[SLUID_LEN + 1];
	uint64_t sluid = 0x123456789abcdefULL;

	ok(sluid_format(sluid, text, sizeof(text)) == 0,
	   "precondition: the SLUID has a text (%s)", text);
	ok(jobcg_is_job("job_42", 6, 42, 0) && jobcg_is_job("job_42", 6, 42, sluid),
	   "job_42 is job 42's, with or without a SLUID");
	ok(!jobcg_is_job("job_43", 6, 42, sluid), "  job_43 is not");
	ok(jobcg_is_job(text, SLUID_LEN, 42, sluid), "the SLUID's text is the job's");
	ok(!jobcg_is_job(text, SLUID_LEN, 42, 0), "  not when the job has no SLUID");
	ok(!jobcg_is_job(text, SLUID_LEN, 42, sluid + 1), "  nor another job's SLUID");
	ok(!jobcg_is_job(text, SLUID_LEN - 1, 42, sluid), "  nor a part of it");
}

static void test_is_step(void)
{
	ok(jobcg_is_step("step_0") && jobcg_is_step("step_extern") &&
	   jobcg_is_step("step_batch"), "step_0, step_extern, step_batch are steps");
	ok(!jobcg_is_step("slurm") && !jobcg_is_step("job_1") &&
	   !jobcg_is_step("step") && !jobcg_is_step(""),
	   "  slurm, job_1, step and \"\" are not");
	ok(!strcmp(JOBCG_EXTERN_STEP, "step_extern") && jobcg_is_step(JOBCG_EXTERN_STEP),
	   "the extern step is step_extern, a step");
	ok(!strcmp(JOBCG_STEPD_LEAF, "slurm") && !strcmp(JOBCG_TASKS_LEAF, "user"),
	   "a step's stepd is in its slurm leaf, its tasks in its user leaf");
}

int main(void)
{
	test_job_name();
	test_is_job();
	test_is_step();
	return tap_done();
}
