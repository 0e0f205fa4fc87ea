/* tests/unit/test_perfstat.c: the perf stat importer on real captures
 * (tests/data/perf), the scaling rule, and every bad-input message. */
#include <stdio.h>
#include <string.h>

#include "common/cp.h"
#include "hw/perfstat.h"
#include "stats/region.h"
#include "check.h"

/* Convert text; returns the status and leaves the output in out. */
static int convert(const char *text, struct cp_buf *out,
		   struct hec_perfstat_summary *sum, struct cp_error *err)
{
	cp_buf_init(out);
	cp_error_clear(err);
	return hec_perfstat_convert("stat.csv", text, strlen(text), "obs", 1,
				    out, sum, err);
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

/* Import a capture and load the result as a dataset. */
static struct stats_dataset *import_file(const char *path,
					 struct hec_perfstat_summary *sum)
{
	struct cp_buf out;
	struct cp_error err;
	struct stats_dataset *d = NULL;
	char line[2048];

	cp_buf_init(&out);
	cp_error_clear(&err);
	if (hec_perfstat_import(path, "run1", 1, &out, sum, &err)) {
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

static void test_scaling_rule(void)
{
	struct cp_buf out;
	struct cp_error err;
	struct hec_perfstat_summary sum;

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
	cp_buf_release(&out);
}

static void test_committed_multiplexed(void)
{
	struct hec_perfstat_summary sum;
	struct stats_dataset *d = import_file("tests/data/perf/multiplexed.csv", &sum);
	const char *ev[] = { "dTLB-load-misses", "dTLB-store-misses", "task-clock" };
	double *rates = NULL;
	size_t n = 0;
	struct cp_error err;

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
	struct hec_perfstat_summary sum;
	struct stats_dataset *d = import_file("tests/data/perf/sw.csv", &sum);

	CHECK(d != NULL);
	if (!d)
		return;
	CHECK(sum.intervals == 20 && sum.events == 6 && sum.rows == 120);
	CHECK(sum.not_counted == 0);
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
	struct hec_perfstat_summary sum;
	struct stats_dataset *d = import_file("tests/data/perf/unsupported.csv", &sum);

	CHECK(d != NULL);
	if (!d)
		return;
	CHECK_STR(sum.unsupported, "cycles,instructions,dTLB-load-misses");
	CHECK(sum.not_counted == 3 * sum.intervals);
	CHECK(stats_dataset_n_counted(d, 0, 3) == 0);
	CHECK(stats_dataset_n_counted(d, 0, 0) == sum.intervals);
	stats_dataset_free(d);
}

/* -A rows are summed: interval 0 of page-faults is CPU0 + CPU1. */
static void test_real_per_cpu_capture(void)
{
	struct hec_perfstat_summary sum;
	struct stats_dataset *d;
	struct cp_buf out;
	struct cp_error err;
	FILE *fp = fopen("tests/data/perf/per-cpu.csv", "r");
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
	d = import_file("tests/data/perf/per-cpu.csv", &sum);
	CHECK(d != NULL);
	CHECK(sum.events == 3 && sum.not_counted == 0);
	stats_dataset_free(d);
	CHECK(hec_perfstat_import("tests/data/perf/per-cpu.csv", "x", 0, (cp_buf_init(&out), &out),
				  NULL, &err) == 0);
	snprintf(line, sizeof line, "x,0,page-faults,%.0f,", total);
	CHECKF(!strncmp(out.data, line, strlen(line)), "%.60s vs %s", out.data, line);
	cp_buf_release(&out);
}

static void test_real_per_thread_capture(void)
{
	struct hec_perfstat_summary sum;
	struct stats_dataset *d = import_file("tests/data/perf/per-thread.csv", &sum);

	CHECK(d != NULL);
	if (!d)
		return;
	/* threads idle at first: whole intervals <not counted> */
	CHECK(sum.not_counted > 0 && sum.not_counted < sum.rows);
	CHECK(stats_dataset_n_counted(d, 0, 0) == sum.intervals - sum.not_counted / 3);
	stats_dataset_free(d);
}

static void test_real_json_captures(void)
{
	struct hec_perfstat_summary sum;
	struct stats_dataset *d = import_file("tests/data/perf/sw.json", &sum);

	CHECK(d != NULL);
	CHECK(sum.events == 4);
	CHECK_STR(sum.unsupported, "cycles");
	CHECK(sum.not_counted == sum.intervals);
	stats_dataset_free(d);
	d = import_file("tests/data/perf/per-cpu.json", &sum);
	CHECK(d != NULL);
	CHECK(sum.events == 2 && sum.rows == 2 * sum.intervals);
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
	struct hec_perfstat_summary sum;
	struct stats_dataset *d;
	struct cp_buf out;
	struct cp_error err;

	d = import_file("tests/data/perf/total.csv", &sum);
	CHECK(d != NULL);
	CHECK(sum.intervals == 1 && sum.events == 5 && sum.rows == 5);
	CHECK(d && stats_dataset_n_intervals(d, 0) == 1);
	stats_dataset_free(d);
	d = import_file("tests/data/perf/total.json", &sum);
	CHECK(d != NULL);
	CHECK(sum.intervals == 1 && sum.events == 5 && sum.rows == 5);
	stats_dataset_free(d);
	cp_buf_init(&out);
	CHECK(hec_perfstat_import("tests/data/perf/total.csv", "t", 0, &out, NULL,
				  &err) == 0);
	CHECK_STR(out.data, "t,0,page-faults,85675,400897082,400897082\n"
		  "t,0,minor-faults,85675,400897082,400897082\n"
		  "t,0,major-faults,0,400897082,400897082\n"
		  "t,0,context-switches,228,400897082,400897082\n"
		  "t,0,task-clock,400900000,400897082,400897082\n");
	cp_buf_release(&out);
	/* CPU0 85826 + CPU1 4231 page faults */
	cp_buf_init(&out);
	CHECK(hec_perfstat_import("tests/data/perf/total-per-cpu.csv", "t", 0, &out,
				  NULL, &err) == 0);
	CHECK(out.data && !strncmp(out.data, "t,0,page-faults,90057,", 22));
	cp_buf_release(&out);
	/* <not counted> and <not supported> without -I */
	CHECK(convert("<not counted>,,cycles,0,100.00,,\n5,,page-faults,1000,100.00,,\n",
		      &out, &sum, &err) == 0);
	CHECK_STR(out.data, "observation,interval,event,value,enabled_ns,running_ns\n"
		  "obs,0,cycles,0,0,0\nobs,0,page-faults,5,1000,1000\n");
	cp_buf_release(&out);
}

/* perf stat -r N adds a variance column after the event ("0.44%", JSON
 * "variance"): it is not part of the event's name. */
static void test_real_repeat_captures(void)
{
	static const char *const names[] = { "page-faults", "minor-faults",
		"major-faults", "context-switches", "task-clock" };
	static const char *const files[] = { "tests/data/perf/repeat.csv",
		"tests/data/perf/repeat.json", "tests/data/perf/repeat-interval.csv" };
	struct hec_perfstat_summary sum;
	size_t i, e;

	for (i = 0; i < sizeof files / sizeof *files; i++) {
		struct stats_dataset *d = import_file(files[i], &sum);

		CHECKF(d != NULL, "%s", files[i]);
		if (!d)
			continue;
		CHECKF(stats_dataset_n_events(d) == 5, "%s: %zu events", files[i],
		       stats_dataset_n_events(d));
		for (e = 0; e < 5 && e < stats_dataset_n_events(d); e++)
			CHECK_STR(stats_dataset_event(d, e), names[e]);
		CHECK(stats_dataset_n_intervals(d, 0) == (i < 2 ? 1 : 9));
		stats_dataset_free(d);
	}
}

/* HEC_PERFSTAT_STRIP_MODIFIERS: perf's user-only page-faults:u (and
 * cpu/.../u, r108:k) named as record --user-only names them; tracepoints
 * keep their colon. */
static void test_strip_modifiers(void)
{
	struct cp_buf out;
	struct cp_error err;
	struct stats_dataset *d = NULL;

	cp_buf_init(&out);
	CHECK(hec_perfstat_import("tests/data/perf/user-only.csv", "u",
				  HEC_PERFSTAT_HEADER | HEC_PERFSTAT_STRIP_MODIFIERS,
				  &out, NULL, &err) == 0);
	CHECK(stats_dataset_parse("u.csv", out.data, out.len, &d, NULL, &err) == 0);
	CHECK(d && stats_dataset_n_events(d) == 3);
	CHECK(d && !strcmp(stats_dataset_event(d, 0), "page-faults") &&
	      !strcmp(stats_dataset_event(d, 2), "major-faults"));
	stats_dataset_free(d);
	cp_buf_release(&out);
	cp_buf_init(&out);
	cp_error_clear(&err);
	CHECK(hec_perfstat_convert("s.csv", "0.1,5,,cpu/event=0x8,umask=0x1/u,10,100.00,,\n"
				   "0.1,6,,r108:uk,10,100.00,,\n"
				   "0.1,7,,sched:sched_switch,10,100.00,,\n"
				   "0.1,8,,sched:sched_switch:u,10,100.00,,\n",
				   strlen("0.1,5,,cpu/event=0x8,umask=0x1/u,10,100.00,,\n"
					  "0.1,6,,r108:uk,10,100.00,,\n"
					  "0.1,7,,sched:sched_switch,10,100.00,,\n"
					  "0.1,8,,sched:sched_switch:u,10,100.00,,\n"),
				   "o", HEC_PERFSTAT_STRIP_MODIFIERS, &out, NULL, &err) == CP_EINPUT);
	/* two names that become one are one event counted twice */
	CHECK_STR(err.msg, "duplicate count of 'sched:sched_switch' at time "
		  "0.100000000 (first at line 3)");
	cp_buf_release(&out);
	cp_buf_init(&out);
	CHECK(hec_perfstat_convert("s.csv", "0.1,5,,cpu/event=0x8,umask=0x1/u,10,100.00,,\n"
				   "0.1,6,,r108:uk,10,100.00,,\n",
				   strlen("0.1,5,,cpu/event=0x8,umask=0x1/u,10,100.00,,\n"
					  "0.1,6,,r108:uk,10,100.00,,\n"),
				   "o", HEC_PERFSTAT_STRIP_MODIFIERS, &out, NULL, &err) == 0);
	CHECK_STR(out.data, "o,0,\"cpu/event=0x8,umask=0x1/\",5,10,10\no,0,r108,6,10,10\n");
	cp_buf_release(&out);
}

static void test_bad_inputs(void)
{
	expect_error("", "stat.csv:1: no counts found (is this `perf stat -x ,` or `perf stat -j` output?)");
	expect_error("# started\n\n", "stat.csv:2: no counts found (is this `perf stat -x ,` or `perf stat -j` output?)");
	/* -I output and output without it do not mix */
	expect_error("     0.100170113,74,,page-faults,892088,100.00,,\n"
		     "2740,,page-faults,103981968,100.00,26.293,K/sec\n",
		     "stat.csv:2: expected an interval time stamp (perf stat -I, as line 1 has), found '2740'");
	expect_error("100.52,msec,task-clock,100517301,100.00,1.005,CPUs utilized\n"
		     "     0.100170113,74,,page-faults,892088,100.00,,\n",
		     "stat.csv:2: a time stamp '0.100170113' in output without them (perf stat without -I: line 1 has none)");
	expect_error("{\"counter-value\" : \"5\", \"event\" : \"e\", \"event-runtime\" : 10, "
		     "\"pcnt-running\" : 100.00}\n"
		     "{\"interval\" : 0.1, \"counter-value\" : \"5\", \"event\" : \"e\", "
		     "\"event-runtime\" : 10, \"pcnt-running\" : 100.00}\n",
		     "stat.csv:2: an \"interval\" key in output without them (perf stat -j without -I: line 1 has none)");
	expect_error("{\"interval\" : 0.1, \"counter-value\" : \"5\", \"event\" : \"e\", "
		     "\"event-runtime\" : 10, \"pcnt-running\" : 100.00}\n"
		     "{\"counter-value\" : \"5\", \"event\" : \"e\", \"event-runtime\" : 10, "
		     "\"pcnt-running\" : 100.00}\n",
		     "stat.csv:2: no \"interval\" key (line 1 has one)");
	expect_error("0.1,5,,e,1000,100.00,,\n0.1,abc,,page-faults,1000,100.00,,\n"
		     "0.1,CPU0,12x,,e,1,100.00,,\n",
		     "stat.csv:2: count 'abc' is not a number");
	expect_error("0.1,CPU0,12x,,e,1,100.00,,\n",
		     "stat.csv:1: count '12x' of 'e' is not a number");
	expect_error("0.1,5,,e,1000,100.00,,\n0.1,x,,e,1000,100.00,,\n0.1,5,,e,1000,100.00,,\n",
		     "stat.csv:2: count 'x' is not a number");
	expect_error("0.1,-5,,e,1000,100.00,,\n", "stat.csv:1: negative count (-5) of 'e'");
	expect_error("0.1,5,,e,1000,0.00,,\n",
		     "stat.csv:1: running percentage '0.00' of 'e' is not in (0, 100]");
	expect_error("0.1,5,,e,1000,100.5,,\n",
		     "stat.csv:1: running percentage '100.5' of 'e' is not in (0, 100]");
	expect_error("0.1,5,,e,0,100.00,,\n", "stat.csv:1: 'e' has a count but ran for 0 ns");
	expect_error("0.1,5,,,1000,100.00,,\n", "stat.csv:1: empty event name");
	expect_error("0.1,5,,e\n", "stat.csv:1: expected at least 6 fields, found 4");
	expect_error("0.1,5,,e,1000,100.00,,\n0.1,6,,e,1000,100.00,,\n",
		     "stat.csv:2: duplicate count of 'e' at time 0.100000000 (first at line 1)");
	expect_error("{\"interval\" : 0.1, \"counter-value\" : \"5\"\n",
		     "stat.csv:1: malformed JSON object");
	expect_error("{\"interval\" : 0.1, \"event\" : \"e\"}\n",
		     "stat.csv:1: no \"counter-value\" key");
	expect_error("{\"interval\" : 0.1, \"counter-value\" : \"x\", \"event\" : \"e\", "
		     "\"event-runtime\" : 10, \"pcnt-running\" : 100.00}\n",
		     "stat.csv:1: count 'x' of 'e' is not a number");
}

/* Every bad line is reported: the first in msg, the others in detail. */
static void test_every_bad_line_reported(void)
{
	struct cp_buf out;
	struct cp_error err;

	CHECK(convert("0.1,-1,,a,10,100.00,,\n0.1,5,,b,10,100.00,,\n"
		      "x,5,,c,10,100.00,,\n0.2,5,,d,10,0,,\n", &out, NULL, &err) == CP_EINPUT);
	CHECK(err.line == 1);
	CHECK_STR(err.detail,
		  "stat.csv:3: expected an interval time stamp (perf stat -I, as line 1 has), found 'x'\n"
		  "stat.csv:4: running percentage '0' of 'd' is not in (0, 100]\n");
	CHECK(out.len == 0);
	cp_buf_release(&out);
}

static void test_allocation_failures(void)
{
	unsigned long nth;
	int failed = 0, ok = 0;

	for (nth = 1; nth < 400 && !ok; nth++) {
		struct cp_buf out;
		struct cp_error err;
		int rc;

		cp_buf_init(&out);
		cp_error_clear(&err);
		cp_alloc_fail_at(nth);
		rc = hec_perfstat_import("tests/data/perf/multiplexed.csv", "o", 1,
					 &out, NULL, &err);
		cp_alloc_fail_at(0);
		if (rc == 0)
			ok = 1;
		else if (rc != CP_ENOMEM)
			failed = 1;
		cp_buf_release(&out);
	}
	CHECK(ok);
	CHECK(!failed);
}

int main(void)
{
	check_prog = "test_perfstat";
	RUN(test_scaling_rule);
	RUN(test_committed_multiplexed);
	RUN(test_real_software_capture);
	RUN(test_real_unsupported_capture);
	RUN(test_real_per_cpu_capture);
	RUN(test_real_per_thread_capture);
	RUN(test_real_json_captures);
	RUN(test_json_and_csv_agree);
	RUN(test_event_names_with_commas);
	RUN(test_real_total_captures);
	RUN(test_real_repeat_captures);
	RUN(test_strip_modifiers);
	RUN(test_bad_inputs);
	RUN(test_every_bad_line_reported);
	RUN(test_allocation_failures);
	return check_summary();
}
