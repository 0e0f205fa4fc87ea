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

#include "hw/sim/mmu.h"

#define NONE UINT64_MAX
#define STLB_CYCLES 7             /* STLB hit latency */
#define PT_BASE (1ull << 50)      /* page-table frames: above any VA */
#define A_PRESENT 1u
#define A_ACCESSED 2u

/* ---- set-associative arrays with true LRU (TLBs, PSCs, caches) ----
 * Each set keeps its ways in recency order, most recent first, so a hit
 * moves its tag to the front and a miss shifts the set and drops the
 * last (least recently used) way.  tag holds key + 1 (0 = empty).  One
 * flat array, no stamps: a set is ways consecutive words. */
struct sa {
	uint64_t *tag;
	uint64_t mask;
	unsigned ways;
};

static int sa_init(struct sa *s, unsigned entries, unsigned ways)
{
	s->ways = ways;
	s->mask = entries / ways - 1;
	s->tag = cp_calloc(entries, sizeof *s->tag);
	return s->tag ? CP_OK : CP_ENOMEM;
}

static void sa_release(struct sa *s)
{
	cp_free(s->tag);
}

static inline uint64_t *sa_set(const struct sa *s, uint64_t key)
{
	return s->tag + (size_t)(key & s->mask) * s->ways;
}

/* Way of key in set t, or ways if absent. */
static inline unsigned sa_find(const uint64_t *t, unsigned ways, uint64_t key)
{
	unsigned w;

	for (w = 0; w < ways; w++)
		if (t[w] == key + 1)
			break;
	return w;
}

/* Hit: make it most recent and return 1.  Miss: return 0, no change. */
static inline int sa_lookup(struct sa *s, uint64_t key)
{
	uint64_t *t = sa_set(s, key);
	unsigned w = sa_find(t, s->ways, key);

	if (w == s->ways)
		return 0;
	for (; w; w--)
		t[w] = t[w - 1];
	t[0] = key + 1;
	return 1;
}

/* Presence without touching recency (the prefetcher's probe). */
static inline int sa_probe(const struct sa *s, uint64_t key)
{
	return sa_find(sa_set(s, key), s->ways, key) != s->ways;
}

/* Look up key; on a miss, insert it as most recent, evicting the least
 * recent way.  Returns whether it hit. */
static inline int sa_access(struct sa *s, uint64_t key)
{
	uint64_t *t = sa_set(s, key);
	unsigned w = sa_find(t, s->ways, key);
	int hit = w < s->ways;

	if (!hit)
		w = s->ways - 1;
	for (; w; w--)      /* shorter than a memmove call for a few ways */
		t[w] = t[w - 1];
	t[0] = key + 1;
	return hit;
}

static inline void sa_fill(struct sa *s, uint64_t key)
{
	(void)sa_access(s, key);
}

/* ---- page tables: nodes of 512 entries, levels 3 (PML4) .. 0 (PT) ---- */
struct ptnode {
	uint32_t child[512];   /* node index of the next level (0 = none) */
	uint8_t flags[512];    /* A_PRESENT | A_ACCESSED */
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

	struct ptnode *nodes;
	size_t n_nodes, cap_nodes;
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

static uint32_t node_new(struct mmu_machine *m)
{
	if (m->n_nodes == m->cap_nodes) {
		size_t cap = m->cap_nodes ? 2 * m->cap_nodes : 64;
		struct ptnode *n = cp_reallocarray(m->nodes, cap, sizeof *n);

		if (!n) {
			m->nomem = 1;
			return 0;
		}
		m->nodes = n;
		m->cap_nodes = cap;
	}
	memset(&m->nodes[m->n_nodes], 0, sizeof m->nodes[0]);
	return (uint32_t)m->n_nodes++;
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
	cp_free(m->nodes);
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
	rc = sa_init(&m->dtlb, de, dw);
	rc |= sa_init(&m->stlb, cfg->stlb_entries, cfg->stlb_ways);
	rc |= sa_init(&m->pde, cfg->pde_entries, cfg->pde_ways);
	rc |= sa_init(&m->pdpte, cfg->pdpte_entries, cfg->pdpte_ways);
	rc |= sa_init(&m->pml4, cfg->pml4_entries, cfg->pml4_ways);
	rc |= sa_init(&m->l1, cfg->l1_bytes / 64, cfg->l1_ways);
	rc |= sa_init(&m->l2, cfg->l2_bytes / 64, cfg->l2_ways);
	rc |= sa_init(&m->l3, cfg->l3_bytes / 64, cfg->l3_ways);
	m->lat[0] = cfg->lat_l1;
	m->lat[1] = cfg->lat_l2;
	m->lat[2] = cfg->lat_l3;
	m->lat[3] = cfg->lat_mem;
	m->mshr = cp_calloc(cfg->walkers, sizeof *m->mshr);
	m->ring = cp_calloc(cfg->window, sizeof *m->ring);
	if (rc || !m->mshr || !m->ring)
		goto nomem;
	node_new(m);            /* the root (PML4) is node 0 */
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
	uint32_t node = 0;
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
		node = m->nodes[node].child[(va >> (12 + 9 * level)) & 511];
	for (level = first;; level--) {
		unsigned e = (unsigned)(va >> (12 + 9 * level)) & 511;
		struct ptnode *n;
		unsigned lvl;
		uint64_t pa;

		if (refs_cap >= 0 ? out->refs >= (unsigned)refs_cap : t >= squash_at)
			goto aborted;
		pa = PT_BASE + ((uint64_t)node << 12) + e * 8u;
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
		n = &m->nodes[node];
		if (kind == W_PREFETCH) {
			if ((n->flags[e] & (A_PRESENT | A_ACCESSED)) !=
			    (A_PRESENT | A_ACCESSED))
				goto aborted;
		} else {
			if (level > leaf && !n->child[e]) {
				uint32_t c = node_new(m);  /* may move nodes */

				if (!c)
					goto aborted;   /* out of memory: m->nomem */
				m->nodes[node].child[e] = c;
				n = &m->nodes[node];
			}
			n->flags[e] |= A_PRESENT | A_ACCESSED;
		}
		if (level == leaf)
			break;
		node = n->child[e];
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
