/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * testrep.h - one struct report per test program: fresh() empties it and
 * hands it to the call under test, rep.msg is what that call reported.
 */
#ifndef DEVNS_TESTREP_H
#define DEVNS_TESTREP_H

#include "util/report.h"

static struct report rep;

static inline struct report *fresh(void)
{
	report_init(&rep, NULL, NULL);
	return &rep;
}

#endif /* DEVNS_TESTREP_H */
