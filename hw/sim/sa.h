/* hw/sim/sa.h: the simulator's set-associative arrays with true LRU (the
 * TLBs, the paging-structure caches and the data caches), internal to
 * hw/sim/machine.c.  Kept in a header of static inline functions so the
 * hot lookups still inline into the machine's μop loop. */
#ifndef COUNTERPOINT_HW_SIM_SA_H
#define COUNTERPOINT_HW_SIM_SA_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "common/cp.h"

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
	unsigned ways, shift;         /* shift = log2(sets) */
	int wide;                     /* tags need more than 32 bits */
};

#define NIBBLES 0x1111111111111111ull

/* key_bits: every key the structure sees is below 2^key_bits. */
static inline int sa_init(struct sa *s, unsigned entries, unsigned ways,
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
	s->tag = cp_calloc(entries, sizeof *s->tag);
	s->hi = s->wide ? cp_calloc(entries, sizeof *s->hi) : NULL;
	s->order = cp_calloc(sets, sizeof *s->order);
	if (!s->tag || !s->order || (s->wide && !s->hi))
		return CP_ENOMEM;
	for (w = ways; w-- > 0;)      /* way 0 first, way ways-1 least recent */
		order = order << 4 | w;
	for (k = 0; k < sets; k++)
		s->order[k] = order;
	return CP_OK;
}

static inline void sa_release(struct sa *s)
{
	cp_free(s->tag);
	cp_free(s->hi);
	cp_free(s->order);
}

/* Whether s has the shape (ways, tag width) that code compiled for
 * (ways, wide) assumes. */
static inline int sa_is(const struct sa *s, unsigned ways, int wide)
{
	return s->ways == ways && s->wide == wide;
}

/* ---- the operations, for a shape (ways, wide) ----
 * Every operation takes the structure's ways and tag width as arguments:
 * the μop path passes constants (the default machine's shape of that
 * structure, checked once by sa_is() when the machine is built), so each
 * call inlines to a short straight line with its scan unrolled; sa_lookup()
 * and the others below pass the structure's own, for any shape. */

/* Bit w set where way w of the set holds tag (at most one), with SSE2
 * where the host has it.  Wide tags: the low halves are compared, then
 * the high half of a matching way. */
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
static inline __attribute__((always_inline)) void
sa_touch(struct sa *s, size_t set, unsigned w)
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
static inline __attribute__((always_inline)) void
sa_insert(struct sa *s, size_t set, uint64_t tag, unsigned ways, int wide)
{
	uint64_t o = s->order[set];
	unsigned v = (unsigned)(o >> (4 * (ways - 1))) & 15;

	s->tag[set * ways + v] = (uint32_t)tag;
	if (wide)
		s->hi[set * ways + v] = (uint32_t)(tag >> 32);
	s->order[set] = ways == 16 ? o << 4 | v :
			(o << 4 | v) & ((1ull << (4 * ways)) - 1);
}

/* Lookup: a hit becomes most recent; a miss changes nothing. */
static inline __attribute__((always_inline)) int
sa_lookup_as(struct sa *s, uint64_t key, unsigned ways, int wide)
{
	size_t set = (size_t)(key & s->mask);
	unsigned m = match_n(s, set, (key >> s->shift) + 1, ways, wide);

	if (!m)
		return 0;
	sa_touch(s, set, (unsigned)__builtin_ctz(m));
	return 1;
}

/* Access: a lookup, and a miss is inserted as most recent, evicting the
 * least recent.  Returns whether it hit. */
static inline __attribute__((always_inline)) int
sa_access_as(struct sa *s, uint64_t key, unsigned ways, int wide)
{
	size_t set = (size_t)(key & s->mask);
	uint64_t tag = (key >> s->shift) + 1;
	unsigned m = match_n(s, set, tag, ways, wide);

	if (m) {
		sa_touch(s, set, (unsigned)__builtin_ctz(m));
		return 1;
	}
	sa_insert(s, set, tag, ways, wide);
	return 0;
}

/* Probe: presence, recency untouched. */
static inline __attribute__((always_inline)) int
sa_probe_as(const struct sa *s, uint64_t key, unsigned ways, int wide)
{
	return match_n(s, (size_t)(key & s->mask), (key >> s->shift) + 1,
		       ways, wide) != 0;
}

/* The same for a structure of any shape (its own ways and width). */
static inline int sa_lookup(struct sa *s, uint64_t key)
{
	return sa_lookup_as(s, key, s->ways, s->wide);
}

static inline int sa_access(struct sa *s, uint64_t key)
{
	return sa_access_as(s, key, s->ways, s->wide);
}

static inline int sa_probe(const struct sa *s, uint64_t key)
{
	return sa_probe_as(s, key, s->ways, s->wide);
}

#endif
