/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plugin_load.c - load a plugin the way a Slurm daemon would, outside one.
 *
 *   plugin_load LIBSLURM PLUGIN
 *
 * LIBSLURM (Debian: PluginDir/libslurmfull.so) is loaded first with its
 * symbols global, standing in for the daemon, then PLUGIN; functions bind
 * lazily, so at load only the data symbols the plugin uses must be there.
 * Prints the plugin's plugin_type and plugin_version as Slurm writes a
 * release ("job_container/devns 22.05.8"); the daemons require that
 * version to be their own.
 * Exits 1, with dlerror's reason, when either does not load or the plugin
 * lacks plugin_type or plugin_version.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	const uint32_t *version;
	const char *type;
	void *plugin;

	if (argc != 3) {
		fprintf(stderr, "usage: plugin_load LIBSLURM PLUGIN\n");
		return 2;
	}
	if (!dlopen(argv[1], RTLD_LAZY | RTLD_GLOBAL)) {
		fprintf(stderr, "plugin_load: %s\n", dlerror());
		return 1;
	}
	plugin = dlopen(argv[2], RTLD_LAZY | RTLD_LOCAL);
	if (!plugin) {
		fprintf(stderr, "plugin_load: %s\n", dlerror());
		return 1;
	}
	type = dlsym(plugin, "plugin_type");
	version = dlsym(plugin, "plugin_version");
	if (!type || !version) {
		fprintf(stderr, "plugin_load: %s: no plugin_type or plugin_version\n",
			argv[2]);
		return 1;
	}
	printf("%s %u.%02u.%u\n", type, (unsigned)(*version >> 16) & 0xff,
	       (unsigned)(*version >> 8) & 0xff, (unsigned)*version & 0xff);
	return 0;
}
