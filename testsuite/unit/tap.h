/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tap.h - a minimal Test Anything Protocol producer for the unit tests.
 *
 * Header-only so that every test is one .c file.  Each check prints one
 * "ok N - name" or "not ok N - name" line; tap_done() prints the plan and
 * returns the exit status (non-zero when any check failed).  tap_skip() is
 * for tests that need a kernel feature or privilege the machine lacks: the
 * runner counts it as skipped, never as passed.
 */
#ifndef DEVNS_TAP_H
#define DEVNS_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int tap_count;
static int tap_failed;

static inline int tap_vok(int cond, const char *fmt, va_list ap)
{
	tap_count++;
	printf("%sok %d - ", cond ? "" : "not ", tap_count);
	vprintf(fmt, ap);
	printf("\n");
	if (!cond)
		tap_failed++;
	fflush(stdout);
	return cond;
}

__attribute__((format(printf, 2, 3)))
static inline int ok(int cond, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = tap_vok(cond, fmt, ap);
	va_end(ap);
	return rc;
}

__attribute__((format(printf, 1, 2)))
static inline void tap_skip(const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	printf("ok %d - # SKIP ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

__attribute__((format(printf, 1, 2)))
static inline void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

#define is_int(got, want, ...)                                              \
	do {                                                                \
		long long g_ = (long long)(got), w_ = (long long)(want);    \
		if (!ok(g_ == w_, __VA_ARGS__))                             \
			diag("  got %lld, want %lld", g_, w_);              \
	} while (0)

#define is_str(got, want, ...)                                              \
	do {                                                                \
		const char *g_ = (got), *w_ = (want);                       \
		int same_ = (g_ && w_) ? !strcmp(g_, w_) : g_ == w_;        \
		if (!ok(same_, __VA_ARGS__))                                \
			diag("  got \"%s\", want \"%s\"",                   \
			     g_ ? g_ : "(null)", w_ ? w_ : "(null)");       \
	} while (0)

/* Passes when haystack contains needle (for error-message checks). */
#define like(haystack, needle, ...)                                         \
	do {                                                                \
		const char *h_ = (haystack), *n_ = (needle);                \
		if (!ok(h_ && strstr(h_, n_), __VA_ARGS__))                 \
			diag("  \"%s\" does not contain \"%s\"",            \
			     h_ ? h_ : "(null)", n_);                       \
	} while (0)

/*
 * The longest a test waits for the kernel's or a child's asynchronous work
 * (a program freed after its cgroup, a killed process reaped, a pool
 * refilled) before calling it not done.  Generous: a loaded CI machine is
 * slow, and a wait that succeeds ends at once.
 */
#define TAP_WAIT_MS 10000

/*
 * Whether the checks that need root may run: 1 when the test runs as root
 * and DEVNS_TEST_ROOT is not "0", else 0.  Those checks mount, use loop
 * devices, cgroups and BPF programs: the kernel of the machine that runs
 * them.  A package build runs as root on a build host that must not be
 * touched so (debian/rules, the spec's %check set DEVNS_TEST_ROOT=0 unless
 * asked), and is then a build that skips them, as for a user who is not root.
 */
static inline int tap_root(void)
{
	const char *v = getenv("DEVNS_TEST_ROOT");

	return geteuid() == 0 && !(v && !strcmp(v, "0"));
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif /* DEVNS_TAP_H */
