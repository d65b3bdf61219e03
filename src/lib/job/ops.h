/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ops.h - the kernel calls a job's containment makes, in one table, so
 * that the unit tests can make each of them fail and check that nothing
 * runs uncontained and nothing is left behind (jobct.h).
 */
#ifndef DEVNS_JOB_OPS_H
#define DEVNS_JOB_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "dev/devpolicy.h"
#include "ns/dquota.h"
#include "ns/mntns.h"
#include "ns/nsimex.h"
#include "ns/userns.h"
#include "util/report.h"

/* The calls the lifecycle makes; jobct_real_ops are the real ones. */
struct jobct_ops {
	int (*ns_create)(const struct mntns_spec *spec, struct report *rep);
	/* through base_fd, BasePath's fd (-1: by path; ns/mntns.h) */
	int (*ns_join)(int base_fd, const char *base_path, uint32_t job_id);
	int (*ns_delete)(const char *base_path, uint32_t job_id);
	int (*ns_delete_behind)(const char *base_path, uint32_t job_id);
	int (*pidns_create)(const char *base_path, uint32_t job_id,
			    pid_t *init, struct report *rep);
	int (*pidns_contains_self)(const char *base_path, uint32_t job_id);
	int (*pidns_fork_inside)(const char *base_path, uint32_t job_id);
	int (*userns_create)(const char *base_path, uint32_t job_id, uid_t uid,
			     gid_t gid, userns_map_fn map, void *arg,
			     struct report *rep);
	int (*userns_open)(const char *base_path, uint32_t job_id);
	int (*userns_enter)(int fd);
	int (*cg_open_at)(int dir_fd, const char *relpath, bool create);
	int (*cg_move_pid)(int cg_fd, pid_t pid);
	int (*cg_remove)(int parent_fd, const char *name);
	int (*prog_create)(const struct devrule_list *list, char *log,
			   size_t log_size);
	int (*prog_attach)(int prog_fd, int cgroup_fd);
	/* an fd of our program attached to cgroup_fd, or -1 (ENOENT) */
	int (*prog_find)(int cgroup_fd);
	/* the caller's cgroup-v2 path, as cgroup2_proc_path gives it */
	int (*self_cgroup)(char *buf, size_t size);
	/* creates the job's marker file; returns an fd (closed) or -1 */
	int (*marker_create)(const char *path);
	int (*marker_stat)(const char *path, struct stat *st);
	/*
	 * Fills pids (up to max) with the processes pam_slurm_adopt put
	 * into the job's extern step (hybrid layout, where they are moved
	 * into the job's cgroup); returns how many, or -1.
	 */
	int (*extern_pids)(uint32_t job_id, pid_t *pids, size_t max);
	/* the project id of the job's directory (ns/dquota.h) */
	int (*job_project)(const char *base_path, uint32_t job_id,
			   uint32_t *projid);
	/* its project, limit and filesystem (ns/dquota.h) */
	int (*job_limit)(const char *base_path, uint32_t job_id,
			 struct dquota_job_limit *l);
	/* the switch's IMEX channel, in the job's namespace (ns/nsimex.h) */
	int (*imex_make)(const char *base_path, uint32_t job_id,
			 uint32_t major, nsimex_make_fn make, void *arg,
			 uint32_t *channel, struct report *rep);
};

extern const struct jobct_ops jobct_real_ops;

#endif /* DEVNS_JOB_OPS_H */
