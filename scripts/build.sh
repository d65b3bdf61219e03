#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# build.sh - build slurm-devns and install the plugins into Slurm's PluginDir.
#
#   scripts/build.sh [--no-install] [--slurm PREFIX] [BUILDDIR] [-- extra ./configure arguments]
#
# Warnings are errors (--enable-werror, as in CI); `-- --disable-werror`
# turns that off.  Installs missing Debian packages, fetches the matching Slurm source tree
# (scripts/slurm-source.sh), then autoreconf, configure, make, make install.
# --slurm PREFIX builds for the Slurm installed under PREFIX instead of
# Debian's (a release from scripts/slurm-release.sh, whose tree is cached
# beside Debian's).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
: "${SLURM_SRC_CACHE:=/var/cache/slurm-devns}"
install=yes prefix=
while [ $# -gt 0 ]; do
	case $1 in
	--no-install) install=no; shift ;;
	--slurm) prefix=$2; shift 2 ;;
	*) break ;;
	esac
done
builddir=${1:-$top/build}
shift || true
[ "${1:-}" = "--" ] && shift

"$top/scripts/deps.sh"
if [ -n "$prefix" ]; then
	version=$("$prefix/sbin/slurmd" -V | sed -n 's/^slurm[^ ]* //p')
	slurm_src=$SLURM_SRC_CACHE/slurm-$version
	set -- --with-slurm="$prefix" "$@"
else
	slurm_src=$("$top/scripts/slurm-source.sh")
fi

cd "$top"
[ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi >/dev/null 2>&1 ||
	{ autoreconf -fi; exit 1; }
mkdir -p "$builddir"
cd "$builddir"
if [ ! -f Makefile ] || [ "$top/configure" -nt config.status ]; then
	"$top/configure" -q --with-slurm-source="$slurm_src" --enable-werror "$@"
fi
make -s -j"$(nproc)"
[ "$install" = no ] || make -s install
