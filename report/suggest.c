/* SPDX-License-Identifier: GPL-3.0-or-later */
/* report/suggest.c: the suggest section of the page (`suggest --html`):
 * the violated constraints, then per suggestion a table of its new
 * μpaths (uop, counters, the nearest μpath and the edits, the flow) and
 * their μDD fragments, all from explore/suggest.c's results. */
#include "report/report.h"

static void flow_cell(const struct explore_new_path *p, struct cp_buf *b)
{
	if (!p->flow_defined) {
		cp_buf_puts(b, "not bounded");
		return;
	}
	pipe_flows_put_interval(b, p->flow_lo, p->flow_hi, 100, "%");
	cp_buf_puts(b, " of ");
	report_html_text(b, p->flow_per ? p->flow_per : "the uop's μops");
	cp_buf_puts(b, "<br><span class=\"note\">the lower bound: ");
	report_html_text(b, p->flow_lo_at);
	cp_buf_puts(b, "'s</span>");
}

void report_suggest_html(const struct explore_suggest *s, const struct udd_model *m,
			 struct cp_buf *b)
{
	size_t i, j, n, obs;

	cp_buf_printf(b, "<section class=\"suggest\">\n<h2>Suggested μpaths</h2>\n<p>%zu "
		      "usable observation%s, %zu the model does not fit.</p>\n",
		      explore_suggest_usable(s), explore_suggest_usable(s) == 1 ? "" : "s",
		      explore_suggest_infeasible(s));
	n = explore_suggest_n_violated(s);
	if (n) {
		cp_buf_puts(b, "<h3>Violated constraints</h3>\n<table class=\"violated\">\n"
			    "<tr><th>#</th><th>constraint</th><th>observations</th></tr>\n");
		for (i = 0; i < n; i++) {
			const char *t = explore_suggest_violated(s, i, &obs);

			cp_buf_printf(b, "<tr><td>%zu</td><td><code>", i + 1);
			report_html_text(b, t);
			cp_buf_printf(b, "</code></td><td>%zu</td></tr>\n", obs);
		}
		cp_buf_puts(b, "</table>\n");
	}
	for (i = 0; i < explore_suggest_n(s); i++) {
		const struct explore_suggestion *x = explore_suggest_at(s, i);

		cp_buf_printf(b, "<h3>Suggestion %zu: explains <span class=\"%s\">%zu of "
			      "%zu</span> observations</h3>\n", i + 1,
			      x->explains == x->of ? "feasible" : "infeasible", x->explains, x->of);
		cp_buf_puts(b, "<table class=\"paths\">\n<tr><th>uop</th><th>new signature</th>"
			    "<th>like</th><th>edits</th><th>flow</th></tr>\n");
		for (j = 0; j < x->n_new; j++) {
			const struct explore_new_path *p = &x->paths[j];

			cp_buf_puts(b, "<tr><td>");
			report_html_text(b, udd_model_uop_name(m, p->uop));
			cp_buf_puts(b, "</td><td><code>");
			report_html_text(b, p->counters);
			cp_buf_printf(b, "</code></td><td>[%zu] <code>", p->like + 1);
			report_html_text(b, p->like_counters);
			cp_buf_puts(b, "</code></td><td><code>");
			report_html_text(b, p->edit);
			cp_buf_puts(b, "</code></td><td>");
			flow_cell(p, b);
			cp_buf_puts(b, "</td></tr>\n");
		}
		cp_buf_puts(b, "</table>\n");
		for (j = 0; j < x->n_new; j++) {
			cp_buf_puts(b, "<pre class=\"fragment\">");
			report_html_text(b, x->paths[j].fragment);
			cp_buf_puts(b, "</pre>\n");
		}
	}
	if (!explore_suggest_explains_all(s))
		cp_buf_puts(b, "<p class=\"note\">No suggestion explains every observation "
			    "(the text report says what was tried).</p>\n");
	cp_buf_puts(b, "</section>\n");
}
