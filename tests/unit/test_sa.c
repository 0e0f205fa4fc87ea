/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_sa.c: the simulator's set-associative arrays
 * (hw/sim/sa.h) against a reference: each set a list of tags, most recent
 * first, moved one step at a time.  Every shape the machine uses and odd
 * ones (wide tags, 1..16 ways), every operation, at the structure's own
 * shape and at a constant one.  tests/unit/test_sa_plain.c runs the same
 * with the plain C code (SA_PLAIN), so that both codes are checked on
 * an x86-64 host. */
#include <stdint.h>

#include "hw/sim/sa.h"
#include "tests/unit/check.h"

#ifndef SA_TEST_NAME
#define SA_TEST_NAME "test_sa"
#endif

enum { MAX_SETS = 128, MAX_WAYS = 16 };

/* The reference: per set, its tags most recent first (n of them). */
struct ref {
	uint64_t tag[MAX_SETS][MAX_WAYS];
	unsigned n[MAX_SETS];
};

/* The rank of tag in set (its index), or -1. */
static int ref_find(const struct ref *r, size_t set, uint64_t tag)
{
	unsigned i;

	for (i = 0; i < r->n[set]; i++)
		if (r->tag[set][i] == tag)
			return (int)i;
	return -1;
}

/* Make tag most recent in set: from its rank (a hit) or, a miss, as a
 * new entry, the least recent leaving a full set. */
static void ref_promote(struct ref *r, size_t set, uint64_t tag, unsigned ways)
{
	int at = ref_find(r, set, tag);
	unsigned i = at >= 0 ? (unsigned)at : r->n[set] < ways ? r->n[set]++ : ways - 1;

	for (; i > 0; i--)
		r->tag[set][i] = r->tag[set][i - 1];
	r->tag[set][0] = tag;
}

static uint64_t rng(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* ops random operations on a structure of entries/ways with keys below
 * 2^key_bits drawn from a pool of `keys` (so that hits happen), each
 * compared with the reference; `as` uses sa_*_as() at the shape given
 * (which the structure must have).  Returns the mismatches. */
static unsigned run(unsigned entries, unsigned ways, unsigned key_bits,
		    unsigned keys, const struct sa_shape *as, uint64_t seed)
{
	static struct ref r;
	uint64_t pool[256], s = seed;
	unsigned i, bad = 0;
	struct sa a;

	memset(&r, 0, sizeof r);
	if (sa_init(&a, entries, ways, key_bits) != CP_OK)
		return 1;
	for (i = 0; i < keys && i < 256; i++)
		pool[i] = rng(&s) & ((key_bits >= 64 ? 0 : 1ull << key_bits) - 1);
	for (i = 0; i < 20000; i++) {
		uint64_t key = pool[rng(&s) % keys];
		size_t set = (size_t)(key & a.sh.mask);
		uint64_t tag = key >> a.sh.shift;
		int want = ref_find(&r, set, tag) >= 0, got;

		switch (rng(&s) % 3) {
		case 0:
			got = as ? sa_probe_as(&a, key, *as) : sa_probe(&a, key);
			break;
		case 1:
			got = as ? sa_lookup_as(&a, key, *as) : sa_lookup(&a, key);
			if (want)
				ref_promote(&r, set, tag, ways);
			break;
		default:
			got = as ? sa_access_as(&a, key, *as) : sa_access(&a, key);
			ref_promote(&r, set, tag, ways);
			break;
		}
		bad += got != want;
	}
	/* every set's ranks as the reference's, empty ways all ones */
	for (i = 0; i <= a.sh.mask; i++) {
		const uint32_t *t = sa_tags(&a, i, ways, a.sh.wide);
		unsigned w;

		for (w = 0; w < ways; w++) {
			uint64_t want = w < r.n[i] ? r.tag[i][w] : ~0ull;
			uint64_t got = t[w];

			if (a.sh.wide)
				got |= (uint64_t)sa_his(t, ways)[w] << 32;
			if (w >= r.n[i])
				bad += (uint32_t)got != UINT32_MAX;
			else
				bad += got != (a.sh.wide ? want & 0xffffffffffffull : want);
		}
	}
	sa_release(&a);
	return bad;
}

/* Every way count, narrow and wide tags, one set and many. */
static void test_shapes(void)
{
	unsigned ways, sets;

	for (ways = 1; ways <= MAX_WAYS; ways++)
		for (sets = 1; sets <= MAX_SETS; sets *= 8) {
			unsigned shift = 0, bad;

			while ((1u << shift) < sets)
				shift++;
			/* narrow tags; a pool of 3 keys a way, so sets fill
			 * and hits fall on every rank */
			bad = run(sets * ways, ways, shift + 20, 3 * ways * sets < 256 ?
				  3 * ways * sets : 256, NULL, ways * 100 + sets);
			CHECKF(bad == 0, "%u ways, %u sets: %u mismatches", ways, sets, bad);
			/* wide tags (over 32 bits after the set) */
			bad = run(sets * ways, ways, shift + 44, ways + 2, NULL,
				  ways * 1000 + sets);
			CHECKF(bad == 0, "%u ways, %u sets, wide: %u mismatches",
			       ways, sets, bad);
		}
}

/* The machine's constant shapes (hw/sim/machine_int.h's): the same as
 * the structure's own. */
static void test_constant_shapes(void)
{
	static const struct { unsigned sets, shift, ways, mru; } c[] = {
		{ 16, 4, 4, MRU_SKIP }, { 1, 0, 4, MRU_SKIP }, { 128, 7, 8, MRU_ANY },
		{ 8, 3, 4, MRU_ANY }, { 1, 0, 4, MRU_FIRST }, { 1, 0, 2, MRU_FIRST },
		{ 64, 6, 8, MRU_ANY }, { 8, 3, 16, MRU_ANY },
	};
	size_t i;

	for (i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct sa_shape sh = { c[i].sets - 1, c[i].shift, c[i].ways, 0,
				       (int)c[i].mru };
		unsigned bad = run(c[i].sets * c[i].ways, c[i].ways, c[i].shift + 20,
				   c[i].sets * c[i].ways * 2 < 256 ?
				   c[i].sets * c[i].ways * 2 : 256, &sh, i + 7);

		CHECKF(bad == 0, "shape %zu: %u mismatches", i, bad);
	}
}

int main(void)
{
	check_prog = SA_TEST_NAME;
	RUN(test_shapes);
	RUN(test_constant_shapes);
	return check_summary();
}
