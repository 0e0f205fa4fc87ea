/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_evname.c: a dataset's event (as perf printed it)
 * against a model's name for it (hec_event_name_matches), and the length
 * without perf's modifiers (hec_event_name_base). */
#include "hw/hec.h"
#include "tests/unit/check.h"

static void test_matches(void)
{
	static const struct { const char *name, *want; int same; } c[] = {
		{ "DTLB_LOAD_MISSES.WALK_COMPLETED", "DTLB_LOAD_MISSES.WALK_COMPLETED", 1 },
		{ "dtlb_load_misses.walk_completed", "DTLB_LOAD_MISSES.WALK_COMPLETED", 1 },
		{ "dtlb_load_misses.walk_completed:u", "DTLB_LOAD_MISSES.WALK_COMPLETED", 1 },
		{ "dtlb_load_misses.walk_completed:ukh", "DTLB_LOAD_MISSES.WALK_COMPLETED", 1 },
		{ "dtlb_load_misses.walk_completed_4k", "DTLB_LOAD_MISSES.WALK_COMPLETED", 0 },
		{ "dTLB-load-misses", "dTLB-load-misses", 1 },
		{ "dtlb-load-misses:u", "dTLB-load-misses", 1 },
		{ "page-faults:u", "page-faults:u", 1 },
		{ "page-faults:k", "page-faults:u", 0 },   /* the model names :u */
		{ "page-faults", "page-faults:u", 0 },
		{ "r108", "r0108", 1 },
		{ "R0108:u", "r108", 1 },
		{ "r1080", "r0108", 0 },
		{ "cpu/event=0x8,umask=0x1/", "cpu/umask=0x01,event=0x08/", 1 },
		{ "cpu/event=0x8,umask=0x1/u", "cpu/event=8,umask=1/", 1 },
		{ "cpu/event=0x8,umask=0x2/", "cpu/event=0x8,umask=0x1/", 0 },
		{ "cpu/dtlb_load_misses.walk_completed/", "DTLB_LOAD_MISSES.WALK_COMPLETED", 1 },
		{ "cpu_core/dtlb_load_misses.walk_completed/u", "DTLB_LOAD_MISSES.WALK_COMPLETED", 1 },
		{ "sched:sched_switch", "sched:sched_switch", 1 },
		{ "sched:sched_switch", "sched", 0 },
		{ "instructions", "instructions", 1 },
		{ "instructions:u", "instruction", 0 },
	};
	size_t i;

	for (i = 0; i < sizeof c / sizeof c[0]; i++)
		CHECKF(hec_event_name_matches(c[i].name, c[i].want) == c[i].same,
		       "'%s' against '%s'", c[i].name, c[i].want);
}

static void test_base(void)
{
	CHECK(hec_event_name_base("page-faults:u") == 11);
	CHECK(hec_event_name_base("r108:uk") == 4);
	CHECK(hec_event_name_base("cpu/event=0x8/u") == 14);
	CHECK(hec_event_name_base("sched:sched_switch") == 18);
	CHECK(hec_event_name_base("instructions") == 12);
	CHECK(hec_event_name_base(":u") == 2);
}

int main(void)
{
	check_prog = "test_evname";
	RUN(test_matches);
	RUN(test_base);
	return check_summary();
}
