/* SPDX-License-Identifier: GPL-3.0-or-later */
/* geometry/cone_ech.c: a fully reduced integer echelon basis (see
 * cone_ech.h), the exact linear algebra behind the cone: rank of the
 * signatures, equalities, facet normals from the signatures on a facet.
 *
 * Elimination keeps every row primitive (divided by the gcd of its
 * entries), so numbers stay as small as the data allows; the int64 path
 * checks every product and sum, and on the first overflow the whole basis
 * moves to GMP and the operation is redone there. */
#include "geometry/cone_ech.h"

#include <string.h>

#include "common/cp.h"
#include "geometry/cone.h"

#define OVF (-100) /* internal: an int64 operation overflowed */

int cone_mpz_to_i64(const mpz_t z, int64_t *out)
{
	if (!mpz_fits_slong_p(z) || mpz_cmp_si(z, -INT64_MAX) < 0)
		return -1;
	*out = (int64_t)mpz_get_si(z);
	return 0;
}

void cone_vec_primitive_z(mpz_t *v, size_t n)
{
	mpz_t g;
	size_t i;

	mpz_init(g);
	for (i = 0; i < n && mpz_cmp_ui(g, 1) != 0; i++)
		if (mpz_sgn(v[i]))
			mpz_gcd(g, g, v[i]);
	if (mpz_cmp_ui(g, 1) > 0)
		for (i = 0; i < n; i++)
			mpz_divexact(v[i], v[i], g);
	mpz_clear(g);
}

/* out = p*x - q*y, entrywise, in int64; OVF when any entry does not fit
 * (INT64_MIN counts as not fitting, so negation is always safe). */
static int comb64(int64_t p, const int64_t *x, int64_t q, const int64_t *y,
		  int64_t *out, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		int64_t a, b, c;

		if (__builtin_mul_overflow(p, x[i], &a) ||
		    __builtin_mul_overflow(q, y[i], &b) ||
		    __builtin_sub_overflow(a, b, &c) || c == INT64_MIN)
			return OVF;
		out[i] = c;
	}
	return 0;
}

int cone_ech_init(struct cone_ech *e, size_t n)
{
	memset(e, 0, sizeof *e);
	e->n = n;
	e->r = cp_calloc(n * n + 1, sizeof *e->r);
	e->scratch = cp_calloc(n * n + 2 * n + 1, sizeof *e->scratch);
	e->piv = cp_calloc(n + 1, sizeof *e->piv);
	if (!e->r || !e->scratch || !e->piv) {
		cone_ech_release(e);
		return CP_ENOMEM;
	}
	return 0;
}

void cone_ech_release(struct cone_ech *e)
{
	size_t i;

	if (e->z) {
		for (i = 0; i < e->n * e->n; i++)
			mpz_clear(e->z[i]);
		for (i = 0; i < 3 * e->n; i++)
			mpz_clear(e->zt[i]);
	}
	cp_free(e->z);
	cp_free(e->zt);
	cp_free(e->r);
	cp_free(e->scratch);
	cp_free(e->piv);
	cp_free(e->nul);
	cp_free(e->nulix);
	cp_free(e->nulval);
	memset(e, 0, sizeof *e);
}

void cone_ech_reset(struct cone_ech *e)
{
	e->rank = 0;
	e->nul_ok = 0;
	e->streak = 0;
}

/* ---- the span test through the null vectors ---- */

/* Rows in the span before the null vectors are made: they cost about
 * n - rank eliminations' worth, which a few membership tests repay. */
#define NUL_AFTER 4

static void make_nul(struct cone_ech *e)
{
	size_t n = e->n, f, i = 0, p = 0;

	e->nul_ok = -1;
	if (e->big)
		return;
	if (!e->nul && !(e->nul = cp_malloc((n * n + 1) * sizeof *e->nul)))
		return;
	if (!e->nulix && !(e->nulix = cp_malloc((n + 1) * sizeof *e->nulix)))
		return;
	if (!e->nulval && !(e->nulval = cp_malloc((n + 1) * sizeof *e->nulval)))
		return;
	for (f = 0; f < n; f++) {
		if (p < e->rank && e->piv[p] == f) {
			p++;
			continue;
		}
		if (cone_ech_null_64(e, f, e->nul + i++ * n))
			return;
	}
	e->nul_ok = 1;
}

/* Is the row (t, entries below 2^32 in magnitude, or the counts u) in
 * the span: orthogonal to every null vector?  Each product is below
 * 2^95 and n of them sum within __int128. */
static int in_span_nul(const struct cone_ech *e, const int64_t *t,
		       const uint32_t *u)
{
	size_t n = e->n, nn = 0, i, j;
	size_t *nz = e->nulix;
	int64_t *val = e->nulval;

	if (t) {
		for (i = 0; i < n; i++)
			if (t[i]) {
				nz[nn] = i;
				val[nn++] = t[i];
			}
	} else {
		for (i = 0; i < n; i++)
			if (u[i]) {
				nz[nn] = i;
				val[nn++] = u[i];
			}
	}
	for (j = 0; j < n - e->rank; j++) {
		const int64_t *x = e->nul + j * n;
		__int128 s = 0;

		for (i = 0; i < nn; i++)
			s += (__int128)val[i] * x[nz[i]];
		if (s != 0)
			return 0;
	}
	return 1;
}

/* ---- int64 path ---- */

/* Reduce t against the rows; returns its pivot column, n when t reduced to
 * zero, or OVF. */
static long reduce64(struct cone_ech *e, int64_t *t)
{
	size_t n = e->n, i, c;

	for (i = 0; i < e->rank; i++) {
		const int64_t *row = e->r + i * n;
		int64_t p, q, g;

		c = e->piv[i];
		if (!t[c])
			continue;
		g = cp_gcd64(row[c], t[c]);
		p = row[c] / g;
		q = t[c] / g;
		if (comb64(p, t, q, row, t, n))
			return OVF;
		cone_vec_primitive(t, n);
	}
	for (c = 0; c < n; c++)
		if (t[c])
			break;
	return (long)c;
}

/* Insert t (primitive, t[pc] > 0) as a new row, clearing column pc from
 * the other rows.  Transactional: on OVF nothing changed. */
static int insert64(struct cone_ech *e, const int64_t *t, size_t pc)
{
	size_t n = e->n, i, pos;
	int64_t *rows = e->scratch; /* rank*n copy, updated */

	memcpy(rows, e->r, e->rank * n * sizeof *rows);
	for (i = 0; i < e->rank; i++) {
		int64_t *row = rows + i * n;
		int64_t g, p, q;

		if (!row[pc])
			continue;
		g = cp_gcd64(t[pc], row[pc]);
		p = t[pc] / g;
		q = row[pc] / g;
		if (comb64(p, row, q, t, row, n))
			return OVF;
		cone_vec_primitive(row, n);
	}
	for (pos = 0; pos < e->rank && e->piv[pos] < pc; pos++)
		;
	memcpy(e->r, rows, pos * n * sizeof *rows);
	memcpy(e->r + pos * n, t, n * sizeof *t);
	memcpy(e->r + (pos + 1) * n, rows + pos * n,
	       (e->rank - pos) * n * sizeof *rows);
	memmove(e->piv + pos + 1, e->piv + pos, (e->rank - pos) * sizeof *e->piv);
	e->piv[pos] = pc;
	e->rank++;
	e->nul_ok = 0;
	e->streak = 0;
	return 1;
}

static int add64(struct cone_ech *e, const int64_t *v)
{
	size_t n = e->n, i;
	int64_t *t = e->scratch + n * n;
	long pc;
	int small = 1;

	for (i = 0; i < n; i++) {
		if (v[i] == INT64_MIN)
			return OVF;
		t[i] = v[i];
		small &= v[i] < ((int64_t)1 << 32) && v[i] > -((int64_t)1 << 32);
	}
	if (e->nul_ok > 0 && small &&
	    in_span_nul(e, t, NULL))
		return 0;
	cone_vec_primitive(t, n);
	pc = reduce64(e, t);
	if (pc == OVF)
		return OVF;
	if ((size_t)pc == n) {
		if (!e->nul_ok && ++e->streak >= NUL_AFTER)
			make_nul(e);
		return 0;
	}
	if (t[pc] < 0)
		for (i = 0; i < n; i++)
			t[i] = -t[i];
	return insert64(e, t, (size_t)pc);
}

/* ---- GMP path ---- */

static int go_big(struct cone_ech *e)
{
	size_t n = e->n, i;

	if (e->big)
		return 0;
	e->z = cp_calloc(n * n + 1, sizeof *e->z);
	e->zt = cp_calloc(3 * n + 1, sizeof *e->zt);
	if (!e->z || !e->zt) {
		cp_free(e->z);
		cp_free(e->zt);
		e->z = e->zt = NULL;
		return CP_ENOMEM;
	}
	for (i = 0; i < n * n; i++)
		mpz_init_set_si(e->z[i], i < e->rank * n ? e->r[i] : 0);
	for (i = 0; i < 3 * n; i++)
		mpz_init(e->zt[i]);
	e->big = 1;
	return 0;
}

/* x = p*x - q*y */
static void combz(const mpz_t p, mpz_t *x, const mpz_t q, mpz_t *y, size_t n,
		  mpz_t tmp)
{
	size_t i;

	for (i = 0; i < n; i++) {
		mpz_mul(tmp, q, y[i]);
		mpz_mul(x[i], x[i], p);
		mpz_sub(x[i], x[i], tmp);
	}
}

/* Add the row held in e->zt[0..n). */
static int addz_core(struct cone_ech *e)
{
	size_t n = e->n, i, pc, pos;
	mpz_t *t = e->zt;
	mpz_t p, q, g, tmp;

	mpz_inits(p, q, g, tmp, NULL);
	cone_vec_primitive_z(t, n);
	for (i = 0; i < e->rank; i++) {
		mpz_t *row = e->z + i * n;
		size_t c = e->piv[i];

		if (!mpz_sgn(t[c]))
			continue;
		mpz_gcd(g, row[c], t[c]);
		mpz_divexact(p, row[c], g);
		mpz_divexact(q, t[c], g);
		combz(p, t, q, row, n, tmp);
		cone_vec_primitive_z(t, n);
	}
	for (pc = 0; pc < n && !mpz_sgn(t[pc]); pc++)
		;
	if (pc == n) {
		mpz_clears(p, q, g, tmp, NULL);
		return 0;
	}
	if (mpz_sgn(t[pc]) < 0)
		for (i = 0; i < n; i++)
			mpz_neg(t[i], t[i]);
	for (i = 0; i < e->rank; i++) {
		mpz_t *row = e->z + i * n;

		if (!mpz_sgn(row[pc]))
			continue;
		mpz_gcd(g, t[pc], row[pc]);
		mpz_divexact(p, t[pc], g);
		mpz_divexact(q, row[pc], g);
		combz(p, row, q, t, n, tmp);
		cone_vec_primitive_z(row, n);
	}
	mpz_clears(p, q, g, tmp, NULL);
	for (pos = 0; pos < e->rank && e->piv[pos] < pc; pos++)
		;
	/* shift rows pos.. down by one (swaps keep every mpz_t initialised) */
	for (i = e->rank; i > pos; i--) {
		size_t c;

		for (c = 0; c < n; c++)
			mpz_swap(e->z[i * n + c], e->z[(i - 1) * n + c]);
	}
	for (i = 0; i < n; i++)
		mpz_set(e->z[pos * n + i], t[i]);
	memmove(e->piv + pos + 1, e->piv + pos, (e->rank - pos) * sizeof *e->piv);
	e->piv[pos] = pc;
	e->rank++;
	e->nul_ok = 0;
	e->streak = 0;
	return 1;
}

int cone_ech_add_z(struct cone_ech *e, mpz_t *v)
{
	size_t i;
	int rc;

	if ((rc = go_big(e)))
		return rc;
	for (i = 0; i < e->n; i++)
		mpz_set(e->zt[i], v[i]);
	return addz_core(e);
}

int cone_ech_add(struct cone_ech *e, const int64_t *v)
{
	size_t i;
	int rc;

	if (!e->big) {
		rc = add64(e, v);
		if (rc != OVF)
			return rc;
		if ((rc = go_big(e)))
			return rc;
	}
	for (i = 0; i < e->n; i++)
		mpz_set_si(e->zt[i], v[i]);
	return addz_core(e);
}

int cone_ech_add_u32(struct cone_ech *e, const uint32_t *v)
{
	int64_t *t = e->scratch + e->n * e->n + e->n;
	size_t i;

	/* counts are below 2^32: the null-vector test straight on the row */
	if (e->nul_ok > 0 && !e->big && in_span_nul(e, NULL, v))
		return 0;

	for (i = 0; i < e->n; i++)
		t[i] = v[i];
	return cone_ech_add(e, t);
}

/* ---- null vectors ----
 * With the rows fully reduced, the null vector for free column f is
 *   x_f = L,  x_{p_i} = -R_i[f] * L / R_i[p_i],  other free columns 0,
 * where L = lcm of the R_i[p_i] with R_i[f] != 0: row i then reads
 * R_i[p_i] x_{p_i} + R_i[f] x_f = 0, and no other row touches x_{p_i}. */

void cone_ech_row_z(const struct cone_ech *e, size_t i, mpz_t *out)
{
	size_t c;

	for (c = 0; c < e->n; c++) {
		if (e->big)
			mpz_set(out[c], e->z[i * e->n + c]);
		else
			mpz_set_si(out[c], e->r[i * e->n + c]);
	}
}

void cone_ech_null_z(struct cone_ech *e, size_t f, mpz_t *out)
{
	size_t n = e->n, i;
	mpz_t L, rp, rf, t;

	mpz_inits(L, rp, rf, t, NULL);
	mpz_set_ui(L, 1);
	for (i = 0; i < e->rank; i++) {
		if (e->big) {
			mpz_set(rp, e->z[i * n + e->piv[i]]);
			mpz_set(rf, e->z[i * n + f]);
		} else {
			mpz_set_si(rp, e->r[i * n + e->piv[i]]);
			mpz_set_si(rf, e->r[i * n + f]);
		}
		if (mpz_sgn(rf))
			mpz_lcm(L, L, rp);
	}
	for (i = 0; i < n; i++)
		mpz_set_ui(out[i], 0);
	mpz_set(out[f], L);
	for (i = 0; i < e->rank; i++) {
		if (e->big) {
			mpz_set(rp, e->z[i * n + e->piv[i]]);
			mpz_set(rf, e->z[i * n + f]);
		} else {
			mpz_set_si(rp, e->r[i * n + e->piv[i]]);
			mpz_set_si(rf, e->r[i * n + f]);
		}
		mpz_divexact(t, L, rp);
		mpz_mul(t, t, rf);
		mpz_neg(out[e->piv[i]], t);
	}
	cone_vec_primitive_z(out, n);
	mpz_clears(L, rp, rf, t, NULL);
}

int cone_ech_null_64(struct cone_ech *e, size_t f, int64_t *out)
{
	size_t n = e->n, i;
	int64_t L = 1;

	if (e->big)
		return -1;
	for (i = 0; i < e->rank; i++) {
		int64_t rp = e->r[i * n + e->piv[i]], g;

		if (!e->r[i * n + f])
			continue;
		g = cp_gcd64(L, rp);
		if (__builtin_mul_overflow(L / g, rp, &L))
			return -1;
	}
	memset(out, 0, n * sizeof *out);
	out[f] = L;
	for (i = 0; i < e->rank; i++) {
		int64_t rp = e->r[i * n + e->piv[i]], rf = e->r[i * n + f], x;

		if (__builtin_mul_overflow(L / rp, rf, &x) || x == INT64_MIN)
			return -1;
		out[e->piv[i]] = -x;
	}
	cone_vec_primitive(out, n);
	return 0;
}
