/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * show.c - devns show JOBID: what the job has on this node, read from the
 * kernel: its directory and namespace pins under BasePath, the private
 * mounts inside the namespace and the processes in it; its device
 * cgroup(s) with their processes; the filter attached there with the
 * rules read back from the program's map (devinspect) and the device
 * opens it denied (its map of denials).  Every name and
 * path goes out escaped (print.h): the job chose many of them.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dev/devinspect.h"
#include "dev/devname.h"
#include "ns/pidns.h"
#include "util/mountinfo.h"
#include "devns.h"
#include "nsmounts.h"
#include "print.h"

/* Processes listed per namespace or cgroup, at most. */
#define SHOW_MAX_PIDS 4096
/* Programs listed per cgroup, at most. */
#define SHOW_MAX_PROGS 16

/* What show found, for its exit status. */
struct show {
	const struct jobct_node *node;
	struct report rep;
	int cgroups;	/* cgroups found */
	struct devnames names;	/* /dev, scanned for the first denial */
	bool scanned;
};

/*
 * The process's name into comm ("?" when it cannot be read).  The job
 * chose it: it may hold a newline, so only the one the kernel ends the
 * file with is taken off, and it is printed escaped.
 */
static void read_comm(pid_t pid, char *comm, size_t len)
{
	char path[64];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(fd, comm, len - 1);
		close(fd);
	}
	if (n > 0 && comm[n - 1] == '\n')
		n--;
	if (n <= 0)
		n = snprintf(comm, len, "?");
	comm[n] = '\0';
}

/* "KEY PID COMM" for each pid. */
static void print_pids(const char *key, const pid_t *pids, int n)
{
	char id[16], comm[64];

	for (int i = 0; i < n && i < SHOW_MAX_PIDS; i++) {
		read_comm(pids[i], comm, sizeof(comm));
		snprintf(id, sizeof(id), "%d", (int)pids[i]);
		print_fields(key, id, comm, (char *)NULL);
	}
}

static void print_mount(const struct mountinfo_entry *e, void *arg)
{
	(void)arg;
	print_fields("mount", e->point, e->fstype, e->root, e->options,
		     e->superopts[0] ? e->superopts : NULL, (char *)NULL);
}

/* The PID namespace (PidNamespace), when the job has one: its pin. */
static void show_pid_namespace(struct show *s, const struct jobct_remains *r)
{
	char pin[PATH_MAX + 8], ns[32];
	struct stat st;

	snprintf(pin, sizeof(pin), "%s/%s", r->job_dir,
		 NSCONF_PIDNS_PIN_NAME);
	if (!pidns_exists(s->node->conf->base_path, r->job_id) ||
	    stat(pin, &st) < 0) {
		print_kv("pidpin", "none");
		return;
	}
	snprintf(ns, sizeof(ns), "pid:[%ju]", (uintmax_t)st.st_ino);
	print_fields("pidpin", pin, ns, (char *)NULL);
}

/* The namespace: pin, private mounts, processes inside. */
static void show_namespace(struct show *s, const struct jobct_remains *r)
{
	const struct nsconf *c = s->node->conf;
	const char *dirs[NSCONF_MAX_DIRS + 2];
	char pin[PATH_MAX + 8], ns[32];
	pid_t *pids;
	size_t n = 0;
	int fd, count;

	print_kv("jobdir", r->has_job_dir ? r->job_dir : "none");
	if (!r->ns_id) {
		print_kv("pin", "none");
		return;
	}
	snprintf(pin, sizeof(pin), "%s/%s", r->job_dir, NSCONF_PIN_NAME);
	snprintf(ns, sizeof(ns), "mnt:[%" PRIu64 "]", r->ns_id);
	print_fields("pin", pin, ns, (char *)NULL);
	show_pid_namespace(s, r);
	for (size_t i = 0; c->dirs[i] && n < NSCONF_MAX_DIRS; i++)
		dirs[n++] = c->dirs[i];
	dirs[n++] = c->base_path;	/* hidden under a tmpfs inside */
	dirs[n] = NULL;
	if ((fd = jobct_ns_open(s->node, r->job_id, &s->rep)) > 0) {
		if (nsmounts_each(fd, dirs, print_mount, NULL) < 0)
			report_errno(&s->rep, errno,
				     "cannot read the mounts of its namespace");
		close(fd);
	}
	if (!(pids = calloc(SHOW_MAX_PIDS, sizeof(*pids))))
		return (void)report_errno(&s->rep, ENOMEM, "show");
	count = mntns_members(c->base_path, r->job_id, pids, SHOW_MAX_PIDS,
			      NULL);
	if (count < 0)
		report_errno(&s->rep, errno,
			     "cannot list the processes in its namespace");
	print_pids("nsproc", pids, count);
	free(pids);
}

static const char *attach_mode(uint32_t flags)
{
	if (flags & BPF_F_ALLOW_MULTI)
		return "multi";
	if (flags & BPF_F_ALLOW_OVERRIDE)
		return "override";
	return "exclusive";
}

/*
 * "denied TYPE MAJ:MIN ACCESS COUNT PATH" for each device and access the
 * program denied (PATH "-" when /dev has no name for it), "denied none",
 * or "denied not-counted" for a program that keeps no count.
 */
static void show_denials(struct show *s, int prog_fd, uint32_t id)
{
	struct devinspect_denial *d;
	char dev[64], count[24];
	int n = devinspect_denials(prog_fd, &d);

	if (n < 0 && errno == ENOENT)
		return print_kv("denied", "not-counted");
	if (n < 0)
		return (void)report_errno(&s->rep, errno,
					  "cannot read the denials of program %u",
					  id);
	if (n == 0)
		print_kv("denied", "none");
	for (int i = 0; i < n; i++) {
		const char *name = NULL;

		if (!d[i].type) {
			snprintf(count, sizeof(count), "%" PRIu64, d[i].count);
			print_fields("denied", "other", count, (char *)NULL);
			continue;
		}
		if (!s->scanned) {
			s->scanned = true;
			(void)devnames_scan(&s->names, s->node->dev_dir
						       ? s->node->dev_dir
						       : "/dev");
		}
		name = devnames_find(&s->names, d[i].type, d[i].major,
				     d[i].minor);
		devinspect_denial_format(&d[i], dev, sizeof(dev));
		snprintf(count, sizeof(count), "%" PRIu64, d[i].count);
		print_fields("denied", dev, count, name ? name : "-",
			     (char *)NULL);
	}
	free(d);
}

/* One attached program: id, name, and its rules when devfilter made it. */
static void show_program(struct show *s, uint32_t id, uint32_t flags)
{
	struct bpf_prog_info info;
	struct devrule_list list;
	char num[16];
	int fd = devinspect_prog_open(id);

	if (fd < 0 || devinspect_prog_info(fd, &info) < 0) {
		report_errno(&s->rep, errno, "program %u", id);
		if (fd >= 0)
			close(fd);
		return;
	}
	snprintf(num, sizeof(num), "%u", id);
	print_fields("program", num, info.name[0] ? info.name : "-",
		     attach_mode(flags), (char *)NULL);
	if (devinspect_is_devfilter(&info)) {
		if (devinspect_rules(fd, &list) < 0) {
			report_errno(&s->rep, errno,
				     "cannot read the rules of program %u", id);
		} else {
			print_rules(&list);
			devrule_list_free(&list);
		}
		show_denials(s, fd, id);
	}
	close(fd);
}

/* jobct_each_cgroup's callback: a cgroup, its processes, its programs. */
static int show_cgroup(const char *path, int cg_fd, void *arg)
{
	struct show *s = arg;
	uint32_t ids[SHOW_MAX_PROGS], flags = 0;
	pid_t *pids = calloc(SHOW_MAX_PIDS, sizeof(*pids));
	int n;

	s->cgroups++;
	print_kv("cgroup", path);
	if (!pids)
		return report_errno(&s->rep, ENOMEM, "show");
	if ((n = cgroup2_list_pids(cg_fd, pids, SHOW_MAX_PIDS)) < 0)
		report_errno(&s->rep, errno, "cannot list the processes of %s",
			     path);
	print_pids("proc", pids, n);
	free(pids);
	if ((n = devinspect_query(cg_fd, ids, SHOW_MAX_PROGS, &flags)) < 0)
		return report_errno(&s->rep, errno,
				    "cannot query the programs of %s", path);
	if (n == 0)
		print_kv("program", "none");
	for (int i = 0; i < n && i < SHOW_MAX_PROGS; i++)
		show_program(s, ids[i], flags);
	return 0;
}

int devns_show(const struct devns_opts *o)
{
	struct show s = { .cgroups = 0, .scanned = false };
	struct jobct_node *node;
	struct jobct_remains r;
	int rc = DEVNS_EXIT_FAIL;

	devns_report_init(&s.rep);
	devnames_init(&s.names);
	if (!(node = devns_node_load(o)))
		return DEVNS_EXIT_FAIL;
	s.node = node;
	if (jobct_remains(node, o->job_id, &r) < 0) {
		report_errno(&s.rep, errno, "job %u", o->job_id);
		goto out;
	}
	printf("job %u\n", o->job_id);
	print_kv("node", o->node);
	if (node->conf->base_path)
		show_namespace(&s, &r);
	print_kv("marker", r.has_marker ? r.marker : "none");
	if (jobct_each_cgroup(node, o->job_id, show_cgroup, &s) < 0)
		report_errno(&s.rep, errno, "cannot look at its cgroups");
	if (!s.cgroups)
		print_kv("cgroup", "none");
	if (!r.has_job_dir && !r.ns_id && !r.has_marker && !s.cgroups) {
		fprintf(stderr, "devns: job %u has nothing on node %s\n",
			o->job_id, o->node);
		goto out;
	}
	if (!s.rep.errors)
		rc = DEVNS_EXIT_OK;
out:
	fflush(stdout);
	devnames_free(&s.names);
	jobct_node_free(node);
	return rc;
}
