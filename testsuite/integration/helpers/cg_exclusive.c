/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cg_exclusive.c - attach or detach an exclusive device program on a cgroup.
 *
 *   cg_exclusive attach CGROUP_DIR    allow-all program, attach flags 0
 *   cg_exclusive detach CGROUP_DIR
 *
 * A program attached without BPF_F_ALLOW_OVERRIDE or BPF_F_ALLOW_MULTI
 * forbids every attach below it: the kernel then refuses the job's filter
 * with EPERM, which is how the fail-closed test provokes an attach failure
 * (the same refusal a site meets when another manager owns the subtree).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "dev/devprog.h"

/* devprog_attach() always asks for BPF_F_ALLOW_MULTI: flags 0 here. */
static int attach_exclusive(int prog_fd, int cg_fd)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.target_fd = cg_fd;
	attr.attach_bpf_fd = prog_fd;
	attr.attach_type = BPF_CGROUP_DEVICE;
	return syscall(SYS_bpf, BPF_PROG_ATTACH, &attr, sizeof(attr));
}

int main(int argc, char **argv)
{
	/* r0 = 1 (allow); exit */
	const struct bpf_insn allow_all[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 1 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	char log[256] = "";
	int cg_fd, prog_fd = -1, rc;

	if (argc != 3 || (strcmp(argv[1], "attach") && strcmp(argv[1], "detach"))) {
		fprintf(stderr, "usage: cg_exclusive attach|detach CGROUP_DIR\n");
		return 2;
	}
	if ((cg_fd = open(argv[2], O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		fprintf(stderr, "cg_exclusive: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	if (!strcmp(argv[1], "detach")) {
		/* No program fd: the kernel detaches the cgroup's only one. */
		rc = devprog_detach(-1, cg_fd);
	} else if ((prog_fd = devprog_load(allow_all, 2, log, sizeof(log))) < 0) {
		fprintf(stderr, "cg_exclusive: load: %s %s\n", strerror(errno), log);
		return 1;
	} else {
		rc = attach_exclusive(prog_fd, cg_fd);
	}
	if (rc < 0)
		fprintf(stderr, "cg_exclusive: %s %s: %s\n", argv[1], argv[2],
			strerror(errno));
	return rc < 0;
}
