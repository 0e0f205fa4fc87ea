/* cli/model.c: loading a model the same way in every subcommand: parse,
 * print every diagnostic, resolve the --with feature list. */
#include <stdio.h>

#include "cli/cli.h"
#include "stats/region.h"

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

/* Data the model ignores is worth knowing of (a counter line missing, an
 * event misspelt in the model or the capture), but it is no error: one
 * note on stderr, and the run goes on as before. */
void cli_note_unread_events(const char *cmd, const char *data_path,
			    const struct udd_model *m, const struct stats_dataset *d)
{
	struct cp_buf names;
	size_t n;

	cp_buf_init(&names);
	n = stats_model_unread_events(d, m, 8, &names);
	if (n && !names.failed)
		fprintf(stderr, "counterpoint %s: note: %s: %zu event%s the model "
			"does not read: %s\n", cmd, data_path, n, n == 1 ? "" : "s",
			names.data);
	cp_buf_release(&names);
}
