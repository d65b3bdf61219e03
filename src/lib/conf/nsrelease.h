/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsrelease.h - what a Slurm release cannot give that the settings may
 * ask: the one table of release rules.  slurmd (the plugin, with
 * SLURM_VERSION_NUMBER) and devns check (with the release configure
 * found) both consult it, so that a file one refuses the other refuses,
 * with the same words.
 *
 *   EntireStepInNS=yes            before 24.11.1: Slurm does not let
 *                                 slurmstepd start in the job's namespace
 *   UserNamespace=yes without     before 25.11: a login adopted by
 *   PidNamespace=yes              pam_slurm_adopt reaches the job's user
 *                                 namespace only through pam_devns and
 *                                 the PID namespace's init
 *
 * Releases are numbered as Slurm's SLURM_VERSION_NUMBER:
 * major << 16 | minor << 8 | micro (22.05.8 is 0x160508).
 */
#ifndef DEVNS_NSRELEASE_H
#define DEVNS_NSRELEASE_H

#include "conf/nsconf.h"
#include "util/report.h"

#define NSRELEASE_NUMBER(major, minor, micro) \
	(((unsigned long)(major) << 16) | ((unsigned long)(minor) << 8) | \
	 (unsigned long)(micro))

/*
 * The first release of each rule; the plugin asserts at compile time
 * that slurm_compat.h's API generations agree with them.
 */
#define NSRELEASE_ENTIRE_STEP NSRELEASE_NUMBER(24, 11, 1)
#define NSRELEASE_USERNS_ALONE NSRELEASE_NUMBER(25, 11, 0)

/*
 * Refuse what conf asks that release cannot give: every rule it breaks
 * is an error in rep, "FILE:LINE: KEY=yes needs Slurm ..." with the line
 * of the setting.  Returns 0, or -1 with errno EINVAL after reporting
 * each.
 */
int nsrelease_check(const struct nsconf *conf, unsigned long release,
		    struct report *rep);

#endif /* DEVNS_NSRELEASE_H */
