#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# deps.sh - install what building and testing slurm-devns needs, from
# Debian's archive.  Idempotent: does nothing when everything is there.
set -euo pipefail

PACKAGES=(
	# Slurm and its authentication, the release the plugins are built for
	slurmctld slurmd slurm-client munge libpam-slurm-adopt
	libslurm-dev libmunge-dev
	# build
	build-essential autoconf automake libtool dpkg-dev
	libpam0g-dev linux-libc-dev
	# Slurm's own configure (slurm-source.sh, slurm-release.sh) and the
	# cgroup/v2 of the Slurm releases built by slurm-release.sh
	pkg-config libdbus-1-dev
	# the Debian package (debian/) and its check
	debhelper lintian
	# tests
	valgrind iproute2 util-linux procps psmisc pamtester bpftool
	# the pure cgroup-v2 guest of testsuite/vm/vm.sh (QEMU/TCG, image from debootstrap)
	qemu-system-x86 debootstrap cpio openssh-client
)

missing=()
for p in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "deps.sh: installing ${missing[*]}"
	apt-get update -q >/dev/null
	apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi
