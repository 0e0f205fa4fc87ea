/* SPDX-License-Identifier: GPL-3.0-or-later */
/* geometry/cone_dd.c: facets by the exact double description method
 * (Motzkin's incremental algorithm, with the refinements of cdd and
 * Normaliz), in the coordinates of span(S) (d = dim span(S), so a cone
 * embedded in more counters costs what its own dimension costs).
 *
 * Start from d independent rays (a simplicial cone: facet i is the normal of
 * the other d-1 rays).  Add the other rays one at a time: with s_f = b_f.y,
 * facets with s_f >= 0 stay (y joins the incidence set of those with
 * s_f = 0); each adjacent pair p (s_p > 0), n (s_n < 0) gives the new facet
 *     b = s_p b_n - s_n b_p      (so b.y = 0, and b >= 0 on earlier rays)
 * with incidence inc(p) & inc(n) + {y}; facets with s_f < 0 go.
 *
 * Adjacency of p and n: the rays they share, C = inc(p) & inc(n), must span
 * a ridge, i.e. rank(C) = d-2.  Tests, cheapest first:
 *   - |C| >= d-2, counted on bit-sets restricted to the rays that lie on
 *     some positive and some negative facet (Normaliz's Zero_PN: no other
 *     ray can be shared by a pair);
 *   - if p or n is simplicial (exactly d-1 rays, independent), C is a
 *     (d-2)-subset of an independent set: adjacent;
 *   - else either the exact rank of C or the combinatorial test (no third
 *     facet holds C), whichever is cheaper: the rank costs about
 *     d^2 |C|/3, the combinatorial test one subset check per facet
 *     (Normaliz's rule), with the last facet that refuted a pair tried
 *     first.  The rank is taken through p's linear dependencies
 *     (kern_build): with K a basis of the dependencies among the k rays of
 *     p that can be shared (rank r), rank C = r - m + rank K[:,M] for the m
 *     rays M of p that n misses; K is built once per positive facet (when
 *     its first pair needs it), then a pair costs the rank of a few-by-few
 *     matrix instead of |C| rows of d (int64 elimination with gcd
 *     reduction, checked; on overflow the direct rank of C, and on its
 *     overflow the combinatorial test).
 * The loop over candidate pairs counts the shared rays inline, with the
 * popcount instruction when the CPU has one (a second copy of the loop
 * compiled for it, chosen at run time).
 * Rays go in lexicographic order (cdd's "lexmin"), which keeps the
 * intermediate cones small.  Numbers are int64 while they fit; at the first
 * overflow the current facets move to GMP and the insertion of that ray
 * starts again there, so results stay exact at any size.  The clock is
 * read every 2^16 units of work (a pair, or a facet scanned). */
#include <stdlib.h>
#include <string.h>

#include "geometry/cone.h"
#include "geometry/cone_int.h"

/* Who a facet is: for Normaliz's extension test (below). */
struct dd_tag {
	uint64_t id, mother; /* mother: the positive facet it came from */
	size_t born;         /* the step that made it (0: the first simplex) */
};

struct dd_facets {
	size_t n, cap, zcap;
	int64_t *b;     /* n * d, int64 mode */
	mpz_t *z;       /* zcap * d initialised, GMP mode */
	uint64_t *inc;  /* n * words: rays on the facet */
	struct dd_tag *tag;
};

#define SINCE_BLOCK 8

/* For every ray j, facets holding it: list[start[j] .. start[j+1]]; built
 * at most once a step, when worth it (on). */
struct dd_index {
	size_t *start, *list, cap;
	int on;
};


struct dd {
	struct cone_build *b;
	size_t d, words;
	int big;                 /* facets live in z */
	struct dd_facets cur, next;
	__int128 *s;             /* cur.n values b_f.y (int64 mode) */
	mpz_t *zs;               /* the same in GMP mode (zs_n initialised) */
	size_t s_cap, zs_n;
	size_t *pos, *neg;
	uint64_t *zp, *zn, *relp, *common;
	int64_t *rk;             /* rank test scratch: nr * d */
	__int128 *wide;          /* d: combine_wide's scratch */
	int64_t *kt, *ktmp;      /* kern_build: K by columns, [A | I] */
	size_t kt_cap, kk, kr, ke; /* K's rays, rank of A, dependencies */
	size_t *kray, *kidx;     /* nr: relp's rays; ray -> its column */
	size_t *kperm;           /* nr: kern_build's row order */
	uint64_t *kbas, *knon;   /* relp's rays that were pivots, the others */
	size_t kern_p;           /* the positive facet K is for (SIZE_MAX: none) */
	int kern_ok;             /* K built without overflow */
	unsigned char *simp;     /* s_cap: facet holds exactly d-1 rays */
	/* the ridge join (below): which facets take part (cls), those that
	 * do not (negx), the subsets of each side and the pairs found */
	unsigned char *cls;      /* s_cap: DD_JOIN, DD_MANY, DD_NONE */
	size_t *negx;
	uint64_t *ep, *etmp, *pairs, *tcol;
	size_t ep_cap, etmp_cap, pairs_cap, tcol_cap;
	size_t *posx;            /* positive facets not joined */
	size_t *radix;           /* 2 * (DD_PARTS + 1) */
	uint64_t *zob;           /* nr: a random word per ray (fingerprints) */
	size_t *fray;            /* nr: the shareable rays of one facet */
	struct dd_index inegx;   /* ray -> the same, of those in negx */
	struct dd_index icur;    /* ray -> current facets holding it */
	size_t *sel;             /* nr: rays whose lists are used */
	uint64_t *stamp, stamp_now; /* s_cap: last positive facet that saw it */
	size_t last_refuter;     /* move-to-front of the combinatorial test */
	mpz_t t1, t2, g;
	uint64_t work, next_check; /* the clock is read every 2^16 units */
	size_t step;             /* rays inserted so far (this one's step) */
	/* the rays inserted at step t or later, for any t: a bitset for
	 * every SINCE_BLOCK-th step (since[b]: steps >= b * SINCE_BLOCK) and
	 * the ray of each step for the steps between (step 0 is the initial
	 * simplex, in since[0] only) */
	uint64_t *since;         /* (nr / SINCE_BLOCK + 2) * words */
	size_t *rayat;           /* nr + 1: the ray of each step >= 1 */
	uint64_t ids;            /* facet ids handed out */
	int late;                  /* the time limit has passed */
	int hw_popcount;           /* the CPU has a popcount instruction */
};

/* Count work (a pair, or a facet scanned, is one unit); 1 once the time
 * limit has passed.  Reading the clock every 2^16 units keeps the time
 * limit within milliseconds whatever the step costs. */
static int dd_work(struct dd *x, uint64_t units)
{
	x->work += units;
	if (x->work >= x->next_check) {
		x->next_check = x->work + 65536;
		if (cone_time_over(x->b))
			x->late = 1;
	}
	return x->late;
}

/* ==== storage ==== */

static int dd_reserve(struct dd *x, struct dd_facets *f, size_t n)
{
	size_t cap, d = x->d, words = x->words, i;
	int64_t *b;
	uint64_t *inc;
	struct dd_tag *tag;

	if (n > f->cap) {
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
		tag = cp_reallocarray(f->tag, cap + 1, sizeof *tag);
		if (!tag)
			return CP_ENOMEM;
		f->tag = tag;
		f->cap = cap;
	}
	if (x->big && n > f->zcap) {
		mpz_t *z;

		cap = f->cap;
		z = cp_reallocarray(f->z, cap * d, sizeof *z);
		if (!z)
			return CP_ENOMEM;
		for (i = f->zcap * d; i < cap * d; i++)
			mpz_init(z[i]);
		f->z = z;
		f->zcap = cap;
	}
	return 0;
}

static void dd_facets_release(struct dd_facets *f, size_t d)
{
	size_t i;

	cp_free(f->b);
	cp_free(f->inc);
	cp_free(f->tag);
	for (i = 0; i < f->zcap * d; i++)
		mpz_clear(f->z[i]);
	cp_free(f->z);
}

/* Move the current facets to GMP (int64 arithmetic would overflow). */
static int dd_go_big(struct dd *x)
{
	size_t f, i, d = x->d;

	x->big = 1;
	x->b->st->gmp = 1;
	if (dd_reserve(x, &x->cur, x->cur.n ? x->cur.n : 1) ||
	    dd_reserve(x, &x->next, x->next.cap ? x->next.cap : 1))
		return CP_ENOMEM;
	for (f = 0; f < x->cur.n; f++)
		for (i = 0; i < d; i++)
			mpz_set_si(x->cur.z[f * d + i], (long)x->cur.b[f * d + i]);
	return 0;
}

/* ==== arithmetic ==== */

/* Bits set in x, inline: without -mpopcnt __builtin_popcountll is a
 * library call, a quarter of the whole time in the pair loop. */
static inline size_t pop64(uint64_t x)
{
	x -= (x >> 1) & 0x5555555555555555ULL;
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
	return (size_t)((x * 0x0101010101010101ULL) >> 56);
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

static unsigned __int128 gcd_u128(unsigned __int128 a, unsigned __int128 b)
{
	while (b) {
		unsigned __int128 t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static unsigned __int128 abs128(__int128 v)
{
	return v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
}

/* combine through 128-bit integers (t: d scratch), for when the products
 * overflow int64 but the primitive result may fit (dense cones: products
 * of 10^11-sized normals, results that divide back): -1 when it does
 * not. */
static int combine_wide(__int128 p, const int64_t *x, __int128 q,
			const int64_t *y, int64_t *out, size_t d, __int128 *t)
{
	unsigned __int128 g = gcd_u128(abs128(p), abs128(q));
	size_t i;

	p /= (__int128)g;
	q /= (__int128)g;
	if (p > INT64_MAX || p < -INT64_MAX || q > INT64_MAX || q < -INT64_MAX)
		return -1;
	for (i = 0, g = 0; i < d; i++) {
		if (__builtin_sub_overflow(p * x[i], q * y[i], &t[i]))
			return -1;
		g = gcd_u128(g, abs128(t[i]));
	}
	for (i = 0; i < d; i++) {
		__int128 v = t[i] / (__int128)g;

		if (v > INT64_MAX || v < -INT64_MAX)
			return -1;
		out[i] = (int64_t)v;
	}
	return 0;
}

static void combine_z(struct dd *x, mpz_t p, mpz_t *xv, mpz_t q, mpz_t *yv,
		      mpz_t *out)
{
	size_t i, d = x->d;

	mpz_gcd(x->g, p, q);
	mpz_divexact(x->t1, p, x->g);
	mpz_divexact(x->t2, q, x->g);
	for (i = 0; i < d; i++) {
		mpz_mul(out[i], x->t1, xv[i]);
		mpz_submul(out[i], x->t2, yv[i]);
	}
	cone_vec_primitive_z(out, d);
}

/* 1 when the rows x cols matrix M (row-major, overwritten) has rank >=
 * need, 0 when not, -1 when an int64 would overflow.  Integer elimination:
 * row_i := a*row_i - c*row_p with a, c the pivot entries divided by their
 * gcd, then row_i divided by the gcd of its entries when they have grown
 * (exact, and the numbers stay small). */
static int elim_rank(int64_t *M, size_t rows, size_t cols, size_t need)
{
	size_t rank = 0, col, i, t;

	if (!need)
		return 1;
	if (need > rows || need > cols)
		return 0;
	for (col = 0; col < cols && rank < need; col++) {
		int64_t *P;

		for (i = rank; i < rows && !M[i * cols + col]; i++)
			;
		if (i == rows) {
			if (rank + (cols - col - 1) < need)
				return 0;
			continue;
		}
		if (i != rank)
			for (t = col; t < cols; t++) {
				int64_t u = M[i * cols + t];

				M[i * cols + t] = M[rank * cols + t];
				M[rank * cols + t] = u;
			}
		P = M + rank * cols;
		for (i = rank + 1; i < rows; i++) {
			int64_t *R = M + i * cols, a = P[col], c = R[col], g, big = 0;

			if (!c)
				continue;
			if (a != 1 && c != 1 && a != -1 && c != -1) {
				g = cp_gcd64(a, c);
				a /= g;
				c /= g;
			}
			for (t = col; t < cols; t++) {
				int64_t u, v;

				if (__builtin_mul_overflow(a, R[t], &u) ||
				    __builtin_mul_overflow(c, P[t], &v) ||
				    __builtin_sub_overflow(u, v, &R[t]) ||
				    R[t] == INT64_MIN)
					return -1;
				big |= R[t] > (1 << 24) || R[t] < -(1 << 24);
			}
			if (big) {
				g = 0;
				for (t = col + 1; t < cols; t++)
					if (R[t])
						g = cp_gcd64(g, R[t]);
				if (g > 1)
					for (t = col + 1; t < cols; t++)
						R[t] /= g;
			}
		}
		rank++;
		if (rank + (cols - col - 1) < need)
			return 0;
	}
	return rank >= need;
}

/* 1 when the rays in set C have rank >= need, 0 when not, -1 when an
 * int64 would overflow. */
static int rank_at_least(struct dd *x, const uint64_t *C, size_t need)
{
	const struct cone_build *b = x->b;
	size_t d = x->d, rows = 0, w;
	int64_t *M = x->rk;

	for (w = 0; w < x->words; w++) {
		uint64_t bits = C[w];

		while (bits) {
			size_t j = w * 64 + (size_t)__builtin_ctzll(bits);

			bits &= bits - 1;
			memcpy(M + rows * d, b->Y + j * d, d * sizeof *M);
			rows++;
		}
	}
	return elim_rank(M, rows, d, need);
}

/* The rank test through the positive facet's dependencies.  Let A be the
 * k rays of relp (p's rays that can be shared), r = rank A, and K an
 * e x k basis of A's left kernel (e = k - r: the linear dependencies among
 * them).  For C = relp minus a set M of m rays, the dependencies among C
 * are those of K vanishing on M, so
 *     rank C = |C| - (e - rank K[:,M]) = r - m + rank K[:,M],
 * and C spans a ridge iff rank K[:,M] >= d - 2 - r + m.  K is computed
 * once per positive facet (exactly, by the elimination of [A | I]), and
 * then each of its pairs costs the rank of m columns of length e (m is
 * the number of p's rays the negative facet misses: a few) instead of
 * the rank of |C| rays of length d.  kern_build: 0, or -1 when an int64
 * would overflow (the pairs of p then take the direct rank test). */
static int kern_build(struct dd *x)
{
	const struct cone_build *b = x->b;
	size_t d = x->d, k = 0, cols, w, i, j, c, r, e, *perm = x->kperm;
	int64_t *T;

	for (w = 0; w < x->words; w++) {
		uint64_t bits = x->relp[w];

		while (bits) {
			x->kray[k++] = w * 64 + (size_t)__builtin_ctzll(bits);
			bits &= bits - 1;
		}
	}
	cols = d + k;
	if (k * cols > x->kt_cap) {
		size_t cap = 2 * k * cols;
		int64_t *t = cp_reallocarray(x->kt, cap + 1, sizeof *t);

		if (!t)
			return -2;
		x->kt = t;
		if (!(t = cp_reallocarray(x->ktmp, cap + 1, sizeof *t)))
			return -2;
		x->ktmp = t;
		x->kt_cap = cap;
	}
	T = x->ktmp;
	memset(T, 0, k * cols * sizeof *T);
	for (i = 0; i < k; i++) {
		perm[i] = i;
		memcpy(T + i * cols, b->Y + x->kray[i] * d, d * sizeof *T);
		T[i * cols + d + i] = 1;
	}
	/* eliminate the first d columns, carrying the identity along */
	r = 0;
	for (c = 0; c < d && r < k; c++) {
		int64_t *P;

		for (i = r; i < k && !T[i * cols + c]; i++)
			;
		if (i == k)
			continue;
		if (i != r) {
			size_t o = perm[i];

			perm[i] = perm[r];
			perm[r] = o;
			for (j = 0; j < cols; j++) {
				int64_t u = T[i * cols + j];

				T[i * cols + j] = T[r * cols + j];
				T[r * cols + j] = u;
			}
		}
		P = T + r * cols;
		for (i = r + 1; i < k; i++) {
			int64_t *R = T + i * cols, a = P[c], q = R[c], g, big = 0;

			if (!q)
				continue;
			if (a != 1 && q != 1 && a != -1 && q != -1) {
				g = cp_gcd64(a, q);
				a /= g;
				q /= g;
			}
			for (j = c; j < cols; j++) {
				int64_t u, v;

				if (__builtin_mul_overflow(a, R[j], &u) ||
				    __builtin_mul_overflow(q, P[j], &v) ||
				    __builtin_sub_overflow(u, v, &R[j]) ||
				    R[j] == INT64_MIN)
					return -1;
				big |= R[j] > (1 << 24) || R[j] < -(1 << 24);
			}
			if (big) {
				g = 0;
				for (j = c + 1; j < cols; j++)
					if (R[j])
						g = cp_gcd64(g, R[j]);
				if (g > 1)
					for (j = c + 1; j < cols; j++)
						R[j] /= g;
			}
		}
		r++;
	}
	/* rows r..k-1 are zero on A: their identity part is K.  Only pivot
	 * rows were subtracted from them, so row r+j is zero on the other
	 * non-pivot rays: keep its entries on the r pivot rays, by pivot
	 * position (x->kt + j*r), and index each ray by its position */
	e = k - r;
	memset(x->kbas, 0, x->words * sizeof *x->kbas);
	memset(x->knon, 0, x->words * sizeof *x->knon);
	for (i = 0; i < k; i++) {
		size_t ray = x->kray[perm[i]];

		if (i < r) {
			x->kbas[ray / 64] |= (uint64_t)1 << (ray % 64);
			x->kidx[ray] = i;
		} else {
			x->knon[ray / 64] |= (uint64_t)1 << (ray % 64);
			x->kidx[ray] = i - r;
			for (j = 0; j < r; j++)
				x->kt[(i - r) * r + j] = T[i * cols + d + perm[j]];
		}
	}
	x->kk = k;
	x->kr = r;
	x->ke = e;
	return 0;
}

/* 1 when C = relp & inc(n) has rank >= d-2, 0 when not, -1 when an int64
 * would overflow; by kern_build's K (built for the current p).  K's rows
 * come from the rays that were not pivots (N), each zero on the other
 * rays of N: so the missing rays of N contribute their own rank, and
 *     rank K[:,M] = |M & N| + rank L,
 * L = K restricted to the rows of N's rays in C and the columns of the
 * missing basis rays (M & B); C spans a ridge iff rank L >= d-2-r+|M & B|. */
static int kern_test(struct dd *x, size_t n)
{
	size_t words = x->words, r = x->kr, mb = 0, rows = 0, w, need, c;
	const uint64_t *inc = x->cur.inc + n * words;
	int64_t *M = x->ktmp; /* free after kern_build: m * e <= k * (d + k) */
	size_t *bi = x->kray;  /* free too */

	for (w = 0; w < words; w++) {
		uint64_t bits = x->relp[w] & ~inc[w] & x->kbas[w];

		while (bits) {
			bi[mb++] = x->kidx[w * 64 + (size_t)__builtin_ctzll(bits)];
			bits &= bits - 1;
		}
	}
	if (x->d - 2 + mb <= r)
		return 1;
	need = x->d - 2 + mb - r;
	if (need > mb)
		return 0;
	for (w = 0; w < words; w++) {
		uint64_t bits = x->relp[w] & inc[w] & x->knon[w];

		while (bits) {
			const int64_t *lam = x->kt + x->kidx[w * 64 +
				(size_t)__builtin_ctzll(bits)] * r;
			int64_t *R = M + rows * mb, any = 0;

			bits &= bits - 1;
			for (c = 0; c < mb; c++)
				any |= R[c] = lam[bi[c]];
			rows += any != 0; /* zero rows add no rank */
		}
	}
	return elim_rank(M, rows, mb, need);
}

/* For every ray, the facets (fac[0..nf-1], or 0..nf-1 when fac is NULL)
 * that hold it, counting only rays in mask (NULL: all), into ix.  0 or
 * CP_ENOMEM. */
static int index_rays(struct dd *x, const size_t *fac, size_t nf,
		      const uint64_t *mask, struct dd_index *ix)
{
	size_t nr = x->b->nr, words = x->words, c, w, j, total = 0, *st;
	size_t **list = &ix->list;
	const uint64_t *inc = x->cur.inc;

	st = cp_reallocarray(ix->start, nr + 2, sizeof *st);
	if (!st)
		return CP_ENOMEM;
	ix->start = st;
	memset(st, 0, (nr + 2) * sizeof *st);
	for (c = 0; c < nf; c++)
		for (w = 0; w < words; w++) {
			uint64_t bits = inc[(fac ? fac[c] : c) * words + w] &
					(mask ? mask[w] : ~(uint64_t)0);

			total += pop64(bits);
			while (bits) {
				st[w * 64 + (size_t)__builtin_ctzll(bits) + 2]++;
				bits &= bits - 1;
			}
		}
	for (j = 0; j < nr; j++)
		st[j + 2] += st[j + 1];
	if (total > ix->cap) {
		size_t *l = cp_reallocarray(*list, 2 * total + 1, sizeof *l);

		if (!l)
			return CP_ENOMEM;
		*list = l;
		ix->cap = 2 * total;
	}
	/* st[j+1] is the fill point of list j while filling */
	for (c = 0; c < nf; c++) {
		size_t f = fac ? fac[c] : c;

		for (w = 0; w < words; w++) {
			uint64_t bits = inc[f * words + w] & (mask ? mask[w] : ~(uint64_t)0);

			while (bits) {
				j = w * 64 + (size_t)__builtin_ctzll(bits);
				(*list)[st[j + 1]++] = f;
				bits &= bits - 1;
			}
		}
	}
	ix->on = 1;
	dd_work(x, total);
	return 0;
}

/* g holds every ray of C. */
static int holds(const uint64_t *C, const uint64_t *g, size_t words)
{
	size_t w;

	for (w = 0; w < words; w++)
		if (C[w] & ~g[w])
			return 0;
	return 1;
}

/* No facet of cur other than p and n holds every ray of C. */
static int no_third_facet(struct dd *x, const uint64_t *C, size_t p, size_t n)
{
	size_t words = x->words, g, last = x->last_refuter, w, e, best = SIZE_MAX;
	size_t blen = SIZE_MAX;
	const uint64_t *inc = x->cur.inc;

	/* the facet that refuted the last pair often refutes this one */
	if (last < x->cur.n && last != p && last != n &&
	    holds(C, inc + last * words, words))
		return 0;
	if (x->cur.n < 256) {
		/* few facets: a plain scan beats indexing the rays */
		for (g = 0; g < x->cur.n; g++)
			if (g != p && g != n && holds(C, inc + g * words, words)) {
				x->last_refuter = g;
				dd_work(x, g);
				return 0;
			}
		dd_work(x, x->cur.n);
		return 1;
	}
	/* a third facet holds every ray of C, the one on fewest facets too */
	if (!x->icur.on && index_rays(x, NULL, x->cur.n, NULL, &x->icur))
		return -1;
	for (w = 0; w < words; w++) {
		uint64_t bits = C[w];

		while (bits) {
			size_t j = w * 64 + (size_t)__builtin_ctzll(bits), len;

			bits &= bits - 1;
			len = x->icur.start[j + 1] - x->icur.start[j];
			if (len < blen) {
				blen = len;
				best = j;
			}
		}
	}
	dd_work(x, words + blen);
	for (e = x->icur.start[best]; e < x->icur.start[best + 1]; e++) {
		g = x->icur.list[e];
		if (g == p || g == n || g == last)
			continue;
		if (holds(C, inc + g * words, words)) {
			x->last_refuter = g;
			return 0;
		}
	}
	return 1;
}

static size_t popcount_and(const uint64_t *a, const uint64_t *b, size_t words)
{
	size_t c = 0, w;

	for (w = 0; w < words; w++)
		c += pop64(a[w] & b[w]);
	return c;
}

static size_t popcount_words(const uint64_t *v, size_t words)
{
	size_t c = 0, w;

	for (w = 0; w < words; w++)
		c += pop64(v[w]);
	return c;
}

/* ==== insertion order ==== */

/* Insertion order: lexicographic on the projected rays (cdd's "lexmin").
 * Tried: sparsest rays first (then lexicographic) halves the candidate
 * pairs on random sparse sets, but on mmu.udd with prefetch,
 * prefetch_dtlb_miss, prefetch_stores, bypass, replay (1,803 signatures,
 * 268 facets) it made intermediate cones of 4,000 facets and 250 million
 * pairs (more than 60 s) where lexmin needs 654 and 5 million (1.3 s);
 * ascending 1-norm was no better than lexmin. */
static int cmp_order(const void *pa, const void *pb, void *ctx)
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

/* ==== one ray ==== */

#define DD_OVERFLOW 3 /* int64 would overflow: go big and insert again */
#define CONE_LATE 4   /* the time limit passed */

/* The new facet of adjacent p (positive) and n (negative), through the
 * rays common and r: b = s_p b_n - s_n b_p.  0, DD_OVERFLOW or CP_ENOMEM. */
static int emit(struct dd *x, size_t p, size_t n, const uint64_t *common,
		size_t r)
{
	struct dd_facets *cur = &x->cur, *next = &x->next;
	size_t d = x->d, words = x->words;

	if (dd_reserve(x, next, next->n + 1))
		return CP_ENOMEM;
	if (x->big)
		combine_z(x, x->zs[p], cur->z + n * d, x->zs[n], cur->z + p * d,
			  next->z + next->n * d);
	else if (combine(x->s[p], cur->b + n * d, x->s[n], cur->b + p * d,
			 next->b + next->n * d, d) &&
		 combine_wide(x->s[p], cur->b + n * d, x->s[n], cur->b + p * d,
			      next->b + next->n * d, d, x->wide))
		return DD_OVERFLOW;
	memcpy(next->inc + next->n * words, common, words * sizeof *common);
	next->inc[next->n * words + r / 64] |= (uint64_t)1 << (r % 64);
	next->tag[next->n].id = ++x->ids;
	next->tag[next->n].mother = cur->tag[p].id;
	next->tag[next->n].born = x->step;
	next->n++;
	return 0;
}

/* Some ray is in all of a, b and c. */
static int holds_any3(const uint64_t *a, const uint64_t *b,
		      const uint64_t *c, size_t words)
{
	size_t w;

	for (w = 0; w < words; w++)
		if (a[w] & b[w] & c[w])
			return 1;
	return 0;
}

/* Does a ray of a and b come from step t or later?  The block's bitset
 * from the next multiple of SINCE_BLOCK on, then the few steps before. */
static int holds_since(const struct dd *x, const uint64_t *a, const uint64_t *b,
		       size_t t)
{
	size_t bl = (t + SINCE_BLOCK - 1) / SINCE_BLOCK, s, r;

	if (holds_any3(a, b, x->since + bl * x->words, x->words))
		return 1;
	for (s = t; s < bl * SINCE_BLOCK && s <= x->step; s++) {
		r = x->rayat[s];
		if ((a[r / 64] & b[r / 64]) >> (r % 64) & 1)
			return 1;
	}
	return 0;
}

/* Test the pair (p positive, n negative) and emit its facet when they are
 * adjacent.  Before an exact test, Normaliz's two rules from the facets'
 * history: a facet born from mother M (the positive facet of its pair) is
 * born on their common ridge, which stays a ridge while both live; and at
 * its birth a facet's only neighbours are its mother and facets through
 * the ray of that step, so an older facet can become its neighbour only
 * through a ray both hold that came at that step or later.  cnt: the
 * rays p and n share (at least d-2, counted by the caller's scan).  0,
 * DD_OVERFLOW, CONE_LATE or CP_ENOMEM. */
static int try_pair(struct dd *x, size_t p, size_t n, size_t r, size_t cnt)
{
	size_t d = x->d, words = x->words, need = d - 2, w;
	const struct dd_tag *tp = x->cur.tag + p, *tn = x->cur.tag + n;
	const uint64_t *relp = x->relp, *in = x->cur.inc + n * words;
	int adjacent;

	x->b->st->adjacency_tests++;
	/* adjacent by a rule that needs no rays: d-2 rays of an independent
	 * set, or born on their common ridge, which stays one */
	adjacent = x->simp[p] || x->simp[n] || tp->id == tn->mother ||
		   tn->id == tp->mother;
	if (!adjacent && !holds_since(x, relp, in, tp->born > tn->born ?
				      tp->born : tn->born))
		return 0; /* nothing new on both since the younger was born */
	for (w = 0; w < words; w++)
		x->common[w] = relp[w] & in[w];
	if (!adjacent) {
		adjacent = -1;
		if (x->cur.n > d * d * cnt / 3) {
			if (x->kern_p != p) {
				int k = kern_build(x);

				if (k == -2)
					return CP_ENOMEM;
				x->kern_p = p;
				x->kern_ok = !k;
			}
			adjacent = x->kern_ok ? kern_test(x, n) : -1;
			if (adjacent < 0)
				adjacent = rank_at_least(x, x->common, need);
			x->b->st->rank_tests += adjacent >= 0;
		}
		if (adjacent < 0)
			adjacent = no_third_facet(x, x->common, p, n);
		if (adjacent < 0)
			return CP_ENOMEM;
	}
	return adjacent ? emit(x, p, n, x->common, r) : 0;
}

/* Rays shared by a and b (words of each); hw: with the CPU's popcount
 * instruction (only in functions compiled for it, see pairs_scan). */
static inline __attribute__((always_inline)) size_t shared(const uint64_t *a,
		const uint64_t *b, size_t words, int hw)
{
	size_t c = 0, w;

	for (w = 0; w < words; w++)
		c += hw ? (size_t)__builtin_popcountll(a[w] & b[w]) : pop64(a[w] & b[w]);
	return c;
}

/* ==== candidate pairs by joined ridges ====
 * An adjacent pair shares d-2 rays (of Z, the rays on both sides) that
 * span their common ridge.  A facet whose k shareable rays are few beyond
 * d-2 (a simplicial one: d-1) has few (d-2)-subsets, C(k, k-d+2).  Those
 * of the positive facets and those of the negative facets are listed by
 * fingerprint (the XOR of a random word per ray; a subset's is the set's
 * with the rays left out XORed in), both lists sorted (radix, on 32
 * bits), and merged: equal fingerprints give the candidate pairs, so a
 * pair of such facets is found without trying the others.  A match, or a
 * collision, is only a candidate: the shared rays are counted and the
 * pair tested exactly as any other.  Facets with more than DD_JOIN_MAX
 * subsets (far from simplicial; few) are paired by ray lists instead,
 * with every facet of the other side.  (Tried first: a hash table of the
 * negative side's subsets probed by the positive side: its random
 * accesses cost four times the sorting on cones of 10^5 facets.) */
#define DD_JOIN_MAX 2048
#define DD_JOIN_MAXE 16 /* most rays left out of a set */
enum { DD_JOIN, DD_MANY, DD_NONE /* fewer than d-2 rays: no pairs */ };

/* C(k, k - need), or SIZE_MAX when above DD_JOIN_MAX. */
static size_t n_subsets(size_t k, size_t need)
{
	size_t e = k - need, c = 1, i;

	if (e > DD_JOIN_MAXE)
		return SIZE_MAX;
	for (i = 1; i <= e; i++) {
		c = c * (need + i) / i; /* C(need+i, i), exactly */
		if (c > DD_JOIN_MAX)
			return SIZE_MAX;
	}
	return c;
}

/* The shareable rays of a facet (inc & zp) into x->fray; their number,
 * and their fingerprint in *all. */
static size_t facet_rays(struct dd *x, const uint64_t *inc, uint64_t *all)
{
	size_t w, k = 0;
	uint64_t h = 0;

	for (w = 0; w < x->words; w++) {
		uint64_t bits = inc[w] & x->zp[w];

		while (bits) {
			size_t j = w * 64 + (size_t)__builtin_ctzll(bits);

			bits &= bits - 1;
			x->fray[k++] = j;
			h ^= x->zob[j];
		}
	}
	*all = h;
	return k;
}

/* Facet f's (d-2)-subsets, (fingerprint << 32) | f, to out; how many.
 * Each leaves out e = k - (d-2) of the k rays, in lexicographic order;
 * acc[t] is the fingerprint with the first t left-out rays XORed in. */
static size_t facet_subsets(struct dd *x, size_t f, uint64_t *out)
{
	size_t need = x->d - 2, idx[DD_JOIN_MAXE], e, k, j, t, n = 0;
	uint64_t acc[DD_JOIN_MAXE + 1];

	k = facet_rays(x, x->cur.inc + f * x->words, &acc[0]);
	e = k - need;
	for (t = 0; t < e; t++) {
		idx[t] = t;
		acc[t + 1] = acc[t] ^ x->zob[x->fray[t]];
	}
	for (;;) {
		out[n++] = (acc[e] & ~(uint64_t)0xFFFFFFFF) | f;
		for (j = e; j > 0 && idx[j - 1] == k - e + j - 1; j--)
			;
		if (!j)
			return n;
		idx[j - 1]++;
		for (t = j; t < e; t++)
			idx[t] = idx[t - 1] + 1;
		for (t = j - 1; t < e; t++)
			acc[t + 1] = acc[t] ^ x->zob[x->fray[idx[t]]];
	}
}

#define DD_PART_BITS 11 /* radix digits: 2048 buckets */
#define DD_PARTS ((size_t)1 << DD_PART_BITS)

/* Scatter a[0..n-1] into out by the digit at bit sh (stable); x->radix
 * [0..DD_PARTS] gets each bucket's start. */
static void radix_pass(struct dd *x, const uint64_t *a, uint64_t *out,
		       size_t n, unsigned sh)
{
	size_t *cnt = x->radix, i, sum, c;

	memset(cnt, 0, (DD_PARTS + 1) * sizeof *cnt);
	for (i = 0; i < n; i++)
		cnt[(a[i] >> sh) & (DD_PARTS - 1)]++;
	for (i = 0, sum = 0; i <= DD_PARTS; i++) {
		c = i < DD_PARTS ? cnt[i] : 0;
		cnt[i] = sum;
		sum += c;
	}
	for (i = 0; i < n; i++)
		out[cnt[(a[i] >> sh) & (DD_PARTS - 1)]++] = a[i];
	/* cnt[t] is now the end of bucket t: shift to starts */
	memmove(cnt + 1, cnt, DD_PARTS * sizeof *cnt);
	cnt[0] = 0;
	dd_work(x, n / 4);
}

static int grow_u64(uint64_t **a, size_t *cap, size_t n)
{
	uint64_t *t;

	if (n <= *cap)
		return 0;
	t = cp_reallocarray(*a, 2 * n + 1, sizeof *t);
	if (!t)
		return CP_ENOMEM;
	*a = t;
	*cap = 2 * n;
	return 0;
}

/* A new candidate pair (p << 32 | n) in x->pairs. */
static int add_pair(struct dd *x, size_t *np_, uint64_t pr)
{
	if (grow_u64(&x->pairs, &x->pairs_cap, *np_ + 1))
		return CP_ENOMEM;
	x->pairs[(*np_)++] = pr;
	return 0;
}

/* The candidate pairs of the DD_JOIN facets, appended to x->pairs (p <<
 * 32 | n; a pair sharing more than d-2 rays comes once per common
 * subset), *npairs in all.  Both sides' subsets are partitioned by the top
 * bits of their fingerprints; in each part (a few hundred, in cache) the
 * negative ones go into a small hash table the positive ones probe.  0,
 * CONE_LATE or CP_ENOMEM. */
static int join_ridges(struct dd *x, size_t np, size_t nn, size_t *npairs)
{
	size_t need = x->d - 2, words = x->words, c, tp = 0, tn = 0, t, i;
	size_t *startp = x->radix + DD_PARTS + 1, big = 0, slots, mask, h;
	uint64_t *P, *N, *tab;

	for (c = 0; c < np + nn; c++) {
		size_t f = c < np ? x->pos[c] : x->neg[c - np];

		if (x->cls[f] != DD_JOIN)
			continue;
		t = n_subsets(popcount_and(x->cur.inc + f * words, x->zp, words), need);
		if (c < np)
			tp += t;
		else
			tn += t;
	}
	if (!tp || !tn)
		return 0;
	if (grow_u64(&x->ep, &x->ep_cap, tp + tn) ||
	    grow_u64(&x->etmp, &x->etmp_cap, tp + tn))
		return CP_ENOMEM;
	for (c = 0, tp = 0; c < np; c++)
		if (x->cls[x->pos[c]] == DD_JOIN)
			tp += facet_subsets(x, x->pos[c], x->ep + tp);
	for (c = 0, tn = tp; c < nn; c++)
		if (x->cls[x->neg[c]] == DD_JOIN)
			tn += facet_subsets(x, x->neg[c], x->ep + tn);
	tn -= tp;
	/* partition: positive subsets to etmp, negative ones to etmp + tp */
	P = x->etmp;
	N = x->etmp + tp;
	radix_pass(x, x->ep, P, tp, 64 - DD_PART_BITS);
	memcpy(startp, x->radix, (DD_PARTS + 1) * sizeof *startp);
	radix_pass(x, x->ep + tp, N, tn, 64 - DD_PART_BITS);
	startp[DD_PARTS] = tp;
	for (t = 0; t < DD_PARTS; t++) {
		size_t e = (t + 1 < DD_PARTS ? x->radix[t + 1] : tn) - x->radix[t];

		if (e > big)
			big = e;
	}
	for (slots = 16; slots < 2 * big; slots *= 2)
		;
	/* the table reuses ep (free now): slots <= 2 * 2 * tn + 16 */
	if (grow_u64(&x->ep, &x->ep_cap, slots))
		return CP_ENOMEM;
	tab = x->ep;
	mask = slots - 1;
	for (t = 0; t < DD_PARTS; t++) {
		size_t n0 = x->radix[t], n1 = t + 1 < DD_PARTS ? x->radix[t + 1] : tn;
		size_t p0 = startp[t], p1 = startp[t + 1];

		if (n0 == n1 || p0 == p1)
			continue;
		if (dd_work(x, n1 - n0 + p1 - p0))
			return CONE_LATE;
		for (slots = 16; slots < 2 * (n1 - n0); slots *= 2)
			;
		mask = slots - 1;
		memset(tab, 0xFF, slots * sizeof *tab);
		for (i = n0; i < n1; i++) {
			for (h = (N[i] >> 32) & mask; tab[h] != UINT64_MAX; h = (h + 1) & mask)
				;
			tab[h] = N[i];
		}
		for (i = p0; i < p1; i++)
			for (h = (P[i] >> 32) & mask; tab[h] != UINT64_MAX; h = (h + 1) & mask)
				if (tab[h] >> 32 == P[i] >> 32 &&
				    add_pair(x, npairs, P[i] << 32 | (tab[h] & 0xFFFFFFFF)))
					return CP_ENOMEM;
	}
	dd_work(x, tp + tn);
	return 0;
}

/* Candidate pairs between the DD_JOIN facets of G (ng; positive when
 * g_pos) and the nt facets of T, of the other side (those with too many
 * subsets to join), appended to x->pairs: t holds all but at most e of
 * g's k shareable rays (e = k - (d-2)).  Counted for all of T at once, a
 * bit per facet: after some of g's rays, le[i] holds the t that missed at
 * most i of them.  col (x->tcol): for each 64 facets of T, which of them
 * hold each ray.  0, CONE_LATE or CP_ENOMEM. */
static int pairs_sliced(struct dd *x, const size_t *G, size_t ng, int g_pos,
			const size_t *T, size_t nt, size_t *npairs)
{
	size_t nr = x->b->nr, need = x->d - 2, words = x->words, tw = (nt + 63) / 64;
	size_t c, i, j, w, k, e;
	uint64_t le[DD_JOIN_MAXE + 1], all, *col;

	if (!ng || !nt)
		return 0;
	if (grow_u64(&x->tcol, &x->tcol_cap, tw * nr))
		return CP_ENOMEM;
	col = x->tcol;
	memset(col, 0, tw * nr * sizeof *col);
	for (c = 0; c < nt; c++)
		for (w = 0; w < words; w++) {
			uint64_t bits = x->cur.inc[T[c] * words + w] & x->zp[w];

			while (bits) {
				j = w * 64 + (size_t)__builtin_ctzll(bits);
				bits &= bits - 1;
				col[(c / 64) * nr + j] |= (uint64_t)1 << (c % 64);
			}
		}
	for (c = 0; c < ng; c++) {
		size_t g = G[c];

		if (x->cls[g] != DD_JOIN)
			continue;
		k = facet_rays(x, x->cur.inc + g * words, &all);
		e = k - need;
		for (w = 0; w < tw; w++) {
			const uint64_t *cw = col + w * nr;
			uint64_t bits;

			for (i = 0; i <= e; i++)
				le[i] = ~(uint64_t)0;
			for (j = 0; j < k && le[e]; j++) {
				uint64_t B = cw[x->fray[j]];

				for (i = e; i > 0; i--)
					le[i] = (le[i] & B) | le[i - 1];
				le[0] &= B;
			}
			bits = le[e];
			if (w == tw - 1 && nt % 64)
				bits &= ((uint64_t)1 << (nt % 64)) - 1;
			while (bits) {
				size_t t = T[w * 64 + (size_t)__builtin_ctzll(bits)];

				bits &= bits - 1;
				if (add_pair(x, npairs, g_pos ? (uint64_t)g << 32 | t :
					     (uint64_t)t << 32 | g))
					return CP_ENOMEM;
			}
		}
		if (dd_work(x, tw * k))
			return CONE_LATE;
	}
	return 0;
}

/* Sort the npairs pairs by positive facet: radix on bits 32..63. */
static int sort_pairs(struct dd *x, size_t npairs)
{
	if (!npairs)
		return 0;
	if (grow_u64(&x->etmp, &x->etmp_cap, npairs))
		return CP_ENOMEM;
	radix_pass(x, x->pairs, x->etmp, npairs, 32);
	radix_pass(x, x->etmp, x->pairs, npairs, 32 + DD_PART_BITS);
	radix_pass(x, x->pairs, x->etmp, npairs, 32 + 2 * DD_PART_BITS);
	memcpy(x->pairs, x->etmp, npairs * sizeof *x->pairs);
	return 0;
}

/* The candidates of positive facet p: the nlist facets of list, or (list
 * NULL) those in the nsel ray lists x->sel of index ix; try_pair for each
 * one sharing d-2 rays with p.  Most candidates fail that count, so it is
 * done here, inline (the loop is most of the time on big cones). */
static inline __attribute__((always_inline)) int pairs_body(struct dd *x,
		size_t p, size_t r, const size_t *list, size_t nlist,
		const struct dd_index *ix, size_t nsel, int hw)
{
	size_t words = x->words, need = x->d - 2, c, i, k;
	const uint64_t *inc = x->cur.inc, *relp = x->relp;
	int rc;

	if (list) {
		if (dd_work(x, nlist))
			return CONE_LATE;
		for (c = 0; c < nlist; c++)
			if ((k = shared(relp, inc + list[c] * words, words, hw)) >= need &&
			    (rc = try_pair(x, p, list[c], r, k)))
				return rc;
		return 0;
	}
	x->stamp_now++;
	for (i = 0; i < nsel; i++) {
		size_t j = x->sel[i], e;

		if (dd_work(x, ix->start[j + 1] - ix->start[j]))
			return CONE_LATE;
		for (e = ix->start[j]; e < ix->start[j + 1]; e++) {
			size_t n = ix->list[e];

			if (x->stamp[n] == x->stamp_now)
				continue;
			x->stamp[n] = x->stamp_now;
			if ((k = shared(relp, inc + n * words, words, hw)) >= need &&
			    (rc = try_pair(x, p, n, r, k)))
				return rc;
		}
	}
	return 0;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* The same loop with the popcount instruction (the build targets plain
 * x86-64, where __builtin_popcountll is a library call); chosen at run
 * time when the CPU has it. */
__attribute__((target("popcnt"))) static int pairs_scan_hw(struct dd *x,
		size_t p, size_t r, const size_t *list, size_t nlist,
		const struct dd_index *ix, size_t nsel)
{
	return pairs_body(x, p, r, list, nlist, ix, nsel, 1);
}
#define DD_HAVE_HW_POPCOUNT 1
#endif

static int pairs_scan(struct dd *x, size_t p, size_t r, const size_t *list,
		      size_t nlist, const struct dd_index *ix, size_t nsel)
{
#ifdef DD_HAVE_HW_POPCOUNT
	if (x->hw_popcount)
		return pairs_scan_hw(x, p, r, list, nlist, ix, nsel);
#endif
	return pairs_body(x, p, r, list, nlist, ix, nsel, 0);
}

/* The pairs of positive facet p with the nlist negative facets of list,
 * whose ray lists are ix (when ix->on): a negative facet n sharing d-2 of
 * p's rcount rays misses at most q = rcount - (d-2) of them, so it holds
 * one of any q+1 of them: the union of the q+1 shortest ray lists covers
 * every candidate.  Used when that union is shorter than the list.
 * (Tried: q+2 or q+3 lists, testing only the facets in 2 or 3 of them:
 * counting the longer lists cost what the tests saved.) */
static int pairs_of(struct dd *x, size_t p, size_t r, size_t q,
		    const size_t *list, size_t nlist, const struct dd_index *ix)
{
	size_t words = x->words, w, i, nsel = 0, est = SIZE_MAX, s = q + 1;
	const size_t *st = ix->start;

	if (!ix->on)
		goto all;
	est = 0;
	/* the s rays of relp with the shortest lists (insertion into a
	 * sorted prefix of at most s) */
	for (w = 0; w < words; w++) {
		uint64_t bits = x->relp[w];

		while (bits) {
			size_t j = w * 64 + (size_t)__builtin_ctzll(bits);
			size_t len = st[j + 1] - st[j];

			bits &= bits - 1;
			if (nsel == s && len >= st[x->sel[s - 1] + 1] - st[x->sel[s - 1]])
				continue;
			i = nsel < s ? nsel++ : s - 1;
			while (i > 0 && st[x->sel[i - 1] + 1] - st[x->sel[i - 1]] > len) {
				x->sel[i] = x->sel[i - 1];
				i--;
			}
			x->sel[i] = j;
		}
	}
	for (i = 0; i < nsel; i++)
		est += st[x->sel[i] + 1] - st[x->sel[i]];
all:
	x->b->st->candidates += est < nlist ? est : nlist;
	if (est >= nlist)
		return pairs_scan(x, p, r, list, nlist, ix, 0);
	return pairs_scan(x, p, r, NULL, 0, ix, nsel);
}

/* Facet g of from to slot f of to (mpz values swapped in GMP mode). */
static void move_facet(struct dd *x, struct dd_facets *to, size_t f,
		       struct dd_facets *from, size_t g)
{
	size_t d = x->d, words = x->words, i;

	if (x->big)
		for (i = 0; i < d; i++)
			mpz_swap(to->z[f * d + i], from->z[g * d + i]);
	else
		memcpy(to->b + f * d, from->b + g * d, d * sizeof *to->b);
	memcpy(to->inc + f * words, from->inc + g * words, words * sizeof *to->inc);
	to->tag[f] = from->tag[g];
}

/* The new facets (x->next) take the slots of the nn negative facets
 * (x->neg, ascending) of x->cur; the rest are appended, or the slots left
 * over are filled from the end: only those facets move.  0 or
 * CP_ENOMEM. */
static int replace(struct dd *x, size_t nn)
{
	struct dd_facets *cur = &x->cur, *next = &x->next;
	size_t h = 0, k = 0, end = cur->n;

	for (; h < nn && k < next->n; h++, k++)
		move_facet(x, cur, x->neg[h], next, k);
	if (k < next->n) {
		if (dd_reserve(x, cur, cur->n + next->n - k))
			return CP_ENOMEM;
		for (; k < next->n; k++)
			move_facet(x, cur, end++, next, k);
	}
	for (; h < nn; h++) {
		size_t hole = x->neg[h];

		/* facets at the end that are negative themselves just go */
		while (end > hole && (x->big ? mpz_sgn(x->zs[end - 1]) < 0 :
				      x->s[end - 1] < 0))
			end--;
		if (end <= hole)
			break;
		move_facet(x, cur, hole, cur, --end);
	}
	cur->n = end;
	dd_work(x, nn + next->n);
	return 0;
}

/* Insert ray r into x->cur (result in x->cur).  0, DD_OVERFLOW, or a CP_E*
 * code. */
static int insert_ray(struct dd *x, size_t r, struct cp_error *err)
{
	struct cone_build *b = x->b;
	size_t d = x->d, words = x->words, f, i, w, np = 0, nn = 0, a, c;
	const int64_t *y = b->Y + r * d;
	struct dd_facets *cur = &x->cur, *next = &x->next;
	size_t need = d - 2, ncur = cur->n, nx = 0, px = 0, npairs;
	int big = x->big, rc;

	x->icur.on = x->inegx.on = 0;
	x->kern_p = SIZE_MAX;
	/* values on the new ray */
	if (ncur > x->s_cap) {
		size_t cap = x->s_cap ? x->s_cap : 64;
		__int128 *s;
		size_t *pn;

		while (cap < ncur)
			cap *= 2;
		s = cp_reallocarray(x->s, cap, sizeof *s);
		if (!s)
			goto nomem;
		x->s = s;
		if (!(pn = cp_reallocarray(x->pos, cap, sizeof *pn)))
			goto nomem;
		x->pos = pn;
		if (!(pn = cp_reallocarray(x->neg, cap, sizeof *pn)))
			goto nomem;
		x->neg = pn;
		if (!(pn = cp_reallocarray(x->negx, cap, sizeof *pn)))
			goto nomem;
		x->negx = pn;
		if (!(pn = cp_reallocarray(x->posx, cap, sizeof *pn)))
			goto nomem;
		x->posx = pn;
		{
			unsigned char *sp = cp_reallocarray(x->simp, cap, 1);
			uint64_t *st;

			if (!sp)
				goto nomem;
			x->simp = sp;
			if (!(sp = cp_reallocarray(x->cls, cap, 1)))
				goto nomem;
			x->cls = sp;
			st = cp_reallocarray(x->stamp, cap, sizeof *st);
			if (!st)
				goto nomem;
			/* new slots must not look seen */
			memset(st + x->s_cap, 0, (cap - x->s_cap) * sizeof *st);
			x->stamp = st;
		}
		x->s_cap = cap;
	}
	if (big && ncur > x->zs_n) {
		mpz_t *zs = cp_reallocarray(x->zs, x->s_cap, sizeof *zs);

		if (!zs)
			goto nomem;
		for (i = x->zs_n; i < x->s_cap; i++)
			mpz_init(zs[i]);
		x->zs = zs;
		x->zs_n = x->s_cap;
	}
	memset(x->zp, 0, words * sizeof *x->zp);
	memset(x->zn, 0, words * sizeof *x->zn);
	if (dd_work(x, ncur))
		return cone_time_error(b, err);
	for (f = 0; f < ncur; f++) {
		int sg;

		if (big) {
			cone_dot_z(x->zs[f], cur->z + f * d, y, d);
			sg = mpz_sgn(x->zs[f]);
		} else {
			x->s[f] = dot(cur->b + f * d, y, d);
			sg = x->s[f] > 0 ? 1 : x->s[f] < 0 ? -1 : 0;
		}
		if (sg > 0) {
			x->pos[np++] = f;
			for (w = 0; w < words; w++)
				x->zp[w] |= cur->inc[f * words + w];
		} else if (sg < 0) {
			x->neg[nn++] = f;
			for (w = 0; w < words; w++)
				x->zn[w] |= cur->inc[f * words + w];
		}
	}
	/* a ray inside the current cone changes nothing: it is left out, so
	 * facets hold only the rays that made them and stay simplicial where
	 * they can */
	if (!nn)
		return 0;
	for (f = 0; f < ncur; f++)
		if (big ? !mpz_sgn(x->zs[f]) : !x->s[f])
			cur->inc[f * words + r / 64] |= (uint64_t)1 << (r % 64);
	b->st->inserted++;
	/* only rays on some positive and some negative facet can be shared */
	for (w = 0; w < words; w++)
		x->zp[w] &= x->zn[w];
	/* the new facets go to next, then into cur in place of the negative
	 * ones (replace) */
	next->n = 0;
	/* simplicial facets: d-1 independent rays, so any d-2 of them span a
	 * ridge, and sharing d-2 rays with such a facet is adjacency */
	for (c = 0; c < np; c++)
		x->simp[x->pos[c]] = popcount_words(cur->inc + x->pos[c] * words,
						     words) == d - 1;
	for (c = 0; c < nn; c++)
		x->simp[x->neg[c]] = popcount_words(cur->inc + x->neg[c] * words,
						     words) == d - 1;
	/* the pairs: for each positive facet, the negative ones sharing at
	 * least d-2 of its rays.  Facets with few (d-2)-subsets of their
	 * shareable rays meet by the ridge join; each of them meets the
	 * others (DD_MANY) by counting on bit columns; these meet each other
	 * through ray lists (when a few short lists cover every candidate;
	 * indexing costs a pass over the incidences, worth it only when
	 * there are many pairs).  Facet indices in a pair have 32 bits: past
	 * that every facet takes the lists. */
	for (c = 0; c < np + nn; c++) {
		size_t g = c < np ? x->pos[c] : x->neg[c - np];
		size_t k = popcount_and(cur->inc + g * words, x->zp, words);

		x->cls[g] = k < need ? DD_NONE : ncur > 0xFFFFFFFF ||
			    n_subsets(k, need) == SIZE_MAX ||
			    (b->dd_mixed && g % 2) ? DD_MANY : DD_JOIN;
		if (x->cls[g] == DD_MANY) {
			if (c < np)
				x->posx[px++] = g;
			else
				x->negx[nx++] = g;
		}
	}
	npairs = 0;
	if ((rc = join_ridges(x, np, nn, &npairs)) ||
	    (rc = pairs_sliced(x, x->pos, np, 1, x->negx, nx, &npairs)) ||
	    (rc = pairs_sliced(x, x->neg, nn, 0, x->posx, px, &npairs)) ||
	    (rc = sort_pairs(x, npairs)))
		goto fail;
	if (px && nx >= 64 && px * nx >= 16384 &&
	    (rc = index_rays(x, x->negx, nx, x->zp, &x->inegx)))
		goto fail;
	for (a = 0, c = 0; a < np; a++) {
		size_t p = x->pos[a], rcount, cnt;

		if (x->cls[p] == DD_NONE)
			continue;
		for (w = 0; w < words; w++)
			x->relp[w] = cur->inc[p * words + w] & x->zp[w];
		if (dd_work(x, 1))
			return cone_time_error(b, err);
		rcount = popcount_words(x->relp, words);
		/* p's pairs found so far (x->pairs is sorted, pos ascending) */
		for (; c < npairs && x->pairs[c] >> 32 < p; c++)
			;
		x->stamp_now++;
		for (; c < npairs && x->pairs[c] >> 32 == p; c++) {
			size_t n = (size_t)(x->pairs[c] & 0xFFFFFFFF);

			if (x->stamp[n] == x->stamp_now)
				continue;
			x->stamp[n] = x->stamp_now;
			b->st->candidates++;
			cnt = popcount_and(x->relp, cur->inc + n * words, words);
			if (cnt >= need && (rc = try_pair(x, p, n, r, cnt)))
				goto fail;
		}
		/* and the facets with many subsets, both sides */
		if (x->cls[p] == DD_MANY && nx &&
		    (rc = pairs_of(x, p, r, rcount - need, x->negx, nx, &x->inegx)))
			goto fail;
	}
	if ((rc = replace(x, nn)))
		goto fail;
	if (cur->n > b->st->max_partial)
		b->st->max_partial = cur->n;
	return 0;
fail:
	if (rc == CONE_LATE)
		return cone_time_error(b, err);
	if (rc != CP_ENOMEM)
		return rc;
nomem:
	return cp_error_set(err, CP_ENOMEM, "out of memory while building the cone");
}

/* ==== the whole method ==== */

/* The simplicial cone of the first d independent rays in order; marks
 * them used. */
static int initial_simplex(struct dd *x, const int *order, unsigned char *used,
			   struct cp_error *err)
{
	struct cone_build *b = x->b;
	size_t d = x->d, words = x->words, i, j, nchosen = 0;
	int *chosen = cp_malloc((d + 1) * sizeof *chosen);
	int *others = cp_malloc((d + 1) * sizeof *others);
	int rc = 0;

	if (!chosen || !others || dd_reserve(x, &x->cur, d)) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory while building the cone");
		goto out;
	}
	cone_ech_reset(&b->ech_d);
	for (i = 0; i < b->nr && nchosen < d; i++) {
		size_t r = (size_t)order[i];

		rc = cone_ech_add(&b->ech_d, b->Y + r * d);
		if (rc < 0) {
			rc = cp_error_set(err, CP_ENOMEM, "out of memory while building the cone");
			goto out;
		}
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
		int64_t *bv = x->cur.b + i * d;
		uint64_t *inc = x->cur.inc + i * words;
		size_t n = 0;

		for (j = 0; j < d; j++)
			if (j != i)
				others[n++] = chosen[j];
		rc = cone_normal_of_rays(b, others, d - 1, bv, err);
		if (rc < 0)
			goto out;
		if (rc == CONE_REJECT) {
			rc = cp_error_set(err, CP_EINTERNAL, "double description: "
					  "initial facet of rank below %zu", d - 1);
			goto out;
		}
		if (rc == CONE_BIG && !x->big) {
			x->cur.n = i;
			if (dd_go_big(x)) {
				rc = cp_error_set(err, CP_ENOMEM, "out of memory while building the cone");
				goto out;
			}
		}
		if (x->big) {
			mpz_t *z = x->cur.z + i * d;

			for (j = 0; j < d; j++) {
				if (rc == CONE_BIG)
					mpz_set(z[j], b->zd[j]);
				else
					mpz_set_si(z[j], (long)bv[j]);
			}
			cone_dot_z(x->t1, z, b->Y + (size_t)chosen[i] * d, d);
			if (mpz_sgn(x->t1) < 0)
				for (j = 0; j < d; j++)
					mpz_neg(z[j], z[j]);
		} else if (dot(bv, b->Y + (size_t)chosen[i] * d, d) < 0) {
			for (j = 0; j < d; j++)
				bv[j] = -bv[j];
		}
		rc = 0;
		memset(inc, 0, words * sizeof *inc);
		for (j = 0; j < d; j++)
			if (j != i)
				inc[chosen[j] / 64] |= (uint64_t)1 << (chosen[j] % 64);
		x->cur.tag[i].id = ++x->ids;
		x->cur.tag[i].mother = 0;
		x->cur.tag[i].born = 0;
	}
	for (j = 0; j < d; j++)
		x->since[chosen[j] / 64] |= (uint64_t)1 << (chosen[j] % 64);
	x->cur.n = d;
out:
	cp_free(chosen);
	cp_free(others);
	return rc;
}

/* Hand the final facets to the build (exact by construction).  Their
 * incidences hold the rays inserted; a ray left out (inside the cone at
 * its turn) is not extreme and is on no facet there (the facets through
 * a signature are counted from the normals when asked). */
static int hand_over(struct dd *x, struct cp_error *err)
{
	struct cone_build *b = x->b;
	size_t d = x->d, words = x->words, f, i;
	int64_t *bv;
	int rc = 0;

	if (x->cur.n > b->max_facets)
		return cone_facet_limit_error(b, x->cur.n, err);
	if (!x->big) {
		/* int64 facets: the build takes the arrays over */
		rc = cone_adopt_facets(b, x->cur.b, x->cur.inc, x->cur.n, err);
		if (!rc)
			x->cur.b = NULL, x->cur.inc = NULL;
		return rc;
	}
	if (!(bv = cp_malloc((d + 1) * sizeof *bv)))
		return cp_error_set(err, CP_ENOMEM, "out of memory while building the cone");
	for (f = 0; f < x->cur.n && !rc; f++) {
		for (i = 0; i < d && !cone_mpz_to_i64(x->cur.z[f * d + i], &bv[i]); i++)
			;
		rc = cone_keep_facet(b, i == d ? bv : NULL, x->cur.z + f * d,
				     x->cur.inc + f * words, err);
	}
	cp_free(bv);
	return rc;
}

int cone_facets_dd(struct cone_build *b, struct cp_error *err)
{
	size_t d = b->d, words = b->words, r, oi, i, cap;
	struct dd x;
	int *order = NULL;
	unsigned char *used = NULL;
	int rc = 0;

	memset(&x, 0, sizeof x);
	x.b = b;
	x.d = d;
	x.words = words;
	mpz_init(x.t1);
	mpz_init(x.t2);
	mpz_init(x.g);
	b->st->method = "double description";
	/* an intermediate cone may have more facets than the final one; past
	 * this it is not worth going on (the final count is not known) */
	cap = b->max_facets > SIZE_MAX / 4 ? SIZE_MAX : 4 * b->max_facets;
	used = cp_calloc(b->nr + 1, 1);
	order = cp_malloc((b->nr + 1) * sizeof *order);
	x.zp = cp_malloc((words + 1) * sizeof *x.zp);
	x.zn = cp_malloc((words + 1) * sizeof *x.zn);
	x.relp = cp_malloc((words + 1) * sizeof *x.relp);
	x.common = cp_malloc((words + 1) * sizeof *x.common);
	x.rk = cp_malloc((b->nr * d + 1) * sizeof *x.rk);
	x.wide = cp_malloc((d + 1) * sizeof *x.wide);
	x.sel = cp_malloc((b->nr + 1) * sizeof *x.sel);
	x.kray = cp_malloc((b->nr + 1) * sizeof *x.kray);
	x.kidx = cp_malloc((b->nr + 1) * sizeof *x.kidx);
	x.kperm = cp_malloc((b->nr + 1) * sizeof *x.kperm);
	x.kbas = cp_malloc((words + 1) * sizeof *x.kbas);
	x.knon = cp_malloc((words + 1) * sizeof *x.knon);
	x.since = cp_calloc((b->nr / SINCE_BLOCK + 2) * words + 1, sizeof *x.since);
	x.rayat = cp_calloc(b->nr + 2, sizeof *x.rayat);
	x.zob = cp_malloc((b->nr + 1) * sizeof *x.zob);
	x.fray = cp_malloc((b->nr + 1) * sizeof *x.fray);
	x.radix = cp_malloc(2 * (DD_PARTS + 1) * sizeof *x.radix);
	if (!used || !order || !x.zp || !x.zn || !x.relp || !x.common || !x.rk || !x.wide ||
	    !x.sel || !x.since || !x.rayat || !x.kray || !x.kidx ||
	    !x.kperm || !x.kbas || !x.knon || !x.zob || !x.fray ||
	    !x.radix) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory while building the cone");
		goto out;
	}
	for (r = 0; r < b->nr; r++) {
		/* splitmix64: a fixed, well-mixed word per ray */
		uint64_t z = (r + 1) * 0x9E3779B97F4A7C15ULL;

		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
		z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
		x.zob[r] = z ^ (z >> 31);
		order[r] = (int)r;
	}
	qsort_r(order, b->nr, sizeof *order, cmp_order, b);
	if ((rc = initial_simplex(&x, order, used, err)))
		goto out;
	b->st->max_partial = d;
#ifdef DD_HAVE_HW_POPCOUNT
	x.hw_popcount = __builtin_cpu_supports("popcnt");
#endif
	for (oi = 0; oi < b->nr; oi++) {
		size_t t;

		r = (size_t)order[oi];
		if (used[r])
			continue;
		x.step++;
		x.rayat[x.step] = r;
		for (t = 0; t <= x.step / SINCE_BLOCK; t++)
			x.since[t * words + r / 64] |= (uint64_t)1 << (r % 64);
		rc = insert_ray(&x, r, err);
		if (rc == DD_OVERFLOW) {
			if (dd_go_big(&x)) {
				rc = cp_error_set(err, CP_ENOMEM, "out of memory while building the cone");
				goto out;
			}
			b->st->inserted--;
			rc = insert_ray(&x, r, err);
		}
		if (rc)
			goto out;
		if (x.cur.n > cap) {
			rc = cp_error_set(err, CP_ELIMIT, "double description stopped: "
				"after %zu of %zu rays its partial cone has %zu facets, "
				"more than 4 x --max-facets (%zu); the cone's own facets "
				"were not counted", oi + 1, b->nr, x.cur.n, b->max_facets);
			goto out;
		}
		if (cone_time_over(b)) {
			rc = cone_time_error(b, err);
			goto out;
		}
	}
	rc = hand_over(&x, err);
out:
	dd_facets_release(&x.cur, d);
	dd_facets_release(&x.next, d);
	cp_free(x.s);
	for (i = 0; i < x.zs_n; i++)
		mpz_clear(x.zs[i]);
	cp_free(x.zs);
	cp_free(x.pos);
	cp_free(x.neg);
	cp_free(x.zp);
	cp_free(x.zn);
	cp_free(x.relp);
	cp_free(x.common);
	cp_free(x.rk);
	cp_free(x.wide);
	cp_free(x.simp);
	cp_free(x.negx);
	cp_free(x.posx);
	cp_free(x.tcol);
	cp_free(x.cls);
	cp_free(x.ep);
	cp_free(x.etmp);
	cp_free(x.pairs);
	cp_free(x.radix);
	cp_free(x.zob);
	cp_free(x.fray);
	cp_free(x.inegx.start);
	cp_free(x.inegx.list);
	cp_free(x.icur.start);
	cp_free(x.icur.list);
	cp_free(x.sel);
	cp_free(x.kray);
	cp_free(x.kidx);
	cp_free(x.kperm);
	cp_free(x.kbas);
	cp_free(x.knon);
	cp_free(x.kt);
	cp_free(x.ktmp);
	cp_free(x.since);
	cp_free(x.rayat);
	cp_free(x.stamp);
	cp_free(order);
	cp_free(used);
	mpz_clear(x.t1);
	mpz_clear(x.t2);
	mpz_clear(x.g);
	return rc;
}
