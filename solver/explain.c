/* SPDX-License-Identifier: GPL-3.0-or-later */
/* solver/explain.c: results and explanations: violated listed constraints in
 * closed form, or a Farkas certificate rounded to integers, tightened to a
 * facet by the facet LP, checked exactly and written readably. */
#include <glpk.h>
#include <math.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "solver/feas.h"
#include "solver/feas_int.h"

#include "geometry/cone.h"

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
 * Explanations                                                      *
 * ================================================================ */

/* Exact check of an integer constraint against every signature:
 * a.s_p >= 0 (and a.s_p = 0 on mask, when given; every p for an
 * equality). */
int feas_exact_valid(const struct feas_model *fm, const int64_t *a,
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
int feas_integerize(const double *a, size_t k, int64_t *out)
{
	double amax = 0, amin = INFINITY;
	size_t i;
	int t;

	for (i = 0; i < k; i++)
		amax = fmax(amax, fabs(a[i]));
	if (!(amax > 0))
		return 0;
	for (i = 0; i < k; i++)
		if (fabs(a[i]) > FEAS_TOL_COEF * amax)
			amin = fmin(amin, fabs(a[i]));
	for (t = 1; t <= 1000; t++) {
		int ok = 1;
		int64_t g = 0;

		for (i = 0; i < k && ok; i++) {
			double v = fabs(a[i]) > FEAS_TOL_COEF * amax ? a[i] / amin * t : 0;

			if (fabs(v) > FEAS_INT_EXACT || fabs(v - nearbyint(v)) > FEAS_TOL_INTEGRAL * (1 + fabs(v)))
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
		if (feas_exact_valid(fm, out, 0, NULL) &&
		    feas_dot(tmp, q->mu, k) + feas_spread(q, tmp, k) < 0)
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

	glp_error_hook(feas_glpk_error, w);
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
		glp_set_obj_coef(w->facet, (int)j, feas_dot(fm->Q + (j - 1) * k, xstar, k));
	ret = glp_simplex(w->facet, &w->primal);
	for (round = 0; round < 200; round++) {
		double zn;

		if (ret != 0 || glp_get_status(w->facet) != GLP_OPT) {
			glp_error_hook(NULL, NULL);
			return -1;
		}
		for (j = 0; j < d; j++)
			w->vk[j] = glp_get_col_prim(w->facet, (int)j + 1);
		zn = sqrt(feas_dot(w->vk, w->vk, d));
		/* the most violated rows, normalised by ||s_p|| */
		n = 0;
		for (p = 0; p < m; p++) {
			double v;

			if (w->facet_row[p])
				continue;
			v = feas_dot(w->vk, fm->Qs + p * d, d) / fm->snorm[p];
			if (!(v < -FEAS_TOL_FACET_ROW * zn) || (n == budget && v >= score[n - 1]))
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
		mask[p] = feas_dot(fnorm, fm->S + p * k, k) <= FEAS_TOL_COEF * fmaxn * fm->snorm[p];
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
	if (feas_integerize(fnorm, fm->k, a) && feas_exact_valid(fm, a, 0, mask))
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
	return feas_margin_of(sb->q, sb->tmp, sb->k, sb->is_equality, &ms) > 0;
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

/* Step 3 when fm->complete (feas_explain): the listed facets' projections
 * onto span(S) that the region violates, by decreasing margin, until one
 * is made exact; then step 4 as usual.  a, fnorm (k), ai, cand (k) and
 * mask (m) are scratch. */
/* The exact facet near the float normal fnorm through the signatures of
 * mask, reported when the whole region breaks it (in its readable form):
 * 1 when reported (*rc: add_violation's code), else 0.  a (k), ai and
 * cand (k) are scratch. */
static int report_facet(struct worker *w, const struct feas_query *q,
			struct feas_result *res, const double *fnorm,
			const unsigned char *mask, double *a, int64_t *ai,
			int64_t *cand, int *rc)
{
	const struct feas_model *fm = w->fm;
	size_t k = fm->k, i;
	double ms, mv;
	int is_facet;

	if (!exact_facet(fm, fnorm, mask, ai, &is_facet))
		return 0;
	for (i = 0; i < k; i++)
		a[i] = (double)ai[i];
	if (!(feas_margin_of(q, a, k, 0, &ms) > 0))
		return 0;
	if (!is_facet)
		is_facet = facet_verify(fm, mask, cand);
	w->st.facets_verified += (uint64_t)(is_facet != 0);
	simplify(fm, q, ai, 0, a);
	for (i = 0; i < k; i++)
		a[i] = (double)ai[i];
	mv = feas_margin_of(q, a, k, 0, &ms);
	*rc = add_violation(res, k, ai, 0, is_facet, 1, FEAS_NO_INDEX, mv, ms);
	return 1;
}

static void span_projection(const struct feas_model *fm, const int64_t *a,
			    double *out)
{
	size_t k = fm->k, i, j;

	for (i = 0; i < k; i++)
		out[i] = 0;
	for (j = 0; j < fm->d; j++) {
		double t = 0;

		for (i = 0; i < k; i++)
			t += fm->Q[j * k + i] * (double)a[i];
		for (i = 0; i < k; i++)
			out[i] += t * fm->Q[j * k + i];
	}
}

static int listed_projections(struct worker *w, const struct feas_query *q,
			      struct feas_result *res, double *a, double *fnorm,
			      int64_t *ai, int64_t *cand, unsigned char *mask)
{
	const struct feas_model *fm = w->fm;
	size_t k = fm->k, c, i, j, p, n = 0, *idx = NULL;
	double *mg = NULL, ms;
	int rc = CP_OK;

	if (!fm->n_eqb)
		return CP_OK;   /* each listed facet is its own projection */
	idx = cp_malloc((fm->n_cons ? fm->n_cons : 1) * sizeof *idx);
	mg = cp_malloc((fm->n_cons ? fm->n_cons : 1) * sizeof *mg);
	if (!idx || !mg) {
		rc = CP_ENOMEM;
		goto out;
	}
	for (c = 0; c < fm->n_cons; c++) {
		double m;

		if (fm->cons_eq[c])
			continue;
		span_projection(fm, fm->cons + c * k, fnorm);
		m = feas_margin_of(q, fnorm, k, 0, &ms);
		if (!(m > 0))
			continue;
		/* insertion by decreasing margin (ties: list order) */
		for (i = n++; i > 0 && mg[i - 1] < m; i--) {
			mg[i] = mg[i - 1];
			idx[i] = idx[i - 1];
		}
		mg[i] = m;
		idx[i] = c;
	}
	for (j = 0; j < n; j++) {
		const int64_t *ac = fm->cons + idx[j] * k;

		span_projection(fm, ac, fnorm);
		/* the facet's signatures, exactly: a.s_p = (P a).s_p */
		for (p = 0; p < fm->m; p++) {
			__int128 s = 0;

			for (i = 0; i < k; i++)
				s += (__int128)ac[i] * fm->Su[p * k + i];
			mask[p] = s == 0;
		}
		if (report_facet(w, q, res, fnorm, mask, a, ai, cand, &rc))
			break;
	}
out:
	cp_free(idx);
	cp_free(mg);
	return rc;
}

/* res's violations in decreasing order of margin, those of equal margin
 * as found (insertion: stable; a NaN margin, never made, would go last). */
static void by_margin(struct feas_result *res)
{
	size_t i, j;

	for (i = 1; i < res->n_violations; i++) {
		struct feas_violation v = res->violations[i];

		for (j = i; j > 0 && (v.margin > res->violations[j - 1].margin ||
				      (isnan(res->violations[j - 1].margin) &&
				       !isnan(v.margin))); j--)
			res->violations[j] = res->violations[j - 1];
		res->violations[j] = v;
	}
}

/* Explain an infeasible region.  cert (k) is a separating direction when
 * one is known (a.s >= 0, max_R a.x < 0), NULL otherwise. */
int feas_explain(struct worker *w, const struct feas_query *q,
		   const double *cert, struct feas_result *res)
{
	const struct feas_model *fm = w->fm;
	size_t k = fm->k, m = fm->m, c, i;
	double *a = cp_malloc(k * sizeof *a), *fnorm = cp_malloc(k * sizeof *fnorm);
	double *proj = cp_malloc(k * sizeof *proj);
	int64_t *ai = cp_malloc(k * sizeof *ai), *cand = cp_malloc(k * sizeof *cand);
	unsigned char *mask = cp_malloc(m ? m : 1);
	int rc = CP_OK, attempt;
	double ms, mv;

	if (!a || !fnorm || !proj || !ai || !cand || !mask) {
		rc = CP_ENOMEM;
		goto out;
	}
	/* 1. the listed constraints, in closed form */
	for (c = 0; c < fm->n_cons; c++) {
		double mg;

		for (i = 0; i < k; i++)
			a[i] = (double)fm->cons[c * k + i];
		mg = feas_margin_of(q, a, k, fm->cons_eq[c], &ms);
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
		mg = feas_margin_of(q, a, k, 1, &ms);
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
		double t = feas_dot(fm->Q + c * k, q->mu, k);

		for (i = 0; i < k; i++)
			proj[i] += t * fm->Q[c * k + i];
	}
	for (i = 0; i < k; i++)
		a[i] = q->mu[i] - proj[i];
	if (feas_dot(a, q->mu, k) - feas_spread(q, a, k) > 0 && feas_integerize(a, k, ai) &&
	    feas_exact_valid(fm, ai, 1, NULL)) {
		for (i = 0; i < k; i++)
			a[i] = (double)ai[i];
		if (feas_margin_of(q, a, k, 1, &ms) > 0) {
			simplify(fm, q, ai, 1, a);
			for (i = 0; i < k; i++)
				a[i] = (double)ai[i];
			mv = feas_margin_of(q, a, k, 1, &ms);
			rc = add_violation(res, k, ai, 1, 1, 1, FEAS_NO_INDEX, mv, ms);
			goto out;
		}
	}

	/* 3, with the cone's whole H-representation listed: no LP is needed.
	 * The facet LP's normals lie in span(S), and a facet's normal in
	 * span(S) is unique up to scale, so every facet the LP could return
	 * is the projection P a onto span(S) of a listed facet a (a - P a is
	 * a combination of equalities, zero on every signature, so P a has
	 * a's zeros).  Step 1 tried the listed forms; with equalities the
	 * projections can differ from them over a full-dimensional region.
	 * Each is tried in closed form, the most violated first. */
	if (fm->complete) {
		rc = listed_projections(w, q, res, a, fnorm, ai, cand, mask);
		if (rc || res->n_violations)
			goto out;
		goto certificate;
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
			h = feas_spread(q, cert, k);
			for (i = 0; i < k; i++)
				w->xstar[i] = q->mu[i];
			if (q->shape == FEAS_INDEPENDENT) {
				for (i = 0; i < k; i++)
					w->xstar[i] += (cert[i] >= 0 ? 1 : -1) * q->half[i];
			} else if (q->shape == FEAS_PCA) {
				size_t j;

				for (j = 0; j < k; j++) {
					double s = feas_dot(q->axes + j * k, cert, k) >= 0 ? 1 : -1;

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
		if (report_facet(w, q, res, fnorm, mask, a, ai, cand, &rc))
			goto out;
	}

certificate:
	/* 4. no single facet separates (the region lies beyond a lower-
	 * dimensional face): report the certificate itself, a valid
	 * inequality of the model that is not one of its facets */
	if (cert) {
		if (round_certificate(fm, q, cert, ai, fnorm)) {
			simplify(fm, q, ai, 0, a);
			for (i = 0; i < k; i++)
				a[i] = (double)ai[i];
			mv = feas_margin_of(q, a, k, 0, &ms);
			rc = add_violation(res, k, ai, 0, 0, 1, FEAS_NO_INDEX, mv, ms);
		} else {
			double amax = 0;

			for (i = 0; i < k; i++)
				amax = fmax(amax, fabs(cert[i]));
			for (i = 0; i < k; i++) {
				ai[i] = (int64_t)nearbyint(cert[i] / amax * FEAS_CERT_SCALE);
				a[i] = (double)ai[i];
			}
			mv = feas_margin_of(q, a, k, 0, &ms);
			rc = add_violation(res, k, ai, 0, 0, 0, FEAS_NO_INDEX, mv, ms);
		}
	}
out:
	if (!rc)
		by_margin(res);
	cp_free(a);
	cp_free(fnorm);
	cp_free(proj);
	cp_free(ai);
	cp_free(cand);
	cp_free(mask);
	return rc;
}

