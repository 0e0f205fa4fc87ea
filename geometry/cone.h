/* geometry/cone.h: the exact model cone C = cone{s(p)} of a signature set
 * and its other description, the model constraints
 *     C = { x : A x = 0, B x >= 0 }
 * (equalities A, facet inequalities B, all primitive integer vectors).
 * Facets come from an exact double description, or (for cones with many
 * facets) Qhull proposes them in floating point and exact integer and GMP
 * arithmetic derives every normal and verifies it against every signature.
 *
 * Ownership: cone_build returns a cone the caller frees with cone_free()
 * (cone_free(NULL) is a no-op).  Vectors returned by accessors belong to the
 * cone and live as long as it does.  Nothing here keeps global state, so
 * separate cones may be built in separate threads. */
#ifndef COUNTERPOINT_CONE_H
#define COUNTERPOINT_CONE_H

#include <stddef.h>
#include <stdint.h>

#include "common/cp.h"

struct cone;

struct cone_options {
	size_t max_facets;  /* stop with CP_ELIMIT beyond this; 0 = 1,000,000 */
	double max_seconds; /* stop with CP_ELIMIT after this; 0 = no limit */
};

/* ---- building ----
 * S: m signatures of k counters, row-major (signature j at S + j*k),
 * non-negative.  Zero signatures and repeats (also positive multiples of
 * another signature) are allowed.  opt may be NULL (defaults).  Fails with
 * CP_ELIMIT when a limit is reached or a coefficient does not fit int64,
 * CP_ENUMERIC when Qhull fails, CP_ENOMEM, CP_EINPUT on k = 0. */
int cone_build(size_t k, size_t m, const uint32_t *S,
	       const struct cone_options *opt, struct cone **out,
	       struct cp_error *err);
void cone_free(struct cone *c);
/* The same with the way facets are found (d >= 3) forced, for tests and
 * benchmarks: CONE_AUTO is what cone_build does (exact double description
 * while its work stays small, else Qhull's proposals checked exactly);
 * CONE_DD and CONE_QHULL use only one (docs/cone.md). */
enum { CONE_AUTO = 0, CONE_DD = 1, CONE_QHULL = 2 };
int cone_build_method(size_t k, size_t m, const uint32_t *S,
		      const struct cone_options *opt, int method,
		      struct cone **out, struct cp_error *err);

/* ---- the H-representation ---- */
size_t cone_n_counters(const struct cone *c);   /* k */
size_t cone_dim(const struct cone *c);          /* d = dim span(S) */
/* k - d equalities a.x = 0: a basis of the orthogonal complement of
 * span(S) in reduced echelon form (each row primitive, its leading
 * coefficient positive; the leading counter of row i appears in no other
 * row), sorted by leading counter. */
size_t cone_n_equalities(const struct cone *c);
const int64_t *cone_equality(const struct cone *c, size_t i);
/* Facets a.x >= 0, one per facet of C, each primitive.  A facet normal is
 * only defined modulo the equalities; this is the representative with the
 * fewest counters (starting from the one supported on the pivot counters of
 * span(S), then adding multiples of equalities while that strictly removes
 * counters or shrinks coefficients), which is what a person wants to read.
 * Sorted by number of counters, then lexicographically (larger first). */
size_t cone_n_facets(const struct cone *c);
const int64_t *cone_facet(const struct cone *c, size_t i);
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
