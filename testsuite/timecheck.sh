#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# timecheck.sh [--merge] LABEL CMD... - run CMD with its standard output
# passed through unchanged, and time every TAP check it prints.
#
# For each line "ok N ..." or "not ok N ..." one line
#   SECONDS<TAB>LABEL<TAB>CHECK
# is appended to $DEVNS_CHECK_TIMES (nothing is recorded when it is unset):
# SECONDS is the time since the previous check, or since CMD started, so
# that a check's own waits, jobs and daemon restarts are charged to it.
# --merge sends CMD's standard error into the same stream (the integration
# tests' logs); without it standard error is left alone (automake's TAP
# driver reads the unit tests' standard output only).  "%t" in LABEL
# stands for the file name of CMD's last word (automake's LOG_COMPILER puts
# the test program there).  Exits with CMD's status.  run-tests.sh prints
# the ten slowest checks from that file.
merge=
[ "${1:-}" = --merge ] && { merge=1; shift; }
label=$1
shift
last=${!#}
label=${label//%t/${last##*/}}
times=${DEVNS_CHECK_TIMES:-/dev/null}

stamp() {
	local line last=${EPOCHREALTIME/./} now us
	while IFS= read -r line || [ -n "$line" ]; do
		printf '%s\n' "$line"
		case $line in
		'ok '[0-9]* | 'not ok '[0-9]*)
			now=${EPOCHREALTIME/./}
			us=$((now - last))
			last=$now
			printf '%d.%03d\t%s\t%s\n' $((us / 1000000)) $((us / 1000 % 1000)) \
				"$label" "$line" >>"$times"
			;;
		esac
	done
}

if [ -n "$merge" ]; then
	"$@" 2>&1 | stamp
else
	"$@" | stamp
fi
exit "${PIPESTATUS[0]}"
