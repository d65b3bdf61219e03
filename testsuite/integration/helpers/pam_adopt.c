/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pam_adopt.c - log in through a PAM account stack, then run a command as
 * the user, the way sshd does with pam_slurm_adopt.
 *
 *   pam_adopt CONFDIR SERVICE USER CMD [ARG...]
 *
 * Reads the stack CONFDIR/SERVICE (so the test never touches /etc/pam.d),
 * runs pam_acct_mgmt for USER in this process and on success, as sshd
 * does, forks the session: the child drops to the user and execs CMD, the
 * parent exits with its status.  Whatever the account stack did to this
 * process (pam_slurm_adopt: the job's cgroups and mount namespace;
 * pam_devns: the PID namespace its children are born in) is what CMD runs
 * in.  PAM messages go to stderr; a refused account exits 1 with PAM's
 * reason.
 */
#include <grp.h>
#include <pwd.h>
#include <security/pam_appl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* No prompts are expected from an account stack: show messages, answer none. */
static int converse(int n, const struct pam_message **msg,
		    struct pam_response **resp, void *data)
{
	(void)data;
	for (int i = 0; i < n; i++)
		if (msg[i]->msg_style == PAM_ERROR_MSG ||
		    msg[i]->msg_style == PAM_TEXT_INFO)
			fprintf(stderr, "pam: %s\n", msg[i]->msg);
	*resp = calloc(n, sizeof(**resp));
	return *resp ? PAM_SUCCESS : PAM_BUF_ERR;
}

static int become(const char *user)
{
	struct passwd *pw = getpwnam(user);

	if (!pw) {
		fprintf(stderr, "pam_adopt: no user %s\n", user);
		return -1;
	}
	if (initgroups(user, pw->pw_gid) < 0 || setgid(pw->pw_gid) < 0 ||
	    setuid(pw->pw_uid) < 0) {
		perror("pam_adopt: dropping to the user");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct pam_conv conv = { converse, NULL };
	pam_handle_t *pamh = NULL;
	int rc, status;
	pid_t child;

	if (argc < 5) {
		fprintf(stderr, "usage: pam_adopt CONFDIR SERVICE USER CMD [ARG...]\n");
		return 2;
	}
	rc = pam_start_confdir(argv[2], argv[3], &conv, argv[1], &pamh);
	if (rc == PAM_SUCCESS)
		rc = pam_acct_mgmt(pamh, 0);
	if (rc != PAM_SUCCESS) {
		fprintf(stderr, "pam_adopt: account refused: %s\n",
			pam_strerror(pamh, rc));
		pam_end(pamh, rc);
		return 1;
	}
	pam_end(pamh, rc);
	child = fork();
	if (child < 0) {
		perror("pam_adopt: fork");
		return 1;
	}
	if (child == 0) {
		if (become(argv[3]) < 0)
			_exit(1);
		execvp(argv[4], argv + 4);
		perror("pam_adopt: exec");
		_exit(127);
	}
	if (waitpid(child, &status, 0) != child)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
