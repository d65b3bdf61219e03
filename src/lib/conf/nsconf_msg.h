/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsconf_msg.h - the node's settings as slurmd hands them to each new
 * slurmstepd (Slurm's send_stepd/recv_stepd, from 23.02).
 *
 * slurmd parses job_container.conf once, at start and at reconfigure; a
 * slurmstepd must not read the file again, or an edit would reach new
 * jobs before slurmd saw it (and a broken edit would fail every job while
 * slurmd looks healthy).  So the message carries the exact text slurmd
 * parsed and the path it came from, and slurmstepd parses that text with
 * the same parser (nsconf_load_text): one source of truth, and messages
 * that still name the file and line.
 *
 * The message: "DVNS", the format's version, the path's and the text's
 * lengths (four 32-bit fields in network order, NSCONF_MSG_HEADER bytes
 * in all), then the path and the text, neither NUL-terminated.  Whatever
 * does not match (a short read, another version, a length over the
 * bounds, a NUL inside) is an error: slurmstepd then fails, and with it
 * the job, rather than run on settings it cannot trust.
 */
#ifndef DEVNS_NSCONF_MSG_H
#define DEVNS_NSCONF_MSG_H

#include <stddef.h>

#include "conf/nsconf.h"
#include "util/report.h"

#define NSCONF_MSG_MAGIC "DVNS"
#define NSCONF_MSG_VERSION 1
#define NSCONF_MSG_HEADER 16
/* The longest path the message carries, its NUL not counted. */
#define NSCONF_MSG_MAX_PATH 4095

/* The settings a message carries, to parse with nsconf_load_text(). */
struct nsconf_msg {
	char *path;	/* the file slurmd read */
	char *text;	/* its text as slurmd parsed it */
};

/*
 * Encode the message for conf (conf->file and conf->text, as
 * nsconf_load_host() or nsconf_load_text() made them).  Returns a buffer to
 * free() with its length in *len, or NULL with errno (EINVAL: conf has no
 * file or text, or one is over the bounds) and rep.
 */
char *nsconf_msg_encode(const struct nsconf *conf, size_t *len,
			struct report *rep);

/*
 * Write buf[len] to fd whole, retrying EINTR and short writes.  Returns
 * 0, or -1 with errno and rep.
 */
int nsconf_msg_send(int fd, const char *buf, size_t len, struct report *rep);

/*
 * Read one message from fd (a pipe or socket: blocking reads, retrying
 * EINTR and short reads) into msg, whose strings are to be freed with
 * nsconf_msg_clear().  Reads no more than the header says.  Returns 0, or
 * -1 with msg empty, errno (EPROTO for a malformed message, EFBIG for a
 * length over the bounds, else the system's) and rep saying what was
 * wrong.
 */
int nsconf_msg_recv(int fd, struct nsconf_msg *msg, struct report *rep);

/* Free msg's strings and empty it. */
void nsconf_msg_clear(struct nsconf_msg *msg);

#endif /* DEVNS_NSCONF_MSG_H */
