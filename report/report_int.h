/* SPDX-License-Identifier: GPL-3.0-or-later */
/* report/report_int.h: what the report's files share (not public). */
#ifndef REPORT_INT_H
#define REPORT_INT_H

#include <stddef.h>

#include "common/cp.h"

/* A number as people read it in a report: 0 below 0.005 in magnitude
 * (the rounding of a margin is not a value: "3.55e-15 sd" says nothing),
 * three significant digits below 1000, whole numbers below 10^6, then
 * three significant digits with an exponent.  NAN and infinities as
 * "undefined", "inf", "-inf". */
void report_number_str(char *out, size_t n, double v);
void report_number(struct cp_buf *b, double v);

#endif
