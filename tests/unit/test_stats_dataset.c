/* tests/unit/test_stats_dataset.c: the long CSV loader (every validation
 * error, all bad rows reported), accessors, rates and resolution. */
#include <stdio.h>
#include <string.h>

#include "common/cp.h"
#include "dsl/udd.h"
#include "stats/region.h"
#include "check.h"

#define HEADER "observation,interval,event,value,enabled_ns,running_ns\n"

static int parse(const char *text, struct stats_dataset **d,
		 struct cp_buf *diag, struct cp_error *err)
{
	cp_error_clear(err);
	return stats_dataset_parse("data.csv", text, strlen(text), d, diag, err);
}

/* text must fail with exactly msg (the first diagnostic). */
static void expect_error(const char *text, const char *msg)
{
	struct stats_dataset *d = NULL;
	struct cp_error err;
	char line[2048];

	CHECK(parse(text, &d, NULL, &err) == CP_EINPUT);
	CHECK(d == NULL);
	cp_error_format(&err, line, sizeof line);
	CHECK_STR(line, msg);
}

static void test_good_dataset(void)
{
	struct stats_dataset *d = NULL;
	struct cp_error err;
	const char *ev[] = { "b", "a" };
	double *r = NULL, res[2];
	size_t n = 0;

	CHECK(parse("running_ns,extra,observation,interval,event,value,enabled_ns\n"
		    "100,x,o1,1,a,10,100\n"
		    "100,x,o1,1,b,20,200\n"
		    "50,x,o1,0,a,5,100\n"
		    "0,x,o1,0,b,0,100\n"
		    "\n"
		    "1000000000,\"y,z\",\"o 2\",7,a,3,1000000000\n",
		    &d, NULL, &err) == 0);
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK(stats_dataset_n_observations(d) == 2);
	CHECK_STR(stats_dataset_observation(d, 0), "o1");
	CHECK_STR(stats_dataset_observation(d, 1), "o 2");
	CHECK(stats_dataset_find_observation(d, "o 2") == 1);
	CHECK(stats_dataset_find_observation(d, "nope") == (size_t)-1);
	CHECK(stats_dataset_n_events(d) == 2);
	CHECK_STR(stats_dataset_event(d, 0), "a");
	CHECK(stats_dataset_n_intervals(d, 0) == 2);
	CHECK(stats_dataset_n_intervals(d, 1) == 1);
	CHECK(stats_dataset_n_counted(d, 0, 1) == 1);
	CHECK(stats_observation_rates(d, 0, ev, 2, &r, &n, &err) == 0);
	CHECK(n == 2);
	if (r && n == 2) {
		/* interval 0 first: b not counted, a = 5 counts in 50 ns */
		CHECK(isnan(r[0]));
		CHECK_NEAR(r[1], 5 * 1e9 / 50, 1e-3);
		/* interval 1: b = 20 over running 100 ns (enabled 200: the
		 * estimate 40 over 200 ns of enabled time) */
		CHECK_NEAR(r[2], 2e8, 1e-3);
		CHECK_NEAR(r[3], 1e8, 1e-3);
	}
	cp_free(r);
	CHECK(stats_observation_resolution(d, 0, ev, 2, res, &err) == 0);
	CHECK_NEAR(res[0], 1e7, 1e-6);
	CHECK_NEAR(res[1], sqrt((4e14 + 1e14) / 2), 1e-3);
	stats_dataset_free(d);
	stats_dataset_free(NULL);
}

static void test_rates_errors(void)
{
	struct stats_dataset *d = NULL;
	struct cp_error err;
	const char *ev1[] = { "a", "zz" }, *ev2[] = { "b" };
	double *r = NULL;
	size_t n = 0;
	char line[2048];

	CHECK(parse(HEADER "o,0,a,1,10,10\no,0,b,0,10,0\np,0,b,1,10,10\n", &d,
		    NULL, &err) == 0);
	if (!d)
		return;
	CHECK(stats_observation_rates(d, 0, ev1, 2, &r, &n, &err) == CP_EINPUT);
	cp_error_format(&err, line, sizeof line);
	CHECK_STR(line, "data.csv: dataset has no event 'zz'");
	CHECK(stats_observation_rates(d, 0, ev2, 1, &r, &n, &err) == CP_EINPUT);
	cp_error_format(&err, line, sizeof line);
	CHECK_STR(line, "data.csv: event 'b' was never counted in observation 'o'");
	CHECK(r == NULL);
	stats_dataset_free(d);
}

static void test_validation_errors(void)
{
	expect_error("", "data.csv:1: empty file (no header)");
	expect_error(HEADER, "data.csv:1: no data rows");
	expect_error("observation,interval,event,value,enabled_ns\no,0,a,1,10\n",
		     "data.csv:1: missing header column 'running_ns'");
	expect_error("observation,interval,event,value,value,enabled_ns,running_ns\n",
		     "data.csv:1: duplicate header column 'value'");
	expect_error(HEADER "o,0,a,abc,10,10\n", "data.csv:2: value 'abc' is not a number");
	expect_error(HEADER "o,0,a,,10,10\n", "data.csv:2: value '' is not a number");
	expect_error(HEADER "o,0,a,nan,10,10\n", "data.csv:2: value 'nan' is not a number");
	expect_error(HEADER "o,0,a,1e999,10,10\n", "data.csv:2: value '1e999' is not a number");
	expect_error(HEADER "o,0,a,-3,10,10\n", "data.csv:2: negative count (-3)");
	expect_error(HEADER "o,0,a,3,10,12\n",
		     "data.csv:2: running_ns (12) exceeds enabled_ns (10)");
	expect_error(HEADER "o,0,a,3,10,0\n",
		     "data.csv:2: value 3 with running_ns = 0 (an event that was not counted has no value)");
	expect_error(HEADER "o,x,a,3,10,10\n",
		     "data.csv:2: interval 'x' is not a non-negative integer");
	expect_error(HEADER "o,-1,a,3,10,10\n",
		     "data.csv:2: interval '-1' is not a non-negative integer");
	expect_error(HEADER "o,1,a,3,1.5,1\n",
		     "data.csv:2: enabled_ns '1.5' is not a non-negative integer");
	expect_error(HEADER "o,1,a,3,10,-1\n",
		     "data.csv:2: running_ns '-1' is not a non-negative integer");
	expect_error(HEADER ",1,a,3,10,10\n", "data.csv:2: empty observation name");
	expect_error(HEADER "o,1,,3,10,10\n", "data.csv:2: empty event name");
	expect_error(HEADER "o,1,a,3,10\n", "data.csv:2: expected 6 fields, found 5");
	expect_error(HEADER "\"o,1,a,3,10,10\n", "data.csv:2: unterminated quoted field");
	expect_error(HEADER "o,1,a,3,10,10\no,2,a,3,10,10\no,1,a,4,10,10\n",
		     "data.csv:4: duplicate row for observation 'o', interval 1, "
		     "event 'a' (first at line 2)");
}

/* A NUL byte inside: strlen would stop early, so pass the length. */
static void test_nul_byte(void)
{
	struct stats_dataset *d = NULL;
	struct cp_error err;
	static const char text[] = HEADER "o,0,a\0,1,1,1\n";

	CHECK(stats_dataset_parse("data.csv", text, sizeof text - 1, &d, NULL,
				  &err) == CP_EINPUT);
	CHECK_STR(err.msg, "not a text file (NUL byte)");
}

/* Every bad row is reported, in line order, duplicates included. */
static void test_every_bad_row_reported(void)
{
	struct stats_dataset *d = NULL;
	struct cp_error err;
	struct cp_buf diag;
	char text[200000];
	size_t len, i;

	cp_buf_init(&diag);
	CHECK(parse(HEADER "o,0,a,1,10,10\n"
		    "o,0,a,2,10,10\n"
		    "o,1,a,x,10,10\n"
		    "o,2,a,1,10,11\n"
		    "o,3,a\n", &d, &diag, &err) == CP_EINPUT);
	CHECK_STR(diag.data,
		  "data.csv:3: duplicate row for observation 'o', interval 0, event 'a' (first at line 2)\n"
		  "data.csv:4: value 'x' is not a number\n"
		  "data.csv:5: running_ns (11) exceeds enabled_ns (10)\n"
		  "data.csv:6: expected 6 fields, found 3\n");
	CHECK(err.line == 3);
	CHECK_STR(err.detail,
		  "data.csv:4: value 'x' is not a number\n"
		  "data.csv:5: running_ns (11) exceeds enabled_ns (10)\n"
		  "data.csv:6: expected 6 fields, found 3\n");
	cp_buf_release(&diag);

	/* 2000 bad rows: all in diag, err->detail ends with a count */
	len = (size_t)snprintf(text, sizeof text, HEADER);
	for (i = 0; i < 2000; i++)
		len += (size_t)snprintf(text + len, sizeof text - len,
					"o,%zu,a,-1,10,10\n", i);
	cp_buf_init(&diag);
	CHECK(stats_dataset_parse("data.csv", text, len, &d, &diag, &err) == CP_EINPUT);
	for (i = 0, len = 0; i < diag.len; i++)
		len += diag.data[i] == '\n';
	CHECK(len == 2000);
	CHECK(strstr(err.detail, "more bad rows\n") != NULL);
	cp_buf_release(&diag);
}

static void test_load_files(void)
{
	struct stats_dataset *d = NULL;
	struct cp_error err;

	cp_error_clear(&err);
	CHECK(stats_dataset_load("tests/data/perf/no-such-file.csv", &d, &err) == CP_EIO);
	CHECK(strstr(err.msg, "cannot read 'tests/data/perf/no-such-file.csv'") != NULL);
	CHECK(stats_dataset_load("tests/data/perf/sw.long.csv", &d, &err) == 0);
	if (d) {
		CHECK(stats_dataset_n_intervals(d, 0) == 20);
		CHECK(stats_dataset_n_events(d) == 6);
	}
	stats_dataset_free(d);
}

/* A model's counters read the events they declare, in counter order. */
static void test_model_events(void)
{
	static const char src[] =
		"counter walk \"EV_WALK\";\n"
		"counter hit \"EV_HIT\";\n"
		"property t { h, m };\n"
		"uop load { switch (t) { case h: incr hit; case m: incr walk; } done; }\n";
	struct udd_model *m = NULL;
	struct udd_sigset *s = NULL;
	struct stats_dataset *d = NULL;
	struct region *r = NULL;
	struct cp_error err;
	const char *ev[2] = { NULL, NULL };

	cp_error_clear(&err);
	CHECK(udd_model_parse_string("m.udd", src, sizeof src - 1, &m, &err) == 0);
	CHECK(m && udd_sigset_build(m, 0, 0, &s, &err) == 0);
	if (!s) {
		printf("  %s\n", err.msg);
		udd_model_free(m);
		return;
	}
	CHECK(parse(HEADER "o,0,EV_HIT,5,10,10\no,0,EV_WALK,1,10,10\n"
		    "o,1,EV_HIT,6,10,10\no,1,EV_WALK,2,10,10\n"
		    "o,2,EV_HIT,4,10,10\no,2,EV_WALK,1,10,10\n"
		    "p,0,EV_HIT,4,10,10\np,0,EV_WALK,0,10,0\n", &d, NULL, &err) == 0);
	CHECK(stats_sigset_events(d, 0, s, ev, &err) == 0);
	CHECK_STR(ev[0], "EV_WALK");
	CHECK_STR(ev[1], "EV_HIT");
	CHECK(stats_sigset_region(d, 0, s, NULL, &r, &err) == 0);
	CHECK(r && r->k == 2);
	if (r)
		CHECK_NEAR(r->mu[1], 5e8, 1e-3);
	region_free(r);
	CHECK(stats_sigset_events(d, 1, s, ev, &err) == CP_EINPUT);
	CHECK_STR(err.msg, "event 'EV_WALK' (model counter 'walk') was never "
		  "counted in observation 'p'");
	stats_dataset_free(d);
	CHECK(parse(HEADER "o,0,EV_HIT,5,10,10\n", &d, NULL, &err) == 0);
	CHECK(stats_sigset_region(d, 0, s, NULL, &r, &err) == CP_EINPUT);
	CHECK_STR(err.msg, "the dataset has no event 'EV_WALK' (model counter 'walk')");
	stats_dataset_free(d);
	udd_sigset_free(s);
	udd_model_free(m);
}

static void test_allocation_failures(void)
{
	unsigned long nth;
	int ok = 0, wrong = 0;
	const char *text = HEADER "o,0,a,1,10,10\no,0,b,1,10,10\np,1,a,2,10,5\n"
			   "q,0,a,1,10,10\nq,0,a,1,10,10\n";

	for (nth = 1; nth < 200 && !ok; nth++) {
		struct stats_dataset *d = NULL;
		struct cp_error err;
		struct cp_buf diag;
		int rc;

		cp_buf_init(&diag);
		cp_alloc_fail_at(nth);
		rc = parse(text, &d, &diag, &err);
		cp_alloc_fail_at(0);
		if (rc == CP_EINPUT && !diag.failed)
			ok = 1;
		else if (rc != CP_ENOMEM && !diag.failed)
			wrong = 1;
		stats_dataset_free(d);
		cp_buf_release(&diag);
	}
	CHECK(ok);
	CHECK(!wrong);
}

int main(void)
{
	check_prog = "test_stats_dataset";
	RUN(test_good_dataset);
	RUN(test_rates_errors);
	RUN(test_validation_errors);
	RUN(test_nul_byte);
	RUN(test_every_bad_row_reported);
	RUN(test_load_files);
	RUN(test_model_events);
	RUN(test_allocation_failures);
	return check_summary();
}
