/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slurm_compat.h - the differences between Slurm releases, in one place.
 *
 * The plugins are written against the names below; each supported API
 * generation maps them onto what its release provides.  Adding a release
 * means adding a block here (and the configure check), not copying a plugin.
 *
 * Generations (doc/slurm-releases.md):
 *   22.05           container_p_* take a job id; no allocation reaches the
 *                   plugin, so the job's GRES come from the controller.
 *   24.11.1+        container_p_stepd_create(job_id, step) gives the step
 *                   (and its job_gres_list); container_p_join takes the
 *                   step id and a step_create flag; create/add_cont/delete/
 *                   reconfig are gone; send_stepd/recv_stepd are new.
 */
#ifndef DEVNS_SLURM_COMPAT_H
#define DEVNS_SLURM_COMPAT_H

#include "slurm/slurm_version.h"

#define DEVNS_SLURM_AT_LEAST(a, b, c) \
	(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(a, b, c))

/* The same releases as configure.ac's check: 22.05 and 24.11.1 to 24.11.x. */
#if DEVNS_SLURM_AT_LEAST(24, 11, 1) && !DEVNS_SLURM_AT_LEAST(24, 12, 0)
#define DEVNS_API_24_11 1
#elif DEVNS_SLURM_AT_LEAST(22, 5, 0) && !DEVNS_SLURM_AT_LEAST(22, 6, 0)
#define DEVNS_API_22_05 1
#else
#error "this Slurm release is not supported (22.05 and 24.11.1+ are)"
#endif

/*
 * mcs: the interface header moved to src/interfaces in 23.02, and
 * details->whole_node became a bit field (WHOLE_NODE_MCS 3 -> bit 0x04).
 */
#if DEVNS_API_22_05
#define DEVNS_MCS_HEADER "src/common/slurm_mcs.h"
#define DEVNS_WHOLE_NODE_MCS(whole_node) ((whole_node) == WHOLE_NODE_MCS)
#else
#define DEVNS_MCS_HEADER "src/interfaces/mcs.h"
#define DEVNS_WHOLE_NODE_MCS(whole_node) ((whole_node) & WHOLE_NODE_MCS)
#endif

/*
 * mcs_p_check_mcs_label: every release declares (user_id, mcs_label,
 * assoc_locked), but 22.05's mcs_g_check_mcs_label calls the plugin
 * through a two-argument pointer (slurm_mcs.c), so there the third
 * argument is whatever the register holds: never read it on 22.05.
 */
#if DEVNS_API_22_05
#define DEVNS_MCS_ASSOC_LOCKED(assoc_locked) ((void)(assoc_locked), false)
#else
#define DEVNS_MCS_ASSOC_LOCKED(assoc_locked) (assoc_locked)
#endif

/*
 * Headers that moved to src/interfaces in 23.02, and the list type: 23.11
 * replaced the pointer typedef "List" by the struct typedef "list_t".
 */
#if DEVNS_API_22_05
#define DEVNS_GRES_HEADER "src/common/gres.h"
typedef struct xlist list_t;
#else
#define DEVNS_GRES_HEADER "src/interfaces/gres.h"
#endif

/* 22.05's log has no warning(); later releases print "warning: " themselves. */
#if DEVNS_API_22_05
#define devns_warning(fmt, ...) info("warning: " fmt, ##__VA_ARGS__)
#else
#define devns_warning(fmt, ...) warning(fmt, ##__VA_ARGS__)
#endif

/* SlurmdParameters=contain_spank (24.11: SPANK hooks run in a clone). */
#if DEVNS_API_24_11
#define DEVNS_CONTAIN_SPANK(flags) (((flags) & CONF_FLAG_CONTAIN_SPANK) != 0)
#else
#define DEVNS_CONTAIN_SPANK(flags) ((void)(flags), false)
#endif

#endif /* DEVNS_SLURM_COMPAT_H */
