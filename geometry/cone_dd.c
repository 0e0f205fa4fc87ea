/* geometry/cone_dd.c: facets by the exact double description method
 * (Motzkin's incremental algorithm), for cones with few facets and many
 * rays on each, where Qhull's triangulation explodes (big.udd: 2,302
 * signatures, 28 facets, more than a million Qhull simplices).
 *
 * Start from d independent rays (a simplicial cone: facet i is the normal of
 * the other d-1 rays).  Add the other rays one at a time: with s_f = b_f.y,
 * facets with s_f >= 0 stay (y joins the incidence set of those with
 * s_f = 0); each adjacent pair p (s_p > 0), n (s_n < 0) gives the new facet
 *     b = s_p b_n - s_n b_p      (so b.y = 0, and b >= 0 on earlier rays)
 * with incidence inc(p) & inc(n) + {y}; facets with s_f < 0 go.  p and n are
 * adjacent iff their common rays number at least d-2 and no third facet
 * holds them all (the combinatorial test, exact for a full-dimensional
 * cone).  Rays go in lexicographic order (cdd's "lexmin"), which keeps the
 * intermediate cones small (dimension 16, 200 rays: 0.4 s, against more
 * than 2 minutes in input order).  All arithmetic is int64, checked; on
 * overflow, or when the work (pairs tried plus facets scanned by the
 * adjacency test, about 3.5e8 a second) passes a bound, it gives up and
 * the caller uses Qhull. */
#include <stdlib.h>
#include <string.h>

#include "geometry/cone_int.h"

struct dd_facets {
	size_t n, cap;
	int64_t *b;     /* n * d */
	uint64_t *inc;  /* n * words */
};

static int dd_reserve(struct dd_facets *f, size_t n, size_t d, size_t words)
{
	size_t cap;
	int64_t *b;
	uint64_t *inc;

	if (n <= f->cap)
		return 0;
	cap = f->cap ? f->cap : 64;
	while (cap < n)
		cap *= 2;
	b = cp_reallocarray(f->b, cap * d + 1, sizeof *b);
	if (!b)
		return CP_ENOMEM;
	f->b = b;
	inc = cp_reallocarray(f->inc, cap * words + 1, sizeof *inc);
	if (!inc)
		return CP_ENOMEM;
	f->inc = inc;
	f->cap = cap;
	return 0;
}

static void dd_release(struct dd_facets *f)
{
	cp_free(f->b);
	cp_free(f->inc);
}

static __int128 dot(const int64_t *a, const int64_t *y, size_t d)
{
	__int128 s = 0;
	size_t i;

	for (i = 0; i < d; i++)
		s += (__int128)a[i] * y[i];
	return s;
}

/* out = p*x - q*y made primitive; -1 on overflow.  p, q as __int128 dot
 * products must themselves fit int64. */
static int combine(__int128 p128, const int64_t *x, __int128 q128,
		   const int64_t *y, int64_t *out, size_t d)
{
	int64_t p, q, g = 0;
	size_t i;

	if (p128 > INT64_MAX || p128 < -INT64_MAX || q128 > INT64_MAX ||
	    q128 < -INT64_MAX)
		return -1;
	p = (int64_t)p128;
	q = (int64_t)q128;
	g = cp_gcd64(p, q);
	p /= g;
	q /= g;
	for (i = 0; i < d; i++) {
		int64_t u, w;

		if (__builtin_mul_overflow(p, x[i], &u) ||
		    __builtin_mul_overflow(q, y[i], &w) ||
		    __builtin_sub_overflow(u, w, &out[i]) || out[i] == INT64_MIN)
			return -1;
	}
	cone_vec_primitive(out, d);
	return 0;
}

/* Insertion order: lexicographic on the projected rays (cdd's "lexmin"),
 * which keeps the intermediate cones smaller than input order. */
static int cmp_lex(const void *pa, const void *pb, void *ctx)
{
	const struct cone_build *b = ctx;
	const int64_t *x = b->Y + (size_t)*(const int *)pa * b->d;
	const int64_t *y = b->Y + (size_t)*(const int *)pb * b->d;
	size_t i;

	for (i = 0; i < b->d; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

int cone_facets_dd(struct cone_build *b, size_t max_work, struct cp_error *err)
{
	size_t d = b->d, words = b->words, i, j, r, f, nchosen = 0;
	struct dd_facets cur, next;
	int *chosen = NULL, *others = NULL, *order = NULL;
	unsigned char *used = NULL;
	__int128 *s = NULL;
	uint64_t *common = NULL;
	size_t work = 0;
	int rc = 0;

	memset(&cur, 0, sizeof cur);
	memset(&next, 0, sizeof next);
	chosen = cp_malloc((d + 1) * sizeof *chosen);
	others = cp_malloc((d + 1) * sizeof *others);
	used = cp_calloc(b->nr + 1, 1);
	common = cp_malloc((words + 1) * sizeof *common);
	order = cp_malloc((b->nr + 1) * sizeof *order);
	if (!chosen || !others || !used || !common || !order ||
	    dd_reserve(&cur, d, d, words))
		goto nomem;
	for (r = 0; r < b->nr; r++)
		order[r] = (int)r;
	qsort_r(order, b->nr, sizeof *order, cmp_lex, b);
	/* the initial simplicial cone */
	cone_ech_reset(&b->ech_d);
	for (i = 0; i < b->nr && nchosen < d; i++) {
		r = (size_t)order[i];
		rc = cone_ech_add(&b->ech_d, b->Y + r * d);
		if (rc < 0)
			goto nomem;
		if (rc == 1) {
			chosen[nchosen++] = (int)r;
			used[r] = 1;
		}
	}
	rc = 0;
	if (nchosen != d) {
		rc = cp_error_set(err, CP_EINTERNAL, "double description: rank below %zu", d);
		goto out;
	}
	for (i = 0; i < d; i++) {
		int64_t *bv = cur.b + i * d;
		uint64_t *inc = cur.inc + i * words;
		size_t n = 0;

		for (j = 0; j < d; j++)
			if (j != i)
				others[n++] = chosen[j];
		rc = cone_normal_of_rays(b, others, d - 1, bv, err);
		if (rc < 0)
			goto out;
		if (rc) {
			rc = cp_error_set(err, CP_EINTERNAL, "double description: "
					  "initial facet of rank below %zu", d - 1);
			goto out;
		}
		if (dot(bv, b->Y + (size_t)chosen[i] * d, d) < 0)
			for (j = 0; j < d; j++)
				bv[j] = -bv[j];
		memset(inc, 0, words * sizeof *inc);
		for (j = 0; j < d; j++)
			if (j != i)
				inc[chosen[j] / 64] |= (uint64_t)1 << (chosen[j] % 64);
	}
	cur.n = d;
	/* add the other rays one at a time */
	for (size_t oi = 0; oi < b->nr; oi++) {
		size_t nneg = 0, p, n;
		const int64_t *y;

		r = (size_t)order[oi];
		y = b->Y + r * d;
		if (used[r])
			continue;
		cp_free(s);
		s = cp_malloc((cur.n + 1) * sizeof *s);
		if (!s)
			goto nomem;
		for (f = 0; f < cur.n; f++) {
			s[f] = dot(cur.b + f * d, y, d);
			nneg += s[f] < 0;
		}
		for (f = 0; f < cur.n; f++)
			if (s[f] == 0)
				cur.inc[f * words + r / 64] |= (uint64_t)1 << (r % 64);
		if (!nneg)
			continue;
		/* survivors first */
		next.n = 0;
		if (dd_reserve(&next, cur.n - nneg, d, words))
			goto nomem;
		for (f = 0; f < cur.n; f++) {
			if (s[f] < 0)
				continue;
			memcpy(next.b + next.n * d, cur.b + f * d, d * sizeof *next.b);
			memcpy(next.inc + next.n * words, cur.inc + f * words,
			       words * sizeof *next.inc);
			next.n++;
		}
		for (p = 0; p < cur.n; p++) {
			if (s[p] <= 0)
				continue;
			for (n = 0; n < cur.n; n++) {
				size_t cnt = 0, w, g;
				int adjacent = 1;

				if (s[n] >= 0)
					continue;
				work++;
				for (w = 0; w < words; w++) {
					common[w] = cur.inc[p * words + w] & cur.inc[n * words + w];
					cnt += (size_t)__builtin_popcountll(common[w]);
				}
				if (cnt + 2 < d)
					continue;
				for (g = 0; g < cur.n && adjacent; g++) {
					if (g == p || g == n)
						continue;
					work++;
					for (w = 0; w < words; w++)
						if (common[w] & ~cur.inc[g * words + w])
							break;
					if (w == words)
						adjacent = 0;
				}
				if (work > max_work) {
					rc = CONE_REJECT;
					goto out;
				}
				if (!adjacent)
					continue;
				if (dd_reserve(&next, next.n + 1, d, words))
					goto nomem;
				/* b = s_p b_n - s_n b_p */
				if (combine(s[p], cur.b + n * d, s[n], cur.b + p * d,
					    next.b + next.n * d, d)) {
					rc = CONE_REJECT;
					goto out;
				}
				memcpy(next.inc + next.n * words, common, words * sizeof *common);
				next.inc[next.n * words + r / 64] |= (uint64_t)1 << (r % 64);
				next.n++;
			}
		}
		if (next.n > b->max_facets) {
			rc = CONE_REJECT; /* let Qhull and the exact count decide */
			goto out;
		}
		{
			struct dd_facets t = cur;

			cur = next;
			next = t;
		}
		if (cone_time_over(b)) {
			rc = cp_error_set(err, CP_ELIMIT,
				"the cone took more than %g s (raise --max-seconds)",
				b->max_seconds);
			goto out;
		}
	}
	/* every facet is exact by construction; offering checks it again
	 * against every ray and records which rays lie on it */
	for (f = 0; f < cur.n; f++) {
		rc = cone_offer_facet(b, cur.b + f * d, NULL, err);
		if (rc < 0)
			goto out;
		if (rc) {
			rc = cp_error_set(err, CP_EINTERNAL, "double description "
					  "produced a facet that fails the exact check");
			goto out;
		}
	}
	rc = 0;
	goto out;
nomem:
	rc = cp_error_set(err, CP_ENOMEM, "out of memory while building the cone");
out:
	dd_release(&cur);
	dd_release(&next);
	cp_free(chosen);
	cp_free(others);
	cp_free(order);
	cp_free(used);
	cp_free(s);
	cp_free(common);
	return rc;
}
