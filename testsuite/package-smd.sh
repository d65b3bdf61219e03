#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# package-smd.sh - slurm-devns's Debian package on a machine with SchedMD's
# own Debian packages (slurm-smd, slurm-smd-slurmd, ...: built from the
# debian/ of SchedMD's release tarball, the one packaged way to 25.11 and
# later on Debian and Ubuntu), as an admin builds and installs it there:
#
#   testsuite/package-smd.sh build DIR   (no lock needed)
#     1. SchedMD's .debs of the release, built from the tarball's own
#        debian/ (dpkg-buildpackage -b, niced, under /var/tmp), cached in
#        $DEVNS_SMD_CACHE/debs-SHA256 (the tarball's): a warm run reuses
#        them.  Build dependencies missing on this host are installed, but
#        never where apt would remove or change a package (this host keeps
#        Debian's Slurm: no slurm-smd package is ever installed here).
#     2. The build host: a throwaway copy of the guest's Debian 12 root
#        (an overlay on testsuite/vm's image, in a private mount namespace,
#        natively, in chroot) where apt installs SchedMD's packages in place
#        of Debian's Slurm; there scripts/deps.sh, scripts/slurm-source.sh
#        (the same tarball, checked by its SHA-256) and dpkg-buildpackage
#        build slurm-devns.  Checks: its version and Depends name slurm-smd.
#
#   testsuite/package-smd.sh guest DIR   (hold the guest lock:
#                                         flock -o /tmp/devns-guest.lock)
#     3. The node: the pure cgroup-v2 guest (testsuite/vm), booted afresh
#        (its root is an overlay on tmpfs: nothing outlives it), gets the
#        same packages with dpkg (Debian's Slurm purged, SchedMD's and their
#        libraries from step 2, then slurm-devns); the test cluster runs
#        there on SchedMD's daemons (cluster.sh, DEVNS_CLUSTER_VM=1,
#        DEVNS_PACKAGED_PLUGINS=1) and a job is contained: private /tmp,
#        the device filter.  The guest is stopped at the end.
#
#   testsuite/package-smd.sh DIR         both
#
# TAP on stdout; DIR keeps the logs and packages.  Needs root.
#
# Environment:
#   DEVNS_SMD_TARBALL  SchedMD's release tarball [shared/slurm/slurm-26.05.3
#                      .tar.xz beside the repository], checked against the
#                      SHA256SUMS beside it where there is one
#   DEVNS_SMD_CACHE    [/var/cache/slurm-devns/smd]: debs-SHA256/ (SchedMD's
#                      .debs), apt/ (the build host's downloaded .debs)
#   DEVNS_SMD_JOBS     parallel jobs of SchedMD's build [2]
#   DEVNS_SKIP_SMD=1   skip all ("1..0 # SKIP")
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
# copy_tree, binary_version's scheme; tap.sh
# shellcheck source=testsuite/package.sh
source "$TOP/testsuite/package.sh"
PROG=package-smd.sh
die() { echo "$PROG: $*" >&2; exit 2; }

VM=$TOP/testsuite/vm/vm.sh
CLUSTER=$TOP/testsuite/cluster/cluster.sh
: "${DEVNS_SMD_CACHE:=/var/cache/slurm-devns/smd}"
: "${DEVNS_SMD_JOBS:=2}"
# The packages a node and a controller of the test cluster need.
SMD_PACKAGES=(slurm-smd slurm-smd-client slurm-smd-slurmd slurm-smd-slurmctld
	slurm-smd-libpam-slurm-adopt)

default_tarball() {
	local d
	for d in "$TOP/../shared/slurm" "$TOP/shared/slurm" /work/shared/slurm; do
		[ -f "$d/slurm-26.05.3.tar.xz" ] && { echo "$d/slurm-26.05.3.tar.xz"; return; }
	done
}

# tarball_check: the tarball's SHA-256 into $sha, checked against the
# SHA256SUMS beside it where there is one.
tarball_check() {
	local sums line
	if [ -z "${tarball:-}" ] || [ ! -f "$tarball" ]; then
		skip_all "no SchedMD tarball (DEVNS_SMD_TARBALL=${DEVNS_SMD_TARBALL:-})"
	fi
	sha=$(sha256sum "$tarball" | cut -d' ' -f1)
	sums=$(dirname "$tarball")/SHA256SUMS
	if [ -f "$sums" ]; then
		line=$(grep " $(basename "$tarball")\$" "$sums" | cut -d' ' -f1)
		[ "$line" = "$sha" ]
		ok $? "$(basename "$tarball"): SHA-256 as SHA256SUMS says" || return 1
	fi
	# slurm-26.05.3.tar.xz -> 26.05.3
	release=$(basename "$tarball")
	release=${release#slurm-}
	release=${release%.tar.*}
}

skip_all() { echo "1..0 # SKIP $*"; exit 0; }

# ---------------------------------------------------------------------------
# 1. SchedMD's .debs
# ---------------------------------------------------------------------------

# The packages dpkg-checkbuilddeps reports unmet (first of each
# alternative, versions dropped), one a line.
unmet_names() {
	sed -n 's/.*Unmet build dependencies: //p' | sed 's/([^)]*)//g' |
		awk '{ skip = 0; for (i = 1; i <= NF; i++) {
			if ($i == "|") { skip = 1; continue }
			if (skip) { skip = 0; continue }
			print $i } }' | sort -u
}

# install_build_deps TREE LOG: what SchedMD's debian/control needs, where apt
# can add it without removing or changing anything (so never a Slurm
# package: slurm-smd* conflict with Debian's).
install_build_deps() {
	local tree=$1 log=$2 names plan
	names=$(cd "$tree" && dpkg-checkbuilddeps 2>&1 | unmet_names)
	[ -n "$names" ] || return 0
	# shellcheck disable=SC2086 # package names
	plan=$(apt-get install -s -q --no-install-recommends $names 2>&1)
	if grep -q '^Remv\|^Inst [^ ]* \[' <<<"$plan" || grep -qi '^Inst [^ ]*slurm' <<<"$plan"; then
		echo "$plan" >>"$log"
		echo "installing SchedMD's build dependencies would remove or change packages of this host: see $log" >&2
		return 1
	fi
	echo "installing build dependencies: $names" >>"$log"
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $names >>"$log" 2>&1
}

# smd_debs OUT: SchedMD's .debs of the tarball in $smd_dir, built unless
# cached.
smd_debs() {
	local out=$1 work start
	smd_dir=$DEVNS_SMD_CACHE/debs-$sha
	if ls "$smd_dir"/slurm-smd_*.deb >/dev/null 2>&1; then
		ok 0 "SchedMD's packages of $release: cached in $smd_dir"
		return
	fi
	start=$SECONDS
	mkdir -p "$DEVNS_SMD_CACHE"
	work=$(mktemp -d /var/tmp/devns-smd-build.XXXXXX)
	tar -xf "$tarball" -C "$work" && [ -f "$work/slurm-$release/debian/control" ]
	ok $? "the tarball has SchedMD's debian/" || { rm -rf "$work"; return 1; }
	install_build_deps "$work/slurm-$release" "$out/smd-build.log"
	ok $? "SchedMD's build dependencies are installed (nothing of this host removed or changed)" ||
		{ rm -rf "$work"; return 1; }
	(cd "$work/slurm-$release" &&
		DEB_BUILD_OPTIONS="nocheck parallel=$DEVNS_SMD_JOBS" \
		nice -n 10 dpkg-buildpackage -b -uc -us) >>"$out/smd-build.log" 2>&1
	ok $? "dpkg-buildpackage -b of SchedMD's debian/ ($((SECONDS - start)) s)" ||
		{ tail -30 "$out/smd-build.log" | diag; rm -rf "$work"; return 1; }
	rm -rf "$smd_dir.tmp"
	mkdir -p "$smd_dir.tmp"
	# The packages, not their debug symbols (-dbgsym, the most of it).
	find "$work" -maxdepth 1 -name '*.deb' ! -name '*-dbgsym_*' -exec mv -t "$smd_dir.tmp" {} + &&
		mv "$smd_dir.tmp" "$smd_dir"
	rm -rf "$work"
}

# ---------------------------------------------------------------------------
# 2. The build host: a chroot of the guest's root with SchedMD's packages
# ---------------------------------------------------------------------------

# The script that runs in the build host (bash, as root, in /build).
# $1: the tarball's file name, $2: its SHA-256, $3...: SchedMD's packages.
build_host_script() {
	cat <<'EOF'
set -euo pipefail
tarball=/build/$1 sha=$2
shift 2
export DEBIAN_FRONTEND=noninteractive
# No daemon of the packages starts in the chroot.
printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
chmod 0755 /usr/sbin/policy-rc.d
state() { dpkg-query -W -f='${Package} ${Version} ${db:Status-Status}\n' | sort; }
# apt's lists of the image may be older than the archive: update once
# when a download fails.
apt_install() {
	apt-get install -y -q --no-install-recommends "$@" ||
		{ apt-get update -q && apt-get install -y -q --no-install-recommends "$@"; }
}
state >/build/state.before
# 1. SchedMD's packages, as an admin installs them: apt removes Debian's
# Slurm, which they conflict with, and brings their libraries.
debs=()
for p in "$@"; do debs+=(/build/smd/"$p"_*.deb); done
apt_install "${debs[@]}"
state >/build/state.smd
# 2. What the node's apt brought (for the guest: the same, with dpkg).
: >/build/node-debs.list
comm -13 /build/state.before /build/state.smd | while read -r p v s; do
	[ "$s" = installed ] || continue
	case $p in slurm-smd*) continue ;; esac
	f=$(ls /var/cache/apt/archives/"${p}_${v//:/%3a}"_*.deb 2>/dev/null | head -n1)
	[ -n "$f" ] || { echo "no .deb of $p $v in the archives" >&2; exit 1; }
	echo "$f" >>/build/node-debs.list
done
awk '{ print $1 }' /build/state.before | sort >/build/pkgs.before
awk '$3 == "installed" { print $1 }' /build/state.smd | sort >/build/pkgs.smd
comm -23 /build/pkgs.before /build/pkgs.smd >/build/removed.list
# 3. Build tools, as the README says: scripts/deps.sh (on a machine with
# slurm-smd it leaves Debian's Slurm packages out).
cd /build/src
scripts/deps.sh
state >/build/state.tools
# 4. The tree and the package.
SLURM_SOURCE_TARBALL=$tarball SLURM_SOURCE_SHA256=$sha scripts/slurm-source.sh >/build/tree.path
DEB_BUILD_OPTIONS="werror nocheck parallel=2" dpkg-buildpackage -b -uc -us
EOF
}

# in_build_host IMAGE UPPER WORK ROOT CMD...: CMD in chroot ROOT, an overlay
# of the guest image's root file system (IMAGE, its ext4 disk image, loop-
# mounted read-only) and UPPER, in a mount namespace of its own (nothing
# stays mounted, the loop device goes with it); apt's downloads go to
# $DEVNS_SMD_CACHE/apt.
in_build_host() {
	local image=$1 upper=$2 wdir=$3 root=$4
	shift 4
	mkdir -p "$DEVNS_SMD_CACHE/apt/partial" "$root" "$root.lower"
	# shellcheck disable=SC2016 # the inner shell's
	unshare --mount --propagation private -- sh -ec '
		image=$1 upper=$2 wdir=$3 root=$4 debs=$5; shift 5
		mount -t ext4 -o ro,loop "$image" "$root.lower"
		mount -t overlay overlay -o "lowerdir=$root.lower,upperdir=$upper,workdir=$wdir" "$root"
		mount -t proc proc "$root/proc"
		mount --bind /dev "$root/dev"
		mount --bind "$debs" "$root/var/cache/apt/archives"
		cat /etc/resolv.conf >"$root/etc/resolv.conf"
		exec chroot "$root" "$@"' sh "$image" "$upper" "$wdir" "$root" "$DEVNS_SMD_CACHE/apt" \
		env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 HOME=/root "$@"
}

do_build() {
	local out=$1 img work upper version bversion deb deps arch src start
	rm -rf "$out"
	mkdir -p "$out"
	tarball_check || { return 1; }
	smd_debs "$out" || { return 1; }

	img=$("$VM" image 2>"$out/vm-image.log")
	[ -f "$img/rootfs.img" ]
	ok $? "the guest's Debian 12 root for the build host: $img/rootfs.img" ||
		{ tail -5 "$out/vm-image.log" | diag; return 1; }
	work=$(mktemp -d /var/tmp/devns-smd-host.XXXXXX)
	upper=$work/upper
	mkdir -p "$upper/build/smd" "$work/ovl" "$work/root"
	cp "$smd_dir"/*.deb "$upper/build/smd/"
	cp "$tarball" "$upper/build/"
	copy_tree "$upper/build/src"
	build_host_script >"$upper/build/run.sh"
	start=$SECONDS
	in_build_host "$img/rootfs.img" "$upper" "$work/ovl" "$work/root" \
		bash /build/run.sh "$(basename "$tarball")" "$sha" "${SMD_PACKAGES[@]}" \
		>"$out/build-host.log" 2>&1
	ok $? "build host (SchedMD's $release installed by apt): scripts/deps.sh, scripts/slurm-source.sh, dpkg-buildpackage -b ($((SECONDS - start)) s)" ||
		{ grep -E 'error|Error|rules:|slurm-source.sh:' "$out/build-host.log" | tail -20 | diag
		  tail -20 "$out/build-host.log" | diag; rm -rf "$work"; return 1; }

	[ -s "$upper/build/removed.list" ] && ! grep -q '^slurm-smd' "$upper/build/removed.list" &&
		grep -qx slurmd "$upper/build/removed.list"
	ok $? "apt replaced Debian's Slurm there: $(tr '\n' ' ' <"$upper/build/removed.list")"
	! grep -q '^libslurm-dev \|^slurmd \|^slurmctld ' <(awk '$3 == "installed"' "$upper/build/state.tools")
	ok $? "scripts/deps.sh kept SchedMD's Slurm (no libslurm-dev, slurmd, slurmctld installed)"
	grep -q "^smd slurm-$release.tar.bz2 sha256 $sha\$" \
		"$upper$(cat "$upper/build/tree.path")/.devns-source" 2>/dev/null
	ok $? "slurm-source.sh made the tree of slurm-smd $release from the tarball, verified: $(cat "$upper/build/tree.path")"

	version=$(dpkg-parsechangelog -l "$TOP/debian/changelog" -SVersion)
	arch=$(dpkg --print-architecture)
	src=$(awk '$1 == "slurm-smd" { print $2 }' "$upper/build/state.smd")
	bversion="$version+slurm${src//-/.}"
	deb=$upper/build/slurm-devns_${bversion}_$arch.deb
	[ -f "$deb" ]
	ok $? "its version names SchedMD's Slurm: $(basename "$deb")" ||
		{ ls "$upper/build" | diag; rm -rf "$work"; return 1; }
	deps=$(dpkg-deb -f "$deb" Depends)
	local up=${src%-*} next
	next=${up%.*}.$((${up##*.} + 1))~~
	[[ $deps == *"slurm-smd (>= $up), slurm-smd (<< $next), slurm-smd-slurmd (>= $up) | slurm-smd-slurmctld (>= $up)"* &&
	   $deps != *slurm-wlm* ]] && ! grep -Eq '(^|[ ,|])slurm(d|ctld) ' <<<"$deps"
	ok $? "Depends holds slurm-smd to $up (>= $up, << $next), names no Debian Slurm package" ||
		echo "Depends: $deps" | diag
	echo "Depends: $deps" | diag
	# grep reads it all: no SIGPIPE for dpkg-deb under pipefail.
	[ "$(dpkg-deb -c "$deb" | grep -c '/usr/lib/[^/]*/slurm/namespace_devns\.so$')" -eq 1 ]
	ok $? "namespace_devns.so goes into slurm-smd's PluginDir /usr/lib/<multiarch>/slurm"
	if command -v lintian >/dev/null; then
		lintian --fail-on error,warning -I --pedantic "$deb" >"$out/lintian.log" 2>&1
		ok $? "lintian: no error or warning" || grep -v 'root privileges' "$out/lintian.log" | diag
	else
		skip "lintian is not installed (scripts/deps.sh --test installs it)"
	fi

	# What the guest installs: SchedMD's packages, the libraries apt
	# brought for them, slurm-devns; and what it removes.
	mkdir -p "$out/debs"
	for p in "${SMD_PACKAGES[@]}"; do cp "$smd_dir/${p}"_*.deb "$out/debs/"; done
	while read -r f; do cp "$DEVNS_SMD_CACHE/apt/$(basename "$f")" "$out/debs/"; done \
		<"$upper/build/node-debs.list"
	cp "$deb" "$out/"
	cp "$upper/build/removed.list" "$out/"
	ok 0 "the node's set: $(ls "$out/debs" | wc -l) packages, $(du -sh "$out/debs" | cut -f1)"
	rm -rf "$work"
}

# ---------------------------------------------------------------------------
# 3. The node: the guest
# ---------------------------------------------------------------------------

# One word per fake GPU: ENXIO (the filter lets it open; no driver behind
# it), EPERM (the filter denies it), other (as testsuite/integration).
gpu_probe() {
	local dev=$1
	echo 'for g in '"$dev/nvidia0 $dev/nvidia1 $dev/nvidia2 $dev/nvidia3"'; do e=$( (exec 3<"$g") 2>&1); case "$e" in
*"No such device"*) printf "ENXIO ";; *"not permitted"*) printf "EPERM ";; *) printf "other ";; esac; done; echo'
}

do_guest() {
	local out=$1 share rc=0 deb got dev cmd
	tarball_check || return 1
	deb=$(ls "$out"/slurm-devns_*.deb 2>/dev/null | head -n1)
	[ -n "$deb" ] && [ -d "$out/debs" ]
	ok $? "precondition: the packages of '$PROG build' are in $out" ||
		{ return 1; }
	# The guest sees the repository (9p): the packages go there.
	share=$TOP/.package-smd
	rm -rf "$share"
	mkdir -p "$share"
	cp "$out"/debs/*.deb "$deb" "$out/removed.list" "$share/"

	# A fresh boot: the guest's root starts from the image each time.
	if "$VM" status </dev/null >/dev/null 2>&1; then "$VM" stop </dev/null >/dev/null 2>&1; fi
	"$VM" start </dev/null >"$out/guest-start.log" 2>&1 || rc=$?
	if [ "$rc" -eq 77 ]; then
		skip "$(tail -n1 "$out/guest-start.log")"; rm -rf "$share"; return 0
	fi
	ok $rc "the guest boots" || { tail -20 "$out/guest-start.log" | diag; rm -rf "$share"; return 1; }

	# As the build host's apt did, with dpkg: Debian's Slurm out, SchedMD's
	# and their libraries in, then slurm-devns.
	# shellcheck disable=SC2016
	"$VM" run sh -ec '
		cd "$1"
		printf "#!/bin/sh\nexit 101\n" >/usr/sbin/policy-rc.d; chmod 0755 /usr/sbin/policy-rc.d
		dpkg --purge $(cat removed.list)
		dpkg -i $(ls *.deb | grep -v "^slurm-devns_")
		dpkg -i slurm-devns_*.deb
		rm -f /usr/sbin/policy-rc.d
		dpkg-query -W -f="\${Package} \${Version} \${db:Status-Status}\n" "slurm*"' sh "$share" \
		</dev/null >"$out/guest-install.log" 2>&1
	ok $? "dpkg in the guest: Debian's Slurm purged, SchedMD's $release and slurm-devns installed" ||
		{ tail -30 "$out/guest-install.log" | diag; }
	got=$("$VM" run sh -c '/usr/sbin/slurmd -V; dpkg-query -W -f="\${db:Status-Status}" slurm-devns; echo; dpkg -S namespace_devns.so' </dev/null 2>&1)
	echo "$got" | diag
	[[ $got == "slurm $release"*installed*"slurm-devns: /usr/lib/"*"/slurm/namespace_devns.so"* ]]
	ok $? "the guest's slurmd is SchedMD's $release; namespace_devns.so is slurm-devns's, in slurm-smd's PluginDir"

	# The test cluster on SchedMD's daemons, with the package's plugins.
	export DEVNS_CLUSTER_VM=1 DEVNS_PACKAGED_PLUGINS=1 DEVNS_VM_KEEP=1
	"$CLUSTER" start </dev/null >"$out/cluster-start.log" 2>&1
	ok $? "the test cluster starts in the guest on SchedMD's slurmd and slurmctld with namespace/devns" ||
		{ tail -30 "$out/cluster-start.log" | diag; }
	got=$("$CLUSTER" run -- scontrol show config </dev/null 2>&1 | grep -E '^(NamespaceType|JobContainerType|SLURM_VERSION|PluginDir) ')
	echo "$got" | diag
	[[ $got == *"namespace/devns"* && $got == *"SLURM_VERSION "*"= $release"* ]]
	ok $? "slurmctld runs $release with namespace/devns"

	dev=$("$CLUSTER" env </dev/null | sed -n 's/^export DEVNS_CLUSTER_DEV=//p' | tr -d "'\"")
	# Private /tmp: a job's file is in its /tmp, not in the node's, nor in
	# the next job's.
	got=$("$CLUSTER" run -u dnalice -- srun -w node1 sh -c \
		'echo smd >/tmp/devns-smd-mark && cat /tmp/devns-smd-mark && findmnt -no TARGET /tmp' </dev/null 2>&1)
	[[ $got == *smd*/tmp* ]] && "$VM" run test ! -e /tmp/devns-smd-mark </dev/null
	ok $? "a job's /tmp is its own mount; what it writes there is not in the node's /tmp" ||
		echo "$got" | diag
	got=$("$CLUSTER" run -u dnbob -- srun -w node1 sh -c 'ls /tmp' </dev/null 2>&1)
	[[ $got != *devns-smd-mark* ]]
	ok $? "the next job (another user, same node) does not see it" || echo "$got" | diag

	# The device filter: a job without GPUs opens none of the node's, a
	# job with one opens that one only.
	cmd=$(gpu_probe "$dev")
	got=$("$CLUSTER" run -u dnalice -- srun -w node1 sh -c "$cmd" </dev/null 2>&1)
	is "$got" "EPERM EPERM EPERM EPERM " "a job without GPUs: all four fake GPUs denied by the device filter (EPERM)"
	got=$("$CLUSTER" run -u dnalice -- srun -w node1 --gres=gpu:1 sh -c "$cmd" </dev/null 2>&1)
	[ "$(tr ' ' '\n' <<<"$got" | grep -c ENXIO)" -eq 1 ] && [ "$(tr ' ' '\n' <<<"$got" | grep -c EPERM)" -eq 3 ]
	ok $? "a --gres=gpu:1 job: its GPU opens (ENXIO), the other three are denied (EPERM): $got"

	unset DEVNS_VM_KEEP
	"$CLUSTER" stop </dev/null >"$out/cluster-stop.log" 2>&1
	ok $? "cluster and guest stop" || tail -10 "$out/cluster-stop.log" | diag
	rm -rf "$share"
}

[ -z "${DEVNS_SKIP_SMD:-}" ] || skip_all "DEVNS_SKIP_SMD is set"
[ "$(id -u)" -eq 0 ] || die "must run as root (dpkg, chroot, the guest)"
tarball=${DEVNS_SMD_TARBALL:-$(default_tarball)}
case $# in
1) verb=all dir=$1 ;;
2) verb=$1 dir=$2 ;;
*) die "usage: package-smd.sh [build|guest] DIR" ;;
esac
dir=$(realpath -m -- "$dir")
case $verb in
build) do_build "$dir" ;;
guest) do_guest "$dir" ;;
all) do_build "$dir" && do_guest "$dir" ;;
*) die "unknown verb $verb" ;;
esac
done_testing
