#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_perjob.sh - what each job gets of its own on the real cluster
# (issue 47): ShmSize=50% sizes /dev/shm from the job's --mem; the job's
# peak and final usage of /tmp and /dev/shm in slurmd's log and its
# AdminComment, and live in devns show; KeepPaths binds a node
# directory where a daemon serves a unix socket into the job's private
# /tmp (a directory a user made is left out, slurmd still starts); a per-user mount point
# (Dir=HOMES/%u/scratch) is each user's own private directory.
source "$(dirname "$0")/lib.sh"
plan 29

USER1=dnalice
USER2=dnbob
JOB_OUT_PREFIX=perjob
LOG=$DEVNS_CLUSTER_ROOT/log/slurmd-node1.log
# A node directory root made in /tmp (1777, as /tmp/.X11-unix), with a
# daemon's socket; one a user made.
KEEP=/tmp/devns-test-keep
UKEEP=/tmp/devns-test-ukeep
# Users' homes of the test's own (the test users have none): root's parent.
HOMES=$DEVNS_CLUSTER_ROOT/homes

setup() {
	out_setup perjob
	rm -rf --one-file-system "$KEEP" "$UKEEP" "$HOMES"
	mkdir -m 0755 "$HOMES"
	# root's and 1777, as /tmp/.X11-unix: the job user may write there
	mkdir "$KEEP" && chmod 1777 "$KEEP"
	mkdir -m 0755 "$UKEEP" && chown "$USER1" "$UKEEP"
	mkdir -m 0700 "$HOMES/$USER1" "$HOMES/$USER2"
	chown "$USER1" "$HOMES/$USER1"
	chown "$USER2" "$HOMES/$USER2"
}

# devns_show [--json] JOB: devns show on node1, as root there.
devns_show() {
	on_node node1 env SLURM_CONF="$DEVNS_CLUSTER_ETC/slurm.conf" \
		"$DEVNS_TOOL" show -f "$CONF" -n node1 "$@"
}

# job_out JOB: the job's output file.
job_out() { cat "$OUT/$JOB_OUT_PREFIX-$1.out" 2>/dev/null; }

test_shm_share() {
	local j want
	conf_with node1 "ShmSize=50%"
	ok $? "precondition: node1 runs with ShmSize=50%" || return
	j=$(submit -w node1 -n1 --mem=200M -- "df -k --output=size /dev/shm | tail -1 | tr -d ' '")
	[[ $j =~ ^[0-9]+$ ]] && wait_job_gone "$j"
	is "$(job_out "$j")" 102400 "--mem=200M: the job's /dev/shm is 100M"
	j=$(submit -w node1 -n1 --mem-per-cpu=100M -c 2 -- "df -k --output=size /dev/shm | tail -1 | tr -d ' '")
	[[ $j =~ ^[0-9]+$ ]] && wait_job_gone "$j"
	is "$(job_out "$j")" 102400 "--mem-per-cpu=100M on 2 CPUs: 100M"
	if slurm_at_least 23.02; then
		# the node's RealMemory (1000 MB in the cluster), halved
		want=$((1000 * 1024 / 2))
		j=$(submit -w node1 -n1 --mem=0 -- "df -k --output=size /dev/shm | tail -1 | tr -d ' '")
		[[ $j =~ ^[0-9]+$ ]] && wait_job_gone "$j"
		[ "$(job_out "$j")" -le "$want" ] 2>/dev/null && [ "$(job_out "$j")" -gt 0 ]
		ok $? "--mem=0 (the whole node): at most half its RealMemory ($(job_out "$j") KiB)"
	else
		skip "22.05 passes no RealMemory to slurmstepd: the memory slurmd found"
	fi
	if cgroup_unified; then
		# the cluster's DefMemPerCPU=300 on the unified layout: 300M
		j=$(submit -w node1 -n1 -- "df -k --output=size /dev/shm | tail -1 | tr -d ' '")
		[[ $j =~ ^[0-9]+$ ]] && wait_job_gone "$j"
		is "$(job_out "$j")" 153600 "no --mem: DefMemPerCPU=300 on one CPU gives 150M"
	else
		skip "no DefMemPerCPU on the hybrid layout's cluster"
	fi
	conf_with node1 "ShmSize=64M"
	j=$(submit -w node1 -n1 --mem=200M -- "df -k --output=size /dev/shm | tail -1 | tr -d ' '")
	[[ $j =~ ^[0-9]+$ ]] && wait_job_gone "$j"
	is "$(job_out "$j")" 65536 "a fixed ShmSize=64M keeps working"
}

test_usage() {
	local j line entry comment c
	conf_with node1 "ShmSize=64M"
	# 3M in /dev/shm held for two samples (every 10 s), then removed;
	# 2M in /tmp kept.
	j=$(submit -w node1 -n1 -- "head -c 3145728 /dev/zero > /dev/shm/big; \
head -c 2097152 /dev/zero > /tmp/kept; touch $OUT/perjob-usage-ready; \
sleep 12; rm /dev/shm/big; while [ ! -e $OUT/perjob-usage-go ]; do sleep 0.2; done")
	[[ $j =~ ^[0-9]+$ ]] && wait_file "$OUT/perjob-usage-ready" 60
	ok $? "precondition: the job wrote 3M to /dev/shm, 2M to /tmp (job '$j')" || return
	line=$(devns_show "$j" | grep '^usage /dev/shm ')
	[[ $line == "usage /dev/shm 3145728/67108864 inodes 1/"* ]]
	ok $? "devns show: the live figures of /dev/shm: $line"
	devns_show --json "$j" 2>/dev/null |
		python3 -c 'import json,sys; u={d["path"]: d for d in json.load(sys.stdin)["usage"]}; sys.exit(0 if u["/tmp"]["bytes"] >= 2097152 and u["/dev/shm"]["tmpfs"] else 1)'
	ok $? "  --json: usage of /tmp and /dev/shm"
	# Posted while the job runs (Slurm refuses it once the job ended):
	# the first figures at the first sample that has them (10 s).
	for _ in $(seq 30); do
		comment=$(cl scontrol show job -o "$j" 2>/dev/null | grep -o 'AdminComment=[^ ]*')
		[[ $comment == *devns:* ]] && break
		sleep 1
	done
	[[ $comment == "AdminComment=devns:node1:shm=3M/3M/64M:1/1/"*",tmp=2M/2M/-:1/1/-" ]]
	ok $? "the job's AdminComment has its figures while it runs: $comment"
	sleep 3	# the job has removed its 3M
	touch "$OUT/perjob-usage-go"
	wait_job_gone "$j"
	wait_for 10 grep -q "job $j: usage devns:node1:" "$LOG"
	line=$(grep -o "job $j: usage devns:node1:[^ ]*" "$LOG")
	entry=${line#job $j: usage }
	ok "$([ -n "$entry" ]; echo $?)" "slurmd logs the job's usage: $entry"
	[[ $entry == *"shm=3M/0/64M:1/0/"* ]]
	ok $? "  /dev/shm: peak 3M (sampled), final 0, of 64M"
	[[ $entry == *"tmp=2M/2M/-:1/1/-"* ]]
	ok $? "  /tmp: 2M at the end (counted then: peak = final), no limit"
}

stop_server() { [ -z "${SERVER:-}" ] || kill "$SERVER" 2>/dev/null; }

# A daemon on the node serving a unix socket in KEEP: answers "pong".
serve_socket() {
	python3 - "$KEEP/sock" <<'EOF' &
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o777); s.listen(8)
while True:
    c, _ = s.accept(); c.sendall(b"pong\n"); c.close()
EOF
	SERVER=$!
	at_exit stop_server
	wait_for 10 test -S "$KEEP/sock"
}

test_keep_paths() {
	local j
	serve_socket
	ok $? "precondition: a daemon serves $KEEP/sock on the node" || return
	conf_with node1 "KeepPaths=$KEEP,$UKEEP"
	ok $? "precondition: node1 runs with KeepPaths=$KEEP,$UKEEP" || return
	touch "/tmp/devns-test-host-$$"
	j=$(submit -w node1 -n1 -- "python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"$KEEP/sock\"); print(s.recv(16).decode().strip())'; \
echo written > $KEEP/from-job && echo wrote; ls -d $UKEEP 2>&1 | grep -c 'No such'; ls /tmp/devns-test-host-$$ 2>/dev/null | wc -l")
	[[ $j =~ ^[0-9]+$ ]] && wait_job_gone "$j"
	is "$(job_out "$j" | sed -n 1p)" pong "the job reaches the daemon's socket in its private /tmp"
	is "$(job_out "$j" | sed -n 2p)" wrote "  read-write, as on the node"
	is "$(cat "$KEEP/from-job" 2>/dev/null)" written "  the file is the node's"
	is "$(job_out "$j" | sed -n 3p)" 1 "a directory a user made ($UKEEP) is not kept"
	grep -q "job $j: .*KeepPaths $UKEEP not bound into the job: $UKEEP is not owned by root" "$LOG"
	ok $? "  slurmd says why"
	is "$(job_out "$j" | sed -n 4p)" 0 "the rest of the job's /tmp stays private"
	rm -f "/tmp/devns-test-host-$$"
	stop_server
}

test_user_mount_points() {
	local j1 j2
	conf_with node1 "Dir=$HOMES/%u/scratch"
	ok $? "precondition: node1 runs with Dir=$HOMES/%u/scratch" || return
	j1=$(USER1=$USER1 submit -w node1 -n1 -- "echo alice > $HOMES/$USER1/scratch/f; \
findmnt -no TARGET $HOMES/$USER1/scratch; touch $OUT/perjob-u1-ready; \
while [ ! -e $OUT/perjob-u-go ]; do sleep 0.2; done")
	j2=$(USER1=$USER2 submit -w node1 -n1 -- "ls $HOMES/$USER2/scratch | wc -l; \
echo bob > $HOMES/$USER2/scratch/f; cat $HOMES/$USER2/scratch/f; \
ls $HOMES/$USER1/scratch/f 2>&1 | grep -c 'Permission denied\|No such'; touch $OUT/perjob-u2-ready; \
while [ ! -e $OUT/perjob-u-go ]; do sleep 0.2; done")
	wait_file "$OUT/perjob-u1-ready" 60 && wait_file "$OUT/perjob-u2-ready" 60
	ok $? "precondition: $USER1's job $j1 and $USER2's job $j2 run at once on node1" || return
	is "$(job_out "$j1" | sed -n 1p)" "$HOMES/$USER1/scratch" "$USER1's $HOMES/$USER1/scratch is a mount of its own"
	[ ! -e "$HOMES/$USER1/scratch/f" ] && [ "$(stat -c '%U %a' "$HOMES/$USER1/scratch")" = "$USER1 700" ]
	ok $? "  made $USER1's 0700 on the node, its file not there (private)"
	is "$(job_out "$j2" | sed -n 1p)" 0 "$USER2's job gets its own, empty"
	is "$(job_out "$j2" | sed -n 2p)" bob "  and writes to it"
	is "$(job_out "$j2" | sed -n 3p)" 1 "  and cannot reach $USER1's"
	touch "$OUT/perjob-u-go"
	wait_job_gone "$j1" && wait_job_gone "$j2"
	wait_for 20 job_dir_gone node1 "$j1"
	ok $? "the jobs' directories go with them; the mount points stay, empty"
}

cleanup() {
	cmp -s "$CONF_SAVED" "$CONF" || conf_restore node1
	rm -rf --one-file-system "$KEEP" "$UKEEP" "$HOMES"
	rm -f "$OUT"/perjob-*
}

setup
test_shm_share
test_usage
test_keep_paths
test_user_mount_points
cleanup
tap_done
