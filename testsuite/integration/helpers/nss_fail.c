/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nss_fail.c - LD_PRELOAD fault injection: an NSS that is down for one group.
 *
 * Loaded into slurmctld, it makes the group lookups of one group fail the
 * way an unreachable LDAP server makes them fail (an error, not "no such
 * group"):
 *
 *   DEVNS_NSS_FAIL_GROUP=NAME   getgrnam_r(NAME) and getgrgid_r(NAME's gid)
 *                               return DEVNS_NSS_FAIL_ERRNO (default EIO)
 *                               with no result; getgrnam/getgrgid return
 *                               NULL with errno set to it.
 *
 * Every other lookup goes to glibc unchanged.  The group's gid is found by
 * asking glibc and looking at the answer, so the test needs to name the group
 * only.  This is a test tool: it is never installed.
 */
#include <dlfcn.h>
#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>

typedef int (*getgrnam_r_t)(const char *, struct group *, char *, size_t,
			    struct group **);
typedef int (*getgrgid_r_t)(gid_t, struct group *, char *, size_t,
			    struct group **);
typedef struct group *(*getgrnam_t)(const char *);
typedef struct group *(*getgrgid_t)(gid_t);

static const char *failing_group(void)
{
	const char *g = getenv("DEVNS_NSS_FAIL_GROUP");

	return (g && *g) ? g : NULL;
}

static int fail_errno(void)
{
	const char *e = getenv("DEVNS_NSS_FAIL_ERRNO");
	int n = e ? atoi(e) : 0;

	return n > 0 ? n : EIO;
}

static int is_failing(const char *name)
{
	const char *g = failing_group();

	return g && name && strcmp(g, name) == 0;
}

int getgrnam_r(const char *name, struct group *grp, char *buf, size_t len,
	       struct group **result)
{
	getgrnam_r_t real = (getgrnam_r_t)dlsym(RTLD_NEXT, "getgrnam_r");

	if (is_failing(name)) {
		*result = NULL;
		return fail_errno();
	}
	return real(name, grp, buf, len, result);
}

int getgrgid_r(gid_t gid, struct group *grp, char *buf, size_t len,
	       struct group **result)
{
	getgrgid_r_t real = (getgrgid_r_t)dlsym(RTLD_NEXT, "getgrgid_r");
	int rc = real(gid, grp, buf, len, result);

	/* The gid of the failing group is known only from the answer. */
	if (rc == 0 && *result && is_failing((*result)->gr_name)) {
		*result = NULL;
		return fail_errno();
	}
	return rc;
}

struct group *getgrnam(const char *name)
{
	getgrnam_t real = (getgrnam_t)dlsym(RTLD_NEXT, "getgrnam");

	if (is_failing(name)) {
		errno = fail_errno();
		return NULL;
	}
	return real(name);
}

struct group *getgrgid(gid_t gid)
{
	getgrgid_t real = (getgrgid_t)dlsym(RTLD_NEXT, "getgrgid");
	struct group *gr = real(gid);

	if (gr && is_failing(gr->gr_name)) {
		errno = fail_errno();
		return NULL;
	}
	return gr;
}
