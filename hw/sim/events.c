/* hw/sim/events.c: the simulator's names, declared once: its events (with
 * Haswell's names, docs/haswell.md's short names, unit and description), its
 * feature switches, page sizes and ground-truth path kinds. */
#include <stdio.h>
#include <string.h>
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
