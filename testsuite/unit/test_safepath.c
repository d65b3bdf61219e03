/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_safepath.c - paths walked without following links, and the
 * StrictModes-like ownership checks of BasePath, Source= and mount
 * points (no ancestor of BasePath or of a mount point writable by group
 * or others, 1777 and 0777 alike).
 *
 * The ownership cases need root (they make root- and user-owned
 * directories); without it they are skipped, with the reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "util/safepath.h"
#include "util/saferm.h"
#include "tap.h"
#include "testrep.h"

/* Not in /var/tmp: no ancestor of what is checked may be shared. */
static char top[] = "/var/lib/test-safepath.XXXXXX";

static const char *at(const char *rel)
{
	static char buf[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", top, rel);
	return buf[i];
}

static void test_syntax(void)
{
	const char *bad[] = { "relative", "/a//b", "/a/./b", "/a/../b",
			      "/a/", "", NULL };

	for (int i = 0; bad[i]; i++) {
		errno = 0;
		ok(safepath_open(bad[i]) < 0 && errno == EINVAL,
		   "\"%s\" is refused with EINVAL", bad[i]);
	}
	int fd = safepath_open("/");
	ok(fd >= 0, "/ opens");
	if (fd >= 0)
		close(fd);
}

static void test_open(void)
{
	int fd;

	mkdir(at("d"), 0755);
	mkdir(at("d/sub"), 0755);
	ok(symlink(at("d"), at("link")) == 0, "precondition: a link to d");
	close(open(at("file"), O_CREAT | O_WRONLY, 0644));

	fd = safepath_open(at("d/sub"));
	ok(fd >= 0, "a real directory opens");
	if (fd >= 0)
		close(fd);
	errno = 0;
	ok(safepath_open(at("link")) < 0 && errno == ELOOP,
	   "a link as last component: ELOOP");
	errno = 0;
	ok(safepath_open(at("link/sub")) < 0 && errno == ELOOP,
	   "a link mid-path: ELOOP");
	errno = 0;
	ok(safepath_open(at("file")) < 0 && errno == ENOTDIR,
	   "a file: ENOTDIR");
	errno = 0;
	ok(safepath_open(at("none")) < 0 && errno == ENOENT,
	   "a missing directory: ENOENT");
}

/*
 * What test_open checks, as bits of what went wrong (0: all right), for
 * a child to report.
 */
static int open_failures(void)
{
	int fd = safepath_open(at("d/sub")), fails = 0;

	if (fd < 0)
		fails |= 1;
	else
		close(fd);
	errno = 0;
	if (safepath_open(at("link")) >= 0 || errno != ELOOP)
		fails |= 2;
	errno = 0;
	if (safepath_open(at("link/sub")) >= 0 || errno != ELOOP)
		fails |= 4;
	errno = 0;
	if (safepath_open(at("file")) >= 0 || errno != ENOTDIR)
		fails |= 8;
	errno = 0;
	if (safepath_open(at("none")) >= 0 || errno != ENOENT)
		fails |= 16;
	errno = 0;
	if (safepath_open("/proc/self/cwd") >= 0 || errno != ELOOP)
		fails |= 32;
	return fails;
}

/* From here on openat2(2) fails with ENOSYS, as before Linux 5.6. */
static int without_openat2(void)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof(filter) / sizeof(filter[0]),
		.filter = filter,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		return -1;
	return syscall(SYS_openat2, AT_FDCWD, "/", NULL, 0) < 0 &&
	       errno == ENOSYS ? 0 : -1;
}

/*
 * safepath_open takes openat2(2) where there is one; the walk it falls
 * back to where there is none refuses the same (test_open's tree).
 */
static void test_open_both_ways(void)
{
	int status;
	pid_t pid;

	is_int(open_failures(), 0, "openat2: a link anywhere, magic ones too, "
	       "a file, a missing name refused as test_open says");
	pid = fork();
	if (pid == 0)
		_exit(without_openat2() < 0 ? 100 : open_failures());
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
		ok(0, "the walk without openat2: the child ran");
		return;
	}
	if (WEXITSTATUS(status) == 100) {
		tap_skip("the walk without openat2: no seccomp filter here");
		return;
	}
	is_int(WEXITSTATUS(status), 0, "without openat2 (ENOSYS, Linux "
	       "before 5.6): the walk refuses the same");
}

static void test_private(void)
{

	ok(safepath_check_private(at("d/sub"), fresh()) == 0,
	   "root-owned 0755 below root-only directories passes: %s", rep.msg);
	ok(safepath_check_private("/var/tmp", fresh()) < 0,
	   "/var/tmp itself is refused");
	like(rep.msg, "shared directory", "as a shared directory");
	ok(safepath_check_private("/tmp", fresh()) < 0,
	   "/tmp is refused");
	ok(safepath_check_private(at("link"), fresh()) < 0,
	   "a link is refused");
	like(rep.msg, "symbolic link", "the message says link: %s", rep.msg);

	chmod(at("d"), 0775);
	ok(safepath_check_private(at("d/sub"), fresh()) < 0,
	   "a group-writable component is refused");
	like(rep.msg, at("d"), "the message names it: %s", rep.msg);
	chmod(at("d"), 0755);

	(void)!chown(at("d/sub"), 65534, 65534);
	ok(safepath_check_private(at("d/sub"), fresh()) < 0,
	   "a component owned by a user is refused");
	like(rep.msg, "not owned by root", "the message says so: %s", rep.msg);
	(void)!chown(at("d/sub"), 0, 0);

	/*
	 * A sticky world-writable ancestor is refused too, even with a
	 * child of root's: once that child is empty it can be removed
	 * (systemd-tmpfiles ages /var/tmp out) and its name taken.
	 */
	mkdir(at("sticky"), 01777);
	chmod(at("sticky"), 01777);
	mkdir(at("sticky/base"), 0755);
	ok(safepath_check_private(at("sticky/base"), fresh()) < 0,
	   "a root-owned dir below a sticky (1777) one is refused");
	like(rep.msg, "sticky is writable by others (mode 1777): sticky or "
	     "not", "  naming the sticky one and why: %s", rep.msg);
	rmdir(at("sticky/base"));
	mkdir(at("open"), 0777);
	chmod(at("open"), 0777);
	mkdir(at("open/base"), 0755);
	ok(safepath_check_private(at("open/base"), fresh()) < 0,
	   "a world-writable (0777), non-sticky ancestor is refused");
	like(rep.msg, "open is writable by others (mode 0777)",
	     "  naming it: %s", rep.msg);
	rmdir(at("open/base"));
	rmdir(at("open"));
}

static void test_make_private(void)
{
	struct stat st;

	/* In a sticky directory a user could take the name first. */
	ok(access(at("sticky/a"), F_OK) < 0 && access(at("sticky"), F_OK) == 0,
	   "precondition: sticky/ (1777) exists, sticky/a does not");
	ok(safepath_make_private(at("sticky/a/b/c"), 0755, fresh()) < 0,
	   "AutoBasePath makes nothing in a sticky world-writable directory");
	like(rep.msg, "sticky is writable by others (mode 1777): sticky or "
	     "not", "  naming the directory others may write to: %s",
	     rep.msg);
	ok(access(at("sticky/a"), F_OK) < 0, "  and makes nothing");
	mkdir(at("sticky/a"), 0755);	/* root's, as an admin makes it */
	ok(safepath_make_private(at("sticky/a/b/c"), 0755, fresh()) < 0,
	   "nor below root's directory in it");
	ok(access(at("sticky/a/b"), F_OK) < 0, "  and makes nothing");
	mkdir(at("priv"), 0755);
	umask(077);
	ok(safepath_make_private(at("priv/a/b/c"), 0755, fresh()) == 0,
	   "AutoBasePath creates missing components below root-only "
	   "directories: %s", rep.msg);
	umask(022);
	ok(stat(at("priv/a/b/c"), &st) == 0 && st.st_uid == 0 &&
	   (st.st_mode & 07777) == 0755, "root-owned 0755 whatever the umask");
	ok(symlink(at("d"), at("priv/l")) == 0, "precondition: a planted link");
	ok(safepath_make_private(at("priv/l/new"), 0755, fresh()) < 0,
	   "creation never follows a planted link");
	ok(access(at("d/new"), F_OK) < 0, "nothing was made at the link's target");
	mkdir(at("priv/user"), 0755);
	(void)!chown(at("priv/user"), 65534, 65534);
	ok(safepath_make_private(at("priv/user/base"), 0755, fresh()) < 0,
	   "a user's directory in the path is refused");
	ok(access(at("priv/user/base"), F_OK) < 0,
	   "and nothing is created below it");
}

/* What devns check says of a BasePath that AutoBasePath would make. */
static void test_check_makeable(void)
{
	ok(access(at("sticky/x"), F_OK) < 0 && access(at("sticky"), F_OK) == 0,
	   "precondition: sticky/ exists, sticky/x does not");
	is_int(safepath_check_makeable(at("sticky/x/y"), fresh()), -1,
	   "a missing tail in a sticky world-writable directory: refused");
	like(rep.msg, "sticky is writable by others (mode 1777)",
	     "  saying why: %s", rep.msg);
	is_int(safepath_check_makeable(at("sticky/a/x/y"), fresh()), -1,
	   "a missing tail below root's directory in a sticky one: refused");
	is_int(safepath_check_makeable(at("priv/a/x/y"), fresh()), 0,
	   "a missing tail below root-only components: 0 (would be made)");
	ok(access(at("priv/a/x"), F_OK) < 0, "  and nothing is made");
	is_int(safepath_check_makeable(at("priv/a/b/c"), fresh()), 1,
	   "a path that exists and passes: 1");
	is_int(safepath_check_makeable(at("priv/user/new"), fresh()), -1,
	   "a missing tail below a user's directory: refused");
	like(rep.msg, "not owned by root", "  saying why: %s", rep.msg);
	is_int(safepath_check_makeable(at("priv/l/new"), fresh()), -1,
	   "a missing tail below a link: refused");
}

/* Where Source= makes each job's directory: root's, nobody else's. */
static void test_create_below(void)
{
	mkdir(at("src"), 0755);
	ok(safepath_check_create_below(at("src"), fresh()) == 0,
	   "a root-owned 0755 fixed part passes: %s", rep.msg);
	ok(safepath_check_create_below(at("sticky/a"), fresh()) == 0,
	   "  also below a sticky directory (root's entry): %s", rep.msg);
	ok(safepath_check_create_below(at("sticky"), fresh()) < 0,
	   "a sticky world-writable fixed part is refused");
	like(rep.msg, "sticky belongs to uid 0 with mode 1777",
	     "  naming it: %s", rep.msg);
	like(rep.msg, "sticky or not", "  and why");
	chmod(at("src"), 0775);
	ok(safepath_check_create_below(at("src"), fresh()) < 0,
	   "a group-writable one is refused");
	chmod(at("src"), 0755);
	(void)!chown(at("src"), 65534, 65534);
	ok(safepath_check_create_below(at("src"), fresh()) < 0,
	   "a user's is refused");
	(void)!chown(at("src"), 0, 0);
	ok(safepath_check_create_below(at("link/sub"), fresh()) < 0,
	   "a link on the way is refused");
	like(rep.msg, "symbolic link", "  saying so: %s", rep.msg);
	ok(safepath_check_create_below(at("src/missing"), fresh()) == 0,
	   "a missing one in a root-only directory passes (made later)");
	ok(safepath_check_create_below(at("sticky/missing"), fresh()) < 0,
	   "a missing one in a sticky directory is refused: %s", rep.msg);
}

/*
 * A private directory's mount point, mounted over at each job start: its
 * parents must be root's alone, sticky or not (a mount point's directory
 * removed from a shared parent detaches the jobs' mounts, and any user
 * could take the name); the mount point itself may be 1777.
 */
static void test_mount_point(void)
{
	ok(safepath_check_mount_point("/tmp", fresh()) == 0,
	   "/tmp (1777 itself, mounted over; its parent / is root's "
	   "alone) passes: %s", rep.msg);
	ok(safepath_check_mount_point(at("sticky"), fresh()) == 0,
	   "a 1777 mount point in root-only directories passes: %s",
	   rep.msg);
	ok(access(at("sticky/a"), F_OK) == 0,
	   "precondition: root's directory in the sticky one");
	ok(safepath_check_mount_point(at("sticky/a"), fresh()) < 0,
	   "a root-owned one in a sticky (1777) directory is refused");
	like(rep.msg, "sticky is writable by others (mode 1777): sticky or "
	     "not", "  naming the parent and why: %s", rep.msg);
	ok(safepath_check_mount_point(at("sticky/a/b"), fresh()) < 0,
	   "  and so is one deeper below it (any ancestor counts)");
	mkdir(at("sticky/mine"), 0755);
	(void)!chown(at("sticky/mine"), 65534, 65534);
	ok(safepath_check_mount_point(at("sticky/mine"), fresh()) < 0,
	   "a user's in a sticky directory is refused");
	ok(safepath_check_mount_point(at("sticky/none"), fresh()) < 0,
	   "a missing one in a sticky directory is refused");
	like(rep.msg, "writable by others", "  saying why: %s", rep.msg);
	ok(symlink(at("d"), at("priv/planted")) == 0,
	   "precondition: a link in a root-only directory");
	ok(safepath_check_mount_point(at("priv/planted"), fresh()) < 0,
	   "a link as the mount point is refused");
	like(rep.msg, "symbolic link", "  saying so: %s", rep.msg);
	mkdir(at("open"), 0777);
	chmod(at("open"), 0777);
	mkdir(at("open/mnt"), 0755);
	ok(safepath_check_mount_point(at("open/mnt"), fresh()) < 0,
	   "a root-owned one in a non-sticky 0777 directory is refused");
	like(rep.msg, "open is writable by others (mode 0777)",
	     "  saying so: %s", rep.msg);
	chmod(at("open"), 0775);
	ok(safepath_check_mount_point(at("open/mnt"), fresh()) < 0,
	   "  and in a group-writable (0775) one");
	ok(safepath_check_mount_point(at("d/none"), fresh()) == 0,
	   "a missing one in a root-only directory passes (the job start "
	   "needs it)");
}

/*
 * KeepPaths: a directory root made is kept, in a sticky parent too (its
 * name cannot be taken while it is there); one a user made, one below a
 * non-sticky writable directory, or a link is not.
 */
static void test_kept(void)
{
	int fd;

	fd = safepath_open_kept(at("sticky/a"), fresh());
	ok(fd >= 0, "root's directory in a sticky one is kept: %s", rep.msg);
	if (fd >= 0)
		close(fd);
	mkdir(at("sticky/a/x11"), 01777);
	chmod(at("sticky/a/x11"), 01777);
	fd = safepath_open_kept(at("sticky/a/x11"), fresh());
	ok(fd >= 0, "  itself 1777 (as /tmp/.X11-unix): kept: %s", rep.msg);
	if (fd >= 0)
		close(fd);
	ok(safepath_open_kept(at("sticky/mine"), fresh()) < 0 &&
	   errno == EPERM, "a user's is not");
	like(rep.msg, "sticky/mine is not owned by root (uid 65534): another "
	     "user may have made it first", "  saying why: %s", rep.msg);
	ok(safepath_open_kept(at("open/mnt"), fresh()) < 0 && errno == EPERM,
	   "nor one below a writable directory that is not sticky");
	like(rep.msg, "open is writable by its group (mode 0775)",
	     "  saying why: %s", rep.msg);
	ok(safepath_open_kept(at("priv/planted"), fresh()) < 0 &&
	   errno == ELOOP, "nor a link");
	ok(safepath_open_kept(at("d/none"), fresh()) < 0 && errno == ENOENT,
	   "a missing one: ENOENT");
}

static int remove_top(void)
{
	int fd = open("/var/lib", O_PATH | O_DIRECTORY | O_CLOEXEC), rc;

	rc = saferm_at(fd, strrchr(top, '/') + 1);
	close(fd);
	return rc;
}

int main(void)
{
	test_syntax();
	if (!tap_root()) {
		tap_skip("ownership tests need root");
		return tap_done();
	}
	if (!mkdtemp(top)) {
		tap_skip("cannot make a directory in /var/lib: %s",
			 strerror(errno));
		return tap_done();
	}
	chmod(top, 0755);
	test_open();
	test_open_both_ways();
	test_private();
	test_make_private();
	test_check_makeable();
	test_create_below();
	test_mount_point();
	test_kept();
	ok(remove_top() == 0, "the test tree is removed");
	return tap_done();
}
