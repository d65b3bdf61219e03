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

# Two getent calls answer every question below (a fork costs a tenth of a second in the
# emulated guest, and every start asks): GROUP_MEMBERS[group]=",member,...," for the groups
# that exist, USER_EXISTS[user]=1.
declare -A GROUP_MEMBERS=() USER_EXISTS=()

# ensure_groups NAME... - create the groups that do not exist yet.
ensure_groups() {
	local g members
	while IFS=: read -r g _ _ members; do GROUP_MEMBERS[$g]=",$members,"; done \
		< <(getent group "$@" || true)
	for g in "$@"; do
		[[ -n ${GROUP_MEMBERS[$g]:-} ]] && continue
		groupadd "$g"
		GROUP_MEMBERS[$g]=",,"
	done
}

# ensure_user NAME [GROUP...] - create the user, or add the supplementary groups it lacks.
# The groups must have gone through ensure_groups.
ensure_user() {
	local user=$1 g missing=()
	shift
	if [[ -z ${USER_EXISTS[$user]:-} ]]; then
		useradd --no-create-home --shell /bin/bash ${1:+--groups "$(IFS=,; printf '%s' "$*")"} "$user"
		return
	fi
	for g in "$@"; do
		[[ ${GROUP_MEMBERS[$g]} == *",$user,"* ]] || missing+=("$g")
	done
	if ((${#missing[@]})); then
		usermod --append --groups "$(IFS=,; printf '%s' "${missing[*]}")" "$user"
	fi
}

# The MCS tests' population. Must exist before slurmctld starts (it resolves groups at init).
ensure_users() {
	local many=() i u name
	for ((i = 1; i <= MANY_GROUP_COUNT; i++)); do
		printf -v name 'dnmany%03d' "$i"
		many+=("$name")
	done
	ensure_groups "${MCS_GROUPS[@]}" "${many[@]}"
	while IFS=: read -r u _; do USER_EXISTS[$u]=1; done \
		< <(getent passwd dnalice dnbob dncarol dndave dnmany || true)
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
