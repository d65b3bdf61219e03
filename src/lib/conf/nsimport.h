/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsimport.h - Slurm's namespace.yaml (namespace/linux, Slurm 25.11 and
 * later) into the equivalent job_container.conf for job_container/devns.
 *
 * Every key namespace.yaml(5) documents is either carried over (base_path,
 * auto_base_path, dirs, dir_confs, init_script, clone_ns_*, shared,
 * user_ns_script, the CLONE_NEWPID/CLONE_NEWUSER flags, node_confs) or
 * printed as a comment that names it and says why it does not carry over;
 * nothing is dropped silently.  The YAML is read by the CDI spec reader
 * (dev/cdidoc.h), whose errors name the file and line.
 */
#ifndef DEVNS_NSIMPORT_H
#define DEVNS_NSIMPORT_H

#include "util/report.h"

/* The name of namespace/linux's settings, beside slurm.conf. */
#define NSIMPORT_YAML_NAME "namespace.yaml"

/*
 * Converts text, the contents of namespace.yaml (name: its path, for
 * messages "NAME:LINE: ..." and the header), into job_container.conf text.
 * Returns it to free(), or NULL with errno (EINVAL after rep says what is
 * wrong: malformed YAML, a value of the wrong type; ENOMEM).
 */
char *nsimport_yaml(const char *text, const char *name, struct report *rep);

#endif /* DEVNS_NSIMPORT_H */
