/* SPDX-License-Identifier: GPL-3.0-or-later */
/* report/flows.c: flow bounds as interval bars: for one bounded
 * observation, one bar per (uop, feature) with columns, the certified
 * share [lo, hi] on a 0-100% axis, labelled with the numbers as
 * `counterpoint flows` prints them (rounded outward); and the flow part
 * of an observation's section (bars, or why there are none). */
#include <stdio.h>
#include <string.h>

#include "report/report.h"

#define BAR_LABEL_CH 7.0    /* px per character of the row labels (12px) */
#define BAR_AXIS_W 360.0    /* px from 0% to 100% */
#define BAR_ROW_H 24
#define BAR_TOP 26          /* the axis' ticks above the first row */
#define BAR_NUM_W 230.0     /* the numbers right of the axis */
/* after the name of a feature whose flow the counters cannot wholly
 * attribute (pipe_flows_attributable): its bar is of the flow on its
 * identifiable signatures only */
#define PART_LABEL " (identifiable part)"

/* x of share v (a fraction) on the axis starting at x0; shares beyond
 * [0, 1] (a share per retired μop can pass 100%) stop at the edge. */
static double bar_x(double x0, double v)
{
	if (!(v > 0))
		v = 0;
	if (v > 1)
		v = 1;
	return x0 + v * BAR_AXIS_W;
}

void report_flow_bars_svg(const struct pipe_flows *pf,
			  const struct pipe_flow_bounds *row, const char *title,
			  struct cp_buf *b)
{
	size_t nu = pipe_flows_n_uops(pf), nf = pipe_flows_n_features(pf), u, f;
	size_t rows = 0, label = 0, r = 0;
	double x0, width;
	int height, t;

	for (u = 0; u < nu; u++)
		for (f = 0; f < nf; f++)
			if (pipe_flows_n_needing(pf, u, f)) {
				size_t len = strlen(pipe_flows_uop(pf, u)) +
					strlen(pipe_flows_feature(pf, f)) + 1 +
					(pipe_flows_attributable(pf, u, f) ? 0 :
					 strlen(PART_LABEL));

				rows++;
				label = len > label ? len : label;
			}
	x0 = 12 + (double)label * BAR_LABEL_CH + 12;
	width = x0 + BAR_AXIS_W + 12 + BAR_NUM_W;
	height = BAR_TOP + (int)rows * BAR_ROW_H + 8;
	cp_buf_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"cp-flows\" "
		      "width=\"%.0f\" height=\"%d\" viewBox=\"0 0 %.0f %d\" "
		      "font-family=\"sans-serif\" role=\"img\">\n<title>", width, height,
		      width, height);
	report_html_text(b, title);
	cp_buf_puts(b, "</title>\n<g class=\"cp-flows-axis\" font-size=\"10\">\n");
	for (t = 0; t <= 100; t += 25) {
		double x = x0 + BAR_AXIS_W * t / 100.0;

		cp_buf_printf(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			      "stroke=\"#ccc\"/><text x=\"%.1f\" y=\"%d\" "
			      "text-anchor=\"middle\" fill=\"#444\">%d%%</text>\n", x,
			      BAR_TOP - 6, x, height - 6, x, BAR_TOP - 10, t);
	}
	cp_buf_puts(b, "</g>\n");
	for (u = 0; u < nu; u++)
		for (f = 0; f < nf; f++) {
			const struct pipe_flow_bounds *fb = &row[u * nf + f];
			int y = BAR_TOP + (int)r * BAR_ROW_H;
			struct cp_buf num;

			if (!pipe_flows_n_needing(pf, u, f))
				continue;
			r++;
			cp_buf_printf(b, "<g class=\"cp-flow\">\n<text class=\"cp-flow-name\" "
				      "x=\"12\" y=\"%d\" font-size=\"12\">", y + 16);
			report_html_text(b, pipe_flows_uop(pf, u));
			cp_buf_puts(b, " ");
			report_html_text(b, pipe_flows_feature(pf, f));
			if (!pipe_flows_attributable(pf, u, f))
				cp_buf_puts(b, PART_LABEL);
			cp_buf_printf(b, "</text>\n<rect class=\"cp-flow-track\" x=\"%.1f\" "
				      "y=\"%d\" width=\"%.1f\" height=\"12\" fill=\"#f3f3f3\" "
				      "stroke=\"#bbb\"/>\n", x0, y + 6, BAR_AXIS_W);
			cp_buf_init(&num);
			if (fb->share.defined) {
				double a = bar_x(x0, fb->share.lo), z = bar_x(x0, fb->share.hi);

				if (z - a < 2)   /* a point interval stays visible */
					z = a + 2;
				int part = !pipe_flows_attributable(pf, u, f);

				cp_buf_printf(b, "<rect class=\"cp-flow-bar%s%s\" x=\"%.2f\" "
					      "y=\"%d\" width=\"%.2f\" height=\"12\" "
					      "fill=\"%s\"><title>", fb->share.hi > 1 ?
					      " cp-flow-over" : "", part ? " cp-flow-part" : "",
					      a, y + 6, z - a, part ? "#a4c2c8" : "#45818e");
				pipe_flows_put_interval(&num, fb->share.lo, fb->share.hi, 100, "%");
				report_html_text(b, num.data ? num.data : "");
				cp_buf_puts(b, part ? " of the μops on its identifiable signatures "
					    "only (the flow on the signatures it shares with "
					    "μpaths without it cannot be attributed), rate " :
					    " of the μops, rate ");
				cp_buf_release(&num);
				cp_buf_init(&num);
				pipe_flows_put_interval(&num, fb->rate.lo, fb->rate.hi, 1, "");
				report_html_text(b, num.data ? num.data : "");
				cp_buf_puts(b, " per second</title></rect>\n");
				cp_buf_release(&num);
				cp_buf_init(&num);
				pipe_flows_put_interval(&num, fb->share.lo, fb->share.hi, 100, "%");
				if (fb->share.hi > 1)
					cp_buf_puts(&num, " (past 100%)");
			} else {
				cp_buf_puts(&num, "share undefined (the region allows no μops)");
			}
			if (fb->rate.inexact || fb->share.inexact)
				cp_buf_puts(&num, " inexact optimum");
			cp_buf_printf(b, "<text class=\"cp-flow-label\" x=\"%.1f\" y=\"%d\" "
				      "font-size=\"12\">", x0 + BAR_AXIS_W + 12, y + 16);
			report_html_text(b, num.data ? num.data : "");
			cp_buf_puts(b, "</text>\n</g>\n");
			b->failed |= num.failed;
			cp_buf_release(&num);
		}
	cp_buf_puts(b, "</svg>\n");
}

/* The features whose flow these counters cannot wholly attribute
 * (pipe_flows_attributable), as a sentence: each with its signatures
 * shared with μpaths without it and its μpaths no checked counter sees.
 * Returns how many. */
static size_t not_identifiable_html(const struct pipe_flows *pf, struct cp_buf *b)
{
	size_t nu = pipe_flows_n_uops(pf), nf = pipe_flows_n_features(pf), u, f, n = 0;

	for (u = 0; u < nu; u++)
		for (f = 0; f < nf; f++) {
			if (pipe_flows_attributable(pf, u, f) ||
			    !(pipe_flows_n_signatures_of(pf, u, f) || pipe_flows_n_blind(pf, u, f)))
				continue;
			cp_buf_puts(b, n++ ? "; " : " Not identifiable by these counters, so "
				    "bounded only on the signatures no μpath without the "
				    "feature has (pale bars), or not at all: ");
			report_html_text(b, pipe_flows_uop(pf, u));
			cp_buf_puts(b, " ");
			report_html_text(b, pipe_flows_feature(pf, f));
			cp_buf_printf(b, " (%zu of its %zu signatures shared",
				      pipe_flows_n_shared(pf, u, f),
				      pipe_flows_n_signatures_of(pf, u, f));
			if (pipe_flows_n_blind(pf, u, f))
				cp_buf_printf(b, ", %zu of its μpaths seen by no checked counter",
					      pipe_flows_n_blind(pf, u, f));
			if (!pipe_flows_n_needing(pf, u, f))
				cp_buf_puts(b, "; nothing bounded");
			cp_buf_puts(b, ")");
		}
	return n;
}

void report_flows_html(const struct pipe_flows *pf, enum pipe_flow_status status,
		       const struct pipe_flow_bounds *row, const char *title,
		       struct cp_buf *b)
{
	size_t nu = pipe_flows_n_uops(pf), nf = pipe_flows_n_features(pf), u, f, any = 0;
	size_t part;

	for (u = 0; u < nu; u++)
		for (f = 0; f < nf; f++)
			any += pipe_flows_n_needing(pf, u, f) > 0;
	switch (status) {
	case PIPE_FLOWS_BOUNDED:
		break;
	case PIPE_FLOWS_INFEASIBLE:
		cp_buf_puts(b, "<p class=\"note flows-none\">No flow bounds: the model is "
			    "infeasible on this observation.</p>\n");
		return;
	case PIPE_FLOWS_NO_FLOW:
		cp_buf_puts(b, "<p class=\"note flows-none\">No flow bounds: feasible at the "
			    "boundary, but the LP finds no flow.</p>\n");
		return;
	case PIPE_FLOWS_UNUSABLE:
		return;   /* the section already says why there is no region */
	}
	if (!any) {
		cp_buf_puts(b, "<p class=\"note flows-none\">No feature adds a signature: "
			    "no flow to bound.");
		cp_buf_puts(b, not_identifiable_html(pf, b) ? ".</p>\n" : "</p>\n");
		return;
	}
	cp_buf_puts(b, "<figure class=\"flows\">\n");
	report_flow_bars_svg(pf, row, title, b);
	cp_buf_puts(b, "<figcaption>Flow bounds: per uop and feature, the share of the "
		    "uop's μops (");
	for (u = 0; u < nu; u++)
		if (pipe_flows_n_uop_columns(pf, u)) {
			cp_buf_puts(b, u ? "; " : "");
			report_html_text(b, pipe_flows_uop(pf, u));
			cp_buf_puts(b, ": per <code>");
			report_html_text(b, pipe_flows_per(pf, u) ? pipe_flows_per(pf, u) :
					 "counted μop");
			cp_buf_puts(b, "</code>");
		}
	cp_buf_puts(b, ") on the μpaths the feature adds: the smallest and largest the "
		    "region and the cone allow, certified and rounded outward, as "
		    "<code>counterpoint flows</code> prints them.");
	part = not_identifiable_html(pf, b);
	cp_buf_puts(b, part ? ".</figcaption>\n</figure>\n" : "</figcaption>\n</figure>\n");
}
