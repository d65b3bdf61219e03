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
 *   DEVNS_FAULT_LOG=PATH     each injected failure appends a line
 *                            "FAULT PROGRAM PID" to PATH (PROGRAM: the
 *                            executable's name), so that a test can prove
 *                            the fault fired where it meant it to before
 *                            it asserts what the fault caused
 *
 * Every other system call goes to glibc's syscall() unchanged.  This is a
 * test tool: it is never installed.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
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
 * The name of the program this process runs, from /proc/self/exe, not its
 * argv[0], which slurmstepd overwrites with its title ("slurmstepd:
 * [12.extern]"); "" when it cannot be read.
 */
static void exe_name(char *buf, size_t size)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *base;

	buf[0] = '\0';
	if (n <= 0)
		return;
	exe[n] = '\0';
	base = strrchr(exe, '/');
	base = base ? base + 1 : exe;
	if (strlen(base) < size)
		memcpy(buf, base, strlen(base) + 1);
}

/*
 * Whether this process is a slurmstepd.  Debian's packages install it as
 * slurmstepd-wlm, /usr/sbin/slurmstepd being an alternatives link to it,
 * and the link is resolved in /proc/self/exe: a stepd run as
 * /usr/sbin/slurmstepd reads as slurmstepd-wlm (issue 41: the fault never
 * fired in Debian's 22.05 stepd, and the job ran under its filter).
 */
static int in_stepd(void)
{
	char name[NAME_MAX + 1];

	exe_name(name, sizeof(name));
	return strcmp(name, "slurmstepd") == 0 ||
	       strcmp(name, "slurmstepd-wlm") == 0;
}

/* Appends "FAULT PROGRAM PID" to DEVNS_FAULT_LOG, when it is set. */
static void note_fired(void)
{
	const char *path = getenv("DEVNS_FAULT_LOG");
	char name[NAME_MAX + 1];
	int saved = errno, fd;

	if (!path || !*path)
		return;
	exe_name(name, sizeof(name));
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0) {
		/*
		 * One write, so that lines of processes failing at once stay
		 * whole; a failed one leaves no record, which the test reads
		 * as the fault not having fired.
		 */
		(void)dprintf(fd, "%s %s %d\n", getenv("DEVNS_FAULT"),
			      name[0] ? name : "?", (int)getpid());
		close(fd);
	}
	errno = saved;
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
		note_fired();
		errno = EACCES;
		return -1;
	}
	if (cmd == BPF_PROG_ATTACH && fault_is("prog_attach")) {
		note_fired();
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
