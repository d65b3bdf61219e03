/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devprobe - open devices the way a job would, and say what the kernel
 * answered: "devprobe [r|w] PATH..." prints one word per PATH on one line:
 *
 *   ok        the open succeeded
 *   ENXIO     allowed: the filter let the open through to a fake device
 *             that has no driver behind it
 *   EPERM     denied by a device filter
 *   other:MSG anything else, with strerror's text
 *
 * The file is opened and closed, nothing is read or written (a strict job
 * may have no /dev/null to spare).  "w" opens for writing as the shell's
 * "exec 3>PATH" does.  It replaces a shell script whose subshell per path
 * cost most of a probe's time in the emulated guest.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* probe_print: open PATH with FLAGS and print the word for the outcome. */
static void probe_print(const char *path, int flags, int first)
{
	int fd = open(path, flags | O_NOCTTY | O_CLOEXEC, 0666);
	int err = errno;

	if (!first)
		putchar(' ');
	if (fd >= 0) {
		close(fd);
		fputs("ok", stdout);
	} else if (err == ENXIO) {
		fputs("ENXIO", stdout);
	} else if (err == EPERM) {
		fputs("EPERM", stdout);
	} else {
		printf("other:%s", strerror(err));
	}
}

int main(int argc, char **argv)
{
	int flags = O_RDONLY;
	int i = 1;

	if (i < argc && (!strcmp(argv[i], "r") || !strcmp(argv[i], "w"))) {
		if (argv[i][0] == 'w')
			flags = O_WRONLY | O_CREAT | O_TRUNC;
		i++;
	}
	for (int first = 1; i < argc; i++, first = 0)
		probe_print(argv[i], flags, first);
	putchar('\n');
	return fflush(stdout) == 0 ? 0 : 1;
}
