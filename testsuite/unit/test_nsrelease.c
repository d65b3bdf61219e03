/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_nsrelease.c - unit tests of the table of release rules
 * (conf/nsrelease.h): each rule refuses the releases before its first and
 * none from it, names the setting's file and line, and the release this tree is built for
 * (configure's DEVNS_SLURM_VERSION_NUMBER) is the one DEVNS_SLURM_VERSION
 * spells.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devns_config.h"
#include "conf/nsrelease.h"
#include "tap.h"

/* Nobody can make it: /var/spool is root's, 0755 (the loader checks so). */
#define BASE "/var/spool/devns-test-nsrelease-none"

static char msgs[4096];
static int errors;

static void collect(enum report_level level, const char *msg, void *arg)
{
	size_t n = strlen(msgs);

	(void)arg;
	if (level != REPORT_ERROR)
		return;
	errors++;
	snprintf(msgs + n, sizeof(msgs) - n, "%s\n", msg);
}

static struct nsconf *load(const char *text)
{
	struct report rep;
	struct nsconf *c;

	report_init(&rep, NULL, NULL);
	c = nsconf_load_text(text, "jc.conf", "n1", NULL, &rep);
	if (!ok(c != NULL, "precondition: the file parses%s%s",
		c ? "" : ": ", rep.msg))
		return NULL;
	return c;
}

/* nsrelease_check(c, release): its return, errors in msgs and errors. */
static int check(const struct nsconf *c, unsigned long release)
{
	struct report rep;

	msgs[0] = '\0';
	errors = 0;
	report_init(&rep, collect, NULL);
	errno = 0;
	return nsrelease_check(c, release, &rep);
}

static const char entire_msg[] =
	"jc.conf:2: EntireStepInNS=yes needs Slurm 24.11.1 or later (this "
	"Slurm does not let slurmstepd start in the job's namespace)\n";
static const char userns_msg[] =
	"jc.conf:3: UserNamespace=yes needs PidNamespace=yes before Slurm "
	"25.11 (logins adopted by pam_slurm_adopt reach the job's user "
	"namespace only through pam_devns and the PID namespace's init)\n";

static void test_entire_step(void)
{
	struct nsconf *c = load("BasePath=" BASE "\nEntireStepInNS=yes\n");

	if (!c)
		return;
	is_int(check(c, NSRELEASE_NUMBER(22, 5, 8)), -1,
	       "EntireStepInNS=yes on 22.05.8: refused");
	is_int(errno, EINVAL, "  EINVAL");
	is_str(msgs, entire_msg, "  with the file, the line and the release");
	is_int(check(c, NSRELEASE_NUMBER(24, 11, 0)), -1,
	       "  on 24.11.0: refused");
	is_int(check(c, NSRELEASE_NUMBER(24, 11, 1)), 0,
	       "  on 24.11.1: allowed");
	is_int(check(c, NSRELEASE_NUMBER(26, 5, 3)), 0, "  on 26.05.3: allowed");
	nsconf_free(c);
}

static void test_userns(void)
{
	struct nsconf *c = load("BasePath=" BASE "\n#\nUserNamespace=yes\n");

	if (!c)
		return;
	is_int(check(c, NSRELEASE_NUMBER(25, 5, 0)), -1,
	       "UserNamespace=yes without PidNamespace on 25.05: refused");
	is_str(msgs, userns_msg, "  with the file, the line and the release");
	is_int(check(c, NSRELEASE_NUMBER(25, 11, 0)), 0,
	       "  on 25.11.0: allowed");
	nsconf_free(c);
	if (!(c = load("BasePath=" BASE "\nPidNamespace=yes\n"
		       "UserNamespace=yes\n")))
		return;
	is_int(check(c, NSRELEASE_NUMBER(22, 5, 8)), 0,
	       "UserNamespace=yes with PidNamespace=yes on 22.05: allowed");
	nsconf_free(c);
}

/* The tool's release: configure's number is the version it spells. */
static void test_built_for(void)
{
	unsigned long major, minor, micro;
	char want[64];

	if (sscanf(DEVNS_SLURM_VERSION, "%lu.%lu.%lu", &major, &minor,
		   &micro) != 3) {
		ok(0, "DEVNS_SLURM_VERSION \"%s\" is MAJOR.MINOR.MICRO",
		   DEVNS_SLURM_VERSION);
		return;
	}
	snprintf(want, sizeof(want), "%lx", NSRELEASE_NUMBER(major, minor,
							    micro));
	{
		char got[64];

		snprintf(got, sizeof(got), "%lx",
			 (unsigned long)DEVNS_SLURM_VERSION_NUMBER);
		is_str(got, want, "DEVNS_SLURM_VERSION_NUMBER is %s's number",
		       DEVNS_SLURM_VERSION);
	}
}

int main(void)
{
	test_entire_step();
	test_userns();
	test_built_for();
	return tap_done();
}
