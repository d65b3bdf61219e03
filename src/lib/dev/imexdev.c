/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * imexdev.c - NVIDIA IMEX channels: their major, the channel Slurm's
 * switch made for a job, and the job's rules for the major.  See
 * imexdev.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dev/devallow_int.h"
#include "dev/imexdev.h"

/* Linux's character majors are 12 bits; 0 is no major. */
#define IMEXDEV_MAJOR_MAX 4095u

int imexdev_major(const char *proc_devices, uint32_t *major,
		  struct report *rep)
{
	/* devallow's reader of /proc/devices: one parser of the file */
	struct parse_ctx ctx = { .proc_devices = proc_devices, .rep = rep };
	struct devrule_list found;
	int rc;

	devrule_list_init(&found, false);
	rc = devallow_add_class(&ctx, 'c', IMEXDEV_CLASS, 0, &found);
	if (rc > 0)
		*major = found.rules[0].major;
	devrule_list_free(&found);
	devallow_classes_free(&ctx);
	return rc > 0 ? 1 : rc;
}

/* "N" in full, within 1..max; -1 otherwise. */
static int parse_number(const char *s, size_t len, unsigned long max,
			unsigned long *out)
{
	char buf[16], *end;

	if (len == 0 || len >= sizeof(buf) || s[0] < '0' || s[0] > '9')
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	*out = strtoul(buf, &end, 10);
	if (errno || *end || *out > max)
		return -1;
	return 0;
}

int imexdev_param_major(const char *params, uint32_t *major)
{
	static const char key[] = "imex_dev_major=";
	const char *p = params;

	while (p && *p) {
		size_t len = strcspn(p, ",");
		unsigned long n;

		if (len >= sizeof(key) - 1 &&
		    !strncasecmp(p, key, sizeof(key) - 1)) {
			if (parse_number(p + sizeof(key) - 1,
					 len - (sizeof(key) - 1),
					 IMEXDEV_MAJOR_MAX, &n) < 0 || !n) {
				errno = EINVAL;
				return -1;
			}
			*major = (uint32_t)n;
			return 1;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* "channelN" -> N (no sign, no leading zero but "channel0"); -1: no. */
static int channel_number(const char *name, uint32_t *n)
{
	static const char prefix[] = "channel";
	const char *digits = name + sizeof(prefix) - 1;
	unsigned long v;

	if (strncmp(name, prefix, sizeof(prefix) - 1) ||
	    (digits[0] == '0' && digits[1]) ||
	    parse_number(digits, strlen(digits), 0xfffffu, &v) < 0)
		return -1;
	*n = (uint32_t)v;
	return 0;
}

int imexdev_channel(int dir_fd, uint32_t major, uint32_t *channel,
		    struct report *rep)
{
	struct dirent *de;
	struct stat st;
	uint32_t n = 0;
	int found = 0;
	int fd;
	DIR *d;

	/* a directory fd of its own: readdir moves the offset */
	if ((fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC |
				       O_NOFOLLOW)) < 0)
		return report_errno(rep, errno, "cannot read %s", IMEXDEV_DIR);
	if (!(d = fdopendir(fd))) {
		int saved = errno;

		close(fd);
		return report_errno(rep, saved, "cannot read %s", IMEXDEV_DIR);
	}
	while ((errno = 0, de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (found) {
			report_error(rep, "%s holds more than one entry (%s): one channel per job", IMEXDEV_DIR, de->d_name);
			goto invalid;
		}
		if (channel_number(de->d_name, &n) < 0) {
			report_error(rep, "%s/%s is no channel name", IMEXDEV_DIR, de->d_name);
			goto invalid;
		}
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			report_errno(rep, errno, "cannot stat %s/%s", IMEXDEV_DIR, de->d_name);
			goto error;
		}
		if (!S_ISCHR(st.st_mode) || major(st.st_rdev) != major ||
		    minor(st.st_rdev) != n) {
			report_error(rep, "%s/%s is not the character device %u:%u",
				     IMEXDEV_DIR, de->d_name, (unsigned)major,
				     (unsigned)n);
			goto invalid;
		}
		found = 1;
	}
	if (errno) {
		report_errno(rep, errno, "cannot read %s", IMEXDEV_DIR);
		goto error;
	}
	closedir(d);
	if (found)
		*channel = n;
	return found;
invalid:
	errno = EINVAL;
error:
	{
		int saved = errno;

		closedir(d);
		errno = saved;
	}
	return -1;
}

int imexdev_rules(struct devrule_list *list, uint32_t major,
		  bool has_channel, uint32_t channel)
{
	size_t kept = 0;

	/* nothing of DevicePolicy or DeviceAllow reaches the major */
	for (size_t i = 0; i < list->count; i++) {
		const struct devrule *r = &list->rules[i];

		if (r->type == 'c' && r->major == major)
			continue;
		list->rules[kept++] = *r;
	}
	list->count = kept;
	if (devrule_list_add(list, 'c', major, 0, true, 0) < 0 ||
	    (has_channel &&
	     devrule_list_pin(list, 'c', major, channel,
			      DEVRULE_R | DEVRULE_W) < 0))
		return -1;
	devrule_list_normalise(list);
	return 0;
}
