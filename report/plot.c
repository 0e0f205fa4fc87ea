/* SPDX-License-Identifier: GPL-3.0-or-later */
/* report/plot.c: one observation against one constraint, drawn as SVG on
 * the plane of two counters.  Every shape is an exact projection except
 * the constraint, which is a slice (docs/manual/report.md, "the plots"):
 *
 *   cone       P cone{s_p} = cone{P s_p}: the wedge between the
 *              projected signatures of smallest and largest angle (they
 *              are non-negative, so the wedge lies in the first quadrant);
 *   indep. box mu_xy +- half_ind[x, y]: a rectangle;
 *   PCA box    {mu + sum_i t_i h_i v_i : |t_i| <= 1} projects to the
 *              zonotope mu_xy + sum_i [-1, 1] h_i P v_i;
 *   ellipsoid  {(z - mu)' Cov^-1 (z - mu) <= q} projects to the ellipse
 *              of the 2x2 block Cov_xy with the same q (its support
 *              function sqrt(q a' Cov a) for a in the plane);
 *   constraint a_x X + a_y Y + sum_{j != x, y} a_j mu_j >= 0: the line at
 *              the other counters' means.  The projected region may cross
 *              it even when the whole region breaks the constraint (other
 *              counters move with x and y); the margin printed is the
 *              solver's, over all k counters;
 *   range      the band a_x (X - mu_x) + a_y (Y - mu_y) in [-s, s], s the
 *              largest a.(x - mu) over the checked region (all k
 *              counters), from the solver's margin and centre: in the
 *              same slice, the values a.x takes over the region, so the
 *              gap between band and line is the margin;
 *   witness    a point of the region inside the cone (feas_witness), for
 *              a feasible observation: its projection lies in both.
 *
 * Geometry is clipped in the view's unit square (u, v in [0, 1]) before it
 * becomes pixels, so a cone apex a million view-widths away stays exact.
 * Every text sits where no line runs: the cone's edges are tagged A and B
 * outside the frame, where they leave it, and named in the legend. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "geometry/cone.h"
#include "report/report.h"
#include "report/report_int.h"

/* The SVG's layout, in pixels. */
enum {
	PLOT_W = 900,
	AREA_X = 96, AREA_Y = 44, AREA_W = 440, AREA_H = 340,
	PLOT_H = AREA_Y + AREA_H + 52,
	LEGEND_X = 566, LEGEND_Y = 30, LEGEND_LINE = 20, LEGEND_CHARS = 46,
	ZOOM_X = 646, ZOOM_W = 230, ZOOM_H = 150,
	MAX_TICKS = 12,
};
/* The width of a character of the tick labels (11 px sans-serif digits
 * and units), generous: ticks are spaced by it. */
#define TICK_CHAR_PX 7.0

#define COLOUR_CONE "#9fc5e8"
#define COLOUR_CONE_EDGE "#3d85c6"
#define COLOUR_BAD "#f4cccc"
#define COLOUR_LINE "#b01c1c"
#define COLOUR_RANGE "#666666"
#define COLOUR_IND "#e69138"
#define COLOUR_PCA "#6aa84f"
#define COLOUR_ELL "#8e7cc3"
#define COLOUR_WITNESS "#1a6b1a"

/* A convex polygon in view coordinates: the wedge or the half-plane
 * (four corners) clipped by the four sides of the view, each of which
 * adds at most one vertex. */
struct poly {
	size_t n;
	double u[16], v[16];
};

/* The view: data rectangle [x0, x1] x [y0, y1], drawn in the pixel
 * frame at (fx, fy), fw x fh. */
struct view {
	double x0, x1, y0, y1;
	int fx, fy, fw, fh;
};

static double view_u(const struct view *w, double x)
{
	return (x - w->x0) / (w->x1 - w->x0);
}

static double view_v(const struct view *w, double y)
{
	return (y - w->y0) / (w->y1 - w->y0);
}

static double px(const struct view *w, double u)
{
	return w->fx + u * w->fw;
}

static double py(const struct view *w, double v)
{
	return w->fy + (1 - v) * w->fh;
}

/* ---- clipping (Sutherland-Hodgman, one half-plane a u + b v + c >= 0) ---- */

static void clip_half(struct poly *p, double a, double b, double c)
{
	struct poly out;
	size_t i;

	out.n = 0;
	for (i = 0; i < p->n; i++) {
		size_t j = (i + 1) % p->n;
		double fi = a * p->u[i] + b * p->v[i] + c;
		double fj = a * p->u[j] + b * p->v[j] + c;

		if (fi >= 0 && out.n < sizeof out.u / sizeof out.u[0]) {
			out.u[out.n] = p->u[i];
			out.v[out.n++] = p->v[i];
		}
		if ((fi >= 0) != (fj >= 0) && out.n < sizeof out.u / sizeof out.u[0]) {
			double t = fi / (fi - fj);

			out.u[out.n] = p->u[i] + t * (p->u[j] - p->u[i]);
			out.v[out.n++] = p->v[i] + t * (p->v[j] - p->v[i]);
		}
	}
	*p = out;
}

static void clip_square(struct poly *p)
{
	clip_half(p, 1, 0, 0);
	clip_half(p, -1, 0, 1);
	clip_half(p, 0, 1, 0);
	clip_half(p, 0, -1, 1);
}

static void unit_square(struct poly *p)
{
	p->n = 4;
	p->u[0] = 0; p->v[0] = 0; p->u[1] = 1; p->v[1] = 0;
	p->u[2] = 1; p->v[2] = 1; p->u[3] = 0; p->v[3] = 1;
}

/* The segment p + t d, t in [t0, t1], clipped to the unit square
 * (Liang-Barsky).  0 when nothing is left. */
static int clip_segment(double pu, double pv, double du, double dv,
			double *t0, double *t1)
{
	double p[4] = { -du, du, -dv, dv };
	double q[4] = { pu, 1 - pu, pv, 1 - pv };
	int i;

	for (i = 0; i < 4; i++) {
		double r;

		if (p[i] == 0) {
			if (q[i] < 0)
				return 0;
			continue;
		}
		r = q[i] / p[i];
		if (p[i] < 0) {
			if (r > *t1)
				return 0;
			if (r > *t0)
				*t0 = r;
		} else {
			if (r < *t0)
				return 0;
			if (r < *t1)
				*t1 = r;
		}
	}
	return *t0 <= *t1;
}

static void put_poly(struct cp_buf *b, const struct view *w, const struct poly *p,
		     const char *cls, const char *attrs)
{
	size_t i;

	if (p->n < 3)
		return;
	cp_buf_printf(b, "<polygon class=\"%s\" %s points=\"", cls, attrs);
	for (i = 0; i < p->n; i++)
		cp_buf_printf(b, "%s%.1f,%.1f", i ? " " : "", px(w, p->u[i]), py(w, p->v[i]));
	cp_buf_puts(b, "\"/>\n");
}

/* The line L(u, v) = a u + b v + c = 0 (view coordinates), clipped. */
static void put_line(struct cp_buf *b, const struct view *w, double a, double c2,
		     double c, const char *cls, const char *attrs)
{
	double n = hypot(a, c2), pu, pv, du, dv, t0 = -4, t1 = 4;

	if (!(n > 0))
		return;
	pu = -c * a / (n * n);
	pv = -c * c2 / (n * n);
	du = -c2 / n;
	dv = a / n;
	if (clip_segment(pu, pv, du, dv, &t0, &t1))
		cp_buf_printf(b, "<line class=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			      "y2=\"%.1f\" %s/>\n", cls, px(w, pu + t0 * du),
			      py(w, pv + t0 * dv), px(w, pu + t1 * du), py(w, pv + t1 * dv),
			      attrs);
}

/* ---- what is drawn ---- */

struct plot_geom {
	size_t k, x, y;
	double mx, my;                  /* the mean, projected */
	double cxx, cxy, cyy;           /* the covariance's 2x2 block */
	double ehx, ehy;                /* the ellipse's half-extents */
	size_t nz;                      /* zonotope vertices */
	double *zx, *zy;                /* 2k each */
	int has_line;
	double la, lb, lc;              /* the slice: la X + lb Y + lc >= 0 */
	double nx, ny;                  /* the line's point nearest the mean */
	double range;                   /* s: the band's half-width in a.x (0: none) */
	int has_witness;
	double wx, wy;                  /* the witness, projected */
	size_t n_rays;                  /* distinct ray directions: 0, 1, 2+ */
	int64_t lo[2], hi[2];           /* extreme projected signatures */
	size_t n_nonzero;               /* signatures with a non-zero projection */
};

/* Counter j's weight for the axes: (in the constraint, |a_j mu_j|), or
 * |mu_j| for a counter the constraint (if any) leaves out; compared first
 * on being in it. */
static void axis_weight(const struct report_plot *p, size_t j, int *in,
			double *w)
{
	const struct region *r = p->region;

	*in = !p->constraint || p->constraint[j] != 0;
	*w = *in && p->constraint ? fabs((double)p->constraint[j] * r->mu[j]) :
		fabs(r->mu[j]);
}

static int heavier(const struct report_plot *p, size_t i, size_t j)
{
	int ii, ij;
	double wi, wj;

	axis_weight(p, i, &ii, &wi);
	axis_weight(p, j, &ij, &wj);
	return ii != ij ? ii > ij : wi > wj;
}

void report_plot_axes(const struct report_plot *p, size_t *x, size_t *y)
{
	size_t k = p->region->k, j, b0 = 0, b1 = 1;

	if (heavier(p, 1, 0)) {
		b0 = 1;
		b1 = 0;
	}
	/* strict comparisons: counter order breaks ties */
	for (j = 2; j < k; j++) {
		if (heavier(p, j, b0)) {
			b1 = b0;
			b0 = j;
		} else if (heavier(p, j, b1)) {
			b1 = j;
		}
	}
	*x = b0;
	*y = b1;
}

/* The zonotope mu + sum_i [-1, 1] g_i, g_i = h_i (v_ix, v_iy): generators
 * turned into the upper half-plane and sorted by angle; its boundary runs
 * from mu - sum g_i adding 2 g_i in that order, then subtracting. */
static int zonotope(struct plot_geom *g, const struct region *r,
		    struct cp_error *err)
{
	size_t k = r->k, i, j, m = 0;
	double *gx = cp_calloc(k + 1, sizeof *gx), *gy = cp_calloc(k + 1, sizeof *gy);
	double *ang = cp_calloc(k + 1, sizeof *ang), sx = 0, sy = 0, ux, uy;

	g->zx = cp_calloc(2 * k + 1, sizeof *g->zx);
	g->zy = cp_calloc(2 * k + 1, sizeof *g->zy);
	if (!gx || !gy || !ang || !g->zx || !g->zy) {
		cp_free(gx);
		cp_free(gy);
		cp_free(ang);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	for (i = 0; i < k; i++) {
		double a = r->half_pca[i] * r->box_axes[i * k + g->x];
		double c = r->half_pca[i] * r->box_axes[i * k + g->y];

		if (a == 0 && c == 0)
			continue;
		if (c < 0 || (c == 0 && a < 0)) {
			a = -a;
			c = -c;
		}
		/* insertion by angle: k is small */
		for (j = m; j > 0 && ang[j - 1] > atan2(c, a); j--) {
			gx[j] = gx[j - 1];
			gy[j] = gy[j - 1];
			ang[j] = ang[j - 1];
		}
		gx[j] = a;
		gy[j] = c;
		ang[j] = atan2(c, a);
		m++;
		sx += a;
		sy += c;
	}
	ux = g->mx - sx;
	uy = g->my - sy;
	g->nz = 0;
	for (i = 0; i < m; i++) {
		ux += 2 * gx[i];
		uy += 2 * gy[i];
		g->zx[g->nz] = ux;
		g->zy[g->nz++] = uy;
	}
	for (i = 0; i < m; i++) {
		ux -= 2 * gx[i];
		uy -= 2 * gy[i];
		g->zx[g->nz] = ux;
		g->zy[g->nz++] = uy;
	}
	cp_free(gx);
	cp_free(gy);
	cp_free(ang);
	return CP_OK;
}

/* The projected cone: the signatures of extreme angle (cross products
 * compare angles exactly in 64 bits: projections are below 2^32). */
static void cone_rays(struct plot_geom *g, const struct report_plot *p)
{
	size_t j;

	g->n_rays = 0;
	g->n_nonzero = 0;
	for (j = 0; j < p->n_signatures; j++) {
		int64_t sx = p->signatures[j * g->k + g->x];
		int64_t sy = p->signatures[j * g->k + g->y];

		if (!sx && !sy)
			continue;
		g->n_nonzero++;
		if (!g->n_rays) {
			g->lo[0] = g->hi[0] = sx;
			g->lo[1] = g->hi[1] = sy;
			g->n_rays = 1;
			continue;
		}
		/* below lo: lo x s < 0 (s turns clockwise from lo) */
		if (g->lo[0] * sy - g->lo[1] * sx < 0) {
			g->lo[0] = sx;
			g->lo[1] = sy;
		}
		if (g->hi[0] * sy - g->hi[1] * sx > 0) {
			g->hi[0] = sx;
			g->hi[1] = sy;
		}
		if (g->lo[0] * g->hi[1] - g->lo[1] * g->hi[0] != 0)
			g->n_rays = 2;
	}
}

/* The cone's bounds as 2-D constraints on the plot's counters, "; "
 * between them: the lower ray is -s_y X + s_x Y >= 0, the upper one
 * s_y X - s_x Y >= 0; a single ray is s_y X - s_x Y = 0. */
static void cone_bounds(const struct plot_geom *g, const char *const *names2,
			struct cp_buf *out)
{
	int side;

	if (!g->n_rays) {
		cp_buf_puts(out, "every signature projects to 0");
		return;
	}
	for (side = 0; side < (g->n_rays == 2 ? 2 : 1); side++) {
		const int64_t *s = side ? g->hi : g->lo;
		int64_t a[2], d;

		a[0] = side || g->n_rays == 1 ? s[1] : -s[1];
		a[1] = side || g->n_rays == 1 ? -s[0] : s[0];
		d = cp_gcd64(a[0], a[1]);
		if (d > 1) {
			a[0] /= d;
			a[1] /= d;
		}
		if (side)
			cp_buf_puts(out, "; ");
		cone_format_constraint(a, 2, names2, g->n_rays == 1, out);
	}
}

/* ---- the view and the axes ---- */

static void extend(double *lo, double *hi, double v)
{
	if (v < *lo)
		*lo = v;
	if (v > *hi)
		*hi = v;
}

/* Pad an axis by 8% (a point: a tenth of its value); with near_origin,
 * reach 0 (the cone's apex) when it is near: the wedge reads better from
 * its corner. */
static void pad_axis(double *lo, double *hi, int near_origin)
{
	double span = *hi - *lo;

	if (!(span > 0)) {
		span = fmax(fabs(*lo) * 0.1, 1);
		*lo -= span / 2;
		*hi += span / 2;
	}
	if (near_origin && *lo > 0 && *lo < 1.5 * span)
		*lo = 0;
	if (near_origin && *hi < 0 && -*hi < 1.5 * span)
		*hi = 0;
	span = *hi - *lo;
	*lo -= 0.08 * span;
	*hi += 0.08 * span;
}

/* The view of every region and the mean; with context, also the line's
 * point nearest the mean and the origin when near. */
static void make_view(const struct plot_geom *g, const struct region *r,
		      int context, struct view *w)
{
	size_t i;

	w->x0 = w->x1 = g->mx;
	w->y0 = w->y1 = g->my;
	extend(&w->x0, &w->x1, g->mx - r->half_ind[g->x]);
	extend(&w->x0, &w->x1, g->mx + r->half_ind[g->x]);
	extend(&w->y0, &w->y1, g->my - r->half_ind[g->y]);
	extend(&w->y0, &w->y1, g->my + r->half_ind[g->y]);
	for (i = 0; i < g->nz; i++) {
		extend(&w->x0, &w->x1, g->zx[i]);
		extend(&w->y0, &w->y1, g->zy[i]);
	}
	extend(&w->x0, &w->x1, g->mx - g->ehx);
	extend(&w->x0, &w->x1, g->mx + g->ehx);
	extend(&w->y0, &w->y1, g->my - g->ehy);
	extend(&w->y0, &w->y1, g->my + g->ehy);
	if (g->has_witness) {
		extend(&w->x0, &w->x1, g->wx);
		extend(&w->y0, &w->y1, g->wy);
	}
	if (context && g->has_line && isfinite(g->nx) && isfinite(g->ny)) {
		extend(&w->x0, &w->x1, g->nx);
		extend(&w->y0, &w->y1, g->ny);
	}
	pad_axis(&w->x0, &w->x1, context);
	pad_axis(&w->y0, &w->y1, context);
}

/* A tick's label: past 10^4, in units of k, M, G or T by the axis'
 * largest value (a smaller one when the step would need more than two
 * decimals of it), with the decimals the step needs ("41.6M", "-20k",
 * "995", "0.004"). */
static void tick_label(char *out, size_t n, double t, double step, double big)
{
	static const char *const unit[] = { "", "k", "M", "G", "T" };
	double scale = 1;
	int u = 0, dec;

	while (big >= 1e4 && u < 4 && big >= 1000 * scale) {
		scale *= 1000;
		u++;
	}
	while (u > 0 && step / scale < 0.01) {
		scale /= 1000;
		u--;
	}
	if (fabs(t) < step * 1e-9) {
		snprintf(out, n, "0");
		return;
	}
	dec = (int)ceil(-log10(step / scale) - 1e-9);
	dec = dec < 0 ? 0 : dec > 6 ? 6 : dec;
	snprintf(out, n, "%.*f%s", dec, t / scale, unit[u]);
}

/* Tick step: 1, 2 or 5 times a power of ten, about five ticks, widened
 * until neighbouring labels are at least `gap` pixels apart (horizontal:
 * their widths too) on an axis of len pixels. */
static double tick_step(double lo, double hi, int len, int horizontal)
{
	double span = hi - lo, raw = span / 5, p = pow(10, floor(log10(raw)));
	double f = raw / p, big = fmax(fabs(lo), fabs(hi));
	double step = (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
	int i;

	for (i = 0; i < 12; i++) {
		char a[32], c[32];
		double need = 18, m;

		if (horizontal) {
			tick_label(a, sizeof a, ceil(lo / step) * step, step, big);
			tick_label(c, sizeof c, floor(hi / step) * step, step, big);
			need = TICK_CHAR_PX * (double)(strlen(a) > strlen(c) ? strlen(a) :
						       strlen(c)) + 10;
		}
		if (len * step / span >= need)
			break;
		m = step / pow(10, floor(log10(step)) );
		step *= m < 1.5 ? 2 : m < 3.5 ? 2.5 : 2;
	}
	return step;
}

/* Ticks are counted, not stepped (t += step stands still when the step
 * is below the resolution of a large rate), and bounded; the tick marks
 * of an axis are one path, their labels one group. */
static void axes(struct cp_buf *b, const struct view *w, const char *xname,
		 const char *yname, const char *cls)
{
	double step, i, big;
	int n = 0;
	char t[32];
	struct cp_buf marks;

	cp_buf_init(&marks);
	cp_buf_printf(b, "<g class=\"cp-axis %s-x\" font-size=\"11\">\n"
		      "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#222\"/>\n"
		      "<g text-anchor=\"middle\">", cls, w->fx, w->fy + w->fh, w->fx + w->fw,
		      w->fy + w->fh);
	step = tick_step(w->x0, w->x1, w->fw, 1);
	big = fmax(fabs(w->x0), fabs(w->x1));
	for (i = ceil(w->x0 / step); i <= floor(w->x1 / step) && n++ < MAX_TICKS; i++) {
		double x = px(w, view_u(w, i * step));

		tick_label(t, sizeof t, i * step, step, big);
		cp_buf_printf(&marks, "M%.1f %dv5", x, w->fy + w->fh);
		cp_buf_printf(b, "<text x=\"%.1f\" y=\"%d\">%s</text>", x,
			      w->fy + w->fh + 18, t);
	}
	cp_buf_printf(b, "</g>\n<path class=\"cp-tick\" d=\"%s\" stroke=\"#222\"/>\n",
		      marks.data ? marks.data : "");
	if (xname) {
		cp_buf_printf(b, "<text class=\"cp-axis-label\" x=\"%d\" y=\"%d\" "
			      "text-anchor=\"middle\" font-size=\"13\">", w->fx + w->fw / 2,
			      w->fy + w->fh + 40);
		report_html_text(b, xname);
		cp_buf_puts(b, " (per second)</text>\n");
	}
	cp_buf_puts(b, "</g>\n");
	b->failed |= marks.failed;
	cp_buf_release(&marks);
	cp_buf_init(&marks);
	cp_buf_printf(b, "<g class=\"cp-axis %s-y\" font-size=\"11\">\n"
		      "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#222\"/>\n"
		      "<g text-anchor=\"end\">", cls, w->fx, w->fy, w->fx, w->fy + w->fh);
	step = tick_step(w->y0, w->y1, w->fh, 0);
	big = fmax(fabs(w->y0), fabs(w->y1));
	for (i = ceil(w->y0 / step), n = 0; i <= floor(w->y1 / step) && n++ < MAX_TICKS;
	     i++) {
		double y = py(w, view_v(w, i * step));

		tick_label(t, sizeof t, i * step, step, big);
		cp_buf_printf(&marks, "M%d %.1fh5", w->fx - 5, y);
		cp_buf_printf(b, "<text x=\"%d\" y=\"%.1f\">%s</text>", w->fx - 8, y + 4, t);
	}
	cp_buf_printf(b, "</g>\n<path class=\"cp-tick\" d=\"%s\" stroke=\"#222\"/>\n",
		      marks.data ? marks.data : "");
	if (yname) {
		cp_buf_printf(b, "<text class=\"cp-axis-label\" x=\"16\" y=\"%d\" "
			      "text-anchor=\"middle\" font-size=\"13\" "
			      "transform=\"rotate(-90 16 %d)\">", w->fy + w->fh / 2,
			      w->fy + w->fh / 2);
		report_html_text(b, yname);
		cp_buf_puts(b, " (per second)</text>\n");
	}
	cp_buf_puts(b, "</g>\n");
	b->failed |= marks.failed;
	cp_buf_release(&marks);
}

/* ---- shapes ---- */

/* Where a cone edge leaves the frame: its tag's place outside it. */
struct tag {
	int on;
	double x, y;
	const char *anchor;
};

/* The wedge (or its one ray, or the apex alone); with tags, where each
 * edge leaves the frame (above it, or right of it). */
static void draw_cone(struct cp_buf *b, const struct plot_geom *g,
		      const struct view *w, struct tag *tags)
{
	double ou = view_u(w, 0), ov = view_v(w, 0);
	double lu = (double)g->lo[0] / (w->x1 - w->x0), lv = (double)g->lo[1] / (w->y1 - w->y0);
	double hu = (double)g->hi[0] / (w->x1 - w->x0), hv = (double)g->hi[1] / (w->y1 - w->y0);
	double far, nl, nh;
	struct poly p;
	int side;

	if (!g->n_rays) {
		if (ou >= 0 && ou <= 1 && ov >= 0 && ov <= 1)
			cp_buf_printf(b, "<circle class=\"cp-cone\" cx=\"%.1f\" cy=\"%.1f\" "
				      "r=\"4\" fill=\"%s\"/>\n", px(w, ou), py(w, ov), COLOUR_CONE_EDGE);
		return;
	}
	nl = hypot(lu, lv);
	nh = hypot(hu, hv);
	lu /= nl; lv /= nl; hu /= nh; hv /= nh;
	far = hypot(fabs(ou) + 1, fabs(ov) + 1) + 2;
	if (g->n_rays == 2) {
		p.n = 4;
		p.u[0] = ou; p.v[0] = ov;
		p.u[1] = ou + far * lu; p.v[1] = ov + far * lv;
		p.u[2] = ou + far * (lu + hu); p.v[2] = ov + far * (lv + hv);
		p.u[3] = ou + far * hu; p.v[3] = ov + far * hv;
		clip_square(&p);
		put_poly(b, w, &p, "cp-cone", "fill=\"" COLOUR_CONE "\" fill-opacity=\"0.55\"");
	}
	for (side = 0; side < (g->n_rays == 2 ? 2 : 1); side++) {
		double du = side ? hu : lu, dv = side ? hv : lv, t0 = 0, t1 = far, eu, ev;

		if (!clip_segment(ou, ov, du, dv, &t0, &t1))
			continue;
		cp_buf_printf(b, "<line class=\"cp-cone-edge\" x1=\"%.1f\" y1=\"%.1f\" "
			      "x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.5\"/>\n",
			      px(w, ou + t0 * du), py(w, ov + t0 * dv), px(w, ou + t1 * du),
			      py(w, ov + t1 * dv), COLOUR_CONE_EDGE);
		if (!tags || t1 >= far)
			continue;
		/* edges run up and right (signatures are non-negative): they
		 * leave through the top or the right side */
		eu = ou + t1 * du;
		ev = ov + t1 * dv;
		tags[side].on = 1;
		if (ev >= 1 - 1e-9) {
			tags[side].x = px(w, eu);
			tags[side].y = w->fy - 6;
			tags[side].anchor = "middle";
		} else {
			tags[side].x = w->fx + w->fw + 4;
			tags[side].y = py(w, ev) + 4;
			tags[side].anchor = "start";
		}
	}
	/* two tags at one place: side by side */
	if (tags && tags[0].on && tags[1].on && fabs(tags[0].x - tags[1].x) < 14 &&
	    fabs(tags[0].y - tags[1].y) < 14) {
		if (!strcmp(tags[1].anchor, "middle"))
			tags[1].x = tags[0].x + 14;
		else
			tags[1].y = tags[0].y - 14;
	}
}

static void put_tags(struct cp_buf *b, const struct tag *tags)
{
	int side;

	for (side = 0; side < 2; side++)
		if (tags[side].on)
			cp_buf_printf(b, "<text class=\"cp-cone-tag\" x=\"%.1f\" y=\"%.1f\" "
				      "text-anchor=\"%s\" font-size=\"11\" font-weight=\"bold\" "
				      "fill=\"%s\">%c</text>\n", tags[side].x, tags[side].y,
				      tags[side].anchor, COLOUR_CONE_EDGE, 'A' + side);
}

/* The slice: its violated side shaded, the region's range of a.x as a
 * band, the line over both. */
static void draw_constraint(struct cp_buf *b, const struct plot_geom *g,
			    const struct view *w, int is_equality)
{
	double su = w->x1 - w->x0, sv = w->y1 - w->y0;
	/* la X + lb Y + lc in view coordinates */
	double a = g->la * su, c2 = g->lb * sv;
	double c = g->la * w->x0 + g->lb * w->y0 + g->lc;
	struct poly p;

	if (!(hypot(a, c2) > 0))
		return;
	if (!is_equality) {
		unit_square(&p);
		clip_half(&p, -a, -c2, -c);     /* the side where a.x < 0 */
		put_poly(b, w, &p, "cp-violated-side",
			 "fill=\"" COLOUR_BAD "\" fill-opacity=\"0.6\"");
	}
	if (g->range > 0) {
		/* a_x (X - mu_x) + a_y (Y - mu_y) in [-s, s] */
		double cm = g->la * (w->x0 - g->mx) + g->lb * (w->y0 - g->my);

		unit_square(&p);
		clip_half(&p, a, c2, cm + g->range);
		clip_half(&p, -a, -c2, -cm + g->range);
		put_poly(b, w, &p, "cp-range", "fill=\"" COLOUR_RANGE "\" fill-opacity=\"0.18\"");
		put_line(b, w, a, c2, cm + g->range, "cp-range-edge", "stroke=\"" COLOUR_RANGE
			 "\" stroke-dasharray=\"4 3\"");
		put_line(b, w, a, c2, cm - g->range, "cp-range-edge", "stroke=\"" COLOUR_RANGE
			 "\" stroke-dasharray=\"4 3\"");
	}
	put_line(b, w, a, c2, c, "cp-constraint", "stroke=\"" COLOUR_LINE
		 "\" stroke-width=\"2\"");
}

/* A closed shape through n data points, no clipping (the view holds
 * every region).  The shape the verdict used is filled and drawn bolder. */
static void put_shape(struct cp_buf *b, const struct view *w, const char *cls,
		      const char *colour, int checked, const char *dash, size_t n,
		      const double *xs, const double *ys)
{
	size_t i;

	if (n < 3)
		return;
	cp_buf_printf(b, "<polygon class=\"%s\" fill=\"%s\"%s stroke=\"%s\" "
		      "stroke-width=\"%s\"%s points=\"", cls, checked ? colour : "none",
		      checked ? " fill-opacity=\"0.25\"" : "", colour, checked ? "2.5" : "1.5",
		      dash);
	for (i = 0; i < n; i++)
		cp_buf_printf(b, "%s%.1f,%.1f", i ? " " : "", px(w, view_u(w, xs[i])),
			      py(w, view_v(w, ys[i])));
	cp_buf_puts(b, "\"/>\n");
}

/* The ellipse mu + sqrt(q) L (cos t, sin t) as an SVG <ellipse>: in
 * pixels it is the image of the unit circle under M = D sqrt(q) L (D the
 * view's scales), whose semi-axes and turn are the eigen-pairs of M M'. */
static void put_ellipse(struct cp_buf *b, const struct view *w,
			const struct plot_geom *g, double q, int checked)
{
	double sx = w->fw / (w->x1 - w->x0), sy = -w->fh / (w->y1 - w->y0);
	double l11 = sqrt(g->cxx), l21 = l11 > 0 ? g->cxy / l11 : 0;
	double l22 = sqrt(fmax(g->cyy - l21 * l21, 0)), s = sqrt(fmax(q, 0));
	double m11 = sx * s * l11, m21 = sy * s * l21, m22 = sy * s * l22;
	/* M M' = [m11^2, m11 m21; m11 m21, m21^2 + m22^2] */
	double a = m11 * m11, c = m11 * m21, d = m21 * m21 + m22 * m22;
	double mid = (a + d) / 2, rad = hypot((a - d) / 2, c);
	double rx = sqrt(fmax(mid + rad, 0)), ry = sqrt(fmax(mid - rad, 0));
	double turn = 0.5 * atan2(2 * c, a - d) * 180 / M_PI;
	double cx = px(w, view_u(w, g->mx)), cy = py(w, view_v(w, g->my));

	cp_buf_printf(b, "<ellipse class=\"cp-ellipsoid\" cx=\"%.1f\" cy=\"%.1f\" "
		      "rx=\"%.1f\" ry=\"%.1f\" transform=\"rotate(%.2f %.1f %.1f)\" "
		      "fill=\"%s\"%s stroke=\"%s\" stroke-width=\"%s\"/>\n",
		      cx, cy, fmax(rx, 0.5), fmax(ry, 0.5), turn, cx, cy,
		      checked ? COLOUR_ELL : "none", checked ? " fill-opacity=\"0.25\"" : "",
		      COLOUR_ELL, checked ? "2.5" : "1.5");
}

/* A diamond of half-size r at (x, y) in pixels: the witness. */
static void put_diamond(struct cp_buf *b, const char *cls, double x, double y,
			double r)
{
	cp_buf_printf(b, "<polygon class=\"%s\" fill=\"%s\" stroke=\"#fff\" "
		      "points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\"/>\n", cls,
		      COLOUR_WITNESS, x, y - r, x + r, y, x, y + r, x - r, y);
}

static void draw_regions(struct cp_buf *b, const struct plot_geom *g,
			 const struct view *w, const struct region *r,
			 enum feas_shape checked)
{
	double hx = r->half_ind[g->x], hy = r->half_ind[g->y];
	double rx[4] = { g->mx - hx, g->mx + hx, g->mx + hx, g->mx - hx };
	double ry[4] = { g->my - hy, g->my - hy, g->my + hy, g->my + hy };

	put_ellipse(b, w, g, r->q, checked == FEAS_ELLIPSOID);
	put_shape(b, w, "cp-box-pca", COLOUR_PCA, checked == FEAS_PCA, "", g->nz,
		  g->zx, g->zy);
	put_shape(b, w, "cp-box-independent", COLOUR_IND, checked == FEAS_INDEPENDENT,
		  " stroke-dasharray=\"6 3\"", 4, rx, ry);
	cp_buf_printf(b, "<circle class=\"cp-mean\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" "
		      "fill=\"#000\"/>\n", px(w, view_u(w, g->mx)), py(w, view_v(w, g->my)));
	if (g->has_witness)
		put_diamond(b, "cp-witness", px(w, view_u(w, g->wx)),
			    py(w, view_v(w, g->wy)), 5);
}

/* ---- the legend: a swatch drawn as the plot draws the shape, then its
 * text, on every row ---- */

enum swatch { SW_RECT, SW_LINE, SW_DOT, SW_POLY, SW_ELLIPSE, SW_DIAMOND };

/* Shorten a legend text to about n characters (bytes; a cut inside a
 * UTF-8 sequence backs up to its start). */
static void shorten(char *s, size_t n)
{
	size_t len = strlen(s);

	if (len <= n)
		return;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	memcpy(s + n, "...", 4);
}

static void legend(struct cp_buf *b, size_t *row, const char *cls, enum swatch kind,
		   const char *style, const char *text)
{
	size_t y = LEGEND_Y + *row * LEGEND_LINE;
	char t[200];

	switch (kind) {
	case SW_RECT:
		cp_buf_printf(b, "<rect class=\"cp-swatch\" x=\"%d\" y=\"%zu\" width=\"22\" "
			      "height=\"12\" %s/>\n", LEGEND_X, y - 6, style);
		break;
	case SW_LINE:
		cp_buf_printf(b, "<line class=\"cp-swatch\" x1=\"%d\" y1=\"%zu\" x2=\"%d\" "
			      "y2=\"%zu\" %s/>\n", LEGEND_X, y, LEGEND_X + 22, y, style);
		break;
	case SW_DOT:
		cp_buf_printf(b, "<circle class=\"cp-swatch\" cx=\"%d\" cy=\"%zu\" r=\"3.5\" "
			      "%s/>\n", LEGEND_X + 11, y, style);
		break;
	case SW_POLY:    /* a zonotope: a hexagon */
		cp_buf_printf(b, "<polygon class=\"cp-swatch\" points=\"%d,%zu %d,%zu %d,%zu "
			      "%d,%zu %d,%zu %d,%zu\" %s/>\n", LEGEND_X, y + 2, LEGEND_X + 6,
			      y - 6, LEGEND_X + 18, y - 5, LEGEND_X + 22, y - 2,
			      LEGEND_X + 16, y + 6, LEGEND_X + 4, y + 5, style);
		break;
	case SW_ELLIPSE:
		cp_buf_printf(b, "<ellipse class=\"cp-swatch\" cx=\"%d\" cy=\"%zu\" rx=\"11\" "
			      "ry=\"6\" %s/>\n", LEGEND_X + 11, y, style);
		break;
	case SW_DIAMOND:
		put_diamond(b, "cp-swatch", LEGEND_X + 11, (double)y, 5);
		break;
	}
	snprintf(t, sizeof t, "%s", text);
	shorten(t, LEGEND_CHARS);
	cp_buf_printf(b, "<text class=\"cp-legend-item %s\" x=\"%d\" y=\"%zu\">", cls,
		      LEGEND_X + 30, y + 4);
	report_html_text(b, t);
	cp_buf_puts(b, "</text>\n");
	(*row)++;
}

/* A region's swatch style: filled when it is the shape checked. */
static void region_style(char *out, size_t n, const char *colour, int checked,
			 const char *dash)
{
	snprintf(out, n, "fill=\"%s\"%s stroke=\"%s\" stroke-width=\"%s\"%s",
		 checked ? colour : "none", checked ? " fill-opacity=\"0.25\"" : "", colour,
		 checked ? "2.5" : "1.5", dash);
}

static size_t draw_legend(struct cp_buf *b, const struct report_plot *p,
			  const struct plot_geom *g, const char *bounds)
{
	char t[200], num[32], style[160];
	size_t row = 0, side = 0;
	static const char *const checked_word = " (checked)";

	cp_buf_printf(b, "<g class=\"cp-legend\" font-size=\"12\">\n"
		      "<text class=\"cp-legend-title\" x=\"%d\" y=\"%d\" font-weight=\"bold\">",
		      LEGEND_X, LEGEND_Y - 14);
	snprintf(t, sizeof t, "regions at confidence %g, %zu samples",
		 p->region->confidence, p->region->n);
	report_html_text(b, t);
	cp_buf_puts(b, "</text>\n");
	row = 0;
	if (!g->n_rays) {
		legend(b, &row, "cp-legend-cone", SW_DOT, "fill=\"" COLOUR_CONE_EDGE "\"",
		       "cone: every signature projects to 0");
	} else {
		snprintf(t, sizeof t, "cone, projected (%zu signature%s)", g->n_nonzero,
			 g->n_nonzero == 1 ? "" : "s");
		legend(b, &row, "cp-legend-cone", SW_RECT, "fill=\"" COLOUR_CONE "\" "
		       "fill-opacity=\"0.55\" stroke=\"" COLOUR_CONE_EDGE "\"", t);
		for (;;) {
			const char *semi = strchr(bounds, ';');
			int len = semi ? (int)(semi - bounds) : (int)strlen(bounds);

			snprintf(t, sizeof t, "%c: %.*s", (int)('A' + side++), len, bounds);
			legend(b, &row, "cp-legend-cone-bound", SW_LINE, "stroke=\""
			       COLOUR_CONE_EDGE "\" stroke-width=\"1.5\"", t);
			if (!semi)
				break;
			bounds = semi + 2;
		}
	}
	if (g->has_line) {
		report_number_str(num, sizeof num, p->margin);
		snprintf(t, sizeof t, "%s%s: margin %s sd", p->role ? p->role : "constraint",
			 p->is_equality ? " (equality)" : "", num);
		legend(b, &row, "cp-legend-constraint", SW_LINE, "stroke=\"" COLOUR_LINE
		       "\" stroke-width=\"2\"", t);
		if (!p->is_equality)
			legend(b, &row, "cp-legend-violated", SW_RECT, "fill=\"" COLOUR_BAD
			       "\" fill-opacity=\"0.6\"", "the side that breaks it");
		if (g->range > 0)
			legend(b, &row, "cp-legend-range", SW_RECT, "fill=\"" COLOUR_RANGE
			       "\" fill-opacity=\"0.18\" stroke=\"" COLOUR_RANGE "\" "
			       "stroke-dasharray=\"4 3\"", "a.x over the whole region");
	}
	snprintf(t, sizeof t, "independent box%s", p->checked == FEAS_INDEPENDENT ?
		 checked_word : "");
	region_style(style, sizeof style, COLOUR_IND, p->checked == FEAS_INDEPENDENT,
		     " stroke-dasharray=\"6 3\"");
	legend(b, &row, "cp-legend-box-independent", SW_RECT, style, t);
	snprintf(t, sizeof t, "PCA box%s", p->checked == FEAS_PCA ? checked_word : "");
	region_style(style, sizeof style, COLOUR_PCA, p->checked == FEAS_PCA, "");
	legend(b, &row, "cp-legend-box-pca", SW_POLY, style, t);
	snprintf(t, sizeof t, "ellipsoid%s", p->checked == FEAS_ELLIPSOID ?
		 checked_word : "");
	region_style(style, sizeof style, COLOUR_ELL, p->checked == FEAS_ELLIPSOID, "");
	legend(b, &row, "cp-legend-ellipsoid", SW_ELLIPSE, style, t);
	if (g->has_line) {
		report_number_str(num, sizeof num, p->mean_sd);
		snprintf(t, sizeof t, "mean (a.x at %s sd)", num);
	} else {
		snprintf(t, sizeof t, "mean");
	}
	legend(b, &row, "cp-legend-mean", SW_DOT, "fill=\"#000\"", t);
	if (g->has_witness)
		legend(b, &row, "cp-legend-witness", SW_DIAMOND, "", p->checked ==
		       FEAS_ELLIPSOID ? "in region and cone (nearest)" :
		       "in region and cone (the LP's)");
	cp_buf_puts(b, "</g>\n");
	return row;
}

/* One frame of the plot: its clip path, its area, the clipped shapes
 * (cone, constraint, regions, mean, witness); tags (NULL: none) receive
 * where the cone's edges leave it. */
static void panel(struct cp_buf *b, const struct plot_geom *g, const struct view *w,
		  const struct region *r, const struct report_plot *p,
		  struct tag *tags, const char *which)
{
	cp_buf_printf(b, "<defs><clipPath id=\"%s-%s\"><rect x=\"%d\" y=\"%d\" "
		      "width=\"%d\" height=\"%d\"/></clipPath></defs>\n", p->id, which,
		      w->fx, w->fy, w->fw, w->fh);
	cp_buf_printf(b, "<rect class=\"cp-area\" x=\"%d\" y=\"%d\" width=\"%d\" "
		      "height=\"%d\" fill=\"#fafafa\" stroke=\"#ccc\"/>\n", w->fx,
		      w->fy, w->fw, w->fh);
	cp_buf_printf(b, "<g class=\"cp-shapes\" clip-path=\"url(#%s-%s)\">\n", p->id,
		      which);
	draw_cone(b, g, w, tags);
	if (g->has_line)
		draw_constraint(b, g, w, p->is_equality);
	draw_regions(b, g, w, r, p->checked);
	cp_buf_puts(b, "</g>\n");
}

/* The slice's line and its point nearest the mean in the block's metric
 * (mu - f Cov n / (n' Cov n), f the constraint at the mean), and the
 * band's half-width s from the solver's margin and centre in sd of a.x:
 * an inequality's largest a.x over the region is -margin sd, so s is
 * (-margin - centre) sd; an equality's gap is |centre| - s. */
static void slice(struct plot_geom *g, const struct report_plot *p)
{
	const struct region *r = p->region;
	double nCn, f, var = 0, s_sd;
	size_t i, j;

	g->la = (double)p->constraint[g->x];
	g->lb = (double)p->constraint[g->y];
	g->lc = 0;
	for (j = 0; j < g->k; j++)
		if (j != g->x && j != g->y)
			g->lc += (double)p->constraint[j] * r->mu[j];
	g->has_line = g->la != 0 || g->lb != 0;
	f = g->la * g->mx + g->lb * g->my + g->lc;
	nCn = g->la * (g->cxx * g->la + g->cxy * g->lb) + g->lb * (g->cxy * g->la + g->cyy * g->lb);
	if (nCn > 0) {
		g->nx = g->mx - f * (g->cxx * g->la + g->cxy * g->lb) / nCn;
		g->ny = g->my - f * (g->cxy * g->la + g->cyy * g->lb) / nCn;
	} else {
		double nn = g->la * g->la + g->lb * g->lb;

		g->nx = g->mx - f * g->la / nn;
		g->ny = g->my - f * g->lb / nn;
	}
	for (i = 0; i < g->k; i++)
		for (j = 0; j < g->k; j++)
			var += (double)p->constraint[i] * r->cov[i * g->k + j] *
				(double)p->constraint[j];
	s_sd = p->is_equality ? fabs(p->mean_sd) - p->margin : -p->margin - p->mean_sd;
	g->range = var > 0 && isfinite(s_sd) && s_sd > 0 ? s_sd * sqrt(var) : 0;
}

/* The caption on the plot itself: what the line and band are. */
static void slice_caption(struct cp_buf *b, const struct plot_geom *g)
{
	cp_buf_printf(b, "<text class=\"cp-slice\" x=\"%d\" y=\"16\" font-size=\"11\" "
		      "fill=\"#444\">", AREA_X);
	if (g->k == 2)
		cp_buf_puts(b, "constraint on these two counters: exact");
	else
		cp_buf_printf(b, "constraint sliced at the mean of the other %zu counter%s",
			      g->k - 2, g->k == 3 ? "" : "s");
	cp_buf_puts(b, "</text>\n");
}

/* ---- the plot ---- */

int report_plot_svg(const struct report_plot *p, struct cp_buf *b,
		    struct cp_error *err)
{
	const struct region *r = p->region;
	struct plot_geom g;
	struct view w, zoom;
	struct cp_buf bounds, shapes, legend_svg;
	struct tag tags[2];
	const char *names2[2];
	size_t rows;
	int show_zoom, height, rc;

	if (!r || r->k < 2)
		return cp_error_set(err, CP_EINPUT, "a plot needs at least two counters");
	memset(&g, 0, sizeof g);
	memset(tags, 0, sizeof tags);
	g.k = r->k;
	report_plot_axes(p, &g.x, &g.y);
	g.mx = r->mu[g.x];
	g.my = r->mu[g.y];
	g.cxx = r->cov[g.x * g.k + g.x];
	g.cxy = r->cov[g.x * g.k + g.y];
	g.cyy = r->cov[g.y * g.k + g.y];
	/* the ellipse's support in x and y: sqrt(q Cov_jj) */
	g.ehx = sqrt(fmax(r->q * g.cxx, 0));
	g.ehy = sqrt(fmax(r->q * g.cyy, 0));
	if ((rc = zonotope(&g, r, err)))
		return rc;
	cone_rays(&g, p);
	if (p->constraint)
		slice(&g, p);
	if (p->witness && isfinite(p->witness[g.x]) && isfinite(p->witness[g.y])) {
		g.has_witness = 1;
		g.wx = p->witness[g.x];
		g.wy = p->witness[g.y];
	}
	names2[0] = p->names[g.x];
	names2[1] = p->names[g.y];
	make_view(&g, r, 1, &w);
	w.fx = AREA_X;
	w.fy = AREA_Y;
	w.fw = AREA_W;
	w.fh = AREA_H;
	/* regions drawn small (a fifth of the view or less both ways) get a
	 * zoomed panel of their own below the legend */
	make_view(&g, r, 0, &zoom);
	show_zoom = (zoom.x1 - zoom.x0) < 0.2 * (w.x1 - w.x0) &&
		(zoom.y1 - zoom.y0) < 0.2 * (w.y1 - w.y0);

	cp_buf_init(&bounds);
	cp_buf_init(&shapes);
	cp_buf_init(&legend_svg);
	cone_bounds(&g, names2, &bounds);
	panel(&shapes, &g, &w, r, p, tags, "area");
	rows = draw_legend(&legend_svg, p, &g, bounds.data ? bounds.data : "");
	height = PLOT_H;
	if (show_zoom) {
		zoom.fx = ZOOM_X;
		zoom.fy = LEGEND_Y + (int)rows * LEGEND_LINE + 22;
		zoom.fw = ZOOM_W;
		zoom.fh = ZOOM_H;
		height = zoom.fy + ZOOM_H + 30 > height ? zoom.fy + ZOOM_H + 30 : height;
	}
	cp_buf_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"cp-plot\" "
		      "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		      "font-family=\"sans-serif\" role=\"img\">\n<title>",
		      PLOT_W, height, PLOT_W, height);
	report_html_text(b, names2[0]);
	cp_buf_puts(b, " against ");
	report_html_text(b, names2[1]);
	cp_buf_puts(b, "</title>\n");
	if (g.has_line)
		slice_caption(b, &g);
	cp_buf_append(b, shapes.data, shapes.len);
	put_tags(b, tags);
	axes(b, &w, names2[0], names2[1], "cp-axis");
	cp_buf_append(b, legend_svg.data, legend_svg.len);
	if (show_zoom) {
		cp_buf_printf(b, "<g class=\"cp-zoom\">\n<text class=\"cp-zoom-title\" "
			      "x=\"%d\" y=\"%d\" font-size=\"12\">the regions, zoomed "
			      "(same counters)</text>\n", ZOOM_X - 60, zoom.fy - 10);
		panel(b, &g, &zoom, r, p, NULL, "zoom");
		axes(b, &zoom, NULL, NULL, "cp-zoom-axis");
		cp_buf_puts(b, "</g>\n");
	}
	cp_buf_puts(b, "</svg>\n");
	b->failed |= shapes.failed | legend_svg.failed;
	cp_buf_release(&shapes);
	cp_buf_release(&legend_svg);
	rc = bounds.failed ? cp_error_set(err, CP_ENOMEM, "out of memory") : CP_OK;
	cp_buf_release(&bounds);
	cp_free(g.zx);
	cp_free(g.zy);
	return rc;
}
