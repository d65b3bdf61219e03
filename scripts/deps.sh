#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# deps.sh - install what building slurm-devns needs, from Debian's archive.
#   scripts/deps.sh          build: compilers, autotools, headers, debhelper
#   scripts/deps.sh --test   also the test rig: Slurm's daemons and munge for
#                            the local cluster, valgrind, QEMU and debootstrap
#                            for the guest, ... (testsuite/run-tests.sh calls
#                            this; an admin building on a compute node does
#                            not need it and installs no daemon or emulator)
# Idempotent: does nothing when everything is there.  The plugins are built
# against the Slurm installed on the machine (configure asks its slurmd or
# slurmctld), which the build step never installs.  On a machine with
# SchedMD's own packages (slurm-smd) Debian's Slurm packages are left out:
# they conflict with slurm-smd's, and apt would remove the site's Slurm to
# install them (the build needs only Slurm's source tree, not its headers).
set -euo pipefail

BUILD=(
	build-essential autoconf automake libtool dpkg-dev
	libpam0g-dev linux-libc-dev libslurm-dev libmunge-dev
	# Slurm's own configure (slurm-source.sh, slurm-release.sh) and the
	# cgroup/v2 of the Slurm releases built by slurm-release.sh
	pkg-config libdbus-1-dev
	# the Debian package (debian/)
	debhelper
)
TEST=(
	# Slurm and its authentication, the release the plugins are built for
	slurmctld slurmd slurm-client munge libpam-slurm-adopt
	# the Debian package's check; rpmbuild for the RPM's (testsuite/rpm.sh)
	lintian rpm
	# tests
	valgrind iproute2 util-linux procps psmisc pamtester bpftool
	# TmpDiskLimit on xfs (test_tmpdisk.sh: mkfs.xfs)
	xfsprogs
	# the fuzzers of testsuite/fuzz: clang and its libFuzzer runtime
	clang libclang-rt-dev
	# the pure cgroup-v2 guest of testsuite/vm/vm.sh (QEMU/TCG, image from debootstrap)
	qemu-system-x86 debootstrap cpio openssh-client e2fsprogs
)

case "${1:-}" in
"") packages=("${BUILD[@]}") ;;
--test) packages=("${BUILD[@]}" "${TEST[@]}") ;;
*) echo "usage: deps.sh [--test]" >&2; exit 2 ;;
esac

if dpkg-query -W -f='${db:Status-Status}' slurm-smd 2>/dev/null | grep -qx installed; then
	kept=()
	for p in "${packages[@]}"; do
		case $p in
		libslurm-dev | slurmctld | slurmd | slurm-client | libpam-slurm-adopt) ;;
		*) kept+=("$p") ;;
		esac
	done
	packages=("${kept[@]}")
fi

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "deps.sh: installing ${missing[*]}"
	apt-get update -q >/dev/null
	apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi
