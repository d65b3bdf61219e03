/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_devname.c - device numbers back to names (dev/devname.h): /dev/null
 * found in /dev; on a scratch tree of device nodes (root: mknod), which
 * name wins when several share a number, that links, world-writable
 * subdirectories and deeper levels name nothing, that an added name beats
 * a scanned one, and that a dir reached through a link is refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dev/devname.h"
#include "util/saferm.h"
#include "tap.h"

static char tmp[] = "/var/tmp/test_devname.XXXXXX";

static void test_real_dev(void)
{
	struct devnames d;
	struct stat st;

	devnames_init(&d);
	if (!ok(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode) &&
		major(st.st_rdev) == 1 && minor(st.st_rdev) == 3,
		"precondition: /dev/null is c 1:3"))
		return;
	is_int(devnames_scan(&d, "/dev"), 0, "/dev scans");
	is_str(devnames_find(&d, 'c', 1, 3), "/dev/null", "  c 1:3 is /dev/null");
	ok(devnames_find(&d, 'b', 1, 3) == NULL, "  b 1:3 is not: types differ");
	ok(devnames_find(&d, 'c', 4095, 1048575) == NULL,
	   "  a number no file has: none");
	devnames_free(&d);
}

static int node(const char *name, unsigned minor)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	return mknod(path, S_IFCHR | 0600, makedev(240, minor));
}

static int dir(const char *name, mode_t mode)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	return mkdir(path, 0755) < 0 ? -1 : chmod(path, mode);
}

static void want(const struct devnames *d, unsigned minor, const char *name,
		 const char *why)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	is_str(devnames_find(d, 'c', 240, minor), name ? path : NULL,
	       "c 240:%u: %s (%s)", minor, name ? name : "none", why);
}

static void test_scratch(void)
{
	char path[PATH_MAX], link_path[PATH_MAX];
	struct devnames d;
	int fd;

	if (!tap_root()) {
		tap_skip("the scratch tree needs root (mknod)");
		return;
	}
	if (!ok(mkdtemp(tmp) && chmod(tmp, 0755) == 0 &&
		node("top", 1) == 0 && dir("sub", 0755) == 0 &&
		node("sub/top-again", 1) == 0 && node("sub/only", 2) == 0 &&
		node("zz", 3) == 0 && node("aa", 3) == 0 &&
		dir("shm", 01777) == 0 && node("shm/planted", 4) == 0 &&
		dir("sub/deeper", 0755) == 0 &&
		node("sub/deeper/far", 5) == 0 && node("added", 6) == 0 &&
		node("sub/scanned", 6) == 0,
		"precondition: a scratch tree of device nodes"))
		goto out;
	snprintf(path, sizeof(path), "%s/top", tmp);
	snprintf(link_path, sizeof(link_path), "%s/sub/0link", tmp);
	ok(symlink(path, link_path) == 0, "precondition: a link to a device");

	devnames_init(&d);
	snprintf(path, sizeof(path), "%s/added", tmp);
	is_int(devnames_add(&d, path), 0, "devnames_add a device");
	snprintf(path, sizeof(path), "%s/sub", tmp);
	is_int(devnames_add(&d, path), 0, "devnames_add a directory: skipped");
	is_int(devnames_add(&d, "/nonexistent"), 0,
	       "devnames_add a missing path: skipped");
	is_int(devnames_scan(&d, tmp), 0, "the tree scans");
	want(&d, 1, "top", "the shallower of two, not the link to it");
	want(&d, 2, "sub/only", "one level down");
	want(&d, 3, "aa", "of two at one depth, the first in strcmp order");
	want(&d, 4, NULL, "a world-writable directory is skipped");
	want(&d, 5, NULL, "two levels down is not looked at");
	want(&d, 6, "added", "an added name beats a scanned one");
	devnames_free(&d);

	snprintf(link_path, sizeof(link_path), "%s/dirlink", tmp);
	devnames_init(&d);
	errno = 0;
	ok(symlink(tmp, link_path) == 0 && devnames_scan(&d, link_path) == -1 &&
	   errno == ELOOP, "a dir reached through a link: ELOOP");
	ok(d.count == 0, "  and nothing found");
	devnames_free(&d);
out:
	fd = open("/var/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);
	ok(fd >= 0 && saferm_at(fd, strrchr(tmp, '/') + 1) == 0,
	   "the scratch tree is removed");
	if (fd >= 0)
		close(fd);
}

int main(void)
{
	test_real_dev();
	test_scratch();
	return tap_done();
}
