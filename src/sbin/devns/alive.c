/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * alive.c - a job's slurmstepd sockets and slurmd's pid file.  See
 * alive.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "alive.h"

/* Whether name is "<node>_<job_id>.<step>[.<component>]". */
static int is_step_of(const char *name, const char *node, uint32_t job_id)
{
	size_t len = strlen(node);
	unsigned job, step, comp;
	char end;
	int n;

	if (strncmp(name, node, len) || name[len] != '_')
		return 0;
	n = sscanf(name + len + 1, "%u.%u.%u%c", &job, &step, &comp, &end);
	if (n != 2 && n != 3)
		return 0;
	return job == job_id;
}

/* 1 when something listens on the socket at path, else 0. */
static int answers(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd, rc;

	if (strlen(path) >= sizeof(addr.sun_path))
		return 0;	/* Slurm cannot reach it either */
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return 0;
	/* A full backlog (EAGAIN) still means a stepd is there. */
	rc = connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0 ||
	     errno == EAGAIN || errno == EINPROGRESS;
	close(fd);
	return rc;
}

int alive_job(const char *spool, const char *node, uint32_t job_id,
	      char *answered, size_t len)
{
	char path[PATH_MAX];
	struct dirent *ep;
	int alive = 0;
	DIR *dp;

	if (!(dp = opendir(spool)))
		return -1;
	while (!alive && (ep = readdir(dp))) {
		if (ep->d_type != DT_SOCK && ep->d_type != DT_UNKNOWN)
			continue;
		if (!is_step_of(ep->d_name, node, job_id))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", spool, ep->d_name) >=
		    (int)sizeof(path))
			continue;
		if ((alive = answers(path)) && answered)
			snprintf(answered, len, "%s", path);
	}
	closedir(dp);
	return alive;
}

pid_t alive_slurmd(const char *pid_file)
{
	char path[64], comm[32] = "";
	FILE *f = fopen(pid_file, "re");
	long pid = 0;

	if (!f)
		return errno == ENOENT ? 0 : -1;
	if (fscanf(f, "%ld", &pid) != 1)
		pid = 0;
	fclose(f);
	if (pid <= 0 || pid > 0x7fffffff || kill((pid_t)pid, 0) < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	if (!(f = fopen(path, "re")))
		return 0;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	return strcmp(comm, "slurmd") ? 0 : (pid_t)pid;
}
