/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gresidx.h - read the device indices out of Slurm's GRES detail string.
 *
 * slurmctld reports a job's GRES allocation on one node as a string such as
 * "gpu:tesla:2(IDX:0,2-3),nic:1(IDX:0),mps:100(0/100,0/100)": for each GRES
 * name the indices of the node's devices of that name the job holds.  An
 * index counts the devices of its own name only (across that name's types):
 * "nic:1(IDX:0)" is the node's first nic, never its first GPU.  Slurm 22.05
 * hands the job_container plugin no allocation, so the plugin asks the
 * controller for this string and maps each name's indices onto the devices
 * of that name.
 *
 * Slurm 22.05 to 26.11: the job's gres_detail_str as slurmctld writes it
 * (src/slurmctld/gres_ctld.c, gres_ctld_job_build_details():
 * "%s:%"PRIu64"(IDX:%s)", the list in bit_fmt()'s form, and the "(CNT:)"
 * of a count GRES), read by job_container/devns's devns_gres.c.  A release
 * that changes it changes this file and src/plugins/slurm_compat.h,
 * nowhere else.
 */
#ifndef DEVNS_GRESIDX_H
#define DEVNS_GRESIDX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GRESIDX_MAX_NAME 64
/* Indices above this are refused as malformed; a bitmap of LIMIT bits holds all. */
#define GRESIDX_MAX_INDEX 65535
#define GRESIDX_INDEX_LIMIT (GRESIDX_MAX_INDEX + 1)

/*
 * Call fn(name, index, arg) for every device index in detail; a GRES without
 * an IDX list (count-only, shared) names no device.  Stops and returns fn's
 * value when it is non-zero.  Returns 0, or -1 with errno EINVAL when the
 * string is malformed (the caller must then refuse the job: fail closed).
 */
int gresidx_parse(const char *detail,
		  int (*fn)(const char *name, unsigned index, void *arg),
		  void *arg);

/*
 * The count of GRES name the detail string gives one node, all its types
 * summed, into *count (0: none): "tmpdisk(CNT:1048576)" (a count GRES,
 * which has no devices), "tmpdisk:ssd(CNT:5)", or the count before an
 * index list ("gpu:2(IDX:0-1)").  Slurm writes counts in units, e.g.
 * bytes for a GRES whose gres.conf Count had a K/M/G suffix.  Returns 0,
 * or -1 with errno EINVAL when the string is malformed or a sum would
 * overflow (the caller must then refuse the job: fail closed).
 */
int gresidx_count(const char *detail, const char *name, uint64_t *count);

/*
 * Whether a node's slurm.conf Gres= value ("gpu:a:2,nic:2,tmpdisk:800G")
 * names GRES name (case-sensitive, as Slurm).  gres NULL: none.  Pure.
 */
bool gresidx_conf_names(const char *gres, const char *name);

/* The device indices one GRES name holds, all its types merged. */
struct gresidx_name {
	char name[GRESIDX_MAX_NAME];
	unsigned char *bits;	/* bit i set: index i is held */
	unsigned nbits;		/* highest held index + 1 */
};

/* Every GRES name of a detail string that holds device indices. */
struct gresidx_set {
	struct gresidx_name *names;
	size_t count;
};

/*
 * Parse detail into set, one entry per GRES name that holds at least one
 * device index ("gpu:a:1(IDX:0),gpu:b:1(IDX:2)" gives one entry, gpu {0,2}).
 * set is overwritten; release it with gresidx_set_free() whatever the
 * result.  Returns 0, or -1 with errno EINVAL (malformed) or ENOMEM.
 */
int gresidx_set_parse(const char *detail, struct gresidx_set *set);

/* Whether n holds device index (bit index of n->bits). */
bool gresidx_name_held(const struct gresidx_name *n, unsigned index);

void gresidx_set_free(struct gresidx_set *set);

#endif /* DEVNS_GRESIDX_H */
