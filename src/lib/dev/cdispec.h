/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cdispec.h - what devns takes from Container Device Interface specs
 * (JSON or YAML files in /etc/cdi, as "nvidia-ctk cdi generate" writes them):
 * for each device of a spec ("0", "1", "0:1" for a MIG instance, "all")
 * the device nodes its containerEdits list, and the nodes of the spec's
 * own containerEdits, which every device of the spec needs (nvidiactl,
 * nvidia-uvm, ...).  Everything else a spec says (mounts, hooks,
 * environment) is a container runtime's business and is passed over.
 *
 * A node is named by its hostPath when the spec gives one, else by its
 * path: the host's file is the one a job opens.
 */
#ifndef DEVNS_CDISPEC_H
#define DEVNS_CDISPEC_H

#include <stddef.h>

#include "util/report.h"

/* Largest spec file read: nvidia-ctk's for 8 GPUs with MIG is ~100 KiB. */
#define CDISPEC_MAX_SIZE (4 * 1024 * 1024)

/* One device of a spec. */
struct cdidev {
	char *name;	/* "0", "0:1", "all", ... */
	int line;	/* where its entry starts */
	char **nodes;	/* its device nodes, absolute paths */
	size_t count;
};

/* One spec file. */
struct cdispec {
	char *file;	/* its path, for messages */
	char *kind;	/* "nvidia.com/gpu" */
	struct cdidev *devs;
	size_t ndevs;
	char **shared;	/* the spec-wide containerEdits' device nodes */
	size_t nshared;
	int shared_line; /* where that containerEdits is, 0: none */
};

/* The specs of one or more directories, in the order read. */
struct cdiset {
	struct cdispec *specs;
	size_t count;
};

/*
 * Reads every spec of the comma-separated absolute directories in dirs
 * (each "*.json", "*.yaml" and "*.yml" file, by name order within a
 * directory) into set, which is initialised here.  Directories are walked
 * from "/" without following links (util/safepath.h), spec files opened
 * without following one, and a directory or spec not root's, or writable
 * by its group or everyone, is refused: a spec decides which devices
 * jobs get.  A missing directory is a warning.  Returns the number of specs
 * read, or -1 with errno (EINVAL after reporting "FILE:LINE: ..." or
 * "DIR: ...") and set empty; free it with cdiset_free() either way.
 * What a spec must hold: cdiVersion and kind strings, devices a non-empty
 * list whose entries each have a name and a containerEdits mapping, and
 * an absolute path in each deviceNodes entry ("*.json" is read as JSON,
 * the others as YAML).
 */
int cdiset_load(struct cdiset *set, const char *dirs, struct report *rep);

void cdiset_free(struct cdiset *set);

#endif /* DEVNS_CDISPEC_H */
