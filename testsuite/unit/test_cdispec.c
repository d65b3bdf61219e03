/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_cdispec.c - CDI specs (dev/cdidoc.h, dev/cdispec.h) and the
 * companion devices they give a job (dev/devcdi.h), all on a scratch tree
 * made here (root: mknod, and spec files must be root's): the same
 * nvidia-ctk style spec, with MIG devices, read from JSON and from YAML;
 * parse errors naming file and line; hostPath; which devices a job
 * holding GPU 1, or one MIG instance, or no GPU gets, and the checks on
 * spec directories (a spec others may write, a link, a missing directory);
 * a spec-wide node that is a GRES device (issue 42 item 6).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dev/cdispec.h"
#include "dev/devcdi.h"
#include "dev/devpolicy.h"
#include "util/saferm.h"
#include "devaccess.h"
#include "tap.h"

/* nvidia-ctk's layout; @ is replaced by the scratch tree's path. */
static const char spec_json[] =
	"{\n"
	"  \"cdiVersion\": \"0.5.0\",\n"
	"  \"kind\": \"nvidia.com/gpu\",\n"
	"  \"devices\": [\n"
	"    {\"name\": \"0\", \"containerEdits\": {\"deviceNodes\": [\n"
	"      {\"path\": \"@/nvidia0\"}]}},\n"
	"    {\"name\": \"1\", \"containerEdits\": {\"deviceNodes\": [\n"
	"      {\"path\": \"@/nvidia1\"}]}},\n"
	"    {\"name\": \"0:0\", \"containerEdits\": {\"deviceNodes\": [\n"
	"      {\"path\": \"@/nvidia0\"},\n"
	"      {\"path\": \"@/caps/nvidia-cap21\"},\n"
	"      {\"path\": \"@/caps/nvidia-cap22\"}]}},\n"
	"    {\"name\": \"0:1\", \"containerEdits\": {\"deviceNodes\": [\n"
	"      {\"path\": \"@/nvidia0\"},\n"
	"      {\"path\": \"@/caps/nvidia-cap30\"},\n"
	"      {\"path\": \"@/caps/nvidia-cap31\"}]}},\n"
	"    {\"name\": \"all\", \"containerEdits\": {\"deviceNodes\": [\n"
	"      {\"path\": \"@/nvidia0\"}, {\"path\": \"@/nvidia1\"}]}}\n"
	"  ],\n"
	"  \"containerEdits\": {\n"
	"    \"env\": [\"NVIDIA_VISIBLE_DEVICES=void\"],\n"
	"    \"deviceNodes\": [\n"
	"      {\"path\": \"@/nvidiactl\"},\n"
	"      {\"path\": \"@/nvidia-uvm\", \"type\": \"c\", \"major\": 511},\n"
	"      {\"path\": \"/dev/nvidia-modeset\", \"hostPath\": \"@/modeset\"}\n"
	"    ],\n"
	"    \"hooks\": [{\"hookName\": \"createContainer\", \"path\": "
	"\"/usr/bin/nvidia-ctk\", \"args\": [\"nvidia-ctk\", \"hook\"]}]\n"
	"  }\n"
	"}\n";

static const char spec_yaml[] =
	"---\n"
	"# written by nvidia-ctk cdi generate\n"
	"cdiVersion: 0.5.0\n"
	"containerEdits:\n"
	"  deviceNodes:\n"
	"  - path: @/nvidiactl\n"
	"  - path: '@/nvidia-uvm'   # the UVM node\n"
	"    type: c\n"
	"  - hostPath: @/modeset\n"
	"    path: /dev/nvidia-modeset\n"
	"  env:\n"
	"  - NVIDIA_VISIBLE_DEVICES=void\n"
	"  hooks:\n"
	"  - args:\n"
	"    - nvidia-ctk\n"
	"    - hook\n"
	"    - --link\n"
	"    - ../card1::/dev/dri/by-path/pci-0000:3b:00.0-card\n"
	"    hookName: createContainer\n"
	"    path: /usr/bin/nvidia-ctk\n"
	"  mounts: []\n"
	"devices:\n"
	"- containerEdits:\n"
	"    deviceNodes:\n"
	"    - path: @/nvidia0\n"
	"  name: \"0\"\n"
	"- containerEdits:\n"
	"    deviceNodes:\n"
	"    - path: @/nvidia1\n"
	"  name: \"1\"\n"
	"- containerEdits:\n"
	"    deviceNodes:\n"
	"    - path: @/nvidia0\n"
	"    - path: @/caps/nvidia-cap21\n"
	"    - path: @/caps/nvidia-cap22\n"
	"  name: \"0:0\"\n"
	"- name: '0:1'\n"
	"  containerEdits:\n"
	"    deviceNodes:\n"
	"      - path: @/nvidia0\n"
	"      - path: \"@/caps/nvidia-cap30\"\n"
	"      - path: @/caps/nvidia-cap31\n"
	"- containerEdits:\n"
	"    deviceNodes:\n"
	"    - path: @/nvidia0\n"
	"    - path: @/nvidia1\n"
	"  name: all\n"
	"kind: nvidia.com/gpu\n";

static char tmp[] = "/var/tmp/test_cdispec.XXXXXX";

/* text with each @ replaced by dir, to free(). */
static char *fill(const char *text, const char *dir)
{
	size_t n = strlen(text) + 1, used = 0;
	char *out;

	for (const char *s = text; *s; s++)
		n += *s == '@' ? strlen(dir) : 0;
	if (!(out = malloc(n)))
		abort();
	for (const char *s = text; *s; s++) {
		if (*s == '@')
			used += (size_t)sprintf(out + used, "%s", dir);
		else
			out[used++] = *s;
	}
	out[used] = '\0';
	return out;
}

/* Scratch tree: the nodes a GPU node has, and a spec directory. */
static int node(const char *name, unsigned maj, unsigned min)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	return mknod(path, S_IFCHR | 0600, makedev(maj, min));
}

static int put(const char *name, const char *text, mode_t mode)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	if (!(f = fopen(path, "w")))
		return -1;
	fputs(text, f);
	return fclose(f) | chmod(path, mode);
}

static char *at(const char *name)
{
	static char paths[32][PATH_MAX];
	static int n;
	char *p = paths[n++ % 32];

	snprintf(p, PATH_MAX, "%s/%s", tmp, name);
	return p;
}

static void want_spec(const struct cdispec *s, const char *what,
		      int shared_line)
{
	ok(s->kind && !strcmp(s->kind, "nvidia.com/gpu"), "%s: kind", what);
	if (!ok(s->ndevs == 5, "%s: five devices", what))
		return;
	is_str(s->devs[2].name, "0:0", "%s: the MIG device's name", what);
	is_int(s->devs[2].count, 3, "%s: with its GPU and two caps", what);
	is_str(s->devs[2].nodes[1], "/d/caps/nvidia-cap21",
	       "%s: its first cap", what);
	is_str(s->devs[0].name, "0", "%s: a quoted \"0\" is the name 0",
	       what);
	is_int(s->devs[4].count, 2, "%s: \"all\" has both GPUs", what);
	if (!ok(s->nshared == 3, "%s: three shared nodes", what))
		return;
	is_str(s->shared[0], "/d/nvidiactl", "%s: nvidiactl shared", what);
	is_str(s->shared[1], "/d/nvidia-uvm", "%s: a quoted path", what);
	is_str(s->shared[2], "/d/modeset", "%s: hostPath wins over path",
	       what);
	is_int(s->shared_line, shared_line, "%s: containerEdits' line", what);
}

/*
 * Loads the directory dir of the scratch tree, made here, after writing
 * text into its spec name, as a node's spec directories are loaded (from
 * "/", root's files only).  Returns what cdiset_load returns.
 */
static int load_one(const char *dir, const char *name, const char *text,
		    struct cdiset *set, struct report *rep)
{
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "%s/%s", dir, name);
	if ((mkdir(at(dir), 0755) < 0 && errno != EEXIST) ||
	    put(rel, text, 0644) < 0)
		return -2;
	report_init(rep, NULL, NULL);
	errno = 0;
	return cdiset_load(set, at(dir), rep);
}

/* The same spec, as JSON and as YAML, with its nodes in /d. */
static void test_parse(void)
{
	char *json = fill(spec_json, "/d"), *yaml = fill(spec_yaml, "/d");
	struct cdiset set;
	struct report rep;

	if (ok(load_one("json", "nvidia.json", json, &set, &rep) == 1,
	       "an nvidia-ctk JSON spec parses"))
		want_spec(&set.specs[0], "json", 20);
	else
		diag("%s", rep.msg);
	cdiset_free(&set);
	if (ok(load_one("yaml", "nvidia.yaml", yaml, &set, &rep) == 1,
	       "the same spec as nvidia-ctk's YAML parses"))
		want_spec(&set.specs[0], "yaml", 4);
	else
		diag("%s", rep.msg);
	cdiset_free(&set);
	free(json);
	free(yaml);
}

/*
 * text must fail to parse as file (the only spec of its directory), the
 * message starting with the file's path and want.
 */
static void bad(const char *file, const char *text, const char *want,
		const char *what)
{
	char full[PATH_MAX + 256], rel[PATH_MAX];
	struct cdiset set;
	struct report rep;

	snprintf(rel, sizeof(rel), "bad-spec/%s", file);
	snprintf(full, sizeof(full), "%s/%s", tmp, want);
	ok(load_one("bad-spec", file, text, &set, &rep) == -1 &&
	   errno == EINVAL, "%s: refused", what);
	if (!ok(!strncmp(rep.msg, full, strlen(full)), "  \"%s...\"", full))
		diag("  got \"%s\"", rep.msg);
	ok(set.count == 0 && set.specs == NULL, "  and the set left empty");
	unlink(at(rel));
}

/* Each message names the spec file as the load found it. */
static void test_errors(void)
{
	bad("a.json", "{\"cdiVersion\": \"0.5.0\",\n\"kind\": \"x/y\"\n"
	    "\"devices\": []}\n", "bad-spec/a.json:3: expected ',' or '}'",
	    "JSON: a missing comma");
	bad("a.json", "{\"cdiVersion\": \"0.5.0\",\n\"kind\": \"x/y\",\n"
	    "\"devices\": [\n{\"containerEdits\": {}}]}\n",
	    "bad-spec/a.json:4: devices[0]: \"name\" is missing",
	    "JSON: a device without a name");
	bad("a.json", "{\"kind\": \"x/y\",\n\"kind\": \"x/y\"}",
	    "bad-spec/a.json:2: member \"kind\" given twice",
	    "JSON: a key twice");
	bad("a.json", "{\"a\": tru}",
	    "bad-spec/a.json:1: invalid value \"tru\"", "JSON: a bad word");
	bad("b.yaml", "cdiVersion: 0.5.0\nkind: x/y\ndevices:\n- name: a\n"
	    "   containerEdits: {}\n",
	    "bad-spec/b.yaml:5: unexpected indentation",
	    "YAML: a key indented too far");
	bad("b.yaml", "cdiVersion: 0.5.0\nkind: &k x/y\n",
	    "bad-spec/b.yaml:2: \"&k x/y\": this YAML", "YAML: an anchor");
	bad("b.yaml", "cdiVersion: 0.5.0\n\tkind: x/y\n",
	    "bad-spec/b.yaml:2: tab in indentation", "YAML: a tab");
	bad("b.yaml", "cdiVersion: 0.5.0\nkind: x/y\ndevices:\n- name: a\n"
	    "  containerEdits:\n    deviceNodes:\n    - path: dev/x\n",
	    "bad-spec/b.yaml:7: device \"a\": deviceNodes[0]: \"dev/x\" is "
	    "not an absolute path", "YAML: a relative node path");
	bad("b.yml", "cdiVersion: 0.5.0\ndevices:\n- name: a\n",
	    "bad-spec/b.yml:1: spec: \"kind\" is missing", "YAML: no kind");
	bad("b.yml", "cdiVersion: 0.5.0\nkind: x/y\ndevices:\n- name: a\n"
	    "  containerEdits: |\n", "bad-spec/b.yml:5: \"|\": this YAML",
	    "YAML: a block scalar");
	bad("b.yml", "cdiVersion: \"0.5.0\nkind: x/y\n",
	    "bad-spec/b.yml:1: unterminated string", "YAML: an open quote");
}

/* The access a job's list gives to c MAJOR:MINOR. */
#define ACCESS(l, maj, min) devaccess(l, 'c', maj, min)

static void test_job_lists(void)
{
	const char *node_gpus[] = { at("nvidia0"), at("nvidia1"), NULL };
	const char *job_gpu1[] = { at("nvidia1"), NULL };
	const char *node_mig[] = { at("nvidia0"), at("caps/nvidia-cap21"),
				   at("caps/nvidia-cap30"), NULL };
	const char *job_mig1[] = { at("nvidia0"), at("caps/nvidia-cap30"),
				   NULL };
	struct devpolicy closed, open;
	struct devrule_list l;
	struct report rep;
	int rc;

	report_init(&rep, NULL, NULL);
	rc = devpolicy_load_lines(&closed, DEVPOLICY_CLOSED, NULL, 0,
				  at("devices"), &rep);
	rc |= devpolicy_load_lines(&open, DEVPOLICY_AUTO, NULL, 0,
				   at("devices"), &rep);
	if (!ok(rc == 0, "precondition: closed and open policies load"))
		return diag("%s", rep.msg);
	ok(devpolicy_load_cdi(&closed, at("cdi"), &rep) == 0 &&
	   devpolicy_load_cdi(&open, at("cdi"), &rep) == 0,
	   "CDISpecDirs loads into both");
	if (!ok(closed.cdi && closed.cdi->set.count == 1,
		"  one spec read (the .txt file passed over)"))
		return diag("%s", rep.msg);
	is_int(rep.warnings, 2, "  a missing node warned about, per policy");

	/* Full GPUs: the job holds GPU 1. */
	if (!ok(devpolicy_build(&closed, node_gpus, job_gpu1, &l, &rep) == 0,
		"closed: GPU 1's list builds"))
		diag("%s", rep.msg);
	is_int(ACCESS(&l, 195, 1), DEVRULE_RWM, "  its GPU");
	is_int(ACCESS(&l, 195, 255), DEVRULE_RWM, "  nvidiactl (shared)");
	is_int(ACCESS(&l, 511, 0), DEVRULE_RWM, "  nvidia-uvm (shared)");
	is_int(ACCESS(&l, 195, 254), DEVRULE_RWM, "  modeset, by hostPath");
	is_int(ACCESS(&l, 195, 0), 0, "  never GPU 0");
	is_int(ACCESS(&l, 236, 21), 0, "  nor GPU 0's MIG caps");
	devrule_list_free(&l);
	ok(devpolicy_build(&open, node_gpus, job_gpu1, &l, &rep) == 0,
	   "open (auto, no DeviceAllow): GPU 1's list builds");
	is_int(ACCESS(&l, 236, 21), 0, "  GPU 0's caps pinned shut there too");
	is_int(ACCESS(&l, 195, 0), 0, "  and GPU 0");
	is_int(ACCESS(&l, 1, 3), DEVRULE_RWM, "  the rest stays open");
	devrule_list_free(&l);

	/* MIG: the job holds instance 0:1, GRES files GPU 0 and cap30. */
	ok(devpolicy_build(&closed, node_mig, job_mig1, &l, &rep) == 0,
	   "closed: MIG 0:1's list builds");
	is_int(ACCESS(&l, 236, 30), DEVRULE_RWM, "  its GRES cap");
	is_int(ACCESS(&l, 236, 31), DEVRULE_RWM, "  its other cap, from CDI");
	is_int(ACCESS(&l, 195, 0), DEVRULE_RWM, "  its GPU");
	is_int(ACCESS(&l, 195, 255), DEVRULE_RWM, "  nvidiactl");
	is_int(ACCESS(&l, 236, 21), 0, "  not 0:0's GRES cap");
	is_int(ACCESS(&l, 195, 1), 0, "  nor GPU 1 (\"all\" is not its)");
	devrule_list_free(&l);

	/* No GPU: nothing of the spec. */
	ok(devpolicy_build(&closed, node_gpus, NULL, &l, &rep) == 0,
	   "closed: a job without GPU builds");
	is_int(ACCESS(&l, 195, 255), 0, "  no nvidiactl (the policy's say)");
	is_int(ACCESS(&l, 236, 31), 0, "  no cap");
	devrule_list_free(&l);
	ok(devpolicy_build(&open, node_gpus, NULL, &l, &rep) == 0,
	   "open: a job without GPU builds");
	is_int(ACCESS(&l, 195, 255), DEVRULE_RWM,
	       "  nvidiactl as the open policy has it");
	is_int(ACCESS(&l, 236, 31), 0, "  but no cap");
	devrule_list_free(&l);

	/* Both GPUs: "all" is the job's. */
	ok(devpolicy_build(&closed, node_gpus, node_gpus, &l, &rep) == 0 &&
	   ACCESS(&l, 195, 0) == DEVRULE_RWM &&
	   ACCESS(&l, 195, 1) == DEVRULE_RWM,
	   "closed: both GPUs, both allowed");
	ok(devcdi_selected(closed.cdi, 0, 4, node_gpus, node_gpus) &&
	   !devcdi_selected(closed.cdi, 0, 4, node_gpus, job_gpu1),
	   "  \"all\" is the job's with both GPUs, not with one");
	devrule_list_free(&l);
	devpolicy_free(&closed);
	devpolicy_free(&open);
}

/*
 * A spec whose spec-wide deviceNodes list GPU 0 by another path of the
 * same device number (c 195:0): before, every job holding any device of
 * the spec (GPU 1) got GPU 0 through the shared nodes.  Now the GRES pin
 * stands, and checking the node's GRES warns with the spec's file:line.
 */
static const char spec_shared_gres[] =
	"cdiVersion: 0.5.0\n"
	"kind: nvidia.com/gpu\n"
	"devices:\n"
	"- name: \"0\"\n"
	"  containerEdits:\n"
	"    deviceNodes:\n"
	"    - path: @/nvidia0\n"
	"- name: \"1\"\n"
	"  containerEdits:\n"
	"    deviceNodes:\n"
	"    - path: @/nvidia1\n"
	"containerEdits:\n"
	"  deviceNodes:\n"
	"  - path: @/nvidiactl\n"
	"  - path: @/gpu0-alias\n";

static char last_warning[REPORT_MSG_MAX];

static void keep_warning(enum report_level level, const char *msg, void *arg)
{
	(void)arg;
	if (level == REPORT_WARNING)
		snprintf(last_warning, sizeof(last_warning), "%s", msg);
}

static void test_shared_gres(void)
{
	const char *node_gpus[] = { at("nvidia0"), at("nvidia1"), NULL };
	const char *job_gpu0[] = { at("nvidia0"), NULL };
	const char *job_gpu1[] = { at("nvidia1"), NULL };
	char *yaml = fill(spec_shared_gres, tmp), want[PATH_MAX + 128];
	struct devpolicy p;
	struct devrule_list l;
	struct report rep;

	report_init(&rep, NULL, NULL);
	if (!ok(node("gpu0-alias", 195, 0) == 0 &&
		mkdir(at("cdi-gres"), 0755) == 0 &&
		put("cdi-gres/nvidia.yaml", yaml, 0644) == 0 &&
		devpolicy_load_lines(&p, DEVPOLICY_CLOSED, NULL, 0,
				     at("devices"), &rep) == 0 &&
		devpolicy_load_cdi(&p, at("cdi-gres"), &rep) == 0 &&
		p.cdi && p.cdi->set.count == 1 &&
		p.cdi->specs[0].shared.count == 2,
		"precondition: a spec whose shared nodes hold c 195:0 (GPU 0 "
		"by another path) loads")) {
		diag("%s", rep.msg);
		goto out;
	}
	ok(devpolicy_build(&p, node_gpus, job_gpu1, &l, &rep) == 0,
	   "closed: GPU 1's list builds");
	is_int(ACCESS(&l, 195, 1), DEVRULE_RWM, "  its GPU");
	is_int(ACCESS(&l, 195, 255), DEVRULE_RWM, "  nvidiactl (shared)");
	is_int(ACCESS(&l, 195, 0), 0,
	       "  not GPU 0, though the spec lists it as shared");
	devrule_list_free(&l);
	ok(devpolicy_build(&p, node_gpus, job_gpu0, &l, &rep) == 0 &&
	   ACCESS(&l, 195, 0) == DEVRULE_RWM && ACCESS(&l, 195, 1) == 0,
	   "the job allocated GPU 0 still gets it, and not GPU 1");
	devrule_list_free(&l);

	report_init(&rep, keep_warning, NULL);
	ok(devpolicy_check_gres(&p, node_gpus, &rep) == 0 &&
	   rep.errors == 0, "checking the node's GRES: no error");
	is_int(rep.warnings, 1, "  one warning");
	snprintf(want, sizeof(want), "%s:12: nvidia.com/gpu containerEdits: "
		 "device node %s is GRES device %s (c 195:0): left out",
		 at("cdi-gres/nvidia.yaml"), at("gpu0-alias"), at("nvidia0"));
	if (!ok(rep.warnings == 1 && last_warning[0] &&
		!strncmp(last_warning, want, strlen(want)),
		"  naming the spec's file:line, the node and the GRES file"))
		diag("  got \"%s\"\n#   want \"%s...\"", last_warning, want);
	report_init(&rep, NULL, NULL);
	ok(devpolicy_check_gres(&p, job_gpu1, &rep) == 0 && rep.warnings == 0,
	   "  no warning where GPU 0 is no GRES device");
	devpolicy_free(&p);
out:
	free(yaml);
}

/* devpolicy_load_cdi(dirs) fails, the message starting with want. */
static void load_fails(const char *dirs, const char *want, const char *what)
{
	struct devpolicy p;
	struct report rep;

	report_init(&rep, NULL, NULL);
	if (!ok(devpolicy_load_lines(&p, DEVPOLICY_CLOSED, NULL, 0,
				     at("devices"), &rep) == 0,
		"precondition: a policy loads"))
		return;
	ok(devpolicy_load_cdi(&p, dirs, &rep) == -1 && p.cdi == NULL,
	   "%s: the load fails", what);
	if (!ok(!strncmp(rep.msg, want, strlen(want)), "  \"%s...\"", want))
		diag("  got \"%s\"", rep.msg);
	devpolicy_free(&p);
}

/* DevicePolicy=none: the key does nothing, and says so. */
static void test_none(void)
{
	struct devpolicy p;
	struct report rep;

	report_init(&rep, NULL, NULL);
	if (!ok(devpolicy_load_lines(&p, DEVPOLICY_NONE, NULL, 0,
				     at("devices"), &rep) == 0,
		"precondition: DevicePolicy=none"))
		return;
	ok(devpolicy_load_cdi(&p, at("bad"), &rep) == 0 && p.cdi == NULL,
	   "none: CDISpecDirs reads nothing (not even a bad spec)");
	is_int(rep.warnings, 1, "  and warns that it has no effect");
	devpolicy_free(&p);
}

static void test_dirs(const char *yaml)
{
	char want[PATH_MAX + 64], link_to[PATH_MAX];
	struct cdiset set;
	struct report rep;

	report_init(&rep, NULL, NULL);
	is_int(cdiset_load(&set, at("none"), &rep), 0,
	       "a missing directory: no spec");
	is_int(rep.warnings, 1, "  and a warning");
	cdiset_free(&set);

	ok(mkdir(at("bad"), 0755) == 0 &&
	   put("bad/a.yaml", "cdiVersion: 0.5.0\nkind: x/y\n  devices:\n",
	       0644) == 0, "precondition: a spec that does not parse");
	snprintf(want, sizeof(want), "%s:3: unexpected indentation",
		 at("bad/a.yaml"));
	load_fails(at("bad"), want, "a bad spec");
	test_none();

	snprintf(link_to, sizeof(link_to), "%s/cdi/nvidia.yaml", tmp);
	ok(mkdir(at("linked"), 0755) == 0 &&
	   symlink(link_to, at("linked/nvidia.yaml")) == 0,
	   "precondition: a spec that is a link");
	snprintf(want, sizeof(want), "%s: cannot open", at("linked/nvidia.yaml"));
	load_fails(at("linked"), want, "a linked spec");

	ok(mkdir(at("open"), 0755) == 0 &&
	   put("open/nvidia.yaml", yaml, 0666) == 0,
	   "precondition: a spec everyone may write");
	snprintf(want, sizeof(want), "%s: owned by uid 0, mode 0666",
		 at("open/nvidia.yaml"));
	load_fails(at("open"), want, "a writable spec");

	ok(mkdir(at("wide"), 0755) == 0 && chmod(at("wide"), 0777) == 0,
	   "precondition: a spec directory everyone may write");
	snprintf(want, sizeof(want), "CDI spec directory %s: owned by uid 0, "
		 "mode 0777", at("wide"));
	load_fails(at("wide"), want, "a writable directory");

	ok(symlink(at("cdi"), at("cdilink")) == 0,
	   "precondition: a link to the spec directory");
	snprintf(want, sizeof(want), "CDI spec directory %s: ",
		 at("cdilink"));
	load_fails(at("cdilink"), want, "a directory through a link");
}

static void test_nodes(void)
{
	char *yaml = NULL;
	int fd;

	if (!tap_root()) {
		tap_skip("the scratch tree needs root (mknod)");
		return;
	}
	yaml = fill(spec_yaml, mkdtemp(tmp) ? tmp : "/nonexistent");
	if (!ok(chmod(tmp, 0755) == 0 && node("nvidia0", 195, 0) == 0 &&
		node("nvidia1", 195, 1) == 0 &&
		node("nvidiactl", 195, 255) == 0 &&
		node("modeset", 195, 254) == 0 &&
		node("nvidia-uvm", 511, 0) == 0 &&
		mkdir(at("caps"), 0755) == 0 &&
		node("caps/nvidia-cap21", 236, 21) == 0 &&
		node("caps/nvidia-cap30", 236, 30) == 0 &&
		node("caps/nvidia-cap31", 236, 31) == 0 &&
		mkdir(at("cdi"), 0755) == 0 &&
		put("cdi/nvidia.yaml", yaml, 0644) == 0 &&
		put("cdi/README.txt", "not a spec\n", 0644) == 0 &&
		put("devices", "Character devices:\n136 pts\n", 0644) == 0,
		"precondition: a scratch GPU node (cap22 missing)"))
		goto out;
	test_parse();
	test_errors();
	test_job_lists();
	test_shared_gres();
	test_dirs(yaml);
out:
	free(yaml);
	fd = open("/var/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);
	ok(fd >= 0 && saferm_at(fd, strrchr(tmp, '/') + 1) == 0,
	   "the scratch tree is removed");
	if (fd >= 0)
		close(fd);
}

int main(void)
{
	test_nodes();
	return tap_done();
}
