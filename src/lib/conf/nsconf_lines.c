/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nsconf_lines.c - the lines of namespace.conf, read twice.  Pass 1
 * checks every line (so an error anywhere fails every node alike,
 * whichever lines apply to it) and applies the global lines in order;
 * pass 2 applies the NodeName lines that name this node, in order.  So a
 * later line wins over an earlier one of its kind, and a matching
 * NodeName line wins over global lines wherever it stands.  Lines and
 * Key=Value pairs are cut by slurmconv/confread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf/nsconf_int.h"
#include "slurmconv/hostmatch.h"

/* ---- lines ----------------------------------------------------------- */

/*
 * Keep a NodeName value of the file and its line (pass 1 sees each once),
 * for devns check's comparison with slurm.conf's node names.
 */
static int scope_push(struct parser *p, const char *value)
{
	struct nsconf *c = p->conf;
	struct nsconf_scope *v;
	char *copy = strdup(value);

	if (!copy)
		return -1;
	v = realloc(c->scopes, (c->scope_count + 1) * sizeof(*v));
	if (!v) {
		free(copy);
		return -1;
	}
	c->scopes = v;
	v[c->scope_count].hostlist = copy;
	v[c->scope_count].line = p->line;
	c->scope_count++;
	return 0;
}

/*
 * Tell whether an element of the hostlist (commas outside brackets cut
 * them) is DEFAULT, in any case.
 */
static bool names_default(const char *value)
{
	const char *s = value;
	int depth = 0;

	for (const char *e = value; ; e++) {
		if (*e == '[')
			depth++;
		else if (*e == ']')
			depth--;
		if ((*e == ',' && !depth) || !*e) {
			if (e - s == 7 && !strncasecmp(s, "default", 7))
				return true;
			if (!*e)
				return false;
			s = e + 1;
		}
	}
}

/*
 * Handle the NodeName=value that starts a line.  Sets *applies when the
 * node is named.  Returns 0, or -1 after reporting a bad hostlist, or with
 * errno = ENOMEM.
 */
static int nodename_check(struct parser *p, const char *value, bool *applies)
{
	int rc = 0;

	if (hostmatch_validate(value) < 0)
		return nsconf_error(p, "NodeName: invalid hostlist \"%s\"", value);
	/* In slurm.conf it sets defaults; here it would name no node. */
	if (names_default(value))
		return nsconf_error(p, "NodeName=%s: DEFAULT names no node "
				    "here: the lines without NodeName= are "
				    "the defaults of every node", value);
	if (!p->pass2 && scope_push(p, value) < 0)
		return -1;
	/* Out of memory must fail the file, not skip the node's line. */
	if (p->nodename && (rc = hostmatch_match(value, p->nodename)) < 0)
		return -1;
	*applies = rc == 1;
	return 0;
}

/*
 * Note that key k of the current line now holds in the result, set by
 * this line: its line is the key's provenance, and on pass 2 a NodeName
 * line set it (a more specific setting than any global line's).
 */
static void key_applied(struct parser *p, enum key k)
{
	p->set |= 1u << k;
	if (p->pass2)
		p->node_set |= 1u << k;
	if (nsconf_keys[k].line_at >= 0)
		*(int *)((char *)&p->conf->lines + nsconf_keys[k].line_at) =
			p->line;
}

/* The end of a line: file its Dir settings, if it has any. */
static int line_end(struct parser *p, unsigned seen, bool scoped)
{
	if (!(seen & DIR_KEYS))
		return 0;
	if (!(seen & (1u << KEY_DIR))) {
		for (int k = 0; k < KEY_COUNT; k++) {
			if (seen & (1u << k))
				return nsconf_error(p, "%s needs Dir= on its "
						   "line", nsconf_keys[k].name);
		}
	}
	return nsconf_decl_file(p, scoped);
}

/*
 * Parse one logical line.  target receives its settings, or is NULL when
 * only NodeName lines that name this node are wanted (pass 2); node_scratch
 * takes the settings of NodeName lines in pass 1, which are only checked.
 * Returns 0, or -1 with errno set (and a message for EINVAL).
 */
static int line_parse(struct parser *p, struct confread *r, bool pass2,
		      struct nsconf *scratch)
{
	struct nsconf *target = pass2 ? NULL : p->conf;
	unsigned seen = 0;
	struct confpair t;
	char err[REPORT_MSG_MAX];
	bool first = true, applies = false, scoped = false;
	enum key k = KEY_COUNT;
	int rc;

	nsconf_decl_clear(&p->decl);
	for (;; first = false) {
		rc = confread_pair(r, &t, err, sizeof(err));
		p->line = t.line;
		if (rc < 0 && k == KEY_DEVICE_ALLOW)
			return nsconf_error(p, "%s (DeviceAllow's \"SPEC "
					    "ACCESS\" form needs quotes: "
					    "DeviceAllow=\"/dev/fuse rw\")",
					    err);
		if (rc < 0)
			return nsconf_error(p, "%s", err);
		if (!t.key)
			return line_end(p, seen, scoped);
		if (!strcasecmp(t.key, "NodeName")) {
			if (!first)
				return nsconf_error(p, "NodeName must be the "
						   "first key of its line");
			if (nodename_check(p, t.value, &applies) < 0)
				return -1;
			scoped = true;
			p->scope = t.value;
			target = pass2 ? (applies ? p->conf : NULL) : scratch;
			continue;
		}
		if (!target)
			return 0; /* pass 2: a line for others, or global */
		if ((k = nsconf_key_find(t.key)) == KEY_COUNT)
			return nsconf_error(p, "unknown key \"%s\"", t.key);
		if (seen & (1u << k))
			return nsconf_error(p, "duplicate key \"%s\"",
					   nsconf_keys[k].name);
		if ((seen & DIR_KEYS) && !((1u << k) & DIR_KEYS))
			return nsconf_error(p, "%s cannot be on a Dir line",
					   nsconf_keys[k].name);
		if ((seen & ~DIR_KEYS) && ((1u << k) & DIR_KEYS))
			return nsconf_error(p, "%s: Dir settings take a line of "
					   "their own (NodeName= may start "
					   "it)", nsconf_keys[k].name);
		seen |= 1u << k;
		if (!*t.value)
			return nsconf_error(p, "%s: empty value",
					    nsconf_keys[k].name);
		if (nsconf_keys[k].parse(p, target, nsconf_keys[k].name,
					 t.value) < 0)
			return -1;
		if (target == p->conf)
			key_applied(p, k);
	}
}

/*
 * Run one pass over text, every bad line reported.  Returns 0, or -1 with
 * errno set (EINVAL after reporting each bad line).
 */
int nsconf_text_parse(struct parser *p, const char *text, bool pass2)
{
	struct nsconf scratch = { .base_path = NULL };
	struct confread r;
	int rc, errors = 0;

	confread_init(&r, text);
	p->pass2 = pass2;
	/*
	 * A bad line is reported and the next one read, so that one run
	 * names every bad line of the file (devns check, slurmd's log); the
	 * file still fails.  Out of memory stops at once.
	 */
	while ((rc = confread_line(&r)) > 0) {
		rc = line_parse(p, &r, pass2, &scratch);
		nsconf_clear(&scratch);
		if (rc < 0 && errno != EINVAL)
			break;
		errors += rc < 0;
	}
	/* A control byte ends the reading: the line it is on is unknown. */
	if (rc < 0 && errno == EINVAL && r.bad_column) {
		p->line = r.line;
		nsconf_error(p, "control character 0x%02x in column %d",
			    r.bad_byte, r.bad_column);
	}
	confread_free(&r);
	if (rc == 0 && errors) {
		errno = EINVAL;
		rc = -1;
	}
	return rc;
}
