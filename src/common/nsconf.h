/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsconf.h - namespace.conf: the settings of job_container/devns for one
 * node, and their parser.
 *
 * The file uses Slurm's configuration syntax: lines of white-space
 * separated Key=Value pairs, keys case-insensitive, '#' starts a comment
 * (outside double quotes), a trailing '\' joins the next line, values may
 * be double-quoted.  Lines that start with NodeName=<hostlist> apply only
 * to the nodes named; see namespace.conf(5) for the keys.  Every error
 * (unknown key, malformed line, bad value) is fatal and named by file and
 * line, so that slurmd never starts on a file it misread.
 */
#ifndef DEVNS_NSCONF_H
#define DEVNS_NSCONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The most Dirs entries a job's namespace can hold (mntns sizes its plan,
 * made before fork(), by it); the parser refuses more.
 */
#define NSCONF_MAX_DIRS 16

/*
 * The namespace pin's name in BasePath/<jobid>, beside the backing
 * directories of Dirs entries: no backing directory may take it.
 */
#define NSCONF_PIN_NAME ".ns"

/* Directories every user may write to: BasePath must not be in one. */
#define NSCONF_SHARED_DIRS { "/tmp", "/var/tmp", "/dev/shm", NULL }

enum nsconf_devpolicy {
	NSCONF_DEVPOLICY_AUTO = 0,
	NSCONF_DEVPOLICY_CLOSED,
	NSCONF_DEVPOLICY_STRICT,
};

/* One DeviceAllow value as written, and where. */
struct nsconf_allow {
	char *value;
	char *file;
	int line;
};

struct nsconf {
	char *base_path;          /* NULL when BasePath=none */
	bool auto_base_path;
	char **dirs;              /* NULL-terminated, default {"/tmp","/dev/shm"} */
	char *init_script;        /* NULL when unset */
	bool shared;
	uint64_t shm_size;        /* bytes, 0 = unset */
	uint64_t tmp_size;        /* bytes, 0 = unset (then /tmp lives on BasePath) */
	enum nsconf_devpolicy device_policy;
	char *device_allow;       /* raw "SPEC:ACCESS,..." or NULL */
	char *device_allow_file;  /* where device_allow was set, for messages */
	int device_allow_line;
	/*
	 * Every DeviceAllow of the file in order, global and NodeName lines
	 * alike, whichever node they name: a malformed one must fail every
	 * node, so the caller checks the syntax of them all.
	 */
	struct nsconf_allow *device_allow_all;
	size_t device_allow_count;
};

/*
 * Parse the file at path for the node called nodename (NULL: no NodeName
 * line applies).  Returns a new nsconf to free with nsconf_free(), or NULL
 * with errno set (EINVAL for a bad file, else the system error) and a
 * message in err[errlen] (when err is not NULL): "FILE:LINE: what is wrong"
 * for a line, "FILE: what is wrong" for the file as a whole, e.g.
 * "FILE: cannot open: No such file or directory".
 */
struct nsconf *nsconf_load(const char *path, const char *nodename, char *err,
			   size_t errlen);

/*
 * The same from the text of a file; name stands for the file in messages
 * and in device_allow_file.
 */
struct nsconf *nsconf_parse(const char *text, const char *name,
			    const char *nodename, char *err, size_t errlen);

/* Free conf and everything it holds; NULL is fine. */
void nsconf_free(struct nsconf *conf);

/*
 * Write into buf[len] the name of the backing directory in BasePath/<jobid>
 * of the private directory dir (a Dirs entry as nsconf accepts it): dir
 * without its leading '/', every further '/' made '_' ("/var/tmp" ->
 * "var_tmp").  Returns 0, or -1 with errno = EINVAL when dir is not
 * absolute or the name would be "", ".", ".." or NSCONF_PIN_NAME, or
 * ENAMETOOLONG when it would not fit len or NAME_MAX.  Two entries may map
 * to one name ("/var/tmp", "/var_tmp"): the parser refuses such pairs.
 */
int nsconf_backing_name(const char *dir, char *buf, size_t len);

/* The name of policy p as written in namespace.conf, "unknown" if none. */
const char *nsconf_devpolicy_name(enum nsconf_devpolicy p);

#endif /* DEVNS_NSCONF_H */
