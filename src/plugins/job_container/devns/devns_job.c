/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devns_job.c - the job's record from slurmctld, and its AdminComment.
 * See devns_job.h.
 *
 * The AdminComment is shared with the site and other plugins: devns reads
 * it and appends its entry.  Two writers at once may still lose one entry
 * (Slurm has no append).  The extern stepd asks slurmctld as root, which
 * may set it.
 */
#include <errno.h>
#include <stdlib.h>

#include "slurm_compat.h"

#include "src/common/slurm_xlator.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmd/slurmd/slurmd.h"

#include "util/admincomment.h"
#include "devns_job.h"

extern const char plugin_type[];

int devns_job_load(uint32_t job_id, struct job_info_msg **msg,
		   struct job_info **job)
{
	*msg = NULL;
	*job = NULL;
	if (DEVNS_LOAD_JOB(msg, job_id, SHOW_DETAIL) != SLURM_SUCCESS)
		return -1;
	for (uint32_t i = 0; *msg && i < (*msg)->record_count; i++)
		if ((*msg)->job_array[i].job_id == job_id)
			*job = &(*msg)->job_array[i];
	if (!*job) {
		errno = ENOENT;
		return -1;
	}
	return 0;
}

void devns_job_admin_comment(uint32_t job_id, const char *entry,
			     const char *replace)
{
	job_desc_msg_t desc;
	job_info_msg_t *msg = NULL;
	slurm_job_info_t *job;
	char *comment = NULL;

	if (devns_job_load(job_id, &msg, &job) < 0) {
		if (errno == ENOENT)
			error("%s: job %u: slurmctld returned no job record, so no AdminComment",
			      plugin_type, job_id);
		else
			error("%s: job %u: cannot read its AdminComment, so not adding devns's entry there: %m",
			      plugin_type, job_id);
		goto out;
	}
	comment = replace ? admincomment_replace(job->admin_comment, replace,
						 entry)
			  : admincomment_append(job->admin_comment, entry);
	if (!comment) {
		if (errno == ENOSPC)
			error("%s: job %u: its AdminComment is full, devns's entry is only in this log",
			      plugin_type, job_id);
		else if (errno != EEXIST)
			error("%s: job %u: cannot add devns's entry to its AdminComment: %m",
			      plugin_type, job_id);
		goto out;
	}
	slurm_init_job_desc_msg(&desc);
	DEVNS_JOB_DESC_SET_ID(&desc, job_id);
	desc.admin_comment = comment;
	if (slurm_update_job(&desc) != SLURM_SUCCESS)
		error("%s: job %u: cannot record devns's entry in its AdminComment: %m",
		      plugin_type, job_id);
out:
	free(comment);
	slurm_free_job_info_msg(msg);
}

void devns_job_note_failure(uint32_t job_id, const char *why)
{
	char *entry = NULL;

	xstrfmtcat(entry, "devns on %s: %s", conf->node_name,
		   why[0] ? why : "containment failed (see slurmd's log)");
	devns_job_admin_comment(job_id, entry, NULL);
	xfree(entry);
}
