#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_dirs.sh - per-directory settings of namespace.conf (Dir= lines) on
# the real cluster: mount options a job sees (findmnt), no program runs
# from a noexec /tmp, a tmpfs Size, a per-job Source directory expanded
# from %n/%u/%j that holds the job's writes and goes with the job, a
# read-only Source, and a bad combination stopping slurmd with file:line;
# a node's ShmSize over a global Dir line's Size, and NodeName=DEFAULT or
# a system directory stopping slurmd (issue 30).
source "$(dirname "$0")/lib.sh"
plan 32

USER1=dnalice
JOB_OUT_PREFIX=dirs
# Source paths may not lie in /var/tmp: users could make their components
# first.  A root-owned tree of the test's own.
SRC=${DEVNS_DIRS_SOURCE_ROOT:-/var/lib/devns-test-dirs}
MNT=$DEVNS_CLUSTER_ROOT/scratch
RO=$DEVNS_CLUSTER_ROOT/refdata

setup() {
	out_setup dirs
	rm -rf --one-file-system "$SRC"
	mkdir -p -m 0755 "$SRC" "$SRC/ro" "$MNT" "$RO"
	echo reference > "$SRC/ro/readme"
}


# submit OPTIONS... -- SCRIPT: sbatch as USER1, print the job id.

# has_opts "OPT,OPT" WANTED...: every WANTED option is in the list.
has_opts() {
	local list=",$1," o
	shift
	for o in "$@"; do [[ $list == *",$o,"* ]] || return 1; done
}

test_dir_settings() {
	local j perm jobsrc
	conf_with node1 "Dir=/tmp Options=noexec,nosuid" \
		"Dir=$MNT Type=bind Source=$SRC/%n/%u/%j" \
		"Dir=/dev/shm Type=tmpfs Size=64M Options=noexec" \
		"Dir=$RO Source=$SRC/ro Options=ro"
	ok $? "precondition: node1 runs with the Dir lines" || return
	# findmnt lists every mount stacked on a point; the last is on top.
	j=$(submit -w node1 -n1 -- "findmnt -no OPTIONS /tmp | tail -1 > $OUT/dirs-tmp; \
findmnt -no OPTIONS /dev/shm | tail -1 > $OUT/dirs-shm; \
findmnt -no OPTIONS $MNT | tail -1 > $OUT/dirs-mnt; \
findmnt -no OPTIONS $RO | tail -1 > $OUT/dirs-ro; \
cp /bin/true /tmp/true && chmod 0755 /tmp/true && echo copied > $OUT/dirs-copied; \
/tmp/true 2>/dev/null; echo \$? > $OUT/dirs-exec; \
df -k --output=size /dev/shm | tail -1 | tr -d ' ' > $OUT/dirs-shmsize; \
echo hello > $MNT/f; cat $RO/readme > $OUT/dirs-roread; \
touch $RO/x 2>/dev/null; echo \$? > $OUT/dirs-rowrite; \
touch $OUT/dirs-ready; while [ ! -e $OUT/dirs-go ]; do sleep 0.2; done")
	[[ $j =~ ^[0-9]+$ ]] && wait_file "$OUT/dirs-ready" 60
	ok $? "precondition: the job runs (job '$j')" || return
	jobsrc=$SRC/node1/$USER1/$j
	has_opts "$(cat "$OUT/dirs-tmp")" noexec nosuid nodev
	ok $? "/tmp is noexec,nosuid,nodev in the job: $(cat "$OUT/dirs-tmp")"
	is "$(cat "$OUT/dirs-copied")" copied "precondition: the job copied /bin/true into /tmp, mode 0755"
	is "$(cat "$OUT/dirs-exec")" 126 "  it cannot run it (noexec: status 126)"
	has_opts "$(cat "$OUT/dirs-shm")" noexec nosuid nodev
	ok $? "/dev/shm is noexec,nosuid,nodev: $(cat "$OUT/dirs-shm")"
	is "$(cat "$OUT/dirs-shmsize")" 65536 "/dev/shm is a tmpfs of Size=64M"
	has_opts "$(cat "$OUT/dirs-mnt")" rw nosuid nodev && ! has_opts "$(cat "$OUT/dirs-mnt")" noexec
	ok $? "the Source dir is rw,nosuid,nodev, not noexec: $(cat "$OUT/dirs-mnt")"
	is "$(cat "$jobsrc/f" 2>/dev/null)" hello "the job's write landed in the expanded Source $jobsrc"
	perm=$(stat -c '%U %a' "$jobsrc" 2>&1)
	is "$perm" "$USER1 700" "  which is the job user's, 0700"
	is "$(stat -c '%U %a' "$SRC/node1" 2>&1)" "root 711" "  the components above are root's, 0711"
	has_opts "$(cat "$OUT/dirs-ro")" ro nosuid nodev
	ok $? "the ro Source is mounted ro: $(cat "$OUT/dirs-ro")"
	is "$(cat "$OUT/dirs-roread")" reference "  its files are readable"
	is "$(cat "$OUT/dirs-rowrite")" 1 "  writing there fails"
	has_mounts node1 "$j"
	ok $? "precondition: the job's namespace is pinned"
	touch "$OUT/dirs-go"
	wait_job_gone "$j"
	wait_for 20 job_dir_gone node1 "$j"
	ok $? "the job's directory is removed after the job"
	[ ! -e "$jobsrc" ]
	ok $? "the %j Source directory is removed after the job"
	is "$(find "$SRC/node1" -mindepth 1 -printf '%P\n' | sort | tr '\n' ' ')" "$USER1 " \
		"nothing is left below $SRC/node1 but the persistent user directory"
	! has_mounts node1 "$j" && ! grep -q " $SRC" /proc/self/mountinfo
	ok $? "no mount of the job or of a Source is left"
	is "$(cat "$SRC/ro/readme")" reference "the ro Source is untouched"
	conf_restore node1
}

test_bad_combination() {
	local log=$DEVNS_CLUSTER_ROOT/log/slurmd-node1.log line
	cp "$CONF_SAVED" "$CONF"
	echo "Dir=$MNT Type=bind Size=1G" >> "$CONF"
	line=$(wc -l < "$CONF")
	: > "$log"
	"$CLUSTER" restart-slurmd node1 >/dev/null 2>&1
	wait_for 10 grep -q "job_container.conf:$line: Dir=$MNT: Size is only for Type=tmpfs" "$log"
	ok $? "Size with Type=bind: slurmd logs job_container.conf:$line and why"
	"$CLUSTER" status 2>/dev/null | grep -Eq "slurmd node1 +stopped"
	ok $? "  slurmd does not run"
	conf_restore node1
	ok $? "node1 is back with the default settings"
}

# The more specific setting wins (issue 30): node1's ShmSize beats a
# global "Dir=/dev/shm Size=" (namespace.conf(5)'s own example gave its GPU
# nodes 64 MiB this way), node2 keeps the global Size.
test_precedence() {
	local j
	conf_with node1 "Dir=/dev/shm Type=tmpfs Size=64M" "NodeName=node1 ShmSize=32M"
	ok $? "precondition: node1 runs with a global Dir=/dev/shm Size=64M and its own ShmSize=32M" || return
	j=$(submit -w node1 -n1 -- "df -k --output=size /dev/shm | tail -1 | tr -d ' ' > $OUT/dirs-prec")
	[[ $j =~ ^[0-9]+$ ]] && wait_job_gone "$j"
	is "$(cat "$OUT/dirs-prec" 2>/dev/null)" 32768 "the node's ShmSize wins: the job's /dev/shm is 32M"
	conf_restore node1
}

# What used to apply to no node, or would hide the node's own system from
# every job, stops slurmd with file:line (issue 30).
test_load_traps() {
	local log=$DEVNS_CLUSTER_ROOT/log/slurmd-node1.log line bad
	for bad in "NodeName=DEFAULT ShmSize=1G" "Dirs=/tmp,/dev/shm,/etc" "NodeName=node1 Dir=/usr"; do
		cp "$CONF_SAVED" "$CONF"
		echo "$bad" >> "$CONF"
		line=$(wc -l < "$CONF")
		: > "$log"
		"$CLUSTER" restart-slurmd node1 >/dev/null 2>&1
		wait_for 10 grep -q "job_container.conf:$line: " "$log"
		ok $? "$bad: slurmd logs job_container.conf:$line: $(grep -m1 "job_container.conf:$line: " "$log")"
		"$CLUSTER" status 2>/dev/null | grep -Eq "slurmd node1 +stopped"
		ok $? "  slurmd does not run"
	done
	conf_restore node1
	ok $? "node1 is back with the default settings"
}

# Whatever stopped a test early, the node gets the default file back.
cleanup() {
	cmp -s "$CONF_SAVED" "$CONF" || conf_restore node1
	rm -rf --one-file-system "$SRC"
	rmdir "$MNT" "$RO" 2>/dev/null
	rm -f "$OUT"/dirs-*
}

setup
test_dir_settings
test_bad_combination
test_precedence
test_load_traps
cleanup
tap_done
