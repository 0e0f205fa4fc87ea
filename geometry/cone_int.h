/* SPDX-License-Identifier: GPL-3.0-or-later */
/* geometry/cone_int.h: what the geometry files share while one cone is
 * being built (not public).  One struct cone_build per cone_build() call,
 * on its stack: no global state. */
#ifndef CONE_INT_H
#define CONE_INT_H

#include <stddef.h>
#include <stdint.h>

#include <gmp.h>

#include "common/cp.h"
#include "geometry/cone.h"
#include "geometry/cone_ech.h"

#define CONE_REJECT 1 /* a proposed facet is not one (exact check) */
#define CONE_BIG 2    /* the normal does not fit int64: it is in b->zd */

struct cone_build {
	size_t k, m, d;
	const uint32_t *S;
	size_t max_facets;
	int dd_mixed;         /* CONE_DD_MIXED: every other facet by lists */
	double max_seconds, t0;
	struct cone_stats *st; /* never NULL */
	/* distinct primitive non-zero rays */
	size_t nr;
	uint32_t *rays;       /* nr * k */
	long *ray_of;         /* m: ray of signature j, -1 for zero */
	size_t *ray_first;    /* nr: first signature with this ray */
	size_t *P;            /* d pivot columns of span(S) */
	int64_t *Y;           /* nr * d: rays restricted to P */
	/* exact facets in R^d, deduplicated */
	size_t nf, capf, words;
	int64_t *B;           /* nf * d, oriented: B.y >= 0 */
	uint64_t *on;         /* nf * words: bit r = ray r lies on facet
			       * (double description: of the rays it
			       * inserted; the others are not extreme) */
	size_t *ht;           /* 2*capf slots: facet indices or SIZE_MAX */
	/* facets whose normal does not fit int64: their row of B is zero,
	 * zidx[f] indexes zB (nz * d), SIZE_MAX for the others */
	size_t *zidx;
	mpz_t *zB;
	size_t nz, capz;
	unsigned char *qhull_vertex; /* nr, when Qhull ran */
	struct cone_ech ech_d; /* scratch basis over d columns */
	int ech_ready;
	mpz_t *zd;            /* d+1 scratch integers */
};

int cone_time_over(const struct cone_build *b);
/* The CP_ELIMIT error of the time limit. */
int cone_time_error(const struct cone_build *b, struct cp_error *err);
/* The CP_ELIMIT error of the facet limit (n facets counted exactly). */
int cone_facet_limit_error(const struct cone_build *b, size_t n,
			   struct cp_error *err);
/* Offer a candidate normal (primitive, any sign): oriented, checked exactly
 * against every ray, kept once.  0, CONE_REJECT or a CP_E* code. */
int cone_offer_facet(struct cone_build *b, int64_t *bv, size_t *index,
		     struct cp_error *err);
int cone_offer_facet_z(struct cone_build *b, mpz_t *z, size_t *index,
		       struct cp_error *err);
/* Keep a facet exact by construction (double description), oriented, with
 * its incidence over the rays: bv, or z when bv is NULL. */
int cone_keep_facet(struct cone_build *b, const int64_t *bv, mpz_t *z,
		    const uint64_t *inc, struct cp_error *err);
/* Take over the n facets of a finished double description as they are:
 * B (n * d normals, int64) and on (n * words incidences), both from
 * cp_malloc; replaces any facets kept so far.  No facet may be offered
 * or kept after this (the hash of known normals is gone).  0, or
 * CP_ELIMIT (over max_facets: B and on stay the caller's), CP_ENOMEM. */
int cone_adopt_facets(struct cone_build *b, int64_t *B, uint64_t *on, size_t n,
		      struct cp_error *err);
/* t = z.y exactly (y a projected ray: entries >= 0). */
void cone_dot_z(mpz_t t, mpz_t *z, const int64_t *y, size_t d);
/* v in decimal. */
void cone_put_i64(struct cp_buf *out, int64_t v);
void cone_format_constraint_z(mpz_t *a, size_t k, const char *const *names,
			      int is_equality, struct cp_buf *out);
/* Forget every facet found so far (before another attempt). */
void cone_forget_facets(struct cone_build *b);
/* The normal of the span of rays ids (rank d-1): 0 (in bv), CONE_BIG
 * (in b->zd), CONE_REJECT (rank is not d-1), or a CP_E* code. */
int cone_normal_of_rays(struct cone_build *b, const int *ids, size_t n,
			int64_t *bv, struct cp_error *err);
/* d >= 3: facets by exact double description (geometry/cone_dd.c). */
int cone_facets_dd(struct cone_build *b, struct cp_error *err);
/* d >= 3: facets from Qhull's proposals (geometry/cone_qhull.c). */
int cone_facets_qhull(struct cone_build *b, struct cp_error *err);

#endif
