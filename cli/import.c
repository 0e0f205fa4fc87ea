/* cli/import.c: `counterpoint import perf STAT`: convert `perf stat -I`
 * output (CSV from -x, or JSON from -j) into the long dataset format,
 * written atomically.  The conversion itself is hw/perfstat.c. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "hw/gem5.h"
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

/* ==== import gem5 ==== */

static void usage_gem5(FILE *out)
{
	fprintf(out,
		"usage: counterpoint import gem5 STATS [--observation NAME] [-o DATA]\n"
		"                                      [--append] [--events GLOB,...]\n"
		"                                      [--dumps auto|delta|cumulative]\n"
		"\n"
		"Convert gem5's statistics (m5out/stats.txt; - reads standard input) into\n"
		"counterpoint's dataset format.  Each dump (a Begin/End Simulation\n"
		"Statistics block: m5 dumpstats, a periodic or the final dump) is one\n"
		"interval, lasting its simTicks (sim_ticks) at simFreq ticks per second;\n"
		"each statistic is an event, elements of vectors and distributions by\n"
		"gem5's names (::total, ::samples, ::0-1).  A statistic missing from a\n"
		"dump is not counted there (running_ns = 0).  Dumps are deltas when gem5\n"
		"reset the statistics at each dump and running totals (differenced) when\n"
		"it did not, as finalTick - simTicks tells.  Without --events every\n"
		"statistic that holds integers is kept; ratios, averages and rates (a\n"
		"fraction, nan or inf in some dump, or a unit such as (Byte/Second)) are\n"
		"left out and counted in the note on stderr.  A negative count (an\n"
		"overflowed counter) is an error.\n"
		"\n"
		"options:\n"
		"  --observation NAME  the observation's name (default: STATS's file name\n"
		"                      without directory and extension)\n"
		"  -o, --output DATA   write here, atomically (default: standard output)\n"
		"  --append            add to the existing dataset DATA (its observation\n"
		"                      names must not include NAME)\n"
		"  --events GLOB,...   keep only the statistics these globs match\n"
		"                      ('system.cpu.mmu.dtb.*,*::total'); each must hold\n"
		"                      counts, and each glob must match\n"
		"  --dumps MODE        auto (default: from the tick counters), delta\n"
		"                      (statistics reset at every dump) or cumulative\n"
		"                      (never reset); the ticks must agree where they tell\n"
		"  -h, --help          show this help\n"
		"\n"
		"Exit status: 0 success, 2 bad usage or input (every bad line of STATS is\n"
		"listed), 3 internal error.\n");
}

/* The one-line note: what was read and how (stderr). */
static void note_gem5(const char *path, const struct hec_gem5_summary *s)
{
	fprintf(stderr, "counterpoint %s: note: %s: gem5 stats.txt, %zu dump%s",
		cmd, path, s->dumps, s->dumps == 1 ? "" : "s");
	if (s->totals && s->deltas)
		fprintf(stderr, " (%zu deltas and %zu running totals, "
			"differenced)", s->deltas, s->totals);
	else if (s->totals)
		fprintf(stderr, " (running totals, differenced)");
	else if (s->deltas)
		fprintf(stderr, " (deltas: statistics reset at each dump)");
	fprintf(stderr, ", %zu event%s", s->events, s->events == 1 ? "" : "s");
	if (s->not_counts)
		fprintf(stderr, "; %zu statistic%s left out as not counts (a "
			"fraction, nan, inf, or a rate by its unit)", s->not_counts,
			s->not_counts == 1 ? "" : "s");
	if (s->not_totals)
		fprintf(stderr, "; %zu left out as not running totals (they "
			"decrease)", s->not_totals);
	if (s->one_line)
		fprintf(stderr, "; %zu one-line vector%s left out (elements "
			"unnamed)", s->one_line, s->one_line == 1 ? "" : "s");
	if (s->missing)
		fprintf(stderr, "; %zu event%s not counted in some dump (missing "
			"there)", s->missing, s->missing == 1 ? "" : "s");
	if (s->short_dumps)
		fprintf(stderr, "; %zu dump%s shorter than 1 ns, not counted",
			s->short_dumps, s->short_dumps == 1 ? "" : "s");
	fprintf(stderr, "\n");
}

static int import_gem5(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "observation", required_argument, NULL, 'O' },
		{ "output", required_argument, NULL, 'o' },
		{ "append", no_argument, NULL, 'a' },
		{ "events", required_argument, NULL, 'e' },
		{ "dumps", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct hec_gem5_options opt = { 0 };
	const char *output = NULL;
	char *name = NULL;
	struct hec_gem5_summary sum;
	struct cp_error err;
	struct cp_buf out, messages;
	int c, append = 0, status;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'O':
			opt.observation = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'a':
			append = 1;
			break;
		case 'e':
			opt.events = optarg;
			break;
		case 'd':
			if (!strcmp(optarg, "auto"))
				opt.dumps = HEC_GEM5_DUMPS_AUTO;
			else if (!strcmp(optarg, "delta"))
				opt.dumps = HEC_GEM5_DUMPS_DELTA;
			else if (!strcmp(optarg, "cumulative"))
				opt.dumps = HEC_GEM5_DUMPS_CUMULATIVE;
			else
				return cli_usage_error(cmd, "--dumps wants auto, delta "
						       "or cumulative, not '%s'", optarg);
			break;
		case 'h':
			usage_gem5(stdout);
			return CLI_OK;
		default:
			return cli_bad_option(cmd, c, argv, longopts);
		}
	}
	if (optind != argc - 1)
		return cli_usage_error(cmd, optind >= argc ? "no gem5 stats file "
				       "given" : "one gem5 stats file only");
	if (append && (!output || !strcmp(output, "-")))
		return cli_usage_error(cmd, "--append needs -o DATA");
	if (opt.observation && !opt.observation[0])
		return cli_usage_error(cmd, "--observation wants a name");
	if (opt.events && !opt.events[0])
		return cli_usage_error(cmd, "--events wants globs");
	cp_error_clear(&err);
	cp_buf_init(&out);
	cp_buf_init(&messages);
	if (!opt.observation) {
		if (!(name = default_observation(strcmp(argv[optind], "-") ?
						 argv[optind] : "stdin"))) {
			cp_error_set(&err, CP_ENOMEM, "out of memory");
			return cli_print_error(cmd, &err);
		}
		opt.observation = name;
	}
	opt.header = !append;
	opt.messages = &messages;
	if ((append && read_existing(output, opt.observation, &out, &err)) ||
	    hec_gem5_import(argv[optind], &opt, &out, &sum, &err)) {
		/* every bad line, where err holds what fits in it */
		if (err.code == CP_EINPUT && messages.len && !messages.failed) {
			fprintf(stderr, "counterpoint %s: %s", cmd, messages.data);
			status = CLI_USAGE;
		} else {
			status = cli_print_error(cmd, &err);
		}
		goto out;
	}
	if ((status = cli_write_output(cmd, output, &out)))
		goto out;
	note_gem5(strcmp(argv[optind], "-") ? argv[optind] : "<stdin>", &sum);
out:
	cp_free(name);
	cp_buf_release(&messages);
	cp_buf_release(&out);
	return status;
}

int cli_import(int argc, char **argv)
{
	if (argc < 2)
		return cli_usage_error(cmd, "no format given (perf, gem5)");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		printf("\n");
		usage_gem5(stdout);
		return CLI_OK;
	}
	if (!strcmp(argv[1], "perf"))
		return import_perf(argc - 1, argv + 1);
	if (!strcmp(argv[1], "gem5"))
		return import_gem5(argc - 1, argv + 1);
	if (argv[1][0] == '-')
		return cli_usage_error(cmd, "no format given (perf, gem5) before "
				       "'%s'", argv[1]);
	return cli_usage_error(cmd, "unknown format '%s' (known: perf, gem5)",
			       argv[1]);
}
