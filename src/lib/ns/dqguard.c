/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dqguard.c - the seccomp filter that keeps a job's files in its project.
 *
 * A classic BPF program over struct seccomp_data, one instruction array:
 * for the architectures a process of this build can run as (x86_64 with
 * x32 and i386, aarch64 with arm), the ioctl commands that set project ids
 * or inode flags and the file_setattr syscall get EPERM; everything else
 * is allowed.  A process of an architecture the filter does not know
 * passes (this build cannot run one).
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/fs.h>
#include <linux/seccomp.h>

#include "ns/dqguard.h"

/* file_setattr(2), Linux 6.17: the same number on every architecture. */
#define NR_FILE_SETATTR 469

/* FS_IOC_SETFLAGS as a 32-bit process passes it (an int, not a long). */
#define IOC32_SETFLAGS _IOW('f', 2, int)

#if defined(__x86_64__)
#define ARCH_NATIVE AUDIT_ARCH_X86_64
#define NR_IOCTL 16
#define ARCH_COMPAT AUDIT_ARCH_I386
#define NR_IOCTL_COMPAT 54
#define X32_BIT 0x40000000u
#define NR_IOCTL_X32 (514 | X32_BIT)
#elif defined(__aarch64__)
#define ARCH_NATIVE AUDIT_ARCH_AARCH64
#define NR_IOCTL 29
#define ARCH_COMPAT AUDIT_ARCH_ARM
#define NR_IOCTL_COMPAT 54
#endif

#ifndef ARCH_NATIVE
#error "dqguard: no seccomp architecture for this build"
#endif
#ifndef NR_IOCTL_X32		/* no third syscall table: repeat a number */
#define X32_BIT 0u
#define NR_IOCTL_X32 NR_IOCTL
#endif

/*
 * ioctl's command is an unsigned int: the kernel ignores the upper half
 * of the register, so only the lower 32 bits are compared (a caller can
 * set the upper ones to slip past a 64-bit compare).
 */
#if __BYTE_ORDER == __LITTLE_ENDIAN
#define CMD_LOW offsetof(struct seccomp_data, args[1])
#else
#define CMD_LOW (offsetof(struct seccomp_data, args[1]) + 4)
#endif

#define LD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define JEQ(k, t, f) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (t), (f))
#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))

/*
 * Jump offsets count the instructions skipped; the labels in the
 * comments name their targets.
 */
static const struct sock_filter program[] = {
	/* 0 */ LD(offsetof(struct seccomp_data, arch)),
	/* 1 */ JEQ(ARCH_NATIVE, 0, 6),			/* else compat: 8 */
	/* 2 */ LD(offsetof(struct seccomp_data, nr)),
	/* 3 */ JEQ(NR_IOCTL, 9, 0),			/* cmd: 13 */
	/* 4 */ JEQ(NR_IOCTL_X32, 8, 0),		/* cmd: 13 */
	/* 5 */ JEQ(NR_FILE_SETATTR, 11, 0),		/* deny: 17 */
	/* 6 */ JEQ(NR_FILE_SETATTR | X32_BIT, 10, 0),	/* deny: 17 */
	/* 7 */ RET(SECCOMP_RET_ALLOW),
	/* 8 */ JEQ(ARCH_COMPAT, 0, 3),			/* else allow: 12 */
	/* 9 */ LD(offsetof(struct seccomp_data, nr)),
	/* 10 */ JEQ(NR_IOCTL_COMPAT, 2, 0),		/* cmd: 13 */
	/* 11 */ JEQ(NR_FILE_SETATTR, 5, 0),		/* deny: 17 */
	/* 12 */ RET(SECCOMP_RET_ALLOW),
	/* 13 */ LD(CMD_LOW),
	/* 14 */ JEQ((uint32_t)FS_IOC_FSSETXATTR, 2, 0),	/* deny: 17 */
	/* 15 */ JEQ((uint32_t)FS_IOC_SETFLAGS, 1, 0),	/* deny: 17 */
	/* 16 */ JEQ((uint32_t)IOC32_SETFLAGS, 0, 1),	/* deny: 17, else 18 */
	/* 17 */ RET(SECCOMP_RET_ERRNO | EPERM),
	/* 18 */ RET(SECCOMP_RET_ALLOW),
};

int dqguard_install(void)
{
	struct sock_fprog prog = {
		.len = sizeof(program) / sizeof(*program),
		.filter = (struct sock_filter *)program,
	};

	/*
	 * SPEC_ALLOW: without it, kernels before 5.16 turn on the speculative
	 * store bypass mitigation for every filtered process, which costs an
	 * HPC job dearly and protects nothing here.  Kernels before 4.17 do
	 * not know the flag.
	 */
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_SPEC_ALLOW, &prog) == 0)
		return 0;
	if (errno != EINVAL)
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}
