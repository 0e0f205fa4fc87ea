/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_report.c: the HTML report's parts.  Escaping; which
 * counters a plot takes; the plot's structure (every shape, both axes with
 * the counters' names, a legend row for every shape, the zoomed panel
 * of small regions) against a golden list of its classes; the projections' sizes against their closed forms
 * (the zonotope's and the ellipse's extents beside the independent box's);
 * the cone's 2-D bounds as constraints; Graphviz's SVG, and the error
 * when dot is not there. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/report.h"
#include "report/report_int.h"
#include "tests/unit/check.h"

/* ---- a region by hand: k = 3, mean (300, 1000, 5000) ---- */

struct fixture {
	double mu[3], cov[9], box_axes[9], half_pca[3], half_ind[3];
	struct region r;
};

static void fixture_init(struct fixture *f)
{
	static const double mu[3] = { 300, 1000, 5000 };
	/* covariance of the mean, correlated in the first two counters */
	static const double cov[9] = { 4, 1.5, 0, 1.5, 9, 0, 0, 0, 25 };
	/* the PCA box's axes: 45 degrees in the first plane, then counter 3 */
	static const double s = 0.70710678118654752440;
	const double axes[9] = { s, s, 0, -s, s, 0, 0, 0, 1 };
	static const double half_pca[3] = { 2, 5, 7 };
	static const double half_ind[3] = { 6, 9, 15 };

	memset(f, 0, sizeof *f);
	memcpy(f->mu, mu, sizeof mu);
	memcpy(f->cov, cov, sizeof cov);
	memcpy(f->box_axes, axes, sizeof axes);
	memcpy(f->half_pca, half_pca, sizeof half_pca);
	memcpy(f->half_ind, half_ind, sizeof half_ind);
	f->r.k = 3;
	f->r.n = 20;
	f->r.confidence = 0.99;
	f->r.mu = f->mu;
	f->r.cov = f->cov;
	f->r.axes = f->box_axes;
	f->r.box_axes = f->box_axes;
	f->r.half_pca = f->half_pca;
	f->r.half_ind = f->half_ind;
	f->r.q = 9;
}

static const char *const names3[3] = { "load.pde_miss", "load.causes_walk",
					"load.retired" };

/* signatures of walk_basic's shape: (pde_miss, causes_walk, retired) */
static const uint32_t sigs3[] = { 0, 0, 1,  0, 1, 1,  1, 1, 1 };

static void plot_init(struct report_plot *p, const struct fixture *f,
		      const int64_t *a)
{
	memset(p, 0, sizeof *p);
	p->region = &f->r;
	p->checked = FEAS_PCA;
	p->names = names3;
	p->signatures = sigs3;
	p->n_signatures = 3;
	p->constraint = a;
	p->margin = 152;
	p->mean_sd = -159;
	p->role = "most violated";
	p->id = "t1";
}

/* The classes of the SVG in document order, ticks and swatches left out
 * (their number follows the data), as one space-separated line. */
static void classes_of(const char *svg, char *out, size_t size)
{
	const char *p = svg;
	size_t len = 0;

	out[0] = '\0';
	while ((p = strstr(p, "class=\""))) {
		const char *e;
		size_t n;

		p += 7;
		e = strchr(p, '"');
		if (!e)
			break;
		n = (size_t)(e - p);
		if ((n == 7 && !strncmp(p, "cp-tick", 7)) ||
		    (n == 9 && !strncmp(p, "cp-swatch", 9)))
			continue;
		if (len + n + 2 < size) {
			if (len)
				out[len++] = ' ';
			memcpy(out + len, p, n);
			len += n;
			out[len] = '\0';
		}
		p = e;
	}
}

/* The pixel extents (width, height) of the last shape of class cls:
 * a polygon's points, or an ellipse's rx, ry and turn (a rotated
 * ellipse spans 2 sqrt(rx^2 cos^2 t + ry^2 sin^2 t) across). */
static int bbox_of(const char *svg, const char *cls, double *w, double *h)
{
	char key[64];
	const char *p, *q, *end;
	double x0 = 1e300, x1 = -1e300, y0 = 1e300, y1 = -1e300, x, y;
	int n, any = 0;

	snprintf(key, sizeof key, "class=\"%s\"", cls);
	for (p = NULL, q = svg; (q = strstr(q, key)); q++)
		p = q;
	if (!p)
		return 0;
	end = strchr(p, '>');
	if (!strncmp(p - 9, "<ellipse ", 9)) {
		double rx, ry, t, c, sn;
		const char *r = strstr(p, "rx=\""), *r2 = strstr(p, "ry=\"");
		const char *tr = strstr(p, "rotate(");

		if (!r || !r2 || !tr || r > end || r2 > end || tr > end ||
		    sscanf(r + 4, "%lf", &rx) != 1 || sscanf(r2 + 4, "%lf", &ry) != 1 ||
		    sscanf(tr + 7, "%lf", &t) != 1)
			return 0;
		c = cos(t * M_PI / 180);
		sn = sin(t * M_PI / 180);
		*w = 2 * sqrt(rx * rx * c * c + ry * ry * sn * sn);
		*h = 2 * sqrt(rx * rx * sn * sn + ry * ry * c * c);
		return 1;
	}
	if (!(p = strstr(p, "points=\"")) || p > end)
		return 0;
	p += 8;
	end = strchr(p, '"');
	while (p < end && sscanf(p, "%lf,%lf%n", &x, &y, &n) == 2) {
		x0 = x < x0 ? x : x0;
		x1 = x > x1 ? x : x1;
		y0 = y < y0 ? y : y0;
		y1 = y > y1 ? y : y1;
		any = 1;
		p += n;
		while (*p == ' ')
			p++;
	}
	*w = x1 - x0;
	*h = y1 - y0;
	return any;
}

static void test_escape(void)
{
	struct cp_buf b;

	cp_buf_init(&b);
	report_html_text(&b, "<a & 'b'>\"c\"");
	CHECK_STR(b.data, "&lt;a &amp; &#39;b&#39;&gt;&quot;c&quot;");
	cp_buf_release(&b);
}

/* Numbers as a report prints them: rounding noise is 0, three digits,
 * whole numbers past a thousand */
static void test_number(void)
{
	static const struct { double v; const char *want; } cases[] = {
		{ 3.55e-15, "0" }, { -0.004, "0" }, { 0.367, "0.367" }, { 71.67, "71.7" },
		{ -78.14, "-78.1" }, { 999.4, "999" }, { 1313.56, "1314" },
		{ 654321.2, "654321" }, { 2.5e6, "2.5e+06" }, { NAN, "undefined" },
	};
	char t[32];
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		report_number_str(t, sizeof t, cases[i].v);
		CHECK_STR(t, cases[i].want);
	}
}

/* A feasible observation's plot: the witness (a point of the region in
 * the cone) drawn, with its legend row; the tick labels in units */
static void test_plot_witness(void)
{
	struct fixture f;
	struct report_plot p;
	struct cp_buf b;
	struct cp_error err;
	static const double w[3] = { 299, 1001, 5000 };
	static const int64_t a[3] = { -1, 1, 0 };

	fixture_init(&f);
	plot_init(&p, &f, a);
	p.witness = w;
	p.role = "tightest";
	cp_buf_init(&b);
	cp_error_clear(&err);
	CHECK(report_plot_svg(&p, &b, &err) == CP_OK);
	CHECK(b.data && strstr(b.data, "<polygon class=\"cp-witness\""));
	CHECK(b.data && strstr(b.data, "cp-legend-witness\" x=\"596\" y=\"234\">in region "
			       "and cone (the LP&#39;s)</text>"));
	/* the axes reach 0 from 1000: ticks 0, 200, ...; in the zoomed
	 * panel 995, 1000, ... (no units below 10^4) */
	CHECK(b.data && strstr(b.data, ">0</text><text x=\"201.5\" y=\"402\">200</text>"));
	CHECK(b.data && strstr(b.data, ">995</text>") && strstr(b.data, ">1005</text>"));
	cp_buf_release(&b);
}

static void test_axes(void)
{
	struct fixture f;
	struct report_plot p;
	size_t x, y;
	/* terms |a_j mu_j|: 300, 2000, 0 */
	static const int64_t a1[3] = { -1, 2, 0 };
	/* one counter in the constraint: the other axis is the largest mean */
	static const int64_t a2[3] = { 1, 0, 0 };

	fixture_init(&f);
	plot_init(&p, &f, a1);
	report_plot_axes(&p, &x, &y);
	CHECK(x == 1 && y == 0);
	plot_init(&p, &f, a2);
	report_plot_axes(&p, &x, &y);
	CHECK(x == 0 && y == 2);
	plot_init(&p, &f, NULL);
	report_plot_axes(&p, &x, &y);
	CHECK(x == 2 && y == 1);
}

/* The golden structure of a plot: the slice's caption, the cone's wedge
 * and the one edge in view (pde_miss <= causes_walk; pde_miss >= 0 lies
 * below it; the legend names both), the violated side, the band of a.x
 * over the region with its two edges, the constraint, the three regions,
 * the mean, the edge's tag, both axes with their labels, the legend's
 * title and a row per shape. */
static const char golden_classes[] =
	"cp-plot cp-slice cp-area cp-shapes cp-cone cp-cone-edge "
	"cp-violated-side cp-range cp-range-edge cp-range-edge cp-constraint "
	"cp-ellipsoid cp-box-pca cp-box-independent cp-mean cp-cone-tag "
	"cp-axis cp-axis-x cp-axis-label cp-axis cp-axis-y cp-axis-label "
	"cp-legend cp-legend-title cp-legend-item cp-legend-cone "
	"cp-legend-item cp-legend-cone-bound cp-legend-item cp-legend-cone-bound "
	"cp-legend-item cp-legend-constraint cp-legend-item cp-legend-violated "
	"cp-legend-item cp-legend-range cp-legend-item cp-legend-box-independent "
	"cp-legend-item cp-legend-box-pca cp-legend-item cp-legend-ellipsoid "
	"cp-legend-item cp-legend-mean "
	/* the regions are small beside the line: their zoomed panel */
	"cp-zoom cp-zoom-title cp-area cp-shapes cp-cone cp-range cp-ellipsoid "
	"cp-box-pca cp-box-independent cp-mean cp-axis cp-zoom-axis-x cp-axis "
	"cp-zoom-axis-y";

static void test_plot_structure(void)
{
	struct fixture f;
	struct report_plot p;
	struct cp_buf b;
	struct cp_error err;
	char classes[4096];
	static const int64_t a[3] = { -1, 1, 0 };  /* pde_miss <= causes_walk */

	fixture_init(&f);
	plot_init(&p, &f, a);
	cp_buf_init(&b);
	cp_error_clear(&err);
	CHECK(report_plot_svg(&p, &b, &err) == CP_OK);
	CHECK(!b.failed && b.data);
	if (!b.data)
		return;
	classes_of(b.data, classes, sizeof classes);
	CHECK_STR(classes, golden_classes);
	/* the axes are named after the counters, the title says both */
	CHECK(strstr(b.data, "cp-axis-label\" x=\"316\" y=\"424\" text-anchor=\"middle\" "
		     "font-size=\"13\">load.causes_walk (per second)</text>") != NULL);
	CHECK(strstr(b.data, ">load.pde_miss (per second)</text>") != NULL);
	CHECK(strstr(b.data, "<title>load.causes_walk against load.pde_miss</title>"));
	CHECK(strstr(b.data, ">PCA box (checked)</text>") != NULL);
	CHECK(strstr(b.data, ">most violated: margin 152 sd</text>") != NULL);
	CHECK(strstr(b.data, "clip-path=\"url(#t1-area)\"") != NULL);
	CHECK(strstr(b.data, ">B: load.pde_miss &lt;= load.causes_walk</text>") != NULL);
	CHECK(strstr(b.data, ">A: load.pde_miss &gt;= 0</text>") != NULL);
	/* the edge in view is tagged where it leaves the frame, above it */
	CHECK(strstr(b.data, "y=\"38.0\" text-anchor=\"middle\" font-size=\"11\" "
		     "font-weight=\"bold\" fill=\"#3d85c6\">B</text>") != NULL);
	CHECK(strstr(b.data, ">constraint sliced at the mean of the other 1 counter</text>"));
	CHECK(strstr(b.data, ">mean (a.x at -159 sd)</text>"));
	CHECK(strstr(b.data, "<=") == NULL);
	CHECK(strstr(b.data, "<script") == NULL);
	cp_buf_release(&b);
}

/* Sizes against the closed forms, as ratios of pixel extents (one scale
 * per axis) in the zoomed panel, where the regions fill the view: PCA
 * box sum_i h_i |v_i|, ellipse sqrt(q Cov_jj), independent box
 * half_ind_j. */
static void test_plot_projections(void)
{
	struct fixture f;
	struct report_plot p;
	struct cp_buf b;
	struct cp_error err;
	double rw, rh, zw, zh, ew, eh;
	static const double s = 0.70710678118654752440;
	static const int64_t a[3] = { -1, 1, 0 };  /* axes: x = causes_walk, y = pde_miss */

	fixture_init(&f);
	plot_init(&p, &f, a);
	cp_buf_init(&b);
	cp_error_clear(&err);
	CHECK(report_plot_svg(&p, &b, &err) == CP_OK);
	if (!b.data)
		return;
	CHECK(bbox_of(b.data, "cp-box-independent", &rw, &rh));
	CHECK(bbox_of(b.data, "cp-box-pca", &zw, &zh));
	CHECK(bbox_of(b.data, "cp-ellipsoid", &ew, &eh));
	/* x is counter 1 (half_ind 9), y counter 0 (half_ind 6) */
	CHECK_NEAR(zw / rw, (2 * s + 5 * s) / 9, 2e-3);
	CHECK_NEAR(zh / rh, (2 * s + 5 * s) / 6, 2e-3);
	CHECK_NEAR(ew / rw, sqrt(9 * 9.0) / 9, 2e-3);
	CHECK_NEAR(eh / rh, sqrt(9 * 4.0) / 6, 2e-3);
	cp_buf_release(&b);
}

/* The projected cone's bounds are the extreme projected signatures, each
 * written as a 2-D constraint; one ray is an equality; all zero says so. */
static void test_plot_cone(void)
{
	struct fixture f;
	struct report_plot p;
	struct cp_buf b;
	struct cp_error err;
	/* (pde_miss, causes_walk) = (2, 1), (1, 3), (1, 1): between angles
	 * atan(1/2) and atan(3) */
	static const uint32_t wedge[] = { 2, 1, 0,  1, 3, 0,  1, 1, 0 };
	static const uint32_t ray[] = { 1, 1, 0,  2, 2, 5 };
	static const uint32_t none[] = { 0, 0, 4 };

	fixture_init(&f);
	plot_init(&p, &f, NULL);
	p.signatures = wedge;
	p.n_signatures = 3;
	/* without a constraint: axes retired (x) and causes_walk (y); put
	 * the signatures' plane on the axes with a constraint on it */
	{
		static const int64_t a[3] = { 3, -1, 0 };

		p.constraint = a;
		cp_buf_init(&b);
		cp_error_clear(&err);
		CHECK(report_plot_svg(&p, &b, &err) == CP_OK);
		CHECK(b.data && strstr(b.data, ">A: load.causes_walk &lt;= 3*load.pde_miss<"));
		CHECK(b.data && strstr(b.data, ">B: load.pde_miss &lt;= 2*load.causes_walk<"));
		CHECK(b.data && strstr(b.data, ">cone, projected (3 signatures)<"));
		cp_buf_release(&b);
		p.signatures = ray;
		p.n_signatures = 2;
		cp_buf_init(&b);
		CHECK(report_plot_svg(&p, &b, &err) == CP_OK);
		CHECK(b.data && strstr(b.data, ">A: load.causes_walk = load.pde_miss<"));
		CHECK(b.data && !strstr(b.data, "class=\"cp-cone\""));
		cp_buf_release(&b);
		p.signatures = none;
		p.n_signatures = 1;
		cp_buf_init(&b);
		CHECK(report_plot_svg(&p, &b, &err) == CP_OK);
		CHECK(b.data && strstr(b.data, ">cone: every signature projects to 0<"));
		cp_buf_release(&b);
	}
}

static void test_plot_one_counter(void)
{
	struct fixture f;
	struct report_plot p;
	struct cp_buf b;
	struct cp_error err;

	fixture_init(&f);
	f.r.k = 1;
	plot_init(&p, &f, NULL);
	cp_buf_init(&b);
	cp_error_clear(&err);
	CHECK(report_plot_svg(&p, &b, &err) == CP_EINPUT);
	CHECK(strstr(err.msg, "two counters") != NULL);
	CHECK(b.len == 0);
	cp_buf_release(&b);
}

/* A region far narrower than its mean's resolution (rate 1e9, widths
 * 1e-8): the axes still end, with a bounded number of ticks. */
static void test_plot_tiny_region(void)
{
	struct fixture f;
	struct report_plot p;
	struct cp_buf b;
	struct cp_error err;
	const char *t;
	size_t ticks = 0, j;

	fixture_init(&f);
	for (j = 0; j < 3; j++) {
		f.mu[j] = 1e9;
		f.half_ind[j] = f.half_pca[j] = 1e-8;
	}
	for (j = 0; j < 9; j++)
		f.cov[j] = j % 4 ? 0 : 1e-17;
	plot_init(&p, &f, NULL);
	cp_buf_init(&b);
	cp_error_clear(&err);
	CHECK(report_plot_svg(&p, &b, &err) == CP_OK);
	/* every tick a move in its axis' path */
	for (t = b.data; t && (t = strstr(t, "class=\"cp-tick\" d=\"")); t++) {
		const char *e = strchr(t + 20, '"');

		for (t += 20; t < e; t++)
			ticks += *t == 'M';
	}
	CHECK(ticks <= 24);
	/* the view is the regions': no zoomed panel */
	CHECK(b.data && !strstr(b.data, "cp-zoom"));
	CHECK(b.data && strstr(b.data, "</svg>"));
	cp_buf_release(&b);
}

/* Random regions, signatures and constraints (fixed seed): every plot is
 * made, with finite coordinates, every polygon point inside the SVG. */
static double uniform(unsigned long *state)
{
	*state = *state * 6364136223846793005UL + 1442695040888963407UL;
	return (double)(*state >> 11) / 9007199254740992.0;
}

static void test_plot_random(void)
{
	enum { K = 8, M = 12 };
	double mu[K], cov[K * K], a[K * K], axes[K * K], hp[K], hi[K];
	uint32_t sig[M * K];
	int64_t con[K];
	const char *names[K] = { "c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7" };
	unsigned long st = 12345;
	struct region r;
	struct report_plot p;
	struct cp_error err;
	size_t trial, i, j, l, k, m, bad = 0;

	for (trial = 0; trial < 300; trial++) {
		struct cp_buf b;
		const char *q;

		k = 2 + (size_t)(uniform(&st) * (K - 1));
		m = 1 + (size_t)(uniform(&st) * M);
		for (i = 0; i < k; i++) {
			/* rates from 0 to 1e9, some exactly 0 */
			mu[i] = uniform(&st) < 0.2 ? 0 : pow(10, 9 * uniform(&st));
			for (j = 0; j < k; j++)
				a[i * k + j] = uniform(&st) - 0.5;
			hp[i] = uniform(&st) * mu[i] * 0.01;
			hi[i] = uniform(&st) * mu[i] * 0.01;
			con[i] = (int64_t)(uniform(&st) * 7) - 3;
		}
		/* cov = A A' scaled, axes = A's rows normalised */
		for (i = 0; i < k; i++)
			for (j = 0; j < k; j++) {
				double t = 0;

				for (l = 0; l < k; l++)
					t += a[i * k + l] * a[j * k + l];
				cov[i * k + j] = t * (1 + mu[i] * mu[j] * 1e-6);
			}
		for (i = 0; i < k; i++) {
			double n = 0;

			for (j = 0; j < k; j++)
				n += a[i * k + j] * a[i * k + j];
			for (j = 0; j < k; j++)
				axes[i * k + j] = a[i * k + j] / sqrt(n);
		}
		for (i = 0; i < m * k; i++)
			sig[i] = uniform(&st) < 0.5 ? 0 : (uint32_t)(uniform(&st) * 5);
		memset(&r, 0, sizeof r);
		r.k = k;
		r.n = 10;
		r.confidence = 0.99;
		r.mu = mu;
		r.cov = cov;
		r.box_axes = r.axes = axes;
		r.half_pca = hp;
		r.half_ind = hi;
		r.q = 20 * uniform(&st);
		memset(&p, 0, sizeof p);
		p.region = &r;
		p.checked = (enum feas_shape)(trial % 3);
		p.names = names;
		p.signatures = sig;
		p.n_signatures = m;
		p.constraint = trial % 5 ? con : NULL;
		p.is_equality = trial % 7 == 0;
		p.id = "r";
		cp_buf_init(&b);
		cp_error_clear(&err);
		if (report_plot_svg(&p, &b, &err) != CP_OK || b.failed || !b.data) {
			bad++;
			cp_buf_release(&b);
			continue;
		}
		if (strstr(b.data, "nan") || strstr(b.data, "inf"))
			bad++;
		for (q = b.data; (q = strstr(q, "points=\"")); ) {
			double x, y;
			int n;

			q += 8;
			while (sscanf(q, "%lf,%lf%n", &x, &y, &n) == 2) {
				if (!(x >= -1 && x <= 901 && y >= -1 && y <= 1000))
					bad++;
				q += n;
				while (*q == ' ')
					q++;
			}
		}
		cp_buf_release(&b);
	}
	CHECKF(bad == 0, "%zu bad plots or points", bad);
}

static int have_dot(void)
{
	return system("command -v dot >/dev/null 2>&1") == 0;
}

static void test_dot_svg(void)
{
	static const char g[] = "digraph t { a -> b [label=\"+x\"]; }\n";
	struct cp_buf svg;
	struct cp_error err;
	char *path;

	if (!have_dot()) {
		SKIP("Graphviz's dot is not installed");
	}
	cp_buf_init(&svg);
	cp_error_clear(&err);
	CHECK(report_dot_svg(g, strlen(g), &svg, &err) == CP_OK);
	CHECK(svg.data && !strncmp(svg.data, "<svg", 4));
	CHECK(svg.data && strstr(svg.data, "<title>a&#45;&gt;b</title>"));
	CHECK(svg.data && svg.len > 7 && !strcmp(svg.data + svg.len - 7, "</svg>\n"));
	cp_buf_release(&svg);
	/* a graph dot rejects: its exit status, said */
	cp_buf_init(&svg);
	CHECK(report_dot_svg("digraph {", 9, &svg, &err) == CP_EIO);
	CHECK(strstr(err.msg, "failed") != NULL);
	CHECK(svg.len == 0);
	cp_buf_release(&svg);
	/* no dot on PATH: said, with what to install */
	path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	setenv("PATH", "/nonexistent", 1);
	cp_buf_init(&svg);
	CHECK(report_dot_svg(g, strlen(g), &svg, &err) == CP_EIO);
	CHECK(strstr(err.msg, "graphviz") != NULL);
	cp_buf_release(&svg);
	if (path)
		setenv("PATH", path, 1);
	free(path);
}

int main(void)
{
	check_prog = "test_report";
	RUN(test_escape);
	RUN(test_number);
	RUN(test_plot_witness);
	RUN(test_axes);
	RUN(test_plot_structure);
	RUN(test_plot_projections);
	RUN(test_plot_cone);
	RUN(test_plot_one_counter);
	RUN(test_plot_tiny_region);
	RUN(test_plot_random);
	RUN(test_dot_svg);
	return check_summary();
}
