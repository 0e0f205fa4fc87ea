/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hw/sim/machine_int.h: the simulated machine's state, shared by
 * hw/sim/machine.c (the μop path: lookups, walks, prefetches, replays)
 * and hw/sim/machine_new.c (building and freeing a machine, its
 * accessors).  Internal to hw/sim/. */
#ifndef COUNTERPOINT_HW_SIM_MACHINE_INT_H
#define COUNTERPOINT_HW_SIM_MACHINE_INT_H

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "hw/sim/mmu.h"
#include "hw/sim/sa.h"
#include "hw/sim/sim_int.h"

#define NONE UINT64_MAX
#define STLB_CYCLES 7             /* STLB hit latency */
/* Physical memory, 8 TB, below 2^PT_BITS (so the tags of the default
 * cache models, of 64 sets and more, fit 32 bits): data at virtual
 * addresses below 4 TB (PT_BASE) at the same physical address; page
 * tables in 4K frames from PT_BASE on; data above 4 TB in 1G frames
 * from HI_BASE on, a region of 1G of virtual addresses given the next
 * free frame when the machine first touches its data (data_pa()). */
#define PT_BASE (1ull << 42)      /* page-table frames, 2 TB of them */
#define PT_FRAMES (1u << 29)
#define HI_BASE (PT_BASE + ((uint64_t)PT_FRAMES << 12))  /* 1G frames of
					 * data above PT_BASE, after them */
#define PT_BITS 43
_Static_assert(HI_BASE + ((uint64_t)MMU_DATA_HI_GB << 30) == 1ull << PT_BITS,
	       "physical memory ends at 2^PT_BITS");
#define DFILLS 8                  /* pending DTLB fills from STLB hits */
#define E_LEAF 0x80000000u        /* a directory entry mapping a large page */

/* The default machine's shape of each structure (sets - 1, log2(sets),
 * ways, wide tags, where its hits fall: enum sa_mru) and its walkers.
 * hw/sim/machine.c compiles the μop path once with these as constants,
 * which a machine of exactly this shape runs (m->fast: FAST_SHAPES), and
 * once reading them from the structures (FAST_NONE), for any other. */
#define SHAPE(sets, shift, ways, wide, mru) \
	((struct sa_shape){ (sets) - 1, (shift), (ways), (wide), (mru) })
#define DTLB4K_SHAPE SHAPE(16, 4, 4, 0, MRU_SKIP)
#define DTLB2M_SHAPE SHAPE(8, 3, 4, 0, MRU_SKIP)
#define DTLB1G_SHAPE SHAPE(1, 0, 4, 0, MRU_SKIP)
#define STLB_SHAPE SHAPE(128, 7, 8, 0, MRU_ANY)
#define PDE_SHAPE SHAPE(8, 3, 4, 0, MRU_ANY)
#define PDPTE_SHAPE SHAPE(1, 0, 4, 0, MRU_FIRST)  /* one entry per 1G of the footprint */
#define PML4_SHAPE SHAPE(1, 0, 2, 0, MRU_FIRST)
#define L1_SHAPE SHAPE(64, 6, 8, 0, MRU_ANY)      /* line tags: 37 - 6 bits */
#define L2_SHAPE SHAPE(512, 9, 8, 0, MRU_ANY)
#define L3_SHAPE SHAPE(8192, 13, 16, 0, MRU_ANY)
/* m->fast: the copy of the μop path a machine runs (hw/sim/machine.c) */
enum { FAST_NONE, FAST_SHAPES };
#define FAST_WALKERS 2

/* ---- page tables: nodes of 512 entries, levels 3 (PML4) .. 0 (PT) ----
 * Two pools, so a walk touches one host cache line per level: directory
 * nodes (levels 3..1), 64-bit entries holding in the low half the
 * child's index + 1 (0 = absent) or, for a large page, E_LEAF | its
 * state, and in the high half the child's frame; and page tables (level
 * 0), one byte per entry holding its state (0 = absent).  A node's frame
 * is its number in creation order (the root's is 0), which places it in
 * physical memory (PT_BASE + frame · 4K); its parent's entry holds it,
 * so a walk finds where an entry lives as it goes down. */
struct ptpool {
	void *ent;             /* 512 entries per node */
	void *mem;             /* the allocation holding ent (aligned in it) */
	size_t n, cap, esize;
};

/* ---- walk MSHRs ---- */
enum walk_kind { W_DEMAND, W_PREFETCH, W_REPLAY };

struct mshr {
	uint64_t key, va, end;   /* page key (page_key()) of the walk in flight
				  * and when it ends: both NONE when the
				  * MSHR is free */
	uint8_t fill;            /* completes: fill TLBs and PSCs at end */
	uint8_t size;            /* page size of its translation */
	uint8_t kind;            /* enum walk_kind */
};

/* A replay waiting for its μop's retirement (feature replay). */
struct replay {
	uint64_t t, va, seq;     /* retirement cycle, address, μop number */
	uint8_t cls, size;
};

/* The places of a μop class's counters: the DTLB_LOAD_MISSES.* events,
 * or from their DTLB_STORE_MISSES.* twins on, and its row of the ground
 * truth (m->rows[class], pointing into the machine's own arrays). */
struct rows {
	uint64_t *count, *truth;
};

struct mmu_machine {
	struct mmu_config cfg;
	unsigned features;
	int fast;                     /* the copy of the μop path: FAST_SHAPES
				       * or FAST_NONE */
	enum mmu_page mode;           /* one page size, or MMU_PAGE_MIX */
	uint64_t rng;
	uint64_t mix_cut, mix_salt;   /* mix: a 2M region is 2M if hash < cut */

	struct sa dtlb[MMU_N_PAGES], stlb, pde, pdpte, pml4, l1, l2, l3;
	unsigned lat[4];

	struct ptpool dir, pt;        /* directories (root: dir 0), page tables */
	uint32_t n_nodes;             /* nodes made, both pools */
	int nomem;                    /* a node allocation failed */
	/* data above PT_BASE: the physical base of each 1G region's frame
	 * (0: not touched yet), indexed by (va - PT_BASE) >> 30, and the
	 * frames given so far */
	uint64_t *gb_pa;
	unsigned n_gb;
	int phys_full;                /* a region found no frame */

	/* the OS's page aging: a leaf is accessed when its state is epoch */
	uint8_t epoch;
	uint64_t next_clear, clear_cycles;

	struct mshr *mshr;
	uint64_t next_end;            /* earliest end among busy MSHRs */
	uint64_t max_end;             /* latest end of a demand or prefetch walk */

	uint64_t now;                 /* cycles */
	uint64_t *ring;               /* retire times of the last window μops */
	size_t slot;                  /* n_correct % window: the next μop's */
	uint64_t last_retire;
	uint64_t n_correct, n_uops;

	struct replay *rq;            /* replays in retirement order (window) */
	size_t rq_head, rq_n;
	uint64_t rq_t;                /* the oldest replay's t (NONE: none) */
	/* retirement held by replays: every μop from seq on retires at t or
	 * later (steps in μop order, t increasing); hold_t: the steps reached */
	struct hold { uint64_t seq, t; } *hold;
	size_t hold_head, hold_n;
	uint64_t hold_t;
	uint64_t hold_due;            /* the oldest step's seq + window: the
				       * n_correct that reaches it (NONE: none) */

	/* L1 DTLB fills of STLB hits, due STLB_CYCLES after the lookup */
	struct { uint64_t vpn, t; unsigned size; } dfill[DFILLS];
	unsigned n_dfill;

	/* A request waiting for a walker watches the fills made meanwhile
	 * (translate()): of its page (TLBs) and of its PDE-cache entry */
	uint64_t watch_key, watch_pde;
	unsigned watch_seen;          /* SEEN_TLB | SEEN_PDE */

	uint64_t pf_prev_line;        /* line address of the previous trigger μop */
	/* walk(): the 1G region (NONE: none) whose page directory the last
	 * walk through it found, its index and frame */
	uint64_t walk_gb, walk_frame;
	uint32_t walk_node;

	/* bypass: the walker's fill buffer, the last paging-structure lines
	 * fetched and when each arrived (0: empty); fb_low: the low halves
	 * of the lines, compared first */
	uint64_t fb_line[8], fb_ready[8];
	uint32_t fb_low[8] __attribute__((aligned(16)));
	unsigned fb_next;

	uint64_t count[MMU_N_EVENTS];
	uint64_t truth[MMU_N_CLASSES * MMU_N_PATHS];
	struct rows rows[MMU_N_CLASSES];
};

static const unsigned page_shift[MMU_N_PAGES] = { 12, 21, 30 };

/* Leaf states: 0 absent; else present, and accessed when equal to the
 * current epoch (1..STATE_OLD-1); STATE_OLD: present, not accessed. */
#define STATE_OLD 255u

/* Pools from this size on are 2 MB aligned and, where the system has
 * transparent huge pages, advised to use them: a walk reads a random byte
 * of megabytes of page tables (random 16G: 4 MB), and the host's TLB
 * misses on them cost more than the walk's own work. */
#define POOL_HUGE (2u << 20)

/* Move pool p to a block of cap nodes (uninitialised past its nodes). */
static inline int pool_grow(struct ptpool *p, size_t cap)
{
	size_t node = 512 * p->esize, bytes, align;
	char *mem, *ent;

	if (cap > (SIZE_MAX - POOL_HUGE) / node)
		return CP_ENOMEM;
	bytes = cap * node;
	align = bytes >= POOL_HUGE ? POOL_HUGE : 64;
	mem = cp_malloc(bytes + align - 1);
	if (!mem)
		return CP_ENOMEM;
	ent = mem + (-(uintptr_t)mem & (align - 1));
#ifdef MADV_HUGEPAGE
	if (align == POOL_HUGE)
		(void)madvise(ent, bytes, MADV_HUGEPAGE);   /* a hint: failure is fine */
#endif
	if (p->n)
		memcpy(ent, p->ent, p->n * node);
	cp_free(p->mem);
	p->mem = mem;
	p->ent = ent;
	p->cap = cap;
	return CP_OK;
}

/* A new empty node in pool p; returns its index + 1, 0 when out of
 * memory (m->nomem set, or m->phys_full: no page-table frame left), and
 * its frame in *frame.  May move the pool. */
static inline uint32_t node_new(struct mmu_machine *m, struct ptpool *p,
				uint32_t *frame)
{
	if (m->n_nodes == PT_FRAMES) {
		m->phys_full = 1;
		return 0;
	}
	if (p->n == p->cap && pool_grow(p, p->cap ? 2 * p->cap : 16)) {
		m->nomem = 1;
		return 0;
	}
	memset((char *)p->ent + p->n * 512 * p->esize, 0, 512 * p->esize);
	*frame = m->n_nodes++;
	return (uint32_t)++p->n;
}

/* A 1G frame for data in region ((va - PT_BASE) >> 30) that has none:
 * the next one, or with all MMU_DATA_HI_GB taken (m->phys_full set)
 * the first of them again, which makes the run's results meaningless:
 * mmu_machine_status() fails it. */
uint64_t mmu_data_frame_new(struct mmu_machine *m, size_t region);

/* The physical address the caches see for data at va (47-bit): va
 * below 4 TB, else its region's frame (given on first touch) and va's
 * offset in the region.  Either keeps the low 30 bits, so a line's set in
 * every cache model is its virtual address's, and two lines share a tag
 * only if they are the same line. */
static inline __attribute__((always_inline)) uint64_t
data_pa(struct mmu_machine *m, uint64_t va)
{
	size_t region;
	uint64_t base;

	if (__builtin_expect(va < PT_BASE, 1))
		return va;
	region = (size_t)((va - PT_BASE) >> 30);
	base = m->gb_pa[region];
	if (__builtin_expect(!base, 0))
		base = mmu_data_frame_new(m, region);
	return base | (va & ((1ull << 30) - 1));
}

/* Directory entry e of directory node (an index, not + 1). */
static inline uint64_t *dir_entry(const struct mmu_machine *m, uint32_t node,
				  unsigned e)
{
	return (uint64_t *)m->dir.ent + (size_t)node * 512 + e;
}

/* What a directory entry points to: the child's index and frame. */
static inline uint32_t ent_node(uint64_t ent)
{
	return (uint32_t)ent - 1;
}

static inline uint64_t ent_frame(uint64_t ent)
{
	return ent >> 32;
}

#endif
