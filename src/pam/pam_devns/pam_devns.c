/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pam_devns.c - PAM module: a login that pam_slurm_adopt put into a job
 * with PidNamespace=yes is born in the job's PID namespace.
 *
 * pam_slurm_adopt joins the login to the job's mount namespace with the
 * one namespace fd its slurmstepd hands out; a PID namespace cannot be
 * entered that way, and the login process itself cannot move into one.
 * After it, this module makes the process's future children (the user's
 * shell) be born in the PID namespace that the job's /proc shows
 * (ns/pidns.h, pidns_enter_from_proc).  A login outside such a job is left
 * alone (PAM_IGNORE).
 *
 *   account  required  pam_slurm_adopt.so ...
 *   account  required  pam_devns.so
 *
 * Fails closed: a job's PID namespace that cannot be entered refuses the
 * login, which would otherwise run with a /proc that does not show it.
 */
#include <errno.h>
#include <string.h>
#include <syslog.h>

#define PAM_SM_ACCOUNT
#define PAM_SM_SESSION
#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "ns/pidns.h"

static int enter(pam_handle_t *pamh, int refusal)
{
	int rc = pidns_enter_from_proc();

	if (rc == 0)
		return PAM_IGNORE;
	if (rc < 0) {
		pam_syslog(pamh, LOG_ERR,
			   "cannot enter the job's PID namespace: %s",
			   strerror(errno));
		return refusal;
	}
	return PAM_SUCCESS;
}

PAM_EXTERN int pam_sm_acct_mgmt(pam_handle_t *pamh, int flags, int argc,
				const char **argv)
{
	(void)flags;
	(void)argc;
	(void)argv;
	return enter(pamh, PAM_PERM_DENIED);
}

PAM_EXTERN int pam_sm_open_session(pam_handle_t *pamh, int flags, int argc,
				   const char **argv)
{
	(void)flags;
	(void)argc;
	(void)argv;
	return enter(pamh, PAM_SESSION_ERR);
}

PAM_EXTERN int pam_sm_close_session(pam_handle_t *pamh, int flags, int argc,
				    const char **argv)
{
	(void)pamh;
	(void)flags;
	(void)argc;
	(void)argv;
	return PAM_IGNORE;
}
