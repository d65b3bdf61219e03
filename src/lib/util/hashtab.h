/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hashtab.h - a small hash table of pointers: key -> value.
 *
 * Written for groupcache (mcs/devgroup), which needed no more of glib than
 * this.  Chained buckets, doubled when the table holds more entries than
 * buckets, so lookups and inserts stay O(1) on average; removal during a
 * pass (hashtab_remove_if) is safe because a chain is unlinked in place and
 * nothing moves between buckets meanwhile.
 *
 * The table stores the key and value pointers it is given, never copies.  A
 * key must stay valid and unchanged while its entry is in the table; the
 * simplest way is for the key to live inside the value (a field of the
 * struct stored), which is why replacing an entry takes the new key too.
 * Values are freed with the free function given at creation when the table
 * lets go of them (replace, remove, clear, destroy).  Values are never NULL:
 * NULL is what hashtab_lookup answers for "absent".
 *
 * Not thread-safe: callers lock.  The functions that only read (lookup,
 * size) change nothing, so any number of readers may run at once under a
 * read lock.
 */
#ifndef DEVNS_HASHTAB_H
#define DEVNS_HASHTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct hashtab hashtab_t;

/* Any 64-bit digest of the key; the table scrambles it before use, so even
 * the plain value of an integer key is a good hash.  Equal keys must hash
 * alike. */
typedef uint64_t (*hashtab_hash_fn)(const void *key);

/* Whether two keys are the same key. */
typedef bool (*hashtab_equal_fn)(const void *a, const void *b);

/* Frees a value the table lets go of. */
typedef void (*hashtab_free_fn)(void *value);

/* Whether hashtab_remove_if is to remove this entry. */
typedef bool (*hashtab_pred_fn)(const void *key, void *value, void *ctx);

/*
 * A new empty table hashing keys with hash, comparing them with equal and
 * freeing values with free_value (NULL: the table frees no values; the
 * caller owns them).  NULL with errno (ENOMEM) on failure.
 */
hashtab_t *hashtab_create(hashtab_hash_fn hash, hashtab_equal_fn equal,
			  hashtab_free_fn free_value);

/* Frees every value (as hashtab_clear) and the table itself.  NULL is a
 * no-op. */
void hashtab_destroy(hashtab_t *ht);

/* The number of entries held. */
size_t hashtab_size(const hashtab_t *ht);

/* The value stored under key, or NULL when there is none.  Changes
 * nothing. */
void *hashtab_lookup(const hashtab_t *ht, const void *key);

/*
 * Stores value under key.  Where an entry with an equal key is held, its
 * value is freed (unless it is this very value) and the entry takes both
 * the new key and the new value, since the old key may have lived in the
 * old value.  Returns 0, or -1 with errno and the table unchanged (the
 * caller still owns value): EINVAL when value is NULL, ENOMEM.
 */
int hashtab_replace(hashtab_t *ht, const void *key, void *value);

/*
 * Calls pred once on every entry, in no particular order, and removes
 * (freeing its value) each entry for which it returns true.  pred must not
 * call into the table.  Returns the number of entries removed.
 */
size_t hashtab_remove_if(hashtab_t *ht, hashtab_pred_fn pred, void *ctx);

/* Removes every entry, freeing the values.  The buckets stay: a table
 * emptied to make room usually fills up again. */
void hashtab_clear(hashtab_t *ht);

/* Keys that are NUL-terminated strings: FNV-1a, and strcmp. */
uint64_t hashtab_hash_str(const void *key);
bool hashtab_equal_str(const void *a, const void *b);

#endif /* DEVNS_HASHTAB_H */
