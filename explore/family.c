/* explore/family.c: the real evaluator of `counterpoint explore`: a μDD
 * model family (one model file, many feature sets) tested against one
 * dataset through the library pipeline (pipeline/pipeline.h): the
 * dataset's regions once (pipe_data), one pipe_model per feature set,
 * kept, with its cone's facets listed (under the budget) only for the
 * feature sets that are evaluated. */
#include <math.h>
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
	if ((rc = pipe_data_new(m, d, &po, &f->pd, err)))
		goto out;
	f->k = pipe_data_n_counters(f->pd);
	f->n_obs = pipe_data_n_observations(f->pd);
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
}

void explore_family_free(struct explore_family *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->n_entries; i++)
		entry_release(&f->entries[i]);
	cp_free(f->entries);
	pipe_data_free(f->pd);
	cp_free(f->missing);
	cp_free(f);
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

void explore_family_stats(const struct explore_family *f, size_t *models,
			  size_t *with_facets, size_t *checked, size_t *checks)
{
	size_t i, n = 0;

	for (i = 0; i < f->n_entries; i++)
		n += pipe_model_has_facets(f->entries[i].pm) != 0;
	*models = f->n_entries;
	*with_facets = n;
	*checked = f->n_obs ? f->checks / f->n_obs : 0;
	*checks = f->checks;
}

/* ================================================================ */
/* one feature set's model                                          */
/* ================================================================ */

/* Exact a.s for an integer constraint and a signature; a's entries are
 * primitive and small, s's are counts per μpath, so __int128 never
 * overflows. */
__int128 explore_dot_exact(const int64_t *a, const uint32_t *s, size_t k)
{
	__int128 v = 0;
	size_t i;

	for (i = 0; i < k; i++)
		v += (__int128)a[i] * s[i];
	return v;
}

/* Is row s one of the m sorted rows of S? */
static int has_row(const uint32_t *S, size_t m, size_t k, const uint32_t *s)
{
	size_t lo = 0, hi = m;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = memcmp(S + mid * k, s, k * sizeof *s);

		if (!c)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
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

	if (f->opt.cone_seconds < 0 || m == 0 || m >= f->cone_over_m)
		return 0;
	rc = pipe_model_list_facets(e->pm, &b, err);
	if (!rc && pipe_model_over_budget(e->pm) && m < f->cone_over_m)
		f->cone_over_m = m;
	return rc;
}

/* The entry of sel, built on first use. */
int explore_family_entry(struct explore_family *f, udd_features sel,
		     struct entry **out, struct cp_error *err)
{
	struct entry *e;
	size_t i;
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
	rc = pipe_model_new(f->model, sel, f->pd, NULL, &e->pm, err);
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
	if (copy_witness(&dst->eval, &src->eval))
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	if (src->eval.refuted_by &&
	    !(dst->eval.refuted_by = cp_strdup(src->eval.refuted_by)))
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	return 0;
}

static int run_checks(struct explore_family *f, struct entry *e,
		      struct cp_error *err)
{
	struct feas_result *res;
	struct cp_buf names;
	size_t i, j;
	int rc;

	cp_buf_init(&names);
	res = cp_calloc(f->n_obs ? f->n_obs : 1, sizeof *res);
	if (!res)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	for (i = 0; i < f->n_obs; i++)
		feas_result_init(&res[i]);
	rc = pipe_check(e->pm, f->pd, FEAS_EXPLAIN, f->opt.threads, res,
			&e->n_inexact, NULL, NULL, err);
	f->checks += f->n_obs;
	e->eval.n_observations = f->n_obs;
	for (i = 0; i < f->n_obs && !rc; i++) {
		if (res[i].feasible)
			continue;
		e->eval.n_infeasible++;
		if (e->eval.n_infeasible == 1 && res[i].n_violations) {
			const struct feas_violation *v = &res[i].violations[0];

			e->eval.witness = cp_strdup(stats_dataset_observation(f->data, i));
			e->eval.witness_constraint =
				constraint_text(f, e, v->a, v->is_equality,
						pipe_data_query(f->pd, i));
			e->eval.witness_margin = v->margin;
			if (!e->eval.witness || !e->eval.witness_constraint)
				rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		}
		if (e->eval.n_infeasible <= 4)
			cp_buf_printf(&names, "%s%s", e->eval.n_infeasible > 1 ?
				      ", " : "", stats_dataset_observation(f->data, i));
		for (j = 0; j < res[i].n_violations && !rc; j++)
			rc = count_violation(f, e, res[i].violations[j].a,
					     res[i].violations[j].is_equality,
					     pipe_data_query(f->pd, i), err);
	}
	if (e->eval.n_infeasible > 4)
		cp_buf_printf(&names, " (+%zu more)", e->eval.n_infeasible - 4);
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

static int family_evaluate(void *ctx, udd_features sel,
			   struct explore_eval *out, struct cp_error *err)
{
	struct explore_family *f = ctx;
	struct entry *e;
	size_t i;
	int rc;

	rc = explore_family_entry(f, sel, &e, err);
	if (rc)
		return rc;
	if (!e->evaluated) {
		const struct entry *same = NULL;

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
		rc = same ? copy_eval(f, e, same, err) :
			entry_constraints(f, e, err);
		if (!rc && !same)
			rc = run_checks(f, e, err);
		if (rc) {
			explore_eval_release(&e->eval);
			return rc;
		}
		e->evaluated = 1;
	}
	/* The search owns *out: give it a copy of the cached evaluation. */
	out->n_observations = e->eval.n_observations;
	out->n_infeasible = e->eval.n_infeasible;
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

/* Is signature s (k counts) in the cone of entry p?  Exact with p's
 * constraints; otherwise s is a signature of p (binary search) or the
 * solver decides with s as a zero-width box (its borderline verdicts are
 * settled exactly). */
int explore_family_in_cone(struct explore_family *f, struct entry *p,
		   const uint32_t *s, int *inside, struct cp_error *err)
{
	struct feas_query q;
	struct feas_result res;
	double *mu, *half;
	size_t i;
	int rc;

	if (pipe_model_has_facets(p->pm)) {
		size_t ne = pipe_model_n_equalities(p->pm);

		*inside = 1;
		for (i = 0; i < ne + pipe_model_n_facets(p->pm) && *inside; i++) {
			__int128 v = explore_dot_exact(pipe_model_constraint(p->pm, i), s, f->k);

			*inside = i < ne ? v == 0 : v >= 0;
		}
		return 0;
	}
	if (has_row(pipe_model_signatures(p->pm), pipe_model_n_signatures(p->pm), f->k, s)) {
		*inside = 1;
		return 0;
	}
	mu = cp_calloc(2 * f->k, sizeof *mu);
	if (!mu)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	half = mu + f->k;
	for (i = 0; i < f->k; i++)
		mu[i] = (double)s[i];
	memset(&q, 0, sizeof q);
	q.shape = FEAS_INDEPENDENT;
	q.mu = mu;
	q.half = half;
	feas_result_init(&res);
	rc = feas_check(pipe_model_solver(p->pm), &q, 0, &res, err);
	*inside = res.feasible;
	feas_result_release(&res);
	cp_free(mu);
	return rc;
}

static int family_compare(void *ctx, udd_features parent, udd_features child,
			  const struct explore_eval *pe, int *grows,
			  unsigned char *relaxed, struct cp_error *err)
{
	struct explore_family *f = ctx;
	struct entry *p, *c;
	size_t i, j, k = f->k, nv, cm;
	const uint32_t *cS;
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
	/* A violated constraint is relaxed when some child signature breaks
	 * it (its vectors are kept parallel to the evaluation's list). */
	nv = p->evaluated ? p->eval.n_violations : 0;
	if (nv != pe->n_violations)
		nv = 0;
	for (i = 0; i < nv; i++) {
		const int64_t *a = p->viol + i * k;

		for (j = 0; j < cm && !relaxed[i]; j++) {
			__int128 v = explore_dot_exact(a, cS + j * k, k);

			relaxed[i] = p->viol_eq[i] ? v != 0 : v < 0;
		}
		any |= relaxed[i];
	}
	if (any) {
		*grows = 1;   /* a signature outside a valid constraint */
		return 0;
	}
	*grows = 0;
	for (j = 0; j < cm && !*grows; j++) {
		int inside = 1;

		rc = explore_family_in_cone(f, p, cS + j * k, &inside, err);
		if (rc)
			return rc;
		*grows = !inside;
	}
	return 0;
}

void explore_family_evaluator(struct explore_family *f,
			      struct explore_evaluator *ev)
{
	memset(ev, 0, sizeof *ev);
	ev->ctx = f;
	ev->evaluate = family_evaluate;
	ev->compare = family_compare;
	ev->monotone = explore_family_monotone;
	ev->separate = explore_family_separate;
}
