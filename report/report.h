/* SPDX-License-Identifier: GPL-3.0-or-later */
/* report/report.h: one self-contained HTML page for people, from what
 * `check` and `explore` computed: per observation its verdict and an SVG
 * plot of the cone and the regions on the two counters of its most
 * violated (or tightest) constraint; for a search, its graph (Graphviz's
 * dot run at report time, the SVG inlined), the models tested and the
 * claims with what proves them.  No script, no style sheet or font from
 * elsewhere, nothing the browser fetches (docs/manual/report.md).
 *
 * Ownership: nothing here allocates what the caller must free; output is
 * appended to a caller's cp_buf (check b->failed once at the end) and
 * every input is borrowed for the duration of the call. */
#ifndef COUNTERPOINT_REPORT_H
#define COUNTERPOINT_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "common/cp.h"
#include "explore/explore.h"
#include "pipeline/pipeline.h"
#include "solver/feas.h"
#include "stats/region.h"

/* ---- the page ---- */
/* <!DOCTYPE html> ... <body> with the page's one inline style sheet and a
 * Content-Security-Policy that forbids every fetch; title escaped. */
void report_page_begin(struct cp_buf *b, const char *title);
void report_page_end(struct cp_buf *b);
/* s with & < > " ' escaped for HTML text and attribute values. */
void report_html_text(struct cp_buf *b, const char *s);

/* ---- one plot: an observation against one constraint ----
 * The plane of counters x and y (report_plot_axes).  Exact projections:
 * the cone (the wedge spanned by the signatures' projections), the
 * independent box (a rectangle), the PCA box (the zonotope of its axes'
 * projections), the ellipsoid (the ellipse of the covariance's 2x2 block,
 * same quantile), the witness.  The constraint is a slice: its line with
 * every other counter at the observation's mean, and beside it the band
 * of the values a.x takes over the whole region (from margin and
 * mean_sd), whose gap to the line is the margin. */
struct report_plot {
	const struct region *region;     /* all k counters */
	enum feas_shape checked;         /* the shape the verdict used */
	const char *const *names;        /* k counter names */
	const uint32_t *signatures;      /* n_signatures x k, row-major */
	size_t n_signatures;
	const int64_t *constraint;       /* k coefficients, a.x >= 0 (= 0); NULL:
					  * no constraint (plot the cone only) */
	int is_equality;
	double margin, mean_sd;          /* the solver's, in sd of a.x */
	const char *role;                /* "most violated", "tightest" */
	const double *witness;           /* k values: a point of the region
					  * in the cone (feas_witness), or
					  * NULL */
	const char *id;                  /* unique in the page (clip paths) */
};

/* The two counters drawn: those whose terms |a_j mu_j| weigh most in the
 * constraint (counters with a_j = 0 last; without a constraint, the two
 * largest means).  k >= 2. */
void report_plot_axes(const struct report_plot *p, size_t *x, size_t *y);
/* Append the plot as an inline <svg> (axes with ticks and counter names,
 * a legend for every shape drawn).  CP_EINPUT for k < 2. */
int report_plot_svg(const struct report_plot *p, struct cp_buf *b,
		    struct cp_error *err);

/* ---- flow bounds as interval bars (report/flows.c) ---- */
/* One bounded observation's bounds (row: its n_uops x n_features entries
 * of pipe_flows_bound's out) as an inline <svg class="cp-flows">: one bar
 * per (uop, feature) with columns, the share [lo, hi] on a 0-100% axis
 * (a share beyond 100% stops at the edge), labelled with the numbers as
 * `counterpoint flows` prints them; the rate in the bar's tooltip. */
void report_flow_bars_svg(const struct pipe_flows *pf,
			  const struct pipe_flow_bounds *row, const char *title,
			  struct cp_buf *b);
/* The flow part of an observation's section: the bars in a figure with
 * its caption when bounded, else a note saying why there are none. */
void report_flows_html(const struct pipe_flows *pf, enum pipe_flow_status status,
		       const struct pipe_flow_bounds *row, const char *title,
		       struct cp_buf *b);

/* ---- the check section ---- */
struct report_check {
	const char *model_path, *data_path;
	const struct pipe_data *pd;
	const struct pipe_model *pm;
	const struct feas_result *res;   /* pipe_data_n_observations results */
	/* The flow bounds of the model's features (NULL pf: none, the model
	 * has no features): pipe_flows_bound's out and status for pd. */
	const struct pipe_flows *pf;
	const struct pipe_flow_bounds *flows;
	const enum pipe_flow_status *flow_status;
	/* Plots (and flow bars) for this many observations, the most
	 * violated first (SIZE_MAX: every one); the others say how to get
	 * theirs (--plots). */
	size_t max_plots;
};
/* The answer first: the verdict for the model as a whole and the
 * violated constraints ranked by how many observations break them; then
 * the table of infeasible observations x violated constraints (margins,
 * colour-scaled, the most violated first), the feasible and unusable
 * ones; then one folded <details> per observation in that order: its
 * region, the constraints it breaks, and for the first max_plots the
 * plot of the most violated one (infeasible) or of the tightest facet
 * with the solver's witness point (feasible), and the flow bounds' bars
 * when the model is feasible on it. */
int report_check_html(const struct report_check *c, struct cp_buf *b,
		      struct cp_error *err);
/* The constraint an observation's plot is about: for an infeasible one
 * its violation of largest margin (into a, k values), for a feasible one
 * the cone's facet of largest margin (equalities only when the cone has
 * no facet).  Returns 1 with *a, *is_eq, *margin, *mean_sd set, 0 when
 * there is none (facets not listed, or no violation could be explained),
 * -1 out of memory. */
int report_check_constraint(const struct report_check *c, size_t obs,
			    const int64_t **a, int *is_eq, double *margin,
			    double *mean_sd);

/* ---- the explore section ---- */
struct report_explore {
	const struct explore_search *s;
	const char *const *names;        /* the family's feature names, by bit */
	size_t n_features;
	const char *model_path, *data_path;
	const char *region;              /* "pca box", ... */
	double confidence;
	size_t n_observations;
	double family_confidence, family_level;   /* 0: not family-wise */
	/* The family the search evaluated and its data, for the names of the
	 * observations refuting each model (NULL: explore's short list). */
	const struct explore_family *family;
	const struct stats_dataset *data;
	/* Flow bars per minimal model for this many observations (SIZE_MAX:
	 * every one). */
	size_t max_plots;
};
/* The answer first: explore's conclusion and the claims with their
 * proofs; then the search as a picture legible at a thousand models
 * (report_dot_svg: the minimal models, the refuted models the claims
 * rest on, the paths between them, the rest counted per level), the
 * models tested as a table (feature lists that wrap, the refuting
 * observations as a count with their list folded), the candidates
 * skipped, and the flow bounds of each minimal model
 * (explore_model_flows) as bars per observation. */
int report_explore_html(const struct report_explore *e, struct cp_buf *b,
			struct cp_error *err);

/* ---- the suggest section ---- */
/* The violated constraints and each suggestion of a `suggest` run: its
 * new μpaths as a table (the model m names the uops) and their μDD
 * fragments. */
void report_suggest_html(const struct explore_suggest *s, const struct udd_model *m,
			 struct cp_buf *b);

/* ---- Graphviz ---- */
/* Run `dot -Tsvg` (from PATH) on a digraph and append the <svg> element
 * it draws (its XML prologue dropped) to svg.  CP_EIO naming the reason
 * when dot cannot be run or fails. */
int report_dot_svg(const char *dot, size_t len, struct cp_buf *svg,
		   struct cp_error *err);

#endif
