/* solver/feas.c: feasibility of a confidence region against a model cone.
 * Boxes go through a GLPK LP built once per model (per thread) whose row
 * bounds alone change between observations; the ellipsoid through exact
 * NNLS.  Infeasible observations are explained by the listed model
 * constraints (closed-form support functions) or, when none is listed or
 * none breaks, by a Farkas certificate tightened to a facet of the cone. */
#include <glpk.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <lapacke.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "solver/feas.h"
#include "solver/feas_int.h"

#include "geometry/cone.h"
#include "stats/region.h"

/* ================================================================ *
 * Data                                                              *
 * ================================================================ */

/* Per-thread LP state.  GLPK keeps its environment in thread-local
 * storage, so a worker is created, used and freed in one thread. */
struct worker {
	const struct feas_model *fm;
	pthread_t thread;
	jmp_buf jump;       /* glp_error_hook lands here */
	int broken;         /* a GLPK error happened: never touch GLPK again */

	/* Box LP: rows i = 1..k:  sum_p S[p][i] f_p - sum_j W[j][i] y_j = 0;
	 * columns 1..k the box coordinates y_j = w_j.x, bounded by the box,
	 * then one column per active signature, its flow f_p >= 0.  Only y's
	 * bounds and (for PCA boxes) y's columns change between
	 * observations. */
	glp_prob *box;
	int box_identity;   /* y's columns currently hold W = I */
	/* Working set (column generation): only active flow columns are free
	 * as LP columns; the others are not in the LP at all.
	 * A Farkas certificate of the restricted LP is priced against every
	 * signature; the ones it violates join the set and the LP is solved
	 * again.  So a check costs a small LP (GLPK's per-solve overhead grows
	 * with the columns, even fixed ones) plus, when infeasible, one pass
	 * over S.  Column k+1+c holds signature colsig[c]. */
	long double *resid;  /* 2k: box_residual's sums */
	double *ysign;       /* k: sign of each PCA axis in the LP */
	unsigned char *active;
	size_t n_active, *colsig, *price_pick;
	size_t *passive, n_passive;  /* NNLS warm start */
	double *price_score;
	int *delcols;
	glp_smcp dual;

	/* Facet-finding LP in the reduced space z (d = dim span S):
	 * rows p = 1..m: z.(Q s_p) >= 0; row m+1: z.(Q c) = 1; minimise
	 * z.(Q x*).  Its vertices are the facets of the cone. */
	glp_prob *facet;
	unsigned char *facet_row;  /* signature p is a row of the facet LP */
	size_t facet_extra;        /* rows added by row generation */
	glp_smcp primal;

	/* scratch */
	int *ind;
	double *val, *vk, *vk2, *rho, *xstar;
	struct feas_stats st;
};

struct feas_model {
	size_t k, m;        /* m counts the non-zero signatures only */
	size_t nr;          /* columns of the LPs: the first nr signatures
			     * (all of them: dropping the non-extreme ones by
			     * LP cost seconds per model and saved little) */
	double *S;          /* m x k */
	uint32_t *Su;       /* m x k, exact */
	double *snorm;      /* m: ||s_p|| */
	size_t d;           /* dim span(S) */
	double *Q;          /* d x k orthonormal basis of span(S) */
	double *Qs;         /* m x d: Q s_p */
	double *qc;         /* d: Q c, c = sum of s_p/||s_p|| over basis_rows */
	size_t *basis_rows; /* d linearly independent signatures (0 if fewer
			     * were found: no facet LP) */
	size_t n_basis_rows;
	size_t n_eqb;
	int64_t *eqb;       /* n_eqb x k: integer basis of span(S)'s orthogonal
			     * complement (the model's equalities), sparse
			     * (reduced row echelon form), each checked exactly */
	size_t n_cons;
	int64_t *cons;      /* n_cons x k */
	unsigned char *cons_eq;
	struct worker *own; /* feas_check's LP, bound to its thread */
	struct feas_stats st;
};

/* ================================================================ *
 * Small linear algebra and support functions                        *
 * ================================================================ */

static double dot(const double *a, const double *b, size_t k)
{
	double s = 0;
	size_t i;

	for (i = 0; i < k; i++)
		s += a[i] * b[i];
	return s;
}

/* The region's half-width along a:  max_{x in R} a.(x - mu).
 *   PCA box:      sum_i half_i |axes_i . a|
 *   independent:  sum_j half_j |a_j|
 *   ellipsoid:    sqrt(q a^T cov a)                                   */
static double spread(const struct feas_query *q, const double *a, size_t k)
{
	double s = 0;
	size_t i, j;

	switch (q->shape) {
	case FEAS_PCA:
		for (i = 0; i < k; i++)
			s += q->half[i] * fabs(dot(q->axes + i * k, a, k));
		return s;
	case FEAS_INDEPENDENT:
		for (j = 0; j < k; j++)
			s += q->half[j] * fabs(a[j]);
		return s;
	case FEAS_ELLIPSOID:
		for (i = 0; i < k; i++)
			for (j = 0; j < k; j++)
				s += a[i] * q->cov[i * k + j] * a[j];
		return sqrt(q->q * (s > 0 ? s : 0));
	}
	return NAN;
}

/* Standard deviation of a.x under the covariance of the mean (or the
 * half-width when the query has no covariance). */
static double sd_along(const struct feas_query *q, const double *a, size_t k)
{
	double s = 0;
	size_t i, j;

	if (!q->cov)
		return spread(q, a, k);
	for (i = 0; i < k; i++)
		for (j = 0; j < k; j++)
			s += a[i] * q->cov[i * k + j] * a[j];
	return sqrt(s > 0 ? s : 0);
}

/* Margin of constraint a (see feas.h): positive when the whole region
 * breaks it.  For a.x >= 0 the region's largest a.x is a.mu + spread. */
static double margin_of(const struct feas_query *q, const double *a, size_t k,
			int is_equality, double *mean_sd);

double feas_margin(const struct feas_query *q, const double *a, size_t k,
		   int is_equality, double *mean_sd)
{
	double ms;

	return margin_of(q, a, k, is_equality, mean_sd ? mean_sd : &ms);
}

static double margin_of(const struct feas_query *q, const double *a, size_t k,
			int is_equality, double *mean_sd)
{
	double c = dot(a, q->mu, k), h = spread(q, a, k);
	double sd = sd_along(q, a, k);

	if (!(sd > 0))
		sd = 1;  /* a zero-width region: margins in plain units */
	*mean_sd = c / sd;
	if (!is_equality)
		return -(c + h) / sd;
	if (c - h > 0)
		return (c - h) / sd;
	if (c + h < 0)
		return -(c + h) / sd;
	return -fmin(c + h, h - c) / sd;
}

/* Validate a query: every number finite, widths non-negative. */
static int query_check(const struct feas_query *q, size_t k,
		       struct cp_error *err)
{
	size_t i;

	if (!q || !q->mu)
		return cp_error_set(err, CP_EINPUT, "region without a centre");
	for (i = 0; i < k; i++)
		if (!isfinite(q->mu[i]))
			return cp_error_set(err, CP_EINPUT,
					    "region centre is not finite in counter %zu", i);
	if (q->shape == FEAS_PCA || q->shape == FEAS_INDEPENDENT) {
		if (!q->half || (q->shape == FEAS_PCA && !q->axes))
			return cp_error_set(err, CP_EINPUT, "box region without its widths or axes");
		for (i = 0; i < k; i++)
			if (!isfinite(q->half[i]) || q->half[i] < 0)
				return cp_error_set(err, CP_EINPUT,
						    "box half-width %zu is negative or not finite", i);
		if (q->shape == FEAS_PCA)
			for (i = 0; i < k * k; i++)
				if (!isfinite(q->axes[i]))
					return cp_error_set(err, CP_EINPUT, "box axes are not finite");
	} else if (q->shape == FEAS_ELLIPSOID) {
		if (!q->cov || !isfinite(q->q) || q->q < 0)
			return cp_error_set(err, CP_EINPUT,
					    "ellipsoid region without a covariance or a finite quantile");
	} else {
		return cp_error_set(err, CP_EINPUT, "unknown region shape %d", (int)q->shape);
	}
	if (q->cov)
		for (i = 0; i < k * k; i++)
			if (!isfinite(q->cov[i]))
				return cp_error_set(err, CP_EINPUT, "region covariance is not finite");
	return CP_OK;
}

/* ================================================================ *
 * Model                                                             *
 * ================================================================ */

/* Orthonormal basis of span(S): eigenvectors of the Gram matrix
 * G = sum_p s_p s_p^T whose eigenvalues exceed 1e-10 of the largest. */
static int span_basis(struct feas_model *fm, struct cp_error *err)
{
	size_t k = fm->k, m = fm->m, i, j, p, d = 0;
	double *G = cp_calloc(k * k, sizeof *G), *ev = cp_malloc(k * sizeof *ev);
	int rc = CP_OK;

	if (!G || !ev) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory building the solver");
		goto out;
	}
	for (p = 0; p < m; p++) {
		const double *s = fm->S + p * k;

		for (i = 0; i < k; i++)
			for (j = 0; j < k; j++)
				G[i * k + j] += s[i] * s[j];
	}
	if (LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'V', 'U', (lapack_int)k, G,
			   (lapack_int)k, ev) != 0) {
		rc = cp_error_set(err, CP_ENUMERIC, "eigen-decomposition of the signatures failed");
		goto out;
	}
	for (i = 0; i < k; i++)
		if (ev[i] > 1e-10 * ev[k - 1])
			d++;
	fm->Q = cp_malloc((d ? d : 1) * k * sizeof *fm->Q);
	fm->Qs = cp_malloc((m ? m : 1) * (d ? d : 1) * sizeof *fm->Qs);
	fm->qc = cp_calloc(d ? d : 1, sizeof *fm->qc);
	if (!fm->Q || !fm->Qs || !fm->qc) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory building the solver");
		goto out;
	}
	fm->d = d;
	/* eigenvectors are the columns of G, ascending: take the last d */
	for (j = 0; j < d; j++)
		for (i = 0; i < k; i++)
			fm->Q[j * k + i] = G[i * k + (k - d + j)];
	for (p = 0; p < m; p++)
		for (j = 0; j < d; j++)
			fm->Qs[p * d + j] = dot(fm->Q + j * k, fm->S + p * k, k);
	/* d independent signatures, greedily (Gram-Schmidt in the span's
	 * coordinates); c = the sum of their unit vectors lies inside
	 * their cone, hence inside C, so {f : f.c = 1} slices C's dual in a
	 * bounded set, and already their d rows bound it. */
	fm->basis_rows = cp_malloc((d ? d : 1) * sizeof *fm->basis_rows);
	{
		double *gs = cp_malloc((d ? d : 1) * (d ? d : 1) * sizeof *gs);
		double *v = cp_malloc((d ? d : 1) * sizeof *v);
		size_t nb = 0, b;

		if (!fm->basis_rows || !gs || !v) {
			cp_free(gs);
			cp_free(v);
			rc = cp_error_set(err, CP_ENOMEM, "out of memory building the solver");
			goto out;
		}
		for (p = 0; p < m && nb < d; p++) {
			double nv = 0;

			memcpy(v, fm->Qs + p * d, d * sizeof *v);
			for (b = 0; b < nb; b++) {
				double t = dot(v, gs + b * d, d);

				for (j = 0; j < d; j++)
					v[j] -= t * gs[b * d + j];
			}
			nv = sqrt(dot(v, v, d));
			if (nv <= 1e-8 * fm->snorm[p])
				continue;
			for (j = 0; j < d; j++)
				gs[nb * d + j] = v[j] / nv;
			fm->basis_rows[nb++] = p;
			for (j = 0; j < d; j++)
				fm->qc[j] += fm->Qs[p * d + j] / fm->snorm[p];
		}
		fm->n_basis_rows = nb == d ? d : 0;
		cp_free(gs);
		cp_free(v);
	}
out:
	cp_free(G);
	cp_free(ev);
	return rc;
}

static int glpk_quiet_hook(void *info, const char *s)
{
	(void)info;
	(void)s;
	return 1;  /* swallow every line GLPK would print */
}

static int integerize(const double *a, size_t k, int64_t *out);
static int exact_valid(const struct feas_model *fm, const int64_t *a,
		       int is_equality, const unsigned char *mask);

/* The model's equalities, exactly (geometry's canonical basis of span(S)'s
 * orthogonal complement).  They let derived constraints be written in their
 * sparsest form (load.pde_miss <= load.causes_walk rather than a
 * combination with load.walk_done = load.causes_walk).  A basis with a
 * coefficient beyond 64 bits is left out: constraints are then printed as
 * derived, still exact. */
static int equality_basis(struct feas_model *fm, struct cp_error *err)
{
	struct cp_error e;
	int rc;

	if (fm->k == 0)
		return CP_OK;
	cp_error_clear(&e);
	rc = cone_equalities(fm->k, fm->m, fm->Su, &fm->n_eqb, &fm->eqb, &e);
	if (rc == CP_ENOMEM)
		return cp_error_set(err, rc, "out of memory building the solver");
	if (rc) {
		fm->n_eqb = 0;
		fm->eqb = NULL;
	}
	return CP_OK;
}

int feas_model_new(size_t k, size_t m, const uint32_t *S,
		   const struct feas_model_options *opt,
		   struct feas_model **out, struct cp_error *err)
{
	struct feas_model *fm;
	size_t p, i, kept = 0;
	int rc;

	(void)opt;
	*out = NULL;
	if (k == 0 || k > 100000 || m > 100000000 / k)
		return cp_error_set(err, CP_EINPUT,
				    "model with %zu counters and %zu signatures is out of range", k, m);
	fm = cp_calloc(1, sizeof *fm);
	if (!fm)
		return cp_error_set(err, CP_ENOMEM, "out of memory building the solver");
	fm->k = k;
	fm->S = cp_malloc((m ? m : 1) * k * sizeof *fm->S);
	fm->Su = cp_malloc((m ? m : 1) * k * sizeof *fm->Su);
	fm->snorm = cp_malloc((m ? m : 1) * sizeof *fm->snorm);
	if (!fm->S || !fm->Su || !fm->snorm) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory building the solver");
		goto fail;
	}
	for (p = 0; p < m; p++) {
		double n2 = 0;

		for (i = 0; i < k; i++)
			n2 += (double)S[p * k + i] * S[p * k + i];
		if (n2 == 0)
			continue;  /* counts nothing: every region contains 0*s */
		for (i = 0; i < k; i++) {
			fm->Su[kept * k + i] = S[p * k + i];
			fm->S[kept * k + i] = S[p * k + i];
		}
		fm->snorm[kept++] = sqrt(n2);
	}
	fm->m = kept;
	fm->nr = kept;
	rc = span_basis(fm, err);
	if (rc)
		goto fail;
	rc = equality_basis(fm, err);
	if (rc)
		goto fail;
	*out = fm;
	return CP_OK;
fail:
	feas_model_free(fm);
	return rc;
}

static void worker_free(struct worker *w);

void feas_model_free(struct feas_model *fm)
{
	if (!fm)
		return;
	worker_free(fm->own);
	cp_free(fm->S);
	cp_free(fm->Su);
	cp_free(fm->snorm);
	cp_free(fm->Q);
	cp_free(fm->Qs);
	cp_free(fm->qc);
	cp_free(fm->basis_rows);
	cp_free(fm->eqb);
	cp_free(fm->cons);
	cp_free(fm->cons_eq);
	cp_free(fm);
}

size_t feas_model_n_counters(const struct feas_model *fm) { return fm->k; }
size_t feas_model_n_signatures(const struct feas_model *fm) { return fm->m; }
size_t feas_model_dim(const struct feas_model *fm) { return fm->d; }
size_t feas_model_n_constraints(const struct feas_model *fm) { return fm->n_cons; }

int feas_model_add_constraint(struct feas_model *fm, const int64_t *a,
			      int is_equality, struct cp_error *err)
{
	int64_t *c;
	unsigned char *e;

	if (fm->own)
		return cp_error_set(err, CP_EINTERNAL,
				    "constraints must be added before the first check");
	c = cp_reallocarray(fm->cons, (fm->n_cons + 1) * fm->k, sizeof *c);
	if (!c)
		return cp_error_set(err, CP_ENOMEM, "out of memory adding a constraint");
	fm->cons = c;
	e = cp_realloc(fm->cons_eq, fm->n_cons + 1);
	if (!e)
		return cp_error_set(err, CP_ENOMEM, "out of memory adding a constraint");
	fm->cons_eq = e;
	memcpy(c + fm->n_cons * fm->k, a, fm->k * sizeof *c);
	e[fm->n_cons++] = is_equality ? 1 : 0;
	return CP_OK;
}

void feas_model_stats(const struct feas_model *fm, struct feas_stats *st)
{
	*st = fm->st;
	if (fm->own) {
		st->lp_solves += fm->own->st.lp_solves;
		st->exact_solves += fm->own->st.exact_solves;
		st->borderline += fm->own->st.borderline;
		st->certificates += fm->own->st.certificates;
		st->facet_lps += fm->own->st.facet_lps;
		st->facets_verified += fm->own->st.facets_verified;
		st->shrink_tests += fm->own->st.shrink_tests;
		if (fm->own->box && !fm->own->broken)
			st->iterations += (uint64_t)glp_get_it_cnt(fm->own->box);
	}
}

/* ================================================================ *
 * Results                                                           *
 * ================================================================ */

void feas_result_init(struct feas_result *res)
{
	memset(res, 0, sizeof *res);
	res->d2 = res->p_value = NAN;
}

void feas_result_release(struct feas_result *res)
{
	size_t i;

	if (!res)
		return;
	for (i = 0; i < res->n_violations; i++)
		cp_free(res->violations[i].a);
	cp_free(res->violations);
	feas_result_init(res);
}

static int add_violation(struct feas_result *res, size_t k, const int64_t *a,
			 int is_equality, int is_facet, int exact, size_t index,
			 double margin, double mean_sd)
{
	struct feas_violation *v;
	size_t i;

	/* the same constraint twice (listed and derived) is reported once */
	for (i = 0; i < res->n_violations; i++)
		if (!memcmp(res->violations[i].a, a, k * sizeof *a))
			return CP_OK;
	v = cp_reallocarray(res->violations, res->n_violations + 1, sizeof *v);
	if (!v)
		return CP_ENOMEM;
	res->violations = v;
	v += res->n_violations;
	v->a = cp_malloc(k * sizeof *v->a);
	if (!v->a)
		return CP_ENOMEM;
	memcpy(v->a, a, k * sizeof *v->a);
	v->is_equality = is_equality;
	v->is_facet = is_facet;
	v->exact = exact;
	v->index = index;
	v->margin = margin;
	v->mean_sd = mean_sd;
	res->n_violations++;
	return CP_OK;
}

/* ================================================================ *
 * GLPK workers                                                      *
 * ================================================================ */

static void glpk_error(void *info)
{
	struct worker *w = info;

	longjmp(w->jump, 1);
}

static void worker_free(struct worker *w)
{
	if (!w)
		return;
	/* After a GLPK error its environment is undefined: leave the
	 * problems alone (feas_thread_end reclaims the memory). */
	if (!w->broken) {
		if (w->box)
			glp_delete_prob(w->box);
		if (w->facet)
			glp_delete_prob(w->facet);
	}
	cp_free(w->active);
	cp_free(w->colsig);
	cp_free(w->delcols);
	cp_free(w->price_pick);
	cp_free(w->passive);
	cp_free(w->resid);
	cp_free(w->ysign);
	cp_free(w->price_score);
	cp_free(w->facet_row);
	cp_free(w->ind);
	cp_free(w->val);
	cp_free(w->vk);
	cp_free(w->vk2);
	cp_free(w->rho);
	cp_free(w->xstar);
	cp_free(w);
}

/* Build the box LP and the facet LP.  Inputs are validated here, so no
 * GLPK call can fail; the error hook is only a last line of defence. */
static int worker_new(const struct feas_model *fm, struct worker **out,
		      struct cp_error *err)
{
	struct worker *w = cp_calloc(1, sizeof *w);
	size_t k = fm->k, m = fm->nr, d = fm->d, n = (fm->m > k ? fm->m : k) + k + 2;
	size_t p, i;

	*out = NULL;
	if (!w)
		return cp_error_set(err, CP_ENOMEM, "out of memory building the LP");
	w->fm = fm;
	w->thread = pthread_self();
	w->ind = cp_malloc((n + 1) * sizeof *w->ind);
	w->val = cp_malloc((n + 1) * sizeof *w->val);
	w->vk = cp_malloc((k + 1) * sizeof *w->vk);
	w->vk2 = cp_malloc((k + 1) * sizeof *w->vk2);
	w->rho = cp_malloc((k + 1) * sizeof *w->rho);
	w->xstar = cp_malloc((k + 1) * sizeof *w->xstar);
	w->facet_row = cp_calloc(fm->m ? fm->m : 1, 1);
	w->active = cp_calloc(m ? m : 1, 1);
	w->colsig = cp_malloc((m ? m : 1) * sizeof *w->colsig);
	w->delcols = cp_malloc((m + 1) * sizeof *w->delcols);
	w->price_pick = cp_malloc((2 * k + 8) * sizeof *w->price_pick);
	w->passive = cp_malloc((k + 1) * sizeof *w->passive);
	w->resid = cp_malloc(2 * k * sizeof *w->resid);
	w->ysign = cp_malloc(k * sizeof *w->ysign);
	w->price_score = cp_malloc((2 * k + 8) * sizeof *w->price_score);
	if (!w->ysign || !w->resid || !w->passive || !w->price_pick || !w->price_score || !w->active || !w->colsig || !w->delcols || !w->ind || !w->val || !w->vk || !w->vk2 || !w->rho || !w->xstar ||
	    !w->facet_row) {
		worker_free(w);
		return cp_error_set(err, CP_ENOMEM, "out of memory building the LP");
	}
	glp_term_out(GLP_OFF);
	glp_term_hook(glpk_quiet_hook, NULL);
	glp_error_hook(glpk_error, w);
	if (setjmp(w->jump)) {
		w->broken = 1;
		glp_error_hook(NULL, NULL);
		worker_free(w);
		return cp_error_set(err, CP_EINTERNAL, "GLPK failed building the LP");
	}

	/* ---- box LP ---- */
	w->box = glp_create_prob();
	glp_set_obj_dir(w->box, GLP_MIN);
	glp_add_rows(w->box, (int)k);
	glp_add_cols(w->box, (int)k);
	for (i = 0; i < k; i++)
		glp_set_row_bnds(w->box, (int)i + 1, GLP_FX, 0, 0);
	for (i = 0; i < k; i++) {
		w->ind[1] = (int)i + 1;
		w->val[1] = -1;
		glp_set_mat_col(w->box, (int)i + 1, 1, w->ind, w->val);
		glp_set_col_bnds(w->box, (int)i + 1, GLP_FX, 0, 0);
	}
	w->box_identity = 1;
	for (i = 0; i < k; i++)
		w->ysign[i] = 1;
	glp_adv_basis(w->box, 0);
	glp_init_smcp(&w->dual);
	w->dual.msg_lev = GLP_MSG_OFF;
	w->dual.meth = GLP_DUALP;
	w->dual.presolve = GLP_OFF;
	w->dual.it_lim = 100000;

	/* ---- facet LP (needs d >= 1 and m >= 1) ---- */
	glp_init_smcp(&w->primal);
	w->primal.msg_lev = GLP_MSG_OFF;
	w->primal.meth = GLP_PRIMAL;
	w->primal.presolve = GLP_OFF;
	w->primal.it_lim = 100000;
	if (d >= 1 && fm->n_basis_rows == d) {
		size_t j, b;

		/* row 1: f.c = 1; rows 2..d+1: the basis signatures; more
		 * rows join by row generation and leave after each solve */
		w->facet = glp_create_prob();
		glp_set_obj_dir(w->facet, GLP_MIN);
		glp_add_rows(w->facet, (int)d + 1);
		glp_add_cols(w->facet, (int)d);
		for (j = 0; j < d; j++) {
			w->ind[j + 1] = (int)j + 1;
			w->val[j + 1] = fm->qc[j];
			glp_set_col_bnds(w->facet, (int)j + 1, GLP_FR, 0, 0);
		}
		glp_set_mat_row(w->facet, 1, (int)d, w->ind, w->val);
		glp_set_row_bnds(w->facet, 1, GLP_FX, 1, 1);
		for (b = 0; b < d; b++) {
			p = fm->basis_rows[b];
			for (j = 0; j < d; j++)
				w->val[j + 1] = fm->Qs[p * d + j];
			glp_set_mat_row(w->facet, (int)b + 2, (int)d, w->ind, w->val);
			glp_set_row_bnds(w->facet, (int)b + 2, GLP_LO, 0, 0);
			w->facet_row[p] = 1;
		}
	}
	glp_error_hook(NULL, NULL);
	*out = w;
	return CP_OK;
}

/* ---- the box LP ---- */

/* Outcome of one box solve, kept in the worker so that nothing on the
 * stack matters after a longjmp. */
enum { BOX_FEASIBLE = 0, BOX_INFEASIBLE = 1 };

/* Set the box (scaled by 1/sigma: the LP is homogeneous in x, so scaling
 * keeps the verdict and puts the bounds near 1 where GLPK's tolerances
 * are relative) and solve with the dual simplex from the last basis. */
enum { SOLVE_NEW_BOX, SOLVE_AGAIN, SOLVE_EXACT };

/* Centre of the box along LP column y_j (axes signed as in the LP). */
static double box_centre(const struct worker *w, const struct feas_query *q,
			 size_t j)
{
	if (q->shape == FEAS_PCA)
		return w->ysign[j] * dot(q->axes + j * w->fm->k, q->mu, w->fm->k);
	return q->mu[j];
}

/* The box's bounds on y (scaled by 1/sigma), each side pulled in by
 * shrink (1 + |bound|).  Returns -1, changing nothing, when shrinking
 * would empty an interval. */
static int set_bounds(struct worker *w, const struct feas_query *q,
		      double sigma, double shrink)
{
	size_t k = w->fm->k, j;

	for (j = 0; shrink > 0 && j < k; j++) {
		double c = box_centre(w, q, j);
		double lo = (c - q->half[j]) / sigma, hi = (c + q->half[j]) / sigma;

		if (lo + shrink * (1 + fabs(lo)) >= hi - shrink * (1 + fabs(hi)))
			return -1;
	}
	for (j = 0; j < k; j++) {
		double c = box_centre(w, q, j);
		double lo = (c - q->half[j]) / sigma, hi = (c + q->half[j]) / sigma;

		lo += shrink * (1 + fabs(lo));
		hi -= shrink * (1 + fabs(hi));
		if (lo < hi)
			glp_set_col_bnds(w->box, (int)j + 1, GLP_DB, lo, hi);
		else
			glp_set_col_bnds(w->box, (int)j + 1, GLP_FX, lo, lo);
	}
	return 0;
}

static int box_solve(struct worker *w, const struct feas_query *q,
		     double sigma, int mode, int *verdict)
{
	const struct feas_model *fm = w->fm;
	size_t k = fm->k, i, j;
	int ret, st;

	glp_error_hook(glpk_error, w);
	if (setjmp(w->jump)) {
		w->broken = 1;
		glp_error_hook(NULL, NULL);
		return CP_EINTERNAL;
	}
	if (mode == SOLVE_NEW_BOX) {
		if (q->shape == FEAS_PCA) {
			/* column y_j: -W[j][i] in row i (x = W^T y).  An
			 * eigenvector's sign is arbitrary; fixing it (largest
			 * component positive) keeps y_j's basis status
			 * (at lower or upper bound) meaningful for the next
			 * observation's warm start. */
			for (j = 0; j < k; j++) {
				double big = 0;

				w->ysign[j] = 1;
				for (i = 0; i < k; i++)
					if (fabs(q->axes[j * k + i]) > fabs(big))
						big = q->axes[j * k + i];
				if (big < 0)
					w->ysign[j] = -1;
			}
			for (j = 0; j < k; j++) {
				for (i = 0; i < k; i++) {
					w->ind[i + 1] = (int)i + 1;
					w->val[i + 1] = -w->ysign[j] * q->axes[j * k + i];
				}
				glp_set_mat_col(w->box, (int)j + 1, (int)k, w->ind, w->val);
			}
			w->box_identity = 0;
		} else if (!w->box_identity) {
			for (j = 0; j < k; j++) {
				w->ysign[j] = 1;
				w->ind[1] = (int)j + 1;
				w->val[1] = -1;
				glp_set_mat_col(w->box, (int)j + 1, 1, w->ind, w->val);
			}
			w->box_identity = 1;
		}
		set_bounds(w, q, sigma, 0);
	}
	if (mode == SOLVE_EXACT) {
		w->st.exact_solves++;
		ret = glp_exact(w->box, &w->dual);
	} else {
		w->st.lp_solves++;
		ret = glp_simplex(w->box, &w->dual);
		if (ret == GLP_EBADB || ret == GLP_ESING || ret == GLP_ECOND) {
			/* the new axes made the old basis singular: restart */
			glp_adv_basis(w->box, 0);
			ret = glp_simplex(w->box, &w->dual);
		}
		if (ret == GLP_EITLIM || ret == GLP_EFAIL) {
			glp_std_basis(w->box);
			ret = glp_simplex(w->box, &w->dual);
		}
	}
	glp_error_hook(NULL, NULL);
	if (ret != 0)
		return CP_ENUMERIC;
	st = glp_get_status(w->box);
	if (st == GLP_OPT || st == GLP_FEAS)
		*verdict = BOX_FEASIBLE;
	else if (st == GLP_NOFEAS)
		*verdict = BOX_INFEASIBLE;
	else
		return CP_ENUMERIC;
	return CP_OK;
}

/* Is the float solution a solution?  Returns the largest violation
 * relative to 1e-11 of the magnitudes involved (> 1: GLPK used its
 * tolerance, about 1e-7, and the verdict needs the exact re-check).
 * Residuals of S f = W^T y are summed in long double and compared with
 * the sum of the terms' magnitudes; f must be >= 0 and y within its
 * bounds.  (Pure rounding noise of GLPK's solutions reaches ~1e-14, so a
 * tighter test would send many clear verdicts to the slow exact path.) */
#define BOX_REL_TOL 1e-11

static double box_residual(struct worker *w, const struct feas_query *q,
			   double sigma)
{
	const struct feas_model *fm = w->fm;
	size_t k = fm->k, i, j, col;
	long double *x = w->resid, *mag = w->resid + k;
	double worst = 0;

	for (i = 0; i < k; i++)
		x[i] = mag[i] = 0;
	for (col = 0; col < w->n_active; col++) {
		size_t p = w->colsig[col];
		double f = glp_get_col_prim(w->box, (int)(k + col) + 1);

		if (f < 0)
			worst = fmax(worst, -f / BOX_REL_TOL);
		if (f != 0)
			for (i = 0; i < k; i++) {
				x[i] += (long double)fm->S[p * k + i] * f;
				mag[i] += fabsl((long double)fm->S[p * k + i] * f);
			}
	}
	for (j = 0; j < k; j++) {
		double y = glp_get_col_prim(w->box, (int)j + 1);
		double c = box_centre(w, q, j);
		double lo = (c - q->half[j]) / sigma, hi = (c + q->half[j]) / sigma;
		double ex = fmax(lo - y, y - hi);

		if (ex > 0)
			worst = fmax(worst, ex / (BOX_REL_TOL * fmax(fabs(y), 1e-300)));
		w->vk2[j] = y;
	}
	for (i = 0; i < k; i++) {
		long double r = x[i], m = mag[i];

		if (q->shape == FEAS_PCA) {
			for (j = 0; j < k; j++) {
				r -= (long double)w->ysign[j] * q->axes[j * k + i] * w->vk2[j];
				m += fabsl((long double)q->axes[j * k + i] * w->vk2[j]);
			}
		} else {
			r -= w->vk2[i];
			m += fabsl((long double)w->vk2[i]);
		}
		if (r != 0)
			worst = fmax(worst, (double)(fabsl(r) / (BOX_REL_TOL * (m > 0 ? m : 1))));
	}
	return worst;
}

/* Is a (k, counter space) a Farkas certificate for the region: a.s_p >= 0
 * for every signature (relative tolerance tol) and max_R a.x < 0?
 * Returns the depth -max_R a.x / (||a|| sigma), or 0 when it is not. */
static double certificate_depth(const struct feas_model *fm,
				const struct feas_query *q, const double *a,
				double sigma, double tol, const unsigned char *active)
{
	size_t k = fm->k, p;
	double na = sqrt(dot(a, a, k)), h;

	if (!(na > 0))
		return 0;
	for (p = 0; p < fm->m; p++)
		if ((!active || p >= fm->nr || active[p]) &&
		    dot(a, fm->S + p * k, k) < -tol * na * fm->snorm[p])
			return 0;
	h = dot(a, q->mu, k) + spread(q, a, k);
	return h < 0 ? -h / (na * sigma) : 0;
}

/* Farkas certificate of an infeasible box LP from its final basis: row r
 * of B^{-1} (glp_btran on e_r) combines the rows into
 *   sum_p (rho.s_p) f_p - sum_j (W rho)_j y_j = 0,
 * which no f >= 0 and y in the box satisfy; so a = +-rho.  The row is the
 * basic variable GLPK's dual simplex could not repair
 * (glp_get_unbnd_ray); failing that, every basic row is tried.  Writes a
 * into w->rho and returns its depth (0: none found). */
static double box_certificate(struct worker *w, const struct feas_query *q,
			      double sigma)
{
	const struct feas_model *fm = w->fm;
	size_t k = fm->k, i, r, first;
	volatile double best = 0;

	glp_error_hook(glpk_error, w);
	if (setjmp(w->jump)) {
		w->broken = 1;
		glp_error_hook(NULL, NULL);
		return 0;
	}
	if (!glp_bf_exists(w->box) && glp_factorize(w->box) != 0) {
		glp_error_hook(NULL, NULL);
		return 0;
	}
	{
		int v = glp_get_unbnd_ray(w->box);

		first = 0;
		if (v >= 1 && v <= (int)k) {
			first = (size_t)glp_get_row_bind(w->box, v);
		} else if (v > (int)k) {
			int b = glp_get_col_stat(w->box, v - (int)k) == GLP_BS
				? glp_get_col_bind(w->box, v - (int)k) : 0;
			first = (size_t)b;
		}
	}
	for (r = 0; r <= k && best == 0; r++) {
		size_t row = r == 0 ? first : r;
		int sgn;

		if (row == 0 || (r > 0 && row == first))
			continue;
		for (i = 0; i <= k; i++)
			w->val[i] = 0;
		w->val[row] = 1;
		glp_btran(w->box, w->val);
		for (sgn = -1; sgn <= 1; sgn += 2) {
			double dpt;

			for (i = 0; i < k; i++)
				w->vk[i] = sgn * w->val[i + 1];
			dpt = certificate_depth(fm, q, w->vk, sigma, 1e-9, w->active);
			if (dpt > best) {
				best = dpt;
				memcpy(w->rho, w->vk, k * sizeof *w->rho);
			}
		}
	}
	glp_error_hook(NULL, NULL);
	return best;
}

/* Add signature p's flow column to the box LP (non-basic at 0, so the
 * basis stays). */
static void activate(struct worker *w, size_t p)
{
	const struct feas_model *fm = w->fm;
	size_t k = fm->k, i;
	int len = 0, col;

	if (w->active[p])
		return;
	col = glp_add_cols(w->box, 1);
	for (i = 0; i < k; i++)
		if (fm->Su[p * k + i]) {
			len++;
			w->ind[len] = (int)i + 1;
			w->val[len] = fm->S[p * k + i];
		}
	glp_set_mat_col(w->box, col, len, w->ind, w->val);
	glp_set_col_bnds(w->box, col, GLP_LO, 0, 0);
	w->active[p] = 1;
	w->colsig[w->n_active++] = p;
}

/* Price the inactive columns against certificate a: a signature with
 * a.s_p < 0 could still reach the region.  The 2k most violated (by
 * a.s_p / ||s_p||) join the working set, so the LP stays small even when
 * half the signatures qualify.  Returns how many joined (0: a is a
 * certificate for the whole LP). */
static size_t price_columns(struct worker *w, const double *a)
{
	const struct feas_model *fm = w->fm;
	size_t k = fm->k, p, n = 0, budget = 2 * k + 8, i;
	double na = sqrt(dot(a, a, k));
	double *score = w->price_score;
	size_t *pick = w->price_pick;

	for (p = 0; p < fm->nr; p++) {
		double v;

		if (w->active[p])
			continue;
		v = dot(a, fm->S + p * k, k) / fm->snorm[p];
		if (!(v < -1e-9 * na))
			continue;
		/* keep the `budget` smallest scores, sorted ascending */
		if (n == budget && v >= score[n - 1])
			continue;
		i = n < budget ? n++ : n - 1;
		while (i > 0 && score[i - 1] > v) {
			score[i] = score[i - 1];
			pick[i] = pick[i - 1];
			i--;
		}
		score[i] = v;
		pick[i] = p;
	}
	for (i = 0; i < n; i++)
		activate(w, pick[i]);
	return n;
}

/* Keep the working set small: past 4k + 32 columns, delete the non-basic
 * ones (they sit at 0, so the basis and its solution stay). */
static void trim_columns(struct worker *w)
{
	size_t k = w->fm->k, c, keep = 0;
	int nd = 0;

	if (w->n_active <= 4 * k + 32)
		return;
	for (c = 0; c < w->n_active; c++) {
		if (glp_get_col_stat(w->box, (int)(k + c) + 1) != GLP_BS) {
			w->delcols[++nd] = (int)(k + c) + 1;
			w->active[w->colsig[c]] = 0;
		} else {
			w->colsig[keep++] = w->colsig[c];
		}
	}
	if (nd)
		glp_del_cols(w->box, nd, w->delcols);
	w->n_active = keep;
}

static void activate_all(struct worker *w)
{
	size_t p;

	for (p = 0; p < w->fm->nr; p++)
		activate(w, p);
}

/* ================================================================ *
 * Explanations                                                      *
 * ================================================================ */

/* Exact check of an integer constraint against every signature:
 * a.s_p >= 0 (and a.s_p = 0 on mask, when given; every p for an
 * equality). */
static int exact_valid(const struct feas_model *fm, const int64_t *a,
		       int is_equality, const unsigned char *mask)
{
	size_t k = fm->k, p, i;

	for (p = 0; p < fm->m; p++) {
		__int128 s = 0;

		for (i = 0; i < k; i++)
			s += (__int128)a[i] * fm->Su[p * k + i];
		if (s < 0 || (s != 0 && (is_equality || (mask && mask[p]))))
			return 0;
	}
	return 1;
}

/* Small integer multiple of a float direction: scale so the smallest
 * significant coefficient is 1, then look for a multiplier t <= 1000 that
 * makes every coefficient integral (to 1e-6); primitive result.  Returns 0
 * when none does. */
static int integerize(const double *a, size_t k, int64_t *out)
{
	double amax = 0, amin = INFINITY;
	size_t i;
	int t;

	for (i = 0; i < k; i++)
		amax = fmax(amax, fabs(a[i]));
	if (!(amax > 0))
		return 0;
	for (i = 0; i < k; i++)
		if (fabs(a[i]) > 1e-9 * amax)
			amin = fmin(amin, fabs(a[i]));
	for (t = 1; t <= 1000; t++) {
		int ok = 1;
		int64_t g = 0;

		for (i = 0; i < k && ok; i++) {
			double v = fabs(a[i]) > 1e-9 * amax ? a[i] / amin * t : 0;

			if (fabs(v) > 1e15 || fabs(v - nearbyint(v)) > 1e-6 * (1 + fabs(v)))
				ok = 0;
			else
				out[i] = (int64_t)nearbyint(v);
		}
		if (!ok)
			continue;
		for (i = 0; i < k; i++)
			g = cp_gcd64(g, out[i]);
		if (g > 1)
			for (i = 0; i < k; i++)
				out[i] /= g;
		return 1;
	}
	return 0;
}

/* Constraint a (float) rounded to integers: the smallest multiplier among
 * 1..1e6 of a/max|a| whose rounding stays valid for every signature and
 * still separates the region. */
static int round_certificate(const struct feas_model *fm,
			     const struct feas_query *q, const double *a,
			     int64_t *out, double *tmp)
{
	static const double scales[] = { 1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20,
		30, 50, 100, 1e3, 1e4, 1e5, 1e6 };
	size_t k = fm->k, i, s;
	double amax = 0;

	for (i = 0; i < k; i++)
		amax = fmax(amax, fabs(a[i]));
	if (!(amax > 0))
		return 0;
	for (s = 0; s < sizeof scales / sizeof *scales; s++) {
		int64_t g = 0;

		for (i = 0; i < k; i++) {
			out[i] = (int64_t)nearbyint(a[i] / amax * scales[s]);
			g = cp_gcd64(g, out[i]);
		}
		if (g == 0)
			continue;
		for (i = 0; i < k; i++) {
			out[i] /= g;
			tmp[i] = (double)out[i];
		}
		if (exact_valid(fm, out, 0, NULL) &&
		    dot(tmp, q->mu, k) + spread(q, tmp, k) < 0)
			return 1;
	}
	return 0;
}

/* Facet-finding LP: the facet f of the cone (a vertex of its dual slice
 * {f.s_p >= 0, f.c = 1}) that minimises f.x*; x* in counter space.
 * Row generation: start from the d basis signatures (a bounded simplex),
 * solve, add the 2d signatures the solution violates most, solve again
 * (dual simplex) until none is violated: then the solution is optimal for
 * every signature.  Each call starts from the same rows and basis, so the
 * facet does not depend on what the worker solved before.  Writes the
 * float normal into fnorm (k). */
static int facet_lp_solve(struct worker *w, const double *xstar, double *fnorm)
{
	const struct feas_model *fm = w->fm;
	size_t k = fm->k, m = fm->nr, d = fm->d, j, p, i, round;
	size_t budget = 2 * d + 8, n;
	double *score = w->price_score;
	size_t *pick = w->price_pick;
	int ret;

	glp_error_hook(glpk_error, w);
	if (setjmp(w->jump)) {
		w->broken = 1;
		glp_error_hook(NULL, NULL);
		return -1;
	}
	w->st.facet_lps++;
	/* back to the d basis rows */
	if (w->facet_extra) {
		for (i = 0; i < w->facet_extra; i++)
			w->delcols[i + 1] = (int)(d + 2 + i);
		glp_del_rows(w->facet, (int)w->facet_extra, w->delcols);
		w->facet_extra = 0;
		memset(w->facet_row, 0, fm->m);
		for (i = 0; i < d; i++)
			w->facet_row[fm->basis_rows[i]] = 1;
	}
	glp_std_basis(w->facet);
	for (j = 1; j <= d; j++)
		glp_set_obj_coef(w->facet, (int)j, dot(fm->Q + (j - 1) * k, xstar, k));
	ret = glp_simplex(w->facet, &w->primal);
	for (round = 0; round < 200; round++) {
		double zn;

		if (ret != 0 || glp_get_status(w->facet) != GLP_OPT) {
			glp_error_hook(NULL, NULL);
			return -1;
		}
		for (j = 0; j < d; j++)
			w->vk[j] = glp_get_col_prim(w->facet, (int)j + 1);
		zn = sqrt(dot(w->vk, w->vk, d));
		/* the most violated rows, normalised by ||s_p|| */
		n = 0;
		for (p = 0; p < m; p++) {
			double v;

			if (w->facet_row[p])
				continue;
			v = dot(w->vk, fm->Qs + p * d, d) / fm->snorm[p];
			if (!(v < -1e-10 * zn) || (n == budget && v >= score[n - 1]))
				continue;
			i = n < budget ? n++ : n - 1;
			while (i > 0 && score[i - 1] > v) {
				score[i] = score[i - 1];
				pick[i] = pick[i - 1];
				i--;
			}
			score[i] = v;
			pick[i] = p;
		}
		if (n == 0)
			break;
		for (i = 0; i < n; i++) {
			int row = glp_add_rows(w->facet, 1);

			p = pick[i];
			for (j = 0; j < d; j++) {
				w->ind[j + 1] = (int)j + 1;
				w->val[j + 1] = fm->Qs[p * d + j];
			}
			glp_set_mat_row(w->facet, row, (int)d, w->ind, w->val);
			glp_set_row_bnds(w->facet, row, GLP_LO, 0, 0);
			w->facet_row[p] = 1;
			w->facet_extra++;
		}
		ret = glp_simplex(w->facet, &w->dual);
	}
	if (round == 200) {
		glp_error_hook(NULL, NULL);
		return -1;
	}
	for (i = 0; i < k; i++)
		fnorm[i] = 0;
	for (j = 0; j < d; j++)
		for (i = 0; i < k; i++)
			fnorm[i] += w->vk[j] * fm->Q[j * k + i];
	glp_error_hook(NULL, NULL);
	return 0;
}

static int facet_lp(struct worker *w, const double *xstar, double *fnorm,
		    unsigned char *mask)
{
	const struct feas_model *fm = w->fm;
	size_t k = fm->k, p, i;
	double fmaxn = 0;

	if (!w->facet || w->broken || facet_lp_solve(w, xstar, fnorm) != 0)
		return -1;
	for (i = 0; i < k; i++)
		fmaxn = fmax(fmaxn, fabs(fnorm[i]));
	for (p = 0; p < fm->m; p++)
		mask[p] = dot(fnorm, fm->S + p * k, k) <= 1e-9 * fmaxn * fm->snorm[p];
	return 0;
}

/* Exact normal through the masked signatures: the float normal made
 * integral and checked exactly here (valid on every signature, zero on the
 * mask: 128-bit integers), or, when that fails, the geometry module's
 * exact (GMP) cone_facet_from_subset.  *is_facet tells whether the facet
 * property (the mask spans d-1 dimensions) was verified; facet_verify
 * does that for the one constraint finally reported, since the GMP check
 * costs milliseconds on thousands of signatures. */
static int exact_facet(const struct feas_model *fm, const double *fnorm,
		       const unsigned char *mask, int64_t *a, int *is_facet)
{
	struct cp_error e;

	*is_facet = 0;
	if (integerize(fnorm, fm->k, a) && exact_valid(fm, a, 0, mask))
		return 1;
	if (cone_facet_from_subset(fm->k, fm->m, fm->Su, mask, a, &e) == CP_OK) {
		*is_facet = 1;
		return 1;
	}
	return 0;
}

/* Is the valid inequality a, zero on the mask, a facet?  It is when the
 * mask defines one (cone_facet_from_subset verifies rank d-1 exactly): a
 * valid inequality vanishing on a (d-1)-dimensional face is that facet. */
static int facet_verify(const struct feas_model *fm, const unsigned char *mask,
			int64_t *scratch)
{
	struct cp_error e;

	return cone_facet_from_subset(fm->k, fm->m, fm->Su, mask, scratch, &e) == CP_OK;
}

struct still_broken {
	const struct feas_query *q;
	size_t k;
	int is_equality;
	double *tmp;
};

static int still_broken(const int64_t *a, void *ctx)
{
	struct still_broken *sb = ctx;
	double ms;
	size_t i;

	for (i = 0; i < sb->k; i++)
		sb->tmp[i] = (double)a[i];
	return margin_of(sb->q, sb->tmp, sb->k, sb->is_equality, &ms) > 0;
}

/* Write a derived constraint in its readable form (geometry's rule) among
 * the forms the region still breaks. */
static void simplify(const struct feas_model *fm, const struct feas_query *q,
		     int64_t *a, int is_equality, double *tmp)
{
	struct still_broken sb = { q, fm->k, is_equality, tmp };

	cone_readable(fm->k, fm->eqb, fm->n_eqb, fm->Su, fm->m, is_equality,
		      still_broken, &sb, a);
}

/* Explain an infeasible region.  cert (k) is a separating direction when
 * one is known (a.s >= 0, max_R a.x < 0), NULL otherwise. */
static int explain(struct worker *w, const struct feas_query *q,
		   const double *cert, struct feas_result *res)
{
	const struct feas_model *fm = w->fm;
	size_t k = fm->k, m = fm->m, c, i;
	double *a = cp_malloc(k * sizeof *a), *fnorm = cp_malloc(k * sizeof *fnorm);
	double *proj = cp_malloc(k * sizeof *proj);
	int64_t *ai = cp_malloc(k * sizeof *ai), *cand = cp_malloc(k * sizeof *cand);
	unsigned char *mask = cp_malloc(m ? m : 1);
	int rc = CP_OK, is_facet, attempt;
	double ms;

	if (!a || !fnorm || !proj || !ai || !cand || !mask) {
		rc = CP_ENOMEM;
		goto out;
	}
	/* 1. the listed constraints, in closed form */
	for (c = 0; c < fm->n_cons; c++) {
		double mg;

		for (i = 0; i < k; i++)
			a[i] = (double)fm->cons[c * k + i];
		mg = margin_of(q, a, k, fm->cons_eq[c], &ms);
		if (mg > 0) {
			rc = add_violation(res, k, fm->cons + c * k, fm->cons_eq[c],
					   1, 1, c, mg, ms);
			if (rc)
				goto out;
		}
	}
	if (res->n_violations)
		goto out;

	/* 2. the model's equalities (the exact sparse basis): every one the
	 * region breaks; then the centre's distance from span(S) along its
	 * own residual, which catches a combination of them */
	for (c = 0; c < fm->n_eqb; c++) {
		double mg;

		for (i = 0; i < k; i++)
			a[i] = (double)fm->eqb[c * k + i];
		mg = margin_of(q, a, k, 1, &ms);
		if (mg > 0) {
			rc = add_violation(res, k, fm->eqb + c * k, 1, 1, 1, FEAS_NO_INDEX, mg, ms);
			if (rc)
				goto out;
		}
	}
	if (res->n_violations)
		goto out;
	for (i = 0; i < k; i++)
		proj[i] = 0;
	for (c = 0; c < fm->d; c++) {
		double t = dot(fm->Q + c * k, q->mu, k);

		for (i = 0; i < k; i++)
			proj[i] += t * fm->Q[c * k + i];
	}
	for (i = 0; i < k; i++)
		a[i] = q->mu[i] - proj[i];
	if (dot(a, q->mu, k) - spread(q, a, k) > 0 && integerize(a, k, ai) &&
	    exact_valid(fm, ai, 1, NULL)) {
		for (i = 0; i < k; i++)
			a[i] = (double)ai[i];
		if (margin_of(q, a, k, 1, &ms) > 0) {
			simplify(fm, q, ai, 1, a);
			for (i = 0; i < k; i++)
				a[i] = (double)ai[i];
			rc = add_violation(res, k, ai, 1, 1, 1, FEAS_NO_INDEX,
					   margin_of(q, a, k, 1, &ms), ms);
			goto out;
		}
	}

	/* 3. the facet most violated at a point of the region: first the
	 * centre's projection, then the region's extreme point along the
	 * certificate, then the ends of each axis of the region.  A facet
	 * separating the region need not be the one most violated at a given
	 * point, so several points are tried; none is tried twice. */
	for (attempt = 0; attempt < 2 + 2 * (int)k; attempt++) {
		if (attempt == 0) {
			memcpy(w->xstar, proj, k * sizeof *proj);
		} else if (attempt == 1) {
			double h;

			if (!cert)
				continue;
			/* x* = argmax_R cert.x, by the support function's
			 * gradient: mu + spread direction */
			h = spread(q, cert, k);
			for (i = 0; i < k; i++)
				w->xstar[i] = q->mu[i];
			if (q->shape == FEAS_INDEPENDENT) {
				for (i = 0; i < k; i++)
					w->xstar[i] += (cert[i] >= 0 ? 1 : -1) * q->half[i];
			} else if (q->shape == FEAS_PCA) {
				size_t j;

				for (j = 0; j < k; j++) {
					double s = dot(q->axes + j * k, cert, k) >= 0 ? 1 : -1;

					for (i = 0; i < k; i++)
						w->xstar[i] += s * q->half[j] * q->axes[j * k + i];
				}
			} else if (h > 0) {
				size_t j;

				for (i = 0; i < k; i++)
					for (j = 0; j < k; j++)
						w->xstar[i] += q->q * q->cov[i * k + j] * cert[j] / h;
			}
		} else {
			size_t j = (size_t)(attempt - 2) / 2;
			double s = (attempt % 2) ? -1 : 1;

			memcpy(w->xstar, q->mu, k * sizeof *q->mu);
			if (q->shape == FEAS_PCA)
				for (i = 0; i < k; i++)
					w->xstar[i] += s * q->half[j] * q->axes[j * k + i];
			else if (q->shape == FEAS_INDEPENDENT)
				w->xstar[j] += s * q->half[j];
			else
				w->xstar[j] += s * sqrt(q->q * q->cov[j * k + j]);
		}
		if (facet_lp(w, w->xstar, fnorm, mask) != 0)
			continue;
		if (!exact_facet(fm, fnorm, mask, ai, &is_facet))
			continue;
		for (i = 0; i < k; i++)
			a[i] = (double)ai[i];
		if (margin_of(q, a, k, 0, &ms) > 0) {
			if (!is_facet)
				is_facet = facet_verify(fm, mask, cand);
			w->st.facets_verified += is_facet;
			simplify(fm, q, ai, 0, a);
			for (i = 0; i < k; i++)
				a[i] = (double)ai[i];
			rc = add_violation(res, k, ai, 0, is_facet, 1, FEAS_NO_INDEX,
					   margin_of(q, a, k, 0, &ms), ms);
			goto out;
		}
	}

	/* 4. no single facet separates (the region lies beyond a lower-
	 * dimensional face): report the certificate itself, a valid
	 * inequality of the model that is not one of its facets */
	if (cert) {
		if (round_certificate(fm, q, cert, ai, fnorm)) {
			simplify(fm, q, ai, 0, a);
			for (i = 0; i < k; i++)
				a[i] = (double)ai[i];
			rc = add_violation(res, k, ai, 0, 0, 1, FEAS_NO_INDEX,
					   margin_of(q, a, k, 0, &ms), ms);
		} else {
			double amax = 0;

			for (i = 0; i < k; i++)
				amax = fmax(amax, fabs(cert[i]));
			for (i = 0; i < k; i++) {
				ai[i] = (int64_t)nearbyint(cert[i] / amax * 1e6);
				a[i] = (double)ai[i];
			}
			rc = add_violation(res, k, ai, 0, 0, 0, FEAS_NO_INDEX,
					   margin_of(q, a, k, 0, &ms), ms);
		}
	}
out:
	cp_free(a);
	cp_free(fnorm);
	cp_free(proj);
	cp_free(ai);
	cp_free(cand);
	cp_free(mask);
	return rc;
}

/* ================================================================ *
 * Checking                                                          *
 * ================================================================ */

static double chisq_pvalue(double d2, size_t k, size_t n)
{
	double c = region_confidence_of(d2, k, n);

	if (isfinite(c))
		return 1 - c;
	gsl_set_error_handler_off();
	return gsl_cdf_chisq_Q(d2, (double)k);
}

/* Ellipsoid: d2 = min_{f >= 0} || L^{-1} (S^T f - mu) ||^2 with
 * cov = L L^T.  The region meets the cone iff d2 <= q.  At the optimum
 * x^ = S^T f^, a = cov^{-1} (x^ - mu) = L^{-T} r separates when d2 > q:
 * a.s_p >= 0 is the KKT condition and max_E a.x = -d2 + sqrt(q d2). */
static int check_ellipsoid(struct worker *w, const struct feas_query *q,
			   unsigned flags, struct feas_result *res,
			   struct cp_error *err)
{
	const struct feas_model *fm = w->fm;
	size_t k = fm->k, m = fm->nr, i;
	double *L = cp_malloc(k * k * sizeof *L), *f = cp_malloc((m ? m : 1) * sizeof *f);
	double *r = cp_malloc(k * sizeof *r);
	double kkt = 0, d2;
	int rc = CP_OK;

	if (!L || !f || !r) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory in the ellipsoid test");
		goto out;
	}
	memcpy(L, q->cov, k * k * sizeof *L);
	if (LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', (lapack_int)k, L, (lapack_int)k) != 0) {
		rc = cp_error_set(err, CP_EINPUT, "region covariance is not positive definite");
		goto out;
	}
	rc = feas_nnls(k, m, fm->S, fm->snorm, L, q->mu, w->passive, &w->n_passive,
		       f, r, &kkt, err);
	if (rc)
		goto out;
	d2 = dot(r, r, k);
	res->d2 = d2;
	res->kkt = kkt;
	res->p_value = chisq_pvalue(d2, k, q->n);
	res->feasible = d2 <= q->q;
	res->borderline = fabs(d2 - q->q) <= 1e-7 * fmax(q->q, 1e-300) || kkt > 1e-6;
	if (res->borderline)
		w->st.borderline++;
	if (!res->feasible && (flags & FEAS_EXPLAIN)) {
		/* a = L^{-T} r = cov^{-1} (x^ - mu) */
		if (LAPACKE_dtrtrs(LAPACK_COL_MAJOR, 'L', 'T', 'N', (lapack_int)k, 1, L,
				   (lapack_int)k, r, (lapack_int)k) != 0) {
			rc = cp_error_set(err, CP_ENUMERIC, "triangular solve failed in the ellipsoid test");
			goto out;
		}
		for (i = 0; i < k; i++)
			if (!isfinite(r[i]))
				break;
		w->st.certificates++;
		rc = explain(w, q, i == k ? r : NULL, res);
		if (rc)
			rc = cp_error_set(err, rc, "out of memory explaining an observation");
	}
out:
	cp_free(L);
	cp_free(f);
	cp_free(r);
	return rc;
}

static int check_box(struct worker *w, const struct feas_query *q,
		     unsigned flags, struct feas_result *res,
		     struct cp_error *err)
{
	const struct feas_model *fm = w->fm;
	size_t k = fm->k, i;
	double sigma = 0, depth = 0;
	int verdict, rc, round;

	for (i = 0; i < k; i++)
		sigma = fmax(sigma, fabs(q->mu[i]) + q->half[i]);
	/* a power of two, so that scaling loses no bits: the exact re-check
	 * then decides the box as given */
	sigma = sigma > 0 && isfinite(sigma) ? ldexp(1, ilogb(sigma) + 1) : 1;
	if (fm->nr == 0) {
		/* the cone is {0}: feasible iff the box holds 0 */
		double *z = w->vk;

		for (i = 0; i < k; i++)
			z[i] = 0;
		verdict = BOX_FEASIBLE;
		for (i = 0; i < k; i++) {
			double c = q->shape == FEAS_PCA ? dot(q->axes + i * k, q->mu, k) : q->mu[i];

			if (fabs(c) > q->half[i])
				verdict = BOX_INFEASIBLE;
		}
		res->feasible = verdict == BOX_FEASIBLE;
		goto explain_it;
	}
	/* Column generation: solve on the working set; a feasible answer
	 * stands for the whole LP, an infeasible one only once its
	 * certificate holds against every signature. */
	rc = box_solve(w, q, sigma, SOLVE_NEW_BOX, &verdict);
	for (round = 0; !rc; round++) {
		if (verdict == BOX_FEASIBLE)
			break;
		depth = box_certificate(w, q, sigma);
		if (w->broken)
			return cp_error_set(err, CP_EINTERNAL, "the feasibility LP failed (GLPK)");
		if (depth > 0 ? price_columns(w, w->rho) == 0
			      : w->n_active == fm->nr)
			break;
		if (depth == 0 || round >= 50)
			activate_all(w);  /* no usable certificate: the whole LP */
		rc = box_solve(w, q, sigma, SOLVE_AGAIN, &verdict);
	}
	if (rc)
		return cp_error_set(err, rc, "the feasibility LP failed (GLPK)");
	/* Borderline: GLPK accepts bound violations up to ~1e-7.  A box it
	 * calls feasible only by using that tolerance, or infeasible by a
	 * certificate shallower than 1e-7, lies within ~1e-7 of the cone:
	 * it is settled by glp_exact on the whole LP (rational arithmetic;
	 * GLPK reads the doubles as rationals within 1e-9 relative). */
	if (verdict == BOX_FEASIBLE) {
		/* A solution GLPK bent by its tolerance: solve again in the box
		 * shrunk by 3 times the tolerance; a solution there (even a
		 * bent one) lies strictly inside the real box. */
		if (box_residual(w, q, sigma) > 1) {
			int v2 = BOX_INFEASIBLE;

			w->st.shrink_tests++;
			if (set_bounds(w, q, sigma, 3e-7) == 0) {
				rc = box_solve(w, q, sigma, SOLVE_AGAIN, &v2);
				set_bounds(w, q, sigma, 0);
				if (rc)
					return cp_error_set(err, rc, "the feasibility LP failed (GLPK)");
			}
			if (v2 != BOX_FEASIBLE)
				res->borderline = 1;
		}
	} else if (depth < 1e-7) {
		res->borderline = 1;
	}
	if (res->borderline) {
		w->st.borderline++;
		if (!(flags & FEAS_NO_EXACT)) {
			activate_all(w);
			rc = box_solve(w, q, sigma, SOLVE_EXACT, &verdict);
			if (rc)
				return cp_error_set(err, rc, "the exact feasibility LP failed (GLPK)");
			depth = 0;
			if (verdict == BOX_INFEASIBLE && (flags & FEAS_EXPLAIN))
				depth = box_certificate(w, q, sigma);
		}
	}
	trim_columns(w);
	res->feasible = verdict == BOX_FEASIBLE;
explain_it:
	if (!res->feasible && (flags & FEAS_EXPLAIN)) {
		if (depth > 0)
			w->st.certificates++;
		rc = explain(w, q, depth > 0 ? w->rho : NULL, res);
		if (rc)
			return cp_error_set(err, rc, "out of memory explaining an observation");
	}
	return CP_OK;
}

static int check_with(struct worker *w, const struct feas_query *q,
		      unsigned flags, struct feas_result *res,
		      struct cp_error *err)
{
	int rc;

	feas_result_release(res);
	res->k = w->fm->k;
	rc = query_check(q, w->fm->k, err);
	if (rc)
		return rc;
	w->st.checks++;
	if (q->shape == FEAS_ELLIPSOID)
		return check_ellipsoid(w, q, flags, res, err);
	return check_box(w, q, flags, res, err);
}

int feas_check(struct feas_model *fm, const struct feas_query *q,
	       unsigned flags, struct feas_result *res, struct cp_error *err)
{
	int rc;

	if (!fm->own) {
		rc = worker_new(fm, &fm->own, err);
		if (rc)
			return rc;
	}
	if (!pthread_equal(fm->own->thread, pthread_self()))
		return cp_error_set(err, CP_EINTERNAL,
				    "feas_check called from a thread other than the model's");
	if (fm->own->broken)
		return cp_error_set(err, CP_EINTERNAL, "the feasibility LP failed earlier (GLPK)");
	rc = check_with(fm->own, q, flags, res, err);
	fm->st.checks = fm->own->st.checks;
	return rc;
}

void feas_thread_end(void)
{
	glp_free_env();
}

/* ================================================================ *
 * Threads                                                           *
 * ================================================================ */

/* Observations are handed out in chunks of consecutive indices, so each
 * thread warm-starts from a neighbour (datasets list similar runs
 * together); results go to their input slot, so order is kept. */
#define BATCH_CHUNK 16

struct batch {
	const struct feas_model *fm;
	const struct feas_query *queries;
	struct feas_result *results;
	unsigned flags;
	size_t n;
	pthread_mutex_t lock;
	size_t next, done;
	int failed;
	struct cp_error err;
	size_t err_index;
};

static void *batch_thread(void *arg)
{
	struct batch *b = arg;
	struct worker *w = NULL;
	struct cp_error err;
	int rc;

	cp_error_clear(&err);
	rc = worker_new(b->fm, &w, &err);
	for (;;) {
		size_t lo, hi, i;

		pthread_mutex_lock(&b->lock);
		if (rc && !b->failed) {
			b->failed = 1;
			b->err = err;
			b->err_index = (size_t)-1;
		}
		if (b->failed || b->next >= b->n) {
			pthread_mutex_unlock(&b->lock);
			break;
		}
		lo = b->next;
		hi = lo + BATCH_CHUNK < b->n ? lo + BATCH_CHUNK : b->n;
		b->next = hi;
		pthread_mutex_unlock(&b->lock);
		for (i = lo; i < hi && !rc; i++) {
			rc = check_with(w, &b->queries[i], b->flags, &b->results[i], &err);
			if (rc) {
				pthread_mutex_lock(&b->lock);
				if (!b->failed || i < b->err_index) {
					b->failed = 1;
					b->err = err;
					b->err_index = i;
				}
				pthread_mutex_unlock(&b->lock);
			}
		}
		pthread_mutex_lock(&b->lock);
		b->done += hi - lo;
		pthread_mutex_unlock(&b->lock);
	}
	worker_free(w);
	glp_free_env();
	return NULL;
}

int feas_check_batch(const struct feas_model *fm, size_t n,
		     const struct feas_query *queries, unsigned flags,
		     size_t threads, struct feas_result *results,
		     feas_progress_fn progress, void *ctx,
		     struct cp_error *err)
{
	struct batch b;
	pthread_t *tid;
	size_t t, started = 0;
	int rc = CP_OK;

	if (n == 0)
		return CP_OK;
	if (threads == 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		threads = c > 0 ? (size_t)c : 1;
	}
	if (threads > (n + BATCH_CHUNK - 1) / BATCH_CHUNK)
		threads = (n + BATCH_CHUNK - 1) / BATCH_CHUNK;
	if (threads > 256)
		threads = 256;
	memset(&b, 0, sizeof b);
	b.fm = fm;
	b.queries = queries;
	b.results = results;
	b.flags = flags;
	b.n = n;
	cp_error_clear(&b.err);
	if (pthread_mutex_init(&b.lock, NULL))
		return cp_error_set(err, CP_EINTERNAL, "cannot create a mutex");
	tid = cp_malloc(threads * sizeof *tid);
	if (!tid) {
		pthread_mutex_destroy(&b.lock);
		return cp_error_set(err, CP_ENOMEM, "out of memory starting threads");
	}
	for (t = 0; t < threads; t++) {
		if (pthread_create(&tid[t], NULL, batch_thread, &b))
			break;
		started++;
	}
	if (started == 0) {
		rc = cp_error_set(err, CP_EINTERNAL, "cannot start a thread");
		goto out;
	}
	for (;;) {
		size_t done;
		int stop;
		struct timespec ts = { 0, 50 * 1000 * 1000 };

		pthread_mutex_lock(&b.lock);
		done = b.done;
		stop = b.failed || done >= n;
		pthread_mutex_unlock(&b.lock);
		if (progress)
			progress(ctx, done, n);
		if (stop)
			break;
		nanosleep(&ts, NULL);
	}
	for (t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	if (b.failed) {
		rc = b.err.code ? b.err.code : CP_EINTERNAL;
		if (err) {
			*err = b.err;
			if (b.err_index != (size_t)-1)
				cp_error_set(err, rc, "observation %zu: %.900s",
					     b.err_index + 1, b.err.msg);
		}
	}
out:
	cp_free(tid);
	pthread_mutex_destroy(&b.lock);
	return rc;
}

/* ================================================================ *
 * Regions from the stats module                                     *
 * ================================================================ */

void feas_query_from_region(const struct region *r, enum feas_shape shape,
			    struct feas_query *q)
{
	memset(q, 0, sizeof *q);
	q->shape = shape;
	q->mu = r->mu;
	q->cov = r->cov;
	q->n = r->n;
	q->q = r->q;
	switch (shape) {
	case FEAS_PCA:
		q->axes = r->axes;
		q->half = r->half_pca;
		break;
	case FEAS_INDEPENDENT:
		q->half = r->half_ind;
		break;
	case FEAS_ELLIPSOID:
		break;
	}
}
