#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# mutate.sh - a small mutation pass: break the code on purpose, one
# mutation at a time, and check that the unit tests notice.
#
#   testsuite/mutation/mutate.sh [NAME...]     (default: every mutation)
#
# Works on a scratch copy of the committed tree (git archive HEAD) under
# $DEVNS_MUTATE_DIR (default /var/tmp/devns-mutate), configured once.  Each
# mutation is one sed expression on one file: the script first proves the
# expression changed the file (else the mutation is reported as broken, not
# as caught), builds, runs the named unit tests and restores the file.  A
# mutation is "caught" when at least one of its tests fails.  Prints one
# line per mutation and a summary; exits non-zero when one survived or
# could not be applied.  Needs root (the tests of cgroups, BPF and mounts)
# and takes a few minutes (one rebuild per mutation).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
work=${DEVNS_MUTATE_DIR:-/var/tmp/devns-mutate}

# name ~ file ~ sed expression ~ unit tests that must catch it
MUTATIONS=(
"filter-allows-all~src/lib/dev/devfilter.c~s/p\[n++\] = MOV_K(BPF_REG_0, 0);/p[n++] = MOV_K(BPF_REG_0, 1);/~test_devfilter test_devfilter_kernel test_jobct"
"filter-default-allow~src/lib/dev/devfilter.c~s/int32_t dflt = t->default_allow ? 1 : 0;/int32_t dflt = 1;/~test_devfilter test_devfilter_kernel test_jobct"
"saferm-follows-links~src/lib/util/saferm.c~s/int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;/int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;/~test_saferm"
"no-namespace-join~src/lib/job/jobct.c~s/node->ops->ns_join(node->conf->base_path, job_id) < 0)/0)/~test_jobct"
"marker-error-is-no-filter~src/lib/job/devcg.c~s/return errno == ENOENT ? 0 : -1;/return 0;/~test_jobct"
"base-path-owner-unchecked~src/lib/util/safepath.c~s/if (st.st_uid != 0) {/if (0) {/~test_safepath test_jobct"
"gres-not-denied~src/lib/dev/devpolicy.c~s/if (add_gres(\&ctx, node_gres\[i\], 0, out) < 0)/if (0)/~test_devpolicy test_jobct"
"mcs-label-anyone~src/lib/mcs/mcslabel.c~s/return ops->user_in_group(ops->ctx, uid, gid) > 0 ? 0 : -1;/return ops->user_in_group(ops->ctx, uid, gid) >= 0 ? 0 : 0;/~test_mcslabel"
"nodename-matches-all~src/lib/util/hostmatch.c~s/^			rc = 0;$/			rc = 1;/~test_hostmatch test_nsconf"
"dry-run-removes~src/lib/job/restore.c~s/if (args->dry_run) {/if (0) {/~test_jobct test_devns_tool"
"cleanup-guesses-dead~src/sbin/devns/cleanup.c~s/return rc != 0;/return rc > 0;/~test_devns_tool"
"global-dir-size-wins~src/lib/ns/nsconf_resolve.c~s/if (d_size \&\& d_rank > sh->rank) {/if (d_size) {/~test_nsconf"
"allow-line-replaces~src/lib/ns/nsconf_allow.c~s/^	return allow_push(c, value, p->line);$/	allow_clear(c);\n	return allow_push(c, value, p->line);/~test_nsconf"
"pattern-no-match-warns~src/lib/dev/devallow.c~s/devallow_report(ctx, ctx->patterns_only ? REPORT_ERROR/devallow_report(ctx, 0 ? REPORT_ERROR/~test_devpolicy test_nscheck"
)

say() { printf '%s\n' "$*"; }

prepare() {
	rm -rf "$work"
	mkdir -p "$work/src" "$work/build"
	git -C "$top" archive HEAD | tar -x -C "$work/src" || return 1
	(cd "$work/src" && autoreconf -fi >/dev/null 2>&1) || return 1
	local slurm_src
	slurm_src=$("$top/scripts/slurm-source.sh") || return 1
	(cd "$work/build" && "$work/src/configure" -q \
		--with-slurm-source="$slurm_src" --enable-werror >/dev/null) || return 1
	make -s -C "$work/build" -j"$(nproc)" >/dev/null 2>&1
}

# run_one NAME FILE EXPR TESTS: prints "caught by ...", "SURVIVED" or why not
run_one() {
	local name=$1 file=$2 expr=$3 tests=$4 src=$work/src/$2 t failed=""
	cp "$src" "$src.orig"
	sed -i "$expr" "$src"
	if cmp -s "$src" "$src.orig"; then
		mv "$src.orig" "$src"
		echo "NOT APPLIED (the expression matches nothing in $file)"
		return 2
	fi
	if ! make -s -C "$work/build" -j"$(nproc)" >"$work/$name.build.log" 2>&1; then
		mv "$src.orig" "$src"
		echo "BROKEN: the mutant does not build (see $work/$name.build.log)"
		return 2
	fi
	for t in $tests; do
		make -s -C "$work/build" check TESTS="testsuite/unit/$t" \
			>"$work/$name.$t.log" 2>&1 || failed="$failed $t"
	done
	mv "$src.orig" "$src"
	touch "$src"
	if [ -n "$failed" ]; then
		echo "caught by$failed"
		return 0
	fi
	echo "SURVIVED (ran: $tests)"
	return 1
}

main() {
	local entry name file expr tests caught=0 total=0 bad=0 result
	say "preparing $work (one configure and build) ..."
	prepare || { say "mutate.sh: preparing the scratch tree failed"; exit 2; }
	for entry in "${MUTATIONS[@]}"; do
		IFS='~' read -r name file expr tests <<<"$entry"
		[ $# -gt 0 ] && [[ " $* " != *" $name "* ]] && continue
		total=$((total + 1))
		result=$(run_one "$name" "$file" "$expr" "$tests")
		case $? in
		0) caught=$((caught + 1)) ;;
		*) bad=$((bad + 1)) ;;
		esac
		printf '%-28s %s\n' "$name" "$result"
	done
	say "$caught of $total mutations caught"
	[ "$bad" -eq 0 ]
}

main "$@"
