/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hashtab.c - a small hash table of pointers.  See hashtab.h.
 *
 * Each bucket is a singly linked chain of nodes; a node keeps its key's hash
 * so that growing never calls the hash function again and a chain walk
 * compares keys only when the hashes match.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/hashtab.h"

/* The first bucket array holds 2^MIN_BITS chains; it only ever doubles. */
#define MIN_BITS 4

/* 2^64 divided by the golden ratio: multiplying by it spreads any hash,
 * integer keys 0, 1, 2... included, over the top bits (Fibonacci hashing). */
#define GOLDEN 0x9e3779b97f4a7c15ULL

typedef struct hashtab_node {
	struct hashtab_node *next;
	uint64_t hash;
	const void *key;
	void *value;
} hashtab_node_t;

struct hashtab {
	hashtab_node_t **buckets;	/* 2^bits chains */
	unsigned int bits;
	size_t size;			/* entries held */
	hashtab_hash_fn hash;
	hashtab_equal_fn equal;
	hashtab_free_fn free_value;
};

static size_t nbuckets(const hashtab_t *ht)
{
	return (size_t)1 << ht->bits;
}

static size_t bucket_of(uint64_t hash, unsigned int bits)
{
	return (size_t)((hash * GOLDEN) >> (64 - bits));
}

hashtab_t *hashtab_create(hashtab_hash_fn hash, hashtab_equal_fn equal,
			  hashtab_free_fn free_value)
{
	hashtab_t *ht = calloc(1, sizeof(*ht));

	if (!ht)
		goto error;
	ht->bits = MIN_BITS;
	ht->buckets = calloc(nbuckets(ht), sizeof(*ht->buckets));
	if (!ht->buckets)
		goto error;
	ht->hash = hash;
	ht->equal = equal;
	ht->free_value = free_value;
	return ht;

error:
	free(ht);
	errno = ENOMEM;
	return NULL;
}

void hashtab_destroy(hashtab_t *ht)
{
	if (!ht)
		return;
	hashtab_clear(ht);
	free(ht->buckets);
	free(ht);
}

size_t hashtab_size(const hashtab_t *ht)
{
	return ht->size;
}

/*
 * The link that points at key's node: a bucket head or a node's next.
 * Where key is absent, the link at the end of its chain (*link == NULL),
 * which is where a new node goes.
 */
static hashtab_node_t **find_link(const hashtab_t *ht, const void *key,
				  uint64_t hash)
{
	hashtab_node_t **link = &ht->buckets[bucket_of(hash, ht->bits)];

	for (; *link; link = &(*link)->next)
		if ((*link)->hash == hash && ht->equal((*link)->key, key))
			break;
	return link;
}

void *hashtab_lookup(const hashtab_t *ht, const void *key)
{
	hashtab_node_t *node = *find_link(ht, key, ht->hash(key));

	return node ? node->value : NULL;
}

static void free_node(hashtab_t *ht, hashtab_node_t *node)
{
	if (ht->free_value)
		ht->free_value(node->value);
	free(node);
}

/*
 * Doubles the bucket array once there are more entries than buckets, so
 * that chains stay short.  Best effort: without memory for a larger array
 * the table keeps working, only with longer chains.
 */
static void grow(hashtab_t *ht)
{
	unsigned int bits = ht->bits + 1;
	hashtab_node_t **buckets, *node, *next;
	size_t i;

	/* The second test keeps 1 << bits within size_t. */
	if (ht->size <= nbuckets(ht) || bits >= 8 * sizeof(size_t))
		return;
	buckets = calloc((size_t)1 << bits, sizeof(*buckets));
	if (!buckets)
		return;
	for (i = 0; i < nbuckets(ht); i++) {
		for (node = ht->buckets[i]; node; node = next) {
			size_t b = bucket_of(node->hash, bits);

			next = node->next;
			node->next = buckets[b];
			buckets[b] = node;
		}
	}
	free(ht->buckets);
	ht->buckets = buckets;
	ht->bits = bits;
}

int hashtab_replace(hashtab_t *ht, const void *key, void *value)
{
	uint64_t hash = ht->hash(key);
	hashtab_node_t **link, *node;

	if (!value) {
		errno = EINVAL;
		return -1;
	}
	link = find_link(ht, key, hash);
	if ((node = *link)) {
		if (node->value != value && ht->free_value)
			ht->free_value(node->value);
		node->key = key;
		node->value = value;
		return 0;
	}
	if (!(node = malloc(sizeof(*node))))
		return -1;
	*node = (hashtab_node_t){ .hash = hash, .key = key, .value = value };
	*link = node;
	ht->size++;
	grow(ht);
	return 0;
}

size_t hashtab_remove_if(hashtab_t *ht, hashtab_pred_fn pred, void *ctx)
{
	hashtab_node_t **link, *node;
	size_t i, removed = 0;

	for (i = 0; i < nbuckets(ht); i++) {
		link = &ht->buckets[i];
		while ((node = *link)) {
			if (!pred(node->key, node->value, ctx)) {
				link = &node->next;
				continue;
			}
			*link = node->next;
			ht->size--;
			free_node(ht, node);
			removed++;
		}
	}
	return removed;
}

static bool every_entry(const void *key, void *value, void *ctx)
{
	(void)key;
	(void)value;
	(void)ctx;
	return true;
}

void hashtab_clear(hashtab_t *ht)
{
	hashtab_remove_if(ht, every_entry, NULL);
}

uint64_t hashtab_hash_str(const void *key)
{
	const unsigned char *s = key;
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a's offset basis */

	while (*s) {
		h ^= *s++;
		h *= 0x100000001b3ULL;		/* FNV-1a's prime */
	}
	return h;
}

bool hashtab_equal_str(const void *a, const void *b)
{
	return strcmp(a, b) == 0;
}
