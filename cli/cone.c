/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli/cone.c: `counterpoint cone`: a model's exact cone — its dimension,
 * the equalities and facet inequalities every counter vector the model
 * explains must satisfy, and which signatures are extreme rays.  The
 * geometry is geometry/cone.h's; this file parses options and prints. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "geometry/cone.h"

static const char usage_text[] =
	"usage: counterpoint cone MODEL [--with F,...] [--json] [--max-facets N]\n"
	"                         [--max-seconds S]\n"
	"\n"
	"Derive a μDD model's exact model cone: every counter vector the model can\n"
	"produce is a non-negative combination of its counter signatures, and this\n"
	"prints the same cone as constraints: the equalities and the facet\n"
	"inequalities that every such vector satisfies (complete and tight), then\n"
	"which signatures are extreme rays of the cone.  Coefficients are exact\n"
	"integers of any size (exact double description).  The time taken, the\n"
	"method and its work (rays inserted, candidate pairs, adjacency tests) go\n"
	"to stderr.\n"
	"\n"
	"options:\n"
	"  --with F,...       enable these features (all others are off)\n"
	"  --json             machine-readable output (integer vectors)\n"
	"  --max-facets N     stop with an error when the cone has more than N\n"
	"                     facets, counted exactly (default 1000000)\n"
	"  --max-seconds S    stop with an error after S seconds of cone building\n"
	"                     (default 60)\n"
	"  -h, --help         this text\n"
	"\n"
	"exit status: 0 ok, 1 the model has errors, 2 bad usage, unreadable file\n"
	"or a limit reached, 3 internal error\n";

/* The equalities (eq) or the facets as JSON objects {"vector", "text"}:
 * any size of coefficient, JSON integers are unbounded. */
static void put_rows_json(struct cp_buf *b, const struct cone *c,
			  const char *const *names, int eq)
{
	size_t i, n = eq ? cone_n_equalities(c) : cone_n_facets(c);
	struct cp_buf t;

	for (i = 0; i < n; i++) {
		cp_buf_puts(b, i ? ",\n  {\"vector\": " : "\n  {\"vector\": ");
		cp_buf_init(&t);
		if (eq) {
			cone_format_equality_vector(c, i, b);
			cone_format_equality(c, i, names, &t);
		} else {
			cone_format_facet_vector(c, i, b);
			cone_format_facet(c, i, names, &t);
		}
		cp_buf_puts(b, ", \"text\": ");
		cli_json_string(b, t.data ? t.data : "");
		cp_buf_puts(b, "}");
		if (t.failed)
			b->failed = 1;
		cp_buf_release(&t);
	}
}

static void print_json(struct cp_buf *b, const struct udd_model *m,
		       udd_features sel, const struct udd_sigset *s,
		       const struct cone *c, const char *const *names)
{
	size_t k = cone_n_counters(c), i, j, n;

	cp_buf_json_begin(b, udd_model_file(m), NULL);
	cp_buf_puts(b, ",\n\"features\": ");
	udd_model_json_features(m, sel, b);
	cp_buf_puts(b, ",\n\"counters\": ");
	udd_model_json_counters(m, names, k, b);
	cp_buf_printf(b, ",\n\"signatures\": %zu,\n\"dimension\": %zu,\n"
		      "\"equalities\": [", cone_n_signatures(c), cone_dim(c));
	put_rows_json(b, c, names, 1);
	cp_buf_puts(b, "],\n\"facets\": [");
	put_rows_json(b, c, names, 0);
	cp_buf_puts(b, "],\n\"extreme_rays\": [");
	for (j = 0, n = 0; j < cone_n_signatures(c); j++) {
		if (!cone_signature_is_extreme(c, j))
			continue;
		cp_buf_printf(b, "%s\n  {\"signature\": %zu, \"uop\": ", n++ ? "," : "", j);
		cli_json_string(b, udd_sigset_uop(s, j));
		cp_buf_puts(b, ", \"vector\": [");
		for (i = 0; i < k; i++)
			cp_buf_printf(b, "%s%u", i ? "," : "",
				      (unsigned)udd_sigset_signature(s, j)[i]);
		cp_buf_puts(b, "]}");
	}
	cp_buf_puts(b, "],\n\"inside\": [");
	for (j = 0, n = 0; j < cone_n_signatures(c); j++)
		if (!cone_signature_is_extreme(c, j))
			cp_buf_printf(b, "%s%zu", n++ ? ", " : "", j);
	cp_buf_puts(b, "]\n}\n");
}

static void print_text(struct cp_buf *b, const struct udd_model *m,
		       const char *features, const struct udd_sigset *s,
		       const struct cone *c, const char *const *names)
{
	size_t k = cone_n_counters(c), i, j, n;

	cp_buf_printf(b, "model %s, features: %s\n", udd_model_file(m),
		      features[0] ? features : "(none)");
	cp_buf_printf(b, "%zu counters, %zu distinct signatures, cone dimension %zu\n",
		      k, cone_n_signatures(c), cone_dim(c));
	cp_buf_printf(b, "\nequalities (%zu):\n", cone_n_equalities(c));
	for (i = 0; i < cone_n_equalities(c); i++) {
		cp_buf_puts(b, "  ");
		cone_format_equality(c, i, names, b);
		cp_buf_puts(b, "\n");
	}
	cp_buf_printf(b, "\nfacets (%zu):\n", cone_n_facets(c));
	for (i = 0; i < cone_n_facets(c); i++) {
		cp_buf_puts(b, "  ");
		cone_format_facet(c, i, names, b);
		cp_buf_puts(b, "\n");
	}
	cp_buf_printf(b, "\nextreme rays (%zu of %zu signatures):\n",
		      cone_n_extreme(c), cone_n_signatures(c));
	for (j = 0; j < cone_n_signatures(c); j++) {
		if (!cone_signature_is_extreme(c, j))
			continue;
		cp_buf_printf(b, "  [%zu] %s: ", j + 1, udd_sigset_uop(s, j));
		udd_signature_text(m, udd_sigset_signature(s, j), b);
		cp_buf_puts(b, "\n");
	}
	n = cone_n_signatures(c) - cone_n_extreme(c);
	if (n) {
		cp_buf_printf(b, "\ninside the cone (%zu: real μpaths, redundant for "
			      "the constraints):\n", n);
		for (j = 0; j < cone_n_signatures(c); j++) {
			if (cone_signature_is_extreme(c, j))
				continue;
			cp_buf_printf(b, "  [%zu] %s: ", j + 1, udd_sigset_uop(s, j));
			udd_signature_text(m, udd_sigset_signature(s, j), b);
			cp_buf_puts(b, "\n");
		}
	}
}

/* The time line says which method ran and how much work it did. */
static void print_time(double t0, double t1, double t2,
		       const struct cone_stats *st)
{
	fprintf(stderr, "time: %.3f ms (model and signatures %.3f ms, cone %.3f ms: %s",
		(t2 - t0) * 1e3, (t1 - t0) * 1e3, (t2 - t1) * 1e3,
		st->method ? st->method : "not started");
	if (st->method && !strcmp(st->method, "double description"))
		fprintf(stderr, ", %zu rays inserted, %llu candidate pairs, "
			"%llu adjacency tests (%llu by rank), at most %zu partial facets",
			st->inserted, (unsigned long long)st->candidates,
			(unsigned long long)st->adjacency_tests,
			(unsigned long long)st->rank_tests, st->max_partial);
	else if (st->candidates)
		fprintf(stderr, ", %llu proposals", (unsigned long long)st->candidates);
	if (st->gmp)
		fprintf(stderr, ", GMP");
	fprintf(stderr, ")\n");
}

int cli_cone(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "with", required_argument, NULL, 'w' },
		{ "json", no_argument, NULL, 'j' },
		{ "max-facets", required_argument, NULL, 'F' },
		{ "max-seconds", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *with = NULL;
	int json = 0, opt, rc;
	struct cone_options copt = { 0, 60, 0 };
	struct udd_model *m = NULL;
	struct udd_sigset *s = NULL;
	struct cone *c = NULL;
	struct cone_stats st;
	udd_features sel = 0;
	struct cp_error err;
	struct cp_buf b;
	char *features = NULL;
	const char **names = NULL;
	double t0, t1, t2;
	size_t i;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'w': with = optarg; break;
		case 'j': json = 1; break;
		case 'F':
			if (cli_parse_count("cone", "--max-facets", optarg, &copt.max_facets))
				return CLI_USAGE;
			break;
		case 'T':
			if (cli_parse_double("cone", "--max-seconds", optarg, 1e-6, 1e9,
					     &copt.max_seconds))
				return CLI_USAGE;
			break;
		case 'h': fputs(usage_text, stdout); return CLI_OK;
		default: return cli_bad_option("cone", opt, argv, longopts);
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("cone", optind >= argc ? "a MODEL file is required"
							    : "only one MODEL file is accepted");
	t0 = cp_seconds();
	rc = cli_load_model("cone", argv[optind], with, CLI_RESULT, &m, &sel);
	if (rc)
		return rc;
	cp_error_clear(&err);
	cp_buf_init(&b);
	features = udd_model_selection_str(m, sel);
	if (!features) {
		cp_error_set(&err, CP_ENOMEM, "out of memory");
		rc = cli_print_error("cone", &err);
		goto out;
	}
	rc = udd_sigset_build(m, sel, 0, &s, &err);
	if (rc) {
		rc = cli_print_error("cone", &err);
		goto out;
	}
	t1 = cp_seconds();
	rc = cone_build_method(udd_sigset_n_counters(s), udd_sigset_size(s),
			       udd_sigset_matrix(s), &copt, CONE_AUTO, &st, &c, &err);
	t2 = cp_seconds();
	if (rc) {
		rc = cli_print_error("cone", &err);
		print_time(t0, t1, t2, &st); /* how far it got */
		goto out;
	}
	names = cp_calloc(udd_sigset_n_counters(s) + 1, sizeof *names);
	if (!names) {
		cp_error_set(&err, CP_ENOMEM, "out of memory");
		rc = cli_print_error("cone", &err);
		goto out;
	}
	for (i = 0; i < udd_sigset_n_counters(s); i++)
		names[i] = udd_sigset_counter_name(s, i);
	if (json)
		print_json(&b, m, sel, s, c, names);
	else
		print_text(&b, m, features, s, c, names);
	rc = cli_write_output("cone", "-", &b);
	print_time(t0, t1, t2, &st);
out:
	cp_free(names);
	cp_free(features);
	cp_buf_release(&b);
	cone_free(c);
	udd_sigset_free(s);
	udd_model_free(m);
	return rc;
}
