/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gresidx.c - parse "name[:type]:count(IDX:a,b-c)" items of a GRES detail
 * string.  Items are separated by commas outside parentheses.  The set
 * functions key the indices by GRES name: indices of different names are
 * different devices even when the numbers are equal.
 *
 * The index lists are read by slurmconv/hostexpand (see parse_ranges).
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurmconv/gresidx.h"
#include "slurmconv/hostexpand.h"

static int fail(void)
{
	errno = EINVAL;
	return -1;
}

/* A decimal number up to max: digits only, no sign; *p left after it. */
static int parse_number(const char **p, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (**p < '0' || **p > '9')
		return fail();
	for (; **p >= '0' && **p <= '9'; (*p)++) {
		unsigned d = (unsigned)(**p - '0');

		if (v > (max - d) / 10)
			return fail();
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* What parse_ranges hands each number of the list. */
struct index_expand {
	const char *name;
	int (*fn)(const char *, unsigned, void *);
	void *arg;
	int rc;			/* fn's non-zero return, 0 while it goes on */
};

/* One number of an index list, as slurmconv/hostexpand wrote it. */
static int index_one(const char *num, void *arg)
{
	struct index_expand *x = arg;
	uint64_t v;

	if (parse_number(&num, GRESIDX_MAX_INDEX, &v) < 0)
		return -1;
	if ((x->rc = x->fn(x->name, (unsigned)v, x->arg)))
		return -1;
	return 0;
}

/*
 * "0,2-3)" -> indices, up to and including the closing parenthesis.  The
 * list is a hostlist bracket's inside (bit_fmt()'s form), so it is read as
 * the hostlist "[0,2-3]" by slurmconv/hostexpand, the tree's one bracket
 * expander; index_one stops it at the first index above the limit.
 */
static int parse_ranges(const char **p, const char *name,
			int (*fn)(const char *, unsigned, void *), void *arg)
{
	struct index_expand x = { name, fn, arg, 0 };
	size_t len = strcspn(*p, "[])");
	char *expr;
	int rc;

	if ((*p)[len] != ')')
		return fail();
	if (!(expr = malloc(len + 3)))
		return -1;
	snprintf(expr, len + 3, "[%.*s]", (int)len, *p);
	rc = hostexpand(expr, SIZE_MAX, index_one, &x);
	free(expr);
	if (x.rc)
		return x.rc;
	if (rc < 0)
		return fail();
	*p += len + 1;
	return 0;
}

/*
 * "gpu:b:0(IDX:)": slurmctld lists every type of a typed name, those the job
 * got none of with count 0 and an empty list.  Only a count of 0 may come
 * with an empty list.
 */
static bool empty_list_ok(const char *item, const char *paren)
{
	return paren - item >= 2 && paren[-1] == '0' && paren[-2] == ':' &&
	       paren[5] == ')';
}

/*
 * Each item of a detail string ("a,b,..."): item(&p, arg) takes one and
 * leaves p after it.  Returns 0, item's non-zero return, or -1 with errno
 * EINVAL when the items are not separated by commas.
 */
static int each_item(const char *detail,
		     int (*item)(const char **p, void *arg), void *arg)
{
	const char *p = detail;
	int rc;

	if (!p || !*p)
		return 0;
	for (;;) {
		if ((rc = item(&p, arg)))
			return rc;
		if (!*p)
			return 0;
		if (*p != ',')
			return fail();
		p++;
	}
}

/* What gresidx_parse hands each item. */
struct index_walk {
	int (*fn)(const char *, unsigned, void *);
	void *arg;
};

/* One item; *p is left after it (at ',' or the end). */
static int parse_item(const char **p, void *walk)
{
	int (*fn)(const char *, unsigned, void *) =
		((struct index_walk *)walk)->fn;
	void *arg = ((struct index_walk *)walk)->arg;
	char name[GRESIDX_MAX_NAME];
	size_t n = strcspn(*p, ":(,");
	const char *item = *p, *paren, *close;

	if (n == 0 || n >= sizeof(name))
		return fail();
	memcpy(name, *p, n);
	name[n] = '\0';
	paren = *p + strcspn(*p, "(,");
	if (*paren != '(') {		/* "gpu:0": nothing allocated */
		*p = paren;
		return 0;
	}
	if (!strncmp(paren, "(IDX:", 5)) {
		*p = paren + 5;
		if (!strncmp(*p, "N/A)", 4)) {
			*p += 4;
			return 0;
		}
		if (empty_list_ok(item, paren)) {
			*p += 1;
			return 0;
		}
		return parse_ranges(p, name, fn, arg);
	}
	/* Another kind of detail, e.g. shared counts: skip it. */
	if (!(close = strchr(paren, ')')))
		return fail();
	*p = close + 1;
	return 0;
}

int gresidx_parse(const char *detail,
		  int (*fn)(const char *name, unsigned index, void *arg),
		  void *arg)
{
	struct index_walk walk = { fn, arg };

	return each_item(detail, parse_item, &walk);
}

/*
 * One item's name and count: "name[:type](CNT:n)" or
 * "name[:type]:n(...)" or "name[:type]:n"; *p is left after it.
 */
static int count_item(const char **p, char *name, size_t size,
		      uint64_t *count)
{
	size_t n = strcspn(*p, ":(,");
	const char *end = *p + strcspn(*p, "(,"), *q, *close;

	if (n == 0 || n >= size)
		return fail();
	memcpy(name, *p, n);
	name[n] = '\0';
	*count = 0;
	if (!strncmp(end, "(CNT:", 5)) {
		q = end + 5;
		if (parse_number(&q, UINT64_MAX, count) < 0 || *q != ')')
			return fail();
		*p = q + 1;
		return 0;
	}
	/* The count is the last ":n" before the parenthesis or the end. */
	for (q = end; q > *p && q[-1] >= '0' && q[-1] <= '9'; q--)
		;
	if (q == end || q[-1] != ':' || q - 1 < *p + n)
		return fail();
	if (parse_number(&q, UINT64_MAX, count) < 0)
		return fail();
	if (*end == '(') {
		if (!(close = strchr(end, ')')))
			return fail();
		end = close + 1;
	}
	*p = end;
	return 0;
}

/* What gresidx_count sums. */
struct count_walk {
	const char *name;
	uint64_t sum;
};

/* One item: its count added when it is of the name asked for. */
static int count_one(const char **p, void *walk)
{
	struct count_walk *w = walk;
	char item[GRESIDX_MAX_NAME];
	uint64_t n;

	if (count_item(p, item, sizeof(item), &n) < 0)
		return -1;
	if (strcmp(item, w->name))
		return 0;
	if (w->sum > UINT64_MAX - n)
		return fail();
	w->sum += n;
	return 0;
}

int gresidx_count(const char *detail, const char *name, uint64_t *count)
{
	struct count_walk walk = { name, 0 };
	int rc = each_item(detail, count_one, &walk);

	*count = rc ? 0 : walk.sum;
	return rc;
}

bool gresidx_conf_names(const char *gres, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = gres; p && *p; p += strcspn(p, ","),
	     p += *p == ',') {
		if (!strncmp(p, name, len) &&
		    (p[len] == ':' || p[len] == ',' || p[len] == '(' ||
		     !p[len]))
			return true;
	}
	return false;
}

static struct gresidx_name *find_name(const struct gresidx_set *set,
				      const char *name)
{
	for (size_t i = 0; i < set->count; i++)
		if (!strcmp(set->names[i].name, name))
			return &set->names[i];
	return NULL;
}

static struct gresidx_name *add_name(struct gresidx_set *set,
				     const char *name)
{
	struct gresidx_name *names, *n;

	names = realloc(set->names, (set->count + 1) * sizeof(*names));
	if (!names)
		return NULL;
	set->names = names;
	n = &names[set->count++];
	memset(n, 0, sizeof(*n));
	/* parse_item() bounds names below GRESIDX_MAX_NAME */
	strcpy(n->name, name);
	return n;
}

/* Grow n's bitmap to hold index; new bits are clear. */
static int reserve_bit(struct gresidx_name *n, unsigned index)
{
	size_t have = (n->nbits + 7) / 8, need = index / 8 + 1;
	unsigned char *bits;

	if (index < n->nbits)
		return 0;
	if (need > have) {
		if (!(bits = realloc(n->bits, need)))
			return -1;
		memset(bits + have, 0, need - have);
		n->bits = bits;
	}
	n->nbits = index + 1;
	return 0;
}

static int set_index(const char *name, unsigned index, void *arg)
{
	struct gresidx_set *set = arg;
	struct gresidx_name *n = find_name(set, name);

	if (!n && !(n = add_name(set, name)))
		goto nomem;
	if (reserve_bit(n, index) < 0)
		goto nomem;
	n->bits[index / 8] |= 1u << (index % 8);
	return 0;
nomem:
	errno = ENOMEM;
	return -1;
}

int gresidx_set_parse(const char *detail, struct gresidx_set *set)
{
	set->names = NULL;
	set->count = 0;
	/* set_index returns -1 with ENOMEM, the parser -1 with EINVAL */
	return gresidx_parse(detail, set_index, set) ? -1 : 0;
}

bool gresidx_name_held(const struct gresidx_name *n, unsigned index)
{
	return index < n->nbits && (n->bits[index / 8] & (1u << (index % 8)));
}

void gresidx_set_free(struct gresidx_set *set)
{
	for (size_t i = 0; set->names && i < set->count; i++)
		free(set->names[i].bits);
	free(set->names);
	set->names = NULL;
	set->count = 0;
}
