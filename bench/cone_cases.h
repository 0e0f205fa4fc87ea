/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench/cone_cases.h: the fixed-seed signature sets bench/cone times, one
 * generator for every shape of the cone speed table (docs/method/cone.md):
 *   sparse    each signature bumps 1 to 5 counters by 1 to 4 (like μDD
 *             signatures: a μpath increments a few counters);
 *   dense     every entry uniform in 0..4;
 *   embedded  a sparse set on k-2 counters plus two counters that are sums
 *             of others (x[k-2] = x0 + x1, x[k-1] = x2 + x3 + x4), so the
 *             cone has dimension k-2 inside R^k, as a model's does when
 *             some counters count the same events.
 * Same seed, same set, on every machine (xorshift64, no libc rand). */
#ifndef BENCH_CONE_CASES_H
#define BENCH_CONE_CASES_H

#include <stdint.h>
#include <string.h>

enum { CASE_SPARSE, CASE_DENSE, CASE_EMBEDDED };

struct cone_case {
	const char *name;
	int kind;
	size_t k, m;
	uint64_t seed;
	int slow;      /* skipped unless --all */
};

static uint64_t case_next(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

/* S: m * k entries, row-major. */
static void case_generate(const struct cone_case *c, uint32_t *S)
{
	uint64_t st = c->seed * 0x9E3779B97F4A7C15ULL + 12345;
	size_t k = c->k, kk = c->kind == CASE_EMBEDDED ? k - 2 : k, j, i;

	memset(S, 0, k * c->m * sizeof *S);
	for (j = 0; j < c->m; j++) {
		uint32_t *s = S + j * k;

		if (c->kind == CASE_DENSE) {
			for (i = 0; i < k; i++)
				s[i] = (uint32_t)(case_next(&st) % 5);
			continue;
		}
		{
			unsigned bumps = 1 + (unsigned)(case_next(&st) % 5), b;

			for (b = 0; b < bumps; b++)
				s[case_next(&st) % kk] += 1 + (uint32_t)(case_next(&st) % 4);
		}
		if (c->kind == CASE_EMBEDDED) {
			s[k - 2] = s[0] + s[1];
			s[k - 1] = s[2] + s[3] + s[4];
		}
	}
}

#endif
