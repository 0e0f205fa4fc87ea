/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_mmu.c: accounting tests of the MMU simulator: for every
 * counter, a tiny workload whose correct count follows from its
 * construction; and the conventional-model (m0) relations on a baseline
 * machine with wrong-path μops. */
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

static void reset(void)
{
	mmu_config_default(&cfg);
}

static uint64_t c(const struct mmu_machine *m, enum mmu_event e)
{
	return mmu_counts(m)[e];
}

static void test_event_table(void)
{
	int e, f;

	for (e = 0; e < MMU_N_EVENTS; e++) {
		const struct mmu_event_info *in = mmu_event_info((enum mmu_event)e);

		CHECK(in && in->event && in->name && in->unit && in->desc);
		CHECK(mmu_event_find(in->event) == e);
		CHECK(mmu_event_find(in->name) == e);
		for (f = 0; f < e; f++)
			CHECK(strcmp(in->event, mmu_event_info((enum mmu_event)f)->event));
	}
	CHECK(mmu_event_info(MMU_N_EVENTS) == NULL);
	CHECK(mmu_event_find("DTLB_LOAD_MISSES.NOPE") == -1);
	/* Spelling of a few, as docs/processors/haswell.md names them. */
	CHECK_STR(mmu_event_info(MMU_LOAD_CAUSES_WALK)->event,
		  "DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK");
	CHECK_STR(mmu_event_info(MMU_STORE_WALK_DONE_2M)->event,
		  "DTLB_STORE_MISSES.WALK_COMPLETED_2M_4M");
	CHECK_STR(mmu_event_info(MMU_WALK_REF_MEM)->event,
		  "PAGE_WALKER_LOADS.DTLB_MEMORY");
	CHECK_STR(mmu_event_info(MMU_RETIRED_STLB_MISS_STORES)->event,
		  "MEM_UOPS_RETIRED.STLB_MISS_STORES");
	/* Store events mirror load events at MMU_STORE_OFFSET. */
	for (e = MMU_LOAD_CAUSES_WALK; e <= MMU_LOAD_WALK_DURATION; e++)
		CHECK(!strcmp(strchr(mmu_event_info((enum mmu_event)e)->event, '.'),
			      strchr(mmu_event_info((enum mmu_event)(e + MMU_STORE_OFFSET))->event, '.')));
}

/* N loads to distinct 4K pages, cold TLBs: N walks started and completed,
 * N retired loads that missed the STLB. */
static void test_walks_4k(void)
{
	struct mmu_machine *m;
	uint64_t i, n = 100;

	reset();
	m = machine(0, MMU_PAGE_4K);
	for (i = 0; i < n; i++)
		mmu_access(m, BASE + i * 4 * KB + 8, 0);
	mmu_drain(m);
	CHECK(c(m, MMU_LOAD_CAUSES_WALK) == n);
	CHECK(c(m, MMU_LOAD_WALK_DONE_4K) == n);
	CHECK(c(m, MMU_LOAD_WALK_DONE) == n);
	CHECK(c(m, MMU_LOAD_WALK_DONE_2M) == 0);
	CHECK(c(m, MMU_RETIRED_LOADS) == n);
	CHECK(c(m, MMU_RETIRED_STLB_MISS_LOADS) == n);
	CHECK(c(m, MMU_RETIRED_STORES) == 0);
	CHECK(c(m, MMU_STORE_CAUSES_WALK) == 0);
	CHECK(c(m, MMU_LOAD_STLB_HIT) == 0);
	/* Overlapping walks all miss the PDE cache (it is filled when a
	 * walk ends); one walk at a time, pages of one 2M region miss once. */
	CHECK(c(m, MMU_LOAD_PDE_MISS) >= 1);
	mmu_machine_free(m);
	m = machine(0, MMU_PAGE_4K);
	for (i = 0; i < n; i++) {
		mmu_access(m, BASE + i * 4 * KB + 8, 0);
		mmu_drain(m);
	}
	CHECK(c(m, MMU_LOAD_PDE_MISS) == 1);
	CHECK(c(m, MMU_LOAD_CAUSES_WALK) == n);
	mmu_machine_free(m);
}

/* The same for stores, and 1 store per 4 μops. */
static void test_walks_stores(void)
{
	struct mmu_machine *m;
	uint64_t i, n = 200;

	reset();
	m = machine(0, MMU_PAGE_4K);
	for (i = 0; i < n; i++) {
		mmu_access(m, BASE + i * 4 * KB, i % 4 == 0);
		mmu_drain(m);
	}
	CHECK(c(m, MMU_STORE_CAUSES_WALK) == n / 4);
	CHECK(c(m, MMU_STORE_WALK_DONE_4K) == n / 4);
	CHECK(c(m, MMU_STORE_WALK_DONE) == n / 4);
	CHECK(c(m, MMU_LOAD_CAUSES_WALK) == n - n / 4);
	CHECK(c(m, MMU_RETIRED_STORES) == n / 4);
	CHECK(c(m, MMU_RETIRED_LOADS) == n - n / 4);
	CHECK(c(m, MMU_RETIRED_STLB_MISS_STORES) == n / 4);
	CHECK(c(m, MMU_RETIRED_STLB_MISS_LOADS) == n - n / 4);
	/* The first access of the region is a store: one store PDE miss. */
	CHECK(c(m, MMU_STORE_PDE_MISS) == 1);
	CHECK(c(m, MMU_LOAD_PDE_MISS) == 0);
	mmu_machine_free(m);
}

static void test_walks_2m_1g(void)
{
	struct mmu_machine *m;
	uint64_t i, n = 20;

	reset();
	m = machine(0, MMU_PAGE_2M);
	for (i = 0; i < n; i++) {
		mmu_access(m, BASE + i * 2 * MB, 0);
		mmu_drain(m);
		mmu_access(m, BASE + i * 2 * MB + 64, 1);   /* same page: DTLB hit */
	}
	CHECK(c(m, MMU_LOAD_WALK_DONE_2M) == n);
	CHECK(c(m, MMU_LOAD_WALK_DONE_4K) == 0);
	CHECK(c(m, MMU_LOAD_WALK_DONE) == n);
	CHECK(c(m, MMU_STORE_CAUSES_WALK) == 0);
	/* Every 2M or 1G walk misses the PDE cache (it holds 4K PDEs only). */
	CHECK(c(m, MMU_LOAD_PDE_MISS) == n);
	mmu_machine_free(m);

	m = machine(0, MMU_PAGE_1G);
	for (i = 0; i < 3; i++) {
		mmu_access(m, BASE + i * GB, 1);
		mmu_drain(m);
	}
	for (i = 3; i < 5; i++) {
		mmu_access(m, BASE + i * GB, 0);
		mmu_drain(m);
	}
	CHECK(c(m, MMU_LOAD_WALK_DONE_1G) == 2);
	CHECK(c(m, MMU_LOAD_WALK_DONE) == 2);
	CHECK(c(m, MMU_STORE_WALK_DONE_1G) == 3);
	CHECK(c(m, MMU_STORE_WALK_DONE) == 3);
	CHECK(c(m, MMU_STORE_PDE_MISS) == 3);
	/* 1G walk without a PML4E cache: PML4E + PDPTE, 2 references. */
	CHECK(c(m, MMU_WALK_REF_L1) + c(m, MMU_WALK_REF_L2) +
	      c(m, MMU_WALK_REF_L3) + c(m, MMU_WALK_REF_MEM) == 10);
	mmu_machine_free(m);

	m = machine(0, MMU_PAGE_2M);
	for (i = 0; i < n; i++) {
		mmu_access(m, BASE + i * 2 * MB, 1);
		mmu_drain(m);
	}
	CHECK(c(m, MMU_STORE_WALK_DONE_2M) == n);
	CHECK(c(m, MMU_STORE_WALK_DONE) == n);
	CHECK(c(m, MMU_STORE_CAUSES_WALK) == n);
	CHECK(c(m, MMU_RETIRED_STLB_MISS_STORES) == n);
	mmu_machine_free(m);
}

/* 256 pages (4x the L1 DTLB, 1/4 of the STLB) touched twice: the second
 * pass misses the L1 DTLB (LRU, cyclic) and hits the STLB every time. */
static void test_stlb_hits(void)
{
	struct mmu_machine *m;
	uint64_t i, n = 256;
	int pass;

	reset();
	m = machine(0, MMU_PAGE_4K);
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < n; i++)
			mmu_access(m, BASE + i * 4 * KB, pass == 1 && i % 2);
		mmu_drain(m);
	}
	CHECK(c(m, MMU_LOAD_STLB_HIT_4K) == n / 2);
	CHECK(c(m, MMU_STORE_STLB_HIT_4K) == n / 2);
	CHECK(c(m, MMU_LOAD_STLB_HIT) == n / 2);
	CHECK(c(m, MMU_STORE_STLB_HIT) == n / 2);
	CHECK(c(m, MMU_LOAD_STLB_HIT_2M) == 0);
	CHECK(c(m, MMU_LOAD_CAUSES_WALK) == n);
	CHECK(c(m, MMU_RETIRED_STLB_MISS_LOADS) == n);
	mmu_machine_free(m);

	m = machine(0, MMU_PAGE_2M);
	n = 128;     /* 4x the 2M L1 DTLB */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < n; i++)
			mmu_access(m, BASE + i * 2 * MB, pass == 1 && i % 2);
		mmu_drain(m);
	}
	CHECK(c(m, MMU_LOAD_STLB_HIT_2M) == n / 2);
	CHECK(c(m, MMU_STORE_STLB_HIT_2M) == n / 2);
	CHECK(c(m, MMU_LOAD_STLB_HIT) == n / 2);
	CHECK(c(m, MMU_STORE_STLB_HIT) == n / 2);
	CHECK(c(m, MMU_STORE_STLB_HIT_4K) == 0);
	mmu_machine_free(m);
}

/* PDE-cache misses: pages in distinct 2M regions miss, neighbours hit. */
static void test_pde_miss(void)
{
	struct mmu_machine *m;
	uint64_t i;

	reset();
	m = machine(0, MMU_PAGE_4K);
	for (i = 0; i < 10; i++) {
		mmu_access(m, BASE + i * 2 * MB, 0);       /* new region: miss */
		mmu_drain(m);
		mmu_access(m, BASE + i * 2 * MB + 4 * KB, 1); /* same PDE: hit */
		mmu_drain(m);
	}
	CHECK(c(m, MMU_LOAD_PDE_MISS) == 10);
	CHECK(c(m, MMU_STORE_PDE_MISS) == 0);
	CHECK(c(m, MMU_STORE_CAUSES_WALK) == 10);
	mmu_machine_free(m);
}

/* Walker references and their levels.  A cold walk makes 4 references
 * to memory; the next page's walk hits the PDE cache and reads the PTE
 * line just read (8 PTEs a line): 1 L1 reference.  With a one-line L1,
 * the data access evicts it, so the reference is served by L2; with a
 * one-line L2 as well, by L3. */
static void test_walk_refs(void)
{
	struct mmu_machine *m;
	int lvl;

	for (lvl = 0; lvl < 3; lvl++) {
		reset();
		if (lvl >= 1) {
			cfg.l1_bytes = 64;
			cfg.l1_ways = 1;
		}
		if (lvl >= 2) {
			cfg.l2_bytes = 64;
			cfg.l2_ways = 1;
		}
		m = machine(0, MMU_PAGE_4K);
		mmu_access(m, BASE, 0);
		mmu_drain(m);
		CHECK(c(m, MMU_WALK_REF_MEM) == 4);
		mmu_access(m, BASE + 4 * KB, 0);
		mmu_drain(m);
		CHECK(c(m, MMU_WALK_REF_MEM) == 4);
		CHECKF(c(m, (enum mmu_event)(MMU_WALK_REF_L1 + lvl)) == 1,
		       "level %d", lvl);
		CHECK(c(m, MMU_WALK_REF_L1) + c(m, MMU_WALK_REF_L2) +
		      c(m, MMU_WALK_REF_L3) == 1);
		mmu_machine_free(m);
	}
}

/* WALK_DURATION: a cold 4K walk takes walk_setup + 4 memory latencies;
 * a PDE-cache hit walk from L1, walk_setup + one L1 latency. */
static void test_walk_duration(void)
{
	struct mmu_machine *m;

	reset();
	m = machine(0, MMU_PAGE_4K);
	mmu_access(m, BASE, 0);
	mmu_drain(m);
	CHECK(c(m, MMU_LOAD_WALK_DURATION) == cfg.walk_setup + 4ull * cfg.lat_mem);
	mmu_access(m, BASE + 4 * KB, 1);
	mmu_drain(m);
	CHECK(c(m, MMU_STORE_WALK_DURATION) == cfg.walk_setup + cfg.lat_l1);
	CHECK(c(m, MMU_LOAD_WALK_DURATION) == cfg.walk_setup + 4ull * cfg.lat_mem);
	mmu_machine_free(m);
}

/* DTLB hits count nothing but retirement. */
static void test_dtlb_hits(void)
{
	struct mmu_machine *m;
	uint64_t i;

	reset();
	m = machine(MMU_F_ALL, MMU_PAGE_4K);
	mmu_access(m, BASE, 0);
	mmu_drain(m);
	for (i = 0; i < 1000; i++)
		mmu_access(m, BASE + (i % 64) * 64, i % 3 == 0);
	mmu_drain(m);
	CHECK(c(m, MMU_LOAD_CAUSES_WALK) == 1);
	CHECK(c(m, MMU_LOAD_WALK_DONE) == 1);
	CHECK(c(m, MMU_LOAD_STLB_HIT) == 0);
	CHECK(c(m, MMU_RETIRED_LOADS) == 1 + 666);
	CHECK(c(m, MMU_RETIRED_STORES) == 334);
	CHECK(c(m, MMU_RETIRED_STLB_MISS_LOADS) == 1);
	CHECK(mmu_truth(m)[MMU_C_LOAD * MMU_N_PATHS + MMU_P_DTLB_HIT] == 666);
	mmu_machine_free(m);
}

/* Wrong-path μops walk but never retire; without abort their walks
 * complete. */
static void test_wrong_path_baseline(void)
{
	struct mmu_machine *m;
	uint64_t i;

	reset();
	m = machine(0, MMU_PAGE_4K);
	for (i = 0; i < 10; i++) {
		mmu_access_wrong(m, BASE + i * 2 * MB, 0);
		mmu_drain(m);
	}
	CHECK(c(m, MMU_LOAD_CAUSES_WALK) == 10);
	CHECK(c(m, MMU_LOAD_WALK_DONE) == 10);
	CHECK(c(m, MMU_RETIRED_LOADS) == 0);
	CHECK(c(m, MMU_RETIRED_STLB_MISS_LOADS) == 0);
	CHECK(mmu_truth(m)[MMU_P_SQUASHED_WALK] == 10);
	CHECK(mmu_truth(m)[MMU_P_SQUASHED] == 0);
	mmu_machine_free(m);
}

/* The conventional model's relations hold on a baseline machine running
 * random and linear workloads with wrong-path μops, chunk by chunk. */
static void test_m0_relations(void)
{
	static const char *const specs[] = {
		"random:footprint=4G,stores=0.3",
		"linear:footprint=16M,stride=64,stores=0.2",
		"linear:footprint=1G,stride=4K,dir=down,stores=0.5",
	};
	size_t s, chunk, k;
	int page;

	reset();
	for (s = 0; s < 3; s++)
		for (page = 0; page < MMU_N_PAGES; page++) {
			struct cp_error err;
			struct mmu_workload *w = mmu_workload_new(specs[s], 3, &err);
			struct mmu_machine *m = machine(0, (enum mmu_page)page);
			uint64_t prev[MMU_N_EVENTS], d[MMU_N_EVENTS];

			if (!w || !m) {
				CHECK(0);
				mmu_workload_free(w);
				mmu_machine_free(m);
				continue;
			}
			memset(prev, 0, sizeof prev);
			for (chunk = 0; chunk < 20; chunk++) {
				int cls, e;

				for (k = 0; k < 5000; k++) {
					uint64_t va;
					int st;

					mmu_workload_next(w, &va, &st);
					if (k % 16 == 5)
						mmu_access_wrong(m, va + 3 * 4096, st);
					mmu_access(m, va, st);
				}
				for (e = 0; e < MMU_N_EVENTS; e++) {
					d[e] = mmu_counts(m)[e] - prev[e];
					prev[e] = mmu_counts(m)[e];
				}
				for (cls = 0; cls < 2; cls++) {
					unsigned o = cls ? MMU_STORE_OFFSET : 0;
					uint64_t cw = d[MMU_LOAD_CAUSES_WALK + o];
					uint64_t wd = d[MMU_LOAD_WALK_DONE + o];

					CHECK(cw == wd);     /* no aborts */
					CHECK(d[MMU_RETIRED_STLB_MISS_LOADS + cls] <= wd);
					CHECK(d[MMU_LOAD_PDE_MISS + o] <= cw);
					CHECK(wd == d[MMU_LOAD_WALK_DONE_4K + o] +
					      d[MMU_LOAD_WALK_DONE_2M + o] +
					      d[MMU_LOAD_WALK_DONE_1G + o]);
					CHECK(d[MMU_LOAD_STLB_HIT + o] ==
					      d[MMU_LOAD_STLB_HIT_4K + o] +
					      d[MMU_LOAD_STLB_HIT_2M + o]);
				}
				{
					uint64_t walks = d[MMU_LOAD_WALK_DONE] +
							 d[MMU_STORE_WALK_DONE];
					uint64_t refs = d[MMU_WALK_REF_L1] + d[MMU_WALK_REF_L2] +
							d[MMU_WALK_REF_L3] + d[MMU_WALK_REF_MEM];

					CHECKF(refs >= walks && refs <= 4 * walks,
					       "%s %s: refs %llu walks %llu", specs[s],
					       mmu_page_name((enum mmu_page)page),
					       (unsigned long long)refs,
					       (unsigned long long)walks);
				}
			}
			CHECK(mmu_counts(m)[MMU_RETIRED_LOADS] +
			      mmu_counts(m)[MMU_RETIRED_STORES] == 100000);
			mmu_workload_free(w);
			mmu_machine_free(m);
		}
}

/* Data's physical memory: below 4 TB a virtual address is its own
 * physical address; above, each 1G region gets the next 1G frame from
 * 6 TB on when first touched, keeping the address's low 30 bits (so
 * lines keep their sets and two regions never share a line); past
 * MMU_DATA_HI_GB such regions the machine reports CP_ELIMIT. */
static void test_physical_memory(void)
{
	const uint64_t hi = 4096 * GB, frames = 6144 * GB;
	struct mmu_machine *m;
	uint64_t i;

	reset();
	m = machine(0, MMU_PAGE_4K);
	CHECK(mmu_machine_status(m) == CP_OK);
	mmu_access(m, BASE + 5 * GB + 4160, 0);
	CHECK(mmu_data_pa(m, BASE + 5 * GB + 4160) == BASE + 5 * GB + 4160);
	CHECK(mmu_data_pa(m, hi - 1) == hi - 1);
	mmu_access(m, hi + 7 * GB + 4160, 0);
	CHECK(mmu_data_pa(m, hi + 7 * GB + 4160) == frames + 4160);
	CHECK(mmu_data_pa(m, hi + 7 * GB + GB - 1) == frames + GB - 1);
	/* a region the μops have not touched gets the next frame */
	CHECK(mmu_data_pa(m, 10 * hi + 64) == frames + GB + 64);
	mmu_access(m, 10 * hi + 128, 1);
	CHECK(mmu_data_pa(m, 10 * hi) == frames + GB);
	CHECK(mmu_data_pa(m, hi + 7 * GB) == frames);
	/* addresses are 47-bit: bit 47 and above are dropped */
	CHECK(mmu_data_pa(m, (1ull << 47) + 10 * hi + 3) == frames + GB + 3);
	CHECK(mmu_data_pa(m, (1ull << 47) + 3) == 3);
	mmu_drain(m);
	CHECK(mmu_machine_status(m) == CP_OK);
	CHECK(c(m, MMU_RETIRED_LOADS) == 2 && c(m, MMU_RETIRED_STORES) == 1);
	mmu_machine_free(m);

	/* every frame taken, then one region too many (1G pages: a walk
	 * makes no page table) */
	m = machine(0, MMU_PAGE_1G);
	for (i = 0; i < MMU_DATA_HI_GB; i++)
		mmu_access(m, hi + i * GB + (i & 63) * 64, 0);
	mmu_drain(m);
	CHECK(mmu_machine_status(m) == CP_OK);
	CHECK(mmu_data_pa(m, hi + (MMU_DATA_HI_GB - 1) * GB) ==
	      frames + (MMU_DATA_HI_GB - 1) * GB);
	for (i = 0; i < 4 * GB; i += GB)
		mmu_access(m, BASE + i, 0);   /* below 4 TB: no frame needed */
	mmu_drain(m);
	CHECK(mmu_machine_status(m) == CP_OK);
	mmu_access(m, hi + MMU_DATA_HI_GB * GB, 0);
	mmu_drain(m);
	CHECK(mmu_machine_status(m) == CP_ELIMIT);
	CHECK(c(m, MMU_RETIRED_LOADS) == MMU_DATA_HI_GB + 5);
	mmu_machine_free(m);
}

int main(void)
{
	check_prog = "test_mmu";
	RUN(test_event_table);
	RUN(test_walks_4k);
	RUN(test_walks_stores);
	RUN(test_walks_2m_1g);
	RUN(test_stlb_hits);
	RUN(test_pde_miss);
	RUN(test_walk_refs);
	RUN(test_walk_duration);
	RUN(test_dtlb_hits);
	RUN(test_wrong_path_baseline);
	RUN(test_m0_relations);
	RUN(test_physical_memory);
	return check_summary();
}
