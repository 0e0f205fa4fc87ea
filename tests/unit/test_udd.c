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
		unsigned nprops = 1 + rnd(4), ncounters = 2 + rnd(4), i, v;
		unsigned dom[4];
		struct cp_buf b;
		struct udd_model *m = NULL;
		struct udd_sigset *s = NULL;
		struct brute br = { 0 };
		struct cp_error err;
		size_t j;
		int ok = 1;

		cp_buf_init(&b);
		for (i = 0; i < ncounters; i++)
			cp_buf_printf(&b, "counter c%u \"E%u\";\n", i, i);
		for (i = 0; i < nprops; i++) {
			dom[i] = 1 + rnd(3);
			cp_buf_printf(&b, "property p%u {", i);
			for (v = 0; v < dom[i]; v++)
				cp_buf_printf(&b, "%s v%u", v ? "," : "", v);
			cp_buf_puts(&b, " };\n");
		}
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
	return check_summary();
}
