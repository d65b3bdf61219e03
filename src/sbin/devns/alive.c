/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * alive.c - slurmd's pid file.  See alive.h.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "alive.h"

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
