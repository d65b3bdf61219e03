/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * admincomment.c - adding devns's line to a job's AdminComment.  See
 * admincomment.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/admincomment.h"

#define SEP_LEN (sizeof(ADMINCOMMENT_SEP) - 1)
#define CUT_LEN (sizeof(ADMINCOMMENT_CUT) - 1)

/* Whether byte b continues a UTF-8 sequence (10xxxxxx). */
static bool utf8_cont(unsigned char b)
{
	return (b & 0xc0) == 0x80;
}

/*
 * The length of s cut to at most max bytes, backed up so that no UTF-8
 * sequence is split (a malformed one ends where its continuation bytes
 * do, which is as good a place as any).
 */
static size_t cut_len(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	while (max > 0 && utf8_cont((unsigned char)s[max]))
		max--;
	return max;
}

/* Whether the "; "-separated list old holds entry (len bytes) as one of
 * its entries. */
static bool holds_entry(const char *old, const char *entry, size_t len)
{
	size_t old_len = strlen(old);

	for (const char *p = old; (p = strstr(p, entry)) != NULL; p++) {
		bool starts = p == old ||
			((size_t)(p - old) >= SEP_LEN &&
			 !memcmp(p - SEP_LEN, ADMINCOMMENT_SEP, SEP_LEN));
		size_t end = (size_t)(p - old) + len;
		bool ends = end == old_len ||
			!strncmp(old + end, ADMINCOMMENT_SEP, SEP_LEN);

		if (starts && ends)
			return true;
	}
	return false;
}

char *admincomment_append(const char *old, const char *entry)
{
	size_t old_len, sep_len, room, len, keep;
	char *clean = NULL, *out = NULL;
	bool cut;

	if (!entry || !entry[0]) {
		errno = EINVAL;
		return NULL;
	}
	if (!old)
		old = "";
	old_len = strlen(old);
	sep_len = old_len ? SEP_LEN : 0;
	/* Room for the entry under the total, and under its own cap. */
	room = old_len + sep_len < ADMINCOMMENT_MAX ?
		ADMINCOMMENT_MAX - old_len - sep_len : 0;
	if (room > ADMINCOMMENT_ENTRY_MAX)
		room = ADMINCOMMENT_ENTRY_MAX;
	if (room < ADMINCOMMENT_ENTRY_MIN) {
		errno = ENOSPC;
		return NULL;
	}

	len = strlen(entry);
	cut = len > room;
	keep = cut ? cut_len(entry, len, room - CUT_LEN) : len;
	clean = malloc(keep + CUT_LEN + 1);
	if (!clean)
		return NULL;
	for (size_t i = 0; i < keep; i++) {
		unsigned char c = (unsigned char)entry[i];

		clean[i] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
	}
	memcpy(clean + keep, cut ? ADMINCOMMENT_CUT : "", cut ? CUT_LEN : 0);
	len = keep + (cut ? CUT_LEN : 0);
	clean[len] = '\0';

	if (holds_entry(old, clean, len)) {
		errno = EEXIST;
		goto error;
	}
	out = malloc(old_len + sep_len + len + 1);
	if (!out)
		goto error;
	memcpy(out, old, old_len);
	memcpy(out + old_len, ADMINCOMMENT_SEP, sep_len);
	memcpy(out + old_len + sep_len, clean, len + 1);
	free(clean);
	return out;
error:
	free(clean);
	return NULL;
}

char *admincomment_replace(const char *old, const char *prefix,
			   const char *entry)
{
	size_t plen = prefix ? strlen(prefix) : 0, used = 0;
	char *kept, *out;
	const char *p, *next;

	if (!plen || !entry || !entry[0]) {
		errno = EINVAL;
		return NULL;
	}
	if (!old)
		old = "";
	if (holds_entry(old, entry, strlen(entry))) {
		errno = EEXIST;
		return NULL;
	}
	if (!(kept = malloc(strlen(old) + 1)))
		return NULL;
	for (p = old; *p; p = next) {
		const char *sep = strstr(p, ADMINCOMMENT_SEP);
		size_t len = sep ? (size_t)(sep - p) : strlen(p);

		next = sep ? sep + SEP_LEN : p + len;
		if (len >= plen && !strncmp(p, prefix, plen))
			continue;
		if (used) {
			memcpy(kept + used, ADMINCOMMENT_SEP, SEP_LEN);
			used += SEP_LEN;
		}
		memcpy(kept + used, p, len);
		used += len;
	}
	kept[used] = '\0';
	out = admincomment_append(kept, entry);
	{
		int saved = errno;

		free(kept);
		errno = saved;
	}
	return out;
}
