/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsmounts.h - the mounts a job's namespace holds, seen from inside: a
 * child joins the namespace (setns on the pin) and hands back its
 * mountinfo, so that the caller never leaves its own namespace.
 */
#ifndef DEVNS_NSMOUNTS_H
#define DEVNS_NSMOUNTS_H

/*
 * Calls fn(entry, arg) for each mount of the namespace pinned at ns_fd (an
 * fd from jobct_ns_open()) whose mount point is one of dirs (a
 * NULL-terminated list) or below one, and that a process in the namespace
 * reaches: mounts covered by another (the host's /dev/shm under the job's,
 * the job directories under BasePath's hiding tmpfs) are left out.  The
 * caller must be single-threaded.  Returns 0, or -1 with errno.
 */
struct mountinfo_entry;
int nsmounts_each(int ns_fd, const char *const *dirs,
		  void (*fn)(const struct mountinfo_entry *entry, void *arg),
		  void *arg);

#endif /* DEVNS_NSMOUNTS_H */
