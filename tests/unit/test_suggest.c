/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_suggest.c: the suggestion search (explore/suggest.c) on
 * synthetic families whose missing μpath is known: two different single
 * μpaths that each explain the data (both listed), data that need more
 * new counters than two new μpaths within two edits can carry (refuted
 * by pricing alone), data that the certificates allow sets for but that
 * no set fits (refuted by the checks), two observations of which no set
 * explains more than one (the best sets printed as "explains 1 of 2"),
 * and a suggestion's μDD fragment
 * pasted into the model, which then has the new signature and fits. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/unit/check.h"

#include "explore/explore.h"
#include "pipeline/pipeline.h"
#include "stats/region.h"

/* nobs observations ("run", then "run2" ...), 60 intervals of 1 s each:
 * rate[o * n + e] per second of event "SYN.<names[e]>" in observation o,
 * with ±0.2% of deterministic noise. */
static int dataset(const char *const *names, const double *rate, size_t n, size_t nobs,
		   struct stats_dataset **d)
{
	struct cp_error err;
	struct cp_buf b;
	unsigned seed = 11;
	size_t i, e, o;
	int rc;

	cp_buf_init(&b);
	cp_buf_puts(&b, "observation,interval,event,value,enabled_ns,running_ns\n");
	/* "%.0zu" of 0 prints nothing: "run", "run2", "run3" ... */
	for (o = 0; o < nobs; o++)
		for (i = 0; i < 60; i++)
			for (e = 0; e < n; e++) {
				double noise;

				seed = seed * 1103515245u + 12345u;
				noise = ((double)((seed >> 8) % 2001) - 1000.0) / 1000.0;
				cp_buf_printf(&b, "run%.0zu,%zu,SYN.%s,%.0f,1000000000,1000000000\n",
					      o ? o + 1 : 0, i, names[e],
					      rate[o * n + e] * (1 + 0.002 * noise));
			}
	rc = stats_dataset_parse("syn.csv", b.data, b.len, d, NULL, &err);
	if (rc)
		printf("  %s\n", err.msg);
	cp_buf_release(&b);
	return rc;
}

struct run {
	struct udd_model *m;
	struct stats_dataset *d;
	struct pipe_data *pd;
	struct explore_suggest *s;
};

static void run_release(struct run *r)
{
	explore_suggest_free(r->s);
	pipe_data_free(r->pd);
	stats_dataset_free(r->d);
	udd_model_free(r->m);
	feas_thread_end();
	memset(r, 0, sizeof *r);
}

/* Parse the model, select `with`, and suggest (N = 2, E = 2) on nobs
 * observations (dataset). */
static int run_suggest_obs(struct run *r, const char *src, const char *with,
			   const char *const *names, const double *rate, size_t n,
			   size_t nobs)
{
	struct explore_suggest_options o = { 2, 2, 5, 0, 1, 0 };
	struct pipe_options po;
	udd_features sel = 0;
	struct cp_error err;

	memset(r, 0, sizeof *r);
	memset(&po, 0, sizeof po);
	cp_error_clear(&err);
	if (udd_model_parse_string("syn.udd", src, strlen(src), &r->m, &err) ||
	    udd_model_select(r->m, with, &sel, &err) || dataset(names, rate, n, nobs, &r->d) ||
	    pipe_data_new(r->m, r->d, &po, &r->pd, &err) ||
	    explore_suggest_run(r->m, sel, r->pd, NULL, &o, &r->s, &err)) {
		printf("  %s\n", err.msg);
		return -1;
	}
	return 0;
}

/* The same on one observation. */
static int run_suggest(struct run *r, const char *src, const char *with,
		       const char *const *names, const double *rate, size_t n)
{
	return run_suggest_obs(r, src, with, names, rate, n, 1);
}

/* Does suggestion x hold exactly one new μpath, with these counts? */
static int single_is(const struct explore_suggestion *x, const uint32_t *t, size_t k)
{
	return x->n_new == 1 && !memcmp(x->paths[0].counts, t, k * sizeof *t);
}

/* Are the suggestions ranked as docs/manual/suggest.md says: explains the most,
 * then fewer new signatures, fewer edits, the smaller forced flow (to
 * the 4 digits printed), fewer counters touched?  0 at the first pair
 * out of order. */
static int ranked(const struct explore_suggest *s)
{
	size_t i;

	for (i = 1; i < explore_suggest_n(s); i++) {
		const struct explore_suggestion *x = explore_suggest_at(s, i - 1);
		const struct explore_suggestion *y = explore_suggest_at(s, i);

		if (x->explains != y->explains) {
			if (x->explains < y->explains)
				return 0;
			continue;
		}
		if (x->n_new != y->n_new) {
			if (x->n_new > y->n_new)
				return 0;
			continue;
		}
		if (x->edits != y->edits) {
			if (x->edits > y->edits)
				return 0;
			continue;
		}
		if (x->flow_defined && y->flow_defined &&
		    fabs(x->flow_lo - y->flow_lo) > 1e-4 * fmax(x->flow_lo, y->flow_lo)) {
			if (x->flow_lo > y->flow_lo)
				return 0;
			continue;
		}
		if (x->flow_defined == y->flow_defined && x->touched > y->touched)
			return 0;
	}
	return 1;
}

/* c comes either with a (the μpath "a" gains c) or with b: two single
 * μpaths, one edit each from the model's, and each explains the data. */
static const char two_ways[] =
	"counter a \"SYN.A\";\ncounter b \"SYN.B\";\ncounter c \"SYN.C\";\n"
	"property kind { pa, pb, pab };\n"
	"uop work {\n"
	"\tswitch (kind) {\n"
	"\tcase pa:\n"
	"\t\tincr a;\n"
	"\tcase pb:\n"
	"\t\tincr b;\n"
	"\tcase pab:\n"
	"\t\tincr a, b;\n"
	"\t}\n"
	"\tdone;\n"
	"}\n";

static void test_two_single_paths(void)
{
	static const char *const names[] = { "A", "B", "C" };
	static const double rate[] = { 4000, 6000, 1000 };
	static const uint32_t ac[] = { 1, 0, 1 }, bc[] = { 0, 1, 1 };
	struct run r;
	size_t i, at_ac = 0, at_bc = 0;

	if (run_suggest(&r, two_ways, "", names, rate, 3)) {
		CHECK(0);
		goto out;
	}
	CHECK(explore_suggest_infeasible(r.s) == 1);
	CHECK(explore_suggest_explains_all(r.s));
	CHECK(ranked(r.s));
	for (i = 0; i < explore_suggest_n(r.s); i++) {
		const struct explore_suggestion *x = explore_suggest_at(r.s, i);

		if (single_is(x, ac, 3))
			at_ac = i + 1;
		if (single_is(x, bc, 3))
			at_bc = i + 1;
	}
	/* both listed, both proven on every observation, one edit each */
	CHECKF(at_ac && at_bc, "{a,c} at %zu, {b,c} at %zu", at_ac, at_bc);
	if (at_ac && at_bc) {
		const struct explore_suggestion *x = explore_suggest_at(r.s, at_ac - 1);
		const struct explore_suggestion *y = explore_suggest_at(r.s, at_bc - 1);

		CHECK(x->explains == 1 && x->of == 1 && y->explains == 1 && y->of == 1);
		CHECK(x->edits == 1 && y->edits == 1);
		CHECK_STR(x->paths[0].edit, "+c");
		CHECK(x->paths[0].flow_defined && x->paths[0].flow_lo > 0);
		/* 1000 {a,c} a second; a and b leave 3000 - y {a}, 6000 - y
		 * {b} and y {a,b} for y in [0, 3000]: 7000 to 10000 work μops
		 * in all, so the share is 1/10 to 1/7, up to the noise */
		CHECKF(0.098 < x->paths[0].flow_lo && x->paths[0].flow_lo <= 0.1 &&
		       1.0 / 7 <= x->paths[0].flow_hi && x->paths[0].flow_hi < 0.146,
		       "[%g, %g]", x->paths[0].flow_lo, x->paths[0].flow_hi);
	}
out:
	run_release(&r);
}

/* Five new counters, all at once: two new μpaths within two edits carry
 * at most four of them, so no set breaks every violated constraint. */
static const char five_new[] =
	"counter a \"SYN.A\";\ncounter b \"SYN.B\";\ncounter d \"SYN.D\";\n"
	"counter e \"SYN.E\";\ncounter f \"SYN.F\";\ncounter g \"SYN.G\";\n"
	"counter h \"SYN.H\";\n"
	"property kind { pa, pab };\n"
	"uop work {\n"
	"\tswitch (kind) {\n"
	"\tcase pa:\n"
	"\t\tincr a;\n"
	"\tcase pab:\n"
	"\t\tincr a, b;\n"
	"\t}\n"
	"\tdone;\n"
	"}\n";

static void test_none_by_pricing(void)
{
	static const char *const names[] = { "A", "B", "D", "E", "F", "G", "H" };
	static const double rate[] = { 1000, 500, 300, 300, 300, 300, 300 };
	struct run r;
	struct cp_buf b;

	if (run_suggest(&r, five_new, "", names, rate, 7)) {
		CHECK(0);
		goto out;
	}
	CHECK(!explore_suggest_explains_all(r.s));
	CHECK(explore_suggest_n_violated(r.s) == 5);
	cp_buf_init(&b);
	explore_suggest_report(r.s, 0, 0, &b);
	CHECKF(b.data && strstr(b.data, "no set of at most 2 new μpaths within 2 edits explains "
				"the 1 observation: no such set breaks every violated constraint"),
	       "%s", b.data ? b.data : "");
	cp_buf_release(&b);
	cp_buf_init(&b);
	explore_suggest_json(r.s, "m", "d", &b);
	CHECK(b.data && strstr(b.data, "\"complete\": true, \"pruned_by_pricing\": true"));
	CHECK(b.data && strstr(b.data, "\"explains_all\": false"));
	cp_buf_release(&b);
out:
	run_release(&r);
}

/* c, d and e beyond a and b, in proportions 2:4:7: every pair of the
 * small signatures on c, d, e ties two of them together (c = d, d = c +
 * e, e = c + d, ...), and those with a or b carry at most their ten a
 * second.  The certificates allow pairs; the checks refute them all. */
static const char cde[] =
	"counter a \"SYN.A\";\ncounter b \"SYN.B\";\ncounter c \"SYN.C\";\n"
	"counter d \"SYN.D\";\ncounter e \"SYN.E\";\n"
	"property kind { pa, pb };\n"
	"uop work {\n"
	"\tswitch (kind) {\n"
	"\tcase pa:\n"
	"\t\tincr a;\n"
	"\tcase pb:\n"
	"\t\tincr b;\n"
	"\t}\n"
	"\tdone;\n"
	"}\n";

static void test_none_by_checks(void)
{
	static const char *const names[] = { "A", "B", "C", "D", "E" };
	static const double rate[] = { 10, 10, 1000, 2000, 3500 };
	struct run r;
	struct cp_buf b;

	if (run_suggest(&r, cde, "", names, rate, 5)) {
		CHECK(0);
		goto out;
	}
	CHECK(!explore_suggest_explains_all(r.s));
	CHECK(explore_suggest_n(r.s) == 0);   /* one observation: none explains part */
	cp_buf_init(&b);
	explore_suggest_report(r.s, 0, 0, &b);
	CHECKF(b.data && strstr(b.data, "explains the 1 observation: every set that breaks every "
				"violated constraint was checked"), "%s", b.data ? b.data : "");
	cp_buf_release(&b);
	cp_buf_init(&b);
	explore_suggest_json(r.s, "m", "d", &b);
	CHECK(b.data && strstr(b.data, "\"complete\": true, \"pruned_by_pricing\": false"));
	cp_buf_release(&b);
out:
	run_release(&r);
}

/* Two observations of five_new's family: in "run" d comes with a (one
 * new μpath, {a,d} or {a,b,d}, explains it); in "run2" the four other
 * counters come too, five new counters that no two new μpaths within two
 * edits carry.  No set explains both, and the best ones are printed as
 * explaining 1 of the 2, naming run2. */
static void test_explains_part(void)
{
	static const char *const names[] = { "A", "B", "D", "E", "F", "G", "H" };
	static const double rate[] = { 4000, 1000, 500, 0, 0, 0, 0,
				       4000, 1000, 500, 300, 300, 300, 300 };
	static const uint32_t ac[] = { 1, 0, 1, 0, 0, 0, 0 };
	struct run r;
	struct cp_buf b;
	size_t i, at_ac = 0;

	if (run_suggest_obs(&r, five_new, "", names, rate, 7, 2)) {
		CHECK(0);
		goto out;
	}
	CHECK(explore_suggest_infeasible(r.s) == 2);
	CHECK(!explore_suggest_explains_all(r.s));
	CHECK(explore_suggest_n(r.s) > 0);
	CHECK(ranked(r.s));
	for (i = 0; i < explore_suggest_n(r.s); i++) {
		const struct explore_suggestion *x = explore_suggest_at(r.s, i);

		CHECKF(x->explains <= 1 && x->of == 2, "%zu: %zu of %zu", i, x->explains, x->of);
		if (single_is(x, ac, 7))
			at_ac = i + 1;
	}
	CHECKF(at_ac == 1 || at_ac == 2, "{a,d} at %zu", at_ac);
	if (explore_suggest_n(r.s)) {
		const struct explore_suggestion *x = explore_suggest_at(r.s, 0);

		CHECK(x->explains == 1 && x->n_new == 1 && x->edits == 1);
		CHECK(x->n_unexplained == 1 && x->unexplained && !strcmp(x->unexplained[0], "run2"));
	}
	cp_buf_init(&b);
	explore_suggest_report(r.s, 0, 0, &b);
	CHECKF(b.data && strstr(b.data, "explains all 2 observations: no such set breaks every "
				"violated constraint; the sets that explain the most found:") &&
	       strstr(b.data, "suggestion 1: explains 1 of 2 observations (1 refutes it at 99% over "
			      "them: run2)"),
	       "%s", b.data ? b.data : "");
	cp_buf_release(&b);
out:
	run_release(&r);
}

/* The first suggestion's fragment pasted where it says (after the line
 * of its step) makes a model with the new signature, which fits. */
static void test_fragment_compiles(void)
{
	static const char *const names[] = { "A", "B", "C" };
	static const double rate[] = { 4000, 6000, 1000 };
	const struct explore_suggestion *x;
	struct run r;
	struct udd_model *m2 = NULL;
	struct udd_sigset *ss = NULL;
	struct cp_buf src;
	struct cp_error err;
	udd_features sel = 0;
	const char *p;
	unsigned line = 1;
	size_t j;
	int found = 0;

	cp_buf_init(&src);
	if (run_suggest(&r, two_ways, "", names, rate, 3) || !explore_suggest_n(r.s)) {
		CHECK(0);
		goto out;
	}
	x = explore_suggest_at(r.s, 0);
	CHECK(x->n_new == 1 && x->paths[0].line > 0);
	/* declarations first, then the model with the block after the line */
	for (p = x->paths[0].fragment; *p && strncmp(p, "//", 2); p = strchr(p, '\n') + 1)
		cp_buf_append(&src, p, (size_t)(strchr(p, '\n') + 1 - p));
	for (p = two_ways; *p; p = strchr(p, '\n') + 1, line++) {
		cp_buf_append(&src, p, (size_t)(strchr(p, '\n') + 1 - p));
		if (line == x->paths[0].line)
			cp_buf_puts(&src, strstr(x->paths[0].fragment, "if ("));
	}
	cp_error_clear(&err);
	CHECKF(udd_model_parse_string("pasted.udd", src.data, src.len, &m2, &err) == CP_OK,
	       "%s\n%s", err.msg, src.data);
	CHECK(udd_model_select(m2, "suggest_1", &sel, &err) == CP_OK);
	CHECK(udd_sigset_build(m2, sel, 0, &ss, &err) == CP_OK);
	for (j = 0; ss && j < udd_sigset_size(ss); j++)
		found |= !memcmp(udd_sigset_signature(ss, j), x->paths[0].counts,
				 3 * sizeof *x->paths[0].counts);
	CHECK(found);
out:
	udd_sigset_free(ss);
	udd_model_free(m2);
	cp_buf_release(&src);
	run_release(&r);
}

/* The search is not fooled by a model that fits: nothing to suggest. */
static void test_model_fits(void)
{
	static const char *const names[] = { "A", "B", "C" };
	static const double rate[] = { 4000, 6000, 0.001 };
	struct run r;

	if (run_suggest(&r, two_ways, "", names, rate, 3)) {
		CHECK(0);
		goto out;
	}
	CHECK(explore_suggest_infeasible(r.s) == 0);
	CHECK(explore_suggest_n(r.s) == 0);
	CHECK(explore_suggest_explains_all(r.s));
out:
	run_release(&r);
}

int main(void)
{
	check_prog = "test_suggest";
	RUN(test_two_single_paths);
	RUN(test_none_by_pricing);
	RUN(test_none_by_checks);
	RUN(test_explains_part);
	RUN(test_fragment_compiles);
	RUN(test_model_fits);
	return check_summary();
}
