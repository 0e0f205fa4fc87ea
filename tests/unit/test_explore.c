/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_explore.c: the feature-space search on synthetic model
 * families whose answers are known.  A synthetic family has constraints
 * c0..c15 (bits); feature f removes the constraints in relax[f] when its
 * prerequisite features are all on; an observation is infeasible when it
 * breaks a constraint the model still has. */
#include <stdio.h>
#include <string.h>

#include "explore/explore.h"
#include "tests/unit/check.h"

#define NF 6
enum { F_PREFETCH, F_MERGE, F_PDE_EARLY, F_ABORT, F_BYPASS, F_REPLAY };
static const char *const names[NF] = {
	"prefetch", "merge", "pde_early", "abort", "bypass", "replay"
};
#define BIT(f) ((udd_features)1 << (f))

enum {
	C_REF_UPPER = 1 << 0,   /* walk_ref <= 4 * walks      (prefetch) */
	C_RETIRED = 1 << 1,     /* retired_stlb_miss <= done  (merge) */
	C_PDE = 1 << 2,         /* pde_miss <= causes_walk    (pde_early, needs merge) */
	C_DONE = 1 << 3,        /* causes_walk = walk_done    (abort) */
	C_REF_LOWER = 1 << 4,   /* walk_ref >= walk_done      (bypass; replay needs merge) */
};

struct family {
	unsigned relax[NF];
	unsigned impose[NF];             /* constraints a feature adds (shrinks) */
	udd_features needs[NF];          /* prerequisites of each feature */
	size_t n_obs;
	unsigned obs[32];                /* constraints each observation breaks */
	size_t calls;                    /* evaluate() calls */
	udd_features evaluated[256];     /* to catch a model built twice */
	int fail_at;                     /* fail the Nth evaluate (0 = never) */
};

static const char *const constraint_text[5] = {
	"walk_ref <= 4 walks", "retired_stlb_miss <= walk_done",
	"pde_miss <= causes_walk", "causes_walk = walk_done",
	"walk_ref >= walk_done",
};

static unsigned constraints_of(const struct family *fam, udd_features sel)
{
	unsigned c = 0x1f;
	size_t f;

	for (f = 0; f < NF; f++)
		if ((sel & BIT(f)) && (sel & fam->needs[f]) == fam->needs[f])
			c &= ~fam->relax[f];
	for (f = 0; f < NF; f++)
		if (sel & BIT(f))
			c |= fam->impose[f];
	return c;
}

static int synth_evaluate(void *ctx, udd_features sel, struct explore_eval *out,
			  struct cp_error *err)
{
	struct family *fam = ctx;
	unsigned c = constraints_of(fam, sel);
	size_t i, k, count[5] = { 0 };

	for (i = 0; i < fam->calls && i < 256; i++)
		CHECKF(fam->evaluated[i] != sel, "model %#llx built twice",
		       (unsigned long long)sel);
	if (fam->calls >= 256)
		for (i = 0; i < 256; i++)
			CHECKF(fam->evaluated[i] != sel, "model %#llx built twice",
			       (unsigned long long)sel);
	if (fam->calls < 256)
		fam->evaluated[fam->calls] = sel;
	fam->calls++;
	if (fam->fail_at && (int)fam->calls == fam->fail_at)
		return cp_error_set(err, CP_ENUMERIC, "synthetic failure");
	out->n_observations = fam->n_obs;
	for (i = 0; i < fam->n_obs; i++) {
		if (!(fam->obs[i] & c))
			continue;
		out->n_infeasible++;
		for (k = 0; k < 5; k++)
			count[k] += (fam->obs[i] & c & (1u << k)) != 0;
	}
	for (k = 0; k < 5; k++)
		if (count[k] && explore_eval_add_violation(out, constraint_text[k],
							   count[k]))
			return cp_error_set(err, CP_ENOMEM, "out of memory");
	return 0;
}

static int synth_compare(void *ctx, udd_features parent, udd_features child,
			 const struct explore_eval *pe, int *grows,
			 unsigned char *relaxed, struct cp_error *err)
{
	struct family *fam = ctx;
	unsigned cp = constraints_of(fam, parent), cc = constraints_of(fam, child);
	size_t i, k;

	(void)err;
	*grows = cc != cp;
	for (i = 0; i < pe->n_violations; i++)
		for (k = 0; k < 5; k++)
			if (!strcmp(pe->violations[i].constraint, constraint_text[k]))
				relaxed[i] = !(cc & (1u << k));
	return 0;
}

/* A feature that only relaxes constraints grows the cone; one that
 * imposes some may shrink it (prerequisites are never imposing
 * features in these families, so the rule is exact or conservative). */
static int synth_monotone(void *ctx, udd_features fixed, udd_features varying,
			  struct explore_monotonicity *out, struct cp_error *err)
{
	struct family *fam = ctx;
	size_t f;

	(void)fixed;
	(void)err;
	out->models = (size_t)1 << NF;
	for (f = 0; f < NF; f++) {
		if (!(varying & BIT(f)))
			continue;
		if (fam->impose[f])
			out->shrinks |= BIT(f);
		else
			out->grows |= BIT(f);
	}
	return 0;
}

/* The study's family in miniature. */
static void family_init(struct family *fam)
{
	memset(fam, 0, sizeof *fam);
	fam->relax[F_PREFETCH] = C_REF_UPPER | C_PDE;
	fam->relax[F_MERGE] = C_RETIRED;
	fam->relax[F_PDE_EARLY] = C_PDE;
	fam->needs[F_PDE_EARLY] = BIT(F_MERGE);
	fam->relax[F_ABORT] = C_DONE;
	fam->relax[F_BYPASS] = C_REF_LOWER;
	fam->relax[F_REPLAY] = C_REF_LOWER;
	fam->needs[F_REPLAY] = BIT(F_MERGE);
}

static const struct explore_evaluator synth = {
	NULL, synth_evaluate, synth_compare, NULL, NULL, NULL, NULL
};

static struct explore_search *run(struct family *fam, udd_features start,
				  int exhaustive)
{
	struct explore_evaluator ev = synth;
	struct explore_space space = { NF, names, start, BIT(NF) - 1 };
	struct explore_options opt = { .exhaustive = exhaustive };
	struct explore_search *s = NULL;
	struct cp_error err;

	ev.ctx = fam;
	cp_error_clear(&err);
	CHECKF(explore_run(&space, &ev, &opt, &s, &err) == 0, "%s", err.msg);
	return s;
}

static const struct explore_model *model_with(const struct explore_search *s,
					      udd_features sel)
{
	size_t i;

	for (i = 0; i < explore_n_models(s); i++)
		if (explore_model_at(s, i)->features == sel)
			return explore_model_at(s, i);
	return NULL;
}

/* Data from a machine with merging only: discovery adds merge (the only
 * feature relaxing the violated constraint), elimination confirms it. */
static void test_merge_only(void)
{
	struct family fam;
	struct explore_search *s;
	const struct explore_model *m;

	family_init(&fam);
	fam.n_obs = 4;
	fam.obs[0] = C_RETIRED;
	fam.obs[2] = C_RETIRED;
	s = run(&fam, 0, 0);
	if (!s)
		return;
	CHECK(explore_n_models(s) == 2);
	m = model_with(s, 0);
	CHECK(m && !m->feasible && m->eval.n_infeasible == 2);
	CHECK(m && m->eval.n_violations == 1 && m->eval.violations[0].count == 2);
	m = model_with(s, BIT(F_MERGE));
	CHECK(m && m->feasible && m->minimal && m->origin == EXPLORE_DISCOVERY);
	/* the search proves only what its verdicts show: {} is the one
	 * model without merge it knows, so merge is not proven required */
	CHECK((explore_required(s) & ~BIT(F_MERGE)) == 0);
	CHECK((explore_impossible(s) & BIT(F_MERGE)) == 0);
	CHECK(explore_n_evaluations(s) == explore_n_models(s));
	CHECK(fam.calls == 2);
	explore_free(s);
}

/* pde_early changes nothing without merge: skipped at the start
 * (same cone), added once merge is in. */
static void test_pde_early_needs_merge(void)
{
	struct family fam;
	struct explore_search *s;
	size_t i;
	int skipped_at_start = 0;

	family_init(&fam);
	fam.relax[F_PREFETCH] = C_REF_UPPER;   /* only pde_early relaxes C_PDE */
	fam.n_obs = 3;
	fam.obs[0] = C_RETIRED | C_PDE;
	fam.obs[1] = C_PDE;
	s = run(&fam, 0, 0);
	if (!s)
		return;
	for (i = 0; i < explore_n_edges(s); i++) {
		const struct explore_edge *e = explore_edge_at(s, i);

		if (e->from == 0 && e->feature == F_PDE_EARLY)
			skipped_at_start = e->step == EXPLORE_SKIP_SAME_CONE;
	}
	CHECK(skipped_at_start);
	/* {pde_early} is only reached by pruning merge from the answer */
	CHECK(model_with(s, BIT(F_PDE_EARLY)) &&
	      model_with(s, BIT(F_PDE_EARLY))->origin == EXPLORE_ELIMINATION);
	CHECK(model_with(s, BIT(F_MERGE)) && !model_with(s, BIT(F_MERGE))->feasible);
	CHECK(model_with(s, BIT(F_MERGE) | BIT(F_PDE_EARLY)) &&
	      model_with(s, BIT(F_MERGE) | BIT(F_PDE_EARLY))->minimal);
	CHECK((explore_required(s) & ~(BIT(F_MERGE) | BIT(F_PDE_EARLY))) == 0);
	explore_free(s);
}

/* Two explanations of walks without references (bypass; replay with
 * merge): both minimal, neither required; merge appears in one only. */
static void test_alternatives(void)
{
	struct family fam;
	struct explore_search *s;
	struct cp_buf b;

	family_init(&fam);
	fam.n_obs = 2;
	fam.obs[0] = C_REF_LOWER;
	s = run(&fam, BIT(F_MERGE), 0);
	if (!s)
		return;
	/* from {merge}: +bypass and +replay both feasible; elimination
	 * prunes merge from {merge,bypass} (still feasible) but not from
	 * {merge,replay}. */
	CHECK(model_with(s, BIT(F_MERGE) | BIT(F_BYPASS))->feasible);
	CHECK(model_with(s, BIT(F_MERGE) | BIT(F_REPLAY))->feasible);
	CHECK(model_with(s, BIT(F_MERGE) | BIT(F_REPLAY))->minimal);
	CHECK(model_with(s, BIT(F_BYPASS)) && model_with(s, BIT(F_BYPASS))->minimal);
	CHECK(!model_with(s, BIT(F_MERGE) | BIT(F_BYPASS))->minimal);
	CHECK(model_with(s, BIT(F_REPLAY)) && !model_with(s, BIT(F_REPLAY))->feasible);
	CHECK(explore_required(s) == 0);
	cp_buf_init(&b);
	explore_conclusion(s, &b);
	/* {bypass} is proven minimal ({} refuted); {merge,replay} is not
	 * ({replay} refuted, {merge} never tested) */
	CHECK(!b.failed && strstr(b.data, "Undecided:"));
	cp_buf_release(&b);
	explore_free(s);
}

/* Elimination from a generous start: every superfluous feature goes. */
static void test_elimination_prunes(void)
{
	struct family fam;
	struct explore_search *s;
	size_t i, n_min = 0;

	family_init(&fam);
	fam.n_obs = 2;
	fam.obs[0] = C_DONE;
	fam.obs[1] = C_REF_UPPER;
	s = run(&fam, BIT(NF) - 1, 0);
	if (!s)
		return;
	CHECK(explore_model_at(s, 0)->feasible);
	for (i = 0; i < explore_n_models(s); i++)
		if (explore_model_at(s, i)->minimal) {
			n_min++;
			CHECK(explore_model_at(s, i)->features ==
			      (BIT(F_PREFETCH) | BIT(F_ABORT)));
		}
	CHECK(n_min <= 1);
	CHECK((explore_required(s) & ~(BIT(F_PREFETCH) | BIT(F_ABORT))) == 0);
	CHECK(fam.calls == explore_n_models(s));
	explore_free(s);
}

/* Exhaustive agrees with the search on required and minimal models. */
static void test_exhaustive_agrees(void)
{
	struct family fam;
	struct explore_search *s, *x;
	size_t i;

	family_init(&fam);
	fam.n_obs = 5;
	fam.obs[0] = C_RETIRED;
	fam.obs[1] = C_PDE | C_RETIRED;
	fam.obs[3] = C_DONE;
	s = run(&fam, 0, 0);
	family_init(&fam);
	fam.n_obs = 5;
	fam.obs[0] = C_RETIRED;
	fam.obs[1] = C_PDE | C_RETIRED;
	fam.obs[3] = C_DONE;
	x = run(&fam, 0, 1);
	if (!s || !x)
		goto out;
	CHECK(explore_n_models(x) == 64);
	CHECK(explore_required(x) == (BIT(F_MERGE) | BIT(F_ABORT)));
	/* the search proves a subset of what exhaustive proves, never
	 * something else */
	CHECK((explore_required(s) & ~explore_required(x)) == 0);
	CHECK((explore_impossible(s) & ~explore_impossible(x)) == 0);
	CHECK(explore_undecided(x) == 0);
	for (i = 0; i < explore_n_models(s); i++) {
		const struct explore_model *m = explore_model_at(s, i);

		if (m->minimal) {
			const struct explore_model *o = model_with(x, m->features);

			CHECKF(o && o->minimal, "model %#llx proven minimal by the search, "
			       "not by exhaustive", (unsigned long long)m->features);
		}
	}
out:
	explore_free(s);
	explore_free(x);
}

/* No model of the family fits: the report says so plainly. */
static void test_nothing_fits(void)
{
	struct family fam;
	struct explore_search *s;
	struct cp_buf b;

	family_init(&fam);
	fam.relax[F_ABORT] = 0;
	fam.n_obs = 2;
	fam.obs[1] = C_DONE;
	s = run(&fam, 0, 0);
	if (!s)
		return;
	CHECK(explore_n_models(s) == 1);
	CHECK(explore_n_feasible(s) == 0);
	CHECK(explore_required(s) == 0 && explore_impossible(s) == 0);
	cp_buf_init(&b);
	explore_report(s, &b);
	CHECK(!b.failed && strstr(b.data, "No model tested explains the data"));
	CHECK(strstr(b.data, "#1 +abort: the cone does not grow") != NULL);
	cp_buf_release(&b);
	explore_free(s);
}

static void test_report_and_dot(void)
{
	struct family fam;
	struct explore_search *s;
	struct cp_buf b;

	family_init(&fam);
	fam.n_obs = 2;
	fam.obs[0] = C_RETIRED;
	s = run(&fam, 0, 0);
	if (!s)
		return;
	cp_buf_init(&b);
	explore_report(s, &b);
	CHECK(!b.failed);
	CHECK(strstr(b.data, "violated by 1: retired_stlb_miss <= walk_done") != NULL);
	CHECK(strstr(b.data, "minimal feasible models (proven: no feasible sub-model): {merge}\n") != NULL);
	CHECK(strstr(b.data, "required features (proven: every model without one is refuted): none\n") != NULL);
	CHECK(strstr(b.data, "discovery: #1 +merge") != NULL);
	CHECK(strstr(b.data, "conclusion: The baseline is refuted. 1 model tested explains the data; "
		     "1 is proven minimal") != NULL);
	CHECK(strstr(b.data, "Undecided: ") != NULL);
	CHECK(strstr(b.data, "need no hypothesis") == NULL);
	cp_buf_release(&b);
	cp_buf_init(&b);
	explore_dot(s, &b);
	CHECK(!b.failed);
	CHECK(strstr(b.data, "m1 -> m2 [label=\"+merge\"];") != NULL);
	CHECK(strstr(b.data, "m2 -> m1 [label=\"-merge\", style=dashed") != NULL);
	CHECK(strstr(b.data, "peripheries=2") != NULL);
	cp_buf_release(&b);
	explore_free(s);
}

static void test_budget(void)
{
	struct family fam;
	struct explore_evaluator ev = synth;
	struct explore_space space = { NF, names, 0, BIT(NF) - 1 };
	struct explore_options opt = { .exhaustive = 1, .max_models = 5 };
	struct explore_search *s = NULL;
	struct cp_error err;

	family_init(&fam);
	fam.n_obs = 1;
	ev.ctx = &fam;
	CHECK(explore_run(&space, &ev, &opt, &s, &err) == 0);
	CHECK(s && explore_n_models(s) == 5 && explore_truncated(s));
	explore_free(s);
}

static void test_evaluator_failure(void)
{
	struct family fam;
	struct explore_evaluator ev = synth;
	struct explore_space space = { NF, names, 0, BIT(NF) - 1 };
	struct explore_search *s = NULL;
	struct cp_error err;

	family_init(&fam);
	fam.n_obs = 1;
	fam.obs[0] = C_RETIRED | C_DONE;
	fam.fail_at = 2;
	ev.ctx = &fam;
	cp_error_clear(&err);
	CHECK(explore_run(&space, &ev, NULL, &s, &err) == CP_ENUMERIC);
	CHECK(s == NULL);
	CHECK_STR(err.msg, "synthetic failure");
}

/* Every allocation failure is reported, and nothing leaks (ASan). */
static void test_alloc_failures(void)
{
	struct family fam;
	struct explore_evaluator ev = synth;
	struct explore_space space = { NF, names, 0, BIT(NF) - 1 };
	struct explore_search *s;
	struct cp_error err;
	unsigned long n;
	int rc, phase;

	ev.ctx = &fam;
	/* phase 1 with monotonicity: targeted checks, implied verdicts and
	 * the proofs' report */
	for (phase = 0; phase < 2; phase++) {
		ev.monotone = phase ? synth_monotone : NULL;
		for (n = 1; n < 10000; n++) {
			unsigned long before;

			family_init(&fam);
			fam.n_obs = 3;
			fam.obs[0] = C_RETIRED | C_PDE;
			fam.obs[1] = C_REF_LOWER;
			s = NULL;
			before = cp_alloc_count();
			cp_alloc_fail_at(n);
			rc = explore_run(&space, &ev, NULL, &s, &err);
			cp_alloc_fail_at(0);
			if (rc == 0) {
				struct cp_buf b;

				cp_buf_init(&b);
				explore_report(s, &b);
				explore_report_json(s, "m", "d", &b);
				explore_dot(s, &b);
				CHECK(!b.failed);
				cp_buf_release(&b);
				explore_free(s);
				if (n > cp_alloc_count() - before)
					break;   /* the failure was never reached */
				continue;
			}
			CHECK(rc == CP_ENOMEM && s == NULL);
		}
		CHECK(n > 10);
	}
}

/* --deep keeps discovering past the first feasible level; --tolerance
 * lets a model refuted by few observations count as feasible. */
static void test_deep_and_tolerance(void)
{
	struct family fam;
	struct explore_evaluator ev = synth;
	struct explore_space space = { NF, names, 0, BIT(NF) - 1 };
	struct explore_options opt;
	struct explore_search *s = NULL;
	struct cp_error err;
	size_t shallow;

	family_init(&fam);
	fam.n_obs = 4;
	fam.obs[0] = C_RETIRED;
	fam.obs[1] = C_RETIRED;
	fam.obs[2] = C_DONE;
	ev.ctx = &fam;
	memset(&opt, 0, sizeof opt);
	CHECK(explore_run(&space, &ev, &opt, &s, &err) == 0);
	shallow = s ? explore_n_models(s) : 0;
	CHECK(s && (explore_required(s) & ~(BIT(F_MERGE) | BIT(F_ABORT))) == 0);
	explore_free(s);

	family_init(&fam);
	fam.n_obs = 4;
	fam.obs[0] = C_RETIRED;
	fam.obs[1] = C_RETIRED;
	fam.obs[2] = C_DONE;
	opt.deep = 1;
	s = NULL;
	CHECK(explore_run(&space, &ev, &opt, &s, &err) == 0);
	CHECK(s && explore_n_models(s) >= shallow);
	CHECK(s && (explore_required(s) & ~(BIT(F_MERGE) | BIT(F_ABORT))) == 0);
	explore_free(s);

	/* one refuting observation tolerated: {merge} is enough */
	family_init(&fam);
	fam.n_obs = 4;
	fam.obs[0] = C_RETIRED;
	fam.obs[1] = C_RETIRED;
	fam.obs[2] = C_DONE;
	opt.deep = 0;
	opt.tolerance = 1;
	s = NULL;
	CHECK(explore_run(&space, &ev, &opt, &s, &err) == 0);
	CHECK(s && model_with(s, BIT(F_MERGE)) &&
	      model_with(s, BIT(F_MERGE))->feasible &&
	      model_with(s, BIT(F_MERGE))->minimal);
	CHECK(s && model_with(s, BIT(F_ABORT)) &&
	      !model_with(s, BIT(F_ABORT))->feasible);
	explore_free(s);
}

/* With monotonicity known, the default search decides every claim and
 * proves exactly what --exhaustive proves, on random data and with a
 * cone-shrinking feature; it tests fewer models. */
static void test_targeted_equals_exhaustive(void)
{
	unsigned seed = 12345;
	int round, fewer = 0;

	for (round = 0; round < 300; round++) {
		struct family fam, famx;
		struct explore_evaluator ev = synth;
		struct explore_space space = { NF, names, 0, BIT(NF) - 1 };
		struct explore_options opt;
		struct explore_search *s = NULL, *x = NULL;
		struct cp_error err;
		size_t i;

		family_init(&fam);
		seed = seed * 1103515245u + 12345u;
		fam.n_obs = 1 + (seed >> 16) % 4;
		for (i = 0; i < fam.n_obs; i++) {
			seed = seed * 1103515245u + 12345u;
			fam.obs[i] = (seed >> 11) & 0x1f & ((seed >> 20) | (seed >> 3));
		}
		if (round % 2) {
			/* bypass becomes a variant: it relaxes the lower bound
			 * on references but imposes causes_walk = walk_done */
			fam.impose[F_BYPASS] = C_DONE;
		}
		famx = fam;
		ev.monotone = synth_monotone;
		memset(&opt, 0, sizeof opt);
		ev.ctx = &fam;
		CHECKF(explore_run(&space, &ev, &opt, &s, &err) == 0, "%s", err.msg);
		opt.exhaustive = 1;
		ev.ctx = &famx;
		CHECKF(explore_run(&space, &ev, &opt, &x, &err) == 0, "%s", err.msg);
		if (!s || !x) {
			explore_free(s);
			explore_free(x);
			return;
		}
		CHECKF(explore_required(s) == explore_required(x) &&
		       explore_impossible(s) == explore_impossible(x) &&
		       explore_undecided(s) == 0 && explore_undecided(x) == 0,
		       "round %d: required %#llx/%#llx impossible %#llx/%#llx undecided %#llx",
		       round, (unsigned long long)explore_required(s),
		       (unsigned long long)explore_required(x),
		       (unsigned long long)explore_impossible(s),
		       (unsigned long long)explore_impossible(x),
		       (unsigned long long)explore_undecided(s));
		for (i = 0; i < explore_n_models(s); i++) {
			const struct explore_model *m = explore_model_at(s, i);
			const struct explore_model *o = model_with(x, m->features);

			CHECKF(o && o->feasible == m->feasible && (!m->minimal || o->minimal),
			       "round %d: model %#llx", round, (unsigned long long)m->features);
		}
		fewer += explore_n_models(s) < explore_n_models(x);
		explore_free(s);
		explore_free(x);
	}
	CHECK(fewer > 250);
}

/* Exhaustive keeps the start features fixed and draws the Hasse edges. */
static void test_exhaustive_fixed_start(void)
{
	struct family fam;
	struct explore_search *s;
	size_t i;

	family_init(&fam);
	fam.n_obs = 1;
	fam.obs[0] = C_DONE;
	s = run(&fam, BIT(F_MERGE), 1);
	if (!s)
		return;
	CHECK(explore_n_models(s) == 32);
	for (i = 0; i < explore_n_models(s); i++)
		CHECK(explore_model_at(s, i)->features & BIT(F_MERGE));
	CHECK(explore_n_edges(s) == 32 * 5 / 2);
	/* merge is fixed by the start: the claims are about the others */
	CHECK(explore_required(s) == BIT(F_ABORT));
	explore_free(s);
}

/* ---- dualization: every minimal model of a monotone family ----
 * Ten features, each only growing the cone; a model fits when it holds
 * one of four sets (the truth: its minimal feasible models).  Discovery
 * stops at the first level with a feasible model (two of the sets have
 * two features), so without the dualization the default search lists
 * only those two; with it, all four, proven, in fewer checks than the
 * family's 2^10 models. */
#define DF 10
static const udd_features dual_truth[4] = {
	BIT(0) | BIT(1), BIT(5) | BIT(9), BIT(2) | BIT(3) | BIT(4),
	BIT(1) | BIT(6) | BIT(7) | BIT(8),
};

static int dual_fits(udd_features sel)
{
	size_t i;

	for (i = 0; i < 4; i++)
		if ((sel & dual_truth[i]) == dual_truth[i])
			return 1;
	return 0;
}

static int dual_evaluate(void *ctx, udd_features sel, struct explore_eval *out,
			 struct cp_error *err)
{
	(void)err;
	++*(size_t *)ctx;
	out->n_observations = 3;
	out->n_infeasible = dual_fits(sel) ? 0 : 3;
	return 0;
}

static int dual_compare(void *ctx, udd_features parent, udd_features child,
			const struct explore_eval *pe, int *grows,
			unsigned char *relaxed, struct cp_error *err)
{
	(void)ctx, (void)parent, (void)child, (void)pe, (void)relaxed, (void)err;
	*grows = 1;
	return 0;
}

static int dual_monotone(void *ctx, udd_features fixed, udd_features varying,
			 struct explore_monotonicity *out, struct cp_error *err)
{
	(void)ctx, (void)fixed, (void)err;
	out->models = (size_t)1 << DF;
	out->grows = varying;
	return 0;
}

static void test_dualization_every_minimal(void)
{
	static const char *const dnames[DF] = { "f0", "f1", "f2", "f3", "f4", "f5",
						"f6", "f7", "f8", "f9" };
	struct explore_evaluator ev = { NULL, dual_evaluate, dual_compare,
					dual_monotone, NULL, NULL, NULL };
	struct explore_space space = { DF, dnames, 0, BIT(DF) - 1 };
	struct explore_options opt = { 0 };
	struct explore_search *s = NULL;
	struct explore_claim_basis basis;
	struct cp_error err;
	size_t calls = 0, i, j, n_min = 0;

	ev.ctx = &calls;
	cp_error_clear(&err);
	CHECKF(explore_run(&space, &ev, &opt, &s, &err) == 0, "%s", err.msg);
	if (!s)
		return;
	for (i = 0; i < explore_n_models(s); i++) {
		const struct explore_model *m = explore_model_at(s, i);
		int truth = 0;

		for (j = 0; j < 4; j++)
			truth |= m->features == dual_truth[j];
		CHECKF(m->minimal == truth, "model %#llx minimal %d, truth %d",
		       (unsigned long long)m->features, m->minimal, truth);
		n_min += m->minimal != 0;
	}
	CHECK(n_min == 4);
	explore_claim_basis(s, &basis);
	CHECK(basis.enumerable && basis.known == basis.universe && basis.universe == 1024);
	printf("  10 cone-growing features, 4 minimal models: %zu models checked of "
	       "1024\n", calls);
	CHECK(calls == explore_n_models(s) && calls < 1024 / 4);
	explore_free(s);
}

int main(void)
{
	check_prog = "test_explore";
	RUN(test_merge_only);
	RUN(test_pde_early_needs_merge);
	RUN(test_alternatives);
	RUN(test_elimination_prunes);
	RUN(test_exhaustive_agrees);
	RUN(test_nothing_fits);
	RUN(test_report_and_dot);
	RUN(test_budget);
	RUN(test_deep_and_tolerance);
	RUN(test_exhaustive_fixed_start);
	RUN(test_targeted_equals_exhaustive);
	RUN(test_dualization_every_minimal);
	RUN(test_evaluator_failure);
	RUN(test_alloc_failures);
	return check_summary();
}
