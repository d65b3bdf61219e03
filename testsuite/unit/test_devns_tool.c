/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "tap.h"
int main(void) { return tap_done(); }
