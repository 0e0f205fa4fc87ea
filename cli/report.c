/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli/report.c: `--html FILE`, the one writer of the HTML report for
 * `check` and `explore`: the page (report/report.h) around the command's
 * section, written atomically. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "report/report.h"

static int write_page(const char *cmd, const char *path, const char *model,
		      const char *data, const struct report_check *c,
		      const struct report_explore *e, const struct explore_suggest *s,
		      const struct udd_model *m)
{
	struct cp_buf b, title;
	struct cp_error err;
	int rc = CP_OK;

	cp_buf_init(&b);
	cp_buf_init(&title);
	cp_error_clear(&err);
	cp_buf_printf(&title, "counterpoint %s: %s on %s", cmd, model, data);
	report_page_begin(&b, title.data ? title.data : cmd);
	if (c)
		rc = report_check_html(c, &b, &err);
	if (!rc && e)
		rc = report_explore_html(e, &b, &err);
	if (!rc && s)
		report_suggest_html(s, m, &b);
	report_page_end(&b);
	if (rc)
		rc = cli_print_error(cmd, &err);
	else
		rc = cli_write_output(cmd, path, &b);
	cp_buf_release(&title);
	cp_buf_release(&b);
	return rc;
}

int cli_html_check(const char *path, const struct report_check *c)
{
	return write_page("check", path, c->model_path, c->data_path, c, NULL, NULL, NULL);
}

int cli_html_explore(const char *path, const struct report_explore *e)
{
	return write_page("explore", path, e->model_path, e->data_path, NULL, e, NULL, NULL);
}

int cli_html_suggest(const char *path, const struct udd_model *m, const char *model,
		     const char *data, const struct explore_suggest *s)
{
	return write_page("suggest", path, model, data, NULL, NULL, s, m);
}

int cli_parse_plots(const char *cmd, const char *text, size_t *out)
{
	if (!strcmp(text, "all")) {
		*out = SIZE_MAX;
		return CLI_OK;
	}
	return cli_parse_size(cmd, "--plots", text, out);
}
