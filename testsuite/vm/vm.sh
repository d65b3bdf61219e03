#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm.sh - a QEMU guest with a pure cgroup-v2 Debian 12 for running the Slurm test cluster.
#
# The development host has the hybrid cgroup layout (v1 controllers, cgroup2 only at
# /sys/fs/cgroup/unified); real compute nodes are pure v2. This script boots Debian 12's own
# kernel and a Debian 12 rootfs (systemd as PID 1, Debian's Slurm 22.05.8, the same release as
# the host's /usr) under QEMU's TCG emulator, so that a plugin built on the host can be run
# against the real v2 layout. See NOTES-VM.md at the top of the repository for figures and
# limits.
#
#   image       build the guest image, or reuse the cached one (keyed by its recipe)
#   start       boot the guest in the background and wait until it answers
#   run CMD...  run CMD as root in the guest (argv, as exec does), exit with its status
#   stop        power the guest off; kill QEMU if it does not go within a timeout
#   status      say whether the guest runs (exit 0 running, 1 not answering, 3 stopped)
#
# Design, in short:
#   - root filesystem: the cached ext4 image of the rootfs, a read-only virtio-blk disk made
#     writable in the guest by an overlayfs with a tmpfs upper layer (built by our own
#     initramfs), so a run never dirties the cache and every boot starts from the same state;
#   - the repository (two levels above this script) is a second, read-write 9p export mounted
#     at the same path in the guest, so host-built plugins and scripts are visible there;
#   - commands go over ssh through QEMU's user-mode network (a port forward on 127.0.0.1 only),
#     with a key and a pinned host key made at image build time, and one multiplexing master
#     connection so that each `run` costs no new key exchange under emulation.
#
# `start` exits with 77 and one line "vm.sh: skipped: REASON" when the guest cannot be started
# at all here (no QEMU and none installable, image not buildable, not root), so a test runner
# can count the stage as skipped.

set -euo pipefail
shopt -s inherit_errexit

# ---------------------------------------------------------------------------------------------
# Settings
# ---------------------------------------------------------------------------------------------

readonly PROG=${0##*/}
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
REPO=$(cd -- "$HERE/../.." && pwd -P)
readonly HERE REPO SELF=$HERE/${BASH_SOURCE[0]##*/}

readonly CACHE=${DEVNS_VM_CACHE:-/var/cache/slurm-devns/vm}
# DEVNS_VM_INSTANCE=N (1 to 99; 1 when unset): which of several guests that run side by side
# this is. Each has its own state directory (console log, QEMU's pid, its ssh port and the ssh
# master's socket), lock and QEMU name; instance 1 has the names one guest always had. The
# image cache is shared: a guest only reads it, and building it takes IMAGE_LOCK.
readonly INSTANCE=${DEVNS_VM_INSTANCE:-1}
[[ $INSTANCE =~ ^[1-9][0-9]?$ ]] || {
	echo "$PROG: error: DEVNS_VM_INSTANCE='$INSTANCE': not a number from 1 to 99" >&2
	exit 2
}
if ((INSTANCE == 1)); then readonly SUFFIX=""; else readonly SUFFIX=-$INSTANCE; fi
readonly STATE=${DEVNS_VM_STATE:-/run/slurm-devns-vm$SUFFIX}
readonly LOCK_FILE=/run/lock/slurm-devns-vm$SUFFIX.lock
readonly IMAGE_LOCK=/run/lock/slurm-devns-vm-image.lock
readonly CONSOLE_LOG=$STATE/console.log

readonly MEM=${DEVNS_VM_MEM:-4G} SMP=${DEVNS_VM_SMP:-2}
# QEMU runs niced: under emulation a busy guest takes whole host cores, and the host's own
# builds and tests must not starve.
readonly NICE=${DEVNS_VM_NICE:-10}
readonly BOOT_TIMEOUT=${DEVNS_VM_BOOT_TIMEOUT:-300} STOP_TIMEOUT=${DEVNS_VM_STOP_TIMEOUT:-60}
readonly EX_SKIP=77

readonly SUITE=bookworm
readonly MIRROR=${DEVNS_VM_MIRROR:-http://deb.debian.org/debian}
readonly SECURITY_MIRROR=${DEVNS_VM_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
readonly QEMU=${DEVNS_VM_QEMU:-qemu-system-x86_64}

# What the guest needs: an init that sets up pure cgroup v2 the way a real node has it, ssh
# for `run`, Debian 12's Slurm (the host's release), and what testsuite/cluster/cluster.sh and
# the integration tests call (ip netns + bridge/veth, nsenter/unshare/findmnt/runuser/flock,
# useradd, pgrep/pkill, python3 in test_security, pamtester for pam_slurm_adopt, mkfs.xfs in
# test_tmpdisk).
readonly GUEST_PACKAGES=(
	systemd systemd-sysv udev dbus libpam-systemd
	openssh-server
	linux-image-amd64 kmod busybox-static
	munge slurmd slurmctld slurm-client libpam-slurm-adopt
	bpftool iproute2 procps psmisc util-linux passwd
	python3 pamtester less xfsprogs
)

# Modules the initramfs loads before it can mount the root: Debian builds the virtio PCI
# transport, virtio-blk, ext4, 9p and overlayfs as modules. Their dependencies (jbd2, mbcache,
# netfs, fscache, virtio_ring...) are resolved with modprobe against the guest's own module
# tree.
readonly INITRD_MODULES=(virtio_pci virtio_blk ext4 9pnet_virtio 9p overlay)

# The root file system's image: the rootfs directory made into an ext4 file system (mke2fs -d)
# that the guest reads as a virtio-blk disk. Under emulation every 9p request is a round trip
# through the emulated CPU's virtio driver and QEMU's 9p server; a block device is read through
# the guest's own page cache and dentry cache, which a read-only 9p export only half keeps.
# No journal: the disk is read-only, QEMU's side too.
readonly ROOT_IMAGE=rootfs.img

# 9p transfer size: the largest virtio allows in 6.1; the default (128 KiB) is slower.
readonly MSIZE=512000

# host_shares - the host directories besides the repository that the guest sees at the same
# path, one "KIND DIR" per line: the Slurm under DEVNS_SLURM_PREFIX (a release built by
# scripts/slurm-release.sh; /usr is the guest's own Debian 22.05), KIND "copy", and the
# plugins' build DEVNS_BUILD_DIR where it lies outside the repository, KIND "share". The guest
# is booted with them: a guest running with other shares is restarted by start.
host_shares() {
	local dir kind
	for kind in copy share; do
		if [[ $kind == copy ]]; then dir=${DEVNS_SLURM_PREFIX:-}; else dir=${DEVNS_BUILD_DIR:-}; fi
		[[ -n $dir && -d $dir ]] || continue
		dir=$(cd -- "$dir" && pwd -P)
		case $dir/ in /usr/ | "$REPO"/*) continue ;; esac
		[[ $dir != *[[:space:],]* ]] || die "cannot share '$dir' with the guest: blanks or commas"
		echo "$kind $dir"
	done
}

# The guest's fixed name, also the alias its host key is pinned under (the image's, the same
# for every instance). QEMU's process name tells the instances apart.
readonly GUEST_NAME=devns-vm
readonly QEMU_NAME=$GUEST_NAME$SUFFIX

# Printed on the serial console by the guest once sshd accepts connections.
readonly READY_MARK='devns-vm: ready'

# Host tools, and the Debian 12 packages that bring them.
declare -rA HOST_TOOLS=(
	[$QEMU]=qemu-system-x86 [debootstrap]=debootstrap [cpio]=cpio
	[ssh]=openssh-client [ssh-keygen]=openssh-client [unshare]=util-linux
	[mke2fs]=e2fsprogs
)

# ---------------------------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------------------------

# say, die: the test suite's messages (testsuite/tap.sh), prefixed with $PROG.
# shellcheck source=../tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
# skip_guest REASON - the guest cannot be had on this machine: one line, the test runner's
# status.
skip_guest() { say "skipped: $*"; exit "$EX_SKIP"; }

is_root() { [[ $(id -u) == 0 ]]; }

# One lock per instance for start/stop: one state directory, one guest. Every process that
# outlives us (QEMU, the ssh master) is started with fd 9 closed.
take_lock() {
	mkdir -p -- "${LOCK_FILE%/*}"
	exec 9>"$LOCK_FILE"
	flock -w 600 9 || die "could not take $LOCK_FILE within 600s"
}

# One lock for the image cache, whichever instance builds: two guests that start at once
# must not both debootstrap into it. Bounded by a whole build's time (under 30 minutes).
take_image_lock() {
	mkdir -p -- "${IMAGE_LOCK%/*}"
	exec 8>"$IMAGE_LOCK"
	flock -w 1800 8 || die "could not take $IMAGE_LOCK within 1800s"
}

# wait_pid_gone TIMEOUT PID - poll (QEMU is daemonized, not our child, so no `wait`).
wait_pid_gone() {
	local deadline=$((SECONDS + $1))
	while [[ -d /proc/$2 ]]; do
		((SECONDS < deadline)) || return 1
		sleep 0.2
	done
}

# ---------------------------------------------------------------------------------------------
# Host packages
# ---------------------------------------------------------------------------------------------

missing_host_packages() {
	local cmd
	local -A pkgs=()
	for cmd in "${!HOST_TOOLS[@]}"; do
		command -v "$cmd" >/dev/null 2>&1 || pkgs[${HOST_TOOLS[$cmd]}]=1
	done
	if ((${#pkgs[@]})); then printf '%s\n' "${!pkgs[@]}"; fi
}

# Install what is missing from Debian's archive; a fresh CI machine has none of it. Returns
# non-zero (and the caller decides: skip or fail) when apt cannot provide it.
ensure_host_packages() {
	local pkgs
	mapfile -t pkgs < <(missing_host_packages)
	((${#pkgs[@]})) || return 0
	is_root || return 1
	say "installing host packages: ${pkgs[*]}"
	{
		DEBIAN_FRONTEND=noninteractive apt-get update -q &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${pkgs[@]}"
	} >&2 || return 1
	mapfile -t pkgs < <(missing_host_packages)
	((${#pkgs[@]} == 0))
}

# ---------------------------------------------------------------------------------------------
# Image: recipe and cache
# ---------------------------------------------------------------------------------------------

# Everything the image is made from. Function bodies are part of it (declare -f drops
# comments), so a change to how the image is built, or to a file it puts into the guest,
# gives a new key and a rebuild; a comment edit does not.
recipe() {
	printf 'suite=%s\nmirror=%s\nsecurity=%s\n' "$SUITE" "$MIRROR" "$SECURITY_MIRROR"
	printf 'packages=%s\n' "${GUEST_PACKAGES[*]}"
	printf 'initrd_modules=%s\nmsize=%s\nname=%s\nready=%s\nroot_image=%s\n' \
		"${INITRD_MODULES[*]}" "$MSIZE" "$GUEST_NAME" "$READY_MARK" "$ROOT_IMAGE"
	declare -f debootstrap_rootfs install_guest_packages configure_guest guest_sshd_config \
		guest_network guest_ready_unit make_keys build_initrd initrd_modules initrd_init \
		check_guest_slurm make_root_image
}

image_key() { recipe | sha256sum | cut -c1-16; }
image_dir() { printf '%s/img-%s' "$CACHE" "$(image_key)"; }
image_ready() { [[ -f $1/info ]]; }

# in_root ROOT CMD... - run CMD chrooted in ROOT with /proc mounted, inside a private mount
# namespace so that nothing stays mounted on the host if a step fails or is killed. The
# host's .deb cache is shared so a rebuild downloads nothing twice.
in_root() {
	local root=$1
	shift
	mkdir -p -- "$CACHE/debs"
	# shellcheck disable=SC2016 # $1, $2 and $@ are the inner shell's
	unshare --mount --propagation private -- sh -ec '
		root=$1 debs=$2; shift 2
		mount -t proc proc "$root/proc"
		mount --bind "$debs" "$root/var/cache/apt/archives"
		exec chroot "$root" "$@"' sh "$root" "$CACHE/debs" \
		env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 HOME=/root \
		DEBIAN_FRONTEND=noninteractive INITRD=No "$@"
}

debootstrap_rootfs() {
	local root=$1
	mkdir -p -- "$CACHE/debs"
	# Own mount namespace: debootstrap mounts /proc and /sys in the target and would leave
	# them behind on the host if interrupted.
	unshare --mount --propagation private -- \
		debootstrap --variant=minbase --components=main --cache-dir="$CACHE/debs" \
		"$SUITE" "$root" "$MIRROR"
}

# Everything else with apt inside the guest root: apt resolves alternatives and skips
# Recommends, which debootstrap --include does not. INITRD=No (set by in_root) keeps the
# kernel's postinst from spending a minute on an initramfs-tools image we do not use, and a
# policy-rc.d keeps maintainer scripts from starting daemons in the chroot.
install_guest_packages() {
	local root=$1
	cat >"$root/etc/apt/sources.list" <<EOF
deb $MIRROR $SUITE main
deb $MIRROR $SUITE-updates main
deb $SECURITY_MIRROR $SUITE-security main
EOF
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	chmod 0755 "$root/usr/sbin/policy-rc.d"
	in_root "$root" apt-get update -q
	in_root "$root" apt-get install -y -q --no-install-recommends "${GUEST_PACKAGES[@]}"
	rm -f -- "$root/usr/sbin/policy-rc.d"
}

guest_sshd_config() {
	cat <<'EOF'
# devns-vm: key-only root login for vm.sh run; no DNS lookups (slow under emulation).
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UseDNS no
# One multiplexed connection carries every `vm.sh run`: allow many at once.
MaxSessions 64
EOF
}

# QEMU's user-mode network has fixed addresses: guest 10.0.2.15, gateway 10.0.2.2, DNS
# 10.0.2.3. A static address needs no DHCP round trip during boot. Matched by driver: the
# test cluster's veth and bridge links must never be touched by networkd.
guest_network() {
	cat <<'EOF'
[Match]
Driver=virtio_net

[Network]
Address=10.0.2.15/24
Gateway=10.0.2.2
DNS=10.0.2.3
LinkLocalAddressing=no
IPv6AcceptRA=no
EOF
}

# Tells vm.sh start that the guest is ready: written to the serial console after sshd is up.
guest_ready_unit() {
	cat <<EOF
[Unit]
Description=Tell vm.sh that the guest accepts ssh
After=ssh.service
Wants=ssh.service

[Service]
Type=oneshot
ExecStart=/bin/sh -c 'echo "$READY_MARK" >/dev/ttyS0'

[Install]
WantedBy=multi-user.target
EOF
}

configure_guest() {
	local root=$1
	echo "$GUEST_NAME" >"$root/etc/hostname"
	printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n::1\tlocalhost ip6-localhost ip6-loopback\n' \
		"$GUEST_NAME" >"$root/etc/hosts"
	echo 'nameserver 10.0.2.3' >"$root/etc/resolv.conf"
	: >"$root/etc/fstab"

	guest_sshd_config >"$root/etc/ssh/sshd_config.d/devns-vm.conf"
	guest_network >"$root/etc/systemd/network/10-devns-vm.network"
	guest_ready_unit >"$root/etc/systemd/system/devns-vm-ready.service"

	in_root "$root" systemctl set-default multi-user.target
	in_root "$root" systemctl enable systemd-networkd.service devns-vm-ready.service
	# The test cluster starts its own munged and Slurm daemons; the packaged services only
	# cost boot time and would hold Slurm's ports. Disabled, not masked: still startable.
	in_root "$root" systemctl disable munge.service slurmd.service slurmctld.service
	# Periodic maintenance is pointless on a guest that lives minutes, and costs emulated CPU.
	# There is no display: no getty on tty1 (the serial console keeps its getty).
	in_root "$root" systemctl mask apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer \
		e2scrub_reap.service fstrim.timer dpkg-db-backup.timer logrotate.timer man-db.timer \
		getty@tty1.service
}

# A client key for root and the pinned host key, both made at build time: every boot uses the
# same read-only rootfs, so the host key never changes and ssh can check it strictly.
make_keys() {
	local dir=$1 root=$1/rootfs
	ssh-keygen -q -t ed25519 -N '' -C "vm.sh@$GUEST_NAME" -f "$dir/id_ed25519"
	install -d -m 0700 "$root/root/.ssh"
	install -m 0600 "$dir/id_ed25519.pub" "$root/root/.ssh/authorized_keys"
	rm -f -- "$root"/etc/ssh/ssh_host_*
	in_root "$root" ssh-keygen -A
	printf '%s %s\n' "$GUEST_NAME" "$(cut -d' ' -f1,2 "$root/etc/ssh/ssh_host_ed25519_key.pub")" \
		>"$dir/known_hosts"
}

# initrd_modules ROOT KVER - the .ko files to load, dependencies first, relative to the
# module tree; built-in ones are skipped. The guest's own modprobe resolves them (the host
# need not have kmod).
initrd_modules() {
	local root=$1 kver=$2 m
	for m in "${INITRD_MODULES[@]}"; do
		in_root "$root" modprobe --set-version="$kver" --show-depends "$m"
	done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' |
		sed "s|^/lib/modules/$kver/||; s|^/usr/lib/modules/$kver/||"
}

# /init of the initramfs (busybox sh): load the modules, mount the image's rootfs read-only
# over 9p with a tmpfs overlay on top, mount the repository share at its host path (given as
# devns.repo= on the kernel command line), then hand over to the guest's init. On failure it
# powers the guest off, so that vm.sh start fails at once with the console log.
initrd_init() {
	cat <<EOF
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
fail() { echo "devns-vm initramfs: \$*"; sleep 1; poweroff -f; }
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
while read -r m; do insmod "/lib/modules/\$m" || fail "insmod \$m"; done </modules.list
opts=trans=virtio,version=9p2000.L,msize=$MSIZE
mkdir -p /lower /rw /newroot
# The virtio disk may still be probing: retry for a moment.
i=0
until mount -t ext4 -o ro /dev/vda /lower; do
	i=\$((i + 1)); [ \$i -lt 50 ] || fail "cannot mount the root disk /dev/vda"; sleep 0.2
done
mount -t tmpfs -o mode=0755,size=75% tmpfs /rw
mkdir -p /rw/upper /rw/work
mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work overlay /newroot ||
	fail "cannot mount the overlay root"
for arg in \$(cat /proc/cmdline); do
	case \$arg in devns.repo=*) repo=\${arg#devns.repo=} ;; esac
done
if [ -n "\${repo:-}" ]; then
	# cache=mmap: the host changes these files while the guest runs; only mmap is cached.
	mkdir -p "/newroot\$repo"
	mount -t 9p -o "\$opts,cache=mmap" repo "/newroot\$repo" || fail "cannot mount the repo share"
fi
# Keep the layers reachable for inspection (df /mnt/devns-vm/rw shows what a run wrote).
mkdir -p /newroot/mnt/devns-vm/lower /newroot/mnt/devns-vm/rw
mount --move /lower /newroot/mnt/devns-vm/lower
mount --move /rw /newroot/mnt/devns-vm/rw
# busybox switch_root moves nothing itself.
mount --move /dev /newroot/dev
umount /proc /sys
exec switch_root /newroot /sbin/init
EOF
}

# Our own small initramfs (busybox-static and the needed modules from the guest's tree):
# Debian's initramfs-tools knows neither a 9p root nor an overlay on top of it.
build_initrd() {
	local dir=$1 root=$1/rootfs kver stage m
	kver=$(find "$root/lib/modules/" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort -V | tail -n 1)
	stage=$dir/initrd.d
	mkdir -p -- "$stage/bin" "$stage/proc" "$stage/sys" "$stage/dev" "$stage/lib/modules"
	cp -- "$root/bin/busybox" "$stage/bin/busybox"
	initrd_modules "$root" "$kver" >"$stage/modules.list"
	[[ -s $stage/modules.list ]] || die "no modules found for ${INITRD_MODULES[*]}"
	while read -r m; do
		install -D -m 0644 -- "$root/lib/modules/$kver/$m" "$stage/lib/modules/$m"
	done <"$stage/modules.list"
	initrd_init >"$stage/init"
	chmod 0755 "$stage/init"
	(cd "$stage" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 >"$dir/initrd.img"
	rm -rf -- "$stage"
	cp -- "$root/boot/vmlinuz-$kver" "$dir/vmlinuz"
	echo "$kver" >"$dir/kernel-version"
}

# The guest's Slurm must be the host's release (a plugin built against the host's headers is
# loaded by the guest's daemons, and Slurm refuses plugins of another release).
check_guest_slurm() {
	local root=$1 guest host
	guest=$(in_root "$root" slurmd -V | awk '{print $2}')
	[[ -n $guest ]] || die "slurmd -V gives nothing in the guest root"
	if command -v slurmd >/dev/null 2>&1; then
		host=$(slurmd -V | awk '{print $2}')
		[[ $guest == "$host" ]] || die "guest Slurm $guest differs from the host's $host"
	fi
	echo "$guest"
}

# make_root_image DIR - DIR/rootfs.img from DIR/rootfs: an ext4 file system holding the
# directory with its owners, modes, links, device nodes and extended attributes (file
# capabilities), sparse, with room to spare that nothing uses (the guest mounts it read-only
# under a tmpfs overlay). No journal and no reserved blocks: it is never written.
make_root_image() {
	local dir=$1 kib
	kib=$(du -sk --one-file-system -- "$dir/rootfs" | cut -f1)
	[[ $kib =~ ^[0-9]+$ ]] || return 1
	rm -f -- "$dir/$ROOT_IMAGE"
	truncate -s "$((kib * 5 / 4 + 262144))K" -- "$dir/$ROOT_IMAGE"
	mke2fs -q -F -t ext4 -O ^has_journal -m 0 -L devns-root -E root_owner=0:0 \
		-d "$dir/rootfs" -- "$dir/$ROOT_IMAGE"
}

# running_images - the image of every instance's running guest, one a line: another
# instance may run from an older image than the one just built.
running_images() {
	local st pid
	for st in "$STATE" /run/slurm-devns-vm /run/slurm-devns-vm-*; do
		read -r pid 2>/dev/null <"$st/qemu.pid" || continue
		[[ $pid =~ ^[0-9]+$ && $(cat "/proc/$pid/comm" 2>/dev/null) == qemu-system-x86 ]] || continue
		cat -- "$st/image" 2>/dev/null || true
	done
}

# Only the newest image is kept (each is about a GiB), but never one a guest runs from.
prune_images() {
	local keep=$1 running d
	running=$(running_images)
	for d in "$CACHE"/img-* "$CACHE"/.build-*; do
		[[ -d $d && $d != "$keep" ]] || continue
		grep -qxF -- "$d" <<<"$running" && continue
		[[ $d == */.build-* ]] && continue
		say "removing old image $d"
		rm -rf --one-file-system -- "$d"
	done
}

# build_image - print the image directory, building it first if the cache has none for the
# current recipe. Builds in a temporary directory, renamed into place only when complete.
build_image() {
	local dir tmp log t0=$SECONDS slurm
	dir=$(image_dir)
	if image_ready "$dir"; then
		printf '%s\n' "$dir"
		return 0
	fi
	is_root || die "building the image needs root"
	ensure_host_packages || die "cannot install the host packages: $(missing_host_packages | xargs)"
	mkdir -p -- "$CACHE"
	tmp=$CACHE/.build-${dir##*/img-}.$$
	log=$CACHE/build.log
	rm -rf --one-file-system -- "$tmp"
	mkdir -p -- "$tmp"
	trap 'rm -rf --one-file-system -- "$tmp"' EXIT
	say "building the guest image ${dir##*/} (log: $log)"
	# Not `( ... ) || die`: on the left of || bash ignores set -e in the subshell too, and a
	# failed step would go on to the next.
	local rc=0
	set +e
	(
		set -e
		debootstrap_rootfs "$tmp/rootfs"
		install_guest_packages "$tmp/rootfs"
		configure_guest "$tmp/rootfs"
		make_keys "$tmp"
		build_initrd "$tmp"
	) >"$log" 2>&1
	rc=$?
	set -e
	((rc == 0)) || die "image build failed; last lines of $log:$(printf '\n'; tail -n 15 "$log")"
	slurm=$(check_guest_slurm "$tmp/rootfs")
	make_root_image "$tmp" >>"$log" 2>&1 ||
		die "making the root file system image failed; last lines of $log:$(printf '\n'; tail -n 15 "$log")"
	# The directory is in the image now; it would only double the cache's size.
	rm -rf --one-file-system -- "$tmp/rootfs"
	recipe >"$tmp/recipe"
	printf 'built=%s\nseconds=%d\nkernel=%s\nslurm=%s\n' "$(date -u +%FT%TZ)" \
		$((SECONDS - t0)) "$(cat "$tmp/kernel-version")" "$slurm" >"$tmp/info"
	mv -- "$tmp" "$dir"
	trap - EXIT
	say "image built in $((SECONDS - t0))s: $dir"
	prune_images "$dir"
	printf '%s\n' "$dir"
}

# ---------------------------------------------------------------------------------------------
# The running guest
# ---------------------------------------------------------------------------------------------

# qemu_pid - the pid of our QEMU, if it runs (the comm check guards against a reused pid).
qemu_pid() {
	local pid
	read -r pid 2>/dev/null <"$STATE/qemu.pid" || return 1
	[[ $pid =~ ^[0-9]+$ && $(cat "/proc/$pid/comm" 2>/dev/null) == qemu-system-x86 ]] || return 1
	printf '%s\n' "$pid"
}

# The image a running guest was booted from (not necessarily the current recipe's).
running_image() { cat "$STATE/image"; }

ssh_opts() {
	local img
	img=$(running_image)
	printf '%s\n' -F /dev/null -o BatchMode=yes -o IdentitiesOnly=yes -i "$img/id_ed25519" \
		-o UserKnownHostsFile="$img/known_hosts" -o GlobalKnownHostsFile=/dev/null \
		-o StrictHostKeyChecking=yes -o HostKeyAlias="$GUEST_NAME" -o CheckHostIP=no \
		-o LogLevel=ERROR -o ConnectTimeout=20 -o ServerAliveInterval=15 \
		-o ServerAliveCountMax=8 -o ControlPath="$STATE/ssh.ctl" \
		-p "$(cat "$STATE/port")" -l root
}

# guest_ssh [SSH OPTION...] -- REMOTE COMMAND - through the master connection when it is up
# (ControlMaster=no still falls back to a connection of its own when it is not).
guest_ssh() {
	local opts=() extra=()
	mapfile -t opts < <(ssh_opts)
	while (($#)) && [[ $1 != -- ]]; do extra+=("$1"); shift; done
	shift
	ssh "${opts[@]}" -o ControlMaster=no "${extra[@]}" 127.0.0.1 "$@"
}

# The multiplexing master: a background ssh that holds one connection, so every later `run`
# opens only a channel. Its stdio goes to /dev/null: a master holding a caller's pipe would
# keep $(vm.sh run ...) waiting for EOF until it exits.
start_master() {
	local opts=()
	mapfile -t opts < <(ssh_opts)
	ssh "${opts[@]}" -o ControlMaster=yes -o ControlPersist=yes -f -N 127.0.0.1 \
		</dev/null >/dev/null 2>>"$STATE/ssh.log" 9>&-
}

stop_master() {
	[[ -S $STATE/ssh.ctl ]] || return 0
	local opts=()
	mapfile -t opts < <(ssh_opts)
	ssh "${opts[@]}" -O exit 127.0.0.1 >/dev/null 2>&1 || true
	rm -f -- "$STATE/ssh.ctl"
}

# A port on 127.0.0.1 nobody listens on (a connection attempt is refused).
pick_port() {
	local port
	for _ in {1..50}; do
		port=$((20000 + RANDOM % 40000))
		(: <>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return 0; }
	done
	return 1
}

kernel_cmdline() {
	# mitigations=off: the guest runs only our tests; speculation barriers only cost
	# emulated cycles. The cgroup setting is systemd 252's default, written out as it is
	# what the guest is for. panic=-1 with -no-reboot makes a crashed guest end QEMU.
	printf 'console=ttyS0 panic=-1 mitigations=off systemd.unified_cgroup_hierarchy=1 devns.repo=%s' \
		"$REPO"
}

# qemu_args IMAGE PORT - the whole machine. -nodefaults and no display: only the devices the
# guest uses are emulated. QEMU runs as root, so security_model=passthrough keeps the real
# owners and modes on both shares; the rootfs share is read-only on QEMU's side too.
qemu_args() {
	local img=$1 port=$2
	printf '%s\n' -name "$QEMU_NAME" -accel tcg -cpu max -smp "$SMP" -m "$MEM" \
		-nodefaults -no-user-config -display none -vga none -no-reboot \
		-chardev "file,id=con,path=$CONSOLE_LOG" -serial chardev:con \
		-kernel "$img/vmlinuz" -initrd "$img/initrd.img" -append "$(kernel_cmdline)" \
		-drive "file=$img/$ROOT_IMAGE,format=raw,if=none,id=root,readonly=on" \
		-device virtio-blk-pci,drive=root \
		-fsdev "local,id=repo,path=$REPO,security_model=passthrough,multidevs=remap" \
		-device virtio-9p-pci,fsdev=repo,mount_tag=repo \
		$(share_args) \
		-netdev "user,id=net0,hostfwd=tcp:127.0.0.1:$port-:22" \
		-device virtio-net-pci,netdev=net0 \
		-device virtio-rng-pci \
		-daemonize -pidfile "$STATE/qemu.pid"
}

# share_args - the QEMU options of host_shares (read-only on QEMU's side too), one per line;
# their tags are host0, host1, ... in the order of $STATE/shares.
share_args() {
	local i=0 kind dir
	while read -r kind dir; do
		printf '%s\n' -fsdev "local,id=host$i,path=$dir,security_model=passthrough,readonly=on" \
			-device "virtio-9p-pci,fsdev=host$i,mount_tag=host$i"
		i=$((i + 1))
	done <"$STATE/shares"
}

# mount_shares - in the booted guest, each host share at its host path.
# A "share" is mounted read-only with cache=mmap, as the repository: the host rebuilds there
# while the guest runs. A "copy" (the Slurm prefix) is copied once into a tmpfs at its path:
# with cache=mmap 9p keeps no page cache once a file is closed, so every client command
# would read Slurm's library and its plugins anew from the host, under emulation; the copy
# also takes the plugins built on the host (testsuite/cluster installs them at start), so
# the host's PluginDir is never written for the guest.
mount_shares() {
	local i=0 kind dir q stage
	while read -r kind dir; do
		q=$(printf '%q' "$dir") stage=/mnt/devns-vm/host$i
		case $kind in
		copy)
			guest_ssh -- "mkdir -p $stage $q &&
				mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=$MSIZE,cache=loose host$i $stage &&
				mount -t tmpfs -o mode=0755 tmpfs $q && cp -a $stage/. $q/ && umount $stage && rmdir $stage" ||
				boot_failed "cannot copy the host's $dir into the guest"
			;;
		*)
			guest_ssh -- "mkdir -p $q &&
				mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=$MSIZE,cache=mmap host$i $q" ||
				boot_failed "cannot mount the host's $dir in the guest"
			;;
		esac
		i=$((i + 1))
	done <"$STATE/shares"
}

# launch IMAGE - start QEMU in the background (it daemonizes once the machine is set up, so
# a bad option or a taken port fails here, with its message in qemu.log).
launch() {
	local img=$1 port args=()
	for _ in 1 2 3; do
		port=$(pick_port) || return 1
		echo "$port" >"$STATE/port"
		mapfile -t args < <(qemu_args "$img" "$port")
		: >"$CONSOLE_LOG"
		if nice -n "$NICE" "$QEMU" "${args[@]}" </dev/null >"$STATE/qemu.log" 2>&1 9>&-; then
			return 0
		fi
		# Most likely the port was taken between the check and QEMU's bind: another port.
		grep -q 'host forwarding' "$STATE/qemu.log" || return 1
	done
	return 1
}

# boot_failed MESSAGE - show why, take the half-booted guest down, fail.
boot_failed() {
	say "error: $1"
	if [[ -s $CONSOLE_LOG ]]; then
		say "---- last lines of $CONSOLE_LOG ----"
		tail -n 30 -- "$CONSOLE_LOG" >&2
	else
		say "the console log $CONSOLE_LOG is empty"
	fi
	kill_qemu
	exit 1
}

# wait_ready - until the guest has said it is ready on the console and the ssh master
# connection is up; bounded, and given up early when QEMU dies.
wait_ready() {
	local deadline=$((SECONDS + BOOT_TIMEOUT))
	while :; do
		qemu_pid >/dev/null || boot_failed "QEMU exited during boot"
		if grep -qF "$READY_MARK" "$CONSOLE_LOG" 2>/dev/null && start_master; then
			return 0
		fi
		((SECONDS < deadline)) || boot_failed "the guest was not ready within ${BOOT_TIMEOUT}s"
		sleep 0.5
	done
}

kill_qemu() {
	local pid
	stop_master
	pid=$(qemu_pid) || { rm -f -- "$STATE/qemu.pid"; return 0; }
	kill -TERM "$pid" 2>/dev/null || true
	if ! wait_pid_gone 10 "$pid"; then
		kill -KILL "$pid" 2>/dev/null || true
		wait_pid_gone 5 "$pid" || say "warning: QEMU (pid $pid) survived SIGKILL"
	fi
	rm -f -- "$STATE/qemu.pid"
}

# ---------------------------------------------------------------------------------------------
# Subcommands
# ---------------------------------------------------------------------------------------------

cmd_image() {
	is_root || skip_guest "building the guest image needs root"
	take_image_lock
	build_image
}

cmd_start() {
	local img shares t0=$SECONDS
	is_root || skip_guest "the guest needs root (9p passthrough keeps real owners)"
	[[ $REPO != *[[:space:]]* ]] || skip_guest "repository path '$REPO' has blanks (kernel command line)"
	ensure_host_packages || skip_guest "cannot install $(missing_host_packages | xargs) from Debian's archive"
	# In a process of its own: called under ||, bash would ignore set -e in every step of
	# the build. It takes the image lock itself, before ours and without it.
	img=$("$SELF" image) || skip_guest "no guest image can be built here (see $CACHE/build.log)"
	take_lock
	shares=$(host_shares)
	if qemu_pid >/dev/null; then
		if [[ $shares != "$(cat "$STATE/shares" 2>/dev/null)" ]]; then
			say "the guest runs with other host shares; restarting it"
			kill_qemu
		elif guest_ssh -- true 2>/dev/null; then
			say "already running"
			return 0
		else
			say "a guest runs but does not answer; stopping it first"
			kill_qemu
		fi
	fi

	mkdir -p -- "$STATE"
	rm -f -- "$STATE/ssh.ctl" "$STATE/ssh.log"
	echo "$img" >"$STATE/image"
	printf '%s' "$shares${shares:+$'\n'}" >"$STATE/shares"
	launch "$img" || skip_guest "QEMU does not start: $(tail -n 1 "$STATE/qemu.log" 2>/dev/null)"
	wait_ready
	mount_shares
	say "ready in $((SECONDS - t0))s (ssh 127.0.0.1:$(cat "$STATE/port"), console $CONSOLE_LOG)"
}

cmd_run() {
	[[ ${1:-} == -- ]] && shift
	(($#)) || die "usage: $PROG run CMD [ARG...]"
	qemu_pid >/dev/null || die "the guest is not running ('$PROG start')"
	# argv semantics: each argument arrives as one word. In the repository the command runs
	# in the same directory as here; elsewhere in /.
	local cwd=/ tty=-T
	case $PWD/ in "$REPO"/*) cwd=$PWD ;; esac
	[[ -t 0 && -t 1 ]] && tty=-t
	guest_ssh "$tty" -- "cd $(printf '%q' "$cwd") && exec $(printf '%q ' "$@")"
}

cmd_stop() {
	local pid
	take_lock
	if ! pid=$(qemu_pid); then
		stop_master
		rm -f -- "$STATE/qemu.pid"
		say "not running"
		return 0
	fi
	# An orderly poweroff first (the repository share is written through, but daemons in
	# the guest get their SIGTERM); QEMU exits on the guest's ACPI power-off.
	guest_ssh -- systemctl poweroff >/dev/null 2>&1 || true
	stop_master
	if wait_pid_gone "$STOP_TIMEOUT" "$pid"; then
		rm -f -- "$STATE/qemu.pid"
		say "stopped"
		return 0
	fi
	say "warning: the guest did not power off within ${STOP_TIMEOUT}s; killing QEMU"
	kill_qemu
}

cmd_status() {
	local pid
	if ! pid=$(qemu_pid); then
		echo "stopped"
		echo "image:   $(image_dir)$(image_ready "$(image_dir)" || echo ' (not built)')"
		return 3
	fi
	echo "running: pid $pid, ssh 127.0.0.1:$(cat "$STATE/port"), up $(($(date +%s) - $(stat -c %Y "$STATE/qemu.pid")))s"
	echo "image:   $(running_image)"
	echo "repo:    $REPO (same path in the guest)"
	echo "console: $CONSOLE_LOG"
	if ! guest_ssh -- true 2>/dev/null; then
		echo "ssh:     not answering"
		return 1
	fi
}

usage() {
	cat <<EOF
usage: $PROG COMMAND [ARGS]

  image        build the guest image, or reuse the cached one; prints its directory
  start        boot the guest in the background, wait until it answers (exit 77: cannot here)
  run CMD...   run CMD as root in the guest; stdout, stderr and exit status are CMD's
  stop         power the guest off (QEMU is killed after ${STOP_TIMEOUT}s)
  status       exit 0 running, 1 running but not answering, 3 stopped

cache: $CACHE   state: $STATE   repository shared at: $REPO
DEVNS_VM_INSTANCE=N (1 to 99, now $INSTANCE): another guest beside the first, with its own
state, lock and ssh port; the image is shared
EOF
}

main() {
	local cmd=${1:-}
	(($#)) && shift
	case $cmd in
	image) cmd_image "$@" ;;
	start) cmd_start "$@" ;;
	run) cmd_run "$@" ;;
	stop) cmd_stop "$@" ;;
	status) cmd_status "$@" ;;
	-h | --help | help) usage ;;
	*) usage >&2; exit 2 ;;
	esac
}

main "$@"
