/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_nsbus.c - the job's namespace has no door to systemd's managers
 * (ns/nsbus.h): a fake run directory with a listening "system bus" and a
 * user's runtime directory holding a listening "user manager" socket is
 * covered in a private mount namespace; the sockets answer before and
 * not after, the job user gets an empty runtime directory of its own, and
 * a planted link or a directory someone else controls is refused with
 * nothing mounted.  Needs root (mounts).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ns/nsbus.h"
#include "util/fdmount.h"
#include "tap.h"

/* A setup step that failed: no check could mean anything after it. */
#define BAIL_OUT(...)                                                         \
	do {                                                                  \
		diag(__VA_ARGS__);                                            \
		exit(2);                                                      \
	} while (0)

#define JOB_UID 4242
#define JOB_GID 4343

static char run[] = "/var/tmp/test-nsbus.XXXXXX";
static char sysbus[256], usermgr[256];

/* A listening socket at path, or -1. */
static int listen_at(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, 4) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* 0 when a client connects to path, else the errno. */
static int connect_errno(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), rc = 0;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd < 0)
		return errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		rc = errno;
	close(fd);
	return rc;
}

static void mkdir_owned(const char *path, uid_t uid, mode_t mode)
{
	if (mkdir(path, mode) < 0 || chown(path, uid, uid ? JOB_GID : 0) < 0 ||
	    chmod(path, mode) < 0)
		BAIL_OUT("making %s: %s", path, strerror(errno));
}

/* The node's layout: run/user/UID/systemd/private, run/dbus/system_bus_socket. */
static void make_node(void)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/user", run);
	mkdir_owned(p, 0, 0755);
	snprintf(p, sizeof(p), "%s/user/%d", run, JOB_UID);
	mkdir_owned(p, JOB_UID, 0700);
	snprintf(p, sizeof(p), "%s/user/%d/systemd", run, JOB_UID);
	mkdir_owned(p, JOB_UID, 0755);
	snprintf(p, sizeof(p), "%s/dbus", run);
	mkdir_owned(p, 0, 0755);
	snprintf(usermgr, sizeof(usermgr), "%s/user/%d/systemd/private", run,
		 JOB_UID);
	snprintf(sysbus, sizeof(sysbus), "%s/dbus/system_bus_socket", run);
}

/*
 * What the child reports, one bit a failed check, so that the parent can
 * name each: the child runs nsbus_hide() in a mount namespace of its own.
 */
enum {
	F_SYSBUS = 1 << 0,	/* the system bus still answers */
	F_USERMGR = 1 << 1,	/* the user manager still answers */
	F_OWNDIR = 1 << 2,	/* no empty 0700 runtime dir of the job user's */
	F_ONLY = 1 << 3,	/* run/user holds something else too */
	F_DBUS_RO = 1 << 4,	/* run/dbus can be written to */
	F_USER_RO = 1 << 5,	/* the job user cannot write its runtime dir */
	F_SIZE = 1 << 6,	/* run/user is not a 64 MiB tmpfs */
	F_HIDE = 253,		/* alone: nsbus_hide() failed */
	F_NS = 254,		/* alone: no namespace of our own */
};

static int count_entries(const char *path)
{
	char cmd[512];
	FILE *f;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", path);
	if ((f = popen(cmd, "r"))) {
		if (fscanf(f, "%d", &n) != 1)
			n = -1;
		pclose(f);
	}
	return n;
}

static int hide_and_look(void)
{
	char p[256];
	struct statvfs sv;
	struct stat st;
	int fails = 0;

	if (unshare(CLONE_NEWNS) < 0 ||
	    mount("none", "/", NULL, MS_REC | MS_SLAVE, NULL) < 0)
		return F_NS;
	if (nsbus_hide(run, JOB_UID, JOB_GID) < 0)
		return F_HIDE;
	if (connect_errno(sysbus) != ENOENT)
		fails |= F_SYSBUS;
	if (connect_errno(usermgr) != ENOENT)
		fails |= F_USERMGR;
	snprintf(p, sizeof(p), "%s/user/%d", run, JOB_UID);
	if (lstat(p, &st) < 0 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != JOB_UID || st.st_gid != JOB_GID ||
	    (st.st_mode & 07777) != 0700 || count_entries(p) != 0)
		fails |= F_OWNDIR;
	snprintf(p, sizeof(p), "%s/user", run);
	if (count_entries(p) != 1)
		fails |= F_ONLY;
	if (statvfs(p, &sv) < 0 || sv.f_blocks * sv.f_frsize != 64 << 20)
		fails |= F_SIZE;
	snprintf(p, sizeof(p), "%s/dbus/x", run);
	if (mkdir(p, 0755) == 0 || errno != EROFS)
		fails |= F_DBUS_RO;
	/* As the job user: its runtime directory is its own to use. */
	snprintf(p, sizeof(p), "%s/user/%d/s", run, JOB_UID);
	if (setgid(JOB_GID) < 0 || setuid(JOB_UID) < 0 || mkdir(p, 0700) < 0)
		fails |= F_USER_RO;
	return fails;
}

/* Run fn in a child; its exit status, or -1. */
static int in_child(int (*fn)(void))
{
	pid_t pid = fork();
	int status;

	if (pid == 0)
		_exit(fn());
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void test_hide(void)
{
	int sys_fd, mgr_fd, fails;

	make_node();
	sys_fd = listen_at(sysbus);
	mgr_fd = listen_at(usermgr);
	ok(sys_fd >= 0 && mgr_fd >= 0 && connect_errno(sysbus) == 0 &&
	   connect_errno(usermgr) == 0,
	   "precondition: the system bus and the user manager answer");
	fails = in_child(hide_and_look);
	ok(fails >= 0 && fails != F_NS && fails != F_HIDE,
	   "nsbus_hide() covers them in a namespace of its own (%d)", fails);
	if (fails < 0 || fails == F_NS || fails == F_HIDE)
		fails = 0xff;	/* every check below fails */
	ok(fails >= 0 && !(fails & F_SYSBUS),
	   "the system bus does not answer in it");
	ok(fails >= 0 && !(fails & F_USERMGR),
	   "the user manager does not answer in it");
	ok(fails >= 0 && !(fails & F_OWNDIR),
	   "the job user has an empty runtime directory (uid, gid, 0700)");
	ok(fails >= 0 && !(fails & F_ONLY), "and nothing else is in /run/user");
	ok(fails >= 0 && !(fails & F_SIZE), "/run/user is a 64 MiB tmpfs");
	ok(fails >= 0 && !(fails & F_USER_RO), "the job user can use it");
	ok(fails >= 0 && !(fails & F_DBUS_RO), "/run/dbus is read-only");
	ok(connect_errno(sysbus) == 0 && connect_errno(usermgr) == 0,
	   "outside the namespace both still answer");
	if (sys_fd >= 0)
		close(sys_fd);
	if (mgr_fd >= 0)
		close(mgr_fd);
}

/* nsbus_hide()'s errno in a namespace of its own (0: it succeeded). */
static int hide_errno(void)
{
	if (unshare(CLONE_NEWNS) < 0 ||
	    mount("none", "/", NULL, MS_REC | MS_SLAVE, NULL) < 0)
		return 255;
	return nsbus_hide(run, JOB_UID, JOB_GID) < 0 ? errno : 0;
}

static int hide_missing(void)
{
	char p[256];
	struct stat st;
	int rc = hide_errno();

	if (rc)
		return rc;
	snprintf(p, sizeof(p), "%s/user/%d", run, JOB_UID);
	if (lstat(p, &st) < 0 || st.st_uid != JOB_UID)
		return 200;
	snprintf(p, sizeof(p), "%s/dbus", run);
	if (count_entries(p) != 0)
		return 201;
	return 0;
}

static void reset(void)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'/* '%s'/.[!.]*", run, run);
	if (system(cmd) != 0)
		BAIL_OUT("cannot empty %s", run);
}

static bool is_root_dir(const char *name)
{
	char p[256];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", run, name);
	return lstat(p, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == 0 &&
	       (st.st_mode & 07777) == 0755;
}

static void test_missing(void)
{
	char p[256];

	reset();
	is_int(in_child(hide_missing), 0,
	       "no /run/user, no /run/dbus: made and covered all the same");
	ok(is_root_dir("user") && is_root_dir("dbus"),
	   "both made root's 0755 on the node, for a manager started later");
	/* A bus started during the job: in the node's directory, unseen. */
	snprintf(p, sizeof(p), "%s/dbus/system_bus_socket", run);
	ok(access(p, F_OK) < 0 && errno == ENOENT, "and nothing inside");
}

static void test_refused(void)
{
	char p[256], q[256];

	reset();
	make_node();
	snprintf(p, sizeof(p), "%s/dbus", run);
	snprintf(q, sizeof(q), "%s/elsewhere", run);
	rmdir(p);
	mkdir_owned(q, 0, 0755);
	ok(symlink(q, p) == 0, "precondition: %s is a link", p);
	is_int(in_child(hide_errno), ELOOP, "a link at /run/dbus: ELOOP");

	reset();
	make_node();
	snprintf(p, sizeof(p), "%s/user", run);
	ok(chown(p, JOB_UID, JOB_GID) == 0, "precondition: a user owns %s", p);
	is_int(in_child(hide_errno), EPERM, "/run/user not root's: EPERM");

	reset();
	make_node();
	snprintf(p, sizeof(p), "%s/dbus", run);
	ok(chmod(p, 01777) == 0, "precondition: %s is 1777", p);
	is_int(in_child(hide_errno), EPERM,
	       "/run/dbus writable by others: EPERM");

	reset();
	snprintf(p, sizeof(p), "%s/user", run);
	snprintf(q, sizeof(q), "%s/elsewhere", run);
	mkdir_owned(q, 0, 0755);
	ok(symlink(q, p) == 0, "precondition: %s is a link", p);
	is_int(in_child(hide_errno), ELOOP, "a link at /run/user: ELOOP");
}

int main(void)
{
	if (!tap_root()) {
		tap_skip("nsbus tests need root (mounts)");
		return tap_done();
	}
	if (fdmount_missing_call()) {
		tap_skip("nsbus tests: no %s here", fdmount_missing_call());
		return tap_done();
	}
	if (!mkdtemp(run)) {
		tap_skip("cannot make a run directory: %s", strerror(errno));
		return tap_done();
	}
	if (chmod(run, 0755) < 0)
		BAIL_OUT("chmod %s: %s", run, strerror(errno));
	test_hide();
	test_missing();
	test_refused();
	reset();
	rmdir(run);
	return tap_done();
}
