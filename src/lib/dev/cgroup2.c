/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cgroup2.c - find the cgroup2 mount; make, fill, list and remove a job's
 * cgroup-v2 directory through directory fds.
 *
 * Removal relies on the kernel's own rule: rmdir of a cgroup fails with
 * EBUSY while a live process or a child cgroup is in it.  Exited (zombie)
 * processes no longer count, so once the job's processes are gone the
 * directory can go, and with it the BPF programs attached to it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include "dev/cgroup2.h"
#include "util/fdutil.h"
#include "util/mountinfo.h"

#define MOUNTINFO "/proc/self/mountinfo"

/* What one pass over mountinfo tells about the node's cgroups. */
struct cgroup_mounts {
	bool v1;		/* some cgroup v1 hierarchy is mounted */
	char *v2_point;		/* the cgroup2 mount point, or NULL */
	bool v2_root;		/* v2_point mounts the hierarchy's root */
};

static int note_mount(struct cgroup_mounts *cm, const struct mountinfo_entry *m)
{
	if (!strcmp(m->fstype, "cgroup")) {
		cm->v1 = true;
		return 0;
	}
	if (strcmp(m->fstype, "cgroup2") != 0)
		return 0;
	/* Prefer the hierarchy's root over a bind mount of a subtree. */
	if (cm->v2_point && (cm->v2_root || strcmp(m->root, "/") != 0))
		return 0;
	free(cm->v2_point);
	if (!(cm->v2_point = strdup(m->point)))
		return -1;
	cm->v2_root = !strcmp(m->root, "/");
	return 0;
}

/* Fills cm from mountinfo (NULL: this process's); cm->v2_point is the
 * caller's to free.  Returns 0, or -1 with errno. */
static int scan_mountinfo(const char *mountinfo, struct cgroup_mounts *cm)
{
	char *line = NULL;
	size_t len = 0;
	FILE *f;
	int saved;

	memset(cm, 0, sizeof(*cm));
	if (!(f = fopen(mountinfo ? mountinfo : MOUNTINFO, "re")))
		return -1;
	while (getline(&line, &len, f) >= 0) {
		struct mountinfo_entry m;

		if (mountinfo_parse(line, &m) == 0 && note_mount(cm, &m) < 0)
			goto error;
	}
	if (ferror(f)) {
		errno = EIO;
		goto error;
	}
	free(line);
	fclose(f);
	return 0;
error:
	saved = errno;
	free(cm->v2_point);
	cm->v2_point = NULL;
	free(line);
	fclose(f);
	errno = saved;
	return -1;
}

static int copy_path(const char *path, char *buf, size_t size)
{
	if (strlen(path) >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(buf, path);
	return 0;
}

static enum cgroup2_layout layout_of(const struct cgroup_mounts *cm)
{
	if (!cm->v2_point)
		return CGROUP2_NONE;
	return cm->v1 ? CGROUP2_HYBRID : CGROUP2_UNIFIED;
}

/* Keeps fd when it is a cgroup2 directory; else closes it: EMEDIUMTYPE. */
int cgroup2_proc_path(const char *proc_cgroup, char *buf, size_t size)
{
	FILE *f = fopen(proc_cgroup ? proc_cgroup : "/proc/self/cgroup", "re");
	char line[4096 + 8];
	int rc = -1, err = ENOENT;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		size_t n = strcspn(line, "\n");
		const char *path = line + 3;

		if (strncmp(line, "0::/", 4))
			continue;
		line[n] = '\0';
		path += 1;	/* the leading "/" */
		if (strlen(path) >= size) {
			err = ENAMETOOLONG;
			break;
		}
		strcpy(buf, path);
		rc = 0;
		break;
	}
	fclose(f);
	if (rc < 0)
		errno = err;
	return rc;
}

static int require_cgroup2(int fd)
{
	struct statfs sfs;
	int saved;

	if (fd < 0)
		return -1;
	if (fstatfs(fd, &sfs) < 0)
		saved = errno;
	else if (sfs.f_type != CGROUP2_SUPER_MAGIC)
		saved = EMEDIUMTYPE;
	else
		return fd;
	close(fd);
	errno = saved;
	return -1;
}

int cgroup2_open(const char *path)
{
	return require_cgroup2(open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					  O_CLOEXEC));
}

/*
 * Opens (and makes) one path component below dir_fd.  Each component is
 * checked to be cgroup2 as well: something mounted over part of the tree
 * (a tmpfs, say) must not be taken for a cgroup.
 */
static int open_component(int dir_fd, const char *name, bool create)
{
	if (create && mkdirat(dir_fd, name, 0755) < 0 && errno != EEXIST)
		return -1;
	return require_cgroup2(openat(dir_fd, name, O_RDONLY | O_DIRECTORY |
						    O_NOFOLLOW | O_CLOEXEC));
}

int cgroup2_open_at(int dir_fd, const char *relpath, bool create)
{
	char *copy, *comp, *save = NULL;
	int fd = -1, saved;

	if (!relpath || !*relpath || relpath[0] == '/') {
		errno = EINVAL;
		return -1;
	}
	if (!(copy = strdup(relpath)))
		return -1;
	for (comp = strtok_r(copy, "/", &save); comp;
	     comp = strtok_r(NULL, "/", &save)) {
		int next;

		if (!strcmp(comp, ".") || !strcmp(comp, "..")) {
			errno = EINVAL;
			goto error;
		}
		next = open_component(fd >= 0 ? fd : dir_fd, comp, create);
		if (next < 0)
			goto error;
		if (fd >= 0)
			close(fd);
		fd = next;
	}
	if (fd < 0) { /* only slashes */
		errno = EINVAL;
		goto error;
	}
	free(copy);
	return fd;
error:
	saved = errno;
	if (fd >= 0)
		close(fd);
	free(copy);
	errno = saved;
	return -1;
}

int cgroup2_move_pid(int cg_fd, pid_t pid)
{
	char buf[32];
	int fd, n, saved;
	ssize_t w;

	if (pid < 0) {
		errno = EINVAL;
		return -1;
	}
	fd = openat(cg_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	n = snprintf(buf, sizeof(buf), "%d\n", (int)pid);
	w = write(fd, buf, (size_t)n);
	saved = errno;
	close(fd);
	if (w != n) {
		errno = w < 0 ? saved : EIO;
		return -1;
	}
	return 0;
}

int cgroup2_list_pids(int cg_fd, pid_t *pids, size_t max)
{
	FILE *f;
	size_t count = 0;
	int fd, pid;

	fd = openat(cg_fd, "cgroup.procs", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	if (!(f = fdopen(fd, "r"))) {
		fdutil_close(fd);
		return -1;
	}
	while (fscanf(f, "%d", &pid) == 1) {
		if (count < max)
			pids[count] = (pid_t)pid;
		count++;
	}
	if (ferror(f)) {
		fclose(f);
		errno = EIO;
		return -1;
	}
	fclose(f);
	return count > INT32_MAX ? INT32_MAX : (int)count;
}

int cgroup2_kill(int cg_fd)
{
	int fd = openat(cg_fd, "cgroup.kill", O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t w;

	if (fd < 0)
		return -1;
	w = write(fd, "1", 1);
	fdutil_close(fd);
	return w == 1 ? 0 : -1;
}

int cgroup2_populated(int cg_fd)
{
	int fd = openat(cg_fd, "cgroup.events", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	char buf[256], *p;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	if (!(p = strstr(buf, "populated "))) {
		errno = EIO;
		return -1;
	}
	return p[10] == '1';
}

int cgroup2_remove(int parent_fd, const char *name)
{
	if (!name || !*name || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, "..")) {
		errno = EINVAL;
		return -1;
	}
	return unlinkat(parent_fd, name, AT_REMOVEDIR);
}

#define CGROUP_DIR "/sys/fs/cgroup"

static bool fs_type_is(const char *path, long type)
{
	struct statfs sfs;

	return statfs(path, &sfs) == 0 && sfs.f_type == type;
}

/* systemd's places (see cgroup2_probe); false when the node has others. */
static bool probe_standard_place(enum cgroup2_layout *layout,
				 const char **mount)
{
	if (fs_type_is(CGROUP_DIR, CGROUP2_SUPER_MAGIC)) {
		*layout = CGROUP2_UNIFIED;
		*mount = CGROUP_DIR;
		return true;
	}
	if (fs_type_is(CGROUP_DIR, TMPFS_MAGIC) &&
	    fs_type_is(CGROUP_DIR "/systemd", CGROUP_SUPER_MAGIC) &&
	    fs_type_is(CGROUP_DIR "/unified", CGROUP2_SUPER_MAGIC)) {
		*layout = CGROUP2_HYBRID;
		*mount = CGROUP_DIR "/unified";
		return true;
	}
	return false;
}

int cgroup2_probe(const char *mountinfo, enum cgroup2_layout *layout,
		  char *mount, size_t size)
{
	struct cgroup_mounts cm;
	const char *found;
	int rc;

	if (!mountinfo && probe_standard_place(layout, &found))
		return copy_path(found, mount, size);
	if (scan_mountinfo(mountinfo, &cm) < 0)
		return -1;
	*layout = layout_of(&cm);
	rc = copy_path(cm.v2_point ? cm.v2_point : "", mount, size);
	free(cm.v2_point);
	return rc;
}

const char *cgroup2_layout_name(enum cgroup2_layout layout)
{
	switch (layout) {
	case CGROUP2_UNIFIED:
		return "unified";
	case CGROUP2_HYBRID:
		return "hybrid";
	default:
		return "none";
	}
}

const char *cgroup2_layout_describe(enum cgroup2_layout layout)
{
	switch (layout) {
	case CGROUP2_UNIFIED:
		return "unified (cgroup v2 only)";
	case CGROUP2_HYBRID:
		return "hybrid (cgroup v1 controllers, a separate cgroup2)";
	default:
		return "no cgroup2";
	}
}
