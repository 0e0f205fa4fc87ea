/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_cone_big.c: the cone's limits say what they counted, and
 * facet normals beyond 64 bits stay exact (GMP), against a brute-force
 * oracle in GMP that shares no code with geometry/: every (d-1)-subset of
 * rays, its normal by cofactors, kept when every ray lies on one side. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gmp.h>

#include "bench/cone_cases.h"
#include "common/cp.h"
#include "geometry/cone.h"
#include "check.h"

/* ==== limits: the messages name what was counted ==== */

static const char *build_error(size_t k, size_t m, const uint32_t *S,
			       size_t max_facets, double max_seconds, int method,
			       int *rc)
{
	static struct cp_error err;
	struct cone_options opt;
	struct cone *c = NULL;

	memset(&opt, 0, sizeof opt);
	opt.max_facets = max_facets;
	opt.max_seconds = max_seconds;
	cp_error_clear(&err);
	*rc = cone_build_method(k, m, S, &opt, method, NULL, &c, &err);
	cone_free(c);
	return err.msg;
}

static void test_limit_messages(void)
{
	/* the cube: 6 facets */
	static const uint32_t cube[] = {
		0, 0, 0, 1, 1, 0, 0, 1, 0, 1, 0, 1, 1, 1, 0, 1,
		0, 0, 1, 1, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1,
	};
	static const struct cone_case c12 = { "sparse-12-100", CASE_SPARSE, 12, 100, 1, 0 };
	uint32_t *S = malloc(12 * 100 * sizeof *S);
	const char *msg;
	int rc;

	msg = build_error(4, 8, cube, 3, 0, CONE_AUTO, &rc);
	CHECK(rc == CP_ELIMIT);
	CHECKF(strstr(msg, "more than 3 facets (6 exact facets counted by "
		      "double description") != NULL, "%s", msg);
	msg = build_error(4, 8, cube, 3, 0, CONE_QHULL, &rc);
	CHECK(rc == CP_ELIMIT);
	CHECKF(strstr(msg, "more than 3 facets (4 exact facets counted by qhull") != NULL,
	       "%s", msg);
	build_error(4, 8, cube, 6, 0, CONE_AUTO, &rc);
	CHECK(rc == CP_OK);

	/* 912 facets; an intermediate cone passes 4 x 100 */
	case_generate(&c12, S);
	msg = build_error(12, 100, S, 100, 0, CONE_DD, &rc);
	CHECK(rc == CP_ELIMIT);
	CHECKF(strstr(msg, "partial cone has") && strstr(msg, "more than 4 x "
		"--max-facets (100); the cone's own facets were not counted"),
	       "%s", msg);
	msg = build_error(12, 100, S, 900, 0, CONE_DD, &rc);
	CHECK(rc == CP_ELIMIT);
	CHECKF(strstr(msg, "more than 900 facets (912 exact facets") != NULL, "%s", msg);
	/* Qhull's triangulation counts simplices, and says so */
	msg = build_error(12, 100, S, 1, 0, CONE_QHULL, &rc);
	CHECK(rc == CP_ELIMIT);
	CHECKF(strstr(msg, "qhull stopped: its triangulation passed 1008 simplices") != NULL,
	       "%s", msg);
	/* the time limit names the method (the clock is read after every
	 * insertion, so a nanosecond is always over) */
	msg = build_error(12, 100, S, 0, 1e-9, CONE_DD, &rc);
	CHECK(rc == CP_ELIMIT);
	CHECKF(strstr(msg, "stopped after 1e-09 s (double description; raise "
		      "--max-seconds)") != NULL, "%s", msg);
	free(S);
}

/* ==== normals beyond 64 bits ==== */

/* a_c = (-1)^c det(M without column c), for the 3x4 matrix M; s scratch */
static void cofactors(mpz_t M[3][4], mpz_t *a, mpz_t s)
{
	size_t t, col[3], u, v;

	for (t = 0; t < 4; t++) {
		for (v = 0, u = 0; v < 4; v++)
			if (v != t)
				col[u++] = v;
		mpz_mul(s, M[1][col[1]], M[2][col[2]]);
		mpz_submul(s, M[1][col[2]], M[2][col[1]]);
		mpz_mul(a[t], M[0][col[0]], s);
		mpz_mul(s, M[1][col[0]], M[2][col[2]]);
		mpz_submul(s, M[1][col[2]], M[2][col[0]]);
		mpz_submul(a[t], M[0][col[1]], s);
		mpz_mul(s, M[1][col[0]], M[2][col[1]]);
		mpz_submul(s, M[1][col[1]], M[2][col[0]]);
		mpz_addmul(a[t], M[0][col[2]], s);
		if (t & 1)
			mpz_neg(a[t], a[t]);
	}
}

/* Brute-force facets of the full-dimensional cone over m rays in R^4:
 * every triple's normal by cofactors, primitive, oriented, kept when no
 * ray is on the negative side; as sorted decimal strings "a,b,c,d". */
static size_t oracle(size_t m, const uint32_t *S, char **out)
{
	size_t i, j, l, r, n = 0, q, t;
	mpz_t a[4], s, g, M[3][4];

	for (q = 0; q < 4; q++)
		mpz_init(a[q]);
	for (q = 0; q < 3; q++)
		for (t = 0; t < 4; t++)
			mpz_init(M[q][t]);
	mpz_init(s);
	mpz_init(g);
	for (i = 0; i < m; i++)
		for (j = i + 1; j < m; j++)
			for (l = j + 1; l < m; l++) {
				size_t rows[3] = { i, j, l };
				int sign = 0, ok = 1, zero = 1;
				char buf[512];
				size_t len = 0;

				for (q = 0; q < 3; q++)
					for (t = 0; t < 4; t++)
						mpz_set_ui(M[q][t], S[rows[q] * 4 + t]);
				cofactors(M, a, s);
				for (t = 0; t < 4; t++)
					if (mpz_sgn(a[t]))
						zero = 0;
				if (zero)
					continue;
				mpz_set_ui(g, 0);
				for (t = 0; t < 4; t++)
					mpz_gcd(g, g, a[t]);
				for (t = 0; t < 4; t++)
					mpz_divexact(a[t], a[t], g);
				for (r = 0; r < m && ok; r++) {
					int sg;

					mpz_set_ui(s, 0);
					for (t = 0; t < 4; t++)
						mpz_addmul_ui(s, a[t], S[r * 4 + t]);
					sg = mpz_sgn(s);
					if (sg && !sign)
						sign = sg;
					else if (sg && sg != sign)
						ok = 0;
				}
				if (!ok || !sign)
					continue;
				for (t = 0; t < 4; t++) {
					if (sign < 0)
						mpz_neg(a[t], a[t]);
					len += (size_t)gmp_snprintf(buf + len, sizeof buf - len,
								    "%s%Zd", t ? "," : "", a[t]);
				}
				for (q = 0; q < n && strcmp(out[q], buf); q++)
					;
				if (q == n)
					out[n++] = strdup(buf);
			}
	for (q = 0; q < 4; q++)
		mpz_clear(a[q]);
	for (q = 0; q < 3; q++)
		for (t = 0; t < 4; t++)
			mpz_clear(M[q][t]);
	mpz_clear(s);
	mpz_clear(g);
	return n;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Random rays below 2^bits, in R^4; cone against the oracle by method. */
static void big_case(size_t m, unsigned bits, uint64_t seed, int method,
		     int expect_big, int expect_gmp)
{
	uint32_t S[16 * 4];
	char *want[600], *got[600];
	size_t nw, i, t;
	struct cone *c = NULL;
	struct cone_stats st;
	struct cp_error err;
	uint64_t state = seed;
	mpz_t a[4];
	int any_big = 0, rc;

	for (i = 0; i < m * 4; i++) {
		state ^= state << 13;
		state ^= state >> 7;
		state ^= state << 17;
		S[i] = (uint32_t)(state >> (64 - bits)) | 1;
	}
	nw = oracle(m, S, want);
	cp_error_clear(&err);
	rc = cone_build_method(4, m, S, NULL, method, &st, &c, &err);
	CHECKF(rc == CP_OK, "%s", err.msg);
	if (rc)
		goto out;
	CHECKF(cone_n_facets(c) == nw, "%zu facets, oracle %zu", cone_n_facets(c), nw);
	for (t = 0; t < 4; t++)
		mpz_init(a[t]);
	for (i = 0; i < cone_n_facets(c) && i < 600; i++) {
		char buf[512];
		size_t len = 0;
		int fits = 1;

		cone_facet_mpz(c, i, a);
		for (t = 0; t < 4; t++) {
			fits &= mpz_fits_slong_p(a[t]) != 0;
			len += (size_t)gmp_snprintf(buf + len, sizeof buf - len, "%s%Zd",
						    t ? "," : "", a[t]);
		}
		any_big |= !fits;
		/* the int64 accessor refuses exactly the facets that do not fit */
		CHECK((cone_facet(c, i) == NULL) == !fits);
		got[i] = strdup(buf);
	}
	for (t = 0; t < 4; t++)
		mpz_clear(a[t]);
	CHECK(any_big == expect_big);
	CHECK(cone_facets_fit_int64(c) == !expect_big);
	CHECKF(st.gmp == expect_gmp, "gmp %d", st.gmp);
	if (cone_n_facets(c) == nw) {
		qsort(want, nw, sizeof *want, cmp_str);
		qsort(got, nw, sizeof *got, cmp_str);
		for (i = 0; i < nw; i++)
			CHECKF(!strcmp(want[i], got[i]), "facet %s, oracle %s", got[i], want[i]);
	}
	for (i = 0; i < cone_n_facets(c) && i < 600; i++)
		free(got[i]);
	if (expect_big) {
		/* printing: every digit, in the readable form too */
		struct cp_buf b;

		cp_buf_init(&b);
		cone_format_facet(c, cone_n_facets(c) - 1, NULL, &b);
		cp_buf_puts(&b, " ");
		cone_format_facet_vector(c, cone_n_facets(c) - 1, &b);
		CHECKF(b.data && strlen(b.data) > 40 && strstr(b.data, "*x"), "%s",
		       b.data ? b.data : "");
		cp_buf_release(&b);
	}
out:
	for (i = 0; i < nw; i++)
		free(want[i]);
	cone_free(c);
}

static void test_big_normals(void)
{
	/* 31-bit entries: 3x3 minors near 2^95, beyond int64 from the
	 * initial simplex on */
	big_case(5, 31, 7, CONE_DD, 1, 1);
	big_case(12, 31, 11, CONE_DD, 1, 1);
	big_case(12, 31, 11, CONE_QHULL, 1, 1);
	big_case(12, 31, 11, CONE_AUTO, 1, 1);
	/* 20-bit entries: normals fit, but s_p b_n - s_n b_p overflows
	 * int64 during the double description, which moves to GMP */
	big_case(16, 20, 5, CONE_DD, 0, 1);
	big_case(16, 20, 5, CONE_QHULL, 0, 0);
	/* 14-bit entries: s_p b_n - s_n b_p overflows int64 (from 11 bits
	 * on), but formed in 128 bits and divided by its gcd it fits: no
	 * GMP */
	big_case(16, 14, 5, CONE_DD, 0, 0);
	big_case(16, 16, 2, CONE_DD, 0, 0);
	/* small entries stay in int64 */
	big_case(16, 6, 3, CONE_DD, 0, 0);
}

/* Equalities beyond 64 bits: three 30-bit rays in R^4 (and a fourth, the
 * sum of the first two) span a 3-space whose one equality is their
 * cofactor vector, near 2^95: kept exactly, never refused. */
static void big_equality_case(int method, uint64_t seed, size_t m)
{
	uint32_t S[4 * 4];
	mpz_t M[3][4], a[4], want[4], s, g;
	struct cone *c = NULL;
	struct cp_error err;
	uint64_t state = seed;
	size_t i, t, q, r;
	int rc, lead = 0, fits = 1;

	for (i = 0; i < 12; i++) {
		state ^= state << 13;
		state ^= state >> 7;
		state ^= state << 17;
		S[i] = (uint32_t)(state >> 34) | 1;   /* 30 bits: sums fit */
	}
	for (t = 0; t < 4; t++)
		S[12 + t] = S[t] + S[4 + t];
	mpz_init(s);
	mpz_init(g);
	for (t = 0; t < 4; t++) {
		mpz_init(a[t]);
		mpz_init(want[t]);
	}
	for (q = 0; q < 3; q++)
		for (t = 0; t < 4; t++)
			mpz_init_set_ui(M[q][t], S[q * 4 + t]);
	/* the oracle: the cofactor vector, primitive, its first non-zero
	 * entry positive */
	cofactors(M, want, s);
	for (t = 0; t < 4; t++) {
		mpz_gcd(g, g, want[t]);
		if (!lead)
			lead = mpz_sgn(want[t]);
	}
	for (t = 0; t < 4; t++) {
		mpz_divexact(want[t], want[t], g);
		if (lead < 0)
			mpz_neg(want[t], want[t]);
		fits &= mpz_fits_slong_p(want[t]) != 0;
	}
	CHECK(!fits);   /* the case is what it says */
	cp_error_clear(&err);
	rc = cone_build_method(4, m, S, NULL, method, NULL, &c, &err);
	CHECKF(rc == CP_OK, "%s", err.msg);
	if (rc)
		goto out;
	CHECK(cone_dim(c) == 3);
	CHECK(cone_n_equalities(c) == 1);
	CHECK(cone_equality(c, 0) == NULL);
	CHECK(!cone_fits_int64(c));
	CHECK(cone_n_facets(c) == 3);
	cone_equality_mpz(c, 0, a);
	for (t = 0; t < 4; t++)
		CHECKF(!mpz_cmp(a[t], want[t]), "coefficient %zu: %s", t,
		       mpz_get_str(NULL, 10, a[t]));
	/* and it holds exactly on every signature */
	for (r = 0; r < m; r++) {
		mpz_set_ui(s, 0);
		for (t = 0; t < 4; t++)
			mpz_addmul_ui(s, a[t], S[r * 4 + t]);
		CHECK(mpz_sgn(s) == 0);
	}
	{
		struct cp_buf b;
		char *d = mpz_get_str(NULL, 10, want[0]);

		cp_buf_init(&b);
		cone_format_equality(c, 0, NULL, &b);
		cp_buf_puts(&b, " ");
		cone_format_equality_vector(c, 0, &b);
		CHECKF(b.data && strstr(b.data, " = ") && strstr(b.data, d) &&
		       strchr(b.data, '['), "%s", b.data ? b.data : "");
		free(d);
		cp_buf_release(&b);
	}
out:
	cone_free(c);
	for (q = 0; q < 3; q++)
		for (t = 0; t < 4; t++)
			mpz_clear(M[q][t]);
	for (t = 0; t < 4; t++) {
		mpz_clear(a[t]);
		mpz_clear(want[t]);
	}
	mpz_clear(s);
	mpz_clear(g);
}

static void test_big_equalities(void)
{
	struct cp_error err;
	size_t ne;
	int64_t *eq;
	uint32_t S[12];
	uint64_t state = 7;
	size_t i;

	big_equality_case(CONE_DD, 7, 3);
	big_equality_case(CONE_DD, 9, 4);
	big_equality_case(CONE_QHULL, 9, 4);
	big_equality_case(CONE_AUTO, 13, 4);
	/* the int64 interface the solver uses refuses, and says so */
	for (i = 0; i < 12; i++) {
		state ^= state << 13;
		state ^= state >> 7;
		state ^= state << 17;
		S[i] = (uint32_t)(state >> 34) | 1;
	}
	cp_error_clear(&err);
	CHECK(cone_equalities(4, 3, S, &ne, &eq, &err) == CP_ELIMIT);
	CHECKF(strstr(err.msg, "beyond 64 bits") != NULL, "%s", err.msg);
	CHECK(eq == NULL && ne == 0);
}

int main(void)
{
	check_prog = "test_cone_big";
	RUN(test_limit_messages);
	RUN(test_big_normals);
	RUN(test_big_equalities);
	return check_summary();
}
