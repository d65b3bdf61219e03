/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slurmconf.c - SlurmdSpoolDir, SlurmdPidFile and the other settings the
 * tool needs from slurm.conf.  See slurmconf.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "devns_config.h"
#include "slurmconv/confread.h"
#include "slurmconv/hostmatch.h"
#include "slurmconv/slurmconf.h"

/* slurm.conf files are larger than namespace.conf; this is generous. */
#define SLURMCONF_MAX_SIZE (16 * 1024 * 1024)

int slurmconf_expand(const char *value, const char *node, const char *host,
		  char *out, size_t len)
{
	size_t n = 0;

	for (const char *s = value; *s; s++) {
		const char *put = NULL;
		char one[2] = { *s, '\0' };

		if (s[0] == '%' && (s[1] == 'n' || s[1] == 'h'))
			put = *++s == 'n' ? node : host;
		else
			put = one;
		if (n + strlen(put) >= len) {
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(out + n, put, strlen(put));
		n += strlen(put);
	}
	out[n] = '\0';
	return 0;
}

/* Whether the comma-separated list holds word (any case). */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; p; p = strchr(p, ',')) {
		if (*p == ',')
			p++;
		if (!strncasecmp(p, word, n) && (p[n] == ',' || !p[n]))
			return true;
	}
	return false;
}

/* Add a NodeName value to sc->node_names.  Returns 0 or -1 (ENOMEM). */
static int node_name_add(struct slurmconf *sc, const char *value)
{
	size_t n = 0;
	char **v;

	if (!strcasecmp(value, "DEFAULT"))
		return 0;	/* defaults for the lines after it */
	while (sc->node_names && sc->node_names[n])
		n++;
	if (!(v = realloc(sc->node_names, (n + 2) * sizeof(*v))))
		return -1;
	sc->node_names = v;
	v[n + 1] = NULL;
	return (v[n] = strdup(value)) ? 0 : -1;
}

/*
 * Sets the fields of sc from the keys of text, the last value of each
 * winning as in Slurm, every NodeName value collected.  Returns 0, or -1
 * with ENAMETOOLONG or ENOMEM.
 */
static int read_keys(const char *text, const char *node, const char *host,
		     struct slurmconf *sc)
{
	struct confread r;
	struct confpair p;
	char err[256], default_gres[sizeof(sc->gres)] = "";
	int rc = 0;

	confread_init(&r, text);
	/* A line that is not Key=Value pairs (Include) is Slurm's to judge. */
	while (rc == 0 && confread_line(&r) > 0) {
		bool names_node = false, is_default = false;

		while (rc == 0 &&
		       confread_pair(&r, &p, err, sizeof(err)) == 1) {
			if (!strcasecmp(p.key, "NodeName")) {
				rc = node_name_add(sc, p.value);
				names_node = hostmatch_match(p.value,
							     node) == 1;
				is_default = !strcasecmp(p.value, "DEFAULT");
				if (names_node && !sc->gres_known) {
					sc->gres_known = true;
					snprintf(sc->gres, sizeof(sc->gres),
						 "%s", default_gres);
				}
			} else if (!strcasecmp(p.key, "Gres") &&
				   (names_node || is_default)) {
				if (strlen(p.value) >= sizeof(sc->gres)) {
					errno = ENAMETOOLONG;
					rc = -1;
				} else if (names_node) {
					snprintf(sc->gres, sizeof(sc->gres),
						 "%s", p.value);
				} else {
					snprintf(default_gres,
						 sizeof(default_gres), "%s",
						 p.value);
				}
			} else if (!strcasecmp(p.key, "NodeHostname") &&
				   names_node &&
				   hostmatch_match(p.value, host) == 1)
				sc->node_here = true;
			else if (!strcasecmp(p.key, "SlurmdSpoolDir"))
				rc = slurmconf_expand(p.value, node, host, sc->spool_dir,
					    sizeof(sc->spool_dir));
			else if (!strcasecmp(p.key, "SlurmdPidFile"))
				rc = slurmconf_expand(p.value, node, host, sc->pid_file,
					    sizeof(sc->pid_file));
			else if (!strcasecmp(p.key, "ProctrackType"))
				sc->proctrack_cgroup =
					!strcmp(p.value, "proctrack/cgroup");
			else if (!strcasecmp(p.key, "PlugStackConfig"))
				rc = slurmconf_expand(p.value, node, host, sc->plugstack,
					    sizeof(sc->plugstack));
			else if (!strcasecmp(p.key, "SlurmdParameters"))
				sc->contain_spank = has_word(p.value,
							     "contain_spank");
			else if (!strcasecmp(p.key, "PrologFlags"))
				sc->prolog_contain =
					has_word(p.value, "Contain") ||
					has_word(p.value, "X11") ||
					has_word(p.value, "RunInJob");
		}
	}
	confread_free(&r);
	return rc;
}

int slurmconf_read(const char *path, const char *node, const char *host,
		   struct slurmconf *sc, struct report *rep)
{
	struct report why;
	char *text;
	int rc;

	if (slurmconf_expand(DEVNS_SLURMD_SPOOLDIR, node, host, sc->spool_dir,
		   sizeof(sc->spool_dir)) < 0 ||
	    slurmconf_expand(DEVNS_SLURMD_PIDFILE, node, host, sc->pid_file,
		   sizeof(sc->pid_file)) < 0)
		return report_errno(rep, errno, "Slurm's defaults");
	/* Slurm's default on Linux */
	sc->proctrack_cgroup = true;
	sc->plugstack[0] = '\0';
	sc->contain_spank = false;
	sc->prolog_contain = false;
	sc->node_names = NULL;
	sc->node_here = false;
	sc->gres[0] = '\0';
	sc->gres_known = false;
	report_init(&why, NULL, NULL);
	if (!(text = confread_file(path, SLURMCONF_MAX_SIZE, &why))) {
		if (errno != ENOENT)
			return report_error(rep, "%s", why.msg);
		sc->prolog_contain = true;	/* nothing to judge by */
		return 0;
	}
	/* A file without NodeName lines (configless, Include) names none. */
	if (!(sc->node_names = calloc(1, sizeof(*sc->node_names))))
		rc = -1;
	else
		rc = read_keys(text, node, host, sc);
	free(text);
	if (rc < 0) {
		int saved = errno;

		slurmconf_free(sc);
		return report_errno(rep, saved, "%s: SlurmdSpoolDir, "
				    "SlurmdPidFile or NodeName", path);
	}
	return 0;
}

void slurmconf_free(struct slurmconf *sc)
{
	for (size_t i = 0; sc->node_names && sc->node_names[i]; i++)
		free(sc->node_names[i]);
	free(sc->node_names);
	sc->node_names = NULL;
}
