/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jobrec.h - the records root keeps in a job's directory under BasePath
 * (its Source= directories, its tmpfs mounts): one entry a line, read
 * back at teardown without following any link.
 */
#ifndef DEVNS_JOBREC_H
#define DEVNS_JOBREC_H

#include <stddef.h>

/*
 * Reads BasePath/job_name/record (at most max bytes; no component a
 * link) into *text, a string of complete lines, each ending in '\n' (a
 * last line without one was cut short by a crash: nothing was made after
 * it, so it is dropped).  The caller frees *text.  Returns 0, with *text
 * NULL when BasePath, the job's directory or the record does not exist,
 * or -1 with errno.
 */
int jobrec_read(const char *base_path, const char *job_name,
		const char *record, size_t max, char **text);

#endif /* DEVNS_JOBREC_H */
