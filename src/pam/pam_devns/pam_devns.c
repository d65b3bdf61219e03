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
 * With UserNamespace, the login then goes into the job's user namespace,
 * last (in it the process has no capability on the host's namespaces),
 * the one the job's PID namespace init holds (pidns_userns_from_proc):
 * UserNamespace's logins need PidNamespace on releases before 25.11.
 * From 25.11 pam_slurm_adopt enters it itself where the job has no PID
 * namespace (namespace/devns hands it the fd).
 *
 * Fails closed: a job's PID or user namespace that cannot be entered, or
 * a filter that cannot be installed, refuses the login, which would
 * otherwise run with a /proc that does not show it, outside the job's
 * user namespace, or beyond the job's disk limit.
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
#include "ns/userns.h"

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

/* Set once the login is in the job's user namespace, where no setns works. */
#define USERNS_DONE "pam_devns_userns"

static int enter_user_namespace(pam_handle_t *pamh)
{
	int fd, rc = pidns_userns_from_proc(&fd);

	if (rc <= 0)
		return rc;
	if (userns_enter(fd) < 0)
		return -1;
	return pam_set_data(pamh, USERNS_DONE, (void *)1, NULL) == PAM_SUCCESS
		       ? 1 : -1;
}

static int enter(pam_handle_t *pamh, int refusal)
{
	const void *done = NULL;
	int rc;

	/* The account phase did it all; the session's comes after. */
	if (pam_get_data(pamh, USERNS_DONE, &done) == PAM_SUCCESS && done)
		return PAM_SUCCESS;
	rc = pidns_enter_from_proc();
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
	if (rc && enter_user_namespace(pamh) < 0) {
		pam_syslog(pamh, LOG_ERR,
			   "cannot enter the job's user namespace: %s",
			   strerror(errno));
		return refusal;
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
