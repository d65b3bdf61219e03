#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_check.sh - devns check gives slurmd's verdict (issue 46): the same
# 30 broken job_container.conf files are fed to node1's slurmd (restarted
# on each) and to `devns check -n node1` run on node1 (its hostname, as
# slurmd sees it): slurmd refuses to start on each, check exits 1 on
# each, and every error check prints is a line of slurmd's log (a file
# with three bad lines: all three, in both).  The
# files cover the parser (keys, values, lines, hostlists, control bytes),
# the checks of keys from different lines, the release rules of
# conf/nsrelease.h (EntireStepInNS=yes before 24.11.1, UserNamespace=yes
# without PidNamespace=yes before 25.11: refused by both on a release
# before, accepted by both after) and the node's scripts.  Each file is
# the harness's settings plus its lines; the harness's file itself is
# accepted by both (the precondition), and node1 gets it back at the end.
source "$(dirname "$0")/lib.sh"

LOG=$DEVNS_CLUSTER_ROOT/log/slurmd-node1.log
NOEXEC=$OUT/check-noexec.sh

# The broken files' lines, one file per entry ("\n" between lines).
BROKEN=(
	'Bogus=1'
	'ShmSize=12Q'
	'PidNamespace=maybe'
	'Shared=yes\033'
	'NodeName=node[1-2 ShmSize=1G'
	'NodeName=DEFAULT Shared=yes'
	'ShmSize=1G ShmSize=2G'
	'Shared=yes NodeName=node1'
	'Type=tmpfs'
	'Dir=/scratch Type=bogus'
	'Dir=/scratch Options=bogus'
	'Dirs=/tmp,/etc'
	'Dirs=/tmp,/%u/scratch'
	'NodeName=node1 BasePath=/tmp'
	"Dirs=/tmp,$BASE"
	'NodeName=node1 BasePath=relative/path'
	'TmpInodeLimit=1000'
	'TmpDiskLimit=1G\nTmpSize=1G'
	'EntireStepInNS=yes'
	'UserNamespace=yes'
	'EntireStepInNS=yes\nPidNamespace=yes'
	'NamespacePool=1000'
	'DevicePolicy=bogus'
	'DeviceAllow=/dev/null:rwx'
	'DeviceAllow="/dev/null rw'
	'InitScript=/nonexistent/devns-init.sh'
	"CloneNSScript=$NOEXEC"
	'Dir=/scratch Source=/var/spool/%q'
	'CloneNSScript_Wait=abc'
	'Bogus=1\nShmSize=12Q\nPidNamespace=maybe'
)
plan $((2 + 2 * ${#BROKEN[@]} + 1))

# Whatever stopped the test, node1 gets the harness's file back.
finish() {
	cmp -s "$CONF_SAVED" "$CONF" && ! slurmd_stopped node1 && return
	cp "$CONF_SAVED" "$CONF"
	"$CLUSTER" restart-slurmd node1 >/dev/null 2>&1
}

# verdicts LINES: $CONF is the harness's file plus LINES; node1's slurmd
# restarted on it: SLURMD (started|refused) and SLURMD_LOG (what it
# logged); devns check on node1: CHECK_RC and CHECK_ERR.
verdicts() {
	local from
	cp "$CONF_SAVED" "$CONF"
	[ -n "$1" ] && printf '%b\n' "$1" >> "$CONF"
	from=$(($(wc -l < "$LOG") + 1))
	"$CLUSTER" restart-slurmd node1 >/dev/null 2>&1
	if slurmd_stopped node1; then SLURMD=refused; else SLURMD=started; fi
	SLURMD_LOG=$(tail -n +"$from" "$LOG")
	CHECK_ERR=$(on_node node1 "$DEVNS_TOOL" check -f "$CONF" -n node1 2>&1 >/dev/null)
	CHECK_RC=$?
}

# The errors of check's stderr (no warning: or note: line).
errors() { grep -v -e '^warning: ' -e '^note: ' <<<"$CHECK_ERR"; }

# Whether every error of check is a line of slurmd's log.
errors_logged() {
	local e
	while IFS= read -r e; do
		grep -qF -- "devns: $e" <<<"$SLURMD_LOG" || return 1
	done < <(errors)
}

out_setup check
at_exit finish
printf '#!/bin/sh\n' > "$NOEXEC" && chmod 0644 "$NOEXEC"

verdicts ""
[ "$SLURMD" = started ] && [ "$CHECK_RC" = 0 ]
ok $? "precondition: the harness's file: slurmd starts, check passes (rc $CHECK_RC)" ||
	diag "$CHECK_ERR"
[ -x "$DEVNS_TOOL" ]
ok $? "precondition: the devns tool of this build ($DEVNS_TOOL)"

for lines in "${BROKEN[@]}"; do
	name=${lines//\\n/ + }
	verdicts "$lines"
	if [ "$SLURMD" = refused ]; then want=1; else want=0; fi
	is "$CHECK_RC" "$want" "$name: slurmd $SLURMD (Slurm $DEVNS_SLURM_VERSION), check exits $want" ||
		diag "check: $CHECK_ERR" "slurmd: $(grep devns <<<"$SLURMD_LOG" | tail -n 3)"
	err=$(errors | head -n1)
	if [ "$want" = 1 ]; then
		[ -n "$err" ] && errors_logged
		ok $? "  check's $(errors | wc -l) error(s) are slurmd's messages: $err" ||
			diag "slurmd: $(grep devns <<<"$SLURMD_LOG" | tail -n 3)"
	else
		[ -z "$err" ]
		ok $? "  both accept it: check prints no error" || diag "$CHECK_ERR"
	fi
done

cp "$CONF_SAVED" "$CONF"
"$CLUSTER" restart-slurmd node1 >/dev/null 2>&1 && ! slurmd_stopped node1 &&
	wait_node_idle node1
ok $? "node1 is back on the harness's file, idle"
rm -f "$NOEXEC"
tap_done
