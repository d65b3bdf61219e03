/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devns_devices.c - device containment of a job (interim: refuses).
 */
#include <errno.h>
#include <stdio.h>

#include "src/common/slurm_xlator.h"
#include "src/common/gres.h"
#include "src/common/list.h"
#include "src/common/log.h"

#include "devns_devices.h"

static bool node_has_gres_devices(void)
{
	List devices = gres_g_get_devices(NULL, true, 0, NULL, 0, 0);
	bool any = devices && list_count(devices);

	FREE_NULL_LIST(devices);
	return any;
}

int devns_devices_check_conf(const struct nsconf *conf, char *err,
			     size_t errlen)
{
	if (conf->device_policy == NSCONF_DEVPOLICY_AUTO && !conf->device_allow)
		return 0;
	snprintf(err, errlen, "%s:%d: device containment is not built yet",
		 conf->device_allow_file ? conf->device_allow_file : "namespace.conf",
		 conf->device_allow_line);
	return -1;
}

int devns_devices_setup(const struct nsconf *conf, uint32_t job_id, void *step)
{
	(void)step;
	if (conf->device_policy == NSCONF_DEVPOLICY_AUTO && !conf->device_allow &&
	    !node_has_gres_devices())
		return 0;
	error("job_container/devns: job %u: device containment is not built yet",
	      job_id);
	errno = ENOSYS;
	return -1;
}

int devns_devices_join(uint32_t job_id, pid_t pid)
{
	(void)job_id;
	(void)pid;
	return 0;
}

void devns_devices_adopt(uint32_t job_id)
{
	(void)job_id;
}

int devns_devices_release(uint32_t job_id)
{
	(void)job_id;
	return 0;
}

int devns_devices_restore(bool (*alive)(uint32_t job_id, void *arg), void *arg)
{
	(void)alive;
	(void)arg;
	return 0;
}
