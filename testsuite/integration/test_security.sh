#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_security.sh - the attacks of the security report, on the real
# cluster: a symlink planted where a Dirs entry should be, BasePath that a
# user could influence, slurmd restart after one step of a live job was
# killed, and a device-filter marker that cannot be read.  Each check first
# proves its precondition (the link was planted, the job ran).
source "$(dirname "$0")/lib.sh"
plan 62

USER1=dnalice
USER2=dnbob
DEV=$DEVNS_CLUSTER_ROOT/dev
SPOOL=$DEVNS_CLUSTER_ROOT/spool
NODE1_LOG=$DEVNS_CLUSTER_ROOT/log/slurmd-node1.log
GPUS="$DEV/nvidia0 $DEV/nvidia1 $DEV/nvidia2 $DEV/nvidia3"

setup() {
	out_setup sec
}

slurmd_running() { "$CLUSTER" status 2>/dev/null | grep -Eq "slurmd $1 +running"; }
# Not "! slurmd_running": a status that cannot be read must not pass for
# "does not run".

# logged_since_in LOG LINE PATTERN: LOG has PATTERN after its line LINE
# (read anew at each call, for wait_for).
logged_since_in() { tail -n +"$2" "$1" | grep -q -- "$3"; }

# run_job NODE SCRIPT: srun as USER1 on NODE; prints the output.
run_job() { cl_as $USER1 srun -w "$1" -n1 sh -c "$2" 2>&1; }

# The report's root exploit: a user plants /var/tmp/<entry> -> a root
# directory; no job may get its private directory mounted there.  A Dirs
# mount point in a directory others can write to (sticky /var/tmp) stops
# slurmd: missing, a user's link, and root's too (issue 42 item 7: once
# empty it can be aged out by systemd-tmpfiles, which detaches the jobs'
# mounts, and any user could take the name).
test_dirs_link_attack() {
	local entry=/var/tmp/devns-sec-job victim=/etc/devns-sec-victim
	local log=$DEVNS_CLUSTER_ROOT/log/slurmd-node2.log
	rm -rf "$victim"; rm -f "$entry"; rmdir "$entry" 2>/dev/null
	mkdir -p "$victim" && chmod 0755 "$victim"
	: > "$log"
	conf_with node2 "NodeName=node2 BasePath=$BASE/node2 Dirs=/tmp,/dev/shm,$entry"
	slurmd_stopped node2
	ok $? "a Dirs entry missing in sticky /var/tmp: slurmd does not start"
	like "$(grep -h "$entry" "$log" | head -1)" "/var/tmp is writable by others \\(mode 1777\\): sticky or not" \
		"the slurmd log names the entry, its parent and why"

	runuser -u $USER1 -- ln -s "$victim" "$entry"
	[ "$(readlink "$entry")" = "$victim" ] && [ "$(stat -c %U "$entry")" = $USER1 ] &&
		[ -d "$victim" ]
	ok $? "precondition: $USER1 planted $entry -> $victim"
	: > "$log"
	"$CLUSTER" restart-slurmd node2 >/dev/null 2>&1
	slurmd_stopped node2
	ok $? "with the planted link slurmd does not start"
	# Its parent is checked first: writable by others, it is refused
	# before the link is met (a parent of root's alone would name the link).
	like "$(grep -h "$entry" "$log" | head -1)" "symbolic link|not owned by root|/var/tmp is writable by others" \
		"and the log names the entry and why"
	dir_empty "$victim" && ! grep -q "$victim" /proc/self/mountinfo
	ok $? "nothing was mounted on or written into $victim"
	dir_empty "$BASE/node2"
	ok $? "no job directory was left"

	# Root's directory there is refused too: aged out once empty, its
	# name could be taken while jobs have their mounts on it.
	rm -f "$entry"; mkdir -m 1777 "$entry"
	: > "$log"
	"$CLUSTER" restart-slurmd node2 >/dev/null 2>&1
	slurmd_stopped node2
	ok $? "with root's $entry slurmd does not start either"
	like "$(grep -h "$entry" "$log" | head -1)" "use a mount point whose parent directories are root's" \
		"and the log says what to use instead"
	rmdir "$entry"; rm -rf "$victim"
	conf_restore node2
	cl scontrol update nodename=node2 state=resume >/dev/null 2>&1
	wait_for 30 node_idle node2
	ok $? "with /tmp and /dev/shm alone node2 runs jobs again"
}

# BasePath must be root's all the way down (StrictModes); shared sticky
# directories and user-owned components stop slurmd with a reason.
test_base_path_checks() {
	local log=$DEVNS_CLUSTER_ROOT/log/slurmd-node3.log
	local userdir=/var/lib/devns-sec-userbase link=/var/tmp/devns-sec-userbase
	local target=/var/lib/devns-sec-basetarget

	: > "$log"
	conf_with node3 "NodeName=node3 BasePath=/tmp"
	slurmd_stopped node3
	ok $? "BasePath=/tmp: slurmd does not start"
	like "$(grep -hE 'BasePath:? "?/tmp' "$log" | head -1)" \
		"every user can write to|writable by others" \
		"the slurmd log says why (BasePath=/tmp)"

	rm -rf "$userdir"; mkdir -p "$userdir"; chown $USER1 "$userdir"
	: > "$log"
	conf_with node3 "NodeName=node3 BasePath=$userdir/base AutoBasePath=yes"
	slurmd_stopped node3
	ok $? "BasePath below a user's directory: slurmd does not start"
	like "$(grep -h "BasePath $userdir" "$log" | head -1)" "not owned by root" \
		"the slurmd log names the user-owned component"
	[ -d "$userdir" ] && [ ! -e "$userdir/base" ]
	ok $? "AutoBasePath created nothing below it"

	# The link points at an empty directory of root's: AutoBasePath,
	# following it, would create BasePath's last component there.
	rm -rf "$userdir" "$link" "$target"; mkdir -m 0755 "$target"
	runuser -u $USER1 -- ln -s "$target" "$link"
	[ "$(readlink "$link")" = "$target" ] && dir_empty "$target"
	ok $? "precondition: a link planted where BasePath would be created, to an empty $target"
	: > "$log"
	conf_with node3 "NodeName=node3 BasePath=$link/node3 AutoBasePath=yes"
	slurmd_stopped node3
	ok $? "AutoBasePath through a planted link: slurmd does not start"
	dir_empty "$target"
	ok $? "nothing was created at the link's target ($(find "$target" -mindepth 1 -printf '%P ' 2>&1))"
	rm -f "$link"; rm -rf "$target"
	conf_restore node3
	slurmd_running node3
	ok $? "with a root-owned BasePath slurmd runs again"
}

# slurmd restart must keep a job while any of its steps answers.
test_restart_keeps_live_job() {
	local j steps victim out title cg
	j=$(cl_as $USER1 sbatch --parsable -w node1 -n1 --gres=gpu:1 -o "$OUT/sec-%j.out" \
		--wrap "echo kept > /tmp/keep; srun --overlap --gres=none sleep 300 & srun --overlap --gres=none sleep 300 & touch $OUT/sec-steps; wait")
	wait_for 30 test -e "$OUT/sec-steps" &&
		wait_for 30 sh -c "ls $SPOOL/node1 | grep -c '_$j\.[01]\$' | grep -qx 2"
	ok $? "precondition: job $j runs with two srun steps"
	cg=$(job_cg "$j")
	# Its socket stays behind, stale, beside the live steps' sockets.
	# The stepd's title is cut to its original argv's length: for a long
	# job id "slurmstepd: [212.1" ends without the bracket.
	title="slurmstepd: \[$j\.1(\]| |\$)"
	wait_for 20 pgrep -f "$title" >/dev/null
	victim=$(pgrep -f "$title")
	[ -n "$victim" ] && kill -9 $victim
	ok $? "slurmstepd of step $j.1 killed with -9"
	# More steps of the job killed the same way: stale sockets (nobody
	# listens) for steps 2..40, so that whichever order slurmd lists the
	# sockets in, a stale one comes before the live ones.
	python3 - "$SPOOL/node1" "$j" <<'PY'
import socket, sys
spool, job = sys.argv[1], sys.argv[2]
for step in range(2, 41):
    s = socket.socket(socket.AF_UNIX)
    s.bind(f"{spool}/node1_{job}.{step}")
    s.close()
PY
	is "$(ls "$SPOOL/node1" | grep -c "^node1_$j\.")" 43 \
		"precondition: 39 more stale step sockets of the job"
	"$CLUSTER" restart-slurmd node1 >/dev/null 2>&1
	wait_for 60 node_idle node1
	[ -d "$BASE/node1/$j" ] && [ -f "$BASE/node1/$j/tmp/keep" ]
	ok $? "after the restart the job's /tmp contents are intact"
	[ -n "$cg" ] && [ -d "$(job_cgroups node1)/$cg" ] && [ -f "$SPOOL/node1/devns_filter_$j" ]
	ok $? "and its device cgroup and filter marker are intact"
	out=$(cl_as $USER1 srun --jobid "$j" --overlap -n1 sh -c \
		"cat /tmp/keep; $OUT/probe-sec.sh $GPUS" 2>&1)
	like "$out" "^kept" "a new step of the job still sees its /tmp"
	like "$out" "EPERM" "and is still filtered (other GPUs denied)"
	cl scancel "$j"
	wait_job_gone "$j"
	rm -f "$SPOOL/node1/node1_$j".*
}

# A marker that cannot be read must fail the process, not skip the filter.
test_marker_error() {
	local j out marker before
	j=$(cl_as $USER1 sbatch --parsable -w node1 -n1 --gres=gpu:1 -o "$OUT/sec-%j.out" \
		--wrap "touch $OUT/sec-m-ready; sleep 300")
	wait_for 30 test -e "$OUT/sec-m-ready"
	ok $? "precondition: a filtered job runs"
	marker=$SPOOL/node1/devns_filter_$j
	[ -f "$marker" ]
	ok $? "precondition: its filter marker exists"
	rm -f "$marker"; ln -s "$(basename "$marker")" "$marker"
	[ -L "$marker" ] && [ "$(job_state "$j")" = RUNNING ]
	ok $? "precondition: the marker is a link to itself (ELOOP), the job still runs"
	before=$(wc -l < "$NODE1_LOG")
	out=$(cl_as $USER1 srun --jobid "$j" --overlap -n1 sh -c \
		"echo step-ran; $OUT/probe-sec.sh $GPUS" 2>&1)
	! echo "$out" | grep -q step-ran
	ok $? "a step does not run when the marker cannot be read (ELOOP)"
	# Refused for the unreadable record, not taken for a missing one.
	# (A link is not root's regular file: the reason's errno is EINVAL.)
	wait_for 10 logged_since_in "$NODE1_LOG" "$before" "job $j: .*cannot tell whether it has a device filter"
	like "$(tail -n +"$before" "$NODE1_LOG" | grep -m1 "job $j: .*device filter\|job $j: .*setup record")" \
		"job $j: cannot tell whether it has a device filter: " \
		"  the log gives the reason: the record cannot be read, not that it is missing"
	rm -f "$marker"; touch "$marker"
	cl scancel "$j"
	wait_job_gone "$j"
}

# DevicePolicy=auto on a node whose GRES have no device files (AutoDetect
# without File=) contains nothing: slurmd must say so at start.
test_auto_without_files() {
	local gres=$DEVNS_CLUSTER_ROOT/etc/gres.conf
	local log=$DEVNS_CLUSTER_ROOT/log/slurmd-node3.log
	cp "$gres" "$OUT/gres.conf.sec-orig"
	sed -i 's/^NodeName=node\[1-3\]/NodeName=node[1-2]/' "$gres"
	grep -o ' Name=[a-z]*' "$OUT/gres.conf.sec-orig" | sort -u |
	while read -r name; do
		echo "NodeName=node3 $name Count=2"
	done >> "$gres"
	grep -q '^NodeName=node3 Name=gpu Count=' "$gres"
	ok $? "precondition: node3's GPUs have no device files in gres.conf"
	: > "$log"
	# slurmctld finds no GPU of the types slurm.conf names and takes node3
	# out (INVAL): restart-slurmd says so at once; the warning is slurmd's.
	"$CLUSTER" restart-slurmd node3 >/dev/null 2>&1
	wait_for 20 grep -q "DevicePolicy=auto on node node3" "$log"
	ok $? "DevicePolicy=auto without GRES device files: slurmd warns at start"
	like "$(grep -h 'DevicePolicy=auto on node node3' "$log" | head -1)" \
		"no device of a job is contained" "the warning says what it means"
	cp "$OUT/gres.conf.sec-orig" "$gres"
	"$CLUSTER" restart-slurmd node3 >/dev/null 2>&1	# still drained: at once
	cl scontrol update nodename=node3 state=resume >/dev/null 2>&1
	wait_for 60 node_idle node3
}

write_probe() { write_device_probe "$OUT/probe-sec.sh"; }

# The attack: a job that no setup ran for (no PrologFlags=Contain, 22.05's
# requeue path launching a batch step without the extern step, restore
# taking a live job for ended) had no filter marker, and a missing marker
# meant "no filter": its steps opened every GPU.  Now a job without its
# setup record does not run.
test_no_record() {
	local j out marker='' before
	j=$(cl_as $USER1 sbatch --parsable -w node1 -n1 --gres=gpu:1 -o "$OUT/sec-%j.out" \
		--wrap "touch $OUT/sec-r-ready; sleep 300")
	wait_for 30 test -e "$OUT/sec-r-ready"
	ok $? "precondition: a filtered job runs"
	marker=$SPOOL/node1/devns_filter_$j
	out=$(cl_as $USER1 srun --jobid "$j" --overlap -n1 sh -c \
		"echo step-ran; $OUT/probe-sec.sh $GPUS" 2>&1)
	like "$out" "step-ran" "precondition: with its record a step runs: $out"
	rm -f "$marker"
	[ ! -e "$marker" ] && [ "$(job_state "$j")" = RUNNING ]
	ok $? "precondition: its setup record is gone, the job still runs"
	before=$(wc -l < "$NODE1_LOG")
	out=$(cl_as $USER1 srun --jobid "$j" --overlap -n1 sh -c \
		"echo step-ran; $OUT/probe-sec.sh $GPUS" 2>&1)
	! echo "$out" | grep -q step-ran
	ok $? "a step of a job without its setup record does not run"
	# Refused for the missing record, not for one it could not read.
	wait_for 10 logged_since_in "$NODE1_LOG" "$before" "job $j: .*setup record"
	like "$(tail -n +"$before" "$NODE1_LOG" | grep -m1 "job $j: .*device filter\|job $j: .*setup record")" \
		"it has no setup record" "  the log gives the reason: no setup record"
	cl scancel "$j"
	wait_job_gone "$j"
}

# Without PrologFlags=Contain no extern step sets jobs up: slurmd refuses
# to start rather than fail (or, before, run unfiltered) every job.
test_no_contain() {
	local conf=$DEVNS_CLUSTER_ROOT/etc/slurm.conf out rc
	local log=$DEVNS_CLUSTER_ROOT/log/slurmd-node3.log
	cp "$conf" "$OUT/slurm.conf.sec-orig"
	sed -i 's/^PrologFlags=Contain$/PrologFlags=Alloc/' "$conf"
	grep -qx 'PrologFlags=Alloc' "$conf" && ! grep -qi '^PrologFlags=.*contain' "$conf"
	ok $? "precondition: node3's slurm.conf has PrologFlags=Alloc, not Contain"
	: > "$log"
	"$CLUSTER" restart-slurmd node3 >/dev/null 2>&1
	slurmd_stopped node3
	ok $? "without PrologFlags=Contain slurmd does not start"
	if slurm_at_least 25.11; then
		# Slurm's own rule from 25.11 (read_config.c: any NamespaceType
		# needs Contain) stops slurmd before it loads a plugin.  devns's
		# own refusal, which a Slurm without that rule would meet, is
		# the same code in `devns check` (nodeload): it must refuse.
		out=$(SLURM_CONF=$conf "$DEVNS_TOOL" check -f "$CONF" -n node3 2>&1)
		rc=$?
		[ "$rc" = 1 ] && echo "$out" | grep -q "PrologFlags=Contain is not set"
		ok $? "devns's own refusal ($DEVNS_SLURM_VERSION stops slurmd first): devns check exits 1 ($rc) saying PrologFlags=Contain is not set" ||
			diag "$out"
	else
		like "$(grep -h 'PrologFlags=Contain' "$log" | head -1)" "PrologFlags=Contain is not set" \
			"the slurmd log says why"
	fi
	cp "$OUT/slurm.conf.sec-orig" "$conf"
	"$CLUSTER" restart-slurmd node3 >/dev/null 2>&1
	cl scontrol update nodename=node3 state=resume >/dev/null 2>&1
	wait_for 60 node_idle node3
	slurmd_running node3
	ok $? "with it slurmd runs again"
}

# ---- the attacker's side, as another user (issue 41 item 7) ---------------

# try_read_as USER PATH...: one word per PATH, as USER reads it: the first
# line it read ("secret" for the job's files), or "denied:MESSAGE".
try_read_as() {
	local user=$1 p out
	shift
	for p; do
		if out=$(runuser -u "$user" -- head -n1 "$p" 2>&1); then
			printf '%s ' "$out"
		else
			printf 'denied:%s ' "$(echo "$out" | sed 's/.*: //' | tr ' ' '_')"
		fi
	done
	echo
}

# A job of USER1 keeps a file in its /tmp and in its /dev/shm, both
# readable by all (0644: only the path protects them), works in /tmp and
# holds both open.  USER2 tries to read them through the job's root and
# cwd in /proc, through BasePath, and through the job's held fds; root,
# which can, shows first that each path leads to the file.
test_other_user_reach() {
	local j pid paths want got i p base_job
	rm -f "$OUT/sec-o-ready"
	j=$(cl_as $USER1 sbatch --parsable -w node1 -n1 -o "$OUT/sec-%j.out" --wrap \
		"echo secret > /tmp/sec-o-secret && echo secret > /dev/shm/sec-o-secret && chmod 0644 /tmp/sec-o-secret /dev/shm/sec-o-secret && cd /tmp && exec 7</tmp/sec-o-secret 8</dev/shm/sec-o-secret && touch $OUT/sec-o-ready && exec sleep 4821")
	wait_for 60 test -e "$OUT/sec-o-ready" &&
		wait_for 10 pgrep -u $USER1 -f '^sleep 4821$' >/dev/null
	pid=$(pgrep -u $USER1 -f '^sleep 4821$' | head -1)
	[ -n "$pid" ] && [ "$(readlink "/proc/$pid/cwd")" = /tmp ]
	ok $? "precondition: job $j of $USER1 runs on node1 (pid $pid), in its /tmp, its files open" ||
		{ cl scancel "$j"; return; }
	base_job=$BASE/node1/$j
	paths=("/proc/$pid/root/tmp/sec-o-secret" "/proc/$pid/root/dev/shm/sec-o-secret"
		"/proc/$pid/cwd/sec-o-secret" "$base_job/tmp/sec-o-secret"
		"/proc/$pid/fd/7" "/proc/$pid/fd/8")
	[ ! -e /tmp/sec-o-secret ] && [ ! -e /dev/shm/sec-o-secret ] &&
		[ "$(stat -c %a "/proc/$pid/root/tmp/sec-o-secret")" = 644 ]
	ok $? "precondition: the files are the job's alone (not in the host's /tmp or /dev/shm), mode 0644"
	want=$(for p in "${paths[@]}"; do printf 'secret '; done; echo)
	got=$(try_read_as root "${paths[@]}")
	is "$got" "$want" "precondition: root reads both files through each path"
	[ "$got" = "$want" ] || diag "paths: ${paths[*]}"
	# The job's /dev/shm is a tmpfs of its namespace's own: BasePath
	# holds only its mount point, so that not even root finds it there.
	is "$(find "$base_job" -name sec-o-secret 2>&1)" "$base_job/tmp/sec-o-secret" \
		"BasePath holds the job's /tmp file and not its /dev/shm one (root's find)"
	read -ra got <<<"$(try_read_as "$USER2" "${paths[@]}")"
	i=0
	for what in "/proc/PID/root: /tmp" "/proc/PID/root: /dev/shm" "/proc/PID/cwd: /tmp" \
		"BasePath: /tmp" "a held fd: /tmp" "a held fd: /dev/shm"; do
		like "${got[$i]:-none}" "^denied:" "$USER2 cannot read the job's file through $what (${got[$i]:-no answer})"
		i=$((i + 1))
	done
	cl scancel "$j"
	wait_job_gone "$j"
}

# A login of USER2 adopted by pam_slurm_adopt on node1, where only USER1
# has a job: refused.  USER1's own login, in the same PAM setup, shows that
# adoption works there.
test_adopt_other_users_job() {
	local module j out pamdir=$DEVNS_CLUSTER_ROOT/pam-sec
	module=$(pam_slurm_adopt_module)
	[ -n "$module" ] && [ -x "${HELPERS:-}/pam_adopt" ]
	ok $? "precondition: pam_slurm_adopt.so (${module:-none}) and helpers/pam_adopt" || return
	mkdir -p "$pamdir"
	echo "account required $module nodename=node1 action_adopt_failure=deny action_no_jobs=deny" > "$pamdir/sshd"
	rm -f "$OUT/sec-a-ready"
	j=$(cl_as $USER1 sbatch --parsable -w node1 -n1 -o "$OUT/sec-%j.out" --wrap \
		"echo in-job > /tmp/sec-a-mark; touch $OUT/sec-a-ready; sleep 300")
	wait_for 60 test -e "$OUT/sec-a-ready"
	out=$(on_node node1 "$HELPERS/pam_adopt" "$pamdir" sshd "$USER1" sh -c 'cat /tmp/sec-a-mark' 2>&1)
	is "$out" in-job "precondition: $USER1's own login is adopted into job $j"
	out=$(on_node node1 "$HELPERS/pam_adopt" "$pamdir" sshd "$USER2" sh -c 'echo logged-in; cat /tmp/sec-a-mark' 2>&1)
	! echo "$out" | grep -q 'logged-in\|in-job'
	ok $? "$USER2's login on node1 is refused: no job of theirs to adopt into ($(echo $out | cut -c1-120))"
	cl scancel "$j"
	wait_job_gone "$j"
	rm -rf "$pamdir"
}

# systemd-run --user from a job (issue 41 item 7).  Where systemd is init
# and the layout is unified (the guest, real nodes), a user's manager
# (user@UID.service, started here as a login would) is a way out of the
# job's cgroup and so of its device filter: `systemd-run --user --scope`
# has the manager ask PID 1 (AttachProcessesToUnit) to move the process
# into user@UID.service/app.slice, and PID 1 takes the same call from the
# job process itself over the system bus (it moves a caller's own
# processes into an active delegated unit of its uid, no polkit; PID 1
# creates no cgroup for it, so the attack names an existing leaf, the
# manager's own init.scope).  The
# job's namespace has neither door (ns/nsbus.h): each attack must leave
# its process in the job's cgroup with the other GPUs denied, or fail.
# A third way, the manager's socket through /proc/<manager>/root, only a
# PID namespace closes (the job sees no process outside it): tried with
# PidNamespace=yes.
SD_CHECKS=6
sd_contained() {	# sd_contained FILE JOBCG: FILE's CG and DEV lines
	local f=$1 cg=$2 c
	c=$(sed -n 's/^CG 0:://p' "$f" 2>/dev/null)
	# Refused (systemd-run failed, its command never ran): not run
	# elsewhere either.
	[ -z "$c" ] && ! grep -q '^DEV' "$f" && grep -q '^rc=[1-9]' "$f" && return 0
	[[ $c == "${cg%/*}"* ]] &&
		[ "$(sed -n 's/^DEV //p' "$f" | tr ' ' '\n' | grep -c EPERM)" = 3 ]
}
sd_show() { sed 's/^/ /' "$1" 2>/dev/null | tr -d '\n' | cut -c1-200; }

test_systemd_run_escape() {
	local uid j cg mpid sock f
	if ! { [ "${DEVNS_CLUSTER_VM:-}" = guest ] || cgroup_unified; } ||
		[ "$(cat /proc/1/comm 2>/dev/null)" != systemd ]; then
		skip_checks $SD_CHECKS "systemd-run --user from a job: needs systemd as init on the unified cgroup layout (the guest); here $(stat -fc %T /sys/fs/cgroup), init $(cat /proc/1/comm 2>/dev/null)"
		return
	fi
	uid=$(id -u $USER1)
	sock=/run/user/$uid/systemd/private
	# The door exists on the node: the manager answers USER1 outside a
	# job, through its private socket (systemd-run's way without a
	# session bus); a refused attack below proves nothing otherwise.
	systemctl start "user@$uid.service" >/dev/null 2>&1 &&
		mpid=$(systemctl show -p MainPID --value "user@$uid.service") && [ "${mpid:-0}" -gt 0 ] &&
		command -v systemd-run >/dev/null && command -v busctl >/dev/null &&
		runuser -u $USER1 -- env -u DBUS_SESSION_BUS_ADDRESS XDG_RUNTIME_DIR=/run/user/$uid \
			systemctl --user show -p Version 2>/dev/null | grep -q '^Version='
	ok $? "precondition: $USER1's systemd user manager runs (user@$uid.service, pid ${mpid:-none}) and answers $USER1 outside a job" ||
		{ skip_checks $((SD_CHECKS - 1)) "no user manager"; return; }
	runuser -u $USER1 -- test -S "/proc/$mpid/root$sock"
	ok $? "precondition: $USER1 reaches the manager's socket through /proc/$mpid/root as well"
	rm -f "$OUT"/sec-sd-*
	# Each attack runs sec-sd-report: "CG <its cgroup>" and "DEV <the
	# probe's verdicts>" where it ran; A's never runs when systemd-run is
	# refused.
	local report=$OUT/sec-sd-report.sh
	printf '#!/bin/sh\necho "CG $(grep "^0::" /proc/self/cgroup)"\necho "DEV $(%s %s)"\n' \
		"$OUT/probe-sec.sh" "$GPUS" > "$report" && chmod 0755 "$report"
	j=$(cl_as $USER1 sbatch --parsable -w node1 -n1 --gres=gpu:1 -o "$OUT/sec-%j.out" --wrap "
		export XDG_RUNTIME_DIR=/run/user/$uid
		[ -S /run/user/$uid/bus ] && export DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/$uid/bus
		$report > $OUT/sec-sd-job
		systemd-run --user --scope --quiet $report > $OUT/sec-sd-a 2>&1; echo rc=\$? >> $OUT/sec-sd-a
		sh -c 'busctl --system call org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager AttachProcessesToUnit ssau user@$uid.service /init.scope 1 \$\$; echo rc=\$?; exec $report' > $OUT/sec-sd-b 2>&1")
	wait_job_gone "$j" 120
	cg=$(sed -n 's/^CG 0:://p' "$OUT/sec-sd-job" 2>/dev/null)
	[ -n "$cg" ] && [ "$(sed -n 's/^DEV //p' "$OUT/sec-sd-job" | tr ' ' '\n' | grep -c EPERM)" = 3 ]
	ok $? "precondition: the job ran in $cg, the other GPUs denied ($(sd_show "$OUT/sec-sd-job"))"
	sd_contained "$OUT/sec-sd-a" "$cg"
	ok $? "systemd-run --user --scope does not leave the job's cgroup or its filter:$(sd_show "$OUT/sec-sd-a")"
	sd_contained "$OUT/sec-sd-b" "$cg"
	ok $? "AttachProcessesToUnit on the system bus does not either:$(sd_show "$OUT/sec-sd-b")"

	# Through /proc/<manager>/root: with a PID namespace the job sees no
	# manager to go through.
	conf_with node2 "NodeName=node2 PidNamespace=yes"
	j=$(cl_as $USER1 sbatch --parsable -w node2 -n1 --gres=gpu:1 -o "$OUT/sec-%j.out" --wrap "
		$report > $OUT/sec-sd-pidjob
		env -u DBUS_SESSION_BUS_ADDRESS XDG_RUNTIME_DIR=/proc/$mpid/root/run/user/$uid systemd-run --user --scope --quiet $report > $OUT/sec-sd-c 2>&1; echo rc=\$? >> $OUT/sec-sd-c")
	wait_job_gone "$j" 120
	cg=$(sed -n 's/^CG 0:://p' "$OUT/sec-sd-pidjob" 2>/dev/null)
	[ -n "$cg" ] && sd_contained "$OUT/sec-sd-c" "$cg"
	ok $? "with PidNamespace=yes, not through /proc/$mpid/root either:$(sd_show "$OUT/sec-sd-c")"
	conf_restore node2
	systemctl stop "user@$uid.service" >/dev/null 2>&1
}

setup
write_probe
test_dirs_link_attack
test_base_path_checks
test_restart_keeps_live_job
test_marker_error
test_auto_without_files
test_no_record
test_no_contain
test_other_user_reach
test_adopt_other_users_job
test_systemd_run_escape
tap_done
