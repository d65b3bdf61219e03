/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devns.c - the devns admin tool: the command line, the defaults slurmd
 * would use, the node's settings loaded as slurmd loads them, and the
 * --json envelope.  The subcommands are check.c, show.c, list.c and
 * cleanup.c.  See devns(8).
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devns_config.h"
#include "devns.h"
#include "conf/nsconf_file.h"
#include "print.h"
#include "conf/confpath.h"
#include "slurmconv/slurmconf.h"
#include "util/json.h"

/* Which options a subcommand takes. */
enum {
	OPT_FILE = 1 << 0,
	OPT_NODE = 1 << 1,
	OPT_SPOOL = 1 << 2,
	OPT_CGROUP = 1 << 3,
	OPT_GRES = 1 << 4,
	OPT_GRES_CONF = 1 << 5,
	OPT_DRY_RUN = 1 << 6,
	OPT_FORCE = 1 << 7,
	OPT_JSON = 1 << 8,
};

/* getopt_long's values for the options without a short form. */
enum { LONG_CGROUP = 256, LONG_GRES_CONF, LONG_DRY_RUN, LONG_FORCE,
       LONG_JSON };

static const struct command {
	const char *name;
	int (*run)(const struct devns_opts *o);
	unsigned opts;
	bool job_id;	/* takes JOBID */
} commands[] = {
	{ "check", devns_check, OPT_FILE | OPT_NODE | OPT_GRES | OPT_GRES_CONF |
	  OPT_JSON, false },
	{ "show", devns_show, OPT_FILE | OPT_NODE | OPT_SPOOL | OPT_CGROUP |
	  OPT_JSON, true },
	{ "list", devns_list, OPT_FILE | OPT_NODE | OPT_SPOOL | OPT_CGROUP |
	  OPT_JSON, false },
	{ "cleanup", devns_cleanup, OPT_FILE | OPT_NODE | OPT_SPOOL |
	  OPT_CGROUP | OPT_DRY_RUN | OPT_FORCE | OPT_JSON, false },
};

static const struct option long_opts[] = {
	{ "file", required_argument, NULL, 'f' },
	{ "node", required_argument, NULL, 'n' },
	{ "spool", required_argument, NULL, 's' },
	{ "cgroup", required_argument, NULL, LONG_CGROUP },
	{ "gres", required_argument, NULL, 'g' },
	{ "gres-conf", required_argument, NULL, LONG_GRES_CONF },
	{ "dry-run", no_argument, NULL, LONG_DRY_RUN },
	{ "force", no_argument, NULL, LONG_FORCE },
	{ "json", no_argument, NULL, LONG_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fputs("usage: devns check [--json] [-f FILE] [-n NODE] [-g SPEC] [--gres-conf FILE]\n"
	      "       devns show [--json] [-f FILE] [-n NODE] [-s DIR] [--cgroup DIR] JOBID\n"
	      "       devns list [--json] [-f FILE] [-n NODE] [-s DIR] [--cgroup DIR]\n"
	      "       devns cleanup [--json] [--dry-run] [--force] [-f FILE] [-n NODE]\n"
	      "                     [-s DIR] [--cgroup DIR]\n"
	      "       devns import FILE\n"
	      "       devns --version\n"
	      "See devns(8).\n", f);
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "devns: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	usage(stderr);
	return DEVNS_EXIT_USAGE;
}

/* ---- reports --------------------------------------------------------- */

/*
 * With --json, every error and warning is kept as well, for the output's
 * "errors" and "warnings" (json_messages); text output needs none.
 */
static struct messages {
	bool keep;
	char **msgs;
	enum report_level *level;
	size_t count;
} messages;

/* Keeps msg; one that cannot be kept is still on stderr. */
static void keep_message(enum report_level level, const char *msg)
{
	size_t n = messages.count;
	char **msgs = realloc(messages.msgs, (n + 1) * sizeof(*msgs));
	enum report_level *levels;

	if (msgs)
		messages.msgs = msgs;
	levels = realloc(messages.level, (n + 1) * sizeof(*levels));
	if (levels)
		messages.level = levels;
	if (!msgs || !levels || !(msgs[n] = strdup(msg)))
		return;
	levels[n] = level;
	messages.count++;
}

/* Escaped (print.h): messages name paths and cgroups the job chose. */
static void log_stderr(enum report_level level, const char *msg, void *arg)
{
	(void)arg;
	if (level != REPORT_ERROR && level != REPORT_WARNING)
		return;
	if (level == REPORT_WARNING)
		fputs("warning: ", stderr);
	print_escaped(stderr, msg);
	fputc('\n', stderr);
	if (messages.keep)
		keep_message(level, msg);
}

/* One message of the tool's own on stderr after prefix, kept as level. */
static void tool_message(enum report_level level, const char *prefix,
			 const char *fmt, va_list ap)
{
	char msg[REPORT_MSG_MAX];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fputs(prefix, stderr);
	print_escaped(stderr, msg);
	fputc('\n', stderr);
	if (messages.keep)
		keep_message(level, msg);
}

void devns_note(const char *fmt, ...)
{
	va_list ap;

	/* the libraries' notices are not the tool's: only these are kept */
	va_start(ap, fmt);
	tool_message(REPORT_NOTICE, "note: ", fmt, ap);
	va_end(ap);
}

void devns_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tool_message(REPORT_ERROR, "devns: ", fmt, ap);
	va_end(ap);
}

/*
 * The length of msg's "FILE:LINE: " prefix, with *line set, or of its
 * "/FILE: " prefix, *line 0, or 0 when it has neither: the libraries start
 * a message about a file (and its line) so.
 */
static size_t file_line_prefix(const char *msg, long *line)
{
	const char *colon = strstr(msg, ": ");

	for (const char *p = strchr(msg, ':'); p; p = strchr(p + 1, ':')) {
		char *end;

		if (p == msg || p[1] < '1' || p[1] > '9')
			continue;
		*line = strtol(p + 1, &end, 10);
		if (end[0] == ':' && end[1] == ' ')
			return (size_t)(p - msg);
	}
	*line = 0;
	return msg[0] == '/' && colon ? (size_t)(colon - msg) : 0;
}

/*
 * "errors", "warnings" or "notes" (level): [{"file", "line", "message"}]
 * (doc/json.md).
 */
static void json_messages(struct json *j, const char *key,
			  enum report_level level)
{
	json_array_begin(j, key);
	for (size_t i = 0; i < messages.count; i++) {
		const char *msg = messages.msgs[i];
		char file[PATH_MAX];
		long line = 0;
		size_t n;

		if (messages.level[i] != level)
			continue;
		json_object_begin(j, NULL);
		if ((n = file_line_prefix(msg, &line)) && n < sizeof(file)) {
			snprintf(file, sizeof(file), "%.*s", (int)n, msg);
			json_string(j, "file", file);
			if (line)
				json_int(j, "line", line);
			else
				json_null(j, "line");
		} else {
			json_null(j, "file");
			json_null(j, "line");
		}
		json_string(j, "message", msg);
		json_object_end(j);
	}
	json_array_end(j);
}

static void messages_free(void)
{
	for (size_t i = 0; i < messages.count; i++)
		free(messages.msgs[i]);
	free(messages.msgs);
	free(messages.level);
	memset(&messages, 0, sizeof(messages));
}

void devns_report_init(struct report *rep)
{
	report_init(rep, log_stderr, NULL);
}

/* ---- defaults ---------------------------------------------------------- */

/* dst = the directory of path + "/" + name; -1 when it does not fit. */
static int beside(char *dst, size_t len, const char *path, const char *name)
{
	const char *slash = strrchr(path, '/');
	int dir = slash ? (int)(slash - path) : 1;
	int n;

	if (!slash)
		path = ".";
	n = snprintf(dst, len, "%.*s/%s", dir, path, name);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

static int copy(char *dst, size_t len, const char *src)
{
	return snprintf(dst, len, "%s", src) >= (int)len ? -1 : 0;
}

/*
 * The settings slurmd reads: job_container.conf beside slurm.conf, or
 * namespace.conf, its deprecated name (conf/nsconf_file.h).  -1 after
 * saying why.
 */
static int default_conf(struct devns_opts *o)
{
	char jc[sizeof(o->conf_path)], old[sizeof(o->conf_path)];
	const char *pick;
	struct report rep;
	bool deprecated;

	if (beside(jc, sizeof(jc), o->slurm_conf, NSCONF_FILE_NAME) < 0 ||
	    beside(old, sizeof(old), o->slurm_conf, NSCONF_FILE_OLD_NAME) < 0) {
		usage_error("%s", "a path is too long");
		return -1;
	}
	devns_report_init(&rep);
	if (!(pick = nsconf_file_pick(jc, old, &deprecated, &rep)))
		return -1;
	if (deprecated)
		report_warning(&rep, "%s: the name is deprecated, rename it to %s",
			       old, NSCONF_FILE_NAME);
	return copy(o->conf_path, sizeof(o->conf_path), pick);
}

/*
 * slurm.conf as slurmd finds it (conf/confpath.h): $SLURM_CONF, Slurm's
 * default file, else the configless cache slurmd keeps (a note says so).
 * Returns 0, or -1 for a path too long.
 */
static int find_slurm_conf(struct devns_opts *o, const char *env)
{
	char spool[PATH_MAX], cache[PATH_MAX + 16];
	struct confpath_places at = {
		.env = env,
		.file = DEVNS_SLURM_CONF,
		.run_cache = "/run/slurm/conf",
	};
	int from;

	if (slurmconf_expand(DEVNS_SLURMD_SPOOLDIR, o->node, o->host, spool,
			     sizeof(spool)) < 0 ||
	    snprintf(cache, sizeof(cache), "%s/conf-cache", spool) >=
	    (int)sizeof(cache))
		return -1;
	at.spool_cache = cache;
	if ((from = confpath_slurm(&at, o->slurm_conf,
				   sizeof(o->slurm_conf))) < 0)
		return -1;
	if (from == CONFPATH_CACHE)
		devns_note("no %s: reading slurmd's configless cache, %s",
			   DEVNS_SLURM_CONF, o->slurm_conf);
	return 0;
}

/* The defaults slurmd would use for what the command line left out. */
static int fill_defaults(struct devns_opts *o, const char *file,
			 const char *node, const char *spool)
{
	const char *env = getenv("SLURM_CONF");
	struct slurmconf sc;
	struct report rep;

	if (gethostname(o->host, sizeof(o->host)) < 0) {
		devns_error("cannot get the host name: %s", strerror(errno));
		return DEVNS_EXIT_FAIL;
	}
	o->host[sizeof(o->host) - 1] = '\0';
	o->host[strcspn(o->host, ".")] = '\0';
	if (copy(o->node, sizeof(o->node), node ? node : o->host) < 0 ||
	    find_slurm_conf(o, env) < 0)
		return usage_error("%s", "a path or name is too long");
	if (file ? copy(o->conf_path, sizeof(o->conf_path), file) < 0
		 : default_conf(o) < 0)
		return file ? usage_error("%s", "a path is too long")
			    : DEVNS_EXIT_FAIL;
	devns_report_init(&rep);
	nsconf_file_leftover(o->conf_path, &rep);
	if (!o->gres_conf_given &&
	    beside(o->gres_conf, sizeof(o->gres_conf), o->conf_path,
		   "gres.conf") < 0)
		return usage_error("%s", "a path is too long");
	devns_report_init(&rep);
	if (slurmconf_read(o->slurm_conf, o->node, o->host, &sc, &rep) < 0)
		return DEVNS_EXIT_FAIL;
	if (copy(o->spool, sizeof(o->spool), spool ? spool : sc.spool_dir) < 0)
		return usage_error("%s", "the spool path is too long");
	snprintf(o->pid_file, sizeof(o->pid_file), "%s", sc.pid_file);
	o->step_cgroups = sc.proctrack_cgroup;
	o->contain_spank = sc.contain_spank;
	snprintf(o->node_gres, sizeof(o->node_gres), "%s", sc.gres);
	o->node_gres_known = sc.gres_known;
	o->prolog_contain = sc.prolog_contain;
	o->slurm_nodes = sc.node_names;	/* now o's */
	o->elsewhere = node && strcmp(node, o->host) && !sc.node_here;
	if ((sc.plugstack[0] ? copy(o->plugstack, sizeof(o->plugstack),
				    sc.plugstack)
			     : beside(o->plugstack, sizeof(o->plugstack),
				      o->slurm_conf, "plugstack.conf")) < 0)
		return usage_error("%s", "the plugstack path is too long");
	return DEVNS_EXIT_OK;
}

static int parse_job_id(const char *s, uint32_t *job_id)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v == 0 ||
	    v > UINT32_MAX)
		return -1;
	*job_id = (uint32_t)v;
	return 0;
}

int devns_options(int argc, char **argv, struct devns_opts *o)
{
	const struct command *cmd = NULL;
	const char *file = NULL, *node = NULL, *spool = NULL;
	unsigned given = 0;
	int c;

	memset(o, 0, sizeof(*o));
	o->command = argv[0];
	for (size_t i = 0; i < sizeof(commands) / sizeof(*commands); i++)
		if (!strcmp(argv[0], commands[i].name))
			cmd = &commands[i];
	if (!cmd)
		return usage_error("unknown command \"%s\"", argv[0]);
	/*
	 * 0, not 1: glibc then starts afresh, forgetting a cluster of short
	 * options an earlier parse stopped in (a pointer into its argv)
	 */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:f:n:s:g:h", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'f': file = optarg; given |= OPT_FILE; break;
		case 'n': node = optarg; given |= OPT_NODE; break;
		case 's': spool = optarg; given |= OPT_SPOOL; break;
		case 'g': o->gres = optarg; given |= OPT_GRES; break;
		case LONG_CGROUP:
			o->cgroup_root = optarg;
			given |= OPT_CGROUP;
			break;
		case LONG_GRES_CONF:
			if (copy(o->gres_conf, sizeof(o->gres_conf),
				 optarg) < 0)
				return usage_error("%s", "--gres-conf: too long");
			o->gres_conf_given = true;
			given |= OPT_GRES_CONF;
			break;
		case LONG_DRY_RUN:
			o->dry_run = true;
			given |= OPT_DRY_RUN;
			break;
		case LONG_FORCE: o->force = true; given |= OPT_FORCE; break;
		case LONG_JSON: o->json = true; given |= OPT_JSON; break;
		case 'h': usage(stdout); exit(DEVNS_EXIT_OK);
		case ':':
			return usage_error("%s: missing argument",
					   argv[optind - 1]);
		default:
			return usage_error("%s: unknown option",
					   argv[optind - 1]);
		}
	}
	if (given & ~cmd->opts) {
		static const char *const names[] = {
			"-f", "-n", "-s", "--cgroup", "-g", "--gres-conf",
			"--dry-run", "--force", "--json",
		};
		unsigned bad = given & ~cmd->opts;
		int bit = __builtin_ctz(bad);

		fprintf(stderr, "devns: %s does not take %s\n", cmd->name,
			names[bit]);
		usage(stderr);
		return DEVNS_EXIT_USAGE;
	}
	if (cmd->job_id && (optind != argc - 1 ||
			    parse_job_id(argv[optind], &o->job_id) < 0))
		return usage_error("%s takes one JOBID (a positive number)",
				   cmd->name);
	if (!cmd->job_id && optind != argc)
		return usage_error("unexpected argument \"%s\"", argv[optind]);
	if (node && !*node)
		return usage_error("%s", "--node: empty name");
	/* "" would name the working directory's files, or none at all */
	if ((file && !*file) || (spool && !*spool) ||
	    (o->cgroup_root && !*o->cgroup_root) ||
	    (o->gres_conf_given && !o->gres_conf[0]))
		return usage_error("%s: empty path", file && !*file ? "--file"
				   : spool && !*spool ? "--spool"
				   : o->cgroup_root && !*o->cgroup_root
				   ? "--cgroup" : "--gres-conf");
	messages.keep = o->json;
	return fill_defaults(o, file, node, spool);
}

void devns_options_free(struct devns_opts *o)
{
	for (size_t i = 0; o->slurm_nodes && o->slurm_nodes[i]; i++)
		free(o->slurm_nodes[i]);
	free(o->slurm_nodes);
	o->slurm_nodes = NULL;
}

struct jobct_node *devns_node_load(const struct devns_opts *o)
{
	struct jobct_node_args args = {
		.conf_path = o->conf_path,
		.node_name = o->node,
		.spool_dir = o->spool,
		.check_only = true,
		.cgroup_root = o->cgroup_root,
	};
	struct report rep;

	devns_report_init(&rep);
	return jobct_node_load(&args, &rep);
}

/*
 * Runs the subcommand (with --json inside the one object every command
 * prints: "meta", "command", its own members, "ok", "errors", "warnings",
 * "notes"; doc/json.md).
 * options_rc is devns_options()'s: a command whose defaults could not be
 * filled in prints the envelope alone.
 */
static int run(struct devns_opts *o, int options_rc)
{
	struct json j;
	int rc = options_rc;

	if (o->json) {
		json_init(&j, stdout);
		o->out = &j;
		json_object_begin(&j, NULL);
		json_object_begin(&j, "meta");
		json_string(&j, "devns_version", PACKAGE_VERSION);
		json_string(&j, "slurm_release", DEVNS_SLURM_VERSION);
		json_int(&j, "schema_version", DEVNS_JSON_SCHEMA);
		json_object_end(&j);
		json_string(&j, "command", o->command);
	}
	for (size_t i = 0; rc == DEVNS_EXIT_OK &&
	     i < sizeof(commands) / sizeof(*commands); i++)
		if (!strcmp(o->command, commands[i].name))
			rc = commands[i].run(o);
	if (!o->json)
		return rc;
	json_bool(&j, "ok", rc == DEVNS_EXIT_OK);
	json_messages(&j, "errors", REPORT_ERROR);
	json_messages(&j, "warnings", REPORT_WARNING);
	json_messages(&j, "notes", REPORT_NOTICE);
	json_object_end(&j);
	if (json_finish(&j) < 0) {
		fprintf(stderr, "devns: writing the output: %s\n",
			strerror(errno));
		rc = DEVNS_EXIT_FAIL;
	}
	o->out = NULL;
	return rc;
}

int main(int argc, char **argv)
{
	struct devns_opts o;
	int rc;

	if (argc < 2)
		return usage_error("%s", "no command");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return DEVNS_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("devns (slurm-devns) %s, built for Slurm %s\n",
		       PACKAGE_VERSION, DEVNS_SLURM_VERSION);
		return DEVNS_EXIT_OK;
	}
	/* import reads a file and nothing of the node: no defaults to fill */
	if (!strcmp(argv[1], "import"))
		return devns_import(argc - 1, argv + 1);
	rc = devns_options(argc - 1, argv + 1, &o);
	/* a usage error prints no JSON: the command line was not understood */
	if (rc != DEVNS_EXIT_USAGE)
		rc = run(&o, rc);
	devns_options_free(&o);
	messages_free();
	return rc;
}
