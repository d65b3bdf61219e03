#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run-tests.sh - the whole test suite: the command README.md and .ci/run use.
#
#   1. build and install the plugins (scripts/build.sh)
#   2. unit tests (make check) plain, under ASan/UBSan, under valgrind
#   3. in the background, beside stages 4 and 5 (the guest is bound by the
#      CPU, the host's clusters mostly wait): the unit tests of cgroups,
#      BPF, mounts and the job lifecycle once more in a QEMU guest with the
#      pure cgroup-v2 layout of real nodes (testsuite/vm), then
#      the integration tests of the disk limit, devices, adoption, Slurm's
#      cgroup/v2, the user and the PID namespace, the namespace, its
#      directories, drop-ins, configless, reconfigure and the pool
#      (DEVNS_GUEST_INTEGRATION) against
#      the test cluster run
#      inside that guest (DEVNS_CLUSTER_VM=1): Slurm 26.05.3 (built on the
#      host, shared with the guest; DEVNS_GUEST_RELEASE=22.05: Debian's)
#      under systemd with CgroupPlugin=cgroup/v2 and ConstrainRAMSpace
#      and Cores, as on a real node (devices: devns's filter alone, and
#      with Slurm's ConstrainDevices in test_cgroupv2), and the soak; then
#      SchedMD's slurm-smd packages built, installed in a fresh guest and
#      a job run (testsuite/package-smd.sh).  The tests whose subject
#      differs by release run on Debian's 22.05 in that guest after 26.05;
#      DEVNS_GUEST_RELEASES adds 23.11, 24.11 (with IMEX channels), 25.11
#      and 26.11, one cluster each, and DEVNS_GUEST_INSTANCES=2 runs those
#      in a second guest (vm.sh's DEVNS_VM_INSTANCE=2) that starts when
#      stage 4's compilers are done
#   4. the fuzzers (testsuite/fuzz/run.sh) and the mutation pass
#      (testsuite/mutation/mutate.sh); make distcheck (one check: the tarball builds out of tree, its unit
#      tests pass, it installs, uninstalls and cleans up); the plugins
#      built against every other release (scripts/build-matrix.sh); the RPM
#      built from the tarball with Debian's rpmbuild against 22.05, its
#      file list and dependencies checked (testsuite/rpm.sh)
#   5. for each Slurm release, a real local cluster (testsuite/cluster) and
#      the integration tests in testsuite/integration/test_*.sh that
#      release_tests names against it: 22.05.8 (Debian 12's packages),
#      every file, on this host's hybrid layout; 26.05.3, 25.11.7,
#      23.11.11 and 26.11.0-0rc1 (shared/slurm) the files the guest does
#      not run on that release, each built once under /opt/slurm-VERSION
#      by scripts/slurm-release.sh and cached (24.11.5, Debian 13's
#      source, with DEVNS_RELEASES).
#      For 22.05 the plugins come from the Debian package (debian/): it is
#      built, installed and checked (testsuite/package.sh), the suite runs
#      against the installed files, and the package is purged afterwards.
#
# A guest that cannot be had (image, QEMU, packages, not root) or that is
# not a pure cgroup-v2 node with BPF fails the run, naming the cause; only
# DEVNS_ALLOW_NO_GUEST=1 (never set by CI) makes each of its test files a
# skip, counted and printed with the reason, and so does DEVNS_SKIP_GUEST=1.
# Every stage's duration is printed after it and once more, all together,
# at the end, and so are the ten slowest checks (every check's time is in
# test-results/check-times.tsv, testsuite/timecheck.sh).
#
# Every check of every stage is counted; the last line is
#   "N passed, N failed, N skipped"
# and the exit status is non-zero when anything failed.
#
# Environment: DEVNS_TESTS=pattern runs only integration tests whose file
# name matches (e.g. DEVNS_TESTS=namespace), in stage 3 too; DEVNS_SKIP_UNIT=1
# skips stage 2 (its guest part too), DEVNS_SKIP_GUEST=1 every guest part
# (stages 2 and 3); DEVNS_GUEST_INTEGRATION="test_a test_b" picks the tests
# of stage 3; DEVNS_SKIP_DISTCHECK=1 skips stage 4; DEVNS_SKIP_MATRIX=1 the
# build against every other release (DEVNS_MATRIX_RELEASES picks them);
# DEVNS_SKIP_RPM=1 the RPM; DEVNS_SKIP_SMD=1 SchedMD's packages
# (testsuite/package-smd.sh, in the guest's chain);
# DEVNS_GUEST_RELEASES="22.05 25.11" the other releases the guests run
# (default "22.05"; "none": none),
# DEVNS_GUEST_TESTS_<X_Y> their tests;
# DEVNS_GUEST_FIRST_RELEASES (default "22.05") those of them the first
# guest runs after its own, the others the second guest;
# DEVNS_GUEST_INSTANCES=2 runs those in a second guest (default 1: all in
# the first guest, after its own release's tests);
# DEVNS_RELEASES="22.05"
# (default "22.05 26.05 25.11 23.11 26.11"; 24.11 too) picks the releases of stage 5
# ("none": none);
# DEVNS_SKIP_PACKAGE=1 tests 22.05 with `make install` instead of the
# package.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
RELEASES=${DEVNS_RELEASES:-22.05 26.05 25.11 23.11 26.11}
[ "$RELEASES" = none ] && RELEASES=
results=$top/test-results
mkdir -p "$results"
# Every check's time (testsuite/timecheck.sh): seconds, stage and test, check.
export DEVNS_CHECK_TIMES=$results/check-times.tsv
: >"$DEVNS_CHECK_TIMES"
passed=0 failed=0 skipped=0
# Checks that assert Slurm's own plugins for comparison ("[reference]" in
# their name: test_mcs under mcs/group): on a line of their own, outside
# the total.
ref_passed=0 ref_failed=0

# Each stage's heading carries the time since the run began; when the next
# stage begins, the previous one's duration and its own counts are
# printed, and kept for the summary at the end: each configuration (unit
# tests plain, under ASan/UBSan, under valgrind, in the guest; each
# cluster) has its own totals there, beside the grand total.
stage='' stage_t0=0 stage_times=() stage_p0=0 stage_f0=0 stage_s0=0
mmss() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }
end_stage() {
	[ -n "$stage" ] || return 0
	local d=$((SECONDS - stage_t0)) counts
	counts="$((passed - stage_p0)) passed, $((failed - stage_f0)) failed, $((skipped - stage_s0)) skipped"
	printf '=== took %s: %s (%s)\n' "$(mmss $d)" "$stage" "$counts"
	stage_times+=("$(printf '%8s  %-60s %s' "$(mmss $d)" "$stage" "$counts")")
	stage=
}
say() {
	end_stage
	printf '\n=== [%s] %s\n' "$(mmss $SECONDS)" "$*"
	stage=$* stage_t0=$SECONDS
	stage_p0=$passed stage_f0=$failed stage_s0=$skipped
}

# Count automake's per-check lines (PASS:, FAIL:, SKIP:, ERROR:, XPASS:);
# print every failure and every skip with its reason.  A test file that
# skips as a whole ("1..0 # SKIP why") gives one SKIP: line and so counts
# as one skip, never as nothing.
count_automake() {
	local log=$1 p f s
	p=$(grep -c '^PASS: ' "$log")
	s=$(grep -c '^SKIP: ' "$log")
	f=$(grep -Ec '^(FAIL|ERROR|XPASS): ' "$log")
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	grep -E '^(FAIL|ERROR|XPASS|SKIP): ' "$log" || true
	[ "$f" -eq 0 ]
}

# Count TAP lines of one integration script; a script that dies counts once
# as failed, one that skips as a whole ("1..0 # SKIP why") once as skipped,
# and every check of its plan that it did not run as failed.
count_tap() {
	local log=$1 status=$2 p f s whole planned rp rf
	rp=$(grep -Ec '^ok [0-9]+ .*\[reference\] ' "$log")
	rf=$(grep -Ec '^not ok [0-9]+ .*\[reference\] ' "$log")
	ref_passed=$((ref_passed + rp)) ref_failed=$((ref_failed + rf))
	s=$(grep -Ec '^ok [0-9]+ .*# SKIP' "$log")
	p=$(($(grep -Ec '^ok [0-9]+' "$log") - s))
	f=$(grep -Ec '^not ok [0-9]+' "$log")
	whole=$(grep -Ec '^1\.\.0 # SKIP' "$log")
	grep -E '^1\.\.0 # SKIP' "$log" | sed "s|^|$(basename "$log" .log): |"
	s=$((s + whole))
	planned=$(grep -Em1 '^1\.\.[0-9]+$' "$log" | cut -c4-)
	if [ -n "$planned" ] && [ "$((p + s + f))" -lt "$planned" ]; then
		echo "not ok - $(basename "$log" .log): planned $planned checks, ran $((p + s + f))"
		f=$((f + planned - p - s - f))
	fi
	# The reference checks are out of the total; a file that failed only
	# those has its status from them alone.
	p=$((p - rp)) f=$((f - rf))
	if [ "$status" -ne 0 ] && [ "$f" -eq 0 ] && [ "$rf" -eq 0 ]; then
		echo "not ok - $(basename "$log" .log) exited with status $status"
		f=1
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}

# tap_report LOG: the failed checks, each with the diagnostics ("# ...")
# that follow it (40 lines at most: why it failed), and the skipped checks.
tap_report() {
	awk '/^not ok/ { print; why = 40; next }
	     /^ok [0-9]+ .*# SKIP/ { print; why = 0; next }
	     /^#/ && why > 0 { print "    " $0; why--; next }
	     { why = 0 }' "$1"
}

# run_tap LOG HEADING CMD...: one TAP-speaking test, its failures and skips
# printed, its checks counted; returns CMD's status.
run_tap() {
	local log=$1 status=0
	say "$2"
	"$top/testsuite/timecheck.sh" --merge "$2" "${@:3}" >"$log" 2>&1 || status=$?
	tap_report "$log"
	count_tap "$log" "$status"
	return "$status"
}

unit_stage() {
	local name=$1 builddir=$2; shift 2
	say "unit tests: $name"
	"$top/scripts/build.sh" --no-install "$builddir" -- "$@" >"$results/build-$name.log" 2>&1 || {
		echo "build failed ($name):"; tail -30 "$results/build-$name.log"
		failed=$((failed + 1)); return
	}
	local status=0 counted=0
	# One test per core at a time: no two share a name, a cgroup or a path.
	# Each test program runs under timecheck.sh, which times its checks
	# (LOG_COMPILER is prepended to it; valgrind's stage adds valgrind.sh).
	make -C "$builddir" -j"$(nproc)" check \
		LOG_COMPILER="$top/testsuite/timecheck.sh unit-$name:%t ${UNIT_WRAPPER:-}" \
		SH_LOG_COMPILER="$top/testsuite/timecheck.sh unit-$name:%t bash" \
		>"$results/unit-$name.log" 2>&1 ||
		status=$?
	count_automake "$results/unit-$name.log" || counted=$?
	grep -E '^# (TOTAL|PASS|FAIL|SKIP|ERROR):' "$results/unit-$name.log" | tr '\n' ' '
	echo
	# Why: the failed tests' logs are in automake's test-suite.log.
	[ "$counted" -eq 0 ] || tap_report "$builddir/test-suite.log"
	# make check failing with no failed test counted: a test program did
	# not build (or the harness broke).  That is a failure, never silence.
	if [ "$status" -ne 0 ] && [ "$counted" -eq 0 ]; then
		echo "not ok - make check ($name) exited with status $status:"
		grep -E 'error|Error' "$results/unit-$name.log" | head -20
		failed=$((failed + 1))
	fi
}

# The unit tests that touch the kernel's cgroups, BPF and mounts, run again
# in the QEMU guest (testsuite/vm), whose layout is pure cgroup v2 as on
# real nodes (this machine is hybrid).  The binaries are the plain build's,
# seen in the guest at the same path.  No guest here: one skip, with why.
GUEST_TESTS="test_cgroup2 test_devfilter_kernel test_mntns test_nsmembers test_nspool test_nsreap test_dquota test_dqguard test_jobct test_stepcg test_pidns test_userns"

# The Slurm the guest's cluster runs (stage 3): DEVNS_GUEST_RELEASE, by
# default 26.05 (26.05.3 built on the host by slurm-release.sh, which vm.sh
# shares with the guest at the same path); 22.05 is the guest's own
# Debian package.  The guest boots with it in stage 2 already: one boot.
GUEST_RELEASE=${DEVNS_GUEST_RELEASE:-26.05}

# guest_prefix: that Slurm's prefix on the host, built when missing.
guest_prefix() {
	local version
	[ "$GUEST_RELEASE" != 22.05 ] || { echo /usr; return; }
	version=$(release_version "$GUEST_RELEASE") || return 1
	"$top/scripts/slurm-release.sh" "$version"
}

# guest_skips WHERE REASON NAME...: each test file the guest stands for a
# counted skip, printed with where it would have run and why it did not.
guest_skips() {
	local where=$1 why=$2 t
	shift 2
	for t in "$@"; do
		echo "SKIP: $where: $t: $why"
		skipped=$((skipped + 1))
	done
}

guest_stage() {
	local vm=$top/testsuite/vm/vm.sh t status=0 prefix
	say "pure cgroup-v2 guest: start"
	prefix=$(guest_prefix 2>"$results/guest-slurm.log") ||
		{ echo "not ok - building Slurm $GUEST_RELEASE for the guest failed:"; tail -20 "$results/guest-slurm.log"
		  failed=$((failed + 1)); return; }
	DEVNS_SLURM_PREFIX=$prefix "$vm" start >"$results/guest-start.log" 2>&1 || status=$?
	if [ "$status" -eq 77 ] && [ "${DEVNS_ALLOW_NO_GUEST:-}" = 1 ]; then
		# Asked for: every test file the guest stood for is a skip,
		# with the reason.
		guest_skips "pure cgroup-v2 guest" "$(tail -n1 "$results/guest-start.log")" $GUEST_TESTS
		return
	fi
	if [ "$status" -ne 0 ]; then
		echo "not ok - the pure cgroup-v2 guest could not be had (status $status;" \
			"DEVNS_ALLOW_NO_GUEST=1 makes that a skip):"
		tail -20 "$results/guest-start.log"
		failed=$((failed + 1))
		return
	fi
	guest_layout_check || return
	for t in $GUEST_TESTS; do
		run_tap "$results/guest-$t.log" "pure cgroup-v2 guest: $t" \
			"$vm" run env DEVNS_REQUIRE_QUOTA=1 \
			"$top/build/testsuite/unit/$t"
	done
	# The guest stays up for stage 3 (guest_stop ends it).
}

# guest_layout_check: the guest is what it stands for, one check: the
# pure cgroup-v2 layout (cgroup2 at /sys/fs/cgroup, the device-relevant
# controllers there) and a kernel that loads BPF programs (bpftool lists
# them: the bpf(2) call works).  A guest that is not fails the run.
guest_layout_check() {
	local vm=$top/testsuite/vm/vm.sh fs
	"$vm" run sh -c 'stat -fc %T /sys/fs/cgroup; cat /sys/fs/cgroup/cgroup.controllers;
		cat /proc/self/cgroup; bpftool prog list >/dev/null && echo bpf-ok' \
		>"$results/guest-layout.log" 2>&1
	fs=$(head -n1 "$results/guest-layout.log")
	if [ "$fs" = cgroup2fs ] && grep -qw memory "$results/guest-layout.log" &&
	   grep -qx bpf-ok "$results/guest-layout.log"; then
		echo "ok - the guest has the pure cgroup-v2 layout and loads BPF programs"
		passed=$((passed + 1))
		return 0
	fi
	echo "not ok - the guest is not a pure cgroup-v2 node with BPF (see guest-layout.log):"
	sed 's/^/    /' "$results/guest-layout.log"
	failed=$((failed + 1))
	return 1
}

guest_stop() {
	local vm=$top/testsuite/vm/vm.sh
	"$vm" status >/dev/null 2>&1 || return 0
	say "pure cgroup-v2 guest${DEVNS_VM_INSTANCE:+ $DEVNS_VM_INSTANCE}: stop"
	"$vm" stop >"$results/guest-stop$(guest_suffix).log" 2>&1 ||
		{ echo "not ok - the guest did not stop"; failed=$((failed + 1)); }
}

# Stage 3: the integration tests against the test cluster inside the guest
# (testsuite/cluster with DEVNS_CLUSTER_VM=1): munge, slurmctld and three
# slurmd as systemd services of the guest, CgroupPlugin=cgroup/v2,
# proctrack/cgroup, task/cgroup with ConstrainRAMSpace and ConstrainCores
# (ConstrainDevices=no: a denial is devns's; test_cgroupv2 adds Slurm's).
# The plugins are the plain build's ($top/build), which
# the guest's cluster.sh installs into the guest's Slurm.  The emulated
# guest is slow: test_devices runs DEVNS_GUEST_MANY_JOBS (30) jobs in its
# leftover check instead of 200.  The guest's kernel has quotas: the
# project-quota parts of test_dquota and test_tmpdisk must run there
# (DEVNS_REQUIRE_QUOTA=1), not skip.
# The guest runs on 26.05 the namespace, its directories, drop-ins,
# configless, reconfigure and pool files too (about 6 minutes there), and
# the attacks (systemd-run is pure v2's), the faults and IMEX, so that
# pure cgroup v2 is where 26.05 is proven; test_pidns's init meets Slurm's
# cgroup/v2 kill there.  The host keeps on 26.05 what the guest does not
# run: mcs, AMD, the per-job settings, TmpBackend=loop and devns check.
GUEST_INTEGRATION=${DEVNS_GUEST_INTEGRATION:-test_tmpdisk test_devices test_adopt test_cgroupv2 test_userns test_pidns test_namespace test_dirs test_dropin test_configless test_reconfig test_pool test_faults test_security test_imex}

# The soak runs on the guest's release, after its tests: pure cgroup v2,
# where its leftover count is of Slurm's job cgroups under each stepd's
# scope (DEVNS_GUEST_SOAK_JOBS jobs, 100 by default, about 6.5 minutes of
# the emulated guest; 0: none).  The host runs it only without the guest,
# or on the release DEVNS_SOAK_RELEASE names.
GUEST_SOAK_JOBS=${DEVNS_GUEST_SOAK_JOBS:-100}

# The other releases the guest runs, one cluster each, with the test files
# whose subject differs by release (guest_release_tests): 22.05, Debian
# 12's own package (the guest's), as a Debian 12 node runs it; 23.11
# (Ubuntu 24.04's), 24.11 (Debian 13's), 25.11 and 26.11 (the
# development tree), each on the host's build under /opt copied into the
# guest.  "none": none.  By default 22.05 only: the emulated guest is
# bound by the CPU, and each further release costs 8 to 10 minutes of it
# alone, 15 to 17 beside another guest (below).
GUEST_RELEASES=${DEVNS_GUEST_RELEASES:-22.05}
[ "$GUEST_RELEASES" = none ] && GUEST_RELEASES=

# They run in the first guest after GUEST_RELEASE's tests; with
# DEVNS_GUEST_INSTANCES=2 (for a machine with cores to spare), those not
# in DEVNS_GUEST_FIRST_RELEASES run in a second guest (testsuite/vm's
# DEVNS_VM_INSTANCE=2), a chain of its own that starts when the host's
# compiling stages (fuzz, mutation, distcheck, the matrix, the RPM) are
# done: the host's clusters after them take about a quarter of two cores
# (test_devices), but two guests still share what is left: on two cores
# each ran about twice as slow as alone (23.11's five files took 17
# minutes, 26.05's test_devices 6m45s against 5m02s), and a run with
# 23.11, 24.11 and 25.11 there was on course for about 65 minutes.
GUEST_INSTANCES=${DEVNS_GUEST_INSTANCES:-1}
case $GUEST_INSTANCES in
1 | 2) ;;
*) echo "DEVNS_GUEST_INSTANCES='$GUEST_INSTANCES': 1 or 2" >&2; exit 2 ;;
esac
# Of those, the ones the first guest runs after its own release, so that
# the two chains end near each other: 22.05 (Debian's package, no build;
# about 10 minutes) beside 26.05's 38 minutes and SchedMD's packages,
# against four built releases in the second.  DEVNS_GUEST_FIRST_RELEASES.
GUEST_FIRST_RELEASES=${DEVNS_GUEST_FIRST_RELEASES-22.05}

# guest_chain_split FIRST|SECOND: the releases of GUEST_RELEASES that chain
# runs (with one guest, the first runs them all).
guest_chain_split() {
	local name
	for name in $GUEST_RELEASES; do
		if [ "$GUEST_INSTANCES" = 1 ] || [[ " $GUEST_FIRST_RELEASES " == *" $name "* ]]; then
			[ "$1" = FIRST ] && echo "$name"
		else
			[ "$1" = SECOND ] && echo "$name"
		fi
	done
	return 0
}

# guest_release_tests NAME: the tests the guest runs on release NAME:
# GUEST_INTEGRATION on GUEST_RELEASE; on the others the namespace,
# adoption, the PID namespace (README's example, PidNamespace=yes) and the
# configuration as slurmd reads it (configless), and the device filter.
# DEVNS_GUEST_TESTS_<X_Y> picks another list.
guest_release_tests() {
	local var=DEVNS_GUEST_TESTS_${1/./_}
	if [ -n "${!var:-}" ]; then
		echo "${!var}"
	elif [ "$1" = "$GUEST_RELEASE" ]; then
		echo "$GUEST_INTEGRATION"
	elif [ "$1" = 24.11 ]; then
		# IMEX channels from 24.11 (switch/nvidia_imex): the host runs
		# them on 25.11 and 26.11, not on 24.11.
		echo "test_namespace test_devices test_adopt test_pidns test_configless test_imex"
	else
		echo "test_namespace test_devices test_adopt test_pidns test_configless"
	fi
}

# build_lock NAME: hold the lock of release NAME's build until the calling
# subshell (a command substitution, or ( ... )) ends: never call it, or a
# function that does, in the main shell.
build_lock() {
	local fd
	exec {fd}>"$results/.build-$1.lock"
	flock "$fd"
}

# guest_build NAME: the plugins for release NAME, for the guest's cluster
# to install; prints "PREFIX BUILD-DIR".  22.05 is the guest's Debian
# package: the plain build's plugins.  Built, never installed: the guest
# copies the Slurm prefix at boot and its cluster.sh installs the plugins
# into that copy, so a guest's chain never writes a host PluginDir that a
# host cluster runs from; the host's stage installs its own
# (build_for_release).  Under the release's build lock, as the host's
# builds are: one make per tree at a time, one Slurm build per release
# (slurm-release.sh caches it under /opt).
guest_build() {
	local prefix=/usr build version
	build=$(release_build_dir "$1")
	build_lock "$1"
	if [ "$1" != 22.05 ]; then
		version=$(release_version "$1") || { echo "unknown release $1" >&2; return 1; }
		prefix=$("$top/scripts/slurm-release.sh" "$version") || return 1
		"$top/scripts/build.sh" --no-install --slurm "$prefix" "$build" >&2 || return 1
	else
		"$top/scripts/build.sh" --no-install "$build" >&2 || return 1
	fi
	echo "$prefix $build"
}

# guest_integration_stage NAME...: the guest's cluster on each release
# NAME, with its tests, one after the other in this chain's guest.
guest_integration_stage() {
	local name
	for name in "$@"; do
		guest_cluster_run "$name" $(guest_release_tests "$name")
	done
}

# guest_cluster_run NAME TEST...: the guest's cluster on release NAME and
# the named integration tests against it.
guest_cluster_run() {
	local name=$1 out=$results/guest-integration t status=0 prefix build
	local cluster=$top/testsuite/cluster/cluster.sh
	shift
	[ "$name" = "$GUEST_RELEASE" ] || out=$out-$name
	mkdir -p "$out"
	say "guest integration: Slurm $name: build"
	if ! read -r prefix build < <(guest_build "$name" 2>"$out/build.log") || [ -z "$build" ]; then
		echo "not ok - building the plugins for Slurm $name failed:"; tail -30 "$out/build.log"
		failed=$((failed + 1))
		return
	fi
	# The guest's cluster.sh and the tests: that Slurm, these plugins.
	local genv=(DEVNS_CLUSTER_VM=1 DEVNS_SLURM_PREFIX="$prefix" DEVNS_BUILD_DIR="$build")
	say "guest integration: Slurm $name: boot and cluster ($prefix, cgroup/v2)"
	# restart: a cluster left running with other settings would only be
	# warned about by start.
	env "${genv[@]}" "$cluster" restart >"$out/cluster-start.log" 2>&1 || status=$?
	if [ "$status" -eq 77 ] && [ "${DEVNS_ALLOW_NO_GUEST:-}" = 1 ]; then
		guest_skips "guest integration: Slurm $name" \
			"$(grep 'skipped:' "$out/cluster-start.log" | tail -n1)" $(printf '%s.sh ' "$@") \
			$(guest_soak_name "$name")
		return
	fi
	grep -E 'ready in|running:' "$out/cluster-start.log"
	if [ "$status" -ne 0 ]; then
		echo "not ok - the guest's cluster (Slurm $name) did not start:"; tail -40 "$out/cluster-start.log"
		failed=$((failed + 1))
		env "${genv[@]}" DEVNS_VM_KEEP=1 "$cluster" stop >/dev/null 2>&1
		return
	fi
	for t in "$@"; do
		[ -n "${DEVNS_TESTS:-}" ] && [[ "$t" != *$DEVNS_TESTS* ]] && continue
		run_tap "$out/$t.log" "$(guest_heading "$name") $t.sh" \
			env "${genv[@]}" DEVNS_MANY_JOBS="${DEVNS_GUEST_MANY_JOBS:-30}" DEVNS_REQUIRE_QUOTA=1 \
			timeout 1800 bash "$top/testsuite/integration/$t.sh"
	done
	if [ "$name" = "$GUEST_RELEASE" ] && [ "$GUEST_SOAK_JOBS" -gt 0 ] && [ -z "${DEVNS_TESTS:-}" ]; then
		run_tap "$out/soak.log" "guest integration: soak ($GUEST_SOAK_JOBS jobs)" \
			env "${genv[@]}" timeout 1800 bash "$top/testsuite/soak/soak.sh" "$GUEST_SOAK_JOBS"
		grep '^# soak:' "$out/soak.log"
	fi
	say "guest integration: Slurm $name: cluster stop"
	env "${genv[@]}" DEVNS_VM_KEEP=1 "$cluster" stop >"$out/cluster-stop.log" 2>&1 ||
		{ echo "guest cluster stop failed"; failed=$((failed + 1)); }
}

# guest_soak_name NAME: soak.sh where the guest runs the soak on release
# NAME (for a skip's count).
guest_soak_name() {
	[ "$1" = "$GUEST_RELEASE" ] && [ "$GUEST_SOAK_JOBS" -gt 0 ] && echo soak.sh
	return 0
}

# guest_heading NAME: the heading of a guest test on release NAME (the
# primary release's keeps the name it always had).
guest_heading() {
	if [ "$1" = "$GUEST_RELEASE" ]; then
		echo "guest integration:"
	else
		echo "guest integration: Slurm $1:"
	fi
}

# The guests' stages run beside the host's from the fuzzers on: an
# emulated guest is bound by the CPU, the host's clusters mostly wait on
# Slurm, and QEMU runs niced.  Two chains, one guest each: the first
# guest's unit tests, its cluster on GUEST_RELEASE with GUEST_INTEGRATION
# and the soak, then SchedMD's packages; the second guest's clusters on
# GUEST_RELEASES (with DEVNS_GUEST_INSTANCES=1 the first chain runs those
# too, after GUEST_RELEASE).  They share nothing the host's stages write:
# each guest and its cluster are its own, the plugins are built under each
# release's build lock and not installed on the host (guest_build).
# GUEST_RELEASE's are built here first, so that the tree is configured
# (and autoreconf run) before anything runs beside it.  The second chain
# starts later (guest_second_chain_start).  Each chain's output, counts
# and stage times join the run's when guest_chain_wait collects them, at
# the end.
guest_chain_pids=() guest_chain_names=()
guest_chain_start() {
	say "pure cgroup-v2 guest: build (its stages then run beside the host's)"
	# In a subshell: the build lock ends with it (held here, it would be
	# held by this shell for the whole run, and the chain's own build
	# would wait for it for ever).
	if ! (guest_build "$GUEST_RELEASE") >/dev/null 2>"$results/guest-build.log"; then
		echo "not ok - building for Slurm $GUEST_RELEASE (the guest's) failed:"
		tail -30 "$results/guest-build.log"
		failed=$((failed + 1))
		return
	fi
	end_stage
	guest_chain_fork 1 guest_first_chain "$GUEST_RELEASE" $(guest_chain_split FIRST)
}

# guest_second_chain_start: the second guest's chain, if it has releases
# (and the first chain started: its build configured the tree).
guest_second_chain_start() {
	local second
	second=$(guest_chain_split SECOND)
	[ -n "$second" ] && [ ${#guest_chain_pids[@]} -gt 0 ] || return 0
	printf '\n=== [%s] pure cgroup-v2 guest 2: Slurm %s, beside the host'"'"'s clusters\n' \
		"$(mmss $SECONDS)" "$second"
	guest_chain_fork 2 guest_releases_chain $second
}

# guest_first_chain NAME...: the first guest's unit tests, its clusters on
# releases NAME..., then SchedMD's packages (a guest booted afresh).
guest_first_chain() {
	[ -n "${DEVNS_SKIP_UNIT:-}" ] || guest_stage
	guest_integration_stage "$@"
	guest_stop
	[ -n "${DEVNS_SKIP_SMD:-}" ] || smd_stage
}

# guest_releases_chain NAME...: the second guest's clusters on releases
# NAME..., one after the other (the guest restarts for another Slurm
# prefix: vm.sh copies it at boot).
guest_releases_chain() {
	guest_integration_stage "$@"
	guest_stop
}

# guest_chain_fork N FUNCTION ARG...: FUNCTION ARG... in the background,
# in guest instance N (DEVNS_VM_INSTANCE, which vm.sh and cluster.sh read),
# with counts of its own written to guest-chain[-N].counts for
# guest_chain_wait, and its output to guest-chain[-N].out.
guest_chain_fork() {
	local n=$1 name=guest-chain
	shift
	[ "$n" = 1 ] || name=$name-$n
	rm -f "$results/$name.counts"
	(
		export DEVNS_VM_INSTANCE=$n
		passed=0 failed=0 skipped=0 ref_passed=0 ref_failed=0 stage_times=()
		"$@"
		end_stage
		declare -p passed failed skipped ref_passed ref_failed stage_times \
			>"$results/$name.counts"
	) >"$results/$name.out" 2>&1 </dev/null &
	guest_chain_pids+=($!) guest_chain_names+=("$name")
}

# guest_suffix: "" in the first guest, "-N" in instance N: the name of
# its own logs where a file is per guest, not per release.
guest_suffix() {
	[ "${DEVNS_VM_INSTANCE:-1}" = 1 ] || echo "-$DEVNS_VM_INSTANCE"
}

# SchedMD's own Debian packages (testsuite/package-smd.sh): slurm-smd
# 26.05.3 built from the shared tarball's debian/ (cached by its SHA-256:
# 13 to 22 minutes cold on two cores, none warm), slurm-devns's .deb built
# against them on a Debian 12 root (1 to 2 minutes), both installed in a
# freshly booted guest, a job contained (5 minutes).  In the guest's chain,
# after its clusters: it boots the guest afresh.  DEVNS_SKIP_SMD=1 skips it.
smd_stage() {
	run_tap "$results/package-smd.log" \
		"SchedMD's packages (slurm-smd 26.05.3): build, install in the guest, a job contained (testsuite/package-smd.sh)" \
		"$top/testsuite/package-smd.sh" "$results/smd"
}

# guest_chain_wait: each guest chain in turn (guest_chain_fork): its
# output, then its counts and stage times added to the run's.
guest_chain_wait() {
	local i
	for i in "${!guest_chain_pids[@]}"; do
		guest_chain_collect "${guest_chain_pids[$i]}" "${guest_chain_names[$i]}"
	done
}

# guest_chain_collect PID NAME: wait for one chain and take its results.
guest_chain_collect() {
	local pid=$1 name=$2
	printf '\n=== [%s] waiting for %s: the guest'"'"'s stages (run beside the host'"'"'s)\n' \
		"$(mmss $SECONDS)" "$name"
	wait "$pid"
	cat "$results/$name.out"
	if ! [ -s "$results/$name.counts" ]; then
		echo "not ok - the guest's stages ($name) ended without their counts"
		failed=$((failed + 1))
		return
	fi
	# Its declare lines, renamed g_*: locals of this function.
	# shellcheck disable=SC1090
	source <(sed -E 's/^declare (-[a-zA-Z-]+ )?/declare \1g_/' "$results/$name.counts")
	passed=$((passed + g_passed)) failed=$((failed + g_failed)) skipped=$((skipped + g_skipped))
	ref_passed=$((ref_passed + g_ref_passed)) ref_failed=$((ref_failed + g_ref_failed))
	stage_times+=("${g_stage_times[@]}")
}

# The fuzzers (testsuite/fuzz/run.sh, doc/fuzzing.md): a libFuzzer target
# per parser of what a site or a user writes, under ASan/UBSan, about 60 s
# in all (DEVNS_FUZZ_SECONDS), built with clang against the plain build's
# configuration.
fuzz_stage() {
	run_tap "$results/fuzz.log" "fuzz: every parser, ${DEVNS_FUZZ_SECONDS:-60} s (testsuite/fuzz/run.sh)" \
		"$top/testsuite/fuzz/run.sh"
	grep -E '^ok|^not ok' "$results/fuzz.log" | sed 's/^/    /'
}

# The mutation pass (testsuite/mutation/mutate.sh): a baseline run of the
# named unit tests, then one mutation at a time, each of which a unit test
# must catch.  About 3 minutes; as root (the tests of cgroups, BPF, mounts).
mutation_stage() {
	run_tap "$results/mutation.log" "mutation pass (testsuite/mutation/mutate.sh)" \
		"$top/testsuite/mutation/mutate.sh"
}

# make distcheck from the plain build, counted as one check, with its time.
distcheck_stage() {
	local log=$results/distcheck.log start=$SECONDS src
	say "make distcheck"
	# Under 22.05's build lock: a guest's chain may be building this tree.
	if ! (build_lock 22.05 && "$top/scripts/build.sh" --no-install "$top/build") >"$log" 2>&1 ||
	   ! src=$("$top/scripts/slurm-source.sh" 2>>"$log"); then
		echo "not ok - make distcheck: the build failed:"; tail -30 "$log"
		failed=$((failed + 1))
		return
	fi
	if make -C "$top/build" -j"$(nproc)" distcheck \
		DISTCHECK_CONFIGURE_FLAGS="--with-slurm-source=$src" >>"$log" 2>&1; then
		echo "ok - make distcheck ($(grep -c '^PASS: ' "$log") unit checks inside), $((SECONDS - start))s"
		passed=$((passed + 1))
	else
		echo "not ok - make distcheck, $((SECONDS - start))s:"
		grep -E '^(FAIL|ERROR): |rror|missing' "$log" | tail -20
		tail -15 "$log"
		failed=$((failed + 1))
	fi
}

# 22.05 is tested through the Debian package unless DEVNS_SKIP_PACKAGE.
package_mode() { [ "$1" = 22.05 ] && [ -z "${DEVNS_SKIP_PACKAGE:-}" ]; }

# package_install OUT: build, install and check the package; where that
# fails, the plugins are installed with make install instead, so that the
# integration suite still runs.
package_install() {
	local out=$1 start=$SECONDS
	run_tap "$out/package-build.log" "Slurm 22.05: package: build" \
		"$top/testsuite/package.sh" build "$out/package" &&
	run_tap "$out/package-install.log" "Slurm 22.05: package: install and check" \
		"$top/testsuite/package.sh" install "$out/package"
	local status=$?
	echo "package build, install and checks: $((SECONDS - start))s"
	if [ "$status" -ne 0 ] &&
	   ! dpkg-query -W -f='${db:Status-Status}' slurm-devns 2>/dev/null | grep -qx installed; then
		echo "the package is not installed: the suite runs on make install's plugins"
		make -s -C "$top/build" install >>"$out/build.log" 2>&1
	fi
}

# The micro release CI runs of each release that Debian 12 does not ship:
# 24.11.5 from Debian 13, the others from shared/slurm (slurm-release.sh).
release_version() {
	case $1 in
	23.11) echo 23.11.11 ;;
	24.11) echo 24.11.5 ;;
	25.11) echo 25.11.7 ;;
	26.05) echo 26.05.3 ;;
	26.11) echo 26.11.0-0rc1 ;;	# a development tree, not a release
	*) return 1 ;;
	esac
}

# The plugins' build for release NAME ($top/build for Debian's 22.05).
release_build_dir() {
	if [ "$1" = 22.05 ]; then echo "$top/build"; else echo "$top/build-$1"; fi
}

# build_for_release NAME: build Slurm NAME where Debian has no package for it,
# then build and install the plugins for it (22.05 in package mode: build
# only, the package installs them); prints the Slurm prefix.  The guests'
# chains build the same trees (guest_build; a no-op make here when they
# did first), never install them.
build_for_release() {
	local name=$1 prefix version
	# A guest's chain and the host's stages may build one release at
	# once: one after the other (the lock goes with this subshell).
	build_lock "$name"
	if [ "$name" = 22.05 ]; then
		if package_mode "$name"; then
			"$top/scripts/build.sh" --no-install "$top/build" >&2 || return 1
		else
			"$top/scripts/build.sh" "$top/build" >&2 || return 1
		fi
		echo /usr
		return
	fi
	version=$(release_version "$name") || { echo "unknown release $name" >&2; return 1; }
	prefix=$("$top/scripts/slurm-release.sh" "$version") || return 1
	"$top/scripts/build.sh" --slurm "$prefix" "$(release_build_dir "$name")" >&2 || return 1
	echo "$prefix"
}

# guest_runs_release NAME: does a guest run release NAME's files, so that
# the host need not (never 22.05's: the hybrid host's full release)?
guest_runs_release() {
	[ "$1" != 22.05 ] && [ -z "${DEVNS_SKIP_GUEST:-}" ] &&
		[[ " $GUEST_RELEASE $GUEST_RELEASES " == *" $1 "* ]]
}

# release_tests NAME: the integration tests run against release NAME, so
# that a whole run stays within CI's time on two cores: on 26.05 (the
# release current sites run) all those the guest does not run on it (the
# guest runs the rest there, on the layout real nodes have); on 22.05 all
# but test_mcs (whose semantics 26.05 and 25.11 check) and test_imex (no
# switch/nvidia_imex before 24.11), the hybrid layout's own checks among
# them; on 25.11 the namespace, devices (NVIDIA, AMD, IMEX), adoption,
# user namespace, mcs and configuration tests (configless, settings,
# drop-in, reconfigure); on 23.11 (Ubuntu 24.04's), 24.11 and 26.11 (the
# development tree) the namespace, device, adoption, user namespace and
# configuration tests (IMEX from 24.11).  Where the guest runs a release
# other than 22.05 (guest_runs_release), the host leaves it the files it
# runs there: the hybrid host runs all of them on 22.05 only.
# DEVNS_RELEASE_TESTS_<X_Y> (e.g. DEVNS_RELEASE_TESTS_25_11="all") picks
# another list.
release_tests() {
	local t list var=DEVNS_RELEASE_TESTS_${1/./_}
	local config_tests="test_configless test_dirs test_dropin test_reconfig"
	case $1 in
	22.05) list="all -test_mcs -test_imex" ;;
	25.11) list="test_namespace test_devices test_devices_amd test_imex test_adopt test_userns test_mcs $config_tests" ;;
	23.11) list="test_namespace test_devices test_devices_amd test_adopt test_userns $config_tests" ;;
	24.11 | 26.11) list="test_namespace test_devices test_devices_amd test_imex test_adopt test_userns $config_tests" ;;
	*) list=all ;;
	esac
	# A release a guest runs runs on the host only what the guest does not
	# (the hybrid layout's own checks run on 22.05, which runs them all).
	if guest_runs_release "$1" && [ -z "${!var:-}" ]; then
		for t in $(guest_release_tests "$1"); do list="$list -$t"; done
	fi
	list=${!var:-$list}
	for t in "$top"/testsuite/integration/test_*.sh; do
		t=${t%.sh}
		case " $list " in
		*" -$(basename "$t") "*) continue ;;
		*" all "* | *" $(basename "$t") "*) echo "$t.sh" ;;
		esac
	done
}

# release_many_jobs NAME: the jobs of test_devices's leftover check on
# release NAME: 200 on 22.05 and 26.05, which carry the job_container and
# the namespace interface's paths (and 26.05 the soak), 50 on the others,
# which run the same paths again (DEVNS_MANY_JOBS overrides).
release_many_jobs() {
	case $1 in
	22.05 | 26.05) echo "${DEVNS_MANY_JOBS:-200}" ;;
	*) echo "${DEVNS_MANY_JOBS:-50}" ;;
	esac
}

# The release the host runs the soak on: DEVNS_SOAK_RELEASE; else none
# when the guest runs it; else 26.05, the one current sites run, where
# DEVNS_RELEASES has it; else the first.
soak_release() {
	local releases=" $1 "
	if [ -n "${DEVNS_SOAK_RELEASE:-}" ]; then
		echo "$DEVNS_SOAK_RELEASE"
	elif [ -z "${DEVNS_SKIP_GUEST:-}" ] && [ "$GUEST_SOAK_JOBS" -gt 0 ]; then
		echo none
	elif [[ $releases == *" 26.05 "* ]]; then
		echo 26.05
	else
		set -- $1
		echo "${1:-}"
	fi
}

integration_stage() {
	local name=$1 prefix out=$results/slurm-$1
	mkdir -p "$out"
	say "Slurm $name: build"
	if ! prefix=$(build_for_release "$name" 2>"$out/build.log"); then
		echo "building for Slurm $name failed:"; tail -30 "$out/build.log"
		failed=$((failed + 1))
		return
	fi
	package_mode "$name" && package_install "$out"
	export DEVNS_SLURM_PREFIX=$prefix DEVNS_BUILD_DIR
	DEVNS_BUILD_DIR=$(release_build_dir "$name")
	integration_run "$name" "$out"
	unset DEVNS_SLURM_PREFIX DEVNS_BUILD_DIR
	if package_mode "$name"; then
		run_tap "$out/package-remove.log" "Slurm $name: package: remove" \
			"$top/testsuite/package.sh" remove "$out/package"
	fi
}

# integration_run NAME OUT: the cluster and every integration test.
integration_run() {
	local name=$1 out=$2 t
	say "Slurm $name: cluster ($DEVNS_SLURM_PREFIX)"
	if ! "$top/testsuite/cluster/cluster.sh" start >"$out/cluster-start.log" 2>&1; then
		echo "cluster failed to start:"; tail -40 "$out/cluster-start.log"
		failed=$((failed + 1))
		"$top/testsuite/cluster/cluster.sh" stop >/dev/null 2>&1
		return
	fi
	for t in $(release_tests "$name"); do
		[ -n "${DEVNS_TESTS:-}" ] && [[ "$(basename "$t")" != *$DEVNS_TESTS* ]] && continue
		run_tap "$out/$(basename "$t" .sh).log" "Slurm $name: $(basename "$t")" \
			env DEVNS_MANY_JOBS="$(release_many_jobs "$name")" timeout 1200 bash "$t"
	done
	# The soak on one release only: DEVNS_SOAK_JOBS jobs (0: none).
	if [ "$name" = "$(soak_release "$RELEASES")" ] && [ "${DEVNS_SOAK_JOBS:-200}" -gt 0 ] &&
		[ -z "${DEVNS_TESTS:-}" ]; then
		run_tap "$out/soak.log" "Slurm $name: soak (${DEVNS_SOAK_JOBS:-200} jobs)" \
			timeout 1800 bash "$top/testsuite/soak/soak.sh" "${DEVNS_SOAK_JOBS:-200}"
		grep '^# soak:' "$out/soak.log"
	fi
	say "Slurm $name: cluster stop"
	"$top/testsuite/cluster/cluster.sh" stop >"$out/cluster-stop.log" 2>&1 ||
		{ echo "cluster stop failed"; failed=$((failed + 1)); }
}

# The plugins compiled against every other Slurm release in shared/slurm
# (scripts/build-matrix.sh: a configured tree each, plugin_version and
# entry points checked), one check per release.  About 6 min on a fresh
# machine, seconds with its caches.
matrix_stage() {
	local log=$results/build-matrix.log status=0 ok bad
	say "plugins built against every Slurm release (scripts/build-matrix.sh)"
	"$top/scripts/build-matrix.sh" ${DEVNS_MATRIX_RELEASES:-} >"$log" 2>&1 || status=$?
	grep -E '^(release|[0-9]+\.[0-9]+)' "$log"
	ok=$(grep -Ec '^[0-9]+\.[0-9]+\.[0-9]+(-[0-9a-z]+)? .*plugin_version OK' "$log")
	bad=$(grep -Ec '^[0-9]+\.[0-9]+\.[0-9]+(-[0-9a-z]+)? ' "$log")
	bad=$((bad - ok))
	if [ "$status" -ne 0 ] && [ "$bad" -eq 0 ]; then
		echo "not ok - build-matrix.sh failed (status $status):"; tail -20 "$log"
		bad=1
	fi
	passed=$((passed + ok)) failed=$((failed + bad))
}

# The RPM (slurm-devns.spec): rpmbuild -ta on the release tarball and
# Slurm's, against a build root's rpm database (no --nodeps), then its file
# list, Requires and plugins checked (testsuite/rpm.sh).  About 4 minutes.
rpm_stage() {
	run_tap "$results/rpm.log" "RPM: rpmbuild -ta from the tarballs against a build root's database (testsuite/rpm.sh)" \
		"$top/testsuite/rpm.sh" "$results/rpm"
}

main() {
	local asan="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"

	# The test rig (Slurm's daemons, munge, valgrind, QEMU, ...) beside
	# the build's packages, which build.sh installs on its own.
	"$top/scripts/deps.sh" --test >"$results/deps.log" 2>&1 ||
		{ echo "deps.sh --test failed:"; tail -20 "$results/deps.log"; failed=$((failed + 1)); }

	if [ -z "${DEVNS_SKIP_UNIT:-}" ]; then
		# test_groupcache's NSS part needs the cluster's users (one of
		# more than 128 groups); a fresh machine has them only once a
		# cluster has started, after this stage.  Not root: it skips.
		[ "$(id -u)" != 0 ] || "$top/testsuite/cluster/cluster.sh" users >"$results/users.log" 2>&1 ||
			{ echo "cluster.sh users failed: see $results/users.log"; failed=$((failed + 1)); }
		# The package build's own flags (dpkg-buildflags, from deps.sh's
		# dpkg-dev): what stops that build, e.g. the fortified libc's
		# warn_unused_result, stops this first stage already.
		UNIT_WRAPPER="" unit_stage plain "$top/build" \
			CFLAGS="$(dpkg-buildflags --get CFLAGS)" CPPFLAGS="$(dpkg-buildflags --get CPPFLAGS)"
		UNIT_WRAPPER="" unit_stage asan "$top/build-asan" CFLAGS="$asan" LDFLAGS="-fsanitize=address,undefined"
		UNIT_WRAPPER="$top/testsuite/unit/valgrind.sh" \
			unit_stage valgrind "$top/build-valgrind"
	fi
	if [ -z "${DEVNS_SKIP_GUEST:-}" ]; then
		guest_chain_start
	else
		say "pure cgroup-v2 guest: skipped (DEVNS_SKIP_GUEST)"
		guest_skips "pure cgroup-v2 guest" "DEVNS_SKIP_GUEST=1" $GUEST_TESTS
		for release in $GUEST_RELEASE $GUEST_RELEASES; do
			guest_skips "guest integration: Slurm $release" "DEVNS_SKIP_GUEST=1" \
				$(guest_release_tests "$release") $(guest_soak_name "$release")
		done
		[ -n "${DEVNS_SKIP_SMD:-}" ] ||
			guest_skips "SchedMD's packages" "DEVNS_SKIP_GUEST=1" package-smd.sh
	fi
	[ -n "${DEVNS_SKIP_FUZZ:-}" ] || fuzz_stage
	[ -n "${DEVNS_SKIP_MUTATION:-}" ] || mutation_stage
	[ -n "${DEVNS_SKIP_DISTCHECK:-}" ] || distcheck_stage
	[ -n "${DEVNS_SKIP_MATRIX:-}" ] || matrix_stage
	[ -n "${DEVNS_SKIP_RPM:-}" ] || rpm_stage
	end_stage
	[ -n "${DEVNS_SKIP_GUEST:-}" ] || guest_second_chain_start
	for release in $RELEASES; do
		integration_stage "$release"
	done
	end_stage
	guest_chain_wait
	printf '\n=== [%s] done\n' "$(mmss $SECONDS)"
	echo "stages (duration, checks):"
	printf '%s\n' "${stage_times[@]}"
	echo "the ten slowest checks (seconds, where, check; all in ${DEVNS_CHECK_TIMES#$top/}):"
	sort -t "$(printf '\t')" -k1,1 -g -r "$DEVNS_CHECK_TIMES" | head -n 10 |
		awk -F '\t' '{ printf "%9s  %s: %s\n", $1, $2, substr($3, 1, 100) }'
	echo "The same unit checks run once per configuration (plain, ASan/UBSan,"
	echo "valgrind, the guest) and count once in each; the line below is the"
	echo "grand total of every stage.  Reference checks of Slurm's own plugins"
	echo "(what devns is compared with, not devns) are outside it:"
	echo "reference checks, outside the total: $ref_passed ok, $ref_failed not ok"
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
}

main "$@"
