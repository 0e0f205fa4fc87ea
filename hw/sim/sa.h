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
#ifdef __AVX2__
#include <immintrin.h>
#endif

#include "common/cp.h"

/* ---- set-associative arrays with true LRU (TLBs, PSCs, caches) ----
 * A key's low bits pick its set and the rest is its tag, stored in a
 * fixed way (an empty way holds all ones, which no tag is: a tag below
 * 2^31 is not wide, and a wide one's high half has at most 11 bits; so a
 * tag is made without a + 1): its low 32 bits compared first, and when
 * the structure's tags do not fit in 32 bits its high bits (16 of them
 * kept), read only for a way whose low bits match.  A set is one block
 * of memory, 64-byte aligned when it is 64 bytes or more: the low halves
 * of its tags, then the high halves (wide tags), then, when the block
 * still fits one host cache line, the set's recency word (else that is
 * in an array of its own: a 16-way set's tags fill the line), so that
 * an operation on a set of up to 8 ways touches one host line, found
 * from one pointer.  Each set's recency
 * order is one 64-bit word of 4-bit way numbers, most recent first, so a
 * hit moves one nibble to the front and a miss replaces the way in the
 * last nibble: constant work, no shifting of tags.  With fewer than 16
 * ways the nibbles past the last rank are left over from earlier misses
 * (a miss shifts the word without masking it) and never read.  The
 * tags of a set are compared with SSE2 where the host has it.  At most
 * 16 ways. */

/* Where a key goes: set = key & mask, tag = key >> shift. */
struct sa_shape {
	uint64_t mask;                /* sets - 1 */
	unsigned shift;               /* log2(sets) */
	unsigned ways;
	int wide;                     /* tags need more than 32 bits */
	int mru;                      /* enum sa_mru */
};

/* Where the hits of a structure fall, which decides the branches of its
 * recency update: a branch that the host predicts well saves work, one
 * that it mispredicts costs more than the work (random workloads hit
 * the most recent way of an L1 set a third of the time). */
enum sa_mru {
	MRU_ANY,      /* anywhere: the update is computed for every hit */
	MRU_SKIP,     /* mostly the most recent way (the DTLBs: a stream's
		       * μops to one page): such a hit skips the update */
	MRU_FIRST     /* almost always the most recent way (the PDPTE and
		       * PML4E caches): it is tested before the scan */
};

struct sa {
	char *blk;                    /* the sets' blocks (64-byte aligned) */
	void *mem;                    /* their allocation */
	uint64_t *order;              /* per set: nibble k = way of rank k,
				       * when not in the blocks (else NULL) */
	struct sa_shape sh;
};

#define NIBBLES 0x1111111111111111ull

/* The bytes of a set's tags: low halves, and high halves of wide ones. */
static inline __attribute__((always_inline)) size_t
sa_tag_bytes(unsigned ways, int wide)
{
	return (size_t)ways * (wide ? 6 : 4);
}

/* Whether a set's recency word is in its block (the block fits a line). */
static inline __attribute__((always_inline)) int
sa_inblock(unsigned ways, int wide)
{
	return sa_tag_bytes(ways, wide) + 8 <= 64;
}

/* The bytes of a set's block: 16, 32 or 64 with the recency word (the
 * SSE2 loads stay aligned, and no block crosses a line), else the tags
 * in whole lines. */
static inline __attribute__((always_inline)) size_t
sa_stride(unsigned ways, int wide)
{
	size_t b = sa_tag_bytes(ways, wide);

	if (b + 8 <= 64)
		return b + 8 <= 16 ? 16 : b + 8 <= 32 ? 32 : 64;
	return (b + 63) & ~(size_t)63;
}

/* A set's tags (low halves), the high halves of wide ones after them,
 * and its recency word. */
static inline __attribute__((always_inline)) uint32_t *
sa_tags(const struct sa *s, size_t set, unsigned ways, int wide)
{
	return (uint32_t *)(void *)(s->blk + set * sa_stride(ways, wide));
}

static inline __attribute__((always_inline)) uint16_t *
sa_his(uint32_t *t, unsigned ways)
{
	return (uint16_t *)(void *)(t + ways);
}

static inline __attribute__((always_inline)) uint64_t *
sa_order(const struct sa *s, size_t set, unsigned ways, int wide)
{
	if (sa_inblock(ways, wide))
		return (uint64_t *)(void *)(s->blk + (set + 1) * sa_stride(ways, wide) - 8);
	return s->order + set;
}

/* key_bits: every key the structure sees is below 2^key_bits. */
static inline int sa_init(struct sa *s, unsigned entries, unsigned ways,
		   unsigned key_bits)
{
	unsigned sets = entries / ways, w;
	uint64_t order = 0;
	size_t k, bytes;

	s->sh.ways = ways;
	s->sh.mask = sets - 1;
	for (s->sh.shift = 0; (1u << s->sh.shift) < sets; s->sh.shift++)
		;
	s->sh.wide = key_bits > s->sh.shift + 31;
	s->sh.mru = MRU_ANY;
	bytes = sets * sa_stride(ways, s->sh.wide);
	s->blk = s->mem = cp_malloc(bytes + 63);
	s->order = NULL;
	if (!sa_inblock(ways, s->sh.wide))
		s->order = cp_malloc(sets * sizeof *s->order);
	if (!s->mem || (!sa_inblock(ways, s->sh.wide) && !s->order))
		return CP_ENOMEM;
	s->blk += -(uintptr_t)s->blk & 63;
	memset(s->blk, 0xff, bytes);  /* every way empty */
	for (w = ways; w-- > 0;)      /* way 0 first, way ways-1 least recent */
		order = order << 4 | w;
	for (k = 0; k < sets; k++)
		*sa_order(s, k, ways, s->sh.wide) = order;
	return CP_OK;
}

static inline void sa_release(struct sa *s)
{
	cp_free(s->mem);
	cp_free(s->order);
}

/* Whether s has shape sh. */
static inline int sa_is(const struct sa *s, struct sa_shape sh)
{
	return s->sh.mask == sh.mask && s->sh.shift == sh.shift &&
	       s->sh.ways == sh.ways && s->sh.wide == sh.wide;   /* any mru */
}

/* ---- the operations, for a shape ----
 * Every operation takes the structure's shape as an argument: the μop
 * path passes constants (the default machine's shape of that structure,
 * checked once by sa_is() when the machine is built), so each call
 * inlines to a short straight line, its scan unrolled and its set and
 * tag computed with immediates; sa_lookup() and the others below pass
 * the structure's own, for any shape. */

/* The way of the set that holds tag, + 1 (0: none), found with SSE2 or
 * AVX2 where the host has it.  Wide tags: the low halves are compared,
 * then the high half of a matching way. */
static inline __attribute__((always_inline)) unsigned
match_n(const struct sa *s, size_t set, uint64_t tag, unsigned ways, int wide)
{
	const uint32_t *t = sa_tags(s, set, ways, wide);
	unsigned w, m = 0;

#ifdef __AVX2__
	/* (hw/sim/machine_avx2.c) 8 ways per compare: a set of 8 is 32
	 * bytes, of 16 a host line, both aligned */
	if (ways == 8 || ways == 16) {
		__m256i k = _mm256_set1_epi32((int)(uint32_t)tag);

		m = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(
			_mm256_cmpeq_epi32(_mm256_load_si256(
				(const __m256i *)(const void *)t), k)));
		if (ways == 16)
			m |= (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(
				_mm256_cmpeq_epi32(_mm256_load_si256(
					(const __m256i *)(const void *)(t + 8)), k))) << 8;
	} else
#endif
#ifdef __SSE2__
	if (ways == 16) {
		/* the four compares packed to one byte per way, one mask */
		__m128i k = _mm_set1_epi32((int)(uint32_t)tag);
		const __m128i *v = (const __m128i *)(const void *)t;

		m = (unsigned)_mm_movemask_epi8(_mm_packs_epi16(
			_mm_packs_epi32(_mm_cmpeq_epi32(_mm_load_si128(v), k),
					_mm_cmpeq_epi32(_mm_load_si128(v + 1), k)),
			_mm_packs_epi32(_mm_cmpeq_epi32(_mm_load_si128(v + 2), k),
					_mm_cmpeq_epi32(_mm_load_si128(v + 3), k))));
	} else if (!(ways & 3)) {
		__m128i k = _mm_set1_epi32((int)(uint32_t)tag);

#pragma GCC unroll 4
		for (w = 0; w < ways; w += 4)
			m |= (unsigned)_mm_movemask_ps(_mm_castsi128_ps(
				_mm_cmpeq_epi32(_mm_load_si128(
					(const __m128i *)(const void *)(t + w)), k))) << w;
	} else
#endif
	{
#pragma GCC unroll 16
		for (w = 0; w < ways; w++)
			m |= (unsigned)(t[w] == (uint32_t)tag) << w;
	}
	if (wide) {
		const uint16_t *h = (const uint16_t *)(const void *)(t + ways);

		while (m) {
			w = (unsigned)__builtin_ctz(m);
			if (h[w] == (uint16_t)(tag >> 32))
				return w + 1;
			m &= m - 1;
		}
		return 0;
	}
	return m ? (unsigned)__builtin_ctz(m) + 1 : 0;
}

/* Whether the most recent way of the set holds tag (a hit that changes
 * no recency). */
static inline __attribute__((always_inline)) int
sa_is_mru(const struct sa *s, size_t set, uint64_t tag, unsigned ways, int wide)
{
	uint32_t *t = sa_tags(s, set, ways, wide);
	unsigned w = (unsigned)*sa_order(s, set, ways, wide) & 15;

	return t[w] == (uint32_t)tag &&
	       (!wide || sa_his(t, ways)[w] == (uint16_t)(tag >> 32));
}

/* Make way w (a hit) the most recent of its set: the nibbles before its
 * rank move back one place (for rank 0, none: the word is unchanged).
 * With skip (MRU_SKIP) a hit on the most recent way returns first. */
static inline __attribute__((always_inline)) void
sa_touch(uint64_t *ord, unsigned w, int skip)
{
	uint64_t o = *ord, x, low, upto;

	if (skip && (o & 15) == w)
		return;
	/* the rank holding w: the lowest zero nibble of x, whose top bit
	 * is the lowest bit of this (higher bits may be false) */
	x = o ^ (NIBBLES * w);
	low = (x - NIBBLES) & ~x & (NIBBLES << 3);
	upto = low ^ (low - 1);       /* nibbles 0..rank (all when rank 15) */
	/* those nibbles from o << 4 (nibble 0 then 0, and w), the rest o's */
	*ord = ((((o << 4) ^ o) & upto) ^ o) | w;
}

/* Put key in the least recent way of its set, now the most recent (the
 * word shifts past its ways' nibbles: no mask, nothing reads them: a
 * hit's search for its way stops at the way's rank). */
static inline __attribute__((always_inline)) void
sa_insert(struct sa *s, size_t set, uint64_t tag, unsigned ways, int wide)
{
	uint32_t *t = sa_tags(s, set, ways, wide);
	uint64_t *ord = sa_order(s, set, ways, wide), o = *ord;
	unsigned v;

	/* 8 and 16 ways: the word (its low half with 8) rotates by a
	 * nibble, the least recent way coming round to the front; the high
	 * half with 8 ways is left at 0, never read like the rest */
	if (ways == 16)
		o = o << 4 | o >> 60;
	else if (ways == 8)
		o = (uint32_t)((uint32_t)o << 4 | (uint32_t)o >> 28);
	else
		o = o << 4 | ((o >> (4 * (ways - 1))) & 15);
	v = (unsigned)o & 15;
	t[v] = (uint32_t)tag;
	if (wide)
		sa_his(t, ways)[v] = (uint16_t)(tag >> 32);
	*ord = o;
}

/* Lookup: a hit becomes most recent; a miss changes nothing. */
static inline __attribute__((always_inline)) int
sa_lookup_as(struct sa *s, uint64_t key, struct sa_shape sh)
{
	size_t set = (size_t)(key & sh.mask);
	unsigned m;

	if (sh.mru == MRU_FIRST &&
	    sa_is_mru(s, set, key >> sh.shift, sh.ways, sh.wide))
		return 1;
	m = match_n(s, set, key >> sh.shift, sh.ways, sh.wide);
	if (!m)
		return 0;
	sa_touch(sa_order(s, set, sh.ways, sh.wide), m - 1, sh.mru == MRU_SKIP);
	return 1;
}

/* Access: a lookup, and a miss is inserted as most recent, evicting the
 * least recent.  Returns whether it hit. */
static inline __attribute__((always_inline)) int
sa_access_as(struct sa *s, uint64_t key, struct sa_shape sh)
{
	size_t set = (size_t)(key & sh.mask);
	uint64_t tag = key >> sh.shift;
	unsigned m;

	if (sh.mru == MRU_FIRST && sa_is_mru(s, set, tag, sh.ways, sh.wide))
		return 1;
	m = match_n(s, set, tag, sh.ways, sh.wide);
	if (m) {
		sa_touch(sa_order(s, set, sh.ways, sh.wide), m - 1,
			 sh.mru == MRU_SKIP);
		return 1;
	}
	sa_insert(s, set, tag, sh.ways, sh.wide);
	return 0;
}

/* Probe: presence, recency untouched. */
static inline __attribute__((always_inline)) int
sa_probe_as(const struct sa *s, uint64_t key, struct sa_shape sh)
{
	return match_n(s, (size_t)(key & sh.mask), key >> sh.shift,
		       sh.ways, sh.wide) != 0;
}

/* The same for a structure of any shape (its own ways and width). */
static inline int sa_lookup(struct sa *s, uint64_t key)
{
	return sa_lookup_as(s, key, s->sh);
}

static inline int sa_access(struct sa *s, uint64_t key)
{
	return sa_access_as(s, key, s->sh);
}

static inline int sa_probe(const struct sa *s, uint64_t key)
{
	return sa_probe_as(s, key, s->sh);
}

#endif
