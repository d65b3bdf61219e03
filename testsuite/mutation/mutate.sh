#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# mutate.sh - a small mutation pass: break the code on purpose, one
# mutation at a time, and check that the unit tests notice.
#
#   testsuite/mutation/mutate.sh [NAME...]     (default: every mutation)
#
# Works on a scratch copy of the committed tree (git archive HEAD) under
# $DEVNS_MUTATE_DIR (default /var/tmp/devns-mutate), configured once.
#
# First a baseline: the named unit tests of every selected mutation are
# built and run on the unmutated copy, and each must pass; a mutant
# "caught" by a test that fails anyway would prove nothing, so a failed
# baseline fails the pass (naming the tests) and no mutant is tried.
#
# Each mutation is one sed expression on one file that must change
# exactly one line, found by its content (an address like /LINE/{n;s/../}
# may pick the line after a unique one): the script counts the lines the
# expression substitutes, and 0 or more than 1 is a "broken" mutation,
# a failure, never "caught".  Then only the named tests are rebuilt
# (make TARGET, not make check) and run, in order, until one fails; the
# file is restored.  A mutation is "caught" when one of its tests fails.
#
# Output is TAP: "1..N", one line for the baseline and one per mutation;
# the logs are under $DEVNS_MUTATE_DIR.  Exits non-zero on a failed
# baseline, a survivor or a broken mutation.  Needs root (the tests of
# cgroups, BPF, seccomp and mounts); about 3 minutes on a loaded 2-core
# machine (one configure, one build of the named tests for the baseline,
# then one small rebuild per mutation).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
work=${DEVNS_MUTATE_DIR:-/var/tmp/devns-mutate}
jobs=$(nproc)

# name ~ file ~ sed expression ~ unit tests that must catch it
MUTATIONS=(
"filter-allows-all~src/lib/dev/devfilter.c~/p\[to_deny\[i\]\].off = /{n;s/p\[n++\] = MOV_K(BPF_REG_0, 0);/p[n++] = MOV_K(BPF_REG_0, 1);/}~test_devfilter test_devfilter_kernel test_jobct"
"filter-allows-all-uncounted~src/lib/dev/devfilter.c~/p\[n++\] = JMP_K(BPF_JNE, BPF_REG_1, 0, 2);/{n;n;n;s/p\[n++\] = MOV_K(BPF_REG_0, 0);/p[n++] = MOV_K(BPF_REG_0, 1);/}~test_devfilter test_devfilter_kernel test_jobct"
"filter-default-allow~src/lib/dev/devfilter.c~s/int32_t dflt = t->default_allow ? 1 : 0;/int32_t dflt = 1;/~test_devfilter test_devfilter_kernel test_jobct"
"saferm-follows-links~src/lib/util/saferm.c~s/int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;/int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;/~test_saferm"
"no-namespace-join~src/lib/job/jobct.c~s/^	    node->ops->ns_join(node->base_fd, node->conf->base_path,$/	    0 \&\& node->ops->ns_join(node->base_fd, node->conf->base_path,/~test_jobct"
"marker-error-is-no-filter~src/lib/job/marker.c~/node->ops->marker_stat(path, \&st) < 0)$/{n;s/return errno == ENOENT ? 0 : -1;/return 0;/}~test_jobct"
"base-path-owner-unchecked~src/lib/util/safepath.c~/^static int check_dir(/,/^}/s/if (st.st_uid != 0) {/if (0) {/~test_safepath test_jobct"
"base-path-shared-dir~src/lib/util/safepath.c~s/if (last || !(st.st_mode \& S_ISVTX) || !sticky_ok) {/if (0 \&\& sticky_ok) {/~test_safepath"
"missing-below-writable~src/lib/util/safepath.c~/^static int missing_check(/,/^}/s/if (!(st.st_mode \& (S_IWGRP | S_IWOTH)))$/if (1)/~test_safepath"
"create-below-shared~src/lib/util/safepath.c~s/(st.st_uid != 0 || (st.st_mode \& (S_IWGRP | S_IWOTH)))) {/0) {/~test_safepath"
"saferm-crosses-mounts~src/lib/util/saferm.c~s/^	if (!same_mount(w, \&id)) {$/	if (0) {/~test_saferm"
"gres-not-denied~src/lib/dev/devpolicy.c~s/if (add_gres(\&ctx, node_gres\[i\], 0, out) < 0)/if (0)/~test_devpolicy test_jobct"
"mcs-label-anyone~src/lib/mcs/mcslabel.c~s/return ops->user_in_group(ops->ctx, uid, gid) > 0 ? 0 : -1;/return ops->user_in_group(ops->ctx, uid, gid) >= 0 ? 0 : 0;/~test_mcslabel"
"privatedata-nss-error-allows~src/lib/mcs/mcslabel.c~s/return ops->user_in_group(ops->ctx, uid, gid) > 0 ? 0 : -1;/return ops->user_in_group(ops->ctx, uid, gid) != 0 ? 0 : -1;/~test_mcslabel"
"groupcache-nss-error-member~src/lib/mcs/groupcache.c~s/rc = error ? -1 : entry_has(e, gid);/rc = error ? 1 : entry_has(e, gid);/~test_groupcache"
"label-nss-error-accepted~src/lib/mcs/mcslabel.c~s/if (in < 0 || (!in \&\& gid != req->job_gid))/if (!in \&\& gid != req->job_gid)/~test_mcslabel"
"quota-seal-x32-ioctl~src/lib/ns/dqguard.c~s/JEQ(NR_IOCTL_X32, 8, 0),/JEQ(NR_IOCTL_X32, 0, 0),/~test_dqguard"
"quota-seal-x32-setattr~src/lib/ns/dqguard.c~s/JEQ(NR_FILE_SETATTR | X32_BIT, 10, 0),/JEQ(NR_FILE_SETATTR | X32_BIT, 0, 0),/~test_dqguard"
"quota-seal-i386-passes~src/lib/ns/dqguard.c~s/JEQ(ARCH_COMPAT, 0, 3),/JEQ(ARCH_COMPAT, 3, 3),/~test_dqguard"
"quota-seal-i386-ioctl~src/lib/ns/dqguard.c~s/JEQ(NR_IOCTL_COMPAT, 2, 0),/JEQ(NR_IOCTL_COMPAT, 0, 0),/~test_dqguard"
"quota-seal-i386-setattr~src/lib/ns/dqguard.c~s/JEQ(NR_FILE_SETATTR, 5, 0),/JEQ(NR_FILE_SETATTR, 0, 0),/~test_dqguard"
"quota-seal-cmd-64bit~src/lib/ns/dqguard.c~s/#define CMD_LOW offsetof(struct seccomp_data, args\[1\])$/#define CMD_LOW (offsetof(struct seccomp_data, args[1]) + 4)/~test_dqguard"
"nodename-matches-all~src/lib/slurmconv/hostmatch.c~s/^			rc = 0;$/			rc = 1;/~test_hostmatch test_nsconf"
"dry-run-removes~src/lib/job/restore.c~s/if (args->dry_run) {/if (0) {/~test_jobct test_devns_tool"
"cleanup-guesses-dead~src/sbin/devns/cleanup.c~s/return rc != 0;/return rc > 0;/~test_devns_tool"
"global-dir-size-wins~src/lib/conf/nsconf_resolve.c~s/if (d_sized \&\& d_rank > sh->rank) {/if (d_sized) {/~test_nsconf"
"allow-line-replaces~src/lib/conf/nsconf_allow.c~s/^	rc = allow_push(c, value, p->line, \&entries);$/	allow_clear(c);\n	rc = allow_push(c, value, p->line, \&entries);/~test_nsconf"
"allow-read-again~src/lib/dev/devpolicy.c~s/^		if (lines\[i\].read) {$/		if (0) {/~test_devpolicy"
"pattern-no-match-warns~src/lib/dev/devallow.c~s/devallow_report(ctx, ctx->patterns_only ? REPORT_ERROR/devallow_report(ctx, 0 ? REPORT_ERROR/~test_devpolicy test_confcheck"
)

n=0
failures=0
caught=0
tap() {				# tap ok|not-ok DESCRIPTION
	n=$((n + 1))
	if [ "$1" = ok ]; then
		printf 'ok %d - %s\n' "$n" "$2"
	else
		printf 'not ok %d - %s\n' "$n" "$2"
		failures=$((failures + 1))
	fi
}

prepare() {
	rm -rf "$work"
	mkdir -p "$work/src" "$work/build" "$work/log"
	git -C "$top" archive HEAD | tar -x -C "$work/src" || return 1
	(cd "$work/src" && autoreconf -fi) >"$work/log/prepare.log" 2>&1 || return 1
	local slurm_src
	slurm_src=$("$top/scripts/slurm-source.sh") || return 1
	(cd "$work/build" && "$work/src/configure" -q \
		--with-slurm-source="$slurm_src" --enable-werror) \
		>>"$work/log/prepare.log" 2>&1
}

# targets TEST...: what make must build for the tests (the tests that run
# the devns tool need it built from the same sources).
targets() {
	local t
	for t in "$@"; do
		case $t in
		test_devns_tool | test_vchild) echo "devns testsuite/unit/$t" ;;
		*) echo "testsuite/unit/$t" ;;
		esac
	done
}

# build LOG TEST...: builds the tests' targets; 0 or make's status.
build() {
	local log=$1
	shift
	# shellcheck disable=SC2046
	make -C "$work/build" -j"$jobs" $(targets "$@") >"$log" 2>&1
}

# run_tests TAG FIRST TEST...: runs each test program as make check would
# (from the build directory, srcdir set); prints the names of those that
# failed, only the first one when FIRST is 1 (a mutant is caught by one).
run_tests() {
	local tag=$1 first=$2 t
	shift 2
	for t in "$@"; do
		(cd "$work/build" && srcdir="$work/src" \
			timeout 300 "./testsuite/unit/$t") \
			>"$work/log/$tag.$t.log" 2>&1 </dev/null && continue
		printf ' %s' "$t"
		[ "$first" = 1 ] && return
	done
}

# matches FILE EXPR: the numbers of the lines EXPR substitutes, one a line.
matches() {
	sed -n -e "$2" -e T -e = "$1"
}

# run_one NAME FILE EXPR TESTS: prints a TAP line for the mutation.
run_one() {
	local name=$1 file=$2 expr=$3 tests=$4 src=$work/src/$2 lines count failed
	if [ ! -f "$src" ]; then
		tap not-ok "$name: broken: no file $file"
		return
	fi
	lines=$(matches "$src" "$expr")
	count=$(printf '%s' "$lines" | grep -c .)
	if [ "$count" -ne 1 ]; then
		tap not-ok "$name: broken: the expression matches $count lines of $file (must be 1)${lines:+: lines $(echo $lines)}"
		return
	fi
	cp -p "$src" "$src.orig"
	sed -i "$expr" "$src"
	# shellcheck disable=SC2086
	if ! build "$work/log/$name.build.log" $tests; then
		mv "$src.orig" "$src"
		touch "$src"
		tap not-ok "$name: broken: the mutant of $file:$lines does not build (see $work/log/$name.build.log)"
		return
	fi
	# shellcheck disable=SC2086
	failed=$(run_tests "$name" 1 $tests)
	mv "$src.orig" "$src"
	touch "$src"		# newer than the mutant's objects: rebuilt next
	if [ -n "$failed" ]; then
		caught=$((caught + 1))
		tap ok "$name: $file:$lines caught by$failed"
	else
		tap not-ok "$name: $file:$lines SURVIVED (ran: $tests)"
	fi
}

main() {
	local entry name file expr tests selected=() all="" failed start
	start=$SECONDS
	for entry in "${MUTATIONS[@]}"; do
		IFS='~' read -r name file expr tests <<<"$entry"
		[ $# -gt 0 ] && [[ " $* " != *" $name "* ]] && continue
		selected+=("$entry")
		for t in $tests; do
			[[ " $all " == *" $t "* ]] || all="$all $t"
		done
	done
	for name in "$@"; do
		printf '%s\n' "${MUTATIONS[@]}" | grep -q "^$name~" || {
			echo "mutate.sh: no mutation named '$name'" >&2
			exit 2
		}
	done
	echo "1..$((${#selected[@]} + 1))"
	echo "# preparing $work (one configure) ..."
	if ! prepare; then
		tap not-ok "baseline: preparing the scratch tree failed (see $work/log/prepare.log)"
		exit 1
	fi
	echo "# configured after $((SECONDS - start)) s"
	# shellcheck disable=SC2086
	if ! build "$work/log/baseline.build.log" $all; then
		tap not-ok "baseline: the unmutated tests do not build (see $work/log/baseline.build.log)"
		failed=bad
	else
		# shellcheck disable=SC2086
		failed=$(run_tests baseline 0 $all)
		if [ -n "$failed" ]; then
			tap not-ok "baseline: unmutated, these tests fail:$failed (logs: $work/log/baseline.TEST.log)"
		else
			tap ok "baseline: the unmutated tree passes$all"
		fi
	fi
	echo "# baseline done after $((SECONDS - start)) s"
	for entry in "${selected[@]}"; do
		IFS='~' read -r name file expr tests <<<"$entry"
		if [ -n "$failed" ]; then
			n=$((n + 1))
			printf 'ok %d - %s # SKIP the baseline failed\n' "$n" "$name"
			continue
		fi
		run_one "$name" "$file" "$expr" "$tests"
	done
	echo "# $caught of ${#selected[@]} mutations caught; $((SECONDS - start)) s"
	[ "$failures" -eq 0 ]
}

main "$@"
