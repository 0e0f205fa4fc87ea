/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_cone.c: the exact cone on cones whose constraints are
 * known by hand: the orthant, simplicial cones, cones over a square and a
 * cube, a lower-dimensional cone in R^5, one ray, two rays, many
 * signatures on one facet, interior signatures; printing, limits and the
 * facet-from-subset entry point. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/cp.h"
#include "geometry/cone.h"
#include "check.h"

/* "E: eq; eq | F: f; f | X: extreme flags" with counters x0, x1, ... */
static char *describe(size_t k, size_t m, const uint32_t *S,
		      const struct cone_options *opt, int *rc_out)
{
	static char text[8192];
	struct cp_error err;
	struct cone *c = NULL;
	struct cp_buf b;
	size_t i;
	int rc;

	cp_error_clear(&err);
	rc = cone_build(k, m, S, opt, &c, &err);
	if (rc_out)
		*rc_out = rc;
	if (rc) {
		snprintf(text, sizeof text, "error %d: %s", rc, err.msg);
		return text;
	}
	cp_buf_init(&b);
	cp_buf_printf(&b, "d=%zu E:", cone_dim(c));
	for (i = 0; i < cone_n_equalities(c); i++) {
		cp_buf_puts(&b, i ? "; " : " ");
		cone_format_constraint(cone_equality(c, i), k, NULL, 1, &b);
	}
	cp_buf_puts(&b, " | F:");
	for (i = 0; i < cone_n_facets(c); i++) {
		cp_buf_puts(&b, i ? "; " : " ");
		cone_format_facet(c, i, NULL, &b);
	}
	cp_buf_puts(&b, " | X: ");
	for (i = 0; i < m; i++)
		cp_buf_puts(&b, cone_signature_is_extreme(c, i) ? "1" : "0");
	snprintf(text, sizeof text, "%s", b.data ? b.data : "");
	cp_buf_release(&b);
	cone_free(c);
	return text;
}

static void test_orthant(void)
{
	static const uint32_t S[] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };

	CHECK_STR(describe(3, 3, S, NULL, NULL),
		  "d=3 E: | F: x0 >= 0; x1 >= 0; x2 >= 0 | X: 111");
}

static void test_simplicial(void)
{
	static const uint32_t S[] = { 1, 0, 0, 1, 1, 0, 1, 1, 1 };
	/* a simplicial cone in R^4 with a non-trivial determinant */
	static const uint32_t T[] = { 2, 1, 0, 0, 0, 2, 1, 0, 0, 0, 2, 1, 1, 0, 0, 2 };

	CHECK_STR(describe(3, 3, S, NULL, NULL),
		  "d=3 E: | F: x2 >= 0; x1 <= x0; x2 <= x1 | X: 111");
	CHECK_STR(describe(4, 4, T, NULL, NULL),
		  "d=4 E: | F: x1 + 4*x3 <= 8*x0 + 2*x2; 4*x1 + x3 <= 2*x0 + 8*x2; "
		  "x0 + 4*x2 <= 2*x1 + 8*x3; 4*x0 + x2 <= 8*x1 + 2*x3 | X: 1111");
}

static void test_square(void)
{
	/* the cone over the unit square at height 1 */
	static const uint32_t S[] = { 0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1 };
	/* e0+e2, e0+e3, e1+e2, e1+e3: a square inside x0 + x1 = x2 + x3 */
	static const uint32_t T[] = { 1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 0, 1, 0, 1 };

	CHECK_STR(describe(3, 4, S, NULL, NULL),
		  "d=3 E: | F: x0 >= 0; x1 >= 0; x0 <= x2; x1 <= x2 | X: 1111");
	CHECK_STR(describe(4, 4, T, NULL, NULL),
		  "d=3 E: x0 + x1 = x2 + x3 | F: x0 >= 0; x1 >= 0; x2 >= 0; x3 >= 0 | X: 1111");
}

static void cube(uint32_t *S, uint32_t scale)
{
	int v, i;

	for (v = 0; v < 8; v++) {
		for (i = 0; i < 3; i++)
			S[v * 4 + i] = (uint32_t)(v >> i & 1) * scale;
		S[v * 4 + 3] = scale;
	}
}

static void test_cube(void)
{
	uint32_t S[9 * 4];

	cube(S, 1);
	CHECK_STR(describe(4, 8, S, NULL, NULL),
		  "d=4 E: | F: x0 >= 0; x1 >= 0; x2 >= 0; x0 <= x3; x1 <= x3; "
		  "x2 <= x3 | X: 11111111");
}

static void test_interior(void)
{
	uint32_t S[10 * 4];

	/* the cube plus its centre (twice: once scaled) and a face centre */
	cube(S, 2);
	S[32] = 1; S[33] = 1; S[34] = 1; S[35] = 2;
	S[36] = 2; S[37] = 1; S[38] = 1; S[39] = 2;
	CHECK_STR(describe(4, 10, S, NULL, NULL),
		  "d=4 E: | F: x0 >= 0; x1 >= 0; x2 >= 0; x0 <= x3; x1 <= x3; "
		  "x2 <= x3 | X: 1111111100");
}

static void test_lower_dimensional(void)
{
	/* in R^5: x3 = 0 and x4 = x0 + x1; the fourth is interior */
	static const uint32_t S[] = {
		1, 0, 0, 0, 1,
		0, 1, 0, 0, 1,
		0, 0, 1, 0, 0,
		1, 1, 1, 0, 2,
	};

	CHECK_STR(describe(5, 4, S, NULL, NULL),
		  "d=3 E: x4 = x0 + x1; x3 = 0 | F: x0 >= 0; x1 >= 0; x2 >= 0 | X: 1110");
}

static void test_one_ray(void)
{
	static const uint32_t S[] = { 2, 0, 4, 1, 0, 2, 0, 0, 0, 3, 0, 6 };

	CHECK_STR(describe(3, 4, S, NULL, NULL),
		  "d=1 E: 2*x0 = x2; x1 = 0 | F: x0 >= 0 | X: 1000");
}

static void test_two_rays(void)
{
	static const uint32_t S[] = { 1, 0, 0, 1, 1, 0, 3, 1, 0, 2, 2, 0 };

	CHECK_STR(describe(3, 4, S, NULL, NULL),
		  "d=2 E: x2 = 0 | F: x1 >= 0; x1 <= x0 | X: 1100");
}

static void test_many_on_one_facet(void)
{
	static const uint32_t S[] = {
		1, 0, 0, 2, 1, 0, 1, 1, 0, 1, 2, 0, 0, 1, 0, 1, 1, 1,
	};
	uint32_t T[40 * 5];
	size_t j = 0;
	uint32_t a, b2, c2;
	char *s;

	CHECK_STR(describe(3, 6, S, NULL, NULL),
		  "d=3 E: | F: x2 >= 0; x2 <= x0; x2 <= x1 | X: 100011");
	/* a pyramid in R^5 over a 3x3x3 grid of points (x3 = 2, x4 = 0),
	 * apex (1,1,1,1,1): only the 8 grid corners and the apex are
	 * extreme.  The apex lies level with the grid's far faces, so those
	 * faces are no facets; "x4 <= x0" holds 9 grid points and the apex. */
	for (a = 0; a < 3; a++)
		for (b2 = 0; b2 < 3; b2++)
			for (c2 = 0; c2 < 3; c2++, j++) {
				T[j * 5 + 0] = a;
				T[j * 5 + 1] = b2;
				T[j * 5 + 2] = c2;
				T[j * 5 + 3] = 2;
				T[j * 5 + 4] = 0;
			}
	T[j * 5 + 0] = 1; T[j * 5 + 1] = 1; T[j * 5 + 2] = 1;
	T[j * 5 + 3] = 1; T[j * 5 + 4] = 1;
	j++;
	s = describe(5, j, T, NULL, NULL);
	CHECK_STR(s, "d=5 E: | F: x4 >= 0; x0 <= x3; x4 <= x0; x1 <= x3; "
		  "x4 <= x1; x2 <= x3; x4 <= x2 | "
		  "X: 1010001010000000001010001011");
}

static void test_degenerate_inputs(void)
{
	static const uint32_t Z[] = { 0, 0, 0, 0 };
	int rc;

	CHECK_STR(describe(2, 2, Z, NULL, NULL), "d=0 E: x0 = 0; x1 = 0 | F: | X: 00");
	CHECK_STR(describe(2, 0, Z, NULL, NULL), "d=0 E: x0 = 0; x1 = 0 | F: | X: ");
	describe(0, 0, Z, NULL, &rc);
	CHECK(rc == CP_EINPUT);
}

static void test_format(void)
{
	static const char *const names[] = { "load.walk_done", "load.walk_done_4k",
					     "load.walk_done_2m", "load.pde_miss",
					     "load.causes_walk" };
	static const int64_t eq[] = { 1, -1, -1, 0, 0 };
	static const int64_t f1[] = { 0, 0, 0, -1, 1 };
	static const int64_t f2[] = { 0, 3, 0, 0, 0 };
	static const int64_t f3[] = { -2, 4, 1, 0, 0 };
	struct cp_buf b;

	cp_buf_init(&b);
	cone_format_constraint(eq, 5, names, 1, &b);
	cp_buf_puts(&b, "|");
	cone_format_constraint(f1, 5, names, 0, &b);
	cp_buf_puts(&b, "|");
	cone_format_constraint(f2, 5, names, 0, &b);
	cp_buf_puts(&b, "|");
	cone_format_constraint(f3, 5, names, 0, &b);
	CHECK_STR(b.data, "load.walk_done = load.walk_done_4k + load.walk_done_2m|"
		  "load.pde_miss <= load.causes_walk|3*load.walk_done_4k >= 0|"
		  "2*load.walk_done <= 4*load.walk_done_4k + load.walk_done_2m");
	cp_buf_release(&b);
}

static void test_limits(void)
{
	uint32_t S[8 * 4];
	struct cone_options opt = { 3, 0, 0 };
	int rc;
	char *s;

	cube(S, 1);
	s = describe(4, 8, S, &opt, &rc);
	CHECK(rc == CP_ELIMIT);
	CHECKF(strstr(s, "more than 3 facets") != NULL, "%s", s);
	opt.max_facets = 6;
	describe(4, 8, S, &opt, &rc);
	CHECK(rc == CP_OK);
}

/* no_extreme: the same facets and equalities, no extreme rays (the
 * double description); Qhull's path still computes them, as its check. */
static void test_no_extreme(void)
{
	uint32_t S[8 * 4];
	struct cone_options all = { 0, 0, 0 }, facets = { 0, 0, 1 };
	struct cone *a = NULL, *b = NULL, *q = NULL;
	struct cp_error err;
	size_t i, j;

	cube(S, 1);
	cp_error_clear(&err);
	CHECK(cone_build(4, 8, S, &all, &a, &err) == CP_OK);
	CHECK(cone_build(4, 8, S, &facets, &b, &err) == CP_OK);
	CHECK(cone_build_method(4, 8, S, &facets, CONE_QHULL, NULL, &q, &err) == CP_OK);
	if (!a || !b || !q)
		goto out;
	CHECK(cone_n_extreme(a) == 8 && cone_n_extreme(b) == 0 && cone_n_extreme(q) == 8);
	CHECK(cone_n_facets(a) == cone_n_facets(b) && cone_n_equalities(a) == cone_n_equalities(b));
	for (i = 0; i < cone_n_facets(a); i++)
		for (j = 0; j < 4; j++)
			CHECK(cone_facet(a, i)[j] == cone_facet(b, i)[j]);
	for (j = 0; j < 8; j++)
		CHECK(!cone_signature_is_extreme(b, j) && cone_signature_n_facets(b, j) == 0);
out:
	cone_free(a);
	cone_free(b);
	cone_free(q);
}

static void test_facet_from_subset(void)
{
	/* the lower-dimensional cone: facets in span(S) */
	static const uint32_t S[] = {
		1, 0, 0, 0, 1,
		0, 1, 0, 0, 1,
		0, 0, 1, 0, 0,
		1, 1, 1, 0, 2,
	};
	unsigned char mask[4] = { 0, 1, 1, 0 };
	int64_t a[5];
	struct cp_error err;
	int rc;

	cp_error_clear(&err);
	rc = cone_facet_from_subset(5, 4, S, mask, a, &err);
	CHECKF(rc == CP_OK, "%s", err.msg);
	/* x0 >= 0 projected onto span: (2, -1, 0, 0, 1) */
	CHECK(a[0] == 2 && a[1] == -1 && a[2] == 0 && a[3] == 0 && a[4] == 1);
	mask[1] = 0;
	CHECK(cone_facet_from_subset(5, 4, S, mask, a, &err) == CP_EINPUT);
	mask[0] = 1; mask[1] = 0; mask[2] = 0; mask[3] = 1;
	/* rays 0 and 3 span a plane through the interior: both sides */
	CHECK(cone_facet_from_subset(5, 4, S, mask, a, &err) == CP_EINPUT);
	CHECKF(strstr(err.msg, "both sides") != NULL, "%s", err.msg);
}

/* A sparse set in dimension 9 on which Qhull without merging meets a ridge
 * of three facets and stops, so the rerun with merging is what answers
 * (Qhull forced; double description checked too).  Facet and extreme-ray
 * counts from Normaliz (normaliz -c). */
static void test_qhull_fallback(void)
{
	static const uint32_t S[] = {
		0, 0, 0, 2, 0, 0, 0, 0, 1,
		1, 2, 0, 1, 0, 0, 0, 1, 0,
		0, 0, 0, 0, 0, 2, 0, 2, 2,
		3, 0, 0, 0, 0, 0, 2, 0, 0,
		0, 0, 0, 1, 0, 0, 0, 2, 2,
		0, 0, 0, 0, 0, 2, 0, 2, 0,
		1, 0, 0, 0, 0, 0, 0, 2, 0,
		1, 0, 0, 0, 2, 1, 2, 0, 0,
		0, 0, 1, 0, 0, 0, 0, 2, 0,
		0, 0, 0, 2, 0, 3, 0, 2, 0,
		0, 0, 2, 1, 2, 0, 0, 0, 1,
		4, 0, 0, 0, 0, 0, 1, 0, 0,
		3, 0, 0, 0, 0, 2, 2, 0, 0,
		0, 2, 0, 1, 2, 0, 0, 0, 0,
		0, 2, 0, 0, 0, 2, 2, 0, 2,
		3, 0, 0, 1, 0, 0, 2, 0, 0,
		0, 0, 0, 0, 0, 1, 1, 0, 0,
		0, 0, 2, 0, 0, 0, 2, 0, 0,
		2, 0, 0, 4, 0, 0, 0, 0, 0,
		2, 3, 1, 0, 0, 0, 0, 0, 0,
		0, 2, 0, 0, 2, 0, 1, 1, 0,
		0, 0, 3, 1, 1, 0, 0, 0, 0,
		0, 0, 2, 0, 0, 2, 0, 0, 0,
		0, 0, 0, 0, 0, 2, 0, 0, 2,
		1, 0, 0, 2, 0, 0, 0, 0, 2,
		1, 1, 0, 0, 0, 2, 2, 0, 0,
		0, 0, 0, 0, 1, 0, 0, 2, 0,
		3, 0, 0, 0, 2, 0, 1, 0, 0,
		0, 0, 1, 2, 0, 2, 0, 0, 0,
		0, 0, 2, 0, 3, 2, 0, 0, 0,
		0, 0, 2, 0, 2, 2, 0, 0, 0,
		0, 0, 1, 2, 3, 0, 0, 0, 0,
		
	};
	size_t k = 9, m = sizeof S / sizeof *S / 9, f, j, x;
	struct cone *c = NULL, *dd = NULL;
	struct cp_error err;

	CHECK(cone_build_method(k, m, S, NULL, CONE_QHULL, NULL, &c, &err) == CP_OK);
	CHECK(cone_build_method(k, m, S, NULL, CONE_DD, NULL, &dd, &err) == CP_OK);
	if (!c || !dd)
		goto out;
	CHECK(cone_n_facets(dd) == cone_n_facets(c));
	for (f = 0; f < cone_n_facets(c); f++)
		CHECK(!memcmp(cone_facet(c, f), cone_facet(dd, f), k * sizeof(int64_t)));
	CHECK(cone_dim(c) == 9);
	CHECK(cone_n_facets(c) == 534);
	CHECK(cone_n_extreme(c) == 31);
	for (f = 0; f < cone_n_facets(c); f++) {
		const int64_t *a = cone_facet(c, f);
		size_t on = 0;

		for (j = 0; j < m; j++) {
			int64_t v = 0;

			for (x = 0; x < k; x++)
				v += a[x] * (int64_t)S[j * k + x];
			CHECK(v >= 0);
			on += v == 0;
		}
		CHECK(on >= 8);
	}
	for (j = 0; j < m; j++)
		if (cone_signature_is_extreme(c, j))
			CHECK(cone_signature_n_facets(c, j) >= 8);
out:
	cone_free(c);
	cone_free(dd);
}

static void test_alloc_failures(void)
{
	uint32_t S[9 * 4];
	unsigned long n;
	int failures = 0;

	cube(S, 1);
	S[32] = 1; S[33] = 1; S[34] = 1; S[35] = 2;
	for (n = 1; n < 400; n++) {
		struct cone *c = NULL;
		struct cp_error err;
		int rc;

		cp_alloc_fail_at(n);
		rc = cone_build(4, 9, S, NULL, &c, &err);
		cp_alloc_fail_at(0);
		if (rc == CP_OK) {
			CHECK(cone_n_facets(c) == 6);
			cone_free(c);
			break;
		}
		CHECKF(rc == CP_ENOMEM, "n=%lu rc=%d %s", n, rc, err.msg);
		CHECK(c == NULL);
		failures++;
	}
	CHECK(failures > 5);
}

static void say_oom(void)
{
	if (write(2, "  (exact arithmetic out of memory, as meant)\n", 45) < 0)
		_exit(9);
}

/* GMP out of memory under cone_gmp_exit_on_oom: the report, then the
 * status asked for, not GMP's abort(). */
static void test_gmp_out_of_memory(void)
{
	pid_t pid;

	FORK_UNDER_LIMIT(pid);
	if (pid == 0) {
		struct rlimit none;
		mpz_t x;

		cone_gmp_exit_on_oom(say_oom, 7);
		mpz_init(x);
		mpz_ui_pow_ui(x, 3, 100);      /* still GMP's arithmetic */
		if (mpz_sizeinbase(x, 3) != 101 || getrlimit(RLIMIT_AS, &none))
			_exit(10);
		mpz_clear(x);
		none.rlim_cur = 1;     /* no new mapping */
		if (setrlimit(RLIMIT_AS, &none))
			_exit(11);
		mpz_init2(x, (mp_bitcnt_t)1 << 24);   /* 2 MB: a mapping of its own */
		_exit(0);
	}
	CHECK_CHILD_EXIT(pid, 7);
}

int main(void)
{
	check_prog = "test_cone";
	RUN(test_gmp_out_of_memory);
	RUN(test_orthant);
	RUN(test_simplicial);
	RUN(test_square);
	RUN(test_cube);
	RUN(test_interior);
	RUN(test_lower_dimensional);
	RUN(test_one_ray);
	RUN(test_two_rays);
	RUN(test_many_on_one_facet);
	RUN(test_degenerate_inputs);
	RUN(test_format);
	RUN(test_limits);
	RUN(test_no_extreme);
	RUN(test_facet_from_subset);
	RUN(test_qhull_fallback);
	RUN(test_alloc_failures);
	return check_summary();
}
