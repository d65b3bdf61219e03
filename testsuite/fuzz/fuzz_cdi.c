/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_cdi.c - Container Device Interface specs: the JSON and YAML readers
 * (dev/cdidoc.c, dev/cdiyaml.c) and what devns takes from a spec
 * (dev/cdispec.c), through cdiset_load() on a directory of the target's
 * own that holds the input as spec.json and spec.yaml (as root; other
 * users' specs are refused before they are read, so run it as root).
 *
 * Contract: any text parses into a tree or fails with EINVAL and a
 * "NAME:LINE: ..." message, never a crash, leak, hang or stack overflow
 * (nesting is bounded); a spec either loads, every device node an
 * absolute path, or is refused.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "dev/cdidoc.h"
#include "dev/cdispec.h"
#include "fuzz.h"

/* Every node of a tree is sound: the walk visits each once. */
static void walk(const struct cdinode *n, int depth)
{
	if (depth > CDIDOC_MAX_DEPTH + 1 || n->line < 1)
		abort();
	if (n->type == CDINODE_SCALAR && !n->str)
		abort();
	for (size_t i = 0; i < n->count; i++) {
		if ((n->type == CDINODE_MAP) != (n->kids[i].key != NULL))
			abort();
		walk(&n->kids[i], depth + 1);
	}
}

static void spec_check(const struct cdiset *set)
{
	for (size_t s = 0; s < set->count; s++) {
		const struct cdispec *spec = &set->specs[s];

		for (size_t i = 0; i < spec->nshared; i++)
			if (spec->shared[i][0] != '/')
				abort();
		for (size_t d = 0; d < spec->ndevs; d++)
			for (size_t i = 0; i < spec->devs[d].count; i++)
				if (spec->devs[d].nodes[i][0] != '/')
					abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "spec.json", "spec.yaml" };
	char *parts[1], *buf, path[256];
	struct cdiset set;
	struct report rep;

	fuzz_split(data, size, parts, 1, &buf);
	for (int i = 0; i < 2; i++) {
		struct cdinode *root;

		report_init(&rep, NULL, NULL);
		root = cdidoc_parse(parts[0], names[i], &rep);
		if (root)
			walk(root, 0);
		else if (errno != EINVAL && errno != ENOMEM)
			abort();
		cdidoc_free(root);
	}
	/* one of the two at a time: a directory of both is two specs */
	fuzz_write(names[size % 2], parts[0], strlen(parts[0]), path,
		   sizeof(path));
	report_init(&rep, NULL, NULL);
	if (cdiset_load(&set, fuzz_dir(), &rep) >= 0)
		spec_check(&set);
	cdiset_free(&set);
	unlink(path);
	free(buf);
	return 0;
}
