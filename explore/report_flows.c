/* SPDX-License-Identifier: GPL-3.0-or-later */
/* explore/report_flows.c: the flow bounds of the proven minimal models in
 * explore's reports: for people, per model the envelope of each (uop,
 * feature)'s bounds over the observations and then every observation as
 * `counterpoint flows` prints it; for programs, `flows --json`'s objects
 * inside the model's entry.  The writers are pipeline's (flows_report.c),
 * so the two commands cannot disagree. */
#include <math.h>
#include <string.h>

#include "explore/explore_int.h"

/* Over the bounded observations: the smallest lo and the largest hi of
 * each (uop, feature) (a share counts where it is defined). */
static int envelope(const struct explore_flows *fl, struct pipe_flow_bounds *env)
{
	size_t nu = pipe_flows_n_uops(fl->pf), nf = pipe_flows_n_features(fl->pf);
	size_t i, c, cells = nu * nf;
	int any = 0;

	for (c = 0; c < cells; c++) {
		memset(&env[c], 0, sizeof env[c]);
		env[c].rate.lo = env[c].share.lo = INFINITY;
		env[c].rate.hi = env[c].share.hi = -INFINITY;
	}
	for (i = 0; i < fl->n_observations; i++) {
		if (fl->status[i] != PIPE_FLOWS_BOUNDED)
			continue;
		any = 1;
		for (c = 0; c < cells; c++) {
			const struct pipe_flow_bounds *o = &fl->bounds[i * cells + c];
			struct pipe_flow_bounds *e = &env[c];

			e->rate.lo = fmin(e->rate.lo, o->rate.lo);
			e->rate.hi = fmax(e->rate.hi, o->rate.hi);
			e->rate.inexact |= o->rate.inexact;
			if (!o->share.defined)
				continue;
			e->share.defined = 1;
			e->share.lo = fmin(e->share.lo, o->share.lo);
			e->share.hi = fmax(e->share.hi, o->share.hi);
			e->share.inexact |= o->share.inexact;
		}
	}
	return any;
}

static void model_flows(const struct explore_search *s, size_t m,
			const struct explore_flows *fl, struct cp_buf *b)
{
	size_t i, n_bounded = 0, cells;
	struct pipe_flow_bounds *env;

	cp_buf_puts(b, "  ");
	explore_format_features(s, fl->features, b);
	cp_buf_printf(b, " (#%zu)", m + 1);
	if (!fl->pf) {
		cp_buf_puts(b, ": no features, no flow to bound\n");
		return;
	}
	for (i = 0; i < fl->n_observations; i++)
		n_bounded += fl->status[i] == PIPE_FLOWS_BOUNDED;
	cp_buf_printf(b, ": %zu of %zu observations bounded, %zu flow columns "
		      "(%.3f s)\n", n_bounded, fl->n_observations,
		      pipe_flows_n_columns(fl->pf), fl->seconds);
	if (!pipe_flows_text_columns(fl->pf, "    ", b))
		return;
	cells = pipe_flows_n_uops(fl->pf) * pipe_flows_n_features(fl->pf);
	env = cp_calloc(cells + 1, sizeof *env);
	if (!env) {
		b->failed = 1;
		return;
	}
	if (n_bounded > 1 && envelope(fl, env)) {
		cp_buf_puts(b, "    every bounded observation (smallest lo, largest hi):\n");
		pipe_flows_text_rows(fl->pf, env, "      ", b);
	}
	cp_free(env);
	for (i = 0; i < fl->n_observations; i++) {
		cp_buf_printf(b, "    %s: ", fl->observations[i]);
		switch (fl->status[i]) {
		case PIPE_FLOWS_BOUNDED:
			cp_buf_puts(b, "feasible\n");
			pipe_flows_text_rows(fl->pf, &fl->bounds[i * cells], "      ", b);
			break;
		case PIPE_FLOWS_INFEASIBLE:
			cp_buf_puts(b, "INFEASIBLE (counted within --tolerance; no flow "
				    "bounds)\n");
			break;
		case PIPE_FLOWS_NO_FLOW:
			cp_buf_puts(b, "feasible at the boundary, but the LP finds no flow "
				    "(no bounds)\n");
			break;
		case PIPE_FLOWS_UNUSABLE:
			cp_buf_puts(b, "unusable (no bounds)\n");
			break;
		}
	}
}

void explore_report_flows(const struct explore_search *s, struct cp_buf *b)
{
	size_t i;

	if (!s->n_flows)
		return;
	cp_buf_puts(b, "flow bounds of the minimal models (as 'counterpoint flows "
		    "--with' each prints them; only the observations a model fits "
		    "are bounded; rate per second, share of the uop's μops):\n");
	for (i = 0; i < s->n_models; i++) {
		const struct explore_flows *fl = explore_model_flows(s, i);

		if (fl)
			model_flows(s, i, fl, b);
	}
}

void explore_json_flows(const struct explore_search *s, size_t m, struct cp_buf *b)
{
	const struct explore_flows *fl = explore_model_flows(s, m);
	size_t i, cells, n_status[4] = { 0 };

	if (!fl) {
		cp_buf_puts(b, "null");
		return;
	}
	if (!fl->pf) {
		cp_buf_puts(b, "{\"columns\": 0, \"uops\": {}, \"observations\": []}");
		return;
	}
	cells = pipe_flows_n_uops(fl->pf) * pipe_flows_n_features(fl->pf);
	cp_buf_printf(b, "{\"columns\": %zu, \"uops\": ", pipe_flows_n_columns(fl->pf));
	pipe_flows_json_uops(fl->pf, b);
	cp_buf_puts(b, ",\n      \"observations\": [");
	for (i = 0; i < fl->n_observations; i++) {
		n_status[fl->status[i]]++;
		cp_buf_puts(b, i ? ",\n        " : "\n        ");
		pipe_flows_json_observation(fl->pf, fl->observations[i], NULL, fl->status[i],
					    &fl->bounds[i * cells], b);
	}
	cp_buf_printf(b, "],\n      \"summary\": {\"observations\": %zu, \"bounded\": %zu, "
		      "\"infeasible\": %zu, \"no_flow\": %zu, \"unusable\": %zu}}",
		      fl->n_observations, n_status[PIPE_FLOWS_BOUNDED],
		      n_status[PIPE_FLOWS_INFEASIBLE], n_status[PIPE_FLOWS_NO_FLOW],
		      n_status[PIPE_FLOWS_UNUSABLE]);
}
