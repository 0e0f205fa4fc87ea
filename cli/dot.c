/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli/dot.c: `counterpoint dot`: a model's μDD as a Graphviz graph. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"

static const char usage_text[] =
	"usage: counterpoint dot MODEL [--with F,...] [-o FILE]\n"
	"\n"
	"Draw the μpath decision diagram of a model (with the given features)\n"
	"as a Graphviz digraph: decisions are diamonds, actions boxes, counter\n"
	"increments blue ellipses, done nodes double circles; case values label\n"
	"the edges.  Render it with e.g. `dot -Tsvg -o model.svg`.\n"
	"\n"
	"options:\n"
	"  --with F,...   enable these features (all others are off)\n"
	"  -o FILE        write to FILE (atomically) instead of standard output\n"
	"  -h, --help     this text\n"
	"\n"
	"exit status: 0 ok, 1 the model has errors, 2 bad usage or unreadable file\n";

int cli_dot(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "with", required_argument, NULL, 'w' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *with = NULL, *output = NULL;
	struct udd_model *m = NULL;
	udd_features sel = 0;
	struct cp_error err;
	struct cp_buf b;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	int opt, rc;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'w': with = optarg; break;
		case 'o': output = optarg; break;
		case 'h': fputs(usage_text, stdout); return CLI_OK;
		default: return cli_bad_option("dot", opt, argv, longopts);
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("dot", optind >= argc ? "a MODEL file is required"
							   : "only one MODEL file is accepted");
	{
		const struct cp_file_use files[] = {
			{ "MODEL", argv[optind], 0 }, { "-o", output, 1 }
		};

		if ((rc = cli_files_distinct("dot", files, 2)))
			return rc;
	}
	rc = cli_load_model("dot", argv[optind], with, CLI_RESULT, &m, &sel);
	if (rc)
		return rc;
	cp_error_clear(&err);
	mem = open_memstream(&text, &len);
	if (!mem) {
		cp_error_set(&err, CP_ENOMEM, "out of memory");
		udd_model_free(m);
		return cli_print_error("dot", &err);
	}
	rc = udd_model_dot(m, sel, mem, &err);
	fclose(mem);
	if (rc) {
		rc = cli_print_error("dot", &err);
	} else {
		cp_buf_init(&b);
		cp_buf_append(&b, text, len);
		rc = cli_write_output("dot", output, &b);
		cp_buf_release(&b);
	}
	free(text);
	udd_model_free(m);
	return rc;
}
