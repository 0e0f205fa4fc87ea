/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_sa_plain.c: tests/unit/test_sa.c on hw/sim/sa.h's plain
 * C code, which hosts without SSE2 run. */
#define SA_PLAIN 1
#define SA_TEST_NAME "test_sa_plain"
#include "tests/unit/test_sa.c"
