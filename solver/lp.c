/* SPDX-License-Identifier: GPL-3.0-or-later */
/* solver/lp.c: the GLPK side: per-thread workers, the box LP with its
 * warm-started bounds, Farkas certificates of infeasible boxes, and the
 * column generation that keeps the LP to the signatures that matter. */
#include <glpk.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "solver/feas.h"
#include "solver/feas_int.h"

/* ================================================================ *
 * GLPK workers                                                      *
 * ================================================================ */

void feas_glpk_error(void *info)
{
	struct worker *w = info;

	longjmp(w->jump, 1);
}

void feas_worker_free(struct worker *w)
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
	cp_free(w->pre_em);
	cp_free(w->pre_g);
	cp_free(w->pre_y);
	cp_free(w->pre_b);
	cp_free(w->pre_axt);
	cp_free(w->pre_t);
	cp_free(w->pre_y0);
	cp_free(w->pre_c);
	cp_free(w->ell_b);
	cp_free(w->ell_g);
	cp_free(w->ell_y);
	cp_free(w->ell_w);
	cp_free(w->ell_rows);
	cp_free(w->ell_active);
	cp_free(w->ell_cov);
	cp_free(w);
}

/* Build the box LP and the facet LP.  Inputs are validated here, so no
 * GLPK call can fail; the error hook is only a last line of defence. */
int feas_worker_new(const struct feas_model *fm, struct worker **out,
		      struct cp_error *err)
{
	struct worker *w = cp_calloc(1, sizeof *w);
	size_t k = fm->k, m = fm->nr, d = fm->d, n = (fm->m > k ? fm->m : k) + k + 2;
	size_t p, i;
	int rc;

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
	for (i = 0; i < fm->n_cons; i++)
		w->n_pre += fm->cons_eq[i];
	w->pre_em = cp_malloc((w->n_pre * k + 1) * sizeof *w->pre_em);
	w->pre_g = cp_malloc((w->n_pre * w->n_pre + 1) * sizeof *w->pre_g);
	w->pre_y = cp_malloc((w->n_pre + 1) * sizeof *w->pre_y);
	w->pre_b = cp_malloc((fm->n_cons * k + 1) * sizeof *w->pre_b);
	w->pre_axt = cp_malloc((k * k + 1) * sizeof *w->pre_axt);
	w->pre_t = cp_malloc((k + 1) * sizeof *w->pre_t);
	w->pre_y0 = cp_malloc((w->n_pre + 1) * sizeof *w->pre_y0);
	w->pre_c = cp_malloc((3 * fm->n_cons + 1) * sizeof *w->pre_c);
	w->ell_b = cp_malloc((k * k + 1) * sizeof *w->ell_b);
	w->ell_g = cp_malloc((2 * k * k + 1) * sizeof *w->ell_g);
	w->ell_y = cp_malloc((3 * k + 1) * sizeof *w->ell_y);
	w->ell_w = cp_malloc((k + 1) * sizeof *w->ell_w);
	w->ell_rows = cp_malloc((k + 1) * sizeof *w->ell_rows);
	w->ell_active = cp_calloc(fm->n_cons + 1, 1);
	w->ell_cov = cp_malloc((k * k + 1) * sizeof *w->ell_cov);
	if (!w->pre_em || !w->pre_g || !w->pre_y || !w->pre_b || !w->pre_axt || !w->pre_t ||
	    !w->pre_y0 || !w->pre_c ||
	    !w->ell_b || !w->ell_g || !w->ell_y || !w->ell_w || !w->ell_rows ||
	    !w->ell_active || !w->ell_cov) {
		feas_worker_free(w);
		return cp_error_set(err, CP_ENOMEM, "out of memory building the LP");
	}
	if (!w->ysign || !w->resid || !w->passive || !w->price_pick || !w->price_score || !w->active || !w->colsig || !w->delcols || !w->ind || !w->val || !w->vk || !w->vk2 || !w->rho || !w->xstar ||
	    !w->facet_row) {
		feas_worker_free(w);
		return cp_error_set(err, CP_ENOMEM, "out of memory building the LP");
	}
	if ((rc = feas_glpk_start(err, "building the LP"))) {
		feas_worker_free(w);
		return rc;
	}
	glp_error_hook(feas_glpk_error, w);
	if (setjmp(w->jump)) {
		w->broken = 1;
		glp_error_hook(NULL, NULL);
		feas_worker_free(w);
		return feas_glpk_failed(err, "building the LP");
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

/* The box LP is centred on the observation: rows S f - W^T y = mu/sigma,
 * y_j in [-h_j, h_j]/sigma (W = I for the independent box).  GLPK's
 * tolerances are relative to the bounds, so with the centre in the rows
 * a bound on y is as tight as the box is narrow, at any count level; with
 * y bounded by c +- h they were 1e-7 of the counts, many half-widths
 * once counts reach 2^40.  The box is {mu + W^T y}: centred exactly on
 * the mean as given. */

/* Half-width of the box along y_j (scaled by 1/sigma). */
static double box_half(const struct feas_query *q, size_t j, double sigma)
{
	return q->half[j] / sigma;
}

/* The box's bounds on y (scaled by 1/sigma), each side pulled in by
 * shrink (1 + |bound|), and the rows' right-hand sides mu/sigma.
 * Returns -1, changing nothing, when shrinking would empty an
 * interval. */
int feas_set_bounds(struct worker *w, const struct feas_query *q,
		      double sigma, double shrink)
{
	size_t k = w->fm->k, j;

	for (j = 0; shrink > 0 && j < k; j++) {
		double hw = box_half(q, j, sigma);

		if (-hw + shrink * (1 + hw) >= hw - shrink * (1 + hw))
			return -1;
	}
	for (j = 0; j < k; j++) {
		double hw = box_half(q, j, sigma);
		double lo = -hw + shrink * (1 + hw), hi = hw - shrink * (1 + hw);

		if (lo < hi)
			glp_set_col_bnds(w->box, (int)j + 1, GLP_DB, lo, hi);
		else
			glp_set_col_bnds(w->box, (int)j + 1, GLP_FX, 0, 0);
		glp_set_row_bnds(w->box, (int)j + 1, GLP_FX, q->mu[j] / sigma,
				 q->mu[j] / sigma);
	}
	return 0;
}

/* Lowest power of two that makes v an integer: v 2^e is integral for
 * e >= exact_shift(v) (0 for integers). */
static int exact_shift(double v)
{
	int e, tz;
	double fr;
	uint64_t mant;

	if (v == 0 || !isfinite(v))
		return 0;
	fr = frexp(fabs(v), &e);
	mant = (uint64_t)ldexp(fr, 53);
	tz = __builtin_ctzll(mant);
	return 53 - e - tz > 0 ? 53 - e - tz : 0;
}

/* Multiply every matrix entry by 2^rs, the bounds of the box columns y
 * by 2^ts and the rows' right-hand sides by 2^(rs+ts) (exact: powers of
 * two, range checked by the caller). */
static void scale_box(struct worker *w, int rs, int ts)
{
	int k = (int)w->fm->k, n = glp_get_num_cols(w->box), j, t, len;

	for (j = 1; j <= k; j++) {
		double b = ldexp(glp_get_row_lb(w->box, j), rs + ts);

		glp_set_row_bnds(w->box, j, GLP_FX, b, b);
	}
	for (j = 1; j <= n; j++) {
		len = glp_get_mat_col(w->box, j, w->ind, w->val);
		for (t = 1; t <= len; t++)
			w->val[t] = ldexp(w->val[t], rs);
		glp_set_mat_col(w->box, j, len, w->ind, w->val);
		if (j <= k) {
			int type = glp_get_col_type(w->box, j);
			double lo = ldexp(glp_get_col_lb(w->box, j), ts);
			double hi = ldexp(glp_get_col_ub(w->box, j), ts);

			glp_set_col_bnds(w->box, j, type, lo, type == GLP_FX ? lo : hi);
		}
	}
}

/* glp_exact reads a double that is not an integer as a nearby rational
 * (within about 1e-9 of it), so on the box LP as built it decides a
 * neighbouring box, one that at counts of 2^44 has moved by far more
 * than its width.  Every datum is made an integer first: each row of
 * S f - W^T y = 0 times 2^rs (S's and W's entries integral), y = 2^-ts y'
 * with y' bounded by 2^ts [lo, hi] (integral), f' = 2^ts f; the same LP,
 * read exactly.  Returns glp_exact's code, or -1 when the powers of two
 * would leave the range of a double (the verdict then stays undecided). */
static int box_exact(struct worker *w)
{
	int k = (int)w->fm->k, n = glp_get_num_cols(w->box), j, t, len;
	int rs = 0, ts = 0, big_entry = -1075, big_bound = -1075, ret;

	for (j = 1; j <= n; j++) {
		len = glp_get_mat_col(w->box, j, w->ind, w->val);
		for (t = 1; t <= len; t++)
			if (w->val[t] != 0) {
				int s = exact_shift(w->val[t]);

				rs = s > rs ? s : rs;
				big_entry = ilogb(w->val[t]) > big_entry ? ilogb(w->val[t]) : big_entry;
			}
		if (j <= k) {
			double b[2] = { glp_get_col_lb(w->box, j), glp_get_col_ub(w->box, j) };

			for (t = 0; t < 2; t++)
				if (b[t] != 0) {
					int s = exact_shift(b[t]);

					ts = s > ts ? s : ts;
					big_bound = ilogb(b[t]) > big_bound ? ilogb(b[t]) : big_bound;
				}
		}
	}
	for (j = 1; j <= k; j++) {
		double b = glp_get_row_lb(w->box, j);

		if (b != 0) {
			int s = exact_shift(b) - rs;

			ts = s > ts ? s : ts;
		}
	}
	for (j = 1; j <= k; j++) {
		double b = glp_get_row_lb(w->box, j);

		if (b != 0 && ilogb(b) + rs + ts > 1000)
			return -1;
	}
	if (big_entry + rs > 1000 || big_bound + ts > 1000)
		return -1;
	scale_box(w, rs, ts);
	ret = glp_exact(w->box, &w->dual);
	scale_box(w, -rs, -ts);
	return ret;
}

int feas_box_solve(struct worker *w, const struct feas_query *q,
		     double sigma, int mode, int *verdict)
{
	const struct feas_model *fm = w->fm;
	size_t k = fm->k, i, j;
	int ret, st;

	glp_error_hook(feas_glpk_error, w);
	if (setjmp(w->jump)) {
		w->broken = 1;
		glp_error_hook(NULL, NULL);
		return feas_glpk_failed(NULL, NULL);
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
		feas_set_bounds(w, q, sigma, 0);
	}
	if (mode == SOLVE_EXACT) {
		w->st.exact_solves++;
		ret = box_exact(w);
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

/* Is the float solution a solution?  The witness is the point S f
 * alone (f clamped at 0), whatever GLPK's y and rows say: its box
 * coordinates W (S f - mu) are computed in long double, with their
 * rounding bound added, and compared with the half-widths.  Returns the
 * worst excess beyond the box in units of the axis's allowance, the
 * smaller of FEAS_TOL_BOX_REL of the coordinate's magnitude and
 * FEAS_TOL_BOX_WIDTH of the half-width; > 1: GLPK used its tolerance
 * (about 1e-7 of the LP's scale) and the verdict needs the shrink test
 * or the exact re-check. */
double feas_box_residual(struct worker *w, const struct feas_query *q,
			   double sigma)
{
	const struct feas_model *fm = w->fm;
	size_t k = fm->k, i, j, col;
	long double *d = w->resid, *mag = w->resid + k;
	long double terms = (long double)(w->n_active + k + 2) * 0x1p-62L;
	double worst = 0;

	for (i = 0; i < k; i++)
		d[i] = mag[i] = 0;
	for (col = 0; col < w->n_active; col++) {
		size_t p = w->colsig[col];
		double f = glp_get_col_prim(w->box, (int)(k + col) + 1);

		if (f > 0)
			for (i = 0; i < k; i++) {
				d[i] += (long double)fm->S[p * k + i] * f;
				mag[i] += fabsl((long double)fm->S[p * k + i] * f);
			}
	}
	for (i = 0; i < k; i++) {
		d[i] -= (long double)(q->mu[i] / sigma);
		mag[i] += fabsl((long double)(q->mu[i] / sigma));
	}
	for (j = 0; j < k; j++) {
		double hw = box_half(q, j, sigma), c, allow;
		long double y = 0, e = 0;

		if (q->shape == FEAS_PCA) {
			const double *a = q->axes + j * k;

			for (i = 0; i < k; i++) {
				y += (long double)a[i] * d[i];
				e += fabsl((long double)a[i]) * (mag[i] + fabsl(d[i]));
			}
			c = feas_dot(a, q->mu, k) / sigma;
		} else {
			y = d[j];
			e = mag[j];
			c = q->mu[j] / sigma;
		}
		allow = fmin(FEAS_TOL_BOX_REL * (fabs(c) + hw), FEAS_TOL_BOX_WIDTH * hw);
		worst = fmax(worst, (double)((fabsl(y) - hw + terms * e) /
					     fmax(allow, FEAS_TINY)));
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
	double na = sqrt(feas_dot(a, a, k)), h;

	if (!(na > 0))
		return 0;
	for (p = 0; p < fm->m; p++)
		if ((!active || p >= fm->nr || active[p]) &&
		    feas_dot(a, fm->S + p * k, k) < -tol * na * fm->snorm[p])
			return 0;
	h = feas_dot(a, q->mu, k) + feas_spread(q, a, k);
	return h < 0 ? -h / (na * sigma) : 0;
}

/* Farkas certificate of an infeasible box LP from its final basis: row r
 * of B^{-1} (glp_btran on e_r) combines the rows into
 *   sum_p (rho.s_p) f_p - sum_j (W rho)_j y_j = 0,
 * which no f >= 0 and y in the box satisfy; so a = +-rho.  The row is the
 * basic variable GLPK's dual simplex could not repair
 * (glp_get_unbnd_ray); failing that, every basic row is tried.  Writes a
 * into w->rho and returns its depth (0: none found). */
double feas_box_certificate(struct worker *w, const struct feas_query *q,
			      double sigma)
{
	const struct feas_model *fm = w->fm;
	size_t k = fm->k, i, r, first;
	volatile double best = 0;

	glp_error_hook(feas_glpk_error, w);
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
			dpt = certificate_depth(fm, q, w->vk, sigma, FEAS_TOL_PRICE, w->active);
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
size_t feas_price_columns(struct worker *w, const double *a)
{
	const struct feas_model *fm = w->fm;
	size_t k = fm->k, p, n = 0, budget = 2 * k + 8, i;
	double na = sqrt(feas_dot(a, a, k));
	double *score = w->price_score;
	size_t *pick = w->price_pick;

	for (p = 0; p < fm->nr; p++) {
		double v;

		if (w->active[p])
			continue;
		v = feas_dot(a, fm->S + p * k, k) / fm->snorm[p];
		if (!(v < -FEAS_TOL_PRICE * na))
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
void feas_trim_columns(struct worker *w)
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

void feas_activate_all(struct worker *w)
{
	size_t p;

	for (p = 0; p < w->fm->nr; p++)
		activate(w, p);
}

