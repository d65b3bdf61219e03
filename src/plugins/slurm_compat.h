/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slurm_compat.h - the differences between Slurm releases, in one place.
 *
 * The plugins are written against the names below; each supported API
 * generation maps them onto what its release provides.  Adding a release
 * means adding a block here (and the configure check), not copying a plugin.
 * Slurm's runtime conventions that the Slurm-free libraries re-implement
 * (stepd socket names, SLUID and cgroup names, plugstack.conf, hostlists,
 * IDX: strings, slurm.conf and gres.conf syntax) are src/lib/slurmconv's,
 * one file each: a release that changes one changes that file and this
 * header, nowhere else.
 *
 * Generations (DEVNS_API, one per Slurm major.minor; configure.ac's list):
 *   2205  22.05     container_p_* take a job id; no allocation reaches the
 *                   plugin, so the job's GRES come from the controller.
 *   2302  23.02     container_p_stepd_create(job_id, step) gives the step
 *                   (and its job_gres_list); send_stepd/recv_stepd are new;
 *                   headers moved to src/interfaces.
 *   2311  23.11     as 23.02 for the plugins, but slurmd starts a new
 *                   slurmd on reconfigure: container_p_reconfig is never
 *                   called (a broken file stops the new slurmd, the old
 *                   one resumes).
 *   2405  24.05     create/add_cont/delete/reconfig are gone;
 *                   SlurmdParameters=contain_spank is new; whole_node
 *                   is a bit field.
 *   2411  24.11.1+  container_p_join takes the step id and a step_create
 *                   flag (24.11.0 still took the job id: refused).
 *   2505  25.05     as 24.11 for the plugins.
 *   2511  25.11     the interface is renamed namespace: namespace_p_*,
 *                   namespace_devns.so, plugin_type "namespace/devns";
 *                   stepd_create(step), stepd_delete(step_id),
 *                   join_external(step_id, fd list); can_bpf and
 *                   setup_bpf_token are new; DebugFlags bit JobContainer is
 *                   named Namespace.
 *   2605  26.05     namespace_p_stepd_delete takes the step record.
 *   2611  26.11     (a development tree: 26.11.0-0rc1) namespace_p_join_external's
 *                   list owns its entries: slurmstepd closes each fd
 *                   and xfree()s each entry.
 */
#ifndef DEVNS_SLURM_COMPAT_H
#define DEVNS_SLURM_COMPAT_H

#include "slurm/slurm_version.h"

#define DEVNS_SLURM_AT_LEAST(a, b, c) \
	(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(a, b, c))
/* The tree is release a.b (any micro). */
#define DEVNS_SLURM_IS(a, b) \
	(DEVNS_SLURM_AT_LEAST(a, b, 0) && !DEVNS_SLURM_AT_LEAST(a, (b) + 1, 0))

/* The same releases as configure.ac's check. */
#if DEVNS_SLURM_IS(22, 5)
#define DEVNS_API 2205
#elif DEVNS_SLURM_IS(23, 2)
#define DEVNS_API 2302
#elif DEVNS_SLURM_IS(23, 11)
#define DEVNS_API 2311
#elif DEVNS_SLURM_IS(24, 5)
#define DEVNS_API 2405
#elif DEVNS_SLURM_IS(24, 11) && DEVNS_SLURM_AT_LEAST(24, 11, 1)
#define DEVNS_API 2411
#elif DEVNS_SLURM_IS(25, 5)
#define DEVNS_API 2505
#elif DEVNS_SLURM_IS(25, 11)
#define DEVNS_API 2511
#elif DEVNS_SLURM_IS(26, 5)
#define DEVNS_API 2605
#elif DEVNS_SLURM_IS(26, 11)
#define DEVNS_API 2611
#else
#error "this Slurm release is not supported (22.05, 23.02, 23.11, 24.05, 24.11.1+, 25.05, 25.11, 26.05 and 26.11 are)"
#endif

/* ==== 23.02 =============================================================
 * - mcs, gres: the interface headers moved to src/interfaces.
 * - mcs_p_check_mcs_label: every release declares (user_id, mcs_label,
 *   assoc_locked), but 22.05's mcs_g_check_mcs_label calls the plugin
 *   through a two-argument pointer (slurm_mcs.c), so there the third
 *   argument is whatever the register holds: never read it on 22.05.
 * - list.h has the struct typedef list_t beside the pointer typedef List.
 * - log.h has warning(); 22.05's log has none.
 * - job_container: container_p_stepd_create(job_id, step) passes the step
 *   record, whose job_gres_list is the job's allocation on the node
 *   (DEVNS_JC_STEP_RECORD); slurmd hands each new slurmstepd its plugins'
 *   configuration (container_p_send_stepd/recv_stepd, DEVNS_JC_SEND_RECV):
 *   devns's stepd parses the text slurmd parsed, never the file.  With
 *   the step record the PID namespace's init goes to the step's process
 *   tracking (proctrack_g_add, as namespace/linux does with its own).
 * - slurmd's conf: the node's memory is its configured RealMemory,
 *   conf_memory_size (22.05: real_memory_size, the measured one), MB
 *   (DEVNS_NODE_MEMORY_MB).
 */
#if DEVNS_API >= 2302
#define DEVNS_NODE_MEMORY_MB(c) ((c)->conf_memory_size)
#define DEVNS_MCS_HEADER "src/interfaces/mcs.h"
#define DEVNS_MCS_ASSOC_LOCKED(assoc_locked) (assoc_locked)
#define DEVNS_GRES_HEADER "src/interfaces/gres.h"
#define DEVNS_PROCTRACK_HEADER "src/interfaces/proctrack.h"
#define devns_warning(fmt, ...) warning(fmt, ##__VA_ARGS__)
#define DEVNS_JC_STEP_RECORD 1
#define DEVNS_JC_SEND_RECV 1
#else	/* 22.05 */
#define DEVNS_NODE_MEMORY_MB(c) ((c)->real_memory_size)
#define DEVNS_MCS_HEADER "src/common/slurm_mcs.h"
#define DEVNS_MCS_ASSOC_LOCKED(assoc_locked) ((void)(assoc_locked), false)
#define DEVNS_GRES_HEADER "src/common/gres.h"
typedef struct xlist list_t;
#define devns_warning(fmt, ...) info("warning: " fmt, ##__VA_ARGS__)
#define DEVNS_JC_STEP_RECORD 0
#define DEVNS_JC_SEND_RECV 0
#endif

/* ==== 24.05 =============================================================
 * - job_container: container_p_create, _add_cont, _delete and _reconfig
 *   are gone (DEVNS_JC_JOB_CALLS: slurmd's per-job calls); the extern
 *   step's stepd_delete is the only teardown, and reconfigure restarts
 *   slurmd (from 23.11 already).
 * - SlurmdParameters=contain_spank: SPANK hooks run in a clone.
 * - mcs: details->whole_node became a bit field (WHOLE_NODE_MCS, the
 *   value 3 up to 23.11, is the bit 0x04; mcs/group follows).
 */
#if DEVNS_API >= 2405
#define DEVNS_JC_JOB_CALLS 0
#define DEVNS_CONTAIN_SPANK(flags) (((flags) & CONF_FLAG_CONTAIN_SPANK) != 0)
#define DEVNS_WHOLE_NODE_MCS(whole_node) (((whole_node) & WHOLE_NODE_MCS) != 0)
#else
#define DEVNS_JC_JOB_CALLS 1
#define DEVNS_CONTAIN_SPANK(flags) ((void)(flags), false)
#define DEVNS_WHOLE_NODE_MCS(whole_node) ((whole_node) == WHOLE_NODE_MCS)
#endif

/* ==== 24.11.1 ===========================================================
 * - job_container: container_p_join(step_id, uid, step_create): slurmd
 *   also calls it (step_create) in the fork that becomes a new slurmstepd
 *   (DEVNS_JC_JOIN_STEP_ID).  24.11.0 still passed the job id: refused.
 */
#if DEVNS_API >= 2411
#define DEVNS_JC_JOIN_STEP_ID 1
#else
#define DEVNS_JC_JOIN_STEP_ID 0
#endif

/* ==== 24.11 =============================================================
 * - switch/nvidia_imex makes a job's IMEX channel in the mount namespace
 *   switch_g_fs_init(step) is called in (from 25.11 one it unshares
 *   first), which Slurm's namespace plugins call in the job's new
 *   namespace (DEVNS_SWITCH_FS_INIT; ns/nsimex.h).
 */
#if DEVNS_API >= 2411
#define DEVNS_SWITCH_FS_INIT 1
#define DEVNS_SWITCH_HEADER "src/interfaces/switch.h"
#else
#define DEVNS_SWITCH_FS_INIT 0
#endif

/* ==== 25.11 =============================================================
 * - job_container is renamed namespace (src/interfaces/namespace.c): the
 *   plugin is namespace_devns.so (Makemodule.am), plugin_type
 *   "namespace/devns" (DEVNS_JC_TYPE), entry points namespace_p_*
 *   (DEVNS_JC(name)); JobContainerType=job_container/devns loads it too.
 * - namespace_p_stepd_create(step): the job id is the step's;
 *   namespace_p_stepd_delete(step_id); namespace_p_join_external(step_id,
 *   fd_map) fills a list of {CLONE_NEW*, fd} (ns_fd_map_t) and returns its
 *   length; namespace_p_can_bpf and namespace_p_setup_bpf_token are new
 *   (all DEVNS_JC_NAMESPACE).
 * - DEBUG_FLAG_JOB_CONT is DEBUG_FLAG_NAMESPACE (same bit, DebugFlags=
 *   JobContainer still accepted): devns_log_flag().
 * - slurm_step_id_t carries the job's SLUID (DEVNS_STEP_SLUID), which
 *   26.05's cgroup/v2 names the job's cgroup after; 0 where Slurm has none
 *   to give (slurmd's join for a new stepd).
 * - job_desc_msg_t names its job by step_id, not job_id
 *   (DEVNS_JOB_DESC_SET_ID).
 */
#if DEVNS_API >= 2511
#define DEVNS_JC_NAMESPACE 1
#define DEVNS_JC(name) namespace_p_##name
#define DEVNS_JC_INTERFACE "namespace"
#define devns_log_flag(fmt, ...) log_flag(NAMESPACE, fmt, ##__VA_ARGS__)
#define DEVNS_STEP_SLUID(step_id) ((uint64_t)(step_id)->sluid)
#define DEVNS_JOB_DESC_SET_ID(desc, id) ((desc)->step_id.job_id = (id))
#else
#define DEVNS_JC_NAMESPACE 0
#define DEVNS_JC(name) container_p_##name
#define DEVNS_JC_INTERFACE "job_container"
#define devns_log_flag(fmt, ...) log_flag(JOB_CONT, fmt, ##__VA_ARGS__)
#define DEVNS_STEP_SLUID(step_id) ((void)(step_id), (uint64_t)0)
#define DEVNS_JOB_DESC_SET_ID(desc, id) ((desc)->job_id = (id))
#endif
#define DEVNS_JC_TYPE DEVNS_JC_INTERFACE "/devns"

/* ==== 26.05 =============================================================
 * - namespace_p_stepd_delete(step) takes the step record, not its id
 *   (DEVNS_JC_DELETE_STEP_RECORD).
 * - slurm_load_job names the job by a slurm_step_id_t, not its id
 *   (DEVNS_LOAD_JOB).
 */
#if DEVNS_API >= 2605
#define DEVNS_JC_DELETE_STEP_RECORD 1
#define DEVNS_LOAD_JOB(resp, id, flags)                                      \
	slurm_load_job((resp), ((slurm_step_id_t) {                          \
		.sluid = 0, .job_id = (id), .step_het_comp = NO_VAL,         \
		.step_id = NO_VAL }), (flags))
#else
#define DEVNS_JC_DELETE_STEP_RECORD 0
#define DEVNS_LOAD_JOB(resp, id, flags) slurm_load_job((resp), (id), (flags))
#endif

/* ==== 26.11 (development tree 26.11.0-0rc1, master of 2026-08-20) =======
 * - namespace_p_join_external(step_id, fd_map): the list is created with
 *   stepd_destroy_ns_fd_map as its destructor (upstream 13243f8942, "drop
 *   fd cache in join_external"): after sending, slurmstepd closes each
 *   entry's fd and xfree()s each entry, on success and on failure alike.
 *   Up to 26.05 it did neither (the list had no destructor).  So on 26.11
 *   each entry handed must come from xmalloc and own a fd of its own (a
 *   dup of devns's cached one, ns/nsfdmap.h); before, the entries are
 *   static and the fds devns's cache (DEVNS_JC_JOIN_EXTERNAL_OWNED).
 *   pam_slurm_adopt closes the fds it receives too, and no longer frees
 *   the list twice on a refused adoption, but its shadowed rc is still
 *   there: devns still kills a login it cannot contain.
 * - A runtime plugin (src/interfaces/runtime.c, DefRuntimePlugin=,
 *   --runtime, runtime/none by default, runtime/oci: the --container
 *   support, once slurmstepd's container.c) is loaded by slurmstepd right
 *   after the namespace plugin and execs each task itself
 *   (runtime_g_run).  The task has joined the job's namespace and filter
 *   by then (namespace_g_join in its fork, before runtime_g_task_init),
 *   and runtime/oci runs the site's OCI commands from that fork: the
 *   container starts inside the job's containment.  Nothing of devns
 *   changes.
 * - SerializerPlugins= (which data serializers slurmctld, slurmd and
 *   slurmrestd load): devns serializes nothing of Slurm's.
 * - slurmd runs REQUEST_LAUNCH_PROLOG, _BATCH_JOB_LAUNCH, _LAUNCH_TASKS,
 *   _TERMINATE_JOB, _RECONFIGURE and others on detached threads without
 *   bound (602cf5a4ea): a fork for a step or a Prolog may happen while
 *   another thread is inside devns (send_stepd, the NamespacePool keeper).
 *   The child of such a fork (namespace_g_join before a new stepd's exec,
 *   a Prolog's) takes no devns lock, pthread or flock, and every fd devns
 *   opens is close-on-exec (its dups too, since 26.11's port): a copy of
 *   the pool's locked fd is gone at the child's exec, whoever forked.
 * - The interface (namespace.c's syms, namespace.h) is 26.05's.
 */
#if DEVNS_API >= 2611
#define DEVNS_JC_JOIN_EXTERNAL_OWNED 1
#else
#define DEVNS_JC_JOIN_EXTERNAL_OWNED 0
#endif

#endif /* DEVNS_SLURM_COMPAT_H */
