/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_mcslabel.c - MCS labels (mcs/mcslabel.c): the plugin part of
 * MCSParameters as the site writes it, and the --mcs-label a user gives,
 * over a fixed group database of four groups (one whose lookup fails).
 * Input: MCSParameters' plugin part, a NUL, the label (absent: none).
 *
 * Contract: a spec is parsed or refused with errno and cfg.error, never a
 * crash, leak or hang; for a parsed one every decision is well formed: an
 * accepted job's label is a configured group's name or NULL, a refused
 * one gives one of the two reasons; mcslabel_check() answers for any
 * label.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "mcs/mcslabel.h"

static const struct { const char *name; gid_t gid; } groups[] = {
	{ "grpa", 2001 }, { "grpb", 2002 }, { "grpc", 2003 },
	{ "broken", 2004 },	/* membership lookups fail */
};
#define NGROUPS (sizeof(groups) / sizeof(*groups))

static int in_group(void *ctx, uid_t uid, gid_t gid)
{
	(void)ctx;
	if (gid == 2004 || uid == 1002) {
		errno = EIO;
		return -1;
	}
	return (uid == 1000 && (gid == 2001 || gid == 2003)) ||
	       (uid == 1001 && gid == 2002) || gid == uid;
}

static int group_gid(void *ctx, const char *text, gid_t *gid)
{
	char *end;
	unsigned long n;

	(void)ctx;
	for (size_t i = 0; i < NGROUPS; i++)
		if (!strcmp(text, groups[i].name)) {
			*gid = groups[i].gid;
			return 0;
		}
	if (!strcmp(text, "nss-down")) {
		errno = EIO;
		return -1;
	}
	errno = 0;
	n = strtoul(text, &end, 10);
	for (size_t i = 0; !errno && *text && !*end && i < NGROUPS; i++)
		if (groups[i].gid == n) {
			*gid = groups[i].gid;
			return 0;
		}
	errno = ENOENT;
	return -1;
}

static int group_name(void *ctx, gid_t gid, char **name)
{
	(void)ctx;
	for (size_t i = 0; i < NGROUPS; i++)
		if (groups[i].gid == gid)
			return (*name = strdup(groups[i].name)) ? 0 : -1;
	errno = ENOENT;
	return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const mcslabel_ops_t ops = { .user_in_group = in_group,
				     .group_gid = group_gid,
				     .group_name = group_name };
	char *parts[2], *buf;
	mcslabel_config_t cfg;
	int n = fuzz_split(data, size, parts, 2, &buf);

	if (mcslabel_config_parse(parts[0], &ops, &cfg) < 0) {
		if (!errno || (errno != ENOMEM && !cfg.error))
			abort();
		goto out;
	}
	for (uid_t uid = 1000; uid <= 1002; uid++)
		for (unsigned flags = 0; flags < 4; flags++) {
			mcslabel_request_t req = {
				.uid = uid,
				.job_gid = 2002,
				.label = n > 1 ? parts[1] : NULL,
				.enforced = flags & 1,
				.exclusive_mcs = flags & 2,
			};
			mcslabel_decision_t d;
			bool configured = false;

			if (mcslabel_choose(&cfg, &ops, &req, &d) < 0)
				abort();
			if (!d.accept) {
				if (!d.reason || (strcmp(d.reason,
					MCSLABEL_NO_LABEL_FOUND) &&
				    strcmp(d.reason, MCSLABEL_INVALID_LABEL)))
					abort();
				continue;
			}
			for (size_t i = 0; d.label && i < cfg.ngroups; i++)
				configured |= !strcmp(d.label,
						      cfg.groups[i].name);
			if (d.label && !configured)
				abort();	/* a label no site configured */
			mcslabel_check(&cfg, &ops, uid, req.label);
		}
out:
	mcslabel_config_free(&cfg);
	free(buf);
	return 0;
}
