/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * groupnss.c - the NSS backend of groupcache (groupcache_nss).
 *
 * One user lookup is getpwuid_r (name and primary gid) plus one getgrouplist.
 * Every buffer grows until the answer fits: Slurm's mcs/group uses a fixed
 * 128-entry array and so fails for users in more groups, and large groups
 * (thousands of members) overflow the usual getgr*_r buffer sizes.
 */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcs/groupcache.h"

/* Far beyond any real entry; only stops a broken NSS module from making us
 * allocate without end. */
#define NSS_BUF_MAX (64u << 20)
#define GROUPS_MAX (1 << 20)

/* The "not found" answers that getpwuid_r(3) and getgrnam_r(3) allow. */
static int is_not_found(int rc)
{
	return rc == 0 || rc == ENOENT || rc == ESRCH || rc == EBADF ||
	       rc == EPERM;
}

static size_t initial_bufsize(int which)
{
	long n = sysconf(which);

	return (n > 0 && n < 65536) ? (size_t)n : 4096;
}

/* One reentrant NSS call in a uniform shape, so that a single loop can grow
 * the buffer for all of them. */
typedef int (*nss_call_t)(const void *key, void *ent, char *buf, size_t len,
			  int *found);

static int call_getpwuid(const void *key, void *ent, char *buf, size_t len,
			 int *found)
{
	struct passwd *res = NULL;
	int rc = getpwuid_r(*(const uid_t *)key, ent, buf, len, &res);

	*found = res != NULL;
	return rc;
}

static int call_getgrgid(const void *key, void *ent, char *buf, size_t len,
			 int *found)
{
	struct group *res = NULL;
	int rc = getgrgid_r(*(const gid_t *)key, ent, buf, len, &res);

	*found = res != NULL;
	return rc;
}

static int call_getgrnam(const void *key, void *ent, char *buf, size_t len,
			 int *found)
{
	struct group *res = NULL;
	int rc = getgrnam_r(key, ent, buf, len, &res);

	*found = res != NULL;
	return rc;
}

/*
 * Runs call with a buffer that doubles on ERANGE.  Returns 1 found (ent is
 * filled and points into *buf), 0 not found, -1 with errno for a failure.
 * *buf is the caller's to free in every case.
 */
static int nss_grow(nss_call_t call, const void *key, void *ent, char **buf,
		    int sizehint)
{
	size_t size = initial_bufsize(sizehint);
	int rc, found;
	char *nb;

	for (;;) {
		if (!(nb = realloc(*buf, size)))
			return -1;
		*buf = nb;
		rc = call(key, ent, *buf, size, &found);
		if (rc == EINTR)
			continue;
		if (rc == ERANGE && size < NSS_BUF_MAX) {
			size *= 2;
			continue;
		}
		break;
	}
	if (found)
		return 1;
	if (is_not_found(rc))
		return 0;
	errno = rc;
	return -1;
}

/* getgrouplist into a malloc()ed array that grows until the list fits. */
static int grouplist(const char *user, gid_t base, gid_t **out, size_t *nout)
{
	int cap = 64, n;
	gid_t *gids = NULL, *ng;

	for (;;) {
		if (!(ng = realloc(gids, (size_t)cap * sizeof(gid_t))))
			goto error;
		gids = ng;
		n = cap;
		if (getgrouplist(user, base, gids, &n) >= 0)
			break;
		/* glibc reports the size it needs; others may not. */
		cap = (n > cap) ? n : cap * 2;
		if (cap > GROUPS_MAX) {
			errno = E2BIG;
			goto error;
		}
	}
	*out = gids;
	*nout = (size_t)n;
	return 0;
error:
	free(gids);
	return -1;
}

/* nss_grow for an entry that must exist: 0, or -1 with errno (ENOENT:
 * none). */
static int nss_find(nss_call_t call, const void *key, void *ent, char **buf,
		    int sizehint)
{
	int found = nss_grow(call, key, ent, buf, sizehint);

	if (!found)
		errno = ENOENT;
	return found > 0 ? 0 : -1;
}

static int nss_user_groups(void *ctx, uid_t uid, gid_t **gids, size_t *ngids)
{
	struct passwd pw;
	char *buf = NULL;

	(void)ctx;
	/* With the primary gid as base, the list holds it too. */
	if (nss_find(call_getpwuid, &uid, &pw, &buf, _SC_GETPW_R_SIZE_MAX) < 0 ||
	    grouplist(pw.pw_name, pw.pw_gid, gids, ngids) < 0)
		goto error;
	free(buf);
	return 0;
error:
	free(buf);
	return -1;
}

/* getgrgid_r: 0 found (name copied if wanted), -1 errno (ENOENT: none). */
static int lookup_gid(gid_t gid, char **name)
{
	struct group gr;
	char *buf = NULL;

	if (nss_find(call_getgrgid, &gid, &gr, &buf, _SC_GETGR_R_SIZE_MAX) < 0 ||
	    (name && !(*name = strdup(gr.gr_name))))
		goto error;
	free(buf);
	return 0;
error:
	free(buf);
	return -1;
}

/* A plain decimal number in [0, INT_MAX], as Slurm accepts for a gid. */
static int parse_gid(const char *s, gid_t *gid)
{
	char *end;
	long l;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	l = strtol(s, &end, 10);
	if (errno || *end || l < 0 || l > INT_MAX)
		return -1;
	*gid = (gid_t)l;
	return 0;
}

static int nss_group_gid(void *ctx, const char *name, gid_t *gid)
{
	struct group gr;
	char *buf = NULL;
	int found;
	gid_t num;

	(void)ctx;
	found = nss_grow(call_getgrnam, name, &gr, &buf, _SC_GETGR_R_SIZE_MAX);
	if (found > 0)
		*gid = gr.gr_gid;
	free(buf);
	if (found)
		return found > 0 ? 0 : -1;
	/* Not a group name: perhaps the number of an existing group. */
	if (parse_gid(name, &num) < 0) {
		errno = ENOENT;
		return -1;
	}
	if (lookup_gid(num, NULL) < 0)
		return -1;
	*gid = num;
	return 0;
}

static int nss_group_name(void *ctx, gid_t gid, char **name)
{
	(void)ctx;
	return lookup_gid(gid, name);
}

const groupcache_backend_t groupcache_nss = {
	.user_groups = nss_user_groups,
	.group_gid = nss_group_gid,
	.group_name = nss_group_name,
	.ctx = NULL,
};
