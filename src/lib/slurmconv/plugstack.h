/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plugstack.h - what a SPANK plugin stack file (Slurm's plugstack.conf)
 * loads: lines "required|optional PATH [ARGS]" and "include GLOB", '#'
 * comments.  slurmd reads it to refuse a configuration that asks for a
 * SPANK plugin devns needs but does not load it.
 *
 * Slurm 22.05 to 26.11: the syntax of src/common/plugstack.c
 * (_spank_stack_process_line(), _spank_conf_include()).  A release that
 * changes it changes this file and src/plugins/slurm_compat.h, nowhere
 * else.
 */
#ifndef DEVNS_PLUGSTACK_H
#define DEVNS_PLUGSTACK_H

#include "util/report.h"

/*
 * Whether the stack at path loads the plugin called name (a file name such
 * as "devns_pidns.so", matched against the last component of each PATH)
 * with "required", following include lines (a relative pattern is taken
 * from path's directory, as Slurm does).  A stack that is not there loads
 * nothing.  Returns 1 when required, 0 when absent or only optional, -1
 * with errno and rep when a file cannot be read.
 */
int plugstack_requires(const char *path, const char *name,
		       struct report *rep);

#endif /* DEVNS_PLUGSTACK_H */
