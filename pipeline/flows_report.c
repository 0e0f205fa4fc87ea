/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pipeline/flows_report.c: flow bounds as text and JSON, the one writer
 * that `counterpoint flows` and explore's reports share (pipeline.h,
 * "flows as text and JSON"): the columns each feature adds, a bounded
 * observation's rows with every bound rounded outward, and the
 * per-observation JSON object of `flows --json` (docs/manual/json.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pipeline/pipeline.h"

const char *pipe_flows_status_name(enum pipe_flow_status s)
{
	switch (s) {
	case PIPE_FLOWS_BOUNDED: return "bounded";
	case PIPE_FLOWS_UNUSABLE: return "unusable";
	case PIPE_FLOWS_INFEASIBLE: return "infeasible";
	case PIPE_FLOWS_NO_FLOW: return "no_flow";
	}
	return "?";
}

/* v with `digits` significant digits, rounded down (dir < 0) or up: the
 * printed decimal, read back, lies on the right side of v. */
void pipe_flows_put_bound(struct cp_buf *b, double v, int digits, int dir)
{
	char s[64];
	double e, scale, r;
	int tries;

	if (!isfinite(v)) {
		cp_buf_puts(b, "?");
		return;
	}
	if (v == 0) {
		cp_buf_puts(b, "0");
		return;
	}
	e = floor(log10(fabs(v)));
	scale = pow(10, (double)digits - 1 - e);
	r = dir < 0 ? floor(v * scale) : ceil(v * scale);
	for (tries = 0; tries < 4; tries++) {
		snprintf(s, sizeof s, "%.*g", digits + 1, r / scale);
		if (dir < 0 ? strtod(s, NULL) <= v : strtod(s, NULL) >= v)
			break;
		r += dir;
	}
	cp_buf_puts(b, s);
}

void pipe_flows_put_interval(struct cp_buf *b, double lo, double hi, double scale,
			     const char *unit)
{
	cp_buf_puts(b, "[");
	pipe_flows_put_bound(b, lo * scale, 4, -1);
	cp_buf_printf(b, "%s, ", unit);
	pipe_flows_put_bound(b, hi * scale, 4, 1);
	cp_buf_printf(b, "%s]", unit);
}

/* Why feature f's flow on uop u is not (all) attributable, on one line:
 * its signatures shared with μpaths without it (one such pair, and the
 * model counter that would tell them apart), its μpaths the checked
 * counters do not see, and what the bounds are then of. */
static void ident_text(const struct pipe_flows *pf, size_t u, size_t f,
		       const char *indent, struct cp_buf *b)
{
	size_t n = pipe_flows_n_signatures_of(pf, u, f), sh = pipe_flows_n_shared(pf, u, f);
	size_t bl = pipe_flows_n_blind(pf, u, f), id = pipe_flows_n_needing(pf, u, f);

	cp_buf_printf(b, "%s  %s %s: ", indent, pipe_flows_uop(pf, u),
		      pipe_flows_feature(pf, f));
	if (!sh) {   /* attributable: only μpaths the counters do not see */
		cp_buf_printf(b, "%zu of its μpaths count none of the checked counters "
			      "(no data bound their flow; the bounds below leave it out)\n",
			      bl);
		return;
	}
	cp_buf_printf(b, "not identifiable by these counters: %zu of its %zu signatures "
		      "come from μpaths without it too (e.g. [%s] and [%s]; ", sh, n,
		      pipe_flows_shared_pair(pf, u, f, 0), pipe_flows_shared_pair(pf, u, f, 1));
	if (pipe_flows_separator(pf, u, f))
		cp_buf_printf(b, "counter %s would tell them apart)",
			      pipe_flows_separator(pf, u, f));
	else
		cp_buf_puts(b, "no counter of the model tells them apart)");
	if (bl)
		cp_buf_printf(b, "; %zu of its μpaths count none of the checked counters", bl);
	if (id)
		cp_buf_printf(b, "; the bounds below are of the flow on its other %zu "
			      "(the identifiable part), not of its flow\n", id);
	else
		cp_buf_puts(b, "; none of its flow can be attributed, so none is "
			    "bounded\n");
}

size_t pipe_flows_text_columns(const struct pipe_flows *pf, const char *indent,
			       struct cp_buf *b)
{
	size_t nu = pipe_flows_n_uops(pf), nf = pipe_flows_n_features(pf), u, f, any = 0;

	for (u = 0; u < nu; u++) {
		if (!pipe_flows_n_uop_columns(pf, u))
			continue;
		cp_buf_printf(b, "%s%s: %zu columns; shares per %s", indent,
			      pipe_flows_uop(pf, u), pipe_flows_n_uop_columns(pf, u),
			      pipe_flows_per(pf, u) ? pipe_flows_per(pf, u) : "counted μop");
		for (f = 0; f < nf; f++)
			if (pipe_flows_n_needing(pf, u, f))
				cp_buf_printf(b, "; %s adds %zu", pipe_flows_feature(pf, f),
					      pipe_flows_n_needing(pf, u, f));
		cp_buf_puts(b, "\n");
		for (f = 0; f < nf; f++)
			any += pipe_flows_n_needing(pf, u, f) > 0;
	}
	if (!pipe_flows_identifiability_known(pf))
		cp_buf_printf(b, "%s(which features' flows these counters can attribute is "
			      "not decided: more than 200000 μpaths to compare)\n", indent);
	for (u = 0; u < nu; u++)
		for (f = 0; f < nf; f++)
			if (pipe_flows_identifiability_known(pf) &&
			    (!pipe_flows_attributable(pf, u, f) || pipe_flows_n_blind(pf, u, f)))
				ident_text(pf, u, f, indent, b);
	if (!any)
		cp_buf_printf(b, "%s(no feature adds a signature: nothing to bound)\n", indent);
	return any;
}

void pipe_flows_text_rows(const struct pipe_flows *pf,
			  const struct pipe_flow_bounds *row, const char *indent,
			  struct cp_buf *b)
{
	size_t nu = pipe_flows_n_uops(pf), nf = pipe_flows_n_features(pf), u, f;

	cp_buf_printf(b, "%s%-8s %-20s %-26s %s\n", indent, "uop", "feature",
		      "rate (/s)", "share");
	for (u = 0; u < nu; u++)
		for (f = 0; f < nf; f++) {
			const struct pipe_flow_bounds *fb = &row[u * nf + f];
			struct cp_buf cell;

			if (!pipe_flows_n_needing(pf, u, f))
				continue;
			cp_buf_init(&cell);
			pipe_flows_put_interval(&cell, fb->rate.lo, fb->rate.hi, 1, "");
			cp_buf_printf(b, "%s%-8s %-20s %-26s ", indent, pipe_flows_uop(pf, u),
				      pipe_flows_feature(pf, f), cell.data ? cell.data : "");
			b->failed |= cell.failed;
			cp_buf_release(&cell);
			if (fb->share.defined)
				pipe_flows_put_interval(b, fb->share.lo, fb->share.hi, 100, "%");
			else
				cp_buf_puts(b, "undefined (the region allows no μops)");
			if (fb->rate.inexact || fb->share.inexact)
				cp_buf_puts(b, "  (inexact optimum; bounds hold)");
			if (!pipe_flows_attributable(pf, u, f))
				cp_buf_puts(b, "  (identifiable part only)");
			cp_buf_puts(b, "\n");
		}
}

static void json_num(struct cp_buf *b, double v)
{
	if (isfinite(v))
		cp_buf_printf(b, "%.17g", v);
	else
		cp_buf_puts(b, "null");
}

static void json_pair(struct cp_buf *b, const char *key, double lo, double hi)
{
	cp_buf_printf(b, ", \"%s\": [", key);
	json_num(b, lo);
	cp_buf_puts(b, ", ");
	json_num(b, hi);
	cp_buf_puts(b, "]");
}

void pipe_flows_json_uops(const struct pipe_flows *pf, struct cp_buf *b)
{
	size_t nu = pipe_flows_n_uops(pf), nf = pipe_flows_n_features(pf), u, f;

	cp_buf_puts(b, "{");
	for (u = 0; u < nu; u++) {
		cp_buf_puts(b, u ? ", " : "");
		cp_buf_json_string(b, pipe_flows_uop(pf, u));
		cp_buf_printf(b, ": {\"columns\": %zu, \"per\": ", pipe_flows_n_uop_columns(pf, u));
		if (pipe_flows_per(pf, u))
			cp_buf_json_string(b, pipe_flows_per(pf, u));
		else
			cp_buf_puts(b, "null");
		cp_buf_puts(b, ", \"features\": {");
		for (f = 0; f < nf; f++) {
			cp_buf_puts(b, f ? ", " : "");
			cp_buf_json_string(b, pipe_flows_feature(pf, f));
			cp_buf_printf(b, ": %zu", pipe_flows_n_needing(pf, u, f));
		}
		cp_buf_puts(b, "}, \"identifiability\": ");
		if (!pipe_flows_identifiability_known(pf)) {
			cp_buf_puts(b, "null}");
			continue;
		}
		cp_buf_puts(b, "{");
		for (f = 0; f < nf; f++) {
			cp_buf_puts(b, f ? ", " : "");
			cp_buf_json_string(b, pipe_flows_feature(pf, f));
			cp_buf_printf(b, ": {\"signatures\": %zu, \"identifiable\": %zu, "
				      "\"shared\": %zu, \"blind\": %zu, \"attributable\": %s, "
				      "\"shared_pair\": ", pipe_flows_n_signatures_of(pf, u, f),
				      pipe_flows_n_needing(pf, u, f), pipe_flows_n_shared(pf, u, f),
				      pipe_flows_n_blind(pf, u, f),
				      pipe_flows_attributable(pf, u, f) ? "true" : "false");
			if (pipe_flows_shared_pair(pf, u, f, 0)) {
				cp_buf_puts(b, "[");
				cp_buf_json_string(b, pipe_flows_shared_pair(pf, u, f, 0));
				cp_buf_puts(b, ", ");
				cp_buf_json_string(b, pipe_flows_shared_pair(pf, u, f, 1));
				cp_buf_puts(b, "], \"separator\": ");
				if (pipe_flows_separator(pf, u, f))
					cp_buf_json_string(b, pipe_flows_separator(pf, u, f));
				else
					cp_buf_puts(b, "null");
			} else {
				cp_buf_puts(b, "null, \"separator\": null");
			}
			cp_buf_puts(b, "}");
		}
		cp_buf_puts(b, "}}");
	}
	cp_buf_puts(b, "}");
}

void pipe_flows_json_observation(const struct pipe_flows *pf, const char *name,
				 const char *unusable, enum pipe_flow_status status,
				 const struct pipe_flow_bounds *row, struct cp_buf *b)
{
	size_t nu = pipe_flows_n_uops(pf), nf = pipe_flows_n_features(pf), u, f;

	cp_buf_puts(b, "{\"name\": ");
	cp_buf_json_string(b, name);
	cp_buf_printf(b, ", \"status\": \"%s\"", pipe_flows_status_name(status));
	if (status == PIPE_FLOWS_UNUSABLE) {
		cp_buf_puts(b, ", \"unusable\": ");
		cp_buf_json_string(b, unusable ? unusable : "");
	}
	if (status != PIPE_FLOWS_BOUNDED) {
		cp_buf_puts(b, "}");
		return;
	}
	cp_buf_puts(b, ", \"uops\": {");
	for (u = 0; u < nu; u++) {
		size_t shown = 0;

		cp_buf_puts(b, u ? ", " : "");
		cp_buf_json_string(b, pipe_flows_uop(pf, u));
		cp_buf_puts(b, ": {");
		for (f = 0; f < nf; f++) {
			const struct pipe_flow_bounds *fb = &row[u * nf + f];

			if (!pipe_flows_n_needing(pf, u, f))
				continue;
			cp_buf_puts(b, shown++ ? ", " : "");
			cp_buf_json_string(b, pipe_flows_feature(pf, f));
			cp_buf_printf(b, ": {\"part\": \"%s\", \"inexact\": ",
				      pipe_flows_attributable(pf, u, f) ? "all" : "identifiable");
			cp_buf_puts(b, fb->rate.inexact || fb->share.inexact ? "true" : "false");
			json_pair(b, "rate", fb->rate.lo, fb->rate.hi);
			json_pair(b, "rate_attained", fb->rate.lo_at, fb->rate.hi_at);
			if (fb->share.defined) {
				json_pair(b, "share", fb->share.lo, fb->share.hi);
				json_pair(b, "share_attained", fb->share.lo_at, fb->share.hi_at);
			} else {
				cp_buf_puts(b, ", \"share\": null, \"share_attained\": null");
			}
			cp_buf_puts(b, "}");
		}
		cp_buf_puts(b, "}");
	}
	cp_buf_puts(b, "}}");
}

void pipe_flows_json_report(const struct pipe_flows *pf,
			    const struct pipe_data *pd, const char *model,
			    const char *data, const struct pipe_flow_bounds *out,
			    const enum pipe_flow_status *status,
			    size_t *n_status, struct cp_buf *b)
{
	const struct pipe_options *o = pipe_data_options(pd);
	const struct stats_dataset *d = pipe_data_dataset(pd);
	size_t n = pipe_data_n_observations(pd), nu = pipe_flows_n_uops(pf);
	size_t nf = pipe_flows_n_features(pf), i, f, count[4] = { 0, 0, 0, 0 };

	cp_buf_json_begin(b, model, data);
	cp_buf_puts(b, ",\n\"features\": [");
	for (f = 0; f < nf; f++) {
		cp_buf_puts(b, f ? ", " : "");
		cp_buf_json_string(b, pipe_flows_feature(pf, f));
	}
	cp_buf_printf(b, "],\n\"region\": \"%s\",\n\"confidence\": %g,\n\"columns\": %zu,\n"
		      "\"uops\": ", pipe_region_name(o->shape), o->confidence,
		      pipe_flows_n_columns(pf));
	pipe_flows_json_uops(pf, b);
	cp_buf_puts(b, ",\n\"observations\": [");
	for (i = 0; i < n; i++) {
		count[status[i]]++;
		cp_buf_puts(b, i ? ",\n  " : "\n  ");
		pipe_flows_json_observation(pf, stats_dataset_observation(d, i),
					    pipe_data_unusable(pd, i), status[i],
					    &out[i * nu * nf], b);
	}
	cp_buf_printf(b, "\n],\n\"summary\": {\"observations\": %zu, \"bounded\": %zu, "
		      "\"infeasible\": %zu, \"no_flow\": %zu, \"unusable\": %zu}\n}\n", n,
		      count[PIPE_FLOWS_BOUNDED], count[PIPE_FLOWS_INFEASIBLE],
		      count[PIPE_FLOWS_NO_FLOW], count[PIPE_FLOWS_UNUSABLE]);
	if (n_status)
		for (i = 0; i < 4; i++)
			n_status[i] += count[i];
}
