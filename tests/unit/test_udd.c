/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_udd.c: the μDD compiler: semantics of decisions and
 * features, the memoised enumeration against brute force on random
 * models, limits, and every allocation failure path. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsl/udd.h"
#include "check.h"

static struct udd_model *parse(const char *src)
{
	struct udd_model *m = NULL;
	struct cp_error err;

	cp_error_clear(&err);
	if (udd_model_parse_string("t.udd", src, strlen(src), &m, &err)) {
		printf("  parse failed: %s\n", err.msg);
		udd_model_free(m);
		return NULL;
	}
	return m;
}

static struct udd_sigset *sigs(struct udd_model *m, const char *with)
{
	struct udd_sigset *s = NULL;
	struct cp_error err;
	udd_features sel;

	cp_error_clear(&err);
	if (udd_model_select(m, with, &sel, &err) ||
	    udd_sigset_build(m, sel, 0, &s, &err)) {
		printf("  sigset failed: %s\n", err.msg);
		return NULL;
	}
	return s;
}

/* Does s hold signature want (k counters) with multiplicity mult? */
static int has_sig(const struct udd_sigset *s, const uint32_t *want,
		   uint64_t mult)
{
	size_t j;

	for (j = 0; j < udd_sigset_size(s); j++)
		if (!memcmp(udd_sigset_signature(s, j), want,
			    udd_sigset_n_counters(s) * sizeof *want))
			return udd_sigset_multiplicity(s, j) == mult;
	return 0;
}

static int row_cmp_k(const void *a, const void *b, void *ctx);

/* udd_signatures_build's rows (the walk over μpaths, or the enumeration
 * it hands over to) are exactly s's signatures, as a set. */
static int rows_match(const struct udd_model *m, udd_features sel,
		      const struct udd_sigset *s)
{
	struct cp_error err;
	uint32_t *v = NULL, *w;
	size_t n = 0, k = udd_sigset_n_counters(s);
	int ok;

	cp_error_clear(&err);
	if (udd_signatures_build(m, sel, 0, &v, &n, &err)) {
		printf("  rows failed: %s\n", err.msg);
		return 0;
	}
	if (n != udd_sigset_size(s)) {
		printf("  %zu rows, %zu signatures\n", n, udd_sigset_size(s));
		cp_free(v);
		return 0;
	}
	w = cp_malloc(n * k * sizeof *w + 1);
	if (!w) {
		cp_free(v);
		return 0;
	}
	if (n && k) {
		memcpy(w, udd_sigset_matrix(s), n * k * sizeof *w);
		qsort_r(v, n, k * sizeof *v, row_cmp_k, &k);
		qsort_r(w, n, k * sizeof *w, row_cmp_k, &k);
	}
	ok = !n || !k || !memcmp(v, w, n * k * sizeof *v);
	cp_free(v);
	cp_free(w);
	return ok;
}

/* A property decided twice follows its first value: 2 paths, not 4. */
static void test_decided_property_follows(void)
{
	struct udd_model *m = parse(
		"counter a \"A\"; counter b \"B\"; counter c \"C\"; counter d \"D\";\n"
		"property p { x, y };\n"
		"uop u {\n"
		"  switch (p) { case x: incr a; case y: incr b; }\n"
		"  step;\n"
		"  switch (p) { case x: incr c; case y: incr d; }\n"
		"  done;\n"
		"}\n");
	struct udd_sigset *s;
	uint32_t ac[4] = { 1, 0, 1, 0 }, bd[4] = { 0, 1, 0, 1 };

	CHECK(m != NULL);
	if (!m)
		return;
	s = sigs(m, NULL);
	CHECK(s != NULL);
	if (s) {
		CHECK(udd_sigset_size(s) == 2);
		CHECK(udd_sigset_total_paths(s) == 2);
		CHECK(has_sig(s, ac, 1));
		CHECK(has_sig(s, bd, 1));
		CHECK_STR(udd_sigset_example(s, 0), "p=y, +b, step, +d, done");
		CHECK(udd_sigset_matrix(s) + 4 == udd_sigset_signature(s, 1));
	}
	udd_sigset_free(s);
	udd_model_free(m);
}

/* Undecided properties branch over every value; equal signatures merge
 * and their multiplicities add. */
static void test_branching_and_multiplicity(void)
{
	struct udd_model *m = parse(
		"counter a \"A\"; counter w \"W\";\n"
		"property page { 4k, 2m, 1g };\n"
		"property pde { hit, miss };\n"
		"uop u {\n"
		"  switch (page) { case 4k: incr w 4; case 2m, 1g: incr w 3; }\n"
		"  switch (pde) { case hit: incr a; default: incr a; }\n"
		"  done;\n"
		"}\n");
	struct udd_sigset *s;
	uint32_t four[2] = { 1, 4 }, three[2] = { 1, 3 };

	CHECK(m != NULL);
	if (!m)
		return;
	s = sigs(m, "");
	CHECK(s != NULL);
	if (s) {
		CHECK(udd_sigset_size(s) == 2);
		CHECK(udd_sigset_total_paths(s) == 6);
		CHECK(has_sig(s, four, 2));
		CHECK(has_sig(s, three, 4));
	}
	udd_sigset_free(s);
	udd_model_free(m);
}

/* Features resolve at compile time; `if (!f)` and else-if chains. */
static void test_features(void)
{
	struct udd_model *m = parse(
		"counter a \"A\"; counter b \"B\"; counter c \"C\";\n"
		"feature f \"the f feature\"; feature g;\n"
		"uop u {\n"
		"  if (f) { incr a; } else if (g) { incr b; } else { incr c; }\n"
		"  if (!g) { done; }\n"
		"  incr c;\n"
		"  done;\n"
		"}\n");
	struct udd_sigset *s;
	struct cp_error err;
	udd_features sel;
	uint32_t c1[3] = { 0, 0, 1 }, a1[3] = { 1, 0, 0 }, b1c[3] = { 0, 1, 1 },
		 a1c[3] = { 1, 0, 1 };

	CHECK(m != NULL);
	if (!m)
		return;
	CHECK_STR(udd_model_feature_doc(m, 0), "the f feature");
	CHECK_STR(udd_model_feature_doc(m, 1), "");
	s = sigs(m, NULL);
	CHECK(s && udd_sigset_size(s) == 1 && has_sig(s, c1, 1));
	udd_sigset_free(s);
	s = sigs(m, "f");
	CHECK(s && udd_sigset_size(s) == 1 && has_sig(s, a1, 1));
	udd_sigset_free(s);
	s = sigs(m, "g");
	CHECK(s && udd_sigset_size(s) == 1 && has_sig(s, b1c, 1));
	udd_sigset_free(s);
	s = sigs(m, "g,f");
	CHECK(s && udd_sigset_size(s) == 1 && has_sig(s, a1c, 1));
	udd_sigset_free(s);
	cp_error_clear(&err);
	CHECK(udd_model_select(m, "f,h", &sel, &err) == CP_ESEMANTIC);
	CHECK(strstr(err.msg, "feature 'h'") != NULL);
	CHECK(strstr(err.msg, "it declares: f, g") != NULL);
	CHECK(udd_model_select(m, "g", &sel, &err) == CP_OK && sel == 2);
	{
		char *str = udd_model_selection_str(m, 3);

		CHECK_STR(str, "f,g");
		cp_free(str);
	}
	udd_model_free(m);
}

/* ---- random models: memoised enumeration vs brute force ---- */
static uint64_t rng_state;

static unsigned rnd(unsigned n)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((rng_state >> 33) % n);
}

/* Counters c0.., properties p0.. with random domains v0.. (into dom). */
static void gen_decls(struct cp_buf *b, unsigned ncounters, unsigned nprops,
		      unsigned *dom)
{
	unsigned i, v;

	for (i = 0; i < ncounters; i++)
		cp_buf_printf(b, "counter c%u \"E%u\";\n", i, i);
	for (i = 0; i < nprops; i++) {
		dom[i] = 1 + rnd(3);
		cp_buf_printf(b, "property p%u {", i);
		for (v = 0; v < dom[i]; v++)
			cp_buf_printf(b, "%s v%u", v ? "," : "", v);
		cp_buf_puts(b, " };\n");
	}
}

static void gen_block(struct cp_buf *b, int depth, unsigned nprops,
		      const unsigned *dom, unsigned ncounters)
{
	unsigned n = 1 + rnd(4), i, v, c;

	for (i = 0; i < n; i++) {
		unsigned kind = rnd(depth < 2 ? 4 : 2);

		if (kind == 0) {
			cp_buf_printf(b, "incr c%u", rnd(ncounters));
			if (rnd(3) == 0)
				cp_buf_printf(b, " %u", 1 + rnd(3));
			cp_buf_puts(b, ";\n");
		} else if (kind == 1) {
			cp_buf_printf(b, "act%u;\n", rnd(3));
		} else {
			unsigned p = rnd(nprops);

			cp_buf_printf(b, "switch (p%u) {\n", p);
			for (v = 0; v < dom[p]; v++) {
				cp_buf_printf(b, "case v%u:\n", v);
				if (rnd(6) == 0) {
					cp_buf_puts(b, "done;\n");
				} else {
					c = rnd(2);
					if (c)
						gen_block(b, depth + 1, nprops, dom, ncounters);
				}
			}
			cp_buf_puts(b, "}\n");
		}
	}
}

struct brute {
	size_t k, n, cap;
	uint32_t *vec;
	uint64_t *mult;
};

static int brute_add(void *ctx, const char *uop, const char *path,
		     const uint32_t *sig)
{
	struct brute *br = ctx;
	size_t j;

	(void)uop;
	(void)path;
	for (j = 0; j < br->n; j++)
		if (!memcmp(br->vec + j * br->k, sig, br->k * sizeof *sig)) {
			br->mult[j]++;
			return 0;
		}
	if (br->n == br->cap) {
		br->cap = br->cap ? 2 * br->cap : 64;
		br->vec = realloc(br->vec, br->cap * br->k * sizeof *br->vec);
		br->mult = realloc(br->mult, br->cap * sizeof *br->mult);
	}
	memcpy(br->vec + br->n * br->k, sig, br->k * sizeof *sig);
	br->mult[br->n++] = 1;
	return 0;
}

static void test_random_models_vs_brute_force(void)
{
	int trial, agree = 0;

	rng_state = 12345;
	for (trial = 0; trial < 300; trial++) {
		unsigned nprops = 1 + rnd(4), ncounters = 2 + rnd(4), i;
		unsigned dom[4];
		struct cp_buf b;
		struct udd_model *m = NULL;
		struct udd_sigset *s = NULL;
		struct brute br = { 0 };
		struct cp_error err;
		size_t j;
		int ok = 1;

		cp_buf_init(&b);
		gen_decls(&b, ncounters, nprops, dom);
		for (i = 0; i < 2; i++) {
			cp_buf_printf(&b, "uop u%u {\n", i);
			gen_block(&b, 0, nprops, dom, ncounters);
			cp_buf_puts(&b, "done;\n}\n");
		}
		cp_error_clear(&err);
		if (udd_model_parse_string("r.udd", b.data, b.len, &m, &err) ||
		    udd_sigset_build(m, 0, 0, &s, &err)) {
			/* generated models may contain unreachable code after a
			 * switch whose every case is done: that is a model error,
			 * not an enumeration result */
			CHECK(err.code == CP_ESEMANTIC);
			udd_model_free(m);
			cp_buf_release(&b);
			continue;
		}
		br.k = ncounters;
		CHECK(udd_model_each_path(m, 0, brute_add, &br, &err) == 0);
		if (br.n != udd_sigset_size(s))
			ok = 0;
		for (j = 0; ok && j < br.n; j++)
			if (!has_sig(s, br.vec + j * br.k, br.mult[j]))
				ok = 0;
		if (ok && !rows_match(m, 0, s))
			ok = 0;
		if (!ok)
			printf("  mismatch on model:\n%s\n", b.data);
		CHECK(ok);
		agree += ok;
		free(br.vec);
		free(br.mult);
		udd_sigset_free(s);
		udd_model_free(m);
		cp_buf_release(&b);
	}
	CHECKF(agree >= 200, "only %d random models compared", agree);
}

/* More distinct signatures than the limit: a clear error, not a crash. */
static void test_signature_limit(void)
{
	struct cp_buf b;
	struct udd_model *m = NULL;
	struct udd_sigset *s = NULL;
	struct cp_error err;
	int i;

	cp_buf_init(&b);
	for (i = 0; i < 12; i++)
		cp_buf_printf(&b, "counter c%d \"E%d\"; property p%d { a, b };\n", i, i, i);
	cp_buf_puts(&b, "uop u {\n");
	for (i = 0; i < 12; i++)
		cp_buf_printf(&b, "switch (p%d) { case a: incr c%d; case b: }\n", i, i);
	cp_buf_puts(&b, "done;\n}\n");
	cp_error_clear(&err);
	CHECK(udd_model_parse_string("lim.udd", b.data, b.len, &m, &err) == 0);
	CHECK(udd_sigset_build(m, 0, 1000, &s, &err) == CP_ELIMIT);
	CHECK(strstr(err.msg, "more than 1000 distinct signatures") != NULL);
	CHECK(s == NULL);
	CHECK(udd_sigset_build(m, 0, 0, &s, &err) == CP_OK);
	CHECK(s && udd_sigset_size(s) == 4096);
	udd_sigset_free(s);
	udd_model_free(m);
	cp_buf_release(&b);
}

/* Errors come back with file, line and column, and diagnostics list all
 * of them in source order. */
static void test_error_locations(void)
{
	const char *src = "counter a \"A\";\nuop u {\n  incr b;\n  switch (q) { case x: done; }\n}\n";
	struct udd_model *m = NULL;
	struct cp_error err;

	cp_error_clear(&err);
	CHECK(udd_model_parse_string("e.udd", src, strlen(src), &m, &err) == CP_ESEMANTIC);
	CHECK_STR(err.file, "e.udd");
	CHECK(err.line == 3 && err.col == 8);
	CHECK_STR(err.msg, "unknown counter 'b'");
	CHECK(m != NULL);
	if (m) {
		CHECK(udd_model_n_diagnostics(m) == 3);
		CHECK(strstr(udd_model_diagnostic(m, 2), "e.udd:4:11: error: unknown property 'q'") != NULL);
	}
	udd_model_free(m);
}

/* Walk every allocation: each failure gives CP_ENOMEM (or a success once
 * N passes the last allocation) and leaks nothing (ASan checks). */
static void test_allocation_failures(void)
{
	const char *src =
		"counter a \"A\"; counter b \"B\";\n"
		"property p { x, y, z }; property q { s, t };\n"
		"feature f;\n"
		"group g = a + b;\n"
		"uop u { switch (p) { case x: incr a; case y, z: incr b 2; }\n"
		"  if (f) { switch (q) { default: incr a; } }\n"
		"  switch (p) { case x: done; default: }\n"
		"  switch (q) { case s: incr b; case t: }\n"
		"  done; }\n";
	unsigned long n;
	int succeeded = 0, bad = 0;

	for (n = 1; n < 5000 && !succeeded; n++) {
		struct udd_model *m = NULL;
		struct udd_sigset *s = NULL;
		struct cp_error err;
		int rc;

		cp_error_clear(&err);
		cp_alloc_fail_at(n);
		rc = udd_model_parse_string("a.udd", src, strlen(src), &m, &err);
		if (!rc)
			rc = udd_sigset_build(m, 1, 0, &s, &err);
		if (!rc && udd_sigset_size(s) > 0)
			(void)udd_sigset_example(s, 0);
		cp_alloc_fail_at(0);
		if (rc == CP_OK)
			succeeded = 1;
		else if (rc != CP_ENOMEM)
			bad++;
		udd_sigset_free(s);
		udd_model_free(m);
	}
	CHECK(succeeded);
	CHECK(bad == 0);
}

static struct udd_model *parse_buf(struct cp_buf *b)
{
	struct udd_model *m = NULL;
	struct cp_error err;

	cp_error_clear(&err);
	if (b->failed || udd_model_parse_string("g.udd", b->data, b->len, &m, &err)) {
		printf("  parse failed: %s\n", err.msg);
		udd_model_free(m);
		m = NULL;
	}
	cp_buf_release(b);
	return m;
}

/* n properties decided and then decided again in reverse order, each
 * 'x' incrementing the one counter. */
static struct udd_model *redecide_model(int n)
{
	struct cp_buf b;
	int i;

	cp_buf_init(&b);
	cp_buf_puts(&b, "counter a \"A\";\n");
	for (i = 1; i <= n; i++)
		cp_buf_printf(&b, "property p%d { x, y };\n", i);
	cp_buf_puts(&b, "uop u {\n");
	for (i = 1; i <= n; i++)
		cp_buf_printf(&b, "  switch (p%d) { case x: incr a; case y: }\n", i);
	for (i = n; i >= 1; i--)
		cp_buf_printf(&b, "  switch (p%d) { case x: incr a; case y: }\n", i);
	cp_buf_puts(&b, "  done;\n}\n");
	return parse_buf(&b);
}

/* 20 properties decided and then decided again in reverse order: the
 * re-decisions tie each pair, so 2^20 μpaths make 21 signatures (2j
 * increments with multiplicity C(20, j)), found without visiting them. */
static void test_redecided_properties(void)
{
	struct udd_model *m;
	struct udd_sigset *s;
	uint64_t binom = 1;
	uint32_t want;
	int i, ok = 1;

	m = redecide_model(20);
	CHECK(m != NULL);
	if (!m)
		return;
	s = sigs(m, NULL);
	CHECK(s != NULL);
	if (s) {
		CHECK(udd_sigset_size(s) == 21);
		CHECK(udd_sigset_total_paths(s) == (uint64_t)1 << 20);
		for (i = 0; i <= 20; i++) {
			want = (uint32_t)(2 * i);
			if (!has_sig(s, &want, binom))
				ok = 0;
			binom = binom * (uint64_t)(20 - i) / (uint64_t)(i + 1);
		}
		CHECK(ok);
		CHECK(rows_match(m, 0, s));   /* 2^20 μpaths: handed over */
		/* the example of 2 increments decides one property x and
		 * reads it back: it increments twice */
		{
			const char *ex = udd_sigset_example(s, 1), *at;
			int incrs = 0;

			for (at = ex; (at = strstr(at, "+a")) != NULL; at++)
				incrs++;
			CHECKF(incrs == 2, "%s", ex);
			CHECK(strstr(ex, "=x") != NULL);
		}
	}
	udd_sigset_free(s);
	udd_model_free(m);
}

/* 300 nested switches, each level's 'x' with its own counter: 301
 * signatures, each once. */
static void test_nested_switches(void)
{
	struct cp_buf b;
	struct udd_model *m;
	struct udd_sigset *s;
	uint32_t *want = calloc(300, sizeof *want);
	int i, ok = 1;

	cp_buf_init(&b);
	for (i = 0; i < 300; i++)
		cp_buf_printf(&b, "counter c%d \"C%d\"; property p%d { x, y };\n", i, i, i);
	cp_buf_puts(&b, "uop u {\n");
	for (i = 0; i < 300; i++)
		cp_buf_printf(&b, "switch (p%d) { case x: incr c%d; case y:\n", i, i);
	for (i = 0; i < 300; i++)
		cp_buf_puts(&b, "}");
	cp_buf_puts(&b, "\ndone;\n}\n");
	m = parse_buf(&b);
	CHECK(m != NULL && want != NULL);
	if (!m || !want) {
		free(want);
		udd_model_free(m);
		return;
	}
	s = sigs(m, NULL);
	CHECK(s != NULL);
	if (s) {
		CHECK(udd_sigset_size(s) == 301);
		CHECK(udd_sigset_total_paths(s) == 301);
		if (!has_sig(s, want, 1))
			ok = 0;
		for (i = 0; i < 300; i++) {
			want[i] = 1;
			if (!has_sig(s, want, 1))
				ok = 0;
			want[i] = 0;
		}
		CHECK(ok);
		CHECK(rows_match(m, 0, s));
		CHECK_STR(udd_sigset_example(s, 300), "p0=x, +c0, done");
	}
	free(want);
	udd_sigset_free(s);
	udd_model_free(m);
}

/* Counts are exact: beyond 2^32 - 1 on one μpath is a located error,
 * in the enumeration and in the walk over every path. */
static int ignore_path(void *ctx, const char *uop, const char *path,
		       const uint32_t *sig)
{
	(void)ctx;
	(void)uop;
	(void)path;
	(void)sig;
	return 0;
}

static void test_count_overflow(void)
{
	struct udd_model *m = parse(
		"counter a \"A\"; counter b \"B\";\n"
		"property p { x, y };\n"
		"uop u {\n"
		"  incr a 4294967295;\n"
		"  switch (p) { case x: incr b; case y: incr a; }\n"
		"  done;\n"
		"}\n");
	struct udd_model *fits = parse(
		"counter a \"A\";\n"
		"uop u { incr a 4294967294; incr a; done; }\n");
	struct udd_sigset *s = NULL;
	struct cp_error err;

	CHECK(m != NULL && fits != NULL);
	if (m) {
		cp_error_clear(&err);
		/* the enumeration adds from the end: it finds the overflow
		 * at the first increment; the walk at the one that passes */
		CHECK(udd_sigset_build(m, 0, 0, &s, &err) == CP_ESEMANTIC);
		CHECK(s == NULL);
		CHECK(err.line == 4 && err.col == 3);
		CHECK(strstr(err.detail, "incr a 4294967295;") != NULL);
		CHECK_STR(err.msg, "counter 'a' would count more than 4294967295 on one μpath");
		/* the rows alone: the walk hands over, the enumeration reports */
		{
			uint32_t *v = NULL;
			size_t n = 0;

			cp_error_clear(&err);
			CHECK(udd_signatures_build(m, 0, 0, &v, &n, &err) == CP_ESEMANTIC);
			CHECK(v == NULL && n == 0);
			CHECK(err.line == 4 && err.col == 3);
			CHECK_STR(err.msg, "counter 'a' would count more than 4294967295 on one μpath");
		}
		cp_error_clear(&err);
		CHECK(udd_model_each_path(m, 0, ignore_path, NULL, &err) == CP_ESEMANTIC);
		CHECK(err.line == 5 && err.col == 40);
		CHECK_STR(err.msg, "counter 'a' would count more than 4294967295 on one μpath");
	}
	if (fits) {
		s = sigs(fits, NULL);
		CHECK(s && udd_sigset_signature(s, 0)[0] == 4294967295u);
		udd_sigset_free(s);
	}
	udd_model_free(m);
	udd_model_free(fits);
}

/* 70 binary decisions: 2^70 μpaths saturate the count at 2^64 - 1,
 * which means "at least". */
static void test_path_count_saturates(void)
{
	struct cp_buf b;
	struct udd_model *m;
	struct udd_sigset *s;
	int i;

	cp_buf_init(&b);
	cp_buf_puts(&b, "counter a \"A\";\n");
	for (i = 0; i < 70; i++)
		cp_buf_printf(&b, "property p%d { x, y };\n", i);
	cp_buf_puts(&b, "uop u {\n");
	for (i = 0; i < 70; i++)
		cp_buf_printf(&b, "  switch (p%d) { case x: case y: }\n", i);
	cp_buf_puts(&b, "  incr a;\n  done;\n}\n");
	m = parse_buf(&b);
	CHECK(m != NULL);
	if (!m)
		return;
	s = sigs(m, NULL);
	CHECK(s && udd_sigset_size(s) == 1);
	CHECK(s && udd_sigset_total_paths(s) == UINT64_MAX);
	CHECK(s && udd_sigset_multiplicity(s, 0) == UINT64_MAX);
	udd_sigset_free(s);
	udd_model_free(m);
}

/* A signature two uops share is listed once, with each uop's μpaths. */
static void test_signature_shared_by_uops(void)
{
	struct udd_model *m = parse(
		"counter a \"A\"; counter b \"B\";\n"
		"property p { x, y, z };\n"
		"uop load { switch (p) { case x: incr a; default: incr b; } done; }\n"
		"uop store { incr b; done; }\n");
	struct udd_sigset *s;

	CHECK(m != NULL);
	if (!m)
		return;
	s = sigs(m, NULL);
	CHECK(s != NULL);
	if (s) {
		CHECK(udd_sigset_size(s) == 2);
		/* sorted by counts: [0] b, load and store; [1] a, load */
		CHECK(udd_sigset_signature(s, 0)[1] == 1);
		CHECK(udd_sigset_uop_count(s, 0) == 2);
		CHECK(udd_sigset_uop_count(s, 1) == 1);
		CHECK_STR(udd_sigset_uop_name(s, 0, 0), "load");
		CHECK(udd_sigset_uop_paths(s, 0, 0) == 2);
		CHECK_STR(udd_sigset_uop_name(s, 0, 1), "store");
		CHECK(udd_sigset_uop_paths(s, 0, 1) == 1);
		CHECK(udd_sigset_multiplicity(s, 0) == 3);
		CHECK_STR(udd_sigset_uop_name(s, 1, 0), "load");
		CHECK(udd_sigset_uop_paths(s, 1, 0) == 1);
	}
	udd_sigset_free(s);
	udd_model_free(m);
}

/* ---- random models of re-decisions: pending decisions vs brute force ---- */

/* Switches whose cases only increment (so they leave their property
 * pending), re-decided later or nested in other switches' cases (where
 * the property stops being read on some paths). */
static void gen_redecide_body(struct cp_buf *b, int depth, unsigned nprops,
			      const unsigned *dom, unsigned ncounters);

static void gen_redecide_block(struct cp_buf *b, int depth, unsigned nprops,
			       const unsigned *dom, unsigned ncounters)
{
	unsigned n = 1 + rnd(4), i, v;

	for (i = 0; i < n; i++) {
		unsigned p = rnd(nprops), uncovered = 0;

		cp_buf_printf(b, "switch (p%u) {\n", p);
		for (v = 0; v < dom[p]; v++) {
			if (rnd(3) == 0) {
				uncovered++;
				continue;
			}
			cp_buf_printf(b, "case v%u:\n", v);
			gen_redecide_body(b, depth, nprops, dom, ncounters);
		}
		if (uncovered) {
			cp_buf_puts(b, "default:\n");
			gen_redecide_body(b, depth, nprops, dom, ncounters);
		}
		cp_buf_puts(b, "}\n");
	}
}

/* increments, and now and then a nested block */
static void gen_redecide_body(struct cp_buf *b, int depth, unsigned nprops,
			      const unsigned *dom, unsigned ncounters)
{
	unsigned c;

	for (c = rnd(3); c > 0; c--)
		cp_buf_printf(b, "incr c%u%s;\n", rnd(ncounters), rnd(4) ? "" : " 2");
	if (depth < 2 && rnd(4) == 0)
		gen_redecide_block(b, depth + 1, nprops, dom, ncounters);
}

struct walked {
	size_t k, n, cap;
	uint32_t *vec;
	char **path;
};

static int walked_add(void *ctx, const char *uop, const char *path,
		      const uint32_t *sig)
{
	struct walked *w = ctx;

	(void)uop;
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 64;
		w->vec = realloc(w->vec, w->cap * w->k * sizeof *w->vec);
		w->path = realloc(w->path, w->cap * sizeof *w->path);
	}
	memcpy(w->vec + w->n * w->k, sig, w->k * sizeof *sig);
	w->path[w->n++] = strdup(path);
	return 0;
}

static void test_random_redecisions_vs_brute_force(void)
{
	int trial, agree = 0;

	rng_state = 4242;
	for (trial = 0; trial < 400; trial++) {
		unsigned nprops = 2 + rnd(4), ncounters = 1 + rnd(4);
		unsigned dom[5];
		struct cp_buf b;
		struct udd_model *m = NULL;
		struct udd_sigset *s = NULL;
		struct walked w = { 0 };
		struct cp_error err;
		size_t j, x;
		int ok = 1;

		cp_buf_init(&b);
		gen_decls(&b, ncounters, nprops, dom);
		cp_buf_puts(&b, "uop u {\n");
		gen_redecide_block(&b, 0, nprops, dom, ncounters);
		gen_redecide_block(&b, 1, nprops, dom, ncounters);
		cp_buf_puts(&b, "done;\n}\n");
		cp_error_clear(&err);
		if (udd_model_parse_string("r.udd", b.data, b.len, &m, &err) ||
		    udd_sigset_build(m, 0, 0, &s, &err)) {
			/* a generated switch may list every value and a default */
			udd_model_free(m);
			cp_buf_release(&b);
			continue;
		}
		w.k = ncounters;
		CHECK(udd_model_each_path(m, 0, walked_add, &w, &err) == 0);
		/* every signature and multiplicity, and each example is a real
		 * μpath with that signature */
		{
			uint64_t total = 0;
			size_t distinct = 0;

			for (x = 0; x < w.n; x++) {
				size_t y;

				for (y = 0; y < x; y++)
					if (!memcmp(w.vec + y * w.k, w.vec + x * w.k, w.k * sizeof *w.vec))
						break;
				distinct += y == x;
			}
			if (distinct != udd_sigset_size(s))
				ok = 0;
			for (j = 0; ok && j < udd_sigset_size(s); j++) {
				const char *ex = udd_sigset_example(s, j);
				uint64_t count = 0;
				int ex_ok = 0;

				for (x = 0; x < w.n; x++)
					if (!memcmp(w.vec + x * w.k, udd_sigset_signature(s, j),
						    w.k * sizeof *w.vec)) {
						count++;
						ex_ok |= !strcmp(w.path[x], ex);
					}
				if (count != udd_sigset_multiplicity(s, j) || !ex_ok)
					ok = 0;
				total += count;
			}
			if (ok && total != udd_sigset_total_paths(s))
				ok = 0;
			if (ok && !rows_match(m, 0, s))
				ok = 0;
		}
		if (!ok)
			printf("  mismatch on model:\n%s\n", b.data);
		CHECK(ok);
		agree += ok;
		for (x = 0; x < w.n; x++)
			free(w.path[x]);
		free(w.path);
		free(w.vec);
		udd_sigset_free(s);
		udd_model_free(m);
		cp_buf_release(&b);
	}
	CHECKF(agree >= 250, "only %d random models compared", agree);
}

static int row_cmp_k(const void *a, const void *b, void *ctx)
{
	return memcmp(a, b, *(const size_t *)ctx * sizeof(uint32_t));
}

/* udd_signatures_build (the walk over μpaths) gives exactly
 * udd_sigset_build's rows (the memoised enumeration), as a set, on every
 * bundled model: every feature set of the small ones and every fifth of
 * the Haswell family's 1024; and the same limit. */
static void test_rows_only(void)
{
	static const char *const files[] = {
		"models/haswell/mmu.udd", "models/examples/big.udd",
		"models/examples/walk_basic.udd", "models/examples/walk_pde_early.udd",
		"models/linux/faults.udd", "models/linux/faults_wrong.udd",
	};
	struct udd_model *m = NULL;
	struct cp_error err;
	udd_features sel;
	size_t f, nf, checked = 0, bad = 0;

	for (f = 0; f < sizeof files / sizeof files[0]; f++) {
		udd_features step;

		cp_error_clear(&err);
		if (udd_model_parse_file(files[f], &m, &err)) {
			CHECKF(0, "parse %s: %s", files[f], err.msg);
			udd_model_free(m);
			continue;
		}
		nf = udd_model_n_features(m);
		step = nf > 8 ? 5 : 1;
		for (sel = 0; sel < ((udd_features)1 << nf); sel += step) {
			struct udd_sigset *s = NULL;

			if (udd_sigset_build(m, sel, 0, &s, &err)) {
				CHECKF(0, "%s: %s", files[f], err.msg);
				break;
			}
			if (!rows_match(m, sel, s)) {
				printf("  %s, features %#llx: rows differ\n", files[f],
				       (unsigned long long)sel);
				bad++;
			}
			udd_sigset_free(s);
			checked++;
		}
		if (f == 0) {
			/* the same limit: all features have more than 1,000 signatures */
			uint32_t *v = NULL;
			size_t n;

			sel = ((udd_features)1 << nf) - 1;
			CHECK(udd_signatures_build(m, sel, 1000, &v, &n, &err) == CP_ELIMIT);
			CHECK(v == NULL);
		}
		udd_model_free(m);
		m = NULL;
	}
	CHECK(bad == 0);
	CHECKF(checked >= 205 + 5, "only %zu feature sets compared", checked);
}

/* Too many μpaths for the walk (2^23, from 23 properties decided and
 * decided again): it hands over to the enumeration, which finds the 24
 * signatures.  (Also with 2^20: test_redecided_properties.) */
static void test_rows_hand_over(void)
{
	struct udd_model *m;
	struct cp_error err;
	uint32_t *v = NULL;
	size_t n = 0, j;
	int seen[24] = { 0 }, ok = 1;

	m = redecide_model(23);
	CHECK(m != NULL);
	if (!m)
		return;
	cp_error_clear(&err);
	CHECK(udd_signatures_build(m, 0, 0, &v, &n, &err) == CP_OK);
	CHECK(n == 24);
	for (j = 0; v && j < n; j++) {
		if (v[j] % 2 || v[j] > 46 || seen[v[j] / 2]++)
			ok = 0;
	}
	CHECK(ok);
	cp_free(v);
	udd_model_free(m);
}

int main(void)
{
	check_prog = "udd";
	RUN(test_decided_property_follows);
	RUN(test_branching_and_multiplicity);
	RUN(test_features);
	RUN(test_random_models_vs_brute_force);
	RUN(test_signature_limit);
	RUN(test_error_locations);
	RUN(test_allocation_failures);
	RUN(test_redecided_properties);
	RUN(test_nested_switches);
	RUN(test_count_overflow);
	RUN(test_path_count_saturates);
	RUN(test_signature_shared_by_uops);
	RUN(test_random_redecisions_vs_brute_force);
	RUN(test_rows_only);
	RUN(test_rows_hand_over);
	return check_summary();
}
