/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * admincomment.h - adding devns's line to a job's AdminComment.
 *
 * The AdminComment is shared: the site, its job_submit plugin and other
 * plugins write there too, so devns appends its entry after what is there,
 * separated by "; ", and never replaces or cuts that text.  What devns adds
 * is bounded (ADMINCOMMENT_ENTRY_MAX bytes), and so is the total it lets
 * the comment reach (ADMINCOMMENT_MAX): a job requeued and failing again
 * and again cannot grow its comment without limit.  Slurm itself sets no
 * limit on an AdminComment update.
 */
#ifndef DEVNS_ADMINCOMMENT_H
#define DEVNS_ADMINCOMMENT_H

/* Between what was there and devns's entry. */
#define ADMINCOMMENT_SEP "; "
/* The most bytes devns's entry takes (the separator not counted). */
#define ADMINCOMMENT_ENTRY_MAX 512
/* The longest comment devns's entry may make (without the NUL). */
#define ADMINCOMMENT_MAX 2048
/* An entry is shortened to fit the total only down to this many bytes;
 * below that it is left out. */
#define ADMINCOMMENT_ENTRY_MIN 64
/* What marks an entry devns shortened. */
#define ADMINCOMMENT_CUT "..."

/*
 * Returns a new string (free() it): old (NULL or "" for none), then
 * ADMINCOMMENT_SEP when old is not empty, then entry.  In entry every
 * control byte (a newline of a verifier log, an escape) becomes a space,
 * and an entry over ADMINCOMMENT_ENTRY_MAX bytes, or one that would take
 * the comment past ADMINCOMMENT_MAX, is cut at a character boundary and
 * ends with ADMINCOMMENT_CUT.  old is never changed or cut.
 *
 * Returns NULL with errno:
 * - ENOSPC when fewer than ADMINCOMMENT_ENTRY_MIN bytes of entry fit under
 *   ADMINCOMMENT_MAX (the comment is left as it is; the caller logs the
 *   entry instead);
 * - EEXIST when old already holds the entry (as shortened) as one of its
 *   "; "-separated entries: the same failure again adds nothing;
 * - EINVAL when entry is NULL or empty; ENOMEM.
 */
char *admincomment_append(const char *old, const char *entry);

/*
 * admincomment_append() of entry after removing from old every
 * "; "-separated entry that starts with prefix (devns's earlier figures
 * of the same node, "devns:node1:"), so that a refreshed entry replaces
 * its last version instead of piling up; what others wrote stays as it
 * is.  Returns as admincomment_append() (EEXIST: old holds entry as it
 * is), or NULL with EINVAL for an empty prefix.
 */
char *admincomment_replace(const char *old, const char *prefix,
			   const char *entry);

#endif /* DEVNS_ADMINCOMMENT_H */
