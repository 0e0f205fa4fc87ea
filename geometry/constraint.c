/* SPDX-License-Identifier: GPL-3.0-or-later */
/* geometry/constraint.c: the exact algebra of model constraints, in one
 * place for the cone, the solver and the explorer: the integer equalities
 * of span(S), primitive vectors, and the readable (sparsest) form of a
 * constraint modulo the equalities.  Integers throughout: int64 with
 * overflow checks, GMP (through cone_ech) where rows outgrow 64 bits. */
#include <string.h>

#include <gmp.h>

#include "geometry/cone.h"
#include "geometry/cone_ech.h"

void cone_vec_primitive(int64_t *a, size_t k)
{
	int64_t g = 0;
	size_t i;

	for (i = 0; i < k && g != 1; i++)
		if (a[i])
			g = cp_gcd64(g, a[i]);
	if (g > 1)
		for (i = 0; i < k; i++)
			a[i] /= g;
}

cone_int128 cone_dot_exact(const int64_t *a, const uint32_t *s, size_t k)
{
	cone_int128 v = 0;
	size_t i;

	for (i = 0; i < k; i++)
		v += (__int128)a[i] * s[i];
	return v;
}

size_t cone_vec_nnz(const int64_t *a, size_t k)
{
	size_t i, n = 0;

	for (i = 0; i < k; i++)
		n += a[i] != 0;
	return n;
}

int cone_ech_complement_z(const struct cone_ech *span, size_t *n_eq,
			  int64_t **eq, mpz_t **zeq, struct cp_error *err)
{
	struct cone_ech comp;
	size_t k = span->n, i, j, f;
	unsigned char *is_piv = NULL;
	mpz_t *v = NULL;
	int rc, big = 0;

	*n_eq = 0;
	*eq = NULL;
	*zeq = NULL;
	if ((rc = cone_ech_init(&comp, k)))
		return cp_error_set(err, rc, "out of memory while computing equalities");
	rc = CP_ENOMEM;
	v = cp_calloc(k + 1, sizeof *v);
	is_piv = cp_calloc(k + 1, 1);
	if (!v || !is_piv)
		goto nomem;
	for (i = 0; i < k; i++)
		mpz_init(v[i]);
	for (i = 0; i < span->rank; i++)
		is_piv[span->piv[i]] = 1;
	/* one null vector per free column, then reduced to the complement's
	 * own canonical echelon form */
	for (f = 0; f < k; f++) {
		if (is_piv[f])
			continue;
		cone_ech_null_z((struct cone_ech *)span, f, v);
		if (cone_ech_add_z(&comp, v) < 0)
			goto nomem;
	}
	if (comp.rank && !(*eq = cp_calloc(comp.rank * k, sizeof **eq)))
		goto nomem;
	for (i = 0; i < comp.rank; i++) {
		int64_t *row = *eq + i * k;

		cone_ech_row_z(&comp, i, v);
		for (j = 0; j < k && !cone_mpz_to_i64(v[j], &row[j]); j++)
			;
		if (j < k) {
			/* beyond int64: a zero row here, every row in zeq */
			memset(row, 0, k * sizeof *row);
			big = 1;
		}
	}
	if (big) {
		if (!(*zeq = cp_malloc(comp.rank * k * sizeof **zeq)))
			goto nomem;
		for (i = 0; i < comp.rank; i++) {
			cone_ech_row_z(&comp, i, v);
			for (j = 0; j < k; j++)
				mpz_init_set((*zeq)[i * k + j], v[j]);
		}
	}
	*n_eq = comp.rank;
	rc = CP_OK;
	goto out;
nomem:
	cp_free(*eq);
	*eq = NULL;
	rc = cp_error_set(err, CP_ENOMEM, "out of memory while computing equalities");
out:
	if (v) {
		for (i = 0; i < k; i++)
			mpz_clear(v[i]);
		cp_free(v);
	}
	cp_free(is_piv);
	cone_ech_release(&comp);
	return rc;
}

void cone_free_zeq(mpz_t *zeq, size_t n)
{
	size_t i;

	if (!zeq)
		return;
	for (i = 0; i < n; i++)
		mpz_clear(zeq[i]);
	cp_free(zeq);
}

int cone_ech_complement(const struct cone_ech *span, size_t *n_eq,
			int64_t **eq, struct cp_error *err)
{
	mpz_t *zeq;
	size_t i, j, k = span->n;
	int rc = cone_ech_complement_z(span, n_eq, eq, &zeq, err);

	if (rc || !zeq)
		return rc;
	for (i = 0; i < *n_eq; i++) {
		for (j = 0; j < k && !(*eq)[i * k + j]; j++)
			;
		if (j == k)
			break;
	}
	cone_free_zeq(zeq, *n_eq * k);
	cp_free(*eq);
	*eq = NULL;
	*n_eq = 0;
	return cp_error_set(err, CP_ELIMIT, "equality %zu has a coefficient beyond "
			    "64 bits, which the solver cannot take", i + 1);
}

int cone_equalities(size_t k, size_t m, const uint32_t *S, size_t *n_eq,
		    int64_t **eq, struct cp_error *err)
{
	struct cone_ech span;
	size_t j;
	int rc;

	*n_eq = 0;
	*eq = NULL;
	if (k == 0)
		return cp_error_set(err, CP_EINPUT, "no counters");
	if ((rc = cone_ech_init(&span, k)))
		return cp_error_set(err, rc, "out of memory while computing equalities");
	for (j = 0; j < m && span.rank < k; j++)
		if (cone_ech_add_u32(&span, S + j * k) < 0) {
			cone_ech_release(&span);
			return cp_error_set(err, CP_ENOMEM,
					    "out of memory while computing equalities");
		}
	rc = cone_ech_complement(&span, n_eq, eq, err);
	cone_ech_release(&span);
	return rc;
}

/* ---- the readable form ---- */

static unsigned __int128 l1_64(const int64_t *a, size_t k)
{
	unsigned __int128 s = 0;
	size_t i;

	for (i = 0; i < k; i++)
		s += a[i] < 0 ? -(uint64_t)a[i] : (uint64_t)a[i];
	return s;
}

static uint64_t max_64(const int64_t *a, size_t k)
{
	uint64_t m = 0;
	size_t i;

	for (i = 0; i < k; i++) {
		uint64_t v = a[i] < 0 ? -(uint64_t)a[i] : (uint64_t)a[i];

		if (v > m)
			m = v;
	}
	return m;
}

/* Is t a better form than a: fewer counters, then (by_max) a smaller
 * largest |coefficient|, then a smaller sum of |coefficients|, then a
 * support that starts at an earlier counter (the first counter where the
 * supports differ is one t uses)?  A strict order on a finite set of
 * candidates, so a descent along it ends. */
static int better(const int64_t *t, const int64_t *a, size_t k, int by_max)
{
	size_t nt = cone_vec_nnz(t, k), na = cone_vec_nnz(a, k), i;
	unsigned __int128 lt, la;

	if (nt != na)
		return nt < na;
	if (by_max && max_64(t, k) != max_64(a, k))
		return max_64(t, k) < max_64(a, k);
	lt = l1_64(t, k);
	la = l1_64(a, k);
	if (lt != la)
		return lt < la;
	for (i = 0; i < k; i++)
		if ((t[i] != 0) != (a[i] != 0))
			return t[i] != 0;
	return 0;
}

/* t = p*a - q*e made primitive, with p = |e_c|/g, q = sign(e_c) a_c/g
 * (so t_c = 0 and t keeps a's orientation); -1 on overflow. */
static int eliminate(const int64_t *a, const int64_t *e, size_t c, size_t k,
		     int64_t *t)
{
	int64_t g = cp_gcd64(e[c], a[c]), p, q;
	size_t x;

	p = (e[c] < 0 ? -e[c] : e[c]) / g;
	q = (e[c] < 0 ? -a[c] : a[c]) / g;
	for (x = 0; x < k; x++) {
		int64_t u, w;

		if (__builtin_mul_overflow(p, a[x], &u) ||
		    __builtin_mul_overflow(q, e[x], &w) ||
		    __builtin_sub_overflow(u, w, &t[x]) || t[x] == INT64_MIN)
			return -1;
	}
	cone_vec_primitive(t, k);
	return 0;
}

/* Is a.s >= 0 for every signature (exact: counts are 32-bit, a's
 * entries 64-bit, k terms of 96 bits fit __int128 for k < 2^31)? */
static int valid_on(const int64_t *a, size_t k, const uint32_t *S, size_t m)
{
	size_t p, i, nz = 0;
	uint32_t *ix = cp_malloc((k + 1) * sizeof *ix);

	/* readable forms are sparse: the sums over a's non-zeros only */
	if (ix) {
		for (i = 0; i < k; i++)
			if (a[i])
				ix[nz++] = (uint32_t)i;
	}
	for (p = 0; p < m; p++) {
		__int128 s = 0;

		if (ix) {
			for (i = 0; i < nz; i++)
				s += (__int128)a[ix[i]] * S[p * k + ix[i]];
		} else {
			for (i = 0; i < k; i++)
				s += (__int128)a[i] * S[p * k + i];
		}
		if (s < 0) {
			cp_free(ix);
			return 0;
		}
	}
	cp_free(ix);
	return 1;
}

/* One greedy descent from a along better(., ., by_max): drop terms, or
 * take the best single equality step; t and best are k scratch each. */
/* Does a without its term c (a positive multiple of it) hold on every
 * signature?  (a - a_c e_c).s_p = a.s_p - a_c s_pc, exactly, with a.s_p
 * computed on first use and kept in as[p] for the other terms (*known of
 * them so far: the test stops at the first signature that breaks). */
static int valid_without(const int64_t *a, size_t c, size_t k,
			 const uint32_t *S, size_t m, __int128 *as, size_t *known,
			 const uint32_t *ix, size_t nz, int small)
{
	size_t p, i;

	for (p = 0; p < m; p++) {
		if (p == *known) {
			/* over a's non-zeros ix[0..nz); with sum |a_i| < 2^31
			 * and counts < 2^32 the sum fits int64 */
			int64_t v64 = 0;
			__int128 v = 0;

			if (small) {
				for (i = 0; i < nz; i++)
					v64 += a[ix[i]] * (int64_t)S[p * k + ix[i]];
				v = v64;
			} else {
				for (i = 0; i < nz; i++)
					v += (__int128)a[ix[i]] * S[p * k + ix[i]];
			}
			as[p] = v;
			++*known;
		}
		if (as[p] < (__int128)a[c] * S[p * k + c])
			return 0;
	}
	return 1;
}

/* as: 2m scratch (NULL: valid_on for each term dropped): as[0..m) the
 * products of the form both descents start from (*known0 of them made,
 * kept from the first descent for the second), as[m..2m) those of a form
 * a step has reached. */
static void descend(size_t k, const int64_t *eq, size_t n_eq,
		    const uint32_t *S, size_t m, int is_equality,
		    cone_keep_fn keep, void *ctx, int by_max, int64_t *a,
		    int64_t *t, int64_t *best, __int128 *as, size_t *known0,
		    uint32_t *ix)
{
	size_t i, c, known, nz, *kn;
	__int128 *asa;
	uint64_t l1;
	int improved, first = 1, small;

	do {
		improved = 0;
		known = 0;    /* a changed: no a.s_p known */
		kn = first ? known0 : &known;
		asa = as && !first ? as + m : as;
		first = 0;
		for (i = 0, nz = 0, l1 = 0; i < k; i++)
			if (a[i]) {
				ix[nz++] = (uint32_t)i;
				if (l1 < ((uint64_t)1 << 31))
					l1 += a[i] < 0 ? -(uint64_t)a[i] : (uint64_t)a[i];
			}
		small = l1 < ((uint64_t)1 << 31);
		/* an inequality drops a positive term while what is left still
		 * holds on every signature: "x <= y + z" becomes "x <= y" */
		for (c = 0; S && !is_equality && c < k && !improved; c++) {
			if (a[c] <= 0)
				continue;
			memcpy(t, a, k * sizeof *t);
			t[c] = 0;
			cone_vec_primitive(t, k);
			if (cone_vec_nnz(t, k) &&
			    (as ? valid_without(a, c, k, S, m, asa, kn, ix, nz, small) :
				  valid_on(t, k, S, m)) &&
			    (!keep || keep(t, ctx))) {
				memcpy(a, t, k * sizeof *t);
				improved = 1;
			}
		}
		if (improved)
			continue;
		/* adding a multiple of an equality changes nothing on span(S) */
		memcpy(best, a, k * sizeof *best);
		for (i = 0; i < n_eq; i++)
			for (c = 0; c < k; c++) {
				if (!eq[i * k + c] || !a[c] ||
				    eliminate(a, eq + i * k, c, k, t) ||
				    !cone_vec_nnz(t, k) ||
				    !better(t, best, k, by_max) ||
				    (keep && !keep(t, ctx)))
					continue;
				memcpy(best, t, k * sizeof *t);
				improved = 1;
			}
		if (improved)
			memcpy(a, best, k * sizeof *a);
	} while (improved);
}

/* Two descents, one ranking steps by the sum of |coefficients| and one by
 * the largest: each gets caught in forms the other passes (a step that
 * clears one counter may have to raise the sum first), and the better end
 * under the first order is kept. */
void cone_readable(size_t k, const int64_t *eq, size_t n_eq,
		   const uint32_t *S, size_t m, int is_equality,
		   cone_keep_fn keep, void *ctx, int64_t *a)
{
	int64_t *t = cp_malloc(3 * (k + 1) * sizeof *t), *best, *b;
	__int128 *as = S && !is_equality ? cp_malloc((2 * m + 1) * sizeof *as) : NULL;
	uint32_t *ix = cp_malloc((k + 1) * sizeof *ix);
	size_t known0 = 0;

	if (!t || !ix) {
		cp_free(t);
		cp_free(as);
		cp_free(ix);
		return;   /* a stays a valid (if less readable) form */
	}
	best = t + k + 1;
	b = best + k + 1;
	cone_vec_primitive(a, k);
	memcpy(b, a, k * sizeof *b);
	descend(k, eq, n_eq, S, m, is_equality, keep, ctx, 0, a, t, best, as, &known0, ix);
	descend(k, eq, n_eq, S, m, is_equality, keep, ctx, 1, b, t, best, as, &known0, ix);
	if (better(b, a, k, 0))
		memcpy(a, b, k * sizeof *a);
	cp_free(t);
	cp_free(as);
	cp_free(ix);
}
