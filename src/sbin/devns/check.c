/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check.c - devns check: namespace.conf validated by the code slurmd runs
 * (jobct_node_load, the release rules of conf/nsrelease.h for the release
 * configure found, jobct_node_check) and, strictly, against the node
 * and slurm.conf's node names (confcheck_run), then the node's effective
 * settings, each with the line it came from, and the device rules a job
 * with the given GRES would get (jobct_device_rules), one "key value"
 * line each, like sshd -T.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "devns_config.h"
#include "dev/devcdi.h"
#include "devns.h"
#include "slurmconv/gresconf.h"
#include "print.h"
#include "conf/confcheck.h"
#include "ns/dquota.h"
#include "ns/nspool.h"
#include "conf/nsrelease.h"
#include "util/safepath.h"

/* The two GRES lists of the plan, and where they came from. */
struct gres_lists {
	struct gresconf conf;
	bool loaded;		/* a gres.conf was read */
	const char **node;	/* the node's device files, NULL: none */
	char **job;		/* the job's, NULL: none */
	size_t missing;		/* -n elsewhere: node files not here */
};

static void gres_lists_free(struct gres_lists *g)
{
	free(g->node);
	gresconf_files_free(g->job);
	gresconf_free(&g->conf);
}

/*
 * gres.conf (when --gres-conf names it, or the default one exists) and
 * --gres.  Returns 0, or -1 after printing why.
 */
static int gres_load(const struct devns_opts *o, struct gres_lists *g,
		     struct report *rep)
{
	const char *first = NULL;
	char more[48] = "";

	if (o->gres_conf_given || access(o->gres_conf, F_OK) == 0) {
		if (gresconf_load(o->gres_conf, o->node, &g->conf, rep) < 0)
			return -1;
		g->loaded = true;
	}
	if (gresconf_node_files(&g->conf, &g->node) < 0)
		return report_errno(rep, ENOMEM, "gres.conf");
	if (o->gres && gresconf_job_files(&g->conf, o->gres, &g->job, rep) < 0)
		return -1;
	/*
	 * Off the node its device files need not be here: the job's rules
	 * (device numbers) cannot be computed then, and are not.
	 */
	for (size_t i = 0; o->elsewhere && g->node && g->node[i]; i++) {
		struct stat st;

		if (stat(g->node[i], &st) == 0 || errno != ENOENT)
			continue;
		if (!g->missing++)
			first = g->node[i];
	}
	if (g->missing > 1)
		snprintf(more, sizeof(more), " (and %zu more)", g->missing - 1);
	if (g->missing)
		devns_note("GRES device file %s%s is not on this machine: the "
			   "device rules of a job on %s are not computed here",
			   first, more, o->node);
	return 0;
}

/* "dirs /tmp,/dev/shm (FROM)": the Dirs list, before the Dir lines'. */
static void print_dirs_list(const struct nsconf *c)
{
	char from[PATH_MAX + 32];

	printf("dirs ");
	for (size_t i = 0; c->dirs[i]; i++) {
		if (i)
			putchar(',');
		print_escaped(stdout, c->dirs[i]);
	}
	print_escaped(stdout, print_from(c->file, c->lines.dirs, from,
					 sizeof(from)));
	putchar('\n');
}

/*
 * Where a private directory's settings came from: its Dir line, the
 * TmpSize/ShmSize line that gave its size, else the Dirs line that lists
 * it; " (default)" when none did.
 */
static void dir_from(const struct nsconf *c, const struct nsconf_dir *d,
		     char *buf, size_t len)
{
	const char *shorthand = strcmp(d->path, "/tmp") ? "ShmSize"
							: "TmpSize";
	size_t n = 0;

	buf[0] = '\0';
	if (d->line)
		n += (size_t)snprintf(buf, len, "Dir %s:%d", c->file, d->line);
	if (d->shorthand_line && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%s%s %s:%d",
				      n ? ", " : "", shorthand, c->file,
				      d->shorthand_line);
	/* Without a Dir line the directory is one of the Dirs list. */
	if (!n && c->lines.dirs)
		snprintf(buf, len, "Dirs %s:%d", c->file, c->lines.dirs);
	else if (!n)
		snprintf(buf, len, "default");
}

/*
 * One line per private directory, as jobs get it: "dir PATH type=bind
 * options=nosuid,nodev[ source=TEMPLATE] (FROM)" or "dir PATH type=tmpfs
 * size=BYTES|default options=... (FROM)".
 */
static void print_dirs(const struct nsconf *c)
{
	for (size_t i = 0; c->dirs[i]; i++) {
		const struct nsconf_dir *d = &c->dir_conf[i];
		char opts[64], size[32] = "", from[2 * PATH_MAX + 64];

		nsconf_options_format(d->options, opts, sizeof(opts));
		if (d->type == NSCONF_DIR_TMPFS) {
			if (d->size_percent)
				snprintf(size, sizeof(size), " size=%u%%",
					 d->size_percent);
			else if (d->size)
				snprintf(size, sizeof(size), " size=%" PRIu64,
					 d->size);
			else
				snprintf(size, sizeof(size), " size=default");
		}
		dir_from(c, d, from, sizeof(from));
		printf("dir %s type=%s%s options=%s%s", d->path,
		       d->type == NSCONF_DIR_TMPFS ? "tmpfs" : "bind", size,
		       opts, d->source ? " source=" : "");
		if (d->source)
			print_escaped(stdout, d->source);
		fputs(" (", stdout);
		print_escaped(stdout, from);
		fputs(")\n", stdout);
	}
}

/*
 * One line per DeviceAllow line that applies, as written, with its line;
 * "deviceallow none" when none does.
 */
static void print_allow(const struct nsconf *c)
{
	for (size_t i = 0; i < c->allow_count; i++)
		print_kv_from("deviceallow", c->allow[i].value, c->file,
			      c->allow[i].line);
	if (!c->allow_count)
		print_kv_from("deviceallow", "none", c->file,
			      c->allow_none_line);
}

/* TmpBackend's value. */
static const char *tmp_backend_name(const struct nsconf *c)
{
	return c->tmp_backend == NSCONF_TMP_LOOP ? "loop" : "dir";
}

/*
 * Whether BasePath's filesystem enforces TmpDiskLimit: "enforced", or
 * "unknown" while BasePath does not exist yet (AutoBasePath), or "none"
 * without TmpDiskLimit, "loop" where no quota is needed (TmpBackend=loop:
 * each job's own filesystem holds it).  jobct_node_load() refused a node
 * where it cannot.
 */
static const char *disk_quota_state(const struct nsconf *c)
{
	int fd, rc;

	if (!nsconf_disk_limited(c) || !c->base_path)
		return "none";
	if (c->tmp_backend == NSCONF_TMP_LOOP)
		return "loop";
	if ((fd = safepath_open(c->base_path)) < 0)
		return "unknown";
	rc = dquota_probe(fd, c->base_path, NULL);
	close(fd);
	return rc == 0 ? "enforced" : "not enforced";
}

/* The node's settings, each with the line it came from. */
/* KeepPaths joined by ",", "" for none, into buf[len]. */
static void keep_paths_join(const struct nsconf *c, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; c->keep_paths && c->keep_paths[i]; i++) {
		int n = snprintf(buf + used, len - used, "%s%s",
				 used ? "," : "", c->keep_paths[i]);

		if (n < 0 || (size_t)n >= len - used)
			return;
		used += (size_t)n;
	}
}

static void print_settings(const struct devns_opts *o,
			   const struct jobct_node *node)
{
	const struct nsconf *c = jobct_node_conf(node);
	const struct nsconf_lines *l = &c->lines;
	const char *f = c->file;
	char n[32], keep[NSCONF_MAX_KEEP * (PATH_MAX + 1)];

	print_kv("file", o->conf_path);
	print_kv("node", o->node);
	print_kv_from("basepath", c->base_path ? c->base_path : "none", f,
		      l->base_path);
	print_kv_from("autobasepath", c->auto_base_path ? "yes" : "no", f,
		      l->auto_base_path);
	print_dirs_list(c);
	print_kv_from("initscript", c->init_script ? c->init_script : "none",
		      f, l->init_script);
	print_kv_from("clonensscript", c->clone_ns_script ? c->clone_ns_script
		      : "none", f, l->clone_ns_script);
	snprintf(n, sizeof(n), "%u", c->clone_ns_script_wait);
	print_kv_from("clonensscriptwait", n, f, l->clone_ns_script_wait);
	print_kv_from("clonensepilog", c->clone_ns_epilog ? c->clone_ns_epilog
		      : "none", f, l->clone_ns_epilog);
	snprintf(n, sizeof(n), "%u", c->clone_ns_epilog_wait);
	print_kv_from("clonensepilogwait", n, f, l->clone_ns_epilog_wait);
	print_kv_from("entirestepinns", c->entire_step_in_ns ? "yes" : "no", f,
		      l->entire_step_in_ns);
	print_kv_from("shared", c->shared ? "yes" : "no", f, l->shared);
	print_kv_from("pidnamespace", c->pid_namespace ? "yes" : "no", f,
		      l->pid_namespace);
	print_kv_from("usernamespace", c->user_namespace ? "yes" : "no", f,
		      l->user_namespace);
	print_kv_from("usernsscript", c->user_ns_script ? c->user_ns_script
		      : "none", f, l->user_ns_script);
	snprintf(n, sizeof(n), "%u", c->namespace_pool);
	print_kv_from("namespacepool", n, f, l->namespace_pool);
	printf("namespacepoolready %d\n",
	       c->base_path ? nspool_ready(c->base_path) : 0);
	print_share_from("shmsize", c->shm_size, c->shm_percent, f,
			 l->shm_size);
	print_share_from("tmpsize", c->tmp_size, c->tmp_percent, f,
			 l->tmp_size);
	if (c->tmp_disk_request)
		print_kv_from("tmpdisklimit", "request", f, l->tmp_disk_limit);
	else
		print_size_from("tmpdisklimit", c->tmp_disk_limit, f,
				l->tmp_disk_limit);
	print_kv_from("tmpdiskgres", c->tmp_disk_gres ? c->tmp_disk_gres
		      : "none", f, l->tmp_disk_gres);
	snprintf(n, sizeof(n), "%ju", (uintmax_t)c->tmp_inode_limit);
	print_kv_from("tmpinodelimit", n, f, l->tmp_inode_limit);
	print_kv_from("tmpbackend", tmp_backend_name(c), f, l->tmp_backend);
	print_kv("tmpdiskquota", disk_quota_state(c));
	keep_paths_join(c, keep, sizeof(keep));
	print_kv_from("keeppaths", keep[0] ? keep : "none", f, l->keep_paths);
	print_dirs(c);
	print_kv_from("devicepolicy", devpolicy_mode_name(c->device_policy), f,
		      l->device_policy);
	print_allow(c);
	print_kv_from("cdispecdirs", c->cdi_spec_dirs ? c->cdi_spec_dirs
		      : "none", f, l->cdi_spec_dirs);
	print_kv("cgrouplayout", o->elsewhere ? "unknown"
					      : jobct_node_layout(node));
}

/* "NODE,NODE" (escaped) of a resolved list, "none" when empty. */
static void print_nodes(const struct devcdi_nodes *n)
{
	if (!n->count)
		fputs("none", stdout);
	for (size_t i = 0; i < n->count; i++) {
		if (i)
			putchar(',');
		print_escaped(stdout, n->v[i].path);
	}
}

/*
 * CDISpecDirs' specs: "cdishared KIND NODES (SPEC)" per spec and
 * "cdidevice KIND=NAME job=yes|no NODES (SPEC:LINE)" per device, job
 * telling whether the --gres job gets it (dev/devcdi.h).
 */
static void print_cdi(const struct jobct_node *node,
		      const struct gres_lists *g)
{
	const struct devcdi *cdi = jobct_node_policy(node)->cdi;

	for (size_t s = 0; cdi && s < cdi->set.count; s++) {
		const struct cdispec *spec = &cdi->set.specs[s];

		fputs("cdishared ", stdout);
		print_escaped(stdout, spec->kind);
		putchar(' ');
		print_nodes(&cdi->specs[s].shared);
		fputs(" (", stdout);
		print_escaped(stdout, spec->file);
		fputs(")\n", stdout);
		for (size_t j = 0; j < spec->ndevs; j++) {
			fputs("cdidevice ", stdout);
			print_escaped(stdout, spec->kind);
			putchar('=');
			print_escaped(stdout, spec->devs[j].name);
			printf(" job=%s ", devcdi_selected(cdi, s, j, g->node,
				(const char *const *)g->job) ? "yes" : "no");
			print_nodes(&cdi->specs[s].devs[j]);
			fputs(" (", stdout);
			print_escaped(stdout, spec->file);
			printf(":%d)\n", spec->devs[j].line);
		}
	}
}

static void print_gres(const struct devns_opts *o, const struct gres_lists *g)
{
	print_kv("grescfg", g->loaded ? o->gres_conf : "none");
	for (size_t i = 0; g->node && g->node[i]; i++)
		print_kv("nodedevice", g->node[i]);
	for (size_t i = 0; g->job && g->job[i]; i++)
		print_kv("jobdevice", g->job[i]);
}

/* ---- --json: the same, as members of the output object (devns(8)) ---- */

/*
 * A setting of "settings" is {"key", "value", "source"}: value typed
 * (doc/json.md), source "FILE:LINE" or "default".  setting_begin() opens
 * it up to its value, setting_end() adds the source and closes it.
 */
static void setting_begin(struct json *j, const char *key)
{
	json_object_begin(j, NULL);
	json_string(j, "key", key);
}

static void source_of(const char *file, int line, char *buf, size_t len)
{
	if (line)
		snprintf(buf, len, "%s:%d", file, line);
	else
		snprintf(buf, len, "default");
}

static void setting_end(struct json *j, const char *file, int line)
{
	char from[PATH_MAX + 32];

	source_of(file, line, from, sizeof(from));
	json_string(j, "source", from);
	json_object_end(j);
}

/* A path or name, null for none. */
static void json_setting_str(struct json *j, const char *key,
			     const char *value, const char *file, int line)
{
	setting_begin(j, key);
	json_string(j, "value", value);
	setting_end(j, file, line);
}

static void json_setting_bool(struct json *j, const char *key, bool value,
			      const char *file, int line)
{
	setting_begin(j, key);
	json_bool(j, "value", value);
	setting_end(j, file, line);
}

static void json_setting_num(struct json *j, const char *key, uint64_t value,
			     const char *file, int line)
{
	setting_begin(j, key);
	json_uint(j, "value", value);
	setting_end(j, file, line);
}

/* A size in bytes, null for none (0). */
static void json_setting_size(struct json *j, const char *key, uint64_t bytes,
			      const char *file, int line)
{
	setting_begin(j, key);
	if (bytes)
		json_uint(j, "value", bytes);
	else
		json_null(j, "value");
	setting_end(j, file, line);
}

/*
 * "deviceallow": the entries of every line that applies, as written, a
 * list; "sources" each one's line, "source" the last one's (or that of
 * the DeviceAllow=none that emptied it, or "default").
 */
static void json_setting_allow(struct json *j, const struct nsconf *c)
{
	char from[PATH_MAX + 32];
	int last = c->allow_none_line;

	setting_begin(j, "deviceallow");
	json_array_begin(j, "value");
	for (size_t i = 0; i < c->allow_count; i++)
		json_string(j, NULL, c->allow[i].value);
	json_array_end(j);
	json_array_begin(j, "sources");
	for (size_t i = 0; i < c->allow_count; i++) {
		source_of(c->file, c->allow[i].line, from, sizeof(from));
		json_string(j, NULL, from);
		last = c->allow[i].line;
	}
	json_array_end(j);
	setting_end(j, c->file, last);
}

/* "settings": each of the file's settings with where it came from. */
static void json_settings(struct json *j, const struct nsconf *c)
{
	const struct nsconf_lines *l = &c->lines;
	const char *f = c->file;
	static char keep[NSCONF_MAX_KEEP * (PATH_MAX + 1)];

	json_array_begin(j, "settings");
	json_setting_str(j, "basepath", c->base_path, f, l->base_path);
	json_setting_bool(j, "autobasepath", c->auto_base_path, f,
			  l->auto_base_path);
	setting_begin(j, "dirs");
	json_array_begin(j, "value");
	for (size_t i = 0; c->dirs[i]; i++)
		json_string(j, NULL, c->dirs[i]);
	json_array_end(j);
	setting_end(j, f, l->dirs);
	json_setting_str(j, "initscript", c->init_script, f, l->init_script);
	json_setting_str(j, "clonensscript", c->clone_ns_script, f,
			 l->clone_ns_script);
	json_setting_num(j, "clonensscriptwait", c->clone_ns_script_wait, f,
			 l->clone_ns_script_wait);
	json_setting_str(j, "clonensepilog", c->clone_ns_epilog, f,
			 l->clone_ns_epilog);
	json_setting_num(j, "clonensepilogwait", c->clone_ns_epilog_wait, f,
			 l->clone_ns_epilog_wait);
	json_setting_bool(j, "entirestepinns", c->entire_step_in_ns, f,
			  l->entire_step_in_ns);
	json_setting_bool(j, "shared", c->shared, f, l->shared);
	json_setting_bool(j, "pidnamespace", c->pid_namespace, f,
			  l->pid_namespace);
	json_setting_bool(j, "usernamespace", c->user_namespace, f,
			  l->user_namespace);
	json_setting_str(j, "usernsscript", c->user_ns_script, f,
			 l->user_ns_script);
	json_setting_num(j, "namespacepool", c->namespace_pool, f,
			 l->namespace_pool);
	json_setting_size(j, "shmsize", c->shm_size, f, l->shm_size);
	json_setting_num(j, "shmsizepercent", c->shm_percent, f, l->shm_size);
	json_setting_size(j, "tmpsize", c->tmp_size, f, l->tmp_size);
	json_setting_num(j, "tmpsizepercent", c->tmp_percent, f, l->tmp_size);
	json_setting_size(j, "tmpdisklimit", c->tmp_disk_limit, f,
			  l->tmp_disk_limit);
	json_setting_bool(j, "tmpdisklimitrequest", c->tmp_disk_request, f,
			  l->tmp_disk_limit);
	json_setting_str(j, "tmpdiskgres", c->tmp_disk_gres, f,
			 l->tmp_disk_gres);
	json_setting_num(j, "tmpinodelimit", c->tmp_inode_limit, f,
			 l->tmp_inode_limit);
	json_setting_str(j, "tmpbackend", tmp_backend_name(c), f,
			 l->tmp_backend);
	json_setting_str(j, "devicepolicy",
			 devpolicy_mode_name(c->device_policy), f,
			 l->device_policy);
	json_setting_allow(j, c);
	json_setting_str(j, "cdispecdirs", c->cdi_spec_dirs, f,
			 l->cdi_spec_dirs);
	keep_paths_join(c, keep, sizeof(keep));
	json_setting_str(j, "keeppaths", keep[0] ? keep : NULL, f,
			 l->keep_paths);
	json_array_end(j);
}

/* "options": the mount options of a private directory, a list. */
static void json_options(struct json *j, unsigned options)
{
	char opts[64];

	nsconf_options_format(options, opts, sizeof(opts));
	json_array_begin(j, "options");
	for (char *o = strtok(opts, ","); o; o = strtok(NULL, ","))
		json_string(j, NULL, o);
	json_array_end(j);
}

/* "dirs": each private directory as jobs get it. */
static void json_dirs(struct json *j, const struct nsconf *c)
{
	json_array_begin(j, "dirs");
	for (size_t i = 0; c->dirs[i]; i++) {
		const struct nsconf_dir *d = &c->dir_conf[i];
		char from[2 * PATH_MAX + 64];

		dir_from(c, d, from, sizeof(from));
		json_object_begin(j, NULL);
		json_string(j, "path", d->path);
		json_string(j, "type", d->type == NSCONF_DIR_TMPFS ? "tmpfs"
								  : "bind");
		if (d->type == NSCONF_DIR_TMPFS && d->size)
			json_uint(j, "size", d->size);
		else
			json_null(j, "size");
		if (d->type == NSCONF_DIR_TMPFS && d->size_percent)
			json_uint(j, "sizepercent", d->size_percent);
		else
			json_null(j, "sizepercent");
		json_options(j, d->options);
		json_string(j, "source", d->source);
		json_string(j, "from", from);
		json_object_end(j);
	}
	json_array_end(j);
}

static void json_files(struct json *j, const char *key,
		       const char *const *files)
{
	json_array_begin(j, key);
	for (size_t i = 0; files && files[i]; i++)
		json_string(j, NULL, files[i]);
	json_array_end(j);
}

static void json_nodes(struct json *j, const char *key,
		       const struct devcdi_nodes *n)
{
	json_array_begin(j, key);
	for (size_t i = 0; i < n->count; i++)
		json_string(j, NULL, n->v[i].path);
	json_array_end(j);
}

/* "cdi": print_cdi()'s specs, [] without CDISpecDirs. */
static void json_cdi(struct json *j, const struct jobct_node *node,
		     const struct gres_lists *g)
{
	const struct devcdi *cdi = jobct_node_policy(node)->cdi;

	json_array_begin(j, "cdi");
	for (size_t s = 0; cdi && s < cdi->set.count; s++) {
		const struct cdispec *spec = &cdi->set.specs[s];

		json_object_begin(j, NULL);
		json_string(j, "file", spec->file);
		json_string(j, "kind", spec->kind);
		json_nodes(j, "shared", &cdi->specs[s].shared);
		json_array_begin(j, "devices");
		for (size_t d = 0; d < spec->ndevs; d++) {
			json_object_begin(j, NULL);
			json_string(j, "name", spec->devs[d].name);
			json_int(j, "line", spec->devs[d].line);
			json_bool(j, "job", devcdi_selected(cdi, s, d, g->node,
				  (const char *const *)g->job));
			json_nodes(j, "nodes", &cdi->specs[s].devs[d]);
			json_object_end(j);
		}
		json_array_end(j);
		json_object_end(j);
	}
	json_array_end(j);
}

/* The text output: "key value" lines (devns(8)). */
static void print_check(const struct devns_opts *o,
			const struct jobct_node *node,
			const struct gres_lists *g, bool filter,
			const char *note, const struct devrule_list *list,
			const struct devnames *names)
{
	print_settings(o, node);
	print_gres(o, g);
	print_cdi(node, g);
	if (g->missing) {
		printf("filter unknown (%s)\n", note);
		return;
	}
	if (note)
		printf("filter %s (%s)\n", filter ? "yes" : "no", note);
	else
		print_kv("filter", filter ? "yes" : "no");
	print_rules(list, names);
}

/* The --json output's members (devns(8)). */
static void json_check(const struct devns_opts *o,
		       const struct jobct_node *node,
		       const struct gres_lists *g, bool filter,
		       const char *note, const struct devrule_list *list,
		       const struct devnames *names)
{
	struct json *j = o->out;
	const struct nsconf *c = jobct_node_conf(node);

	json_string(j, "file", o->conf_path);
	json_string(j, "node", o->node);
	json_settings(j, c);
	json_int(j, "namespacepoolready",
		 c->base_path ? nspool_ready(c->base_path) : 0);
	json_string(j, "tmpdiskquota", disk_quota_state(c));
	json_dirs(j, c);
	json_string(j, "cgrouplayout", o->elsewhere ? NULL
						    : jobct_node_layout(node));
	json_string(j, "grescfg", g->loaded ? o->gres_conf : NULL);
	json_bool(j, "autodetect", g->conf.autodetect);
	json_files(j, "nodedevices", g->node);
	json_files(j, "jobdevices", (const char *const *)g->job);
	json_cdi(j, node, g);
	if (g->missing) {
		json_null(j, "filter");
		json_string(j, "filter_note", note);
		json_null(j, "rules");
		return;
	}
	json_bool(j, "filter", filter);
	json_string(j, "filter_note", note);
	json_object_begin(j, "rules");
	print_rules_json(j, list, names);
	json_object_end(j);
}

/*
 * Whether the job gets a filter, *filter, and the note that says why
 * devns cannot be sure (NULL: it can).  On a node whose gres.conf has
 * AutoDetect, Slurm finds devices that devns cannot see: from 23.02 the
 * extern step gets them (the job's GRES list) and the job is filtered even
 * where devns computed no filter; 22.05 gives the step no AutoDetect
 * device without File= (doc/slurm-releases.md), so nothing of them is
 * contained and slurmd warns at start.  Never "no" for a node that filters.
 */
static const char *filter_state(const struct jobct_node *node,
				const struct gres_lists *g, int filtered,
				bool *filter)
{
	*filter = filtered > 0;
	if (!g->conf.autodetect ||
	    devpolicy_never_filters(jobct_node_policy(node)))
		return NULL;
	if (filtered || strtoul(DEVNS_SLURM_VERSION, NULL, 10) >= 23) {
		*filter = true;
		return "devices from AutoDetect: not known to devns";
	}
	return "AutoDetect devices without File= are not contained on Slurm 22.05";
}

/*
 * What parses but would fail every job, or apply to no node
 * (conf/confcheck.h), strictly: every problem an error, each reported.
 */
static int node_check(const struct devns_opts *o,
		      const struct jobct_node *node, struct report *rep)
{
	struct confcheck_args args = {
		.strict = true,
		.slurm_nodes = (const char *const *)o->slurm_nodes,
		.elsewhere = o->elsewhere,
	};

	if (o->elsewhere)
		devns_note("%s is not this machine (%s): nothing of its "
			   "filesystem, kernel or cgroups is checked here (the "
			   "scripts, Source= directories, Dirs mount points and "
			   "what they hide, DeviceAllow patterns, BasePath's "
			   "quota, the cgroup layout); run devns check on the "
			   "node for them", o->node, o->host);
	return confcheck_run(jobct_node_conf(node), &args, rep);
}

int devns_check(const struct devns_opts *o)
{
	struct gres_lists g = { .loaded = false };
	struct jobct_slurm slurm = {
		.prolog_contain = o->prolog_contain,
		.step_cgroups = o->step_cgroups,
		.plugstack = o->plugstack,
		.contain_spank = o->contain_spank,
		.elsewhere = o->elsewhere,
		.gres = o->node_gres_known ? o->node_gres : NULL,
		.gres_unknown = !o->node_gres_known,
	};
	struct devrule_list list;
	struct devnames names;
	struct jobct_node *node;
	struct jobct_plan plan;
	struct report rep;
	const char *note;
	bool filter, failed;
	int filtered, rc = DEVNS_EXIT_FAIL;

	devns_report_init(&rep);
	if (!(node = devns_node_load(o)))
		return DEVNS_EXIT_FAIL;
	/* Every error of the file in one run: each check runs. */
	failed = nsrelease_check(jobct_node_conf(node),
				 DEVNS_SLURM_VERSION_NUMBER, &rep) < 0;
	failed |= node_check(o, node, &rep) < 0;
	if (gres_load(o, &g, &rep) < 0)
		goto out;
	slurm.node_has_devices = g.node != NULL;
	slurm.node_devices = g.node;
	if (jobct_node_check(node, &slurm, &rep) < 0 || failed)
		goto out;
	plan = (struct jobct_plan){
		.node = node,
		.node_devices = g.node,
		.job_devices = (const char *const *)g.job,
	};
	if (g.missing) {
		/* rules unknown: none printed, the filter "unknown" */
		devrule_list_init(&list, true);
		filtered = -1;
	} else if ((filtered = jobct_device_rules(&plan, &list, &rep)) < 0) {
		goto out;
	}
	if (print_names_load(&names, jobct_node_conf(node), g.node) < 0) {
		report_errno(&rep, ENOMEM, "device names");
	} else {
		if (g.missing) {
			filter = false;
			note = "GRES device files not on this machine";
		} else {
			note = filter_state(node, &g, filtered, &filter);
		}
		if (o->out)
			json_check(o, node, &g, filter, note, &list, &names);
		else
			print_check(o, node, &g, filter, note, &list, &names);
		rc = o->out || fflush(stdout) == 0 ? DEVNS_EXIT_OK
						  : DEVNS_EXIT_FAIL;
	}
	devnames_free(&names);
	devrule_list_free(&list);
out:
	gres_lists_free(&g);
	jobct_node_free(node);
	return rc;
}
