/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_mmu_features.c: each feature switch of the MMU
 * simulator changes exactly the counter relations docs/manual/simulator.md says
 * it changes, on a workload built to show it. */
#include <stdio.h>
#include <string.h>

#include "common/cp.h"
#include "hw/sim/mmu.h"
#include "check.h"

#define KB 1024ull
#define MB (1024ull * KB)
#define GB (1024ull * MB)
#define BASE (1ull << 40)

static struct mmu_config cfg;

static struct mmu_machine *machine(unsigned features, enum mmu_page page)
{
	struct cp_error err;
	struct mmu_machine *m = mmu_machine_new(&cfg, features, page, 1, &err);

	if (!m)
		printf("  machine: %s\n", err.msg);
	return m;
}

static uint64_t c(const struct mmu_machine *m, enum mmu_event e)
{
	return mmu_counts(m)[e];
}

static uint64_t refs(const struct mmu_machine *m)
{
	return c(m, MMU_WALK_REF_L1) + c(m, MMU_WALK_REF_L2) +
	       c(m, MMU_WALK_REF_L3) + c(m, MMU_WALK_REF_MEM);
}

/* Loads at stride 64 over `pages` 4K pages, `passes` times, up or down. */
static void stream(struct mmu_machine *m, uint64_t pages, int passes,
		   int down, int stores)
{
	uint64_t i, n = pages * 64;
	int p;

	for (p = 0; p < passes; p++)
		for (i = 0; i < n; i++)
			mmu_access(m, BASE + 64 * (down ? n - 1 - i : i), stores);
	mmu_drain(m);
}

/* prefetch: on the second pass of an ascending (or descending) load
 * stream over more pages than the STLB holds, the prefetcher completes
 * walks that no demand miss started: load.walk_done > load.causes_walk,
 * and fewer demand walks than without it.  On the first pass the next
 * page is not mapped yet, so every prefetch walk aborts (references
 * without any walk counted).  Stores never trigger it. */
static void test_prefetch(void)
{
	struct mmu_machine *off, *on;
	int down;

	mmu_config_default(&cfg);
	for (down = 0; down < 2; down++) {
		off = machine(0, MMU_PAGE_4K);
		on = machine(MMU_F_PREFETCH, MMU_PAGE_4K);
		stream(off, 2048, 2, down, 0);
		stream(on, 2048, 2, down, 0);
		CHECK(c(off, MMU_LOAD_WALK_DONE) == c(off, MMU_LOAD_CAUSES_WALK));
		CHECKF(c(on, MMU_LOAD_WALK_DONE) > c(on, MMU_LOAD_CAUSES_WALK) + 1000,
		       "down %d: done %llu causes %llu", down,
		       (unsigned long long)c(on, MMU_LOAD_WALK_DONE),
		       (unsigned long long)c(on, MMU_LOAD_CAUSES_WALK));
		CHECK(c(on, MMU_LOAD_WALK_DONE) > c(on, MMU_RETIRED_STLB_MISS_LOADS));
		CHECK(c(on, MMU_LOAD_CAUSES_WALK) < c(off, MMU_LOAD_CAUSES_WALK));
		/* prefetch lookups of the PDE cache are not counted */
		CHECK(c(on, MMU_LOAD_PDE_MISS) <= c(on, MMU_LOAD_CAUSES_WALK));
		CHECK(mmu_truth(on)[MMU_P_PF_WALK] > 1000);
		mmu_machine_free(off);
		mmu_machine_free(on);
	}

	/* First pass only: every page's prefetch aborts on its unmapped
	 * successor (the last one included). */
	on = machine(MMU_F_PREFETCH, MMU_PAGE_4K);
	off = machine(0, MMU_PAGE_4K);
	stream(on, 256, 1, 0, 0);
	stream(off, 256, 1, 0, 0);
	CHECK(c(on, MMU_LOAD_WALK_DONE) == c(off, MMU_LOAD_WALK_DONE));
	CHECK(mmu_truth(on)[MMU_P_PF_ABSENT] == 256);
	CHECK(refs(on) == refs(off) + 256);
	mmu_machine_free(on);
	mmu_machine_free(off);

	/* Stores do not trigger it. */
	on = machine(MMU_F_PREFETCH, MMU_PAGE_4K);
	stream(on, 2048, 2, 0, 1);
	CHECK(c(on, MMU_STORE_WALK_DONE) == c(on, MMU_STORE_CAUSES_WALK));
	CHECK(c(on, MMU_LOAD_WALK_DONE) == 0);
	mmu_machine_free(on);

	/* Trigger pairs other than 51->52 / 8->7 do not trigger it. */
	cfg.pf_up_from = 10;
	cfg.pf_up_to = 11;
	cfg.pf_down_from = 60;
	cfg.pf_down_to = 59;
	on = machine(MMU_F_PREFETCH, MMU_PAGE_4K);
	stream(on, 2048, 2, 0, 0);
	CHECK(mmu_truth(on)[MMU_P_PF_WALK] > 1000);   /* 10->11 triggers */
	mmu_machine_free(on);
}

/* merge: a load stream at stride 64 misses each new page many times
 * while its walk is in flight.  Without merging, each miss that finds a
 * free walker walks again (redundant walks); with merging, they join the
 * walk in flight, so retired STLB-missing loads exceed completed walks. */
static void test_merge(void)
{
	struct mmu_machine *off, *on;

	mmu_config_default(&cfg);
	off = machine(0, MMU_PAGE_4K);
	on = machine(MMU_F_MERGE, MMU_PAGE_4K);
	stream(off, 2048, 1, 0, 0);
	stream(on, 2048, 1, 0, 0);
	CHECK(c(off, MMU_RETIRED_STLB_MISS_LOADS) <= c(off, MMU_LOAD_WALK_DONE));
	CHECK(c(off, MMU_LOAD_CAUSES_WALK) > 2048);       /* redundant walks */
	CHECK(c(on, MMU_LOAD_CAUSES_WALK) < c(off, MMU_LOAD_CAUSES_WALK));
	CHECKF(c(on, MMU_RETIRED_STLB_MISS_LOADS) > 2 * c(on, MMU_LOAD_WALK_DONE),
	       "retired stlb miss %llu, walks %llu",
	       (unsigned long long)c(on, MMU_RETIRED_STLB_MISS_LOADS),
	       (unsigned long long)c(on, MMU_LOAD_WALK_DONE));
	CHECK(c(on, MMU_LOAD_CAUSES_WALK) == c(on, MMU_LOAD_WALK_DONE));
	CHECK(mmu_truth(on)[MMU_P_MERGED] > 0);
	CHECK(mmu_truth(off)[MMU_P_MERGED] == 0);
	mmu_machine_free(off);
	mmu_machine_free(on);
}

/* pde_early: with merging, a request that merges still looks the PDE
 * cache up first.  Two loads to each page of fresh 2M regions, back to
 * back: one walk per page, but two counted PDE misses. */
static void test_pde_early(void)
{
	struct mmu_machine *m[3];
	unsigned f[3] = { MMU_F_MERGE, MMU_F_MERGE | MMU_F_PDE_EARLY,
			  MMU_F_PDE_EARLY };
	uint64_t i, n = 50;
	int k;

	mmu_config_default(&cfg);
	for (k = 0; k < 3; k++) {
		m[k] = machine(f[k], MMU_PAGE_4K);
		for (i = 0; i < n; i++) {
			mmu_access(m[k], BASE + i * 2 * MB, 0);
			mmu_access(m[k], BASE + i * 2 * MB + 64, 0);
			mmu_drain(m[k]);
		}
	}
	CHECK(c(m[0], MMU_LOAD_CAUSES_WALK) == n);
	CHECK(c(m[0], MMU_LOAD_PDE_MISS) == n);
	CHECK(c(m[1], MMU_LOAD_CAUSES_WALK) == n);
	CHECK(c(m[1], MMU_LOAD_PDE_MISS) == 2 * n);
	CHECK(c(m[1], MMU_RETIRED_STLB_MISS_LOADS) == 2 * n);
	/* Without merging, the second load walks again: pde_early then
	 * counts the same as the baseline. */
	CHECK(c(m[2], MMU_LOAD_CAUSES_WALK) == 2 * n);
	CHECK(c(m[2], MMU_LOAD_PDE_MISS) == 2 * n);
	for (k = 0; k < 3; k++)
		mmu_machine_free(m[k]);

	/* Standalone: a request that finds every walker busy looks the PDE
	 * cache up, waits, and finds its translation filled. */
	cfg.walkers = 1;
	m[0] = machine(0, MMU_PAGE_4K);
	m[1] = machine(MMU_F_PDE_EARLY, MMU_PAGE_4K);
	for (k = 0; k < 2; k++) {
		for (i = 0; i < n; i++) {
			mmu_access(m[k], BASE + i * 2 * MB, 0);
			mmu_access(m[k], BASE + i * 2 * MB + 64, 0);
			mmu_drain(m[k]);
		}
	}
	CHECK(c(m[0], MMU_LOAD_PDE_MISS) == n);
	CHECK(c(m[0], MMU_LOAD_CAUSES_WALK) == n);
	CHECK(c(m[1], MMU_LOAD_PDE_MISS) == 2 * n);
	CHECK(c(m[1], MMU_LOAD_CAUSES_WALK) == n);
	CHECK(mmu_truth(m[1])[MMU_P_WAITED] == n);
	for (k = 0; k < 2; k++)
		mmu_machine_free(m[k]);
}

/* pml4_cache: 1G pages in one 512G region, one walk at a time: 2
 * references per walk without it, 1 after the first with it.  4K walks
 * that miss the PDPTE cache make 3 references instead of 4. */
static void test_pml4_cache(void)
{
	struct mmu_machine *off, *on;
	uint64_t i;

	mmu_config_default(&cfg);
	off = machine(0, MMU_PAGE_1G);
	on = machine(MMU_F_PML4_CACHE, MMU_PAGE_1G);
	for (i = 0; i < 8; i++) {
		mmu_access(off, BASE + i * GB, 0);
		mmu_drain(off);
		mmu_access(on, BASE + i * GB, 0);
		mmu_drain(on);
	}
	CHECK(c(off, MMU_LOAD_WALK_DONE_1G) == 8 && c(on, MMU_LOAD_WALK_DONE_1G) == 8);
	CHECK(refs(off) == 16);
	CHECK(refs(on) == 2 + 7);
	mmu_machine_free(off);
	mmu_machine_free(on);

	/* 4K pages in 8 distinct 1G regions (the PDPTE cache holds 4). */
	off = machine(0, MMU_PAGE_4K);
	on = machine(MMU_F_PML4_CACHE, MMU_PAGE_4K);
	for (i = 0; i < 16; i++) {
		mmu_access(off, BASE + (i % 8) * GB + (i / 8) * 2 * MB, 0);
		mmu_drain(off);
		mmu_access(on, BASE + (i % 8) * GB + (i / 8) * 2 * MB, 0);
		mmu_drain(on);
	}
	CHECK(refs(off) == 16 * 4);
	CHECK(refs(on) == 4 + 15 * 3);
	CHECK(mmu_truth(on)[MMU_P_WALK_3REF] == 15);
	CHECK(mmu_truth(off)[MMU_P_WALK_3REF] == 0);
	mmu_machine_free(off);
	mmu_machine_free(on);
}

/* abort: wrong-path loads to cold pages are squashed long before their
 * 4-memory-reference walks could finish: with abort their walks start
 * (load.causes_walk) but never complete; without, they complete.  With
 * abort_after_refs = 0 they stop before any reference. */
static void test_abort(void)
{
	struct mmu_machine *off, *on;
	uint64_t i, n = 20;

	mmu_config_default(&cfg);
	off = machine(0, MMU_PAGE_4K);
	on = machine(MMU_F_ABORT, MMU_PAGE_4K);
	for (i = 0; i < n; i++) {
		mmu_access_wrong(off, BASE + i * GB, 0);
		mmu_drain(off);
		mmu_access_wrong(on, BASE + i * GB, 0);
		mmu_drain(on);
	}
	CHECK(c(off, MMU_LOAD_CAUSES_WALK) == n && c(off, MMU_LOAD_WALK_DONE) == n);
	CHECK(c(on, MMU_LOAD_CAUSES_WALK) == n && c(on, MMU_LOAD_WALK_DONE) == 0);
	CHECK(refs(on) < refs(off));
	CHECK(c(on, MMU_LOAD_WALK_DURATION) < c(off, MMU_LOAD_WALK_DURATION));
	CHECK(mmu_truth(on)[MMU_P_WALK_ABORTED] == n);
	mmu_machine_free(off);
	mmu_machine_free(on);

	cfg.abort_after_refs = 0;
	on = machine(MMU_F_ABORT, MMU_PAGE_4K);
	for (i = 0; i < n; i++) {
		mmu_access_wrong(on, BASE + i * GB, 1);
		mmu_drain(on);
	}
	CHECK(c(on, MMU_STORE_CAUSES_WALK) == n && c(on, MMU_STORE_WALK_DONE) == 0);
	CHECK(refs(on) == 0);
	/* Correct-path μops are never aborted. */
	mmu_access(on, BASE + 100 * GB, 0);
	mmu_drain(on);
	CHECK(c(on, MMU_LOAD_WALK_DONE) == 1);
	mmu_machine_free(on);
}

/* replay: a merged load's translation came from an older request's walk;
 * at retirement it is re-walked, which completes a walk with no walker
 * reference and no walk start. */
static void test_replay(void)
{
	struct mmu_machine *m[2];
	uint64_t i, n = 50;
	int k;

	mmu_config_default(&cfg);
	for (k = 0; k < 2; k++) {
		m[k] = machine(MMU_F_MERGE | (k ? MMU_F_REPLAY : 0), MMU_PAGE_4K);
		for (i = 0; i < n; i++) {
			mmu_access(m[k], BASE + i * 2 * MB, 0);
			mmu_access(m[k], BASE + i * 2 * MB + 64, 0);   /* merges */
			mmu_drain(m[k]);
		}
	}
	CHECK(c(m[0], MMU_LOAD_WALK_DONE) == n);
	CHECK(c(m[1], MMU_LOAD_WALK_DONE) == 2 * n);
	CHECK(c(m[1], MMU_LOAD_WALK_DONE_4K) == 2 * n);
	CHECK(c(m[1], MMU_LOAD_CAUSES_WALK) == n);
	CHECK(refs(m[1]) == refs(m[0]));
	CHECK(mmu_truth(m[1])[MMU_P_REPLAYED] == n);
	for (k = 0; k < 2; k++)
		mmu_machine_free(m[k]);

	/* Standalone: a walk that completes before an older walk still in
	 * flight (a PDE hit behind a cold walk) is replayed too. */
	m[0] = machine(MMU_F_REPLAY, MMU_PAGE_4K);
	mmu_access(m[0], BASE, 0);
	mmu_drain(m[0]);
	mmu_access(m[0], BASE + 8 * GB, 0);     /* cold: 4 memory references */
	mmu_access(m[0], BASE + 4 * KB, 0);     /* PDE hit: done first */
	mmu_drain(m[0]);
	CHECK(c(m[0], MMU_LOAD_CAUSES_WALK) == 3);
	CHECK(c(m[0], MMU_LOAD_WALK_DONE) == 4);
	mmu_machine_free(m[0]);
}

/* bypass: a stride-64 load stream walks page after page of one page
 * table; the next walk's PTE is in the line the previous walk fetched, so
 * it is served by the walker's fill buffer: completed walks with no
 * counted reference (Σ walk_ref < walk_done), walks started unchanged. */
static void test_bypass(void)
{
	struct mmu_machine *off, *on;

	mmu_config_default(&cfg);
	off = machine(0, MMU_PAGE_4K);
	on = machine(MMU_F_BYPASS, MMU_PAGE_4K);
	stream(off, 512, 1, 0, 0);
	stream(on, 512, 1, 0, 0);
	CHECK(c(on, MMU_LOAD_CAUSES_WALK) == c(off, MMU_LOAD_CAUSES_WALK));
	CHECK(c(on, MMU_LOAD_WALK_DONE) == c(off, MMU_LOAD_WALK_DONE));
	CHECK(refs(off) >= c(off, MMU_LOAD_WALK_DONE));
	CHECKF(refs(on) < c(on, MMU_LOAD_WALK_DONE),
	       "refs %llu, walks %llu", (unsigned long long)refs(on),
	       (unsigned long long)c(on, MMU_LOAD_WALK_DONE));
	CHECK(mmu_truth(on)[MMU_P_WALK_BYPASSED] > 0);
	CHECK(mmu_truth(off)[MMU_P_WALK_BYPASSED] == 0);
	mmu_machine_free(off);
	mmu_machine_free(on);

	/* One walk at a time, far apart in time: nothing to bypass. */
	on = machine(MMU_F_BYPASS, MMU_PAGE_4K);
	mmu_access(on, BASE, 0);
	mmu_drain(on);
	mmu_access(on, BASE + 8 * GB, 0);
	mmu_drain(on);
	CHECK(refs(on) == 8);
	mmu_machine_free(on);
}


static uint64_t tr(const struct mmu_machine *m, int cls, enum mmu_path p)
{
	return mmu_truth(m)[cls * MMU_N_PATHS + p];
}

/* Prefetch requests a μop of class cls triggered (made, dropped or not). */
static uint64_t pf_requests(const struct mmu_machine *m, int cls)
{
	return tr(m, cls, MMU_P_PF_WALK) + tr(m, cls, MMU_P_PF_ABSENT) +
	       tr(m, cls, MMU_P_PF_ABIT) + tr(m, cls, MMU_P_PF_DROPPED);
}

/* Trigger pairs (lines 51, 52) on n pages at stride 8 pages from base,
 * drained after each pair. */
static void pairs(struct mmu_machine *m, uint64_t base, uint64_t n, int st)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		mmu_access(m, base + i * 32 * KB + 51 * 64, st);
		mmu_access(m, base + i * 32 * KB + 52 * 64, st);
		mmu_drain(m);
	}
}

/* The prefetcher's trigger variants: the pair 51 -> 52 triggers a
 * request before the DTLB lookup (default) whatever the lookups find;
 * with prefetch_dtlb_miss only when line 52 missed the L1 DTLB, with
 * prefetch_stlb_miss only when it missed the STLB too.  Three cases:
 * cold pages (52 misses both: its page is still being walked), pages in
 * the STLB but not the DTLB (52 misses the DTLB while 51's STLB hit is
 * filling it), pages in the DTLB.  Stores trigger it only with
 * prefetch_stores, and their prefetch walks count as load walks. */
static void test_prefetch_variants(void)
{
	static const unsigned variant[3] = {
		0, MMU_F_PF_DTLB_MISS, MMU_F_PF_STLB_MISS | MMU_F_PF_DTLB_MISS
	};
	/* requests per pair expected: [variant][case] */
	static const int expect[3][3] = { { 1, 1, 1 }, { 1, 1, 0 }, { 1, 0, 0 } };
	struct mmu_machine *m;
	uint64_t n = 100, i;
	int v, k;

	mmu_config_default(&cfg);
	for (v = 0; v < 3; v++) {
		uint64_t got[3];

		m = machine(MMU_F_PREFETCH | variant[v], MMU_PAGE_4K);
		/* cold: 51 walks, 52 finds the walk in flight */
		pairs(m, BASE, n, 0);
		got[0] = pf_requests(m, MMU_C_LOAD);
		/* in the STLB only: 200 pages touched at line 0, then their
		 * pairs in the same order (the 64-entry DTLB lost them) */
		for (i = 0; i < 200; i++)
			mmu_access(m, BASE + 64 * GB + i * 4 * KB, 0);
		mmu_drain(m);
		for (i = 0; i < n; i++) {
			mmu_access(m, BASE + 64 * GB + i * 4 * KB + 51 * 64, 0);
			mmu_access(m, BASE + 64 * GB + i * 4 * KB + 52 * 64, 0);
		}
		mmu_drain(m);
		got[1] = pf_requests(m, MMU_C_LOAD) - got[0];
		/* in the DTLB: touched just before */
		for (i = 0; i < n; i++) {
			mmu_access(m, BASE + 128 * GB + i * 4 * KB, 0);
			mmu_access(m, BASE + 128 * GB + i * 4 * KB + 51 * 64, 0);
			mmu_access(m, BASE + 128 * GB + i * 4 * KB + 52 * 64, 0);
			mmu_drain(m);
		}
		got[2] = pf_requests(m, MMU_C_LOAD) - got[0] - got[1];
		for (k = 0; k < 3; k++)
			CHECKF(got[k] == (uint64_t)expect[v][k] * n,
			       "variant %d case %d: %llu requests", v, k,
			       (unsigned long long)got[k]);
		mmu_machine_free(m);
	}
	/* the DTLB-miss case really hit the STLB */
	m = machine(0, MMU_PAGE_4K);
	for (i = 0; i < 200; i++)
		mmu_access(m, BASE + i * 4 * KB, 0);
	mmu_drain(m);
	for (i = 0; i < n; i++) {
		mmu_access(m, BASE + i * 4 * KB + 51 * 64, 0);
		mmu_access(m, BASE + i * 4 * KB + 52 * 64, 0);
	}
	mmu_drain(m);
	CHECK(c(m, MMU_LOAD_STLB_HIT) == 2 * n);
	mmu_machine_free(m);

	/* stores: no requests without prefetch_stores; with it, a store
	 * stream's prefetch walks complete as load walks */
	for (v = 0; v < 2; v++) {
		m = machine(MMU_F_PREFETCH | (v ? MMU_F_PF_STORES : 0), MMU_PAGE_4K);
		pairs(m, BASE, n, 1);
		CHECK(pf_requests(m, MMU_C_STORE) == (v ? n : 0));
		CHECK(pf_requests(m, MMU_C_LOAD) == 0);
		mmu_machine_free(m);
		m = machine(MMU_F_PREFETCH | (v ? MMU_F_PF_STORES : 0), MMU_PAGE_4K);
		stream(m, 2048, 2, 0, 1);
		CHECK(v ? c(m, MMU_LOAD_WALK_DONE) > 1000 : c(m, MMU_LOAD_WALK_DONE) == 0);
		CHECK(c(m, MMU_LOAD_CAUSES_WALK) == 0);
		CHECK(c(m, MMU_STORE_WALK_DONE) == c(m, MMU_STORE_CAUSES_WALK));
		mmu_machine_free(m);
	}
}

/* The OS ages pages: every abit_clear_ns it clears the accessed bits.  On
 * the second pass of a load stream the prefetcher's targets were mapped
 * by the first, but their accessed bits have been cleared since, so its
 * walks stop at the leaf (references, no completed walk) until a demand
 * walk sets the bit again.  Without aging they complete. */
static void test_abit_clear(void)
{
	struct mmu_machine *m[2];
	int k;

	mmu_config_default(&cfg);
	for (k = 0; k < 2; k++) {
		cfg.abit_clear_ns = k ? 1000 : 0;
		m[k] = machine(MMU_F_PREFETCH, MMU_PAGE_4K);
		stream(m[k], 2048, 2, 0, 0);
	}
	CHECK(tr(m[0], MMU_C_LOAD, MMU_P_PF_ABIT) == 0);
	CHECK(tr(m[0], MMU_C_LOAD, MMU_P_PF_WALK) > 1000);
	CHECKF(tr(m[1], MMU_C_LOAD, MMU_P_PF_ABIT) > 1000, "%llu",
	       (unsigned long long)tr(m[1], MMU_C_LOAD, MMU_P_PF_ABIT));
	CHECK(tr(m[1], MMU_C_LOAD, MMU_P_PF_WALK) < tr(m[0], MMU_C_LOAD, MMU_P_PF_WALK));
	/* more demand walks, fewer completed prefetch walks */
	CHECK(c(m[1], MMU_LOAD_CAUSES_WALK) > c(m[0], MMU_LOAD_CAUSES_WALK));
	CHECK(c(m[1], MMU_LOAD_WALK_DONE) - c(m[1], MMU_LOAD_CAUSES_WALK) <
	      c(m[0], MMU_LOAD_WALK_DONE) - c(m[0], MMU_LOAD_CAUSES_WALK));
	/* an A-bit abort reads down to the leaf: Σ walk_ref grows by more
	 * than the completed walks' references */
	CHECK(refs(m[1]) > refs(m[0]));
	for (k = 0; k < 2; k++)
		mmu_machine_free(m[k]);
}

/* Mixed pages: with --pages mix a share of the 2M regions is mapped by
 * 2M pages, the rest by 4K pages, in one run: both sizes' walks and STLB
 * hits are counted.  A share of 0 is the 4K machine and 1 the 2M machine,
 * count for count. */
static void test_mixed_pages(void)
{
	struct mmu_machine *m[4];
	uint64_t i, x;
	static const double share[4] = { 0.5, 0, 1, 0.25 };
	static const enum mmu_page pages[2] = { MMU_PAGE_4K, MMU_PAGE_2M };
	int k;

	mmu_config_default(&cfg);
	for (k = 0; k < 4; k++) {
		cfg.mix_2m_share = share[k];
		m[k] = machine(MMU_F_MERGE, MMU_PAGE_MIX);
	}
	for (i = 0, x = 12345; i < 200000; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		for (k = 0; k < 4; k++)
			mmu_access(m[k], BASE + ((x >> 20) % (1ull << 24)) * 64, 0);
	}
	for (k = 0; k < 4; k++)
		mmu_drain(m[k]);
	CHECK(c(m[0], MMU_LOAD_WALK_DONE_4K) > 1000 && c(m[0], MMU_LOAD_WALK_DONE_2M) > 100);
	CHECK(c(m[0], MMU_LOAD_STLB_HIT_2M) > 1000);
	CHECK(c(m[0], MMU_LOAD_WALK_DONE) == c(m[0], MMU_LOAD_WALK_DONE_4K) +
	      c(m[0], MMU_LOAD_WALK_DONE_2M));
	/* a quarter of the regions in 2M pages: fewer 2M hits than half */
	CHECK(c(m[3], MMU_LOAD_STLB_HIT_2M) < c(m[0], MMU_LOAD_STLB_HIT_2M));
	CHECK(c(m[3], MMU_LOAD_WALK_DONE_4K) > c(m[0], MMU_LOAD_WALK_DONE_4K));
	for (k = 0; k < 2; k++) {
		struct mmu_machine *one = machine(MMU_F_MERGE, pages[k]);
		int same;

		for (i = 0, x = 12345; i < 200000; i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			mmu_access(one, BASE + ((x >> 20) % (1ull << 24)) * 64, 0);
		}
		mmu_drain(one);
		same = !memcmp(mmu_counts(one), mmu_counts(m[1 + k]),
			       MMU_N_EVENTS * sizeof(uint64_t));
		CHECKF(same, "share %g differs from %s pages", share[1 + k],
		       mmu_page_name(pages[k]));
		mmu_machine_free(one);
	}
	for (k = 0; k < 4; k++)
		mmu_machine_free(m[k]);
}

/* Replay is a real walk at retirement: it takes a walker for its
 * duration (WALK_DURATION counts it: at least the setup and one L1 hit per
 * replay), walks through the caches (its references are made, not
 * counted) and holds retirement until it ends (the run takes longer). */
static void test_replay_walks(void)
{
	struct mmu_machine *m[2];
	int k;

	mmu_config_default(&cfg);
	cfg.walkers = 1;
	for (k = 0; k < 2; k++) {
		m[k] = machine(MMU_F_MERGE | (k ? MMU_F_REPLAY : 0), MMU_PAGE_4K);
		stream(m[k], 512, 1, 0, 0);
	}
	CHECK(tr(m[0], MMU_C_LOAD, MMU_P_REPLAYED) == 0);
	CHECK(tr(m[1], MMU_C_LOAD, MMU_P_REPLAYED) > 512);
	CHECK(tr(m[1], MMU_C_LOAD, MMU_P_REPLAY_REFS) >=
	      tr(m[1], MMU_C_LOAD, MMU_P_REPLAYED));
	CHECK(c(m[1], MMU_LOAD_WALK_DONE) ==
	      c(m[1], MMU_LOAD_CAUSES_WALK) + tr(m[1], MMU_C_LOAD, MMU_P_REPLAYED));
	CHECK(c(m[1], MMU_LOAD_WALK_DURATION) >= c(m[0], MMU_LOAD_WALK_DURATION) +
	      tr(m[1], MMU_C_LOAD, MMU_P_REPLAYED) * (cfg.walk_setup + cfg.lat_l1));
	CHECK(refs(m[1]) == refs(m[0]));
	CHECK(mmu_cycles(m[1]) > mmu_cycles(m[0]));
	for (k = 0; k < 2; k++)
		mmu_machine_free(m[k]);
}

/* Merging does not know the future: a correct-path load that merges into
 * a wrong-path walk later aborted (feature abort) walks itself when the
 * abort frees the MSHR: two walks started, one completed, and the load
 * retires as an STLB miss with a walk of its own.  Without merging it
 * walks at once (the same counts, no merge_rewalk). */
static void test_merge_rewalk(void)
{
	struct mmu_machine *m[2];
	uint64_t i, n = 40;
	int k;

	mmu_config_default(&cfg);
	for (k = 0; k < 2; k++) {
		m[k] = machine(MMU_F_ABORT | (k ? MMU_F_MERGE : 0), MMU_PAGE_4K);
		for (i = 0; i < n; i++) {
			mmu_access_wrong(m[k], BASE + i * GB, 0);
			mmu_access(m[k], BASE + i * GB + 64, 0);
			mmu_drain(m[k]);
		}
		CHECK(c(m[k], MMU_LOAD_CAUSES_WALK) == 2 * n);
		CHECK(c(m[k], MMU_LOAD_WALK_DONE) == n);
		CHECK(c(m[k], MMU_RETIRED_STLB_MISS_LOADS) == n);
		CHECK(tr(m[k], MMU_C_LOAD, MMU_P_MERGED) == 0);
	}
	CHECK(tr(m[0], MMU_C_LOAD, MMU_P_MERGE_REWALK) == 0);
	CHECKF(tr(m[1], MMU_C_LOAD, MMU_P_MERGE_REWALK) > n / 2, "%llu",
	       (unsigned long long)tr(m[1], MMU_C_LOAD, MMU_P_MERGE_REWALK));
	for (k = 0; k < 2; k++)
		mmu_machine_free(m[k]);
}

/* abort: a wrong-path request that finds no free walker and is squashed
 * before one frees is aborted before its walk starts (no causes_walk);
 * without abort it waits and walks. */
static void test_abort_queued(void)
{
	struct mmu_machine *m[2];
	uint64_t i, n = 20;
	int k;

	mmu_config_default(&cfg);
	cfg.walkers = 1;
	for (k = 0; k < 2; k++) {
		m[k] = machine(k ? MMU_F_ABORT : 0, MMU_PAGE_4K);
		for (i = 0; i < n; i++) {
			mmu_access(m[k], BASE + i * GB, 0);         /* cold: long */
			mmu_access_wrong(m[k], BASE + i * GB + 512 * GB, 1);
			mmu_drain(m[k]);
		}
	}
	CHECK(c(m[0], MMU_STORE_CAUSES_WALK) == n);
	CHECK(tr(m[0], MMU_C_STORE, MMU_P_SQUASHED_WALK) == n);
	CHECK(c(m[1], MMU_STORE_CAUSES_WALK) == 0);
	CHECK(tr(m[1], MMU_C_STORE, MMU_P_ABORTED_QUEUED) == n);
	CHECK(c(m[1], MMU_LOAD_CAUSES_WALK) == n && c(m[1], MMU_LOAD_WALK_DONE) == n);
	for (k = 0; k < 2; k++)
		mmu_machine_free(m[k]);
}

static void test_feature_names(void)
{
	struct cp_error err;
	unsigned f;
	char buf[128];

	CHECK(mmu_features_parse("prefetch,merge,pde_early,pml4_cache,abort,replay,bypass,"
				 "prefetch_dtlb_miss,prefetch_stlb_miss,prefetch_stores",
				 &f, &err) == 0 && f == MMU_F_ALL);
	CHECK(mmu_features_parse("all", &f, &err) == 0 && f == MMU_F_ALL);
	CHECK(mmu_features_parse("none", &f, &err) == 0 && f == 0);
	CHECK(mmu_features_parse("", &f, &err) == 0 && f == 0);
	CHECK(mmu_features_parse("merge,bogus", &f, &err) == CP_EINPUT);
	CHECK(strstr(err.msg, "'bogus'") != NULL);
	mmu_features_format(MMU_F_MERGE | MMU_F_ABORT, buf, sizeof buf);
	CHECK_STR(buf, "merge,abort");
	mmu_features_format(0, buf, sizeof buf);
	CHECK_STR(buf, "none");
}

int main(void)
{
	check_prog = "test_mmu_features";
	RUN(test_feature_names);
	RUN(test_prefetch);
	RUN(test_merge);
	RUN(test_pde_early);
	RUN(test_pml4_cache);
	RUN(test_abort);
	RUN(test_replay);
	RUN(test_bypass);
	RUN(test_prefetch_variants);
	RUN(test_abit_clear);
	RUN(test_mixed_pages);
	RUN(test_replay_walks);
	RUN(test_merge_rewalk);
	RUN(test_abort_queued);
	return check_summary();
}
