/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dsl/dot.c: the μDD of one feature selection as a Graphviz digraph.
 * Decision nodes are diamonds, actions boxes, counter increments filled
 * ellipses, done nodes double circles; edges from a decision carry the
 * case values that lead along them. */
#include <string.h>

#include "dsl/internal.h"

/* Graphviz string contents: escape quotes and backslashes. */
static void put_escaped(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		fputc(*s, out);
	}
}

int udd_model_dot(const struct udd_model *m, udd_features sel, FILE *out,
		  struct cp_error *err)
{
	struct udd_graph g;
	unsigned char *reach = NULL;
	uint32_t *stack = NULL;
	size_t i, u, sp = 0;
	char *feat;
	int rc;

	rc = udd_graph_build(m, sel, &g, err);
	if (rc)
		return rc;
	reach = cp_calloc(g.n + 1, 1);
	stack = cp_malloc((g.n + 1) * sizeof *stack);
	feat = udd_model_selection_str(m, sel);
	if (!reach || !stack || !feat) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	/* draw only what a uop can reach */
	for (u = 0; u < g.n_uops; u++) {
		stack[sp++] = g.roots[u];
		reach[g.roots[u]] = 1;
		while (sp) {
			const struct udd_node *n = &g.nodes[stack[--sp]];

			if (n->kind == UDD_N_ACTION || n->kind == UDD_N_INCR) {
				if (!reach[n->next]) {
					reach[n->next] = 1;
					stack[sp++] = n->next;
				}
			} else if (n->kind == UDD_N_DECIDE) {
				const struct udd_property_decl *p = m->properties.items[n->prop];

				for (i = 0; i < p->n_values; i++)
					if (!reach[n->succ[i]]) {
						reach[n->succ[i]] = 1;
						stack[sp++] = n->succ[i];
					}
			}
		}
	}
	fprintf(out, "digraph udd {\n");
	fprintf(out, "  label=\"");
	put_escaped(out, m->file);
	fprintf(out, "%s%s\";\n  labelloc=t;\n", feat[0] ? "  --with " : "", feat);
	fprintf(out, "  node [fontname=\"Helvetica\", fontsize=11];\n"
		     "  edge [fontname=\"Helvetica\", fontsize=10];\n");
	for (u = 0; u < g.n_uops; u++) {
		fprintf(out, "  uop%zu [label=\"uop ", u);
		put_escaped(out, udd_model_uop_name(m, u));
		fprintf(out, "\", shape=box, style=\"rounded,bold\"];\n");
		fprintf(out, "  uop%zu -> n%u;\n", u, g.roots[u]);
	}
	for (i = 0; i < g.n; i++) {
		const struct udd_node *n = &g.nodes[i];

		if (!reach[i])
			continue;
		fprintf(out, "  n%zu [", i);
		switch (n->kind) {
		case UDD_N_ACTION:
			fprintf(out, "label=\"");
			put_escaped(out, n->label);
			fprintf(out, "\", shape=box];\n");
			fprintf(out, "  n%zu -> n%u;\n", i, n->next);
			break;
		case UDD_N_INCR: {
			const struct udd_incr_item *it;

			fprintf(out, "label=\"");
			for (it = n->items; it; it = it->next) {
				fprintf(out, "%s+", it == n->items ? "" : "\\n");
				put_escaped(out, udd_model_counter_name(m, (size_t)it->index));
				if (it->mult != 1)
					fprintf(out, " ×%u", (unsigned)it->mult);
			}
			fprintf(out, "\", shape=ellipse, style=filled, fillcolor=\"#cfe3f7\"];\n");
			fprintf(out, "  n%zu -> n%u;\n", i, n->next);
			break;
		}
		case UDD_N_DECIDE: {
			const struct udd_property_decl *p = m->properties.items[n->prop];
			size_t v, w;

			fprintf(out, "label=\"");
			put_escaped(out, p->name.text);
			fprintf(out, "?\", shape=diamond, style=filled, fillcolor=\"#fff2c6\"];\n");
			/* one edge per successor, labelled with all its values */
			for (v = 0; v < p->n_values; v++) {
				int first_to_succ = 1;

				for (w = 0; w < v; w++)
					if (n->succ[w] == n->succ[v])
						first_to_succ = 0;
				if (!first_to_succ)
					continue;
				fprintf(out, "  n%zu -> n%u [label=\"", i, n->succ[v]);
				for (w = v; w < p->n_values; w++)
					if (n->succ[w] == n->succ[v]) {
						if (w != v)
							fprintf(out, ", ");
						put_escaped(out, p->value_names[w]);
					}
				fprintf(out, "\"];\n");
			}
			break;
		}
		case UDD_N_DONE:
			fprintf(out, "label=\"done\", shape=doublecircle, fontsize=9];\n");
			break;
		case UDD_N_END:
			fprintf(out, "label=\"end\", shape=point];\n");
			break;
		}
	}
	fprintf(out, "}\n");
	if (ferror(out))
		rc = cp_error_set(err, CP_EIO, "cannot write the graph");
out:
	cp_free(reach);
	cp_free(stack);
	cp_free(feat);
	udd_graph_release(&g);
	return rc;
}
