/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_imexdev.c - NVIDIA IMEX channels (dev/imexdev.h): the major from a
 * /proc/devices file (only its character section), SwitchParameters'
 * imex_dev_major, the channel Slurm's switch made in a directory (root:
 * mknod; anything but one channelN of the major refused), and a job's
 * rules, held against the reference semantics (testsuite/lib/devaccess):
 * its own channel rw, every other channel of the major nothing, whatever
 * the policy and DeviceAllow's class or numbers gave the major.
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

#include "dev/imexdev.h"
#include "util/saferm.h"
#include "devaccess.h"
#include "tap.h"

static char tmp[] = "/var/tmp/test_imexdev.XXXXXX";
static struct report rep;

static struct report *fresh(void)
{
	report_init(&rep, NULL, NULL);
	return &rep;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_major(void)
{
	char path[PATH_MAX];
	uint32_t major = 0;

	snprintf(path, sizeof(path), "%s/devices", tmp);
	write_file(path, "Character devices:\n  1 mem\n195 nvidia-frontend\n"
			 "239 nvidia-caps-imex-channels\n\nBlock devices:\n"
			 "  8 sd\n");
	is_int(imexdev_major(path, &major, fresh()), 1,
	       "a /proc/devices naming the channels' major: found");
	is_int(major, 239, "  its number");
	write_file(path, "Character devices:\n  1 mem\n\nBlock devices:\n"
			 "240 nvidia-caps-imex-channels\n");
	major = 0;
	is_int(imexdev_major(path, &major, fresh()), 0,
	       "the name among block devices only: none (a channel is a character device)");
	is_int(major, 0, "  nothing set");
	write_file(path, "Character devices:\n  1 mem\n239 nvidia-caps-imex-channels-x\n");
	is_int(imexdev_major(path, &major, fresh()), 0,
	       "a longer name is no match");
	snprintf(path, sizeof(path), "%s/none", tmp);
	ok(imexdev_major(path, &major, fresh()) == -1 && errno == EIO,
	   "an unreadable file: an error (EIO)");
	like(rep.msg, "cannot read", "  saying so: %s", rep.msg);
}

static void test_param(void)
{
	uint32_t major = 0;

	is_int(imexdev_param_major(NULL, &major), 0, "no SwitchParameters: none");
	is_int(imexdev_param_major("imex_channel_count=64", &major), 0,
	       "other parameters only: none");
	is_int(imexdev_param_major("imex_channel_count=64,imex_dev_major=501", &major),
	       1, "imex_dev_major among others: found");
	is_int(major, 501, "  its number");
	ok(imexdev_param_major("imex_dev_major=0", &major) == -1 && errno == EINVAL,
	   "0 is no major (EINVAL)");
	ok(imexdev_param_major("imex_dev_major=4096", &major) == -1 && errno == EINVAL,
	   "past 12 bits is no major");
	ok(imexdev_param_major("imex_dev_major=12x", &major) == -1 &&
	   imexdev_param_major("imex_dev_major=", &major) == -1 &&
	   imexdev_param_major("imex_dev_major=-1", &major) == -1,
	   "trailing junk, empty, a sign: refused");
}

/* A fresh directory holding the given nodes ("name" major minor). */
static int channel_dir(const char *name, const char *const *nodes,
		       const unsigned *numbers, size_t count)
{
	char path[PATH_MAX], file[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	if (mkdir(path, 0755) < 0)
		return -1;
	for (size_t i = 0; i < count; i++) {
		snprintf(file, sizeof(file), "%s/%s", path, nodes[i]);
		if (mknod(file, S_IFCHR | 0666,
			  makedev(numbers[2 * i], numbers[2 * i + 1])) < 0)
			return -1;
	}
	return open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

static void test_channel(void)
{
	static const char *const one[] = { "channel7" };
	static const unsigned one_n[] = { 239, 7 };
	static const char *const two[] = { "channel7", "channel8" };
	static const unsigned two_n[] = { 239, 7, 239, 8 };
	static const unsigned other_major[] = { 195, 7 };
	static const unsigned other_minor[] = { 239, 8 };
	static const char *const badname[] = { "channel07" };
	uint32_t ch = 0;
	int fd;

	if (geteuid() != 0) {
		tap_skip("the channel directory: mknod needs root");
		return;
	}
	fd = channel_dir("empty", NULL, NULL, 0);
	is_int(imexdev_channel(fd, 239, &ch, fresh()), 0, "an empty directory: no channel");
	close(fd);
	fd = channel_dir("one", one, one_n, 1);
	is_int(imexdev_channel(fd, 239, &ch, fresh()), 1, "channel7, c 239:7: one channel");
	is_int(ch, 7, "  number 7");
	close(fd);
	fd = channel_dir("two", two, two_n, 2);
	ok(imexdev_channel(fd, 239, &ch, fresh()) == -1 && errno == EINVAL,
	   "two channels: refused (one per job)");
	like(rep.msg, "more than one entry", "  saying so: %s", rep.msg);
	close(fd);
	fd = channel_dir("major", one, other_major, 1);
	ok(imexdev_channel(fd, 239, &ch, fresh()) == -1 && errno == EINVAL,
	   "channel7 on another major: refused");
	like(rep.msg, "not the character device 239:7", "  saying so: %s", rep.msg);
	close(fd);
	fd = channel_dir("minor", one, other_minor, 1);
	ok(imexdev_channel(fd, 239, &ch, fresh()) == -1 && errno == EINVAL,
	   "channel7 with minor 8: refused (the name is not the device)");
	close(fd);
	fd = channel_dir("name", badname, one_n, 1);
	ok(imexdev_channel(fd, 239, &ch, fresh()) == -1 && errno == EINVAL,
	   "channel07: no channel name");
	close(fd);
}

/* What a list gives c 239:m, rw asked. */
static bool opens(const struct devrule_list *l, uint32_t m)
{
	unsigned rw = DEVRULE_R | DEVRULE_W;

	return (devaccess(l, 'c', 239, m) & rw) == rw;
}

static void test_rules(void)
{
	struct devrule_list l;

	/* auto without DeviceAllow: all allowed but what rules deny */
	devrule_list_init(&l, true);
	ok(imexdev_rules(&l, 239, true, 5) == 0, "auto, open: rules made");
	ok(opens(&l, 5) && !opens(&l, 4) && !opens(&l, 6),
	   "  channel 5 opens, channels 4 and 6 do not");
	ok(devaccess(&l, 'c', 1, 3) == DEVRULE_RWM, "  other devices stay allowed");
	ok(devrule_list_needs_filter(&l), "  a filter is needed");
	devrule_list_free(&l);

	devrule_list_init(&l, true);
	ok(imexdev_rules(&l, 239, false, 0) == 0 && !opens(&l, 0) &&
	   !opens(&l, 1), "auto, no channel: no channel opens");
	devrule_list_free(&l);

	/* closed with DeviceAllow=char-nvidia-caps-imex-channels:rwm */
	devrule_list_init(&l, false);
	devrule_list_add(&l, 'c', 1, 3, false, DEVRULE_RWM);
	devrule_list_add(&l, 'c', 239, 0, true, DEVRULE_RWM);
	devrule_list_add(&l, 'c', 239, 9, false, DEVRULE_RWM);
	devrule_list_pin(&l, 'c', 239, 10, DEVRULE_RWM);
	ok(imexdev_rules(&l, 239, true, 5) == 0, "closed, DeviceAllow giving the major: rules made");
	ok(opens(&l, 5) && !opens(&l, 9) && !opens(&l, 10) && !opens(&l, 0),
	   "  only channel 5 opens: DeviceAllow's class, numbers, pins of the major are gone");
	ok(!(devaccess(&l, 'c', 239, 5) & DEVRULE_M), "  and channel 5 is no mknod");
	ok(devaccess(&l, 'c', 1, 3) == DEVRULE_RWM, "  /dev/null stays");
	devrule_list_free(&l);

	/* strict: nothing else */
	devrule_list_init(&l, false);
	ok(imexdev_rules(&l, 239, true, 2047) == 0 && opens(&l, 2047) &&
	   !opens(&l, 2046) && devaccess(&l, 'c', 1, 3) == 0,
	   "strict: channel 2047 alone opens");
	devrule_list_free(&l);
}

int main(void)
{
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	test_major();
	test_param();
	test_channel();
	test_rules();
	{
		int fd = open("/var/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);

		ok(fd >= 0 && saferm_at(fd, strrchr(tmp, '/') + 1) == 0,
		   "the scratch tree is removed");
		if (fd >= 0)
			close(fd);
	}
	return tap_done();
}
