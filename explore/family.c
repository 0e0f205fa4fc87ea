/* SPDX-License-Identifier: GPL-3.0-or-later */
/* explore/family.c: the real evaluator of `counterpoint explore`: a μDD
 * model family (one model file, many feature sets) tested against one
 * dataset through the library pipeline (pipeline/pipeline.h): the
 * dataset's regions once (pipe_data), one pipe_model per feature set,
 * kept, with its cone's facets listed (under the budget) only for the
 * feature sets that are evaluated. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explore/explore.h"
#include "explore/family_int.h"

#include "geometry/cone.h"
#include "pipeline/pipeline.h"
#include "solver/feas.h"
#include "stats/region.h"

/* ================================================================ */
/* setup                                                            */
/* ================================================================ */

int explore_family_new(const struct udd_model *m,
		       const struct stats_dataset *d,
		       const struct explore_family_options *opt,
		       struct explore_family **out, struct cp_error *err)
{
	struct explore_family *f;
	struct pipe_options po;
	size_t i, j, km = udd_model_n_counters(m);
	const size_t *cols;
	int rc;

	*out = NULL;
	f = cp_calloc(1, sizeof *f);
	if (!f)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	f->model = m;
	f->data = d;
	f->cone_over_m = SIZE_MAX;
	f->phase = EXPLORE_PHASE_REGIONS;
	f->phase_t0 = cp_cpu_seconds();
	if (opt)
		f->opt = *opt;
	if (f->opt.cone_seconds == 0)
		f->opt.cone_seconds = 5;
	if (!f->opt.max_facets)
		f->opt.max_facets = 5000;
	if (f->opt.region < 0 || f->opt.region > 2) {
		rc = cp_error_set(err, CP_EINPUT, "unknown region kind %d",
				  f->opt.region);
		goto out;
	}
	memset(&po, 0, sizeof po);
	po.confidence = f->opt.confidence;
	po.batches = f->opt.batches;
	po.per_interval = f->opt.per_interval;
	po.shape = (enum feas_shape)f->opt.region;
	po.counters = f->opt.counters;
	po.shape_only = 1;   /* no report of explore draws a region */
	rc = pipe_data_new(m, d, &po, &f->pd, err);
	explore_phase_enter(f, EXPLORE_PHASE_SEARCH);
	if (rc)
		goto out;
	f->k = pipe_data_n_counters(f->pd);
	f->n_obs = pipe_data_n_observations(f->pd);
	/* every observation is usable (below), and every claim rests on all */
	if ((rc = pipe_family_new(f->pd, f->opt.family_confidence, f->n_obs,
				  &f->family, err)))
		goto out;
	f->names = pipe_data_names(f->pd);
	if (pipe_data_n_unusable(f->pd)) {
		for (i = 0; !pipe_data_unusable(f->pd, i); i++)
			;
		rc = stats_observation_error(d, i, CP_EINPUT, err, "%.600s (explore "
					     "needs every observation's region)",
					     pipe_data_unusable(f->pd, i));
		goto out;
	}
	f->missing = cp_calloc(km + 1, sizeof *f->missing);
	if (!f->missing) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	cols = pipe_data_columns(f->pd);
	for (i = 0, j = 0; i < km; i++) {
		if (j < f->k && cols[j] == i)
			j++;
		else
			f->missing[f->n_missing++] = i;
	}
out:
	if (rc) {
		explore_family_free(f);
		return rc;
	}
	*out = f;
	return 0;
}

static void entry_release(struct entry *e)
{
	pipe_model_free(e->pm);
	explore_eval_release(&e->eval);
	cp_free(e->viol);
	cp_free(e->viol_eq);
	cp_free(e->viol_ok);
	cp_free(e->feasible);
	cp_free(e->refutes);
}

void explore_family_free(struct explore_family *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->n_entries; i++)
		entry_release(&f->entries[i]);
	cp_free(f->entries);
	for (i = 0; i < f->n_seen; i++)
		cp_free(f->seen[i].S);
	cp_free(f->seen);
	pipe_family_free(f->family);
	pipe_data_free(f->pd);
	cp_free(f->missing);
	cp_free(f);
}

/* ================================================================ */
/* where the time goes                                              */
/* ================================================================ */

enum explore_phase explore_phase_enter(struct explore_family *f,
				       enum explore_phase p)
{
	enum explore_phase prev = f->phase;
	double now = cp_cpu_seconds();

	f->phase_cpu[prev] += now - f->phase_t0;
	f->phase_t0 = now;
	f->phase = p;
	return prev;
}

void explore_phase_leave(struct explore_family *f, enum explore_phase prev)
{
	explore_phase_enter(f, prev);
}

const char *explore_phase_name(enum explore_phase p)
{
	static const char *const names[EXPLORE_N_PHASES] = {
		"regions", "signatures", "solver models", "monotonicity",
		"facets", "region checks", "readable constraints", "cone growth",
		"separations", "flows", "search and reports"
	};

	return (unsigned)p < EXPLORE_N_PHASES ? names[p] : "?";
}

void explore_family_phases(const struct explore_family *f, double *cpu)
{
	size_t i;

	for (i = 0; i < EXPLORE_N_PHASES; i++)
		cpu[i] = f->phase_cpu[i];
	cpu[f->phase] += cp_cpu_seconds() - f->phase_t0;
}

void explore_family_solver_stats(const struct explore_family *f,
				 struct feas_stats *st)
{
	*st = f->solver;
}

/* f->solver += what e's LPs did (before they are freed). */
static void solver_stats_add(struct explore_family *f, struct entry *e)
{
	struct feas_model *fm = pipe_model_solver(e->pm);
	struct feas_stats st;

	if (!fm)
		return;
	feas_model_stats(fm, &st);
	f->solver.checks += st.checks;
	f->solver.lp_solves += st.lp_solves;
	f->solver.exact_solves += st.exact_solves;
	f->solver.borderline += st.borderline;
	f->solver.certificates += st.certificates;
	f->solver.facet_lps += st.facet_lps;
	f->solver.facets_verified += st.facets_verified;
	f->solver.iterations += st.iterations;
	f->solver.shrink_tests += st.shrink_tests;
	f->solver.prefiltered += st.prefiltered;
}

size_t explore_family_n_inexact(const struct explore_family *f)
{
	size_t i, n = 0;

	for (i = 0; i < f->n_entries; i++)
		n += f->entries[i].n_inexact;
	return n;
}

size_t explore_family_n_missing(const struct explore_family *f)
{
	return f->n_missing;
}

const char *explore_family_missing(const struct explore_family *f, size_t i)
{
	return i < f->n_missing ?
		udd_model_counter_name(f->model, f->missing[i]) : NULL;
}

size_t explore_family_n_observations(const struct explore_family *f)
{
	return f->n_obs;
}

double explore_family_confidence(const struct explore_family *f)
{
	return pipe_family_confidence(f->family);
}

double explore_family_level(const struct explore_family *f)
{
	return pipe_family_level(f->family);
}

const unsigned char *explore_family_verdicts(const struct explore_family *f,
					     udd_features sel)
{
	size_t i;

	for (i = 0; i < f->n_entries; i++)
		if (f->entries[i].sel == sel)
			return f->entries[i].feasible;   /* set once evaluated */
	return NULL;
}

void explore_family_stats(const struct explore_family *f, size_t *models,
			  size_t *with_facets, size_t *checked, size_t *checks)
{
	size_t i, n = 0;

	for (i = 0; i < f->n_entries; i++)
		n += pipe_model_has_facets(f->entries[i].pm) || f->entries[i].remote_facets;
	*models = f->n_entries;
	*with_facets = n;
	*checked = f->n_obs ? f->checks / f->n_obs : 0;
	*checks = f->checks;
}

/* ================================================================ */
/* one feature set's model                                          */
/* ================================================================ */

/* The same over the positions ix[0..n) where a or s may be non-zero,
 * made once (nonzeros: of a constraint a, or of a signature s when a is
 * NULL) for a vector tested against many. */
static size_t nonzeros(const int64_t *a, const uint32_t *s, size_t k, uint32_t *ix)
{
	size_t i, n = 0;

	for (i = 0; i < k; i++)
		if (a ? a[i] != 0 : s[i] != 0)
			ix[n++] = (uint32_t)i;
	return n;
}

static __int128 dot_at(const int64_t *a, const uint32_t *s, const uint32_t *ix,
		       size_t n)
{
	__int128 v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v += (__int128)a[ix[i]] * s[ix[i]];
	return v;
}

/* Facets within the budget; a cone that cannot be built in time (or at
 * all) is not an error: the solver's certificates explain violations.
 * Larger models than one that went over budget are not tried. */
static int entry_constraints(struct explore_family *f, struct entry *e,
			     struct cp_error *err)
{
	struct pipe_budget b = { f->opt.max_facets, f->opt.cone_seconds };
	size_t m = pipe_model_n_signatures(e->pm);
	int rc;

	enum explore_phase prev;

	if (f->opt.cone_seconds < 0 || m == 0 || m >= f->cone_over_m)
		return 0;
	prev = explore_phase_enter(f, EXPLORE_PHASE_CONES);
	rc = pipe_model_list_facets(e->pm, &b, err);
	explore_phase_leave(f, prev);
	if (!rc && pipe_model_over_budget(e->pm) && m < f->cone_over_m)
		f->cone_over_m = m;
	return rc;
}

/* The cached rows of sel's graph, or NULL. */
static const struct sigset_seen *seen_find(const struct explore_family *f,
					   udd_features sel)
{
	size_t i;

	for (i = 0; i < f->n_seen; i++)
		if ((sel & f->seen[i].mask) == f->seen[i].key)
			return &f->seen[i];
	return NULL;
}

int explore_family_signatures(struct explore_family *f, udd_features sel,
			      const uint32_t **S, size_t *m, struct cp_error *err)
{
	const struct sigset_seen *old = seen_find(f, sel);
	struct sigset_seen *s;
	enum explore_phase prev;
	int rc;

	if (old) {
		*S = old->S;
		*m = old->m;
		return 0;
	}
	if (f->n_seen == f->cap_seen) {
		size_t cap = f->cap_seen ? 2 * f->cap_seen : 64;

		s = cp_reallocarray(f->seen, cap, sizeof *s);
		if (!s)
			return cp_error_set(err, CP_ENOMEM, "out of memory");
		f->seen = s;
		f->cap_seen = cap;
	}
	s = &f->seen[f->n_seen];
	prev = explore_phase_enter(f, EXPLORE_PHASE_SIGNATURES);
	s->mask = udd_model_consulted(f->model, sel);
	s->key = sel & s->mask;
	rc = pipe_signatures(f->model, sel, f->pd, &s->S, &s->m, err);
	explore_phase_leave(f, prev);
	if (rc)
		return rc;
	f->n_seen++;
	*S = s->S;
	*m = s->m;
	return 0;
}

/* The entry of sel, built on first use. */
int explore_family_entry(struct explore_family *f, udd_features sel,
		     struct entry **out, struct cp_error *err)
{
	struct entry *e;
	enum explore_phase prev;
	const uint32_t *S;
	size_t i, m;
	int rc;

	for (i = 0; i < f->n_entries; i++)
		if (f->entries[i].sel == sel) {
			*out = &f->entries[i];
			return 0;
		}
	if (f->n_entries == f->cap_entries) {
		size_t cap = f->cap_entries ? 2 * f->cap_entries : 16;

		e = cp_reallocarray(f->entries, cap, sizeof *e);
		if (!e)
			return cp_error_set(err, CP_ENOMEM, "out of memory");
		f->entries = e;
		f->cap_entries = cap;
	}
	e = &f->entries[f->n_entries];
	memset(e, 0, sizeof *e);
	e->sel = sel;
	rc = explore_family_signatures(f, sel, &S, &m, err);
	if (!rc) {
		prev = explore_phase_enter(f, EXPLORE_PHASE_MODELS);
		rc = pipe_model_new_from(sel, S, m, f->pd, NULL, &e->pm, err);
		explore_phase_leave(f, prev);
	}
	if (rc) {
		entry_release(e);
		return rc;
	}
	f->n_entries++;
	*out = e;
	return 0;
}

/* ================================================================ */
/* readable constraints                                             */
/* ================================================================ */

struct breaks_ctx {
	const struct feas_query *q;
	size_t k;
	int is_eq;
	double *tmp;
};

/* Does the whole region break a (a.x >= 0, or a.x = 0)? */
static int region_breaks(const int64_t *a, void *ctx)
{
	struct breaks_ctx *b = ctx;
	size_t i;

	for (i = 0; i < b->k; i++)
		b->tmp[i] = (double)a[i];
	return feas_margin(b->q, b->tmp, b->k, b->is_eq, NULL) > 0;
}

/* The readable representative of constraint a on the model's span
 * (geometry's rule), among the forms the observation's region q (when
 * given) still breaks. */
static void simplify_constraint(const struct entry *e, size_t k, int64_t *a,
				const struct feas_query *q, int is_eq)
{
	struct breaks_ctx b = { q, k, is_eq, NULL };

	b.tmp = cp_malloc((k + 1) * sizeof *b.tmp);
	if (!b.tmp)
		return;
	cone_readable(k, pipe_model_span_equalities(e->pm),
		      pipe_model_n_span_equalities(e->pm),
		      pipe_model_signatures(e->pm), pipe_model_n_signatures(e->pm),
		      is_eq, q ? region_breaks : NULL, &b, a);
	cp_free(b.tmp);
}

/* ================================================================ */
/* the evaluator callbacks                                          */
/* ================================================================ */

/* A violation's text, for counting and reports: its readable
 * representative on the model's span (the raw vector is what the data
 * break and what compare() tests). */
static char *constraint_text(const struct explore_family *f,
			     const struct entry *e, const int64_t *a,
			     int is_eq, const struct feas_query *q)
{
	struct cp_buf b;
	int64_t *t;

	t = cp_malloc(f->k * sizeof *t);
	if (!t)
		return NULL;
	memcpy(t, a, f->k * sizeof *t);
	simplify_constraint(e, f->k, t, q, is_eq);
	cp_buf_init(&b);
	cone_format_constraint(t, f->k, f->names, is_eq, &b);
	cp_free(t);
	if (b.failed || !b.data) {
		cp_buf_release(&b);
		return NULL;
	}
	return b.data;   /* ownership passes to the caller */
}

/* Add (or count again) violated constraint a in e's evaluation. */
static int count_violation(struct explore_family *f, struct entry *e,
			   const int64_t *a, int is_eq,
			   const struct feas_query *q, struct cp_error *err)
{
	struct explore_eval *ev = &e->eval;
	char *text;
	size_t i, k = f->k;
	int64_t *v;
	unsigned char *veq;

	text = constraint_text(f, e, a, is_eq, q);
	if (!text)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	for (i = 0; i < ev->n_violations; i++)
		if (!strcmp(ev->violations[i].constraint, text)) {
			ev->violations[i].count++;
			cp_free(text);
			return 0;
		}
	v = cp_reallocarray(e->viol, ev->n_violations + 1, k * sizeof *v);
	if (v)
		e->viol = v;
	veq = cp_reallocarray(e->viol_eq, ev->n_violations + 1, 1);
	if (veq)
		e->viol_eq = veq;
	if (!v || !veq || explore_eval_add_violation(ev, text, 1)) {
		cp_free(text);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	cp_free(text);
	memcpy(e->viol + (ev->n_violations - 1) * k, a, k * sizeof *a);
	e->viol_eq[ev->n_violations - 1] = (unsigned char)is_eq;
	return 0;
}

static int copy_witness(struct explore_eval *dst, const struct explore_eval *src)
{
	dst->witness_margin = src->witness_margin;
	if (src->witness && !(dst->witness = cp_strdup(src->witness)))
		return CP_ENOMEM;
	if (src->witness_constraint &&
	    !(dst->witness_constraint = cp_strdup(src->witness_constraint)))
		return CP_ENOMEM;
	return 0;
}

/* Copy an evaluation (another feature set with the same signatures). */
static int copy_eval(struct explore_family *f, struct entry *dst,
		     const struct entry *src, struct cp_error *err)
{
	size_t i, n = src->eval.n_violations, k = f->k;

	if (n) {
		dst->viol = cp_calloc(n * k, sizeof *dst->viol);
		dst->viol_eq = cp_calloc(n, 1);
		if (!dst->viol || !dst->viol_eq)
			return cp_error_set(err, CP_ENOMEM, "out of memory");
		memcpy(dst->viol, src->viol, n * k * sizeof *dst->viol);
		memcpy(dst->viol_eq, src->viol_eq, n);
	}
	for (i = 0; i < n; i++)
		if (explore_eval_add_violation(&dst->eval,
					       src->eval.violations[i].constraint,
					       src->eval.violations[i].count))
			return cp_error_set(err, CP_ENOMEM, "out of memory");
	dst->eval.n_observations = src->eval.n_observations;
	dst->eval.n_infeasible = src->eval.n_infeasible;
	dst->eval.family = src->eval.family;
	dst->eval.n_refuting = src->eval.n_refuting;
	if (!(dst->feasible = cp_malloc(f->n_obs + 1)) ||
	    !(dst->refutes = cp_malloc(f->n_obs + 1)))
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	memcpy(dst->feasible, src->feasible, f->n_obs);
	memcpy(dst->refutes, src->refutes, f->n_obs);
	if (copy_witness(&dst->eval, &src->eval))
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	if (src->eval.refuted_by &&
	    !(dst->eval.refuted_by = cp_strdup(src->eval.refuted_by)))
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	return 0;
}

/* e's violated constraints, those the most observations violate first,
 * ties in the order found (insertion: stable), their coefficient rows
 * and equality flags moved with them.  Done once, when the checks end,
 * before anything refers to them by index. */
static int sort_violations(struct explore_family *f, struct entry *e,
			   struct cp_error *err)
{
	struct explore_eval *ev = &e->eval;
	size_t i, j, k = f->k;
	int64_t *row;

	if (ev->n_violations < 2)
		return 0;
	if (!(row = cp_malloc(k * sizeof *row)))
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	for (i = 1; i < ev->n_violations; i++) {
		struct explore_violation v = ev->violations[i];
		unsigned char eq = e->viol_eq[i];

		if (ev->violations[i - 1].count >= v.count)
			continue;
		memcpy(row, e->viol + i * k, k * sizeof *row);
		for (j = i; j > 0 && ev->violations[j - 1].count < v.count; j--) {
			ev->violations[j] = ev->violations[j - 1];
			e->viol_eq[j] = e->viol_eq[j - 1];
			memcpy(e->viol + j * k, e->viol + (j - 1) * k, k * sizeof *row);
		}
		ev->violations[j] = v;
		e->viol_eq[j] = eq;
		memcpy(e->viol + j * k, row, k * sizeof *row);
	}
	cp_free(row);
	return 0;
}

/* The witness of a refuted model, for proofs: refuting observation i,
 * the first constraint its region at the family's level breaks (that
 * region explained once more) and its margin; the region at the
 * regions' own level when the two levels are one. */
static int family_witness(struct explore_family *f, struct entry *e, size_t i,
			  const struct feas_result *at_c, struct cp_error *err)
{
	const struct feas_query *q = pipe_family_query(f->family, i);
	struct feas_result r;
	const struct feas_result *use = at_c;
	int rc = CP_OK;

	feas_result_init(&r);
	if (q && q != pipe_data_query(f->pd, i)) {
		rc = feas_check(pipe_model_solver(e->pm), q, FEAS_EXPLAIN, &r, err);
		if (rc == CP_ENUMERIC) {   /* keep the explanation at c */
			cp_error_clear(err);
			rc = CP_OK;
		} else if (!rc && !r.feasible && r.n_violations) {
			use = &r;
		}
	}
	if (!rc && use->n_violations) {
		const struct feas_violation *v = &use->violations[0];

		e->eval.witness = cp_strdup(stats_dataset_observation(f->data, i));
		e->eval.witness_constraint =
			constraint_text(f, e, v->a, v->is_equality,
					use == at_c ? pipe_data_query(f->pd, i) : q);
		e->eval.witness_margin = v->margin;
		if (!e->eval.witness || !e->eval.witness_constraint)
			rc = cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	feas_result_release(&r);
	return rc;
}

static int run_checks(struct explore_family *f, struct entry *e,
		      struct cp_error *err)
{
	struct feas_result *res;
	struct cp_buf names;
	enum explore_phase prev;
	size_t i, j, inexact = 0, listed = 0;
	int rc;

	cp_buf_init(&names);
	res = cp_calloc(f->n_obs ? f->n_obs : 1, sizeof *res);
	e->feasible = cp_calloc(f->n_obs + 1, 1);
	e->refutes = cp_calloc(f->n_obs + 1, 1);
	if (!res || !e->feasible || !e->refutes) {
		cp_free(res);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	for (i = 0; i < f->n_obs; i++)
		feas_result_init(&res[i]);
	prev = explore_phase_enter(f, EXPLORE_PHASE_CHECKS);
	/* each observation from a fresh LP: the sweep's observations differ
	 * from one to the next, and a warm start from a dissimilar one cost
	 * more than a cold start (docs/method/checking.md, "Threads") */
	rc = pipe_check(e->pm, f->pd, FEAS_EXPLAIN | FEAS_FRESH, f->opt.threads, res,
			&e->n_inexact, NULL, NULL, err);
	/* the observations that refute it at the family-wise level */
	if (!rc)
		rc = pipe_family_check(f->family, e->pm, res, f->opt.threads, e->refutes,
				       &e->eval.n_refuting, &inexact, err);
	e->n_inexact += inexact;
	e->eval.family = 1;
	explore_phase_enter(f, EXPLORE_PHASE_TEXT);
	f->checks += f->n_obs;
	e->eval.n_observations = f->n_obs;
	for (i = 0; i < f->n_obs && !rc; i++) {
		e->feasible[i] = res[i].feasible != 0;
		if (res[i].feasible)
			continue;
		e->eval.n_infeasible++;
		if (e->refutes[i] && !e->eval.witness)
			rc = family_witness(f, e, i, &res[i], err);
		if (e->refutes[i] && ++listed <= 4)
			cp_buf_printf(&names, "%s%s", listed > 1 ? ", " : "",
				      stats_dataset_observation(f->data, i));
		for (j = 0; j < res[i].n_violations && !rc; j++)
			rc = count_violation(f, e, res[i].violations[j].a,
					     res[i].violations[j].is_equality,
					     pipe_data_query(f->pd, i), err);
	}
	if (!rc)
		rc = sort_violations(f, e, err);
	explore_phase_leave(f, prev);
	if (listed > 4)
		cp_buf_printf(&names, " (+%zu more)", listed - 4);
	if (!rc && names.failed)
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
	if (!rc && names.len) {
		e->eval.refuted_by = names.data;   /* taken over */
		cp_buf_init(&names);
	}
	cp_buf_release(&names);
	for (i = 0; i < f->n_obs; i++)
		feas_result_release(&res[i]);
	cp_free(res);
	return rc;
}

/* Evaluate entry e unless it was: copied from an evaluated entry with
 * the same signatures, or its facets (if the budget allows) and checks. */
int explore_entry_evaluate(struct explore_family *f, struct entry *e,
			   struct cp_error *err)
{
	const struct entry *same = NULL;
	double t0 = cp_seconds();
	size_t i;
	int rc;

	if (e->evaluated)
		return 0;
	for (i = 0; i < f->n_entries && !same; i++) {
		const struct entry *o = &f->entries[i];

		if (o != e && o->evaluated &&
		    pipe_model_n_signatures(o->pm) == pipe_model_n_signatures(e->pm) &&
		    !memcmp(pipe_model_signatures(o->pm), pipe_model_signatures(e->pm),
			    pipe_model_n_signatures(e->pm) * f->k * sizeof(uint32_t)))
			same = o;
	}
	/* Facets (if the budget allows) only for models that are
	 * evaluated; they must reach the LP before its first check. */
	if (!same) {
		/* the solver's model, made only for the feature sets checked */
		enum explore_phase prev = explore_phase_enter(f, EXPLORE_PHASE_MODELS);

		rc = pipe_model_make_solver(e->pm, err);
		explore_phase_leave(f, prev);
		if (rc)
			return rc;
	}
	rc = same ? copy_eval(f, e, same, err) : entry_constraints(f, e, err);
	if (!rc && !same)
		rc = run_checks(f, e, err);
	/* What stays of a checked model is its signatures and constraints:
	 * its LPs go (an exhaustive search keeps a thousand models), and a
	 * later cone test without facets makes them afresh (a verdict only,
	 * which no warm start changes). */
	if (!rc && !same) {
		solver_stats_add(f, e);
		pipe_model_drop_solver(e->pm);
	}
	if (rc) {
		explore_eval_release(&e->eval);
		cp_free(e->feasible);
		cp_free(e->refutes);
		e->feasible = e->refutes = NULL;
		return rc;
	}
	e->evaluated = 1;
	e->seconds = cp_seconds() - t0;
	return 0;
}

/* The search owns *out: give it a copy of the cached evaluation. */
static int entry_eval_copy(const struct entry *e, struct explore_eval *out,
			   struct cp_error *err)
{
	size_t i;

	out->n_observations = e->eval.n_observations;
	out->n_infeasible = e->eval.n_infeasible;
	out->family = e->eval.family;
	out->n_refuting = e->eval.n_refuting;
	out->n_signatures = pipe_model_n_signatures(e->pm);
	if ((e->eval.refuted_by &&
	     !(out->refuted_by = cp_strdup(e->eval.refuted_by))) ||
	    copy_witness(out, &e->eval)) {
		explore_eval_release(out);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	for (i = 0; i < e->eval.n_violations; i++) {
		if (explore_eval_add_violation(out, e->eval.violations[i].constraint,
					       e->eval.violations[i].count)) {
			explore_eval_release(out);
			return cp_error_set(err, CP_ENOMEM, "out of memory");
		}
	}
	return 0;
}

static int family_evaluate(void *ctx, udd_features sel,
			   struct explore_eval *out, struct cp_error *err)
{
	struct explore_family *f = ctx;
	struct entry *e;
	int rc;

	rc = explore_family_entry(f, sel, &e, err);
	if (!rc)
		rc = explore_entry_evaluate(f, e, err);
	return rc ? rc : entry_eval_copy(e, out, err);
}

/* ================================================================ */
/* evaluations in other processes                                   */
/* ================================================================ */

size_t explore_family_cone_limit(const struct explore_family *f)
{
	return f->cone_over_m;
}

void explore_family_set_dispatch(struct explore_family *f, explore_dispatch_fn fn,
				 void *ctx)
{
	f->dispatch = fn;
	f->dispatch_ctx = ctx;
}

int explore_entry_facets_here(struct explore_family *f, struct entry *e,
			      struct cp_error *err)
{
	struct pipe_budget b = { f->opt.max_facets, f->opt.cone_seconds };

	if (!e->remote_facets)
		return 0;
	e->remote_facets = 0;
	return pipe_model_list_facets(e->pm, &b, err);
}

/* Is entry e's evaluation to be copied from another (the same
 * signatures), evaluated before or earlier in the list? */
static int shares_signatures(const struct explore_family *f, const struct entry *e,
			     const udd_features *run, size_t nrun)
{
	size_t i, j;

	for (i = 0; i < f->n_entries; i++) {
		const struct entry *o = &f->entries[i];
		int listed = 0;

		for (j = 0; j < nrun && !listed; j++)
			listed = run[j] == o->sel;
		if (o != e && (o->evaluated || listed) &&
		    pipe_model_n_signatures(o->pm) == pipe_model_n_signatures(e->pm) &&
		    !memcmp(pipe_model_signatures(o->pm), pipe_model_signatures(e->pm),
			    pipe_model_n_signatures(e->pm) * f->k * sizeof(uint32_t)))
			return 1;
	}
	return 0;
}

/* The search's lists: with a dispatch, the feature sets to be checked
 * (not copies) go out at once and come back packed; then every one in
 * order, as family_evaluate. */
static int family_evaluate_batch(void *ctx, const udd_features *sel, size_t n,
				 struct explore_eval *out, double *seconds,
				 struct cp_error *err)
{
	struct explore_family *f = ctx;
	udd_features *run = NULL;
	struct cp_buf *packed = NULL;
	struct entry *e;
	size_t i, nrun = 0;
	int rc = 0;

	if (f->dispatch) {
		run = cp_calloc(n, sizeof *run);
		packed = cp_calloc(n, sizeof *packed);
		if (!run || !packed) {
			rc = cp_error_set(err, CP_ENOMEM, "out of memory");
			goto out;
		}
		for (i = 0; i < n && !rc; i++)
			rc = explore_family_entry(f, sel[i], &e, err);
		for (i = 0; i < n && !rc; i++) {
			rc = explore_family_entry(f, sel[i], &e, err);
			if (!rc && !e->evaluated && !shares_signatures(f, e, run, nrun))
				run[nrun++] = sel[i];
		}
		for (i = 0; i < nrun; i++)
			cp_buf_init(&packed[i]);
		if (!rc && nrun)
			rc = f->dispatch(f->dispatch_ctx, run, nrun, packed, err);
		for (i = 0; i < nrun && !rc; i++) {
			rc = explore_family_entry(f, run[i], &e, err);
			if (!rc && packed[i].len)
				rc = explore_entry_adopt(f, e, &packed[i], err);
		}
	}
	for (i = 0; i < n && !rc; i++) {
		rc = explore_family_entry(f, sel[i], &e, err);
		if (!rc)
			rc = explore_entry_evaluate(f, e, err);
		if (!rc)
			rc = entry_eval_copy(e, &out[i], err);
		if (!rc)
			seconds[i] = e->seconds;
	}
out:
	for (i = 0; packed && i < nrun; i++)
		cp_buf_release(&packed[i]);
	cp_free(packed);
	cp_free(run);
	return rc;
}

/* Is signature s (k counts) in the cone of entry p?  Exact with p's
 * constraints, else the solver decides (pipe_model_contains). */
int explore_family_in_cone(struct explore_family *f, struct entry *p,
			   const uint32_t *s, int *inside, struct cp_error *err)
{
	int rc = explore_entry_facets_here(f, p, err);

	return rc ? rc : pipe_model_contains(p->pm, s, NULL, inside, NULL, NULL, err);
}

/* p->viol_ok for its nv violated constraints, made once. */
static int viol_checked(struct entry *p, size_t k, size_t nv, struct cp_error *err)
{
	const uint32_t *S = pipe_model_signatures(p->pm);
	size_t m = pipe_model_n_signatures(p->pm), i, j, n;
	uint32_t *ix;

	if (p->viol_ok && p->viol_ok_of == p->viol && p->viol_ok_n == nv)
		return 0;
	cp_free(p->viol_ok);
	p->viol_ok = cp_calloc(nv + 1, 1);
	ix = cp_malloc((k + 1) * sizeof *ix);
	if (!p->viol_ok || !ix) {
		cp_free(ix);
		cp_free(p->viol_ok);
		p->viol_ok = NULL;
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	for (i = 0; i < nv; i++) {
		const int64_t *a = p->viol + i * k;

		n = nonzeros(a, NULL, k, ix);
		p->viol_ok[i] = 1;
		for (j = 0; j < m && p->viol_ok[i]; j++) {
			__int128 v = dot_at(a, S + j * k, ix, n);

			p->viol_ok[i] = p->viol_eq[i] ? v == 0 : v >= 0;
		}
	}
	cp_free(ix);
	p->viol_ok_of = p->viol;
	p->viol_ok_n = nv;
	return 0;
}

static int compare_cones(void *ctx, udd_features parent, udd_features child,
			 const struct explore_eval *pe, int *grows,
			 unsigned char *relaxed, struct cp_error *err)
{
	struct explore_family *f = ctx;
	struct entry *p, *c;
	size_t i, j, k = f->k, nv, cm, pm, jp = 0, nf = 0, *fresh;
	const uint32_t *cS, *pS;
	uint32_t *ix = NULL;
	int rc, any = 0;

	rc = explore_family_entry(f, parent, &p, err);
	if (!rc)
		rc = explore_family_entry(f, child, &c, err);
	if (rc)
		return rc;
	p = NULL;   /* get_entry may have moved the table */
	for (i = 0; i < f->n_entries; i++)
		if (f->entries[i].sel == parent)
			p = &f->entries[i];
	if (!p)
		return cp_error_set(err, CP_EINTERNAL, "lost a cached model");
	cm = pipe_model_n_signatures(c->pm);
	cS = pipe_model_signatures(c->pm);
	pS = pipe_model_signatures(p->pm);
	pm = pipe_model_n_signatures(p->pm);
	/* The child's signatures that are not the parent's: both lists are
	 * sorted (pipe_signatures, memcmp order), so one walk finds them. */
	if (!(fresh = cp_malloc((cm + 1) * sizeof *fresh)))
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	for (j = 0; j < cm; j++) {
		int cmp = 1;

		while (jp < pm && (cmp = memcmp(pS + jp * k, cS + j * k, k * sizeof *pS)) < 0)
			jp++;
		if (!(jp < pm && cmp == 0))
			fresh[nf++] = j;
	}
	/* A violated constraint is relaxed when some child signature breaks
	 * it (its vectors are kept parallel to the evaluation's list); one
	 * that holds on every parent signature can only be broken by a
	 * fresh one. */
	nv = p->evaluated ? p->eval.n_violations : 0;
	if (nv != pe->n_violations)
		nv = 0;
	if (nv && (rc = viol_checked(p, k, nv, err))) {
		cp_free(fresh);
		return rc;
	}
	if (nv && !(ix = cp_malloc((k + 1) * sizeof *ix))) {
		cp_free(fresh);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	for (i = 0; i < nv; i++) {
		const int64_t *a = p->viol + i * k;
		size_t n = nonzeros(a, NULL, k, ix);   /* a constraint reads a few */
		size_t nj = p->viol_ok[i] ? nf : cm;

		for (j = 0; j < nj && !relaxed[i]; j++) {
			__int128 v = dot_at(a, cS + (p->viol_ok[i] ? fresh[j] : j) * k, ix, n);

			relaxed[i] = p->viol_eq[i] ? v != 0 : v < 0;
		}
		any |= relaxed[i];
	}
	cp_free(ix);
	if (any) {
		cp_free(fresh);
		*grows = 1;   /* a signature outside a valid constraint */
		return 0;
	}
	/* The parent's own signatures lie in its cone: only the child's
	 * fresh ones are tested. */
	*grows = 0;
	for (j = 0; j < nf && !*grows; j++) {
		int inside = 1;

		rc = explore_family_in_cone(f, p, cS + fresh[j] * k, &inside, err);
		if (rc)
			break;
		*grows = !inside;
	}
	cp_free(fresh);
	return rc;
}

/* The callbacks, each charged to its phase. */
static int family_compare(void *ctx, udd_features parent, udd_features child,
			  const struct explore_eval *pe, int *grows,
			  unsigned char *relaxed, struct cp_error *err)
{
	enum explore_phase prev = explore_phase_enter(ctx, EXPLORE_PHASE_GROWTH);
	int rc = compare_cones(ctx, parent, child, pe, grows, relaxed, err);

	explore_phase_leave(ctx, prev);
	return rc;
}

static int family_monotone(void *ctx, udd_features fixed, udd_features varying,
			   struct explore_monotonicity *out, struct cp_error *err)
{
	enum explore_phase prev = explore_phase_enter(ctx, EXPLORE_PHASE_MONOTONE);
	int rc = explore_family_monotone(ctx, fixed, varying, out, err);

	explore_phase_leave(ctx, prev);
	return rc;
}

static int family_separate(void *ctx, udd_features a, udd_features b,
			   struct explore_separation *out, struct cp_error *err)
{
	enum explore_phase prev = explore_phase_enter(ctx, EXPLORE_PHASE_SEPARATE);
	int rc = explore_family_separate(ctx, a, b, out, err);

	explore_phase_leave(ctx, prev);
	return rc;
}

static int family_flows(void *ctx, udd_features sel, struct explore_flows *out,
			struct cp_error *err)
{
	enum explore_phase prev = explore_phase_enter(ctx, EXPLORE_PHASE_FLOWS);
	int rc = explore_family_flows(ctx, sel, out, err);

	explore_phase_leave(ctx, prev);
	return rc;
}

void explore_family_evaluator(struct explore_family *f,
			      struct explore_evaluator *ev)
{
	memset(ev, 0, sizeof *ev);
	ev->ctx = f;
	ev->evaluate = family_evaluate;
	ev->evaluate_batch = family_evaluate_batch;
	ev->compare = family_compare;
	ev->monotone = family_monotone;
	ev->separate = family_separate;
	ev->flows = family_flows;
}
