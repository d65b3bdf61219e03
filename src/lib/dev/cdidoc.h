/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cdidoc.h - the text of a Container Device Interface spec (a JSON or
 * YAML file in /etc/cdi) into a small tree of mappings, sequences and
 * strings, each node with the line it starts on, so that cdispec.c can
 * say "FILE:LINE" about any value.
 *
 * JSON is read whole (RFC 8259; numbers, true, false and null are kept as
 * their text).  YAML is read as far as the specs that tools such as
 * nvidia-ctk write it: block mappings and sequences (a sequence may sit at
 * its key's indent), "- " items, plain, single- and double-quoted scalars,
 * the empty flow collections [] and {}, comments, a leading "---".
 * Anything else (anchors, tags, flow collections with content, block
 * scalars, tabs in indentation) is an error naming its line, rather than a
 * guess: the tree decides which devices a job gets.  The same YAML reader
 * reads Slurm's namespace.yaml for "devns import" (conf/nsimport.h).
 */
#ifndef DEVNS_CDIDOC_H
#define DEVNS_CDIDOC_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/report.h"

enum cdinode_type {
	CDINODE_SCALAR,	/* str: a string, number, true/false as written */
	CDINODE_NULL,	/* null, ~, or a key with no value */
	CDINODE_MAP,	/* kids, each with its key */
	CDINODE_SEQ,	/* kids, key NULL */
};

struct cdinode {
	enum cdinode_type type;
	int line;		/* where the value starts, from 1 */
	char *key;		/* its key in the parent mapping, NULL: none */
	char *str;		/* CDINODE_SCALAR's text */
	struct cdinode *kids;
	size_t count;
	size_t alloc;
};

/* Deepest nesting accepted: a spec needs a handful of levels. */
#define CDIDOC_MAX_DEPTH 32

/*
 * Parses text as JSON (name ends in ".json") or as the YAML above (any
 * other name).  name is the file in messages: "NAME:LINE: what is
 * wrong".  Returns a tree to free with cdidoc_free(), or NULL with errno
 * (EINVAL after an error was reported, ENOMEM).
 */
struct cdinode *cdidoc_parse(const char *text, const char *name,
			     struct report *rep);

/* The YAML reader behind cdidoc_parse() (cdiyaml.c); same contract. */
struct cdinode *cdidoc_parse_yaml(const char *text, const char *name,
				  struct report *rep);

/* The member called key of a mapping, NULL: none (or not a mapping). */
const struct cdinode *cdidoc_get(const struct cdinode *map, const char *key);

/*
 * Appends an empty child of the given type and line to a mapping or
 * sequence (key copied, NULL in a sequence).  Returns it, or NULL (ENOMEM).
 * For the readers.
 */
struct cdinode *cdidoc_add(struct cdinode *parent, enum cdinode_type type,
			   const char *key, int line);

/*
 * The double-quoted string at *s (on its opening quote) unescaped as JSON
 * does (YAML's double quotes take the same escapes), *s moved past its
 * closing quote.  Returns it to free(), or NULL: *why says what is wrong
 * (errno EINVAL), or is NULL (ENOMEM).  For the readers.
 */
char *cdidoc_quoted(const char **s, const char **why);

/*
 * Reports "NAME:LINE: message" unless *failed (only a reader's first
 * error is worth reading), sets *failed and errno EINVAL.  Returns -1.
 * For the readers.
 */
int cdidoc_vfail(struct report *rep, const char *name, int line,
		 bool *failed, const char *fmt, va_list ap)
	__attribute__((format(printf, 5, 0)));

/* Releases a tree (NULL: nothing). */
void cdidoc_free(struct cdinode *node);

#endif /* DEVNS_CDIDOC_H */
