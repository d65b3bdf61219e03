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

enum nsconf_devpolicy {
	NSCONF_DEVPOLICY_AUTO = 0,
	NSCONF_DEVPOLICY_CLOSED,
	NSCONF_DEVPOLICY_STRICT,
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

/* The name of policy p as written in namespace.conf, "unknown" if none. */
const char *nsconf_devpolicy_name(enum nsconf_devpolicy p);

#endif /* DEVNS_NSCONF_H */
