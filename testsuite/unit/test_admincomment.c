/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_admincomment.c - unit tests of admincomment_append(): devns's entry
 * goes after what the site wrote, never over it (issue 42 item 10: the
 * plugin used to replace the comment); the caps on the entry and on the
 * total, where a cut never splits a character and never touches the old
 * text; control bytes; the same entry twice.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/admincomment.h"
#include "tap.h"

/* A string of n copies of c (free() it). */
static char *filled(size_t n, char c)
{
	char *s = malloc(n + 1);

	if (!s)
		abort();
	memset(s, c, n);
	s[n] = '\0';
	return s;
}

static void test_append(void)
{
	char *s;

	s = admincomment_append("site: check node7", "devns on node7: failed");
	is_str(s, "site: check node7; devns on node7: failed",
	       "the site's comment stays, devns's entry follows after \"; \"");
	free(s);
	s = admincomment_append(NULL, "devns on node7: failed");
	is_str(s, "devns on node7: failed", "no comment: the entry alone");
	free(s);
	s = admincomment_append("", "devns on node7: failed");
	is_str(s, "devns on node7: failed", "an empty comment: no separator");
	free(s);
	s = admincomment_append("a", "line one\nline two\t\x1b[2J");
	is_str(s, "a; line one line two  [2J",
	       "control bytes of the entry become spaces");
	free(s);
	errno = 0;
	ok(!admincomment_append("a", "") && errno == EINVAL,
	   "an empty entry: EINVAL");
}

static void test_same_twice(void)
{
	static const char *const olds[] = {
		"devns on n1: x",
		"site; devns on n1: x",
		"devns on n1: x; site",
		"site; devns on n1: x; other",
	};
	char *s;

	for (size_t i = 0; i < sizeof(olds) / sizeof(olds[0]); i++) {
		errno = 0;
		ok(!admincomment_append(olds[i], "devns on n1: x") &&
		   errno == EEXIST, "\"%s\" holds the entry: EEXIST", olds[i]);
	}
	s = admincomment_append("devns on n1: xy", "devns on n1: x");
	is_str(s, "devns on n1: xy; devns on n1: x",
	       "a longer entry that begins with it is another entry");
	free(s);
	s = admincomment_append("devns on n2: x", "devns on n1: x");
	is_str(s, "devns on n2: x; devns on n1: x",
	       "another node's entry is kept and the new one added");
	free(s);
}

static void test_entry_cap(void)
{
	char *entry = filled(ADMINCOMMENT_ENTRY_MAX + 100, 'e');
	char *s;

	s = admincomment_append("site", entry);
	ok(s && strlen(s) == 4 + 2 + ADMINCOMMENT_ENTRY_MAX &&
	   !strncmp(s, "site; eee", 9) &&
	   !strcmp(s + strlen(s) - 4, "e" ADMINCOMMENT_CUT),
	   "an entry over %d bytes is cut to them and ends with \"%s\"",
	   ADMINCOMMENT_ENTRY_MAX, ADMINCOMMENT_CUT);
	free(s);
	entry[ADMINCOMMENT_ENTRY_MAX] = '\0';
	s = admincomment_append("site", entry);
	ok(s && strlen(s) == 4 + 2 + ADMINCOMMENT_ENTRY_MAX &&
	   s[strlen(s) - 1] == 'e', "an entry of exactly %d bytes is whole",
	   ADMINCOMMENT_ENTRY_MAX);
	free(s);
	/* A two-byte character (é) across the cut: left out whole. */
	memset(entry, 'e', ADMINCOMMENT_ENTRY_MAX + 100);
	entry[ADMINCOMMENT_ENTRY_MAX - 4] = '\xc3';
	entry[ADMINCOMMENT_ENTRY_MAX - 3] = '\xa9';
	s = admincomment_append(NULL, entry);
	ok(s && strlen(s) == ADMINCOMMENT_ENTRY_MAX - 1 &&
	   !strcmp(s + strlen(s) - 4, "e" ADMINCOMMENT_CUT),
	   "a cut never splits a UTF-8 character (%zu bytes)",
	   s ? strlen(s) : 0);
	free(s);
	free(entry);
}

static void test_total_cap(void)
{
	size_t old_len = ADMINCOMMENT_MAX - 2 - 100;
	char *old = filled(old_len, 'o');
	char *entry = filled(300, 'e');
	char *s;

	s = admincomment_append(old, entry);
	ok(s && strlen(s) == ADMINCOMMENT_MAX && !strncmp(s, old, old_len) &&
	   !strcmp(s + strlen(s) - 3, ADMINCOMMENT_CUT),
	   "an entry past the total is cut to fit %d bytes, the old text whole",
	   ADMINCOMMENT_MAX);
	free(s);
	free(old);

	old_len = ADMINCOMMENT_MAX - 2 - ADMINCOMMENT_ENTRY_MIN + 1;
	old = filled(old_len, 'o');
	errno = 0;
	ok(!admincomment_append(old, entry) && errno == ENOSPC,
	   "fewer than %d bytes left: ENOSPC, nothing added",
	   ADMINCOMMENT_ENTRY_MIN);
	free(old);
	old = filled(ADMINCOMMENT_MAX * 2, 'o');
	errno = 0;
	ok(!admincomment_append(old, "x") && errno == ENOSPC,
	   "a comment already over the total: ENOSPC, never cut");
	free(old);
	free(entry);
}

/* devns's figures of a node replace their last version, nothing else. */
static void test_replace(void)
{
	char *c;

	c = admincomment_replace(NULL, "devns:n1:", "devns:n1:shm=1M");
	is_str(c, "devns:n1:shm=1M", "the first figures, in an empty comment");
	free(c);
	c = admincomment_replace("site note; devns:n1:shm=1M; devns:n2:shm=5M",
				 "devns:n1:", "devns:n1:shm=3M");
	is_str(c, "site note; devns:n2:shm=5M; devns:n1:shm=3M",
	       "n1's figures replaced, the site's note and n2's kept");
	free(c);
	c = admincomment_replace("devns:n1:shm=1M; site note", "devns:n1:",
				 "devns:n1:shm=2M");
	is_str(c, "site note; devns:n1:shm=2M", "  first in the comment too");
	free(c);
	errno = 0;
	ok(!admincomment_replace("a; devns:n1:shm=1M", "devns:n1:",
				 "devns:n1:shm=1M") && errno == EEXIST,
	   "the same figures again: EEXIST, nothing to write");
	errno = 0;
	ok(!admincomment_replace("a", "", "x") && errno == EINVAL,
	   "an empty prefix: EINVAL");
	c = admincomment_replace("devns on n1: cannot attach; devns:n1x:a",
				 "devns:n1:", "devns:n1:shm=1M");
	is_str(c, "devns on n1: cannot attach; devns:n1x:a; devns:n1:shm=1M",
	       "a failure's reason and another node's prefix stay");
	free(c);
}

int main(void)
{
	test_replace();
	test_append();
	test_same_twice();
	test_entry_cap();
	test_total_cap();
	return tap_done();
}
