/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_hashtab.c - unit tests of the small hash table behind groupcache:
 * insert, replace (the new key taken, the old value freed once), lookup,
 * removal (hashtab_remove_if, also during a pass), growth to many entries,
 * keys that all collide, string keys, and that every value is freed exactly
 * once (counted here; ASan and valgrind see the rest).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hashtab.h"
#include "tap.h"

/* ---- values that carry their own key and count their frees ------------ */

typedef struct item {
	unsigned int id;	/* the key of the integer tables */
	char name[24];		/* the key of the string tables */
	int tag;
} item_t;

static long items_freed;

static void item_free(void *value)
{
	items_freed++;
	free(value);
}

static item_t *item_new(unsigned int id, int tag)
{
	item_t *it = calloc(1, sizeof(*it));

	if (!it)
		abort();
	it->id = id;
	it->tag = tag;
	snprintf(it->name, sizeof(it->name), "name%u", id);
	return it;
}

static uint64_t id_hash(const void *key)
{
	return *(const unsigned int *)key;
}

static bool id_equal(const void *a, const void *b)
{
	return *(const unsigned int *)a == *(const unsigned int *)b;
}

/* Every key in one chain: only the equality function tells them apart. */
static uint64_t same_hash(const void *key)
{
	(void)key;
	return 42;
}

static hashtab_t *id_table(hashtab_hash_fn hash)
{
	hashtab_t *ht = hashtab_create(hash, id_equal, item_free);

	if (!ht)
		abort();
	return ht;
}

/* Stores it under its own id; 0 or -1 as hashtab_replace. */
static int put(hashtab_t *ht, item_t *it)
{
	return hashtab_replace(ht, &it->id, it);
}

static item_t *get(hashtab_t *ht, unsigned int id)
{
	return hashtab_lookup(ht, &id);
}

/* Whether key is the key ctx points to, as the table's equal says. */
static bool same_id(const void *key, void *value, void *ctx)
{
	(void)value;
	return id_equal(key, ctx);
}

/* Whether key is i * 7919 for an even i (test_growth's keys). */
static bool even_multiple(const void *key, void *value, void *ctx)
{
	(void)value;
	(void)ctx;
	return (*(const unsigned int *)key / 7919u) % 2 == 0;
}

/* Removes id's entry: 0, or -1 with ENOENT when there is none. */
static int drop(hashtab_t *ht, unsigned int id)
{
	if (hashtab_remove_if(ht, same_id, &id) == 1)
		return 0;
	errno = ENOENT;
	return -1;
}

/* ---- tests ------------------------------------------------------------- */

static void test_insert_lookup(void)
{
	hashtab_t *ht = id_table(id_hash);
	item_t *a = item_new(1, 10), *zero = item_new(0, 20);

	items_freed = 0;
	is_int(hashtab_size(ht), 0, "a new table is empty");
	ok(get(ht, 1) == NULL, "lookup in an empty table: NULL");
	is_int(put(ht, a), 0, "insert");
	is_int(hashtab_size(ht), 1, "... one entry held");
	ok(get(ht, 1) == a, "lookup finds the value stored");
	ok(get(ht, 2) == NULL, "lookup of another key: NULL");
	is_int(put(ht, zero), 0, "insert key 0");
	ok(get(ht, 0) == zero, "key 0 is a key like any other");
	is_int(hashtab_size(ht), 2, "two entries held");
	errno = 0;
	ok(hashtab_replace(ht, &a->id, NULL) == -1 && errno == EINVAL,
	   "a NULL value is EINVAL");
	ok(get(ht, 1) == a, "... and leaves the entry as it was");
	hashtab_destroy(ht);
	is_int(items_freed, 2, "destroy frees every value once");
	hashtab_destroy(NULL);
	ok(1, "destroy(NULL) is a no-op");
}

static void test_replace(void)
{
	hashtab_t *ht = id_table(id_hash);
	item_t *old = item_new(7, 1), *new = item_new(7, 2);

	items_freed = 0;
	put(ht, old);
	is_int(put(ht, new), 0, "replace an entry");
	is_int(items_freed, 1, "... frees the old value once");
	is_int(hashtab_size(ht), 1, "... and holds one entry still");
	ok(get(ht, 7) == new, "lookup finds the new value");
	/* The old key lived in the freed value: only the new key is safe to
	 * read now, which ASan and valgrind check on this lookup. */
	is_int(get(ht, 7)->tag, 2, "... through the new key");
	is_int(put(ht, new), 0, "storing the same value again");
	is_int(items_freed, 1, "... frees nothing");
	ok(get(ht, 7) == new, "... and keeps it");
	hashtab_destroy(ht);
	is_int(items_freed, 2, "destroy frees the rest");
}

static void test_remove(void)
{
	hashtab_t *ht = id_table(id_hash);
	unsigned int i;

	items_freed = 0;
	for (i = 0; i < 10; i++)
		put(ht, item_new(i, 0));
	is_int(drop(ht, 3), 0, "remove an entry");
	is_int(items_freed, 1, "... frees its value");
	ok(get(ht, 3) == NULL, "... and it is gone");
	is_int(hashtab_size(ht), 9, "... nine left");
	errno = 0;
	ok(drop(ht, 3) == -1 && errno == ENOENT, "remove it again: ENOENT");
	errno = 0;
	ok(drop(ht, 99) == -1 && errno == ENOENT,
	   "remove an absent key: ENOENT");
	is_int(items_freed, 1, "... freeing nothing");
	ok(get(ht, 2) && get(ht, 4), "the neighbours are still there");
	is_int(put(ht, item_new(3, 0)), 0, "a removed key can come back");
	ok(get(ht, 3) != NULL, "... and is found");
	hashtab_destroy(ht);
	is_int(items_freed, 11, "every value freed once in all");
}

static bool odd_and_count(const void *key, void *value, void *ctx)
{
	item_t *it = value;

	it->tag++;	/* visits of this entry */
	(*(long *)ctx)++;
	return *(const unsigned int *)key & 1;
}

static bool keep_all(const void *key, void *value, void *ctx)
{
	(void)key;
	(void)value;
	(*(long *)ctx)++;
	return false;
}

static void test_remove_if(hashtab_hash_fn hash, const char *how)
{
	hashtab_t *ht = id_table(hash);
	unsigned int i, n = 1000;
	long visits = 0;
	int once = 1, kept = 1;

	items_freed = 0;
	for (i = 0; i < n; i++)
		put(ht, item_new(i, 0));
	is_int(hashtab_remove_if(ht, odd_and_count, &visits), n / 2,
	       "%s: remove_if removes the entries picked", how);
	is_int(visits, n, "%s: ... calling pred once per entry", how);
	is_int(items_freed, n / 2, "%s: ... freeing each removed value", how);
	is_int(hashtab_size(ht), n / 2, "%s: ... the others held", how);
	for (i = 0; i < n; i++) {
		item_t *it = get(ht, i);

		if (i & 1)
			kept &= it == NULL;
		else
			once &= it && it->tag == 1;
	}
	ok(kept, "%s: no odd key is left", how);
	ok(once, "%s: every even key is there, visited once", how);
	visits = 0;
	is_int(hashtab_remove_if(ht, keep_all, &visits), 0,
	       "%s: a pred that keeps all removes nothing", how);
	is_int(visits, n / 2, "%s: ... and sees each entry left", how);
	hashtab_clear(ht);
	is_int(hashtab_size(ht), 0, "%s: clear empties the table", how);
	is_int(items_freed, n, "%s: ... freeing every value", how);
	is_int(put(ht, item_new(5, 0)), 0, "%s: a cleared table takes more",
	       how);
	ok(get(ht, 5) != NULL, "%s: ... and finds it", how);
	hashtab_destroy(ht);
}

/* Far more entries than the first buckets: every one still found. */
static void test_growth(void)
{
	hashtab_t *ht = id_table(id_hash);
	unsigned int i, n = 100000;
	int all = 1, gone = 1;

	items_freed = 0;
	for (i = 0; i < n; i++)
		all &= put(ht, item_new(i * 7919u, 0)) == 0;
	ok(all, "%u inserts succeed", n);
	is_int(hashtab_size(ht), n, "... all held");
	for (i = 0; i < n; i++) {
		item_t *it = get(ht, i * 7919u);

		all &= it && it->id == i * 7919u;
	}
	ok(all, "... each one found after the table grew");
	ok(get(ht, 1) == NULL, "... and no key that was not stored");
	/* One pass: a removal per key would scan the table n / 2 times. */
	is_int(hashtab_remove_if(ht, even_multiple, NULL), n / 2,
	       "half of them removed");
	for (i = 0; i < n; i++)
		gone &= (get(ht, i * 7919u) == NULL) == !(i & 1);
	ok(gone, "... exactly that half is gone");
	is_int(hashtab_size(ht), n / 2, "... the size follows");
	hashtab_destroy(ht);
	is_int(items_freed, n, "every value freed once");
}

/* All keys in one chain: removal in its middle keeps the rest linked. */
static void test_collisions(void)
{
	hashtab_t *ht = id_table(same_hash);
	unsigned int i;
	int all = 1;

	items_freed = 0;
	for (i = 0; i < 50; i++)
		put(ht, item_new(i, 0));
	for (i = 0; i < 50; i++)
		all &= get(ht, i) && get(ht, i)->id == i;
	ok(all, "50 colliding keys: each found by equality");
	is_int(drop(ht, 25), 0, "remove one in the middle of the chain");
	is_int(drop(ht, 0), 0, "... one at an end");
	is_int(drop(ht, 49), 0, "... and one at the other end");
	for (i = 0; i < 50; i++)
		all &= (get(ht, i) == NULL) == (i == 0 || i == 25 || i == 49);
	ok(all, "... the others all still found");
	put(ht, item_new(10, 3));
	is_int(get(ht, 10)->tag, 3, "replace inside a colliding chain");
	is_int(hashtab_size(ht), 47, "... the size is right");
	hashtab_destroy(ht);
	is_int(items_freed, 51, "every value freed once");
}

/* String keys that live in the value, as groupcache's group table. */
/* Whether key is the text ctx points to. */
static bool same_name(const void *key, void *value, void *ctx)
{
	(void)value;
	return !strcmp(key, ctx);
}

static void test_strings(void)
{
	hashtab_t *ht = hashtab_create(hashtab_hash_str, hashtab_equal_str,
				       item_free);
	item_t *a = item_new(1, 0), *b = item_new(2, 0), *a2 = item_new(1, 9);
	char probe[24];

	items_freed = 0;
	ok(ht != NULL, "string table created");
	hashtab_replace(ht, a->name, a);
	hashtab_replace(ht, b->name, b);
	snprintf(probe, sizeof(probe), "name%d", 1);
	ok(hashtab_lookup(ht, probe) == a,
	   "a string key is found from another buffer with the same text");
	ok(hashtab_lookup(ht, "name") == NULL, "a prefix is another key");
	ok(hashtab_lookup(ht, "") == NULL, "the empty string is another key");
	hashtab_replace(ht, a2->name, a2);
	ok(hashtab_lookup(ht, "name1") == a2, "replace by text");
	is_int(items_freed, 1, "... freeing the old value");
	ok(hashtab_hash_str("name1") != hashtab_hash_str("name2") &&
	   hashtab_hash_str("ab") != hashtab_hash_str("ba"),
	   "FNV-1a tells close strings apart");
	is_int(hashtab_remove_if(ht, same_name, "name2"), 1, "remove by text");
	is_int(hashtab_size(ht), 1, "... one left");
	hashtab_destroy(ht);
	is_int(items_freed, 3, "every value freed once");
}

/* Without a free function the caller keeps its values. */
static void test_no_free(void)
{
	hashtab_t *ht = hashtab_create(id_hash, id_equal, NULL);
	item_t a = { .id = 1 }, b = { .id = 1 };

	ok(ht != NULL, "table without free function created");
	is_int(hashtab_replace(ht, &a.id, &a), 0, "stack values stored");
	is_int(hashtab_replace(ht, &b.id, &b), 0, "... replaced");
	ok(hashtab_lookup(ht, &a.id) == &b, "... found");
	is_int(drop(ht, a.id), 0, "... removed, nothing freed");
	hashtab_destroy(ht);
}

int main(void)
{
	test_insert_lookup();
	test_replace();
	test_remove();
	test_remove_if(id_hash, "spread keys");
	test_remove_if(same_hash, "one chain");
	test_growth();
	test_collisions();
	test_strings();
	test_no_free();
	return tap_done();
}
