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

struct cone_build {
	size_t k, m, d;
	const uint32_t *S;
	size_t max_facets;
	double max_seconds, t0;
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
	uint64_t *on;         /* nf * words: bit r = ray r lies on facet */
	size_t *ht;           /* 2*capf slots: facet indices or SIZE_MAX */
	unsigned char *qhull_vertex; /* nr, when Qhull ran */
	struct cone_ech ech_d; /* scratch basis over d columns */
	int ech_ready;
	mpz_t *zd;            /* d+1 scratch integers */
};

int cone_time_over(const struct cone_build *b);
int cone_offer_facet(struct cone_build *b, int64_t *bv, size_t *index,
		     struct cp_error *err);
/* Forget every facet found so far (before another attempt). */
void cone_forget_facets(struct cone_build *b);
int cone_normal_of_rays(struct cone_build *b, const int *ids, size_t n,
			int64_t *bv, struct cp_error *err);
/* d >= 3: facets by exact double description (geometry/cone_dd.c);
 * CONE_REJECT when it gives up (overflow, or more than max_work pair
 * checks), having found no facet. */
int cone_facets_dd(struct cone_build *b, size_t max_work, struct cp_error *err);
/* d >= 3: facets from Qhull's proposals (geometry/cone_qhull.c). */
int cone_facets_qhull(struct cone_build *b, struct cp_error *err);

#endif
