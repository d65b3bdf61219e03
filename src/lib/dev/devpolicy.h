/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devpolicy.h - turn DevicePolicy/DeviceAllow and the job's GRES devices into
 * a flat, normalised device rule list.
 *
 * This is the policy half of device containment: it decides *which* devices a
 * job may use and how, and knows nothing about BPF or cgroups (devfilter.h
 * turns the list into a program).  Apart from stat(2) on device paths and
 * reading /proc/devices it is pure, so every decision can be unit-tested.
 *
 * The list's semantics and its functions are dev/devrule.h's.
 */
#ifndef DEVNS_DEVPOLICY_H
#define DEVNS_DEVPOLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dev/devallow.h"
#include "dev/devrule.h"
#include "util/report.h"

enum devpolicy_mode {
	DEVPOLICY_AUTO = 0, /* the default */
	DEVPOLICY_CLOSED,
	DEVPOLICY_STRICT,
	DEVPOLICY_NONE,	    /* devices left to Slurm: no filter, no cgroup2 */
};

/*
 * A node's DevicePolicy and DeviceAllow, resolved once when namespace.conf
 * is loaded (devpolicy_load_lines): what every job of the node starts from,
 * before its GRES devices are added (devpolicy_build).
 */
struct devpolicy {
	enum devpolicy_mode mode;
	int allow_entries;	  /* DeviceAllow entries written, skipped ones too */
	struct devrule_list base; /* DeviceAllow, plus the standard devices */
	char *allow;		  /* DeviceAllow as written, its lines joined
				   * by ",", NULL: none */
	char *where;		  /* the first line's "FILE:LINE", NULL: not
				   * known */
	struct devpolicy_line *lines; /* each line, for devpolicy_check_gres */
	size_t line_count;
	struct devcdi *cdi;	  /* CDISpecDirs' specs (dev/devcdi.h),
				   * NULL: none */
	char *proc_devices;	  /* the file classes come from, for
				   * devpolicy_build; NULL: /proc/devices */
};

struct devcdi;

/* One DeviceAllow line, and where it was written. */
struct devpolicy_allow {
	const char *value;	/* "SPEC:ACCESS,..." */
	const char *where;	/* "FILE:LINE" for its messages, NULL: none */
	/*
	 * value as the settings read it at load (devallow_read), resolved
	 * without reading value again; NULL: read value here
	 */
	const struct devallow_list *read;
};

/* The copy a loaded policy keeps of one line. */
struct devpolicy_line {
	char *value;
	char *where;
	struct devallow_list entries;	/* value, read */
	bool read;			/* entries hold value */
};

/*
 * "auto", "closed", "strict", "none" (case-insensitive) -> mode; -1 with
 * EINVAL.
 */
int devpolicy_mode_parse(const char *name, enum devpolicy_mode *mode);

/* The configuration spelling of a mode ("auto", ...); "?" when invalid. */
const char *devpolicy_mode_name(enum devpolicy_mode mode);

/*
 * Resolves a node's policy from its DeviceAllow lines, as namespace.conf
 * adds them up (count 0: no DeviceAllow): their entries make one list,
 * and the messages about an entry start with its own line's where (e.g.
 * "namespace.conf:12", when not NULL).  Entries are separated by commas,
 * each written "SPEC:ACCESS", "SPEC ACCESS" (systemd's form) or "TYPE
 * MAJOR:MINOR ACCESS" (devrule_format()'s, "c 195:* rwm": the rule as it
 * is, no device looked at).  SPEC is an absolute device path, which may
 * be a glob (* ? [: every device node it matches now, other files passed
 * over), or char-NAME or block-NAME, a class of /proc/devices (NAME may
 * be a pattern: every class it matches).  ACCESS is a non-empty subset
 * of rwm.  Every problem is reported (all of them, not only the first).
 * Missing device paths, globs and classes that match nothing are
 * warnings and their entry is skipped (it still counts in
 * allow_entries, so that "auto" can tell whether DeviceAllow was set);
 * anything malformed, or an unreadable /proc/devices, is an error.  For
 * "closed", and "auto" with DeviceAllow, the standard pseudo-devices are
 * added (/dev/null, /dev/zero, ..., the pts class; a missing one is a
 * warning).  proc_devices NULL means /proc/devices; devpolicy_build reads
 * the same file.  The lines are kept
 * for devpolicy_check_gres().  Returns 0, or -1 with errno (EINVAL after
 * an error was reported) and policy empty; free with devpolicy_free()
 * either way.
 */
int devpolicy_load_lines(struct devpolicy *policy, enum devpolicy_mode mode,
			 const struct devpolicy_allow *lines, size_t count,
			 const char *proc_devices, struct report *rep);

void devpolicy_free(struct devpolicy *policy);

/*
 * Adds CDISpecDirs to a loaded policy: the CDI specs of the
 * comma-separated directories dirs, read and resolved (devcdi_load), so
 * that devpolicy_build gives each job the companion devices of its GRES
 * devices (dev/devcdi.h).  For DevicePolicy=none only a warning that the
 * key does nothing, no spec read.  Returns 0, or
 * -1 with errno (EINVAL after reporting "FILE:LINE: ..." for a spec that
 * does not parse); the policy is unchanged then.
 */
int devpolicy_load_cdi(struct devpolicy *policy, const char *dirs,
		       struct report *rep);

/*
 * True for "auto" without DeviceAllow: a job is filtered only if the node
 * has GRES device files, so a node without any needs no program at all.
 */
bool devpolicy_is_open(const struct devpolicy *policy);

/*
 * True for "none": devns filters no job of the node, whatever its GRES;
 * devices are Slurm's (ConstrainDevices), and no cgroup2 is needed.
 */
bool devpolicy_never_filters(const struct devpolicy *policy);

/*
 * At slurmd start: GRES devices are only ever given to the jobs allocated
 * them, so a DeviceAllow entry naming one of the node's GRES device files
 * (node_gres, NULL-terminated, NULL: none) by its path, or by another path
 * of the same device node, is an error, reported as "FILE:LINE: DeviceAllow
 * entry 'SPEC:ACCESS' names GRES device ...", every such entry.  A class
 * covering GRES devices is no error (devpolicy_build leaves them out): an
 * info line says so.  Each message starts with the "FILE:LINE" of the
 * entry's line.  A CDI spec-wide device node that is a GRES device is a
 * warning with the spec's FILE:LINE (devcdi_check_gres; devpolicy_build
 * leaves it out of the spec's shared nodes).  A GRES file that cannot be resolved is left to
 * devpolicy_build, which fails on it.  Returns 0, or -1 with EINVAL after
 * reporting, or ENOMEM.
 */
int devpolicy_check_gres(const struct devpolicy *policy,
			 const char *const *node_gres, struct report *rep);

/*
 * Computes a job's normalised rule list from the node's policy and the GRES
 * device files (NULL-terminated lists, NULL for none): every GRES file of
 * the node is pinned to no access unless the job holds it, which is pinned
 * to rwm, like the devices Slurm's task/cgroup allows.  Pinned, so that
 * neither a DeviceAllow class covering them nor an entry naming one
 * (devpolicy_check_gres refuses those) opens a GRES device to a job not
 * allocated it.  GRES paths must exist and be device nodes (Slurm itself
 * refuses a node whose gres.conf File is missing).  With CDI specs
 * (devpolicy_load_cdi), the companions of the GRES devices are pinned
 * too, as dev/devcdi.h says.  A vendor's companions that dev/devcomp.h
 * knows (AMD's /dev/kfd for a job holding a render node) are added rwm,
 * whatever the mode: then /proc/devices is read, and one that cannot be
 * is an error.  out is initialised
 * here.  Returns 0, or -1 with errno set (EINVAL after an error was
 * reported) and out empty.
 */
int devpolicy_build(const struct devpolicy *policy,
		    const char *const *node_gres, const char *const *job_gres,
		    struct devrule_list *out, struct report *rep);

#endif /* DEVNS_DEVPOLICY_H */
