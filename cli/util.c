/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli/util.c: what every subcommand shares: error printing with exit
 * statuses, model loading with diagnostics, option value parsing. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include "cli/cli.h"
#include "pipeline/pipeline.h"

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "counterpoint %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "; try 'counterpoint %s --help'\n", cmd);
	return CLI_USAGE;
}

/* Out of memory: under an address-space limit (ulimit -v, a batch
 * scheduler's or a container's bound) that limit is likely the reason. */
void cli_note_address_limit(const char *cmd)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_AS, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return;
	fprintf(stderr, "counterpoint %s: note: the address space of this process "
		"is limited to %llu MB (ulimit -v %llu)\n", cmd,
		(unsigned long long)(rl.rlim_cur >> 20),
		(unsigned long long)(rl.rlim_cur >> 10));
}

int cli_print_error(const char *cmd, const struct cp_error *err)
{
	char line[CP_ERROR_MAX + 300];

	cp_error_format(err, line, sizeof line);
	fprintf(stderr, "counterpoint %s: %s\n", cmd, line);
	if (err->detail[0])
		fputs(err->detail, stderr);
	if (err->code == CP_ENOMEM)
		cli_note_address_limit(cmd);
	switch (err->code) {
	case CP_EINTERNAL:
	case CP_ENOMEM:
	case CP_ENUMERIC:
		return CLI_INTERNAL;
	default:
		return CLI_USAGE;
	}
}

/* A decimal integer of at least min (0 or 1). */
static int parse_size_min(const char *cmd, const char *opt, const char *text,
			  size_t min, size_t *out)
{
	const char *want = min ? "a positive integer" : "a non-negative integer";
	char *end;
	unsigned long long v;

	errno = 0;
	if (!text[0] || text[0] == '-')
		return cli_usage_error(cmd, "%s wants %s, not '%s'", opt, want, text);
	v = strtoull(text, &end, 10);
	if (errno || *end || v > SIZE_MAX || v < min)
		return cli_usage_error(cmd, "%s wants %s, not '%s'", opt, want, text);
	*out = (size_t)v;
	return CLI_OK;
}

int cli_parse_size(const char *cmd, const char *opt, const char *text,
		   size_t *out)
{
	return parse_size_min(cmd, opt, text, 0, out);
}

int cli_parse_count(const char *cmd, const char *opt, const char *text,
		    size_t *out)
{
	return parse_size_min(cmd, opt, text, 1, out);
}

int cli_parse_batches(const char *cmd, const char *text, size_t *out)
{
	if (!strcmp(text, "auto")) {
		*out = 0;
		return CLI_OK;
	}
	if (!strcmp(text, "none")) {
		*out = 1;
		return CLI_OK;
	}
	if (cli_parse_size(cmd, "--batches", text, out))
		return CLI_USAGE;
	if (*out == 1)
		return CLI_OK;   /* one batch: every interval a sample, as 'none' */
	if (*out < 2)
		return cli_usage_error(cmd, "--batches wants at least 2, 'none' or "
				       "'auto', not '%s'", text);
	return CLI_OK;
}

int cli_parse_double(const char *cmd, const char *opt, const char *text,
		     double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (errno || end == text || *end || !isfinite(v) || v < lo || v > hi)
		return cli_usage_error(cmd, "%s wants a number in [%g, %g], not '%s'",
				       opt, lo, hi, text);
	*out = v;
	return CLI_OK;
}

int cli_parse_region(const char *cmd, const char *text, enum feas_shape *out)
{
	if (!strcmp(text, "pca"))
		*out = FEAS_PCA;
	else if (!strcmp(text, "independent"))
		*out = FEAS_INDEPENDENT;
	else if (!strcmp(text, "ellipsoid"))
		*out = FEAS_ELLIPSOID;
	else
		return cli_usage_error(cmd, "--region wants pca, independent or "
				       "ellipsoid, not '%s'", text);
	return CLI_OK;
}

const char *cli_region_name(enum feas_shape s)
{
	return pipe_region_name(s);
}

int cli_parse_threads(const char *cmd, const char *text, size_t *out)
{
	if (cli_parse_size(cmd, "--threads", text, out))
		return CLI_USAGE;
	if (*out > 256)
		return cli_usage_error(cmd, "--threads wants at most 256, not '%s'", text);
	return CLI_OK;
}

/* A cluster of short options ("-Zx", "-x,") that holds c. */
static int short_cluster_has(const char *s, int c)
{
	return s && s[0] == '-' && s[1] && s[1] != '-' && strchr(s + 1, c);
}

int cli_bad_option(const char *cmd, int opt, char **argv,
		   const struct option *longopts)
{
	const char *arg = argv[optind - 1], *names[128], *near, *cluster = NULL;
	char word[128];
	size_t n = 0;

	/* A short option is reported by its letter.  getopt leaves optind on
	 * a cluster it has not finished ("-x," with 'x' unknown), so the
	 * cluster is argv[optind - 1] or argv[optind]; never the command's
	 * name or a long option before it. */
	if (optopt > 0 && optopt < 128) {
		if (short_cluster_has(arg, optopt))
			cluster = arg;
		else if (short_cluster_has(argv[optind], optopt))
			cluster = argv[optind];
	}
	if (opt == ':')
		return cluster ? cli_usage_error(cmd, "option '-%c' needs a value",
						 optopt)
			       : cli_usage_error(cmd, "option '%s' needs a value", arg);
	if (cluster && cluster[2])
		return cli_usage_error(cmd, "unknown option '-%c' (in '%s')", optopt,
				       cluster);
	if (cluster)
		return cli_usage_error(cmd, "unknown option '-%c'", optopt);
	/* "--name" or "--name=value": the name against the long options */
	snprintf(word, sizeof word, "%s", arg + (arg[0] == '-' && arg[1] == '-') * 2);
	word[strcspn(word, "=")] = '\0';
	for (; longopts && n < 128 && longopts[n].name; n++)
		names[n] = longopts[n].name;
	if (*word && (near = cp_closest(word, names, n)) != NULL)
		return cli_usage_error(cmd, "unknown option '%s' (did you mean "
				       "'--%s'?)", arg, near);
	return cli_usage_error(cmd, "unknown option '%s'", arg);
}

int cli_files_distinct(const char *cmd, const struct cp_file_use *u, size_t n)
{
	struct cp_error err;

	cp_error_clear(&err);
	if (cp_files_distinct(u, n, &err))
		return cli_print_error(cmd, &err);
	return CLI_OK;
}

int cli_write_outputs(const char *cmd, const char *const *paths,
		      struct cp_buf *const *bufs, size_t n)
{
	struct cp_output o[CLI_MAX_OUTPUTS];
	struct cp_error err;
	size_t i, opened = 0, pass;
	int rc = CP_OK;

	cp_error_clear(&err);
	if (n > CLI_MAX_OUTPUTS)
		return CLI_INTERNAL;
	for (i = 0; i < n && !rc; i++)
		if (bufs[i]->failed)
			rc = cp_error_set(&err, CP_ENOMEM, "out of memory");
	for (i = 0; i < n && !rc; i++, opened++)
		rc = cp_output_open(&o[i], paths[i] ? paths[i] : "-", &err);
	/* the files first, each to its temporary file; a descriptor (standard
	 * output) only once they all are written, which it cannot undo */
	for (pass = 0; pass < 2 && !rc; pass++)
		for (i = 0; i < n && !rc; i++)
			if (o[i].committed == (int)pass)
				rc = cp_output_write(&o[i], bufs[i]->data ? bufs[i]->data : "",
						     bufs[i]->len, &err);
	for (i = 0; i < n && !rc; i++)
		rc = cp_output_close(&o[i], &err);
	for (; i < opened; i++)
		cp_output_abort(&o[i]);
	return rc ? cli_print_error(cmd, &err) : CLI_OK;
}

int cli_write_output(const char *cmd, const char *path, struct cp_buf *b)
{
	return cli_write_outputs(cmd, &path, &b, 1);
}

void cli_json_string(struct cp_buf *b, const char *s)
{
	cp_buf_json_string(b, s);
}


void cli_progress_init(struct cli_progress *p, const char *cmd)
{
	/* COUNTERPOINT_PROGRESS_AFTER: seconds before the first line (0.5);
	 * the tests set 0, so that a run shows progress however fast */
	const char *after = getenv("COUNTERPOINT_PROGRESS_AFTER");
	char *end;

	p->cmd = cmd;
	p->tty = isatty(2);
	p->shown = 0;
	p->start = p->last = cp_seconds();
	p->after = 0.5;
	if (after && after[0]) {
		double v = strtod(after, &end);

		if (!*end && v >= 0 && v < 3600)
			p->after = v;
	}
}

int cli_progress_due(const struct cli_progress *p)
{
	double now;

	if (!p->tty)
		return 0;
	now = cp_seconds();
	return !(now - p->start < p->after || (p->shown && now - p->last < 0.05));
}

void cli_progress_show(struct cli_progress *p, const char *fmt, ...)
{
	va_list ap;

	if (!cli_progress_due(p))
		return;
	p->last = cp_seconds();
	fprintf(stderr, "\r\033[Kcounterpoint %s: ", p->cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
	p->shown = 1;
}

void cli_progress_end(struct cli_progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = 0;
}
