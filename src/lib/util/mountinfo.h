/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mountinfo.h - one line of /proc/<pid>/mountinfo (proc(5)), split into
 * its fields in place:
 *
 *   36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=c
 *   id pa dev  root point opts [optional...] - fstype source superopts
 *
 * The paths (root, mount point, source) have their octal escapes (\040
 * for a space) undone.
 */
#ifndef DEVNS_MOUNTINFO_H
#define DEVNS_MOUNTINFO_H

struct mountinfo_entry {
	int id;
	int parent;
	const char *root;	/* the path within the file system mounted */
	const char *point;	/* where, in the reader's root */
	const char *options;	/* per-mount options (rw,nosuid,...) */
	const char *fstype;
	const char *source;	/* "none" where the kernel gives nothing */
	const char *superopts;	/* per-superblock options (size=...) */
};

/*
 * Splits line (modified in place; entry points into it).  Returns 0, or -1
 * with errno EINVAL for a line that is not a mountinfo line.
 */
int mountinfo_parse(char *line, struct mountinfo_entry *entry);

#endif /* DEVNS_MOUNTINFO_H */
