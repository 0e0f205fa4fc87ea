/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hw/sim/machine.c: the simulated MMU.  A memory μop looks up the L1 DTLB
 * and the STLB; a miss takes a walk MSHR (or merges into one), consults
 * the paging-structure caches and walks a 4-level radix table built by a
 * simulated OS, each reference going through an L1/L2/L3 cache model.
 * Counters are incremented where the μop takes its path, never derived.
 *
 * Time: the machine issues μops in program order, uop_cycles apart, and
 * stalls when the window of in-flight μops is full (the oldest has not
 * retired) or when no walker is free.  A walk's outcome (references,
 * levels, end time, abort) is decided when it starts, and counted then;
 * its fills (TLBs, paging-structure caches) happen at its end time. */
#include <stdlib.h>
#include <string.h>

#include "hw/sim/machine_int.h"
#include "hw/sim/sim_int.h"

/* The μop path is compiled twice (see DTLB4K_SHAPE): its functions take
 * `fast`, a constant in each copy (FAST_NONE, the general one, or
 * FAST_SHAPES, for the default machine's shapes) that mmu_stream_run()
 * and mmu_access_wrong() choose between, and are inlined into both
 * (HOT), so that each set-associative operation of the FAST_SHAPES copy
 * is a straight line for its structure's shape.  Rare steps (page aging,
 * prefetches, building nodes) take `fast` as a plain argument. */
#if defined(__SANITIZE_ADDRESS__)          /* GCC's */
#define MMU_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)     /* clang's */
#define MMU_SANITIZED 1
#endif
#endif
#ifdef MMU_SANITIZED
/* sanitized builds (the tests' and the fuzz targets') inline as the
 * compiler sees fit: forced, their copies took minutes to compile */
#define HOT static inline
#else
#define HOT static inline __attribute__((always_inline))
#endif

/* Operation OP (lookup, access, probe) on structure s: at the default
 * machine's shape sh when fast, else at the structure's own. */
#define SA(OP, s, key, fast, sh) \
	((fast) ? sa_##OP##_as(s, key, sh) : sa_##OP(s, key))

/* Operation OP on the L1 DTLB of page size `size` (each has its shape). */
#define DTLB(OP, m, size, vpn, fast) \
	(!(fast) ? sa_##OP(&(m)->dtlb[size], vpn) : \
	 (size) == MMU_PAGE_4K ? \
		sa_##OP##_as(&(m)->dtlb[MMU_PAGE_4K], vpn, DTLB4K_SHAPE) : \
	 (size) == MMU_PAGE_2M ? \
		sa_##OP##_as(&(m)->dtlb[MMU_PAGE_2M], vpn, DTLB2M_SHAPE) : \
		sa_##OP##_as(&(m)->dtlb[MMU_PAGE_1G], vpn, DTLB1G_SHAPE))

/* The machine's features. */
HOT unsigned feats(const struct mmu_machine *m, int fast)
{
	(void)fast;
	return m->features;
}

/* What a waiting request watches (m->watch_seen). */
#define SEEN_TLB 1u               /* a fill of its page: DTLB or STLB */
#define SEEN_PDE 2u               /* a fill of its PDE-cache entry */

/* The page size of va: the run's, or with --pages mix the size the OS
 * gave va's 2M region (a seeded hash against mix_2m_share: transparent
 * huge pages where the kernel found a free 2M frame). */
HOT unsigned page_of(const struct mmu_machine *m, uint64_t va, int fast)
{
	uint64_t h;

	(void)fast;
	if (m->mode != MMU_PAGE_MIX) {
		if ((unsigned)m->mode >= MMU_N_PAGES)   /* (for the compiler) */
			__builtin_unreachable();
		return (unsigned)m->mode;
	}
	h = ((va >> 21) ^ m->mix_salt) * 0x9e3779b97f4a7c15ull;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 32;
	return h < m->mix_cut ? MMU_PAGE_2M : MMU_PAGE_4K;
}

/* One key per translation, unique across page sizes (MSHRs, STLB). */
static inline uint64_t vpn_key(uint64_t vpn, unsigned size)
{
	return vpn | (uint64_t)(size != MMU_PAGE_4K) << 35 |
	       (uint64_t)(size == MMU_PAGE_1G) << 34;
}

static inline uint64_t page_key(uint64_t va, unsigned size)
{
	return vpn_key(va >> page_shift[size], size);
}

/* ---- the OS: page aging ---- */

/* Clear every leaf's accessed bit: a new epoch (the states of the old
 * ones read as not accessed).  When the epochs run out, every present
 * leaf is set to STATE_OLD and counting starts again.  No TLB is
 * flushed, as x86 Linux does not flush when it ages a page. */
static void os_age(struct mmu_machine *m)
{
	size_t i;

	while (m->now >= m->next_clear) {
		m->next_clear += m->clear_cycles;
		if (m->epoch + 1u < STATE_OLD) {
			m->epoch++;
			continue;
		}
		for (i = 0; i < m->pt.n * 512; i++)
			if (((uint8_t *)m->pt.ent)[i])
				((uint8_t *)m->pt.ent)[i] = STATE_OLD;
		for (i = 0; i < m->dir.n * 512; i++)
			if (((uint64_t *)m->dir.ent)[i] & E_LEAF)
				((uint64_t *)m->dir.ent)[i] = E_LEAF | STATE_OLD;
		m->epoch = 1;
	}
}

/* ---- the cache hierarchy: returns the level that served pa (0..3) ---- */
HOT unsigned cache_access(struct mmu_machine *m, uint64_t pa, int fast)
{
	uint64_t line = pa >> 6;

	if (SA(access, &m->l1, line, fast, L1_SHAPE))
		return 0;
	if (SA(access, &m->l2, line, fast, L2_SHAPE))
		return 1;
	if (SA(access, &m->l3, line, fast, L3_SHAPE))
		return 2;
	return 3;
}

/* A μop's class (enum mmu_class) as the places of its counters (struct
 * rows), found once per μop, so that an event on its path is one add at
 * a known place. */
static inline struct rows rows_of(const struct mmu_machine *m, int cls)
{
	return m->rows[cls];
}

/* A DTLB_LOAD_MISSES.* event, or its DTLB_STORE_MISSES.* twin. */
static inline void count(struct rows k, enum mmu_event e)
{
	k.count[e]++;
}

static inline void truth(struct rows k, enum mmu_path p)
{
	k.truth[p]++;
}

/* A completed walk: WALK_COMPLETED and its size event. */
static inline void count_done(struct rows k, unsigned size)
{
	count(k, (enum mmu_event)(MMU_LOAD_WALK_DONE_4K + size));
	count(k, MMU_LOAD_WALK_DONE);
}

/* ---- walks ---- */
struct walk_out {
	unsigned refs;        /* references made (counted or bypassed) */
	unsigned bypassed;    /* of which served by the fill buffer */
	unsigned first;       /* level of the first reference (PSC hits above) */
	int completed;
	int abit;             /* prefetch: stopped at a clear accessed bit */
	uint64_t end;
};

/* The fills of a completed walk of page key, at its end time, watched
 * by a waiting request (translate()). */
HOT void walk_fill(struct mmu_machine *m, uint64_t va, unsigned size,
		   uint64_t key, int fast)
{
	if (key == m->watch_key)
		m->watch_seen |= SEEN_TLB;
	(void)DTLB(access, m, size, va >> page_shift[size], fast);
	if (size != MMU_PAGE_1G) {
		(void)SA(access, &m->stlb, key, fast, STLB_SHAPE);
		(void)SA(access, &m->pdpte, va >> 30, fast, PDPTE_SHAPE);
	}
	if (size == MMU_PAGE_4K) {
		if (va >> 21 == m->watch_pde)
			m->watch_seen |= SEEN_PDE;
		(void)SA(access, &m->pde, va >> 21, fast, PDE_SHAPE);
	}
	if (feats(m, fast) & MMU_F_PML4_CACHE)
		(void)SA(access, &m->pml4, va >> 39, fast, PML4_SHAPE);
}

/* The PDE-cache lookup every walk makes (once per request): only 4K
 * translations are cached there, so 2M and 1G walks always miss it. */
HOT int pde_lookup(struct mmu_machine *m, uint64_t va, unsigned size, int fast)
{
	return size == MMU_PAGE_4K && SA(lookup, &m->pde, va >> 21, fast, PDE_SHAPE);
}

/* A counted PDE-cache lookup of a request (its counters k). */
HOT int pde_counted(struct mmu_machine *m, uint64_t va, unsigned size,
		    struct rows k, int fast)
{
	int hit = pde_lookup(m, va, size, fast);

	if (!hit)
		count(k, MMU_LOAD_PDE_MISS);
	return hit;
}

/* bypass: is the paging-structure line in the walker's fill buffer at
 * cycle t (fetched, by this or another walk, less than bypass_cycles ago,
 * or still arriving)?  The low halves of the lines are compared first. */
HOT int fill_buffer_hit(const struct mmu_machine *m, uint64_t line,
		    uint64_t t)
{
	unsigned i, match = 0;

#pragma GCC unroll 8
	for (i = 0; i < 8; i++)
		match |= (unsigned)(m->fb_low[i] == (uint32_t)line) << i;
	for (; match; match &= match - 1) {
		i = (unsigned)__builtin_ctz(match);
		if (m->fb_line[i] == line && m->fb_ready[i] &&
		    t < m->fb_ready[i] + m->cfg.bypass_cycles)
			return 1;
	}
	return 0;
}

/* Walk va (a page of the given size) starting at cycle start.  squash_at
 * (NONE: never) is when the requester is squashed: the walk stops there
 * (or after abort_after_refs references).  A demand or replay walk
 * creates missing entries (the OS maps on first touch) and sets accessed
 * bits; a prefetch walk stops after reading an entry that is absent or not
 * accessed.  Demand and prefetch walks count their references
 * (PAGE_WALKER_LOADS); a replay's go through the caches uncounted. */
HOT void walk(struct mmu_machine *m, uint64_t va, unsigned size,
	      enum walk_kind kind, uint64_t start, uint64_t squash_at,
	      int pde_hit, struct walk_out *out, int fast)
{
	int leaf = (int)size;               /* 4K: 0, 2M: 1, 1G: 2 */
	int first = 3, top = 3, level;
	uint32_t node = 0;        /* in m->dir, then m->pt at level 0 */
	uint64_t frame = 0;       /* node's: the root's is 0 */
	uint64_t t = start + m->cfg.walk_setup;
	int refs_cap = squash_at == NONE ? -1 : m->cfg.abort_after_refs;
	/* The fill buffer serves demand walks; prefetch walks always read. */
	int bypass = (feats(m, fast) & MMU_F_BYPASS) && kind == W_DEMAND;
	/* references made and bypassed, kept in registers until the end */
	unsigned refs = 0, bypassed = 0;

	out->completed = 0;
	out->abit = 0;
	if (pde_hit)
		first = 0;
	else if (size != MMU_PAGE_1G &&
		 SA(lookup, &m->pdpte, va >> 30, fast, PDPTE_SHAPE))
		first = 1;
	else if ((feats(m, fast) & MMU_F_PML4_CACHE) &&
		 SA(lookup, &m->pml4, va >> 39, fast, PML4_SHAPE))
		first = 2;
	out->first = (unsigned)first;
	/* No reference above the page directory, and the walk before
	 * found the page directory of the same 1G (a directory once made
	 * stays where it is): start there, without reading the PML4 and
	 * PDPT entries again. */
	if (first <= 1 && leaf <= 1 && va >> 30 == m->walk_gb) {
		top = 1;
		node = m->walk_node;
		frame = m->walk_frame;
	}
	/* Top down (unrolled: each level's shifts are constants), the
	 * levels above first without a reference (the PSC had them). */
#pragma GCC unroll 4
	for (level = 3; level >= leaf; level--) {
		unsigned e = (unsigned)(va >> (12 + 9 * level)) & 511;
		unsigned lvl, state;
		uint64_t pa, ent;

		if (level > top)
			continue;
		if (level > first) {
			ent = *dir_entry(m, node, e);
			node = ent_node(ent);
			frame = ent_frame(ent);
			if (level == 2 && leaf <= 1) {
				m->walk_gb = va >> 30;
				m->walk_node = node;
				m->walk_frame = frame;
			}
			continue;
		}
		if (refs_cap >= 0 ? refs >= (unsigned)refs_cap : t >= squash_at)
			goto aborted;
		pa = PT_BASE + (frame << 12) + e * 8u;
		refs++;
		if (bypass && fill_buffer_hit(m, pa >> 6, t)) {
			/* served by the walker's own buffer: no cache access,
			 * not a PAGE_WALKER_LOADS event */
			bypassed++;
			t += m->lat[0];
		} else {
			lvl = cache_access(m, pa, fast);
			if (kind != W_REPLAY)
				m->count[MMU_WALK_REF_L1 + lvl]++;
			t += m->lat[lvl];
			if (bypass) {
				m->fb_line[m->fb_next] = pa >> 6;
				m->fb_low[m->fb_next] = (uint32_t)(pa >> 6);
				m->fb_ready[m->fb_next] = t;
				m->fb_next = (m->fb_next + 1) % 8;
			}
		}
		if (level > leaf) {
			/* a directory entry on the way down */
			ent = *dir_entry(m, node, e);
			if (!(uint32_t)ent) {
				uint32_t c, f;

				if (kind == W_PREFETCH)
					goto aborted;   /* absent */
				/* the OS maps on first touch */
				c = node_new(m, level == 1 ? &m->pt : &m->dir, &f);
				if (!c)
					goto aborted;   /* out of memory: m->nomem */
				ent = *dir_entry(m, node, e) = (uint64_t)f << 32 | c;
			}
			node = ent_node(ent);
			frame = ent_frame(ent);
			if (level == 2 && leaf <= 1) {
				m->walk_gb = va >> 30;
				m->walk_node = node;
				m->walk_frame = frame;
			}
			continue;
		}
		/* the leaf */
		state = level ? (unsigned)*dir_entry(m, node, e) & 255u :
			((uint8_t *)m->pt.ent)[(size_t)node * 512 + e];
		if (kind == W_PREFETCH) {
			if (state != m->epoch) {
				out->abit = state != 0;
				goto aborted;   /* absent, or not accessed */
			}
		} else if (level) {
			/* accessed: stored whether or not it was (unchanged if
			 * so), as random as the workload's pages */
			*dir_entry(m, node, e) = E_LEAF | m->epoch;
		} else {
			((uint8_t *)m->pt.ent)[(size_t)node * 512 + e] = m->epoch;
		}
		break;
	}
	out->refs = refs;
	out->bypassed = bypassed;
	if (refs_cap < 0 && t > squash_at)
		goto aborted_counted;   /* squashed before its last reference returned */
	out->completed = 1;
	out->end = t;
	return;
aborted:
	out->refs = refs;
	out->bypassed = bypassed;
aborted_counted:
	out->end = refs_cap >= 0 || t < squash_at ? t : squash_at;
}

/* Apply the DTLB fills of STLB hits due by cycle t (in order of their
 * lookups); with force, all of them.  Watched like walk_fill(). */
static void dtlb_fills(struct mmu_machine *m, uint64_t t, int force, int fast)
{
	unsigned i, k = 0;

	for (i = 0; i < m->n_dfill; i++) {
		if (force || m->dfill[i].t <= t) {
			unsigned size = m->dfill[i].size;

			if (vpn_key(m->dfill[i].vpn, size) == m->watch_key)
				m->watch_seen |= SEEN_TLB;
			(void)DTLB(access, m, size, m->dfill[i].vpn, fast);
		} else {
			m->dfill[k++] = m->dfill[i];
		}
	}
	m->n_dfill = k;
}

/* The walk MSHRs: FAST_WALKERS on the fast path (loops unrolled). */
HOT unsigned walkers(const struct mmu_machine *m, int fast)
{
	return fast ? FAST_WALKERS : m->cfg.walkers;
}

/* Apply the fills of walks that ended by cycle t and free their MSHRs. */
HOT void retire_walks_due(struct mmu_machine *m, uint64_t t, int fast)
{
	unsigned i, n = walkers(m, fast);
	uint64_t next = NONE;

	if (m->n_dfill)
		dtlb_fills(m, t, 0, fast);
	if (t < m->next_end)
		return;
#pragma GCC unroll 2
	for (i = 0; i < n; i++) {
		struct mshr *w = &m->mshr[i];

		if (w->end <= t) {
			if (w->fill)
				walk_fill(m, w->va, w->size, w->key, fast);
			w->end = NONE;
			w->key = NONE;
		} else if (w->end < next) {
			next = w->end;
		}
	}
	m->next_end = next;
}

HOT void retire_walks(struct mmu_machine *m, uint64_t t, int fast)
{
	if (t >= m->next_end || m->n_dfill)
		retire_walks_due(m, t, fast);
}

HOT struct mshr *mshr_free(struct mmu_machine *m, int fast)
{
	unsigned i, n = walkers(m, fast);

	for (i = 0; i < n; i++)
		if (m->mshr[i].end == NONE)
			return &m->mshr[i];
	return NULL;
}

/* The busy MSHR walking key, or NULL (a free one's key is NONE, no
 * page's). */
HOT struct mshr *mshr_find(struct mmu_machine *m, uint64_t key, int fast)
{
	unsigned i, n = walkers(m, fast);

	for (i = 0; i < n; i++)
		if (m->mshr[i].key == key)
			return &m->mshr[i];
	return NULL;
}

HOT void mshr_take(struct mmu_machine *m, struct mshr *w, uint64_t va,
		   unsigned size, enum walk_kind kind,
		   const struct walk_out *o, int fast)
{
	unsigned i, n = walkers(m, fast);
	int moved = w->end != NONE;   /* a walk taken over: its end moves later */

	w->key = page_key(va, size);
	w->va = va;
	w->size = (uint8_t)size;
	w->kind = (uint8_t)kind;
	w->fill = (uint8_t)o->completed;
	w->end = o->end;
	if (!moved) {
		if (o->end < m->next_end)
			m->next_end = o->end;
	} else {
		m->next_end = NONE;
		for (i = 0; i < n; i++)
			if (m->mshr[i].end < m->next_end)
				m->next_end = m->mshr[i].end;
	}
	if (kind != W_REPLAY && o->end > m->max_end)
		m->max_end = o->end;
}

/* ---- the LSQ-side TLB prefetcher ---- */
static void prefetch(struct mmu_machine *m, uint64_t target, int cls, int fast)
{
	struct rows k = rows_of(m, cls);
	unsigned size;
	struct mshr *w;
	struct walk_out o;

	if (target >> 47) {
		truth(k, MMU_P_PF_DROPPED);
		return;
	}
	size = page_of(m, target, fast);
	if (DTLB(probe, m, size, target >> page_shift[size], fast) ||
	    (size != MMU_PAGE_1G &&
	     SA(probe, &m->stlb, page_key(target, size), fast, STLB_SHAPE)) ||
	    mshr_find(m, page_key(target, size), fast) ||
	    !(w = mshr_free(m, fast))) {
		truth(k, MMU_P_PF_DROPPED);
		return;
	}
	/* Uncounted PDE lookup: DTLB_LOAD_MISSES.* count demand requests. */
	walk(m, target, size, W_PREFETCH, m->now, NONE,
	     pde_lookup(m, target, size, fast), &o, fast);
	m->count[MMU_LOAD_WALK_DURATION] += o.end - m->now;
	if (o.completed) {
		/* a load-side walk, whichever μop triggered it */
		count_done(rows_of(m, MMU_C_LOAD), size);
		truth(k, MMU_P_PF_WALK);
	} else {
		truth(k, o.abit ? MMU_P_PF_ABIT : MMU_P_PF_ABSENT);
	}
	mshr_take(m, w, target, size, W_PREFETCH, &o, fast);
}

/* Where a μop's translation came from: the point of the pipeline a
 * trigger variant sits at. */
enum { AT_DTLB, AT_STLB, AT_WALK };

/* μops whose line follows the previous trigger μop's line across a
 * trigger pair (51 -> 52 up, 8 -> 7 down, within one 4K page) prefetch
 * the translation of the adjacent 4K page.  Loads feed the detector, and
 * stores with prefetch_stores; with prefetch_dtlb_miss (prefetch_stlb_miss)
 * the request is made only when the triggering μop missed the DTLB (the
 * STLB). */
HOT void prefetch_trigger(struct mmu_machine *m, uint64_t va, int cls,
			  int at, int fast)
{
	uint64_t line = va >> 6, prev = m->pf_prev_line;

	if (!(feats(m, fast) & MMU_F_PF_STORES) && cls == MMU_C_STORE)
		return;
	m->pf_prev_line = line;
	if (prev == NONE || (prev >> 6) != (line >> 6))
		return;
	if ((feats(m, fast) & MMU_F_PF_STLB_MISS) ? at != AT_WALK :
	    (feats(m, fast) & MMU_F_PF_DTLB_MISS) ? at == AT_DTLB : 0)
		return;
	if ((prev & 63) == m->cfg.pf_up_from && (line & 63) == m->cfg.pf_up_to &&
	    line == prev + 1)
		prefetch(m, (va & ~4095ull) + 4096, cls, fast);
	else if ((prev & 63) == m->cfg.pf_down_from &&
		 (line & 63) == m->cfg.pf_down_to && line + 1 == prev &&
		 (va & ~4095ull) >= 4096)
		prefetch(m, (va & ~4095ull) - 4096, cls, fast);
}

/* ---- one memory μop ---- */

/* The path of a completed own walk. */
HOT enum mmu_path walk_path(const struct walk_out *o)
{
	if (o->bypassed)
		return MMU_P_WALK_BYPASSED;
	return (enum mmu_path)(MMU_P_WALK_1REF + (o->refs ? o->refs - 1 : 0));
}

/* A demand walk (counters k) taking MSHR w at cycle start: counted as a
 * walk start (and its PDE lookup unless pde_early counted it already). */
HOT void demand_walk(struct mmu_machine *m, struct mshr *w, uint64_t va,
		     unsigned size, struct rows k, uint64_t start,
		     uint64_t squash_at, int early, int pde_hit,
		     struct walk_out *o, int fast)
{
	static const enum mmu_path psc[4] = {
		MMU_P_PSC_PDE, MMU_P_PSC_PDPTE, MMU_P_PSC_PML4, MMU_P_PSC_NONE
	};

	if (!early)
		pde_hit = pde_counted(m, va, size, k, fast);
	count(k, MMU_LOAD_CAUSES_WALK);
	walk(m, va, size, W_DEMAND, start,
	     (feats(m, fast) & MMU_F_ABORT) ? squash_at : NONE, pde_hit, o, fast);
	k.count[MMU_LOAD_WALK_DURATION] += o->end - start;
	truth(k, psc[o->first]);
	k.truth[MMU_P_REFS_BYPASSED] += o->bypassed;
	mshr_take(m, w, va, size, W_DEMAND, o, fast);
	if (o->completed)
		count_done(k, size);
}

/* Translate va for one μop (wrong-path when squash_at != NONE).  Returns
 * the path taken; *ready is when the translation is available, *at where
 * it came from (AT_WALK: the μop missed the STLB: own walk or merged),
 * *size the page size of va. */
HOT enum mmu_path translate(struct mmu_machine *m, uint64_t va, struct rows k,
			    uint64_t squash_at, uint64_t *ready, int *at,
			    unsigned *size_out, int fast)
{
	unsigned size = page_of(m, va, fast);
	uint64_t vpn = va >> page_shift[size], key = vpn_key(vpn, size);
	int early = (feats(m, fast) & MMU_F_PDE_EARLY) != 0;
	int abort = (feats(m, fast) & MMU_F_ABORT) && squash_at != NONE;
	int waited = 0;
	/* After a wait: whether the lookups of the attempt before (TLBs, and
	 * with pde_early the PDE cache) missed and no fill since (walk_fill(),
	 * dtlb_fills(), watched) can have changed that.  A lookup that misses
	 * changes nothing, so one known to miss again is not made again. */
	int tlbs_missed = 0, pde_missed = 0;

	*size_out = size;
	for (;;) {
		struct mshr *w;
		struct walk_out o;
		int pde_hit = 0;

		retire_walks(m, m->now, fast);
		if (waited) {
			tlbs_missed = !(m->watch_seen & SEEN_TLB);
			pde_missed &= !(m->watch_seen & SEEN_PDE);
		}
		if (!tlbs_missed && DTLB(lookup, m, size, vpn, fast)) {
			*ready = m->now;
			*at = AT_DTLB;
			return waited ? MMU_P_WAITED : MMU_P_DTLB_HIT;
		}
		if (!tlbs_missed && size != MMU_PAGE_1G &&
		    SA(lookup, &m->stlb, key, fast, STLB_SHAPE)) {
			count(k, (enum mmu_event)(MMU_LOAD_STLB_HIT_4K + size));
			count(k, MMU_LOAD_STLB_HIT);
			/* the L1 DTLB has it when the STLB lookup ends: μops
			 * to the page until then miss it too */
			if (m->n_dfill == DFILLS)
				dtlb_fills(m, 0, 1, fast);
			m->dfill[m->n_dfill].vpn = vpn;
			m->dfill[m->n_dfill].size = size;
			m->dfill[m->n_dfill++].t = m->now + STLB_CYCLES;
			*ready = m->now + STLB_CYCLES;
			*at = AT_STLB;
			return waited ? MMU_P_WAITED : MMU_P_STLB_HIT;
		}
		*at = AT_WALK;
		/* STLB miss.  pde_early: the PDE cache is looked up (and
		 * counted) before the MSHRs are searched. */
		if (early && pde_missed)
			count(k, MMU_LOAD_PDE_MISS);
		else if (early)
			pde_hit = pde_counted(m, va, size, k, fast);
		/* after a wait, no walk of key: none was in flight before it,
		 * and a wait only ends walks */
		w = (feats(m, fast) & MMU_F_MERGE) && !waited ?
			mshr_find(m, key, fast) : NULL;
		if (w && w->fill) {
			/* merged into a walk that will translate it */
			if (early) {
				truth(k, MMU_P_PDE_NOWALK);
				if (!pde_hit)
					truth(k, MMU_P_PDE_NOWALK_MISS);
			}
			*ready = w->end;
			return MMU_P_MERGED;
		}
		if (w) {
			/* Merged into a walk that will abort (a squashed
			 * requester's, or a prefetch at a clear accessed bit):
			 * nothing knew that when it merged.  At the abort the
			 * request is made again, finds the MSHR just freed and
			 * walks itself. */
			uint64_t t = w->end;

			if (early) {
				truth(k, MMU_P_PDE_NOWALK);
				if (!pde_hit)
					truth(k, MMU_P_PDE_NOWALK_MISS);
			}
			if (abort && squash_at <= t)
				return MMU_P_SQUASHED;  /* gone before that */
			truth(k, MMU_P_MERGE_REWALK);
			if (early)
				pde_hit = pde_counted(m, va, size, k, fast);
			demand_walk(m, w, va, size, k, t, squash_at, early,
				    pde_hit, &o, fast);
			*ready = o.end;
			return o.completed ? walk_path(&o) : MMU_P_WALK_ABORTED;
		}
		w = mshr_free(m, fast);
		if (!w) {
			/* No free walker: stall until the first walk ends,
			 * then look the TLBs up again; a squashed requester
			 * is aborted before then, with feature abort. */
			if (early) {
				truth(k, MMU_P_PDE_NOWALK);
				if (!pde_hit)
					truth(k, MMU_P_PDE_NOWALK_MISS);
			}
			if (abort && squash_at <= m->next_end)
				return MMU_P_ABORTED_QUEUED;
			m->now = m->next_end;
			waited = 1;
			tlbs_missed = 1;
			pde_missed = early && !pde_hit;
			m->watch_key = key;
			m->watch_pde = size == MMU_PAGE_4K ? va >> 21 : NONE;
			m->watch_seen = 0;
			continue;
		}
		demand_walk(m, w, va, size, k, m->now, squash_at, early,
			    pde_hit, &o, fast);
		*ready = o.end;
		return o.completed ? walk_path(&o) : MMU_P_WALK_ABORTED;
	}
}

/* ---- replays: a re-walk at retirement ---- */

/* i + 1 in a ring of n places. */
static inline size_t ring_next(size_t i, size_t n)
{
	return i + 1 == n ? 0 : i + 1;
}

/* Place k after i in a ring of n places (i, k < n). */
static inline size_t ring_add(size_t i, size_t k, size_t n)
{
	return i + k >= n ? i + k - n : i + k;
}

/* Run the oldest pending replay: its μop has reached retirement.  It
 * takes a free walker (the machine stalls until one is free), walks like
 * a demand walk through the paging-structure caches and the data caches
 * (PDE lookup and references uncounted), completes a walk, and holds its
 * μop's retirement, and so every younger μop's, until it ends. */
HOT void replay_run(struct mmu_machine *m, int fast)
{
	struct replay *r = &m->rq[m->rq_head];
	unsigned size = r->size;
	struct mshr *w;
	struct walk_out o;
	struct rows k;
	size_t n = m->cfg.window;

	for (;;) {
		retire_walks(m, m->now, fast);
		if ((w = mshr_free(m, fast)) != NULL)
			break;
		m->now = m->next_end;
	}
	walk(m, r->va, size, W_REPLAY, m->now, NONE,
	     pde_lookup(m, r->va, size, fast), &o, fast);
	k = rows_of(m, r->cls);
	count_done(k, size);
	k.count[MMU_LOAD_WALK_DURATION] += o.end - m->now;
	truth(k, MMU_P_REPLAYED);
	k.truth[MMU_P_REPLAY_REFS] += o.refs;
	mshr_take(m, w, r->va, size, W_REPLAY, &o, fast);
	/* a step of the retirement floor, unless an older one covers it */
	if (o.end > m->hold_t && (!m->hold_n ||
	    o.end > m->hold[ring_add(m->hold_head, m->hold_n - 1, n)].t)) {
		struct hold *h = &m->hold[ring_add(m->hold_head, m->hold_n++, n)];

		h->seq = r->seq;
		h->t = o.end;
		if (m->hold_n == 1)
			m->hold_due = r->seq + n;
	}
	if (m->last_retire < o.end)
		m->last_retire = o.end;
	m->rq_head = ring_next(m->rq_head, n);
	m->rq_t = --m->rq_n ? m->rq[m->rq_head].t : NONE;
}

/* One correct-path μop (mmu_access()). */
HOT void access_correct(struct mmu_machine *m, uint64_t va, int is_store,
			int fast)
{
	int cls = is_store ? MMU_C_STORE : MMU_C_LOAD;
	size_t slot = m->slot, n = m->cfg.window;
	uint64_t ready, done, prev_max;
	enum mmu_path path;
	struct rows k;
	unsigned size;
	int at;

	va &= (1ull << 47) - 1;
	if (m->now >= m->next_clear)
		os_age(m);
	/* The window is full until the μop `window` places older retires;
	 * replays of retiring μops run first (and may hold retirement). */
	for (;;) {
		uint64_t need = m->ring[slot];

		/* steps whose μop has retired (n_correct - seq >= window;
		 * hold_t stays 0 until then) */
		while (m->hold_due <= m->n_correct) {
			if (m->hold_t < m->hold[m->hold_head].t)
				m->hold_t = m->hold[m->hold_head].t;
			m->hold_head = ring_next(m->hold_head, n);
			m->hold_due = --m->hold_n ?
				m->hold[m->hold_head].seq + n : NONE;
		}
		if (need < m->hold_t)
			need = m->hold_t;
		if (need > m->now)
			m->now = need;
		if (m->rq_t > m->now)
			break;              /* no replay due (NONE: none) */
		replay_run(m, fast);
	}
	prev_max = m->max_end;
	k = rows_of(m, cls);
	path = translate(m, va, k, NONE, &ready, &at, &size, fast);
	truth(k, path);
	done = ready + m->lat[cache_access(m, data_pa(m, va), fast)];
	if (done < m->last_retire)
		done = m->last_retire;
	m->last_retire = done;
	m->ring[slot] = done;
	m->slot = ring_next(slot, n);
	m->count[MMU_RETIRED_LOADS + cls]++;
	if (at == AT_WALK) {
		m->count[MMU_RETIRED_STLB_MISS_LOADS + cls]++;
		/* replay: a translation that arrived no later than a walk
		 * started before this μop (merged into one, or completed out
		 * of order) was speculative; retirement re-walks it. */
		if ((feats(m, fast) & MMU_F_REPLAY) && ready <= prev_max) {
			struct replay *r = &m->rq[ring_add(m->rq_head, m->rq_n, n)];

			r->t = done;
			r->va = va;
			r->seq = m->n_correct;
			r->cls = (uint8_t)cls;
			r->size = (uint8_t)size;
			if (!m->rq_n++)
				m->rq_t = done;
		}
	}
	if (feats(m, fast) & MMU_F_PREFETCH)
		prefetch_trigger(m, va, cls, at, fast);
	m->now += m->cfg.uop_cycles;
	m->n_correct++;
	m->n_uops++;
}

void mmu_access(struct mmu_machine *m, uint64_t va, int is_store)
{
	if (m->fast)
		access_correct(m, va, is_store, FAST_SHAPES);
	else
		access_correct(m, va, is_store, FAST_NONE);
}

/* A wrong-path μop (mmu_access_wrong()). */
HOT void access_wrong(struct mmu_machine *m, uint64_t va, int is_store,
		      int fast)
{
	int cls = is_store ? MMU_C_STORE : MMU_C_LOAD;
	uint64_t ready, squash_at;
	enum mmu_path path;
	struct rows k;
	unsigned size;
	int at;

	va &= (1ull << 47) - 1;
	if (m->now >= m->next_clear)
		os_age(m);
	squash_at = m->now + rng_next(&m->rng) % (2ull * m->cfg.squash_cycles + 1);
	k = rows_of(m, cls);
	path = translate(m, va, k, squash_at, &ready, &at, &size, fast);
	if ((path >= MMU_P_WALK_1REF && path <= MMU_P_WALK_4REF) ||
	    path == MMU_P_WALK_BYPASSED)
		path = MMU_P_SQUASHED_WALK;     /* its own walk completed */
	else if (path != MMU_P_WALK_ABORTED && path != MMU_P_ABORTED_QUEUED)
		path = MMU_P_SQUASHED;
	truth(k, path);
	if (feats(m, fast) & MMU_F_PREFETCH)
		prefetch_trigger(m, va, cls, at, fast);
	m->now += m->cfg.uop_cycles;
	m->n_uops++;
}

/* A wrong-path μop: translated (its walk aborted at its squash with
 * feature abort), never retired, never in the window. */
void mmu_access_wrong(struct mmu_machine *m, uint64_t va, int is_store)
{
	if (m->fast)
		access_wrong(m, va, is_store, FAST_SHAPES);
	else
		access_wrong(m, va, is_store, FAST_NONE);
}

/* The stream's loop (mmu_stream_run()) in one copy of the μop path:
 * each correct-path μop after the wrong-path μop that may come first. */
HOT uint64_t stream_run(struct mmu_stream *s, struct mmu_machine *m,
			uint64_t n, uint64_t edge, int fast)
{
	/* the stream's state in locals: the machine's stores cannot touch
	 * them, so they need no reloading */
	uint64_t k, next = s->next, made = s->made;

	for (k = 0; k < n;) {
		uint64_t va;
		unsigned spec;
		int st;

		if (made - next <= MMU_BATCH) {
			mmu_stream_fill(s);
			made += MMU_BATCH;
		}
		va = s->va[next % MMU_RING];
		st = s->st[next % MMU_RING];
		spec = s->spec[next % MMU_RING];
		next++;
		if (spec) {
			uint64_t j = next + spec - 1;

			mmu_access_wrong(m, s->va[j % MMU_RING], s->st[j % MMU_RING]);
		}
		access_correct(m, va, st, fast);
		k++;
		if (m->now >= edge)
			break;
	}
	s->next = next;
	return k;
}

/* Each copy of the stream loop a function of its own. */
#define STREAM_COPY(name, F) \
static __attribute__((noinline)) uint64_t \
name(struct mmu_stream *s, struct mmu_machine *m, uint64_t n, uint64_t edge) \
{ \
	return stream_run(s, m, n, edge, F); \
}
STREAM_COPY(stream_run_shapes, FAST_SHAPES)
STREAM_COPY(stream_run_any, FAST_NONE)

uint64_t mmu_stream_run(struct mmu_stream *s, struct mmu_machine *m,
			uint64_t n, uint64_t edge)
{
	return m->fast ? stream_run_shapes(s, m, n, edge) :
			 stream_run_any(s, m, n, edge);
}

void mmu_drain(struct mmu_machine *m)
{
	unsigned i;

	while (m->rq_n) {
		if (m->rq[m->rq_head].t > m->now)
			m->now = m->rq[m->rq_head].t;
		replay_run(m, m->fast);
	}
	for (i = 0; i < m->cfg.walkers; i++)
		if (m->mshr[i].end != NONE && m->mshr[i].end > m->now)
			m->now = m->mshr[i].end;
	if (m->last_retire > m->now)
		m->now = m->last_retire;
	retire_walks(m, NONE, m->fast);
	dtlb_fills(m, 0, 1, m->fast);
}
