/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsrelease.c - the table of release rules.  See nsrelease.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "conf/nsrelease.h"

/*
 * One rule: a file that asks() for something is refused by every release
 * before since, with msg after "FILE:LINE: " (line_at: where in struct
 * nsconf_lines the line of the setting is).
 */
struct rule {
	unsigned long since;
	bool (*asks)(const struct nsconf *c);
	size_t line_at;
	const char *msg;
};

static bool asks_entire_step(const struct nsconf *c)
{
	return c->entire_step_in_ns;
}

/*
 * From 25.11 pam_slurm_adopt enters the job's user namespace itself
 * (namespace_p_join_external hands it the fd); before, only pam_devns
 * does, which finds the namespace held by the PID namespace's init.
 */
static bool asks_userns_alone(const struct nsconf *c)
{
	return c->user_namespace && !c->pid_namespace;
}

static const struct rule rules[] = {
	{ NSRELEASE_ENTIRE_STEP, asks_entire_step,
	  offsetof(struct nsconf_lines, entire_step_in_ns),
	  "EntireStepInNS=yes needs Slurm 24.11.1 or later (this Slurm "
	  "does not let slurmstepd start in the job's namespace)" },
	{ NSRELEASE_USERNS_ALONE, asks_userns_alone,
	  offsetof(struct nsconf_lines, user_namespace),
	  "UserNamespace=yes needs PidNamespace=yes before Slurm 25.11 "
	  "(logins adopted by pam_slurm_adopt reach the job's user "
	  "namespace only through pam_devns and the PID namespace's init)" },
};

int nsrelease_check(const struct nsconf *conf, unsigned long release,
		    struct report *rep)
{
	int errors = 0;

	for (size_t i = 0; i < sizeof(rules) / sizeof(*rules); i++) {
		const struct rule *r = &rules[i];
		int line;

		if (release >= r->since || !r->asks(conf))
			continue;
		line = *(const int *)((const char *)&conf->lines + r->line_at);
		report_error(rep, "%s:%d: %s", conf->file, line, r->msg);
		errors++;
	}
	if (!errors)
		return 0;
	errno = EINVAL;
	return -1;
}
