/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bpf_fault.c - LD_PRELOAD fault injection for the fail-closed tests.
 *
 * Loaded into slurmd (and so into the slurmstepd it starts), it makes one
 * bpf(2) command fail the way the kernel would:
 *
 *   DEVNS_FAULT=prog_load    BPF_PROG_LOAD fails with EACCES and a verifier
 *                            log, as when the verifier rejects a program
 *   DEVNS_FAULT=prog_load_stepd
 *                            the same, in slurmstepd only: slurmd's own
 *                            trial filter at its start loads, so that it
 *                            starts and a job's setup meets the rejection
 *   DEVNS_FAULT=prog_attach  BPF_PROG_ATTACH fails with EPERM
 *
 * Every other system call goes to glibc's syscall() unchanged.  This is a
 * test tool: it is never installed.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <linux/bpf.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int fault_is(const char *name)
{
	const char *f = getenv("DEVNS_FAULT");

	return f && strcmp(f, name) == 0;
}

/*
 * Whether this process is a slurmstepd: the program it runs, not its
 * argv[0], which slurmstepd overwrites with its title ("slurmstepd:
 * [12.extern]").
 */
static int in_stepd(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *base;

	if (n <= 0)
		return 0;
	exe[n] = '\0';
	base = strrchr(exe, '/');
	return strcmp(base ? base + 1 : exe, "slurmstepd") == 0;
}

static long inject(long cmd, union bpf_attr *attr)
{
	if (cmd == BPF_PROG_LOAD &&
	    (fault_is("prog_load") ||
	     (fault_is("prog_load_stepd") && in_stepd()))) {
		if (attr->log_buf && attr->log_size > 1)
			snprintf((char *)(uintptr_t)attr->log_buf,
				 attr->log_size,
				 "0: (b7) r0 = 0\ninjected by bpf_fault: program rejected\n");
		errno = EACCES;
		return -1;
	}
	if (cmd == BPF_PROG_ATTACH && fault_is("prog_attach")) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

long syscall(long number, ...)
{
	static long (*real)(long, ...);
	long a[6];
	va_list ap;

	/* syscall() takes up to six register arguments; read them all. */
	va_start(ap, number);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (number == SYS_bpf && inject(a[0], (union bpf_attr *)a[1]) < 0)
		return -1;
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
