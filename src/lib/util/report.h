/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.h - the one way the libraries tell their caller what went wrong.
 *
 * A function that fails returns -1 (or NULL) with errno set and, when the
 * caller passed a struct report, one line in it saying what failed and why
 * ("namespace.conf:7: ShmSize: invalid size \"12Q\"", "creating
 * /var/spool/devns/12: Permission denied").  Warnings, which do not fail
 * the call, are counted and passed to the log callback, as every error is:
 * the plugins log them with their prefix, the tests compare them.  The
 * libraries never log on their own.
 */
#ifndef DEVNS_REPORT_H
#define DEVNS_REPORT_H

#include <stddef.h>

#define REPORT_MSG_MAX 1024

enum report_level {
	REPORT_ERROR,
	REPORT_WARNING,
	REPORT_INFO,	/* what was done, for a debug log */
	REPORT_NOTICE,	/* what happened that the log should always show
			 * (a job's denied device opens) */
};

typedef void (*report_log_f)(enum report_level level, const char *msg,
			     void *arg);

struct report {
	char msg[REPORT_MSG_MAX]; /* the first error; "" while there is none */
	int errors;
	int warnings;
	report_log_f log;	  /* sees every message as made; NULL: none */
	void *log_arg;
};

/* An empty report whose messages also go to log (NULL: nowhere). */
void report_init(struct report *r, report_log_f log, void *arg);

/*
 * Records an error: the message (printf format) becomes r->msg unless an
 * earlier error is there, and goes to r->log.  errno is left as it was,
 * so "return report_error(...)" after a failed call keeps its errno.
 * r may be NULL.  Returns -1.
 */
int report_error(struct report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * report_error() with ": strerror(errnum)" appended, and errno set to
 * errnum.  Returns -1.
 */
int report_errno(struct report *r, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Records a warning: counted and passed to r->log.  r may be NULL. */
void report_warning(struct report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Passes a line about what was done to r->log.  r may be NULL. */
void report_info(struct report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Passes a line that the log shows at its default level to r->log; not
 * an error, not counted as a warning.  r may be NULL.
 */
void report_notice(struct report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* DEVNS_REPORT_H */
