/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_confpath.c - unit tests of confpath_slurm(): $SLURM_CONF first,
 * whether it exists or not; then Slurm's default file when it exists;
 * then slurmd's configless cache, its /run/slurm/conf link before the
 * spool directory's conf-cache; the default file when none exists; a
 * path too long.  The places are files of a scratch directory.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "conf/confpath.h"

static char tmp[] = "/var/tmp/test_confpath.XXXXXX";

static const char *at(const char *rel)
{
	static char buf[4][PATH_MAX];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", tmp, rel);
	return buf[i];
}

static int touch(const char *path)
{
	FILE *f = fopen(path, "w");

	return f && fclose(f) == 0 ? 0 : -1;
}

int main(void)
{
	char etc[PATH_MAX], run[PATH_MAX], spool[PATH_MAX], out[PATH_MAX];
	char small[8];
	struct confpath_places p;

	if (!mkdtemp(tmp)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	snprintf(etc, sizeof(etc), "%s", at("etc/slurm.conf"));
	snprintf(run, sizeof(run), "%s", at("run"));
	snprintf(spool, sizeof(spool), "%s", at("spool/conf-cache"));
	if (mkdir(at("etc"), 0755) < 0 || mkdir(run, 0755) < 0 ||
	    mkdir(at("spool"), 0755) < 0 || mkdir(spool, 0755) < 0) {
		printf("Bail out! mkdir: %s\n", strerror(errno));
		return 1;
	}
	p = (struct confpath_places){
		.env = NULL, .file = etc, .run_cache = run,
		.spool_cache = spool,
	};

	is_int(confpath_slurm(&p, out, sizeof(out)), CONFPATH_NONE,
	       "nothing anywhere: none");
	is_str(out, etc, "  the default file");

	ok(touch(at("spool/conf-cache/slurm.conf")) == 0,
	   "precondition: a cache in the spool directory");
	is_int(confpath_slurm(&p, out, sizeof(out)), CONFPATH_CACHE,
	       "no file, the spool's cache: the cache");
	is_str(out, at("spool/conf-cache/slurm.conf"), "  its slurm.conf");

	ok(touch(at("run/slurm.conf")) == 0,
	   "precondition: slurmd's /run/slurm/conf too");
	is_int(confpath_slurm(&p, out, sizeof(out)), CONFPATH_CACHE,
	       "both caches: /run/slurm/conf's");
	is_str(out, at("run/slurm.conf"), "  (the link slurmd made)");

	ok(touch(etc) == 0, "precondition: the default file exists");
	is_int(confpath_slurm(&p, out, sizeof(out)), CONFPATH_FILE,
	       "the default file beats the caches");
	is_str(out, etc, "  its path");

	p.env = at("nonexistent.conf");
	is_int(confpath_slurm(&p, out, sizeof(out)), CONFPATH_ENV,
	       "$SLURM_CONF beats all, even missing (as Slurm's commands)");
	is_str(out, at("nonexistent.conf"), "  its path");
	p.env = "";
	is_int(confpath_slurm(&p, out, sizeof(out)), CONFPATH_FILE,
	       "an empty $SLURM_CONF is none");

	errno = 0;
	is_int(confpath_slurm(&p, small, sizeof(small)), -1,
	       "a path too long: -1");
	is_int(errno, ENAMETOOLONG, "  ENAMETOOLONG");

	unlink(etc);
	unlink(at("run/slurm.conf"));
	unlink(at("spool/conf-cache/slurm.conf"));
	rmdir(spool);
	rmdir(at("spool"));
	rmdir(run);
	rmdir(at("etc"));
	ok(rmdir(tmp) == 0, "scratch directory removed");
	return tap_done();
}
