#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# build.sh - build slurm-devns and install the plugins into Slurm's PluginDir.
#
#   scripts/build.sh [--no-install] [BUILDDIR] [-- extra ./configure arguments]
#
# Installs missing Debian packages, fetches the matching Slurm source tree
# (scripts/slurm-source.sh), then autoreconf, configure, make, make install.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
install=yes
if [ "${1:-}" = "--no-install" ]; then install=no; shift; fi
builddir=${1:-$top/build}
shift || true
[ "${1:-}" = "--" ] && shift

"$top/scripts/deps.sh"
slurm_src=$("$top/scripts/slurm-source.sh")

cd "$top"
[ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi >/dev/null 2>&1 ||
	{ autoreconf -fi; exit 1; }
mkdir -p "$builddir"
cd "$builddir"
if [ ! -f Makefile ] || [ "$top/configure" -nt config.status ]; then
	"$top/configure" -q --with-slurm-source="$slurm_src" "$@"
fi
make -s -j"$(nproc)"
[ "$install" = no ] || make -s install
