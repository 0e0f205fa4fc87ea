/* SPDX-License-Identifier: GPL-3.0-or-later */
/* geometry/cone_format.c: constraints as relations a person reads, and the
 * exact facet through a chosen set of signatures (for the solver). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "geometry/cone.h"
#include "geometry/cone_ech.h"
#include "geometry/cone_int.h"

/* ==== printing ====
 * One implementation for both kinds of coefficient row, int64 and exact
 * integers, so facets beyond 64 bits print the same way. */

struct coefs {
	const int64_t *a; /* int64 row, or */
	mpz_t *z;         /* exact row */
};

static int coef_sgn(const struct coefs *c, size_t i)
{
	return c->z ? mpz_sgn(c->z[i]) : (c->a[i] > 0) - (c->a[i] < 0);
}

/* |v| in decimal (any int64, INT64_MIN too). */
static void put_u64(struct cp_buf *out, uint64_t u)
{
	char t[24];
	size_t n = sizeof t;

	do {
		t[--n] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	cp_buf_append(out, t + n, sizeof t - n);
}

void cone_put_i64(struct cp_buf *out, int64_t v)
{
	if (v < 0)
		cp_buf_append(out, "-", 1);
	put_u64(out, v < 0 ? -(uint64_t)v : (uint64_t)v);
}

/* The coefficient's magnitude followed by "*", unless it is 1.  0, or -1
 * out of memory. */
static int put_multiple(const struct coefs *c, size_t i, struct cp_buf *out)
{
	if (!c->z) {
		uint64_t u = c->a[i] < 0 ? -(uint64_t)c->a[i] : (uint64_t)c->a[i];

		if (u != 1) {
			put_u64(out, u);
			cp_buf_append(out, "*", 1);
		}
		return 0;
	}
	if (mpz_cmpabs_ui(c->z[i], 1)) {
		char *t = mpz_get_str(NULL, 10, c->z[i]);

		if (!t)
			return -1;
		cp_buf_puts(out, t + (mpz_sgn(c->z[i]) < 0));
		cp_buf_append(out, "*", 1);
		free(t);
	}
	return 0;
}

static void put_side(const struct coefs *c, size_t k, const char *const *names,
		     int sign, struct cp_buf *out)
{
	size_t i;
	int first = 1;

	for (i = 0; i < k; i++) {
		int sg = coef_sgn(c, i);

		if (!sg || (sg > 0) != (sign > 0))
			continue;
		if (!first)
			cp_buf_puts(out, " + ");
		first = 0;
		if (put_multiple(c, i, out)) {
			out->failed = 1;
			return;
		}
		if (names && names[i])
			cp_buf_puts(out, names[i]);
		else
			cp_buf_printf(out, "x%zu", i);
	}
	if (first)
		cp_buf_puts(out, "0");
}

static void format_constraint(const struct coefs *c, size_t k,
			      const char *const *names, int is_equality,
			      struct cp_buf *out)
{
	size_t i, pos = 0, neg = 0;
	int first_sign = 0;

	for (i = 0; i < k; i++) {
		int sg = coef_sgn(c, i);

		if (sg > 0)
			pos++;
		else if (sg < 0)
			neg++;
		if (sg && !first_sign)
			first_sign = sg;
	}
	if (is_equality) {
		/* the side with fewer terms reads as the thing defined */
		int left = !neg ? 1 : !pos ? -1 : pos < neg ? 1 : neg < pos ? -1 :
			   first_sign;

		put_side(c, k, names, left, out);
		cp_buf_puts(out, " = ");
		put_side(c, k, names, -left, out);
		return;
	}
	if (!neg) {
		put_side(c, k, names, 1, out);
		cp_buf_puts(out, " >= 0");
		return;
	}
	put_side(c, k, names, -1, out);
	cp_buf_puts(out, " <= ");
	put_side(c, k, names, 1, out);
}

void cone_format_constraint_z(mpz_t *a, size_t k, const char *const *names,
			      int is_equality, struct cp_buf *out)
{
	struct coefs c = { NULL, a };

	format_constraint(&c, k, names, is_equality, out);
}

void cone_format_constraint(const int64_t *a, size_t k,
			    const char *const *names, int is_equality,
			    struct cp_buf *out)
{
	struct coefs c = { a, NULL };

	format_constraint(&c, k, names, is_equality, out);
}

/* ==== the facet through a subset ====
 * With R the reduced basis of span(S) (d rows), a normal in span(S) is
 * a = sum_i c_i R_i, and a.s = sum_i c_i (R_i.s).  So the subset T gives
 * the d-column rows g(t) = (R_i.t)_i; they must have rank d-1, c is their
 * null vector, and a follows, made primitive and oriented. */

int cone_facet_from_subset(size_t k, size_t m, const uint32_t *S,
			   const unsigned char *mask, int64_t *a,
			   struct cp_error *err)
{
	struct cone_ech span, sub;
	mpz_t *R = NULL, *g = NULL, *c = NULL, *az = NULL, t, dot;
	size_t d = 0, i, j, x, f;
	int rc, sign = 0, have_span = 0, have_sub = 0, inited = 0;

	if (!k)
		return cp_error_set(err, CP_EINPUT, "a cone needs at least one counter");
	if ((rc = cone_ech_init(&span, k)))
		return cp_error_set(err, rc, "out of memory");
	have_span = 1;
	mpz_inits(t, dot, NULL);
	for (j = 0; j < m; j++)
		if (cone_ech_add_u32(&span, S + j * k) < 0)
			goto nomem;
	d = span.rank;
	if (d == 0) {
		rc = cp_error_set(err, CP_EINPUT, "the signatures span only the origin: "
				  "the cone has no facets");
		goto out;
	}
	R = cp_calloc(d * k, sizeof *R);
	g = cp_calloc(d, sizeof *g);
	c = cp_calloc(d, sizeof *c);
	az = cp_calloc(k, sizeof *az);
	if (!R || !g || !c || !az)
		goto nomem;
	for (i = 0; i < d * k; i++)
		mpz_init(R[i]);
	for (i = 0; i < d; i++)
		mpz_inits(g[i], c[i], NULL);
	for (i = 0; i < k; i++)
		mpz_init(az[i]);
	inited = 1;
	for (i = 0; i < d; i++)
		cone_ech_row_z(&span, i, R + i * k);
	if (cone_ech_init(&sub, d))
		goto nomem;
	have_sub = 1;
	for (j = 0; j < m; j++) {
		if (!mask[j])
			continue;
		for (i = 0; i < d; i++) {
			mpz_set_ui(g[i], 0);
			for (x = 0; x < k; x++)
				if (S[j * k + x])
					mpz_addmul_ui(g[i], R[i * k + x], S[j * k + x]);
		}
		if (cone_ech_add_z(&sub, g) < 0)
			goto nomem;
	}
	if (sub.rank != d - 1) {
		rc = cp_error_set(err, CP_EINPUT, "the chosen signatures span %zu "
				  "dimensions, a facet of this %zu-dimensional cone "
				  "needs %zu", sub.rank, d, d - 1);
		goto out;
	}
	for (f = 0, i = 0; f < d; f++) {
		if (i < sub.rank && sub.piv[i] == f)
			i++;
		else
			break;
	}
	cone_ech_null_z(&sub, f, c);
	for (x = 0; x < k; x++) {
		mpz_set_ui(az[x], 0);
		for (i = 0; i < d; i++)
			mpz_addmul(az[x], c[i], R[i * k + x]);
	}
	cone_vec_primitive_z(az, k);
	for (j = 0; j < m; j++) {
		int s;

		mpz_set_ui(dot, 0);
		for (x = 0; x < k; x++)
			if (S[j * k + x])
				mpz_addmul_ui(dot, az[x], S[j * k + x]);
		s = mpz_sgn(dot);
		if (!s)
			continue;
		if (mask[j]) {
			rc = cp_error_set(err, CP_EINTERNAL, "facet normal misses "
					  "chosen signature %zu", j + 1);
			goto out;
		}
		if (sign && s != sign) {
			rc = cp_error_set(err, CP_EINPUT, "the chosen signatures do "
					  "not lie on a facet: other signatures lie on "
					  "both sides of their hyperplane");
			goto out;
		}
		sign = s;
	}
	if (!sign) {
		rc = cp_error_set(err, CP_EINPUT, "every signature lies on the "
				  "hyperplane: it is not a facet");
		goto out;
	}
	for (x = 0; x < k; x++) {
		if (sign < 0)
			mpz_neg(az[x], az[x]);
		if (!mpz_fits_slong_p(az[x]) || mpz_cmp_si(az[x], -INT64_MAX) < 0) {
			rc = cp_error_set(err, CP_ELIMIT, "a facet coefficient does "
					  "not fit in 64 bits");
			goto out;
		}
	}
	for (x = 0; x < k; x++)
		a[x] = (int64_t)mpz_get_si(az[x]);
	rc = CP_OK;
	goto out;
nomem:
	rc = cp_error_set(err, CP_ENOMEM, "out of memory");
out:
	if (inited) {
		for (i = 0; i < d * k; i++)
			mpz_clear(R[i]);
		for (i = 0; i < d; i++)
			mpz_clears(g[i], c[i], NULL);
		for (i = 0; i < k; i++)
			mpz_clear(az[i]);
	}
	cp_free(R);
	cp_free(g);
	cp_free(c);
	cp_free(az);
	mpz_clears(t, dot, NULL);
	if (have_sub)
		cone_ech_release(&sub);
	if (have_span)
		cone_ech_release(&span);
	return rc;
}
