#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# package.sh - build, install, check and remove the Debian package (debian/).
# testsuite/run-tests.sh runs the 22.05 integration suite between install
# and remove, so that it tests the installed package's files.
#
#   testsuite/package.sh build DIR    copy of the tree (a temporary folder),
#                                     dpkg-source -b, dpkg-buildpackage -b,
#                                     lintian; the results go to DIR
#   testsuite/package.sh install DIR  keep what dpkg would overwrite, dpkg -i,
#                                     then check the installed files
#   testsuite/package.sh remove DIR   dpkg -P, check that nothing is left, put
#                                     back what install kept
#
# Each verb prints TAP and exits non-zero when a check failed.  DIR holds
# the logs, the packages and the files install kept.
#
# Environment: DEVNS_BUILD (default TOP/build), a build of this tree for the
# installed Slurm (scripts/build.sh --no-install): the package must hold
# everything its `make install` installs, and its helpers load the plugins.
# DEB_BUILD_OPTIONS reaches dpkg-buildpackage with werror added (CI builds
# with -Werror; nocheck skips the unit tests, root-tests runs those that
# need root too, see debian/rules).
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
PKG=slurm-devns
: "${DEVNS_BUILD:=$TOP/build}"

# shellcheck source=testsuite/tap.sh
source "$TOP/testsuite/tap.sh"
die() { echo "package.sh: $*" >&2; exit 2; }

# The Debian version of the installed Slurm (slurmd's, else slurmctld's).
slurm_pkg_version() {
	local p
	for p in slurmd slurmctld; do
		dpkg-query -W -f='${db:Status-Status} ${Version}\n' "$p" 2>/dev/null
	done | sed -n 's/^installed //p' | head -n1
}

# Slurm's PluginDir: where Debian's own plugins are.
slurm_plugindir() {
	dirname "$(dpkg -L slurm-wlm-basic-plugins | grep -m1 '/job_container_tmpfs\.so$')"
}

# copy_tree DEST: the files of a clean checkout (tracked and untracked ones
# that git does not ignore), or, outside git, the tree less build outputs.
copy_tree() {
	local dest=$1
	mkdir -p "$dest"
	if git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$TOP" ls-files -z --cached --others --exclude-standard |
			while IFS= read -r -d '' f; do
				[ -e "$TOP/$f" ] && printf '%s\0' "$f"
			done | (cd "$TOP" && cpio -0pdm --quiet "$dest")
	else
		tar -C "$TOP" --exclude=./build --exclude='./build-*' \
			--exclude=./test-results -cf - . | tar -C "$dest" -xf -
	fi
}

# The binary package's version: the source's, then the Debian version of
# the installed Slurm (epoch dropped, '-' as '.'), as debian/rules makes it.
binary_version() {
	local sv
	sv=$(slurm_pkg_version)
	sv=${sv#*:}
	echo "$1+slurm${sv//-/.}"
}

do_build() {
	local dir=$1 tmp version bversion arch src deb skipped
	rm -rf "$dir"
	mkdir -p "$dir"
	version=$(dpkg-parsechangelog -l "$TOP/debian/changelog" -SVersion)
	bversion=$(binary_version "$version")
	arch=$(dpkg --print-architecture)
	tmp=$(mktemp -d /var/tmp/slurm-devns-deb.XXXXXX)
	src=$tmp/$PKG-$version
	copy_tree "$src"
	# The source package first, from the clean copy (for lintian).
	(cd "$tmp" && dpkg-source -b "$PKG-$version") >"$dir/source.log" 2>&1
	ok $? "dpkg-source -b" || tail -20 "$dir/source.log" | diag
	(cd "$src" && DEB_BUILD_OPTIONS="werror ${DEB_BUILD_OPTIONS:-}" \
		dpkg-buildpackage -b -uc -us -j"$(nproc)") >"$dir/build.log" 2>&1
	ok $? "dpkg-buildpackage -b with DEB_BUILD_OPTIONS=werror (make check included unless nocheck)" ||
		{ grep -E -A12 '^(not ok|FAIL:|ERROR:)' "$dir/build.log" | head -60
		  tail -20 "$dir/build.log"; } | diag
	grep -q '^# TOTAL:' "$dir/build.log" &&
		grep -E '^# (TOTAL|PASS|FAIL|SKIP|ERROR):' "$dir/build.log" |
		sed 's/^# //' | paste -sd' ' | sed 's/^/make check: /' | diag
	# configure's warning flags (the hardening flags' -Werror=format-security
	# is there either way).
	grep -q -- ' -Wall -Wextra -Werror ' "$dir/build.log"
	ok $? "the compiler ran with -Werror (configure --enable-werror)" || true
	# Run as root, the build skips the unit tests that need root (they
	# would mount and load BPF programs on the build host) unless asked.
	if [[ " ${DEB_BUILD_OPTIONS:-} " == *" nocheck "* ]]; then
		skip "DEB_BUILD_OPTIONS=nocheck: no unit test ran"
	elif [[ " ${DEB_BUILD_OPTIONS:-} " == *" root-tests "* ]]; then
		skip "DEB_BUILD_OPTIONS=root-tests: the tests that need root ran"
	else
		skipped=$(sed -n 's/^# SKIP: *//p' "$dir/build.log" | tail -n1)
		grep -q 'DEVNS_TEST_ROOT=0 dh_auto_test' "$dir/build.log" &&
			[ "${skipped:-0}" -gt 0 ]
		ok $? "make check ran with DEVNS_TEST_ROOT=0: ${skipped:-no} checks that need root skipped"
	fi
	cp "$tmp"/*.deb "$tmp"/*.changes "$tmp"/*.buildinfo "$tmp"/*.dsc \
		"$tmp"/*.tar.* "$dir"/ 2>/dev/null
	rm -rf "$tmp"
	deb=$dir/${PKG}_${bversion}_$arch.deb
	[ -f "$deb" ]
	ok $? "the package's version names the installed Slurm: $(basename "$deb")" ||
		{ ls "$dir" | diag; done_testing; return; }
	dpkg-deb -I "$deb" | sed -n 's/^ Depends: /Depends: /p' | diag

	if command -v lintian >/dev/null; then
		(cd "$dir" && lintian --fail-on error,warning -I --pedantic \
			"${PKG}_${version}_$arch.changes" ${PKG}_"$version".dsc) \
			>"$dir/lintian.log" 2>&1
		ok $? "lintian: no error or warning" || true
		grep -v 'running with root privileges' "$dir/lintian.log" | diag
	else
		skip "lintian is not installed (scripts/deps.sh --test installs it)"
	fi
	done_testing
}

do_install() {
	local dir=$1 deb f status sv up next deps pdir so out want type n missing want_sym owner re
	local -a plugins mans progs
	deb=
	for f in "$dir/${PKG}"_*.deb; do
		[ -f "$f" ] && deb=$f
	done
	[ -n "$deb" ] || { ok 1 "a package was built"; done_testing; return; }

	# Files of an earlier `make install` (no package owns them) are
	# replaced by dpkg and removed by dpkg -P: keep them to put back.  A
	# file another package owns would make dpkg -i fail.
	rm -rf "$dir/saved" "$dir/saved.list"
	mkdir -p "$dir/saved"
	: >"$dir/saved.list"
	: >"$dir/conflicts.list"
	dpkg-deb --fsys-tarfile "$deb" | tar -t | sed -n 's|^\./|/|p' |
		while IFS= read -r f; do
			if [ ! -f "$f" ] || [ -L "$f" ]; then continue; fi
			if owner=$(dpkg -S "$f" 2>/dev/null); then
				[[ $owner == "$PKG:"* ]] || echo "$owner" >>"$dir/conflicts.list"
				continue
			fi
			mkdir -p "$dir/saved$(dirname "$f")"
			cp -a "$f" "$dir/saved$f" && echo "$f" >>"$dir/saved.list"
		done
	[ ! -s "$dir/conflicts.list" ]
	ok $? "no file of the package belongs to another package" || diag <"$dir/conflicts.list"
	[ -s "$dir/saved.list" ] &&
		echo "kept, to put back after removal: $(tr '\n' ' ' <"$dir/saved.list")" | diag

	# Its dependencies are the installed Slurm's and libc, all from
	# this machine's archive; apt-get -f only where dpkg lacked one.
	dpkg -i "$deb" >"$dir/install.log" 2>&1 ||
		apt-get install -f -y -q --no-install-recommends >>"$dir/install.log" 2>&1
	status=$(dpkg-query -W -f='${db:Status-Status}' "$PKG" 2>/dev/null)
	[ "$status" = installed ]
	ok $? "dpkg -i $(basename "$deb")" || { tail -20 "$dir/install.log" | diag; done_testing; return; }
	dpkg -L "$PKG" >"$dir/files.list"

	sv=$(slurm_pkg_version)
	[ "$(dpkg-query -W -f='${Version}' "$PKG")" = "$(binary_version "$(dpkg-parsechangelog -l "$TOP/debian/changelog" -SVersion)")" ]
	ok $? "its version names the installed Slurm $sv"
	# The installed upstream release, any Debian revision of it.
	up=${sv#*:}
	up=${up%-*}
	next=${up%.*}.$((${up##*.} + 1))~~
	deps=$(dpkg-query -W -f='${Depends}' "$PKG")
	[[ $deps == *"slurm-wlm-basic-plugins (>= $up), slurm-wlm-basic-plugins (<< $next)"* &&
	   $deps == *"slurmd (>= $up) | slurmctld (>= $up)"* ]]
	ok $? "Depends holds Slurm to the installed release $up (>= $up, << $next)" || echo "Depends: $deps" | diag

	pdir=$(slurm_plugindir)
	grep '/security/pam_[^/]*\.so$' "$dir/files.list" >"$dir/pam.list"
	grep '\.so$' "$dir/files.list" | grep -vxFf "$dir/pam.list" >"$dir/plugins.list"
	n=$(wc -l <"$dir/plugins.list")
	[ "$n" -gt 0 ] && ! grep -qv "^$pdir/[^/]*\.so$" "$dir/plugins.list"
	ok $? "its $n plugins are in Slurm's PluginDir $pdir" || diag <"$dir/plugins.list"
	grep -qx '/\(usr/\)\?lib/[^/]*/security/pam_devns\.so' "$dir/pam.list" &&
		nm -D --defined-only "$(cat "$dir/pam.list")" | grep -q ' pam_sm_acct_mgmt$'
	ok $? "pam_devns.so is in PAM's module directory and exports pam_sm_acct_mgmt" ||
		diag <"$dir/pam.list"

	# Each plugin loads as the daemons load it, and is of their release.
	want=$(/usr/sbin/slurmd -V 2>/dev/null || /usr/sbin/slurmctld -V)
	want=${want#* }
	mapfile -t plugins <"$dir/plugins.list"
	for so in "${plugins[@]}"; do
		if [ ! -x "$DEVNS_BUILD/testsuite/integration/helpers/plugin_load" ]; then
			skip "$(basename "$so"): no plugin_load helper in $DEVNS_BUILD"
			continue
		fi
		out=$("$DEVNS_BUILD/testsuite/integration/helpers/plugin_load" \
			"$pdir/libslurmfull.so" "$so" 2>&1)
		type=${out% *}
		[ "${out##* }" = "$want" ]
		ok $? "$(basename "$so") loads with Slurm's libslurmfull: $type, release $want" ||
			echo "$out" | diag
		# SPANK plugins have hooks where the others have init and fini.
		case $type in
		job_container/*) hooks="init fini" want_sym=container_p_ ;;
		namespace/*) hooks="init fini" want_sym=namespace_p_ ;;
		mcs/*) hooks="init fini" want_sym=mcs_p_ ;;
		spank) hooks="spank_plugin_version" want_sym=slurm_spank_ ;;
		*) hooks="init fini" want_sym= ;;
		esac
		missing=
		nm -D --defined-only "$so" | awk '{print $3}' >"$dir/symbols.list"
		for f in plugin_name plugin_type plugin_version $hooks; do
			grep -qx "$f" "$dir/symbols.list" || missing+=" $f"
		done
		[ -z "$want_sym" ] || grep -q "^$want_sym" "$dir/symbols.list" ||
			missing+=" $want_sym*"
		[ -z "$missing" ]
		ok $? "$(basename "$so") exports plugin_name, plugin_type, plugin_version, ${hooks// /, }${want_sym:+, ${want_sym}*}" ||
			echo "missing:$missing" | diag
	done

	# Everything `make install` installs is in the package (by name; man
	# pages compressed, perhaps with a suffix to their section, as
	# namespace.conf.5slurm; libtool archives left out).
	if [ -f "$DEVNS_BUILD/Makefile" ]; then
		rm -rf "$dir/destdir"
		make -s -C "$DEVNS_BUILD" install DESTDIR="$dir/destdir" >"$dir/make-install.log" 2>&1
		missing=$(cd "$dir/destdir" && find . -type f ! -name '*.la' | while read -r f; do
			re="/$(basename "$f" | sed 's/[.[\*^$]/\\&/g')"
			case $f in */man/man*) re+='[a-z]*' ;; esac
			grep -qE "$re(\.gz)?\$" "$dir/files.list" || echo "$f"
		done)
		n=$(find "$dir/destdir" -type f ! -name '*.la' | wc -l)
		[ "$n" -gt 0 ] && [ -z "$missing" ]
		ok $? "the package holds all $n files make install installs" ||
			{ echo "not in the package:"; echo "$missing"; } | diag
		rm -rf "$dir/destdir"
	else
		skip "no build in $DEVNS_BUILD to compare make install with"
	fi

	mapfile -t mans < <(grep '^/usr/share/man/man./.*\.gz$' "$dir/files.list")
	for f in "${mans[@]}"; do
		n=$(basename "$f" .gz)
		man -w -a "${n##*.}" "${n%.*}" 2>/dev/null | grep -qx "$f"
		ok $? "man ${n##*.} ${n%.*} finds $f"
	done

	missing=
	for f in "$TOP"/etc/*.example; do
		cmp -s "$f" "/usr/share/doc/$PKG/examples/$(basename "$f")" ||
			missing+=" $(basename "$f")"
	done
	[ -z "$missing" ]
	ok $? "/usr/share/doc/$PKG/examples holds etc/*.example" || echo "missing:$missing" | diag

	mapfile -t progs < <(grep -E '^/usr/s?bin/[^/]+$' "$dir/files.list")
	for f in "${progs[@]}"; do
		[ -x "$f" ] && "$f" --help >"$dir/$(basename "$f")-help.log" 2>&1
		ok $? "$f --help runs" || tail -5 "$dir/$(basename "$f")-help.log" | diag
	done
	done_testing
}

# restored DIR: every file install kept is in place again.
restored() {
	local f
	while IFS= read -r f; do
		cmp -s "$1/saved$f" "$f" || return 1
	done <"$1/saved.list"
}

do_remove() {
	local dir=$1 left f
	if dpkg-query -W -f='${db:Status-Status}' "$PKG" 2>/dev/null | grep -qv '^not-installed$'; then
		dpkg -P "$PKG" >"$dir/remove.log" 2>&1
		ok $? "dpkg -P $PKG" || tail -10 "$dir/remove.log" | diag
		left=
		[ -f "$dir/files.list" ] && while IFS= read -r f; do
			[ -d "$f" ] || [ ! -e "$f" ] || left+=" $f"
		done <"$dir/files.list"
		[ -z "$left" ]
		ok $? "no file of the package is left" || echo "left:$left" | diag
	else
		skip "$PKG is not installed"
	fi
	if [ -s "$dir/saved.list" ]; then
		# File by file: a tree copied onto / would meet /lib, a link on a
		# merged /usr, where the saved tree has a directory.
		while IFS= read -r f; do
			mkdir -p "$(dirname "$f")" && cp -a "$dir/saved$f" "$f" || break
		done <"$dir/saved.list"
		restored "$dir"
		ok $? "the $(wc -l <"$dir/saved.list") files install replaced are back"
	fi
	done_testing
}

# Sourced (testsuite/package-smd.sh) it only defines its functions.
[ "${BASH_SOURCE[0]}" = "$0" ] || return 0

[ $# -eq 2 ] || die "usage: package.sh build|install|remove DIR"
[ "$(id -u)" -eq 0 ] || die "must run as root (dpkg -i)"
dir=$(realpath -m -- "$2")
case $1 in
build) do_build "$dir" ;;
install) do_install "$dir" ;;
remove) do_remove "$dir" ;;
*) die "unknown verb $1" ;;
esac
