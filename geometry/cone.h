/* SPDX-License-Identifier: GPL-3.0-or-later */
/* geometry/cone.h: the exact model cone C = cone{s(p)} of a signature set
 * and its other description, the model constraints
 *     C = { x : A x = 0, B x >= 0 }
 * (equalities A, facet inequalities B, all primitive integer vectors).
 * Facets come from an exact double description (int64 while numbers fit,
 * GMP beyond); Qhull's floating-point proposals, each normal derived and
 * verified exactly, remain as a second method for tests and benchmarks.
 *
 * Ownership: cone_build returns a cone the caller frees with cone_free()
 * (cone_free(NULL) is a no-op).  Vectors returned by accessors belong to the
 * cone and live as long as it does.  Nothing here keeps global state
 * (but cone_gmp_exit_on_oom, a program's choice), so separate cones may be
 * built in separate threads. */
#ifndef COUNTERPOINT_CONE_H
#define COUNTERPOINT_CONE_H

#include <stddef.h>
#include <stdint.h>

#include <gmp.h>

#include "common/cp.h"

struct cone;

struct cone_options {
	size_t max_facets;  /* stop with CP_ELIMIT when the cone has more
			     * facets than this (counted exactly); 0 = 1,000,000 */
	double max_seconds; /* stop with CP_ELIMIT after this (the clock is
			     * read in the inner loops); 0 = no limit */
	int no_extreme;     /* skip the extreme rays (the double description
			     * only; Qhull's facets are checked against them):
			     * cone_n_extreme, cone_signature_is_extreme and
			     * cone_signature_n_facets then give 0 */
};

/* What a build did, filled by cone_build_method also when it fails (a
 * limit reached): for the time line of `counterpoint cone -v` and bench. */
struct cone_stats {
	const char *method;   /* which way found the facets (static text) */
	size_t inserted;      /* double description: rays added one by one */
	uint64_t candidates;  /* double description: (positive, negative)
			       * facet pairs considered; qhull: proposals */
	uint64_t adjacency_tests; /* pairs sharing >= d-2 rays, tested */
	uint64_t rank_tests;  /* of those, decided by an exact rank */
	size_t max_partial;   /* most facets of an intermediate cone */
	int gmp;              /* numbers outgrew 64 bits and GMP took over */
};

/* ---- building ----
 * S: m signatures of k counters, row-major (signature j at S + j*k),
 * non-negative.  Zero signatures and repeats (also positive multiples of
 * another signature) are allowed.  opt may be NULL (defaults).  Facet
 * normals of any size are exact (GMP past 64 bits: see cone_facet).
 * Fails with CP_ELIMIT when a limit is reached (the message says what was
 * counted) or an equality's coefficient does not fit int64, CP_ENUMERIC
 * when Qhull fails, CP_ENOMEM, CP_EINPUT on k = 0. */
int cone_build(size_t k, size_t m, const uint32_t *S,
	       const struct cone_options *opt, struct cone **out,
	       struct cp_error *err);
void cone_free(struct cone *c);

/* GMP cannot return a failed allocation: by default it prints a line and
 * aborts the process.  A program that calls this (once, before any thread
 * starts) ends instead with REPORT, which says why, and _exit(STATUS), as
 * it ends on any other lack of memory.  Not for libraries' callers: it
 * changes GMP's allocator for the whole process. */
void cone_gmp_exit_on_oom(void (*report)(void), int status);
/* The same with the way facets are found (d >= 3) chosen, for tests and
 * benchmarks: CONE_AUTO is what cone_build does (the exact double
 * description, which measured faster than Qhull on every bench case);
 * CONE_DD is the same; CONE_QHULL uses Qhull's proposals checked exactly
 * (docs/method/cone.md); CONE_DD_MIXED is the double description with every
 * other facet paired by ray lists instead of the ridge join, so that
 * small tests meet every kind of pair. */
enum { CONE_AUTO = 0, CONE_DD = 1, CONE_QHULL = 2, CONE_DD_MIXED = 3 };
/* stats may be NULL. */
int cone_build_method(size_t k, size_t m, const uint32_t *S,
		      const struct cone_options *opt, int method,
		      struct cone_stats *stats, struct cone **out,
		      struct cp_error *err);

/* ---- the H-representation ---- */
size_t cone_n_counters(const struct cone *c);   /* k */
size_t cone_dim(const struct cone *c);          /* d = dim span(S) */
/* k - d equalities a.x = 0: a basis of the orthogonal complement of
 * span(S) in reduced echelon form (each row primitive, its leading
 * coefficient positive; the leading counter of row i appears in no other
 * row), sorted by leading counter. */
size_t cone_n_equalities(const struct cone *c);
/* Equality i as int64, or NULL when a coefficient does not fit int64 (then
 * only cone_equality_mpz gives it; a[0..k-1], initialised by the caller). */
const int64_t *cone_equality(const struct cone *c, size_t i);
void cone_equality_mpz(const struct cone *c, size_t i, mpz_t *a);
/* Facets a.x >= 0, one per facet of C, each primitive.  A facet normal is
 * only defined modulo the equalities; this is the representative with the
 * fewest counters (starting from the one supported on the pivot counters of
 * span(S), then adding multiples of equalities while that strictly removes
 * counters or shrinks coefficients), which is what a person wants to read.
 * Sorted by number of counters, then lexicographically (larger first). */
size_t cone_n_facets(const struct cone *c);
/* Facet i as int64, or NULL when one of its coefficients does not fit
 * int64 (then only cone_facet_mpz gives it; such facets sort last, are
 * supported on the pivot counters and are not made sparser).  Callers that
 * need int64 (the solver) check cone_facets_fit_int64 first. */
const int64_t *cone_facet(const struct cone *c, size_t i);
int cone_facets_fit_int64(const struct cone *c);
/* Every facet and every equality fits int64 (what the solver needs). */
int cone_fits_int64(const struct cone *c);
/* Facet i exactly: a[0..k-1], initialised by the caller. */
void cone_facet_mpz(const struct cone *c, size_t i, mpz_t *a);
/* Facet i printed as cone_format_constraint does, or as a JSON integer
 * vector "[a0,a1,...]"; both for any size of coefficient. */
void cone_format_facet(const struct cone *c, size_t i,
		       const char *const *names, struct cp_buf *out);
void cone_format_facet_vector(const struct cone *c, size_t i,
			      struct cp_buf *out);
void cone_format_equality(const struct cone *c, size_t i,
			  const char *const *names, struct cp_buf *out);
void cone_format_equality_vector(const struct cone *c, size_t i,
				 struct cp_buf *out);
/* ---- the signatures ---- */
size_t cone_n_signatures(const struct cone *c); /* input m */
/* 1 if input signature j spans an extreme ray of C.  For repeats (and
 * positive multiples) of an extreme ray only the first occurrence reports
 * 1; zero signatures and signatures inside C (or inside a face) report 0. */
int cone_signature_is_extreme(const struct cone *c, size_t j);
size_t cone_n_extreme(const struct cone *c);
/* How many facets signature j lies on (a.s = 0). */
size_t cone_signature_n_facets(const struct cone *c, size_t j);

/* ---- printing ----
 * A constraint as a relation a person reads: counters by name, positive
 * terms on each side, terms in counter order, "3*name" for multiples.
 * Inequality a.x >= 0: "NEG <= POS" ("load.pde_miss <= load.causes_walk"),
 * or "POS >= 0" when no coefficient is negative.  Equality: the side with
 * fewer terms first ("load.walk_done = load.walk_done_4k + ...").  names may
 * be NULL (counters print as x0, x1, ...).  Appends to out. */
void cone_format_constraint(const int64_t *a, size_t k,
			    const char *const *names, int is_equality,
			    struct cp_buf *out);

/* ---- one facet from a set of signatures (for the solver) ----
 * Given a subset of the signatures (mask[j] != 0), compute exactly (GMP)
 * the primitive integer normal a in span(S) with a.s = 0 on the subset,
 * oriented so that a.s >= 0 for every signature, and check exactly that
 * every signature satisfies it and that the subset spans a (d-1)-dimensional
 * space.  Returns CP_OK and fills a[k] when the subset defines a facet;
 * CP_EINPUT when it does not (not a supporting hyperplane, or rank too low);
 * CP_ELIMIT when a coefficient does not fit int64; CP_ENOMEM. */
int cone_facet_from_subset(size_t k, size_t m, const uint32_t *S,
			   const unsigned char *mask, int64_t *a,
			   struct cp_error *err);

/* ---- exact constraint algebra (geometry/constraint.c) ----
 * The one home of these rules: the cone, the solver and the explorer all
 * call them.
 *
 * cone_equalities: the k - d equalities a.x = 0 of span(S) for m
 * signatures of k counters (row-major), exactly as cone_equality reports
 * them (canonical reduced echelon form, rows primitive).  *eq (n_eq * k,
 * freed with cp_free) is NULL when n_eq = 0.  CP_ELIMIT when a coefficient
 * does not fit int64, CP_ENOMEM, CP_EINPUT for k = 0. */
int cone_equalities(size_t k, size_t m, const uint32_t *S, size_t *n_eq,
		    int64_t **eq, struct cp_error *err);
/* Divide a by the gcd of its entries (no-op for zero). */
void cone_vec_primitive(int64_t *a, size_t k);
/* The number of non-zero entries. */
size_t cone_vec_nnz(const int64_t *a, size_t k);
/* Exact a.s for an integer constraint and a signature; a's entries are
 * primitive and small, s's are counts per μpath, so __int128 never
 * overflows. */
__extension__ typedef __int128 cone_int128;
cone_int128 cone_dot_exact(const int64_t *a, const uint32_t *s, size_t k);
/* The readable form of constraint a (a.x >= 0, or a.x = 0 when
 * is_equality), in place: a is made primitive; then, while it helps, an
 * inequality drops a positive term when what is left still holds on every
 * one of the m signatures S (S may be NULL: no dropping), and a multiple
 * of one of the n_eq equalities eq (n_eq * k) is added when that clears a
 * counter and gives fewer counters, then a smaller sum of |coefficients|,
 * then a support starting at an earlier counter.  Adding equalities keeps
 * the constraint on span(S); dropping terms only strengthens it.  keep
 * (may be NULL) vetoes a candidate form (the solver keeps only forms the
 * observation's region still breaks).  Deterministic; every step is exact
 * (overflowing candidates are skipped). */
typedef int (*cone_keep_fn)(const int64_t *a, void *ctx);
void cone_readable(size_t k, const int64_t *eq, size_t n_eq,
		   const uint32_t *S, size_t m, int is_equality,
		   cone_keep_fn keep, void *ctx, int64_t *a);

#endif
