/* cli/model.c: loading a model the same way in every subcommand: parse,
 * print every diagnostic, resolve the --with feature list. */
#include <stdio.h>

#include "cli/cli.h"

int cli_load_model(const char *cmd, const char *path, const char *with,
		   int model_error_status, struct udd_model **model,
		   udd_features *sel)
{
	struct cp_error err;
	struct udd_model *m = NULL;
	size_t i;
	int rc;

	cp_error_clear(&err);
	rc = udd_model_parse_file(path, &m, &err);
	if (m)
		for (i = 0; i < udd_model_n_diagnostics(m); i++)
			fputs(udd_model_diagnostic(m, i), stderr);
	if (rc == CP_EIO || (rc && !m)) {
		udd_model_free(m);
		return cli_print_error(cmd, &err);
	}
	if (rc) {
		udd_model_free(m);
		return model_error_status;
	}
	rc = udd_model_select(m, with, sel, &err);
	if (rc) {
		char line[CP_ERROR_MAX + 300];

		cp_error_format(&err, line, sizeof line);
		fprintf(stderr, "%s\n", line);
		udd_model_free(m);
		return model_error_status;
	}
	*model = m;
	return CLI_OK;
}
