/* cli/import.c: `counterpoint import perf STAT`: convert `perf stat -I`
 * output (CSV from -x, or JSON from -j) into the long dataset format,
 * written atomically.  The conversion itself is hw/perfstat.c. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "hw/perfstat.h"
#include "stats/region.h"

static const char *const cmd = "import";

static void usage(FILE *out)
{
	fprintf(out,
		"usage: counterpoint import perf STAT [--observation NAME] [-o DATA]\n"
		"                                     [--append] [--strip-modifiers]\n"
		"\n"
		"Convert `perf stat -x ,` output (or the JSON of `perf stat -j`) into\n"
		"counterpoint's dataset format, one row per interval and event:\n"
		"observation,interval,event,value,enabled_ns,running_ns.  With -I MS each\n"
		"time stamp is an interval; without -I the whole run is one interval\n"
		"(with -r N, perf's means over the runs; -r's variance column is dropped).\n"
		"perf's scaled counts are stored as raw value and enabled/running times\n"
		"that scale back to them exactly; per-CPU (-A) and per-thread rows are\n"
		"summed; <not counted> and <not supported> become rows with\n"
		"running_ns = 0; msec (task-clock, cpu-clock) becomes ns.\n"
		"\n"
		"options:\n"
		"  --observation NAME  the observation's name (default: STAT's file name\n"
		"                      without directory and extension)\n"
		"  -o, --output DATA   write here, atomically (default: standard output)\n"
		"  --append            add to the existing dataset DATA (its observation\n"
		"                      names must not include NAME)\n"
		"  --strip-modifiers   drop perf's event modifiers from the names:\n"
		"                      page-faults:u becomes page-faults, as `counterpoint\n"
		"                      record --user-only` names it, so that a model's\n"
		"                      counter lines match a user-only capture\n"
		"  -h, --help          show this help\n"
		"\n"
		"Exit status: 0 success, 2 bad usage or input (every bad line of STAT is\n"
		"listed), 3 internal error.\n");
}

/* "dir/run-1.csv" -> "run-1" (caller frees). */
static char *default_observation(const char *path)
{
	const char *base = strrchr(path, '/');
	const char *dot;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	return cp_strndup(base, dot && dot != base ? (size_t)(dot - base) : strlen(base));
}

/* Read an existing dataset for --append: it must load cleanly and not
 * hold the observation already.  Its text goes to out first. */
static int read_existing(const char *path, const char *observation,
			 struct cp_buf *out, struct cp_error *err)
{
	struct stats_dataset *d = NULL;
	FILE *fp;
	char chunk[65536];
	size_t got;
	int rc;

	if ((rc = stats_dataset_load(path, &d, err)))
		return rc;
	if (stats_dataset_find_observation(d, observation) != (size_t)-1) {
		stats_dataset_free(d);
		return cp_error_set(err, CP_EINPUT, "'%s' already has observation "
				    "'%s'", path, observation);
	}
	stats_dataset_free(d);
	if (!(fp = fopen(path, "rb")))
		return cp_error_set(err, CP_EIO, "cannot read '%s'", path);
	while ((got = fread(chunk, 1, sizeof chunk, fp)) > 0)
		cp_buf_append(out, chunk, got);
	fclose(fp);
	if (out->len && out->data[out->len - 1] != '\n')
		cp_buf_puts(out, "\n");
	return CP_OK;
}

static int import_perf(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "observation", required_argument, NULL, 'O' },
		{ "output", required_argument, NULL, 'o' },
		{ "append", no_argument, NULL, 'a' },
		{ "strip-modifiers", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *output = NULL, *observation = NULL;
	char *name = NULL;
	struct hec_perfstat_summary sum;
	struct cp_error err;
	struct cp_buf out;
	int c, append = 0, strip = 0, status;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'O':
			observation = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'a':
			append = 1;
			break;
		case 's':
			strip = 1;
			break;
		case 'h':
			usage(stdout);
			return CLI_OK;
		default:
			return cli_bad_option(cmd, c, argv, longopts);
		}
	}
	if (optind != argc - 1)
		return cli_usage_error(cmd, optind >= argc ? "no perf stat file given" :
				       "one perf stat file only");
	if (append && (!output || !strcmp(output, "-")))
		return cli_usage_error(cmd, "--append needs -o DATA");
	if (observation && !observation[0])
		return cli_usage_error(cmd, "--observation wants a name");
	cp_error_clear(&err);
	cp_buf_init(&out);
	if (!observation) {
		if (!(name = default_observation(argv[optind]))) {
			cp_error_set(&err, CP_ENOMEM, "out of memory");
			return cli_print_error(cmd, &err);
		}
		observation = name;
	}
	if (append && read_existing(output, observation, &out, &err)) {
		status = cli_print_error(cmd, &err);
		goto out;
	}
	if (hec_perfstat_import(argv[optind], observation,
				(append ? 0u : HEC_PERFSTAT_HEADER) |
				(strip ? HEC_PERFSTAT_STRIP_MODIFIERS : 0u),
				&out, &sum, &err)) {
		status = cli_print_error(cmd, &err);
		goto out;
	}
	if ((status = cli_write_output(cmd, output, &out)))
		goto out;
	if (sum.unsupported[0])
		fprintf(stderr, "counterpoint %s: warning: never counted "
			"(<not supported>): %s\n", cmd, sum.unsupported);
out:
	cp_free(name);
	cp_buf_release(&out);
	return status;
}

int cli_import(int argc, char **argv)
{
	if (argc < 2)
		return cli_usage_error(cmd, "no format given (perf)");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return CLI_OK;
	}
	if (!strcmp(argv[1], "perf"))
		return import_perf(argc - 1, argv + 1);
	if (argv[1][0] == '-')
		return cli_usage_error(cmd, "no format given (perf) before '%s'",
				       argv[1]);
	return cli_usage_error(cmd, "unknown format '%s' (known: perf)", argv[1]);
}
