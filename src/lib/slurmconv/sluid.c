/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sluid.c - a job's SLUID as Slurm writes it.  See sluid.h.
 */
#include <errno.h>
#include <string.h>

#include "slurmconv/sluid.h"

/* Crockford's base 32: no I, L, O or U. */
static const char digits[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

#define SLUID_DIGITS (SLUID_LEN - 1)

int sluid_format(uint64_t sluid, char *buf, size_t size)
{
	if (size)
		buf[0] = '\0';
	if (!sluid) {
		errno = EINVAL;
		return -1;
	}
	if (size < SLUID_LEN + 1) {
		errno = ENAMETOOLONG;
		return -1;
	}
	buf[0] = 's';
	/* Five bits a digit from the least significant; the last (first
	 * written) digit is left with the top four. */
	for (int i = SLUID_DIGITS; i >= 1; i--) {
		buf[i] = digits[sluid & 0x1f];
		sluid >>= 5;
	}
	buf[SLUID_LEN] = '\0';
	return 0;
}

bool sluid_is_form(const char *name, size_t len)
{
	if (len != SLUID_LEN || (name[0] != 's' && name[0] != 'S'))
		return false;
	for (size_t i = 1; i < len; i++)
		if (!name[i] || !strchr(digits, name[i]))
			return false;
	/* The top digit holds four bits only. */
	return strchr(digits, name[1]) - digits < 16;
}
