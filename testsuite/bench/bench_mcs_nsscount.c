/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_mcs_nsscount.c - LD_PRELOAD counter of NSS user/group calls.
 *
 * Loaded into slurmctld by bench_mcs_nss.sh: every call a process makes to
 * one of the functions below (from Slurm, from an mcs plugin, from anything)
 * adds one to a counter in a shared file, then goes on to the real function.
 * The same counter serves every plugin measured, so the figures compare like
 * with like.  glibc's own internal calls (getgrouplist walking NSS modules)
 * do not go through these symbols and are not counted: one call here is one
 * question asked of NSS.
 *
 * NSSCOUNT_FILE names the file; it must hold NSSCOUNT_N 64-bit counters
 * (the script creates it).  Without it the counters are private and lost.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* The order is the order of the counters in the file (the script's too). */
enum {
	C_GETPWUID_R, C_GETPWNAM_R, C_GETPWUID, C_GETPWNAM,
	C_GETGRGID_R, C_GETGRNAM_R, C_GETGRGID, C_GETGRNAM,
	C_GETGROUPLIST, C_INITGROUPS, NSSCOUNT_N
};

static _Atomic uint64_t local_counters[NSSCOUNT_N];
static _Atomic uint64_t *counters = local_counters;

__attribute__((constructor))
static void nsscount_init(void)
{
	const char *path = getenv("NSSCOUNT_FILE");
	void *map;
	int fd;

	if (!path || (fd = open(path, O_RDWR | O_CLOEXEC)) < 0)
		return;
	map = mmap(NULL, NSSCOUNT_N * sizeof(uint64_t),
		   PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (map != MAP_FAILED)
		counters = map;
}

static void *real(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

#define COUNT(c) atomic_fetch_add_explicit(&counters[c], 1, memory_order_relaxed)

int getpwuid_r(uid_t uid, struct passwd *pw, char *buf, size_t len,
	       struct passwd **res)
{
	static int (*fn)(uid_t, struct passwd *, char *, size_t,
			 struct passwd **);

	COUNT(C_GETPWUID_R);
	if (!fn)
		fn = real("getpwuid_r");
	return fn(uid, pw, buf, len, res);
}

int getpwnam_r(const char *name, struct passwd *pw, char *buf, size_t len,
	       struct passwd **res)
{
	static int (*fn)(const char *, struct passwd *, char *, size_t,
			 struct passwd **);

	COUNT(C_GETPWNAM_R);
	if (!fn)
		fn = real("getpwnam_r");
	return fn(name, pw, buf, len, res);
}

struct passwd *getpwuid(uid_t uid)
{
	static struct passwd *(*fn)(uid_t);

	COUNT(C_GETPWUID);
	if (!fn)
		fn = real("getpwuid");
	return fn(uid);
}

struct passwd *getpwnam(const char *name)
{
	static struct passwd *(*fn)(const char *);

	COUNT(C_GETPWNAM);
	if (!fn)
		fn = real("getpwnam");
	return fn(name);
}

int getgrgid_r(gid_t gid, struct group *gr, char *buf, size_t len,
	       struct group **res)
{
	static int (*fn)(gid_t, struct group *, char *, size_t,
			 struct group **);

	COUNT(C_GETGRGID_R);
	if (!fn)
		fn = real("getgrgid_r");
	return fn(gid, gr, buf, len, res);
}

int getgrnam_r(const char *name, struct group *gr, char *buf, size_t len,
	       struct group **res)
{
	static int (*fn)(const char *, struct group *, char *, size_t,
			 struct group **);

	COUNT(C_GETGRNAM_R);
	if (!fn)
		fn = real("getgrnam_r");
	return fn(name, gr, buf, len, res);
}

struct group *getgrgid(gid_t gid)
{
	static struct group *(*fn)(gid_t);

	COUNT(C_GETGRGID);
	if (!fn)
		fn = real("getgrgid");
	return fn(gid);
}

struct group *getgrnam(const char *name)
{
	static struct group *(*fn)(const char *);

	COUNT(C_GETGRNAM);
	if (!fn)
		fn = real("getgrnam");
	return fn(name);
}

int getgrouplist(const char *user, gid_t group, gid_t *groups, int *ngroups)
{
	static int (*fn)(const char *, gid_t, gid_t *, int *);

	COUNT(C_GETGROUPLIST);
	if (!fn)
		fn = real("getgrouplist");
	return fn(user, group, groups, ngroups);
}

int initgroups(const char *user, gid_t group)
{
	static int (*fn)(const char *, gid_t);

	COUNT(C_INITGROUPS);
	if (!fn)
		fn = real("initgroups");
	return fn(user, group);
}
