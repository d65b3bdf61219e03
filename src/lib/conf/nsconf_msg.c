/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsconf_msg.c - the node's settings from slurmd to slurmstepd.  See
 * nsconf_msg.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf/nsconf_msg.h"
#include "util/fdutil.h"

#define WHAT "the settings from slurmd"

static void put_u32(char *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, sizeof(v));
}

static uint32_t get_u32(const char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return ntohl(v);
}

char *nsconf_msg_encode(const struct nsconf *conf, size_t *len,
			struct report *rep)
{
	size_t path_len, text_len;
	char *buf;

	if (!conf || !conf->file || !conf->text) {
		errno = EINVAL;
		report_error(rep, "cannot send " WHAT ": none were parsed from a file");
		return NULL;
	}
	path_len = strlen(conf->file);
	text_len = strlen(conf->text);
	if (!path_len || path_len > NSCONF_MSG_MAX_PATH ||
	    text_len > NSCONF_MAX_SIZE) {
		errno = EINVAL;
		report_error(rep, "cannot send the settings of %s: its path or text is too long",
			     conf->file);
		return NULL;
	}
	*len = NSCONF_MSG_HEADER + path_len + text_len;
	if (!(buf = malloc(*len))) {
		report_errno(rep, ENOMEM, "cannot send the settings of %s",
			     conf->file);
		return NULL;
	}
	memcpy(buf, NSCONF_MSG_MAGIC, 4);
	put_u32(buf + 4, NSCONF_MSG_VERSION);
	put_u32(buf + 8, (uint32_t)path_len);
	put_u32(buf + 12, (uint32_t)text_len);
	memcpy(buf + NSCONF_MSG_HEADER, conf->file, path_len);
	memcpy(buf + NSCONF_MSG_HEADER + path_len, conf->text, text_len);
	return buf;
}

int nsconf_msg_send(int fd, const char *buf, size_t len, struct report *rep)
{
	if (fdutil_write_all(fd, buf, len) < 0)
		return report_errno(rep, errno,
				    "cannot send " WHAT " to slurmstepd");
	return 0;
}

/*
 * Read buf[len] whole.  Returns 0, or -1 with errno: EPROTO when the
 * message ends first (the writer closed or sent less).
 */
static int read_full(int fd, char *buf, size_t len)
{
	while (len) {
		ssize_t n = read(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = EPROTO;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Read a string of len bytes into a new NUL-terminated *out.  A NUL
 * inside is malformed.  Returns 0, or -1 with errno and rep.
 */
static int read_string(int fd, size_t len, const char *what, char **out,
		       struct report *rep)
{
	char *s = malloc(len + 1);

	if (!s)
		return report_errno(rep, ENOMEM, "cannot read " WHAT);
	if (read_full(fd, s, len) < 0) {
		int saved = errno;

		free(s);
		return report_errno(rep, saved, "cannot read %s of " WHAT,
				    what);
	}
	s[len] = '\0';
	if (strlen(s) != len) {
		free(s);
		errno = EPROTO;
		return report_error(rep, "malformed " WHAT ": a NUL byte in %s",
				    what);
	}
	*out = s;
	return 0;
}

/* Check the header; sets *path_len and *text_len. */
static int header_check(const char *h, size_t *path_len, size_t *text_len,
			struct report *rep)
{
	uint32_t version = get_u32(h + 4);

	if (memcmp(h, NSCONF_MSG_MAGIC, 4) != 0) {
		errno = EPROTO;
		return report_error(rep, "malformed " WHAT ": no devns message (a slurmd that predates this plugin? restart slurmd after upgrading devns)");
	}
	if (version != NSCONF_MSG_VERSION) {
		errno = EPROTO;
		return report_error(rep, "malformed " WHAT ": format version %u, expected %u (restart slurmd after upgrading devns)",
				    (unsigned)version, NSCONF_MSG_VERSION);
	}
	*path_len = get_u32(h + 8);
	*text_len = get_u32(h + 12);
	if (*path_len == 0 || *path_len > NSCONF_MSG_MAX_PATH) {
		errno = EFBIG;
		return report_error(rep, "malformed " WHAT ": a path of %zu bytes (1 to %d)",
				    *path_len, NSCONF_MSG_MAX_PATH);
	}
	if (*text_len > NSCONF_MAX_SIZE) {
		errno = EFBIG;
		return report_error(rep, "malformed " WHAT ": a text of %zu bytes (at most %d)",
				    *text_len, NSCONF_MAX_SIZE);
	}
	return 0;
}

int nsconf_msg_recv(int fd, struct nsconf_msg *msg, struct report *rep)
{
	char header[NSCONF_MSG_HEADER];
	size_t path_len = 0, text_len = 0;

	memset(msg, 0, sizeof(*msg));
	if (read_full(fd, header, sizeof(header)) < 0)
		return report_errno(rep, errno, "cannot read " WHAT);
	if (header_check(header, &path_len, &text_len, rep) < 0)
		return -1;
	if (read_string(fd, path_len, "the path", &msg->path, rep) < 0 ||
	    read_string(fd, text_len, "the text", &msg->text, rep) < 0)
		goto error;
	return 0;
error:
	{
		int saved = errno;

		nsconf_msg_clear(msg);
		errno = saved;
	}
	return -1;
}

void nsconf_msg_clear(struct nsconf_msg *msg)
{
	free(msg->path);
	free(msg->text);
	msg->path = NULL;
	msg->text = NULL;
}
