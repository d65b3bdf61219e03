/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsconf_keys.c - the keys of global and NodeName lines (BasePath, Dirs,
 * ..., DeviceAllow), each parsed into struct nsconf, and the table of
 * every key.  See nsconf_int.h.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf/nsconf_int.h"
#include "dev/devpolicy.h"

static const char *const shared_dirs[] = NSCONF_SHARED_DIRS;

/* ---- keys ------------------------------------------------------------ */

/*
 * Jobs' directories under BasePath must be out of every user's reach: in a
 * world-writable sticky directory a user could make the path first, or
 * replace a component, and steer root's mounts and removals.
 */
static int key_base_path(struct parser *p, struct nsconf *c, const char *key,
			 const char *value)
{
	char *path, *expanded;
	int i;

	if (!strcasecmp(value, "none")) {
		free(c->base_path);
		c->base_path = NULL;
		return 0;
	}
	if (!(expanded = nsconf_base_path_expand(p, key, value)))
		return -1;
	path = nsconf_path_normalize(p, key, expanded);
	free(expanded);
	if (!path)
		return -1;
	for (i = 0; shared_dirs[i]; i++) {
		if (!strcmp(path, shared_dirs[i])) {
			free(path);
			return nsconf_error(p, "%s: \"%s\" is %s, which every "
					   "user can write to (use a directory "
					   "only root can write to, in "
					   "directories only root can write "
					   "to, such as "
					   "/var/spool/slurm/devns)", key,
					   value, shared_dirs[i]);
		}
	}
	free(c->base_path);
	c->base_path = path;
	return 0;
}

static int key_auto_base_path(struct parser *p, struct nsconf *c,
			      const char *key, const char *value)
{
	return nsconf_bool_parse(p, &c->auto_base_path, key, value);
}

/* Dirs' entries so far. */
struct dir_list {
	char **dirs;		/* max + 1, NULL-terminated */
	size_t n;
};

/* Check one Dirs entry and add it to the list.  Returns 0 or -1. */
static int dir_add(struct parser *p, const char *key, const char *item,
		   void *arg)
{
	struct dir_list *d = arg;
	char *path;

	if (nsconf_dir_spelling_check(p, key, item) < 0)
		return -1;
	if (!(path = nsconf_path_normalize(p, key, item)))
		return -1;
	if (nsconf_dir_system_check(p, key, path) < 0) {
		free(path);
		return -1;
	}
	if (nsconf_dirs_have(d->dirs, d->n, path)) {
		free(path);
		return nsconf_error(p, "%s: \"%s\" is listed twice", key, item);
	}
	d->dirs[d->n] = path;
	if (nsconf_dir_backing_check(p, key, d->dirs, d->n) < 0)
		return -1; /* d->dirs[d->n] is freed with d->dirs */
	d->n++;
	return 0;
}

static int key_dirs(struct parser *p, struct nsconf *c, const char *key,
		    const char *value)
{
	struct dir_list d = { NULL, 0 };
	size_t max = 1;

	for (const char *s = value; *s; s++)
		max += *s == ',';
	/* mntns plans every mount before fork(), in a fixed array. */
	if (max > NSCONF_MAX_DIRS)
		return nsconf_error(p, "%s: %zu entries in \"%s\", at most %d "
				   "are supported", key, max, value,
				   NSCONF_MAX_DIRS);
	if (!(d.dirs = calloc(max + 1, sizeof(*d.dirs))))
		return -1;
	if (nsconf_list_each(p, key, value, dir_add, &d) < 0) {
		nsconf_dirs_free(d.dirs);
		return -1;
	}
	nsconf_dirs_free(c->dirs);
	c->dirs = d.dirs;
	return 0;
}

static int key_init_script(struct parser *p, struct nsconf *c,
			   const char *key, const char *value)
{
	return nsconf_path_set(p, &c->init_script, key, value);
}

static int key_shared(struct parser *p, struct nsconf *c, const char *key,
		      const char *value)
{
	return nsconf_bool_parse(p, &c->shared, key, value);
}

static int key_shm_size(struct parser *p, struct nsconf *c, const char *key,
			const char *value)
{
	return nsconf_tmpfs_size_set(p, &c->shm_size, &c->shm_percent, key,
				     value);
}

static int key_tmp_size(struct parser *p, struct nsconf *c, const char *key,
			const char *value)
{
	return nsconf_tmpfs_size_set(p, &c->tmp_size, &c->tmp_percent, key,
				     value);
}

/*
 * TmpDiskLimit=SIZE, or "request": each job's --tmp, which the job's
 * record from slurmctld carries on every supported release.
 */
static int key_tmp_disk_limit(struct parser *p, struct nsconf *c,
			      const char *key, const char *value)
{
	c->tmp_disk_request = !strcasecmp(value, "request");
	if (c->tmp_disk_request) {
		c->tmp_disk_limit = 0;
		return 0;
	}
	if (nsconf_size_set(p, &c->tmp_disk_limit, key, value) < 0)
		return -1;
	/* Project quotas count 1 KiB blocks: 0 would mean no limit. */
	if (c->tmp_disk_limit < 1024)
		return nsconf_error(p, "%s: \"%s\" is below 1K, the smallest "
				   "limit a project quota takes", key, value);
	return 0;
}

/*
 * TmpDiskGres=NAME: a GRES name as gres.conf's Name= (letters, digits,
 * '_' and '-'; at most 63, GRES detail strings' longest), or "none".
 */
static int key_tmp_disk_gres(struct parser *p, struct nsconf *c,
			     const char *key, const char *value)
{
	size_t n = strspn(value, "abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");
	char *name;

	if (!value[0] || value[n] || n > 63)
		return nsconf_error(p, "%s: \"%s\" is no GRES name (letters, "
				   "digits, '_' and '-', at most 63)", key,
				   value);
	if (!strcasecmp(value, "none")) {
		free(c->tmp_disk_gres);
		c->tmp_disk_gres = NULL;
		return 0;
	}
	if (!(name = strdup(value)))
		return nsconf_error(p, "%s: %s", key, strerror(errno));
	free(c->tmp_disk_gres);
	c->tmp_disk_gres = name;
	return 0;
}

static int key_tmp_inode_limit(struct parser *p, struct nsconf *c,
			       const char *key, const char *value)
{
	unsigned long long n;
	char *end;

	errno = 0;
	n = strtoull(value, &end, 10);
	if (value[0] < '0' || value[0] > '9' || *end || errno ||
	    n < NSCONF_INODE_FLOOR)
		return nsconf_error(p, "%s: invalid count \"%s\" (a number of "
				   "files and directories, at least %d)", key,
				   value, NSCONF_INODE_FLOOR);
	c->tmp_inode_limit = n;
	return 0;
}

static int key_tmp_backend(struct parser *p, struct nsconf *c,
			   const char *key, const char *value)
{
	if (!strcasecmp(value, "dir"))
		c->tmp_backend = NSCONF_TMP_DIR;
	else if (!strcasecmp(value, "loop"))
		c->tmp_backend = NSCONF_TMP_LOOP;
	else
		return nsconf_error(p, "%s: invalid value \"%s\" (dir or "
				   "loop)", key, value);
	return 0;
}

static int key_pid_namespace(struct parser *p, struct nsconf *c,
			     const char *key, const char *value)
{
	return nsconf_bool_parse(p, &c->pid_namespace, key, value);
}

static int key_namespace_pool(struct parser *p, struct nsconf *c,
			      const char *key, const char *value)
{
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(value, &end, 10);
	if (value[0] < '0' || value[0] > '9' || *end || errno ||
	    n > NSCONF_POOL_MAX)
		return nsconf_error(p, "%s: invalid count \"%s\" (0 to %d "
				   "namespaces kept ready)", key, value,
				   NSCONF_POOL_MAX);
	c->namespace_pool = (unsigned)n;
	return 0;
}

static int key_entire_step_in_ns(struct parser *p, struct nsconf *c,
				 const char *key, const char *value)
{
	return nsconf_bool_parse(p, &c->entire_step_in_ns, key, value);
}

static int key_user_namespace(struct parser *p, struct nsconf *c,
			      const char *key, const char *value)
{
	return nsconf_bool_parse(p, &c->user_namespace, key, value);
}

static int key_user_ns_script(struct parser *p, struct nsconf *c,
			      const char *key, const char *value)
{
	return nsconf_path_set(p, &c->user_ns_script, key, value);
}

static int key_clone_ns_script(struct parser *p, struct nsconf *c,
			       const char *key, const char *value)
{
	return nsconf_path_set(p, &c->clone_ns_script, key, value);
}

static int key_clone_ns_epilog(struct parser *p, struct nsconf *c,
			       const char *key, const char *value)
{
	return nsconf_path_set(p, &c->clone_ns_epilog, key, value);
}

/*
 * Seconds, as Slurm's S_P_UINT32, 0 for no limit (tmpfs's run_command
 * waits forever on 0); at most what Slurm's limit in milliseconds, an
 * int, can hold.
 */
static int wait_parse(struct parser *p, unsigned *field, const char *key,
		      const char *value)
{
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(value, &end, 10);
	if (value[0] < '0' || value[0] > '9' || *end || errno ||
	    n > NSCONF_SCRIPT_WAIT_MAX)
		return nsconf_error(p, "%s: invalid number of seconds \"%s\" "
				   "(0, no limit, to %d)", key, value,
				   NSCONF_SCRIPT_WAIT_MAX);
	*field = (unsigned)n;
	return 0;
}

static int key_clone_ns_script_wait(struct parser *p, struct nsconf *c,
				    const char *key, const char *value)
{
	return wait_parse(p, &c->clone_ns_script_wait, key, value);
}

static int key_clone_ns_epilog_wait(struct parser *p, struct nsconf *c,
				    const char *key, const char *value)
{
	return wait_parse(p, &c->clone_ns_epilog_wait, key, value);
}

static int key_device_policy(struct parser *p, struct nsconf *c,
			     const char *key, const char *value)
{
	if (devpolicy_mode_parse(value, &c->device_policy) == 0)
		return 0;
	return nsconf_error(p, "%s: invalid policy \"%s\" (use auto, closed, "
			   "strict or none)", key, value);
}

/* CDISpecDirs' entries so far, joined by ",". */
struct cdi_dirs {
	char *out;
	size_t len;
};

/* Append one CDISpecDirs entry, normalised. */
static int cdi_dir_add(struct parser *p, const char *key, const char *item,
		       void *arg)
{
	struct cdi_dirs *d = arg;
	char *path = nsconf_path_normalize(p, key, item), *grown;

	if (!path)
		return -1;
	grown = realloc(d->out, d->len + strlen(path) + 2);
	if (!grown) {
		free(path);
		return -1;
	}
	d->out = grown;
	d->len += (size_t)sprintf(d->out + d->len, "%s%s", d->len ? "," : "",
				  path);
	free(path);
	return 0;
}

/*
 * Absolute directories, comma-separated, each normalised; "none" (the
 * default) reads no spec.  Whether they exist is the load's business.
 */
static int key_cdi_spec_dirs(struct parser *p, struct nsconf *c,
			     const char *key, const char *value)
{
	struct cdi_dirs d = { NULL, 0 };

	if (!strcasecmp(value, "none")) {
		free(c->cdi_spec_dirs);
		c->cdi_spec_dirs = NULL;
		return 0;
	}
	if (nsconf_list_each(p, key, value, cdi_dir_add, &d) < 0) {
		free(d.out);
		return -1;
	}
	free(c->cdi_spec_dirs);
	c->cdi_spec_dirs = d.out;
	return 0;
}

/* KeepPaths' entries so far, and the value they come from. */
struct keep_list {
	const char *value;
	char **paths;		/* NSCONF_MAX_KEEP + 1, NULL-terminated */
	size_t n;
};

/* Add one KeepPaths entry: at most NSCONF_MAX_KEEP, none twice, no %. */
static int keep_add(struct parser *p, const char *key, const char *item,
		    void *arg)
{
	struct keep_list *k = arg;
	char *path;

	if (k->n == NSCONF_MAX_KEEP)
		return nsconf_error(p, "%s: more than %d entries in \"%s\"",
				    key, NSCONF_MAX_KEEP, k->value);
	if (nsconf_dir_spelling_check(p, key, item) < 0 ||
	    !(path = nsconf_path_normalize(p, key, item)))
		return -1;
	if (strchr(path, '%') || nsconf_dirs_have(k->paths, k->n, path)) {
		nsconf_error(p, "%s: \"%s\" %s", key, path,
			     strchr(path, '%') ? "has a %: a node path "
			     "is kept as it is" : "is listed twice");
		free(path);
		return -1;
	}
	k->paths[k->n++] = path;
	return 0;
}

/*
 * KeepPaths: absolute, normal directories, comma-separated, none twice,
 * no %; "none" (the default) keeps none.  Where each must lie (in a
 * private directory) is checked on the node's result.
 */
static int key_keep_paths(struct parser *p, struct nsconf *c,
			  const char *key, const char *value)
{
	struct keep_list k = { value, NULL, 0 };

	if (!strcasecmp(value, "none")) {
		nsconf_dirs_free(c->keep_paths);
		c->keep_paths = NULL;
		return 0;
	}
	if (!(k.paths = calloc(NSCONF_MAX_KEEP + 1, sizeof(*k.paths))))
		return -1;
	if (nsconf_list_each(p, key, value, keep_add, &k) < 0) {
		nsconf_dirs_free(k.paths);
		return -1;
	}
	nsconf_dirs_free(c->keep_paths);
	c->keep_paths = k.paths;
	return 0;
}

/* Indexed by enum key. */
#define AT(field) ((int)offsetof(struct nsconf_lines, field))

const struct key_def nsconf_keys[KEY_COUNT] = {
	[KEY_BASE_PATH] = { "BasePath", key_base_path, AT(base_path) },
	[KEY_AUTO_BASE_PATH] = { "AutoBasePath", key_auto_base_path,
				 AT(auto_base_path) },
	[KEY_DIRS] = { "Dirs", key_dirs, AT(dirs) },
	[KEY_INIT_SCRIPT] = { "InitScript", key_init_script, AT(init_script) },
	[KEY_SHARED] = { "Shared", key_shared, AT(shared) },
	[KEY_SHM_SIZE] = { "ShmSize", key_shm_size, AT(shm_size) },
	[KEY_TMP_SIZE] = { "TmpSize", key_tmp_size, AT(tmp_size) },
	[KEY_TMP_DISK_LIMIT] = { "TmpDiskLimit", key_tmp_disk_limit,
				 AT(tmp_disk_limit) },
	[KEY_TMP_DISK_GRES] = { "TmpDiskGres", key_tmp_disk_gres,
				AT(tmp_disk_gres) },
	[KEY_TMP_INODE_LIMIT] = { "TmpInodeLimit", key_tmp_inode_limit,
				  AT(tmp_inode_limit) },
	[KEY_TMP_BACKEND] = { "TmpBackend", key_tmp_backend,
			      AT(tmp_backend) },
	[KEY_PID_NAMESPACE] = { "PidNamespace", key_pid_namespace,
				AT(pid_namespace) },
	[KEY_USER_NAMESPACE] = { "UserNamespace", key_user_namespace,
				 AT(user_namespace) },
	[KEY_USER_NS_SCRIPT] = { "UserNsScript", key_user_ns_script,
				 AT(user_ns_script) },
	[KEY_NAMESPACE_POOL] = { "NamespacePool", key_namespace_pool,
				 AT(namespace_pool) },
	[KEY_DEVICE_POLICY] = { "DevicePolicy", key_device_policy,
				AT(device_policy) },
	[KEY_ENTIRE_STEP_IN_NS] = { "EntireStepInNS", key_entire_step_in_ns,
				    AT(entire_step_in_ns) },
	[KEY_CLONE_NS_SCRIPT] = { "CloneNSScript", key_clone_ns_script,
				  AT(clone_ns_script) },
	[KEY_CLONE_NS_EPILOG] = { "CloneNSEpilog", key_clone_ns_epilog,
				  AT(clone_ns_epilog) },
	[KEY_CLONE_NS_SCRIPT_WAIT] = { "CloneNSScript_Wait",
				       key_clone_ns_script_wait,
				       AT(clone_ns_script_wait) },
	[KEY_CLONE_NS_EPILOG_WAIT] = { "CloneNSEpilog_Wait",
				       key_clone_ns_epilog_wait,
				       AT(clone_ns_epilog_wait) },
	[KEY_CDI_SPEC_DIRS] = { "CDISpecDirs", key_cdi_spec_dirs,
				AT(cdi_spec_dirs) },
	[KEY_KEEP_PATHS] = { "KeepPaths", key_keep_paths, AT(keep_paths) },
	/* one line each: struct nsconf_allow */
	[KEY_DEVICE_ALLOW] = { "DeviceAllow", nsconf_key_device_allow, -1 },
	/* the Dir line's: struct nsconf_dir */
	[KEY_DIR] = { "Dir", nsconf_key_dir, -1 },
	[KEY_TYPE] = { "Type", nsconf_key_type, -1 },
	[KEY_SIZE] = { "Size", nsconf_key_size, -1 },
	[KEY_OPTIONS] = { "Options", nsconf_key_options, -1 },
	[KEY_SOURCE] = { "Source", nsconf_key_source, -1 },
};

/* Returns the key called name (any case), or KEY_COUNT if none is. */
enum key nsconf_key_find(const char *name)
{
	int k;

	for (k = 0; k < KEY_COUNT; k++) {
		if (!strcasecmp(name, nsconf_keys[k].name))
			break;
	}
	return (enum key)k;
}
