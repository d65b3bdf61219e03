/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * show.c - devns show JOBID: what the job has on this node, read from the
 * kernel: its directory and namespace pins under BasePath, the private
 * mounts inside the namespace and the processes in it; its device
 * cgroup(s) with their processes; the filter attached there with the
 * rules read back from the program's map (devinspect), each with the
 * device file it stands for, and the device opens it denied (its map of
 * denials); the job's filter state and disk limit as devns list prints
 * them.  Every name and path goes out escaped (print.h,
 * or util/json.h with --json): the job chose many of them.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf/jobdir.h"
#include "dev/devinspect.h"
#include "ns/pidns.h"
#include "ns/userns.h"
#include "util/mountinfo.h"
#include "devns.h"
#include "slurmconv/gresconf.h"
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
	struct json *j;	/* --json, NULL: text */
	struct devnames names;	/* of the rules' devices */
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

/* "KEY PID COMM" for each pid; JSON: "KEYs": [{"pid", "comm"}]. */
static void print_pids(struct show *s, const char *key, const pid_t *pids,
		       int n)
{
	char id[16], comm[64], array[16];

	if (s->j) {
		snprintf(array, sizeof(array), "%ss", key);
		json_array_begin(s->j, array);
	}
	for (int i = 0; i < n && i < SHOW_MAX_PIDS; i++) {
		read_comm(pids[i], comm, sizeof(comm));
		if (s->j) {
			json_object_begin(s->j, NULL);
			json_int(s->j, "pid", pids[i]);
			json_string(s->j, "comm", comm);
			json_object_end(s->j);
			continue;
		}
		snprintf(id, sizeof(id), "%d", (int)pids[i]);
		print_fields(key, id, comm, (char *)NULL);
	}
	if (s->j)
		json_array_end(s->j);
}

static void print_mount(const struct mountinfo_entry *e, void *arg)
{
	struct show *s = arg;

	if (!s->j) {
		print_fields("mount", e->point, e->fstype, e->root, e->options,
			     e->superopts[0] ? e->superopts : NULL,
			     (char *)NULL);
		return;
	}
	json_object_begin(s->j, NULL);
	json_string(s->j, "point", e->point);
	json_string(s->j, "fstype", e->fstype);
	json_string(s->j, "root", e->root);
	json_string(s->j, "options", e->options);
	json_string(s->j, "superoptions", e->superopts);
	json_object_end(s->j);
}

/* "KEY PIN ID" or "KEY none"; JSON: "KEY": {"pin", "id"} or null. */
static void print_pin(struct show *s, const char *key, const char *pin,
		      const char *id)
{
	if (!s->j) {
		if (pin)
			print_fields(key, pin, id, (char *)NULL);
		else
			print_kv(key, "none");
		return;
	}
	if (!pin) {
		json_null(s->j, key);
		return;
	}
	json_object_begin(s->j, key);
	json_string(s->j, "pin", pin);
	json_string(s->j, "id", id);
	json_object_end(s->j);
}

/* "KEY VALUE" or "KEY none"; JSON: "KEY": "VALUE" or null. */
static void print_path(struct show *s, const char *key, const char *value)
{
	if (s->j)
		json_string(s->j, key, value);
	else
		print_kv(key, value ? value : "none");
}

/*
 * The PID namespace (PidNamespace) or user namespace (UserNamespace) of
 * the job, when it has one: key, its pin and the namespace as the kernel
 * names it (kind:[inode]).
 */
static void show_other_namespace(struct show *s, const struct jobct_remains *r,
				 const char *key, const char *leaf,
				 const char *kind, bool exists)
{
	char pin[PATH_MAX + 8], ns[40];
	struct stat st;

	snprintf(pin, sizeof(pin), "%s/%s", r->job_dir, leaf);
	if (!exists || stat(pin, &st) < 0) {
		print_pin(s, key, NULL, NULL);
		return;
	}
	snprintf(ns, sizeof(ns), "%s:[%ju]", kind, (uintmax_t)st.st_ino);
	print_pin(s, key, pin, ns);
}

/*
 * With --json, what a job without a namespace lacks: the members are
 * there all the same (devns(8)), null or empty.
 */
static void json_no_namespace(struct show *s)
{
	if (!s->j)
		return;
	json_null(s->j, "pidpin");
	json_null(s->j, "userpin");
	json_array_begin(s->j, "mounts");
	json_array_end(s->j);
	json_array_begin(s->j, "nsprocs");
	json_array_end(s->j);
}

/* The namespace: pin, private mounts, processes inside. */
static void show_namespace(struct show *s, const struct jobct_remains *r)
{
	const struct nsconf *c = jobct_node_conf(s->node);
	const char *dirs[NSCONF_MAX_DIRS + 2];
	char pin[PATH_MAX + 8], ns[32];
	pid_t *pids;
	size_t n = 0;
	int fd, count;

	print_path(s, "jobdir", r->has_job_dir ? r->job_dir : NULL);
	if (!r->ns_id) {
		print_pin(s, "pin", NULL, NULL);
		json_no_namespace(s);
		return;
	}
	snprintf(pin, sizeof(pin), "%s/%s", r->job_dir, JOBDIR_NS_PIN);
	snprintf(ns, sizeof(ns), "mnt:[%" PRIu64 "]", r->ns_id);
	print_pin(s, "pin", pin, ns);
	show_other_namespace(s, r, "pidpin", JOBDIR_PIDNS_PIN, "pid",
			     pidns_exists(c->base_path, r->job_id));
	show_other_namespace(s, r, "userpin", JOBDIR_USERNS_PIN, "user",
			     userns_exists(c->base_path, r->job_id));
	for (size_t i = 0; c->dirs[i] && n < NSCONF_MAX_DIRS; i++)
		dirs[n++] = c->dirs[i];
	dirs[n++] = c->base_path;	/* hidden under a tmpfs inside */
	dirs[n] = NULL;
	if (s->j)
		json_array_begin(s->j, "mounts");
	if (jobct_ns_open(s->node, r->job_id, &fd, &s->rep) > 0) {
		if (nsmounts_each(fd, dirs, print_mount, s) < 0)
			report_errno(&s->rep, errno,
				     "cannot read the mounts of its namespace");
		close(fd);
	}
	if (s->j)
		json_array_end(s->j);
	if (!(pids = calloc(SHOW_MAX_PIDS, sizeof(*pids))))
		return (void)report_errno(&s->rep, ENOMEM, "show");
	count = mntns_members(c->base_path, r->job_id, pids, SHOW_MAX_PIDS,
			      NULL);
	if (count < 0)
		report_errno(&s->rep, errno,
			     "cannot list the processes in its namespace");
	print_pids(s, "nsproc", pids, count);
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

/* One denial as a JSON object; type null for the entry of a full map. */
static void show_denial_json(struct json *j, const struct devinspect_denial *d,
			     const char *name)
{
	char type[2] = { d->type, '\0' }, text[64];
	const char *access;

	json_object_begin(j, NULL);
	if (d->type) {
		/* "c 195:1 rw": the access is its last word */
		devinspect_denial_format(d, text, sizeof(text));
		access = strrchr(text, ' ');
		json_string(j, "type", type);
		json_uint(j, "major", d->major);
		json_uint(j, "minor", d->minor);
		json_string(j, "access", access ? access + 1 : "");
	} else {
		json_null(j, "type");
	}
	json_uint(j, "count", d->count);
	if (name)
		json_string(j, "path", name);
	else
		json_null(j, "path");
	json_object_end(j);
}

/*
 * The opens the devns program prog_fd denied, counted per device and
 * access by the program itself: "denied c 195:1 rw COUNT PATH" lines, or
 * the JSON member "denied" (null when the program does not count).
 */
static void show_denials(struct show *s, int prog_fd, uint32_t id)
{
	struct devinspect_denial *d;
	char dev[64], count[24];
	int n = devinspect_denials(prog_fd, &d);

	if (n < 0 && errno != ENOENT)
		report_errno(&s->rep, errno,
			     "cannot read the denials of program %u", id);
	if (n < 0) {
		if (s->j)
			json_null(s->j, "denied");
		else if (errno == ENOENT)
			print_kv("denied", "not-counted");
		return;
	}
	if (s->j)
		json_array_begin(s->j, "denied");
	else if (n == 0)
		print_kv("denied", "none");
	for (int i = 0; i < n; i++) {
		const char *name = d[i].type ? devnames_find(&s->names, d[i].type,
							     d[i].major,
							     d[i].minor)
					     : NULL;

		if (s->j) {
			show_denial_json(s->j, &d[i], name);
			continue;
		}
		snprintf(count, sizeof(count), "%" PRIu64, d[i].count);
		if (!d[i].type) {
			print_fields("denied", "other", count, (char *)NULL);
			continue;
		}
		devinspect_denial_format(&d[i], dev, sizeof(dev));
		print_fields("denied", dev, count, name ? name : "-",
			     (char *)NULL);
	}
	if (s->j)
		json_array_end(s->j);
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
	if (s->j) {
		json_object_begin(s->j, NULL);
		json_uint(s->j, "id", id);
		json_string(s->j, "name", info.name);
		json_string(s->j, "attach", attach_mode(flags));
		json_bool(s->j, "devns", devinspect_is_devfilter(&info));
	} else {
		snprintf(num, sizeof(num), "%u", id);
		print_fields("program", num, info.name[0] ? info.name : "-",
			     attach_mode(flags), (char *)NULL);
	}
	if (!devinspect_is_devfilter(&info)) {
		if (s->j)
			json_null(s->j, "rules");
	} else if (devinspect_rules(fd, &list) < 0) {
		report_errno(&s->rep, errno,
			     "cannot read the rules of program %u", id);
		if (s->j)
			json_null(s->j, "rules");
	} else {
		if (s->j) {
			json_object_begin(s->j, "rules");
			print_rules_json(s->j, &list, &s->names);
			json_object_end(s->j);
		} else {
			print_rules(&list, &s->names);
		}
		devrule_list_free(&list);
	}
	if (devinspect_is_devfilter(&info))
		show_denials(s, fd, id);
	if (s->j)
		json_object_end(s->j);
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
	if (s->j) {
		json_object_begin(s->j, NULL);
		json_string(s->j, "path", path);
	} else {
		print_kv("cgroup", path);
	}
	if (!pids) {
		n = report_errno(&s->rep, ENOMEM, "show");
		goto out;
	}
	if ((n = cgroup2_list_pids(cg_fd, pids, SHOW_MAX_PIDS)) < 0)
		report_errno(&s->rep, errno, "cannot list the processes of %s",
			     path);
	print_pids(s, "proc", pids, n);
	free(pids);
	if (s->j)
		json_array_begin(s->j, "programs");
	if ((n = devinspect_query(cg_fd, ids, SHOW_MAX_PROGS, &flags)) < 0) {
		report_errno(&s->rep, errno, "cannot query the programs of %s",
			     path);
	} else if (n == 0 && !s->j) {
		print_kv("program", "none");
	}
	for (int i = 0; i < n && i < SHOW_MAX_PROGS; i++)
		show_program(s, ids[i], flags);
	if (s->j)
		json_array_end(s->j);
out:
	if (s->j)
		json_object_end(s->j);
	return n < 0 ? -1 : 0;
}

/* "filter STATE" and "disk ..." as devns list prints them. */
static void show_filter_disk(struct show *s, const struct jobct_remains *r)
{
	if (!s->j) {
		print_kv("filter", print_filter_state(r));
		fputs("disk", stdout);
		print_disk(r);
		putchar('\n');
		return;
	}
	json_string(s->j, "filter", print_filter_state(r));
	print_disk_json(s->j, r);
}

/* The live figures of the job's private directories. */
static void show_usage(struct show *s, const struct jobct_remains *r)
{
	const struct nsconf *c = jobct_node_conf(s->node);

	if (s->j)
		print_usage_json(s->j, c, r);
	else
		print_usage(c, r, true);
}

/*
 * The names of the rules' devices: gres.conf's files of the node (when
 * there is a gres.conf: errors in it are check's business, so it is read
 * quietly), DeviceAllow's, /dev's.
 */
static int load_names(const struct devns_opts *o, struct show *s)
{
	struct gresconf g;
	const char **files = NULL;
	int rc;

	if (gresconf_load(o->gres_conf, o->node, &g, NULL) < 0 ||
	    gresconf_node_files(&g, &files) < 0)
		files = NULL;
	rc = print_names_load(&s->names, jobct_node_conf(s->node), files);
	free(files);
	gresconf_free(&g);
	return rc;
}

int devns_show(const struct devns_opts *o)
{
	struct show s = { .cgroups = 0 };
	struct jobct_node *node;
	struct jobct_remains r;
	int rc = DEVNS_EXIT_FAIL;

	devns_report_init(&s.rep);
	devnames_init(&s.names);
	s.j = o->out;
	if (!(node = devns_node_load(o)))
		return DEVNS_EXIT_FAIL;
	s.node = node;
	if (jobct_remains(node, o->job_id, &r) < 0) {
		report_errno(&s.rep, errno, "job %u", o->job_id);
		goto out;
	}
	if (load_names(o, &s) < 0) {
		report_errno(&s.rep, ENOMEM, "device names");
		goto out;
	}
	if (s.j) {
		json_uint(s.j, "job", o->job_id);
		json_string(s.j, "node", o->node);
	} else {
		printf("job %u\n", o->job_id);
		print_kv("node", o->node);
	}
	if (jobct_node_conf(node)->base_path) {
		show_namespace(&s, &r);
	} else if (s.j) {
		json_null(s.j, "jobdir");
		json_null(s.j, "pin");
		json_no_namespace(&s);
	}
	print_path(&s, "marker", r.has_marker ? r.marker : NULL);
	show_filter_disk(&s, &r);
	show_usage(&s, &r);
	if (s.j)
		json_array_begin(s.j, "cgroups");
	if (jobct_each_cgroup(node, o->job_id, show_cgroup, &s) < 0)
		report_errno(&s.rep, errno, "cannot look at its cgroups");
	if (s.j)
		json_array_end(s.j);
	else if (!s.cgroups)
		print_kv("cgroup", "none");
	if (!r.has_job_dir && !r.ns_id && !r.has_marker && !s.cgroups) {
		devns_error("job %u has nothing on node %s", o->job_id,
			    o->node);
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
