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
 * With TmpDiskLimit, the login also goes under the filter that keeps the
 * job's files in its disk limit's project (ns/dqguard.h), as every task
 * of the job does: the module sees it by the job's /tmp, which is then in
 * a project of its own.
 *
 * Fails closed: a job's PID namespace that cannot be entered, or a filter
 * that cannot be installed, refuses the login, which would otherwise run
 * with a /proc that does not show it, or beyond the job's disk limit.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#define PAM_SM_ACCOUNT
#define PAM_SM_SESSION
#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "ns/dqguard.h"
#include "ns/dquota.h"
#include "ns/pidns.h"

/* Whether the calling process's /tmp is in a project other than 0. */
static int tmp_in_project(void)
{
	int fd = open("/tmp", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	uint32_t projid = 0;
	int rc;

	if (fd < 0)
		return 0;	/* no /tmp: nothing to keep anywhere */
	rc = dquota_project(fd, &projid);
	close(fd);
	return rc == 0 && projid != 0;	/* a tmpfs has no projects */
}

static int enter(pam_handle_t *pamh, int refusal)
{
	int rc = pidns_enter_from_proc();

	if (rc < 0) {
		pam_syslog(pamh, LOG_ERR,
			   "cannot enter the job's PID namespace: %s",
			   strerror(errno));
		return refusal;
	}
	if (tmp_in_project()) {
		if (dqguard_install() < 0) {
			pam_syslog(pamh, LOG_ERR,
				   "cannot keep the login's files in the job's disk limit: %s",
				   strerror(errno));
			return refusal;
		}
		rc = 1;
	}
	return rc ? PAM_SUCCESS : PAM_IGNORE;
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
