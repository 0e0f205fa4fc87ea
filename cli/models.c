/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli/models.c: `counterpoint models`: the bundled models, by the names
 * every command takes in place of a model file. */
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static const char usage_text[] =
	"usage: counterpoint models [--paths]\n"
	"\n"
	"List the bundled models, one a line: the name every command takes in\n"
	"place of a model file (counterpoint check haswell/mmu data.csv) and\n"
	"what it models.  They are read from the models installed beside the\n"
	"command (PREFIX/share/counterpoint/models) or the source tree's\n"
	"models/.\n"
	"\n"
	"options:\n"
	"  --paths      print each model's file instead of its description\n"
	"  -h, --help   this text\n"
	"\n"
	"exit status: 0 models listed, 1 none found, 2 bad usage\n";

/* What a model file says it is: the first sentence of its opening
 * comment, after "NAME.udd: ". */
static void describe(const char *path, char *out, size_t size)
{
	char line[256], text[1024] = "", *p, *end;
	FILE *f = fopen(path, "r");
	size_t len = 0;
	int i;

	*out = 0;
	if (!f)
		return;
	for (i = 0; i < 6 && fgets(line, sizeof line, f); i++) {
		p = line + strspn(line, " \t/*");
		p[strcspn(p, "\n")] = 0;
		len += (size_t)snprintf(text + len, sizeof text - len, "%s%s",
					len ? " " : "", p);
		if (len >= sizeof text - 1 || strstr(line, "*/"))
			break;
	}
	fclose(f);
	if (!(p = strstr(text, ".udd: ")))
		return;
	p += 6;
	for (end = p; *end && !(end[0] == '.' && (!end[1] || end[1] == ' ')); end++)
		;
	snprintf(out, size, "%.*s", (int)(end - p), p);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .udd files one level down in dir (dir/FAMILY/NAME.udd), as
 * "FAMILY/NAME" appended to names. */
static int list_dir(const char *dir, char ***names, size_t *n, size_t *cap)
{
	DIR *top = opendir(dir), *sub;
	struct dirent *f, *u;

	if (!top)
		return 0;
	while ((f = readdir(top))) {
		char path[PATH_MAX + 256];

		if (f->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, f->d_name);
		if (!(sub = opendir(path)))
			continue;
		while ((u = readdir(sub))) {
			size_t len = strlen(u->d_name);
			char *name;

			if (len < 5 || strcmp(u->d_name + len - 4, ".udd"))
				continue;
			if (*n == *cap) {
				char **grown = realloc(*names, (*cap = *cap ? 2 * *cap : 16) *
						       sizeof *grown);

				if (!grown) {
					closedir(sub);
					closedir(top);
					return -1;
				}
				*names = grown;
			}
			if (!(name = malloc(strlen(f->d_name) + len + 2))) {
				closedir(sub);
				closedir(top);
				return -1;
			}
			sprintf(name, "%s/%.*s", f->d_name, (int)(len - 4), u->d_name);
			(*names)[(*n)++] = name;
		}
		closedir(sub);
	}
	closedir(top);
	return 0;
}

int cli_models(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "paths", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char dirs[2][PATH_MAX], **names = NULL;
	size_t nd, d, i, n = 0, cap = 0;
	int opt, paths = 0, rc = CLI_OK;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'p': paths = 1; break;
		case 'h': fputs(usage_text, stdout); return CLI_OK;
		default: return cli_bad_option("models", opt, argv, longopts);
		}
	}
	if (optind != argc)
		return cli_usage_error("models", "no arguments expected");
	nd = cli_model_dirs(dirs, 2);
	/* the first folder's model of a name is the one commands read */
	for (d = 0; d < nd && !rc; d++) {
		size_t from = n;

		if (list_dir(dirs[d], &names, &n, &cap)) {
			fprintf(stderr, "counterpoint models: out of memory\n");
			rc = CLI_INTERNAL;
			break;
		}
		qsort(names + from, n - from, sizeof *names, cmp_str);
		for (i = from; i < n; i++) {
			char file[2 * PATH_MAX], what[256];
			size_t j;

			for (j = 0; j < from && strcmp(names[j], names[i]); j++)
				;
			if (j < from)
				continue;
			snprintf(file, sizeof file, "%s/%s.udd", dirs[d], names[i]);
			if (paths) {
				printf("%-24s %s\n", names[i], file);
			} else {
				describe(file, what, sizeof what);
				printf("%-24s %s\n", names[i], what);
			}
		}
	}
	if (!rc && !n) {
		fprintf(stderr, "counterpoint models: no bundled models beside the "
			"command\n");
		rc = CLI_RESULT;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}
