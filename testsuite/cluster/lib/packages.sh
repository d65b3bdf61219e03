# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# lib/packages.sh - the software the cluster runs: the Debian packages `start` installs when
# they are missing, and where the Slurm under SLURM_PREFIX keeps its plugins and which release
# it is (for `env`). Sourced by cluster.sh.

# Install what is missing (CI may run on a fresh Debian machine). No init system runs the
# packaged services here, but keep maintainer scripts from trying to start them anyway.
ensure_packages() {
	local -A need=(
		[slurmctld]=slurmctld [slurmd]=slurmd [srun]=slurm-client [munged]=munge
		[ip]=iproute2 [nsenter]=util-linux [unshare]=util-linux [findmnt]=util-linux
		[runuser]=util-linux [flock]=util-linux [useradd]=passwd [mknod]=coreutils
	)
	local cmd
	local -A pkgs=()
	for cmd in "${!need[@]}"; do
		command -v "$cmd" >/dev/null 2>&1 || pkgs[${need[$cmd]}]=1
	done
	((${#pkgs[@]})) || return 0

	say "installing missing packages: ${!pkgs[*]}"
	local policy=/usr/sbin/policy-rc.d made_policy=0
	if [[ ! -e $policy ]]; then
		printf '#!/bin/sh\nexit 101\n' >"$policy"
		chmod 0755 "$policy"
		made_policy=1
	fi
	local rc=0
	{
		DEBIAN_FRONTEND=noninteractive apt-get update -q &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${!pkgs[@]}"
	} >&2 || rc=$?
	((made_policy)) && rm -f "$policy"
	((rc == 0)) || die "apt-get install ${!pkgs[*]} failed"
}

# Where the Slurm under SLURM_PREFIX keeps its plugins: Debian's multiarch slurm-wlm directory,
# lib/slurm (lib64/slurm) of a release built from source, or the multiarch slurm directory of
# SchedMD's Debian packages (slurm-smd).
slurm_plugindir() {
	local d
	for d in "$SLURM_PREFIX"/lib/*-linux-gnu/slurm-wlm "$SLURM_PREFIX/lib/slurm" \
		"$SLURM_PREFIX/lib64/slurm" "$SLURM_PREFIX"/lib/*-linux-gnu/slurm; do
		# Slurm's own tmpfs plugin marks it: job_container_ up to 25.05, namespace_ after.
		[[ -f $d/job_container_tmpfs.so || -f $d/namespace_tmpfs.so ]] &&
			{ printf '%s\n' "$d"; return; }
	done
}

# That Slurm's release ("22.05.8").
slurm_version() { "$SLURM_PREFIX/sbin/slurmd" -V 2>/dev/null | sed -n 's/^slurm[^ ]* //p'; }
