/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * confread.h - the syntax of Slurm's configuration files, without their
 * keys: logical lines of white-space separated Key=Value pairs, '#'
 * comments outside double quotes, a trailing '\' joining the next line,
 * double-quoted values.  namespace.conf (conf/nsconf) is read with it, and
 * the devns tool reads slurm.conf and gres.conf with it.
 *
 * A logical line is read into a buffer that remembers, for each character,
 * its physical line: after a '\' continuation an error still points at the
 * line that holds the offending key.  Control bytes (other than a tab
 * outside quotes and the CR of a CRLF line end) are refused, since they
 * could hide text from whoever reads the file or a log.
 *
 * Slurm 22.05 to 26.11: the syntax of src/common/parse_config.c
 * (s_p_parse_file(), _parse_next_key(), _strip_comments(),
 * _handle_keyvalue_match()) that slurm.conf, gres.conf and
 * job_container.conf share.  A release that changes it changes this file
 * and src/plugins/slurm_compat.h, nowhere else.
 */
#ifndef DEVNS_CONFREAD_H
#define DEVNS_CONFREAD_H

#include <stddef.h>

#include "util/report.h"

/* The reader's place in a text and the logical line it last read. */
struct confread {
	const char *next;	/* first character not read yet */
	int line;		/* number of the last physical line read */
	char *buf;		/* the logical line, without comments */
	int *lines;		/* physical line of each character of buf */
	size_t len;
	size_t cap;
	char *cursor;		/* the next pair of buf (confread_pair) */
	unsigned char bad_byte;	/* the control byte that stopped it */
	int bad_column;		/* and its column in line, from 1 */
};

/* One Key=Value pair, cut out of the reader's line in place. */
struct confpair {
	char *key;	/* NULL: no more pairs on the line */
	char *value;	/* unquoted */
	int line;	/* the physical line that holds the key */
};

/* A reader at the start of text (which must outlive it); never fails. */
void confread_init(struct confread *r, const char *text);

/* Releases the reader's buffers. */
void confread_free(struct confread *r);

/*
 * Reads the next logical line into r->buf (NUL-terminated).  Returns 1,
 * 0 at the end of the text, or -1 with errno ENOMEM, or EINVAL for a
 * control byte: r->line, r->bad_byte and r->bad_column then say where.
 */
int confread_line(struct confread *r);

/*
 * Cuts the next Key=Value pair out of the line last read.  Returns 1 with
 * p filled, 0 when the line has no more pairs (p->key NULL), or -1 with
 * errno EINVAL and what is malformed in err[len] ("expected Key=Value,
 * got \"x\"", "Key: unterminated quote"), p->line saying where.
 */
int confread_pair(struct confread *r, struct confpair *p, char *err,
		  size_t len);

/*
 * Reads the regular file at path, at most max bytes, into a NUL-terminated
 * string to free().  Returns it, or NULL with errno and "PATH: what is
 * wrong" in rep ("PATH: cannot open: No such file or directory", "PATH:
 * larger than N bytes", "PATH: contains a NUL byte").
 */
char *confread_file(const char *path, size_t max, struct report *rep);

/*
 * confread_file() from a file already open (opened without following a
 * link, say), path naming it in messages; fd stays open.
 */
char *confread_fd(int fd, const char *path, size_t max, struct report *rep);

#endif /* DEVNS_CONFREAD_H */
