#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_modgraph.sh - no include cycle in src/lib: between modules (a
# foo.c/foo.h with its foo_*.c and foo_int.h; a .c without a header, which
# nothing can include, is a module of its own)
# and between the libraries (the folders).  Reads the sources, builds
# nothing.  With -v, or when a check fails, prints the pairs that reach
# each other.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
lib=$here/../../src/lib
# shellcheck source=../tap.sh
. "$here/../tap.sh"

plan 3

# "FILE MODULE" per source file, then "FROM TO" per include of another
# module's header: the module graph's edges.
edges() {
	local f d b m inc
	for f in "$lib"/*/*.[ch]; do
		d=$(basename "$(dirname "$f")") b=$(basename "$f") b=${b%.?}
		b=${b%_int}
		# mntns_child.c is mntns's; nodeload.c, with no header,
		# no one can include, so it is a module of its own
		[ ! -f "$lib/$d/$b.h" ] && [ -f "$lib/$d/${b%%_*}.h" ] &&
			b=${b%%_*}
		m=$d/$b
		grep -o '^#include "[a-z0-9_]*/[a-z0-9_]*\.h"' "$f" |
		sed 's/^#include "\(.*\)\.h"$/\1/' | while read -r inc; do
			inc=${inc%_int}
			[ -f "$lib/$inc.h" ] || [ -f "$lib/${inc}_int.h" ] || continue
			[ "$inc" != "$m" ] && echo "$m $inc"
		done
	done | sort -u
}

# The pairs "A B" (A < B) of nodes that reach each other along the edges
# on stdin: a cycle's members, none when the graph has no cycle.
mutual() {
	awk '
	{ id($1); id($2); r[$1, $2] = 1 }
	function id(x) { if (!(x in seen)) { seen[x] = 1; v[n++] = x } }
	END {
		for (k = 0; k < n; k++)
			for (i = 0; i < n; i++)
				if (r[v[i], v[k]])
					for (j = 0; j < n; j++)
						if (r[v[k], v[j]])
							r[v[i], v[j]] = 1
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++)
				if (v[i] < v[j] && r[v[i], v[j]] && r[v[j], v[i]])
					print v[i], v[j]
	}'
}

graph=$(edges)
[ -n "$graph" ]
ok $? "precondition: the modules include each other ($(echo "$graph" | wc -l) edges)" || { done_testing; exit; }

# The precondition of the cycle finder: a planted cycle is found.
is "$(printf 'a b\nb c\nc a\nc d\n' | mutual | tr '\n' ';')" "a b;a c;b c;" \
	"the cycle finder finds a planted cycle a -> b -> c -> a, not d"

pairs=$(echo "$graph" | mutual)
folders=$(echo "$graph" | awk '{ split($1, a, "/"); split($2, b, "/");
	if (a[1] != b[1]) print a[1], b[1] }' | sort -u | mutual)
is "$pairs${folders:+; folders: $folders}" "" \
	"no include cycle between modules or libraries"
if [ "${1:-}" = -v ] || [ -n "$pairs$folders" ]; then
	echo "$pairs" | diag
	echo "$graph" | awk '{ split($1, a, "/"); split($2, b, "/");
		if (a[1] != b[1]) print a[1], "->", b[1] }' | sort -u | diag
fi
done_testing
