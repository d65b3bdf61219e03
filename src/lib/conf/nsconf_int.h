/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsconf_int.h - what the files of the namespace.conf parser share, and
 * nothing outside it uses: the parser's state and its helpers.
 *
 *   nsconf.c         the public calls: parse, load, free; the checks made
 *                    on the node's result (keys from different lines)
 *   nsconf_lines.c   logical lines, NodeName scopes, the two passes
 *   nsconf_keys.c    the keys of global and NodeName lines, their table
 *   nsconf_allow.c   DeviceAllow lines, added up per kind
 *   nsconf_dirs.c    Dir lines, checked and filed by scope
 *   nsconf_resolve.c each private directory of the node, the most
 *                    specific setting winning
 *   nsconf_values.c  values: paths, booleans, sizes, Source templates,
 *                    system directories, and the messages
 *   nsconf_paths.c   the checks on the node's filesystem
 */
#ifndef DEVNS_NSCONF_INT_H
#define DEVNS_NSCONF_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf/nsconf.h"
#include "slurmconv/confread.h"
#include "util/report.h"

enum key {
	KEY_BASE_PATH,
	KEY_AUTO_BASE_PATH,
	KEY_DIRS,
	KEY_INIT_SCRIPT,
	KEY_SHARED,
	KEY_SHM_SIZE,
	KEY_TMP_SIZE,
	KEY_TMP_DISK_LIMIT,
	KEY_TMP_DISK_GRES,
	KEY_TMP_INODE_LIMIT,
	KEY_TMP_BACKEND,
	KEY_PID_NAMESPACE,
	KEY_USER_NAMESPACE,
	KEY_USER_NS_SCRIPT,
	KEY_NAMESPACE_POOL,
	KEY_DEVICE_POLICY,
	KEY_ENTIRE_STEP_IN_NS,
	KEY_CLONE_NS_SCRIPT,
	KEY_CLONE_NS_EPILOG,
	KEY_CLONE_NS_SCRIPT_WAIT,
	KEY_CLONE_NS_EPILOG_WAIT,
	KEY_CDI_SPEC_DIRS,
	KEY_KEEP_PATHS,
	KEY_DEVICE_ALLOW,
	/* the keys of a Dir line; they go into a struct dir_decl */
	KEY_DIR,
	KEY_TYPE,
	KEY_SIZE,
	KEY_OPTIONS,
	KEY_SOURCE,
	KEY_COUNT
};

#define DIR_KEYS ((1u << KEY_DIR) | (1u << KEY_TYPE) | (1u << KEY_SIZE) | \
		  (1u << KEY_OPTIONS) | (1u << KEY_SOURCE))

/* One Dir line: what it says, before defaults and shorthands. */
struct dir_decl {
	char *path;
	bool type_set;
	enum nsconf_dir_type type;
	uint64_t size;		/* 0: no Size= */
	unsigned size_percent;	/* Size=N%: N, 0: none */
	unsigned options;	/* NSCONF_OPT_* named by Options= */
	char *source;		/* NULL: no Source= */
	int line;
	char *scope;		/* NodeName value of its line, NULL: global */
};

/* A growing list of Dir lines. */
struct decl_list {
	struct dir_decl *v;
	size_t n;
};

struct parser {
	const char *name;     /* the file, for messages */
	const char *nodename; /* NULL: no NodeName line applies */
	const char *hostname; /* BasePath's %h; NULL: nodename */
	struct report *rep;
	int line;             /* line of the key being handled */
	bool pass2;           /* reading the NodeName lines for this node */
	struct nsconf *conf;  /* the result; conf->lines says where */
	unsigned set;         /* keys set in conf, one bit per enum key */
	unsigned node_set;    /* those a NodeName line set (pass 2) */
	struct decl_list global;   /* global Dir lines */
	struct decl_list scoped;   /* pass 1: every NodeName Dir line */
	struct decl_list node;     /* pass 2: those that name this node */
	const char *scope;    /* NodeName value of the current line */
	struct dir_decl decl; /* the Dir line being read */
	size_t listed;        /* how many private dirs Dirs (or its
			       * default) gave, before the Dir lines' */
	struct nsconf_allow *allow_read; /* pass 1: the NodeName lines'
					  * DeviceAllow, read, for pass 2 */
	size_t allow_read_count;
};

typedef int (*key_parse_fn)(struct parser *p, struct nsconf *c,
			    const char *key, const char *value);

struct key_def {
	const char *name;
	key_parse_fn parse;
	/* where in struct nsconf_lines its line goes, -1: nowhere */
	int line_at;
};

/* Free what c holds and reset it to the defaults of an empty file. */
void nsconf_clear(struct nsconf *c);

/* Indexed by enum key (nsconf_keys.c). */
extern const struct key_def nsconf_keys[KEY_COUNT];

/* Returns the key called name (any case), or KEY_COUNT if none is. */
enum key nsconf_key_find(const char *name);

/* ---- messages, values (nsconf_values.c) ------------------------------ */

/* Report an error on the current line.  Returns -1 with errno = EINVAL. */
__attribute__((format(printf, 2, 3)))
int nsconf_error(struct parser *p, const char *fmt, ...);

/* Report an error about the file as a whole; errno is left alone. */
__attribute__((format(printf, 3, 4)))
void nsconf_file_error(const char *name, struct report *rep,
		       const char *fmt, ...);

/* Free a NULL-terminated list of strings; NULL is fine. */
void nsconf_dirs_free(char **dirs);

/* The number of entries of a NULL-terminated list (NULL: 0). */
size_t nsconf_dirs_count(char **dirs);

/* Tell whether dirs[0..n) already holds path. */
bool nsconf_dirs_have(char **dirs, size_t n, const char *path);

/*
 * Call fn on each entry of value, a comma-separated list (Dirs, Options,
 * KeepPaths, CDISpecDirs), in order, as a string of its own that lives
 * for the call.  The one splitter of those lists.
 * An empty entry ("a,,b", ",a", "a,", "") is an error: "KEY: empty entry
 * in \"VALUE\"".  Returns 0, or -1 at the first entry fn refuses (fn
 * reported why) or with ENOMEM.
 */
int nsconf_list_each(struct parser *p, const char *key, const char *value,
		     int (*fn)(struct parser *p, const char *key,
			       const char *item, void *arg),
		     void *arg);

/* Tell whether path is dir or below it (both normalised). */
bool nsconf_path_within(const char *path, const char *dir);

/*
 * Check that path is absolute, has no "." or ".." component and is not
 * "/", and return a copy without repeated or trailing slashes.
 * Returns NULL with errno set (and a message for EINVAL).
 */
char *nsconf_path_normalize(struct parser *p, const char *key,
			    const char *path);

/* Replace *field with the normalised path value.  Returns 0 or -1. */
int nsconf_path_set(struct parser *p, char **field, const char *key,
		    const char *value);

/* yes/true/1, no/false/0 (any case) into *field.  Returns 0 or -1. */
int nsconf_bool_parse(struct parser *p, bool *field, const char *key,
		      const char *value);

/*
 * BasePath's value with its first %h made the node's hostname and then
 * its first %n its name, as Slurm's slurm_conf_expand_slurmd_path()
 * does; any other % stays as written.  Returns a new string to free(), or
 * NULL with errno (and a message for EINVAL: no node name to put in).
 */
char *nsconf_base_path_expand(struct parser *p, const char *key,
			      const char *value);

/* A size (digits, K/M/G/T, B or iB) into *field.  Returns 0 or -1. */
int nsconf_size_set(struct parser *p, uint64_t *field, const char *key,
		    const char *value);

/*
 * A tmpfs's size: a size as nsconf_size_set() into *bytes, or "N%" (N
 * from 1 to 100: a share of the job's memory on the node) into *percent;
 * the other is set to 0.  Returns 0 or -1.
 */
int nsconf_tmpfs_size_set(struct parser *p, uint64_t *bytes,
			  unsigned *percent, const char *key,
			  const char *value);

/*
 * Check the spelling of one Dirs entry beyond what path_normalize() does:
 * it is written as mntns will use it, so no doubled or trailing slash.
 */
int nsconf_dir_spelling_check(struct parser *p, const char *key,
			      const char *item);

/*
 * Refuse a private directory (path normalised) that is a system directory
 * (/, /etc, /usr, /var, /lib*, ...), in /proc or /sys, or, per user or
 * job (a %), has an escape Source= does not take, no fixed directory
 * before it, or lies in a directory every user writes to.  Returns 0, or
 * -1 after reporting.
 */
int nsconf_dir_system_check(struct parser *p, const char *key,
			    const char *path);

/*
 * Check that dirs[n], added after dirs[0..n), gets a backing directory of
 * its own in BasePath/<jobid>: a valid name, not the pin's, not another
 * entry's ("/var/tmp" and "/var_tmp" would share one directory).
 */
int nsconf_dir_backing_check(struct parser *p, const char *key, char **dirs,
			     size_t n);

/* Check the % sequences of a Source template: only %j %u %n %%. */
int nsconf_source_escapes_check(struct parser *p, const char *key,
				const char *value);

/* ---- Dir lines (nsconf_dirs.c) --------------------------------------- */

/* The keys of a Dir line; each fills p->decl. */
int nsconf_key_dir(struct parser *p, struct nsconf *c, const char *key,
		   const char *value);
int nsconf_key_type(struct parser *p, struct nsconf *c, const char *key,
		    const char *value);
int nsconf_key_size(struct parser *p, struct nsconf *c, const char *key,
		    const char *value);
int nsconf_key_options(struct parser *p, struct nsconf *c, const char *key,
		       const char *value);
int nsconf_key_source(struct parser *p, struct nsconf *c, const char *key,
		      const char *value);

/* Empty a Dir line, and a list of them. */
void nsconf_decl_clear(struct dir_decl *d);
void nsconf_decl_list_free(struct decl_list *l);

/*
 * File the Dir line in p->decl: a global line, or (pass 1) a NodeName
 * line, each at most once per path and scope; on pass 2 a NodeName line
 * of this node, which replaces an earlier one for the same path.
 */
int nsconf_decl_file(struct parser *p, bool scoped);

/* The Dir line of l for path, or NULL. */
struct dir_decl *nsconf_decl_find(struct decl_list *l, const char *path);

/* ---- private directories (nsconf_resolve.c) -------------------------- */

/*
 * Complete conf->dirs with the directories Dir lines add, and fill
 * conf->dir_conf, one entry per conf->dirs entry, each from its Dir line,
 * the TmpSize/ShmSize shorthands and the defaults: where a Dir line and
 * a shorthand disagree, the more specific wins (a NodeName line over a
 * global one), and on lines of one kind it is an error.  Returns 0, or
 * -1 with errno (and a message for EINVAL).
 */
int nsconf_dirs_resolve(struct parser *p);

/* ---- DeviceAllow (nsconf_allow.c) ------------------------------------ */

/* The DeviceAllow key: read on pass 1, added up into c. */
int nsconf_key_device_allow(struct parser *p, struct nsconf *c,
			    const char *key, const char *value);

/* Set c->device_allow to the values of c->allow joined.  0 or -1. */
int nsconf_allow_join(struct nsconf *c);

/* Free c's DeviceAllow lines and their joined value. */
void nsconf_allow_free(struct nsconf *c);

/* Free the DeviceAllow values pass 1 read for pass 2. */
void nsconf_allow_read_free(struct parser *p);

/* ---- lines (nsconf_lines.c) ------------------------------------------ */

/* Run one pass over text.  Returns 0, or -1 with errno set. */
int nsconf_text_parse(struct parser *p, const char *text, bool pass2);

#endif /* DEVNS_NSCONF_INT_H */
