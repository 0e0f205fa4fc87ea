/* explore/family.c: the real evaluator of `counterpoint explore`: a μDD
 * model family (one model file, many feature sets) tested against one
 * dataset.  Per feature set it builds the distinct signatures, the exact
 * constraints when the cone budget allows, and the solver's LP, and keeps
 * them; per observation it builds the confidence region once. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "explore/explore.h"

#include "geometry/cone.h"
#include "solver/feas.h"
#include "stats/region.h"

/* One feature set's model, built once. */
struct entry {
	udd_features sel;
	size_t m;                 /* distinct signatures */
	uint32_t *S;              /* m x k, row-major, sorted rows */
	struct feas_model *fm;
	int has_facets;           /* constraints come from the cone */
	size_t n_cons;            /* equalities then facets (when has_facets) */
	int64_t *cons;            /* n_cons x k */
	unsigned char *cons_eq;
	/* The evaluation, kept so that compare() can test the violated
	 * constraints' vectors, parallel to eval.violations. */
	int evaluated;
	struct explore_eval eval;
	int64_t *viol;            /* eval.n_violations x k */
	unsigned char *viol_eq;
	/* Exact equalities of the cone (a basis of span(S)'s orthogonal
	 * complement), used to print violated constraints readably; NULL
	 * when a coefficient would not fit int64. */
	size_t n_eq;
	int64_t *eq;
	size_t n_inexact;         /* verdicts left to floating point */
};

struct explore_family {
	const struct udd_model *model;
	const struct stats_dataset *data;
	/* The model's counters whose events the dataset has: every cone is
	 * projected onto them (the projection of cone{S} is the cone of the
	 * projected signatures, so nothing else changes). */
	size_t k;
	size_t *cols;             /* k model counter indices */
	size_t n_missing;
	size_t *missing;          /* model counters the dataset lacks */
	const char **names;       /* counter names (owned by the model) */
	size_t n_obs;
	struct region **regions;
	struct feas_query *queries;
	struct explore_family_options opt;
	struct entry *entries;
	size_t n_entries, cap_entries;
	size_t checks;
	/* The fewest signatures whose facets went over budget: larger models
	 * (which in a family are mostly supersets) are not tried again. */
	size_t cone_over_m;
};

/* ================================================================ */
/* setup                                                            */
/* ================================================================ */

/* keep[i] = 1 for the model counters named in list ("a,b"); *keep stays
 * NULL when list is NULL or empty (all counters). */
static int pick_counters(const struct udd_model *m, const char *list,
			 unsigned char **keep, struct cp_error *err)
{
	const char *p = list;

	*keep = NULL;
	if (!list || !list[0])
		return 0;
	*keep = cp_calloc(udd_model_n_counters(m) + 1, 1);
	if (!*keep)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	while (*p) {
		size_t n = strcspn(p, ",");
		char name[256];
		long c;

		if (n == 0 || n >= sizeof name)
			return cp_error_set(err, CP_EINPUT, "bad counter list '%s'",
					    list);
		memcpy(name, p, n);
		name[n] = 0;
		c = udd_model_counter_find(m, name);
		if (c < 0)
			return cp_error_set(err, CP_EINPUT, "the model has no "
					    "counter '%s'", name);
		(*keep)[c] = 1;
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

int explore_family_new(const struct udd_model *m,
		       const struct stats_dataset *d,
		       const struct explore_family_options *opt,
		       struct explore_family **out, struct cp_error *err)
{
	struct explore_family *f;
	const char **events = NULL;
	struct region_options ro;
	unsigned char *keep = NULL;
	size_t i, km;
	int rc = 0;

	*out = NULL;
	f = cp_calloc(1, sizeof *f);
	if (!f)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	f->model = m;
	f->data = d;
	f->cone_over_m = SIZE_MAX;
	if (opt)
		f->opt = *opt;
	if (f->opt.confidence <= 0)
		f->opt.confidence = 0.99;
	if (f->opt.cone_seconds == 0)
		f->opt.cone_seconds = 5;
	if (!f->opt.max_facets)
		f->opt.max_facets = 5000;
	if (!f->opt.threads)
		f->opt.threads = 1;
	if (f->opt.region < 0 || f->opt.region > 2) {
		rc = cp_error_set(err, CP_EINPUT, "unknown region kind %d",
				  f->opt.region);
		goto out;
	}
	km = udd_model_n_counters(m);
	f->n_obs = stats_dataset_n_observations(d);
	f->cols = cp_calloc(km ? km : 1, sizeof *f->cols);
	f->missing = cp_calloc(km ? km : 1, sizeof *f->missing);
	f->names = cp_calloc(km ? km : 1, sizeof *f->names);
	events = cp_calloc(km ? km : 1, sizeof *events);
	f->regions = cp_calloc(f->n_obs ? f->n_obs : 1, sizeof *f->regions);
	f->queries = cp_calloc(f->n_obs ? f->n_obs : 1, sizeof *f->queries);
	if (!f->cols || !f->missing || !f->names || !events || !f->regions ||
	    !f->queries) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	rc = pick_counters(m, f->opt.counters, &keep, err);
	if (rc)
		goto out;
	for (i = 0; i < km; i++) {
		const char *ev = udd_model_counter_event(m, i);
		size_t e, ne = stats_dataset_n_events(d);

		for (e = 0; e < ne && strcmp(stats_dataset_event(d, e), ev); e++)
			;
		if (e == ne || (keep && !keep[i])) {
			f->missing[f->n_missing++] = i;
			continue;
		}
		f->cols[f->k] = i;
		f->names[f->k] = udd_model_counter_name(m, i);
		events[f->k++] = ev;
	}
	if (!f->k) {
		rc = cp_error_set(err, CP_EINPUT, "the dataset has none of the "
				  "model's events (such as '%s')",
				  km ? udd_model_counter_event(m, 0) : "?");
		goto out;
	}
	memset(&ro, 0, sizeof ro);
	ro.confidence = f->opt.confidence;
	ro.batches = f->opt.batches;
	ro.names = f->names;
	for (i = 0; i < f->n_obs; i++) {
		rc = stats_observation_region(d, i, events, f->k, &ro,
					      &f->regions[i], err);
		if (rc)
			goto out;
		feas_query_from_region(f->regions[i],
				       (enum feas_shape)f->opt.region,
				       &f->queries[i]);
	}
out:
	cp_free(events);
	cp_free(keep);
	if (rc) {
		explore_family_free(f);
		return rc;
	}
	*out = f;
	return 0;
}

static void entry_release(struct entry *e)
{
	cp_free(e->S);
	feas_model_free(e->fm);
	cp_free(e->cons);
	cp_free(e->cons_eq);
	explore_eval_release(&e->eval);
	cp_free(e->viol);
	cp_free(e->viol_eq);
	cp_free(e->eq);
}

void explore_family_free(struct explore_family *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->n_entries; i++)
		entry_release(&f->entries[i]);
	cp_free(f->entries);
	for (i = 0; i < f->n_obs; i++)
		region_free(f->regions[i]);
	cp_free(f->regions);
	cp_free(f->queries);
	cp_free(f->names);
	cp_free(f->cols);
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
		n += f->entries[i].has_facets != 0;
	*models = f->n_entries;
	*with_facets = n;
	*checked = f->n_obs ? f->checks / f->n_obs : 0;
	*checks = f->checks;
}

/* ================================================================ */
/* building one feature set's model                                 */
/* ================================================================ */

/* Exact a.s for an integer constraint and a signature; a's entries are
 * primitive and small, s's are counts per μpath, so __int128 never
 * overflows. */
static __int128 dot_exact(const int64_t *a, const uint32_t *s, size_t k)
{
	__int128 v = 0;
	size_t i;

	for (i = 0; i < k; i++)
		v += (__int128)a[i] * s[i];
	return v;
}

/* Signature rows compare bytewise (any total order will do); k comes
 * through qsort_r's context, so there is no global state. */
static int row_cmp(const void *a, const void *b, void *k)
{
	return memcmp(a, b, *(const size_t *)k * sizeof(uint32_t));
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
 * all) is not an error: the solver's certificates explain violations. */
static int entry_constraints(struct explore_family *f, struct entry *e,
			     struct cp_error *err)
{
	struct cone_options co;
	struct cone *c = NULL;
	struct cp_error cerr;
	size_t i, ne, nf;
	int rc;

	if (f->opt.cone_seconds < 0 || e->m == 0 || e->m >= f->cone_over_m)
		return 0;
	memset(&co, 0, sizeof co);
	co.max_facets = f->opt.max_facets;
	co.max_seconds = f->opt.cone_seconds;
	cp_error_clear(&cerr);
	rc = cone_build(f->k, e->m, e->S, &co, &c, &cerr);
	if (rc == CP_ENOMEM)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	if (rc == CP_ELIMIT && e->m < f->cone_over_m)
		f->cone_over_m = e->m;
	if (rc)
		return 0;   /* over budget or numerically hard: no facets */
	ne = cone_n_equalities(c);
	nf = cone_n_facets(c);
	e->n_cons = ne + nf;
	e->cons = cp_calloc(e->n_cons ? e->n_cons * f->k : 1, sizeof *e->cons);
	e->cons_eq = cp_calloc(e->n_cons ? e->n_cons : 1, 1);
	if (!e->cons || !e->cons_eq) {
		cone_free(c);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	for (i = 0; i < e->n_cons; i++) {
		const int64_t *a = i < ne ? cone_equality(c, i) :
			cone_facet(c, i - ne);

		memcpy(e->cons + i * f->k, a, f->k * sizeof *a);
		e->cons_eq[i] = i < ne;
	}
	cone_free(c);
	for (i = 0; i < e->n_cons; i++) {
		rc = feas_model_add_constraint(e->fm, e->cons + i * f->k,
					       e->cons_eq[i], err);
		if (rc)
			return rc;
	}
	e->has_facets = 1;
	return 0;
}

static int entry_equalities(struct entry *e, size_t k, struct cp_error *err);

/* The entry of sel, built on first use. */
static int get_entry(struct explore_family *f, udd_features sel,
		     struct entry **out, struct cp_error *err)
{
	struct udd_sigset *ss = NULL;
	struct entry *e;
	size_t i, j, k = f->k;
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
	rc = udd_sigset_build(f->model, sel, 0, &ss, err);
	if (rc)
		goto fail;
	if (udd_sigset_n_counters(ss) != udd_model_n_counters(f->model)) {
		rc = cp_error_set(err, CP_EINTERNAL,
				  "signature set has %zu counters, model %zu",
				  udd_sigset_n_counters(ss),
				  udd_model_n_counters(f->model));
		goto fail;
	}
	e->m = udd_sigset_size(ss);
	e->S = cp_calloc(e->m && k ? e->m * k : 1, sizeof *e->S);
	if (!e->S) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto fail;
	}
	for (j = 0; j < e->m; j++) {
		const uint32_t *sig = udd_sigset_signature(ss, j);

		for (i = 0; i < k; i++)
			e->S[j * k + i] = sig[f->cols[i]];
	}
	udd_sigset_free(ss);
	ss = NULL;
	/* Rows sorted bytewise, so equal signature sets compare equal and
	 * membership is a binary search. */
	if (e->m && k)
		qsort_r(e->S, e->m, k * sizeof *e->S, row_cmp, &k);
	rc = feas_model_new(k, e->m, e->S, NULL, &e->fm, err);
	if (!rc)
		rc = entry_equalities(e, k, err);
	if (rc)
		goto fail;
	f->n_entries++;
	*out = e;
	return 0;
fail:
	udd_sigset_free(ss);
	entry_release(e);
	return rc;
}

/* ================================================================ */
/* exact equalities and readable constraints                        */
/* ================================================================ */

/* The equalities of cone{S} (geometry's exact basis), to print violated
 * constraints readably; none when a coefficient would not fit int64
 * (printing falls back to raw vectors). */
static int entry_equalities(struct entry *e, size_t k, struct cp_error *err)
{
	struct cp_error ce;
	int rc;

	cp_error_clear(&ce);
	rc = cone_equalities(k, e->m, e->S, &e->n_eq, &e->eq, &ce);
	if (rc == CP_ENOMEM)
		return cp_error_set(err, rc, "out of memory");
	if (rc) {
		e->n_eq = 0;
		e->eq = NULL;
	}
	return 0;
}

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
	cone_readable(k, e->eq, e->n_eq, e->S, e->m, is_eq,
		      q ? region_breaks : NULL, &b, a);
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
	rc = -1;
	if (f->opt.threads > 1 && f->n_obs > 1)
		rc = feas_check_batch(e->fm, f->n_obs, f->queries, FEAS_EXPLAIN,
				      f->opt.threads, res, NULL, NULL, err);
	if (rc) {
		rc = 0;
		for (i = 0; i < f->n_obs && !rc; i++) {
			rc = feas_check(e->fm, &f->queries[i], FEAS_EXPLAIN,
					&res[i], err);
			/* A borderline verdict whose exact re-check failed:
			 * keep the floating-point verdict rather than stop
			 * the whole search. */
			if (rc == CP_ENUMERIC) {
				e->n_inexact++;
				rc = feas_check(e->fm, &f->queries[i],
						FEAS_EXPLAIN | FEAS_NO_EXACT,
						&res[i], err);
			}
		}
	}
	f->checks += f->n_obs;
	e->eval.n_observations = f->n_obs;
	for (i = 0; i < f->n_obs && !rc; i++) {
		if (res[i].feasible)
			continue;
		e->eval.n_infeasible++;
		if (e->eval.n_infeasible <= 4)
			cp_buf_printf(&names, "%s%s", e->eval.n_infeasible > 1 ?
				      ", " : "", stats_dataset_observation(f->data, i));
		for (j = 0; j < res[i].n_violations && !rc; j++)
			rc = count_violation(f, e, res[i].violations[j].a,
					     res[i].violations[j].is_equality,
					     &f->queries[i], err);
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

	rc = get_entry(f, sel, &e, err);
	if (rc)
		return rc;
	if (!e->evaluated) {
		const struct entry *same = NULL;

		for (i = 0; i < f->n_entries && !same; i++) {
			const struct entry *o = &f->entries[i];

			if (o != e && o->evaluated && o->m == e->m &&
			    !memcmp(o->S, e->S, e->m * f->k * sizeof *e->S))
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
	out->n_signatures = e->m;
	if (e->eval.refuted_by &&
	    !(out->refuted_by = cp_strdup(e->eval.refuted_by)))
		return cp_error_set(err, CP_ENOMEM, "out of memory");
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
static int in_cone(struct explore_family *f, struct entry *p,
		   const uint32_t *s, int *inside, struct cp_error *err)
{
	struct feas_query q;
	struct feas_result res;
	double *mu, *half;
	size_t i;
	int rc;

	if (p->has_facets) {
		*inside = 1;
		for (i = 0; i < p->n_cons && *inside; i++) {
			__int128 v = dot_exact(p->cons + i * f->k, s, f->k);

			*inside = p->cons_eq[i] ? v == 0 : v >= 0;
		}
		return 0;
	}
	if (has_row(p->S, p->m, f->k, s)) {
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
	rc = feas_check(p->fm, &q, 0, &res, err);
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
	size_t i, j, k = f->k, nv;
	int rc, any = 0;

	rc = get_entry(f, parent, &p, err);
	if (!rc)
		rc = get_entry(f, child, &c, err);
	if (rc)
		return rc;
	p = NULL;   /* get_entry may have moved the table */
	for (i = 0; i < f->n_entries; i++)
		if (f->entries[i].sel == parent)
			p = &f->entries[i];
	if (!p)
		return cp_error_set(err, CP_EINTERNAL, "lost a cached model");
	/* A violated constraint is relaxed when some child signature breaks
	 * it (its vectors are kept parallel to the evaluation's list). */
	nv = p->evaluated ? p->eval.n_violations : 0;
	if (nv != pe->n_violations)
		nv = 0;
	for (i = 0; i < nv; i++) {
		const int64_t *a = p->viol + i * k;

		for (j = 0; j < c->m && !relaxed[i]; j++) {
			__int128 v = dot_exact(a, c->S + j * k, k);

			relaxed[i] = p->viol_eq[i] ? v != 0 : v < 0;
		}
		any |= relaxed[i];
	}
	if (any) {
		*grows = 1;   /* a signature outside a valid constraint */
		return 0;
	}
	*grows = 0;
	for (j = 0; j < c->m && !*grows; j++) {
		int inside = 1;

		rc = in_cone(f, p, c->S + j * k, &inside, err);
		if (rc)
			return rc;
		*grows = !inside;
	}
	return 0;
}

void explore_family_evaluator(struct explore_family *f,
			      struct explore_evaluator *ev)
{
	ev->ctx = f;
	ev->evaluate = family_evaluate;
	ev->compare = family_compare;
}
