/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli/report.c: `--html FILE`, the one maker of the HTML report for
 * `check`, `explore` and `suggest`: the page (report/report.h) around the
 * command's section, which the command writes with its other outputs. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "report/report.h"

static int make_page(const char *cmd, const char *model, const char *data,
		     const struct report_check *c, const struct report_explore *e,
		     const struct explore_suggest *s, const struct udd_model *m,
		     struct cp_buf *b)
{
	struct cp_buf title;
	struct cp_error err;
	int rc = CP_OK;

	cp_buf_init(&title);
	cp_error_clear(&err);
	cp_buf_printf(&title, "counterpoint %s: %s on %s", cmd, model, data);
	report_page_begin(b, title.data ? title.data : cmd);
	if (c)
		rc = report_check_html(c, b, &err);
	if (!rc && e)
		rc = report_explore_html(e, b, &err);
	if (!rc && s)
		report_suggest_html(s, m, b);
	report_page_end(b);
	if (rc)
		rc = cli_print_error(cmd, &err);
	cp_buf_release(&title);
	return rc;
}

int cli_html_check(const struct report_check *c, struct cp_buf *page)
{
	return make_page("check", c->model_path, c->data_path, c, NULL, NULL, NULL, page);
}

int cli_html_explore(const struct report_explore *e, struct cp_buf *page)
{
	return make_page("explore", e->model_path, e->data_path, NULL, e, NULL, NULL, page);
}

int cli_html_suggest(const struct udd_model *m, const char *model,
		     const char *data, const struct explore_suggest *s,
		     struct cp_buf *page)
{
	return make_page("suggest", model, data, NULL, NULL, s, m, page);
}

int cli_parse_plots(const char *cmd, const char *text, size_t *out)
{
	if (!strcmp(text, "all")) {
		*out = SIZE_MAX;
		return CLI_OK;
	}
	return cli_parse_size(cmd, "--plots", text, out);
}
