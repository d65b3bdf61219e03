/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsconf.h - namespace.conf: the settings of job_container/devns for one
 * node, and their parser.
 *
 * The file uses Slurm's configuration syntax: lines of white-space
 * separated Key=Value pairs, keys case-insensitive, '#' starts a comment
 * (outside double quotes), a trailing '\' joins the next line, values may
 * be double-quoted.  Lines that start with NodeName=<hostlist> apply only
 * to the nodes named, and beat the global lines for every key (the most
 * specific setting wins; DeviceAllow lines add up per kind); see
 * namespace.conf(5) for the keys and PRECEDENCE.  Every error
 * (unknown key, malformed line, bad value) is fatal and named by file and
 * line, so that slurmd never starts on a file it misread; every bad line
 * of the file is reported, not only the first (the checks of keys from
 * different lines run once every line is good).
 */
#ifndef DEVNS_NSCONF_H
#define DEVNS_NSCONF_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dev/devallow.h"
#include "dev/devpolicy.h"
#include "util/report.h"

/*
 * The most Dirs entries a job's namespace can hold (mntns sizes its plan,
 * made before fork(), by it); the parser refuses more.
 */
#define NSCONF_MAX_DIRS 16

/* The most KeepPaths entries (mntns plans their mounts before fork()). */
#define NSCONF_MAX_KEEP 16

/* The largest settings file the parser reads, in bytes. */
#define NSCONF_MAX_SIZE (1024 * 1024)

/* Most namespaces NamespacePool may keep ready (ns/nspool.h). */
#define NSCONF_POOL_MAX 64

/*
 * Directories every user may write to: BasePath and Source= must not be
 * in one.
 */
#define NSCONF_SHARED_DIRS { "/tmp", "/var/tmp", "/dev/shm", NULL }

/* How a private directory is backed. */
enum nsconf_dir_type {
	NSCONF_DIR_BIND,	/* a per-job directory, or Source=, bound */
	NSCONF_DIR_TMPFS,	/* a fresh tmpfs */
};

/* TmpBackend: what holds a job's disk-backed Dirs. */
enum nsconf_tmp_backend {
	NSCONF_TMP_DIR = 0,	/* directories in BasePath/<jobid> */
	NSCONF_TMP_LOOP,	/* a filesystem on a loop device per job */
};

/* Mount options of a private directory (Options=). */
#define NSCONF_OPT_NOEXEC 0x1
#define NSCONF_OPT_NOSUID 0x2
#define NSCONF_OPT_NODEV  0x4
#define NSCONF_OPT_RO     0x8
/* Always set: node-local scratch never carries set-uid files or devices. */
#define NSCONF_OPT_ALWAYS (NSCONF_OPT_NOSUID | NSCONF_OPT_NODEV)

/*
 * The settings of one private directory, as they apply to this node: Dir=
 * lines, with the Dirs=, TmpSize= and ShmSize= shorthands and the defaults
 * filled in.
 */
struct nsconf_dir {
	char *path;		/* the same string as the dirs entry */
	enum nsconf_dir_type type;
	uint64_t size;		/* tmpfs: bytes, 0 = tmpfs's default */
	/*
	 * tmpfs: a share (1 to 100) of the job's memory limit on the node
	 * instead of size ("Size=50%"), 0: none; nsconf_dir_tmpfs_size()
	 */
	unsigned size_percent;
	unsigned options;	/* NSCONF_OPT_*, NSCONF_OPT_ALWAYS included */
	/*
	 * bind: the backing path as written (%j, %u, %n, %% not expanded;
	 * nsconf_source_expand), or NULL for BasePath/<jobid>/<name>
	 */
	char *source;
	int line;		/* the Dir= line that set it, 0: none did */
	/*
	 * The TmpSize= or ShmSize= line that gave its type and size (a tmpfs
	 * of that size), 0: none did, or a more specific Dir line won
	 */
	int shorthand_line;
};

/*
 * The line of the file that set each key of struct nsconf for this node
 * (0: none did, the default holds).  A NodeName line that names the node
 * wins over the global lines for every key, wherever it stands; among
 * lines of one kind the later wins.
 */
struct nsconf_lines {
	int base_path;
	int auto_base_path;
	int dirs;
	int init_script;
	int shared;
	int shm_size;
	int tmp_size;
	int tmp_disk_limit;
	int tmp_disk_gres;
	int tmp_inode_limit;
	int tmp_backend;
	int pid_namespace;
	int user_namespace;
	int user_ns_script;
	int namespace_pool;
	int device_policy;
	int entire_step_in_ns;
	int clone_ns_script;
	int clone_ns_epilog;
	int clone_ns_script_wait;
	int clone_ns_epilog_wait;
	int cdi_spec_dirs;
	int keep_paths;
};

/* One DeviceAllow line that applies to the node. */
struct nsconf_allow {
	char *value;		/* as written, "SPEC ACCESS,..." */
	int line;
	struct devallow_list entries; /* value, read once at load: what
				       * devpolicy_load_lines() and the
				       * checks resolve */
};

/* A NodeName= value of the file, whichever node it names. */
struct nsconf_scope {
	char *hostlist;
	int line;
};

/*
 * CloneNSScript_Wait and CloneNSEpilog_Wait when unset: seconds, as
 * job_container/tmpfs (0 is no limit there and here).
 */
#define NSCONF_SCRIPT_WAIT_DEFAULT 10
/* Their largest value: Slurm's limit, in milliseconds, is an int. */
#define NSCONF_SCRIPT_WAIT_MAX (INT_MAX / 1000)

/* TmpInodeLimit's smallest value: what a job's setup makes itself. */
#define NSCONF_INODE_FLOOR 64

/*
 * The inode limit that goes with a block limit of bytes when the admin
 * sets none: one inode per 16 KiB (ext4's default ratio, so that jobs
 * cannot run BasePath out of inodes before they run it out of blocks),
 * and never fewer than NSCONF_INODES_MIN.  The parser fills
 * TmpInodeLimit with it; ns/mntns.c sizes a job's own limit with it.
 */
#define NSCONF_INODE_RATIO 16384
#define NSCONF_INODES_MIN 1024
uint64_t nsconf_default_inodes(uint64_t bytes);

/*
 * The smallest filesystem TmpBackend=loop makes (ns/nsloop.h): ext4's
 * metadata must leave room for files.
 */
#define NSCONF_LOOP_MIN_BYTES (1024 * 1024)

struct nsconf {
	char *base_path;          /* NULL when BasePath=none; %h and %n
				   * expanded (nsconf_load_host) */
	bool auto_base_path;
	char **dirs;              /* NULL-terminated, default {"/tmp","/dev/shm"} */
	struct nsconf_dir *dir_conf; /* one per dirs entry, same order */
	char *init_script;        /* NULL when unset */
	/*
	 * job_container/tmpfs's scripts: run as root after the job's
	 * namespace is made, and before it goes (NULL when unset), each
	 * killed with its process group after its _Wait seconds (0: no
	 * limit).  EntireStepInNS: each step's slurmstepd (not the extern
	 * step's) lives in the job's namespace, as with tmpfs.
	 */
	char *clone_ns_script;
	char *clone_ns_epilog;
	unsigned clone_ns_script_wait;
	unsigned clone_ns_epilog_wait;
	bool entire_step_in_ns;
	bool shared;
	uint64_t shm_size;        /* bytes, 0 = unset */
	uint64_t tmp_size;        /* bytes, 0 = unset (then /tmp lives on BasePath) */
	unsigned shm_percent;     /* ShmSize=N%: N, 0 = unset (then shm_size) */
	unsigned tmp_percent;     /* TmpSize=N%: N, 0 = unset (then tmp_size) */
	uint64_t tmp_disk_limit;  /* bytes, 0 = unset: project quota limit of
				   * BasePath/<jobid> (ns/dquota.h) */
	bool tmp_disk_request;    /* TmpDiskLimit=request: the job's --tmp
				   * (tmp_disk_limit is then 0) */
	char *tmp_disk_gres;      /* TmpDiskGres: the count GRES whose
				   * allocation here is the job's limit in
				   * bytes, NULL = unset */
	uint64_t tmp_inode_limit; /* its inode limit: TmpInodeLimit, or
				   * nsconf_default_inodes() of the size */
	/*
	 * TmpBackend: how TmpDiskLimit holds: a project quota on BasePath's
	 * filesystem (dir, the default), or a filesystem of the job's own
	 * on a sparse image in its directory (loop, ns/nsloop.h)
	 */
	enum nsconf_tmp_backend tmp_backend;
	bool pid_namespace;       /* PidNamespace: a PID namespace and /proc
				   * of its own per job (ns/pidns.h) */
	bool user_namespace;      /* UserNamespace: a user namespace of its
				   * own per job (ns/userns.h) */
	char *user_ns_script;     /* UserNsScript: writes its maps, NULL:
				   * the identity map */
	unsigned namespace_pool;  /* NamespacePool: namespaces slurmd keeps
				   * copied ahead (ns/nspool.h), 0 = none */
	enum devpolicy_mode device_policy;
	/*
	 * This node's DeviceAllow lines: the global ones add up, and the
	 * NodeName lines that name the node add up and replace them;
	 * DeviceAllow=none empties the set of its kind.  devpolicy_load_lines()
	 * resolves their entries.  Every DeviceAllow of the file, whichever
	 * node its line names, has been read (and its syntax checked) once,
	 * by the parser.
	 */
	struct nsconf_allow *allow;
	size_t allow_count;
	int allow_none_line;	  /* the DeviceAllow=none that emptied the
				   * set, 0: none did (or one came after) */
	char *device_allow;	  /* the values joined by ",", NULL: none */
	/*
	 * CDISpecDirs: directories of CDI specs (dev/devcdi.h), normalised
	 * and joined by ",", NULL: none (the default).
	 */
	char *cdi_spec_dirs;
	/*
	 * KeepPaths: node directories bound, as they are, into the private
	 * directory that holds them (/tmp/nvidia-mps into the job's /tmp),
	 * normalised, NULL-terminated; NULL: none (the default).
	 */
	char **keep_paths;
	/*
	 * The file the settings come from and the line of each, for
	 * messages about them that come after parsing (jobct's BasePath
	 * checks) and for devns check.
	 */
	char *file;
	/*
	 * The text the settings were parsed from, exactly: what slurmd
	 * hands each slurmstepd (conf/nsconf_msg.h), so that both hold one
	 * parse of one file
	 */
	char *text;
	struct nsconf_lines lines;
	/* Every NodeName value of the file (devns check's names check). */
	struct nsconf_scope *scopes;
	size_t scope_count;
};

/*
 * Parse the file at path for the node called nodename (NULL: no NodeName
 * line applies) whose NodeHostname is hostname (NULL: the node name, as
 * slurm.conf's default), then check on this node's filesystem what root
 * will act on below directories others may write to (nsconf_paths_check).
 * BasePath's first %h becomes hostname and its first %n nodename, as
 * Slurm's slurm_conf_expand_slurmd_path() does for job_container/tmpfs; a
 * BasePath with %h or %n and no node name is an error naming its line.
 * Returns a new nsconf to free with nsconf_free(), or NULL
 * with errno set (EINVAL for a bad file, else the system error) and a
 * message in rep (when not NULL): "FILE:LINE: what is wrong"
 * for a line, "FILE: what is wrong" for the file as a whole, e.g.
 * "FILE: cannot open: No such file or directory".
 */
struct nsconf *nsconf_load_host(const char *path, const char *nodename,
				const char *hostname, struct report *rep);

/*
 * nsconf_load_host() from text, the file's contents as read before
 * (slurmd's, handed to slurmstepd: conf/nsconf_msg.h), with the same checks:
 * path names the file in messages and in conf->file.  Text longer than
 * NSCONF_MAX_SIZE is refused (EFBIG).  Returns as nsconf_load_host().
 */
struct nsconf *nsconf_load_text(const char *text, const char *path,
				const char *nodename, const char *hostname,
				struct report *rep);

/*
 * The checks nsconf_load_host() makes on the node's filesystem after
 * parsing: each private directory's mount point
 * (safepath_check_mount_point: root-owned ancestors no other user may
 * write to, but for a sticky one whose next component is root's; no
 * link) and the fixed part of each Source= template that has a variable
 * part (safepath_check_create_below: root's, and writable by no other
 * user, sticky or not).  Where a user could swap a mount point for a
 * link, or make another user's Source directory first, jobs would be
 * misled or kept from starting: refused.  A missing directory is accepted
 * where no other user could make it.  Returns 0, or -1 with errno and
 * "FILE:LINE: ..." in rep.
 */
int nsconf_paths_check(const struct nsconf *conf, struct report *rep);

/* Free conf and everything it holds; NULL is fine. */
void nsconf_free(struct nsconf *conf);

/*
 * Write into buf[len] the name of the backing directory in BasePath/<jobid>
 * of the private directory dir (a Dirs entry as nsconf accepts it): dir
 * without its leading '/', every further '/' made '_' ("/var/tmp" ->
 * "var_tmp").  Returns 0, or -1 with errno = EINVAL when dir is not
 * absolute or the name would be "", ".", ".." or one jobdir_reserved()
 * refuses (conf/jobdir.h), or ENAMETOOLONG when it would not fit len or
 * NAME_MAX.  Two entries may map to one name ("/var/tmp", "/var_tmp"): the parser refuses such pairs.
 */
int nsconf_backing_name(const char *dir, char *buf, size_t len);

/* The private directory dir of conf (exact string), or NULL. */
const struct nsconf_dir *nsconf_dir_find(const struct nsconf *conf,
					 const char *dir);

/*
 * Write into buf[len] the Source= template tmpl (as the parser accepted
 * it) with %j made job_id, %S the job's SLUID (slurmconv/sluid.h), %u user, %n
 * node and %% a '%'.  user and node must be single path components (not
 * empty, ".", "..", no '/' and no control character); they may be NULL
 * when tmpl does not use them, and sluid 0 (before Slurm 25.11) when it
 * has no %S.  Returns 0, or -1 with errno = EINVAL (a bad or missing user
 * or node name or SLUID, a bad template) or ENAMETOOLONG.
 */
int nsconf_source_expand(const char *tmpl, uint32_t job_id, uint64_t sluid,
			 const char *user, const char *node, char *buf,
			 size_t len);

/*
 * The shape of a Source= template: *fixed gets how many leading path
 * components hold no '%' (they must exist; the rest is created), *job the
 * number (from 1) of the first component that holds %j or %S, the job's own
 * directory that goes at the job's end (0: none, everything persists).
 */
void nsconf_source_depths(const char *tmpl, int *fixed, int *job);

/*
 * The size in bytes of the tmpfs of d (NSCONF_DIR_TMPFS) for a job whose
 * memory limit on this node is job_mem bytes (--mem, or --mem-per-cpu
 * times its CPUs here; 0: the job has none), node_mem the node's memory
 * in bytes: d->size, or d->size_percent of job_mem (of node_mem when the
 * job has no limit), at least one page.  0: tmpfs's default (no size
 * set, or a share of an unknown memory: no node_mem either).  Pure.
 */
uint64_t nsconf_dir_tmpfs_size(const struct nsconf_dir *d, uint64_t job_mem,
			       uint64_t node_mem);

/*
 * Whether a private directory of conf is sized from the job's memory (a
 * percentage): only then need a caller find the job's memory limit.
 */
bool nsconf_uses_job_memory(const struct nsconf *conf);

/*
 * Whether conf limits the job's /tmp on BasePath's disk at all: a fixed
 * TmpDiskLimit, TmpDiskLimit=request or TmpDiskGres.  The node-wide
 * checks (BasePath enforces project quotas, the disk guard) follow this;
 * each job's own limit is nsconf_job_disk_limit()'s.
 */
bool nsconf_disk_limited(const struct nsconf *conf);

/*
 * What Slurm says a job asked for of BasePath's disk on this node, for
 * nsconf_job_disk_limit(): the TmpDiskGres count it was allocated here
 * (bytes, 0: none) and its --tmp (bytes, 0: none).
 */
struct nsconf_disk_ask {
	uint64_t gres_bytes;
	uint64_t tmp_bytes;
};

/*
 * The job's /tmp limit in bytes from conf and what it asked (ask):
 * its TmpDiskGres count when it has one, else with TmpDiskLimit=request
 * its --tmp, else TmpDiskLimit's size (0: no limit, when conf sets none).
 * A limit below 1 KiB (a project quota counts 1 KiB blocks, 0 is none)
 * or above fs_bytes (BasePath's filesystem, 0: not known) is refused, as
 * is TmpDiskLimit=request for a job without --tmp and TmpDiskGres: -1
 * with errno EINVAL (too small, none asked) or EFBIG (over the disk), the
 * reason in why[len].  Pure.
 */
int nsconf_job_disk_limit(const struct nsconf *conf,
			  const struct nsconf_disk_ask *ask, uint64_t fs_bytes,
			  uint64_t *limit, char *why, size_t len);

/* Write the names of options (NSCONF_OPT_*) into buf[len], "," between. */
void nsconf_options_format(unsigned options, char *buf, size_t len);

#endif /* DEVNS_NSCONF_H */
