/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devns_devices.c - device containment of a job: policy -> program -> cgroup.
 *
 * The job's cgroup is <cgroup2 mount>/devns/<node>/job_<id>.  On the hybrid
 * and v1 layouts Slurm 22.05 supports, Slurm does not use the cgroup2
 * hierarchy, so devns keeps its own job cgroups there and moves every
 * process of the job into it when it joins (container_p_join); the BPF
 * program attached to that cgroup decides each device open and mknod.  The
 * node name in the path keeps several slurmd on one host (multiple-slurmd
 * test clusters) from removing each other's cgroups.
 *
 * When containment is asked for (a DevicePolicy other than auto, DeviceAllow
 * entries, or GRES devices on the node) every failure here fails the job:
 * the extern step reports it and the job does not run.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/common/slurm_xlator.h"
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmd/slurmd/slurmd.h"

#include "slurm_compat.h"
#include "cgroup2.h"
#include "devfilter.h"
#include "devpolicy.h"
#include "devns_devices.h"
#include "devns_gres.h"

extern slurmd_conf_t *conf;

#define PLUGIN "job_container/devns"
#define VERIFIER_LOG_SIZE 4096

/* Where a policy message came from, for "FILE:LINE: ..." and the job id. */
struct report_ctx {
	const char *file;	/* of the DeviceAllow value, NULL: none */
	int line;
	uint32_t job_id;	/* 0 while checking the configuration */
	char *err;		/* first error, for check_conf */
	size_t errlen;
	int errors;
};

static enum devpolicy_mode policy_mode(const struct nsconf *c)
{
	switch (c->device_policy) {
	case NSCONF_DEVPOLICY_CLOSED:
		return DEVPOLICY_CLOSED;
	case NSCONF_DEVPOLICY_STRICT:
		return DEVPOLICY_STRICT;
	default:
		return DEVPOLICY_AUTO;
	}
}

static void report(enum devpolicy_level level, const char *msg, void *arg)
{
	struct report_ctx *ctx = arg;
	const char *file = ctx->file ? ctx->file : "namespace.conf";
	char job[32] = "";

	if (ctx->job_id)
		snprintf(job, sizeof(job), "job %u: ", ctx->job_id);
	if (level == DEVPOLICY_WARNING) {
		devns_warning("%s: %s%s:%d: %s", PLUGIN, job, file, ctx->line,
			      msg);
		return;
	}
	if (!ctx->errors++ && ctx->err)
		snprintf(ctx->err, ctx->errlen, "%s:%d: %s", file, ctx->line,
			 msg);
	if (ctx->job_id)
		error("%s: %s%s:%d: %s", PLUGIN, job, file, ctx->line, msg);
}

/*
 * The syntax of every DeviceAllow of the file, whichever node its line
 * names: a typo on another node's line must stop this slurmd too, as every
 * other error in namespace.conf does, not wait for that node to start.
 * Devices are not looked at, since this node need not have them.
 */
static int check_all_syntax(const struct nsconf *c, struct report_ctx *ctx)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < c->device_allow_count; i++) {
		ctx->file = c->device_allow_all[i].file;
		ctx->line = c->device_allow_all[i].line;
		if (devpolicy_check_allow(c->device_allow_all[i].value, report,
					  ctx) < 0)
			rc = -1;
	}
	return rc;
}

int devns_devices_check_conf(const struct nsconf *c, char *err, size_t errlen)
{
	struct report_ctx ctx = { .err = err, .errlen = errlen };
	struct devrule_list list;
	int rc = 0;

	if (check_all_syntax(c, &ctx) < 0)
		return -1;
	if (!c->device_allow)
		return 0;
	/* This node's own value: its missing devices are warnings. */
	ctx.file = c->device_allow_file;
	ctx.line = c->device_allow_line;
	devrule_list_init(&list, false);
	if (devpolicy_parse_allow(c->device_allow, NULL, &list, report,
				  &ctx) < 0)
		rc = -1;
	devrule_list_free(&list);
	return rc;
}

/* <cgroup2>/devns/<node>, made on demand; -1 with errno. */
static int open_node_cgroup(bool create)
{
	char mount[PATH_MAX], rel[PATH_MAX];
	int root_fd, fd;

	if (cgroup2_find_mount(NULL, mount, sizeof(mount)) < 0)
		return -1;
	if ((root_fd = cgroup2_open(mount)) < 0)
		return -1;
	snprintf(rel, sizeof(rel), "devns/%s", conf->node_name);
	fd = cgroup2_open_at(root_fd, rel, create);
	close(root_fd);
	return fd;
}

/*
 * A marker in slurmd's spool directory (root only) records that the job has
 * a filter, so that a job process whose cgroup has vanished is refused
 * rather than run unfiltered.
 */
static void marker_path(char *buf, size_t len, uint32_t job_id)
{
	snprintf(buf, len, "%s/devns_filter_%u", conf->spooldir, job_id);
}

static int marker_create(uint32_t job_id)
{
	char path[PATH_MAX];
	int fd;

	marker_path(path, sizeof(path), job_id);
	fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/*
 * 1 when the job has a filter, 0 when it has none, -1 when that cannot be
 * told (any error but ENOENT, or something other than root's plain file
 * there): the caller must then refuse the process, never run it
 * unfiltered.
 */
static int marker_state(uint32_t job_id)
{
	char path[PATH_MAX];
	struct stat st;

	marker_path(path, sizeof(path), job_id);
	if (fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISREG(st.st_mode) || st.st_uid != 0) {
		errno = EINVAL;
		return -1;
	}
	return 1;
}

static void marker_remove(uint32_t job_id)
{
	char path[PATH_MAX];

	marker_path(path, sizeof(path), job_id);
	unlink(path);
}

/* The job's allow list; 0 with *needed false when no filter is wanted. */
static int job_rules(const struct nsconf *c, uint32_t job_id, void *step,
		     struct devrule_list *list, bool *needed)
{
	struct report_ctx ctx = {
		.file = c->device_allow_file,
		.line = c->device_allow_line,
		.job_id = job_id,
	};
	char **node_gres = devns_gres_node_devices();
	char **job_gres = NULL;
	struct devpolicy_input in = {
		.mode = policy_mode(c),
		.device_allow = c->device_allow,
	};
	int rc = -1;

	*needed = false;
	devrule_list_init(list, true);
	if (in.mode == DEVPOLICY_AUTO && !c->device_allow && !node_gres)
		return 0;	/* nothing to contain: no cgroup, no program */
	if (devns_gres_job_devices(job_id, step, &job_gres) < 0)
		goto out;
	in.node_gres = (const char *const *)node_gres;
	in.job_gres = (const char *const *)job_gres;
	if (devpolicy_build(&in, list, report, &ctx) < 0)
		goto out;
	*needed = devrule_list_needs_filter(list);
	rc = 0;
out:
	devns_gres_free(node_gres);
	devns_gres_free(job_gres);
	return rc;
}

static void log_rules(uint32_t job_id, const struct devrule_list *list)
{
	char buf[64];

	if (!(slurm_conf.debug_flags & DEBUG_FLAG_JOB_CONT))
		return;
	for (size_t i = 0; i < list->count; i++) {
		devrule_format(&list->rules[i], buf, sizeof(buf));
		log_flag(JOB_CONT, "%s: job %u allows %s", PLUGIN, job_id, buf);
	}
	log_flag(JOB_CONT, "%s: job %u: everything else %s", PLUGIN, job_id,
		 list->default_allow ? "allowed" : "denied");
}

/* The verifier log on one line of slurmd's log: "insn; insn; reason". */
static void one_line(char *log)
{
	size_t n = strlen(log);

	while (n && log[n - 1] == '\n')
		log[--n] = '\0';
	for (char *p = log; (p = strchr(p, '\n')); p++)
		*p = ';';
}

/* Load the program and attach it to a new cgroup for the job. */
static int apply_filter(uint32_t job_id, const struct devrule_list *list)
{
	char *vlog = xmalloc(VERIFIER_LOG_SIZE);
	int node_fd = -1, job_fd = -1, prog_fd = -1, rc = -1;

	if ((node_fd = open_node_cgroup(true)) < 0) {
		error("%s: job %u: no usable cgroup2 hierarchy for the device filter: %m",
		      PLUGIN, job_id);
		goto out;
	}
	if ((job_fd = cgroup2_job_open(node_fd, job_id, true)) < 0) {
		error("%s: job %u: cannot create its device cgroup: %m",
		      PLUGIN, job_id);
		goto out;
	}
	if ((prog_fd = devfilter_create(list, vlog, VERIFIER_LOG_SIZE)) < 0) {
		one_line(vlog);
		error("%s: job %u: the kernel refused the device filter: %m%s%s",
		      PLUGIN, job_id, vlog[0] ? "; verifier: " : "", vlog);
		goto out;
	}
	if (devfilter_attach(prog_fd, job_fd) < 0) {
		error("%s: job %u: cannot attach the device filter: %m",
		      PLUGIN, job_id);
		goto out;
	}
	if (marker_create(job_id) < 0) {
		error("%s: job %u: cannot record its device filter: %m",
		      PLUGIN, job_id);
		goto out;
	}
	rc = 0;
out:
	/* Attached, the program lives as long as the cgroup: no fd is kept. */
	if (prog_fd >= 0)
		close(prog_fd);
	if (job_fd >= 0)
		close(job_fd);
	if (rc < 0 && node_fd >= 0)
		cgroup2_job_remove(node_fd, job_id);
	if (node_fd >= 0)
		close(node_fd);
	xfree(vlog);
	return rc;
}

int devns_devices_setup(const struct nsconf *c, uint32_t job_id, void *step)
{
	struct devrule_list list;
	bool needed;
	int rc = -1;

	if (job_rules(c, job_id, step, &list, &needed) < 0) {
		error("%s: job %u: refusing the job: its device policy cannot be computed",
		      PLUGIN, job_id);
		goto out;
	}
	if (!needed) {
		rc = 0;
		goto out;
	}
	log_rules(job_id, &list);
	rc = apply_filter(job_id, &list);
out:
	devrule_list_free(&list);
	return rc;
}

int devns_devices_join(uint32_t job_id, pid_t pid)
{
	int node_fd, job_fd, rc, marker = marker_state(job_id);

	if (marker <= 0)
		return marker;	/* 0: no filter was asked for */
	if ((node_fd = open_node_cgroup(false)) < 0)
		return -1;
	job_fd = cgroup2_job_open(node_fd, job_id, false);
	close(node_fd);
	if (job_fd < 0)
		return -1;
	rc = cgroup2_move_pid(job_fd, pid);
	close(job_fd);
	return rc;
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

	nlen = snprintf(needle, sizeof(needle), "/job_%u", job_id);
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
			 "/sys/fs/cgroup/freezer%s/step_extern/cgroup.procs",
			 rel + 1);
		procs = fopen(path, "re");
	}
	if (f)
		fclose(f);
	if (!procs)
		errno = ENOENT;
	return procs;
}

int devns_devices_adopt(uint32_t job_id)
{
	int node_fd, job_fd, pid, rc = 0, marker = marker_state(job_id);
	FILE *procs;

	if (marker == 0)
		return 0;	/* the job has no filter */
	if (marker < 0) {
		error("%s: job %u: cannot tell whether it has a device filter: %m",
		      PLUGIN, job_id);
		return -1;
	}
	if ((node_fd = open_node_cgroup(false)) < 0)
		goto fail;
	job_fd = cgroup2_job_open(node_fd, job_id, false);
	close(node_fd);
	if (job_fd < 0)
		goto fail;
	if (!(procs = open_extern_procs(job_id))) {
		close(job_fd);
		error("%s: job %u: cannot find the extern step's freezer cgroup (adoption needs proctrack/cgroup on cgroup v1): %m",
		      PLUGIN, job_id);
		return -1;
	}
	while (fscanf(procs, "%d", &pid) == 1)
		if (cgroup2_move_pid(job_fd, pid) < 0 && errno != ESRCH) {
			error("%s: job %u: cannot move adopted pid %d into its device cgroup: %m",
			      PLUGIN, job_id, pid);
			rc = -1;
		}
	fclose(procs);
	close(job_fd);
	return rc;
fail:
	error("%s: job %u: cannot open its device cgroup for an adopted process: %m",
	      PLUGIN, job_id);
	return -1;
}

/* Processes that outlived the job would keep the cgroup busy: kill them. */
static void kill_leftovers(int node_fd, uint32_t job_id)
{
	int job_fd = cgroup2_job_open(node_fd, job_id, false);
	int fd;

	if (job_fd < 0)
		return;
	fd = openat(job_fd, "cgroup.kill", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		(void)!write(fd, "1", 1);
		close(fd);
	}
	close(job_fd);
}

int devns_devices_release(uint32_t job_id)
{
	int node_fd, rc, saved;

	marker_remove(job_id);
	if ((node_fd = open_node_cgroup(false)) < 0)
		return 0;
	rc = cgroup2_job_remove(node_fd, job_id);
	if (rc < 0 && errno == EBUSY) {
		kill_leftovers(node_fd, job_id);
		/* cgroup.kill is asynchronous; the last exits take a moment. */
		for (int i = 0; i < 100; i++) {
			usleep(10000);
			rc = cgroup2_job_remove(node_fd, job_id);
			if (rc == 0 || errno != EBUSY)
				break;
		}
	}
	if (rc < 0 && errno == ENOENT)
		rc = 0;
	saved = errno;
	close(node_fd);
	errno = saved;
	return rc;
}

int devns_devices_restore(bool (*alive)(uint32_t job_id, void *arg), void *arg)
{
	int node_fd = open_node_cgroup(false), rc = 0;
	struct dirent *ep;
	uint32_t job_id;
	DIR *dp;

	if (node_fd < 0)
		return 0;
	if (!(dp = fdopendir(node_fd))) {
		close(node_fd);
		return -1;
	}
	while ((ep = readdir(dp))) {
		if (sscanf(ep->d_name, "job_%u", &job_id) != 1 ||
		    alive(job_id, arg))
			continue;
		debug("%s: job %u ended, removing its device cgroup", PLUGIN,
		      job_id);
		if (devns_devices_release(job_id) < 0) {
			error("%s: job %u: cannot remove its device cgroup: %m",
			      PLUGIN, job_id);
			rc = -1;
		}
	}
	closedir(dp);
	return rc;
}
