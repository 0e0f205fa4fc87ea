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
	uint64_t omask;               /* the nibbles of an order word in use */
	unsigned ways, shift;         /* shift = log2(sets) */
	unsigned last;                /* bit offset of the least recent nibble */
	int wide;                     /* tags need more than 32 bits */
	int (*lookup)(struct sa *, uint64_t);
	int (*access)(struct sa *, uint64_t);
	int (*probe)(const struct sa *, uint64_t);
};

#define NIBBLES 0x1111111111111111ull

static inline void sa_bind(struct sa *s);

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

static inline void sa_release(struct sa *s)
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

static inline void sa_bind(struct sa *s)
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

#endif
