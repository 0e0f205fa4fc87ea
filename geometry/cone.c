/* SPDX-License-Identifier: GPL-3.0-or-later */
/* geometry/cone.c: the exact H-representation of C = cone{s_1..s_m}.
 *
 *   1. signatures -> distinct primitive rays (divide by the gcd);
 *   2. span(S) exactly: a fully reduced echelon basis (cone_ech.h); its
 *      pivot columns P give coordinates in which the cone is
 *      full-dimensional (s -> s_P is injective on span(S)), its null
 *      vectors the equalities;
 *   3. facets of the projected cone in R^d: d = 1, 2 directly; d >= 3 by
 *      exact double description (geometry/cone_dd.c), or, when asked
 *      (CONE_QHULL), by Qhull on the slice polytope {y / (1.y)} in R^(d-1)
 *      (geometry/cone_qhull.c) and, for every facet Qhull proposes, the
 *      exact normal of its vertices' span, verified against every ray;
 *      normals beyond int64 are kept in GMP (zB) and stay exact;
 *   4. extreme rays: a ray is extreme iff the facets through it have
 *      normals of rank d-1 (checked against Qhull's vertex set);
 *   5. each normal b in R^d becomes a in R^k (b on the columns P, 0
 *      elsewhere), made as sparse as the equalities allow (int64 ones),
 *      then sorted. */
#include "geometry/cone.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "geometry/cone_ech.h"
#include "geometry/cone_int.h"

struct cone {
	size_t k, m, d;
	size_t n_eq;
	int64_t *eq;         /* n_eq * k; rows beyond int64 are zero here */
	mpz_t *zeq;          /* n_eq * k when a row is beyond int64, else NULL */
	size_t n_facets;
	int64_t *facets;     /* n_facets * k; the last n_big rows are zero */
	size_t n_big;        /* facets beyond int64, last, in zf */
	mpz_t *zf;           /* n_big * k */
	unsigned char *extreme; /* m */
	uint32_t *S;         /* m * k: the signatures (for the facets through
			      * each), NULL when the extreme rays were skipped */
	size_t n_extreme;
};

/* ==== small helpers ==== */

int cone_time_over(const struct cone_build *b)
{
	return b->max_seconds > 0 && cp_seconds() - b->t0 > b->max_seconds;
}

int cone_time_error(const struct cone_build *b, struct cp_error *err)
{
	return cp_error_set(err, CP_ELIMIT, "stopped after %g s (%s; raise "
			    "--max-seconds)", b->max_seconds, b->st->method);
}

int cone_facet_limit_error(const struct cone_build *b, size_t n,
			   struct cp_error *err)
{
	return cp_error_set(err, CP_ELIMIT, "the cone has more than %zu facets "
			    "(%zu exact facets counted by %s; raise --max-facets)",
			    b->max_facets, n, b->st->method);
}

/* FNV-1a with a final mix: the low bits index power-of-two tables. */
static size_t slot_hash(const void *p, size_t bytes)
{
	uint64_t h = cp_hash(CP_HASH_SEED, p, bytes);

	return (size_t)(h ^ (h >> 29));
}

static uint32_t gcd32(uint32_t a, uint32_t b)
{
	while (b) {
		uint32_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* ==== step 1: distinct primitive rays ==== */

static int distinct_rays(struct cone_build *b, struct cp_error *err)
{
	size_t k = b->k, j, i, cap = 16, *table = NULL;
	int rc = CP_ENOMEM;

	while (cap < 2 * b->m + 2)
		cap *= 2;
	b->rays = cp_malloc((b->m + 1) * k * sizeof *b->rays);
	b->ray_of = cp_malloc((b->m + 1) * sizeof *b->ray_of);
	b->ray_first = cp_malloc((b->m + 1) * sizeof *b->ray_first);
	table = cp_malloc(cap * sizeof *table);
	if (!b->rays || !b->ray_of || !b->ray_first || !table)
		goto out;
	for (i = 0; i < cap; i++)
		table[i] = SIZE_MAX;
	b->nr = 0;
	for (j = 0; j < b->m; j++) {
		const uint32_t *s = b->S + j * k;
		uint32_t *r = b->rays + b->nr * k, g = 0;
		size_t h;

		for (i = 0; i < k; i++)
			g = gcd32(g, s[i]);
		if (!g) {
			b->ray_of[j] = -1;
			continue;
		}
		for (i = 0; i < k; i++)
			r[i] = s[i] / g;
		h = slot_hash(r, k * sizeof *r) & (cap - 1);
		while (table[h] != SIZE_MAX &&
		       memcmp(b->rays + table[h] * k, r, k * sizeof *r))
			h = (h + 1) & (cap - 1);
		if (table[h] == SIZE_MAX) {
			table[h] = b->nr;
			b->ray_first[b->nr] = j;
			b->nr++;
		}
		b->ray_of[j] = (long)table[h];
	}
	rc = CP_OK;
out:
	cp_free(table);
	if (rc)
		cp_error_set(err, rc, "out of memory while building the cone");
	return rc;
}

/* ==== step 2: span, pivots, equalities ==== */

static int cone_span_step(struct cone_build *b, struct cone *c,
			       struct cp_error *err)
{
	struct cone_ech span;
	size_t k = b->k, i, j;
	int rc;

	if ((rc = cone_ech_init(&span, k)))
		return cp_error_set(err, rc, "out of memory while building the cone");
	b->P = cp_calloc(k + 1, sizeof *b->P);
	if (!b->P) {
		cone_ech_release(&span);
		return cp_error_set(err, CP_ENOMEM, "out of memory while building the cone");
	}
	for (j = 0; j < b->nr && span.rank < k; j++)
		if (cone_ech_add_u32(&span, b->rays + j * k) < 0) {
			cone_ech_release(&span);
			return cp_error_set(err, CP_ENOMEM, "out of memory while building the cone");
		}
	b->d = c->d = span.rank;
	for (i = 0; i < span.rank; i++)
		b->P[i] = span.piv[i];
	rc = cone_ech_complement_z(&span, &c->n_eq, &c->eq, &c->zeq, err);
	cone_ech_release(&span);
	return rc;
}

static int project_rays(struct cone_build *b, struct cp_error *err)
{
	size_t j, i;

	b->Y = cp_malloc((b->nr * b->d + 1) * sizeof *b->Y);
	if (!b->Y)
		return cp_error_set(err, CP_ENOMEM, "out of memory while building the cone");
	for (j = 0; j < b->nr; j++)
		for (i = 0; i < b->d; i++)
			b->Y[j * b->d + i] = b->rays[j * b->k + b->P[i]];
	return CP_OK;
}

/* ==== step 3: exact facets in R^d ==== */

static __int128 dot_y(const int64_t *bv, const int64_t *y, size_t d)
{
	__int128 s = 0;
	size_t i;

	for (i = 0; i < d; i++)
		s += (__int128)bv[i] * y[i];
	return s;
}

static int grow_facets(struct cone_build *b)
{
	size_t cap = b->capf ? 2 * b->capf : 64, i;
	int64_t *B;
	uint64_t *on;
	size_t *ht, *zidx;

	B = cp_reallocarray(b->B, cap * b->d + 1, sizeof *B);
	if (!B)
		return CP_ENOMEM;
	b->B = B;
	on = cp_reallocarray(b->on, cap * b->words + 1, sizeof *on);
	if (!on)
		return CP_ENOMEM;
	b->on = on;
	zidx = cp_reallocarray(b->zidx, cap + 1, sizeof *zidx);
	if (!zidx)
		return CP_ENOMEM;
	b->zidx = zidx;
	/* the hash table holds facet indices, at most half full */
	ht = cp_malloc(2 * cap * sizeof *ht);
	if (!ht)
		return CP_ENOMEM;
	for (i = 0; i < 2 * cap; i++)
		ht[i] = SIZE_MAX;
	for (i = 0; i < b->nf; i++) {
		size_t h = slot_hash(b->B + i * b->d, b->d * sizeof *b->B)
			   & (2 * cap - 1);

		while (ht[h] != SIZE_MAX)
			h = (h + 1) & (2 * cap - 1);
		ht[h] = i;
	}
	cp_free(b->ht);
	b->ht = ht;
	b->capf = cap;
	return 0;
}

/* Offer a candidate normal bv (primitive, any sign).  Orients it, checks
 * every ray exactly, and keeps it once (its index in *index, which may be
 * NULL).  Returns 0 (kept or already known), CONE_REJECT when some ray lies strictly on each side, or a
 * CP_E* code. */
int cone_offer_facet(struct cone_build *b, int64_t *bv, size_t *index,
		     struct cp_error *err)
{
	size_t d = b->d, j, h, nonzero = 0;
	int sign = 0;
	uint64_t *on;

	for (j = 0; j < b->nr; j++) {
		__int128 s = dot_y(bv, b->Y + j * d, d);

		if (s != 0) {
			int sg = s > 0 ? 1 : -1;

			if (!sign)
				sign = sg;
			else if (sg != sign)
				return CONE_REJECT;
			nonzero++;
		}
	}
	/* a facet of a cone of dimension d >= 2 holds d-1 >= 1 rays */
	if (!sign || (d >= 2 && nonzero == b->nr))
		return CONE_REJECT;
	if (sign < 0)
		for (j = 0; j < d; j++)
			bv[j] = -bv[j];
	if (2 * (b->nf + 1) > b->capf && grow_facets(b))
		return cp_error_set(err, CP_ENOMEM, "out of memory while building the cone");
	h = slot_hash(bv, d * sizeof *bv) & (2 * b->capf - 1);
	while (b->ht[h] != SIZE_MAX) {
		if (!memcmp(b->B + b->ht[h] * d, bv, d * sizeof *bv)) {
			if (index)
				*index = b->ht[h];
			return 0;
		}
		h = (h + 1) & (2 * b->capf - 1);
	}
	if (b->nf >= b->max_facets)
		return cone_facet_limit_error(b, b->nf + 1, err);
	b->ht[h] = b->nf;
	b->zidx[b->nf] = SIZE_MAX;
	if (index)
		*index = b->nf;
	memcpy(b->B + b->nf * d, bv, d * sizeof *bv);
	on = b->on + b->nf * b->words;
	memset(on, 0, b->words * sizeof *on);
	for (j = 0; j < b->nr; j++)
		if (dot_y(bv, b->Y + j * d, d) == 0)
			on[j / 64] |= (uint64_t)1 << (j % 64);
	b->nf++;
	return 0;
}

void cone_forget_facets(struct cone_build *b)
{
	size_t i;

	b->nf = 0;
	b->nz = 0;
	for (i = 0; i < 2 * b->capf; i++)
		b->ht[i] = SIZE_MAX;
}

/* A new row of zB for facet nf (capacity for one more facet is there). */
static int push_big(struct cone_build *b, mpz_t *z, const uint64_t *inc)
{
	size_t d = b->d, i;

	if (b->nf >= b->max_facets)
		return CP_ELIMIT;
	if (b->nz == b->capz) {
		size_t cap = b->capz ? 2 * b->capz : 16;
		mpz_t *zB = cp_reallocarray(b->zB, cap * d, sizeof *zB);

		if (!zB)
			return CP_ENOMEM;
		for (i = b->capz * d; i < cap * d; i++)
			mpz_init(zB[i]);
		b->zB = zB;
		b->capz = cap;
	}
	for (i = 0; i < d; i++)
		mpz_set(b->zB[b->nz * d + i], z[i]);
	memset(b->B + b->nf * d, 0, d * sizeof *b->B);
	memcpy(b->on + b->nf * b->words, inc, b->words * sizeof *inc);
	b->zidx[b->nf] = b->nz++;
	b->nf++;
	return 0;
}

void cone_dot_z(mpz_t t, mpz_t *z, const int64_t *y, size_t d)
{
	size_t i;

	mpz_set_ui(t, 0);
	for (i = 0; i < d; i++)
		if (y[i])
			mpz_addmul_ui(t, z[i], (unsigned long)y[i]);
}

int cone_offer_facet_z(struct cone_build *b, mpz_t *z, size_t *index,
		       struct cp_error *err)
{
	size_t d = b->d, j, f, i, nonzero = 0;
	int64_t *small = cp_malloc((d + 1) * sizeof *small);
	uint64_t *inc = NULL;
	int sign = 0, rc = 0;
	mpz_t t;

	if (!small)
		return cp_error_set(err, CP_ENOMEM, "out of memory while building the cone");
	for (i = 0; i < d && !cone_mpz_to_i64(z[i], &small[i]); i++)
		;
	if (i == d) {
		rc = cone_offer_facet(b, small, index, err);
		cp_free(small);
		return rc;
	}
	cp_free(small);
	inc = cp_calloc(b->words + 1, sizeof *inc);
	if (!inc)
		return cp_error_set(err, CP_ENOMEM, "out of memory while building the cone");
	mpz_init(t);
	for (j = 0; j < b->nr; j++) {
		int sg;

		cone_dot_z(t, z, b->Y + j * d, d);
		sg = mpz_sgn(t);
		if (!sg) {
			inc[j / 64] |= (uint64_t)1 << (j % 64);
			continue;
		}
		if (!sign)
			sign = sg;
		else if (sg != sign) {
			rc = CONE_REJECT;
			goto out;
		}
		nonzero++;
	}
	if (!sign || (d >= 2 && nonzero == b->nr)) {
		rc = CONE_REJECT;
		goto out;
	}
	if (sign < 0)
		for (i = 0; i < d; i++)
			mpz_neg(z[i], z[i]);
	b->st->gmp = 1;
	/* facets beyond 64 bits are rare: a linear scan finds repeats */
	for (f = 0; f < b->nf; f++) {
		if (b->zidx[f] == SIZE_MAX)
			continue;
		for (i = 0; i < d && !mpz_cmp(b->zB[b->zidx[f] * d + i], z[i]); i++)
			;
		if (i == d) {
			if (index)
				*index = f;
			goto out;
		}
	}
	if (2 * (b->nf + 1) > b->capf && grow_facets(b)) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory while building the cone");
		goto out;
	}
	if (index)
		*index = b->nf;
	rc = push_big(b, z, inc);
	if (rc == CP_ELIMIT)
		rc = cone_facet_limit_error(b, b->nf + 1, err);
	else if (rc)
		rc = cp_error_set(err, rc, "out of memory while building the cone");
out:
	mpz_clear(t);
	cp_free(inc);
	return rc;
}

int cone_keep_facet(struct cone_build *b, const int64_t *bv, mpz_t *z,
		    const uint64_t *inc, struct cp_error *err)
{
	size_t d = b->d, h;
	int rc;

	if (2 * (b->nf + 1) > b->capf && grow_facets(b))
		return cp_error_set(err, CP_ENOMEM, "out of memory while building the cone");
	if (!bv) {
		b->st->gmp = 1;
		rc = push_big(b, z, inc);
		if (rc == CP_ELIMIT)
			return cone_facet_limit_error(b, b->nf + 1, err);
		return rc ? cp_error_set(err, rc, "out of memory while building the cone") : 0;
	}
	h = slot_hash(bv, d * sizeof *bv) & (2 * b->capf - 1);
	while (b->ht[h] != SIZE_MAX) {
		if (!memcmp(b->B + b->ht[h] * d, bv, d * sizeof *bv))
			return cp_error_set(err, CP_EINTERNAL, "double description "
					    "produced a facet twice");
		h = (h + 1) & (2 * b->capf - 1);
	}
	if (b->nf >= b->max_facets)
		return cone_facet_limit_error(b, b->nf + 1, err);
	b->ht[h] = b->nf;
	b->zidx[b->nf] = SIZE_MAX;
	memcpy(b->B + b->nf * d, bv, d * sizeof *bv);
	memcpy(b->on + b->nf * b->words, inc, b->words * sizeof *inc);
	b->nf++;
	return 0;
}

int cone_adopt_facets(struct cone_build *b, int64_t *B, uint64_t *on, size_t n,
		      struct cp_error *err)
{
	size_t *zidx = cp_malloc((n + 1) * sizeof *zidx), i;

	if (!zidx)
		return cp_error_set(err, CP_ENOMEM, "out of memory while building the cone");
	if (n > b->max_facets) {
		cp_free(zidx);
		return cone_facet_limit_error(b, n, err);
	}
	for (i = 0; i < n; i++)
		zidx[i] = SIZE_MAX;
	cp_free(b->B);
	cp_free(b->on);
	cp_free(b->zidx);
	cp_free(b->ht);
	b->B = B;
	b->on = on;
	b->zidx = zidx;
	b->ht = NULL;
	b->capf = 0;
	b->nf = n;
	b->nz = 0;
	return 0;
}

/* The unique (up to sign) normal of the span of the given rays, when they
 * span d-1 dimensions.  Returns 0, CONE_REJECT (rank is not d-1) or a
 * CP_E* code. */
int cone_normal_of_rays(struct cone_build *b, const int *ids, size_t n,
			int64_t *bv, struct cp_error *err)
{
	struct cone_ech *e = &b->ech_d;
	size_t d = b->d, i, f;

	cone_ech_reset(e);
	for (i = 0; i < n && e->rank < d - 1; i++)
		if (cone_ech_add(e, b->Y + (size_t)ids[i] * d) < 0)
			return cp_error_set(err, CP_ENOMEM, "out of memory while building the cone");
	if (e->rank != d - 1)
		return CONE_REJECT;
	for (f = 0, i = 0; f < d; f++) {
		if (i < e->rank && e->piv[i] == f)
			i++;
		else
			break;
	}
	if (cone_ech_null_64(e, f, bv)) {
		mpz_t *z = b->zd;

		cone_ech_null_z(e, f, z);
		for (i = 0; i < d; i++)
			if (cone_mpz_to_i64(z[i], &bv[i]))
				return CONE_BIG;
	}
	return 0;
}

static int facets_dim2(struct cone_build *b, struct cp_error *err)
{
	const int64_t *Y = b->Y;
	size_t j, u = 0, w = 0;
	int64_t bv[2];
	int rc;

	/* u: every ray turns counter-clockwise from it; w: clockwise.  The
	 * cone is pointed (non-negative vectors), so these are its two
	 * extreme rays. */
	for (j = 1; j < b->nr; j++) {
		const int64_t *y = Y + 2 * j;
		__int128 cu = (__int128)Y[2 * u] * y[1] - (__int128)Y[2 * u + 1] * y[0];
		__int128 cw = (__int128)y[0] * Y[2 * w + 1] - (__int128)y[1] * Y[2 * w];

		if (cu < 0)
			u = j;
		if (cw < 0)
			w = j;
	}
	bv[0] = -Y[2 * u + 1];
	bv[1] = Y[2 * u];
	if ((rc = cone_offer_facet(b, bv, NULL, err)) < 0)
		return rc;
	if (rc)
		return cp_error_set(err, CP_EINTERNAL, "2-dimensional cone: first facet rejected");
	bv[0] = -Y[2 * w + 1];
	bv[1] = Y[2 * w];
	if ((rc = cone_offer_facet(b, bv, NULL, err)) < 0)
		return rc;
	if (rc)
		return cp_error_set(err, CP_EINTERNAL, "2-dimensional cone: second facet rejected");
	return 0;
}

/* ==== step 4: extreme rays ==== */

static int extreme_rays(struct cone_build *b, struct cone *c, struct cp_error *err)
{
	size_t r, f, j, w, d = b->d, words = b->words, nb = 0;
	unsigned char *ext = cp_calloc(b->nr + 1, 1);
	struct cone_ech *e = cp_calloc(64, sizeof *e);
	int rc = 0;

	if (!ext || !e)
		goto nomem;
	for (nb = 0; nb < 64 && nb < b->nr; nb++)
		if (cone_ech_init(&e[nb], d))
			goto nomem;
	/* the 64 rays of one incidence word at a time: one pass over the
	 * facets feeds each ray's basis its facets' normals until it has rank
	 * d-1 */
	for (w = 0; w < words; w++) {
		for (r = 0; r < nb; r++)
			cone_ech_reset(&e[r]);
		for (f = 0; f < b->nf; f++) {
			uint64_t bits = b->on[f * words + w];

			while (bits) {
				struct cone_ech *er = &e[__builtin_ctzll(bits)];

				bits &= bits - 1;
				if (er->rank >= d - 1)
					continue;
				if ((b->zidx[f] == SIZE_MAX ? cone_ech_add(er, b->B + f * d)
				     : cone_ech_add_z(er, b->zB + b->zidx[f] * d)) < 0)
					goto nomem;
			}
			if ((f & 4095) == 4095 && cone_time_over(b)) {
				rc = cone_time_error(b, err);
				goto out;
			}
		}
		for (r = w * 64; r < b->nr && r < w * 64 + 64; r++)
			ext[r] = e[r - w * 64].rank == d - 1;
	}
	/* Qhull may keep a ray lying inside a face as a vertex of a merged
	 * facet, so its vertex set can be larger than the extreme rays; but
	 * a ray extreme for the exact facets that Qhull never used means
	 * Qhull's hull is wrong. */
	if (b->qhull_vertex) {
		for (r = 0; r < b->nr; r++)
			if (ext[r] && !b->qhull_vertex[r]) {
				rc = cp_error_set(err, CP_ENUMERIC,
					"exact check failed: signature %zu is extreme "
					"but qhull found no facet through it",
					b->ray_first[r] + 1);
				goto out;
			}
	}
	for (j = 0; j < b->m; j++) {
		long ri = b->ray_of[j];

		if (ri >= 0 && ext[ri] && b->ray_first[ri] == j) {
			c->extreme[j] = 1;
			c->n_extreme++;
		}
	}
	goto out;
nomem:
	rc = cp_error_set(err, CP_ENOMEM, "out of memory while building the cone");
out:
	for (r = 0; r < nb; r++)
		cone_ech_release(&e[r]);
	cp_free(e);
	cp_free(ext);
	return rc;
}

/* ==== step 5: readable normals, sorted ==== */

/* Order: fewer counters first, then by which counters (in declaration
 * order), then larger coefficients first.  Each row has a key that holds
 * the first two when k <= 57 (its counters, then a bit per counter that
 * it lacks, the first counter highest), else the first; equal keys go on
 * to the rows. */
struct facet_order {
	const int64_t *rows;
	mpz_t *zrows;        /* the rows beyond int64 instead */
	size_t k;
};

struct facet_key {
	uint64_t key;
	size_t row;
};

static uint64_t facet_key(size_t nnz, int (*zero)(const void *, size_t),
			  const void *row, size_t k)
{
	uint64_t key = (uint64_t)nnz << 57;
	size_t i;

	for (i = 0; i < k && k <= 57; i++)
		if (zero(row, i))
			key |= (uint64_t)1 << (56 - i);
	return key;
}

static int zero_i64(const void *row, size_t i)
{
	return !((const int64_t *)row)[i];
}

static int zero_z(const void *row, size_t i)
{
	return !mpz_sgn(((mpz_t *)row)[i]);
}

static int cmp_facet(const void *pa, const void *pb, void *ctx)
{
	const struct facet_order *o = ctx;
	const struct facet_key *ka = pa, *kb = pb;
	size_t u = ka->row, v = kb->row, k = o->k, i;

	if (ka->key != kb->key)
		return ka->key < kb->key ? -1 : 1;
	if (o->zrows) {
		mpz_t *a = o->zrows + u * k, *b = o->zrows + v * k;

		for (i = 0; i < k; i++)
			if (!mpz_sgn(a[i]) != !mpz_sgn(b[i]))
				return mpz_sgn(a[i]) ? -1 : 1;
		for (i = 0; i < k; i++) {
			int t = mpz_cmp(a[i], b[i]);

			if (t)
				return t > 0 ? -1 : 1;
		}
		return 0;
	} else {
		const int64_t *a = o->rows + u * k, *b = o->rows + v * k;

		for (i = 0; i < k; i++)
			if (!a[i] != !b[i])
				return a[i] ? -1 : 1;
		for (i = 0; i < k; i++)
			if (a[i] != b[i])
				return a[i] > b[i] ? -1 : 1;
		return 0;
	}
}

/* Put row order[i] at row i, for rows of k int64 (in place, cycle by
 * cycle; order is consumed), or of k mpz_t (moved through tmp). */
static void permute_rows(int64_t *rows, size_t k, size_t *order, size_t n,
			 int64_t *tmp)
{
	size_t i, j, next;

	for (i = 0; i < n; i++) {
		if (order[i] == i)
			continue;
		memcpy(tmp, rows + i * k, k * sizeof *tmp);
		for (j = i; order[j] != i; j = next) {
			next = order[j];
			memcpy(rows + j * k, rows + next * k, k * sizeof *rows);
			order[j] = j;
		}
		memcpy(rows + j * k, tmp, k * sizeof *tmp);
		order[j] = j;
	}
}

static void permute_rows_z(mpz_t *rows, size_t k, const size_t *order,
			   size_t n, mpz_t *tmp)
{
	size_t i;

	for (i = 0; i < n; i++)
		memcpy(tmp + i * k, rows + order[i] * k, k * sizeof *tmp);
	memcpy(rows, tmp, n * k * sizeof *rows);
}

static int readable_facets(struct cone_build *b, struct cone *c, struct cp_error *err)
{
	size_t k = b->k, d = b->d, f, i, *order = NULL, n_small, zi = 0;
	struct facet_key *key = NULL;
	int64_t *tmp = NULL;
	mpz_t *ztmp = NULL;
	struct facet_order o;
	int rc = 0;

	c->n_facets = b->nf;
	c->n_big = b->nz;
	n_small = b->nf - b->nz;
	c->facets = cp_calloc(b->nf * k + 1, sizeof *c->facets);
	order = cp_malloc((b->nf + 1) * sizeof *order);
	key = cp_malloc((b->nf + 1) * sizeof *key);
	tmp = cp_malloc((k + 1) * sizeof *tmp);
	if (b->nz) {
		c->zf = cp_malloc(b->nz * k * sizeof *c->zf);
		ztmp = cp_malloc(b->nz * k * sizeof *ztmp);
		if (c->zf)
			for (i = 0; i < b->nz * k; i++)
				mpz_init(c->zf[i]);
	}
	if (!c->facets || !order || !key || !tmp || (b->nz && (!c->zf || !ztmp))) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory while building the cone");
		goto out;
	}
	for (f = 0, n_small = 0; f < b->nf; f++) {
		int64_t *a = c->facets + n_small * k;

		if (b->zidx[f] != SIZE_MAX) {
			/* beyond int64: the normal on the pivot counters */
			for (i = 0; i < d; i++)
				mpz_set(c->zf[zi * k + b->P[i]], b->zB[b->zidx[f] * d + i]);
			zi++;
			continue;
		}
		for (i = 0; i < d; i++)
			a[b->P[i]] = b->B[f * d + i];
		/* without equalities the readable form is the primitive one,
		 * which a facet's normal is already */
		if (c->n_eq)
			cone_readable(k, c->eq, c->n_eq, NULL, 0, 0, NULL, NULL, a);
		else
			cone_vec_primitive(a, k);
		key[n_small].key = facet_key(cone_vec_nnz(a, k), zero_i64, a, k);
		key[n_small].row = n_small;
		n_small++;
		if ((f & 1023) == 1023 && cone_time_over(b)) {
			rc = cone_time_error(b, err);
			goto out;
		}
	}
	/* the build's copy is no longer needed: free it before sorting */
	cp_free(b->B);
	cp_free(b->on);
	b->B = NULL;
	b->on = NULL;
	o.rows = c->facets;
	o.zrows = NULL;
	o.k = k;
	qsort_r(key, n_small, sizeof *key, cmp_facet, &o);
	for (f = 0; f < n_small; f++)
		order[f] = key[f].row;
	permute_rows(c->facets, k, order, n_small, tmp);
	/* two equal rows would be one facet found twice */
	for (f = 1; f < n_small; f++)
		if (!memcmp(c->facets + (f - 1) * k, c->facets + f * k, k * sizeof *tmp)) {
			rc = cp_error_set(err, CP_EINTERNAL, "%s produced a facet twice",
					  b->st->method);
			goto out;
		}
	if (b->nz) {
		for (f = 0; f < b->nz; f++) {
			size_t nnz = 0;

			for (i = 0; i < k; i++)
				nnz += mpz_sgn(c->zf[f * k + i]) != 0;
			key[f].key = facet_key(nnz, zero_z, c->zf + f * k, k);
			key[f].row = f;
		}
		o.zrows = c->zf;
		qsort_r(key, b->nz, sizeof *key, cmp_facet, &o);
		for (f = 0; f < b->nz; f++)
			order[f] = key[f].row;
		permute_rows_z(c->zf, k, order, b->nz, ztmp);
	}
out:
	cp_free(order);
	cp_free(key);
	cp_free(tmp);
	cp_free(ztmp);
	return rc;
}

/* ==== the whole build ==== */

static void build_release(struct cone_build *b)
{
	size_t i;

	cp_free(b->rays);
	cp_free(b->ray_of);
	cp_free(b->ray_first);
	cp_free(b->P);
	cp_free(b->Y);
	cp_free(b->B);
	cp_free(b->on);
	cp_free(b->ht);
	cp_free(b->qhull_vertex);
	cp_free(b->zidx);
	for (i = 0; i < b->capz * b->d; i++)
		mpz_clear(b->zB[i]);
	cp_free(b->zB);
	if (b->zd) {
		for (i = 0; i < b->d + 1; i++)
			mpz_clear(b->zd[i]);
		cp_free(b->zd);
	}
	if (b->ech_ready)
		cone_ech_release(&b->ech_d);
}

int cone_build(size_t k, size_t m, const uint32_t *S,
	       const struct cone_options *opt, struct cone **out,
	       struct cp_error *err)
{
	return cone_build_method(k, m, S, opt, CONE_AUTO, NULL, out, err);
}

int cone_build_method(size_t k, size_t m, const uint32_t *S,
		      const struct cone_options *opt, int method,
		      struct cone_stats *stats, struct cone **out,
		      struct cp_error *err)
{
	struct cone_build b;
	struct cone_stats own;
	struct cone *c;
	size_t i;
	int rc;

	*out = NULL;
	if (!stats)
		stats = &own;
	memset(stats, 0, sizeof *stats);
	stats->method = "exact span (dimension <= 2)";
	if (!k)
		return cp_error_set(err, CP_EINPUT, "a cone needs at least one counter");
	memset(&b, 0, sizeof b);
	b.k = k;
	b.m = m;
	b.S = S;
	b.max_facets = opt && opt->max_facets ? opt->max_facets : 1000000;
	b.max_seconds = opt ? opt->max_seconds : 0;
	b.dd_mixed = method == CONE_DD_MIXED;
	b.t0 = cp_seconds();
	b.st = stats;
	c = cp_calloc(1, sizeof *c);
	if (!c)
		return cp_error_set(err, CP_ENOMEM, "out of memory while building the cone");
	c->k = k;
	c->m = m;
	c->extreme = cp_calloc(m + 1, 1);
	if (!c->extreme) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory while building the cone");
		goto out;
	}
	if ((rc = distinct_rays(&b, err)))
		goto out;
	if ((rc = cone_span_step(&b, c, err)))
		goto out;
	if ((rc = project_rays(&b, err)))
		goto out;
	if (b.d >= 1) {
		b.words = (b.nr + 63) / 64;
		b.zd = cp_calloc(b.d + 1, sizeof *b.zd);
		if (!b.zd || cone_ech_init(&b.ech_d, b.d)) {
			rc = cp_error_set(err, CP_ENOMEM, "out of memory while building the cone");
			goto out;
		}
		b.ech_ready = 1;
		for (i = 0; i < b.d + 1; i++)
			mpz_init(b.zd[i]);
		if (grow_facets(&b)) {
			rc = cp_error_set(err, CP_ENOMEM, "out of memory while building the cone");
			goto out;
		}
	}
	if (b.d == 1) {
		int64_t one = 1;

		if ((rc = cone_offer_facet(&b, &one, NULL, err)) < 0)
			goto out;
		rc = 0;
	} else if (b.d == 2) {
		if ((rc = facets_dim2(&b, err)))
			goto out;
	} else if (b.d >= 3) {
		/* double description: exact end to end, and it counts facets;
		 * Qhull's proposals checked exactly only when forced */
		if (method == CONE_QHULL)
			rc = cone_facets_qhull(&b, err);
		else
			rc = cone_facets_dd(&b, err);
		if (rc)
			goto out;
	}
	if (b.nf > b.max_facets) {
		rc = cone_facet_limit_error(&b, b.nf, err);
		goto out;
	}
	if (!opt || !opt->no_extreme || method == CONE_QHULL) {
		if ((rc = extreme_rays(&b, c, err)))
			goto out;
		/* for the facets through each signature, counted when asked */
		c->S = cp_malloc((m * k + 1) * sizeof *c->S);
		if (!c->S) {
			rc = cp_error_set(err, CP_ENOMEM, "out of memory while building the cone");
			goto out;
		}
		memcpy(c->S, S, m * k * sizeof *c->S);
	}
	rc = readable_facets(&b, c, err);
out:
	build_release(&b);
	if (rc) {
		cone_free(c);
		return rc;
	}
	*out = c;
	return CP_OK;
}

void cone_free(struct cone *c)
{
	if (!c)
		return;
	cp_free(c->eq);
	cone_free_zeq(c->zeq, c->n_eq * c->k);
	cp_free(c->facets);
	if (c->zf) {
		size_t i;

		for (i = 0; i < c->n_big * c->k; i++)
			mpz_clear(c->zf[i]);
		cp_free(c->zf);
	}
	cp_free(c->extreme);
	cp_free(c->S);
	cp_free(c);
}

size_t cone_n_counters(const struct cone *c) { return c->k; }
size_t cone_dim(const struct cone *c) { return c->d; }
size_t cone_n_equalities(const struct cone *c) { return c->n_eq; }
size_t cone_n_facets(const struct cone *c) { return c->n_facets; }
size_t cone_n_signatures(const struct cone *c) { return c->m; }
size_t cone_n_extreme(const struct cone *c) { return c->n_extreme; }

static int eq_is_big(const struct cone *c, size_t i)
{
	size_t j;

	if (!c->zeq)
		return 0;
	for (j = 0; j < c->k; j++)
		if (c->eq[i * c->k + j])
			return 0;
	return 1;
}

const int64_t *cone_equality(const struct cone *c, size_t i)
{
	return i < c->n_eq && !eq_is_big(c, i) ? c->eq + i * c->k : NULL;
}

void cone_equality_mpz(const struct cone *c, size_t i, mpz_t *a)
{
	size_t j;

	for (j = 0; j < c->k; j++) {
		if (i >= c->n_eq)
			mpz_set_ui(a[j], 0);
		else if (c->zeq)
			mpz_set(a[j], c->zeq[i * c->k + j]);
		else
			mpz_set_si(a[j], (long)c->eq[i * c->k + j]);
	}
}

int cone_fits_int64(const struct cone *c)
{
	return c->n_big == 0 && !c->zeq;
}

const int64_t *cone_facet(const struct cone *c, size_t i)
{
	return i < c->n_facets - c->n_big ? c->facets + i * c->k : NULL;
}

int cone_facets_fit_int64(const struct cone *c)
{
	return c->n_big == 0;
}

void cone_facet_mpz(const struct cone *c, size_t i, mpz_t *a)
{
	size_t j, n_small = c->n_facets - c->n_big;

	for (j = 0; j < c->k; j++) {
		if (i < n_small)
			mpz_set_si(a[j], (long)c->facets[i * c->k + j]);
		else if (i < c->n_facets)
			mpz_set(a[j], c->zf[(i - n_small) * c->k + j]);
		else
			mpz_set_ui(a[j], 0);
	}
}

typedef void (*row_fn)(const struct cone *, size_t, mpz_t *);

/* Row i printed as a constraint or (vector) a JSON integer vector: from
 * small (int64) when it is not NULL, else exactly through row. */
static void format_row(const struct cone *c, size_t i, const int64_t *small,
		       row_fn row, int is_eq, const char *const *names,
		       int vector, struct cp_buf *out)
{
	mpz_t *a;
	size_t j;

	if (small && !vector) {
		cone_format_constraint(small, c->k, names, is_eq, out);
		return;
	}
	if (small) {
		cp_buf_puts(out, "[");
		for (j = 0; j < c->k; j++) {
			if (j)
				cp_buf_puts(out, ",");
			cone_put_i64(out, small[j]);
		}
		cp_buf_puts(out, "]");
		return;
	}
	a = cp_malloc((c->k + 1) * sizeof *a);
	if (!a) {
		out->failed = 1;
		return;
	}
	for (j = 0; j < c->k; j++)
		mpz_init(a[j]);
	row(c, i, a);
	if (!vector)
		cone_format_constraint_z(a, c->k, names, is_eq, out);
	else {
		cp_buf_puts(out, "[");
		for (j = 0; j < c->k; j++) {
			char *t = mpz_get_str(NULL, 10, a[j]);

			if (!t) {
				out->failed = 1;
				break;
			}
			cp_buf_printf(out, "%s%s", j ? "," : "", t);
			free(t);
		}
		cp_buf_puts(out, "]");
	}
	for (j = 0; j < c->k; j++)
		mpz_clear(a[j]);
	cp_free(a);
}

void cone_format_facet(const struct cone *c, size_t i,
		       const char *const *names, struct cp_buf *out)
{
	format_row(c, i, cone_facet(c, i), cone_facet_mpz, 0, names, 0, out);
}

void cone_format_facet_vector(const struct cone *c, size_t i, struct cp_buf *out)
{
	format_row(c, i, cone_facet(c, i), cone_facet_mpz, 0, NULL, 1, out);
}

void cone_format_equality(const struct cone *c, size_t i,
			  const char *const *names, struct cp_buf *out)
{
	format_row(c, i, cone_equality(c, i), cone_equality_mpz, 1, names, 0, out);
}

void cone_format_equality_vector(const struct cone *c, size_t i,
				 struct cp_buf *out)
{
	format_row(c, i, cone_equality(c, i), cone_equality_mpz, 1, NULL, 1, out);
}

int cone_signature_is_extreme(const struct cone *c, size_t j)
{
	return j < c->m && c->extreme[j];
}

size_t cone_signature_n_facets(const struct cone *c, size_t j)
{
	size_t f, i, n = 0, n_small = c->n_facets - c->n_big;
	const uint32_t *sj;
	mpz_t t;

	if (!c->S || j >= c->m)
		return 0;
	sj = c->S + j * c->k;
	for (f = 0; f < n_small; f++) {
		const int64_t *a = c->facets + f * c->k;
		__int128 v = 0;

		for (i = 0; i < c->k; i++)
			v += (__int128)a[i] * sj[i];
		n += !v;
	}
	mpz_init(t);
	for (f = 0; f < c->n_big; f++) {
		mpz_set_ui(t, 0);
		for (i = 0; i < c->k; i++)
			mpz_addmul_ui(t, c->zf[f * c->k + i], sj[i]);
		n += !mpz_sgn(t);
	}
	mpz_clear(t);
	return n;
}

static void (*gmp_report)(void);
static int gmp_status;

static void gmp_failed(void)
{
	if (gmp_report)
		gmp_report();
	_exit(gmp_status);  /* no atexit work: other threads may hold locks */
}

static void *gmp_alloc(size_t n)
{
	void *p = malloc(n);

	if (!p)
		gmp_failed();
	return p;
}

static void *gmp_realloc(void *p, size_t old, size_t n)
{
	(void)old;
	if (!(p = realloc(p, n)))
		gmp_failed();
	return p;
}

static void gmp_free(void *p, size_t n)
{
	(void)n;
	free(p);
}

void cone_gmp_exit_on_oom(void (*report)(void), int status)
{
	gmp_report = report;
	gmp_status = status;
	mp_set_memory_functions(gmp_alloc, gmp_realloc, gmp_free);
}
