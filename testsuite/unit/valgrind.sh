#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs one unit test under valgrind (make check LOG_COMPILER=...): any memory
# error or definite leak fails the test with status 99.
exec valgrind -q --error-exitcode=99 --leak-check=full \
	--errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
	"$@"
