/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dquota_get PATH PROJID: print "LIMIT USED ILIMIT IUSED" of project
 * PROJID on the filesystem holding PATH (block limit and usage in bytes,
 * inode limit and usage), for test_tmpdisk.sh, which checks that a job's
 * TmpDiskLimit and TmpInodeLimit are set while it runs and lifted after.  Exits 1
 * with a message when the quota cannot be read.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ns/dquota.h"

int main(int argc, char **argv)
{
	struct dquota_usage u;
	char *end;
	unsigned long id;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: dquota_get PATH PROJID\n");
		return 2;
	}
	errno = 0;
	id = strtoul(argv[2], &end, 10);
	if (errno || *end || !*argv[2] || id > UINT32_MAX) {
		fprintf(stderr, "dquota_get: bad project id %s\n", argv[2]);
		return 2;
	}
	if ((fd = open(argv[1], O_PATH | O_CLOEXEC)) < 0 ||
	    dquota_get(fd, (uint32_t)id, &u) < 0) {
		fprintf(stderr, "dquota_get: %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	printf("%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
	       u.bytes_limit, u.bytes_used, u.inodes_limit, u.inodes_used);
	close(fd);
	return 0;
}
