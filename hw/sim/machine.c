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
#define DFILLS 8                  /* pending DTLB fills from STLB hits */
#define E_LEAF 0x80000000u        /* a directory entry mapping a large page */

/* ---- set-associative arrays with true LRU (TLBs, PSCs, caches) ----
 * A key's low bits pick its set and the rest is its tag, stored + 1 (0 =
 * empty) in a fixed way: its low 32 bits in one array, compared first,
 * and when the structure's tags do not fit in 32 bits its high bits in
 * another, read only for a way whose low bits match.  Each set's recency
 * order is one 64-bit word of 4-bit way numbers, most recent first, so a
 * hit moves one nibble to the front and a miss replaces the way in the
 * last nibble: constant work, no shifting of tags.  The tags of a set
 * are compared with SSE2 where the host has it.  At most 16 ways. */
struct sa {
	uint32_t *tag, *hi;           /* low and (wide) high halves of tag + 1 */
	uint64_t *order;              /* per set: nibble k = way of rank k */
	uint64_t mask;                /* sets - 1 */
	uint64_t omask;               /* the nibbles of an order word in use */
	unsigned ways, shift;         /* shift = log2(sets) */
	unsigned last;                /* bit offset of the least recent nibble */
	int wide;                     /* tags need more than 32 bits */
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
	s->tag = cp_calloc(entries, sizeof *s->tag);
	s->hi = s->wide ? cp_calloc(entries, sizeof *s->hi) : NULL;
	s->order = cp_calloc(sets, sizeof *s->order);
	if (!s->tag || !s->order || (s->wide && !s->hi))
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
	cp_free(s->hi);
	cp_free(s->order);
}

/* Bit w set where way w of the set holds tag (at most one): the scan for
 * a way count known at compile time (inlined and unrolled below), with
 * SSE2 where the host has it.  Wide tags: the low halves are compared,
 * then the high half of a matching way. */
static inline __attribute__((always_inline)) unsigned
match_n(const struct sa *s, size_t set, uint64_t tag, unsigned ways, int wide)
{
	const uint32_t *t = s->tag + set * ways;
	unsigned w, m = 0;

#ifdef __SSE2__
	if (!(ways & 3)) {
		__m128i k = _mm_set1_epi32((int)(uint32_t)tag);

#pragma GCC unroll 4
		for (w = 0; w < ways; w += 4)
			m |= (unsigned)_mm_movemask_ps(_mm_castsi128_ps(
				_mm_cmpeq_epi32(_mm_loadu_si128(
					(const __m128i *)(const void *)(t + w)), k))) << w;
	} else
#endif
	{
#pragma GCC unroll 16
		for (w = 0; w < ways; w++)
			m |= (unsigned)(t[w] == (uint32_t)tag) << w;
	}
	if (wide) {
		const uint32_t *h = s->hi + set * ways;

		while (m) {
			w = (unsigned)__builtin_ctz(m);
			if (h[w] == (uint32_t)(tag >> 32))
				return 1u << w;
			m &= m - 1;
		}
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

	s->tag[set * s->ways + v] = (uint32_t)tag;
	if (s->wide)
		s->hi[set * s->ways + v] = (uint32_t)(tag >> 32);
	s->order[set] = (o << 4 | v) & s->omask;
}

/* The operations, one set of functions per (ways, tag width) so that
 * each is a short straight line for its structure, and a general one:
 * lookup (a hit becomes most recent; a miss changes nothing), access
 * (a miss is inserted as most recent, evicting the least recent) and
 * probe (presence, recency untouched). */
#define SA_OPS(NAME, WAYS, WIDE)                                          \
static inline __attribute__((always_inline)) int                        \
NAME##_lookup_in(struct sa *s, uint64_t key)                             \
{                                                                        \
	size_t set = (size_t)(key & s->mask);                            \
	unsigned m = match_n(s, set, (key >> s->shift) + 1, WAYS, WIDE);     \
                                                                         \
	if (!m)                                                          \
		return 0;                                                \
	sa_touch(s, set, (unsigned)__builtin_ctz(m));                    \
	return 1;                                                        \
}                                                                        \
static inline __attribute__((always_inline)) int                        \
NAME##_access_in(struct sa *s, uint64_t key)                             \
{                                                                        \
	size_t set = (size_t)(key & s->mask);                            \
	unsigned m = match_n(s, set, (key >> s->shift) + 1, WAYS, WIDE);     \
                                                                         \
	if (m) {                                                         \
		sa_touch(s, set, (unsigned)__builtin_ctz(m));            \
		return 1;                                                \
	}                                                                \
	sa_insert(s, set, key);                                          \
	return 0;                                                        \
}                                                                        \
static int NAME##_lookup(struct sa *s, uint64_t key)                     \
{                                                                        \
	return NAME##_lookup_in(s, key);                                 \
}                                                                        \
static int NAME##_access(struct sa *s, uint64_t key)                     \
{                                                                        \
	return NAME##_access_in(s, key);                                 \
}                                                                        \
static int NAME##_probe(const struct sa *s, uint64_t key)                \
{                                                                        \
	return match_n(s, (size_t)(key & s->mask), (key >> s->shift) + 1,     \
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

/* At the hottest call sites: the operation of the shape the default
 * machine gives that structure, inlined, else the structure's own. */
#define SA_LOOKUP_AS(s, key, NAME) ((s)->lookup == NAME##_lookup ? \
	NAME##_lookup_in(s, key) : (s)->lookup(s, key))
#define SA_ACCESS_AS(s, key, NAME) ((s)->access == NAME##_access ? \
	NAME##_access_in(s, key) : (s)->access(s, key))

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
enum walk_kind { W_DEMAND, W_PREFETCH, W_REPLAY };

struct mshr {
	uint64_t key, va, end;   /* page key (page_key()) of the walk in flight */
	uint8_t busy;            /* walk in flight until end */
	uint8_t fill;            /* completes: fill TLBs and PSCs at end */
	uint8_t size;            /* page size of its translation */
	uint8_t kind;            /* enum walk_kind */
};

/* A replay waiting for its μop's retirement (feature replay). */
struct replay {
	uint64_t t, va, seq;     /* retirement cycle, address, μop number */
	uint8_t cls, size;
};

struct mmu_machine {
	struct mmu_config cfg;
	unsigned features;
	enum mmu_page mode;           /* one page size, or MMU_PAGE_MIX */
	uint64_t rng;
	uint64_t mix_cut, mix_salt;   /* mix: a 2M region is 2M if hash < cut */

	struct sa dtlb[MMU_N_PAGES], stlb, pde, pdpte, pml4, l1, l2, l3;
	unsigned lat[4];

	struct ptpool dir, pt;        /* directories (root: dir 0), page tables */
	uint32_t n_nodes;             /* nodes made, both pools */
	int nomem;                    /* a node allocation failed */

	/* the OS's page aging: a leaf is accessed when its state is epoch */
	uint8_t epoch;
	uint64_t next_clear, clear_cycles;

	struct mshr *mshr;
	uint64_t next_end;            /* earliest end among busy MSHRs */
	uint64_t max_end;             /* latest end of a demand or prefetch walk */

	uint64_t now;                 /* cycles */
	uint64_t *ring;               /* retire times of the last window μops */
	uint64_t last_retire;
	uint64_t n_correct, n_uops;

	struct replay *rq;            /* replays in retirement order (window) */
	size_t rq_head, rq_n;
	/* retirement held by replays: every μop from seq on retires at t or
	 * later (steps in μop order, t increasing); hold_t: the steps reached */
	struct hold { uint64_t seq, t; } *hold;
	size_t hold_head, hold_n;
	uint64_t hold_t;

	/* L1 DTLB fills of STLB hits, due STLB_CYCLES after the lookup */
	struct { uint64_t vpn, t; unsigned size; } dfill[DFILLS];
	unsigned n_dfill;

	uint64_t pf_prev_line;        /* line address of the previous trigger μop */
	uint64_t hint_page;           /* mmu_hint(): the 4K page hinted last */

	/* bypass: the walker's fill buffer, the last paging-structure lines
	 * fetched and when each arrived */
	uint64_t fb_line[8], fb_ready[8];
	unsigned fb_next;

	uint64_t count[MMU_N_EVENTS];
	uint64_t truth[MMU_N_CLASSES * MMU_N_PATHS];
};

static const unsigned page_shift[MMU_N_PAGES] = { 12, 21, 30 };

/* Leaf states: 0 absent; else present, and accessed when equal to the
 * current epoch (1..STATE_OLD-1); STATE_OLD: present, not accessed. */
#define STATE_OLD 255u

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
	unsigned i;

	if (!m)
		return;
	for (i = 0; i < MMU_N_PAGES; i++)
		sa_release(&m->dtlb[i]);
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
	cp_free(m->rq);
	cp_free(m->hold);
	cp_free(m);
}

struct mmu_machine *mmu_machine_new(const struct mmu_config *cfg,
				    unsigned features, enum mmu_page page,
				    uint64_t seed, struct cp_error *err)
{
	struct mmu_machine *m;
	int rc;

	if (mmu_config_check(cfg, err))
		return NULL;
	if ((unsigned)page >= MMU_N_PAGE_MODES) {
		cp_error_set(err, CP_EINPUT, "unknown page size");
		return NULL;
	}
	m = cp_calloc(1, sizeof *m);
	if (!m)
		goto nomem;
	m->cfg = *cfg;
	m->features = features & MMU_F_ALL;
	m->mode = page;
	m->rng = seed ^ 0x5851f42d4c957f2dull;
	m->mix_salt = rng_next(&m->rng);
	m->mix_cut = cfg->mix_2m_share >= 1 ? UINT64_MAX :
		     (uint64_t)(cfg->mix_2m_share * 18446744073709551616.0);
	/* key widths: VPNs of 47-bit addresses (the STLB's 2M keys carry
	 * bit 35), lines below 2^(PT_BITS - 6) */
	rc = sa_init(&m->dtlb[MMU_PAGE_4K], cfg->dtlb_4k_entries, cfg->dtlb_4k_ways, 35);
	rc |= sa_init(&m->dtlb[MMU_PAGE_2M], cfg->dtlb_2m_entries, cfg->dtlb_2m_ways, 26);
	rc |= sa_init(&m->dtlb[MMU_PAGE_1G], cfg->dtlb_1g_entries, cfg->dtlb_1g_ways, 17);
	rc |= sa_init(&m->stlb, cfg->stlb_entries, cfg->stlb_ways, 36);
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
	m->rq = cp_calloc(cfg->window, sizeof *m->rq);
	m->hold = cp_calloc(cfg->window, sizeof *m->hold);
	if (rc || !m->mshr || !m->ring || !m->rq || !m->hold)
		goto nomem;
	m->dir.esize = 4;
	m->pt.esize = 1;
	node_new(m, &m->dir);   /* the root (PML4) is directory 0 */
	if (m->nomem)
		goto nomem;
	m->epoch = 1;
	m->clear_cycles = (uint64_t)((double)cfg->abit_clear_ns * cfg->ghz);
	m->next_clear = m->clear_cycles ? m->clear_cycles : NONE;
	m->next_end = NONE;
	m->pf_prev_line = NONE;
	return m;
nomem:
	mmu_machine_free(m);
	cp_error_set(err, CP_ENOMEM, "out of memory");
	return NULL;
}

/* The page size of va: the run's, or with --pages mix the size the OS
 * gave va's 2M region (a seeded hash against mix_2m_share: transparent
 * huge pages where the kernel found a free 2M frame). */
static inline unsigned page_of(const struct mmu_machine *m, uint64_t va)
{
	uint64_t h;

	if (m->mode != MMU_PAGE_MIX)
		return (unsigned)m->mode;
	h = ((va >> 21) ^ m->mix_salt) * 0x9e3779b97f4a7c15ull;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 32;
	return h < m->mix_cut ? MMU_PAGE_2M : MMU_PAGE_4K;
}

/* One key per translation, unique across page sizes (MSHRs, STLB). */
static inline uint64_t page_key(uint64_t va, unsigned size)
{
	return (va >> page_shift[size]) | (uint64_t)(size != MMU_PAGE_4K) << 35 |
	       (uint64_t)(size == MMU_PAGE_1G) << 34;
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
			if (((uint32_t *)m->dir.ent)[i] & E_LEAF)
				((uint32_t *)m->dir.ent)[i] = E_LEAF | STATE_OLD;
		m->epoch = 1;
	}
}

/* ---- the cache hierarchy: returns the level that served pa (0..3) ---- */
static inline unsigned cache_access(struct mmu_machine *m, uint64_t pa)
{
	uint64_t line = pa >> 6;

	if (SA_ACCESS_AS(&m->l1, line, sa_w8))
		return 0;
	if (SA_ACCESS_AS(&m->l2, line, sa_w8))
		return 1;
	if (SA_ACCESS_AS(&m->l3, line, sa_n16))
		return 2;
	return 3;
}

/* A DTLB_LOAD_MISSES.* event, or its DTLB_STORE_MISSES.* twin. */
static inline void count(struct mmu_machine *m, enum mmu_event e, int cls)
{
	m->count[(unsigned)e + (cls ? MMU_STORE_OFFSET : 0)]++;
}

static inline void truth(struct mmu_machine *m, int cls, enum mmu_path p)
{
	m->truth[cls * MMU_N_PATHS + p]++;
}

/* A completed walk of class cls: WALK_COMPLETED and its size event. */
static inline void count_done(struct mmu_machine *m, int cls, unsigned size)
{
	count(m, (enum mmu_event)(MMU_LOAD_WALK_DONE_4K + size), cls);
	count(m, MMU_LOAD_WALK_DONE, cls);
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

/* The fills of a completed walk, at its end time. */
static void walk_fill(struct mmu_machine *m, uint64_t va, unsigned size)
{
	sa_fill(&m->dtlb[size], va >> page_shift[size]);
	if (size != MMU_PAGE_1G) {
		sa_fill(&m->stlb, page_key(va, size));
		sa_fill(&m->pdpte, va >> 30);
	}
	if (size == MMU_PAGE_4K)
		sa_fill(&m->pde, va >> 21);
	if (m->features & MMU_F_PML4_CACHE)
		sa_fill(&m->pml4, va >> 39);
}

/* The PDE-cache lookup every walk makes (once per request): only 4K
 * translations are cached there, so 2M and 1G walks always miss it. */
static int pde_lookup(struct mmu_machine *m, uint64_t va, unsigned size)
{
	return size == MMU_PAGE_4K && SA_LOOKUP_AS(&m->pde, va >> 21, sa_n4);
}

/* A counted PDE-cache lookup of a request of class cls. */
static int pde_counted(struct mmu_machine *m, uint64_t va, unsigned size,
		       int cls)
{
	int hit = pde_lookup(m, va, size);

	if (!hit)
		count(m, MMU_LOAD_PDE_MISS, cls);
	return hit;
}

/* bypass: is the paging-structure line in the walker's fill buffer at
 * cycle t (fetched, by this or another walk, less than bypass_cycles ago,
 * or still arriving)? */
static int fill_buffer_hit(const struct mmu_machine *m, uint64_t line,
			   uint64_t t)
{
	unsigned i;

	for (i = 0; i < 8; i++)
		if (m->fb_line[i] == line && m->fb_ready[i] &&
		    t < m->fb_ready[i] + m->cfg.bypass_cycles)
			return 1;
	return 0;
}

/* Walk va (a page of the given size) starting at cycle start.  squash_at
 * (NONE: never) is when the requester is squashed: the walk stops there
 * (or after abort_after_refs references).  A demand or replay walk
 * creates missing entries (the OS maps on first touch) and sets accessed
 * bits; a prefetch walk stops after reading an entry that is absent or not
 * accessed.  Demand and prefetch walks count their references
 * (PAGE_WALKER_LOADS); a replay's go through the caches uncounted. */
static void walk(struct mmu_machine *m, uint64_t va, unsigned size,
		 enum walk_kind kind, uint64_t start, uint64_t squash_at,
		 int pde_hit, struct walk_out *out)
{
	unsigned leaf = size;               /* 4K: 0, 2M: 1, 1G: 2 */
	unsigned first = 3, level;
	uint32_t node = 0;        /* in m->dir, then m->pt at level 0 */
	uint64_t t = start + m->cfg.walk_setup;
	int refs_cap = squash_at == NONE ? -1 : m->cfg.abort_after_refs;
	/* The fill buffer serves demand walks; prefetch walks always read. */
	int bypass = (m->features & MMU_F_BYPASS) && kind == W_DEMAND;

	out->refs = 0;
	out->bypassed = 0;
	out->completed = 0;
	out->abit = 0;
	if (pde_hit)
		first = 0;
	else if (size != MMU_PAGE_1G && sa_lookup(&m->pdpte, va >> 30))
		first = 1;
	else if ((m->features & MMU_F_PML4_CACHE) &&
		 sa_lookup(&m->pml4, va >> 39))
		first = 2;
	out->first = first;
	for (level = 3; level > first; level--)   /* cached levels: no refs */
		node = *dir_entry(m, node, (unsigned)(va >> (12 + 9 * level)) & 511) - 1;
	for (level = first;; level--) {
		unsigned e = (unsigned)(va >> (12 + 9 * level)) & 511;
		unsigned lvl, state;
		uint64_t pa;
		uint32_t ent;

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
			if (kind != W_REPLAY)
				m->count[MMU_WALK_REF_L1 + lvl]++;
			t += m->lat[lvl];
			if (bypass) {
				m->fb_line[m->fb_next] = pa >> 6;
				m->fb_ready[m->fb_next] = t;
				m->fb_next = (m->fb_next + 1) % 8;
			}
		}
		if (level > leaf) {
			/* a directory entry on the way down */
			ent = *dir_entry(m, node, e);
			if (!ent) {
				uint32_t c;

				if (kind == W_PREFETCH)
					goto aborted;   /* absent */
				/* the OS maps on first touch */
				c = node_new(m, level == 1 ? &m->pt : &m->dir);
				if (!c)
					goto aborted;   /* out of memory: m->nomem */
				ent = *dir_entry(m, node, e) = c;
			}
			node = ent - 1;
			continue;
		}
		/* the leaf */
		state = level ? *dir_entry(m, node, e) & 255u :
			((uint8_t *)m->pt.ent)[(size_t)node * 512 + e];
		if (kind == W_PREFETCH) {
			if (state != m->epoch) {
				out->abit = state != 0;
				goto aborted;   /* absent, or not accessed */
			}
		} else if (state != m->epoch) {
			if (level)
				*dir_entry(m, node, e) = E_LEAF | m->epoch;
			else
				((uint8_t *)m->pt.ent)[(size_t)node * 512 + e] = m->epoch;
		}
		break;
	}
	if (refs_cap < 0 && t > squash_at)
		goto aborted;           /* squashed before its last reference returned */
	out->completed = 1;
	out->end = t;
	return;
aborted:
	out->end = refs_cap >= 0 || t < squash_at ? t : squash_at;
}

/* Apply the DTLB fills of STLB hits due by cycle t (in order of their
 * lookups); with force, all of them. */
static void dtlb_fills(struct mmu_machine *m, uint64_t t, int force)
{
	unsigned i, k = 0;

	for (i = 0; i < m->n_dfill; i++) {
		if (force || m->dfill[i].t <= t)
			sa_fill(&m->dtlb[m->dfill[i].size], m->dfill[i].vpn);
		else
			m->dfill[k++] = m->dfill[i];
	}
	m->n_dfill = k;
}

/* Apply the fills of walks that ended by cycle t and free their MSHRs. */
static void retire_walks_due(struct mmu_machine *m, uint64_t t)
{
	unsigned i;
	uint64_t next = NONE;

	if (m->n_dfill)
		dtlb_fills(m, t, 0);
	if (t < m->next_end)
		return;
	for (i = 0; i < m->cfg.walkers; i++) {
		struct mshr *w = &m->mshr[i];

		if (!w->busy)
			continue;
		if (w->end <= t) {
			if (w->fill)
				walk_fill(m, w->va, w->size);
			w->busy = 0;
		} else if (w->end < next) {
			next = w->end;
		}
	}
	m->next_end = next;
}

static inline void retire_walks(struct mmu_machine *m, uint64_t t)
{
	if (t >= m->next_end || m->n_dfill)
		retire_walks_due(m, t);
}

static struct mshr *mshr_free(struct mmu_machine *m)
{
	unsigned i;

	for (i = 0; i < m->cfg.walkers; i++)
		if (!m->mshr[i].busy)
			return &m->mshr[i];
	return NULL;
}

/* The busy MSHR walking key, or NULL. */
static struct mshr *mshr_find(struct mmu_machine *m, uint64_t key)
{
	unsigned i;

	for (i = 0; i < m->cfg.walkers; i++)
		if (m->mshr[i].busy && m->mshr[i].key == key)
			return &m->mshr[i];
	return NULL;
}

static void mshr_take(struct mmu_machine *m, struct mshr *w, uint64_t va,
		      unsigned size, enum walk_kind kind,
		      const struct walk_out *o)
{
	unsigned i;
	int moved = w->busy;      /* a walk taken over: its end moves later */

	w->key = page_key(va, size);
	w->va = va;
	w->size = (uint8_t)size;
	w->kind = (uint8_t)kind;
	w->busy = 1;
	w->fill = (uint8_t)o->completed;
	w->end = o->end;
	if (!moved) {
		if (o->end < m->next_end)
			m->next_end = o->end;
	} else {
		m->next_end = NONE;
		for (i = 0; i < m->cfg.walkers; i++)
			if (m->mshr[i].busy && m->mshr[i].end < m->next_end)
				m->next_end = m->mshr[i].end;
	}
	if (kind != W_REPLAY && o->end > m->max_end)
		m->max_end = o->end;
}

/* ---- the LSQ-side TLB prefetcher ---- */
static void prefetch(struct mmu_machine *m, uint64_t target, int cls)
{
	unsigned size;
	struct mshr *w;
	struct walk_out o;

	if (target >> 47) {
		truth(m, cls, MMU_P_PF_DROPPED);
		return;
	}
	size = page_of(m, target);
	if (sa_probe(&m->dtlb[size], target >> page_shift[size]) ||
	    (size != MMU_PAGE_1G && sa_probe(&m->stlb, page_key(target, size))) ||
	    mshr_find(m, page_key(target, size)) || !(w = mshr_free(m))) {
		truth(m, cls, MMU_P_PF_DROPPED);
		return;
	}
	/* Uncounted PDE lookup: DTLB_LOAD_MISSES.* count demand requests. */
	walk(m, target, size, W_PREFETCH, m->now, NONE,
	     pde_lookup(m, target, size), &o);
	m->count[MMU_LOAD_WALK_DURATION] += o.end - m->now;
	if (o.completed) {
		/* a load-side walk, whichever μop triggered it */
		count_done(m, MMU_C_LOAD, size);
		truth(m, cls, MMU_P_PF_WALK);
	} else {
		truth(m, cls, o.abit ? MMU_P_PF_ABIT : MMU_P_PF_ABSENT);
	}
	mshr_take(m, w, target, size, W_PREFETCH, &o);
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
static void prefetch_trigger(struct mmu_machine *m, uint64_t va, int cls,
			     int at)
{
	uint64_t line = va >> 6, prev = m->pf_prev_line;

	if (cls == MMU_C_STORE && !(m->features & MMU_F_PF_STORES))
		return;
	m->pf_prev_line = line;
	if (prev == NONE || (prev >> 6) != (line >> 6))
		return;
	if ((m->features & MMU_F_PF_STLB_MISS) ? at != AT_WALK :
	    (m->features & MMU_F_PF_DTLB_MISS) ? at == AT_DTLB : 0)
		return;
	if ((prev & 63) == m->cfg.pf_up_from && (line & 63) == m->cfg.pf_up_to &&
	    line == prev + 1)
		prefetch(m, (va & ~4095ull) + 4096, cls);
	else if ((prev & 63) == m->cfg.pf_down_from &&
		 (line & 63) == m->cfg.pf_down_to && line + 1 == prev &&
		 (va & ~4095ull) >= 4096)
		prefetch(m, (va & ~4095ull) - 4096, cls);
}

/* ---- one memory μop ---- */

/* The path of a completed own walk. */
static enum mmu_path walk_path(const struct walk_out *o)
{
	if (o->bypassed)
		return MMU_P_WALK_BYPASSED;
	return (enum mmu_path)(MMU_P_WALK_1REF + (o->refs ? o->refs - 1 : 0));
}

/* A demand walk of class cls taking MSHR w at cycle start: counted as a
 * walk start (and its PDE lookup unless pde_early counted it already). */
static void demand_walk(struct mmu_machine *m, struct mshr *w, uint64_t va,
			unsigned size, int cls, uint64_t start,
			uint64_t squash_at, int early, int pde_hit,
			struct walk_out *o)
{
	static const enum mmu_path psc[4] = {
		MMU_P_PSC_PDE, MMU_P_PSC_PDPTE, MMU_P_PSC_PML4, MMU_P_PSC_NONE
	};

	if (!early)
		pde_hit = pde_counted(m, va, size, cls);
	count(m, MMU_LOAD_CAUSES_WALK, cls);
	walk(m, va, size, W_DEMAND, start,
	     (m->features & MMU_F_ABORT) ? squash_at : NONE, pde_hit, o);
	m->count[MMU_LOAD_WALK_DURATION + (cls ? MMU_STORE_OFFSET : 0)] +=
		o->end - start;
	truth(m, cls, psc[o->first]);
	m->truth[cls * MMU_N_PATHS + MMU_P_REFS_BYPASSED] += o->bypassed;
	mshr_take(m, w, va, size, W_DEMAND, o);
	if (o->completed)
		count_done(m, cls, size);
}

/* Translate va for one μop (wrong-path when squash_at != NONE).  Returns
 * the path taken; *ready is when the translation is available, *at where
 * it came from (AT_WALK: the μop missed the STLB: own walk or merged). */
static enum mmu_path translate(struct mmu_machine *m, uint64_t va, int cls,
			       uint64_t squash_at, uint64_t *ready, int *at)
{
	unsigned size = page_of(m, va);
	uint64_t vpn = va >> page_shift[size], key = page_key(va, size);
	int early = (m->features & MMU_F_PDE_EARLY) != 0;
	int abort = (m->features & MMU_F_ABORT) && squash_at != NONE;
	int waited = 0;

	for (;;) {
		struct mshr *w;
		struct walk_out o;
		int pde_hit = 0;

		retire_walks(m, m->now);
		if (SA_LOOKUP_AS(&m->dtlb[size], vpn, sa_n4)) {
			*ready = m->now;
			*at = AT_DTLB;
			return waited ? MMU_P_WAITED : MMU_P_DTLB_HIT;
		}
		if (size != MMU_PAGE_1G && SA_LOOKUP_AS(&m->stlb, key, sa_n8)) {
			count(m, (enum mmu_event)(MMU_LOAD_STLB_HIT_4K + size), cls);
			count(m, MMU_LOAD_STLB_HIT, cls);
			/* the L1 DTLB has it when the STLB lookup ends: μops
			 * to the page until then miss it too */
			if (m->n_dfill == DFILLS)
				dtlb_fills(m, 0, 1);
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
		if (early)
			pde_hit = pde_counted(m, va, size, cls);
		w = (m->features & MMU_F_MERGE) ? mshr_find(m, key) : NULL;
		if (w && w->fill) {
			/* merged into a walk that will translate it */
			if (early) {
				truth(m, cls, MMU_P_PDE_NOWALK);
				if (!pde_hit)
					truth(m, cls, MMU_P_PDE_NOWALK_MISS);
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
				truth(m, cls, MMU_P_PDE_NOWALK);
				if (!pde_hit)
					truth(m, cls, MMU_P_PDE_NOWALK_MISS);
			}
			if (abort && squash_at <= t)
				return MMU_P_SQUASHED;  /* gone before that */
			truth(m, cls, MMU_P_MERGE_REWALK);
			if (early)
				pde_hit = pde_counted(m, va, size, cls);
			demand_walk(m, w, va, size, cls, t, squash_at, early,
				    pde_hit, &o);
			*ready = o.end;
			return o.completed ? walk_path(&o) : MMU_P_WALK_ABORTED;
		}
		w = mshr_free(m);
		if (!w) {
			/* No free walker: stall until the first walk ends,
			 * then look the TLBs up again; a squashed requester
			 * is aborted before then, with feature abort. */
			if (early) {
				truth(m, cls, MMU_P_PDE_NOWALK);
				if (!pde_hit)
					truth(m, cls, MMU_P_PDE_NOWALK_MISS);
			}
			if (abort && squash_at <= m->next_end)
				return MMU_P_ABORTED_QUEUED;
			m->now = m->next_end;
			waited = 1;
			continue;
		}
		demand_walk(m, w, va, size, cls, m->now, squash_at, early,
			    pde_hit, &o);
		*ready = o.end;
		return o.completed ? walk_path(&o) : MMU_P_WALK_ABORTED;
	}
}

/* ---- replays: a re-walk at retirement ---- */

/* Run the oldest pending replay: its μop has reached retirement.  It
 * takes a free walker (the machine stalls until one is free), walks like
 * a demand walk through the paging-structure caches and the data caches
 * (PDE lookup and references uncounted), completes a walk, and holds its
 * μop's retirement, and so every younger μop's, until it ends. */
static void replay_run(struct mmu_machine *m)
{
	struct replay *r = &m->rq[m->rq_head];
	struct mshr *w;
	struct walk_out o;

	for (;;) {
		retire_walks(m, m->now);
		if ((w = mshr_free(m)) != NULL)
			break;
		m->now = m->next_end;
	}
	walk(m, r->va, r->size, W_REPLAY, m->now, NONE,
	     pde_lookup(m, r->va, r->size), &o);
	count_done(m, r->cls, r->size);
	m->count[MMU_LOAD_WALK_DURATION + (r->cls ? MMU_STORE_OFFSET : 0)] +=
		o.end - m->now;
	truth(m, r->cls, MMU_P_REPLAYED);
	m->truth[r->cls * MMU_N_PATHS + MMU_P_REPLAY_REFS] += o.refs;
	mshr_take(m, w, r->va, r->size, W_REPLAY, &o);
	/* a step of the retirement floor, unless an older one covers it */
	if (o.end > m->hold_t && (!m->hold_n ||
	    o.end > m->hold[(m->hold_head + m->hold_n - 1) % m->cfg.window].t)) {
		struct hold *h = &m->hold[(m->hold_head + m->hold_n++) % m->cfg.window];

		h->seq = r->seq;
		h->t = o.end;
	}
	if (m->last_retire < o.end)
		m->last_retire = o.end;
	m->rq_head = (m->rq_head + 1) % m->cfg.window;
	m->rq_n--;
}

void mmu_access(struct mmu_machine *m, uint64_t va, int is_store)
{
	int cls = is_store ? MMU_C_STORE : MMU_C_LOAD;
	size_t slot = (size_t)(m->n_correct % m->cfg.window);
	uint64_t ready, done, prev_max;
	enum mmu_path path;
	int at;

	va &= (1ull << 47) - 1;
	if (m->now >= m->next_clear)
		os_age(m);
	/* The window is full until the μop `window` places older retires;
	 * replays of retiring μops run first (and may hold retirement). */
	for (;;) {
		uint64_t need = m->ring[slot];

		if (m->n_correct >= m->cfg.window) {
			uint64_t q = m->n_correct - m->cfg.window;

			while (m->hold_n && m->hold[m->hold_head].seq <= q) {
				if (m->hold_t < m->hold[m->hold_head].t)
					m->hold_t = m->hold[m->hold_head].t;
				m->hold_head = (m->hold_head + 1) % m->cfg.window;
				m->hold_n--;
			}
			if (need < m->hold_t)
				need = m->hold_t;
		}
		if (need > m->now)
			m->now = need;
		if (!m->rq_n || m->rq[m->rq_head].t > m->now)
			break;
		replay_run(m);
	}
	prev_max = m->max_end;
	path = translate(m, va, cls, NONE, &ready, &at);
	truth(m, cls, path);
	done = ready + m->lat[cache_access(m, va)];
	if (done < m->last_retire)
		done = m->last_retire;
	m->last_retire = done;
	m->ring[slot] = done;
	m->count[MMU_RETIRED_LOADS + cls]++;
	if (at == AT_WALK) {
		m->count[MMU_RETIRED_STLB_MISS_LOADS + cls]++;
		/* replay: a translation that arrived no later than a walk
		 * started before this μop (merged into one, or completed out
		 * of order) was speculative; retirement re-walks it. */
		if ((m->features & MMU_F_REPLAY) && ready <= prev_max) {
			struct replay *r = &m->rq[(m->rq_head + m->rq_n) % m->cfg.window];

			r->t = done;
			r->va = va;
			r->seq = m->n_correct;
			r->cls = (uint8_t)cls;
			r->size = (uint8_t)page_of(m, va);
			m->rq_n++;
		}
	}
	if (m->features & MMU_F_PREFETCH)
		prefetch_trigger(m, va, cls, at);
	m->now += m->cfg.uop_cycles;
	m->n_correct++;
	m->n_uops++;
}

/* A wrong-path μop: translated (its walk aborted at its squash with
 * feature abort), never retired, never in the window. */
void mmu_access_wrong(struct mmu_machine *m, uint64_t va, int is_store)
{
	int cls = is_store ? MMU_C_STORE : MMU_C_LOAD;
	uint64_t ready, squash_at;
	enum mmu_path path;
	int at;

	va &= (1ull << 47) - 1;
	if (m->now >= m->next_clear)
		os_age(m);
	squash_at = m->now + rng_next(&m->rng) % (2ull * m->cfg.squash_cycles + 1);
	path = translate(m, va, cls, squash_at, &ready, &at);
	if ((path >= MMU_P_WALK_1REF && path <= MMU_P_WALK_4REF) ||
	    path == MMU_P_WALK_BYPASSED)
		path = MMU_P_SQUASHED_WALK;     /* its own walk completed */
	else if (path != MMU_P_WALK_ABORTED && path != MMU_P_ABORTED_QUEUED)
		path = MMU_P_SQUASHED;
	truth(m, cls, path);
	if (m->features & MMU_F_PREFETCH)
		prefetch_trigger(m, va, cls, at);
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

	__builtin_prefetch(s->tag + set * s->ways, 0, 3);
	__builtin_prefetch(s->order + set, 0, 3);
}

void mmu_hint(struct mmu_machine *m, uint64_t va)
{
	uint32_t node = 0, ent = 0;
	unsigned level, leaf;
	uint64_t line;

	va &= (1ull << 47) - 1;
	sa_hint(&m->l2, va >> 6);
	sa_hint(&m->l3, va >> 6);
	if (va >> 12 == m->hint_page)
		return;         /* its page's entry was hinted just before */
	m->hint_page = va >> 12;
	leaf = page_of(m, va);
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
	unsigned i;

	while (m->rq_n) {
		if (m->rq[m->rq_head].t > m->now)
			m->now = m->rq[m->rq_head].t;
		replay_run(m);
	}
	for (i = 0; i < m->cfg.walkers; i++)
		if (m->mshr[i].busy && m->mshr[i].end > m->now)
			m->now = m->mshr[i].end;
	if (m->last_retire > m->now)
		m->now = m->last_retire;
	retire_walks(m, NONE);
	dtlb_fills(m, 0, 1);
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

