# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# lib/root.sh - the cluster root directory (DEVNS_CLUSTER_ROOT): its layout, the fake device
# nodes in it, and its removal. `stop` deletes the root recursively, so everything here is
# careful to touch only a root that is ours (the MARKER file). Sourced by cluster.sh.

# Refuse roots that would be dangerous to remove recursively.
check_root_path() {
	case $ROOT in
	/ | /bin | /boot | /dev | /etc | /home | /lib* | /opt | /proc | /root | /run | /sbin | /srv | \
		/sys | /tmp | /usr | /usr/* | /var | /var/tmp | /var/lib | /var/log)
		die "refusing cluster root '$ROOT'"
		;;
	esac
}

# make_layout - the directories of README.md's "Layout under the root", and the MARKER that
# makes the root removable by `stop`.
make_layout() {
	if [[ -e $ROOT && ! -e $MARKER ]] && [[ -n $(ls -A -- "$ROOT" 2>/dev/null) ]]; then
		die "$ROOT exists, is not empty and is not a devns cluster root; refusing to use it"
	fi
	mkdir -p -- "$ROOT"
	chmod 0755 "$ROOT"
	: >"$MARKER"
	mkdir -p -- "$ETC" "$LOG" "$SPOOL" "$RUN" "$BASE/default" "$DEV" "$WORK"
	mkdir -p -- "$STATE"
	chmod 0700 "$STATE"
	local n
	for n in "${NODES[@]}"; do mkdir -p -- "$BASE/$n" "$SPOOL/$n"; done

	# munged runs as user munge and checks that its directories are owned by it (or root) and
	# not writable by others; clients of every user must be able to reach the socket.
	mkdir -p -- "$MUNGE_DIR"
	chown munge:munge "$MUNGE_DIR"
	chmod 0755 "$MUNGE_DIR"
}

# Fake GPUs: character devices with the NVIDIA major. Nothing backs them (open gives ENXIO),
# which is enough for device-filter tests: a denied open fails with EPERM instead. Fake nics
# likewise: nicN and nicN-ctl (minors 2N and 2N+1) are nic index N.
make_fake_gpus() {
	local i
	for ((i = 0; i < GPUS_PER_NODE; i++)); do
		[[ -c $DEV/nvidia$i ]] || mknod -m 0666 "$DEV/nvidia$i" c "$GPU_MAJOR" "$i"
	done
	for ((i = 0; i < NICS_PER_NODE; i++)); do
		[[ -c $DEV/nic$i ]] || mknod -m 0666 "$DEV/nic$i" c "$NIC_MAJOR" $((2 * i))
		[[ -c $DEV/nic$i-ctl ]] || mknod -m 0666 "$DEV/nic$i-ctl" c "$NIC_MAJOR" $((2 * i + 1))
	done
}

# write_imex_devices: IMEX_DEVICES, the host's /proc/devices with the IMEX channels' major
# among its character devices (DEVNS_IMEX_NODES' slurmd see it as theirs).
write_imex_devices() {
	awk -v m="$IMEX_MAJOR" '{ print } /^Character devices:/ { printf "%3d nvidia-caps-imex-channels\n", m }' \
		/proc/devices >"$IMEX_DEVICES"
}

# Mounts under the root (BasePath bind mounts, pinned job namespaces) that a killed daemon
# could not remove. Deepest first; lazily if a mount is still busy.
umount_leftovers() {
	local target
	findmnt -rn -o TARGET | awk -v r="$ROOT" 'index($0, r "/") == 1 || $0 == r' |
		awk '{print length, $0}' | sort -rn | cut -d' ' -f2- |
		while IFS= read -r target; do
			# findmnt -r escapes blanks etc. as \xNN
			target=$(printf '%b' "$target")
			umount -- "$target" 2>/dev/null || umount -l -- "$target" ||
				say "warning: could not unmount $target"
		done
}

# remove_root - delete the root, unless it is a non-empty directory without our MARKER.
remove_root() {
	[[ -e $ROOT ]] || return 0
	if [[ ! -e $MARKER ]] && [[ -n $(ls -A -- "$ROOT" 2>/dev/null) ]]; then
		say "warning: $ROOT is not a devns cluster root (no $(basename "$MARKER")); not removing it"
		return 0
	fi
	# --one-file-system: never descend into anything still mounted below the root.
	rm -rf --one-file-system -- "$ROOT"
}
