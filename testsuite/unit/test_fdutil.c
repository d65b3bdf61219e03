/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_fdutil.c - unit tests of fdutil_close(): it closes the fd, keeps
 * errno as it was, and takes a negative fd (nothing opened) quietly.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "util/fdutil.h"
#include "tap.h"

static void test_close(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	ok(fd >= 0 && fcntl(fd, F_GETFD) >= 0, "precondition: an open fd");
	errno = ENOSPC;
	fdutil_close(fd);
	ok(errno == ENOSPC, "errno is kept across the close (%d)", errno);
	errno = 0;
	ok(fcntl(fd, F_GETFD) == -1 && errno == EBADF, "the fd is closed");
}

static void test_negative(void)
{
	errno = EACCES;
	fdutil_close(-1);
	ok(errno == EACCES, "-1 closes nothing and keeps errno (%d)", errno);
}

int main(void)
{
	test_close();
	test_negative();
	return tap_done();
}
