/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsmembers.h - the processes inside a job's mount namespace: find them,
 * kill them, and tell when the namespace itself is gone.
 *
 * A mount namespace's inode number names it only while a reference to it
 * is held: the kernel gives a freed namespace's number to the next one
 * made.  Its 64-bit id (NS_GET_MNTNS_ID, Linux 6.11) is never reused, and
 * listmount(2) answers ENOENT for an id whose namespace is gone, so with an
 * id teardown can drop its own references first and ask the kernel whether
 * anything still holds the namespace: only then does it search /proc,
 * whose cost grows with every process of the node.  Without an id (older
 * kernels) the caller keeps a reference while it kills, and the search
 * always runs.
 */
#ifndef DEVNS_NSMEMBERS_H
#define DEVNS_NSMEMBERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

struct nsmembers_ns {
	dev_t dev;		/* nsfs inode, as /proc/<pid>/ns/mnt shows */
	ino_t ino;
	uint64_t id;		/* unique until reboot; 0 where unknown */
	/*
	 * A process is known to be inside (a PID namespace's init): the kill
	 * searches /proc at once, without first asking the kernel a few
	 * times whether the namespace is going.  false from nsmembers_ident.
	 */
	bool held;
};

/*
 * The 64-bit id of the mount namespace ns_fd refers to, or 0 where the
 * kernel has none (before 6.11).  Only a system call: safe after fork().
 */
uint64_t nsmembers_id(int ns_fd);

/*
 * Identify the mount namespace ns_fd refers to (a pin or an
 * /proc/<pid>/ns/mnt, held open).  ns->id is set only when the kernel can
 * both give it and look the namespace up by it (nsmembers_kill() then
 * needs no search for a gone one).
 * Returns 0, or -1 with errno.
 */
int nsmembers_ident(int ns_fd, struct nsmembers_ns *ns);

/*
 * Whether the namespace ns (with an id) is gone: nothing holds it any
 * more.  false while it exists and always without an id.  One system
 * call, whatever the node runs.
 */
bool nsmembers_gone(const struct nsmembers_ns *ns);

/*
 * A namespace's file handle (nsfs, Linux 6.18): lets the caller reopen the
 * namespace after closing its last fd of it, for as long as anything
 * else holds it, and never another namespace (the handle carries the
 * 64-bit id).
 */
struct nsmembers_handle {
	union {
		struct {
			unsigned int bytes;	/* struct file_handle */
			int type;
			unsigned char data[64];
		} fh;
		unsigned long long align;
	} u;
};

/*
 * The handle of the namespace ns_fd refers to, checked by reopening it
 * once.  Returns 0, or -1 with errno where the kernel gives nsfs no
 * handles (before 6.18: EOPNOTSUPP and the like).
 */
int nsmembers_handle(int ns_fd, struct nsmembers_handle *h);

/*
 * Reopen the namespace of h: an fd (O_CLOEXEC), or -1 with errno (ESTALE:
 * nothing holds it any more).
 */
int nsmembers_reopen(const struct nsmembers_handle *h);

/*
 * Find the processes inside ns other than the caller: the first max go
 * into pids (may be NULL) and, with kill_them, each is sent SIGKILL
 * through a pidfd, so that a PID reused meanwhile is never hit.  Without
 * ns->id the caller must hold a reference to ns.  Returns how many were
 * found, or -1 with errno when /proc cannot be read.
 */
int nsmembers_scan(const struct nsmembers_ns *ns, pid_t *pids, size_t max,
		   bool kill_them);

/*
 * Kill everything inside ns and wait until it has gone (with an id: until
 * the namespace itself is gone, or nothing in it is a process), looking
 * again after 100 us, doubling up to 10 ms.  Returns 0, or -1 with errno
 * EBUSY when processes remain after wait_ms.
 */
int nsmembers_kill(const struct nsmembers_ns *ns, long wait_ms);

#endif
