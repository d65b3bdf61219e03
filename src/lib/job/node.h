/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * node.h - a node's settings as jobct_node_load() made them (private to
 * libdevns_job: everything outside sees the node through jobct.h).
 * At the bottom of the library: every part of it reads the node, none
 * of them is included from here.
 */
#ifndef DEVNS_JOB_NODE_H
#define DEVNS_JOB_NODE_H

#include "conf/nsconf.h"
#include "dev/cgroup2.h"
#include "dev/devpolicy.h"
#include "job/ops.h"

struct jobct_backend;

/* A node's settings, loaded once per daemon (jobct_node_load). */
struct jobct_node {
	char *node_name;
	char *spool_dir;	/* root's: holds the jobs' filter markers */
	char *cgroup_root;	/* the cgroup2 mount; NULL: none at load */
	char *dev_dir;		/* where devices are named; NULL: /dev */
	char *proc_devices;	/* NULL: /proc/devices (the IMEX major) */
	/*
	 * BasePath, opened at load (-1: none, or devns check): the jobs'
	 * namespace pins are reached through it, also by a daemon that has
	 * unshared its mount namespace since (ns/mntns.h, mntns_join_at)
	 */
	int base_fd;
	struct nsconf *conf;
	struct devpolicy policy;
	enum cgroup2_layout layout;	/* as found at load */
	/* where its jobs' filters go: the layout's (backend.h) */
	const struct jobct_backend *backend;
	const struct jobct_ops *ops;
};

#endif /* DEVNS_JOB_NODE_H */
