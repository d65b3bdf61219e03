/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jobrec.h - the records root keeps in a job's directory under BasePath
 * (its Source= directories, its tmpfs mounts): one entry a line, read
 * back at teardown without following any link.  A record written whole
 * (jobrec_write) is an extended attribute of the directory,
 * trusted.devns<record>, where BasePath's file system keeps one, else
 * the file BasePath/<jobid>/<record>; one written a line at a time (the
 * Source directories, as each is made) is that file.
 */
#ifndef DEVNS_JOBREC_H
#define DEVNS_JOBREC_H

#include <stddef.h>

/*
 * Record text[0..len) as record (JOBDIR_TMPFS...) of the new job
 * directory jobfd (an O_PATH fd will do): the attribute, or where the
 * file system refuses it (no trusted attributes, too big) a new file.
 * Returns 0, or -1 with errno.
 */
int jobrec_write(int jobfd, const char *record, const char *text, size_t len);

/*
 * Reads record of BasePath/job_name, the attribute or else the file (at
 * most max bytes; no component a link) into *text, a string of complete lines, each ending in '\n' (a
 * last line without one was cut short by a crash: nothing was made after
 * it, so it is dropped).  The caller frees *text.  Returns 0, with *text
 * NULL when BasePath, the job's directory or the record does not exist,
 * or -1 with errno.
 */
int jobrec_read(const char *base_path, const char *job_name,
		const char *record, size_t max, char **text);

#endif /* DEVNS_JOBREC_H */
