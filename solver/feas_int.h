/* solver/feas_int.h: what the solver's files share (not public).  Every
 * name here carries the feas_ prefix because `make check-symbols` sees the
 * non-static ones. */
#ifndef FEAS_INT_H
#define FEAS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "common/cp.h"

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
