/* SPDX-License-Identifier: GPL-3.0-or-later */
/* solver/feas_int.h: what the solver's files share (not public).  Every
 * name here carries the feas_ prefix because `make check-symbols` sees the
 * non-static ones. */
#ifndef FEAS_INT_H
#define FEAS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "common/cp.h"

#include <glpk.h>
#include <pthread.h>
#include <setjmp.h>

#include "solver/feas.h"

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

	/* the pre-filter's scratch (solver/prefilter.c): n_pre equalities */
	size_t n_pre;
	double *pre_em, *pre_g, *pre_y;
	double *pre_b;    /* n_cons x k: each constraint in box coordinates */
	double *pre_axt;  /* k x k: the PCA box's axes, transposed */
	double *pre_t;    /* k: a point's box coordinates */
	double *pre_y0;   /* n_pre: each equality at the box's centre, E mu */
	double *pre_c;    /* 3 n_cons: each inequality at the centre (c.mu),
			   * the margin the projections aim for, |B_c|^2 */
	/* the ellipsoid's closed form (feas_prefilter_ellipsoid): at most k
	 * active rows (equalities, then tight facets) */
	double *ell_b;    /* k x k: A cov */
	double *ell_g;    /* 2 k x k: A cov A^T, then its factor */
	double *ell_y;    /* 3k: A mu, each entry's rounding bound, and the
			   * scale of each coordinate's rounding in x */
	double *ell_w;    /* k: its solve */
	size_t *ell_rows; /* k: the rows' constraint indices */
	unsigned char *ell_active;   /* n_cons: facet in the active set */
	double *ell_cov;  /* k x k: a box's own metric */
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
	int complete;       /* cons is the cone's whole H-representation */
	/* cons's non-zero positions, ascending (feas_model_set_complete):
	 * constraint c's are cons_idx[cons_start[c] .. cons_start[c + 1]);
	 * iota is 0 .. k-1, the positions of a dense row */
	size_t *cons_start;
	uint32_t *cons_idx, *iota;
	double *pre_u;      /* k: sum of the signatures (relative interior) */
	struct worker *own; /* feas_check's LP, bound to its thread */
	struct feas_stats st;
};

/* ---- tolerances: every floating-point threshold of the solver, each
 * with why it has its value.  Verdicts near any of them are settled
 * exactly (glp_exact, integer checks), so they decide speed and which
 * path runs, never a verdict on their own. ---- */
/* Eigenvalues of the signatures' Gram matrix below this share of the
 * largest are rounding: counts are integers below 2^32, so a real
 * direction of span(S) is far above it. */
#define FEAS_TOL_RANK 1e-10
/* A signature whose Gram-Schmidt residual is below this share of its norm
 * adds no dimension to the facet LP's starting simplex. */
#define FEAS_TOL_INDEP 1e-8
/* GLPK's own primal/dual feasibility tolerance is about 1e-7: a box (or
 * ellipsoid distance) this close to the cone is borderline and re-checked
 * exactly. */
#define FEAS_TOL_GLPK 1e-7
/* GLPK's box solution is taken as it is when the point S f lies outside
 * the box, along each axis and with its rounding bound, by at most 1e-11
 * of the coordinate's magnitude (rounding noise, ~1e-14, with room) and
 * at most 1e-6 of the axis's half-width.  The second is what keeps large
 * counts honest: at 2^48 a violation of 1500 is 1e-11 of the counts but
 * 70 half-widths.  Beyond either, the shrink test, then the exact
 * re-check, decide. */
#define FEAS_TOL_BOX_REL 1e-11
#define FEAS_TOL_BOX_WIDTH 1e-6
/* A signature prices into the LP (or counts against a certificate) when
 * it breaks the certificate by more than this share of the norms: below,
 * it is rounding of the certificate itself. */
#define FEAS_TOL_PRICE 1e-9
/* Coefficients of a float normal below this share of its largest are
 * zero; a signature this close to a facet's hyperplane lies on it (the
 * exact check follows). */
#define FEAS_TOL_COEF 1e-9
/* A scaled float coefficient is taken as an integer when within this
 * (relative) of one; beyond FEAS_INT_EXACT doubles no longer hold every
 * integer (2^53 ~ 9e15). */
#define FEAS_TOL_INTEGRAL 1e-6
#define FEAS_INT_EXACT 1e15
/* Facet LP row generation adds a row violated by more than this share of
 * the normal's length; the exact check of the result follows. */
#define FEAS_TOL_FACET_ROW 1e-10
/* NNLS: an optimality residual beyond this makes the ellipsoid verdict
 * borderline (re-checked); the gradient must exceed FEAS_TOL_NNLS_GRAD of
 * its scale for a column to enter; a flow below FEAS_TOL_NNLS_ZERO of
 * its step is zero (leaves the passive set). */
#define FEAS_TOL_KKT 1e-6
#define FEAS_TOL_NNLS_GRAD 1e-12
#define FEAS_TOL_NNLS_ZERO 1e-15
/* A certificate that cannot be made exact is printed at this resolution
 * (six digits of its largest coefficient), marked as not exact. */
#define FEAS_CERT_SCALE 1e6
/* The closed-form box tests (solver/prefilter.c) decide only with this
 * share of the magnitudes in hand: ten times GLPK's tolerance, so what
 * they decide the LP would not have called borderline. */
#define FEAS_TOL_PREFILTER 1e-6
/* Guard against dividing by a zero magnitude. */
#define FEAS_TINY 1e-300

/* Outcome of one box solve, kept in the worker so that nothing on the
 * stack matters after a longjmp. */
enum { BOX_FEASIBLE = 0, BOX_INFEASIBLE = 1 };
/* How feas_box_solve starts: set a new box (scaled by 1/sigma: the LP is
 * homogeneous in x, so scaling keeps the verdict and puts the bounds near
 * 1 where GLPK's tolerances are relative) and solve with the dual simplex
 * from the last basis; solve again after columns joined; or exactly. */
enum { SOLVE_NEW_BOX, SOLVE_AGAIN, SOLVE_EXACT };

/* solver/prefilter.c: a box verdict in closed form, or undecided */
enum { FEAS_PRE_UNDECIDED, FEAS_PRE_FEASIBLE, FEAS_PRE_INFEASIBLE };
int feas_prefilter_box(struct worker *w, const struct feas_query *q);
/* The ellipsoid's d2 in closed form (an active-set solve over the cone's
 * facets, taken only when its KKT conditions hold): 1, *d2 and an upper
 * bound *d2_hi on it allowing for the rounding of A mu; else 0. */
int feas_prefilter_ellipsoid(struct worker *w, const struct feas_query *q,
			     double *d2, double *d2_hi);
/* A box feasible in closed form by the cone's point nearest its centre in
 * its own metric (FEAS_PRE_FEASIBLE), or FEAS_PRE_UNDECIDED. */
int feas_prefilter_box_face(struct worker *w, const struct feas_query *q);

/* solver/support.c */
double feas_dot(const double *a, const double *b, size_t k);
double feas_spread(const struct feas_query *q, const double *a, size_t k);
double feas_margin_of(const struct feas_query *q, const double *a, size_t k,
			int is_equality, double *mean_sd);
int feas_query_check(const struct feas_query *q, size_t k,
		       struct cp_error *err);

/* solver/model.c */
int feas_glpk_quiet_hook(void *info, const char *s);
int feas_glpk_start(struct cp_error *err, const char *what);
int feas_glpk_failed(struct cp_error *err, const char *what);

/* solver/lp.c */
void feas_glpk_error(void *info);
void feas_worker_free(struct worker *w);
int feas_worker_new(const struct feas_model *fm, struct worker **out,
		      struct cp_error *err);
int feas_set_bounds(struct worker *w, const struct feas_query *q,
		      double sigma, double shrink);
int feas_box_solve(struct worker *w, const struct feas_query *q,
		     double sigma, int mode, int *verdict);
double feas_box_residual(struct worker *w, const struct feas_query *q,
			   double sigma);
double feas_box_certificate(struct worker *w, const struct feas_query *q,
			      double sigma);
size_t feas_price_columns(struct worker *w, const double *a);
void feas_trim_columns(struct worker *w);
void feas_activate_all(struct worker *w);

/* solver/explain.c */
int feas_exact_valid(const struct feas_model *fm, const int64_t *a,
		       int is_equality, const unsigned char *mask);
int feas_integerize(const double *a, size_t k, int64_t *out);
int feas_explain(struct worker *w, const struct feas_query *q,
		   const double *cert, struct feas_result *res);

/* solver/feas_check.c */
/* The box LP's scale: a power of two above every |mu_i| + half_i (1 for
 * an empty or non-finite box), so that scaling by it loses no bits. */
double feas_box_scale(const struct feas_query *q, size_t k);
int feas_check_with(struct worker *w, const struct feas_query *q,
		      unsigned flags, struct feas_result *res,
		      struct cp_error *err);
/* feas_check_with on *w, made for fm first if NULL; refused from another
 * thread than *w's, or after a GLPK error broke it. */
int feas_check_on(const struct feas_model *fm, struct worker **w,
		  const struct feas_query *q, unsigned flags,
		  struct feas_result *res, struct cp_error *err);


/* Lawson-Hanson non-negative least squares for the ellipsoid test:
 *     min_{f >= 0} || L^{-1} (S^T f - mu) ||^2
 * S row-major m x k (signature p = S + p*k, norms snorm), L the lower
 * Cholesky factor of the covariance (column-major k x k).  On return f (m)
 * holds the flows, r (k) the whitened residual L^{-1}(S^T f - mu), *kkt
 * the largest violation of the optimality conditions (w = -S L^{-T} r:
 * w_p <= 0 where f_p = 0, w_p = 0 where f_p > 0), relative to ||s_p|| and
 * the gradient's size at f = 0.  passive (k entries, may be NULL) holds a
 * starting passive set of *n_passive columns (a warm start: the optimum
 * is unique in x, so only the path changes) and returns the final one.
 * CP_OK, CP_ENOMEM or CP_ENUMERIC (LAPACK failed); running out of
 * iterations is not an error: kkt tells how far from optimal f is. */
int feas_nnls(size_t k, size_t m, const double *S, const double *snorm,
	      const double *L, const double *mu, size_t *passive, size_t *n_passive,
	      double *f, double *r, double *kkt, struct cp_error *err);

#endif
