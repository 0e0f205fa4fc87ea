/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_perfstat.c: the perf stat importer on real captures
 * (tests/data/perf), every variant perf writes, the scaling rule, runs
 * pooled as intervals, perf stat -r summaries, and every bad-input
 * message. */
#include <stdio.h>
#include <string.h>

#include "common/cp.h"
#include "hw/perfstat.h"
#include "stats/region.h"
#include "check.h"

/* Convert text with flags; the status, the output in out, the report in
 * rep (released by the caller when given). */
static int convert_opt(const char *text, const struct hec_perfstat_options *opt,
		       struct cp_buf *out, struct hec_perfstat_report *rep,
		       struct cp_error *err)
{
	struct hec_perfstat_input in = { "stat.csv", text, strlen(text), "obs" };

	cp_buf_init(out);
	cp_error_clear(err);
	return hec_perfstat_convert(&in, 1, opt, out, rep, err);
}

static int convert(const char *text, struct cp_buf *out,
		   struct hec_perfstat_report *rep, struct cp_error *err)
{
	struct hec_perfstat_options opt = { HEC_PERFSTAT_HEADER, NULL, 0, NULL, 0 };

	if (rep)
		hec_perfstat_report_init(rep);
	return convert_opt(text, &opt, out, rep, err);
}

static void expect_error(const char *text, const char *msg)
{
	struct cp_buf out;
	struct cp_error err;
	char line[2048];

	CHECK(convert(text, &out, NULL, &err) == CP_EINPUT);
	cp_error_format(&err, line, sizeof line);
	CHECK_STR(line, msg);
	cp_buf_release(&out);
}

/* Import files (pooled or not, with flags) as observation obs. */
static int import_files(const char *const *paths, size_t n, const char *obs,
			unsigned flags, unsigned runs, struct cp_buf *out,
			struct hec_perfstat_report *rep, struct cp_error *err)
{
	struct hec_perfstat_input in[8];
	struct cp_buf text[8];
	struct hec_perfstat_options opt = { flags, NULL, runs, NULL, 0 };
	size_t i;
	int rc = CP_OK;

	cp_buf_init(out);
	cp_error_clear(err);
	for (i = 0; i < n && i < 8; i++) {
		cp_buf_init(&text[i]);
		if (!rc)
			rc = hec_perfstat_read(paths[i], &text[i], err);
		in[i].name = paths[i];
		in[i].text = text[i].data ? text[i].data : "";
		in[i].len = text[i].len;
		in[i].observation = obs;
	}
	if (!rc)
		rc = hec_perfstat_convert(in, n, &opt, out, rep, err);
	for (i = 0; i < n && i < 8; i++)
		cp_buf_release(&text[i]);
	return rc;
}

/* Import a capture and load the result as a dataset. */
static struct stats_dataset *import_file(const char *path,
					 struct hec_perfstat_report *sum)
{
	struct cp_buf out;
	struct cp_error err;
	struct stats_dataset *d = NULL;
	char line[2048];

	hec_perfstat_report_release(sum);
	hec_perfstat_report_init(sum);
	if (import_files(&path, 1, "run1", HEC_PERFSTAT_HEADER, 0, &out, sum, &err)) {
		cp_error_format(&err, line, sizeof line);
		printf("  import %s: %s\n", path, line);
	} else if (stats_dataset_parse("out.csv", out.data, out.len, &d, NULL,
				       &err)) {
		cp_error_format(&err, line, sizeof line);
		printf("  load %s: %s\n", path, line);
	}
	cp_buf_release(&out);
	return d;
}

/* The report's note, one line per input. */
static void expect_note(const struct hec_perfstat_report *rep, const char *note)
{
	CHECK_STR(rep->note.data ? rep->note.data : "", note);
}

static void test_scaling_rule(void)
{
	struct cp_buf out;
	struct cp_error err;
	struct hec_perfstat_report sum;

	/* 50% running: perf's estimate 1000 = raw 500 * 2; the row keeps
	 * raw 500 with enabled 1e8, running 5e7, which scales back to 1000 */
	CHECK(convert("0.100,1000,,dTLB-load-misses,50000000,50.00,,\n"
		      "0.100,100.52,msec,task-clock,100517301,100.00,1.005,CPUs utilized\n"
		      "0.200,<not counted>,,dTLB-load-misses,0,100.00,,\n"
		      "0.200,3.5,msec,task-clock,3500000,100.00,,\n",
		      &out, &sum, &err) == 0);
	CHECK_STR(out.data,
		  "observation,interval,event,value,enabled_ns,running_ns\n"
		  "obs,0,dTLB-load-misses,500,100000000,50000000\n"
		  "obs,0,task-clock,100520000,100517301,100517301\n"
		  "obs,1,dTLB-load-misses,0,100000000,0\n"
		  "obs,1,task-clock,3500000,3500000,3500000\n");
	CHECK(sum.intervals == 2 && sum.events == 2 && sum.rows == 4);
	CHECK(sum.not_counted == 1);
	CHECK_STR(sum.unsupported, "");
	expect_note(&sum, "stat.csv: perf stat -x, -I: 2 events, 2 intervals\n");
	hec_perfstat_report_release(&sum);
	cp_buf_release(&out);
}

/* The note counts events, not rows (a per-event counter that wrapped
 * at 256 rows once made 6 events 474). */
static void test_note_counts_events(void)
{
	struct hec_perfstat_report rep = { 0 };
	struct cp_buf text, out;
	struct cp_error err;
	size_t t;

	cp_buf_init(&text);
	for (t = 1; t <= 600; t++)
		cp_buf_printf(&text, "%zu.000000000,5,,a,1000,100.00,,\n", t);
	hec_perfstat_report_init(&rep);
	CHECK(convert_opt(text.data, NULL, &out, &rep, &err) == 0);
	expect_note(&rep, "stat.csv: perf stat -x, -I: 1 event, 600 intervals\n");
	hec_perfstat_report_release(&rep);
	cp_buf_release(&out);
	cp_buf_release(&text);
}

static void test_committed_multiplexed(void)
{
	struct hec_perfstat_report sum = { 0 };
	struct stats_dataset *d = import_file("tests/data/perf/multiplexed.csv", &sum);
	const char *ev[] = { "dTLB-load-misses", "dTLB-store-misses", "task-clock" };
	double *rates = NULL;
	size_t n = 0;
	struct cp_error err;

	/* its first line, a comment of the file's author, is not perf's */
	expect_note(&sum, "tests/data/perf/multiplexed.csv: perf stat -x, -I: 3 "
		    "events, 2 intervals; 1 line not perf's skipped (line 1)\n");
	hec_perfstat_report_release(&sum);
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK(stats_observation_rates(d, 0, ev, 3, &rates, &n, &err) == 0);
	CHECK(n == 2);
	/* perf's estimate 1000 in a 0.1 s interval: 10000 per second */
	CHECK_NEAR(rates[0], 10000, 1e-6);
	CHECK_NEAR(rates[1], 4000, 1e-6);
	CHECK_NEAR(rates[2], 1e9, 1e-3);
	CHECK(isnan(rates[3]));
	CHECK_NEAR(rates[4], 8000, 1e-6);
	cp_free(rates);
	stats_dataset_free(d);
}

static void test_real_software_capture(void)
{
	struct hec_perfstat_report sum = { 0 };
	struct stats_dataset *d = import_file("tests/data/perf/sw.csv", &sum);

	CHECK(d != NULL);
	CHECK(sum.intervals == 20 && sum.events == 6 && sum.rows == 120);
	CHECK(sum.not_counted == 0);
	hec_perfstat_report_release(&sum);
	if (!d)
		return;
	CHECK(stats_dataset_n_observations(d) == 1);
	CHECK_STR(stats_dataset_observation(d, 0), "run1");
	CHECK(stats_dataset_n_events(d) == 6);
	CHECK_STR(stats_dataset_event(d, 0), "page-faults");
	CHECK_STR(stats_dataset_event(d, 5), "cpu-clock");
	CHECK(stats_dataset_n_intervals(d, 0) == 20);
	stats_dataset_free(d);
}

static void test_real_unsupported_capture(void)
{
	struct hec_perfstat_report sum = { 0 };
	struct stats_dataset *d = import_file("tests/data/perf/unsupported.csv", &sum);

	CHECK(d != NULL);
	CHECK_STR(sum.unsupported, "cycles,instructions,dTLB-load-misses");
	CHECK(sum.not_counted == 3 * sum.intervals);
	CHECK(d && stats_dataset_n_counted(d, 0, 3) == 0);
	CHECK(d && stats_dataset_n_counted(d, 0, 0) == sum.intervals);
	hec_perfstat_report_release(&sum);
	stats_dataset_free(d);
}

/* -A rows are summed: interval 0 of page-faults is CPU0 + CPU1. */
static void test_real_per_cpu_capture(void)
{
	static const char *const path = "tests/data/perf/per-cpu.csv";
	struct hec_perfstat_report sum = { 0 };
	struct stats_dataset *d;
	struct cp_buf out;
	struct cp_error err;
	FILE *fp = fopen(path, "r");
	char line[512];
	double total = 0, v;

	CHECK(fp != NULL);
	if (!fp)
		return;
	while (fgets(line, sizeof line, fp)) {
		char t[64], cpu[16];

		if (sscanf(line, " %63[^,],%15[^,],%lf,,page-faults", t, cpu, &v) == 3 &&
		    strstr(line, ",page-faults,")) {
			total += v;
			if (strstr(line, "CPU1,"))
				break;
		}
	}
	fclose(fp);
	d = import_file(path, &sum);
	CHECK(d != NULL);
	CHECK(sum.events == 3 && sum.not_counted == 0);
	hec_perfstat_report_release(&sum);
	stats_dataset_free(d);
	CHECK(import_files(&path, 1, "x", 0, 0, &out, NULL, &err) == 0);
	snprintf(line, sizeof line, "x,0,page-faults,%.0f,", total);
	CHECKF(out.data && !strncmp(out.data, line, strlen(line)), "%.60s vs %s",
	       out.data, line);
	cp_buf_release(&out);
}

static void test_real_per_thread_capture(void)
{
	struct hec_perfstat_report sum = { 0 };
	struct stats_dataset *d = import_file("tests/data/perf/per-thread.csv", &sum);

	CHECK(d != NULL);
	/* threads idle at first: whole intervals <not counted> */
	CHECK(sum.not_counted > 0 && sum.not_counted < sum.rows);
	CHECK(d && stats_dataset_n_counted(d, 0, 0) == sum.intervals - sum.not_counted / 3);
	expect_note(&sum, "tests/data/perf/per-thread.csv: perf stat -x, -I "
		    "--per-thread: 3 events, 24 intervals\n");
	hec_perfstat_report_release(&sum);
	stats_dataset_free(d);
}

static void test_real_json_captures(void)
{
	struct hec_perfstat_report sum = { 0 };
	struct stats_dataset *d = import_file("tests/data/perf/sw.json", &sum);

	CHECK(d != NULL);
	CHECK(sum.events == 4);
	CHECK_STR(sum.unsupported, "cycles");
	CHECK(sum.not_counted == sum.intervals);
	stats_dataset_free(d);
	d = import_file("tests/data/perf/per-cpu.json", &sum);
	CHECK(d != NULL);
	CHECK(sum.events == 2 && sum.rows == 2 * sum.intervals);
	expect_note(&sum, "tests/data/perf/per-cpu.json: perf stat -j -I -A: 2 "
		    "events, 12 intervals\n");
	hec_perfstat_report_release(&sum);
	stats_dataset_free(d);
}

static void test_json_and_csv_agree(void)
{
	struct cp_buf a, b;
	struct cp_error err;

	CHECK(convert("0.1,CPU0,10,,page-faults,1000,100.00,,\n"
		      "0.1,CPU1,5,,page-faults,2000,50.00,,\n", &a, NULL, &err) == 0);
	CHECK(convert("{\"interval\" : 0.1, \"cpu\" : \"0\", \"counter-value\" : \"10.000000\", "
		      "\"unit\" : \"\", \"event\" : \"page-faults\", \"event-runtime\" : 1000, "
		      "\"pcnt-running\" : 100.00, \"metric-value\" : 1.0, \"metric-unit\" : \"/sec\"}\n"
		      "{\"interval\" : 0.1, \"cpu\" : \"1\", \"counter-value\" : \"5.000000\", "
		      "\"unit\" : \"\", \"event\" : \"page-faults\", \"event-runtime\" : 2000, "
		      "\"pcnt-running\" : 50.00}\n", &b, NULL, &err) == 0);
	/* estimate 15 over enabled 1000 + 4000, running 3000: raw 9 */
	CHECK_STR(a.data, "observation,interval,event,value,enabled_ns,running_ns\n"
		  "obs,0,page-faults,9,5000,3000\n");
	CHECK_STR(a.data, b.data);
	cp_buf_release(&a);
	cp_buf_release(&b);
}

static void test_event_names_with_commas(void)
{
	struct cp_buf out;
	struct cp_error err;

	CHECK(convert("1.0,S0,2,7,,cpu/event=0x08,umask=0x01/,1000,100.00,,\n",
		      &out, NULL, &err) == 0);
	CHECK_STR(out.data, "observation,interval,event,value,enabled_ns,running_ns\n"
		  "obs,0,\"cpu/event=0x08,umask=0x01/\",7,1000,1000\n");
	cp_buf_release(&out);
}

/* perf stat without -I: the whole run is one interval, CSV and JSON alike,
 * per CPU too (-A rows summed). */
static void test_real_total_captures(void)
{
	static const char *const total = "tests/data/perf/total.csv";
	static const char *const per_cpu = "tests/data/perf/total-per-cpu.csv";
	struct hec_perfstat_report sum = { 0 };
	struct stats_dataset *d;
	struct cp_buf out;
	struct cp_error err;

	d = import_file(total, &sum);
	CHECK(d != NULL);
	CHECK(sum.intervals == 1 && sum.events == 5 && sum.rows == 5);
	CHECK(d && stats_dataset_n_intervals(d, 0) == 1);
	stats_dataset_free(d);
	d = import_file("tests/data/perf/total.json", &sum);
	CHECK(d != NULL);
	CHECK(sum.intervals == 1 && sum.events == 5 && sum.rows == 5);
	hec_perfstat_report_release(&sum);
	stats_dataset_free(d);
	CHECK(import_files(&total, 1, "t", 0, 0, &out, NULL, &err) == 0);
	CHECK_STR(out.data, "t,0,page-faults,85675,400897082,400897082\n"
		  "t,0,minor-faults,85675,400897082,400897082\n"
		  "t,0,major-faults,0,400897082,400897082\n"
		  "t,0,context-switches,228,400897082,400897082\n"
		  "t,0,task-clock,400900000,400897082,400897082\n");
	cp_buf_release(&out);
	/* CPU0 85826 + CPU1 4231 page faults */
	CHECK(import_files(&per_cpu, 1, "t", 0, 0, &out, NULL, &err) == 0);
	CHECK(out.data && !strncmp(out.data, "t,0,page-faults,90057,", 22));
	cp_buf_release(&out);
	/* <not counted> and <not supported> without -I: enabled the run's
	 * length, taken from the longest enabled time perf printed */
	CHECK(convert("<not counted>,,cycles,0,100.00,,\n5,,page-faults,1000,100.00,,\n",
		      &out, NULL, &err) == 0);
	CHECK_STR(out.data, "observation,interval,event,value,enabled_ns,running_ns\n"
		  "obs,0,cycles,0,1000,0\nobs,0,page-faults,5,1000,1000\n");
	cp_buf_release(&out);
}

/* HEC_PERFSTAT_STRIP_MODIFIERS: perf's user-only page-faults:u (and
 * cpu/.../u, r108:k) named as record --user-only names them; tracepoints
 * keep their colon. */
static void test_strip_modifiers(void)
{
	static const char *const path = "tests/data/perf/user-only.csv";
	struct hec_perfstat_options opt = { HEC_PERFSTAT_STRIP_MODIFIERS, NULL, 0, NULL, 0 };
	struct cp_buf out;
	struct cp_error err;
	struct stats_dataset *d = NULL;

	CHECK(import_files(&path, 1, "u", HEC_PERFSTAT_HEADER |
			   HEC_PERFSTAT_STRIP_MODIFIERS, 0, &out, NULL, &err) == 0);
	CHECK(stats_dataset_parse("u.csv", out.data, out.len, &d, NULL, &err) == 0);
	CHECK(d && stats_dataset_n_events(d) == 3);
	CHECK(d && !strcmp(stats_dataset_event(d, 0), "page-faults") &&
	      !strcmp(stats_dataset_event(d, 2), "major-faults"));
	stats_dataset_free(d);
	cp_buf_release(&out);
	CHECK(convert_opt("0.1,5,,cpu/event=0x8,umask=0x1/u,10,100.00,,\n"
			  "0.1,6,,r108:uk,10,100.00,,\n"
			  "0.1,7,,sched:sched_switch,10,100.00,,\n"
			  "0.1,8,,sched:sched_switch:u,10,100.00,,\n",
			  &opt, &out, NULL, &err) == CP_EINPUT);
	/* two names that become one are two events counted, not one twice */
	CHECK_STR(err.msg, "'sched:sched_switch:u' and 'sched:sched_switch' (line 3) "
		  "are one event once their modifiers are dropped");
	cp_buf_release(&out);
	CHECK(convert_opt("0.1,5,,cpu/event=0x8,umask=0x1/u,10,100.00,,\n"
			  "0.1,6,,r108:uk,10,100.00,,\n", &opt, &out, NULL, &err) == 0);
	CHECK_STR(out.data, "obs,0,\"cpu/event=0x8,umask=0x1/\",5,10,10\n"
		  "obs,0,r108,6,10,10\n");
	cp_buf_release(&out);
}

/* The human-readable output: thousands separators of the locale, msec
 * clocks, the running share, <not supported>; no run times, so the
 * enabled time is the run's elapsed time or the -I interval's length. */
static void test_human_readable(void)
{
	static const char *const total = "tests/data/perf/std-total.txt";
	static const char *const en = "tests/data/perf/std-en_US.txt";
	static const char *const interval = "tests/data/perf/std-interval.txt";
	struct hec_perfstat_report rep = { 0 };
	struct cp_buf out;
	struct cp_error err;
	struct stats_dataset *d;

	hec_perfstat_report_init(&rep);
	CHECK(import_files(&total, 1, "t", 0, 0, &out, &rep, &err) == 0);
	CHECK_STR(out.data, "t,0,page-faults,85749,8569465680,8569465680\n"
		  "t,0,minor-faults,85749,8569465680,8569465680\n"
		  "t,0,major-faults,0,8569465680,8569465680\n"
		  "t,0,context-switches,970,8569465680,8569465680\n"
		  "t,0,task-clock,1616200000,8569465680,8569465680\n"
		  "t,0,cycles,0,8569465680,0\n");
	CHECK_STR(rep.unsupported, "cycles");
	expect_note(&rep, "tests/data/perf/std-total.txt: perf stat (human-readable): "
		    "6 events, one total\n");
	hec_perfstat_report_release(&rep);
	cp_buf_release(&out);
	/* 765,923 page faults and 15,917.10 msec in en_US */
	CHECK(import_files(&en, 1, "e", 0, 0, &out, NULL, &err) == 0);
	CHECK(out.data && strstr(out.data, "e,0,page-faults,765923,80229723156,80229723156\n"));
	CHECK(out.data && strstr(out.data, "e,0,task-clock,15917100000,80229723156,"));
	cp_buf_release(&out);
	/* -I: the first interval is 0.203287738 s long, the second
	 * 0.404609459 - 0.203287738 */
	CHECK(import_files(&interval, 1, "i", 0, 0, &out, NULL, &err) == 0);
	CHECK(out.data && !strncmp(out.data, "i,0,page-faults,620,203287738,203287738\n"
				   "i,0,context-switches,34,203287738,203287738\n"
				   "i,0,task-clock,33850000,203287738,203287738\n"
				   "i,1,page-faults,1419,201321721,201321721\n", 150));
	cp_buf_release(&out);
	d = import_file("tests/data/perf/std-interval.txt", &rep);
	CHECK(d && stats_dataset_n_intervals(d, 0) == 38);
	stats_dataset_free(d);
	/* per CPU, per socket (a CPU count column), per core with -I */
	d = import_file("tests/data/perf/std-per-cpu.txt", &rep);
	CHECK(d != NULL);
	expect_note(&rep, "tests/data/perf/std-per-cpu.txt: perf stat -A "
		    "(human-readable): 2 events, one total\n");
	stats_dataset_free(d);
	d = import_file("tests/data/perf/std-per-socket.txt", &rep);
	CHECK(d && rep.rows == 3);
	stats_dataset_free(d);
	d = import_file("tests/data/perf/std-per-core-interval.txt", &rep);
	CHECK(d && rep.intervals == 24 && rep.events == 2);
	expect_note(&rep, "tests/data/perf/std-per-core-interval.txt: perf stat -I "
		    "--per-core (human-readable): 2 events, 24 intervals\n");
	stats_dataset_free(d);
	hec_perfstat_report_release(&rep);
}

/* Counts as each locale and perf version print them. */
static void test_grouped_counts(void)
{
	static const struct { const char *line, *row; } t[] = {
		{ "        12,345      cycles\n", "obs,0,cycles,12345," },
		{ "        12.345      cycles\n", "obs,0,cycles,12345," },
		{ "        12'345      cycles\n", "obs,0,cycles,12345," },
		{ "        12\xc2\xa0" "345      cycles\n", "obs,0,cycles,12345," },
		{ "        12\xe2\x80\xaf" "345      cycles\n", "obs,0,cycles,12345," },
		{ "     12,34,567      cycles\n", "obs,0,cycles,1234567," },
		{ "      1,234.56 msec task-clock\n", "obs,0,task-clock,1234560000," },
		{ "      1.234,56 msec task-clock\n", "obs,0,task-clock,1234560000," },
		{ "          3,50 msec task-clock\n", "obs,0,task-clock,3500000," },
		/* perf 3.x: %18.6f msec, no unit; its share in brackets */
		{ "       1708.761321 task-clock\n", "obs,0,task-clock,1708761321," },
		{ "         1,000 cycles                    #    3.046 GHz                     [ 50.00%]\n",
		  "obs,0,cycles,500,1000000000,500000000\n" },
		{ "         1,000 cycles                    #    3.046 GHz                     [100.00%]\n",
		  "obs,0,cycles,1000,1000000000,1000000000\n" },
		{ "             1,000      cycles                           (25,00%)\n",
		  "obs,0,cycles,250,1000000000,250000000\n" },
		/* uniquified hybrid names, a cgroup column */
		{ "             1,000      cycles [cpu_core]\n", "obs,0,cycles [cpu_core],1000," },
		{ "             1,000      cycles                           A               \n"
		  "               500      cycles                           B               \n",
		  "obs,0,cycles,1500," },
	};
	size_t i;

	for (i = 0; i < sizeof t / sizeof *t; i++) {
		char text[512];
		struct cp_buf out;
		struct cp_error err;

		snprintf(text, sizeof text, " Performance counter stats for 'x':\n\n%s\n"
			 "       1.000000000 seconds time elapsed\n", t[i].line);
		CHECKF(convert(text, &out, NULL, &err) == 0, "%s: %s", t[i].line, err.msg);
		CHECKF(out.data && strstr(out.data, t[i].row), "%s: %s", t[i].line,
		       out.data ? out.data : "");
		cp_buf_release(&out);
	}
	expect_error(" Performance counter stats for 'x':\n\n     1,234,56 msec task-clock\n",
		     "stat.csv:3: count '1,234,56' of 'task-clock' is not a number");
	expect_error(" Performance counter stats for 'x':\n\n         12345      cycles lost here\n",
		     "stat.csv:3: not a line of perf stat's output, inside it: '12345      "
		     "cycles lost here'");
}

/* CSV with any separator: detected, or given (-x); de_DE's decimal
 * commas with ';'; the cgroup column of -G apart from the event. */
static void test_separators(void)
{
	static const char *const semi = "tests/data/perf/csv-semicolon-de.csv";
	struct hec_perfstat_options tab = { 0, "\t", 0, NULL, 0 };
	struct hec_perfstat_report rep = { 0 };
	struct cp_buf out;
	struct cp_error err;
	struct stats_dataset *d;

	hec_perfstat_report_init(&rep);
	CHECK(import_files(&semi, 1, "s", 0, 0, &out, &rep, &err) == 0);
	/* "     0.203272429;55,00;msec;task-clock;54996028;100,00;0;CPUs utilized" */
	CHECK(out.data && strstr(out.data, "s,0,task-clock,55000000,54996028,54996028\n"));
	expect_note(&rep, "tests/data/perf/csv-semicolon-de.csv: perf stat -x; -I: 3 "
		    "events, 42 intervals\n");
	hec_perfstat_report_release(&rep);
	cp_buf_release(&out);
	d = import_file("tests/data/perf/csv-pipe.csv", &rep);
	CHECK(d && rep.intervals == 47);
	expect_note(&rep, "tests/data/perf/csv-pipe.csv: perf stat -x| -I: 3 events, "
		    "47 intervals\n");
	hec_perfstat_report_release(&rep);
	stats_dataset_free(d);
	CHECK(convert_opt("0.1\t5\t\tcycles\t1000\t100.00\t\t\n", &tab, &out, NULL, &err) == 0);
	CHECK_STR(out.data, "obs,0,cycles,5,1000,1000\n");
	cp_buf_release(&out);
	CHECK(convert("5::cycles:1000:100.00::\n6::sched:sched_switch:1000:100.00::\n",
		      &out, NULL, &err) == 0);
	CHECK(out.data && strstr(out.data, "obs,0,sched:sched_switch,6,1000,1000\n"));
	cp_buf_release(&out);
	/* -G: value,unit,event,cgroup,run,pct; several cgroups summed */
	CHECK(convert("1000,,cycles,/A,2000,100.00,,\n800,,cycles,/B,2000,50.00,,\n"
		      "{\"counter-value\" : \"5.0\", \"event\" : \"x\", \"cgroup\" : \"/A\", "
		      "\"event-runtime\" : 10, \"pcnt-running\" : 100.00}\n",
		      &out, &rep, &err) == 0);
	CHECK_STR(out.data, "observation,interval,event,value,enabled_ns,running_ns\n"
		  "obs,0,cycles,1200,6000,4000\n");
	expect_note(&rep, "stat.csv: perf stat -x, -G: 1 event, one total; 1 line "
		    "not perf's skipped (line 3)\n");
	hec_perfstat_report_release(&rep);
	cp_buf_release(&out);
}

/* -I --summary rows, newer perf's "summary," and older perf's without a
 * stamp, JSON's without "interval", the human-readable block: checked
 * against the intervals' sums, not kept. */
static void test_summary_rows(void)
{
	static const char *const files[] = {
		"tests/data/perf/csv-interval-summary.csv",
		"tests/data/perf/json-interval-summary.json",
		"tests/data/perf/std-interval-summary.txt",
		"tests/data/perf/public/lkml-csv-I-summary-after.csv",
		"tests/data/perf/public/lkml-csv-I-summary-before.csv",
	};
	struct hec_perfstat_report rep = { 0 };
	struct stats_dataset *d;
	size_t i;

	for (i = 0; i < sizeof files / sizeof *files; i++) {
		d = import_file(files[i], &rep);
		CHECKF(d != NULL, "%s", files[i]);
		CHECKF(rep.note.data && strstr(rep.note.data, i < 3 ?
			"; 3 summary rows, 3 checked against the intervals' sums" :
			"; 8 summary rows, 8 checked against the intervals' sums"),
		       "%s: %s", files[i], rep.note.data);
		CHECK(d && stats_dataset_n_intervals(d, 0) == rep.intervals);
		stats_dataset_free(d);
	}
	/* --summary without -I: totals prefixed "summary" */
	d = import_file("tests/data/perf/csv-summary-total.csv", &rep);
	CHECK(d && rep.rows == 5 && stats_dataset_n_intervals(d, 0) == 1);
	expect_note(&rep, "tests/data/perf/csv-summary-total.csv: perf stat -x,: 5 "
		    "events, one total\n");
	stats_dataset_free(d);
	hec_perfstat_report_release(&rep);
	expect_error("     0.100000000,5,,a,100,100.00,,\n     0.200000000,6,,a,100,100.00,,\n"
		     "summary,12,,a,200,100.00,,\n",
		     "stat.csv:3: summary of 'a' is 12, but its intervals sum to 11");
	expect_error("     0.100000000,5,,a,100,100.00,,\n     0.200000000,6,,a,100,100.00,,\n"
		     "11,,a,300,100.00,,\n",
		     "stat.csv:3: summary of 'a' ran 300 ns, but its intervals ran 200 ns");
	/* msec within the printed digits; scaled counts not checked */
	{
		struct cp_buf out;
		struct cp_error err;

		hec_perfstat_report_init(&rep);
		CHECK(convert("     0.100000000,1.01,msec,c,1010000,100.00,,\n"
			      "     0.200000000,2.02,msec,c,2020000,100.00,,\n"
			      "     0.200000000,20,,b,1000,50.00,,\n"
			      "summary,3.03,msec,c,3030000,100.00,,\n"
			      "summary,99,,b,1000,50.00,,\n", &out, &rep, &err) == 0);
		CHECK(rep.note.data && strstr(rep.note.data, "; 2 summary rows, 1 checked "
					      "against the intervals' sums, 1 skipped unchecked"));
		CHECK(rep.rows == 3);
		hec_perfstat_report_release(&rep);
		cp_buf_release(&out);
	}
}

/* Metric-only lines and objects: skipped and counted. */
static void test_metric_only(void)
{
	struct hec_perfstat_report rep = { 0 };
	struct stats_dataset *d;
	struct cp_buf out;
	struct cp_error err;

	d = import_file("tests/data/perf/public/lkml-csv-per-socket-metric-only.csv", &rep);
	CHECK(d && rep.events == 2);
	CHECK(rep.note.data && strstr(rep.note.data, "; 1 metric-only line skipped"));
	stats_dataset_free(d);
	d = import_file("tests/data/perf/public/lkml-json-M-metric-only.json", &rep);
	CHECK(d && rep.events == 3);
	CHECK(rep.note.data && strstr(rep.note.data, "; 1 metric-only line skipped"));
	stats_dataset_free(d);
	d = import_file("tests/data/perf/public/perf3-builtin-stat-sample.txt", &rep);
	CHECK(d && rep.events == 10);
	expect_note(&rep, "tests/data/perf/public/perf3-builtin-stat-sample.txt: perf "
		    "stat (human-readable): 10 events, one total; 1 metric-only line "
		    "skipped; 1 line not perf's skipped (line 2)\n");
	stats_dataset_free(d);
	/* -M with -I: a metric group's name, then its metrics */
	hec_perfstat_report_release(&rep);
	hec_perfstat_report_init(&rep);
	CHECK(convert("     1.000000000,5,,a,100,100.00,0.5,insn per cycle\n"
		      "     1.000000000,,,,,,TopdownL1\n"
		      "     1.000000000,,,,,,0.25,frontend bound\n"
		      "{\"metric-value\" : \"3.5\", \"metric-unit\" : \"x\"}\n",
		      &out, &rep, &err) == 0);
	expect_note(&rep, "stat.csv: perf stat -x, -I: 1 event, 1 interval; 2 "
		    "metric-only lines skipped; 1 line not perf's skipped (line 4)\n");
	hec_perfstat_report_release(&rep);
	cp_buf_release(&out);
}

/* An event listed twice keeps its first copy; the note names the others. */
static void test_repeated_events(void)
{
	static const char *const path = "tests/data/perf/csv-repeated-event.csv";
	struct hec_perfstat_report rep = { 0 };
	struct cp_buf out;
	struct cp_error err;

	hec_perfstat_report_init(&rep);
	CHECK(import_files(&path, 1, "r", 0, 0, &out, &rep, &err) == 0);
	CHECK(rep.events == 3 && rep.rows == 3);
	expect_note(&rep, "tests/data/perf/csv-repeated-event.csv: perf stat -x,: 3 "
		    "events, one total; 1 repeated event dropped, the first copy kept: "
		    "page-faults (line 5)\n");
	CHECK(out.data && strstr(out.data, "r,0,page-faults,85736,"));
	hec_perfstat_report_release(&rep);
	cp_buf_release(&out);
}

/* Lines that are not perf's are skipped and counted, the first five
 * named; --strict makes each an error. */
static void test_foreign_lines(void)
{
	static const char *const hp = "tests/data/perf/public/hugepagedemo-vec.txt";
	static const char text[] = "make: entering directory\n"
		"# my harness, run 3\n"
		"     0.100000000,5,,a,100,100.00,,\n"
		"hello, world\n"
		"result: 42 ok\n"
		"     0.200000000,6,,a,100,100.00,,\n"
		"x = 1\ny = 2\nz = 3\n";
	struct hec_perfstat_options strict = { HEC_PERFSTAT_STRICT, NULL, 0, NULL, 0 };
	struct hec_perfstat_report rep = { 0 };
	struct cp_buf out;
	struct cp_error err;

	hec_perfstat_report_init(&rep);
	CHECK(convert_opt(text, NULL, &out, &rep, &err) == 0);
	CHECK_STR(out.data, "obs,0,a,5,100,100\nobs,1,a,6,100,100\n");
	expect_note(&rep, "stat.csv: perf stat -x, -I: 1 event, 2 intervals; 7 lines "
		    "not perf's skipped (lines 1, 2, 4, 5, 7, ...)\n");
	hec_perfstat_report_release(&rep);
	cp_buf_release(&out);
	hec_perfstat_report_init(&rep);
	CHECK(convert_opt(text, &strict, &out, &rep, &err) == CP_EINPUT);
	CHECK_STR(err.msg, "not a line of perf stat output (--strict): 'make: "
		  "entering directory'");
	CHECK(rep.diag.data && !strcmp(strchr(rep.diag.data, '\n') + 1,
		"stat.csv:2: not a line of perf stat output (--strict): '# my harness, run 3'\n"
		"stat.csv:4: not a line of perf stat output (--strict): 'hello, world'\n"
		"stat.csv:5: not a line of perf stat output (--strict): 'result: 42 ok'\n"
		"stat.csv:7: not a line of perf stat output (--strict): 'x = 1'\n"
		"stat.csv:8: not a line of perf stat output (--strict): 'y = 2'\n"
		"stat.csv:9: not a line of perf stat output (--strict): 'z = 3'\n"));
	CHECK(out.len == 0);
	hec_perfstat_report_release(&rep);
	cp_buf_release(&out);
	/* a program's line before perf's public human-readable output */
	hec_perfstat_report_init(&rep);
	CHECK(import_files(&hp, 1, "h", 0, 0, &out, &rep, &err) == 0);
	CHECK_STR(out.data, "h,0,dTLB-load-misses,199687753,1000000000,1000000000\n"
		  "h,0,iTLB-load-misses,4432,1000000000,1000000000\n"
		  "h,0,page-faults,1048699,1000000000,1000000000\n"
		  "h,0,dtlb_load_misses.walk_completed,199687753,1000000000,1000000000\n"
		  "h,0,dtlb_load_misses.stlb_hit,5801701,1000000000,1000000000\n");
	expect_note(&rep, "tests/data/perf/public/hugepagedemo-vec.txt: perf stat "
		    "(human-readable): 5 events, one total; no 'seconds time elapsed' "
		    "line nor run time: a total taken over 1 s; 1 line not perf's "
		    "skipped (line 1)\n");
	hec_perfstat_report_release(&rep);
	cp_buf_release(&out);
}

/* Runs as intervals: each file, or each run of a file that holds
 * several, one interval of one observation, summed over its -I
 * intervals; every run with the same events. */
static void test_runs_as_intervals(void)
{
	static const char *const runs[] = {
		"tests/data/perf/runs/run-1.csv", "tests/data/perf/runs/run-2.csv",
		"tests/data/perf/runs/run-3.csv", "tests/data/perf/runs/run-4.csv",
		"tests/data/perf/runs/run-5.csv" };
	static const char *const ivs[] = {
		"tests/data/perf/runs/interval-run-1.csv",
		"tests/data/perf/runs/interval-run-2.csv",
		"tests/data/perf/runs/interval-run-3.csv" };
	static const char *const logs[] = { "tests/data/perf/runs/harness-runs.log",
		"tests/data/perf/runs/std-runs.log" };
	const unsigned pool = HEC_PERFSTAT_HEADER | HEC_PERFSTAT_RUNS_AS_INTERVALS;
	struct hec_perfstat_report rep = { 0 };
	struct stats_dataset *d = NULL;
	struct cp_buf out, one;
	struct cp_error err;
	size_t i;

	hec_perfstat_report_init(&rep);
	CHECK(import_files(runs, 5, "w", pool, 0, &out, &rep, &err) == 0);
	CHECK(stats_dataset_parse("w.csv", out.data, out.len, &d, NULL, &err) == 0);
	CHECK(d && stats_dataset_n_observations(d) == 1 && stats_dataset_n_intervals(d, 0) == 5);
	CHECK(rep.intervals == 5 && rep.events == 5 && rep.rows == 25);
	stats_dataset_free(d);
	d = NULL;
	/* run 3 is run-3.csv's total as it alone imports */
	CHECK(import_files(&runs[2], 1, "w", 0, 0, &one, NULL, &err) == 0);
	CHECK(one.data && out.data && strstr(out.data, "w,2,page-faults,") &&
	      !strncmp(strstr(out.data, "w,2,page-faults,") + 4,
		       strstr(one.data, "w,0,page-faults,") + 4, 40));
	cp_buf_release(&one);
	cp_buf_release(&out);
	hec_perfstat_report_release(&rep);
	/* -I runs: their intervals summed */
	hec_perfstat_report_init(&rep);
	CHECK(import_files(ivs, 3, "i", pool, 0, &out, &rep, &err) == 0);
	CHECK(rep.intervals == 3);
	CHECK(import_files(&ivs[0], 1, "i", 0, 0, &one, NULL, &err) == 0);
	{
		double sum = 0, v;
		const char *p;

		for (p = one.data; p && (p = strstr(p, ",page-faults,")); p++)
			if (sscanf(p, ",page-faults,%lf,", &v) == 1)
				sum += v;
		CHECK(out.data && (p = strstr(out.data, "i,0,page-faults,")) &&
		      sscanf(p, "i,0,page-faults,%lf,", &v) == 1 && v == sum);
	}
	cp_buf_release(&one);
	cp_buf_release(&out);
	hec_perfstat_report_release(&rep);
	/* a harness's log of three runs, CSV and human-readable */
	for (i = 0; i < 2; i++) {
		hec_perfstat_report_init(&rep);
		CHECK(import_files(&logs[i], 1, "h", pool, 0, &out, &rep, &err) == 0);
		CHECKF(rep.intervals == 3 && rep.rows == 15, "%s", logs[i]);
		CHECK(stats_dataset_parse("h.csv", out.data, out.len, &d, NULL, &err) == 0);
		stats_dataset_free(d);
		d = NULL;
		hec_perfstat_report_release(&rep);
		cp_buf_release(&out);
	}
	/* -I runs in one log: their stamps restart after a run header or a
	 * harness's line */
	{
		static const char log[] = "# started on Mon Dec  7 00:00:00 2026\n"
			"     0.100000000,5,,a,100,100.00,,\n"
			"     0.200000000,6,,a,100,100.00,,\n"
			"# started on Mon Dec  7 00:01:00 2026\n"
			"     0.100000000,7,,a,100,100.00,,\n"
			"     0.200000000,8,,a,100,100.00,,\n"
			"=== run 3\n"
			"     0.150000000,9,,a,100,100.00,,\n";
		struct hec_perfstat_options o = { pool, NULL, 0, NULL, 0 };

		CHECK(convert_opt(log, &o, &out, NULL, &err) == 0);
		CHECK_STR(out.data, "observation,interval,event,value,enabled_ns,running_ns\n"
			  "obs,0,a,11,200,200\nobs,1,a,15,200,200\nobs,2,a,9,100,100\n");
		cp_buf_release(&out);
		CHECK(convert(log, &out, NULL, &err) == CP_EINPUT);
		CHECK(err.line == 5 && !strncmp(err.msg, "a second run of perf stat", 25));
		CHECK(!strncmp(err.detail, "stat.csv:8: a second run", 24));
		cp_buf_release(&out);
	}
	/* without pooling, a second run in one file is an error */
	CHECK(import_files(&logs[0], 1, "h", 0, 0, &out, NULL, &err) == CP_EINPUT);
	CHECK_STR(err.msg, "a second run of perf stat starts here (its -I time stamps "
		  "restart, or its events repeat, after a run header or lines that are "
		  "not perf's): pool the runs with --runs-as-intervals, or split the file");
	CHECK(err.line == 10);
	cp_buf_release(&out);
	/* runs with other events: the run and the event named */
	{
		struct hec_perfstat_input in[2] = {
			{ "a.csv", "5,,x,10,100.00,,\n6,,y,10,100.00,,\n", 32, "o" },
			{ "b.csv", "5,,x,10,100.00,,\n6,,z,10,100.00,,\n", 32, "o" },
		};
		struct hec_perfstat_options o = { pool, NULL, 0, NULL, 0 };

		cp_buf_init(&out);
		cp_error_clear(&err);
		CHECK(hec_perfstat_convert(in, 2, &o, &out, NULL, &err) == CP_EINPUT);
		CHECK_STR(err.msg, "run 2 (b.csv, from line 1) has no 'y', which run 1 "
			  "(a.csv, from line 1) has");
		CHECK_STR(err.detail, "b.csv:1: run 2 (b.csv, from line 1) has 'z', which "
			  "run 1 (a.csv, from line 1) lacks\n");
		CHECK(out.len == 0);
		cp_buf_release(&out);
		in[1].observation = "p";
		CHECK(hec_perfstat_convert(in, 2, &o, &out, NULL, &err) == CP_EINPUT);
		CHECK_STR(err.msg, "runs pooled as intervals make one observation, not "
			  "'o' and 'p'");
		cp_buf_release(&out);
	}
}

/* perf stat -r N totals: the mean and its relative standard error kept
 * (runs, se_pct) when N is known: the human-readable header says it,
 * --runs gives it for CSV and JSON. */
static void test_repeat_summaries(void)
{
	static const char *const std = "tests/data/perf/std-repeat.txt";
	static const char *const de = "tests/data/perf/std-de_DE-repeat.txt";
	static const char *const csv = "tests/data/perf/csv-repeat5.csv";
	static const char *const json = "tests/data/perf/json-repeat4.json";
	static const char *const old = "tests/data/perf/repeat.csv";
	struct hec_perfstat_report rep = { 0 };
	struct stats_dataset *d = NULL;
	struct cp_buf out;
	struct cp_error err;

	hec_perfstat_report_init(&rep);
	CHECK(import_files(&std, 1, "s", HEC_PERFSTAT_HEADER, 0, &out, &rep, &err) == 0);
	CHECK_STR(out.data, "observation,interval,event,value,enabled_ns,running_ns,runs,se_pct\n"
		  "s,0,page-faults,85752,8990000000,8990000000,5,0.01\n"
		  "s,0,minor-faults,85752,8990000000,8990000000,5,0.01\n"
		  "s,0,major-faults,0,8990000000,8990000000,5,0\n"
		  "s,0,context-switches,913,8990000000,8990000000,5,3.56\n"
		  "s,0,task-clock,1705960000,8990000000,8990000000,5,3.31\n");
	CHECK(rep.runs == 5);
	expect_note(&rep, "tests/data/perf/std-repeat.txt: perf stat -r 5 "
		    "(human-readable): 5 events, the means of 5 runs with their "
		    "deviations\n");
	CHECK(stats_dataset_parse("s.csv", out.data, out.len, &d, NULL, &err) == 0);
	CHECK(d && stats_dataset_runs(d, 0) == 5);
	stats_dataset_free(d);
	d = NULL;
	hec_perfstat_report_release(&rep);
	cp_buf_release(&out);
	/* de_DE: 11.732,58 msec ( +-  4,70% ) */
	CHECK(import_files(&de, 1, "d", 0, 0, &out, NULL, &err) == 0);
	CHECK(out.data && strstr(out.data, "d,0,task-clock,11732580000,48870000000,"
				 "48870000000,3,4.7\n"));
	cp_buf_release(&out);
	CHECK(import_files(&csv, 1, "c", 0, 5, &out, NULL, &err) == 0);
	CHECK(out.data && strstr(out.data, "c,0,context-switches,648,1749407443,"
				 "1749407443,5,3.38\n"));
	cp_buf_release(&out);
	CHECK(import_files(&json, 1, "j", 0, 4, &out, NULL, &err) == 0);
	CHECK(out.data && strstr(out.data, "j,0,task-clock,2073649848,2073649848,"
				 "2073649848,4,3.65\n"));
	cp_buf_release(&out);
	/* N unknown: the deviations dropped, and said */
	hec_perfstat_report_init(&rep);
	CHECK(import_files(&old, 1, "o", 0, 0, &out, &rep, &err) == 0);
	CHECK(out.data && !strstr(out.data, ",3,"));
	expect_note(&rep, "tests/data/perf/repeat.csv: perf stat -x, -r: 5 events, "
		    "one total; perf's -r deviations dropped (the number of runs is "
		    "unknown: give --runs N)\n");
	hec_perfstat_report_release(&rep);
	cp_buf_release(&out);
	CHECK(import_files(&std, 1, "s", 0, 4, &out, NULL, &err) == CP_EINPUT);
	CHECK_STR(err.msg, "--runs 4 given, but 'tests/data/perf/std-repeat.txt' says 5 runs");
	cp_buf_release(&out);
	CHECK(import_files(&old + 0, 1, "s", 0, 0, &out, NULL, &err) == 0);
	cp_buf_release(&out);
	{
		static const char *const total = "tests/data/perf/total.csv";

		CHECK(import_files(&total, 1, "t", 0, 3, &out, NULL, &err) == CP_EINPUT);
		CHECK_STR(err.msg, "--runs 3 given, but 'tests/data/perf/total.csv' holds "
			  "no perf stat -r deviations");
		cp_buf_release(&out);
	}
	/* -r with -I: per interval, no run-to-run spread */
	hec_perfstat_report_init(&rep);
	d = import_file("tests/data/perf/repeat-interval.csv", &rep);
	CHECK(d && stats_dataset_runs(d, 0) == 0 && stats_dataset_n_intervals(d, 0) == 9);
	CHECK(rep.note.data && strstr(rep.note.data, "perf's -r deviations dropped "
				      "(-I: per interval they are no run-to-run spread)"));
	stats_dataset_free(d);
	hec_perfstat_report_release(&rep);
}

/* The variants no capture here shows, written in perf's layouts (perf
 * 3.x CSV, a byte order mark, a float run time, JSON's trailing comma,
 * newer JSON keys), and out-of-order time stamps. */
static void test_minor_variants(void)
{
	struct hec_perfstat_report rep = { 0 };
	struct cp_buf out;
	struct cp_error err;

	/* perf 3.x CSV: [CPUn,]value,event[,cgroup][,noise] */
	hec_perfstat_report_init(&rep);
	CHECK(convert("1708.761321,task-clock,0.50%\n41190,context-switches,1.20%\n"
		      "<not counted>,cycles\n", &out, &rep, &err) == 0);
	CHECK_STR(out.data, "observation,interval,event,value,enabled_ns,running_ns\n"
		  "obs,0,task-clock,1708761321,1000000000,1000000000\n"
		  "obs,0,context-switches,41190,1000000000,1000000000\n"
		  "obs,0,cycles,0,1000000000,0\n");
	expect_note(&rep, "stat.csv: perf stat -x, -r (perf 3.x layout): 3 events, one "
		    "total; perf's -r deviations dropped (the number of runs is unknown: "
		    "give --runs N); no 'seconds time elapsed' line nor run time: a "
		    "total taken over 1 s\n");
	hec_perfstat_report_release(&rep);
	cp_buf_release(&out);
	/* a byte order mark; a float run time; a trailing ", }" */
	CHECK(convert("\xEF\xBB\xBF" "5,,a,1000,100.00,,\n", &out, NULL, &err) == 0);
	CHECK_STR(out.data, "observation,interval,event,value,enabled_ns,running_ns\n"
		  "obs,0,a,5,1000,1000\n");
	cp_buf_release(&out);
	CHECK(convert("{\"counter-value\" : \"3805.723968\", \"unit\" : \"msec\", "
		      "\"event\" : \"cpu-clock\", \"event-runtime\" : 3805731510100.00, "
		      "\"pcnt-running\" : 100.00, }\n", &out, NULL, &err) == 0);
	CHECK_STR(out.data, "observation,interval,event,value,enabled_ns,running_ns\n"
		  "obs,0,cpu-clock,3805723968,3805731510100,3805731510100\n");
	cp_buf_release(&out);
	/* newer perf's JSON: "counters", "metric-threshold", a string metric */
	CHECK(convert("{\"core\" : \"S0-D0-C1\", \"counters\" : 2, \"counter-value\" : "
		      "\"7.000000\", \"unit\" : \"\", \"event\" : \"e\", \"event-runtime\" : "
		      "10, \"pcnt-running\" : 100.00, \"metric-value\" : \"1.000000\", "
		      "\"metric-unit\" : \"x\", \"metric-threshold\" : \"good\"}\n",
		      &out, NULL, &err) == 0);
	CHECK_STR(out.data, "observation,interval,event,value,enabled_ns,running_ns\n"
		  "obs,0,e,7,10,10\n");
	cp_buf_release(&out);
	expect_error("     0.200000000,5,,a,100,100.00,,\n     0.100000000,6,,a,100,100.00,,\n",
		     "stat.csv:2: time stamp 0.100000000 is earlier than 0.200000000 at "
		     "line 1 (perf stat -I stamps only grow)");
}

static void test_bad_inputs(void)
{
	expect_error("", "stat.csv:1: no counts found (is this the output of perf stat?)");
	expect_error("# started\n\n", "stat.csv:1: no counts found (is this the output of perf stat?)");
	/* a time stamp in output without them */
	expect_error("100.52,msec,task-clock,100517301,100.00,1.005,CPUs utilized\n"
		     "     0.100170113,74,,page-faults,892088,100.00,,\n",
		     "stat.csv:2: a time stamp '0.100170113' in output without them (perf stat without -I: line 1 has none)");
	expect_error("{\"counter-value\" : \"5\", \"event\" : \"e\", \"event-runtime\" : 10, "
		     "\"pcnt-running\" : 100.00}\n"
		     "{\"interval\" : 0.1, \"counter-value\" : \"5\", \"event\" : \"e\", "
		     "\"event-runtime\" : 10, \"pcnt-running\" : 100.00}\n",
		     "stat.csv:2: a time stamp '0.1' in output without them (perf stat without -I: line 1 has none)");
	expect_error("0.1,5,,e,1000,100.00,,\n0.1,abc,,page-faults,1000,100.00,,\n"
		     "0.1,CPU0,12x,,e,1,100.00,,\n",
		     "stat.csv:2: count 'abc' is not a number");
	expect_error("0.1,CPU0,12x,,e,1,100.00,,\n",
		     "stat.csv:1: count '12x' of 'e' is not a number");
	expect_error("0.1,5,,e,1000,100.00,,\n0.1,x,,e,1000,100.00,,\n0.1,5,,f,1000,100.00,,\n",
		     "stat.csv:2: count 'x' is not a number");
	expect_error("0.1,-5,,e,1000,100.00,,\n", "stat.csv:1: negative count (-5) of 'e'");
	expect_error("0.1,5,,e,1000,0.00,,\n",
		     "stat.csv:1: running percentage '0.00' of 'e' is not in (0, 100]");
	expect_error("0.1,5,,e,1000,100.5,,\n",
		     "stat.csv:1: running percentage '100.5' of 'e' is not in (0, 100]");
	expect_error("0.1,5,,e,0,100.00,,\n", "stat.csv:1: 'e' has a count but ran for 0 ns");
	expect_error("0.1,5,,,1000,100.00,,\n", "stat.csv:1: empty event name");
	expect_error("0.1,5,,e\n", "stat.csv:1: expected at least 6 fields, found 4");
	expect_error("0.1,5,,e,zz,yy,1000,100.00,,\n",
		     "stat.csv:1: unexpected field 'yy' after event 'e'");
	expect_error("{\"interval\" : 0.1, \"counter-value\" : \"5\"\n",
		     "stat.csv:1: malformed JSON object");
	expect_error("{\"interval\" : 0.1, \"event\" : \"e\"}\n",
		     "stat.csv:1: no \"counter-value\" key");
	expect_error("{\"interval\" : 0.1, \"counter-value\" : \"x\", \"event\" : \"e\", "
		     "\"event-runtime\" : 10, \"pcnt-running\" : 100.00}\n",
		     "stat.csv:1: count 'x' of 'e' is not a number");
	expect_error("{\"counter-value\" : \"5\", \"event\" : \"e\", \"pcnt-running\" : 100.00}\n",
		     "stat.csv:1: no \"event-runtime\" key");
	expect_error("     0.200000000              5      e\n     0.100000000  ??\n",
		     "stat.csv:2: expected a count and an event after the time stamp");
	{
		static const char nul[] = "0.1,5,,e,1000,100.00,,\n\0x\n";
		struct hec_perfstat_input in = { "stat.csv", nul, sizeof nul - 1, "obs" };
		struct cp_buf out;
		struct cp_error err;

		cp_buf_init(&out);
		cp_error_clear(&err);
		CHECK(hec_perfstat_convert(&in, 1, NULL, &out, NULL, &err) == CP_EINPUT);
		CHECK_STR(err.msg, "not a text file (NUL byte)");
		CHECK(err.line == 2);
		cp_buf_release(&out);
	}
}

/* Every bad line is reported, in line order, the first in msg, the
 * others in detail: those found reading and those found summing. */
static void test_every_bad_line_reported(void)
{
	struct hec_perfstat_options strip = { HEC_PERFSTAT_STRIP_MODIFIERS, NULL, 0, NULL, 0 };
	struct cp_buf out;
	struct cp_error err;

	CHECK(convert("0.1,-1,,a,10,100.00,,\n0.1,5,,b,10,100.00,,\n"
		      "0.05,5,,c,10,100.00,,\n0.2,5,,d,10,0,,\n", &out, NULL, &err) == CP_EINPUT);
	CHECK(err.line == 1);
	CHECK_STR(err.detail,
		  "stat.csv:3: time stamp 0.05 is earlier than 0.100000000 at line 1 (perf stat -I stamps only grow)\n"
		  "stat.csv:4: running percentage '0' of 'd' is not in (0, 100]\n");
	CHECK(out.len == 0);
	cp_buf_release(&out);
	/* a collision found when summing (line 2) before a bad line read
	 * earlier in the text but later in it (line 4) */
	CHECK(convert_opt("0.1,5,,a,10,100.00,,\n0.1,6,,a:u,10,100.00,,\n"
			  "summary,99,,b,10,100.00,,\n0.2,x,,a,10,100.00,,\n"
			  "summary,11,,a,20,100.00,,\n",
			  &strip, &out, NULL, &err) == CP_EINPUT);
	CHECK(err.line == 2);
	CHECK_STR(err.detail, "stat.csv:4: count 'x' is not a number\n");
	cp_buf_release(&out);
}

static void test_allocation_failures(void)
{
	static const char *const path = "tests/data/perf/multiplexed.csv";
	unsigned long nth;
	int failed = 0, ok = 0;

	for (nth = 1; nth < 800 && !ok; nth++) {
		struct hec_perfstat_report rep;
		struct cp_buf out;
		struct cp_error err;
		int rc;

		hec_perfstat_report_init(&rep);
		cp_alloc_fail_at(nth);
		rc = import_files(&path, 1, "o", HEC_PERFSTAT_HEADER, 0, &out, &rep, &err);
		cp_alloc_fail_at(0);
		if (rc == 0)
			ok = 1;
		else if (rc != CP_ENOMEM)
			failed = 1;
		hec_perfstat_report_release(&rep);
		cp_buf_release(&out);
	}
	CHECK(ok);
	CHECK(!failed);
}

int main(void)
{
	check_prog = "test_perfstat";
	RUN(test_scaling_rule);
	RUN(test_note_counts_events);
	RUN(test_committed_multiplexed);
	RUN(test_real_software_capture);
	RUN(test_real_unsupported_capture);
	RUN(test_real_per_cpu_capture);
	RUN(test_real_per_thread_capture);
	RUN(test_real_json_captures);
	RUN(test_json_and_csv_agree);
	RUN(test_event_names_with_commas);
	RUN(test_real_total_captures);
	RUN(test_strip_modifiers);
	RUN(test_human_readable);
	RUN(test_grouped_counts);
	RUN(test_separators);
	RUN(test_summary_rows);
	RUN(test_metric_only);
	RUN(test_repeated_events);
	RUN(test_foreign_lines);
	RUN(test_runs_as_intervals);
	RUN(test_repeat_summaries);
	RUN(test_minor_variants);
	RUN(test_bad_inputs);
	RUN(test_every_bad_line_reported);
	RUN(test_allocation_failures);
	return check_summary();
}
