/* SPDX-License-Identifier: GPL-3.0-or-later */
/* geometry/cone_qhull.c: Qhull proposes the facets of a full-dimensional
 * cone in R^d (d >= 3); exact arithmetic decides (cone.c).
 *
 * Qhull runs on the slice polytope: each ray y scaled onto the hyperplane
 * 1.y = 1 (the rays are non-negative and non-zero, so 1.y > 0), with the
 * last coordinate dropped, which maps that hyperplane affinely onto
 * R^(d-1).  Facets of the polytope are facets of the cone.  No joggle
 * ('QJ' would destroy the exact coplanarity we rely on); Qhull's default
 * merging groups coplanar simplices, and each facet's vertex set is what we
 * take: its exact normal is computed from the signatures themselves.
 *
 * Qhull reports errors by longjmp to qh->errexit and text on its errfile,
 * which here is a memory stream we own.  The hull is built point by point
 * (qh_initbuild, then qh_addpoint as qh_buildhull does) so that the facet
 * limit and the time limit can stop it between points.  Every path frees
 * with qh_freeqhull + qh_memfreeshort. */
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libqhull_r/qhull_ra.h>

#include "geometry/cone.h"
#include "geometry/cone_int.h"

/* Qhull's proposals: the vertex (ray) indices of each facet, flat. */
struct proposals {
	size_t n, cap, nv, capv;
	size_t *off;    /* n+1 */
	uint64_t *key;  /* n: Qhull's float hyperplane, rounded and hashed */
	int *vid;
	int oom;
	int stopped;    /* 1 facet limit, 2 time limit */
};

static void push_vertex(struct proposals *p, int id)
{
	if (p->oom)
		return;
	if (p->nv == p->capv) {
		size_t cap = p->capv ? 2 * p->capv : 1024;
		int *v = cp_reallocarray(p->vid, cap, sizeof *v);

		if (!v) {
			p->oom = 1;
			return;
		}
		p->vid = v;
		p->capv = cap;
	}
	p->vid[p->nv++] = id;
}

static void end_facet(struct proposals *p, uint64_t key)
{
	if (p->oom)
		return;
	if (p->n + 2 > p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 256;
		size_t *o = cp_reallocarray(p->off, cap, sizeof *o);
		uint64_t *k;

		if (!o) {
			p->oom = 1;
			return;
		}
		if (!p->off)
			o[0] = 0;
		p->off = o;
		k = cp_reallocarray(p->key, cap, sizeof *k);
		if (!k) {
			p->oom = 1;
			return;
		}
		p->key = k;
		p->cap = cap;
	}
	p->key[p->n] = key;
	p->n++;
	p->off[p->n] = p->nv;
}

/* Simplices of one exact facet have the same hyperplane up to roundoff:
 * a hash of the rounded normal and offset finds the facet already derived
 * (a miss only costs one more exact derivation). */
static uint64_t plane_key(const facetT *facet, int dim)
{
	uint64_t h = 1469598103934665603ULL;
	int i;

	for (i = 0; i <= dim; i++) {
		double x = i < dim ? facet->normal[i] : facet->offset;
		long long q = llround(x * 1e7);

		h ^= (uint64_t)q;
		h *= 1099511628211ULL;
		h ^= h >> 31;
	}
	return h;
}

/* Build the hull.  Returns Qhull's exit code (0 = built).  Nothing that
 * changes after setjmp is read after a longjmp. */
static int run_qhull(qhT *qh, char *cmd, int dim, int np, coordT *pts,
		     struct cone_build *b, struct proposals *pr)
{
	facetT *facet;
	pointT *furthest;
	int code;

	code = setjmp(qh->errexit);
	if (code)
		return code;
	qh->NOerrexit = False;
	qh_initflags(qh, cmd);
	qh_init_B(qh, pts, np, dim, False);
	qh->hulltime = qh_CPUclock;
	qh_initbuild(qh);
	qh->facet_next = qh->facet_list;
	while ((furthest = qh_nextfurthest(qh, &facet))) {
		qh->num_outside--;
		if (!qh_addpoint(qh, furthest, facet, qh->ONLYmax))
			break;
		/* Qhull's facets are simplices, not yet the cone's facets
		 * (one facet may be split into many): stop only far past the
		 * limit, saying so; the exact count decides otherwise */
		if ((size_t)qh->num_facets > 8 * b->max_facets + 1000) {
			pr->stopped = 1;
			break;
		}
		if (cone_time_over(b)) {
			pr->stopped = 2;
			break;
		}
	}
	qh->NOerrexit = True;
	return 0;
}

static void collect(qhT *qh, struct proposals *pr, unsigned char *is_vertex)
{
	facetT *facet;
	vertexT *vertex, **vertexp;

	FORALLfacets {
		if (facet->visible || !facet->normal)
			continue;
		FOREACHvertex_(facet->vertices) {
			int id = qh_pointid(qh, vertex->point);

			if (id >= 0) {
				push_vertex(pr, id);
				is_vertex[id] = 1;
			}
		}
		end_facet(pr, plane_key(facet, qh->hull_dim));
	}
}

/* The first line of Qhull's message that names an error code ("QH6154
 * qhull precision error: ..."), without its newline. */
static void qhull_message(const char *text, char *out, size_t size)
{
	const char *s = text ? strstr(text, "QH") : NULL;
	size_t n;

	if (!s) {
		snprintf(out, size, "no message");
		return;
	}
	n = strcspn(s, "\n");
	if (n >= size)
		n = size - 1;
	memcpy(out, s, n);
	out[n] = '\0';
}

/* Exact arithmetic decides: derive each proposal's normal from its
 * vertices, skipping proposals whose vertices all lie on a facet already
 * derived under the same float key.  Returns 0, CONE_REJECT when some
 * proposal is not a facet (Qhull went wrong), or a CP_E* code. */
static int decide(struct cone_build *b, struct proposals *pr, int64_t *bv,
		  struct cp_error *err)
{
	size_t cap = 64, f, i, *slot = NULL;
	uint64_t *skey = NULL;
	int rc = 0;

	while (cap < 2 * pr->n + 2)
		cap *= 2;
	slot = cp_malloc(cap * sizeof *slot);
	skey = cp_malloc(cap * sizeof *skey);
	if (!slot || !skey) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory while building the cone");
		goto out;
	}
	for (i = 0; i < cap; i++)
		slot[i] = SIZE_MAX;
	for (f = 0; f < pr->n; f++) {
		const int *v = pr->vid + pr->off[f];
		size_t nv = pr->off[f + 1] - pr->off[f], h, idx;

		h = (size_t)pr->key[f] & (cap - 1);
		while (slot[h] != SIZE_MAX && skey[h] != pr->key[f])
			h = (h + 1) & (cap - 1);
		if (slot[h] != SIZE_MAX) {
			const uint64_t *on = b->on + slot[h] * b->words;

			for (i = 0; i < nv; i++)
				if (!(on[v[i] / 64] >> (v[i] % 64) & 1))
					break;
			if (i == nv)
				continue;
		}
		b->st->candidates++;
		rc = cone_normal_of_rays(b, v, nv, bv, err);
		if (rc < 0)
			goto out;
		if (rc == CONE_REJECT) { /* a flat simplex: neighbours cover it */
			rc = 0;
			continue;
		}
		rc = rc == CONE_BIG ? cone_offer_facet_z(b, b->zd, &idx, err)
				    : cone_offer_facet(b, bv, &idx, err);
		if (rc)
			goto out;
		if (slot[h] == SIZE_MAX) {
			slot[h] = idx;
			skey[h] = pr->key[f];
		}
		if ((f & 255) == 255 && cone_time_over(b)) {
			rc = cone_time_error(b, err);
			goto out;
		}
	}
out:
	cp_free(slot);
	cp_free(skey);
	return rc;
}

/* Without merging ('Q0') Qhull is an order of magnitude faster on these
 * degenerate inputs when it succeeds (dimension 16, 100 rays: 3 s instead
 * of 41 s), and the exact step needs no merged facets: every simplex on a
 * true facet gives that facet's normal.  When Qhull meets a ridge with more
 * than two facets it stops; then it merges coplanar facets ('qhull', its
 * default), and last also searches all points for its initial simplex
 * ('Qs').  No joggle ('QJ'): tried, it made 12 times more simplices. */
static const char *const attempts[] = { "qhull Q0", "qhull", "qhull Qs" };
static const char *const attempt_names[] = {
	"qhull Q0, checked exactly", "qhull (merging), checked exactly",
	"qhull Qs, checked exactly"
};

int cone_facets_qhull(struct cone_build *b, struct cp_error *err)
{
	size_t d = b->d, j, i, na = sizeof attempts / sizeof *attempts;
	int dim = (int)d - 1, np = (int)b->nr, code = 0, rc = 0;
	size_t attempt;
	coordT *pts = NULL;
	qhT *qh = NULL;
	struct proposals pr;
	int64_t *bv = NULL;
	char msg[512] = "";

	memset(&pr, 0, sizeof pr);
	if (b->nr > (size_t)INT32_MAX / (d + 1))
		return cp_error_set(err, CP_ELIMIT, "too many signatures for qhull");
	pts = cp_malloc((size_t)np * (size_t)dim * sizeof *pts);
	qh = cp_calloc(1, sizeof *qh);
	b->qhull_vertex = cp_calloc(b->nr + 1, 1);
	bv = cp_malloc((d + 1) * sizeof *bv);
	if (!pts || !qh || !b->qhull_vertex || !bv) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory while building the cone");
		goto out;
	}
	for (j = 0; j < b->nr; j++) {
		const int64_t *y = b->Y + j * d;
		double sum = 0;

		for (i = 0; i < d; i++)
			sum += (double)y[i];
		for (i = 0; i < (size_t)dim; i++)
			pts[j * (size_t)dim + i] = (double)y[i] / sum;
	}
	for (attempt = 0; attempt < na; attempt++) {
		char cmd[32], *ebuf = NULL;
		size_t elen = 0;
		FILE *ef = open_memstream(&ebuf, &elen);
		int curlong, totlong;

		if (!ef) {
			rc = cp_error_set(err, CP_ENOMEM, "out of memory while building the cone");
			goto out;
		}
		if (attempt && cone_time_over(b)) {
			fclose(ef);
			free(ebuf);
			rc = cone_time_error(b, err);
			goto out;
		}
		snprintf(cmd, sizeof cmd, "%s", attempts[attempt]);
		b->st->method = attempt_names[attempt];
		memset(qh, 0, sizeof *qh);
		qh_zero(qh, ef);
		qh_initqhull_start(qh, NULL, NULL, ef);
		pr.n = pr.nv = 0;
		pr.stopped = 0;
		memset(b->qhull_vertex, 0, b->nr);
		code = run_qhull(qh, cmd, dim, np, pts, b, &pr);
		if (!code && !pr.stopped)
			collect(qh, &pr, b->qhull_vertex);
		qh->NOerrexit = True;
		qh_freeqhull(qh, !qh_ALL);
		qh_memfreeshort(qh, &curlong, &totlong);
		fclose(ef);
		if (code)
			qhull_message(ebuf, msg, sizeof msg);
		free(ebuf);
		if (pr.oom) {
			rc = cp_error_set(err, CP_ENOMEM, "out of memory while building the cone");
			goto out;
		}
		if (pr.stopped == 1) {
			rc = cp_error_set(err, CP_ELIMIT,
				"qhull stopped: its triangulation passed %zu simplices "
				"(8 x --max-facets + 1000) before the cone's facets "
				"could be counted; raise --max-facets",
				8 * b->max_facets + 1000);
			goto out;
		}
		if (pr.stopped == 2) {
			rc = cone_time_error(b, err);
			goto out;
		}
		if (code)
			continue;
		cone_forget_facets(b);
		rc = decide(b, &pr, bv, err);
		if (rc < 0)
			goto out;
		if (rc == 0)
			break;
		snprintf(msg, sizeof msg, "qhull proposed a facet that exact "
			 "arithmetic rejects");
		code = -1;
	}
	if (code) {
		rc = cp_error_set(err, CP_ENUMERIC, "qhull failed on a %zu-dimensional "
				  "cone with %zu rays: %s", d, b->nr, msg);
		goto out;
	}
	rc = 0;
out:
	cp_free(pts);
	cp_free(qh);
	cp_free(bv);
	cp_free(pr.off);
	cp_free(pr.key);
	cp_free(pr.vid);
	return rc;
}
