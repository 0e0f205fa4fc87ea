/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_stats_dataset.c: the long CSV loader (every validation
 * error, all bad rows reported), accessors, rates and resolution. */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cp.h"
#include "dsl/udd.h"
#include "stats/region.h"
#include "stats/stats_int.h"
#include "stats/dataset_int.h"
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
	CHECK_STR(line, "data.csv:2: observation 'o': event 'b' was never counted");
	CHECK(r == NULL);
	/* messages about an observation name the line of its first row */
	CHECK(stats_dataset_observation_line(d, 0) == 2);
	CHECK(stats_dataset_observation_line(d, 1) == 4);
	CHECK(stats_dataset_observation_line(d, 2) == 0);
	CHECK_STR(stats_dataset_path(d), "data.csv");
	stats_dataset_free(d);
	/* the first row in the file, not the lowest interval */
	d = NULL;
	CHECK(parse(HEADER "p,0,a,1,10,10\no,5,a,1,10,10\no,1,a,1,10,10\n"
		    "p,1,a,1,10,10\n\no,0,b,1,10,10\n", &d, NULL, &err) == 0);
	CHECK(d && stats_dataset_observation_line(d, 0) == 2 &&
	      stats_dataset_observation_line(d, 1) == 3);
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
	expect_error(HEADER "o,0,a,1e999,10,10\n",
		     "data.csv:2: value '1e999' is not below 2^64 (no 64-bit counter holds it)");
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
	expect_error(HEADER "\"o\"x,1,a,3,10,10\n",
		     "data.csv:2: text after the closing quote of a field");
	expect_error("\n" HEADER, "data.csv:1: blank header line (expected "
		     "observation,interval,event,value,enabled_ns,running_ns)");
	expect_error("\xEF\xBB\xBF\r\n", "data.csv:1: blank header line (expected "
		     "observation,interval,event,value,enabled_ns,running_ns)");
	/* "no data rows" names the header, blank lines after it or not */
	expect_error(HEADER "\n \n", "data.csv:1: no data rows");
	expect_error(HEADER "o,1,a,3,10,10\no,2,a,3,10,10\no,1,a,4,10,10\n",
		     "data.csv:4: duplicate row for observation 'o', interval 1, "
		     "event 'a' (first at line 2)");
}

/* Numbers that would lie: counts a double cannot hold exactly, counts no
 * 64-bit counter holds, other notations; the accepted ones, exactly. */
static void test_numbers(void)
{
	struct stats_dataset *d = NULL;
	struct cp_error err;
	const char *ev[] = { "a" };
	double *r = NULL;
	size_t n = 0, i;
	static const struct {
		const char *value;
		double want;
	} good[] = {
		{ "9007199254740992", 9007199254740992.0 },     /* 2^53 */
		{ "9.007199254740992e15", 9007199254740992.0 },
		{ "9007199254740991", 9007199254740991.0 },
		{ "0009007199254740992", 9007199254740992.0 },
		{ "1.5", 1.5 }, { "1.25e3", 1250 }, { "125E-1", 12.5 },
		{ "0.1", 0.1 }, { "-0", 0 }, { "0e999999999", 0 },
		{ "123.456789012345", 123.456789012345 },
		{ "1.23456789012345678901234", 1.2345678901234568 },
	};
	char text[256], msg[512];

	expect_error(HEADER "o,0,a,9007199254740993,10,10\n",
		     "data.csv:2: value '9007199254740993' is above 2^53 = "
		     "9007199254740992, beyond which a double does not hold every "
		     "count exactly");
	expect_error(HEADER "o,0,a,9007199254740992.5,10,10\n",
		     "data.csv:2: value '9007199254740992.5' is above 2^53 = "
		     "9007199254740992, beyond which a double does not hold every "
		     "count exactly");
	expect_error(HEADER "o,0,a,18446744073709551615,10,10\n",
		     "data.csv:2: value '18446744073709551615' is above 2^53 = "
		     "9007199254740992, beyond which a double does not hold every "
		     "count exactly");
	expect_error(HEADER "o,0,a,1e16,10,10\n",
		     "data.csv:2: value '1e16' is above 2^53 = 9007199254740992, "
		     "beyond which a double does not hold every count exactly");
	expect_error(HEADER "o,0,a,18446744073709551616,10,10\n",
		     "data.csv:2: value '18446744073709551616' is not below 2^64 "
		     "(no 64-bit counter holds it)");
	expect_error(HEADER "o,0,a,0x10,10,10\n",
		     "data.csv:2: value '0x10' is hexadecimal (a dataset's numbers "
		     "are decimal)");
	expect_error(HEADER "o,0x1,a,1,10,10\n",
		     "data.csv:2: interval '0x1' is hexadecimal (a dataset's numbers "
		     "are decimal)");
	expect_error(HEADER "o,0,a,1,0XfF,10\n",
		     "data.csv:2: enabled_ns '0XfF' is hexadecimal (a dataset's "
		     "numbers are decimal)");
	/* 0x without hex digits after it is no number at all */
	expect_error(HEADER "o,0,a,0xzz,10,10\n", "data.csv:2: value '0xzz' is not a number");
	expect_error(HEADER "o,0x,a,1,10,10\n",
		     "data.csv:2: interval '0x' is not a non-negative integer");
	expect_error(HEADER "o,0,a,1,18446744073709551616,10\n",
		     "data.csv:2: enabled_ns '18446744073709551616' is not below "
		     "2^64 (no 64-bit counter holds it)");
	expect_error(HEADER "o,0,a,1,10,1e1\n",
		     "data.csv:2: running_ns '1e1' is not a non-negative integer");
	expect_error(HEADER "o,0,a,+3,10,10\n", "data.csv:2: value '+3' is not a number");
	expect_error(HEADER "o,0,a,.5,10,10\n", "data.csv:2: value '.5' is not a number");
	expect_error(HEADER "o,0,a,5.,10,10\n", "data.csv:2: value '5.' is not a number");
	expect_error(HEADER "o,0,a,1e,10,10\n", "data.csv:2: value '1e' is not a number");
	expect_error(HEADER "o,0,a,inf,10,10\n", "data.csv:2: value 'inf' is not a number");
	expect_error(HEADER "o,0,a,1 2,10,10\n", "data.csv:2: value '1 2' is not a number");
	expect_error(HEADER "o,0,a,-1.5e3,10,10\n", "data.csv:2: negative count (-1.5e3)");
	for (i = 0; i < sizeof good / sizeof *good; i++) {
		snprintf(text, sizeof text, HEADER "o,0,a,%s,1000000000,1000000000\n",
			 good[i].value);
		CHECK(parse(text, &d, NULL, &err) == 0);
		if (!d) {
			cp_error_format(&err, msg, sizeof msg);
			printf("  %s: %s\n", good[i].value, msg);
			continue;
		}
		CHECK(stats_observation_rates(d, 0, ev, 1, &r, &n, &err) == 0);
		if (r && n == 1 && r[0] != good[i].want)
			printf("  %s: %.17g, expected %.17g\n", good[i].value,
			       r[0], good[i].want);
		CHECK(r && n == 1 && r[0] == good[i].want);
		cp_free(r);
		r = NULL;
		stats_dataset_free(d);
		d = NULL;
	}
	/* the largest times there are */
	CHECK(parse(HEADER "o,18446744073709551615,a,1,18446744073709551615,"
		    "18446744073709551615\n", &d, NULL, &err) == 0);
	stats_dataset_free(d);
}

/* The same rows, plain, quoted, padded with spaces and tabs, with a byte
 * order mark and CRLF line ends: the same dataset. */
static void test_same_rows_any_spelling(void)
{
	static const char *const texts[] = {
		HEADER "o1,0,a,1,10,10\no1,0,b,2,10,5\no1,1,a,3,10,10\n"
		"o1,1,b,4,10,5\no2,0,a,5,10,10\n",
		"\xEF\xBB\xBF" HEADER "o1,0,a,1,10,10\no1,0,b,2,10,5\no1,1,a,3,10,10\n"
		"o1,1,b,4,10,5\no2,0,a,5,10,10\n",
		"\"observation\",\"interval\",\"event\",\"value\",\"enabled_ns\",\"running_ns\"\r\n"
		"\"o1\",\"0\",\"a\",\"1\",\"10\",\"10\"\r\n\"o1\",\"0\",\"b\",\"2\",\"10\",\"5\"\r\n"
		"\"o1\",\"1\",\"a\",\"3\",\"10\",\"10\"\r\n\"o1\",\"1\",\"b\",\"4\",\"10\",\"5\"\r\n"
		"\"o2\",\"0\",\"a\",\"5\",\"10\",\"10\"\r\n",
		" observation ,\tinterval, event ,value , enabled_ns,running_ns \n"
		" o1 ,\t0\t, a , 1 ,10 , 10\n\t\"o1\" , 0 ,b,2,10,5\no1,1,a , 3,10,10\n"
		"o1, 1,b,4 ,10,5\n o2,0,a,5,10,10 \n",
		/* groups out of order, a blank line between rows of one */
		HEADER "o1,1,b,4,10,5\no2,0,a,5,10,10\no1,0,a,1,10,10\n\n"
		"o1,0,b,2,10,5\no1,1,a,3,10,10\n",
	};
	const char *ev[] = { "a", "b" };
	size_t t;

	for (t = 0; t < sizeof texts / sizeof *texts; t++) {
		struct stats_dataset *d = NULL;
		struct cp_error err;
		double *r = NULL;
		size_t n = 0;

		CHECK(parse(texts[t], &d, NULL, &err) == 0);
		if (!d) {
			printf("  text %zu: %s:%u: %s\n", t, err.file, err.line, err.msg);
			continue;
		}
		CHECK(stats_dataset_n_observations(d) == 2);
		CHECK(stats_dataset_find_observation(d, "o2") != (size_t)-1);
		CHECK(stats_dataset_n_intervals(d, stats_dataset_find_observation(d, "o1")) == 2);
		CHECK(stats_observation_rates(d, stats_dataset_find_observation(d, "o1"),
					      ev, 2, &r, &n, &err) == 0);
		CHECK(n == 2);
		if (r && n == 2) {
			CHECK(r[0] == 1e8 && r[1] == 4e8 && r[2] == 3e8 && r[3] == 8e8);
		}
		cp_free(r);
		stats_dataset_free(d);
	}
}

/* Observations interleaved row by row (their intervals in order within
 * each), and a query that names one event twice: the same rates and
 * resolutions as the observation alone, the repeated column a copy. */
static void test_interleaved_and_repeated(void)
{
	static const char *const texts[] = {
		HEADER "o1,0,a,1,10,10\no1,0,b,2,10,5\no1,1,a,3,10,10\no1,1,b,4,10,4\n",
		HEADER "o2,0,a,9,10,10\no1,0,a,1,10,10\no2,0,b,9,10,10\no1,0,b,2,10,5\n"
		"o2,1,a,9,10,10\no1,1,a,3,10,10\no2,1,b,9,10,10\no1,1,b,4,10,4\n",
	};
	const char *ev[] = { "b", "a", "b" };
	size_t t;

	for (t = 0; t < 2; t++) {
		struct stats_dataset *d = NULL;
		struct cp_error err;
		double *r = NULL, res[3];
		size_t n = 0, o;

		CHECK(parse(texts[t], &d, NULL, &err) == 0);
		if (!d)
			continue;
		o = stats_dataset_find_observation(d, "o1");
		CHECK(stats_dataset_n_intervals(d, o) == 2);
		CHECK(stats_observation_rates(d, o, ev, 3, &r, &n, &err) == 0);
		CHECK(n == 2);
		if (r && n == 2) {
			CHECK(r[0] == 4e8 && r[1] == 1e8 && r[2] == 4e8);
			CHECK(r[3] == 1e9 && r[4] == 3e8 && r[5] == 1e9);
		}
		CHECK(stats_observation_resolution(d, o, ev, 3, res, &err) == 0);
		/* steps 1e9/5 and 1e9/4 for b, 1e8 twice for a */
		CHECK(fabs(res[0] - sqrt((4e16 + 6.25e16) / 2)) < 1);
		CHECK(res[1] == 1e8 && res[2] == res[0]);
		if (t == 1)
			CHECK(stats_dataset_n_intervals(d, stats_dataset_find_observation(d, "o2")) == 2);
		cp_free(r);
		stats_dataset_free(d);
	}
}

/* Duplicates wherever their rows are: the first row named. */
static void test_duplicates_anywhere(void)
{
	struct stats_dataset *d = NULL;
	struct cp_error err;
	struct cp_buf diag;

	cp_buf_init(&diag);
	CHECK(parse(HEADER "o,1,a,1,10,10\no,2,a,1,10,10\no,1,a,1,10,10\n"
		    "o,1,a,1,10,10\no,1,b,1,10,10\n\no,1,b,1,10,10\n",
		    &d, &diag, &err) == CP_EINPUT);
	CHECK_STR(diag.data,
		  "data.csv:4: duplicate row for observation 'o', interval 1, event 'a' (first at line 2)\n"
		  "data.csv:5: duplicate row for observation 'o', interval 1, event 'a' (first at line 2)\n"
		  "data.csv:8: duplicate row for observation 'o', interval 1, event 'b' (first at line 6)\n");
	cp_buf_release(&diag);
}

/* A file is read in blocks of 1 MB: rows across block boundaries, a line
 * longer than a block, and a NUL byte far in give what the same text
 * parsed in memory gives. */
static void test_file_blocks(void)
{
	const char *path = "build/tests/test_stats_dataset.blocks.csv";
	struct cp_buf b;
	struct stats_dataset *d1 = NULL, *d2 = NULL;
	struct cp_error err;
	const char *ev[] = { "event_a", "ev_b" };
	size_t i, o, n1, n2;
	FILE *fp;

	cp_buf_init(&b);
	cp_buf_puts(&b, "observation,interval,event,value,enabled_ns,running_ns,note\n");
	for (i = 0; i < 60000; i++) {
		cp_buf_printf(&b, "observation-%zu,%zu,event_a,%zu,1000,%zu,\n",
			      i % 7, i / 7, i * 13 % 1000, 500 + i % 500);
		cp_buf_printf(&b, "observation-%zu,%zu,ev_b,%zu.5,1000,1000,%s\n",
			      i % 7, i / 7, i % 100, i == 30000 ? "" : "x");
		if (i == 30000) {      /* a note longer than a block */
			size_t j;

			b.len--;
			for (j = 0; j < (3u << 20) / 8; j++)
				cp_buf_puts(&b, "longnote");
			cp_buf_puts(&b, "\n");
		}
	}
	CHECK(!b.failed);
	fp = fopen(path, "wb");
	CHECK(fp != NULL);
	if (!fp || b.failed) {
		cp_buf_release(&b);
		return;
	}
	fwrite(b.data, 1, b.len - 1, fp);      /* the last newline left off */
	fclose(fp);
	cp_error_clear(&err);
	CHECK(stats_dataset_load(path, &d1, &err) == 0);
	CHECK(stats_dataset_parse("x", b.data, b.len, &d2, NULL, &err) == 0);
	CHECK(d1 && d2 && stats_dataset_n_observations(d1) == 7 &&
	      stats_dataset_n_observations(d2) == 7);
	for (o = 0; d1 && d2 && o < 7; o++) {
		double *r1 = NULL, *r2 = NULL;

		CHECK(stats_observation_rates(d1, o, ev, 2, &r1, &n1, &err) == 0);
		CHECK(stats_observation_rates(d2, o, ev, 2, &r2, &n2, &err) == 0);
		CHECK(r1 && r2 && n1 == n2 && n1 > 8000 &&
		      !memcmp(r1, r2, n1 * 2 * sizeof *r1));
		cp_free(r1);
		cp_free(r2);
	}
	stats_dataset_free(d1);
	stats_dataset_free(d2);
	/* a NUL byte on line 100001: that alone is said, with its line */
	fp = fopen(path, "wb");
	if (fp) {
		size_t at = 0, line = 1;

		for (i = 0; i < b.len && line < 100001; i++)
			if (b.data[i] == '\n')
				line++;
		at = i + 3;
		b.data[at] = '\0';
		fwrite(b.data, 1, b.len, fp);
		fclose(fp);
		cp_error_clear(&err);
		CHECK(stats_dataset_load(path, &d1, &err) == CP_EINPUT);
		CHECK(err.line == 100001);
		CHECK_STR(err.msg, "not a text file (NUL byte)");
		CHECK(err.detail[0] == '\0');
	}
	remove(path);
	cp_buf_release(&b);
}

/* Write text to path; 0 on success. */
static int write_file(const char *path, const char *text, size_t len)
{
	FILE *fp = fopen(path, "wb");
	int ok = fp && fwrite(text, 1, len, fp) == len;

	if (fp && fclose(fp))
		ok = 0;
	return ok ? 0 : -1;
}

/* path loaded with COUNTERPOINT_LAZY_BYTES lazy (1: every file of one
 * observation is read in pieces, "0": never). */
static int load_lazy(const char *path, const char *lazy, struct stats_dataset **d,
		     struct cp_error *err)
{
	int rc;

	setenv("COUNTERPOINT_LAZY_BYTES", lazy, 1);
	cp_error_clear(err);
	rc = stats_dataset_load(path, d, err);
	unsetenv("COUNTERPOINT_LAZY_BYTES");
	return rc;
}

/* One long observation read in pieces (pieces of 256 bytes here: rows
 * of an interval on both sides of an edge, an event first counted late,
 * intervals not counted, blank lines, CRLF line ends on every other
 * interval, whose rows come in another order) says what the whole file says:
 * intervals, events in order, counts, rates and resolutions to the bit,
 * its lines; what pieces cannot read as the whole would (an interval
 * out of order, an event twice across an edge, a second observation)
 * loads whole, and a file changed after the first reading is an error. */
static void test_lazy(void)
{
	const char *path = "build/tests/test_stats_dataset.lazy.csv";
	const char *ev[] = { "late", "a", "b", "a" };
	struct stats_dataset *d1 = NULL, *d2 = NULL;
	struct cp_error err;
	struct cp_buf b;
	size_t i, e, n1 = 0, n2 = 0, c1[3], c2[3], f1, f2, l1, l2;
	double *r1 = NULL, *r2 = NULL, s1[4], s2[4];

	cp_buf_init(&b);
	cp_buf_puts(&b, HEADER);
	for (i = 0; i < 400; i++) {
		const char *nl = i % 2 ? "\r\n" : "\n";

		if (i >= 250 && i % 2)
			cp_buf_printf(&b, "L,%zu,late,%zu,1000,1000%s", i, i % 3, nl);
		if (i % 9)
			cp_buf_printf(&b, "L,%zu,b,%zu,1000,1000%s", i, i % 5, nl);
		else
			cp_buf_printf(&b, "L,%zu,b,0,1000,0%s", i, nl);
		cp_buf_printf(&b, "L,%zu,a,%zu,1000,%zu%s", i, i * 7 % 13, 900 + i % 100, nl);
		if (i >= 250 && !(i % 2))
			cp_buf_printf(&b, "L,%zu,late,%zu,1000,1000%s", i, i % 3, nl);
		if (i % 50 == 7)
			cp_buf_puts(&b, "\n");
	}
	CHECK(!b.failed && write_file(path, b.data, b.len) == 0);
	CHECK(load_lazy(path, "1", &d1, &err) == 0);
	CHECK(load_lazy(path, "0", &d2, &err) == 0);
	CHECK(d1 && d2 && d1->lazy && !d2->lazy);
	if (d1 && d2) {
		CHECK(stats_dataset_n_observations(d1) == 1);
		CHECK(stats_dataset_n_intervals(d1, 0) == 400);
		CHECK(stats_dataset_n_events(d1) == 3);
		for (e = 0; e < 3; e++) {
			CHECK_STR(stats_dataset_event(d1, e), stats_dataset_event(d2, e));
			CHECK(stats_dataset_n_counted(d1, 0, e) == stats_dataset_n_counted(d2, 0, e));
		}
		CHECK(stats_dataset_n_counted(d1, 0, stats_dataset_find_event(d1, "b")) == 400 - 45);
		stats_dataset_counted(d1, 0, c1);
		stats_dataset_counted(d2, 0, c2);
		CHECK(!memcmp(c1, c2, sizeof c1));
		CHECK(stats_dataset_observation_line(d1, 0) == 2);
		CHECK(stats_observation_read(d1, 0, ev, 4, &r1, &n1, s1, &err) == 0);
		CHECK(stats_observation_read(d2, 0, ev, 4, &r2, &n2, s2, &err) == 0);
		CHECK(r1 && r2 && n1 == 400 && n2 == 400 &&
		      !memcmp(r1, r2, 400 * 4 * sizeof *r1) && !memcmp(s1, s2, sizeof s1));
		CHECK(r1 && isnan(r1[0]) && !isnan(r1[250 * 4]));
		CHECK(stats_dataset_n_line_runs(d1, 0) == 1);
		stats_dataset_line_run(d1, 0, 0, &f1, &l1);
		stats_dataset_line_run(d2, 0, stats_dataset_n_line_runs(d2, 0) - 1, &f2, &l2);
		CHECK(f1 == 2 && f1 + l1 == f2 + l2);
	}
	cp_free(r1);
	cp_free(r2);
	r1 = r2 = NULL;
	stats_dataset_free(d2);
	d2 = NULL;
	/* written again after the first reading: an error, not other rates */
	CHECK(write_file(path, b.data, b.len) == 0);
	{
		struct timespec t[2] = { { 1, 0 }, { 1, 0 } };

		CHECK(utimensat(AT_FDCWD, path, t, 0) == 0);
	}
	CHECK(d1 && stats_observation_rates(d1, 0, ev, 2, &r1, &n1, &err) == CP_EIO);
	CHECK(strstr(err.msg, "changed after it was first read") != NULL);
	stats_dataset_free(d1);
	d1 = NULL;

	/* an interval out of order, an event twice in one interval across
	 * pieces' edge (a blank line longer than a piece between: only the
	 * first reading sees the two), a second observation: whole, as
	 * without pieces */
	for (i = 0; i < 3; i++) {
		static const char *const tail[] = { "L,3,c,1,1000,1000\n",
			"%300s\nL,399,a,1,1000,1000\n", "M,0,a,1,1000,1000\n" };
		struct cp_error e1, e2;
		size_t len = b.len;
		int rc1, rc2;

		cp_buf_printf(&b, tail[i], "");
		CHECK(write_file(path, b.data, b.len) == 0);
		rc1 = load_lazy(path, "1", &d1, &e1);
		rc2 = load_lazy(path, "0", &d2, &e2);
		CHECK(rc1 == rc2 && !strcmp(e1.msg, e2.msg));
		CHECK(rc1 || (d1 && !d1->lazy));
		CHECK(i != 1 || rc1 == CP_EINPUT);
		stats_dataset_free(d1);
		stats_dataset_free(d2);
		d1 = d2 = NULL;
		b.len = len;
	}
	remove(path);
	cp_buf_release(&b);
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
	CHECK_STR(err.msg, "observation 'p': event 'EV_WALK' (model counter "
		  "'walk') was never counted");
	CHECK(err.line == stats_dataset_observation_line(d, 1) && err.line > 1);
	stats_dataset_free(d);
	CHECK(parse(HEADER "o,0,EV_HIT,5,10,10\n", &d, NULL, &err) == 0);
	CHECK(stats_sigset_region(d, 0, s, NULL, &r, &err) == CP_EINPUT);
	CHECK_STR(err.msg, "the dataset has no event 'EV_WALK' (model counter 'walk')");
	stats_dataset_free(d);
	udd_sigset_free(s);
	udd_model_free(m);
}

#define SUMMARY "observation,interval,event,value,enabled_ns,running_ns,runs,se_pct\n"

/* perf stat -r summaries: rows with runs and se_pct beside observations
 * of intervals, whose rows leave them empty (the fast path); the rules
 * that keep an observation one or the other. */
static void test_summaries(void)
{
	struct stats_dataset *d = NULL;
	struct cp_error err;
	const char *ev[] = { "a", "b" };
	double rates[2];
	size_t e;

	CHECK(parse(SUMMARY "r,0,a,100,1000000000,1000000000,5,1.5\n"
		    "r,0,b,0,1000000000,0,5,0\n"
		    "i,0,a,3,10,10,,\ni,1,a,4,10,10,,\n"
		    "\"q\",\"0\",\"a\",\"8\",\"10\",\"10\",\"3\",\"0.25\"\n",
		    &d, NULL, &err) == 0);
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK(stats_dataset_runs(d, 0) == 5);
	CHECK(stats_dataset_runs(d, 1) == 0);
	CHECK(stats_dataset_runs(d, 2) == 3);
	CHECK(stats_dataset_runs(d, 7) == 0);
	/* a summary's counted samples are its runs */
	e = stats_dataset_find_event(d, "a");
	CHECK(stats_dataset_n_counted(d, 0, e) == 5);
	CHECK(stats_dataset_n_counted(d, 0, stats_dataset_find_event(d, "b")) == 0);
	CHECK(stats_dataset_n_counted(d, 1, e) == 2);
	CHECK(stats_dataset_n_intervals(d, 0) == 1);
	CHECK(stats_observation_resolution(d, 0, ev, 1, rates, &err) == 0);
	CHECK_NEAR(rates[0], 1, 1e-12);
	stats_dataset_free(d);
	/* a dataset without the columns has no summary */
	CHECK(parse(HEADER "o,0,a,1,10,10\n", &d, NULL, &err) == 0);
	CHECK(d && stats_dataset_runs(d, 0) == 0);
	stats_dataset_free(d);
	expect_error("observation,interval,event,value,enabled_ns,running_ns,runs\n"
		     "o,0,a,1,10,10,3\n", "data.csv:1: header column 'runs' without "
		     "'se_pct' (a perf stat -r summary has both)");
	expect_error(SUMMARY "o,0,a,1,10,10,3,\n",
		     "data.csv:2: 'runs' without 'se_pct' (a perf stat -r summary row has both)");
	expect_error(SUMMARY "o,0,a,1,10,10,,2\n",
		     "data.csv:2: 'se_pct' without 'runs' (a perf stat -r summary row has both)");
	expect_error(SUMMARY "o,0,a,1,10,10,1,2\n",
		     "data.csv:2: runs 1: a summary holds 2 to 4294967295 runs");
	expect_error(SUMMARY "o,0,a,1,10,10,x,2\n",
		     "data.csv:2: runs 'x' is not a non-negative integer");
	expect_error(SUMMARY "o,0,a,1,10,10,3,-2\n", "data.csv:2: negative se_pct (-2)");
	expect_error(SUMMARY "o,0,a,1,10,10,3,2%\n", "data.csv:2: se_pct '2%' is not a number");
	expect_error(SUMMARY "o,0,a,1,10,10,,\no,0,b,1,10,10,3,1\n",
		     "data.csv:3: a row with runs,se_pct in observation 'o', whose row "
		     "at line 2 has none: an observation is intervals or one perf stat "
		     "-r summary");
	expect_error(SUMMARY "o,0,b,1,10,10,3,1\no,0,a,1,10,10,,\n",
		     "data.csv:3: a row without runs,se_pct in observation 'o', whose "
		     "row at line 2 has them: an observation is intervals or one perf "
		     "stat -r summary");
	expect_error(SUMMARY "o,0,a,1,10,10,3,1\no,1,a,1,10,10,3,1\n",
		     "data.csv:3: observation 'o' is a perf stat -r summary (line 2): "
		     "one interval, not intervals 0 and 1");
	expect_error(SUMMARY "o,0,a,1,10,10,3,1\no,0,b,1,10,10,4,1\n",
		     "data.csv:3: runs 4, where line 2 of observation 'o' has 3 (one "
		     "perf stat -r summary)");
	expect_error(SUMMARY "o,0,a,1,10,10,3,1\no,0,a,1,10,10,3,1\n",
		     "data.csv:3: duplicate row for observation 'o', interval 0, "
		     "event 'a' (first at line 2)");
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
	RUN(test_numbers);
	RUN(test_same_rows_any_spelling);
	RUN(test_interleaved_and_repeated);
	RUN(test_duplicates_anywhere);
	RUN(test_file_blocks);
	RUN(test_lazy);
	RUN(test_nul_byte);
	RUN(test_every_bad_row_reported);
	RUN(test_load_files);
	RUN(test_model_events);
	RUN(test_summaries);
	RUN(test_allocation_failures);
	return check_summary();
}
