/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsbus.h - keep a job's processes away from systemd's managers.
 *
 * On a node where the job user has a systemd user manager
 * (user@UID.service, started by pam_systemd at a login or by lingering),
 * `systemd-run --user --scope CMD` from a job has that manager ask PID 1
 * (AttachProcessesToUnit, over the system bus) to move CMD into
 * user@UID.service/app.slice/run-*.scope: out of the job's cgroup, and so
 * out of Slurm's limits and devns's device filter, which are the job
 * cgroup's.  A job process can make the same call to PID 1 itself: PID 1
 * lets any caller move its own processes into an active, delegated unit
 * of its uid (bus_unit_method_attach_processes(), no polkit check), which
 * user@UID.service is.  `systemd-run --user` without --scope has the user
 * manager start CMD itself, outside the job altogether.
 *
 * So the job's mount namespace has neither door: its /run/user is a fresh
 * tmpfs (64 MiB) holding only an empty /run/user/UID of the job user's (the job's
 * own XDG_RUNTIME_DIR, without the user manager's private socket, the
 * user bus or any other socket of the user's session), and its /run/dbus
 * an empty read-only tmpfs (no system bus).  Both directories are made
 * (root's, 0755) when missing, so that a manager or a bus started during
 * the job does not appear in it.
 */
#ifndef DEVNS_NSBUS_H
#define DEVNS_NSBUS_H

#include <sys/types.h>

/* Where the node has them: /run/user/UID and /run/dbus/system_bus_socket. */
#define NSBUS_RUN_DIR "/run"

/*
 * In the caller's mount namespace (a job's, before any job process runs
 * in it), cover run_dir/user with a tmpfs (root's 0755, nosuid, nodev, 64 MiB)
 * holding only run_dir/user/<uid>, the job user's (uid, gid, 0700), and
 * run_dir/dbus with an empty read-only tmpfs.  run_dir is walked without
 * following links; user and dbus must be directories of root's that no
 * one else can write to, else nothing is mounted over them (a link there
 * ELOOP, another owner or a writable mode EPERM).  Only system calls:
 * may run in a vchild.  Returns 0, or -1 with errno (the caller fails the
 * job: its processes would otherwise reach the managers).
 */
int nsbus_hide(const char *run_dir, uid_t uid, gid_t gid);

#endif /* DEVNS_NSBUS_H */
