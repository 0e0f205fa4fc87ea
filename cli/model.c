/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli/model.c: loading a model the same way in every subcommand: find it
 * (a file, or a bundled model by name), parse, print every diagnostic,
 * resolve the --with feature list. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "stats/region.h"

size_t cli_model_dirs(char dirs[][PATH_MAX], size_t max)
{
	static const char *const rel[] = { "../share/counterpoint/models", "../models" };
	char exe[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	size_t i, k = 0;
	struct stat st;

	if (n <= 0)
		return 0;
	exe[n] = 0;
	if (!(slash = strrchr(exe, '/')))
		return 0;
	*slash = 0;
	for (i = 0; i < sizeof rel / sizeof rel[0] && k < max; i++) {
		char dir[PATH_MAX + 64];

		snprintf(dir, sizeof dir, "%s/%s", exe, rel[i]);
		if (stat(dir, &st) || !S_ISDIR(st.st_mode) || !realpath(dir, dirs[k]))
			continue;
		if (k && !strcmp(dirs[k], dirs[k - 1]))
			continue;
		k++;
	}
	return k;
}

/* The file to read for the model named path: path itself when it
 * exists or ends in .udd (then the parser's error names it), else the
 * bundled model of that name (haswell/mmu: NAME.udd in a bundled models
 * folder).  CLI_USAGE, saying where it looked, when there is none. */
static int model_file(const char *cmd, const char *path, char *out, size_t size)
{
	char dirs[2][PATH_MAX], where[2 * PATH_MAX + 16] = "";
	size_t n, i, len = strlen(path);
	struct stat st;

	snprintf(out, size, "%s", path);
	if (!stat(path, &st) || (len > 4 && !strcmp(path + len - 4, ".udd")))
		return CLI_OK;
	n = cli_model_dirs(dirs, 2);
	for (i = 0; i < n; i++) {
		snprintf(out, size, "%s/%s.udd", dirs[i], path);
		if (!stat(out, &st) && S_ISREG(st.st_mode))
			return CLI_OK;
		snprintf(where + strlen(where), sizeof where - strlen(where), "%s%s",
			 i ? " or " : "", dirs[i]);
	}
	fprintf(stderr, "counterpoint %s: cannot read model '%s': no such file, "
		"nor a bundled model '%s.udd'%s%s ('counterpoint models' lists "
		"them)\n", cmd, path, path, n ? " in " : " (none beside the command)",
		where);
	return CLI_USAGE;
}

int cli_load_model(const char *cmd, const char *path, const char *with,
		   int model_error_status, struct udd_model **model,
		   udd_features *sel)
{
	struct cp_error err;
	struct udd_model *m = NULL;
	char file[PATH_MAX + 64];
	size_t i;
	int rc;

	if ((rc = model_file(cmd, path, file, sizeof file)))
		return rc;
	cp_error_clear(&err);
	rc = udd_model_parse_file(file, &m, &err);
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
