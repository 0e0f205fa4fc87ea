/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli/paths.c: `counterpoint paths`: a model's distinct counter
 * signatures, how many μpaths share each, one example path each; or every
 * μpath with --all. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"

static const char usage_text[] =
	"usage: counterpoint paths MODEL [--with F,...] [--json] [--all]\n"
	"                          [--max-signatures N]\n"
	"       counterpoint paths MODEL --list-features\n"
	"\n"
	"Compile a μDD model and list its distinct counter signatures: for each,\n"
	"the uop, how many μpaths share it, the counters it bumps, and one\n"
	"example μpath.  Ends with the totals.\n"
	"\n"
	"options:\n"
	"  --with F,...          enable these features (all others are off)\n"
	"  --json                machine-readable output\n"
	"  --all                 list every μpath instead (can be very long)\n"
	"  --max-signatures N    stop with an error beyond N distinct signatures\n"
	"                        (default 1000000)\n"
	"  --list-features       print the features MODEL declares, one a line:\n"
	"                        the name, a tab, its description\n"
	"  -h, --help            this text\n"
	"\n"
	"exit status: 0 ok, 1 the model has errors, 2 bad usage or unreadable file,\n"
	"3 internal error\n";

static void put_json_vector(struct cp_buf *b, const uint32_t *sig, size_t k)
{
	size_t i;

	cp_buf_puts(b, "[");
	for (i = 0; i < k; i++)
		cp_buf_printf(b, "%s%u", i ? "," : "", (unsigned)sig[i]);
	cp_buf_puts(b, "]");
}

/* "3 μpaths", "1 μpath", "at least 18446744073709551615 μpaths": counts
 * of μpaths saturate, and a saturated one is a lower bound. */
static void put_paths(struct cp_buf *b, uint64_t n)
{
	cp_buf_printf(b, "%s%llu μpath%s", n == UINT64_MAX ? "at least " : "",
		      (unsigned long long)n, n == 1 ? "" : "s");
}

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/* An error of the model found while enumerating (a count beyond 2^32 - 1)
 * is a model error, exit 1; limits and failures are 2 and 3. */
static int enum_error(const struct cp_error *err)
{
	int rc = cli_print_error("paths", err);

	return err->code == CP_ESEMANTIC ? CLI_RESULT : rc;
}

struct all_ctx {
	const struct udd_model *m;
	struct cp_buf *b;
	int json;
	uint64_t n;
};

static int print_one_path(void *arg, const char *uop, const char *path,
			  const uint32_t *sig)
{
	struct all_ctx *c = arg;

	if (c->json) {
		cp_buf_printf(c->b, "%s\n  {\"uop\": ", c->n ? "," : "");
		cli_json_string(c->b, uop);
		cp_buf_puts(c->b, ", \"path\": ");
		cli_json_string(c->b, path);
		cp_buf_puts(c->b, ", \"vector\": ");
		put_json_vector(c->b, sig, udd_model_n_counters(c->m));
		cp_buf_puts(c->b, "}");
	} else {
		cp_buf_printf(c->b, "%s: %s  [", uop, path);
		udd_signature_text(c->m, sig, c->b);
		cp_buf_puts(c->b, "]\n");
	}
	c->n++;
	return c->b->failed ? CP_ENOMEM : 0;
}

static void put_header_json(struct cp_buf *b, const struct udd_model *m,
			    udd_features sel)
{
	cp_buf_json_begin(b, udd_model_file(m), NULL);
	cp_buf_puts(b, ",\n\"features\": ");
	udd_model_json_features(m, sel, b);
	cp_buf_puts(b, ",\n\"counters\": ");
	udd_model_json_counters(m, NULL, 0, b);
	cp_buf_puts(b, ",\n");
}

/* `counterpoint paths`.  Long because it is the one place that reads the
 * command's options and chooses among its four outputs (summary, --all
 * walk, --json, --list-features); each output is a function above. */
int cli_paths(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "with", required_argument, NULL, 'w' },
		{ "json", no_argument, NULL, 'j' },
		{ "all", no_argument, NULL, 'a' },
		{ "max-signatures", required_argument, NULL, 'M' },
		{ "list-features", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *with = NULL;
	int json = 0, all = 0, list = 0, opt, rc;
	size_t max_sigs = 1000000, j, u;
	struct udd_model *m = NULL;
	struct udd_sigset *s = NULL;
	udd_features sel = 0;
	struct cp_error err;
	struct cp_buf b;
	char *features = NULL;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'w': with = optarg; break;
		case 'j': json = 1; break;
		case 'a': all = 1; break;
		case 'F': list = 1; break;
		case 'M':
			if (cli_parse_count("paths", "--max-signatures", optarg, &max_sigs))
				return CLI_USAGE;
			break;
		case 'h': fputs(usage_text, stdout); return CLI_OK;
		default: return cli_bad_option("paths", opt, argv, longopts);
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("paths", optind >= argc ? "a MODEL file is required"
							     : "only one MODEL file is accepted");
	rc = cli_load_model("paths", argv[optind], with, CLI_RESULT, &m, &sel);
	if (rc)
		return rc;
	cp_error_clear(&err);
	cp_buf_init(&b);
	if (list) {          /* for shell completion and scripts */
		for (j = 0; j < udd_model_n_features(m); j++)
			cp_buf_printf(&b, "%s\t%s\n", udd_model_feature_name(m, j),
				      udd_model_feature_doc(m, j));
		rc = cli_write_output("paths", "-", &b);
		goto out;
	}
	features = udd_model_selection_str(m, sel);
	if (!features) {
		rc = cli_print_error("paths", &err);
		goto out;
	}
	if (all) {
		struct all_ctx c = { m, &b, json, 0 };

		if (json) {
			put_header_json(&b, m, sel);
			cp_buf_puts(&b, "\"paths\": [");
		}
		rc = udd_model_each_path(m, sel, print_one_path, &c, &err);
		if (rc) {
			rc = enum_error(&err);
			goto out;
		}
		if (json)
			cp_buf_printf(&b, "],\n\"total_paths\": %llu\n}\n",
				      (unsigned long long)c.n);
		else {
			put_paths(&b, c.n);
			cp_buf_puts(&b, "\n");
		}
		rc = cli_write_output("paths", "-", &b);
		goto out;
	}
	rc = udd_sigset_build(m, sel, max_sigs, &s, &err);
	if (rc) {
		rc = enum_error(&err);
		goto out;
	}
	if (json) {
		put_header_json(&b, m, sel);
		cp_buf_puts(&b, "\"signatures\": [");
		for (j = 0; j < udd_sigset_size(s); j++) {
			cp_buf_printf(&b, "%s\n  {\"uop\": ", j ? "," : "");
			cli_json_string(&b, udd_sigset_uop(s, j));
			cp_buf_printf(&b, ", \"paths\": %llu%s, \"paths_by_uop\": {",
				      (unsigned long long)udd_sigset_multiplicity(s, j),
				      udd_sigset_multiplicity(s, j) == UINT64_MAX
				      ? ", \"paths_at_least\": true" : "");
			for (u = 0; u < udd_sigset_uop_count(s, j); u++) {
				cp_buf_puts(&b, u ? ", " : "");
				cli_json_string(&b, udd_sigset_uop_name(s, j, u));
				cp_buf_printf(&b, ": %llu",
					      (unsigned long long)udd_sigset_uop_paths(s, j, u));
			}
			cp_buf_puts(&b, "}, \"vector\": ");
			put_json_vector(&b, udd_sigset_signature(s, j), udd_sigset_n_counters(s));
			cp_buf_puts(&b, ", \"example\": ");
			cli_json_string(&b, udd_sigset_example(s, j));
			cp_buf_puts(&b, "}");
		}
		cp_buf_printf(&b, "],\n\"total_paths\": %llu,\n%s\"distinct_signatures\": %zu\n}\n",
			      (unsigned long long)udd_sigset_total_paths(s),
			      udd_sigset_total_paths(s) == UINT64_MAX
			      ? "\"total_paths_at_least\": true,\n" : "",
			      udd_sigset_size(s));
	} else {
		cp_buf_printf(&b, "model %s, features: %s\n\n", udd_model_file(m),
			      features[0] ? features : "(none)");
		for (j = 0; j < udd_sigset_size(s); j++) {
			/* a signature several uops share names each with its own
			 * μpaths; the example is the first uop's */
			cp_buf_printf(&b, "[%zu] ", j + 1);
			for (u = 0; u < udd_sigset_uop_count(s, j); u++) {
				cp_buf_printf(&b, "%s%s, ", u ? "; " : "",
					      udd_sigset_uop_name(s, j, u));
				put_paths(&b, udd_sigset_uop_paths(s, j, u));
			}
			cp_buf_puts(&b, ": ");
			udd_signature_text(m, udd_sigset_signature(s, j), &b);
			cp_buf_printf(&b, "\n    e.g. %s\n", udd_sigset_example(s, j));
		}
		cp_buf_puts(&b, "\n");
		put_paths(&b, udd_sigset_total_paths(s));
		cp_buf_printf(&b, ", %zu distinct signature%s over %zu counter%s in %zu uop%s\n",
			      udd_sigset_size(s), plural(udd_sigset_size(s)),
			      udd_sigset_n_counters(s), plural(udd_sigset_n_counters(s)),
			      udd_model_n_uops(m), plural(udd_model_n_uops(m)));
	}
	rc = cli_write_output("paths", "-", &b);
out:
	cp_free(features);
	cp_buf_release(&b);
	udd_sigset_free(s);
	udd_model_free(m);
	return rc;
}
