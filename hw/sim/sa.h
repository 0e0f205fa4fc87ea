/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hw/sim/sa.h: the simulator's set-associative arrays with true LRU (the
 * TLBs, the paging-structure caches and the data caches), internal to
 * hw/sim/machine.c.  Kept in a header of static inline functions so the
 * hot lookups still inline into the machine's μop loop. */
#ifndef COUNTERPOINT_HW_SIM_SA_H
#define COUNTERPOINT_HW_SIM_SA_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
/* SA_VEC: the SSE2 code; SA_PLAIN (defined before this header) asks
 * for the plain C on any host (tests/unit/test_sa_plain.c). */
#if defined(__SSE2__) && !defined(SA_PLAIN)
#define SA_VEC 1
#include <emmintrin.h>
#endif

#include "common/cp.h"

/* ---- set-associative arrays with true LRU (TLBs, PSCs, caches) ----
 * A key's low bits pick its set and the rest is its tag.  A set keeps
 * its tags in recency order, most recent first: rank r of the set is
 * way r of its block, so a scan's first match is the hit's rank, and a
 * hit or a miss is one shift of the ranks before it (a miss: of them
 * all, the least recent leaving) with the tag put at rank 0, made with
 * vector shuffles and one blend, constant work.  An empty way holds all
 * ones, which no tag is (a tag below 2^31 is not wide, and a wide one's
 * high half has at most 11 bits; so a tag is made without a + 1): its
 * low 32 bits are compared first, and when the structure's tags do not
 * fit in 32 bits its high bits (16 of them kept), read only for a way
 * whose low bits match.  A set is one block of memory, aligned to its
 * size (16, 32 or 64 bytes, or whole 64-byte lines): the low halves of
 * its tags, then the high halves of wide ones, so that an operation on
 * a set of up to 16 ways (8 with wide tags) touches one host line, found
 * from one pointer.  The tags of a set are compared and shifted with
 * SSE2 (every x86-64 host has it), else in plain C; tests/unit/test_sa.c
 * checks both against a reference list.  At most 16 ways. */

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
	MRU_ANY,      /* anywhere: the update is made for every hit */
	MRU_SKIP,     /* mostly the most recent way (the DTLBs: a stream's
		       * μops to one page): such a hit skips the update */
	MRU_FIRST     /* almost always the most recent way (the PDPTE and
		       * PML4E caches): it is tested before the scan */
};

struct sa {
	char *blk;                    /* the sets' blocks (64-byte aligned) */
	void *mem;                    /* their allocation */
	struct sa_shape sh;
};

/* Lanes 0..r all ones, the rest zero, in row r: the ranks a hit at rank
 * r shifts (32-bit lanes: low halves; 16-bit: high halves). */
static const int32_t sa_upto32[16][16] __attribute__((aligned(64), unused)) = {
#define U(r) { -((r) >= 0), -((r) >= 1), -((r) >= 2), -((r) >= 3), \
	       -((r) >= 4), -((r) >= 5), -((r) >= 6), -((r) >= 7), \
	       -((r) >= 8), -((r) >= 9), -((r) >= 10), -((r) >= 11), \
	       -((r) >= 12), -((r) >= 13), -((r) >= 14), -((r) >= 15) }
	U(0), U(1), U(2), U(3), U(4), U(5), U(6), U(7),
	U(8), U(9), U(10), U(11), U(12), U(13), U(14), U(15)
#undef U
};
static const int16_t sa_upto16[8][8] __attribute__((aligned(16), unused)) = {
#define U(r) { -((r) >= 0), -((r) >= 1), -((r) >= 2), -((r) >= 3), \
	       -((r) >= 4), -((r) >= 5), -((r) >= 6), -((r) >= 7) }
	U(0), U(1), U(2), U(3), U(4), U(5), U(6), U(7)
#undef U
};

/* The bytes of a set's tags: low halves, and high halves of wide ones. */
static inline __attribute__((always_inline)) size_t
sa_tag_bytes(unsigned ways, int wide)
{
	return (size_t)ways * (wide ? 6 : 4);
}

/* The bytes of a set's block: 16, 32 or 64 (the vector loads stay
 * aligned, and no block crosses a line), else whole lines. */
static inline __attribute__((always_inline)) size_t
sa_stride(unsigned ways, int wide)
{
	size_t b = sa_tag_bytes(ways, wide);

	if (b <= 64)
		return b <= 16 ? 16 : b <= 32 ? 32 : 64;
	return (b + 63) & ~(size_t)63;
}

/* A set's tags (low halves, by rank), and the high halves of wide ones
 * after them. */
static inline __attribute__((always_inline)) uint32_t *
sa_tags(const struct sa *s, size_t set, unsigned ways, int wide)
{
	return (uint32_t *)(void *)(s->blk + set * sa_stride(ways, wide));
}

/* The high halves of a set's wide tags, after the low halves at t (as
 * strchr(), const in and not out: the scans read them, the updates
 * write them). */
static inline __attribute__((always_inline)) uint16_t *
sa_his(const uint32_t *t, unsigned ways)
{
	return (uint16_t *)(uintptr_t)(t + ways);
}

/* key_bits: every key the structure sees is below 2^key_bits. */
static inline int sa_init(struct sa *s, unsigned entries, unsigned ways,
		   unsigned key_bits)
{
	unsigned sets = entries / ways;
	size_t bytes;

	s->sh.ways = ways;
	s->sh.mask = sets - 1;
	for (s->sh.shift = 0; (1u << s->sh.shift) < sets; s->sh.shift++)
		;
	s->sh.wide = key_bits > s->sh.shift + 31;
	s->sh.mru = MRU_ANY;
	bytes = sets * sa_stride(ways, s->sh.wide);
	s->blk = s->mem = cp_malloc(bytes + 63);
	if (!s->mem)
		return CP_ENOMEM;
	s->blk += -(uintptr_t)s->blk & 63;
	memset(s->blk, 0xff, bytes);  /* every way empty */
	return CP_OK;
}

static inline void sa_release(struct sa *s)
{
	cp_free(s->mem);
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

/* The rank of the set that holds tag, + 1 (0: none).  Wide tags: the low halves are compared,
 * then the high half of a matching way. */
static inline __attribute__((always_inline)) unsigned
match_n(const uint32_t *t, uint64_t tag, unsigned ways, int wide)
{
	unsigned w, m = 0;

#ifdef SA_VEC
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
		const uint16_t *h = sa_his(t, ways);

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
sa_is_mru(const uint32_t *t, uint64_t tag, unsigned ways, int wide)
{
	return t[0] == (uint32_t)tag &&
	       (!wide || sa_his(t, ways)[0] == (uint16_t)(tag >> 32));
}

#ifdef SA_VEC
/* x where the 16 bytes at mask are 0, s where they are all ones. */
static inline __attribute__((always_inline)) __m128i
sa_select(__m128i x, __m128i s, const void *mask)
{
	return _mm_xor_si128(x, _mm_and_si128(_mm_xor_si128(x, s),
		_mm_load_si128((const __m128i *)mask)));
}
#endif

/* a[r], a[r - 1], .., a[1] = a[r - 1], .., a[0]; a[0] = first, with i
 * the loop's index (unrolled for a constant ways; i > r does nothing) */
#define SA_SHIFT_IN(a, i, r, ways, first) do { \
	_Pragma("GCC unroll 16") \
	for (i = (ways) - 1; i > 0; i--) \
		if (i <= (r)) \
			(a)[i] = (a)[i - 1]; \
	(a)[0] = (first); \
} while (0)

/* Make tag the most recent of its set t: the tags of ranks 0..r-1 move
 * one rank down, over rank r (a hit: tag's own place) and tag goes to
 * rank 0.  miss (a constant where it is called): r is ways - 1, the
 * least recent leaves.  With SSE2, the low halves in vectors of 4
 * lanes: each vector rotated by one lane, its lane 0 taken from the
 * vector before (the first's: the tag), then lanes 0..r of that blended
 * over the set's. */
static inline __attribute__((always_inline)) void
sa_promote(uint32_t *t, unsigned r, uint64_t tag, unsigned ways, int wide,
	   int miss)
{
	unsigned i;

	(void)miss;      /* a constant: the vector code folds on it */

#ifdef SA_VEC
	if (!(ways & 3)) {
		__m128i *v = (__m128i *)(void *)t;
		__m128i carry = _mm_set1_epi32((int)(uint32_t)tag);  /* the scan's */

#pragma GCC unroll 4
		for (i = 0; i < ways / 4; i++) {
			__m128i x = _mm_load_si128(v + i);
			__m128i p = _mm_shuffle_epi32(x, _MM_SHUFFLE(2, 1, 0, 3));
			__m128i s = _mm_castps_si128(_mm_move_ss(
				_mm_castsi128_ps(p), _mm_castsi128_ps(carry)));

			carry = p;
			if (!miss)
				s = sa_select(x, s, &sa_upto32[r][4 * i]);
			_mm_store_si128(v + i, s);
		}
	} else
#endif
	{
		SA_SHIFT_IN(t, i, r, ways, (uint32_t)tag);
	}
	if (wide) {
		uint16_t *h = sa_his(t, ways);

#ifdef SA_VEC
		if (ways == 8) {
			/* eight high halves, 16 bytes at t + 8 (aligned: the
			 * block is 64) */
			__m128i *hv = (__m128i *)(void *)h;
			__m128i x = _mm_load_si128(hv);
			__m128i s = _mm_insert_epi16(_mm_slli_si128(x, 2),
						     (int)(uint16_t)(tag >> 32), 0);

			if (!miss)
				s = sa_select(x, s, sa_upto16[r]);
			_mm_store_si128(hv, s);
		} else
#endif
		{
			SA_SHIFT_IN(h, i, r, ways, (uint16_t)(tag >> 32));
		}
	}
}

/* Lookup: a hit becomes most recent; a miss changes nothing. */
static inline __attribute__((always_inline)) int
sa_lookup_as(struct sa *s, uint64_t key, struct sa_shape sh)
{
	uint32_t *t = sa_tags(s, (size_t)(key & sh.mask), sh.ways, sh.wide);
	uint64_t tag = key >> sh.shift;
	unsigned m;

	if (sh.mru == MRU_FIRST && sa_is_mru(t, tag, sh.ways, sh.wide))
		return 1;
	m = match_n(t, tag, sh.ways, sh.wide);
	if (!m)
		return 0;
	if (sh.mru != MRU_SKIP || m > 1)
		sa_promote(t, m - 1, tag, sh.ways, sh.wide, 0);
	return 1;
}

/* Access: a lookup, and a miss is inserted as most recent, evicting the
 * least recent.  Returns whether it hit. */
static inline __attribute__((always_inline)) int
sa_access_as(struct sa *s, uint64_t key, struct sa_shape sh)
{
	uint32_t *t = sa_tags(s, (size_t)(key & sh.mask), sh.ways, sh.wide);
	uint64_t tag = key >> sh.shift;
	unsigned m;

	if (sh.mru == MRU_FIRST && sa_is_mru(t, tag, sh.ways, sh.wide))
		return 1;
	m = match_n(t, tag, sh.ways, sh.wide);
	if (m) {
		if (sh.mru != MRU_SKIP || m > 1)
			sa_promote(t, m - 1, tag, sh.ways, sh.wide, 0);
		return 1;
	}
	sa_promote(t, sh.ways - 1, tag, sh.ways, sh.wide, 1);
	return 0;
}

/* Probe: presence, recency untouched. */
static inline __attribute__((always_inline)) int
sa_probe_as(const struct sa *s, uint64_t key, struct sa_shape sh)
{
	return match_n(sa_tags(s, (size_t)(key & sh.mask), sh.ways, sh.wide),
		       key >> sh.shift, sh.ways, sh.wide) != 0;
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
