/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devns.h - the devns admin tool: what its subcommands share.
 *
 *   devns check [--json] [-f FILE] [--node NAME] [--gres SPEC]
 *               [--gres-conf FILE]
 *   devns show [--json] [options] JOBID
 *   devns list [--json] [options]
 *   devns cleanup [--json] [--dry-run] [--force] [options]
 *   devns import FILE
 *   devns --version
 *
 * Every subcommand loads the node's settings with jobct_node_load(), the
 * call slurmd and slurmstepd make, so the tool sees the settings, the
 * device policy and BasePath as they do.  See devns(8).
 *
 * Exit status: DEVNS_EXIT_OK, DEVNS_EXIT_FAIL (a configuration error, a
 * job not found, a removal that failed), DEVNS_EXIT_USAGE.
 */
#ifndef DEVNS_TOOL_H
#define DEVNS_TOOL_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "job/jobct.h"
#include "util/json.h"
#include "util/report.h"

#define DEVNS_EXIT_OK 0
#define DEVNS_EXIT_FAIL 1
#define DEVNS_EXIT_USAGE 2

/*
 * The version of --json's schema (doc/json.md), in every document's
 * "meta": raised when a key is renamed or removed or a value changes
 * type.  1: 0.2.0 and before (no "meta"; check's setting values strings).
 */
#define DEVNS_JSON_SCHEMA 2

/* The command line, with the defaults filled in (devns_options). */
struct devns_opts {
	const char *command;		/* check, show, list, cleanup */
	char slurm_conf[PATH_MAX];	/* $SLURM_CONF or Slurm's default */
	char conf_path[PATH_MAX];	/* -f, or job_container.conf beside it */
	char node[256];			/* --node, or the short host */
	char host[256];			/* the short host name (%h) */
	/*
	 * --node names another machine: neither the short host name nor
	 * a node whose slurm.conf NodeHostname is this host.  check then
	 * judges nothing of the node's filesystem, kernel or cgroups
	 */
	bool elsewhere;
	char spool[PATH_MAX];		/* --spool, or SlurmdSpoolDir */
	char pid_file[PATH_MAX];	/* SlurmdPidFile */
	bool step_cgroups;		/* ProctrackType=proctrack/cgroup */
	char plugstack[PATH_MAX];	/* PlugStackConfig, or beside slurm.conf */
	bool contain_spank;		/* SlurmdParameters=contain_spank */
	char node_gres[1024];		/* slurm.conf's Gres= of the node */
	bool node_gres_known;		/* a NodeName line names the node */
	bool prolog_contain;		/* PrologFlags=Contain */
	char **slurm_nodes;		/* slurm.conf's NodeName values,
					 * NULL: no slurm.conf */
	const char *cgroup_root;	/* --cgroup, NULL: the system's */
	const char *gres;		/* check --gres SPEC */
	char gres_conf[PATH_MAX];	/* --gres-conf, or beside -f */
	bool gres_conf_given;
	bool dry_run;			/* cleanup --dry-run */
	bool force;			/* cleanup --force */
	bool json;			/* --json */
	struct json *out;		/* with --json, the output object the
					 * command adds its members to */
	uint32_t job_id;		/* show JOBID */
};

/*
 * Parses argv (argv[0] is the subcommand) into o and fills in the
 * defaults, reading slurm.conf for SlurmdSpoolDir and SlurmdPidFile.
 * Returns DEVNS_EXIT_OK, or the exit status after printing why.
 */
int devns_options(int argc, char **argv, struct devns_opts *o);

/* Free what devns_options() allocated. */
void devns_options_free(struct devns_opts *o);

/*
 * The node's settings as jobct_node_load() gives them to slurmd (nothing
 * created: check_only); every message goes to stderr.  Returns the node,
 * or NULL after printing why.
 */
struct jobct_node *devns_node_load(const struct devns_opts *o);

/*
 * A report whose errors and warnings go to stderr as they come (and, with
 * --json, to the output's "errors" and "warnings").
 */
void devns_report_init(struct report *rep);

/*
 * "note: MESSAGE" on stderr, escaped, and a note of the --json output:
 * what a command could not judge, and why.
 */
void devns_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "devns: MESSAGE" on stderr, escaped, and an error of the --json output. */
void devns_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The subcommands; each returns the exit status. */
int devns_check(const struct devns_opts *o);
int devns_show(const struct devns_opts *o);
int devns_list(const struct devns_opts *o);
int devns_cleanup(const struct devns_opts *o);

/*
 * devns import FILE (argv[0] "import"): prints FILE, a namespace.yaml, as
 * job_container.conf (conf/nsimport.h).  Returns the exit status.
 */
int devns_import(int argc, char **argv);

#endif /* DEVNS_TOOL_H */
