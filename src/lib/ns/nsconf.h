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

#include "dev/devpolicy.h"
#include "util/report.h"

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

struct nsconf {
	char *base_path;          /* NULL when BasePath=none */
	bool auto_base_path;
	char **dirs;              /* NULL-terminated, default {"/tmp","/dev/shm"} */
	char *init_script;        /* NULL when unset */
	bool shared;
	uint64_t shm_size;        /* bytes, 0 = unset */
	uint64_t tmp_size;        /* bytes, 0 = unset (then /tmp lives on BasePath) */
	uint64_t tmp_disk_limit;  /* bytes, 0 = unset: project quota limit of
				   * BasePath/<jobid> (ns/dquota.h) */
	enum devpolicy_mode device_policy;
	/*
	 * This node's DeviceAllow, raw ("SPEC:ACCESS,..." or NULL), and where
	 * it was set: devpolicy_load() resolves it.  The syntax of every
	 * DeviceAllow of the file, whichever node its line names, has been
	 * checked by the parser.
	 */
	char *device_allow;
	char *device_allow_file;
	int device_allow_line;
};

/*
 * Parse the file at path for the node called nodename (NULL: no NodeName
 * line applies).  Returns a new nsconf to free with nsconf_free(), or NULL
 * with errno set (EINVAL for a bad file, else the system error) and a
 * message in rep (when not NULL): "FILE:LINE: what is wrong"
 * for a line, "FILE: what is wrong" for the file as a whole, e.g.
 * "FILE: cannot open: No such file or directory".
 */
struct nsconf *nsconf_load(const char *path, const char *nodename,
			   struct report *rep);

/*
 * The same from the text of a file; name stands for the file in messages
 * and in device_allow_file.
 */
struct nsconf *nsconf_parse(const char *text, const char *name,
			    const char *nodename, struct report *rep);

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

#endif /* DEVNS_NSCONF_H */
