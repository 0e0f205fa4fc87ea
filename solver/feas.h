/* SPDX-License-Identifier: GPL-3.0-or-later */
/* solver/feas.h: is a model consistent with a measurement?  Given a
 * model's distinct counter signatures S (its cone C = cone{s_p}) and an
 * observation's confidence region R, decide whether R meets C (GLPK
 * feasibility LP, warm-started across observations, for boxes; exact
 * non-negative least squares for the ellipsoid), and explain every
 * infeasible observation by the model constraints the whole region breaks,
 * with margins.
 *
 * Ownership: feas_model_new returns a model the caller frees with
 * feas_model_free (NULL is a no-op).  A result is a stack struct:
 * feas_result_init before use, feas_result_release after; feas_check
 * releases and refills it, so one result may be reused for many checks.
 * Pointers in a query are borrowed for the duration of the call.
 *
 * Threads: GLPK is thread-local, so a model's own LP lives in the thread
 * that first calls feas_check on it; feas_check on one model must not run
 * in two threads at once, nor in a thread other than that one (it returns
 * CP_EINTERNAL instead of crashing).  feas_check_batch runs observations on
 * its own threads, each with a private LP, and returns results in input
 * order.  A caller that runs feas_check in threads of its own calls
 * feas_thread_end() in each of them before it exits, after freeing its
 * models there. */
#ifndef COUNTERPOINT_FEAS_H
#define COUNTERPOINT_FEAS_H

#include <stddef.h>
#include <stdint.h>

#include "common/cp.h"

struct feas_model;
struct region;  /* stats/region.h */

/* ---- the model ---- */

struct feas_model_options {
	int reserved;  /* 0; more fields may follow (zero them all) */
	/* The equalities of span(S) in geometry's canonical form
	 * (cone_equalities: n x k, reduced echelon, rows primitive), when
	 * the caller has them already: the model copies them instead of
	 * deriving them again.  Ignored unless equalities_given. */
	int equalities_given;
	size_t n_equalities;
	const int64_t *equalities;
};

/* Build a model from m signatures of k counters, row-major (signature j
 * is S[j*k .. j*k+k-1]).  Zero signatures are allowed (they count nothing
 * and are ignored).  opt may be NULL. */
int feas_model_new(size_t k, size_t m, const uint32_t *S,
		   const struct feas_model_options *opt,
		   struct feas_model **out, struct cp_error *err);
void feas_model_free(struct feas_model *fm);

size_t feas_model_n_signatures(const struct feas_model *fm); /* m */
/* Dimension of span(S) (numerical rank). */
size_t feas_model_dim(const struct feas_model *fm);

/* Optionally give the model its H-representation (from geometry/cone.h):
 * a.x = 0 (is_equality) or a.x >= 0, k coefficients each, copied.  When
 * constraints are given, violated ones are reported from them in closed
 * form (every listed constraint the region breaks), with their index in
 * the order they were added.  Without them (or when none of them is broken
 * although the region misses the cone: the region lies beyond a
 * lower-dimensional face) the explanation comes from the LP's Farkas
 * certificate, tightened to a facet.  Call before the first feas_check. */
int feas_model_add_constraint(struct feas_model *fm, const int64_t *a,
			      int is_equality, struct cp_error *err);
size_t feas_model_n_constraints(const struct feas_model *fm);
/* Say that the constraints added are the cone's whole H-representation
 * (a basis of its equalities and every facet, each verified exactly).
 * Box checks then decide most observations in closed form before any LP
 * (solver/prefilter.c); the verdicts are the LP's.  Call after the last
 * feas_model_add_constraint, before the first feas_check. */
int feas_model_set_complete(struct feas_model *fm, struct cp_error *err);

/* ---- regions ---- */

enum feas_shape {
	FEAS_PCA = 0,          /* box along orthonormal axes */
	FEAS_INDEPENDENT = 1,  /* box along the counter axes */
	FEAS_ELLIPSOID = 2,    /* (x-mu)^T cov^-1 (x-mu) <= q */
};

/* One observation's confidence region, by borrowed pointers.
 *   PCA:         |axes_i.(x - mu)| <= half[i], axes orthonormal rows (k*k)
 *   INDEPENDENT: |x_j - mu_j| <= half[j]  (axes ignored)
 *   ELLIPSOID:   (x-mu)^T cov^-1 (x-mu) <= q, cov positive definite
 * cov (k*k, covariance of the mean) is needed for the ellipsoid and for
 * margins; for boxes it may be NULL (margins are then in units of the
 * region's half-width along the constraint).  n (intervals) is used for
 * the ellipsoid's p-value (0: chi-square). */
struct feas_query {
	enum feas_shape shape;
	const double *mu;
	const double *axes;
	const double *half;
	const double *cov;
	double q;
	size_t n;
};

/* The margin of constraint a.x >= 0 (a.x = 0 when is_equality) against
 * the region of q, as struct feas_violation defines it: positive exactly
 * when the whole region breaks the constraint.  mean_sd (may be NULL)
 * receives a.mu / sd(a.x).  The one support function of the regions:
 * max over the region of a.(x - mu) is sum_i half_i |axes_i.a| (PCA box),
 * sum_j half_j |a_j| (independent box), sqrt(q a'cov a) (ellipsoid). */
double feas_margin(const struct feas_query *q, const double *a, size_t k,
		   int is_equality, double *mean_sd);

/* Fill q from a stats region (pointers into r; no allocation).  A PCA
 * box that is the independent box (region.pca_on_counters) is given as
 * the independent box: the same set, the cheaper shape. */
void feas_query_from_region(const struct region *r, enum feas_shape shape,
			    struct feas_query *q);

/* ---- results ---- */

/* A model constraint the whole region breaks: a.x >= 0 (a.x = 0 for an
 * equality) is false at every point of the region. */
struct feas_violation {
	int64_t *a;          /* k coefficients (owned by the result) */
	int is_equality;
	int is_facet;        /* a verified facet (or equality) of the cone */
	int exact;           /* a.s >= 0 (= 0) checked exactly for every signature */
	size_t index;        /* index among feas_model_add_constraint's, or
			      * FEAS_NO_INDEX for one derived from a certificate */
	/* How far the region is from the constraint, in standard deviations
	 * of a.x under cov (or half-widths when cov is NULL):
	 * -max_{x in R} a.x / sd(a.x); for an equality the gap between 0 and
	 * the region's range of a.x.  Positive for a violated constraint. */
	double margin;
	double mean_sd;      /* a.mu / sd(a.x): where the centre lies */
};
#define FEAS_NO_INDEX ((size_t)-1)

struct feas_result {
	int feasible;
	/* The region lies within about 1e-7 (relative) of the cone's
	 * boundary, where GLPK's floating-point tolerance could decide either
	 * way (or the NNLS distance is within 1e-7 of q): the verdict was
	 * settled by glp_exact on the box LP with its data scaled to
	 * integers (read exactly).  The verdict stands but is close. */
	int borderline;
	/* Borderline, and its exact re-check could not run (feas_check
	 * returned CP_ENUMERIC; the caller then asked again with
	 * FEAS_NO_EXACT): `feasible` is the floating-point answer, not a
	 * proven one.  Set by the pipeline; reports print "undecided". */
	int undecided;
	/* Ellipsoid: the smallest squared Mahalanobis distance from mu to the
	 * cone, and p = 1 - F(d2): the observation is infeasible at every
	 * confidence level below 1 - p.  NAN for boxes. */
	double d2, p_value;
	/* NNLS optimality (KKT) residual; 0 for boxes. */
	double kkt;
	/* Infeasible and explained (FEAS_EXPLAIN): every listed constraint
	 * the region breaks (with its index); when none does (or none is listed),
	 * one constraint derived from the Farkas certificate: an equality, a
	 * facet (is_facet, exact), or failing both the certificate itself.
	 * Derived ones are written in their sparsest form (model equalities
	 * added while that removes counters).  The largest margin first (ties
	 * as found).  Empty only when no certificate could be computed. */
	size_t n_violations;
	struct feas_violation *violations;
	size_t k;
};

void feas_result_init(struct feas_result *res);
void feas_result_release(struct feas_result *res);

/* ---- checking ---- */

enum {
	FEAS_EXPLAIN = 1,     /* list violated constraints of infeasible ones */
	FEAS_NO_EXACT = 2,    /* do not settle borderline verdicts exactly */
	FEAS_NO_PREFILTER = 4, /* every check by the LP or the NNLS (tests, benches) */
	FEAS_FRESH = 8,       /* every check from a fresh LP, no warm start */
};

/* Check one region against the model, warm-starting from the previous
 * check (LP basis and working set of signatures; NNLS passive set), so
 * similar observations in a row are cheapest.  The verdict does not depend
 * on the order (only the time does), except within GLPK's tolerance of the
 * boundary (borderline); the constraints reported depend on it only when
 * the facet search falls back on the certificate (step 1 of the docs'
 * explanation and the centre's facet are order-free).
 * Returns CP_OK (verdict in res), CP_EINPUT for a malformed query (NaN,
 * negative half-width, covariance not positive definite, ...), CP_ENOMEM,
 * CP_ENUMERIC when a numerical library failed, CP_EINTERNAL when GLPK
 * failed (its error hook fired) or the thread is not the model's. */
int feas_check(struct feas_model *fm, const struct feas_query *q,
	       unsigned flags, struct feas_result *res, struct cp_error *err);
/* Forget the warm start: the next feas_check starts from a fresh LP, as
 * the first one did (its counts stay in feas_model_stats).  From the
 * model's thread. */
void feas_model_restart(struct feas_model *fm);
/* feas_check_batch starts every FEAS_CHUNK consecutive queries (0..255,
 * 256..511, ...) from a fresh LP, whatever the thread count, so its
 * results, explanations included, do not depend on how many threads ran;
 * a caller that checks in turn with feas_check gets the same results by
 * calling feas_model_restart before query i when feas_fresh_at(i, flags)
 * (every query with FEAS_FRESH). */
#define FEAS_CHUNK 256
int feas_fresh_at(size_t i, unsigned flags);

/* Check n regions on `threads` threads (0: one per online CPU, capped at
 * n), results[i] for queries[i] (each initialised by the caller).
 * progress, when not NULL, is called from the calling thread about every
 * 50 ms with the number done so far.  On the first error the others stop;
 * err names the observation. */
typedef void (*feas_progress_fn)(void *ctx, size_t done, size_t total);
/* The thread count that 0 stands for: the online CPUs (at least 1). */
size_t feas_cpu_count(void);
int feas_check_batch(const struct feas_model *fm, size_t n,
		     const struct feas_query *queries, unsigned flags,
		     size_t threads, struct feas_result *results,
		     feas_progress_fn progress, void *ctx,
		     struct cp_error *err);

/* A check thread of the caller's own, for callers that hand out the
 * checks themselves (the pipeline's streamed check builds the queries as
 * it goes): feas_checker_check is feas_check on the checker's own LP and
 * feas_checker_restart is feas_model_restart for it, so a checker
 * restarted where feas_fresh_at says gives feas_check_batch's results.
 * A checker is made, used and freed on one thread; many checkers of one
 * model run at once.  Their counts are not added to feas_model_stats. */
struct feas_checker;
int feas_checker_new(const struct feas_model *fm, struct feas_checker **out,
		     struct cp_error *err);
void feas_checker_restart(struct feas_checker *c);
int feas_checker_check(struct feas_checker *c, const struct feas_query *q,
		       unsigned flags, struct feas_result *res,
		       struct cp_error *err);
void feas_checker_free(struct feas_checker *c);

/* A point of the cone inside the region of q (k values into x), for
 * pictures of a feasible observation (a verdict is feas_check's): a box's
 * LP solved afresh over every signature, its point S f; for the
 * ellipsoid the cone's point nearest the centre in the covariance's
 * metric.  *found = 0 when the solver finds none (the region misses the
 * cone, or the cone is {0}).  On a private LP of the calling thread;
 * errors as feas_check's. */
int feas_witness(const struct feas_model *fm, const struct feas_query *q,
		 double *x, int *found, struct cp_error *err);

/* Release GLPK's per-thread state; call at the end of a thread of your own
 * that used feas_check (after its models are freed). */
void feas_thread_end(void);

/* ---- statistics of a model's LP (bench and tests) ---- */
struct feas_stats {
	uint64_t checks, lp_solves, exact_solves, borderline, certificates,
		facet_lps, facets_verified, iterations, shrink_tests;
	uint64_t prefiltered;   /* checks decided in closed form: boxes
				 * without an LP, ellipsoids without the NNLS */
};
void feas_model_stats(const struct feas_model *fm, struct feas_stats *st);


/* ---- flow bounds ----
 * How much flow the data put on chosen signatures: over every flow
 * lambda >= 0 on n columns (signatures, repeats allowed: one column per
 * (uop, signature), say) with S lambda = x for some x in the region, the
 * smallest and largest value of a rate  a.lambda  or of a share
 * a.lambda / b.lambda.  Boxes are LPs; the ellipsoid is bounded by LPs
 * over its enclosing box cut by tangent planes (an outer approximation,
 * so the bounds stay valid when the cuts stop early).  Every bound is
 * certified from the LP's row duals by weak duality, evaluated in long
 * double with its rounding error and over the exact region, so lo and hi
 * are rounded outward: lo <= every value the region and the cone allow
 * <= hi.  Shares use Dinkelbach's iteration on the same LP (each step one
 * warm-started solve; the last one's certificate bounds the ratio), and
 * are defined only when b.lambda > 0 on the whole feasible set.
 *
 * Ownership: feas_flows_new copies S; feas_flows_free frees (NULL no-op).
 * Threads as for feas_check: feas_flows_bound binds the object's LP to
 * the first thread that calls it; feas_flows_batch runs on its own
 * threads with private LPs. */
struct feas_flows;

int feas_flows_new(size_t k, size_t n, const uint32_t *S,
		   struct feas_flows **out, struct cp_error *err);
void feas_flows_free(struct feas_flows *ff);

/* One quantity: a (n column weights, >= 0) over b (n weights, >= 0), or
 * a rate when b is NULL. */
struct feas_flow_quantity {
	const double *a;
	const double *b;
};

struct feas_bound {
	int defined;     /* a rate always; a share when min b.lambda > 0 */
	double lo, hi;   /* certified, rounded outward */
	/* The values the verified optimal flows reach (lo <= lo_at <= hi_at
	 * <= hi up to the primal tolerance): how tight the certificates are. */
	double lo_at, hi_at;
	int inexact;     /* an optimal flow missed the region by more than
			  * GLPK's tolerance (1e-7 relative); the bounds
			  * still hold, the attained values are approximate */
};

/* Bound nq quantities for one region.  *feasible = 0 (out untouched)
 * when the LP finds no flow in the region (the caller decides
 * feasibility with feas_check; this happens only at the boundary).
 * Errors as feas_check's. */
int feas_flows_bound(struct feas_flows *ff, const struct feas_query *q,
		     size_t nq, const struct feas_flow_quantity *qs,
		     struct feas_bound *out, int *feasible,
		     struct cp_error *err);
/* n regions on `threads` threads (0: one per CPU): out[i*nq + j] for
 * queries[i] and qs[j], feasible[i]; skip[i] != 0 (skip may be NULL)
 * leaves region i alone (feasible[i] = 0). */
int feas_flows_batch(const struct feas_flows *ff, size_t n,
		     const struct feas_query *queries,
		     const unsigned char *skip, size_t nq,
		     const struct feas_flow_quantity *qs, size_t threads,
		     struct feas_bound *out, int *feasible,
		     struct cp_error *err);

#endif
