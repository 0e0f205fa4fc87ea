/* solver/feas_int.h: what the solver's files share (not public).  Every
 * name here carries the feas_ prefix because `make check-symbols` sees the
 * non-static ones. */
#ifndef FEAS_INT_H
#define FEAS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "common/cp.h"

/* Lawson-Hanson non-negative least squares: min_{f >= 0} ||A f - b||^2,
 * A column-major k x m (column p = A + p*k).  On return f (m) holds the
 * solution, r (k) the residual A f - b, *kkt the largest violation of the
 * optimality conditions (w = A^T (b - A f): w_p <= 0 where f_p = 0,
 * w_p = 0 where f_p > 0), relative to ||A_p|| ||b||.  CP_OK, CP_ENOMEM,
 * or CP_ENUMERIC (LAPACK failed; the iteration limit is not an error: kkt
 * tells how far from optimal the answer is). */
int feas_nnls(size_t k, size_t m, const double *A, const double *b,
	      double *f, double *r, double *kkt, struct cp_error *err);

#endif
