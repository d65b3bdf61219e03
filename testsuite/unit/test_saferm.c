/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_saferm.c - unit tests of saferm_at() and saferm_contents().
 *
 * Everything happens in a mkdtemp() directory: an "outside" area that must
 * survive untouched, and trees to remove that point into it by symlinks
 * and hard links, nest 2000 deep, hold fifos, sockets, device nodes and
 * read-only or unreadable directories.  Two racing children swap
 * directories for symlinks and move directories out while the removal
 * runs (the CVE-2023-41914 pattern).  Mount points (bind and tmpfs) are
 * tested in a private mount namespace when we may make one (root), and the
 * permission cases run as nobody when we are root.  A directory of 20000
 * long names, some of them subdirectories, is removed under a data limit
 * far below what holding its names takes (on a tmpfs when we are root, to
 * be fast), and so is a chain of 100,000 directories; a deep chain with
 * files beside each level is removed in pieces moved up into the top.  A
 * 64 MiB file held open by the test, on disk and in a tmpfs, reads
 * nothing and holds no blocks once its tree is removed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/saferm.h"
#include "tap.h"

#define DEEP 2000
#define MANY 2000
#define RACE_ROUNDS 100

static char base[4096];  /* the mkdtemp directory */
static int basefd = -1;

/* ---- helpers --------------------------------------------------------- */

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n++;
	closedir(d);
	return n;
}

static void must(bool cond, const char *what)
{
	if (!cond) {
		printf("Bail out! %s: %s\n", what, strerror(errno));
		exit(1);
	}
}

static void put_file(int dirfd, const char *name, const char *text,
		     mode_t mode)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			mode);

	must(fd >= 0, name);
	must(write(fd, text, strlen(text)) == (ssize_t)strlen(text), name);
	must(fchmod(fd, mode) == 0, name);
	close(fd);
}

static bool file_has(int dirfd, const char *name, const char *text)
{
	char buf[256];
	ssize_t n;
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return false;
	buf[n] = '\0';
	return !strcmp(buf, text);
}

static bool exists(int dirfd, const char *name)
{
	struct stat st;

	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* mkdir name (0700) below dirfd if missing; returns an fd of it. */
static int make_dir(int dirfd, const char *name)
{
	int fd;

	must(mkdirat(dirfd, name, 0700) == 0 || errno == EEXIST, name);
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	must(fd >= 0, name);
	return fd;
}

/* A chain name/d/d/.../d of depth directories; returns the deepest fd. */
static int make_chain(int dirfd, const char *name, int depth)
{
	int fd = make_dir(dirfd, name), next, i;

	for (i = 1; i < depth; i++) {
		next = make_dir(fd, "d");
		close(fd);
		fd = next;
	}
	return fd;
}

static void make_socket(int dirfd, const char *name)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	must(cwd >= 0 && s >= 0, "socket");
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", name);
	/* bind() takes a path: bind relative to dirfd by going there. */
	must(fchdir(dirfd) == 0, "fchdir");
	must(bind(s, (struct sockaddr *)&sun, sizeof(sun)) == 0, "bind");
	must(fchdir(cwd) == 0, "fchdir back");
	close(s);
	close(cwd);
}

/* ---- the outside world that must survive ----------------------------- */

struct snap {
	struct stat file, dir, inner;
};

static void outside_make(void)
{
	int out = make_dir(basefd, "outside"), dir;

	put_file(out, "file", "keep me", 0640);
	dir = make_dir(out, "dir");
	put_file(dir, "inner", "keep me too", 0600);
	must(fchmod(dir, 0750) == 0, "chmod outside/dir");
	close(dir);
	close(out);
}

static void outside_snap(struct snap *s)
{
	must(fstatat(basefd, "outside/file", &s->file, 0) == 0, "stat");
	must(fstatat(basefd, "outside/dir", &s->dir, 0) == 0, "stat");
	must(fstatat(basefd, "outside/dir/inner", &s->inner, 0) == 0, "stat");
}

static bool stat_same(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_mode == b->st_mode
	       && a->st_uid == b->st_uid && a->st_gid == b->st_gid;
}

/* For files also size and mtime (a directory's change when racers move). */
static bool file_same(const struct stat *a, const struct stat *b)
{
	return stat_same(a, b) && a->st_size == b->st_size
	       && a->st_mtim.tv_sec == b->st_mtim.tv_sec
	       && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* The outside area is as snapped; nlink may differ (hard links). */
static bool outside_intact(const struct snap *before)
{
	struct snap now;

	if (fstatat(basefd, "outside/file", &now.file, 0) < 0
	    || fstatat(basefd, "outside/dir", &now.dir, 0) < 0
	    || fstatat(basefd, "outside/dir/inner", &now.inner, 0) < 0)
		return false;
	return file_same(&now.file, &before->file)
	       && stat_same(&now.dir, &before->dir)
	       && file_same(&now.inner, &before->inner)
	       && file_has(basefd, "outside/file", "keep me")
	       && file_has(basefd, "outside/dir/inner", "keep me too");
}

/* ---- the big tree ---------------------------------------------------- */

static void tree_make(const char *name)
{
	char path[4200];
	int t = make_dir(basefd, name), fd, i;

	snprintf(path, sizeof(path), "%s/outside/file", base);
	must(symlinkat(path, t, "link_file") == 0, "symlink");
	snprintf(path, sizeof(path), "%s/outside/dir", base);
	must(symlinkat(path, t, "link_dir") == 0, "symlink");
	must(symlinkat("../outside/dir", t, "rel_link_dir") == 0, "symlink");
	must(symlinkat("loop_b", t, "loop_a") == 0, "symlink");
	must(symlinkat("loop_a", t, "loop_b") == 0, "symlink");
	must(symlinkat("/nonexistent/x", t, "dangling") == 0, "symlink");
	must(linkat(basefd, "outside/file", t, "hardlink", 0) == 0, "link");
	must(mkfifoat(t, "fifo", 0600) == 0, "mkfifo");
	make_socket(t, "sock");
	if (mknodat(t, "null", S_IFCHR | 0666, makedev(1, 3)) < 0)
		diag("no device node in the tree: %s", strerror(errno));
	put_file(t, "ro_file", "x", 0400);
	close(make_dir(t, "empty1"));
	fd = make_dir(t, "empty2");
	close(make_dir(fd, "empty3"));
	close(fd);

	fd = make_dir(t, "many");
	for (i = 0; i < MANY; i++) {
		char n[32];

		snprintf(n, sizeof(n), "f%d", i);
		put_file(fd, n, "", 0600);
	}
	close(fd);

	fd = make_chain(t, "deep", DEEP);
	put_file(fd, "bottom", "deep", 0600);
	must(symlinkat(path, fd, "link_dir") == 0, "symlink");
	close(fd);

	/* Read-only and unreadable directories, with content. */
	fd = make_dir(t, "ro_dir");
	put_file(fd, "f1", "1", 0600);
	put_file(fd, "f2", "2", 0400);
	{
		int sub = make_dir(fd, "noperm");

		put_file(sub, "hidden", "h", 0600);
		must(fchmod(sub, 0) == 0, "chmod 0");
		close(sub);
	}
	must(fchmod(fd, 0500) == 0, "chmod 0500");
	close(fd);
	close(t);
}

static void test_tree(void)
{
	struct snap before;
	int fds = count_fds();

	tree_make("tree");
	outside_snap(&before);
	errno = 0;
	is_int(saferm_at(basefd, "tree"), 0, "saferm_at removes a full tree");
	if (errno)
		diag("errno %s", strerror(errno));
	ok(!exists(basefd, "tree"), "the tree is gone");
	ok(outside_intact(&before),
	   "symlink and hard link targets keep content, mode and owner");
	ok(exists(basefd, "outside/dir/inner"), "outside dir content stays");
	ok(access("/dev/null", W_OK) == 0, "/dev/null is still there");
	is_int(count_fds(), fds, "no fd leaked");
}

/* Deep nesting with a small fd limit: the fd window must hold. */
static void test_deep_fd_limit(void)
{
	struct rlimit old, low;
	int fd = make_chain(basefd, "deep2", DEEP + 500), rc, err;

	close(fd);
	must(getrlimit(RLIMIT_NOFILE, &old) == 0, "getrlimit");
	low = old;
	low.rlim_cur = (rlim_t)count_fds() + SAFERM_MAX_FDS + 4;
	if (setrlimit(RLIMIT_NOFILE, &low) < 0) {
		tap_skip("cannot lower RLIMIT_NOFILE: %s", strerror(errno));
		saferm_at(basefd, "deep2");
		return;
	}
	rc = saferm_at(basefd, "deep2");
	err = errno;
	must(setrlimit(RLIMIT_NOFILE, &old) == 0, "setrlimit");
	is_int(rc, 0, "%d levels removed within %llu fds", DEEP + 500,
	       (unsigned long long)low.rlim_cur);
	if (rc)
		diag("errno %s", strerror(err));
	ok(!exists(basefd, "deep2"), "deep chain is gone");
}

static void test_top_symlink(void)
{
	struct snap before;

	outside_snap(&before);
	must(symlinkat("outside/dir", basefd, "top_link") == 0, "symlink");
	is_int(saferm_at(basefd, "top_link"), 0, "top symlink to a dir");
	ok(!exists(basefd, "top_link"), "  the link is removed");
	ok(outside_intact(&before), "  its target and contents stay");

	must(symlinkat("outside/file", basefd, "top_flink") == 0, "symlink");
	is_int(saferm_at(basefd, "top_flink"), 0, "top symlink to a file");
	ok(!exists(basefd, "top_flink") && outside_intact(&before),
	   "  link removed, file kept");

	put_file(basefd, "top_file", "x", 0400);
	is_int(saferm_at(basefd, "top_file"), 0, "top plain file");
	ok(!exists(basefd, "top_file"), "  removed");

	must(mkfifoat(basefd, "top_fifo", 0600) == 0, "mkfifo");
	is_int(saferm_at(basefd, "top_fifo"), 0, "top fifo (never opened)");
	ok(!exists(basefd, "top_fifo"), "  removed");
}

static void test_contents(void)
{
	struct stat st;
	int fd = make_dir(basefd, "keep"), sub, pathfd;

	put_file(fd, "a", "a", 0600);
	sub = make_chain(fd, "sub", 50);
	close(sub);
	must(symlinkat("../outside", fd, "out") == 0, "symlink");
	must(fchmod(fd, 0500) == 0, "chmod");
	is_int(saferm_contents(fd), 0, "saferm_contents empties a directory");
	must(fstat(fd, &st) == 0, "fstat");
	is_int(st.st_mode & 07777, 0500, "  and gives it its mode back");
	ok(!exists(fd, "a") && !exists(fd, "sub") && !exists(fd, "out"),
	   "  its entries are gone");
	ok(exists(basefd, "outside/dir/inner"), "  the link target stays");
	close(fd);
	ok(exists(basefd, "keep"), "  the directory stays");

	pathfd = openat(basefd, "keep", O_PATH | O_DIRECTORY | O_CLOEXEC);
	must(pathfd >= 0, "O_PATH");
	fd = openat(pathfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	must(fchmod(fd, 0700) == 0, "chmod");
	put_file(fd, "b", "b", 0600);
	close(fd);
	is_int(saferm_contents(pathfd), 0, "saferm_contents takes an O_PATH fd");
	ok(!exists(pathfd, "b"), "  and empties it");
	is_int(saferm_contents(pathfd), 0, "emptying an empty dir is fine");
	close(pathfd);
	is_int(saferm_at(basefd, "keep"), 0, "an empty directory goes");
}

static void test_errors(void)
{
	static const char *bad[] = { "a/b", "/abs", "..", ".", "", "a/", NULL };
	int i;

	for (i = 0; bad[i]; i++) {
		errno = 0;
		is_int(saferm_at(basefd, bad[i]), -1, "name \"%s\" rejected",
		       bad[i]);
		is_int(errno, EINVAL, "  with EINVAL");
	}
	errno = 0;
	is_int(saferm_at(basefd, NULL), -1, "NULL name rejected");
	is_int(errno, EINVAL, "  with EINVAL");
	errno = 0;
	is_int(saferm_at(basefd, "no_such_thing"), -1, "missing name fails");
	is_int(errno, ENOENT, "  with ENOENT");
	errno = 0;
	is_int(saferm_at(-1, "x"), -1, "bad dirfd fails");
	is_int(errno, EBADF, "  with EBADF");
	errno = 0;
	is_int(saferm_contents(-1), -1, "saferm_contents: bad fd fails");
	is_int(errno, EBADF, "  with EBADF");
	{
		int fd = openat(basefd, "outside/file", O_RDONLY | O_CLOEXEC);

		errno = 0;
		is_int(saferm_contents(fd), -1, "saferm_contents: a file fails");
		is_int(errno, ENOTDIR, "  with ENOTDIR");
		close(fd);
	}
}

/* ---- races: a child rearranges the tree while it is removed ---------- */

static pid_t racer_start(void (*loop)(void))
{
	pid_t pid = fork();

	must(pid >= 0, "fork");
	if (pid == 0) {
		loop();
		_exit(0);
	}
	return pid;
}

static void racer_stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Swap race/a (a directory with content) with race/b (a link outside). */
static void swap_loop(void)
{
	int fd = openat(basefd, "race", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	for (;;)
		if (renameat2(fd, "a", fd, "b", RENAME_EXCHANGE) < 0
		    && errno == ENOENT)
			usleep(10);
}

/* Move race/m/d/d (deep in the chain) out to outside/dir/moved and back. */
static void move_loop(void)
{
	int fd = openat(basefd, "race/m/d", O_RDONLY | O_DIRECTORY
			| O_CLOEXEC);
	int out = openat(basefd, "outside/dir", O_RDONLY | O_DIRECTORY
			 | O_CLOEXEC);

	for (;;) {
		if (renameat(fd, "d", out, "moved") == 0)
			(void)renameat(out, "moved", fd, "d");
	}
}

static void race_tree(void)
{
	char path[4200];
	int r = make_dir(basefd, "race"), a, m;

	a = make_chain(r, "a", 5);
	put_file(a, "f", "f", 0600);
	close(a);
	snprintf(path, sizeof(path), "%s/outside/dir", base);
	must(symlinkat(path, r, "b") == 0, "symlink");
	m = make_chain(r, "m", 40);
	close(m);
	close(r);
}

static void test_races(void)
{
	struct snap before;
	int round, intact = 0, gone = 0, hit = 0;
	int outdir = openat(basefd, "outside/dir", O_RDONLY | O_DIRECTORY
			    | O_CLOEXEC);
	pid_t pid;

	must(outdir >= 0, "open outside/dir");
	outside_snap(&before);
	for (round = 0; round < RACE_ROUNDS; round++) {
		race_tree();
		pid = racer_start(round % 2 ? move_loop : swap_loop);
		usleep(round % 7 * 20);
		/* Failing is fine (the racer wins some); touching outside
		 * is not.  Expected: ENOTEMPTY, EISDIR or ENOTDIR. */
		if (saferm_at(basefd, "race") < 0) {
			hit++;
			if (errno != ENOTEMPTY && errno != EISDIR
			    && errno != ENOTDIR)
				diag("round %d: %s", round, strerror(errno));
		}
		racer_stop(pid);
		/* The mover may have left its directory outside. */
		if (exists(basefd, "outside/dir/moved"))
			(void)saferm_at(outdir, "moved");
		if (exists(basefd, "race"))
			(void)saferm_at(basefd, "race");
		gone += !exists(basefd, "race");
		intact += outside_intact(&before);
	}
	diag("%d of %d first removals met the racer (and failed)", hit,
	     RACE_ROUNDS);
	is_int(intact, RACE_ROUNDS,
	       "racing swaps and moves never touch the outside (%d rounds)",
	       RACE_ROUNDS);
	is_int(gone, RACE_ROUNDS, "every raced tree is removed in the end");
	close(outdir);
}

#if defined(__x86_64__)
/* Whether the tracee at a syscall-entry stop opens "a" as a directory. */
static bool opens_a_dir(pid_t pid)
{
	struct user_regs_struct r;
	long word;

	if (ptrace(PTRACE_GETREGS, pid, NULL, &r) < 0 ||
	    r.orig_rax != SYS_openat || !(r.rdx & O_DIRECTORY) ||
	    (r.rdx & O_PATH))
		return false;
	errno = 0;
	word = ptrace(PTRACE_PEEKDATA, pid, (void *)r.rsi, NULL);
	return errno == 0 && (word & 0xffff) == 'a';
}

/*
 * The attacker who wins the race, every time: the removal runs traced,
 * and when it is about to open race/a (a directory when it looked) that
 * directory is exchanged with a link to outside/dir.  The open must not
 * follow the link (O_NOFOLLOW): the link is removed, never what it names.
 * The random races above rarely hit that window.
 */
static void test_race_won(void)
{
	struct snap before;
	int r, a, status, swaps = 0, sig = 0, rc;
	bool entering = false;
	char path[4200];
	pid_t pid;

	r = make_dir(basefd, "race");
	a = make_chain(r, "a", 3);
	put_file(a, "f", "f", 0600);
	close(a);
	snprintf(path, sizeof(path), "%s/outside/dir", base);
	must(symlinkat(path, basefd, "racelink") == 0, "symlink");
	outside_snap(&before);
	pid = fork();
	must(pid >= 0, "fork");
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
			_exit(100);
		raise(SIGSTOP);
		_exit(saferm_at(basefd, "race") < 0 ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status)) {
		tap_skip("the removal cannot be traced here (ptrace)");
		close(r);
		goto clean;
	}
	ptrace(PTRACE_SETOPTIONS, pid, NULL,
	       PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL);
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)sig) < 0 ||
		    waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
			break;
		sig = 0;
		if (WSTOPSIG(status) != (SIGTRAP | 0x80)) {
			sig = WSTOPSIG(status) == SIGSTOP ? 0 : WSTOPSIG(status);
			continue;
		}
		entering = !entering;
		if (entering && !swaps && opens_a_dir(pid) &&
		    renameat2(r, "a", basefd, "racelink", RENAME_EXCHANGE) == 0)
			swaps++;
	}
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	close(r);
	ok(swaps == 1, "precondition: race/a became a link to outside/dir "
	   "between its check and its open");
	ok(rc == 0 || rc == 1, "  the removal ran to its end (status %d)", rc);
	ok(outside_intact(&before),
	   "  the link is not followed: outside/dir is intact");
clean:
	(void)saferm_at(basefd, "race");
	(void)saferm_at(basefd, "racelink");
	ok(!exists(basefd, "race") && !exists(basefd, "racelink"),
	   "  the raced tree is removed");
}
#else
static void test_race_won(void)
{
	tap_skip("the traced race is written for x86_64");
}
#endif

/* ---- mount points ---------------------------------------------------- */

static bool mount_ns(void)
{
	if (unshare(CLONE_NEWNS) < 0) {
		diag("unshare(CLONE_NEWNS): %s", strerror(errno));
		return false;
	}
	/* Keep our mounts from propagating to the host.  (The type is
	 * ignored here; "none" rather than NULL keeps valgrind quiet.) */
	if (mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0) {
		diag("make / private: %s", strerror(errno));
		return false;
	}
	return true;
}

static void test_mounts(void)
{
	char src[4200], dst[4200];
	struct snap before;
	int t, m, fd;

	if (!tap_root() || !mount_ns()) {
		tap_skip("mount point cases need root and CLONE_NEWNS");
		return;
	}
	/* An fd opened before unshare() sees the old namespace's mounts. */
	close(basefd);
	basefd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	must(basefd >= 0, "reopen base");
	outside_snap(&before);
	t = make_dir(basefd, "mtree");
	m = make_dir(t, "mnt");
	close(make_dir(m, "bind"));
	close(make_dir(m, "tmpfs"));
	put_file(m, "other", "o", 0600);
	close(m);
	close(t);
	snprintf(src, sizeof(src), "%s/outside/dir", base);
	snprintf(dst, sizeof(dst), "%s/mtree/mnt/bind", base);
	must(mount(src, dst, "none", MS_BIND, NULL) == 0, "bind mount");
	snprintf(dst, sizeof(dst), "%s/mtree/mnt/tmpfs", base);
	must(mount("tmpfs", dst, "tmpfs", 0, "size=1m") == 0, "tmpfs");
	fd = open(dst, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	put_file(fd, "mounted", "m", 0600);
	close(fd);

	errno = 0;
	is_int(saferm_at(basefd, "mtree"), -1, "a tree with mount points fails");
	is_int(errno, EXDEV, "  with EXDEV");
	ok(outside_intact(&before), "  the bind-mounted (same fs) dir survives");
	ok(exists(basefd, "mtree/mnt/tmpfs/mounted"), "  tmpfs content survives");
	ok(!exists(basefd, "mtree/mnt/other"), "  the rest is removed");

	must(umount2(dst, 0) == 0, "umount tmpfs");
	snprintf(dst, sizeof(dst), "%s/mtree/mnt/bind", base);
	must(umount2(dst, 0) == 0, "umount bind");
	is_int(saferm_at(basefd, "mtree"), 0, "after umount it all goes");
	ok(outside_intact(&before), "  and the outside is still intact");

	/* The top itself is a mount point: emptied, then EBUSY. */
	close(make_dir(basefd, "mtop"));
	snprintf(dst, sizeof(dst), "%s/mtop", base);
	must(mount("tmpfs", dst, "tmpfs", 0, "size=1m") == 0, "tmpfs");
	fd = open(dst, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	put_file(fd, "f", "f", 0600);
	close(make_chain(fd, "sub", 40));
	close(fd);
	errno = 0;
	is_int(saferm_at(basefd, "mtop"), -1, "a top mount point fails");
	is_int(errno, EBUSY, "  with EBUSY from rmdir");
	ok(!exists(basefd, "mtop/f") && !exists(basefd, "mtop/sub"),
	   "  after its content was removed");
	must(umount2(dst, 0) == 0, "umount");
	is_int(saferm_at(basefd, "mtop"), 0, "  and goes once unmounted");
}

/* ---- many entries, deep chains: bounded memory ----------------------- */

#define BIG 20000
#define BIG_NAME 200	/* bytes in each of its names */
#define CHAIN 100000	/* levels of the deep chain */
/*
 * How much the data segment may grow while the walk runs: its batch and a
 * margin for the level stack and stdio.  Holding the names, as saferm
 * once did, takes more than BIG * BIG_NAME bytes (4 MB); holding a name
 * and a few words per level, as it did later, more than CHAIN * 64.
 */
#define BIG_HEADROOM (SAFERM_BATCH_BYTES + 256 * 1024)

/* What bounded_child() found wrong, a bit each, for its exit status. */
enum {
	BIG_FAILED = 1,		/* saferm_at() returned -1 */
	BIG_LEFT = 2,		/* the directory is still there */
	BIG_NO_LIMIT = 4,	/* the limit did not stop holding the names */
	BIG_SETUP = 8,		/* the tree or the limit could not be made */
};

/*
 * Under AddressSanitizer the data limit cannot be set this tight (its
 * allocator maps shadow memory and keeps freed blocks in quarantine): the
 * tree is removed without it, and the bound is checked in the other
 * configurations.
 */
#if defined(__SANITIZE_ADDRESS__)
#define LIMIT_BINDS 0
#else
#define LIMIT_BINDS 1
#endif

/* A tree to remove within BIG_HEADROOM, and what an unbounded walk held. */
struct bounded {
	const char *what;	/* the tree, for the test's messages */
	void (*make)(int dirfd, const char *name);
	int hold_count;		/* an unbounded walk held this many ... */
	size_t hold_size;	/* ... blocks of this size */
	const char *held;	/* what they were, for the messages */
};

static void big_name(char *buf, int i)
{
	memset(buf, 'n', BIG_NAME);
	/* i < 10^8: eight digits and the NUL end the name */
	snprintf(buf + BIG_NAME - 8, 9, "%08u", (unsigned)i % 100000000u);
}

/* BIG entries below dirfd/name; every 16th a directory with content. */
static void big_make(int dirfd, const char *name)
{
	char n[BIG_NAME + 1];
	int t = make_dir(dirfd, name), sub, i;

	for (i = 0; i < BIG; i++) {
		big_name(n, i);
		if (i % 16) {
			put_file(t, n, "", 0600);
			continue;
		}
		sub = make_dir(t, n);
		put_file(sub, "a", "a", 0600);
		close(make_chain(sub, "c", 3));
		put_file(sub, "b", "b", 0600);
		close(sub);
	}
	close(t);
}

/* A chain of CHAIN directories below dirfd/name, a file at its bottom. */
static void chain_make(int dirfd, const char *name)
{
	int fd = make_chain(dirfd, name, CHAIN);

	put_file(fd, "bottom", "b", 0600);
	close(fd);
}

/* The data segment's size now (VmData), in bytes; 0 when unknown. */
static unsigned long vm_data(void)
{
	char line[256];
	unsigned long kb = 0;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmData: %lu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb * 1024;
}

/*
 * In a child: b's tree (on a private tmpfs when root), removed with
 * RLIMIT_DATA at the present data size + BIG_HEADROOM; then, under the
 * same limit, what the unbounded walk held must not fit.
 * Returns the BIG_* bits of what went wrong.
 */
static int bounded_child(const struct bounded *b)
{
	struct rlimit lim;
	void **blocks;
	int top, fails = 0, rc, i;

	char path[4200];

	close(make_dir(basefd, "bigmnt"));
	snprintf(path, sizeof(path), "%s/bigmnt", base);
	if (tap_root() &&
	    (unshare(CLONE_NEWNS) < 0 ||
	     mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0 ||
	     mount("tmpfs", path, "tmpfs", 0, "size=64m") < 0))
		return BIG_SETUP;
	/* By path: basefd, opened before unshare(), sees the old mounts. */
	top = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (top < 0)
		return BIG_SETUP;
	b->make(top, "big");
	if (!(blocks = calloc((size_t)b->hold_count, sizeof(*blocks))) ||
	    getrlimit(RLIMIT_DATA, &lim) < 0)
		return BIG_SETUP;
	lim.rlim_cur = vm_data() + BIG_HEADROOM;
	if (!LIMIT_BINDS)
		;	/* see LIMIT_BINDS */
	else if (lim.rlim_cur == BIG_HEADROOM ||
		 setrlimit(RLIMIT_DATA, &lim) < 0)
		return BIG_SETUP;
	rc = saferm_at(top, "big");
	if (rc < 0)
		fails |= BIG_FAILED;
	if (exists(top, "big"))
		fails |= BIG_LEFT;
	for (i = 0; i < b->hold_count; i++)
		if (!(blocks[i] = malloc(b->hold_size)))
			break;
	if (i == b->hold_count || !LIMIT_BINDS)
		fails |= BIG_NO_LIMIT;
	while (i-- > 0)
		free(blocks[i]);
	free(blocks);
	close(top);
	return fails;
}

static void test_bounded(const struct bounded *b)
{
	int status;
	pid_t pid;

	pid = fork();
	must(pid >= 0, "fork");
	if (pid == 0)
		_exit(bounded_child(b));
	must(waitpid(pid, &status, 0) == pid, "waitpid");
	status = WIFEXITED(status) ? WEXITSTATUS(status) : 255;
	if (!ok(!(status & BIG_SETUP), "%s made", b->what))
		diag("exit status %d", status);
	if (status & BIG_NO_LIMIT)
		tap_skip("RLIMIT_DATA does not bind malloc here (%s)",
			 LIMIT_BINDS ? "valgrind" : "ASan's allocator, whose "
			 "shadow and quarantine need more than the headroom: "
			 "the removal runs without the limit");
	else
		ok(!(status & BIG_SETUP),
		   "precondition: under the limit (data + %d KiB) %s cannot "
		   "all be held", BIG_HEADROOM / 1024, b->held);
	ok(!(status & (BIG_SETUP | BIG_FAILED)),
	   "saferm_at removes them%s: one batch of %d bytes and %d levels, "
	   "whatever the tree holds", LIMIT_BINDS ? " within that limit" : "",
	   SAFERM_BATCH_BYTES, SAFERM_MAX_FDS);
	ok(!(status & (BIG_SETUP | BIG_LEFT)), "  the tree is gone");
	ok(saferm_at(basefd, "bigmnt") == 0 && !exists(basefd, "bigmnt"),
	   "  (and the empty mount point after the child)");
}

/* Many long names: memory does not grow with a directory's entries. */
static void test_big(void)
{
	static const struct bounded big = {
		"20000 entries of 200-byte names", big_make,
		BIG, BIG_NAME + 1, "the names",
	};

	test_bounded(&big);
}

/*
 * A chain of 100,000 directories (a user can make ten million): memory
 * does not grow with depth, where the walk once kept a name and a few
 * words per level (3 GB for ten million).
 */
static void test_deep_chain(void)
{
	static const struct bounded chain = {
		"a chain of 100000 directories", chain_make,
		CHAIN, 64, "a name and a few words per level",
	};

	test_bounded(&chain);
}

/*
 * A chain deeper than the walk's stack with files beside each level: the
 * directories met at the deepest level are moved up into the top, and
 * every level's reading goes on from where it was after the move.
 */
static void test_wide_chain(void)
{
	int fd = make_dir(basefd, "wide"), next = -1, i, j;
	int depth = 3 * SAFERM_MAX_FDS;
	char n[16];

	for (i = 0; i < depth; i++) {
		for (j = 0; j < 20; j++) {
			snprintf(n, sizeof(n), "f%02d", j);
			put_file(fd, n, "", 0600);
			if (j == 10)
				next = make_dir(fd, "d");
		}
		close(fd);
		fd = next;
	}
	put_file(fd, "bottom", "", 0600);
	close(fd);
	is_int(saferm_at(basefd, "wide"), 0,
	       "a %d-deep chain with 20 files beside each level is removed",
	       depth);
	ok(!exists(basefd, "wide"), "  all of it");
}

/* ---- a file held open elsewhere is emptied --------------------------- */

#define HELD_SIZE (64 << 20)

/* What held_case() found wrong, a bit each. */
enum {
	HELD_SETUP = 1,		/* the file was not HELD_SIZE on disk/memory */
	HELD_FAILED = 2,	/* saferm_at() failed or left the directory */
	HELD_READS = 4,		/* the held fd still reads data */
	HELD_BLOCKS = 8,	/* the held fd still holds blocks or pages */
	HELD_SKIP = 16,		/* the case cannot show what it is for here */
};

/*
 * In dirfd: held/sub/big, HELD_SIZE bytes, held open here (as another
 * job would hold it after receiving the fd), then held removed.  Returns
 * the HELD_* bits of what went wrong.
 */
static int held_case(int dirfd)
{
	static char chunk[1 << 20];
	int held = make_dir(dirfd, "held"), sub, fd, fails = 0, i;
	struct stat st;
	char c;

	memset(chunk, 'h', sizeof(chunk));
	sub = make_dir(held, "sub");
	fd = openat(sub, "big", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	must(fd >= 0, "create held/sub/big");
	for (i = 0; i < HELD_SIZE / (int)sizeof(chunk); i++)
		must(write(fd, chunk, sizeof(chunk)) == sizeof(chunk), "write");
	close(sub);
	close(held);
	if (fstat(fd, &st) < 0 || st.st_size != HELD_SIZE ||
	    st.st_blocks < HELD_SIZE / 512)
		fails |= HELD_SETUP;
	if (saferm_at(dirfd, "held") < 0 || exists(dirfd, "held"))
		fails |= HELD_FAILED;
	if (pread(fd, &c, 1, 0) != 0)
		fails |= HELD_READS;
	if (fstat(fd, &st) < 0 || st.st_blocks != 0)
		fails |= HELD_BLOCKS;
	close(fd);
	return fails;
}

/* held_case on a private tmpfs, in a child (root only). */
static int held_tmpfs_child(void)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/heldmnt", base);
	if (unshare(CLONE_NEWNS) < 0 ||
	    mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", path, "tmpfs", 0, "size=80m") < 0 ||
	    (fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return HELD_SETUP;
	return held_case(fd);
}

/*
 * held_case on an overlayfs whose lower and upper layers are two tmpfs (a
 * guest's root, a container's): a file there reports its upper layer's
 * st_dev, not the overlay's of its directory (root only, in a child).
 * Returns HELD_SKIP when the kernel reports the overlay's (xino).
 */
static int held_overlay_child(void)
{
	char path[4200], opts[4200 * 3 + 64];
	struct stat dir_st, file_st;
	int fd, probe;

	snprintf(path, sizeof(path), "%s/heldmnt", base);
	if (unshare(CLONE_NEWNS) < 0 ||
	    mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", path, "tmpfs", 0, "size=1m") < 0 ||
	    chdir(path) < 0 || mkdir("l", 0755) < 0 || mkdir("u", 0755) < 0 ||
	    mkdir("m", 0755) < 0 ||
	    mount("tmpfs", "l", "tmpfs", 0, "size=1m") < 0 ||
	    mount("tmpfs", "u", "tmpfs", 0, "size=80m") < 0 ||
	    mkdir("u/up", 0755) < 0 || mkdir("u/work", 0755) < 0)
		return HELD_SETUP;
	snprintf(opts, sizeof(opts), "lowerdir=%s/l,upperdir=%s/u/up,"
		 "workdir=%s/u/work", path, path, path);
	if (mount("overlay", "m", "overlay", 0, opts) < 0 ||
	    (fd = open("m", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return HELD_SETUP;
	probe = openat(fd, "probe", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (probe < 0 || fstat(probe, &file_st) < 0 ||
	    fstat(fd, &dir_st) < 0)
		return HELD_SETUP;
	close(probe);
	unlinkat(fd, "probe", 0);
	if (file_st.st_dev == dir_st.st_dev)
		return HELD_SKIP;
	return held_case(fd);
}

static void held_report(int fails, const char *where)
{
	if (!ok(!(fails & HELD_SETUP), "precondition: a %d MiB file %s, "
		"held open", HELD_SIZE >> 20, where))
		return;
	ok(!(fails & HELD_FAILED), "  its directory is removed");
	ok(!(fails & HELD_READS), "  the held fd reads 0 bytes");
	ok(!(fails & HELD_BLOCKS), "  and holds no %s (st_blocks 0)",
	   strstr(where, "tmpfs") ? "pages" : "blocks");
}

/*
 * An fd held on a file of a removed tree keeps nothing of it: the file
 * is emptied before it is unlinked (a collector process holding one fd
 * from each ended job would otherwise keep their memory or disk).
 */
/*
 * A file of size 0 is not truncated (nothing to empty), unless it holds
 * blocks all the same (fallocate with FALLOC_FL_KEEP_SIZE): those are
 * freed, whoever holds the file open.
 */
static void test_held_sizeless(void)
{
	int dir = make_dir(basefd, "sizeless"), fd;
	struct stat st;

	fd = openat(dir, "prealloc", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	close(openat(dir, "empty", O_RDWR | O_CREAT | O_CLOEXEC, 0600));
	close(dir);
	if (fd < 0 || fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 1 << 20) < 0) {
		tap_skip("a file of size 0 with blocks: no fallocate here");
		if (fd >= 0)
			close(fd);
		saferm_at(basefd, "sizeless");
		return;
	}
	if (fstat(fd, &st) < 0)
		st.st_blocks = -1;
	ok(st.st_size == 0 && st.st_blocks > 0,
	   "precondition: a held file of size 0 holds %ld blocks",
	   (long)st.st_blocks);
	ok(saferm_at(basefd, "sizeless") == 0 &&
	   !exists(basefd, "sizeless"),
	   "its directory is removed, an empty file in it too");
	if (fstat(fd, &st) < 0)
		st.st_blocks = -1;
	ok(st.st_blocks == 0, "  the held file of size 0 holds no block (%ld)",
	   (long)st.st_blocks);
	close(fd);
}

static void test_held_file(void)
{
	int status;
	pid_t pid;

	held_report(held_case(basefd), "on disk");
	close(make_dir(basefd, "heldmnt"));
	if (geteuid() != 0) {
		tap_skip("the tmpfs and overlayfs cases need root");
	} else {
		pid = fork();
		must(pid >= 0, "fork");
		if (pid == 0)
			_exit(held_tmpfs_child());
		must(waitpid(pid, &status, 0) == pid, "waitpid");
		held_report(WIFEXITED(status) ? WEXITSTATUS(status)
			    : HELD_SETUP, "in a tmpfs");
		pid = fork();
		must(pid >= 0, "fork");
		if (pid == 0)
			_exit(held_overlay_child());
		must(waitpid(pid, &status, 0) == pid, "waitpid");
		status = WIFEXITED(status) ? WEXITSTATUS(status) : HELD_SETUP;
		if (status == HELD_SKIP)
			tap_skip("the overlayfs case: this kernel reports the "
				 "overlay's st_dev for its files (xino)");
		else
			held_report(status, "on an overlayfs of two tmpfs");
	}
	must(unlinkat(basefd, "heldmnt", AT_REMOVEDIR) == 0, "rmdir heldmnt");
}

/*
 * A racer swaps a regular file and a FIFO (RENAME_EXCHANGE) while the
 * removal empties files: a FIFO must never be opened (a blocking open
 * would hang teardown until a reader came), nor be emptied as a file.
 */
static void fifo_swap_loop(void)
{
	int fd = openat(basefd, "fsw", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	for (;;)
		(void)renameat2(fd, "f", fd, "p", RENAME_EXCHANGE);
}

static void test_fifo_swap(void)
{
	int round, done = 0, fd;
	pid_t pid;

	for (round = 0; round < 50; round++) {
		fd = make_dir(basefd, "fsw");
		put_file(fd, "f", "data", 0600);
		must(mkfifoat(fd, "p", 0600) == 0, "mkfifo");
		close(fd);
		pid = racer_start(fifo_swap_loop);
		usleep(round % 5 * 50);
		alarm(30);	/* a hang would end the test here */
		(void)saferm_at(basefd, "fsw");
		alarm(0);
		racer_stop(pid);
		if (exists(basefd, "fsw"))
			(void)saferm_at(basefd, "fsw");
		done += !exists(basefd, "fsw");
	}
	is_int(done, 50, "a file swapped with a FIFO during removal: never "
	       "blocks, always removed (50 rounds)");
}

/* ---- permissions as a user ------------------------------------------- */

/* Returns a bit mask of failed checks, for the child's exit status. */
static int perm_cases(int dirfd)
{
	struct stat st;
	int fd, sub, fails = 0;

	fd = make_dir(dirfd, "ptree");
	put_file(fd, "f", "f", 0400);
	sub = make_dir(fd, "ro");
	put_file(sub, "x", "x", 0600);
	close(make_chain(sub, "deep", 40));
	must(fchmod(sub, 0500) == 0, "chmod");
	close(sub);
	sub = make_dir(fd, "none");
	put_file(sub, "y", "y", 0600);
	must(fchmod(sub, 0) == 0, "chmod");
	close(sub);
	sub = make_dir(fd, "wo");
	put_file(sub, "z", "z", 0600);
	must(fchmod(sub, 0300) == 0, "chmod");
	close(sub);
	must(fchmod(fd, 0500) == 0, "chmod");
	close(fd);
	if (saferm_at(dirfd, "ptree") < 0 || exists(dirfd, "ptree"))
		fails |= 1;

	/* Contents of an unreadable directory; its mode comes back. */
	fd = make_dir(dirfd, "pkeep");
	put_file(fd, "y", "y", 0600);
	close(fd);
	must(fchmodat(dirfd, "pkeep", 0, 0) == 0, "chmod");
	fd = openat(dirfd, "pkeep", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (saferm_contents(fd) < 0)
		fails |= 2;
	if (fstat(fd, &st) < 0 || (st.st_mode & 07777) != 0)
		fails |= 4;
	close(fd);
	must(fchmodat(dirfd, "pkeep", 0700, 0) == 0, "chmod");
	if (exists(dirfd, "pkeep/y"))
		fails |= 8;
	if (saferm_at(dirfd, "pkeep") < 0)
		fails |= 16;
	return fails;
}

static void test_perms(void)
{
	int status, fd;
	pid_t pid;

	if (geteuid() != 0) {
		is_int(perm_cases(basefd), 0, "read-only and unreadable dirs");
		return;
	}
	/* As root DAC never stops us: check the fchmod path as nobody. */
	fd = make_dir(basefd, "nobody");
	must(fchown(fd, 65534, 65534) == 0, "chown");
	pid = fork();
	must(pid >= 0, "fork");
	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setgid(65534) < 0
		    || setuid(65534) < 0)
			_exit(100);
		_exit(perm_cases(fd));
	}
	waitpid(pid, &status, 0);
	close(fd);
	is_int(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0,
	       "as nobody: read-only and unreadable dirs are removed, "
	       "a kept dir gets its mode back (0 = no failed check)");
	is_int(saferm_at(basefd, "nobody"), 0, "  nobody's dir removed");
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(base, sizeof(base), "%s/test_saferm.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	must(mkdtemp(base) != NULL, "mkdtemp");
	basefd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	must(basefd >= 0, "open base");
	outside_make();

	test_errors();
	test_tree();
	test_deep_fd_limit();
	test_top_symlink();
	test_contents();
	test_perms();
	test_races();
	test_race_won();
	test_big();
	test_deep_chain();
	test_wide_chain();
	test_held_file();
	test_held_sizeless();
	test_fifo_swap();
	test_mounts();

	/* Clean up with the code under test, then the base itself. */
	is_int(saferm_contents(basefd), 0, "the test directory is emptied");
	close(basefd);
	ok(rmdir(base) == 0, "and removed");
	return tap_done();
}
