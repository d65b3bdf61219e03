/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * confread.c - logical lines and Key=Value pairs of Slurm-syntax
 * configuration files.  See confread.h.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slurmconv/confread.h"

void confread_init(struct confread *r, const char *text)
{
	memset(r, 0, sizeof(*r));
	r->next = text;
}

void confread_free(struct confread *r)
{
	free(r->buf);
	free(r->lines);
	r->buf = NULL;
	r->lines = NULL;
	r->len = r->cap = 0;
}

static int reader_append(struct confread *r, char c, int line)
{
	if (r->len == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 256;
		char *buf = realloc(r->buf, cap);
		int *lines;

		if (!buf)
			return -1;
		r->buf = buf;
		if (!(lines = realloc(r->lines, cap * sizeof(*lines))))
			return -1;
		r->lines = lines;
		r->cap = cap;
	}
	r->buf[r->len] = c;
	r->lines[r->len] = line;
	r->len++;
	return 0;
}

/*
 * Check the byte at s of the physical line that starts at line: only a
 * tab outside quotes and the carriage return of a CRLF line end are
 * allowed among the control bytes.  Returns 0, or -1 with errno = EINVAL
 * and the byte recorded in r.
 */
static int reader_byte_check(struct confread *r, const char *line,
			     const char *s, bool quoted)
{
	unsigned char c = (unsigned char)*s;

	if (c >= 0x20 && c != 0x7f)
		return 0;
	if (c == '\t' && !quoted)
		return 0;
	if (c == '\r' && (s[1] == '\n' || s[1] == '\0'))
		return 0;
	r->bad_byte = c;
	r->bad_column = (int)(s - line) + 1;
	errno = EINVAL;
	return -1;
}

/*
 * Append the physical line at r->next to the logical line, without its
 * comment (a '#' outside quotes) and trailing white space.  Returns 1 when
 * it ends with a '\' continuation (removed), 0 when not, -1 on ENOMEM or,
 * with errno = EINVAL, on a control byte anywhere in the line.
 */
static int reader_physical(struct confread *r, bool *in_quote)
{
	const char *s = r->next;
	size_t start = r->len;

	r->line++;
	for (; *s && *s != '\n'; s++) {
		if (reader_byte_check(r, r->next, s, *in_quote) < 0)
			return -1;
		if (*s == '"')
			*in_quote = !*in_quote;
		else if (*s == '#' && !*in_quote)
			break;
		if (reader_append(r, *s, r->line) < 0)
			return -1;
	}
	for (; *s && *s != '\n'; s++) { /* the comment */
		if (reader_byte_check(r, r->next, s, false) < 0)
			return -1;
	}
	r->next = *s ? s + 1 : s;
	while (r->len > start && isspace((unsigned char)r->buf[r->len - 1]))
		r->len--;
	if (r->len > start && r->buf[r->len - 1] == '\\') {
		r->len--;
		return 1;
	}
	return 0;
}

int confread_line(struct confread *r)
{
	bool in_quote = false;
	int more;

	if (!*r->next)
		return 0;
	r->len = 0;
	do {
		if ((more = reader_physical(r, &in_quote)) < 0)
			return -1;
	} while (more && *r->next);
	if (reader_append(r, '\0', r->line) < 0)
		return -1;
	r->cursor = r->buf;
	return 1;
}

/* Reports a malformed pair into err.  Returns -1 with errno = EINVAL. */
__attribute__((format(printf, 3, 4)))
static int pair_error(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	errno = EINVAL;
	return -1;
}

int confread_pair(struct confread *r, struct confpair *p, char *err,
		  size_t len)
{
	char *c = r->cursor, *q;

	p->key = p->value = NULL;
	p->line = r->line;
	if (!c)
		return 0;
	while (isspace((unsigned char)*c))
		c++;
	if (!*c)
		return 0;
	p->line = r->lines[c - r->buf];
	p->key = c;
	c += strcspn(c, "=\" \t\r\n\v\f");
	/* Slurm's parser reads Include lines of its files; this one does not */
	if (*c != '=' && c - p->key == 7 && !strncasecmp(p->key, "Include", 7))
		return pair_error(err, len, "expected Key=Value, got \"%.*s\" "
				  "(Include lines are not read: put the "
				  "included file's lines in this file)",
				  7, p->key);
	if (*c != '=')
		return pair_error(err, len, "expected Key=Value, got \"%.*s\"",
				  (int)strcspn(p->key, " \t\r\n\v\f"), p->key);
	if (c == p->key)
		return pair_error(err, len, "missing key before \"%.*s\"",
				  (int)strcspn(c, " \t\r\n\v\f"), c);
	*c++ = '\0';
	if (*c == '"') {
		p->value = ++c;
		if (!(q = strchr(c, '"')))
			return pair_error(err, len, "%s: unterminated quote",
					  p->key);
		*q = '\0';
		c = q + 1;
		if (*c && !isspace((unsigned char)*c))
			return pair_error(err, len,
					  "%s: text after the closing quote",
					  p->key);
	} else {
		p->value = c;
		c += strcspn(c, "\" \t\r\n\v\f");
		if (*c == '"')
			return pair_error(err, len,
					  "%s: unexpected quote in value",
					  p->key);
	}
	if (*c)
		*c++ = '\0';
	r->cursor = c;
	return 1;
}

char *confread_fd(int fd, const char *path, size_t max, struct report *rep)
{
	struct stat st;
	char *text = NULL;
	ssize_t n = 0;
	size_t len = 0, cap;
	int saved;

	if (fstat(fd, &st) < 0)
		goto error;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		report_error(rep, "%s: not a regular file", path);
		goto out;
	}
	if ((size_t)st.st_size > max)
		goto too_big;
	/*
	 * Room for the size fstat() saw and a page more, not max: most
	 * files are small, and max is many MiB.  Read to EOF, not st_size:
	 * the file may change meanwhile, so the buffer grows, to max + 1
	 * at most (one byte over tells a file that grew too large).
	 */
	cap = max + 1;
	if ((size_t)st.st_size + 4096 < cap)
		cap = (size_t)st.st_size + 4096;
	if (!(text = malloc(cap)))
		goto error;
	for (;;) {
		if (len == cap) {
			char *grown;

			if (cap == max + 1)
				break;
			cap = cap > (max + 1) / 2 ? max + 1 : cap * 2;
			if (!(grown = realloc(text, cap)))
				goto error;
			text = grown;
		}
		if ((n = read(fd, text + len, cap - len)) <= 0)
			break;
		len += (size_t)n;
	}
	if (n < 0)
		goto error;
	if (len > max)
		goto too_big;
	text[len] = '\0';
	if (strlen(text) != len) {
		errno = EINVAL;
		report_error(rep, "%s: contains a NUL byte", path);
		goto out;
	}
	return text;
too_big:
	errno = EFBIG;
	report_error(rep, "%s: larger than %zu bytes", path, max);
	goto out;
error:
	report_error(rep, "%s: cannot read: %s", path, strerror(errno));
out:
	saved = errno;
	free(text);
	errno = saved;
	return NULL;
}

char *confread_file(const char *path, size_t max, struct report *rep)
{
	char *text;
	int fd, saved;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		report_error(rep, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	text = confread_fd(fd, path, max, rep);
	saved = errno;
	close(fd);
	errno = saved;
	return text;
}
