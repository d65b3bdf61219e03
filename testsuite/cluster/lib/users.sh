# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# lib/users.sh - the test users and groups (README.md, "Test users") and the working directory
# `run -u USER` gives a user. Users and groups are host-wide and outlive the cluster: `stop`
# leaves them, and creating them again is a no-op. Sourced by cluster.sh.

# The groups the MCS tests label jobs with, and how many more groups the user dnmany is in:
# more than the 128 that Slurm's mcs/group can read.
readonly MCS_GROUPS=(devgrpa devgrpb devgrpc)
readonly MANY_GROUP_COUNT=140

# ensure_groups NAME... - create the groups that do not exist yet (one getent for all).
ensure_groups() {
	local -A have=()
	local g
	while IFS=: read -r g _; do have[$g]=1; done < <(getent group "$@" || true)
	for g in "$@"; do
		[[ -n ${have[$g]:-} ]] || groupadd "$g"
	done
}

# ensure_user NAME [GROUP...] - create the user, or add the supplementary groups it lacks.
ensure_user() {
	local user=$1
	shift
	local list
	list=$(IFS=,; printf '%s' "$*")
	if ! getent passwd "$user" >/dev/null; then
		useradd --no-create-home --shell /bin/bash ${list:+--groups "$list"} "$user"
		return
	fi
	local -A have=()
	local g missing=()
	for g in $(id -nG "$user"); do have[$g]=1; done
	for g in "$@"; do [[ -n ${have[$g]:-} ]] || missing+=("$g"); done
	if ((${#missing[@]})); then
		usermod --append --groups "$(IFS=,; printf '%s' "${missing[*]}")" "$user"
	fi
}

# The MCS tests' population. Must exist before slurmctld starts (it resolves groups at init).
ensure_users() {
	local many=() i
	for ((i = 1; i <= MANY_GROUP_COUNT; i++)); do many+=("$(printf 'dnmany%03d' "$i")"); done
	ensure_groups "${MCS_GROUPS[@]}" "${many[@]}"
	ensure_user dnalice devgrpa
	ensure_user dnbob devgrpb
	ensure_user dncarol devgrpa devgrpb
	ensure_user dndave
	ensure_user dnmany "${many[@]}" devgrpc
}

# enter_user_workdir USER - Slurm runs the job in the submission directory and sbatch writes its
# output there: a user who cannot use the current directory gets its own under the cluster root,
# and the shell moves there.
enter_user_workdir() {
	local user=$1
	runuser -u "$user" -- test -w . -a -x . 2>/dev/null && return 0
	local dir=$WORK/$user
	if [[ ! -d $dir ]]; then
		mkdir -p -- "$dir"
		chmod 0700 "$dir"
		chown "$user:$(id -gn "$user")" "$dir"
	fi
	cd -- "$dir" || die "cannot enter $dir"
}
