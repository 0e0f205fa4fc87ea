/* SPDX-License-Identifier: GPL-3.0-or-later */
/* solver/flows.c: bounds on flows over region ∩ cone.  One GLPK LP per
 * thread over the columns' flows, its rows the region's box (or the
 * ellipsoid's enclosing box and tangent cuts); every bound certified by
 * weak duality from the LP's row duals, evaluated with its rounding
 * error, so the bounds printed are rounded outward. */
#include <errno.h>
#include <float.h>
#include <glpk.h>
#include <lapacke.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "solver/feas.h"
#include "solver/feas_int.h"

/* Tangent cuts of the ellipsoid: at most this many per solve and per
 * region (each is a row; the bounds stay valid when they stop, only
 * looser). */
#define FLOW_CUTS_PER_SOLVE 30
#define FLOW_CUTS_MAX 300
/* A flow is in the ellipsoid when its distance is within this share of q
 * (GLPK's tolerance is 1e-7; tighter cuts only cost rows). */
#define FLOW_TOL_ELLIPSOID 1e-6
/* Dinkelbach stops when the parametric optimum is within this share of
 * the magnitudes (the certificate covers the rest). */
#define FLOW_TOL_DINKELBACH 1e-10
#define FLOW_DINKELBACH_STEPS 40
/* Outward slack on bounds computed in double from the region (the
 * ellipsoid's enclosing box, its cuts, flows' upper bounds): far above
 * their rounding (~1e-15), far below any statistical meaning. */
#define FLOW_SLACK 1e-12

struct feas_flows {
	size_t k, n;
	uint32_t *Su;        /* n x k */
	double *S;           /* n x k */
	struct flow_lp *own;
};

/* One thread's LP, as check's box LP (solver/lp.c): columns 1..k the box
 * coordinates y_r = w_r.x, bounded by [L_r, U_r] (w_r the box's axes;
 * the counter axes for the independent box and for the ellipsoid's
 * enclosing box), then the n flows lambda_c >= 0; rows 1..k
 * S^T lambda - W^T y = 0, one per counter (sparse: only y's columns are
 * dense, and only for PCA boxes); rows beyond k: the ellipsoid's tangent
 * cuts g.y <= h (there W = I, so y = x).  W, L, U list the region's
 * constraints on x for the certificates: the k box rows, then the cuts. */
struct flow_lp {
	const struct feas_flows *ff;
	pthread_t thread;
	jmp_buf jump;
	int broken;
	glp_prob *lp;
	glp_smcp smcp;
	int identity;        /* rows 1..k hold W = I */
	size_t rows, cap;    /* rows in use; capacity of W, L, U */
	double *W, *L, *U;   /* rows x k; ranges (L = -inf for cuts) */
	long double *Lc, *Uc;  /* certified (outward) ranges */
	const struct feas_query *q;
	double *chol;        /* ellipsoid: Cholesky factor of cov (k x k) */
	double *lmax;        /* n: an upper bound of each flow on the region */
	double *xabs;        /* k: an upper bound of |x_i| on the region */
	double *lam, *x, *g, *coef, *pi;
	long double *v;
	int *ind;
	double *val;
};

/* ================================================================ *
 * Model and LP                                                      *
 * ================================================================ */

int feas_flows_new(size_t k, size_t n, const uint32_t *S,
		   struct feas_flows **out, struct cp_error *err)
{
	struct feas_flows *ff;
	size_t c, i;

	*out = NULL;
	if (!k || !n)
		return cp_error_set(err, CP_EINPUT, "flow bounds need counters and columns");
	for (c = 0; c < n; c++) {
		for (i = 0; i < k && !S[c * k + i]; i++)
			;
		if (i == k)
			return cp_error_set(err, CP_EINPUT, "column %zu counts nothing: its "
					    "flow is not bounded by the data", c + 1);
	}
	if (n > (size_t)INT32_MAX / 2 || k > 100000)
		return cp_error_set(err, CP_ELIMIT, "too many columns for the LP");
	ff = cp_calloc(1, sizeof *ff);
	if (!ff)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	ff->k = k;
	ff->n = n;
	ff->Su = cp_malloc(n * k * sizeof *ff->Su);
	ff->S = cp_malloc(n * k * sizeof *ff->S);
	if (!ff->Su || !ff->S) {
		feas_flows_free(ff);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	memcpy(ff->Su, S, n * k * sizeof *ff->Su);
	for (c = 0; c < n * k; c++)
		ff->S[c] = S[c];
	*out = ff;
	return CP_OK;
}

static void lp_free(struct flow_lp *w)
{
	if (!w)
		return;
	if (!w->broken && w->lp)
		glp_delete_prob(w->lp);
	cp_free(w->W);
	cp_free(w->L);
	cp_free(w->U);
	cp_free(w->Lc);
	cp_free(w->Uc);
	cp_free(w->chol);
	cp_free(w->lmax);
	cp_free(w->xabs);
	cp_free(w->lam);
	cp_free(w->x);
	cp_free(w->g);
	cp_free(w->coef);
	cp_free(w->pi);
	cp_free(w->v);
	cp_free(w->ind);
	cp_free(w->val);
	cp_free(w);
}

void feas_flows_free(struct feas_flows *ff)
{
	if (!ff)
		return;
	lp_free(ff->own);
	cp_free(ff->Su);
	cp_free(ff->S);
	cp_free(ff);
}

static void lp_glpk_error(void *info)
{
	struct flow_lp *w = info;

	longjmp(w->jump, 1);
}

/* Room for `rows` rows in W, L, U, pi. */
static int lp_reserve(struct flow_lp *w, size_t rows)
{
	size_t k = w->ff->k, cap = w->cap ? w->cap : 2 * k;
	double *W, *L, *U, *pi;
	long double *Lc, *Uc;

	if (rows <= w->cap)
		return 0;
	while (cap < rows)
		cap *= 2;
	W = cp_reallocarray(w->W, cap * k, sizeof *W);
	if (W)
		w->W = W;
	L = cp_reallocarray(w->L, cap, sizeof *L);
	if (L)
		w->L = L;
	U = cp_reallocarray(w->U, cap, sizeof *U);
	if (U)
		w->U = U;
	Lc = cp_reallocarray(w->Lc, cap, sizeof *Lc);
	if (Lc)
		w->Lc = Lc;
	Uc = cp_reallocarray(w->Uc, cap, sizeof *Uc);
	if (Uc)
		w->Uc = Uc;
	pi = cp_reallocarray(w->pi, cap + 1, sizeof *pi);
	if (pi)
		w->pi = pi;
	if (!W || !L || !U || !Lc || !Uc || !pi)
		return -1;
	w->cap = cap;
	return 0;
}

static int lp_new(const struct feas_flows *ff, struct flow_lp **out,
		  struct cp_error *err)
{
	struct flow_lp *w = cp_calloc(1, sizeof *w);
	size_t k = ff->k, n = ff->n, c, i;
	int rc;

	*out = NULL;
	if (!w)
		return cp_error_set(err, CP_ENOMEM, "out of memory building the flow LP");
	w->ff = ff;
	w->thread = pthread_self();
	w->chol = cp_malloc(k * k * sizeof *w->chol);
	w->lmax = cp_malloc(n * sizeof *w->lmax);
	w->xabs = cp_malloc(k * sizeof *w->xabs);
	w->lam = cp_malloc(n * sizeof *w->lam);
	w->x = cp_malloc(k * sizeof *w->x);
	w->g = cp_malloc(k * sizeof *w->g);
	w->coef = cp_malloc(n * sizeof *w->coef);
	w->v = cp_malloc(k * sizeof *w->v);
	/* row and column lists, and the cut rows deleted at a new region */
	w->ind = cp_malloc((n + k + FLOW_CUTS_MAX + 1) * sizeof *w->ind);
	w->val = cp_malloc((n + k + FLOW_CUTS_MAX + 1) * sizeof *w->val);
	if (!w->chol || !w->lmax || !w->xabs || !w->lam || !w->x || !w->g ||
	    !w->coef || !w->v || !w->ind || !w->val || lp_reserve(w, 2 * k)) {
		lp_free(w);
		return cp_error_set(err, CP_ENOMEM, "out of memory building the flow LP");
	}
	if ((rc = feas_glpk_start(err, "building the flow LP"))) {
		lp_free(w);
		return rc;
	}
	glp_error_hook(lp_glpk_error, w);
	if (setjmp(w->jump)) {
		w->broken = 1;
		glp_error_hook(NULL, NULL);
		lp_free(w);
		return feas_glpk_failed(err, "building the flow LP");
	}
	w->lp = glp_create_prob();
	glp_set_obj_dir(w->lp, GLP_MIN);
	glp_add_rows(w->lp, (int)k);
	glp_add_cols(w->lp, (int)(k + n));
	for (i = 0; i < k; i++) {
		w->ind[1] = (int)i + 1;
		w->val[1] = -1;
		glp_set_mat_col(w->lp, (int)i + 1, 1, w->ind, w->val);
		glp_set_col_bnds(w->lp, (int)i + 1, GLP_FX, 0, 0);
	}
	for (c = 0; c < n; c++) {
		int len = 0;

		for (i = 0; i < k; i++)
			if (ff->Su[c * k + i]) {
				len++;
				w->ind[len] = (int)i + 1;
				w->val[len] = ff->S[c * k + i];
			}
		glp_set_mat_col(w->lp, (int)(k + c) + 1, len, w->ind, w->val);
		glp_set_col_bnds(w->lp, (int)(k + c) + 1, GLP_LO, 0, 0);
	}
	w->identity = 1;
	w->rows = k;
	for (i = 0; i < k; i++)
		glp_set_row_bnds(w->lp, (int)i + 1, GLP_FX, 0, 0);
	glp_adv_basis(w->lp, 0);
	glp_init_smcp(&w->smcp);
	w->smcp.msg_lev = GLP_MSG_OFF;
	w->smcp.presolve = GLP_OFF;
	w->smcp.it_lim = 200000;
	glp_error_hook(NULL, NULL);
	*out = w;
	return CP_OK;
}

/* ================================================================ *
 * The region                                                        *
 * ================================================================ */

/* Rows 1..k and the flows' bounds for region q (cuts of the previous
 * region removed).  GLPK calls happen under the caller's error hook. */
static int lp_set_region(struct flow_lp *w, const struct feas_query *q)
{
	const struct feas_flows *ff = w->ff;
	size_t k = ff->k, n = ff->n, r, i, c;
	int pca = q->shape == FEAS_PCA;

	if (w->rows > k) {
		size_t nd = w->rows - k;

		for (r = 0; r < nd; r++)
			w->ind[r + 1] = (int)(k + r + 1);
		glp_del_rows(w->lp, (int)nd, w->ind);
		w->rows = k;
	}
	w->q = q;
	if (q->shape == FEAS_ELLIPSOID) {
		memcpy(w->chol, q->cov, k * k * sizeof *w->chol);
		if (LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', (lapack_int)k, w->chol,
				   (lapack_int)k) != 0)
			return CP_EINPUT;
	}
	for (r = 0; r < k; r++) {
		double *wr = w->W + r * k;
		long double cen = 0, mag = 0, h;

		for (i = 0; i < k; i++)
			wr[i] = pca ? q->axes[r * k + i] : i == r;
		for (i = 0; i < k; i++) {
			cen += (long double)wr[i] * q->mu[i];
			mag += fabsl((long double)wr[i] * q->mu[i]);
		}
		if (q->shape == FEAS_ELLIPSOID)
			h = sqrtl((long double)q->q * q->cov[r * k + r]) * (1 + FLOW_SLACK);
		else
			h = q->half[r];
		w->L[r] = (double)(cen - h);
		w->U[r] = (double)(cen + h);
		/* outward: the sums' rounding and the conversion to double */
		mag = (mag + h) * (long double)(k + 4) * LDBL_EPSILON +
			(fabsl(cen) + h) * DBL_EPSILON;
		w->Lc[r] = fminl(w->L[r], cen - h - mag);
		w->Uc[r] = fmaxl(w->U[r], cen + h + mag);
		if (w->L[r] < w->U[r])
			glp_set_col_bnds(w->lp, (int)r + 1, GLP_DB, w->L[r], w->U[r]);
		else
			glp_set_col_bnds(w->lp, (int)r + 1, GLP_FX, w->L[r], w->L[r]);
	}
	/* y_r's column: -w_r in the counter rows (x = W^T y) */
	if (pca || !w->identity) {
		for (r = 0; r < k; r++) {
			int len = 0;

			for (i = 0; i < k; i++)
				if (w->W[r * k + i] != 0) {
					len++;
					w->ind[len] = (int)i + 1;
					w->val[len] = -w->W[r * k + i];
				}
			glp_set_mat_col(w->lp, (int)r + 1, len, w->ind, w->val);
		}
		w->identity = !pca;
	}
	/* |x_i| and x_i's largest value on the region (support function),
	 * and from them lambda_c <= min_i max(x_i) / s_ci */
	for (i = 0; i < k; i++) {
		double spread;

		memset(w->g, 0, k * sizeof *w->g);
		w->g[i] = 1;
		spread = feas_spread(q, w->g, k) * (1 + FLOW_SLACK);
		w->x[i] = (q->mu[i] + spread) * (1 + FLOW_SLACK) + FEAS_TINY;
		w->xabs[i] = fmax(fabs(q->mu[i] + spread), fabs(q->mu[i] - spread)) *
			(1 + FLOW_SLACK) + FEAS_TINY;
	}
	for (c = 0; c < n; c++) {
		double m = INFINITY;

		for (i = 0; i < k; i++)
			if (ff->Su[c * k + i])
				m = fmin(m, w->x[i] / ff->S[c * k + i]);
		w->lmax[c] = m > 0 ? m * (1 + FLOW_SLACK) : 0;
	}
	/* Every region starts from the same basis: an optimum reached from
	 * another start may be another vertex with other duals, so the
	 * certified bounds would depend on the regions solved before, and
	 * on which thread solved them (the queue is dynamic), differing in
	 * their last digits between --threads 1 and 2; the ellipsoid's
	 * cuts depend on the path too. */
	glp_adv_basis(w->lp, 0);
	return CP_OK;
}

/* ================================================================ *
 * Solving                                                           *
 * ================================================================ */

enum { SOLVED = 0, NO_FLOW = 1 };

/* x = S^T lambda for the LP's solution (flows clipped at 0). */
static void lp_flow(struct flow_lp *w)
{
	const struct feas_flows *ff = w->ff;
	size_t k = ff->k, n = ff->n, c, i;

	memset(w->x, 0, k * sizeof *w->x);
	for (c = 0; c < n; c++) {
		double f = glp_get_col_prim(w->lp, (int)(k + c) + 1);

		w->lam[c] = f > 0 ? f : 0;
		if (w->lam[c] > 0)
			for (i = 0; i < k; i++)
				w->x[i] += w->lam[c] * ff->S[c * k + i];
	}
}

/* Squared Mahalanobis distance of x from the centre; g = cov^-1 (x - mu). */
static double ellipsoid_d2(struct flow_lp *w)
{
	size_t k = w->ff->k, i;
	double d2 = 0;

	for (i = 0; i < k; i++)
		w->g[i] = w->x[i] - w->q->mu[i];
	LAPACKE_dpotrs(LAPACK_ROW_MAJOR, 'L', (lapack_int)k, 1, w->chol,
		       (lapack_int)k, w->g, 1);
	for (i = 0; i < k; i++)
		d2 += w->g[i] * (w->x[i] - w->q->mu[i]);
	return d2;
}

/* The ellipsoid's tangent plane with normal g: g.x <= g.mu +
 * sqrt(q g'cov g), valid for every point of it, cutting off the current
 * flow (whose distance is above q). */
static int add_cut(struct flow_lp *w)
{
	const struct feas_flows *ff = w->ff;
	const struct feas_query *q = w->q;
	size_t k = ff->k, i, j, r = w->rows;
	long double gs = 0, gm = 0, mag = 0, h;
	double gmax = 0;
	int len = 0, row;

	if (lp_reserve(w, r + 1))
		return CP_ENOMEM;
	for (i = 0; i < k; i++)
		gmax = fmax(gmax, fabs(w->g[i]));
	if (!(gmax > 0))
		return CP_OK;
	for (i = 0; i < k; i++)
		w->W[r * k + i] = w->g[i] / gmax;
	for (i = 0; i < k; i++) {
		long double t = 0;

		for (j = 0; j < k; j++)
			t += (long double)q->cov[i * k + j] * w->W[r * k + j];
		gs += t * w->W[r * k + i];
		gm += (long double)w->W[r * k + i] * q->mu[i];
		mag += fabsl((long double)w->W[r * k + i] * q->mu[i]);
	}
	h = gm + sqrtl(q->q * (gs > 0 ? gs : 0)) * (1 + FLOW_SLACK);
	w->L[r] = -INFINITY;
	w->U[r] = (double)h;
	w->Lc[r] = -INFINITY;
	w->Uc[r] = fmaxl(w->U[r], h + (mag + fabsl(h)) * (long double)(k + 4) * LDBL_EPSILON +
			 fabsl(h) * DBL_EPSILON);
	for (i = 0; i < k; i++)
		if (w->W[r * k + i] != 0) {
			len++;
			w->ind[len] = (int)i + 1;
			w->val[len] = w->W[r * k + i];
		}
	row = glp_add_rows(w->lp, 1);
	glp_set_mat_row(w->lp, row, len, w->ind, w->val);
	glp_set_row_bnds(w->lp, row, GLP_UP, 0, w->U[r]);
	w->rows++;
	return CP_OK;
}

/* A warm start takes tens of iterations; one that stalls on a
 * degenerate vertex (seen on the Haswell sweep: 200,000 iterations of the
 * primal simplex without progress) is cut short and restarted from the
 * standard basis, then with the dual simplex, each with more room. */
static int run_simplex(struct flow_lp *w, int meth)
{
	int size = (int)(w->ff->k + w->ff->n + w->rows), ret;

	w->smcp.meth = meth;
	w->smcp.it_lim = 1000 + size;
	ret = glp_simplex(w->lp, &w->smcp);
	if (ret == GLP_EBADB || ret == GLP_ESING || ret == GLP_ECOND) {
		glp_adv_basis(w->lp, 0);
		ret = glp_simplex(w->lp, &w->smcp);
	}
	if (ret == GLP_EITLIM || ret == GLP_EFAIL) {
		glp_std_basis(w->lp);
		w->smcp.meth = GLP_PRIMAL;
		w->smcp.it_lim = 1000 + 10 * size;
		ret = glp_simplex(w->lp, &w->smcp);
	}
	if (ret == GLP_EITLIM || ret == GLP_EFAIL) {
		glp_adv_basis(w->lp, 0);
		w->smcp.meth = GLP_DUALP;
		w->smcp.it_lim = 1000 + 50 * size;
		ret = glp_simplex(w->lp, &w->smcp);
	}
	return ret;
}

/* Minimise obj.lambda, with obj_c = sgn (a_c - R b_c).  Adds ellipsoid
 * cuts until the flow is inside it (or the cuts run out). */
static int lp_minimise(struct flow_lp *w, int sgn, const double *a,
		       const double *b, double R, int *outcome)
{
	const struct feas_flows *ff = w->ff;
	size_t n = ff->n, c, round;
	int ret, st, rc, retried = 0;

	for (c = 0; c < n; c++)
		glp_set_obj_coef(w->lp, (int)(ff->k + c) + 1, sgn * (a[c] - (b ? R * b[c] : 0)));
	ret = run_simplex(w, GLP_PRIMAL);
	for (round = 0;; round++) {
		if (ret != 0)
			return CP_ENUMERIC;
		st = glp_get_status(w->lp);
		if (st == GLP_NOFEAS && retried == 0) {
			/* a warm start can end in a false "infeasible" (seen on
			 * the Haswell sweep, where a cold start finds flows):
			 * start again cold */
			retried = 1;
			glp_adv_basis(w->lp, 0);
			ret = run_simplex(w, GLP_PRIMAL);
			continue;
		}
		if (st == GLP_NOFEAS && retried == 1) {
			/* and then in exact arithmetic, which settles it */
			retried = 2;
			w->smcp.meth = GLP_PRIMAL;
			ret = glp_exact(w->lp, &w->smcp);
			continue;
		}
		if (st == GLP_NOFEAS) {
			*outcome = NO_FLOW;
			return CP_OK;
		}
		if (st != GLP_OPT)
			return CP_ENUMERIC;
		lp_flow(w);
		if (w->q->shape != FEAS_ELLIPSOID || round >= FLOW_CUTS_PER_SOLVE ||
		    w->rows - ff->k >= FLOW_CUTS_MAX ||
		    ellipsoid_d2(w) <= w->q->q * (1 + FLOW_TOL_ELLIPSOID))
			break;
		if ((rc = add_cut(w)))
			return rc;
		ret = run_simplex(w, GLP_DUALP);
	}
	*outcome = SOLVED;
	return CP_OK;
}

/* ================================================================ *
 * Certificates                                                      *
 * ================================================================ */

/* A lower bound of min over the region of sum_c (a_c - R b_c) lambda_c
 * (times sgn), from the row duals pi of the last solve, by weak duality:
 * for any pi, with d_c = obj_c - s_c.(W^T pi),
 *   obj.lambda = d.lambda + pi.(W x) >= sum_c min(0, d_c) lmax_c
 *                                       + sum_r min(pi_r L_r, pi_r U_r),
 * because 0 <= lambda_c <= lmax_c and L <= W x <= U on the region.  Rows
 * of cuts (L = -inf) keep pi_r <= 0.  Evaluated in long double; every
 * rounding error (of W^T pi, d_c, the sums) is bounded and subtracted, so
 * the result is a lower bound of the exact minimum over the exact
 * region. */
static long double certify(struct flow_lp *w, int sgn, const double *a,
			   const double *b, double R)
{
	const struct feas_flows *ff = w->ff;
	size_t k = ff->k, n = ff->n, r, i, c;
	long double eps = LDBL_EPSILON, lb = 0, mag = 0, vmag_x = 0;
	long double gr = (long double)(w->rows + 4) * eps;
	long double gk = (long double)(k + 6) * eps;

	/* the multipliers of the region's constraints: y_r's reduced cost
	 * for box row r, the row dual for a cut (the LP's duality then gives
	 * W^T pi = the counter rows' duals, whatever the float W) */
	for (r = 0; r < w->rows; r++) {
		double p = r < k ? glp_get_col_dual(w->lp, (int)r + 1)
			: glp_get_row_dual(w->lp, (int)r + 1);

		if (!isfinite(p) || (w->Lc[r] == -INFINITY && p > 0))
			p = 0;
		w->pi[r] = p;
	}
	/* v = W^T pi, with |error_i| <= gr sum_r |pi_r W_ri| */
	for (i = 0; i < k; i++) {
		long double s = 0, m = 0;

		for (r = 0; r < w->rows; r++) {
			s += (long double)w->pi[r] * w->W[r * k + i];
			m += fabsl((long double)w->pi[r] * w->W[r * k + i]);
		}
		w->v[i] = s;
		/* pi.(W x) - v.x <= |v error| |x| */
		vmag_x += gr * m * w->xabs[i];
	}
	for (r = 0; r < w->rows; r++) {
		long double p = w->pi[r], t;

		if (p == 0)
			continue;
		t = p > 0 ? p * w->Lc[r] : p * w->Uc[r];
		lb += t;
		mag += fabsl(t);
	}
	for (c = 0; c < n; c++) {
		long double o = sgn * ((long double)a[c] - (b ? (long double)R * b[c] : 0));
		long double om = fabsl((long double)a[c]) + (b ? fabsl((long double)R * b[c]) : 0);
		long double d = o, dm = om;
		const uint32_t *s = ff->Su + c * k;

		for (i = 0; i < k; i++)
			if (s[i]) {
				d -= (long double)s[i] * w->v[i];
				dm += fabsl((long double)s[i] * w->v[i]);
			}
		d -= gk * dm;   /* the exact d_c is at least this */
		if (d < 0) {
			lb += d * w->lmax[c];
			mag += fabsl(d * w->lmax[c]);
		}
	}
	return lb - vmag_x - (long double)(n + w->rows + 4) * eps * mag;
}

/* ================================================================ *
 * Quantities                                                        *
 * ================================================================ */

static long double dot_lam(const struct flow_lp *w, const double *a)
{
	long double s = 0;
	size_t c;

	for (c = 0; c < w->ff->n; c++)
		s += (long double)a[c] * w->lam[c];
	return s;
}

/* The flow of the last solve is in the region: every row within GLPK's
 * tolerance, and inside the ellipsoid. */
static int flow_verified(struct flow_lp *w)
{
	size_t k = w->ff->k, r, i;

	for (r = 0; r < w->rows; r++) {
		long double s = 0, m = 0, tol;

		for (i = 0; i < k; i++) {
			s += (long double)w->W[r * k + i] * w->x[i];
			m += fabsl((long double)w->W[r * k + i] * w->x[i]);
		}
		tol = FEAS_TOL_GLPK * (1 + m);
		if (s < w->Lc[r] - tol || s > w->Uc[r] + tol)
			return 0;
	}
	if (w->q->shape == FEAS_ELLIPSOID)
		return ellipsoid_d2(w) <= w->q->q * (1 + FLOW_TOL_ELLIPSOID);
	return 1;
}

/* [lo, hi] of a.lambda. */
static int bound_rate(struct flow_lp *w, const double *a, struct feas_bound *o,
		      int *none)
{
	int sgn, outcome, rc;

	o->defined = 1;
	o->inexact = 0;
	for (sgn = 1; sgn >= -1; sgn -= 2) {
		long double cert;

		if ((rc = lp_minimise(w, sgn, a, NULL, 0, &outcome)))
			return rc;
		if (outcome == NO_FLOW) {
			*none = 1;
			return CP_OK;
		}
		cert = certify(w, sgn, a, NULL, 0);
		o->inexact |= !flow_verified(w);
		if (sgn > 0) {
			o->lo = (double)cert;
			if ((long double)o->lo > cert)
				o->lo = nextafter(o->lo, -INFINITY);
			o->lo = fmax(o->lo, 0);   /* flows are non-negative */
			o->lo_at = (double)dot_lam(w, a);
		} else {
			o->hi = (double)-cert;
			if ((long double)o->hi < -cert)
				o->hi = nextafter(o->hi, INFINITY);
			o->hi_at = (double)dot_lam(w, a);
		}
	}
	return CP_OK;
}

/* [lo, hi] of a.lambda / b.lambda by Dinkelbach's iteration: for the
 * largest, R <- a.l/b.l at l = argmax (a - R b).l until the maximum is 0;
 * then a.l - R b.l <= F for every flow (F the certified maximum), so
 * a.l/b.l <= R + max(F, 0)/min b.l.  Likewise for the smallest.  bmin is
 * the certified lower bound of b.lambda (> 0). */
static int bound_share(struct flow_lp *w, const double *a, const double *b,
		       double bmin, struct feas_bound *o, int *none)
{
	int sgn, outcome, rc;
	size_t step;

	o->defined = 1;
	o->inexact = 0;
	for (sgn = -1; sgn <= 1; sgn += 2) {
		/* sgn -1: maximise the share; +1: minimise it */
		long double al = dot_lam(w, a), bl = dot_lam(w, b), cert;
		double R = bl > 0 ? (double)(al / bl) : 0, Rc = R;

		for (step = 0; step < FLOW_DINKELBACH_STEPS; step++) {
			long double f;

			Rc = R;   /* the R of the last solve, and so of its certificate */
			if ((rc = lp_minimise(w, sgn, a, b, R, &outcome)))
				return rc;
			if (outcome == NO_FLOW) {
				*none = 1;
				return CP_OK;
			}
			al = dot_lam(w, a);
			bl = dot_lam(w, b);
			f = sgn * (al - R * bl);   /* <= 0 at the optimum */
			if (!(bl > 0) || f >= -FLOW_TOL_DINKELBACH * (fabsl(al) + fabsl(R * bl) + 1))
				break;
			R = (double)(al / bl);
		}
		cert = certify(w, sgn, a, b, Rc);   /* min of sgn (a - Rc b).l */
		o->inexact |= !flow_verified(w) || step == FLOW_DINKELBACH_STEPS;
		if (sgn < 0) {
			/* (a - R b).l <= -cert for every flow */
			long double up = -cert > 0 ? Rc + -cert / bmin : Rc;

			o->hi = (double)up;
			if ((long double)o->hi < up)
				o->hi = nextafter(o->hi, INFINITY);
			o->hi_at = bl > 0 ? (double)(al / bl) : (double)NAN;
		} else {
			long double dn = cert < 0 ? Rc + cert / bmin : Rc;

			o->lo = (double)dn;
			if ((long double)o->lo > dn)
				o->lo = nextafter(o->lo, -INFINITY);
			o->lo = fmax(o->lo, 0);
			o->lo_at = bl > 0 ? (double)(al / bl) : (double)NAN;
		}
	}
	return CP_OK;
}

/* Every quantity for one region (under lp_bound's error hook).  *none:
 * the LP found no flow. */
static int bound_all(struct flow_lp *w, size_t nq,
		     const struct feas_flow_quantity *qs, struct feas_bound *out,
		     int *none)
{
	const double *last_b = NULL;
	long double bmin = 0;
	size_t j;
	int rc = CP_OK, outcome;

	for (j = 0; j < nq && !rc && !*none; j++) {
		if (!qs[j].b) {
			rc = bound_rate(w, qs[j].a, &out[j], none);
			continue;
		}
		/* min b.lambda, certified, once per denominator in a row */
		if (qs[j].b != last_b) {
			if ((rc = lp_minimise(w, 1, qs[j].b, NULL, 0, &outcome)))
				break;
			if (outcome == NO_FLOW) {
				*none = 1;
				break;
			}
			bmin = certify(w, 1, qs[j].b, NULL, 0);
			last_b = qs[j].b;
		}
		if (!(bmin > 0)) {
			memset(&out[j], 0, sizeof out[j]);
			out[j].lo = out[j].hi = out[j].lo_at = out[j].hi_at = (double)NAN;
			continue;
		}
		rc = bound_share(w, qs[j].a, qs[j].b, (double)bmin, &out[j], none);
	}
	return rc;
}

static int lp_bound(struct flow_lp *w, const struct feas_query *q, size_t nq,
		    const struct feas_flow_quantity *qs, struct feas_bound *out,
		    int *feasible, struct cp_error *err)
{
	int rc, none = 0;

	*feasible = 0;
	if (w->broken)
		return cp_error_set(err, CP_EINTERNAL, "the flow LP is unusable after a GLPK error");
	if ((rc = feas_query_check(q, w->ff->k, err)))
		return rc;
	glp_error_hook(lp_glpk_error, w);
	if (setjmp(w->jump)) {
		w->broken = 1;
		glp_error_hook(NULL, NULL);
		return feas_glpk_failed(err, "bounding flows");
	}
	if ((rc = lp_set_region(w, q))) {
		glp_error_hook(NULL, NULL);
		return cp_error_set(err, rc, "the region's covariance is not positive definite");
	}
	rc = bound_all(w, nq, qs, out, &none);
	glp_error_hook(NULL, NULL);
	if (rc == CP_ENOMEM)
		return cp_error_set(err, rc, "out of memory bounding flows");
	if (rc)
		return cp_error_set(err, rc, "the flow LP failed (GLPK status %d)",
				    glp_get_status(w->lp));
	*feasible = !none;
	return CP_OK;
}

int feas_flows_bound(struct feas_flows *ff, const struct feas_query *q,
		     size_t nq, const struct feas_flow_quantity *qs,
		     struct feas_bound *out, int *feasible,
		     struct cp_error *err)
{
	int rc;

	if (!ff->own && (rc = lp_new(ff, &ff->own, err)))
		return rc;
	if (!pthread_equal(ff->own->thread, pthread_self()))
		return cp_error_set(err, CP_EINTERNAL, "the flow LP belongs to another thread");
	return lp_bound(ff->own, q, nq, qs, out, feasible, err);
}

/* ================================================================ *
 * Threads                                                           *
 * ================================================================ */

struct flow_batch {
	const struct feas_flows *ff;
	const struct feas_query *queries;
	const unsigned char *skip;
	size_t n, nq;
	const struct feas_flow_quantity *qs;
	struct feas_bound *out;
	int *feasible;
	pthread_mutex_t lock;
	size_t next;
	int failed;
	size_t err_index;
	struct cp_error err;
};

static void *flow_thread(void *arg)
{
	struct flow_batch *b = arg;
	struct flow_lp *w = NULL;
	struct cp_error err;
	int rc;

	cp_error_clear(&err);
	rc = lp_new(b->ff, &w, &err);
	for (;;) {
		size_t i;

		pthread_mutex_lock(&b->lock);
		if (rc && !w && !b->failed) {   /* no LP for this thread */
			b->failed = 1;
			b->err = err;
		}
		if (b->failed || b->next >= b->n) {
			pthread_mutex_unlock(&b->lock);
			break;
		}
		i = b->next++;
		pthread_mutex_unlock(&b->lock);
		b->feasible[i] = 0;
		if (b->skip && b->skip[i])
			continue;
		rc = lp_bound(w, &b->queries[i], b->nq, b->qs, b->out + i * b->nq,
			      &b->feasible[i], &err);
		if (rc) {
			pthread_mutex_lock(&b->lock);
			if (!b->failed || i < b->err_index) {
				b->failed = 1;
				b->err = err;
				b->err_index = i;
			}
			pthread_mutex_unlock(&b->lock);
			break;
		}
	}
	lp_free(w);
	glp_free_env();
	return NULL;
}

int feas_flows_batch(const struct feas_flows *ff, size_t n,
		     const struct feas_query *queries,
		     const unsigned char *skip, size_t nq,
		     const struct feas_flow_quantity *qs, size_t threads,
		     struct feas_bound *out, int *feasible,
		     struct cp_error *err)
{
	struct flow_batch b;
	pthread_t *tid;
	size_t t, started = 0;
	int rc = CP_OK, e = 0;

	if (n == 0)
		return CP_OK;
	if (threads == 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		threads = c > 0 ? (size_t)c : 1;
	}
	if (threads > n)
		threads = n;
	if (threads > 256)
		threads = 256;
	memset(&b, 0, sizeof b);
	b.ff = ff;
	b.queries = queries;
	b.skip = skip;
	b.n = n;
	b.nq = nq;
	b.qs = qs;
	b.out = out;
	b.feasible = feasible;
	b.err_index = (size_t)-1;
	cp_error_clear(&b.err);
	if (pthread_mutex_init(&b.lock, NULL))
		return cp_error_set(err, CP_EINTERNAL, "cannot create a mutex");
	tid = cp_malloc(threads * sizeof *tid);
	if (!tid) {
		pthread_mutex_destroy(&b.lock);
		return cp_error_set(err, CP_ENOMEM, "out of memory starting threads");
	}
	for (t = 0; t < threads; t++) {
		if ((e = pthread_create(&tid[t], NULL, flow_thread, &b)) != 0)
			break;
		started++;
	}
	for (t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	if (started == 0)   /* EAGAIN: no memory for its stack */
		rc = cp_error_set(err, e == EAGAIN ? CP_ENOMEM : CP_EINTERNAL,
				  "cannot start a thread: %s", strerror(e));
	else if (b.failed) {
		rc = b.err.code ? b.err.code : CP_EINTERNAL;
		if (err) {
			*err = b.err;
			if (b.err_index != (size_t)-1)
				cp_error_set(err, rc, "observation %zu: %.900s",
					     b.err_index + 1, b.err.msg);
		}
	}
	cp_free(tid);
	pthread_mutex_destroy(&b.lock);
	return rc;
}
