/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dqguard.h - keep a job's files in the project that limits them.
 *
 * TmpDiskLimit charges everything below BasePath/<jobid> to project
 * <jobid> (ns/dquota.h).  In the initial user namespace the kernel lets a
 * file's owner change its project id (FS_IOC_FSSETXATTR, file_setattr(2))
 * and clear PROJINHERIT on a directory (FS_IOC_FSSETXATTR or
 * FS_IOC_SETFLAGS), after which what the job writes is charged to another
 * project, the unlimited default one or another job's.  No file mode or
 * mount option stops the owner; a seccomp filter in every process of the
 * job does: it refuses those calls with EPERM, whatever the file.
 *
 * The filter is inherited by every child and cannot be removed, so a
 * process of the job and everything it starts stay under it.  Other
 * calls pass untouched (reading attributes, FS_IOC_FSGETXATTR, keeps
 * working: lsattr, du).  Setting any inode flag is refused with them, since
 * FS_IOC_SETFLAGS carries PROJINHERIT among the others.
 */
#ifndef DEVNS_DQGUARD_H
#define DEVNS_DQGUARD_H

/*
 * Put the calling thread (and every child it makes later) under the
 * filter.  Needs CAP_SYS_ADMIN (root before dropping privileges): the
 * filter is installed without no_new_privs, which would break setuid
 * programs in the job.  Returns 0 or -1 with errno.
 */
int dqguard_install(void);

#endif /* DEVNS_DQGUARD_H */
