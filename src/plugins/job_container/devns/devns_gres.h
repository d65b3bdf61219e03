/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devns_gres.h - the node's GRES device files and those the job was given.
 * Lists are NULL-terminated arrays of paths, freed with devns_gres_free().
 */
#ifndef DEVNS_GRES_H
#define DEVNS_GRES_H

#include <stdint.h>

struct job_info;

/* Every GRES device file of this node (NULL when there are none). */
char **devns_gres_node_devices(void);

/*
 * The device files allocated to job_id on this node, from Slurm's own
 * records: step is the step record where the release passes one (23.02
 * on), job the job's record from slurmctld (devns_job_load) where it does
 * not (NULL: none could be had).  Returns 0, or -1 when the allocation
 * cannot be known: fail closed.
 */
int devns_gres_job_devices(uint32_t job_id, void *step,
			   const struct job_info *job, char ***paths);

/*
 * The count of GRES name allocated to job on this node, from its record
 * (devns_job_load: gres_detail_str, "tmpdisk(CNT:N)", on every release)
 * into *count (0: none).  Returns 0, or -1 (logged) when the record has
 * no entry for this node or cannot be parsed: fail closed.
 */
int devns_gres_job_count(const struct job_info *job, const char *name,
			 uint64_t *count);

void devns_gres_free(char **paths);

#endif /* DEVNS_GRES_H */
