/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_nsreap.c - a job's namespace dropped behind (NamespacePool's reaper),
 * for real.
 *
 * Runs in a mount namespace of its own.  Needs root and the new mount API
 * (mntns); skips cleanly without them.  Checks that nsreap_delete
 * hands the namespace and the job's directory to a listening reaper and
 * does it all itself where none listens, that the reaper kills what was
 * left inside and leaves nothing, that a requeued job of the same id can
 * start before the reap and is not touched by it, that a stop reaps what
 * was queued, that restore's sweep finds what a killed reaper lost, and
 * that the socket takes requests from root alone and names of reaps alone,
 * that slurmd's pool keeper listens, reaps and leaves nothing at its
 * stop, and that the reaper empties the job's /dev/shm, which an fd held
 * by another process would keep alive.
 * Where the kernel cannot name a namespace by id (before Linux 6.11),
 * delete_behind is mntns_delete, and only that is checked.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf/jobdir.h"
#include "conf/nsconf.h"
#include "ns/mntns.h"
#include "ns/nsmembers.h"
#include "ns/nspool.h"
#include "ns/nspool_keeper.h"
#include "ns/nsreap.h"
#include "nsgone.h"
#include "tap.h"
#include "testrep.h"
#include "testspec.h"

static char base[] = "/var/tmp/test-nsreap.XXXXXX";

static int make_job(uint32_t job_id)
{
	static const char *const dirs[] = { "/tmp", "/dev/shm", NULL };
	struct mntns_spec spec = {
		.base_path = base,
		.job_id = job_id,
	};

	return testspec_create(&spec, dirs, 0, 0, fresh());
}

/* How many entries of BasePath have a reap name. */
static int reap_dirs(void)
{
	DIR *d = opendir(base);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += jobdir_is_reap_name(e->d_name);
	closedir(d);
	return n;
}

/* Whether BasePath/<job_id> (or leaf in it) exists. */
static bool job_path_exists(uint32_t job_id, const char *leaf)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%u%s%s", base, job_id,
		 leaf ? "/" : "", leaf ? leaf : "");
	return lstat(path, &st) == 0;
}

/* The identity of the job's namespace, from its pin; false if none. */
static bool job_ns(uint32_t job_id, struct nsmembers_ns *ns)
{
	int fd = mntns_pin_open(base, job_id, JOBDIR_NS_PIN, NULL);
	bool got;

	if (fd < 0)
		return false;
	got = nsmembers_ident(fd, ns) == 0;
	close(fd);
	return got;
}

/*
 * A process left inside the job's namespace, as one that escaped Slurm's
 * tracking; it writes /tmp/left once inside.  Returns its pid, or -1.
 */
static pid_t leave_process(uint32_t job_id)
{
	char path[512];
	struct stat st;
	pid_t pid = fork();

	if (pid == 0) {
		int fd;

		if (mntns_join(base, job_id) < 0)
			_exit(2);
		if ((fd = open("/tmp/left", O_CREAT | O_WRONLY, 0600)) >= 0)
			close(fd);
		for (;;)
			pause();
	}
	snprintf(path, sizeof(path), "%s/%u/tmp/left", base, job_id);
	for (int i = 0; pid > 0 && i < TAP_WAIT_MS / 10; i++) {
		if (stat(path, &st) == 0)
			return pid;
		usleep(10000);
	}
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	return -1;
}

/* Whether pid died of SIGKILL (reaped here). */
static bool was_killed(pid_t pid)
{
	int status;

	return waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) &&
	       WTERMSIG(status) == SIGKILL;
}

static bool socket_exists(void)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/" JOBDIR_REAPER_SOCKET, base);
	return lstat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

static void test_names(void)
{
	ok(jobdir_is_reap_name(".reap-12-4026532001"), "a reap name");
	ok(!jobdir_is_reap_name("12"), "a job directory is not one");
	ok(!jobdir_is_reap_name(".reap-12-"), "no inode: not one");
	ok(!jobdir_is_reap_name(".reap-012-5"), "a leading zero: not one");
	ok(!jobdir_is_reap_name(".reap-12-5/x"), "a slash: not one");
	ok(!jobdir_is_reap_name(".reap-12-05"), "an inode's leading zero: "
	   "not one");
	ok(!jobdir_is_reap_name(".reap-99999999999-5"), "beyond a job id: "
	   "not one");
}

/* With nothing listening, the job's end does all of it, as before. */
static void test_no_reaper(void)
{
	struct nsmembers_ns ns;
	pid_t left;

	if (!ok(make_job(11) == 0 && job_ns(11, &ns), "job 11 made") ||
	    !ok((left = leave_process(11)) > 0, "a process left inside it"))
		return;
	ok(nsreap_delete(base, 11) == 0, "delete_behind, no reaper");
	ok(was_killed(left), "the process left inside was killed");
	ok(!job_path_exists(11, NULL), "the job's directory is gone");
	is_int(reap_dirs(), 0, "nothing waits for a reaper");
	/* Without an id (before 6.11) nothing can ask: a skip, never a pass. */
	if (ns.id)
		ok(ns_gone(&ns) == 1, "the namespace is gone");
	else
		tap_skip("the namespace is gone: this kernel cannot name it "
			 "by id (before 6.11)");
}

/* The hand-over: the job's part is done at once, the reaper's later. */
static void test_hand_over(void)
{
	struct nsmembers_ns ns;
	int sock = nsreap_listen(base);
	pid_t left;

	if (!ok(sock >= 0, "the reaper listens") ||
	    !ok(socket_exists(), "at BasePath/" JOBDIR_REAPER_SOCKET))
		return;
	if (!ok(make_job(12) == 0 && job_ns(12, &ns), "job 12 made") ||
	    !ok((left = leave_process(12)) > 0, "a process left inside it")) {
		nsreap_close(sock, base, fresh());
		return;
	}
	ok(nsreap_delete(base, 12) == 0, "delete_behind");
	ok(!job_path_exists(12, NULL), "job 12's directory is no longer "
	   "under its id");
	is_int(reap_dirs(), 1, "it waits under a reap name");
	ok(ns_gone(&ns) == 0, "its namespace waits too, held by the "
	   "request");
	is_int(kill(left, 0), 0, "the process inside still runs");
	is_int(nsreap_drain(sock, base, fresh()), 1, "the reaper takes one "
	       "request");
	ok(was_killed(left), "the reaper killed the process left inside");
	ok(ns_gone(&ns) == 1, "the namespace is gone");
	is_int(reap_dirs(), 0, "the directory is gone");
	is_int(nsreap_drain(sock, base, fresh()), 0, "nothing more queued");
	nsreap_close(sock, base, fresh());
	ok(!socket_exists(), "closing removes the socket");
}

/*
 * An fd of job_id's /dev/shm, with a 1 MiB file of the job in it, as
 * another job of its user would hold one it was sent.  -1 on failure.
 */
static int hold_shm(uint32_t job_id)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	char byte = 0;
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = ctl.buf,
			      .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *cmsg;
	int sock[2], status, fd = -1;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sock) < 0)
		return -1;
	if ((pid = fork()) == 0) {
		static char data[1 << 20];
		int dir, f;

		memset(data, 'x', sizeof(data));
		if (mntns_join(base, job_id) < 0 ||
		    (dir = open("/dev/shm", O_RDONLY | O_DIRECTORY)) < 0 ||
		    (f = openat(dir, "secret", O_CREAT | O_WRONLY, 0600)) < 0 ||
		    write(f, data, sizeof(data)) != sizeof(data) || close(f))
			_exit(100);
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cmsg), &dir, sizeof(int));
		_exit(sendmsg(sock[1], &msg, 0) == 1 ? 0 : 101);
	}
	close(sock[1]);
	if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0 && recvmsg(sock[0], &msg, 0) == 1 &&
	    (cmsg = CMSG_FIRSTHDR(&msg)) &&
	    cmsg->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&fd, CMSG_DATA(cmsg), sizeof(int));
	close(sock[0]);
	return fd;
}

/* KiB in use on the file system of fd; -1 on error. */
static long used_kib(int fd)
{
	struct statvfs sv;

	if (fstatvfs(fd, &sv) < 0)
		return -1;
	return (long)((sv.f_blocks - sv.f_bfree) * sv.f_frsize / 1024);
}

/* The reaper empties the job's /dev/shm, which an fd held elsewhere keeps. */
static void test_reap_empties_tmpfs(void)
{
	int sock = nsreap_listen(base), shm = -1;

	if (!ok(sock >= 0 && make_job(19) == 0, "job 19 made, reaper up") ||
	    !ok((shm = hold_shm(19)) >= 0, "precondition: another process "
		"holds an fd of its /dev/shm")) {
		nsreap_close(sock, base, fresh());
		return;
	}
	ok(faccessat(shm, "secret", F_OK, 0) == 0 && used_kib(shm) >= 1024,
	   "precondition: the job's 1 MiB file is there");
	ok(nsreap_delete(base, 19) == 0 && reap_dirs() == 1,
	   "delete_behind hands it to the reaper");
	is_int(nsreap_drain(sock, base, fresh()), 1, "the reaper reaps it");
	ok(faccessat(shm, "secret", F_OK, AT_SYMLINK_NOFOLLOW) < 0 &&
	   errno == ENOENT, "the job's file is gone from the held fd's view");
	is_int(used_kib(shm), 0, "  the tmpfs memory is freed");
	ok(openat(shm, "new", O_CREAT | O_WRONLY, 0600) < 0 && errno == EROFS,
	   "  nothing new is written there");
	close(shm);
	nsreap_close(sock, base, fresh());
	is_int(reap_dirs(), 0, "nothing is left");
}

/* A requeued job of the same id starts before the old one is reaped. */
static void test_requeue(void)
{
	int sock = nsreap_listen(base);
	char path[512];
	struct stat st;
	int fd;

	if (!ok(sock >= 0 && make_job(13) == 0, "job 13 made, reaper up"))
		goto out;
	ok(nsreap_delete(base, 13) == 0 && reap_dirs() == 1,
	   "job 13 ended, its reap queued");
	ok(make_job(13) == 0, "job 13 made again before the reap");
	snprintf(path, sizeof(path), "%s/13/tmp/kept", base);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	ok(fd >= 0, "a file in the new job 13's /tmp");
	if (fd >= 0)
		close(fd);
	is_int(nsreap_drain(sock, base, fresh()), 1, "the old one reaped");
	ok(mntns_exists(base, 13), "the new job 13's namespace stays");
	ok(stat(path, &st) == 0, "and so does its file");
	ok(mntns_delete(base, 13) == 0 && !job_path_exists(13, NULL),
	   "the new job 13 deleted");
out:
	nsreap_close(sock, base, fresh());
}

/* Stopping the reaper reaps what it was sent. */
static void test_stop_reaps_queue(void)
{
	struct nsmembers_ns ns;
	int sock = nsreap_listen(base);

	if (!ok(sock >= 0 && make_job(14) == 0 && job_ns(14, &ns),
		"job 14 made, reaper up")) {
		nsreap_close(sock, base, fresh());
		return;
	}
	ok(nsreap_delete(base, 14) == 0 && reap_dirs() == 1,
	   "job 14 ended, its reap queued");
	nsreap_close(sock, base, fresh());
	is_int(reap_dirs(), 0, "the stop reaped it");
	ok(ns_gone(&ns) == 1, "its namespace is gone");
	ok(!socket_exists(), "the socket is gone");
	ok(make_job(15) == 0, "job 15 made");
	ok(nsreap_delete(base, 15) == 0 && !job_path_exists(15, NULL) &&
	   reap_dirs() == 0, "after the stop, a job's end does all itself");
}

/* A reaper killed with requests queued: restore's sweep finds them. */
static void test_sweep(void)
{
	int sock = nsreap_listen(base);

	if (!ok(sock >= 0 && make_job(16) == 0, "job 16 made, reaper up") ||
	    !ok(nsreap_delete(base, 16) == 0 && reap_dirs() == 1,
		"job 16 ended, its reap queued")) {
		nsreap_close(sock, base, fresh());
		return;
	}
	close(sock);	/* as a kill -9 of slurmd: the request is lost */
	is_int(reap_dirs(), 1, "the reap directory outlived its reaper");
	ok(nsreap_sweep(base, fresh()) == 0, "sweep");
	is_int(reap_dirs(), 0, "the sweep removed it");
	sock = nsreap_listen(base);
	ok(sock >= 0, "a new reaper replaces the socket left behind");
	nsreap_close(sock, base, fresh());
}

/* Send name with fd, claiming uid in the credentials; -1 on failure. */
static int send_as(uid_t uid, const char *name, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct ucred)) +
			 CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct ucred cred = { getpid(), uid, getgid() };
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct iovec iov = { (void *)name, strlen(name) };
	struct msghdr msg = {
		.msg_name = &addr, .msg_namelen = sizeof(addr),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
	};
	struct cmsghdr *c;
	int sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc;

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/" JOBDIR_REAPER_SOCKET,
		 base);
	memset(&ctl, 0, sizeof(ctl));
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_CREDENTIALS;
	c->cmsg_len = CMSG_LEN(sizeof(cred));
	memcpy(CMSG_DATA(c), &cred, sizeof(cred));
	c = CMSG_NXTHDR(&msg, c);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	rc = sendmsg(sock, &msg, MSG_DONTWAIT) < 0 ? -1 : 0;
	close(sock);
	return rc;
}

/* The socket is root's: requests of others, or not for reaps, are not done. */
static void test_refused(void)
{
	int sock = nsreap_listen(base), fd, status = -1;
	char path[512];
	struct stat st;
	pid_t pid;

	if (!ok(sock >= 0 && make_job(17) == 0, "job 17 made, reaper up"))
		goto out;
	fd = mntns_pin_open(base, 17, JOBDIR_NS_PIN, NULL);
	snprintf(path, sizeof(path), "%s/" JOBDIR_REAPER_SOCKET, base);
	ok(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600 &&
	   st.st_uid == 0, "the socket is root's, 0600");
	if ((pid = fork()) == 0) {
		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(2);
		_exit(send_as(65534, ".reap-17-1", fd) < 0 &&
		      errno == EACCES ? 0 : 1);
	}
	ok(pid > 0 && waitpid(pid, &status, 0) == pid && status == 0,
	   "a user cannot reach it (EACCES)");
	ok(send_as(65534, ".reap-17-1", fd) == 0, "a request claiming uid "
	   "65534 sent (root may say so)");
	ok(send_as(0, "17", fd) == 0, "a request naming a job directory "
	   "sent");
	is_int(nsreap_drain(sock, base, fresh()), 0, "neither is taken");
	is_int(rep.warnings, 2, "each refusal is logged");
	ok(mntns_exists(base, 17), "job 17 is untouched");
	if (fd >= 0)
		close(fd);
	ok(mntns_delete(base, 17) == 0, "job 17 deleted");
out:
	nsreap_close(sock, base, fresh());
}

/* slurmd's pool keeper is the reaper: it listens and reaps on its own. */
static void test_keeper(void)
{
	struct nspool_keeper *k = nspool_keeper_start(base, 1, NULL, NULL);
	bool up = false, reaped = false;
	struct nsmembers_ns ns;

	for (int i = 0; k && i < TAP_WAIT_MS / 10 && !up; i++) {
		usleep(10000);
		up = socket_exists();
	}
	if (!ok(k && up, "the keeper listens") ||
	    !ok(make_job(18) == 0 && job_ns(18, &ns), "job 18 made")) {
		nspool_keeper_stop(k);
		return;
	}
	ok(nsreap_delete(base, 18) == 0 &&
	   !job_path_exists(18, NULL), "job 18 ended");
	for (int i = 0; i < TAP_WAIT_MS / 10 && !reaped; i++) {
		usleep(10000);
		reaped = reap_dirs() == 0 && ns_gone(&ns) == 1;
	}
	ok(reaped, "the keeper reaped it");
	nspool_keeper_stop(k);
	ok(!socket_exists() && reap_dirs() == 0, "the stopped keeper left "
	   "neither socket nor reap");
}

static const char *setup(void)
{
	if (!tap_root())
		return "reaper tests need root";
	if (syscall(SYS_open_tree, -1, "", 0) < 0 && errno == ENOSYS)
		return "no open_tree(2) here (valgrind or a kernel before 5.12)";
	if (unshare(CLONE_NEWNS) < 0 ||
	    mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return "no mount namespace of our own";
	if (!mkdtemp(base))
		return "cannot make a BasePath";
	return NULL;
}

/* Whether this kernel names namespaces by id (delete_behind hands over). */
static bool ids_known(void)
{
	int fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	struct nsmembers_ns ns = { 0 };

	if (fd >= 0) {
		nsmembers_ident(fd, &ns);
		close(fd);
	}
	return ns.id != 0;
}

int main(void)
{
	const char *why = setup();

	if (why) {
		tap_skip("%s", why);
		return tap_done();
	}
	test_names();
	test_no_reaper();
	if (ids_known()) {
		test_hand_over();
		test_requeue();
		test_stop_reaps_queue();
		test_sweep();
		test_refused();
		test_keeper();
		test_reap_empties_tmpfs();
	} else {
		tap_skip("this kernel cannot name a namespace by id (before "
			 "6.11): delete_behind deletes at once");
	}
	ok(rmdir(base) == 0, "BasePath is empty at the end");
	return tap_done();
}
