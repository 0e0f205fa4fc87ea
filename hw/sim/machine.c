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
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "hw/sim/mmu.h"

#define NONE UINT64_MAX
#define STLB_CYCLES 7             /* STLB hit latency */
#define PT_BASE (1ull << 47)      /* page-table frames: above any VA */
#define PT_BITS 48                /* ... and below 2^48 */
#define E_LEAF 0x80000000u        /* a directory entry mapping a large page */
#define E_ACCESSED 1u             /* a leaf's state: present and accessed */

/* ---- set-associative arrays with true LRU (TLBs, PSCs, caches) ----
 * A key's low bits pick its set and the rest is its tag, stored + 1 (0 =
 * empty) in a fixed way: 32 bits wide when the structure's tags fit (the
 * L3 tags then take half the host cache), else 64.  Each set's recency
 * order is one 64-bit word of 4-bit way numbers, most recent first, so a
 * hit moves one nibble to the front and a miss replaces the way in the
 * last nibble: constant work, no shifting of tags.  The tags of a set
 * are compared with SSE2 where the host has it.  At most 16 ways. */
struct sa {
	void *tag;
	uint64_t *order;              /* per set: nibble k = way of rank k */
	uint64_t mask;                /* sets - 1 */
	uint64_t omask;               /* the nibbles of an order word in use */
	unsigned ways, shift;         /* shift = log2(sets) */
	unsigned last;                /* bit offset of the least recent nibble */
	int wide;                     /* 64-bit tags */
	int (*lookup)(struct sa *, uint64_t);
	int (*access)(struct sa *, uint64_t);
	int (*probe)(const struct sa *, uint64_t);
};

#define NIBBLES 0x1111111111111111ull

static void sa_bind(struct sa *s);

/* key_bits: every key the structure sees is below 2^key_bits. */
static int sa_init(struct sa *s, unsigned entries, unsigned ways,
		   unsigned key_bits)
{
	unsigned sets = entries / ways, w;
	uint64_t order = 0;
	size_t k;

	s->ways = ways;
	s->mask = sets - 1;
	for (s->shift = 0; (1u << s->shift) < sets; s->shift++)
		;
	s->wide = key_bits > s->shift + 31;
	s->last = 4 * (ways - 1);
	s->omask = ways == 16 ? ~0ull : (1ull << (4 * ways)) - 1;
	s->tag = cp_calloc(entries, s->wide ? 8 : 4);
	s->order = cp_calloc(sets, sizeof *s->order);
	if (!s->tag || !s->order)
		return CP_ENOMEM;
	for (w = ways; w-- > 0;)      /* way 0 first, way ways-1 least recent */
		order = order << 4 | w;
	for (k = 0; k < sets; k++)
		s->order[k] = order;
	sa_bind(s);
	return CP_OK;
}

static void sa_release(struct sa *s)
{
	cp_free(s->tag);
	cp_free(s->order);
}

/* Bit w set where way w of the set holds tag (at most one): the scan for
 * a way count known at compile time (inlined and unrolled below), with
 * SSE2 where the host has it. */
static inline __attribute__((always_inline)) unsigned
match_n(const void *tags, size_t set, uint64_t tag, unsigned ways, int wide)
{
	unsigned w, m = 0;

	if (wide) {
		const uint64_t *t = (const uint64_t *)tags + set * ways;
#ifdef __SSE2__
		if (!(ways & 1)) {
			__m128i k = _mm_set1_epi64x((long long)tag);

#pragma GCC unroll 8
			for (w = 0; w < ways; w += 2) {
				__m128i e = _mm_cmpeq_epi32(
					_mm_loadu_si128((const __m128i *)(const void *)(t + w)), k);

				/* both halves equal: a 64-bit match */
				e = _mm_and_si128(e, _mm_shuffle_epi32(e, 0xb1));
				m |= (unsigned)_mm_movemask_pd(_mm_castsi128_pd(e)) << w;
			}
			return m;
		}
#endif
#pragma GCC unroll 16
		for (w = 0; w < ways; w++)
			m |= (unsigned)(t[w] == tag) << w;
	} else {
		const uint32_t *t = (const uint32_t *)tags + set * ways;
#ifdef __SSE2__
		if (!(ways & 3)) {
			__m128i k = _mm_set1_epi32((int)(uint32_t)tag);

#pragma GCC unroll 4
			for (w = 0; w < ways; w += 4)
				m |= (unsigned)_mm_movemask_ps(_mm_castsi128_ps(
					_mm_cmpeq_epi32(_mm_loadu_si128(
						(const __m128i *)(const void *)(t + w)), k))) << w;
			return m;
		}
#endif
#pragma GCC unroll 16
		for (w = 0; w < ways; w++)
			m |= (unsigned)(t[w] == (uint32_t)tag) << w;
	}
	return m;
}

/* Make way w (a hit) the most recent of its set: the nibbles before its
 * rank move back one place. */
static inline void sa_touch(struct sa *s, size_t set, unsigned w)
{
	uint64_t o = s->order[set], x = o ^ (NIBBLES * w), below, upto;
	unsigned rank;

	if ((o & 15) == w)
		return;
	/* the rank holding w: the lowest zero nibble of x */
	rank = (unsigned)__builtin_ctzll((x - NIBBLES) & ~x & (NIBBLES << 3)) >> 2;
	below = (1ull << (4 * rank)) - 1;
	upto = rank == 15 ? ~0ull : (1ull << (4 * rank + 4)) - 1;
	s->order[set] = (o & ~upto) | (o & below) << 4 | w;
}

/* Put key in the least recent way of its set, now the most recent. */
static inline void sa_insert(struct sa *s, size_t set, uint64_t key)
{
	uint64_t o = s->order[set];
	unsigned v = (unsigned)(o >> s->last) & 15;
	uint64_t tag = (key >> s->shift) + 1;

	if (s->wide)
		((uint64_t *)s->tag)[set * s->ways + v] = tag;
	else
		((uint32_t *)s->tag)[set * s->ways + v] = (uint32_t)tag;
	s->order[set] = (o << 4 | v) & s->omask;
}

/* The operations, one set of functions per (ways, tag width) so that
 * each is a short straight line for its structure, and a general one:
 * lookup (a hit becomes most recent; a miss changes nothing), access
 * (a miss is inserted as most recent, evicting the least recent) and
 * probe (presence, recency untouched). */
#define SA_OPS(NAME, WAYS, WIDE)                                          \
static int NAME##_lookup(struct sa *s, uint64_t key)                     \
{                                                                        \
	size_t set = (size_t)(key & s->mask);                            \
	unsigned m = match_n(s->tag, set, (key >> s->shift) + 1, WAYS, WIDE); \
                                                                         \
	if (!m)                                                          \
		return 0;                                                \
	sa_touch(s, set, (unsigned)__builtin_ctz(m));                    \
	return 1;                                                        \
}                                                                        \
static int NAME##_access(struct sa *s, uint64_t key)                     \
{                                                                        \
	size_t set = (size_t)(key & s->mask);                            \
	unsigned m = match_n(s->tag, set, (key >> s->shift) + 1, WAYS, WIDE); \
                                                                         \
	if (m) {                                                         \
		sa_touch(s, set, (unsigned)__builtin_ctz(m));            \
		return 1;                                                \
	}                                                                \
	sa_insert(s, set, key);                                          \
	return 0;                                                        \
}                                                                        \
static int NAME##_probe(const struct sa *s, uint64_t key)                \
{                                                                        \
	return match_n(s->tag, (size_t)(key & s->mask), (key >> s->shift) + 1, \
		       WAYS, WIDE) != 0;                                 \
}
SA_OPS(sa_n2, 2, 0)
SA_OPS(sa_n4, 4, 0)
SA_OPS(sa_n8, 8, 0)
SA_OPS(sa_n16, 16, 0)
SA_OPS(sa_w8, 8, 1)
SA_OPS(sa_w16, 16, 1)
SA_OPS(sa_any_n, s->ways, 0)
SA_OPS(sa_any_w, s->ways, 1)
#undef SA_OPS

static void sa_bind(struct sa *s)
{
	static const struct {
		unsigned ways;
		int wide;
		int (*lookup)(struct sa *, uint64_t);
		int (*access)(struct sa *, uint64_t);
		int (*probe)(const struct sa *, uint64_t);
	} ops[] = {
		{ 2, 0, sa_n2_lookup, sa_n2_access, sa_n2_probe },
		{ 4, 0, sa_n4_lookup, sa_n4_access, sa_n4_probe },
		{ 8, 0, sa_n8_lookup, sa_n8_access, sa_n8_probe },
		{ 16, 0, sa_n16_lookup, sa_n16_access, sa_n16_probe },
		{ 8, 1, sa_w8_lookup, sa_w8_access, sa_w8_probe },
		{ 16, 1, sa_w16_lookup, sa_w16_access, sa_w16_probe },
	};
	size_t i;

	s->lookup = s->wide ? sa_any_w_lookup : sa_any_n_lookup;
	s->access = s->wide ? sa_any_w_access : sa_any_n_access;
	s->probe = s->wide ? sa_any_w_probe : sa_any_n_probe;
	for (i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (ops[i].ways == s->ways && ops[i].wide == s->wide) {
			s->lookup = ops[i].lookup;
			s->access = ops[i].access;
			s->probe = ops[i].probe;
		}
}

static inline int sa_lookup(struct sa *s, uint64_t key)
{
	return s->lookup(s, key);
}

static inline int sa_probe(const struct sa *s, uint64_t key)
{
	return s->probe(s, key);
}

static inline int sa_access(struct sa *s, uint64_t key)
{
	return s->access(s, key);
}

static inline void sa_fill(struct sa *s, uint64_t key)
{
	(void)sa_access(s, key);
}

/* ---- page tables: nodes of 512 entries, levels 3 (PML4) .. 0 (PT) ----
 * Two pools, so a walk touches one host cache line per level: directory
 * nodes (levels 3..1), 32-bit entries holding the child's index + 1 (0 =
 * absent) or, for a large page, E_LEAF | its state; and page tables
 * (level 0), one byte per entry holding its state (0 = absent).  Each
 * node also has a number in creation order, which places it in physical
 * memory (PT_BASE + number · 4K). */
struct ptpool {
	void *ent;             /* 512 entries per node */
	uint32_t *num;         /* creation number of each node */
	size_t n, cap, esize;
};

/* ---- walk MSHRs ---- */
struct mshr {
	uint64_t vpn, va, end;
	uint8_t busy;        /* walk in flight until end */
	uint8_t fill;        /* completes: fill TLBs and PSCs at end */
	uint8_t mergeable;   /* demand walk that is not doomed to abort */
};

struct mmu_machine {
	struct mmu_config cfg;
	unsigned features;
	enum mmu_page page;
	unsigned shift;               /* log2 of the page size */
	uint64_t rng;

	struct sa dtlb, stlb, pde, pdpte, pml4, l1, l2, l3;
	unsigned lat[4];

	struct ptpool dir, pt;        /* directories (root: dir 0), page tables */
	uint32_t n_nodes;             /* nodes made, both pools */
	int nomem;                    /* a node allocation failed */

	struct mshr *mshr;
	uint64_t next_end;            /* earliest end among busy MSHRs */
	uint64_t max_end;             /* latest end of any walk started */

	uint64_t now;                 /* cycles */
	uint64_t *ring;               /* retire times of the last window μops */
	uint64_t last_retire;
	uint64_t n_correct, n_uops;

	uint64_t pf_prev_line;        /* line address of the previous load */

	/* bypass: the walker's fill buffer, the last paging-structure lines
	 * fetched and when each arrived */
	uint64_t fb_line[8], fb_ready[8];
	unsigned fb_next;

	uint64_t count[MMU_N_EVENTS];
	uint64_t truth[MMU_N_CLASSES * MMU_N_PATHS];
};

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A new empty node in pool p; returns its index + 1, 0 when out of
 * memory (m->nomem set).  May move the pool. */
static uint32_t node_new(struct mmu_machine *m, struct ptpool *p)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 16;
		void *e = cp_reallocarray(p->ent, cap, 512 * p->esize);
		uint32_t *num;

		if (!e) {
			m->nomem = 1;
			return 0;
		}
		p->ent = e;
		num = cp_reallocarray(p->num, cap, sizeof *num);
		if (!num) {
			m->nomem = 1;
			return 0;
		}
		p->num = num;
		p->cap = cap;
	}
	memset((char *)p->ent + p->n * 512 * p->esize, 0, 512 * p->esize);
	p->num[p->n] = m->n_nodes++;
	return (uint32_t)++p->n;
}

static inline uint32_t *dir_entry(const struct mmu_machine *m, uint32_t node,
				  unsigned e)
{
	return (uint32_t *)m->dir.ent + (size_t)node * 512 + e;
}

void mmu_machine_free(struct mmu_machine *m)
{
	if (!m)
		return;
	sa_release(&m->dtlb);
	sa_release(&m->stlb);
	sa_release(&m->pde);
	sa_release(&m->pdpte);
	sa_release(&m->pml4);
	sa_release(&m->l1);
	sa_release(&m->l2);
	sa_release(&m->l3);
	cp_free(m->dir.ent);
	cp_free(m->dir.num);
	cp_free(m->pt.ent);
	cp_free(m->pt.num);
	cp_free(m->mshr);
	cp_free(m->ring);
	cp_free(m);
}

struct mmu_machine *mmu_machine_new(const struct mmu_config *cfg,
				    unsigned features, enum mmu_page page,
				    uint64_t seed, struct cp_error *err)
{
	struct mmu_machine *m;
	static const unsigned shifts[MMU_N_PAGES] = { 12, 21, 30 };
	unsigned de, dw;
	int rc;

	if (mmu_config_check(cfg, err))
		return NULL;
	if ((unsigned)page >= MMU_N_PAGES) {
		cp_error_set(err, CP_EINPUT, "unknown page size");
		return NULL;
	}
	m = cp_calloc(1, sizeof *m);
	if (!m)
		goto nomem;
	m->cfg = *cfg;
	m->features = features & MMU_F_ALL;
	m->page = page;
	m->shift = shifts[page];
	m->rng = seed ^ 0x5851f42d4c957f2dull;
	de = page == MMU_PAGE_4K ? cfg->dtlb_4k_entries :
	     page == MMU_PAGE_2M ? cfg->dtlb_2m_entries : cfg->dtlb_1g_entries;
	dw = page == MMU_PAGE_4K ? cfg->dtlb_4k_ways :
	     page == MMU_PAGE_2M ? cfg->dtlb_2m_ways : cfg->dtlb_1g_ways;
	/* key widths: VPNs of 47-bit addresses, lines below 2^(PT_BITS - 6) */
	rc = sa_init(&m->dtlb, de, dw, 47 - m->shift);
	rc |= sa_init(&m->stlb, cfg->stlb_entries, cfg->stlb_ways, 47 - m->shift);
	rc |= sa_init(&m->pde, cfg->pde_entries, cfg->pde_ways, 47 - 21);
	rc |= sa_init(&m->pdpte, cfg->pdpte_entries, cfg->pdpte_ways, 47 - 30);
	rc |= sa_init(&m->pml4, cfg->pml4_entries, cfg->pml4_ways, 47 - 39);
	rc |= sa_init(&m->l1, cfg->l1_bytes / 64, cfg->l1_ways, PT_BITS - 6);
	rc |= sa_init(&m->l2, cfg->l2_bytes / 64, cfg->l2_ways, PT_BITS - 6);
	rc |= sa_init(&m->l3, cfg->l3_bytes / 64, cfg->l3_ways, PT_BITS - 6);
	m->lat[0] = cfg->lat_l1;
	m->lat[1] = cfg->lat_l2;
	m->lat[2] = cfg->lat_l3;
	m->lat[3] = cfg->lat_mem;
	m->mshr = cp_calloc(cfg->walkers, sizeof *m->mshr);
	m->ring = cp_calloc(cfg->window, sizeof *m->ring);
	if (rc || !m->mshr || !m->ring)
		goto nomem;
	m->dir.esize = 4;
	m->pt.esize = 1;
	node_new(m, &m->dir);   /* the root (PML4) is directory 0 */
	if (m->nomem)
		goto nomem;
	m->next_end = NONE;
	m->pf_prev_line = NONE;
	return m;
nomem:
	mmu_machine_free(m);
	cp_error_set(err, CP_ENOMEM, "out of memory");
	return NULL;
}

/* ---- the cache hierarchy: returns the level that served pa (0..3) ---- */
static inline unsigned cache_access(struct mmu_machine *m, uint64_t pa)
{
	uint64_t line = pa >> 6;

	if (sa_access(&m->l1, line))
		return 0;
	if (sa_access(&m->l2, line))
		return 1;
	if (sa_access(&m->l3, line))
		return 2;
	return 3;
}

/* A DTLB_LOAD_MISSES.* event, or its DTLB_STORE_MISSES.* twin. */
static inline void count(struct mmu_machine *m, enum mmu_event e, int cls)
{
	m->count[(unsigned)e + (cls ? MMU_STORE_OFFSET : 0)]++;
}

/* ---- walks ---- */
enum walk_kind { W_DEMAND, W_PREFETCH };

struct walk_out {
	unsigned refs;        /* references made (counted or bypassed) */
	unsigned bypassed;    /* of which served by the fill buffer */
	int completed;
	uint64_t end;
};

/* The fills of a completed walk, at its end time. */
static void walk_fill(struct mmu_machine *m, uint64_t va)
{
	uint64_t vpn = va >> m->shift;

	sa_fill(&m->dtlb, vpn);
	if (m->page != MMU_PAGE_1G)
		sa_fill(&m->stlb, vpn);
	if (m->page == MMU_PAGE_4K)
		sa_fill(&m->pde, va >> 21);
	if (m->page != MMU_PAGE_1G)
		sa_fill(&m->pdpte, va >> 30);
	if (m->features & MMU_F_PML4_CACHE)
		sa_fill(&m->pml4, va >> 39);
}

/* The PDE-cache lookup every walk makes (once per request): only 4K
 * translations are cached there, so 2M and 1G walks always miss it. */
static int pde_lookup(struct mmu_machine *m, uint64_t va)
{
	return m->page == MMU_PAGE_4K && sa_lookup(&m->pde, va >> 21);
}

/* bypass: is the paging-structure line in the walker's fill buffer at
 * cycle t (fetched, by this or another walk, less than bypass_cycles ago,
 * or still arriving)? */
static int fill_buffer_hit(const struct mmu_machine *m, uint64_t line,
			   uint64_t t)
{
	unsigned i;

	for (i = 0; i < 8; i++)
		if (m->fb_ready[i] && m->fb_line[i] == line &&
		    t < m->fb_ready[i] + m->cfg.bypass_cycles)
			return 1;
	return 0;
}

/* Walk va starting at cycle start.  squash_at (NONE: never) is when the
 * requester is squashed: with feature abort the walk stops there (or
 * after abort_after_refs references).  A demand walk creates missing
 * entries (the OS maps on first touch) and sets accessed bits; a prefetch
 * walk stops after reading an entry that is absent or not accessed.
 * Walker references are counted here; the caller counts the rest. */
static void walk(struct mmu_machine *m, uint64_t va, enum walk_kind kind,
		 uint64_t start, uint64_t squash_at, int pde_hit,
		 struct walk_out *out)
{
	unsigned leaf = (unsigned)m->page;      /* 4K: 0, 2M: 1, 1G: 2 */
	unsigned first = 3, level;
	uint32_t node = 0;        /* in m->dir, then m->pt at level 0 */
	uint64_t t = start + m->cfg.walk_setup;
	int refs_cap = squash_at == NONE ? -1 : m->cfg.abort_after_refs;
	/* The fill buffer serves demand walks; prefetch walks always read. */
	int bypass = (m->features & MMU_F_BYPASS) && kind == W_DEMAND;

	out->refs = 0;
	out->bypassed = 0;
	out->completed = 0;
	if (pde_hit)
		first = 0;
	else if (m->page != MMU_PAGE_1G && sa_lookup(&m->pdpte, va >> 30))
		first = 1;
	else if ((m->features & MMU_F_PML4_CACHE) &&
		 sa_lookup(&m->pml4, va >> 39))
		first = 2;
	for (level = 3; level > first; level--)   /* cached levels: no refs */
		node = *dir_entry(m, node, (unsigned)(va >> (12 + 9 * level)) & 511) - 1;
	for (level = first;; level--) {
		unsigned e = (unsigned)(va >> (12 + 9 * level)) & 511;
		unsigned lvl;
		uint64_t pa;
		uint32_t ent, *dent = NULL;
		uint8_t *pent = NULL;

		if (refs_cap >= 0 ? out->refs >= (unsigned)refs_cap : t >= squash_at)
			goto aborted;
		pa = PT_BASE + ((uint64_t)(level ? m->dir.num[node] : m->pt.num[node]) << 12) +
		     e * 8u;
		out->refs++;
		if (bypass && fill_buffer_hit(m, pa >> 6, t)) {
			/* served by the walker's own buffer: no cache access,
			 * not a PAGE_WALKER_LOADS event */
			out->bypassed++;
			t += m->lat[0];
		} else {
			lvl = cache_access(m, pa);
			m->count[MMU_WALK_REF_L1 + lvl]++;
			t += m->lat[lvl];
			if (bypass) {
				m->fb_line[m->fb_next] = pa >> 6;
				m->fb_ready[m->fb_next] = t;
				m->fb_next = (m->fb_next + 1) % 8;
			}
		}
		if (level) {
			dent = dir_entry(m, node, e);
			ent = *dent;
		} else {
			pent = (uint8_t *)m->pt.ent + (size_t)node * 512 + e;
			ent = *pent;
		}
		if (kind == W_PREFETCH) {
			if (!ent)
				goto aborted;       /* absent (or not accessed) */
		} else if (level > leaf && !ent) {
			/* the OS maps on first touch */
			uint32_t c = node_new(m, level == 1 ? &m->pt : &m->dir);

			if (!c)
				goto aborted;   /* out of memory: m->nomem */
			ent = *dir_entry(m, node, e) = c;
		} else if (level == leaf && !ent) {
			if (level)
				*dent = E_LEAF | E_ACCESSED;
			else
				*pent = E_ACCESSED;
		}
		if (level == leaf)
			break;
		node = ent - 1;
	}
	if (refs_cap < 0 && t > squash_at)
		goto aborted;           /* squashed before its last reference returned */
	out->completed = 1;
	out->end = t;
	return;
aborted:
	out->end = refs_cap >= 0 || t < squash_at ? t : squash_at;
}

/* Apply the fills of walks that ended by cycle t and free their MSHRs. */
static void retire_walks(struct mmu_machine *m, uint64_t t)
{
	unsigned i;
	uint64_t next = NONE;

	if (t < m->next_end)
		return;
	for (i = 0; i < m->cfg.walkers; i++) {
		struct mshr *w = &m->mshr[i];

		if (!w->busy)
			continue;
		if (w->end <= t) {
			if (w->fill)
				walk_fill(m, w->va);
			w->busy = 0;
		} else if (w->end < next) {
			next = w->end;
		}
	}
	m->next_end = next;
}

static struct mshr *mshr_free(struct mmu_machine *m)
{
	unsigned i;

	for (i = 0; i < m->cfg.walkers; i++)
		if (!m->mshr[i].busy)
			return &m->mshr[i];
	return NULL;
}

static void mshr_take(struct mmu_machine *m, struct mshr *w, uint64_t va,
		      const struct walk_out *o, int mergeable)
{
	w->vpn = va >> m->shift;
	w->va = va;
	w->end = o->end;
	w->busy = 1;
	w->fill = (uint8_t)o->completed;
	w->mergeable = (uint8_t)mergeable;
	if (o->end < m->next_end)
		m->next_end = o->end;
	if (o->end > m->max_end)
		m->max_end = o->end;
}

/* ---- the LSQ-side TLB prefetcher ---- */
static void prefetch(struct mmu_machine *m, uint64_t target)
{
	uint64_t vpn = target >> m->shift;
	unsigned i;
	struct mshr *w;
	struct walk_out o;
	enum mmu_event done;
	uint64_t *truth = m->truth + MMU_C_LOAD * MMU_N_PATHS;

	if (target >> 47) {
		truth[MMU_P_PF_DROPPED]++;
		return;
	}
	if (sa_probe(&m->dtlb, vpn) ||
	    (m->page != MMU_PAGE_1G && sa_probe(&m->stlb, vpn)))
		goto dropped;
	for (i = 0; i < m->cfg.walkers; i++)
		if (m->mshr[i].busy && m->mshr[i].vpn == vpn)
			goto dropped;
	w = mshr_free(m);
	if (!w)
		goto dropped;
	/* Uncounted PDE lookup: DTLB_LOAD_MISSES.* count demand requests. */
	walk(m, target, W_PREFETCH, m->now, NONE, pde_lookup(m, target), &o);
	m->count[MMU_LOAD_WALK_DURATION] += o.end - m->now;
	if (o.completed) {
		done = (enum mmu_event)(MMU_LOAD_WALK_DONE_4K + m->page);
		m->count[done]++;
		m->count[MMU_LOAD_WALK_DONE]++;
		truth[MMU_P_PF_WALK]++;
	} else {
		truth[MMU_P_PF_ABORTED]++;
	}
	mshr_take(m, w, target, &o, o.completed);
	return;
dropped:
	truth[MMU_P_PF_DROPPED]++;
}

/* Loads whose line follows the previous load's line across a trigger
 * pair (51 -> 52 up, 8 -> 7 down, within one 4K page) prefetch the
 * translation of the adjacent 4K page. */
static void prefetch_trigger(struct mmu_machine *m, uint64_t va)
{
	uint64_t line = va >> 6, prev = m->pf_prev_line;

	m->pf_prev_line = line;
	if (prev == NONE || (prev >> 6) != (line >> 6))
		return;
	if ((prev & 63) == m->cfg.pf_up_from && (line & 63) == m->cfg.pf_up_to &&
	    line == prev + 1)
		prefetch(m, (va & ~4095ull) + 4096);
	else if ((prev & 63) == m->cfg.pf_down_from &&
		 (line & 63) == m->cfg.pf_down_to && line + 1 == prev &&
		 (va & ~4095ull) >= 4096)
		prefetch(m, (va & ~4095ull) - 4096);
}

/* ---- one memory μop ---- */

/* Translate va for one μop (wrong-path when squash_at != NONE).  Returns
 * the path taken; *ready is when the translation is available, *stlb_miss
 * whether the μop missed the STLB (own walk or merged). */
static enum mmu_path translate(struct mmu_machine *m, uint64_t va, int cls,
			       uint64_t squash_at, uint64_t *ready,
			       int *stlb_miss)
{
	uint64_t vpn = va >> m->shift;
	int early = (m->features & MMU_F_PDE_EARLY) != 0;
	int waited = 0;

	*stlb_miss = 0;
	for (;;) {
		struct mshr *w = NULL;
		struct walk_out o;
		int pde_hit = 0;
		unsigned i;

		retire_walks(m, m->now);
		if (sa_lookup(&m->dtlb, vpn)) {
			*ready = m->now;
			return waited ? MMU_P_WAITED : MMU_P_DTLB_HIT;
		}
		if (m->page != MMU_PAGE_1G && sa_lookup(&m->stlb, vpn)) {
			count(m, (enum mmu_event)(MMU_LOAD_STLB_HIT_4K + m->page), cls);
			count(m, MMU_LOAD_STLB_HIT, cls);
			sa_fill(&m->dtlb, vpn);
			*ready = m->now + STLB_CYCLES;
			return waited ? MMU_P_WAITED : MMU_P_STLB_HIT;
		}
		/* STLB miss.  pde_early: the PDE cache is looked up (and
		 * counted) before the MSHRs are searched. */
		if (early) {
			pde_hit = pde_lookup(m, va);
			if (!pde_hit)
				count(m, MMU_LOAD_PDE_MISS, cls);
		}
		if (m->features & MMU_F_MERGE)
			for (i = 0; i < m->cfg.walkers; i++)
				if (m->mshr[i].busy && m->mshr[i].mergeable &&
				    m->mshr[i].vpn == vpn) {
					*stlb_miss = 1;
					*ready = m->mshr[i].end;
					return MMU_P_MERGED;
				}
		w = mshr_free(m);
		if (!w) {
			/* No free walker: stall until the first walk ends,
			 * then look the TLBs up again. */
			m->now = m->next_end;
			waited = 1;
			continue;
		}
		if (!early) {
			pde_hit = pde_lookup(m, va);
			if (!pde_hit)
				count(m, MMU_LOAD_PDE_MISS, cls);
		}
		count(m, MMU_LOAD_CAUSES_WALK, cls);
		walk(m, va, W_DEMAND,  m->now,
		     (m->features & MMU_F_ABORT) ? squash_at : NONE, pde_hit, &o);
		m->count[MMU_LOAD_WALK_DURATION + (cls ? MMU_STORE_OFFSET : 0)] +=
			o.end - m->now;
		mshr_take(m, w, va, &o, o.completed);
		*stlb_miss = 1;
		*ready = o.end;
		if (!o.completed)
			return MMU_P_WALK_ABORTED;
		count(m, (enum mmu_event)(MMU_LOAD_WALK_DONE_4K + m->page), cls);
		count(m, MMU_LOAD_WALK_DONE, cls);
		if (o.bypassed)
			return MMU_P_WALK_BYPASSED;
		return (enum mmu_path)(MMU_P_WALK_1REF + (o.refs ? o.refs - 1 : 0));
	}
}

void mmu_access(struct mmu_machine *m, uint64_t va, int is_store)
{
	int cls = is_store ? MMU_C_STORE : MMU_C_LOAD;
	size_t slot = (size_t)(m->n_correct % m->cfg.window);
	uint64_t ready, done, prev_max = m->max_end;
	enum mmu_path path;
	int stlb_miss;

	va &= (1ull << 47) - 1;
	/* The window is full until the μop `window` places older retires. */
	if (m->ring[slot] > m->now)
		m->now = m->ring[slot];
	path = translate(m, va, cls, NONE, &ready, &stlb_miss);
	m->truth[cls * MMU_N_PATHS + path]++;
	done = ready + m->lat[cache_access(m, va)];
	if (done < m->last_retire)
		done = m->last_retire;
	m->last_retire = done;
	m->ring[slot] = done;
	m->count[MMU_RETIRED_LOADS + cls]++;
	if (stlb_miss) {
		m->count[MMU_RETIRED_STLB_MISS_LOADS + cls]++;
		/* replay: a translation that arrived no later than a walk
		 * started before this μop (merged into one, or completed out
		 * of order) was speculative; retirement re-walks it.  The
		 * replay completes a walk but its references are not counted
		 * and it is not a new walk start. */
		if ((m->features & MMU_F_REPLAY) && ready <= prev_max &&
		    path != MMU_P_WAITED) {
			count(m, (enum mmu_event)(MMU_LOAD_WALK_DONE_4K + m->page), cls);
			count(m, MMU_LOAD_WALK_DONE, cls);
			m->truth[cls * MMU_N_PATHS + MMU_P_REPLAYED]++;
		}
	}
	if ((m->features & MMU_F_PREFETCH) && !is_store)
		prefetch_trigger(m, va);
	m->now += m->cfg.uop_cycles;
	m->n_correct++;
	m->n_uops++;
}

/* A wrong-path μop: translated (its walk aborted at the squash with
 * feature abort), never retired, never in the window. */
void mmu_access_wrong(struct mmu_machine *m, uint64_t va, int is_store)
{
	int cls = is_store ? MMU_C_STORE : MMU_C_LOAD;
	uint64_t ready, squash_at;
	enum mmu_path path;
	int stlb_miss;

	va &= (1ull << 47) - 1;
	squash_at = m->now + rng_next(&m->rng) % (2ull * m->cfg.squash_cycles + 1);
	path = translate(m, va, cls, squash_at, &ready, &stlb_miss);
	m->truth[cls * MMU_N_PATHS +
		 (path == MMU_P_WALK_ABORTED ? MMU_P_WALK_ABORTED : MMU_P_SQUASHED)]++;
	if ((m->features & MMU_F_PREFETCH) && !is_store)
		prefetch_trigger(m, va);
	m->now += m->cfg.uop_cycles;
	m->n_uops++;
}

/* Host-side prefetch of what a μop at va will touch (the data line's
 * cache sets, its page-table entry and that entry's cache sets), issued a
 * few μops ahead so that the host's cache misses overlap instead of
 * queueing behind each other.  Changes nothing simulated. */
static inline void sa_hint(const struct sa *s, uint64_t key)
{
	size_t set = (size_t)(key & s->mask);

	__builtin_prefetch((const char *)s->tag + set * s->ways * (s->wide ? 8 : 4), 0, 3);
	__builtin_prefetch(s->order + set, 0, 3);
}

void mmu_hint(const struct mmu_machine *m, uint64_t va)
{
	uint32_t node = 0, ent = 0;
	unsigned level, leaf = (unsigned)m->page;
	uint64_t line;

	va &= (1ull << 47) - 1;
	sa_hint(&m->l2, va >> 6);
	sa_hint(&m->l3, va >> 6);
	for (level = 3; level > leaf; level--) {
		ent = *dir_entry(m, node, (unsigned)(va >> (12 + 9 * level)) & 511);
		if (!ent)
			return;
		node = ent - 1;
	}
	if (leaf) {
		__builtin_prefetch(dir_entry(m, node, (unsigned)(va >> (12 + 9 * leaf)) & 511), 0, 3);
		line = (PT_BASE + ((uint64_t)m->dir.num[node] << 12) +
			((va >> (12 + 9 * leaf)) & 511) * 8) >> 6;
	} else {
		__builtin_prefetch((const uint8_t *)m->pt.ent + (size_t)node * 512 +
				   ((va >> 12) & 511), 1, 3);
		line = (PT_BASE + ((uint64_t)m->pt.num[node] << 12) +
			((va >> 12) & 511) * 8) >> 6;
	}
	sa_hint(&m->l2, line);
	sa_hint(&m->l3, line);
}

void mmu_drain(struct mmu_machine *m)
{
	if (m->max_end > m->now)
		m->now = m->max_end;
	if (m->last_retire > m->now)
		m->now = m->last_retire;
	retire_walks(m, NONE);
}

int mmu_machine_status(const struct mmu_machine *m)
{
	return m->nomem ? CP_ENOMEM : CP_OK;
}

const uint64_t *mmu_counts(const struct mmu_machine *m)
{
	return m->count;
}

const uint64_t *mmu_truth(const struct mmu_machine *m)
{
	return m->truth;
}

uint64_t mmu_cycles(const struct mmu_machine *m)
{
	return m->now;
}

uint64_t mmu_ns(const struct mmu_machine *m)
{
	return (uint64_t)((double)m->now / m->cfg.ghz);
}

uint64_t mmu_uops(const struct mmu_machine *m)
{
	return m->n_uops;
}
