/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.c - errors and warnings of the libraries, for their caller.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/report.h"

void report_init(struct report *r, report_log_f log, void *arg)
{
	memset(r, 0, sizeof(*r));
	r->log = log;
	r->log_arg = arg;
}

/* Formats "message[: strerror]" and hands it on. */
static void record(struct report *r, enum report_level level, int errnum,
		   const char *fmt, va_list ap)
{
	char line[REPORT_MSG_MAX];
	size_t n;

	n = (size_t)vsnprintf(line, sizeof(line), fmt, ap);
	if (errnum && n < sizeof(line))
		snprintf(line + n, sizeof(line) - n, ": %s", strerror(errnum));
	if (level == REPORT_ERROR && !r->errors++)
		snprintf(r->msg, sizeof(r->msg), "%s", line);
	if (level == REPORT_WARNING)
		r->warnings++;
	if (r->log)
		r->log(level, line, r->log_arg);
}

/* record() for a message that keeps errno as the caller had it. */
static void record_keep_errno(struct report *r, enum report_level level,
			      const char *fmt, va_list ap)
{
	int saved = errno;

	if (r && ((level != REPORT_INFO && level != REPORT_NOTICE) || r->log))
		record(r, level, 0, fmt, ap);
	errno = saved;
}

int report_error(struct report *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	record_keep_errno(r, REPORT_ERROR, fmt, ap);
	va_end(ap);
	return -1;
}

int report_errno(struct report *r, int errnum, const char *fmt, ...)
{
	va_list ap;

	if (r) {
		va_start(ap, fmt);
		record(r, REPORT_ERROR, errnum, fmt, ap);
		va_end(ap);
	}
	errno = errnum;
	return -1;
}

void report_warning(struct report *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	record_keep_errno(r, REPORT_WARNING, fmt, ap);
	va_end(ap);
}

void report_info(struct report *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	record_keep_errno(r, REPORT_INFO, fmt, ap);
	va_end(ap);
}

void report_notice(struct report *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	record_keep_errno(r, REPORT_NOTICE, fmt, ap);
	va_end(ap);
}
