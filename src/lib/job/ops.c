/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ops.c - the real kernel calls of a job's containment.  See ops.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "dev/cgroup2.h"
#include "dev/devprog.h"
#include "job/ops.h"
#include "ns/dquota.h"
#include "ns/nsimex.h"
#include "ns/nsreap.h"
#include "ns/pidns.h"
#include "ns/pidns_fork.h"
#include "slurmconv/jobcg.h"

static int real_marker_create(const char *path)
{
	return open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
}

static int real_marker_stat(const char *path, struct stat *st)
{
	return fstatat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}

static int real_self_cgroup(char *buf, size_t size)
{
	return cgroup2_proc_path(NULL, buf, size);
}

/*
 * The cgroup.procs of the job's extern step in the v1 freezer hierarchy,
 * where proctrack/cgroup puts the processes pam_slurm_adopt hands to the
 * stepd.  Found from the stepd's own freezer cgroup (.../job_<id>/...).
 */
static FILE *open_extern_procs(uint32_t job_id)
{
	char line[PATH_MAX], needle[32], path[PATH_MAX + 64];
	FILE *f = fopen("/proc/self/cgroup", "re"), *procs = NULL;
	size_t nlen;

	needle[0] = '/';
	jobcg_name(job_id, needle + 1, sizeof(needle) - 1);
	nlen = strlen(needle);
	while (f && !procs && fgets(line, sizeof(line), f)) {
		char *ctrl = strchr(line, ':'), *rel, *end;

		if (!ctrl || !(rel = strchr(ctrl + 1, ':')) ||
		    strncmp(ctrl + 1, "freezer:", 8))
			continue;
		/* "/job_12" must end a path component: not "/job_123" */
		for (end = strstr(rel, needle); end; end = strstr(end + 1, needle))
			if (strchr("/\n", end[nlen]))
				break;
		if (!end)
			continue;
		end[nlen] = '\0';
		snprintf(path, sizeof(path),
			 "/sys/fs/cgroup/freezer%s/" JOBCG_EXTERN_STEP "/cgroup.procs",
			 rel + 1);
		procs = fopen(path, "re");
	}
	if (f)
		fclose(f);
	if (!procs)
		errno = ENOENT;
	return procs;
}

/* The extern step's processes: the v1 freezer's cgroup.procs. */
static int real_extern_pids(uint32_t job_id, pid_t *pids, size_t max)
{
	FILE *procs = open_extern_procs(job_id);
	int pid, n = 0;

	if (!procs)
		return -1;
	while (fscanf(procs, "%d", &pid) == 1) {
		if ((size_t)n < max)
			pids[n] = pid;
		n++;
	}
	fclose(procs);
	return n;
}

const struct jobct_ops jobct_real_ops = {
	.ns_create = mntns_create,
	.ns_join = mntns_join_at,
	.ns_delete = mntns_delete,
	.ns_delete_behind = nsreap_delete,
	.pidns_create = pidns_create,
	.pidns_contains_self = pidns_contains_self,
	.pidns_fork_inside = pidns_fork_inside,
	.userns_create = userns_create,
	.userns_open = userns_open,
	.userns_enter = userns_enter,
	.cg_open_at = cgroup2_open_at,
	.cg_move_pid = cgroup2_move_pid,
	.cg_remove = cgroup2_remove,
	.prog_create = devprog_create,
	.prog_attach = devprog_attach,
	.prog_find = devprog_find_attached,
	.self_cgroup = real_self_cgroup,
	.marker_create = real_marker_create,
	.marker_stat = real_marker_stat,
	.extern_pids = real_extern_pids,
	.job_project = dquota_job_project,
	.job_limit = dquota_job_limit,
	.imex_make = nsimex_make,
};
