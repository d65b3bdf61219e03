/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_devcomp.c - a vendor's GPU companion devices (dev/devcomp.h) in a
 * job's list (devpolicy_build): AMD GPUs are render nodes on the DRM major
 * (226, "drm") plus the shared /dev/kfd (a dynamic major, "kfd"), and a
 * job holding one render node must reach it and /dev/kfd, not the other
 * render nodes, under auto, closed and strict; card nodes where gres.conf
 * names them (MultipleFiles: card1 and renderD129 are one GPU).  Also: a
 * job without a GPU gets /dev/kfd only as the policy says, NVIDIA and
 * Intel-like nodes (no "kfd" class) get nothing added, and an unreadable
 * /proc/devices fails the job's list (fail closed).  And CDISpecDirs with
 * amd-ctk's spec, which lists /dev/kfd in every device.
 *
 * The nodes are mknod()ed in a scratch directory (skipped when mknod is
 * refused: not root), /proc/devices is a file written here.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dev/devcdi.h"
#include "dev/devcomp.h"
#include "dev/devpolicy.h"
#include "devaccess.h"
#include "tap.h"

#define DRM 226u
#define KFD 508u	/* dynamic: whatever /proc/devices says */
#define NV 195u

static char tmp[] = "/tmp/test_devcomp.XXXXXX";
static char with_kfd[PATH_MAX], without_kfd[PATH_MAX], missing[PATH_MAX];

static const char proc_amd[] =
	"Character devices:\n"
	"  1 mem\n"
	"  5 /dev/tty\n"
	"136 pts\n"
	"195 nvidia-frontend\n"
	"226 drm\n"
	"508 kfd\n"
	"\n"
	"Block devices:\n"
	"  7 loop\n";

/* A node whose DRM GPUs have no amdkfd (Intel's). */
static const char proc_intel[] =
	"Character devices:\n"
	"  1 mem\n"
	"136 pts\n"
	"226 drm\n"
	"\n"
	"Block devices:\n"
	"  7 loop\n";

/*
 * amd-ctk's layout ("amd-ctk cdi generate"): no spec-wide containerEdits,
 * /dev/kfd among the nodes of every device, "all" with every GPU; @ is the
 * scratch tree.
 */
static const char amd_spec[] =
	"{\"cdiVersion\":\"0.6.0\",\"kind\":\"amd.com/gpu\",\"devices\":[\n"
	"{\"name\":\"0\",\"containerEdits\":{\"deviceNodes\":[\n"
	" {\"path\":\"@/card0\",\"type\":\"c\",\"major\":226,\"minor\":0,"
	"\"fileMode\":8624,\"permissions\":\"rw\",\"uid\":0,\"gid\":44},\n"
	" {\"path\":\"@/renderD128\",\"type\":\"c\",\"major\":226,"
	"\"minor\":128,\"permissions\":\"rw\"},\n"
	" {\"path\":\"@/kfd\",\"type\":\"c\",\"major\":508,\"minor\":0}]}},\n"
	"{\"name\":\"1\",\"containerEdits\":{\"deviceNodes\":[\n"
	" {\"path\":\"@/card1\"},{\"path\":\"@/renderD129\"},"
	"{\"path\":\"@/kfd\"}]}},\n"
	"{\"name\":\"all\",\"containerEdits\":{\"deviceNodes\":[\n"
	" {\"path\":\"@/card0\"},{\"path\":\"@/renderD128\"},"
	"{\"path\":\"@/card1\"},{\"path\":\"@/renderD129\"},"
	"{\"path\":\"@/kfd\"}]}}]}\n";

static char *at(const char *name)
{
	static char buf[16][PATH_MAX];
	static int n;
	char *p = buf[n++ % 16];

	snprintf(p, PATH_MAX, "%s/%s", tmp, name);
	return p;
}

static int put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	if (fputs(text, f) < 0) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

static int node(const char *name, unsigned maj, unsigned min)
{
	return mknod(at(name), S_IFCHR | 0600, makedev(maj, min));
}

/* The scratch tree: 4 render nodes, 2 card nodes, kfd, an NVIDIA GPU. */
static int setup(void)
{
	char name[32];
	int rc = 0;

	if (!mkdtemp(tmp))
		return -1;
	snprintf(with_kfd, sizeof(with_kfd), "%s/devices", tmp);
	snprintf(without_kfd, sizeof(without_kfd), "%s/devices-intel", tmp);
	snprintf(missing, sizeof(missing), "%s/devices-gone", tmp);
	if (put(with_kfd, proc_amd) < 0 || put(without_kfd, proc_intel) < 0 ||
	    put(missing, proc_amd) < 0)
		return -1;
	for (unsigned i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "renderD%u", 128 + i);
		rc |= node(name, DRM, 128 + i);
	}
	rc |= node("card0", DRM, 0);
	rc |= node("card1", DRM, 1);
	rc |= node("kfd", KFD, 0);
	rc |= node("nvidia0", NV, 0);
	return rc;
}

static void teardown(void)
{
	const char *names[] = { "cdi/amd.json", "renderD128", "renderD129", "renderD130",
				"renderD131", "card0", "card1", "kfd",
				"nvidia0", "devices", "devices-intel",
				"devices-gone", NULL };

	for (size_t i = 0; names[i]; i++)
		unlink(at(names[i]));
	rmdir(at("cdi"));
	rmdir(tmp);
}

/* A policy of mode (DeviceAllow allow, NULL: none) on proc. */
static int load(struct devpolicy *p, enum devpolicy_mode mode,
		const char *allow, const char *proc, struct report *rep)
{
	const struct devpolicy_allow line = { .value = allow,
					      .where = "t.conf:1" };

	return devpolicy_load_lines(p, mode, allow ? &line : NULL,
				    allow ? 1 : 0, proc, rep);
}

#define ACCESS(l, maj, min) devaccess(l, 'c', maj, min)

/* One job holding render node 129 on a node of four, in each mode. */
static void test_modes(void)
{
	const char *node_gres[] = { at("renderD128"), at("renderD129"),
				    at("renderD130"), at("renderD131"), NULL };
	const char *job_gres[] = { at("renderD129"), NULL };
	static const struct {
		enum devpolicy_mode mode;
		const char *allow;
		const char *name;
		unsigned others;	/* what a device no rule names gets */
	} modes[] = {
		{ DEVPOLICY_AUTO, NULL, "auto", DEVRULE_RWM },
		{ DEVPOLICY_AUTO, "/dev/null:rw", "auto+DeviceAllow", 0 },
		{ DEVPOLICY_CLOSED, NULL, "closed", 0 },
		{ DEVPOLICY_STRICT, NULL, "strict", 0 },
	};
	struct report rep;

	for (size_t m = 0; m < sizeof(modes) / sizeof(*modes); m++) {
		const char *name = modes[m].name;
		struct devrule_list l;
		struct devpolicy p;

		report_init(&rep, NULL, NULL);
		if (!ok(load(&p, modes[m].mode, modes[m].allow, with_kfd,
			     &rep) == 0, "%s: the policy loads", name)) {
			diag("%s", rep.msg);
			continue;
		}
		if (!ok(devpolicy_build(&p, node_gres, job_gres, &l, &rep) == 0,
			"%s: renderD129's job builds", name)) {
			diag("%s", rep.msg);
			devpolicy_free(&p);
			continue;
		}
		is_int(ACCESS(&l, DRM, 129), DEVRULE_RWM, "  its render node");
		is_int(ACCESS(&l, KFD, 0), DEVRULE_RWM, "  /dev/kfd");
		is_int(ACCESS(&l, DRM, 128), 0, "  not renderD128");
		is_int(ACCESS(&l, DRM, 130), 0, "  not renderD130");
		is_int(ACCESS(&l, DRM, 131), 0, "  not renderD131");
		is_int(ACCESS(&l, NV, 0), modes[m].others,
		       "  another device as the mode says");
		ok(devrule_list_needs_filter(&l), "  a filter is needed");
		devrule_list_free(&l);

		/* The same node, a job without a GPU. */
		ok(devpolicy_build(&p, node_gres, NULL, &l, &rep) == 0,
		   "%s: a job without GPU builds", name);
		is_int(ACCESS(&l, KFD, 0), modes[m].others,
		       "  /dev/kfd only as the mode says");
		is_int(ACCESS(&l, DRM, 129), 0, "  no render node");
		devrule_list_free(&l);
		devpolicy_free(&p);
	}
}

/* Card nodes named in gres.conf (MultipleFiles=card1,renderD129). */
static void test_card_nodes(void)
{
	const char *node_gres[] = { at("card0"), at("renderD128"), at("card1"),
				    at("renderD129"), NULL };
	const char *job_gres[] = { at("card1"), at("renderD129"), NULL };
	struct devrule_list l;
	struct devpolicy p;
	struct report rep;

	report_init(&rep, NULL, NULL);
	if (!ok(load(&p, DEVPOLICY_STRICT, NULL, with_kfd, &rep) == 0 &&
		devpolicy_build(&p, node_gres, job_gres, &l, &rep) == 0,
		"strict, card and render node per GPU: the job builds"))
		return diag("%s", rep.msg);
	is_int(ACCESS(&l, DRM, 1), DEVRULE_RWM, "  its card node");
	is_int(ACCESS(&l, DRM, 129), DEVRULE_RWM, "  its render node");
	is_int(ACCESS(&l, KFD, 0), DEVRULE_RWM, "  /dev/kfd");
	is_int(ACCESS(&l, DRM, 0), 0, "  not the other card node");
	is_int(ACCESS(&l, DRM, 128), 0, "  not the other render node");
	devrule_list_free(&l);
	devpolicy_free(&p);

	/* A DeviceAllow class over DRM still leaves the other GPU out. */
	report_init(&rep, NULL, NULL);
	if (!ok(load(&p, DEVPOLICY_CLOSED, "char-drm:rw", with_kfd, &rep) == 0 &&
		devpolicy_build(&p, node_gres, job_gres, &l, &rep) == 0,
		"closed, DeviceAllow=char-drm:rw: the job builds"))
		return diag("%s", rep.msg);
	is_int(ACCESS(&l, DRM, 0), 0, "  not the other card node");
	is_int(ACCESS(&l, DRM, 128), 0, "  not the other render node");
	is_int(ACCESS(&l, DRM, 200), DEVRULE_R | DEVRULE_W,
	       "  a DRM node no GRES names: the class's");
	is_int(ACCESS(&l, KFD, 0), DEVRULE_RWM, "  /dev/kfd");
	devrule_list_free(&l);
	devpolicy_free(&p);
}

/* Who gets nothing added, and the failure that must refuse the job. */
static void test_not_amd(void)
{
	const char *nv_node[] = { at("nvidia0"), at("renderD128"), NULL };
	const char *nv_job[] = { at("nvidia0"), NULL };
	const char *amd_job[] = { at("renderD128"), NULL };
	struct parse_ctx ctx = { .proc_devices = with_kfd };
	struct devrule_list l;
	struct devpolicy p;
	struct report rep;

	report_init(&rep, NULL, NULL);
	ctx.rep = &rep;
	is_int(devcomp_applies(&ctx, &devcomp_vendors[0], amd_job), 1,
	       "devcomp: AMD's rule applies to a render node");
	is_int(devcomp_applies(&ctx, &devcomp_vendors[0], nv_job), 0,
	       "  not to an NVIDIA GPU");
	is_int(devcomp_applies(&ctx, &devcomp_vendors[0], NULL), 0,
	       "  nor to a job without GRES");
	devallow_classes_free(&ctx);

	if (ok(load(&p, DEVPOLICY_STRICT, NULL, with_kfd, &rep) == 0 &&
	       devpolicy_build(&p, nv_node, nv_job, &l, &rep) == 0,
	       "strict: an NVIDIA job builds")) {
		is_int(ACCESS(&l, NV, 0), DEVRULE_RWM, "  its GPU");
		is_int(ACCESS(&l, KFD, 0), 0, "  no /dev/kfd");
		devrule_list_free(&l);
		devpolicy_free(&p);
	}

	if (ok(load(&p, DEVPOLICY_STRICT, NULL, without_kfd, &rep) == 0 &&
	       devpolicy_build(&p, nv_node, amd_job, &l, &rep) == 0,
	       "strict, no \"kfd\" class (Intel): the DRM job builds")) {
		is_int(ACCESS(&l, DRM, 128), DEVRULE_RWM, "  its render node");
		is_int(ACCESS(&l, KFD, 0), 0, "  nothing else");
		is_int((int)l.count, 1, "  one rule");
		devrule_list_free(&l);
		devpolicy_free(&p);
	}

	/* /proc/devices gone between the node's load and the job. */
	report_init(&rep, NULL, NULL);
	if (ok(load(&p, DEVPOLICY_CLOSED, NULL, missing, &rep) == 0,
	       "precondition: a closed policy loads with the file")) {
		unlink(missing);
		errno = 0;
		ok(devpolicy_build(&p, nv_node, amd_job, &l, &rep) < 0 &&
		   errno == EINVAL, "unreadable /proc/devices: the job's list fails");
		like(rep.msg, "cannot read", "  saying why");
		like(rep.msg, "devices-gone", "  naming the file");
		devpolicy_free(&p);
	}
}

/* Writes text into path, each @ replaced by the scratch tree's path. */
static int put_filled(const char *path, const char *text)
{
	char buf[8192];
	size_t used = 0;

	for (const char *c = text; *c; c++) {
		if (used + strlen(tmp) + 2 > sizeof(buf))
			return -1;
		if (*c == '@')
			used += (size_t)snprintf(buf + used, sizeof(buf) - used,
						 "%s", tmp);
		else
			buf[used++] = *c;
	}
	buf[used] = '\0';
	return put(path, buf);
}

/*
 * CDISpecDirs with amd-ctk's spec, whose every device lists /dev/kfd:
 * before, a job holding GPU 0 lost /dev/kfd (device 1, which it does not
 * hold, lists it too, and a node of a device the job holds nothing of was
 * that device's alone), even under auto.  Device 1 is another job's GPU
 * (its render node is a GRES device), so kfd is shared, not its.
 */
static void test_amd_cdi(void)
{
	const char *node_gres[] = { at("renderD128"), at("renderD129"), NULL };
	const char *job0[] = { at("renderD128"), NULL };
	const char *only0[] = { at("renderD128"), NULL };
	static const enum devpolicy_mode modes[] = {
		DEVPOLICY_AUTO, DEVPOLICY_CLOSED, DEVPOLICY_STRICT
	};
	struct devrule_list l;
	struct devpolicy p;
	struct report rep;

	if (!ok(mkdir(at("cdi"), 0755) == 0 && chmod(tmp, 0755) == 0 &&
		put_filled(at("cdi/amd.json"), amd_spec) == 0,
		"precondition: amd-ctk's spec written")) {
		return;
	}
	for (size_t m = 0; m < sizeof(modes) / sizeof(*modes); m++) {
		const char *name = devpolicy_mode_name(modes[m]);

		report_init(&rep, NULL, NULL);
		if (!ok(load(&p, modes[m], NULL, with_kfd, &rep) == 0 &&
			devpolicy_load_cdi(&p, at("cdi"), &rep) == 0 &&
			p.cdi && p.cdi->set.count == 1,
			"%s, CDISpecDirs: amd-ctk's spec loads", name)) {
			diag("%s", rep.msg);
			continue;
		}
		if (ok(devpolicy_build(&p, node_gres, job0, &l, &rep) == 0,
		       "%s: GPU 0's job builds", name)) {
			is_int(ACCESS(&l, DRM, 128), DEVRULE_RWM,
			       "  its render node");
			is_int(ACCESS(&l, DRM, 0), DEVRULE_RWM,
			       "  its card node, from the spec");
			is_int(ACCESS(&l, KFD, 0), DEVRULE_RWM,
			       "  /dev/kfd, which every device lists");
			is_int(ACCESS(&l, DRM, 129), 0, "  not GPU 1's render node");
			is_int(ACCESS(&l, DRM, 1), 0, "  nor its card node");
			devrule_list_free(&l);
		}
		if (ok(devpolicy_build(&p, node_gres, NULL, &l, &rep) == 0,
		       "%s: a job without GPU builds", name)) {
			is_int(ACCESS(&l, DRM, 0) | ACCESS(&l, DRM, 1) |
			       ACCESS(&l, KFD, 0), 0,
			       "  no card node, no /dev/kfd (the spec's devices')");
			devrule_list_free(&l);
		}
		devpolicy_free(&p);
	}

	/*
	 * gres.conf naming GPU 0 alone: device 1 is then no job's, and
	 * what it lists stays its own, /dev/kfd too (the doc says to name
	 * every GPU of the spec).
	 */
	report_init(&rep, NULL, NULL);
	if (ok(load(&p, DEVPOLICY_CLOSED, NULL, with_kfd, &rep) == 0 &&
	       devpolicy_load_cdi(&p, at("cdi"), &rep) == 0 &&
	       devpolicy_build(&p, only0, job0, &l, &rep) == 0,
	       "closed, gres.conf naming GPU 0 only: its job builds")) {
		is_int(ACCESS(&l, DRM, 1), 0, "  GPU 1's card node: nobody's");
		is_int(ACCESS(&l, KFD, 0), 0,
		       "  /dev/kfd: device 1's too, so withheld");
		devrule_list_free(&l);
	}
	devpolicy_free(&p);
}

int main(void)
{
	if (setup() < 0) {
		tap_skip("mknod refused (not root): %s", strerror(errno));
		teardown();
		return tap_done();
	}
	test_modes();
	test_card_nodes();
	test_not_amd();
	test_amd_cdi();
	teardown();
	return tap_done();
}
