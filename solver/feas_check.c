/* SPDX-License-Identifier: GPL-3.0-or-later */
/* solver/feas_check.c: one check: the ellipsoid by exact NNLS (with its
 * p-value), a box by the LP, borderline verdicts settled by glp_exact;
 * feas_check itself. */
#include <glpk.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <lapacke.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "solver/feas.h"
#include "solver/feas_int.h"

#include "stats/region.h"

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
	double kkt = 0, d2, d2_hi;
	int rc = CP_OK;

	if (!(flags & FEAS_NO_PREFILTER) && feas_prefilter_ellipsoid(w, q, &d2, &d2_hi) &&
	    d2_hi <= q->q * (1 - FEAS_TOL_PREFILTER)) {
		/* inside, rounding allowed for, by a margin the NNLS could not
		 * call borderline */
		w->st.prefiltered++;
		res->d2 = d2;
		res->kkt = 0;
		res->p_value = chisq_pvalue(d2, k, q->n);
		res->feasible = 1;
		res->borderline = 0;
		goto out;
	}
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
	d2 = feas_dot(r, r, k);
	res->d2 = d2;
	res->kkt = kkt;
	res->p_value = chisq_pvalue(d2, k, q->n);
	res->feasible = d2 <= q->q;
	res->borderline = fabs(d2 - q->q) <= FEAS_TOL_GLPK * fmax(q->q, FEAS_TINY) ||
			  kkt > FEAS_TOL_KKT;
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
		rc = feas_explain(w, q, i == k ? r : NULL, res);
		if (rc)
			rc = cp_error_set(err, rc, "out of memory explaining an observation");
	}
out:
	cp_free(L);
	cp_free(f);
	cp_free(r);
	return rc;
}

/* A warm start can end in a solution GLPK bent by its tolerance, or in a
 * shallow certificate, where a solve from a cold basis on every column
 * ends cleanly: before the exact re-check (hundreds of milliseconds with
 * big integers), the box is solved once more from scratch and its answer
 * taken when it passes the same tests as any (a witness inside the box,
 * measured with its rounding; a certificate deeper than GLPK's
 * tolerance).  Returns 1 with *verdict and *depth settled, 0 when it is
 * still borderline, < 0 on a GLPK failure (the exact path then runs). */
static int cold_retry(struct worker *w, const struct feas_query *q,
		      double sigma, int *verdict, double *depth)
{
	int v;

	feas_activate_all(w);
	glp_adv_basis(w->box, 0);
	if (feas_box_solve(w, q, sigma, SOLVE_AGAIN, &v))
		return -1;
	if (v == BOX_FEASIBLE) {
		if (feas_box_residual(w, q, sigma) > 1)
			return 0;
		*verdict = v;
		*depth = 0;
		return 1;
	}
	*depth = feas_box_certificate(w, q, sigma);
	if (w->broken)
		return -1;
	if (!(*depth >= FEAS_TOL_GLPK))
		return 0;
	*verdict = v;
	return 1;
}

double feas_box_scale(const struct feas_query *q, size_t k)
{
	double sigma = 0;
	size_t i;

	for (i = 0; i < k; i++)
		sigma = fmax(sigma, fabs(q->mu[i]) + q->half[i]);
	/* a power of two, so that scaling loses no bits: the exact re-check
	 * then decides the box as given */
	return sigma > 0 && isfinite(sigma) ? ldexp(1, ilogb(sigma) + 1) : 1;
}

static int check_box(struct worker *w, const struct feas_query *q,
		     unsigned flags, struct feas_result *res,
		     struct cp_error *err)
{
	const struct feas_model *fm = w->fm;
	size_t k = fm->k, i;
	double sigma, depth = 0;
	int verdict, rc, round;

	sigma = feas_box_scale(q, k);
	if (fm->nr == 0) {
		/* the cone is {0}: feasible iff the box holds 0 */
		double *z = w->vk;

		for (i = 0; i < k; i++)
			z[i] = 0;
		verdict = BOX_FEASIBLE;
		for (i = 0; i < k; i++) {
			double c = q->shape == FEAS_PCA ? feas_dot(q->axes + i * k, q->mu, k) : q->mu[i];

			if (fabs(c) > q->half[i])
				verdict = BOX_INFEASIBLE;
		}
		res->feasible = verdict == BOX_FEASIBLE;
		goto explain_it;
	}
	if (!(flags & FEAS_NO_PREFILTER)) {
		int pre = feas_prefilter_box(w, q);

		/* the cone's nearest point as a witness: from a fresh LP no
		 * warm start is lost by deciding more here, and for an
		 * independent box (a diagonal metric) it is cheap enough to
		 * pay for the warm starts it breaks; for a rotated PCA box
		 * with warm starts it is not (docs/method/checking.md) */
		if (pre == FEAS_PRE_UNDECIDED &&
		    ((flags & FEAS_FRESH) || q->shape == FEAS_INDEPENDENT))
			pre = feas_prefilter_box_face(w, q);

		if (pre != FEAS_PRE_UNDECIDED) {
			w->st.prefiltered++;
			res->feasible = pre == FEAS_PRE_FEASIBLE;
			goto explain_it;   /* depth 0: the listed constraints explain */
		}
	}
	/* Column generation: solve on the working set; a feasible answer
	 * stands for the whole LP, an infeasible one only once its
	 * certificate holds against every signature. */
	rc = feas_box_solve(w, q, sigma, SOLVE_NEW_BOX, &verdict);
	for (round = 0; !rc; round++) {
		if (verdict == BOX_FEASIBLE)
			break;
		depth = feas_box_certificate(w, q, sigma);
		if (w->broken)
			return feas_glpk_failed(err, "in the feasibility LP");
		if (depth > 0 ? feas_price_columns(w, w->rho) == 0
			      : w->n_active == fm->nr)
			break;
		if (depth == 0 || round >= 50)
			feas_activate_all(w);  /* no usable certificate: the whole LP */
		rc = feas_box_solve(w, q, sigma, SOLVE_AGAIN, &verdict);
	}
	if (rc)
		return cp_error_set(err, rc, rc == CP_ENOMEM ?
				    "out of memory in the feasibility LP" :
				    "the feasibility LP failed (GLPK)");
	/* Borderline: GLPK accepts bound violations up to ~1e-7.  A box it
	 * calls feasible only by using that tolerance (its point outside the
	 * box by more than FEAS_TOL_BOX_REL of a half-width), or infeasible
	 * by a certificate shallower than 1e-7, lies within ~1e-7 of the
	 * cone: it is settled by glp_exact on the whole LP, its data scaled
	 * by powers of two to integers so that GLPK reads them exactly
	 * (lp.c, box_exact). */
	if (verdict == BOX_FEASIBLE) {
		/* A solution GLPK bent by its tolerance: solve again in the box
		 * shrunk by 3 times the tolerance; a solution there (even a
		 * bent one) lies strictly inside the real box. */
		if (feas_box_residual(w, q, sigma) > 1) {
			int v2 = BOX_INFEASIBLE;

			w->st.shrink_tests++;
			if (feas_set_bounds(w, q, sigma, 3 * FEAS_TOL_GLPK) == 0) {
				rc = feas_box_solve(w, q, sigma, SOLVE_AGAIN, &v2);
				/* the shrunk box's solution must lie in the
				 * real one, measured as the first was */
				if (!rc && v2 == BOX_FEASIBLE &&
				    feas_box_residual(w, q, sigma) > 1)
					v2 = BOX_INFEASIBLE;
				feas_set_bounds(w, q, sigma, 0);
				if (rc)
					return cp_error_set(err, rc, "the feasibility LP failed (GLPK)");
			}
			if (v2 != BOX_FEASIBLE)
				res->borderline = 1;
		}
	} else if (depth < FEAS_TOL_GLPK) {
		res->borderline = 1;
	}
	if (res->borderline && !(flags & FEAS_NO_EXACT) &&
	    cold_retry(w, q, sigma, &verdict, &depth) == 1)
		res->borderline = 0;
	if (res->borderline) {
		w->st.borderline++;
		if (!(flags & FEAS_NO_EXACT)) {
			feas_activate_all(w);
			rc = feas_box_solve(w, q, sigma, SOLVE_EXACT, &verdict);
			if (rc)
				return cp_error_set(err, rc, "the exact feasibility LP failed (GLPK)");
			depth = 0;
			if (verdict == BOX_INFEASIBLE && (flags & FEAS_EXPLAIN))
				depth = feas_box_certificate(w, q, sigma);
		}
	}
	feas_trim_columns(w);
	res->feasible = verdict == BOX_FEASIBLE;
explain_it:
	if (!res->feasible && (flags & FEAS_EXPLAIN)) {
		if (depth > 0)
			w->st.certificates++;
		rc = feas_explain(w, q, depth > 0 ? w->rho : NULL, res);
		if (rc)
			return cp_error_set(err, rc, "out of memory explaining an observation");
	}
	return CP_OK;
}

int feas_check_with(struct worker *w, const struct feas_query *q,
		      unsigned flags, struct feas_result *res,
		      struct cp_error *err)
{
	int rc;

	feas_result_release(res);
	res->k = w->fm->k;
	rc = feas_query_check(q, w->fm->k, err);
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

	if (flags & FEAS_FRESH)
		feas_model_restart(fm);
	rc = feas_check_on(fm, &fm->own, q, flags, res, err);
	fm->st.checks++;
	return rc;
}

int feas_check_on(const struct feas_model *fm, struct worker **w,
		  const struct feas_query *q, unsigned flags,
		  struct feas_result *res, struct cp_error *err)
{
	int rc;

	if (!*w && (rc = feas_worker_new(fm, w, err)))
		return rc;
	if (!pthread_equal((*w)->thread, pthread_self()))
		return cp_error_set(err, CP_EINTERNAL,
				    "a feasibility LP used from a thread other than its own");
	if ((*w)->broken)
		return cp_error_set(err, CP_EINTERNAL, "the feasibility LP failed earlier (GLPK)");
	return feas_check_with(*w, q, flags, res, err);
}

void feas_thread_end(void)
{
	glp_free_env();
}

