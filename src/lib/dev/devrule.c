/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devrule.c - device rule lists: adding, normalising, the access a list
 * grants, the devices.list form of a rule, a path's device numbers.
 * See devrule.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "dev/devrule.h"

void devrule_list_init(struct devrule_list *list, bool default_allow)
{
	list->rules = NULL;
	list->count = 0;
	list->alloc = 0;
	list->default_allow = default_allow;
}

void devrule_list_free(struct devrule_list *list)
{
	free(list->rules);
	devrule_list_init(list, list->default_allow);
}

/* Appends one rule; pinned only for exact rules (devrule_list_pin). */
static int list_add(struct devrule_list *list, char type, uint32_t major,
		    uint32_t minor, bool any_minor, unsigned access,
		    bool pinned)
{
	struct devrule *r;

	if ((type != 'c' && type != 'b') || (access & ~DEVRULE_RWM)) {
		errno = EINVAL;
		return -1;
	}
	if (list->count == list->alloc) {
		size_t n = list->alloc ? list->alloc * 2 : 16;
		struct devrule *p = reallocarray(list->rules, n, sizeof(*p));

		if (!p)
			return -1;
		list->rules = p;
		list->alloc = n;
	}
	r = &list->rules[list->count++];
	r->type = type;
	r->major = major;
	r->minor = any_minor ? 0 : minor;
	r->any_minor = any_minor;
	r->access = access;
	r->pinned = pinned && !any_minor;
	return 0;
}

int devrule_list_add(struct devrule_list *list, char type, uint32_t major,
		     uint32_t minor, bool any_minor, unsigned access)
{
	return list_add(list, type, major, minor, any_minor, access, false);
}

int devrule_list_pin(struct devrule_list *list, char type, uint32_t major,
		     uint32_t minor, unsigned access)
{
	return list_add(list, type, major, minor, false, access, true);
}

/* Order of keys: type, major, the wildcard before exact minors, minor. */
static int key_cmp(const struct devrule *x, const struct devrule *y)
{
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	if (x->major != y->major)
		return x->major < y->major ? -1 : 1;
	if (x->any_minor != y->any_minor)
		return x->any_minor ? -1 : 1;
	if (x->minor != y->minor)
		return x->minor < y->minor ? -1 : 1;
	return 0;
}

/* key_cmp, then pinned before unpinned, so that merging meets it first. */
static int rule_cmp(const void *a, const void *b)
{
	const struct devrule *x = a, *y = b;
	int c = key_cmp(x, y);

	if (c || x->pinned == y->pinned)
		return c;
	return x->pinned ? -1 : 1;
}

void devrule_list_normalise(struct devrule_list *list)
{
	unsigned dflt = list->default_allow ? DEVRULE_RWM : 0;
	size_t i, n = 0;

	if (list->count == 0)
		return;
	qsort(list->rules, list->count, sizeof(*list->rules), rule_cmp);

	/*
	 * Merge duplicates: a device named twice gets the union, except that
	 * its pinned rules (sorted first) leave out its unpinned ones.
	 */
	for (i = 0; i < list->count; i++) {
		struct devrule *prev = n > 0 ? &list->rules[n - 1] : NULL;
		const struct devrule *r = &list->rules[i];

		if (!prev || key_cmp(prev, r) != 0)
			list->rules[n++] = *r;
		else if (prev->pinned == r->pinned)
			prev->access |= r->access;
	}
	list->count = n;

	/*
	 * Per type/major: widen unpinned exact rules by the wildcard so that
	 * "exact rule wins" equals the union, then drop what equals its
	 * fallback.  A pinned rule stays pinned only while the wildcard has a
	 * bit it lacks: otherwise pinning changes nothing, and the canonical
	 * form is unpinned.  The wildcard (sorted first) is judged last,
	 * against the default, because the exact rules have absorbed its
	 * access by then; when it goes, no exact rule of its major needs
	 * pinning any more.
	 */
	n = 0;
	for (i = 0; i < list->count;) {
		struct devrule w = list->rules[i];
		bool has_wild = w.any_minor;
		unsigned fallback = has_wild ? w.access : dflt;
		size_t j = has_wild ? i + 1 : i;
		size_t keep_wild = n;

		if (has_wild)
			list->rules[n++] = w;
		for (; j < list->count && list->rules[j].type == w.type &&
		       list->rules[j].major == w.major; j++) {
			struct devrule r = list->rules[j];

			if (r.pinned && (!has_wild || !(w.access & ~r.access)))
				r.pinned = false;
			if (!r.pinned && has_wild)
				r.access |= w.access;
			if (r.access != fallback)
				list->rules[n++] = r;
		}
		if (has_wild && w.access == dflt) {
			memmove(&list->rules[keep_wild], &list->rules[keep_wild + 1],
				(n - keep_wild - 1) * sizeof(*list->rules));
			n--;
			for (size_t k = keep_wild; k < n; k++)
				list->rules[k].pinned = false;
		}
		i = j;
	}
	list->count = n;
}

bool devrule_list_needs_filter(const struct devrule_list *list)
{
	return !(list->default_allow && list->count == 0);
}

int devrule_format(const struct devrule *rule, char *buf, size_t size)
{
	char acc[4] = "";
	size_t n = 0;

	if ((rule->type != 'c' && rule->type != 'b') ||
	    (rule->access & ~DEVRULE_RWM)) {
		errno = EINVAL;
		return -1;
	}
	if (rule->access & DEVRULE_R)
		acc[n++] = 'r';
	if (rule->access & DEVRULE_W)
		acc[n++] = 'w';
	if (rule->access & DEVRULE_M)
		acc[n++] = 'm';
	acc[n] = '\0';
	if (rule->any_minor)
		return snprintf(buf, size, "%c %u:* %s", rule->type,
				rule->major, n ? acc : "-");
	return snprintf(buf, size, "%c %u:%u %s", rule->type, rule->major,
			rule->minor, n ? acc : "-");
}

int devrule_resolve_path(const char *path, char *type, uint32_t *major,
			 uint32_t *minor, char *why, size_t whysize)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		snprintf(why, whysize, "cannot stat %s: %s", path,
			 strerror(errno));
		return -1;
	}
	if (S_ISCHR(st.st_mode))
		*type = 'c';
	else if (S_ISBLK(st.st_mode))
		*type = 'b';
	else {
		snprintf(why, whysize, "%s is not a device node", path);
		return -1;
	}
	*major = major(st.st_rdev);
	*minor = minor(st.st_rdev);
	return 1;
}
