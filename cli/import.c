/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli/import.c: `counterpoint import perf FILE...`: convert `perf stat`
 * output of any variant (CSV, JSON, the human-readable output) into the
 * long dataset format, written atomically.  The conversion itself is
 * hw/perfstat.c. */
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
		"usage: counterpoint import perf FILE... [--observation NAME] [-o DATA]\n"
		"                                        [--append] [--strip-modifiers]\n"
		"                                        [--runs-as-intervals] [--runs N]\n"
		"                                        [-x SEP] [--strict]\n"
		"\n"
		"Convert `perf stat` output into counterpoint's dataset format, one row\n"
		"per interval and event: observation,interval,event,value,enabled_ns,\n"
		"running_ns.  Every variant perf writes is read and named in a note on\n"
		"stderr: CSV (-x with any separator), JSON lines (-j) and the\n"
		"human-readable default output; with -I each time stamp is an interval,\n"
		"without it the whole run is one; per-CPU (-A), per-thread, per-core,\n"
		"per-socket and per-cgroup rows are summed.  perf's scaled counts are\n"
		"stored as raw value and enabled/running times that scale back to them\n"
		"exactly (the human-readable output has no run times: an interval's\n"
		"length is its enabled time); <not counted> and <not supported> become\n"
		"rows with running_ns = 0; msec (task-clock, cpu-clock) becomes ns.\n"
		"Metric-only lines, -I --summary rows (checked against the sum of the\n"
		"intervals) and later copies of a repeated event are skipped, and lines\n"
		"that are not perf's (program output, harness headers) too: the note\n"
		"counts them.  A line shaped like perf's that does not parse is an error.\n"
		"A `perf stat -r N` total keeps perf's deviation (columns runs,se_pct):\n"
		"`region` and `check` build a per-counter region from it.\n"
		"\n"
		"FILE is a file or - (standard input).  Several files are several\n"
		"observations, each named after its file, unless --runs-as-intervals.\n"
		"\n"
		"options:\n"
		"  --observation NAME  the observation's name (default: FILE's name\n"
		"                      without directory and extension)\n"
		"  --runs-as-intervals\n"
		"                      every run (each FILE, or each run of a FILE that\n"
		"                      holds several) is one interval of one observation,\n"
		"                      its counts summed over its -I intervals, so that N\n"
		"                      runs of a workload form a region over their spread;\n"
		"                      every run must hold the same events\n"
		"  --runs N            the N of `perf stat -r N` for CSV and JSON output,\n"
		"                      which do not say it (the human-readable header\n"
		"                      does); without it their deviations are dropped\n"
		"  -x, --separator SEP\n"
		"                      the separator given to perf stat -x (default:\n"
		"                      detected among , ; | tab and :)\n"
		"  --strict            lines that are not perf's are errors, not skipped\n"
		"  -o, --output DATA   write here, atomically (default: standard output)\n"
		"  --append            add to the existing dataset DATA (its observation\n"
		"                      names must not include the new ones)\n"
		"  --strip-modifiers   drop perf's event modifiers from the names:\n"
		"                      page-faults:u becomes page-faults, as `counterpoint\n"
		"                      record --user-only` names it, so that a model's\n"
		"                      counter lines match a user-only capture\n"
		"  -h, --help          show this help\n"
		"\n"
		"Exit status: 0 success, 2 bad usage or input (every bad line is\n"
		"listed, as FILE:LINE: in line order), 3 internal error.\n");
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

/* The column names of a dataset's header line (simple names: the loader
 * matches them exactly), split at commas; n set. */
static char **header_columns(const char *text, size_t *n)
{
	size_t len = strcspn(text, "\r\n"), i, cap = 8;
	char **cols = cp_calloc(cap, sizeof *cols);
	const char *p = text;

	*n = 0;
	if (len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3)) {
		p += 3;
		len -= 3;
	}
	while (cols) {
		size_t f = strcspn(p, ",\r\n");
		const char *a = p, *b = p + f;

		while (a < b && (*a == ' ' || *a == '\t' || *a == '"'))
			a++;
		while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '"'))
			b--;
		if (*n == cap) {
			char **c = cp_reallocarray(cols, cap * 2, sizeof *c);

			if (!c)
				break;
			cols = c;
			cap *= 2;
		}
		if (!(cols[(*n)++] = cp_strndup(a, (size_t)(b - a))))
			break;
		if (p[f] != ',')
			return cols;
		p += f + 1;
	}
	for (i = 0; cols && i < *n; i++)
		cp_free(cols[i]);
	cp_free(cols);
	*n = 0;
	return NULL;
}

/* Read an existing dataset for --append: it must load cleanly and hold
 * none of the observations; its text goes to out, its header's columns
 * to *cols. */
static int read_existing(const char *path, const struct hec_perfstat_input *in,
			 size_t n, struct cp_buf *out, char ***cols,
			 size_t *ncols, struct cp_error *err)
{
	struct stats_dataset *d = NULL;
	char *text;
	size_t len, i;
	int rc;

	if ((rc = stats_dataset_load(path, &d, err)))
		return rc;
	for (i = 0; i < n; i++)
		if (stats_dataset_find_observation(d, in[i].observation) != (size_t)-1) {
			stats_dataset_free(d);
			return cp_error_set(err, CP_EINPUT, "'%s' already has observation "
					    "'%s'", path, in[i].observation);
		}
	stats_dataset_free(d);
	if ((rc = cp_read_text(path, SIZE_MAX, 0, &text, &len, err)))
		return rc;
	cp_buf_append(out, text, len);
	cp_free(text);
	if (out->failed)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	if (out->len && out->data[out->len - 1] != '\n')
		cp_buf_puts(out, "\n");
	if (!(*cols = header_columns(out->data ? out->data : "", ncols)))
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	return CP_OK;
}

static int import_perf(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "observation", required_argument, NULL, 'O' },
		{ "output", required_argument, NULL, 'o' },
		{ "append", no_argument, NULL, 'a' },
		{ "strip-modifiers", no_argument, NULL, 's' },
		{ "strict", no_argument, NULL, 'S' },
		{ "runs-as-intervals", no_argument, NULL, 'R' },
		{ "runs", required_argument, NULL, 'r' },
		{ "separator", required_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *output = NULL, *observation = NULL, *sep = NULL;
	struct hec_perfstat_input *in = NULL;
	struct hec_perfstat_options opt;
	struct hec_perfstat_report rep;
	struct cp_buf *text = NULL;
	char **names = NULL, **cols = NULL;
	struct cp_error err;
	struct cp_buf out;
	struct cp_file_use *files = NULL;
	struct cp_lock lock = { -1, 0, NULL };
	size_t nin = 0, ncols = 0, i, j, runs = 0;
	int c, append = 0, status = CLI_OK;

	memset(&opt, 0, sizeof opt);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:x:h", longopts, NULL)) != -1) {
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
			opt.flags |= HEC_PERFSTAT_STRIP_MODIFIERS;
			break;
		case 'S':
			opt.flags |= HEC_PERFSTAT_STRICT;
			break;
		case 'R':
			opt.flags |= HEC_PERFSTAT_RUNS_AS_INTERVALS;
			break;
		case 'r':
			if (cli_parse_size(cmd, "--runs", optarg, &runs))
				return CLI_USAGE;
			if (runs < 2 || runs > 1000000)
				return cli_usage_error(cmd, "--runs wants the N of perf "
						       "stat -r N, at least 2, not '%s'",
						       optarg);
			break;
		case 'x':
			sep = !strcmp(optarg, "\\t") ? "\t" : optarg;
			if (!sep[0])
				return cli_usage_error(cmd, "-x wants a separator");
			break;
		case 'h':
			usage(stdout);
			return CLI_OK;
		default:
			return cli_bad_option(cmd, c, argv, longopts);
		}
	}
	nin = optind < argc ? (size_t)(argc - optind) : 0;
	if (!nin)
		return cli_usage_error(cmd, "no perf stat file given");
	if (append && (!output || !strcmp(output, "-")))
		return cli_usage_error(cmd, "--append needs -o DATA");
	if (observation && !observation[0])
		return cli_usage_error(cmd, "--observation wants a name");
	if (observation && nin > 1 && !(opt.flags & HEC_PERFSTAT_RUNS_AS_INTERVALS))
		return cli_usage_error(cmd, "--observation names one observation: "
				       "several files make one only with "
				       "--runs-as-intervals");
	for (i = optind; i < (size_t)argc; i++)
		if (!strcmp(argv[i], "-") && !observation)
			return cli_usage_error(cmd, "standard input has no file name: "
					       "give --observation NAME");
	/* every input (STAT files) and -o distinct, before any work */
	if (!(files = cp_calloc(nin + 1, sizeof *files))) {
		cp_error_set(&err, CP_ENOMEM, "out of memory");
		return cli_print_error(cmd, &err);
	}
	for (i = 0; i < nin; i++)
		files[i] = (struct cp_file_use){ "STAT", argv[optind + (int)i], 0 };
	files[nin] = (struct cp_file_use){ "-o", output, 1 };
	status = cli_files_distinct(cmd, files, nin + 1);
	cp_free(files);
	if (status)
		return status;
	opt.sep = sep;
	opt.runs = (unsigned)runs;
	cp_error_clear(&err);
	cp_buf_init(&out);
	hec_perfstat_report_init(&rep);
	in = cp_calloc(nin, sizeof *in);
	names = cp_calloc(nin, sizeof *names);
	text = cp_calloc(nin, sizeof *text);
	if (!in || !names || !text) {
		cp_error_set(&err, CP_ENOMEM, "out of memory");
		status = cli_print_error(cmd, &err);
		goto out;
	}
	for (i = 0; i < nin; i++) {
		const char *path = argv[optind + (int)i];

		cp_buf_init(&text[i]);
		if (!observation && !(names[i] = default_observation(path))) {
			cp_error_set(&err, CP_ENOMEM, "out of memory");
			status = cli_print_error(cmd, &err);
			goto out;
		}
		in[i].name = strcmp(path, "-") ? path : "<stdin>";
		in[i].observation = observation ? observation : names[i];
		if (cp_csv_name_check("observation", in[i].observation, &err)) {
			status = cli_usage_error(cmd, "%s", err.msg);
			goto out;
		}
		for (j = 0; j < i; j++)
			if (!strcmp(in[j].observation, in[i].observation) &&
			    !(opt.flags & HEC_PERFSTAT_RUNS_AS_INTERVALS)) {
				status = cli_usage_error(cmd, "'%s' and '%s' would both be "
							 "observation '%s' (rename a file, "
							 "or pool them with --runs-as-intervals)",
							 in[j].name, in[i].name,
							 in[i].observation);
				goto out;
			}
	}
	for (i = 0; i < nin; i++) {
		if (hec_perfstat_read(argv[optind + (int)i], &text[i], &err)) {
			status = cli_print_error(cmd, &err);
			goto out;
		}
		in[i].text = text[i].data ? text[i].data : "";
		in[i].len = text[i].len;
	}
	/* an append holds the dataset locked from its read to its rename, so
	 * that a concurrent append waits and then reads this one's result */
	if (append) {
		if (cp_lock_acquire(&lock, output, 0, &err) ||
		    read_existing(output, in, nin, &out, &cols, &ncols, &err)) {
			status = cli_print_error(cmd, &err);
			goto out;
		}
		opt.columns = (const char *const *)cols;
		opt.ncolumns = ncols;
	} else {
		opt.flags |= HEC_PERFSTAT_HEADER;
	}
	if (hec_perfstat_convert(in, nin, &opt, &out, &rep, &err)) {
		/* the first bad line, then every other one */
		const char *rest = rep.diag.data ? strchr(rep.diag.data, '\n') : NULL;

		if (rest) {
			err.detail[0] = '\0';
			status = cli_print_error(cmd, &err);
			fputs(rest + 1, stderr);
		} else {
			status = cli_print_error(cmd, &err);
		}
		goto out;
	}
	if ((status = cli_write_output(cmd, output, &out)))
		goto out;
	if (rep.note.data) {
		char *line = rep.note.data, *nl;

		for (; *line; line = nl + 1) {
			nl = strchr(line, '\n');
			fprintf(stderr, "counterpoint %s: note: %.*s\n", cmd,
				(int)(nl ? nl - line : (long)strlen(line)), line);
			if (!nl)
				break;
		}
	}
	if (rep.unsupported[0])
		fprintf(stderr, "counterpoint %s: warning: never counted "
			"(<not supported>): %s\n", cmd, rep.unsupported);
out:
	cp_lock_release(&lock);
	for (i = 0; i < nin && names; i++)
		cp_free(names[i]);
	for (i = 0; i < nin && text; i++)
		cp_buf_release(&text[i]);
	for (i = 0; i < ncols; i++)
		cp_free(cols[i]);
	cp_free(cols);
	cp_free(names);
	cp_free(text);
	cp_free(in);
	hec_perfstat_report_release(&rep);
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
	struct cp_lock lock = { -1, 0, NULL };
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
	{
		const struct cp_file_use files[] = {
			{ "STATS", argv[optind], 0 }, { "-o", output, 1 }
		};

		if ((status = cli_files_distinct(cmd, files, 2)))
			return status;
	}
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
	if (cp_csv_name_check("observation", opt.observation, &err)) {
		status = cli_usage_error(cmd, "%s", err.msg);
		goto out;
	}
	opt.header = !append;
	opt.messages = &messages;
	if (append) {
		struct hec_perfstat_input one = { NULL, NULL, 0, opt.observation };
		char **cols = NULL;
		size_t ncols = 0, i;

		/* gem5's rows have the dataset's six columns, no more; the
		 * dataset locked from its read to its rename */
		if (!cp_lock_acquire(&lock, output, 0, &err) &&
		    !read_existing(output, &one, 1, &out, &cols, &ncols, &err) &&
		    ncols != 6)
			cp_error_set(&err, CP_EINPUT, "'%s' has %zu columns; gem5's "
				     "rows fill the six of a dataset only", output,
				     ncols);
		for (i = 0; i < ncols; i++)
			cp_free(cols[i]);
		cp_free(cols);
		if (err.code) {
			status = cli_print_error(cmd, &err);
			goto out;
		}
	}
	if (hec_gem5_import(argv[optind], &opt, &out, &sum, &err)) {
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
	cp_lock_release(&lock);
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
