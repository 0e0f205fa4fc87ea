/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hw/sim/events.c: the simulator's names, declared once: its events (with
 * Haswell's names, docs/processors/haswell.md's short names, unit and description), its
 * feature switches, page sizes and ground-truth path kinds. */
#include <stdio.h>
#include <string.h>
#include <pthread.h>
#include <strings.h>

#include "hw/sim/mmu.h"

/* One row per enum mmu_event, in the same order (checked by a test). */
static const struct mmu_event_info events[MMU_N_EVENTS] = {
	{ "DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK", "load.causes_walk", "walks",
	  "page walks started for loads (wrong-path and later aborted walks included; prefetch and replay walks not)" },
	{ "DTLB_LOAD_MISSES.WALK_COMPLETED_4K", "load.walk_done_4k", "walks",
	  "load-side walks (demand, prefetch, replay) that completed with a 4K translation" },
	{ "DTLB_LOAD_MISSES.WALK_COMPLETED_2M_4M", "load.walk_done_2m", "walks",
	  "load-side walks that completed with a 2M translation" },
	{ "DTLB_LOAD_MISSES.WALK_COMPLETED_1G", "load.walk_done_1g", "walks",
	  "load-side walks that completed with a 1G translation" },
	{ "DTLB_LOAD_MISSES.WALK_COMPLETED", "load.walk_done", "walks",
	  "load-side walks that completed, any page size" },
	{ "DTLB_LOAD_MISSES.STLB_HIT_4K", "load.stlb_hit_4k", "loads",
	  "loads that missed the L1 DTLB and hit a 4K STLB entry" },
	{ "DTLB_LOAD_MISSES.STLB_HIT_2M", "load.stlb_hit_2m", "loads",
	  "loads that missed the L1 DTLB and hit a 2M STLB entry" },
	{ "DTLB_LOAD_MISSES.STLB_HIT", "load.stlb_hit", "loads",
	  "loads that missed the L1 DTLB and hit the STLB" },
	{ "DTLB_LOAD_MISSES.PDE_CACHE_MISS", "load.pde_miss", "lookups",
	  "counted PDE-cache lookups by load requests that missed" },
	{ "DTLB_LOAD_MISSES.WALK_DURATION", "load.walk_duration", "cycles",
	  "cycles of load-side walks, summed over walks (to completion or abort)" },
	{ "DTLB_STORE_MISSES.MISS_CAUSES_A_WALK", "store.causes_walk", "walks",
	  "page walks started for stores (wrong-path and later aborted walks included)" },
	{ "DTLB_STORE_MISSES.WALK_COMPLETED_4K", "store.walk_done_4k", "walks",
	  "store walks that completed with a 4K translation" },
	{ "DTLB_STORE_MISSES.WALK_COMPLETED_2M_4M", "store.walk_done_2m", "walks",
	  "store walks that completed with a 2M translation" },
	{ "DTLB_STORE_MISSES.WALK_COMPLETED_1G", "store.walk_done_1g", "walks",
	  "store walks that completed with a 1G translation" },
	{ "DTLB_STORE_MISSES.WALK_COMPLETED", "store.walk_done", "walks",
	  "store walks that completed, any page size" },
	{ "DTLB_STORE_MISSES.STLB_HIT_4K", "store.stlb_hit_4k", "stores",
	  "stores that missed the L1 DTLB and hit a 4K STLB entry" },
	{ "DTLB_STORE_MISSES.STLB_HIT_2M", "store.stlb_hit_2m", "stores",
	  "stores that missed the L1 DTLB and hit a 2M STLB entry" },
	{ "DTLB_STORE_MISSES.STLB_HIT", "store.stlb_hit", "stores",
	  "stores that missed the L1 DTLB and hit the STLB" },
	{ "DTLB_STORE_MISSES.PDE_CACHE_MISS", "store.pde_miss", "lookups",
	  "counted PDE-cache lookups by store requests that missed" },
	{ "DTLB_STORE_MISSES.WALK_DURATION", "store.walk_duration", "cycles",
	  "cycles of store walks, summed over walks (to completion or abort)" },
	{ "PAGE_WALKER_LOADS.DTLB_L1", "walk_ref.l1", "references",
	  "page-walker references to paging entries that hit the L1 data cache" },
	{ "PAGE_WALKER_LOADS.DTLB_L2", "walk_ref.l2", "references",
	  "page-walker references served by the L2 cache" },
	{ "PAGE_WALKER_LOADS.DTLB_L3", "walk_ref.l3", "references",
	  "page-walker references served by the L3 cache" },
	{ "PAGE_WALKER_LOADS.DTLB_MEMORY", "walk_ref.mem", "references",
	  "page-walker references served by memory" },
	{ "MEM_UOPS_RETIRED.ALL_LOADS", "load.retired", "loads",
	  "correct-path loads retired" },
	{ "MEM_UOPS_RETIRED.ALL_STORES", "store.retired", "stores",
	  "correct-path stores retired" },
	{ "MEM_UOPS_RETIRED.STLB_MISS_LOADS", "load.retired_stlb_miss", "loads",
	  "retired loads whose translation missed the STLB (own walk or merged)" },
	{ "MEM_UOPS_RETIRED.STLB_MISS_STORES", "store.retired_stlb_miss", "stores",
	  "retired stores whose translation missed the STLB (own walk or merged)" },
};

const struct mmu_event_info *mmu_event_info(enum mmu_event e)
{
	return (unsigned)e < MMU_N_EVENTS ? &events[e] : NULL;
}

int mmu_event_find(const char *name)
{
	int i;

	for (i = 0; i < MMU_N_EVENTS; i++)
		if (!strcmp(events[i].event, name) || !strcmp(events[i].name, name))
			return i;
	return -1;
}

static const char *const path_names[MMU_N_PATHS] = {
	"dtlb_hit", "stlb_hit", "walk_1ref", "walk_2ref", "walk_3ref",
	"walk_4ref", "merged", "waited", "squashed", "walk_aborted",
	"replayed", "pf_walk", "pf_abort_absent", "pf_dropped", "walk_bypassed",
	"aborted_queued", "pf_abort_abit", "merge_rewalk", "psc_pde",
	"psc_pdpte", "psc_pml4", "psc_none", "pde_nowalk", "pde_nowalk_miss",
	"refs_bypassed", "replay_refs", "squashed_walk",
};

const char *mmu_path_name(enum mmu_path p)
{
	return (unsigned)p < MMU_N_PATHS ? path_names[p] : "?";
}

int mmu_path_is_path(enum mmu_path p)
{
	return p <= MMU_P_WALK_ABORTED || p == MMU_P_WALK_BYPASSED ||
	       p == MMU_P_ABORTED_QUEUED || p == MMU_P_SQUASHED_WALK;
}

static const char *const feature_names[MMU_N_FEATURES] = {
	"prefetch", "merge", "pde_early", "pml4_cache", "abort", "replay",
	"bypass", "prefetch_dtlb_miss", "prefetch_stlb_miss", "prefetch_stores",
};

int mmu_features_parse(const char *list, unsigned *out, struct cp_error *err)
{
	const char *p = list;
	unsigned set = 0, i;

	*out = 0;
	if (!strcmp(list, "all")) {
		*out = MMU_F_ALL;
		return CP_OK;
	}
	if (!strcmp(list, "none"))
		return CP_OK;
	while (*p) {
		size_t n = strcspn(p, ",");

		for (i = 0; i < MMU_N_FEATURES; i++)
			if (strlen(feature_names[i]) == n &&
			    !strncmp(feature_names[i], p, n))
				break;
		if (n && i == MMU_N_FEATURES) {
			char known[256];
			size_t len = 0;

			for (i = 0; i < MMU_N_FEATURES; i++)
				len += (size_t)snprintf(known + len, sizeof known - len,
							"%s%s", i ? ", " : "",
							feature_names[i]);
			return cp_error_set(err, CP_EINPUT,
					    "unknown feature '%.*s' (known: %s)",
					    (int)n, p, known);
		}
		if (n)
			set |= 1u << i;
		p += n;
		if (*p == ',')
			p++;
	}
	*out = set;
	return CP_OK;
}

void mmu_features_format(unsigned features, char *buf, size_t size)
{
	size_t len = 0;
	unsigned i;

	if (!size)
		return;
	buf[0] = 0;
	for (i = 0; i < MMU_N_FEATURES; i++) {
		if (!(features & (1u << i)))
			continue;
		len += (size_t)snprintf(buf + len, len < size ? size - len : 0,
					"%s%s", len ? "," : "", feature_names[i]);
		if (len >= size)
			return;
	}
	if (!len)
		snprintf(buf, size, "none");
}

static const char *const page_names[MMU_N_PAGE_MODES] = {
	"4k", "2m", "1g", "mix"
};

const char *mmu_page_name(enum mmu_page p)
{
	return (unsigned)p < MMU_N_PAGE_MODES ? page_names[p] : "?";
}

int mmu_page_parse(const char *text, enum mmu_page *out)
{
	int i;

	for (i = 0; i < MMU_N_PAGE_MODES; i++)
		if (!strcasecmp(text, page_names[i])) {
			*out = (enum mmu_page)i;
			return CP_OK;
		}
	return CP_EINPUT;
}

/* ================================================================
 * Processors: the events each has, as sums of the machine's counts
 * ================================================================ */

#define E(x) (1u << (x))
#define LS(x) (E(MMU_LOAD_##x) | E(MMU_STORE_##x))   /* loads and stores */
#define DISPATCHED(c) (1u << (c))

/* Haswell: the machine's own events, one for one, in their order. */
static struct mmu_cpu_event haswell_events[MMU_N_EVENTS];
static pthread_once_t haswell_once = PTHREAD_ONCE_INIT;

static void haswell_fill(void)
{
	int e;

	for (e = 0; e < MMU_N_EVENTS; e++) {
		haswell_events[e].event = events[e].event;
		haswell_events[e].name = events[e].name;
		haswell_events[e].sum = E(e);
	}
}

/* Intel's 6th generation on (Skylake, Cascade Lake): no PDE-cache miss
 * or page-walker reference events, STLB hits without their page size,
 * MEM_INST_RETIRED in MEM_UOPS_RETIRED's place; WALK_PENDING counts a
 * cycle per walk in flight (the machine's walk duration; WALK_ACTIVE,
 * cycles with any, it cannot count). */
static const struct mmu_cpu_event skylake_events[] = {
	{ "DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK", NULL, E(MMU_LOAD_CAUSES_WALK), 0 },
	{ "DTLB_LOAD_MISSES.WALK_COMPLETED", NULL, E(MMU_LOAD_WALK_DONE), 0 },
	{ "DTLB_LOAD_MISSES.WALK_COMPLETED_4K", NULL, E(MMU_LOAD_WALK_DONE_4K), 0 },
	{ "DTLB_LOAD_MISSES.WALK_COMPLETED_2M_4M", NULL, E(MMU_LOAD_WALK_DONE_2M), 0 },
	{ "DTLB_LOAD_MISSES.WALK_COMPLETED_1G", NULL, E(MMU_LOAD_WALK_DONE_1G), 0 },
	{ "DTLB_LOAD_MISSES.STLB_HIT", NULL, E(MMU_LOAD_STLB_HIT), 0 },
	{ "DTLB_LOAD_MISSES.WALK_PENDING", NULL, E(MMU_LOAD_WALK_DURATION), 0 },
	{ "MEM_INST_RETIRED.ALL_LOADS", NULL, E(MMU_RETIRED_LOADS), 0 },
	{ "MEM_INST_RETIRED.STLB_MISS_LOADS", NULL, E(MMU_RETIRED_STLB_MISS_LOADS), 0 },
	{ "DTLB_STORE_MISSES.MISS_CAUSES_A_WALK", NULL, E(MMU_STORE_CAUSES_WALK), 0 },
	{ "DTLB_STORE_MISSES.WALK_COMPLETED", NULL, E(MMU_STORE_WALK_DONE), 0 },
	{ "DTLB_STORE_MISSES.WALK_COMPLETED_4K", NULL, E(MMU_STORE_WALK_DONE_4K), 0 },
	{ "DTLB_STORE_MISSES.WALK_COMPLETED_2M_4M", NULL, E(MMU_STORE_WALK_DONE_2M), 0 },
	{ "DTLB_STORE_MISSES.WALK_COMPLETED_1G", NULL, E(MMU_STORE_WALK_DONE_1G), 0 },
	{ "DTLB_STORE_MISSES.STLB_HIT", NULL, E(MMU_STORE_STLB_HIT), 0 },
	{ "DTLB_STORE_MISSES.WALK_PENDING", NULL, E(MMU_STORE_WALK_DURATION), 0 },
	{ "MEM_INST_RETIRED.ALL_STORES", NULL, E(MMU_RETIRED_STORES), 0 },
	{ "MEM_INST_RETIRED.STLB_MISS_STORES", NULL, E(MMU_RETIRED_STLB_MISS_STORES), 0 },
};

/* Ice Lake to Sapphire Rapids: as Skylake without MISS_CAUSES_A_WALK
 * (Golden Cove moved the DTLB events to codes 0x12 and 0x13; the names,
 * which are what the simulator writes, stayed). */
static const struct mmu_cpu_event icelake_events[] = {
	{ "DTLB_LOAD_MISSES.WALK_COMPLETED", NULL, E(MMU_LOAD_WALK_DONE), 0 },
	{ "DTLB_LOAD_MISSES.WALK_COMPLETED_4K", NULL, E(MMU_LOAD_WALK_DONE_4K), 0 },
	{ "DTLB_LOAD_MISSES.WALK_COMPLETED_2M_4M", NULL, E(MMU_LOAD_WALK_DONE_2M), 0 },
	{ "DTLB_LOAD_MISSES.WALK_COMPLETED_1G", NULL, E(MMU_LOAD_WALK_DONE_1G), 0 },
	{ "DTLB_LOAD_MISSES.STLB_HIT", NULL, E(MMU_LOAD_STLB_HIT), 0 },
	{ "DTLB_LOAD_MISSES.WALK_PENDING", NULL, E(MMU_LOAD_WALK_DURATION), 0 },
	{ "MEM_INST_RETIRED.ALL_LOADS", NULL, E(MMU_RETIRED_LOADS), 0 },
	{ "MEM_INST_RETIRED.STLB_MISS_LOADS", NULL, E(MMU_RETIRED_STLB_MISS_LOADS), 0 },
	{ "DTLB_STORE_MISSES.WALK_COMPLETED", NULL, E(MMU_STORE_WALK_DONE), 0 },
	{ "DTLB_STORE_MISSES.WALK_COMPLETED_4K", NULL, E(MMU_STORE_WALK_DONE_4K), 0 },
	{ "DTLB_STORE_MISSES.WALK_COMPLETED_2M_4M", NULL, E(MMU_STORE_WALK_DONE_2M), 0 },
	{ "DTLB_STORE_MISSES.WALK_COMPLETED_1G", NULL, E(MMU_STORE_WALK_DONE_1G), 0 },
	{ "DTLB_STORE_MISSES.STLB_HIT", NULL, E(MMU_STORE_STLB_HIT), 0 },
	{ "DTLB_STORE_MISSES.WALK_PENDING", NULL, E(MMU_STORE_WALK_DURATION), 0 },
	{ "MEM_INST_RETIRED.ALL_STORES", NULL, E(MMU_RETIRED_STORES), 0 },
	{ "MEM_INST_RETIRED.STLB_MISS_STORES", NULL, E(MMU_RETIRED_STLB_MISS_STORES), 0 },
};

/* AMD Family 19h: loads and stores share the TLB events; ops are counted
 * at dispatch (wrong-path ones too), none at retirement.  An L1 DTLB miss
 * is counted where the L1 DTLB is reloaded: from the L2 DTLB (a hit) or
 * after a walk (a miss: the machine's completed walks), by page size.
 * The machine has no load-op-store ops, no coalesced 16K entries and no
 * 1G entries in its STLB: those events are written, and stay 0. */
#define ZEN_COMMON \
	{ "ls_dispatch.ld_dispatch", NULL, 0, DISPATCHED(MMU_C_LOAD) }, \
	{ "ls_dispatch.store_dispatch", NULL, 0, DISPATCHED(MMU_C_STORE) }, \
	{ "ls_dispatch.ld_st_dispatch", NULL, 0, 0 }, \
	{ "ls_l1_d_tlb_miss.tlb_reload_4k_l2_hit", NULL, LS(STLB_HIT_4K), 0 }, \
	{ "ls_l1_d_tlb_miss.tlb_reload_coalesced_page_hit", NULL, 0, 0 }, \
	{ "ls_l1_d_tlb_miss.tlb_reload_2m_l2_hit", NULL, LS(STLB_HIT_2M), 0 }, \
	{ "ls_l1_d_tlb_miss.tlb_reload_1g_l2_hit", NULL, 0, 0 }, \
	{ "ls_l1_d_tlb_miss.tlb_reload_4k_l2_miss", NULL, LS(WALK_DONE_4K), 0 }, \
	{ "ls_l1_d_tlb_miss.tlb_reload_coalesced_page_miss", NULL, 0, 0 }, \
	{ "ls_l1_d_tlb_miss.tlb_reload_2m_l2_miss", NULL, LS(WALK_DONE_2M), 0 }, \
	{ "ls_l1_d_tlb_miss.tlb_reload_1g_l2_miss", NULL, LS(WALK_DONE_1G), 0 }

/* Zen 3 also counts the walks its data-side walker starts. */
static const struct mmu_cpu_event zen3_events[] = {
	ZEN_COMMON,
	{ "ls_tablewalker.dside", NULL, LS(CAUSES_WALK), 0 },
};

/* Zen 4 has no walker event. */
static const struct mmu_cpu_event zen4_events[] = {
	ZEN_COMMON,
};

#define N(a) (sizeof (a) / sizeof (a)[0])

static const struct mmu_cpu cpus[] = {
	{ "haswell", "Intel Haswell (the machine's own events)", "hsw", 4,
	  haswell_events, MMU_N_EVENTS },
	{ "skylake", "Intel Skylake to Cascade Lake", "skl", 4,
	  skylake_events, N(skylake_events) },
	{ "icelake", "Intel Ice Lake, Tiger Lake, Ice Lake-SP", "icl", 8,
	  icelake_events, N(icelake_events) },
	{ "sapphirerapids", "Intel Sapphire Rapids, Alder Lake P-cores (Golden Cove)",
	  "spr", 8, icelake_events, N(icelake_events) },
	{ "zen3", "AMD Zen 3 (Family 19h)", "amd64_fam19h_zen3", 6,
	  zen3_events, N(zen3_events) },
	{ "zen4", "AMD Zen 4 (Family 19h)", "amd64_fam19h_zen4", 6,
	  zen4_events, N(zen4_events) },
};

const struct mmu_cpu *mmu_cpu_at(size_t i)
{
	pthread_once(&haswell_once, haswell_fill);
	return i < N(cpus) ? &cpus[i] : NULL;
}

const struct mmu_cpu *mmu_cpu_find(const char *name)
{
	size_t i;

	for (i = 0; mmu_cpu_at(i); i++)
		if (!strcasecmp(cpus[i].name, name))
			return &cpus[i];
	return NULL;
}

void mmu_cpu_values(const struct mmu_cpu *cpu, const uint64_t *count,
		    const uint64_t *truth, uint64_t *out)
{
	size_t j;
	int e, c, p;

	for (j = 0; j < cpu->n_events; j++) {
		const struct mmu_cpu_event *ev = &cpu->events[j];
		uint64_t v = 0;

		for (e = 0; e < MMU_N_EVENTS; e++)
			if (ev->sum & E(e))
				v += count[e];
		for (c = 0; c < MMU_N_CLASSES; c++)
			if (ev->dispatched & DISPATCHED(c))
				for (p = 0; p < MMU_N_PATHS; p++)
					if (mmu_path_is_path((enum mmu_path)p))
						v += truth[c * MMU_N_PATHS + p];
		out[j] = v;
	}
}

void mmu_cpu_event_format(const struct mmu_cpu_event *ev, char *buf,
			  size_t size)
{
	size_t len = 0;
	int e, c;

	if (!size)
		return;
	buf[0] = 0;
	for (e = 0; e < MMU_N_EVENTS; e++)
		if (ev->sum & E(e))
			len += (size_t)snprintf(buf + len, len < size ? size - len : 0,
						"%s%s", len ? " + " : "",
						events[e].name);
	for (c = 0; c < MMU_N_CLASSES; c++)
		if (ev->dispatched & DISPATCHED(c))
			len += (size_t)snprintf(buf + len, len < size ? size - len : 0,
						"%s%s μops issued (correct and wrong path)",
						len ? " + " : "",
						c == MMU_C_LOAD ? "load" : "store");
	if (!len)
		snprintf(buf, size, "0 (nothing in the machine counts it)");
}
