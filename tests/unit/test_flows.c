/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_flows.c: flow bounds (solver/flows.c) on cases whose
 * answer is known in closed form (flows identified by the counters, box
 * vertices, the ellipsoid's support function), on random instances that
 * hold a known flow, and through the pipeline on a toy model whose
 * feature adds one identified signature. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/unit/check.h"

#include "pipeline/pipeline.h"
#include "solver/feas.h"
#include "stats/region.h"

static struct feas_query box(enum feas_shape shape, const double *mu,
			     const double *half, const double *axes)
{
	struct feas_query q;

	memset(&q, 0, sizeof q);
	q.shape = shape;
	q.mu = mu;
	q.half = half;
	q.axes = axes;
	return q;
}

/* Columns (1,0) and (1,1): lambda_a = x1 - x2, lambda_b = x2, identified.
 * Box [9,11] x [4,6] inside the cone (x1 >= x2): flow on a in [3, 7];
 * share of a per x1 (b = column's first count) in [1 - 6/9, 1 - 4/11]. */
static void test_identified_box(void)
{
	static const uint32_t S[] = { 1, 0, 1, 1 };
	double mu[] = { 10, 5 }, half[] = { 1, 1 };
	double a[] = { 1, 0 }, per[] = { 1, 1 };
	struct feas_flow_quantity qs[2] = { { a, NULL }, { a, per } };
	struct feas_bound out[2];
	struct feas_flows *ff = NULL;
	struct feas_query q = box(FEAS_INDEPENDENT, mu, half, NULL);
	struct cp_error err;
	int feasible = 0;

	cp_error_clear(&err);
	CHECK(feas_flows_new(2, 2, S, &ff, &err) == CP_OK);
	CHECK(feas_flows_bound(ff, &q, 2, qs, out, &feasible, &err) == CP_OK);
	CHECK(feasible);
	CHECK(out[0].defined && out[1].defined);
	CHECK(out[0].lo <= 3 && out[0].hi >= 7);
	CHECK_NEAR(out[0].lo, 3, 1e-9);
	CHECK_NEAR(out[0].hi, 7, 1e-9);
	CHECK_NEAR(out[0].lo_at, 3, 1e-9);
	CHECK_NEAR(out[0].hi_at, 7, 1e-9);
	CHECK(out[1].lo <= 1 - 6.0 / 9 && out[1].hi >= 1 - 4.0 / 11);
	CHECK_NEAR(out[1].lo, 1 - 6.0 / 9, 1e-9);
	CHECK_NEAR(out[1].hi, 1 - 4.0 / 11, 1e-9);
	CHECK(!out[0].inexact && !out[1].inexact);
	feas_flows_free(ff);
	feas_thread_end();
}

/* The same columns in a box along the diagonals: the extremes of the
 * (linear) flow and share are at the box's four vertices. */
static void test_identified_pca(void)
{
	static const uint32_t S[] = { 1, 0, 1, 1 };
	double r = sqrt(0.5);
	double axes[] = { r, r, -r, r };
	double mu[] = { 10, 4 }, half[] = { 2, 1 };
	double a[] = { 1, 0 }, per[] = { 1, 1 };
	struct feas_flow_quantity qs[2] = { { a, NULL }, { a, per } };
	struct feas_bound out[2];
	struct feas_flows *ff = NULL;
	struct feas_query q = box(FEAS_PCA, mu, half, axes);
	struct cp_error err;
	double lo = INFINITY, hi = -INFINITY, slo = INFINITY, shi = -INFINITY;
	int feasible = 0, s, t;

	for (s = -1; s <= 1; s += 2)
		for (t = -1; t <= 1; t += 2) {
			double x1 = mu[0] + s * half[0] * axes[0] + t * half[1] * axes[2];
			double x2 = mu[1] + s * half[0] * axes[1] + t * half[1] * axes[3];

			lo = fmin(lo, x1 - x2);
			hi = fmax(hi, x1 - x2);
			slo = fmin(slo, (x1 - x2) / x1);
			shi = fmax(shi, (x1 - x2) / x1);
		}
	cp_error_clear(&err);
	CHECK(feas_flows_new(2, 2, S, &ff, &err) == CP_OK);
	CHECK(feas_flows_bound(ff, &q, 2, qs, out, &feasible, &err) == CP_OK);
	CHECK(feasible);
	CHECK(out[0].lo <= lo && out[0].hi >= hi);
	CHECK_NEAR(out[0].lo, lo, 1e-9);
	CHECK_NEAR(out[0].hi, hi, 1e-9);
	CHECK(out[1].lo <= slo && out[1].hi >= shi);
	CHECK_NEAR(out[1].lo, slo, 1e-9);
	CHECK_NEAR(out[1].hi, shi, 1e-9);
	feas_flows_free(ff);
	feas_thread_end();
}

/* Ellipsoid: the flow on column a is x1 - x2, whose range over the
 * ellipsoid is c.mu +- sqrt(q c'cov c).  The cuts' bounds are outer and
 * close. */
static void test_identified_ellipsoid(void)
{
	static const uint32_t S[] = { 1, 0, 1, 1 };
	double mu[] = { 10, 4 }, cov[] = { 0.5, 0.2, 0.2, 0.3 };
	double a[] = { 1, 0 };
	struct feas_flow_quantity qs[1] = { { a, NULL } };
	struct feas_bound out[1];
	struct feas_flows *ff = NULL;
	struct feas_query q;
	struct cp_error err;
	double spread = sqrt(9.21 * (0.5 - 2 * 0.2 + 0.3));
	int feasible = 0;

	memset(&q, 0, sizeof q);
	q.shape = FEAS_ELLIPSOID;
	q.mu = mu;
	q.cov = cov;
	q.q = 9.21;
	cp_error_clear(&err);
	CHECK(feas_flows_new(2, 2, S, &ff, &err) == CP_OK);
	CHECK(feas_flows_bound(ff, &q, 1, qs, out, &feasible, &err) == CP_OK);
	CHECK(feasible);
	CHECKF(out[0].lo <= 6 - spread && out[0].hi >= 6 + spread, "[%g, %g] vs %g +- %g",
	       out[0].lo, out[0].hi, 6.0, spread);
	CHECK_NEAR(out[0].lo, 6 - spread, 1e-4 * spread);
	CHECK_NEAR(out[0].hi, 6 + spread, 1e-4 * spread);
	feas_flows_free(ff);
	feas_thread_end();
}

/* A region the cone misses (x2 > x1 everywhere): no flow. */
static void test_no_flow(void)
{
	static const uint32_t S[] = { 1, 0, 1, 1 };
	double mu[] = { 3, 8 }, half[] = { 1, 1 };
	double a[] = { 1, 0 };
	struct feas_flow_quantity qs[1] = { { a, NULL } };
	struct feas_bound out[1];
	struct feas_flows *ff = NULL;
	struct feas_query q = box(FEAS_INDEPENDENT, mu, half, NULL);
	struct cp_error err;
	int feasible = 1;

	cp_error_clear(&err);
	CHECK(feas_flows_new(2, 2, S, &ff, &err) == CP_OK);
	CHECK(feas_flows_bound(ff, &q, 1, qs, out, &feasible, &err) == CP_OK);
	CHECK(!feasible);
	feas_flows_free(ff);
	feas_thread_end();
}

/* A column that counts nothing has no bounded flow: refused, named. */
static void test_zero_column(void)
{
	static const uint32_t S[] = { 1, 0, 0, 0 };
	struct feas_flows *ff = NULL;
	struct cp_error err;

	cp_error_clear(&err);
	CHECK(feas_flows_new(2, 2, S, &ff, &err) == CP_EINPUT);
	CHECK(strstr(err.msg, "column 2") != NULL);
	CHECK(ff == NULL);
}

/* A share whose denominator can be 0 on the region is undefined. */
static void test_share_undefined(void)
{
	static const uint32_t S[] = { 1, 0, 0, 1 };
	double mu[] = { 5, 0.5 }, half[] = { 1, 1 };
	double a[] = { 1, 0 }, per[] = { 0, 1 };
	struct feas_flow_quantity qs[1] = { { a, per } };
	struct feas_bound out[1];
	struct feas_flows *ff = NULL;
	struct feas_query q = box(FEAS_INDEPENDENT, mu, half, NULL);
	struct cp_error err;
	int feasible = 0;

	cp_error_clear(&err);
	CHECK(feas_flows_new(2, 2, S, &ff, &err) == CP_OK);
	CHECK(feas_flows_bound(ff, &q, 1, qs, out, &feasible, &err) == CP_OK);
	CHECK(feasible);
	CHECK(!out[0].defined);
	feas_flows_free(ff);
	feas_thread_end();
}

static unsigned rnd_state = 12345;

static double rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (double)((rnd_state >> 8) & 0xffff) / 65536.0;
}

/* Random instances that hold a known flow lambda0: columns of small
 * counts, repeats allowed; x0 = S^T lambda0 at the centre of a box (of
 * every shape).  lambda0's rate and share must lie inside the bounds,
 * which bracket the values the verified flows attain; the batch gives
 * the single-thread results. */
static void test_random_known_flow(void)
{
	enum { K = 4, N = 9, CASES = 60 };
	uint32_t S[N * K];
	double lam[N], x[K], half[K], axes[K * K], cov[K * K], a[N], per[N];
	struct feas_flow_quantity qs[2] = { { a, NULL }, { a, per } };
	struct feas_query qq[3];
	struct feas_bound out[3][2], bout[3 * 2];
	int feas[3], bfeas[3];
	int c, i, j, shape, o3, bad = 0, sloppy = 0;

	for (c = 0; c < CASES; c++) {
		struct feas_flows *ff = NULL;
		struct cp_error err;
		double av = 0, bv = 0;

		for (j = 0; j < N; j++) {
			int any = 0;

			for (i = 0; i < K; i++) {
				S[j * K + i] = rnd() < 0.5 ? (uint32_t)(rnd() * 3) : 0;
				any |= S[j * K + i] != 0;
			}
			if (!any)
				S[j * K + (size_t)j % K] = 1;
			lam[j] = rnd() < 0.3 ? 0 : 100 * rnd();
			a[j] = rnd() < 0.4;
			per[j] = 1;
		}
		for (i = 0; i < K; i++) {
			x[i] = 0;
			for (j = 0; j < N; j++)
				x[i] += S[j * K + i] * lam[j];
			half[i] = 0.5 + 5 * rnd();
		}
		for (j = 0; j < N; j++) {
			av += a[j] * lam[j];
			bv += per[j] * lam[j];
		}
		/* a rotation: Gram-Schmidt of random vectors */
		for (i = 0; i < K; i++) {
			int l;

			for (j = 0; j < K; j++)
				axes[i * K + j] = rnd() - 0.5;
			for (l = 0; l < i; l++) {
				double d = 0;

				for (j = 0; j < K; j++)
					d += axes[i * K + j] * axes[l * K + j];
				for (j = 0; j < K; j++)
					axes[i * K + j] -= d * axes[l * K + j];
			}
			{
				double nn = 0;

				for (j = 0; j < K; j++)
					nn += axes[i * K + j] * axes[i * K + j];
				for (j = 0; j < K; j++)
					axes[i * K + j] /= sqrt(nn);
			}
		}
		for (i = 0; i < K; i++)
			for (j = 0; j < K; j++)
				cov[i * K + j] = (i == j ? half[i] * half[i] : 0) +
					0.1 * half[i] * half[j];
		cp_error_clear(&err);
		if (feas_flows_new(K, N, S, &ff, &err) != CP_OK) {
			bad++;
			continue;
		}
		/* the ellipsoid first: the next region drops its cuts */
		for (o3 = 0; o3 < 3; o3++) {
			shape = (o3 + 2) % 3;
			memset(&qq[shape], 0, sizeof qq[shape]);
			qq[shape].shape = (enum feas_shape)shape;
			qq[shape].mu = x;
			qq[shape].half = half;
			qq[shape].axes = axes;
			qq[shape].cov = cov;
			qq[shape].q = 7.8;
			if (feas_flows_bound(ff, &qq[shape], 2, qs, out[shape], &feas[shape],
					     &err) != CP_OK || !feas[shape]) {
				printf("  case %d shape %d: %s\n", c, shape, err.msg);
				bad++;
				continue;
			}
			for (j = 0; j < 2; j++) {
				const struct feas_bound *o = &out[shape][j];
				double v = j ? av / bv : av;

				if (!(o->defined && o->lo <= v && v <= o->hi)) {
					printf("  case %d shape %d q %d: %.17g not in [%.17g, %.17g]\n",
					       c, shape, j, v, o->lo, o->hi);
					bad++;
				}
				if (!(o->lo <= o->lo_at + 1e-9 * (1 + fabs(o->lo_at)) &&
				      o->hi_at <= o->hi + 1e-9 * (1 + fabs(o->hi_at)))) {
					printf("  case %d shape %d q %d: attained [%.17g, %.17g] outside [%.17g, %.17g]\n",
					       c, shape, j, o->lo_at, o->hi_at, o->lo, o->hi);
					bad++;
				}
				/* certificates are tight to the attained values */
				if (fabs(o->lo - o->lo_at) > 1e-6 * (1 + fabs(o->lo_at)) ||
				    fabs(o->hi - o->hi_at) > 1e-6 * (1 + fabs(o->hi_at)))
					sloppy++;
			}
		}
		if (feas_flows_batch(ff, 3, qq, NULL, 2, qs, 2, bout, bfeas, &err) != CP_OK)
			bad++;
		for (shape = 0; shape < 3; shape++)
			for (j = 0; j < 2; j++)
				if (!bfeas[shape] ||
				    fabs(bout[shape * 2 + j].lo - out[shape][j].lo) >
				    1e-7 * (1 + fabs(out[shape][j].lo)) ||
				    fabs(bout[shape * 2 + j].hi - out[shape][j].hi) >
				    1e-7 * (1 + fabs(out[shape][j].hi)))
					bad++;
		feas_flows_free(ff);
		feas_thread_end();
	}
	CHECKF(bad == 0, "%d failures", bad);
	CHECKF(sloppy <= CASES / 20, "%d loose certificates", sloppy);
}

/* ---- through the pipeline ---- */

/* Baseline: a load hits the TLB (retired) or walks (walk, retired, STLB
 * miss).  merge: a miss may merge into another's walk (retired, STLB
 * miss, no walk); decoy changes nothing. */
static const char toy_model[] =
	"counter walks \"T.WALKS\";\n"
	"counter retired \"T.RETIRED\";\n"
	"counter stlb_miss \"T.STLB_MISS\";\n"
	"property tlb { hit, miss };\n"
	"property mshr { merged, allocated };\n"
	"feature merge \"walks merge\";\n"
	"feature decoy \"changes nothing\";\n"
	"uop load {\n"
	"    switch (tlb) { case hit: incr retired; done; case miss: lookup; }\n"
	"    if (merge) { switch (mshr) { case merged: incr retired, stlb_miss; done;\n"
	"                 case allocated: walk; } }\n"
	"    if (decoy) { nothing; }\n"
	"    incr walks, retired, stlb_miss;\n"
	"    done;\n"
	"}\n";

/* The retirement counter is "retired" here, not "load.retired": the
 * share is per counted μop (the flow on all of load's columns), which is
 * retired (each column counts it once). */
static void test_pipeline_toy(void)
{
	struct udd_model *m = NULL;
	struct stats_dataset *d = NULL;
	struct pipe_data *pd = NULL;
	struct pipe_model *pm = NULL;
	struct pipe_flows *pf = NULL;
	struct feas_result res[1];
	struct pipe_flow_bounds out[2];
	enum pipe_flow_status st[1];
	struct pipe_options po;
	udd_features sel = 0;
	struct cp_error err;
	struct cp_buf b;
	unsigned seed = 7;
	int i, e;

	cp_error_clear(&err);
	CHECK(udd_model_parse_string("toy.udd", toy_model, strlen(toy_model), &m, &err) == CP_OK);
	CHECK(udd_model_select(m, "merge,decoy", &sel, &err) == CP_OK);
	cp_buf_init(&b);
	cp_buf_puts(&b, "observation,interval,event,value,enabled_ns,running_ns\n");
	/* per second: 1000 retired, 100 walks, 130 STLB misses: 30 merged */
	for (i = 0; i < 40; i++)
		for (e = 0; e < 3; e++) {
			static const char *const ev[3] = { "T.WALKS", "T.RETIRED", "T.STLB_MISS" };
			static const double mean[3] = { 100, 1000, 130 };
			double noise;

			seed = seed * 1103515245u + 12345u;
			noise = ((double)((seed >> 8) % 2001) - 1000.0) / 1000.0;
			cp_buf_printf(&b, "run,%d,%s,%.0f,1000000000,1000000000\n", i, ev[e],
				      mean[e] + 2 * noise);
		}
	CHECK(stats_dataset_parse("toy.csv", b.data, b.len, &d, NULL, &err) == CP_OK);
	memset(&po, 0, sizeof po);
	po.shape = FEAS_INDEPENDENT;
	CHECK(pipe_data_new(m, d, &po, &pd, &err) == CP_OK);
	CHECK(pipe_model_new(m, sel, pd, NULL, &pm, &err) == CP_OK);
	CHECK(pipe_flows_new(m, sel, pd, &pf, &err) == CP_OK);
	if (!pd || !pm || !pf) {
		printf("  %s\n", err.msg);
		goto out;
	}
	CHECK(pipe_flows_n_columns(pf) == 3);
	CHECK(pipe_flows_n_uops(pf) == 1);
	CHECK(pipe_flows_n_features(pf) == 2);
	CHECK_STR(pipe_flows_feature(pf, 0), "merge");
	CHECK(pipe_flows_n_needing(pf, 0, 0) == 1);   /* retired + stlb_miss */
	CHECK(pipe_flows_n_needing(pf, 0, 1) == 0);   /* decoy adds nothing */
	CHECK(pipe_flows_per(pf, 0) == NULL);
	feas_result_init(&res[0]);
	CHECK(pipe_check(pm, pd, 0, 1, res, NULL, NULL, NULL, &err) == CP_OK);
	CHECK(res[0].feasible);
	CHECK(pipe_flows_bound(pf, pd, res, 1, out, st, &err) == CP_OK);
	CHECK(st[0] == PIPE_FLOWS_BOUNDED);
	{
		/* merged = stlb_miss - walks, exactly: the box's range of it */
		const struct region *r = pipe_data_region(pd, 0);
		double lo = r->mu[2] - r->half_ind[2] - (r->mu[0] + r->half_ind[0]);
		double hi = r->mu[2] + r->half_ind[2] - (r->mu[0] - r->half_ind[0]);

		CHECK(out[0].rate.lo <= lo + 1e-9 && out[0].rate.hi >= hi - 1e-9);
		CHECK_NEAR(out[0].rate.lo, lo, 1e-6 * hi);
		CHECK_NEAR(out[0].rate.hi, hi, 1e-6 * hi);
		CHECK(out[0].rate.lo < 30 && 30 < out[0].rate.hi);
		CHECK(out[0].share.defined);
		CHECK(out[0].share.lo < 0.03 && 0.03 < out[0].share.hi);
		CHECK(out[0].share.hi < 0.05);
	}
	feas_result_release(&res[0]);
out:
	cp_buf_release(&b);
	pipe_flows_free(pf);
	pipe_model_free(pm);
	pipe_data_free(pd);
	stats_dataset_free(d);
	udd_model_free(m);
	feas_thread_end();
}

int main(void)
{
	check_prog = "test_flows";
	RUN(test_identified_box);
	RUN(test_identified_pca);
	RUN(test_identified_ellipsoid);
	RUN(test_no_flow);
	RUN(test_zero_column);
	RUN(test_share_undefined);
	RUN(test_random_known_flow);
	RUN(test_pipeline_toy);
	return check_summary();
}
