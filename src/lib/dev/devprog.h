/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devprog.h - the bpf(2) calls of device containment: the rule map, the
 * program load (with the verifier's log on failure) and its attachment to
 * a cgroup-v2 directory.  Raw syscalls, no libbpf.
 */
#ifndef DEVNS_DEVPROG_H
#define DEVNS_DEVPROG_H

#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h>

#include "dev/devfilter.h"

/*
 * Creates a BPF_MAP_TYPE_ARRAY of t's nslots slots, writes the used ones
 * (one batch update where the kernel has it, else one update per slot) and
 * freezes it, so that neither programs nor user space can change it
 * afterwards.  Returns the map fd (close-on-exec), or -1 with errno
 * (EINVAL for an empty table, else the kernel's).
 */
int devprog_map_create(const struct devfilter_table *t);

/*
 * Creates the map in which a program counts its denials (devfilter.h,
 * DEVFILTER_DENIED_NAME), empty but for the DEVFILTER_DENIED_OTHER entry.
 * Returns its fd (close-on-exec), or -1 with the kernel's errno.
 */
int devprog_denied_create(void);

/*
 * Loads a BPF_PROG_TYPE_CGROUP_DEVICE program (license "GPL") and returns its
 * fd (close-on-exec).  On failure returns -1 with the kernel's errno; when
 * log is not NULL (log_size >= 128) the load is repeated with the verifier
 * log on and the log is left in log, so the caller can say why.  The first
 * attempt runs without a log because logging slows verification down.
 */
int devprog_load(const struct bpf_insn *insns, size_t count, char *log,
		   size_t log_size);

/*
 * The whole way from a rule list to a program fd: table, rule map, map of
 * denials, program, load.  The maps live as long as the program (which
 * holds them); no other fd stays open.  Counting denials is a record, not
 * the containment: when the kernel refuses the map of denials or the
 * counting program, the same filter is loaded without counting, and log
 * (when not NULL) says why; otherwise a successful call leaves log empty.
 * Returns the prog fd, or -1 with errno (and log as devprog_load).
 */
int devprog_create(const struct devrule_list *list, char *log,
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
int devprog_attach(int prog_fd, int cgroup_fd);

/*
 * Detaches exactly prog_fd from cgroup_fd, leaving other programs attached
 * there in place.  ENOENT when it is not attached.  Returns 0 or -1 (errno).
 */
int devprog_detach(int prog_fd, int cgroup_fd);

/*
 * The device programs attached directly to cgroup_fd (inherited ones do not
 * count): how many (*count) and the cgroup's attach flags (*flags:
 * BPF_F_ALLOW_OVERRIDE, BPF_F_ALLOW_MULTI or 0).  Returns 0 or -1 (errno).
 */
int devprog_query(int cgroup_fd, uint32_t *flags, uint32_t *count);

/*
 * Opens a program named DEVFILTER_NAME attached directly to cgroup_fd
 * (BPF_PROG_QUERY, then BPF_PROG_GET_FD_BY_ID; needs CAP_SYS_ADMIN), so
 * that the same program can be attached elsewhere or detached.  Returns its
 * fd (close-on-exec), or -1 with errno (ENOENT: none is attached).
 */
int devprog_find_attached(int cgroup_fd);

/*
 * Opens a program named DEVFILTER_NAME attached directly to cgroup_fd that
 * is not the program keep_fd (compared by the kernel's program id): one
 * that another run left there.  Returns its fd (close-on-exec), or -1
 * with errno (ENOENT: none but keep_fd's, or none at all).
 */
int devprog_find_other(int cgroup_fd, int keep_fd);

/*
 * Whether this kernel lets us filter devices the way devprog_create does:
 * makes a one-entry map and a program using it, then drops both.  Returns 0,
 * or -1 with the first failing call's errno (EPERM without privilege,
 * EINVAL without the program type, ENOSYS without bpf).
 */
int devprog_probe(void);

#endif /* DEVNS_DEVPROG_H */
