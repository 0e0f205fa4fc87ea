/* SPDX-License-Identifier: GPL-3.0-or-later */
/* geometry/cone_ech.h: exact integer linear algebra shared by the geometry
 * files (not public): a fully reduced integer echelon basis that works in
 * int64 while the numbers fit and moves to GMP when they do not.
 *
 * Invariant: the rows are primitive integer vectors, each row's pivot (its
 * first non-zero column) is positive, every other row is zero in that
 * column, and rows are kept in increasing pivot order.  So the rows are
 * positive multiples of the rows of the reduced row echelon form over Q of
 * the span of everything added: a canonical basis. */
#ifndef CONE_ECH_H
#define CONE_ECH_H

#include <stddef.h>
#include <stdint.h>

#include <gmp.h>

struct cone_ech {
	size_t n;        /* columns */
	size_t rank;     /* rows held (at most n) */
	int big;         /* rows live in z (GMP) rather than r */
	int64_t *r;      /* n*n, row i at r + i*n */
	int64_t *scratch; /* n*n + 2n: transactional updates */
	size_t *piv;     /* pivot column of each row */
	mpz_t *z;        /* n*n when big */
	mpz_t *zt;       /* 3n temporaries when big */
	/* The null vectors of the rows (one per free column, int64), made
	 * once a few rows in a row fell in the span: then a row is in the
	 * span exactly when it is orthogonal to all of them, a test over its
	 * non-zeros instead of an elimination.  nul_ok: 1 valid, 0 not made
	 * (or rows changed since), -1 a number did not fit int64. */
	int64_t *nul;    /* (n - rank) * n */
	size_t *nulix;   /* n scratch: a row's non-zero columns */
	int64_t *nulval; /* n scratch: their values */
	int nul_ok;
	unsigned streak; /* rows in the span since the last new row */
};

/* 0 or CP_ENOMEM. */
int cone_ech_init(struct cone_ech *e, size_t n);
void cone_ech_release(struct cone_ech *e);
/* Forget every row (keeps the storage and the mode). */
void cone_ech_reset(struct cone_ech *e);
/* Add a row: 1 if it raised the rank, 0 if it was in the span. */
int cone_ech_add(struct cone_ech *e, const int64_t *v);
int cone_ech_add_u32(struct cone_ech *e, const uint32_t *v);
int cone_ech_add_z(struct cone_ech *e, mpz_t *v);
/* The primitive null vector with out[f] > 0 for a free (non-pivot)
 * column f, zero in every other free column.  out holds n mpz_t, already
 * initialised. */
void cone_ech_null_z(struct cone_ech *e, size_t f, mpz_t *out);
/* The same in int64: 0, or -1 when a number does not fit (then use
 * cone_ech_null_z). */
int cone_ech_null_64(struct cone_ech *e, size_t f, int64_t *out);
/* Row i as mpz (out initialised, n entries). */
void cone_ech_row_z(const struct cone_ech *e, size_t i, mpz_t *out);

/* Divide v by the gcd of its entries (no-op for zero): returns 0. */
void cone_vec_primitive_z(mpz_t *v, size_t n);
/* z as int64: 0, or -1 when it does not fit (|z| > INT64_MAX). */
int cone_mpz_to_i64(const mpz_t z, int64_t *out);
/* The equalities of the span held in span: a basis of its orthogonal
 * complement in canonical form (geometry/constraint.c; see
 * cone_equalities). */
struct cp_error;
int cone_ech_complement(const struct cone_ech *span, size_t *n_eq,
			int64_t **eq, struct cp_error *err);
/* The same for any size of coefficient: rows that fit int64 in eq, the
 * others zero there; when any row does not fit, *zeq holds every row
 * (n_eq * k, freed with cone_free_zeq(*zeq, n_eq * k)), else NULL.  A
 * zero row of eq (an equality is never zero) marks one beyond int64. */
int cone_ech_complement_z(const struct cone_ech *span, size_t *n_eq,
			  int64_t **eq, mpz_t **zeq, struct cp_error *err);
void cone_free_zeq(mpz_t *zeq, size_t n);

#endif
