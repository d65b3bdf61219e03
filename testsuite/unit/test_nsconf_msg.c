/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_nsconf_msg.c - unit tests of the message that carries slurmd's
 * settings to slurmstepd: a round trip (small, the largest text, a writer
 * that sends a byte at a time), and every malformed message refused with
 * errno and a message, msg left empty and nothing leaked (valgrind).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf/nsconf.h"
#include "conf/nsconf_msg.h"
#include "tap.h"
#include "testrep.h"

#define PATH "/etc/slurm/job_container.conf"
#define TEXT "# node settings\nBasePath=/var/spool/devns\nShmSize=1G\n"

/* An fd to read buf[len] from, then end of file. */
static int stream(const void *buf, size_t len)
{
	char path[] = "/tmp/test_nsconf_msg.XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, buf, len) != (ssize_t)len ||
	    lseek(fd, 0, SEEK_SET) != 0) {
		printf("Bail out! cannot write %s\n", path);
		exit(1);
	}
	unlink(path);
	return fd;
}

/* A header with these fields, then body[body_len]; length in *len. */
static char *message(const char *magic, uint32_t version, uint32_t path_len,
		     uint32_t text_len, const char *body, size_t body_len,
		     size_t *len)
{
	char *m = malloc(NSCONF_MSG_HEADER + body_len);
	uint32_t v[3] = { htonl(version), htonl(path_len), htonl(text_len) };

	if (!m)
		exit(1);
	memcpy(m, magic, 4);
	memcpy(m + 4, v, sizeof(v));
	memcpy(m + NSCONF_MSG_HEADER, body, body_len);
	*len = NSCONF_MSG_HEADER + body_len;
	return m;
}

/* The settings as slurmd holds them. */
static struct nsconf *parsed(const char *text)
{
	struct nsconf *c = nsconf_load_text(text, PATH, "n1", NULL, fresh());

	if (!c) {
		printf("Bail out! %s\n", rep.msg);
		exit(1);
	}
	return c;
}

static void test_round_trip(void)
{
	struct nsconf *c = parsed(TEXT), *back;
	struct nsconf_msg msg;
	size_t len = 0;
	char *buf;
	int fd;

	buf = nsconf_msg_encode(c, &len, fresh());
	if (!ok(buf != NULL, "encode the settings"))
		return;
	is_int(len, NSCONF_MSG_HEADER + strlen(PATH) + strlen(TEXT),
	       "  header, path and text");
	ok(memcmp(buf, NSCONF_MSG_MAGIC, 4) == 0, "  starting with the magic");
	fd = stream(buf, len);
	ok(nsconf_msg_recv(fd, &msg, fresh()) == 0, "receive them: %s",
	   rep.msg);
	is_str(msg.path, PATH, "  the path");
	is_str(msg.text, TEXT, "  the exact text");
	back = nsconf_load_text(msg.text, msg.path, "n1", NULL, fresh());
	ok(back && back->shm_size == c->shm_size &&
	   !strcmp(back->base_path, c->base_path),
	   "  which parse to the same settings");
	nsconf_free(back);
	nsconf_msg_clear(&msg);
	ok(msg.path == NULL && msg.text == NULL, "clear empties the message");
	close(fd);
	free(buf);
	nsconf_free(c);
}

/* The largest text the parser takes goes through whole. */
static void test_largest(void)
{
	size_t n = NSCONF_MAX_SIZE, len = 0;
	struct nsconf *c = parsed(TEXT);
	struct nsconf_msg msg;
	char *buf, *text = malloc(n + 1);
	int fd;

	if (!text)
		exit(1);
	memset(text, '#', n);
	text[n] = '\0';
	free(c->text);
	c->text = text;
	buf = nsconf_msg_encode(c, &len, fresh());
	if (!ok(buf != NULL, "encode a text of NSCONF_MAX_SIZE bytes"))
		goto out;
	fd = stream(buf, len);
	ok(nsconf_msg_recv(fd, &msg, fresh()) == 0 && msg.text &&
	   strlen(msg.text) == n, "  received whole");
	nsconf_msg_clear(&msg);
	close(fd);
	free(buf);
out:
	nsconf_free(c);
}

/* A writer that sends one byte at a time: the reader waits for the rest. */
static void test_short_reads(void)
{
	struct nsconf *c = parsed(TEXT);
	struct nsconf_msg msg;
	size_t len = 0;
	char *buf = nsconf_msg_encode(c, &len, fresh());
	int fds[2];
	pid_t pid;

	if (!buf || pipe(fds) < 0)
		exit(1);
	pid = fork();
	if (pid == 0) {
		int rc = 0;

		close(fds[0]);
		nsconf_free(c);
		for (size_t i = 0; i < len && !rc; i++) {
			rc = write(fds[1], buf + i, 1) != 1;
			if (i % 8 == 0)
				usleep(1000);
		}
		free(buf);
		_exit(rc);
	}
	close(fds[1]);
	ok(nsconf_msg_recv(fds[0], &msg, fresh()) == 0 &&
	   msg.text && !strcmp(msg.text, TEXT),
	   "a message written a byte at a time is read whole: %s", rep.msg);
	nsconf_msg_clear(&msg);
	waitpid(pid, NULL, 0);
	close(fds[0]);
	free(buf);
	nsconf_free(c);
}

/* msg must be refused with errno err and a message containing why. */
static void refused(const char *m, size_t len, int err, const char *why,
		    const char *what)
{
	struct nsconf_msg msg = { (char *)1, (char *)1 };
	int fd = stream(m, len), rc;

	errno = 0;
	rc = nsconf_msg_recv(fd, &msg, fresh());
	ok(rc == -1 && errno == err, "refused: %s (errno %d)", what, errno);
	like(rep.msg, why, "  saying: %s", rep.msg);
	ok(msg.path == NULL && msg.text == NULL, "  the message left empty");
	close(fd);
}

static void test_malformed(void)
{
	char body[] = PATH TEXT;
	size_t plen = strlen(PATH), tlen = strlen(TEXT), len;
	char *m;

	refused("", 0, EPROTO, "cannot read the settings from slurmd",
		"an empty stream (slurmd sent nothing)");
	refused("DVNS\0\0", 6, EPROTO, "cannot read the settings",
		"a truncated header");

	m = message("XXXX", NSCONF_MSG_VERSION, plen, tlen, body,
		    plen + tlen, &len);
	refused(m, len, EPROTO, "no devns message", "garbage (another magic)");
	free(m);

	m = message(NSCONF_MSG_MAGIC, NSCONF_MSG_VERSION + 1, plen, tlen,
		    body, plen + tlen, &len);
	refused(m, len, EPROTO, "format version 2, expected 1",
		"another version");
	free(m);

	m = message(NSCONF_MSG_MAGIC, NSCONF_MSG_VERSION, 0, tlen, body,
		    tlen, &len);
	refused(m, len, EFBIG, "a path of 0 bytes", "an empty path");
	free(m);

	m = message(NSCONF_MSG_MAGIC, NSCONF_MSG_VERSION,
		    NSCONF_MSG_MAX_PATH + 1, tlen, body, plen + tlen, &len);
	refused(m, len, EFBIG, "a path of 4096 bytes", "an oversized path");
	free(m);

	/* Refused from the header alone: nothing that large is allocated. */
	m = message(NSCONF_MSG_MAGIC, NSCONF_MSG_VERSION, plen, 0xffffffffu,
		    body, plen + tlen, &len);
	refused(m, len, EFBIG, "a text of 4294967295 bytes", "an oversized text");
	free(m);

	m = message(NSCONF_MSG_MAGIC, NSCONF_MSG_VERSION, plen, tlen + 10,
		    body, plen + tlen, &len);
	refused(m, len, EPROTO, "cannot read the text", "a truncated text");
	free(m);

	m = message(NSCONF_MSG_MAGIC, NSCONF_MSG_VERSION, plen + 5, tlen,
		    body, 3, &len);
	refused(m, len, EPROTO, "cannot read the path", "a truncated path");
	free(m);

	body[3] = '\0';
	m = message(NSCONF_MSG_MAGIC, NSCONF_MSG_VERSION, plen, tlen, body,
		    plen + tlen, &len);
	refused(m, len, EPROTO, "a NUL byte in the path", "a NUL in the path");
	free(m);
	body[3] = 'c';

	body[plen + 2] = '\0';
	m = message(NSCONF_MSG_MAGIC, NSCONF_MSG_VERSION, plen, tlen, body,
		    plen + tlen, &len);
	refused(m, len, EPROTO, "a NUL byte in the text", "a NUL in the text");
	free(m);
}

/* Only settings parsed from a file can be sent. */
static void test_encode_refuses(void)
{
	struct nsconf *c = parsed(TEXT);
	size_t len = 0;
	char *text;

	errno = 0;
	ok(nsconf_msg_encode(NULL, &len, fresh()) == NULL && errno == EINVAL,
	   "no settings: refused");
	text = c->text;
	c->text = NULL;
	errno = 0;
	ok(nsconf_msg_encode(c, &len, fresh()) == NULL && errno == EINVAL,
	   "settings without their text: refused");
	like(rep.msg, "none were parsed from a file", "  saying so: %s",
	     rep.msg);
	c->text = text;
	nsconf_free(c);
}

/* A stepd gone before reading: the write fails, nothing is raised. */
static void test_send_fails(void)
{
	int fds[2];

	if (pipe(fds) < 0)
		exit(1);
	close(fds[0]);
	signal(SIGPIPE, SIG_IGN);	/* as in slurmd */
	errno = 0;
	ok(nsconf_msg_send(fds[1], "DVNS", 4, fresh()) == -1 && errno == EPIPE,
	   "writing to a closed pipe fails with EPIPE");
	like(rep.msg, "cannot send the settings from slurmd to slurmstepd",
	     "  saying so: %s", rep.msg);
	close(fds[1]);
}

int main(void)
{
	test_round_trip();
	test_largest();
	test_short_reads();
	test_malformed();
	test_encode_refuses();
	test_send_fails();
	return tap_done();
}
