/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devfilter.h - device rule list -> BPF cgroup-device filter (a hash map of
 * the rules plus a fixed lookup program), and the bpf(2) calls that load it
 * and attach it to (or detach it from) a cgroup.
 *
 * The pure half (devfilter_table_build, devfilter_build) only computes data
 * and instructions, so it is unit-tested with an evaluator and no kernel.
 * The rest talks to the kernel with raw bpf(2) (no libbpf).  Programs and
 * maps are named DEVFILTER_NAME so that leftovers can be counted.
 */
#ifndef DEVNS_DEVFILTER_H
#define DEVNS_DEVFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h>

#include "devpolicy.h"

/* The name of every program and map devfilter makes. */
#define DEVFILTER_NAME "devns"

/* The minor of a map key that stands for "any minor of this major". */
#define DEVFILTER_ANY_MINOR UINT32_MAX

/* A map key: the device as the kernel passes it to the program. */
struct devfilter_key {
	uint32_t type;  /* BPF_DEVCG_DEV_CHAR or BPF_DEVCG_DEV_BLOCK */
	uint32_t major;
	uint32_t minor; /* or DEVFILTER_ANY_MINOR */
};

/*
 * The map's contents for one rule list: parallel arrays, as
 * BPF_MAP_UPDATE_BATCH takes them.  access[i] holds DEVRULE_* bits (the
 * kernel's BPF_DEVCG_ACC_* values).
 */
struct devfilter_table {
	struct devfilter_key *keys;
	uint32_t *access;
	size_t count;
	bool default_allow; /* verdict for devices without an entry */
	bool has_wildcard;  /* some key has DEVFILTER_ANY_MINOR */
};

/*
 * Fills t from list (pure).  A list not in devrule_list_normalise() form is
 * normalised on a private copy first, so that the program's "exact entry,
 * else wildcard entry, else default" equals the union semantics of
 * devpolicy.h.  Returns 0, or -1 with EINVAL (bad type or access, or an
 * exact minor equal to DEVFILTER_ANY_MINOR) or ENOMEM.
 */
int devfilter_table_build(const struct devrule_list *list,
			  struct devfilter_table *t);

/* Releases the arrays of t. */
void devfilter_table_free(struct devfilter_table *t);

/*
 * Emits the program for t into a malloc()ed array (*insns, *count; free with
 * free()) (pure).  It looks devices up in the map map_fd, which must hold
 * t's entries (devfilter_map_create); an empty table needs no map (map_fd is
 * then ignored) and gives a two-instruction program with the default
 * verdict.  The program is the same ~30 instructions whatever the size of
 * the table.  Returns 0, or -1 with ENOMEM.
 */
int devfilter_build(const struct devfilter_table *t, int map_fd,
		    struct bpf_insn **insns, size_t *count);

/*
 * Creates a BPF_MAP_TYPE_HASH sized for t, fills it (one batch update where
 * the kernel has it, else one update per entry) and freezes it, so that
 * neither programs nor user space can change it afterwards.  Keys must be
 * unique, as devfilter_table_build() makes them.  Returns the map fd
 * (close-on-exec), or -1 with errno (EINVAL for an empty table, else the
 * kernel's).
 */
int devfilter_map_create(const struct devfilter_table *t);

/*
 * Loads a BPF_PROG_TYPE_CGROUP_DEVICE program (license "GPL") and returns its
 * fd (close-on-exec).  On failure returns -1 with the kernel's errno; when
 * log is not NULL (log_size >= 128) the load is repeated with the verifier
 * log on and the log is left in log, so the caller can say why.  The first
 * attempt runs without a log because logging slows verification down.
 */
int devfilter_load(const struct bpf_insn *insns, size_t count, char *log,
		   size_t log_size);

/*
 * The whole way from a rule list to a program fd: table, map, program, load.
 * The map lives as long as the program (which holds it); no other fd stays
 * open.  Returns the prog fd, or -1 with errno (and log as devfilter_load).
 */
int devfilter_create(const struct devrule_list *list, char *log,
		     size_t log_size);

/*
 * Attaches prog_fd to the cgroup-v2 directory cgroup_fd as BPF_CGROUP_DEVICE
 * with BPF_F_ALLOW_MULTI, so it composes with the other programs on that
 * cgroup and its ancestors and descendants: a device access must pass all of
 * them.  The kernel allows one attach mode per cgroup: a cgroup that already
 * holds a program attached without ALLOW_MULTI (Slurm's cgroup/v2 uses
 * ALLOW_OVERRIDE on the job cgroup) refuses ours with EPERM, and attaching
 * the same program twice to one cgroup fails with EINVAL.  Returns 0 or -1
 * (errno).
 */
int devfilter_attach(int prog_fd, int cgroup_fd);

/*
 * Detaches exactly prog_fd from cgroup_fd, leaving other programs attached
 * there in place.  ENOENT when it is not attached.  Returns 0 or -1 (errno).
 */
int devfilter_detach(int prog_fd, int cgroup_fd);

/*
 * Fills ids (up to max) with the ids of the device programs attached directly
 * to cgroup_fd (not inherited ones) and returns how many are attached, which
 * may exceed max; -1 with errno on failure.
 */
int devfilter_query(int cgroup_fd, uint32_t *ids, size_t max);

/* The kernel's id of a loaded program.  Returns 0 or -1 (errno). */
int devfilter_prog_id(int prog_fd, uint32_t *id);

/*
 * Opens the loaded program with that id (BPF_PROG_GET_FD_BY_ID), e.g. to
 * detach a leftover found with devfilter_query.  Returns an fd, or -1 with
 * errno (ENOENT: no such program).
 */
int devfilter_prog_open(uint32_t id);

/* 1 while a program with that id is loaded, 0 once it is gone, -1 (errno). */
int devfilter_prog_alive(uint32_t id);

/*
 * Number of cgroup-device programs named DEVFILTER_NAME loaded on the whole
 * machine (walks all program ids; needs root), or -1 with errno.
 */
int devfilter_count_loaded(void);

/*
 * Whether this kernel lets us filter devices the way devfilter_create does:
 * makes a one-entry map and a program using it, then drops both.  Returns 0,
 * or -1 with the first failing call's errno (EPERM without privilege,
 * EINVAL without the program type, ENOSYS without bpf).
 */
int devfilter_probe(void);

#endif /* DEVNS_DEVFILTER_H */
