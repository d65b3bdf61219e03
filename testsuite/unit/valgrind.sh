#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs one unit test under valgrind (make check LOG_COMPILER=...): any memory
# error or definite leak fails the test with status 99.  Tests that run a
# program of ours (test_devns_tool runs devns) run it through this script
# too, named in DEVNS_TOOL_WRAPPER.
DEVNS_TOOL_WRAPPER=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
export DEVNS_TOOL_WRAPPER
exec valgrind -q --error-exitcode=99 --leak-check=full \
	--errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
	"$@"
