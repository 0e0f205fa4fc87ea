/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_constraint.c: geometry's exact constraint algebra, the
 * one implementation the cone, the solver and explore share:
 * cone_equalities, cone_vec_primitive and cone_readable. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "geometry/cone.h"

/* Counters x0..x3 with x0 = x1 + x2 on every signature; x3 free. */
static const uint32_t S4[] = {
	1, 1, 0, 0,
	1, 0, 1, 0,
	2, 1, 1, 3,
};

static void test_equalities(void)
{
	struct cp_error err;
	int64_t *eq = NULL;
	size_t ne = 9;

	CHECK(cone_equalities(4, 3, S4, &ne, &eq, &err) == CP_OK);
	CHECK(ne == 1);
	if (ne == 1) {   /* canonical: leading coefficient positive, primitive */
		CHECK(eq[0] == 1 && eq[1] == -1 && eq[2] == -1 && eq[3] == 0);
	}
	cp_free(eq);
	/* full span: no equality, NULL */
	{
		static const uint32_t I2[] = { 1, 0, 0, 1 };

		CHECK(cone_equalities(2, 2, I2, &ne, &eq, &err) == CP_OK);
		CHECK(ne == 0 && eq == NULL);
	}
	CHECK(cone_equalities(0, 0, NULL, &ne, &eq, &err) == CP_EINPUT);
}

/* Many rows in a span of rank r and one row outside it, late: after the
 * first rows in the span the echelon basis tests rows against its null
 * vectors instead of eliminating them; the late row must still raise the
 * rank, and the equalities must not depend on where it comes. */
static void test_equalities_late_row(void)
{
	enum { K = 12, R = 5, M = 60 };
	static uint32_t base[R][K], S[M * K], T[M * K];
	struct cp_error err;
	int64_t *eq = NULL, *eq2 = NULL;
	size_t ne = 0, ne2 = 0, i, j, c, late;
	unsigned seed = 12345;

	for (late = 10; late < M; late += 17) {
		for (i = 0; i < R; i++)
			for (c = 0; c < K; c++) {
				seed = seed * 1103515245u + 12345u;
				base[i][c] = c < R ? (c == i) : c == K - 1 ? 0 : (seed >> 16) % 6;
			}
		for (j = 0; j < M; j++) {
			uint32_t coef[R];

			for (i = 0; i < R; i++) {
				seed = seed * 1103515245u + 12345u;
				coef[i] = (seed >> 16) % 4;
			}
			for (c = 0; c < K; c++) {
				uint32_t v = 0;

				for (i = 0; i < R; i++)
					v += coef[i] * base[i][c];
				S[j * K + c] = v;
			}
		}
		/* row late: outside the span (the base is zero in column K-1) */
		for (c = 0; c < K; c++)
			S[late * K + c] = c == K - 1 ? 7 : base[c % R][c];
		CHECK(cone_equalities(K, M, S, &ne, &eq, &err) == CP_OK);
		CHECKF(ne == K - R - 1, "late row %zu: %zu equalities, want %d", late, ne,
		       K - R - 1);
		for (i = 0; i < ne; i++)
			for (j = 0; j < M; j++) {
				__int128 d = 0;

				for (c = 0; c < K; c++)
					d += (__int128)eq[i * K + c] * S[j * K + c];
				CHECK(d == 0);
			}
		/* the same rows with the late one first */
		memcpy(T, S + late * K, K * sizeof *T);
		for (j = 0, i = 1; j < M; j++)
			if (j != late)
				memcpy(T + i++ * K, S + j * K, K * sizeof *T);
		CHECK(cone_equalities(K, M, T, &ne2, &eq2, &err) == CP_OK);
		CHECK(ne2 == ne && !memcmp(eq, eq2, ne * K * sizeof *eq));
		cp_free(eq);
		cp_free(eq2);
		eq = eq2 = NULL;
	}
}

static void test_primitive(void)
{
	int64_t a[] = { 6, -9, 0, 12 }, z[] = { 0, 0 };

	cone_vec_primitive(a, 4);
	CHECK(a[0] == 2 && a[1] == -3 && a[2] == 0 && a[3] == 4);
	cone_vec_primitive(z, 2);
	CHECK(z[0] == 0 && z[1] == 0);
	CHECK(cone_vec_nnz(a, 4) == 3);
}

static int veto_x1(const int64_t *a, void *ctx)
{
	(void)ctx;
	return a[1] != 0;   /* keep only forms that use x1 */
}

static void test_readable(void)
{
	static const int64_t eq[] = { 1, -1, -1, 0 };
	/* x1 + x2 - x0 + x3 >= 0 is x3 >= 0 on span(S): one counter */
	int64_t a[] = { -2, 2, 2, 2 };
	/* 2*x0 >= x1 + x2 + ... : on span, x0 >= 0 -> readable "x0 >= 0"
	 * or x1 + x2 >= 0; fewer counters first gives x0 */
	int64_t b[] = { 2, -1, -1, 0 };
	/* drop a positive term that every signature lets go: x3 - x0 + 5x1
	 * ... with S: x0 - x1 >= 0 holds on S (x0 = x1 + x2), so
	 * (1, -1, 0, 1) -> (1, -1, 0, 0) when dropping x3 keeps validity */
	int64_t c[] = { 1, -1, 0, 1 };
	int64_t d[] = { -2, 2, 2, 2 };

	cone_readable(4, eq, 1, NULL, 0, 0, NULL, NULL, a);
	CHECK(a[0] == 0 && a[1] == 0 && a[2] == 0 && a[3] == 1);
	cone_readable(4, eq, 1, NULL, 0, 0, NULL, NULL, b);
	CHECK(cone_vec_nnz(b, 4) == 1 && b[0] == 1);
	cone_readable(4, eq, 1, S4, 3, 0, NULL, NULL, c);
	CHECKF(cone_vec_nnz(c, 4) == 1, "%lld %lld %lld %lld", (long long)c[0],
	       (long long)c[1], (long long)c[2], (long long)c[3]);
	/* the veto: forms without x1 are refused, so x3 alone is not taken */
	cone_readable(4, eq, 1, NULL, 0, 0, veto_x1, NULL, d);
	CHECK(d[1] != 0);
	CHECK(d[0] == -1 && d[1] == 1 && d[2] == 1 && d[3] == 1);
}

/* On random cones: whatever terms the readable form drops, it stays valid
 * on every signature (a.s >= 0), and it stays one: feeding it back
 * changes nothing.  Signatures lie on x0 = x1 + x2, so the equality lets
 * forms move. */
static void test_readable_valid(void)
{
	static const int64_t eq[] = { 1, -1, -1, 0, 0 };
	uint32_t S[12 * 5];
	uint64_t r = 12345;
	size_t t, p, i, dropped = 0;

	for (t = 0; t < 300; t++) {
		int64_t a[5], b[5];
		size_t m = 3 + t % 10;

		for (p = 0; p < m; p++) {
			uint32_t *s = S + p * 5;

			for (i = 1; i < 5; i++) {
				r = r * 6364136223846793005ull + 1442695040888963407ull;
				s[i] = (uint32_t)(r >> 61);
			}
			s[0] = s[1] + s[2];
		}
		/* a valid inequality: a nonnegative combination of x1..x4 plus
		 * a multiple of the equality */
		for (i = 0; i < 5; i++) {
			r = r * 6364136223846793005ull + 1442695040888963407ull;
			a[i] = i ? (int64_t)(r >> 62) : 0;
		}
		r = r * 6364136223846793005ull + 1442695040888963407ull;
		for (i = 0; i < 5; i++)
			a[i] += ((int64_t)(r >> 62) - 1) * eq[i];
		if (!cone_vec_nnz(a, 5))
			continue;
		memcpy(b, a, sizeof a);
		cone_readable(5, eq, 1, S, m, 0, NULL, NULL, a);
		for (p = 0; p < m; p++) {
			__int128 v = 0;

			for (i = 0; i < 5; i++)
				v += (__int128)a[i] * S[p * 5 + i];
			CHECKF(v >= 0, "case %zu: readable form broken on signature %zu", t, p);
		}
		dropped += cone_vec_nnz(a, 5) < cone_vec_nnz(b, 5);
		memcpy(b, a, sizeof a);
		cone_readable(5, eq, 1, S, m, 0, NULL, NULL, b);
		CHECK(!memcmp(a, b, sizeof a));
	}
	CHECKF(dropped > 0, "no case dropped a term (%zu)", dropped);
}

int main(void)
{
	check_prog = "constraint";
	RUN(test_equalities);
	RUN(test_equalities_late_row);
	RUN(test_primitive);
	RUN(test_readable);
	RUN(test_readable_valid);
	return check_summary();
}
