/* tests/unit/test_mmu_features.c: each feature switch of the MMU
 * simulator changes exactly the counter relations docs/simulator.md says
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
	CHECK(mmu_truth(on)[MMU_P_PF_ABORTED] == 256);
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

static void test_feature_names(void)
{
	struct cp_error err;
	unsigned f;
	char buf[128];

	CHECK(mmu_features_parse("prefetch,merge,pde_early,pml4_cache,abort,replay,bypass",
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
	return check_summary();
}
