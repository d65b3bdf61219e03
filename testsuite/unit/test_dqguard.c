/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_dqguard.c - the filter that keeps a job's files in its project.
 *
 * Each call is made twice, each time in a child of its own (a filter
 * cannot be removed): without the filter, to prove the call reaches the
 * kernel (anything but EPERM), and under it, where it must fail with
 * EPERM; calls the filter must let through succeed under it.  Needs
 * root (the filter is installed without no_new_privs).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/fs.h>

#include "ns/dqguard.h"
#include "tap.h"

#define NR_FILE_SETATTR 469
#define IOC32_SETFLAGS _IOW('f', 2, int)

static char file[] = "/var/tmp/test-dqguard.XXXXXX";
static int file_fd = -1;

/* Each probe returns 0 or an errno. */
typedef int (*probe_fn)(void);

static int result(long rc)
{
	return rc < 0 ? errno : 0;
}

/* Set the file's attributes to what they are: harmless, but a change. */
static int fssetxattr_same(void)
{
	struct fsxattr fx;

	if (ioctl(file_fd, FS_IOC_FSGETXATTR, &fx) < 0)
		memset(&fx, 0, sizeof(fx));
	return result(ioctl(file_fd, FS_IOC_FSSETXATTR, &fx));
}

/* The kernel takes the command as an unsigned int: upper bits set. */
static int fssetxattr_high_bits(void)
{
	unsigned long cmd = (unsigned long)FS_IOC_FSSETXATTR |
			    (sizeof(long) > 4 ? 0xdead0000UL << 16 << 16 : 0);
	struct fsxattr fx;

	if (ioctl(file_fd, FS_IOC_FSGETXATTR, &fx) < 0)
		memset(&fx, 0, sizeof(fx));
	return result(syscall(SYS_ioctl, file_fd, cmd, &fx));
}

static int setflags_same(void)
{
	long flags = 0;

	if (ioctl(file_fd, FS_IOC_GETFLAGS, &flags) < 0)
		flags = 0;
	return result(ioctl(file_fd, FS_IOC_SETFLAGS, &flags));
}

static int setflags32(void)
{
	int flags = 0;

	return result(ioctl(file_fd, IOC32_SETFLAGS, &flags));
}

/* file_setattr(2) with a NULL attribute: EFAULT or ENOSYS unfiltered. */
static int file_setattr(void)
{
	return result(syscall(NR_FILE_SETATTR, file_fd, "", NULL, 0, 0));
}

#if defined(__x86_64__)
/*
 * A syscall through the i386 entry (int $0x80) of a 64-bit process: the
 * filter sees AUDIT_ARCH_I386 and the i386 numbers.  Pointers do not fit
 * 32 bits: EFAULT unfiltered.  Returns 0 or an errno.
 */
static int int80(long nr, long a, long b, long c, long d, long e)
{
	long rc;

	__asm__ volatile("int $0x80"
			 : "=a"(rc)
			 : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e)
			 : "memory", "r8", "r9", "r10", "r11");
	return rc < 0 ? (int)-rc : 0;
}

/* ioctl, i386 syscall 54. */
static int compat_setflags(void)
{
	int flags = 0;

	return int80(54, file_fd, (long)IOC32_SETFLAGS, (long)&flags, 0, 0);
}

/* file_setattr(2): the same number on i386. */
static int compat_file_setattr(void)
{
	return int80(NR_FILE_SETATTR, file_fd, (long)"", 0, 0, 0);
}

/*
 * The x32 ABI: AUDIT_ARCH_X86_64 with bit 30 set in the number.  seccomp
 * sees the call before the kernel looks the number up, so the filter must
 * refuse it whether or not this kernel runs x32 code (ENOSYS unfiltered
 * where it does not).
 */
#define X32_BIT 0x40000000L

static int x32_fssetxattr(void)
{
	struct fsxattr fx;

	if (ioctl(file_fd, FS_IOC_FSGETXATTR, &fx) < 0)
		memset(&fx, 0, sizeof(fx));
	return result(syscall(514 | X32_BIT, file_fd, FS_IOC_FSSETXATTR, &fx));
}

static int x32_file_setattr(void)
{
	return result(syscall(NR_FILE_SETATTR | X32_BIT, file_fd, "", NULL,
			      0, 0));
}
#endif

static int getxattr(void)
{
	struct fsxattr fx;

	return result(ioctl(file_fd, FS_IOC_FSGETXATTR, &fx));
}

static int pipe_fionread(void)
{
	int p[2], n = -1, rc;

	if (pipe(p) < 0)
		return errno;
	rc = result(ioctl(p[0], FIONREAD, &n));
	close(p[0]);
	close(p[1]);
	return rc ? rc : (n == 0 ? 0 : EIO);
}

/* Run probe in a child, under the filter when guarded; its result. */
static int in_child(probe_fn probe, int guarded)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (guarded && dqguard_install() < 0)
			_exit(255);
		_exit(probe());
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void refused(const char *what, probe_fn probe)
{
	int before = in_child(probe, 0), after = in_child(probe, 1);

	ok(before >= 0 && before != EPERM && before != 255,
	   "precondition: %s reaches the kernel unfiltered (%s)", what,
	   before > 0 ? strerror(before) : before == 0 ? "done" : "?");
	ok(after == EPERM, "%s under the filter: EPERM (%s)", what,
	   after > 0 && after != 255 ? strerror(after) :
	   after == 0 ? "it was done" : "no child");
}

static void allowed(const char *what, probe_fn probe)
{
	int after = in_child(probe, 1);

	ok(after == 0, "%s under the filter still works (%s)", what,
	   after == 0 ? "ok" : after > 0 && after != 255 ? strerror(after)
							 : "no child");
}

/*
 * Whether seccomp(2) exists here: valgrind does not emulate it (ENOSYS),
 * nor a kernel built without CONFIG_SECCOMP_FILTER, where devns refuses
 * a job with TmpDiskLimit rather than run it unguarded.
 */
static bool seccomp_missing(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(dqguard_install() < 0 && errno == ENOSYS ? 1 : 0);
	return pid > 0 && waitpid(pid, &status, 0) == pid &&
	       WIFEXITED(status) && WEXITSTATUS(status) == 1;
}

int main(void)
{
	int rc;

	if (!tap_root()) {
		tap_skip("the filter is installed by root");
		return tap_done();
	}
	if (seccomp_missing()) {
		printf("1..0 # SKIP no seccomp(2) here (valgrind emulates none)\n");
		return 0;
	}
	file_fd = mkstemp(file);
	if (!ok(file_fd >= 0, "precondition: a file %s", file))
		return tap_done();
	refused("FS_IOC_FSSETXATTR (chattr -p, chattr -P)", fssetxattr_same);
	refused("FS_IOC_FSSETXATTR with the command's upper 32 bits set",
		fssetxattr_high_bits);
	refused("FS_IOC_SETFLAGS (PROJINHERIT is one of the flags)",
		setflags_same);
	refused("FS_IOC_SETFLAGS as a 32-bit process passes it", setflags32);
	refused("file_setattr(2)", file_setattr);
#if defined(__x86_64__)
	refused("ioctl FS_IOC_FSSETXATTR through the x32 ABI",
		x32_fssetxattr);
	refused("file_setattr(2) through the x32 ABI", x32_file_setattr);
	/* Without IA32 emulation, int $0x80 is a fault (or ENOSYS). */
	rc = in_child(compat_setflags, 0);
	if (rc < 0 || rc == ENOSYS) {
		tap_skip("the i386 entry: no IA32 emulation in this kernel");
	} else {
		refused("FS_IOC_SETFLAGS through the i386 entry",
			compat_setflags);
		refused("file_setattr(2) through the i386 entry",
			compat_file_setattr);
	}
#endif
	allowed("FS_IOC_FSGETXATTR (lsattr -p)", getxattr);
	allowed("an unrelated ioctl (FIONREAD on a pipe)", pipe_fionread);
	close(file_fd);
	ok(unlink(file) == 0, "no leftovers: the file is removed");
	return tap_done();
}
