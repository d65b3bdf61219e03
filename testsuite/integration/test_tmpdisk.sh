#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_tmpdisk.sh - TmpDiskLimit: a disk limit for a job's /tmp on BasePath.
#
# 1. On a BasePath whose filesystem cannot enforce project quotas (the
#    cluster's own, on any kernel), slurmd refuses to start and says why.
# 2. With a loop-mounted ext4 made here with project quotas (mkfs -O
#    quota,project, mount -o prjquota) as node1's BasePath and
#    TmpDiskLimit=10M: a job's dd into /tmp stops near 10 MiB with EDQUOT
#    or ENOSPC, a second job at the same time has a 10 MiB of its own, the
#    project limits are cleared after the jobs, and nothing is left.  A job
#    cannot move its files out of its project (chattr -p 0, chattr -P: the
#    escape of 0.1), not even in a user namespace of its own
#    (UserNamespace), nor can a login adopted with pam_devns, and a job
#    cannot make more files than TmpInodeLimit.  Where
#    the kernel has no quota support (CONFIG_QUOTA) this part is one skip
#    with the reason, or a failure with DEVNS_REQUIRE_QUOTA=1 (run-tests.sh
#    sets it for the guest, whose Debian kernel has quotas).  The loop
#    filesystem is unmounted and removed at the end.
# 3. The same on a loop-mounted xfs with -o prjquota (README: "ext4 or
#    xfs"): the limit, the escape, the limits cleared, nothing left.
# 4. TmpDiskGres=tmpdisk (the cluster restarted with a count GRES tmpdisk
#    of 800M per node) and TmpDiskLimit=5M on the ext4: two jobs at once
#    with --gres=tmpdisk:10M and :30M each stop near their own size, a
#    job without the GRES near 5M, and a job asking more than BasePath's
#    filesystem holds does not run (held, its AdminComment and slurmd's
#    log saying why).
. "$(dirname "$0")/lib.sh"
SBCAST_CHECKS=6	# sbcast_checks, once on ext4 and once on xfs
XFS_CHECKS=$((19 + SBCAST_CHECKS))	# test_limit_xfs
GRES_CHECKS=18	# test_gres_limit
plan $((42 + SBCAST_CHECKS + XFS_CHECKS + GRES_CHECKS))

USER1=dnalice
# the guest is slow: longer waits
NODE_IDLE_WAIT=120 FILE_WAIT=120
JOB_OUT_PREFIX=td
QIMG=$DEVNS_CLUSTER_ROOT/tmpdisk.img
QFS=$DEVNS_CLUSTER_ROOT/tmpdisk
MiB=1048576
DEVNS=${DEVNS_TOOL:-$TOP/build/devns}
# devns check: what slurmd would make of namespace.conf on NODE.
devns_check() { SLURM_CONF=$DEVNS_CLUSTER_ETC/slurm.conf "$DEVNS" check -f "$CONF" -n "$1" 2>&1; }

setup() {
	out_setup td
}


# submit OPTIONS... -- SCRIPT: sbatch as USER1, print the job id.

test_refused() {
	local log=$DEVNS_CLUSTER_ROOT/log/slurmd-node3.log
	if [ -z "${HELPERS:-}" ]; then
		ok 1 "precondition: the test helpers are built (dquota_get)"
		return
	fi
	! "$HELPERS/dquota_get" "$BASE" 1 >/dev/null 2>&1
	ok $? "precondition: the cluster's BasePath ($(stat -fc %T "$BASE")) has no project quotas" || return
	cp "$CONF_SAVED" "$CONF"
	echo "TmpDiskLimit=10M" >>"$CONF"
	: >"$log"
	"$CLUSTER" restart-slurmd node3 >/dev/null 2>&1
	wait_for 30 grep -q "TmpDiskLimit" "$log"
	ok $? "TmpDiskLimit on a BasePath that cannot enforce it: the slurmd log says so"
	like "$(grep TmpDiskLimit "$log" | head -1)" "cannot be enforced on BasePath: $BASE/node3 is on" \
		"  the message names BasePath and its filesystem"
	slurmd_stopped node3
	ok $? "  and slurmd does not run"
	if [ -x "$DEVNS" ]; then
		like "$(devns_check node3)" "TmpDiskLimit=10485760 bytes cannot be enforced on BasePath" \
			"devns check says the same"
	else
		skip "devns check: no $DEVNS built"
	fi
	conf_restore node3
	node_idle node3
	ok $? "with the harness' namespace.conf node3 is back"
}

# project_clear ID: project ID has no limit and no usage on node1's BasePath.
project_clear() { [ "$("$HELPERS/dquota_get" "$QFS/node1" "$1" 2>&1)" = "0 0 0 0" ]; }

# fill_job TAG: a job on node1 that writes 30 MiB into /tmp, records dd's
# status, message and the file's size, then waits for $OUT/td-go.
fill_job() {
	submit -w node1 -n1 -- "dd if=/dev/zero of=/tmp/fill bs=1M count=30 2> $OUT/td-$1.dd; echo \$? > $OUT/td-$1.rc; stat -c %s /tmp/fill > $OUT/td-$1.size; touch $OUT/td-$1.done; while [ ! -e $OUT/td-go ]; do sleep 0.2; done"
}

# escape_checks [TAG]: a job on node1 tries to leave its project as 0.1
# let it (TAG: the files' and checks' tag, e.g. for a user namespace);
# the job's user namespace goes to $OUT/td-e$TAG.ns.
escape_checks() {
	local j p e=$OUT/td-e${1:+-$1} in=${1:+ ($1)}
	j=$(submit -w node1 -n1 -- "readlink /proc/self/ns/user > $e.ns; touch /tmp/x; mkdir /tmp/d; lsattr -p /tmp/x > $e.before 2>&1; chattr -p 0 /tmp/x > $e.p 2>&1; echo \$? >> $e.p; chattr -P /tmp/d > $e.P 2>&1; echo \$? >> $e.P; lsattr -p /tmp/x > $e.after 2>&1; lsattr -pd /tmp/d >> $e.after 2>&1; touch $e.done")
	wait_file "$e.done"
	ok $? "precondition: job $j ran on node1$in" || return
	p=$(awk '{print $1; exit}' "$e.before")
	is "$p" "$j" "  its /tmp/x is in project $j"
	like "$(cat "$e.p")" "Operation not permitted" "chattr -p 0 /tmp/x in the job is refused$in"
	like "$(cat "$e.P")" "Operation not permitted" "chattr -P on a directory in the job is refused$in"
	is "$(awk '{print $1}' "$e.after" | sort -u)" "$j" "  both stay in project $j"
	wait_job_gone "$j"
	wait_for 30 job_dir_gone node1 "$j" 2>/dev/null
}

# UserNamespace with TmpDiskLimit: in the job's user namespace the kernel
# refuses project changes too (and the job's filter stays on).
userns_escape_checks() {
	local pidns=
	slurm_at_least 25.11 || pidns=" PidNamespace=yes"
	conf_with node1 "NodeName=node1 BasePath=$QFS/node1 TmpDiskLimit=10M TmpInodeLimit=200 UserNamespace=yes$pidns"
	ok $? "slurmd starts with UserNamespace=yes$pidns as well" || return
	escape_checks userns
	[ -s "$OUT/td-e-userns.ns" ] && [ "$(cat "$OUT/td-e-userns.ns")" != "$(readlink /proc/self/ns/user)" ]
	ok $? "  that job ran in a user namespace of its own ($(cat "$OUT/td-e-userns.ns" 2>/dev/null))"
}

# sbcast_checks FS: sbcast into a job with TmpDiskLimit=10M on node1
# (BasePath on FS: ext4 or xfs), a 40 MiB file three times under new
# names.  slurmd writes sbcast's blocks as root, and ext4's quota code
# lets root (CAP_SYS_RESOURCE) past the project's hard limit: before, all
# 120 MiB landed in the job's /tmp.  Now on ext4 the sbcast is refused
# ("Disk quota exceeded" for the user, the reason and remedy in slurmd's
# log); on xfs, whose limit binds root, it is allowed and the limit stops
# it.  Either way the job's project holds at most its 10 MiB.  6 checks.
sbcast_checks() {
	local fs=$1 j i rc err used log=$DEVNS_CLUSTER_ROOT/log/slurmd-node1.log
	local src=$OUT/td-sbcast.src t=$OUT/td-sb-$1 n_ok=0 n_dq=0
	head -c $((40 * MiB)) /dev/urandom >"$src" && chmod 0644 "$src"
	j=$(submit -w node1 -n1 -- "touch $t.run; while [ ! -e $t.go ]; do sleep 0.2; done")
	wait_file "$t.run"
	ok $? "$fs: precondition: job $j runs on node1 with TmpDiskLimit=10M, a 40 MiB file to send" ||
		{ skip_checks $((SBCAST_CHECKS - 1)) "$fs: sbcast: the job did not run"; cl scancel "$j"; return; }
	: >"$t.err"
	for i in 1 2 3; do
		cl_as "$USER1" sbcast -j "$j" -f "$src" "/tmp/sb$i" >>"$t.err" 2>&1
		rc=$?
		[ $rc = 0 ] && n_ok=$((n_ok + 1))
	done
	err=$(cat "$t.err")
	n_dq=$(grep -c "Disk quota exceeded" "$t.err")
	used=$("$HELPERS/dquota_get" "$QFS/node1" "$j" 2>&1)
	diag "$fs: sbcast x3: $n_ok succeeded; project $j: $used; $(du -sb "$QFS/node1/$j/tmp" 2>&1)"
	[ "$n_ok" = 0 ]
	ok $? "$fs: none of the three 40 MiB sbcasts into a 10 MiB /tmp succeeds ($n_ok did)"
	used=$(word "$used" 1)
	[ -n "$used" ] && [ "$used" -le $((10 * MiB)) ]
	ok $? "$fs: the job's project holds at most its 10 MiB: $used bytes (before, on ext4: 120 MiB)"
	if [ "$fs" = ext4 ]; then
		[ "$n_dq" = 3 ]
		ok $? "ext4: each sbcast is refused, the user told \"Disk quota exceeded\" ($(echo "$err" | head -n1))"
		grep "job $j: refusing sbcast into the job: its disk limit (TmpDiskLimit, project $j, $((10 * MiB)) bytes) is on ext2/3/4" "$log" |
			grep -q "put BasePath on xfs (-o prjquota), or drop TmpDiskLimit"
		ok $? "ext4: slurmd's log names the job, its limit, the filesystem and the remedy"
		[ ! -e "$QFS/node1/$j/tmp/sb1" ]
		ok $? "ext4: the file is not made at all"
	else
		# xfs answers a project quota with ENOSPC; Slurm tells sbcast
		# only that the write failed.
		grep -Eq "sbcast: uid:[0-9]+ can't write \`/tmp/sb1\`: (Disk quota exceeded|No space left on device)" "$log"
		ok $? "xfs: the quota stops slurmd's writes (its log: EDQUOT or ENOSPC; sbcast: $(echo "$err" | head -n1))"
		! grep -q "job $j: refusing sbcast" "$log"
		ok $? "xfs: sbcast is not refused (the limit binds slurmd's root writes)"
		[ "$(stat -c %s "$QFS/node1/$j/tmp/sb1" 2>/dev/null || echo 0)" -gt 0 ]
		ok $? "xfs: the first file got its first blocks, up to the limit"
	fi
	touch "$t.go"
	wait_job_gone "$j"
	wait_for 30 job_dir_gone node1 "$j" 2>/dev/null
	rm -f "$src"
}

# inode_checks: node1 has TmpInodeLimit=200; a job makes files until refused.
# With true, not the special builtin ':', whose failed redirection would
# end the script; stderr goes first, so that it catches the error.
inode_checks() {
	local j n
	j=$(submit -w node1 -n1 -- "n=0; while [ \$n -lt 400 ] && true 2>$OUT/td-i.err > /tmp/f\$n; do n=\$((n+1)); done; echo \$n > $OUT/td-i.n; touch $OUT/td-i.done")
	wait_file "$OUT/td-i.done" 90
	ok $? "precondition: job $j ran on node1" || {
		diag "$(cl scontrol show job "$j" 2>&1 | grep -E 'JobState|Reason')"
		diag "$(cat "$OUT/$JOB_OUT_PREFIX-$j.out" "$OUT/td-i.err" 2>&1)"
		diag "$(tail -n 20 "$DEVNS_CLUSTER_ROOT/log/slurmd-node1.log" 2>&1)"
		cl scancel "$j"; return; }
	n=$(cat "$OUT/td-i.n")
	[ "${n:-400}" -lt 200 ]
	ok $? "with TmpInodeLimit=200 the job made $n files, not 400"
	like "$(cat "$OUT/td-i.err")" "(Disk quota exceeded|No space left on device)" "  then EDQUOT or ENOSPC"
	wait_job_gone "$j"
}

# login_checks: while jobs with the limit run on node1, a login adopted
# by pam_slurm_adopt with pam_devns after it cannot leave the project
# either.  Without pam_devns it can (README's checklist): shown first.
login_checks() {
	local adopt devns out pamdir=$DEVNS_CLUSTER_ROOT/pam-td
	adopt=$(pam_slurm_adopt_module) devns=$(pam_devns_module)
	if ! { [ -n "$adopt" ] && [ -n "$devns" ] && [ -x "$HELPERS/pam_adopt" ]; }; then
		skip_checks 2 "adopted logins: no pam_slurm_adopt.so, pam_devns.so or helpers/pam_adopt here"
		return
	fi
	mkdir -p "$pamdir-plain" "$pamdir"
	echo "account required $adopt nodename=node1 action_adopt_failure=deny action_no_jobs=deny" \
		> "$pamdir-plain/sshd"
	{ cat "$pamdir-plain/sshd"; echo "account required $devns"; } > "$pamdir/sshd"
	# shellcheck disable=SC2016
	local try='f=/tmp/login-$$; touch $f && lsattr -p $f | awk "{print \$1}" && chattr -p 0 $f 2>&1; lsattr -p $f | awk "{print \$1}"'
	out=$(on_node node1 "$HELPERS/pam_adopt" "$pamdir-plain" sshd "$USER1" sh -c "$try" 2>&1)
	[ "$(echo "$out" | sed -n 1p)" -gt 0 ] 2>/dev/null && [ "$(echo "$out" | sed -n 2p)" = 0 ]
	ok $? "precondition: a login adopted without pam_devns is in a job's project, and can leave it ($(echo "$out" | tr '\n' ' '))"
	out=$(on_node node1 "$HELPERS/pam_adopt" "$pamdir" sshd "$USER1" sh -c "$try" 2>&1)
	like "$out" "Operation not permitted" "with pam_devns, chattr -p 0 in an adopted login is refused ($(echo "$out" | tr '\n' ' '))"
	rm -rf "$pamdir" "$pamdir-plain"
}

test_limit() {
	local why a b sa sb qa qb
	# 192M: room for the 120 MiB sbcast wrote past the limit before
	if ! why=$(quota_fs_make 192M); then
		quota_fs_remove
		if [ "${DEVNS_REQUIRE_QUOTA:-}" = 1 ]; then
			ok 1 "DEVNS_REQUIRE_QUOTA: an ext4 with project quotas mounts here: $why"
			skip_checks $((35 + SBCAST_CHECKS)) "the project-quota checks: no ext4 with project quotas"
		else
			skip_checks $((36 + SBCAST_CHECKS)) "an ext4 with project quotas does not mount here (the kernel lacks quota support): $(echo "$why" | head -n1)"
		fi
		return
	fi
	ok 0 "precondition: a loop-mounted ext4 with prjquota at $QFS"
	mkdir -m 0755 "$QFS/node1"
	conf_with node1 "NodeName=node1 BasePath=$QFS/node1 TmpDiskLimit=10M TmpInodeLimit=200"
	ok $? "slurmd starts with TmpDiskLimit=10M TmpInodeLimit=200 on it" || { conf_restore node1; quota_fs_remove; return; }
	if [ -x "$DEVNS" ]; then
		like "$(devns_check node1)" "tmpdiskquota enforced" \
			"devns check: node1's BasePath enforces TmpDiskLimit"
	else
		skip "devns check: no $DEVNS built"
	fi

	# Before A and B, which take both of node1's CPUs until td-go.
	escape_checks
	inode_checks
	sbcast_checks ext4

	a=$(fill_job a)
	b=$(fill_job b)
	wait_file "$OUT/td-a.done" && wait_file "$OUT/td-b.done"
	ok $? "two jobs on node1 wrote into their /tmp and are both running" || diag "$(cat "$OUT"/td-*.out 2>/dev/null)"
	is "$(cat "$OUT/td-a.rc" 2>/dev/null)" 1 "job A's dd of 30 MiB fails"
	like "$(cat "$OUT/td-a.dd" 2>/dev/null)" "(Disk quota exceeded|No space left on device)" \
		"  with EDQUOT or ENOSPC"
	sa=$(cat "$OUT/td-a.size" 2>/dev/null)
	sb=$(cat "$OUT/td-b.size" 2>/dev/null)
	[ "${sa:-0}" -ge $((9 * MiB)) ] && [ "${sa:-0}" -le $((10 * MiB)) ]
	ok $? "  after about 10 MiB: $sa bytes"
	[ "${sb:-0}" -ge $((9 * MiB)) ] && [ "${sb:-0}" -le $((10 * MiB)) ] &&
		[ "$(cat "$OUT/td-b.rc" 2>/dev/null)" = 1 ]
	ok $? "job B, at the same time, has its own 10 MiB: $sb bytes"
	qa=$("$HELPERS/dquota_get" "$QFS/node1" "$a" 2>&1)
	qb=$("$HELPERS/dquota_get" "$QFS/node1" "$b" 2>&1)
	like "$qa" "^$((10 * MiB)) [0-9]+ 200 " "job A's project $a has the 10 MiB and 200-inode limits while it runs ($qa)"
	like "$qb" "^$((10 * MiB)) " "job B's project $b too ($qb)"
	if [ -x "$DEVNS" ]; then
		like "$(SLURM_CONF=$DEVNS_CLUSTER_ETC/slurm.conf "$DEVNS" list -f "$CONF" -n node1 2>&1)" \
			"job $a alive namespace yes processes [0-9]+ pidns no filter (yes|no) disk [0-9]+/$((10 * MiB)) inodes [0-9]+/200" \
			"devns list shows job A's disk use and limits"
	else
		skip "devns list: no $DEVNS built"
	fi

	login_checks

	touch "$OUT/td-go"
	wait_job_gone "$a" && wait_job_gone "$b"
	ok $? "both jobs end"
	wait_for 30 sh -c "[ ! -e $QFS/node1/$a ] && [ ! -e $QFS/node1/$b ]"
	ok $? "their directories are removed"
	# The directory can be gone before the teardown that removed it has
	# dropped the job's namespace, whose mount of /tmp still holds the
	# directory's inode (and its block in the project) until then.
	wait_for 30 project_clear "$a" && wait_for 30 project_clear "$b"
	is "$("$HELPERS/dquota_get" "$QFS/node1" "$a" 2>&1)" "0 0 0 0" "job A's project has no limit and no usage left"
	is "$("$HELPERS/dquota_get" "$QFS/node1" "$b" 2>&1)" "0 0 0 0" "job B's project too"
	userns_escape_checks
	! grep -q " $QFS/node1/" /proc/self/mountinfo
	ok $? "no mount of the jobs is left on the quota filesystem"

	conf_restore node1
	node_idle node1
	ok $? "node1 is back on the harness' namespace.conf"
	# Root's lock around the project limits stays in BasePath.
	[ "$(ls -A "$QFS/node1")" = .quota-lock ] && rm "$QFS/node1/.quota-lock" && rmdir "$QFS/node1"
	ok $? "node1's BasePath on the quota filesystem holds nothing but root's .quota-lock"
	quota_fs_remove
	ok $? "the loop filesystem is unmounted, its loop device detached and its files removed"
}

# The same limit on xfs, where project quotas come with the mount
# (prjquota) and the quota calls are xfs's own (Q_XGETQUOTA): the limit
# holds, a job cannot leave its project, and it is cleared after the job.
# Where the kernel has no quota support this is skipped with the reason
# (or fails with DEVNS_REQUIRE_QUOTA=1), as the ext4 part.
test_limit_xfs() {
	local why a sa qa
	if ! why=$(quota_fs_make 320M xfs); then
		quota_fs_remove
		if [ "${DEVNS_REQUIRE_QUOTA:-}" = 1 ]; then
			ok 1 "DEVNS_REQUIRE_QUOTA: an xfs with prjquota mounts here: $why"
			skip_checks $((XFS_CHECKS - 1)) "xfs: the project-quota checks: no xfs with prjquota"
		else
			skip_checks $XFS_CHECKS "xfs: an xfs with prjquota does not mount here (no xfsprogs, or the kernel lacks XFS quota support): $(echo "$why" | head -n1)"
		fi
		return
	fi
	[ "$(stat -fc %T "$QFS")" = xfs ]
	ok $? "xfs: precondition: a loop-mounted xfs with prjquota at $QFS"
	mkdir -m 0755 "$QFS/node1"
	conf_with node1 "NodeName=node1 BasePath=$QFS/node1 TmpDiskLimit=10M TmpInodeLimit=200"
	ok $? "xfs: slurmd starts with TmpDiskLimit=10M TmpInodeLimit=200 on it" ||
		{ skip_checks $((XFS_CHECKS - 2)) "xfs: slurmd did not start"; conf_restore node1; quota_fs_remove; return; }
	if [ -x "$DEVNS" ]; then
		like "$(devns_check node1)" "tmpdiskquota enforced" \
			"xfs: devns check: node1's BasePath enforces TmpDiskLimit"
	else
		skip "xfs: devns check: no $DEVNS built"
	fi
	escape_checks xfs
	sbcast_checks xfs
	rm -f "$OUT/td-go"
	a=$(fill_job xa)
	wait_file "$OUT/td-xa.done"
	ok $? "xfs: a job on node1 wrote into its /tmp and runs" || diag "$(cat "$OUT"/td-*.out 2>/dev/null)"
	like "$(cat "$OUT/td-xa.dd" 2>/dev/null)" "(Disk quota exceeded|No space left on device)" \
		"xfs: its dd of 30 MiB fails with EDQUOT or ENOSPC"
	sa=$(cat "$OUT/td-xa.size" 2>/dev/null)
	[ "${sa:-0}" -ge $((9 * MiB)) ] && [ "${sa:-0}" -le $((10 * MiB)) ]
	ok $? "xfs:   after about 10 MiB: $sa bytes"
	qa=$("$HELPERS/dquota_get" "$QFS/node1" "$a" 2>&1)
	like "$qa" "^$((10 * MiB)) [0-9]+ 200 " "xfs: its project $a has the 10 MiB and 200-inode limits while it runs ($qa)"
	touch "$OUT/td-go"
	wait_job_gone "$a"
	ok $? "xfs: the job ends"
	wait_for 30 job_dir_gone node1 "$a" 2>/dev/null
	wait_for 30 test ! -e "$QFS/node1/$a"
	ok $? "xfs:   its directory is removed"
	wait_for 30 project_clear "$a"
	is "$("$HELPERS/dquota_get" "$QFS/node1" "$a" 2>&1)" "0 0 0 0" "xfs:   its project has no limit and no usage left"
	! grep -q " $QFS/node1/" /proc/self/mountinfo
	ok $? "xfs: no mount of the jobs is left on the quota filesystem"
	conf_restore node1
	node_idle node1
	ok $? "xfs: node1 is back on the harness' namespace.conf"
	[ "$(ls -A "$QFS/node1")" = .quota-lock ] && rm "$QFS/node1/.quota-lock" && rmdir "$QFS/node1"
	ok $? "xfs: node1's BasePath holds nothing but root's .quota-lock"
	quota_fs_remove
	ok $? "xfs: the loop filesystem is unmounted, its loop device detached and its files removed"
}

# gres_fill_job TAG MIB SBATCH-ARGS...: a job on node1 that writes MIB MiB
# into /tmp, records dd's status, message and the file's size, then waits
# for $OUT/td-go.
gres_fill_job() {
	local tag=$1 mib=$2
	shift 2
	submit -w node1 -n1 "$@" -- "dd if=/dev/zero of=/tmp/fill bs=1M count=$mib 2> $OUT/td-$tag.dd; echo \$? > $OUT/td-$tag.rc; stat -c %s /tmp/fill > $OUT/td-$tag.size; touch $OUT/td-$tag.done; while [ ! -e $OUT/td-go ]; do sleep 0.2; done"
}

# size_near TAG MIB: the job's file stopped within the last MiB below MIB
# MiB, dd failing.
size_near() {
	local s
	s=$(cat "$OUT/td-$1.size" 2>/dev/null)
	[ "${s:-0}" -ge $(($2 * MiB - MiB)) ] && [ "${s:-0}" -le $(($2 * MiB)) ] &&
		[ "$(cat "$OUT/td-$1.rc" 2>/dev/null)" = 1 ]
}

# TmpDiskGres: each job's /tmp limit is its count GRES on the node.  The
# cluster restarts with the GRES first (a restart removes the cluster's
# root, so the quota filesystem comes after it and goes before the
# restart back, and the saved settings are taken again after each).
test_gres_limit() {
	local why c d e f log=$DEVNS_CLUSTER_ROOT/log/slurmd-node1.log
	restart_with DEVNS_TMPDISK_GRES=800M && setup && wait_for 60 node_idle node1
	ok $? "TmpDiskGres: the cluster restarts with a count GRES tmpdisk of 800M per node" ||
		{ skip_checks $((GRES_CHECKS - 1)) "TmpDiskGres: no cluster with the GRES"; restart_with DEVNS_TMPDISK_GRES=; setup; return; }
	like "$(cl scontrol show node node1 2>&1 | grep -o 'Gres=[^ ]*')" "tmpdisk:(800M|838860800)" \
		"  precondition: slurmctld knows node1's tmpdisk:800M"
	if ! why=$(quota_fs_make 192M); then
		quota_fs_remove
		if [ "${DEVNS_REQUIRE_QUOTA:-}" = 1 ]; then
			ok 1 "TmpDiskGres: DEVNS_REQUIRE_QUOTA: an ext4 with project quotas mounts here: $why"
			skip_checks $((GRES_CHECKS - 3)) "TmpDiskGres: no ext4 with project quotas"
		else
			skip_checks $((GRES_CHECKS - 2)) "TmpDiskGres: an ext4 with project quotas does not mount here (the kernel lacks quota support): $(echo "$why" | head -n1)"
		fi
		restart_with DEVNS_TMPDISK_GRES=; setup
		return
	fi
	ok 0 "TmpDiskGres: precondition: a loop-mounted ext4 with prjquota at $QFS"
	mkdir -m 0755 "$QFS/node1"
	conf_with node1 "NodeName=node1 BasePath=$QFS/node1 TmpDiskLimit=5M TmpDiskGres=tmpdisk"
	ok $? "slurmd starts with TmpDiskGres=tmpdisk TmpDiskLimit=5M" ||
		{ diag "$(tail -n 5 "$log")"; skip_checks $((GRES_CHECKS - 4)) "TmpDiskGres: slurmd did not start"; conf_restore node1; rm -rf "$QFS/node1"; quota_fs_remove; restart_with DEVNS_TMPDISK_GRES=; setup; return; }
	if [ -x "$DEVNS" ]; then
		like "$(devns_check node1)" "tmpdiskgres tmpdisk \(" "devns check shows TmpDiskGres and its line"
	else
		skip "devns check: no $DEVNS built"
	fi

	rm -f "$OUT/td-go"
	c=$(gres_fill_job gc 40 --gres=tmpdisk:10M)
	d=$(gres_fill_job gd 40 --gres=tmpdisk:30M)
	wait_file "$OUT/td-gc.done" && wait_file "$OUT/td-gd.done"
	ok $? "two jobs on node1, --gres=tmpdisk:10M ($c) and :30M ($d), wrote into their /tmp" ||
		diag "$(cat "$OUT/$JOB_OUT_PREFIX-$c.out" "$OUT/$JOB_OUT_PREFIX-$d.out" 2>&1; tail -n 20 "$log")"
	like "$(cat "$OUT/td-gc.dd" 2>/dev/null)" "(Disk quota exceeded|No space left on device)" \
		"  the 10M job's dd of 40 MiB fails with EDQUOT or ENOSPC"
	size_near gc 10
	ok $? "  after about 10 MiB: $(cat "$OUT/td-gc.size" 2>/dev/null) bytes"
	size_near gd 30
	ok $? "the 30M job, at the same time, stops after about 30 MiB: $(cat "$OUT/td-gd.size" 2>/dev/null) bytes"
	like "$("$HELPERS/dquota_get" "$QFS/node1" "$c" 2>&1)" "^$((10 * MiB)) " "  job $c's project has the 10 MiB limit"
	like "$("$HELPERS/dquota_get" "$QFS/node1" "$d" 2>&1)" "^$((30 * MiB)) " "  job $d's project has the 30 MiB limit"
	grep -q "job $c: /tmp limited to $((10 * MiB)) bytes (tmpdisk)" "$log"
	ok $? "  slurmd's log says job $c's limit came from its GRES tmpdisk"
	touch "$OUT/td-go"
	wait_job_gone "$c" && wait_job_gone "$d"
	ok $? "both jobs end"

	rm -f "$OUT/td-go"
	e=$(gres_fill_job ge 40)
	wait_file "$OUT/td-ge.done"
	size_near ge 5
	ok $? "a job without the GRES gets TmpDiskLimit=5M: $(cat "$OUT/td-ge.size" 2>/dev/null) bytes"
	touch "$OUT/td-go"
	wait_job_gone "$e"

	f=$(submit -w node1 -n1 --gres=tmpdisk:500M -- "touch $OUT/td-gf.ran")
	wait_for 60 admin_comment_set "$f"
	like "$(admin_comment "$f")" "devns on node1: refusing the job: its /tmp limit: its GRES of $((500 * MiB)) bytes is more than BasePath's filesystem holds" \
		"a job asking 500M on a 192M BasePath is held, its AdminComment saying why"
	grep -q "job $f: .*its GRES of $((500 * MiB)) bytes is more than BasePath's filesystem holds" "$log" &&
		[ ! -e "$OUT/td-gf.ran" ]
	ok $? "  slurmd's log says why, and the job never ran"
	cl scancel "$f" 2>/dev/null
	wait_job_gone "$f"
	cl scontrol update nodename=node1 state=resume >/dev/null 2>&1

	conf_restore node1
	wait_for 30 sh -c "[ ! -e $QFS/node1/$c ] && [ ! -e $QFS/node1/$d ] && [ ! -e $QFS/node1/$e ]"
	rm -f "$QFS/node1/.quota-lock"
	rmdir "$QFS/node1" && quota_fs_remove
	ok $? "TmpDiskGres: the jobs' directories are gone, the loop filesystem removed"
	restart_with DEVNS_TMPDISK_GRES= && setup && wait_for 60 node_idle node1
	ok $? "the cluster is back without the GRES"
}

setup
test_refused
test_limit
test_limit_xfs
test_gres_limit
cp "$CONF_SAVED" "$CONF"
tap_done
