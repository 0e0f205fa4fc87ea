/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_cone_oracle.c: the cone against a brute-force oracle.
 *
 * For random small signature sets (k <= 6 counters, fixed seeds) the
 * oracle finds every facet by exact enumeration: for each (d-1)-subset T
 * of the signatures, the normal in span(S) orthogonal to T is
 * a = sum_i c_i B_i with c the generalised cross product (cofactors) of
 * the (d-1) x d matrix (B_i . t); a is a facet iff all signatures lie on
 * one side.  Facets are compared as sets of signatures they hold, and
 * each library normal must be a positive multiple of the oracle's on
 * span(S).  Extreme rays and equalities are checked the same way, and the
 * double-description check (a.s >= 0 for all facets and signatures; every
 * extreme ray on at least d-1 facets) runs on every case.  None of this
 * shares code with geometry/. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cp.h"
#include "geometry/cone.h"
#include "check.h"

typedef __int128 i128;

#define KMAX 6
#define MMAX 12

static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static unsigned below(unsigned n)
{
	return (unsigned)(rnd() % n);
}

static i128 gcd128(i128 a, i128 b)
{
	if (a < 0)
		a = -a;
	if (b < 0)
		b = -b;
	while (b) {
		i128 t = a % b;
		a = b;
		b = t;
	}
	return a;
}

static void prim128(i128 *v, size_t n)
{
	i128 g = 0;
	size_t i;

	for (i = 0; i < n; i++)
		g = gcd128(g, v[i]);
	if (g > 1)
		for (i = 0; i < n; i++)
			v[i] /= g;
}

/* Row echelon form by fraction-free elimination; returns the rank and
 * leaves the independent rows (a basis of the row space) first. */
static size_t echelon(i128 *M, size_t n, size_t k)
{
	size_t r = 0, col, i, x;

	for (col = 0; col < k && r < n; col++) {
		size_t p = n;

		for (i = r; i < n; i++)
			if (M[i * k + col]) {
				p = i;
				break;
			}
		if (p == n)
			continue;
		for (x = 0; x < k; x++) {
			i128 t = M[r * k + x];
			M[r * k + x] = M[p * k + x];
			M[p * k + x] = t;
		}
		for (i = r + 1; i < n; i++) {
			i128 a = M[r * k + col], b = M[i * k + col];

			if (!b)
				continue;
			for (x = 0; x < k; x++)
				M[i * k + x] = a * M[i * k + x] - b * M[r * k + x];
			prim128(M + i * k, k);
		}
		r++;
	}
	return r;
}

/* Determinant of an n x n matrix (Bareiss); det of 0 x 0 is 1. */
static i128 det(i128 *A, size_t n)
{
	i128 prev = 1, sign = 1;
	size_t i, j, c;

	if (n == 0)
		return 1;
	for (c = 0; c < n; c++) {
		size_t p = n;

		for (i = c; i < n; i++)
			if (A[i * n + c]) {
				p = i;
				break;
			}
		if (p == n)
			return 0;
		if (p != c) {
			for (j = 0; j < n; j++) {
				i128 t = A[c * n + j];
				A[c * n + j] = A[p * n + j];
				A[p * n + j] = t;
			}
			sign = -sign;
		}
		for (i = c + 1; i < n; i++) {
			for (j = c + 1; j < n; j++)
				A[i * n + j] = (A[c * n + c] * A[i * n + j] -
						A[i * n + c] * A[c * n + j]) / prev;
			A[i * n + c] = 0;
		}
		prev = A[c * n + c];
	}
	return sign * A[(n - 1) * n + (n - 1)];
}

struct oracle {
	size_t k, m, d;
	uint32_t S[MMAX * KMAX];
	i128 B[KMAX * KMAX];
	size_t nf;
	i128 F[1024 * KMAX];
	uint32_t on[1024];  /* bit j: signature j on the facet */
};

static i128 dot_s(const i128 *a, const uint32_t *s, size_t k)
{
	i128 r = 0;
	size_t i;

	for (i = 0; i < k; i++)
		r += a[i] * s[i];
	return r;
}

static void oracle_facets(struct oracle *o)
{
	size_t k = o->k, m = o->m, d, i, j, x;
	i128 M[MMAX * KMAX];
	unsigned long sub;

	for (j = 0; j < m * k; j++)
		M[j] = o->S[j];
	d = o->d = echelon(M, m, k);
	memcpy(o->B, M, d * k * sizeof *M);
	o->nf = 0;
	if (d == 0)
		return;
	/* every subset of d-1 signatures */
	for (sub = 0; sub < (1UL << m); sub++) {
		size_t idx[KMAX], n = 0, col;
		i128 G[KMAX * KMAX], A[KMAX * KMAX], c[KMAX], a[KMAX];
		uint32_t on = 0;
		int sign = 0, ok = 1;

		if ((size_t)__builtin_popcountl(sub) != d - 1)
			continue;
		for (j = 0; j < m; j++)
			if (sub >> j & 1)
				idx[n++] = j;
		for (j = 0; j < n; j++)
			for (i = 0; i < d; i++)
				G[j * d + i] = dot_s(o->B + i * k, o->S + idx[j] * k, k);
		for (col = 0; col < d; col++) {
			size_t r, cc, w;

			for (r = 0; r < n; r++)
				for (cc = 0, w = 0; cc < d; cc++)
					if (cc != col)
						A[r * n + w++] = G[r * d + cc];
			c[col] = det(A, n) * ((col & 1) ? -1 : 1);
		}
		for (x = 0; x < k; x++) {
			a[x] = 0;
			for (i = 0; i < d; i++)
				a[x] += c[i] * o->B[i * k + x];
		}
		prim128(a, k);
		for (x = 0; x < k && !a[x]; x++)
			;
		if (x == k)
			continue; /* rank below d-1 */
		for (j = 0; j < m && ok; j++) {
			i128 v = dot_s(a, o->S + j * k, k);

			if (!v) {
				on |= 1u << j;
				continue;
			}
			if (!sign)
				sign = v > 0 ? 1 : -1;
			else if ((v > 0 ? 1 : -1) != sign)
				ok = 0;
		}
		if (!ok || !sign)
			continue;
		for (j = 0; j < o->nf; j++)
			if (o->on[j] == on)
				break;
		if (j < o->nf)
			continue;
		for (x = 0; x < k; x++)
			o->F[o->nf * k + x] = sign * a[x];
		o->on[o->nf++] = on;
	}
}

/* Rank of the oracle facets' normals that hold signature j. */
static size_t rank_at(const struct oracle *o, size_t j)
{
	i128 M[1024 * KMAX];
	size_t n = 0, f;

	for (f = 0; f < o->nf; f++)
		if (o->on[f] >> j & 1)
			memcpy(M + n++ * o->k, o->F + f * o->k, o->k * sizeof *M);
	return echelon(M, n, o->k);
}

static int proportional_earlier(const struct oracle *o, size_t j)
{
	size_t i, x, y, k = o->k;

	for (i = 0; i < j; i++) {
		int same = 1;

		for (x = 0; x < k && same; x++)
			for (y = 0; y < k && same; y++)
				if ((uint64_t)o->S[i * k + x] * o->S[j * k + y] !=
				    (uint64_t)o->S[i * k + y] * o->S[j * k + x])
					same = 0;
		if (same) {
			for (x = 0; x < k && !o->S[i * k + x]; x++)
				;
			if (x < k)
				return 1;
		}
	}
	return 0;
}

static void random_case(struct oracle *o)
{
	size_t k = 2 + below(KMAX - 1), m = 1 + below(MMAX), j, i;
	int style = (int)below(4);

	o->k = k;
	o->m = m;
	for (j = 0; j < m; j++) {
		uint32_t *s = o->S + j * k;

		memset(s, 0, k * sizeof *s);
		if (style == 0) {          /* dense, small */
			for (i = 0; i < k; i++)
				s[i] = below(4);
		} else {                   /* sparse, μDD-like */
			unsigned bumps = 1 + below(3), b;

			for (b = 0; b < bumps; b++)
				s[below((unsigned)k)] += 1 + below(3);
		}
		if (style == 2 && k >= 3)  /* an equality: x_last = x_0 + x_1 */
			s[k - 1] = s[0] + s[1];
		if (style == 3 && j > 0 && below(4) == 0) { /* repeats, multiples, zero */
			unsigned kind = below(3);

			for (i = 0; i < k; i++)
				s[i] = kind == 2 ? 0 : (kind + 1) * o->S[(j - 1) * k + i];
		}
	}
}

static int method_under_test;

static int check_case(struct oracle *o, unsigned long seed, int verbose)
{
	struct cp_error err;
	struct cone *c = NULL;
	size_t k = o->k, m = o->m, f, j, x, nf;
	int bad = 0;
	uint32_t lib_on[1024];

	oracle_facets(o);
	cp_error_clear(&err);
	if (cone_build_method(k, m, o->S, NULL, method_under_test, NULL, &c, &err)) {
		printf("  seed %lu: cone_build failed: %s\n", seed, err.msg);
		return 1;
	}
#define BAD(...) do { if (verbose) { printf("  seed %lu (k=%zu m=%zu d=%zu): ", \
	seed, k, m, o->d); printf(__VA_ARGS__); printf("\n"); } bad = 1; } while (0)
	if (cone_dim(c) != o->d)
		BAD("dimension %zu, oracle %zu", cone_dim(c), o->d);
	/* equalities: k - d of them, independent, zero on every signature */
	if (cone_n_equalities(c) != k - o->d)
		BAD("%zu equalities", cone_n_equalities(c));
	else {
		i128 M[KMAX * KMAX];
		size_t e;

		for (e = 0; e < cone_n_equalities(c); e++) {
			const int64_t *a = cone_equality(c, e);

			for (x = 0; x < k; x++)
				M[e * k + x] = a[x];
			for (j = 0; j < m; j++)
				if (dot_s(M + e * k, o->S + j * k, k))
					BAD("equality %zu fails on signature %zu", e, j);
		}
		if (echelon(M, k - o->d, k) != k - o->d)
			BAD("equalities are dependent");
	}
	nf = cone_n_facets(c);
	if (nf != o->nf)
		BAD("%zu facets, oracle %zu", nf, o->nf);
	for (f = 0; f < nf && f < 1024; f++) {
		const int64_t *a = cone_facet(c, f);
		i128 a128[KMAX];
		size_t g;

		for (x = 0; x < k; x++)
			a128[x] = a[x];
		lib_on[f] = 0;
		for (j = 0; j < m; j++) {
			i128 v = dot_s(a128, o->S + j * k, k);

			if (v < 0)
				BAD("facet %zu negative on signature %zu", f, j);
			if (!v)
				lib_on[f] |= 1u << j;
		}
		for (g = 0; g < o->nf; g++)
			if (o->on[g] == lib_on[f])
				break;
		if (g == o->nf) {
			BAD("facet %zu holds signatures %#x: no oracle facet", f, lib_on[f]);
			continue;
		}
		/* positive multiple on span(S): a.s_j * b.s_p == b.s_j * a.s_p */
		{
			size_t p;
			i128 ap, bp;

			for (p = 0; p < m && !dot_s(o->F + g * k, o->S + p * k, k); p++)
				;
			ap = dot_s(a128, o->S + p * k, k);
			bp = dot_s(o->F + g * k, o->S + p * k, k);
			for (j = 0; j < m; j++)
				if (dot_s(a128, o->S + j * k, k) * bp !=
				    dot_s(o->F + g * k, o->S + j * k, k) * ap)
					BAD("facet %zu is not the oracle's on span(S)", f);
		}
		for (g = 0; g < f; g++)
			if (lib_on[g] == lib_on[f])
				BAD("facets %zu and %zu repeat", g, f);
	}
	for (j = 0; j < m; j++) {
		int zero = 1, want;

		for (x = 0; x < k; x++)
			zero &= o->S[j * k + x] == 0;
		want = !zero && !proportional_earlier(o, j) &&
		       rank_at(o, j) == o->d - 1;
		if (cone_signature_is_extreme(c, j) != want)
			BAD("signature %zu extreme=%d, oracle %d", j,
			    cone_signature_is_extreme(c, j), want);
		/* double description: extreme rays lie on >= d-1 facets */
		if (want && cone_signature_n_facets(c, j) + 1 < o->d)
			BAD("extreme signature %zu on only %zu facets", j,
			    cone_signature_n_facets(c, j));
	}
	cone_free(c);
	return bad;
#undef BAD
}

static void run_batch(unsigned long seed0, int n, size_t *dims)
{
	struct oracle *o = malloc(sizeof *o);
	int i, failed = 0;

	for (i = 0; i < n; i++) {
		unsigned long seed = seed0 + (unsigned long)i;

		rng_state = seed * 0x9E3779B97F4A7C15ULL + 1;
		random_case(o);
		if (check_case(o, seed, failed < 5)) {
			failed++;
			check_failed_now = 1;
		}
		if (o->d <= KMAX)
			dims[o->d]++;
	}
	CHECKF(failed == 0, "%d of %d random cases differ from the oracle", failed, n);
	free(o);
}

static void test_oracle_random(void)
{
	size_t dims[KMAX + 1] = { 0 };
	int d;

	run_batch(1, 400, dims);
	/* the batch must exercise every dimension, or it proves little */
	for (d = 1; d <= KMAX; d++)
		CHECKF(dims[d] > 5, "only %zu cases of dimension %d", dims[d], d);
}

static void test_oracle_full_dimension(void)
{
	/* k = 6 with 10-12 signatures: the hardest cases the oracle enumerates */
	struct oracle *o = malloc(sizeof *o);
	int i, failed = 0;

	for (i = 0; i < 150; i++) {
		size_t j, x;

		rng_state = 777 + (unsigned long)i * 0x9E3779B97F4A7C15ULL;
		o->k = KMAX;
		o->m = 10 + below(3);
		for (j = 0; j < o->m; j++)
			for (x = 0; x < o->k; x++)
				o->S[j * o->k + x] = below(3) ? below(3) : 0;
		if (check_case(o, 100000 + (unsigned long)i, failed < 5))
			failed++;
	}
	CHECKF(failed == 0, "%d of 150 cases differ from the oracle", failed);
	free(o);
}

static void test_dd_random(void) { method_under_test = CONE_DD; test_oracle_random(); }
static void test_dd_full_dimension(void) { method_under_test = CONE_DD; test_oracle_full_dimension(); }
/* every other facet paired by ray lists: the ridge join, the lists and
 * the pairs between the two all meet the oracle (at these sizes the join
 * alone would take every facet) */
static void test_dd_mixed_random(void) { method_under_test = CONE_DD_MIXED; test_oracle_random(); }
static void test_dd_mixed_full_dimension(void) { method_under_test = CONE_DD_MIXED; test_oracle_full_dimension(); }
static void test_qhull_random(void) { method_under_test = CONE_QHULL; test_oracle_random(); }
static void test_qhull_full_dimension(void) { method_under_test = CONE_QHULL; test_oracle_full_dimension(); }

int main(void)
{
	check_prog = "test_cone_oracle";
	/* both ways of finding facets, each against the oracle */
	RUN(test_dd_random);
	RUN(test_dd_full_dimension);
	RUN(test_dd_mixed_random);
	RUN(test_dd_mixed_full_dimension);
	RUN(test_qhull_random);
	RUN(test_qhull_full_dimension);
	return check_summary();
}
